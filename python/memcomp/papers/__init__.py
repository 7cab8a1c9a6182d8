"""The papers' figures from your own dumps: ``memcomp.papers.reproduce("e2mc", dumps, "out/")``
(``memcomp reproduce`` on the command line; matplotlib and pandas: ``pip install memcomp[plot]``).

Each paper (:data:`PAPERS`) is a list of :class:`Figure` s: every figure and table the paper
computes from memory data, drawn as the paper draws it (same series, block size, MAG and symbol
lengths), written as PDF and PNG, and one table of every number beside the one the paper prints
(``table.csv``: paper, figure, series, quantity, dataset, memcomp_value, paper_value,
paper_source, note). Figures that need a simulator carry the paper's numbers and a note instead
of a memcomp value. With no dumps the datasets are the bundled workloads
(:data:`memcomp.workloads.WORKLOADS`), one dataset each, as the papers average over benchmarks."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import e2mc, mpc, slc, toggle
from ._base import GEOMEAN, TABLE_COLUMNS, Context, Figure, PaperValue, check_reproduce_args, table_rows

if TYPE_CHECKING:
    import pandas

#: The papers reproduce knows, by the name the command line takes, and their figures in order.
PAPERS: Dict[str, Tuple[Figure, ...]] = {
    "e2mc": e2mc.FIGURES,
    "toggle": toggle.FIGURES,
    "mpc": mpc.FIGURES,
    "slc": slc.FIGURES,
}
#: Bytes of each bundled workload: a full run, and quick mode's.
SAMPLE_BYTES = 2 << 20
QUICK_SAMPLE_BYTES = 256 << 10


def figures(paper: str = "all") -> List[Figure]:
    """The figures of ``paper`` (a key of :data:`PAPERS`, or "all")."""
    if not isinstance(paper, str):
        raise TypeError(f"paper must be a name from {sorted(PAPERS)} or 'all', got {type(paper).__name__}")
    if paper == "all":
        return [f for figs in PAPERS.values() for f in figs]
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)} or 'all', got {paper!r}")
    return list(PAPERS[paper])


def _sources(dumps: Union[None, Sequence[Any], Mapping[str, Any]], quick: bool) -> Dict[str, Any]:
    """Datasets by name: the bundled workloads, a mapping of names to paths / Dumps / byte arrays,
    or a sequence of paths (named by file) or Dumps (by their name)."""
    import numpy as np

    if dumps is None:
        from ..workloads import sample

        return dict(sample(QUICK_SAMPLE_BYTES if quick else SAMPLE_BYTES))
    if isinstance(dumps, Mapping):
        return {str(k): v for k, v in dumps.items()}
    if isinstance(dumps, (str, os.PathLike, np.ndarray)) or not isinstance(dumps, Sequence):
        raise TypeError("dumps must be a sequence of paths or Dumps, or a mapping of names to them")
    out: Dict[str, Any] = {}
    for d in dumps:
        if isinstance(d, (str, os.PathLike)):
            if not os.path.exists(d):
                raise FileNotFoundError(f"dump {os.fspath(d)!r} does not exist")
            name = os.path.basename(os.fspath(d)) or os.fspath(d)
        elif hasattr(d, "block_bytes") and hasattr(d, "name"):
            name = str(d.name)
        else:
            raise TypeError(f"a dump is a path or a Dump, got {type(d).__name__}; name arrays in a mapping")
        while name in out:
            name += "'"
        out[name] = d
    if not out:
        raise ValueError("dumps is empty: give dump paths, or None for the bundled workloads")
    return out


def _draw(fig: Figure, df: "pandas.DataFrame", out: str, formats: Sequence[str]) -> List[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import WIDTHS, paper_style

    written = []
    with paper_style(fig.width):
        f = plt.figure(figsize=(WIDTHS[fig.width], fig.height), constrained_layout=True)
        try:
            assert fig.draw is not None
            fig.draw(df, f)
            f.suptitle(f"{fig.paper.upper()} {fig.key}: {fig.title}", x=0.01, ha="left", fontsize=8)
            for ext in formats:
                path = os.path.join(out, f"{fig.paper}_{fig.key}.{ext}")
                f.savefig(path)
                written.append(path)
        finally:
            plt.close(f)
    return written


def reproduce(
    paper: str = "all",
    dumps: Union[None, Sequence[Any], Mapping[str, Any]] = None,
    out: Optional[Union[str, os.PathLike]] = None,
    *,
    quick: bool = False,
    threads: Optional[int] = None,
    formats: Sequence[str] = ("pdf", "png"),
) -> "pandas.DataFrame":
    """Every figure of ``paper`` (a key of :data:`PAPERS`, or "all") on ``dumps`` (None: the bundled workloads),
    and the table of memcomp's numbers beside the paper's (returned; with ``out``, also written
    as ``out/table.csv`` beside ``out/<paper>_<figure>.pdf`` and ``.png``). ``quick`` reads
    the first 2048 blocks of each dataset (the bundled workloads at 256 KiB each)."""
    import pandas as pd

    figs = figures(paper)
    quick, threads = check_reproduce_args(quick, threads)
    ctx = Context(_sources(dumps, quick), quick=quick, threads=threads)
    if out is not None:
        out = os.fspath(out)
        os.makedirs(out, exist_ok=True)
    rows: List[dict] = []
    for fig in figs:
        df = fig.compute(ctx) if fig.compute is not None else None
        rows += table_rows(fig, df)
        if out is not None and df is not None and fig.draw is not None:
            _draw(fig, df, out, formats)
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    if out is not None:
        table.to_csv(os.path.join(out, "table.csv"), index=False)
    return table


__all__ = ["GEOMEAN", "PAPERS", "Figure", "PaperValue", "figures", "reproduce"]
