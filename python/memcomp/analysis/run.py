"""Running an analysis (DESIGN "Analyses are one protocol"): :func:`fold` is the only chunk loop,
:func:`run` runs any registered analysis over an array, a Dump or a stream, serially (the C++
kernels on ``threads`` threads) and in bounded memory: one chunk of ``chunk_blocks`` blocks at a
time. :func:`memcomp.dask.run` runs the same analyses on Dask."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._common import (
    Progress,
    ProgressArg,
    block_bytes_of,
    check_chunk_blocks,
    check_progress,
    check_threads,
    chunks,
    fit_sample,
    n_blocks_of,
)
from .._common import source_of as _source_of
from .base import Analysis

__all__ = ["CHUNK_BLOCKS", "Pooled", "as_units", "closed", "draw", "fold", "run", "run_each", "units_of"]

#: Blocks per chunk by default.
CHUNK_BLOCKS = 1 << 18


def fold(
    analysis: Analysis,
    data: Any,
    carry: Any,
    *,
    first: int = 0,
    threads: Optional[int] = None,
    chunk_blocks: int = CHUNK_BLOCKS,
    step: Optional[Progress] = None,
    done: int = 0,
) -> Tuple[Any, Any]:
    """(merged partial, carry after the last block) of ``analysis`` over ``data`` from ``carry``;
    ``first`` is the index of ``data``'s first block in its dataset. At least one chunk (an empty
    dataset gives one empty chunk), so there is always a partial to finish. Partials merge in
    order, earlier on the left, as a binary counter: chunks of equal size first, so a partial that
    grows with the data (distinct 32-bit symbols) is merged O(log chunks) times, not once a chunk."""
    stack: List[Tuple[int, Any]] = []  # merged partials, by level: a binary counter
    n = first
    unit = analysis.unit_bytes
    for chunk in chunks(data, chunk_blocks):
        if unit and chunk.ndim == 2 and chunk.shape[1] != unit:
            chunk = as_units(chunk, unit)
        part, carry = analysis.partial(chunk, carry, n, threads)
        level = 0
        while stack and stack[-1][0] == level:  # equal sizes merge: O(log chunks) merges per block
            part = analysis.merge(stack.pop()[1], part)
            level += 1
        stack.append((level, part))
        n += int(chunk.shape[0]) if chunk.ndim == 2 else 0
        if step is not None:
            step(done + n - first)
    total = stack.pop()[1]
    while stack:
        total = analysis.merge(stack.pop()[1], total)
    return total, carry


def as_units(chunk: np.ndarray, unit: int) -> np.ndarray:
    """``(n, B)`` blocks as ``(n B / unit, unit)`` units, zero-copy (a block's units in order)."""
    B = int(chunk.shape[1])
    if B % unit:
        raise ValueError(f"the analysis works on {unit} B units, which do not divide the {B} B blocks")
    return chunk.reshape(-1, unit)


def units_of(analysis: Analysis, data: Any) -> Tuple[int, Optional[int]]:
    """(block or unit bytes, blocks or units) of ``data`` as ``analysis`` counts them."""
    B, n = block_bytes_of(data), n_blocks_of(data)
    unit = analysis.unit_bytes
    if not unit or unit == B:
        return B, n
    as_units(np.empty((0, B), np.uint8), unit)  # B must be a multiple
    return unit, None if n is None else n * (B // unit)


class Pooled:
    """Datasets read one after another as one dataset (for an analysis whose datasets make one
    result, ``per_dataset`` False), in units of ``unit`` bytes (default: their common block size)."""

    def __init__(self, datasets: Sequence[Any], unit: Optional[int] = None) -> None:
        if not datasets:
            raise ValueError("no datasets given")
        sizes = {block_bytes_of(d) for d in datasets}
        if unit is None and len(sizes) > 1:
            raise ValueError(f"datasets of different block sizes ({sorted(sizes)} B) cannot be read as one")
        self.datasets = list(datasets)
        self.block_bytes = unit or sizes.pop()
        for B in sizes:
            as_units(np.empty((0, B), np.uint8), self.block_bytes)

    @property
    def n_blocks(self) -> Optional[int]:
        total = 0
        for d in self.datasets:
            n = n_blocks_of(d)
            if n is None:
                return None
            total += n * block_bytes_of(d) // self.block_bytes
        return total

    def chunks(self, chunk_blocks: int):
        for d in self.datasets:
            for chunk in chunks(d, chunk_blocks):
                if chunk.ndim == 2 and chunk.shape[0]:
                    yield as_units(chunk, self.block_bytes) if chunk.shape[1] != self.block_bytes else chunk

    def provenance(self) -> Dict[str, Any]:
        from ..models import _source  # a dump's dataset, file and byte range, or an array's shape

        return {"datasets": [_source(d) for d in self.datasets]}


def closed(analysis: Analysis, total: Any, carry: Any) -> Any:
    """``total`` with what ``carry`` holds after the dataset's last block (:meth:`Analysis.close`)."""
    extra = analysis.close(carry)
    return total if extra is None else analysis.merge(total, extra)


def draw(data: Any, want: Union[str, int]) -> tuple:
    """``(blocks, how)`` of ``data`` as :meth:`Analysis.samples` asks: ``"fit"`` the bounded fit
    sample (:func:`memcomp._common.fit_sample`: ``offline``, ``sample(64 MiB)``, ``head(64 MiB)``),
    n its first n blocks (``head(n blocks)``), read from a Dump's file, never its map."""
    if want == "fit":
        return fit_sample(data)
    n = int(want)
    if isinstance(data, np.ndarray):
        blocks = data[:n]
    elif hasattr(data, "head"):  # a stream: kept, so its chunks still start with these blocks
        blocks = data.head(n * block_bytes_of(data))
    else:
        blocks = data.read_blocks(0, min(n, len(data)))
    return np.ascontiguousarray(blocks), f"head({n} blocks)"


def run(
    analysis: Analysis,
    data: Any,
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = CHUNK_BLOCKS,
    progress: ProgressArg = None,
    sample: Optional[tuple] = None,
) -> Any:
    """``analysis`` over ``data`` (an ``(n, B)`` uint8 array, a Dump or a stream), serially: its
    result (a long-form table with the data's provenance on every row). ``progress``: True draws
    a progress bar, a callable gets ``(blocks done, total)`` after each chunk."""
    if not isinstance(analysis, Analysis):
        raise TypeError(f"analysis must be a memcomp Analysis, got {type(analysis).__name__}")
    check_chunk_blocks(chunk_blocks)
    check_threads(threads)
    check_progress(progress)
    passes = []
    a: Optional[Analysis] = analysis
    while a is not None:
        r = a.resolve(*units_of(a, data))
        want = r.samples()
        p = r.prepare(
            None if want is None else sample if sample is not None and want == "fit" else draw(data, want), threads
        )
        with Progress(progress, units_of(p, data)[1], p.name) as step:
            total, end = fold(p, data, p.start(), threads=threads, chunk_blocks=chunk_blocks, step=step)
        total = closed(p, total, end)
        passes.append(p)
        a = p.then(total)
        if a is not None:
            data = again(data)
    return passes[-1].finish(total, _source_of(data))


def again(data: Any) -> Any:
    """``data`` to be read from its start once more: a stream opened again (a pipe cannot be:
    ValueError), anything else as it is."""
    if isinstance(data, Pooled):
        return Pooled([again(d) for d in data.datasets], data.block_bytes)
    return data.again() if hasattr(data, "again") else data


def run_each(analysis: Analysis, datasets: Sequence[Any], **kw: Any) -> Any:
    """``analysis`` over each of ``datasets``: their tables concatenated in order (a ``dataset``
    column names each), or, for an analysis whose datasets make one result (``per_dataset``
    False), that result over all of them in order."""
    if not analysis.per_dataset:
        return run(analysis, Pooled(list(datasets), analysis.unit_bytes), **kw)
    return concat([named(run(analysis, d, **kw), d) for d in datasets])


def named(result: Any, d: Any) -> Any:
    """``result`` (a table or a tuple of tables) with a ``dataset`` column naming ``d``."""
    for df in result if isinstance(result, tuple) else (result,):
        if hasattr(df, "columns") and "dataset" not in df.columns:
            df.insert(0, "dataset", getattr(d, "name", None))
    return result


def concat(results: Sequence[Any]) -> Any:
    """Tables of several datasets concatenated in order (a tuple of tables: table by table)."""
    import pandas as pd

    if results and isinstance(results[0], tuple):
        return tuple(concat([r[k] for r in results]) for k in range(len(results[0])))
    frames = [r for r in results if len(r.columns)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
