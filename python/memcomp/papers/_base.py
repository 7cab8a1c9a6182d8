"""The machinery of :func:`memcomp.papers.reproduce`: a paper is a list of :class:`Figure` s, each
computing a long-form table from the datasets (one row per dataset, series and quantity), drawing
it as the paper draws it, and carrying the numbers the paper prints (:class:`PaperValue`) for the
side-by-side table. A figure that needs a simulator (speedup, system energy, area) has no compute
and says so in a note instead of inventing a value."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .._common import check_bool, check_int

if TYPE_CHECKING:
    import pandas

#: Columns of a figure's computed table (long form) and of reproduce's table.
ROW_COLUMNS = ("dataset", "series", "quantity", "value")
TABLE_COLUMNS = (
    "paper",
    "figure",
    "series",
    "quantity",
    "dataset",
    "memcomp_value",
    "paper_value",
    "paper_source",
    "note",
)
#: The dataset name of a summary row (the geometric mean over the datasets, as the papers average).
GEOMEAN = "geomean"


@dataclass(frozen=True)
class PaperValue:
    """A number the paper prints: ``series`` and ``quantity`` as the figure's table names them,
    on the row of ``dataset`` (the papers print averages: :data:`GEOMEAN`), and where it is
    printed (section, figure or table, with the words it is printed in)."""

    series: str
    quantity: str
    value: float
    source: str
    dataset: str = GEOMEAN


@dataclass(frozen=True)
class Figure:
    """One figure or table of a paper. ``compute(ctx)`` returns a DataFrame with
    :data:`ROW_COLUMNS` (and any x columns ``draw`` needs); ``draw(df, fig)`` draws it on a
    matplotlib Figure; ``compute`` None: the figure needs what a dump does not hold (``note``
    says what)."""

    paper: str
    key: str
    title: str
    compute: Optional[Callable[["Context"], "pandas.DataFrame"]] = None
    draw: Optional[Callable[["pandas.DataFrame", Any], None]] = None
    paper_values: Tuple[PaperValue, ...] = ()
    note: str = ""
    width: str = "double"
    height: float = 2.6  # inches


DumpsArg = Union[None, Sequence[Any], Mapping[str, Any]]


@dataclass
class Context:
    """What every figure of a run shares: the datasets (by name, each a path, a Dump or a 1-D
    uint8 array of bytes), how much of each to read (``quick``: the first ``quick_blocks``
    blocks), the threads, and a memo of computations several figures use."""

    sources: Dict[str, Any]
    quick: bool = False
    threads: Optional[int] = None
    quick_blocks: int = 2048
    memo: Dict[Any, Any] = field(default_factory=dict)

    def blocks(self, block_bytes: int) -> Dict[str, Any]:
        """Each dataset as blocks of ``block_bytes`` (a Dump for a file, read a chunk at a time by
        the analyses; an array's whole blocks), the first ``quick_blocks`` of them in quick mode."""
        return self.cached(("blocks", block_bytes), lambda: self._open(block_bytes))

    def _open(self, block_bytes: int) -> Dict[str, Any]:
        from ..blocks import as_blocks
        from ..io import open_dump

        out: Dict[str, Any] = {}
        for name, src in self.sources.items():
            data: Any
            if isinstance(src, np.ndarray):
                if not src.flags.c_contiguous:
                    raise TypeError(f"dataset {name!r}: its array is not contiguous; pass np.ascontiguousarray(x)")
                flat = src.reshape(-1).view(np.uint8)
                whole = flat.size - flat.size % block_bytes
                data = as_blocks(flat[:whole], block_bytes)
            elif isinstance(src, (str, os.PathLike)):
                data = open_dump(src, block_bytes, allow_partial=True)
            else:  # a Dump
                data = (
                    src if int(src.block_bytes) == block_bytes else open_dump(src.path, block_bytes, allow_partial=True)
                )
            if self.quick:
                n = data.shape[0] if isinstance(data, np.ndarray) else data.n_blocks
                data = (
                    data[: self.quick_blocks]
                    if isinstance(data, np.ndarray)
                    else data.read_blocks(0, min(n, self.quick_blocks))
                )
            out[name] = data
        return out

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of non-negative values: 0 if one is 0 (its limit; an error of 0 on a
    dataset with nothing approximated), NaN if one is negative or not finite, or for none."""
    v = np.asarray(values, dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v < 0):
        return math.nan
    if np.any(v == 0):
        return 0.0
    return float(np.exp(np.log(v).mean()))


def with_geomean(df: "pandas.DataFrame", by: Sequence[str] = ("series", "quantity")) -> "pandas.DataFrame":
    """``df`` with a :data:`GEOMEAN` row per ``by`` group: the geometric mean of its datasets."""
    import pandas as pd

    keys = list(by)
    extra = [c for c in df.columns if c not in ROW_COLUMNS and c not in keys]
    rows = []
    for k, g in df.groupby(keys, sort=False):
        k = k if isinstance(k, tuple) else (k,)
        row = dict(zip(keys, k), dataset=GEOMEAN, value=geomean(g["value"]))
        row.update({c: g[c].iloc[0] for c in extra})
        rows.append(row)
    return pd.concat([df, pd.DataFrame(rows)], ignore_index=True)


def table_rows(fig: Figure, df: Optional["pandas.DataFrame"]) -> List[dict]:
    """reproduce's table rows of one figure: each computed row beside the paper's value where the
    paper prints one for it; a figure without a computation lists the paper's values (or one row)
    with its note; a printed value the run has no row for is kept, and said."""
    printed = {(p.series, p.quantity, p.dataset): p for p in fig.paper_values}

    def row(series: str, quantity: str, dataset: str, value: float, p: Optional[PaperValue], note: str) -> dict:
        return dict(
            paper=fig.paper,
            figure=f"{fig.paper} {fig.key}",
            series=series,
            quantity=quantity,
            dataset=dataset,
            memcomp_value=value,
            paper_value=p.value if p else math.nan,
            paper_source=p.source if p else "",
            note=note,
        )

    if df is None:
        if not fig.paper_values:
            return [row("", "", "", math.nan, None, fig.note)]
        return [row(p.series, p.quantity, "", math.nan, p, fig.note) for p in fig.paper_values]
    computed = list(zip(df["series"], df["quantity"], df["dataset"], df["value"].astype(float)))
    rows = [row(s, q, d, v, printed.get((s, q, d)), fig.note) for s, q, d, v in computed]
    seen = {(s, q, d) for s, q, d, _ in computed}
    rows += [row(*key, math.nan, p, "not computed in this run") for key, p in printed.items() if key not in seen]
    return rows


def dataset_bars(quantity: str, ylabel: str, series: Optional[Sequence[str]] = None) -> Callable[..., None]:
    """A figure's draw: one group of bars per dataset (the geometric mean last, its values
    printed), one bar per series (all, or ``series``), for ``quantity``; a line at 1."""

    def draw(df: "pandas.DataFrame", fig: Any) -> None:
        from ..plot import grouped_bars

        d = df[df["quantity"] == quantity]
        if series is not None:
            d = d[d["series"].isin(list(series))]
        grouped_bars(
            d, "dataset", "series", "value", fig.gca(), ylabel=ylabel, xlabel="dataset", labels=[GEOMEAN], baseline=1.0
        )

    return draw


def summary_bars(
    what: Mapping[str, str], xlabel: str, ylabel: str, x: Callable[[str], str] = str, dataset: str = GEOMEAN
) -> Callable[..., None]:
    """A figure's draw: the rows of ``dataset`` (the geometric mean), one group per series
    (labelled ``x(series)``), one bar per quantity named in ``what`` (labelled by it), values printed."""

    def draw(df: "pandas.DataFrame", fig: Any) -> None:
        from ..plot import grouped_bars

        d = df[(df["dataset"] == dataset) & df["quantity"].isin(list(what))]
        d = d.assign(group=d["series"].map(x), bar=d["quantity"].map(dict(what)))
        grouped_bars(
            d, "group", "bar", "value", fig.gca(), ylabel=ylabel, xlabel=xlabel, labels=list(d["group"]), baseline=1.0
        )

    return draw


def check_reproduce_args(quick: Any, threads: Any) -> Tuple[bool, Optional[int]]:
    quick = check_bool("quick", quick)
    if threads is not None:
        threads = check_int("threads", threads, 1)
    return quick, threads
