"""Running an analysis (DESIGN "Analyses are one protocol"): :func:`fold` is the only chunk loop,
:func:`run` runs any registered analysis over an array, a Dump or a stream, serially (the C++
kernels on ``threads`` threads) and in bounded memory: one chunk of ``chunk_blocks`` blocks at a
time. :func:`memcomp.dask.run` runs the same analyses on Dask."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

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

__all__ = ["CHUNK_BLOCKS", "closed", "draw", "fold", "run", "run_each"]

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
    for chunk in chunks(data, chunk_blocks):
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
        r = a.resolve(block_bytes_of(data), n_blocks_of(data))
        want = r.samples()
        p = r.prepare(
            None if want is None else sample if sample is not None and want == "fit" else draw(data, want), threads
        )
        with Progress(progress, n_blocks_of(data), p.name) as step:
            total, end = fold(p, data, p.start(), threads=threads, chunk_blocks=chunk_blocks, step=step)
        total = closed(p, total, end)
        passes.append(p)
        a = p.then(total)
    return passes[-1].finish(total, _source_of(data))


def run_each(analysis: Analysis, datasets: Sequence[Any], **kw: Any) -> Any:
    """``analysis`` over each of ``datasets``: their tables concatenated in order (a ``dataset``
    column names each), or, for an analysis whose datasets make one result (``per_dataset``
    False), that result over all of them in order."""
    import pandas as pd

    if not analysis.per_dataset:
        from .pooled import Pooled

        return run(analysis, Pooled(list(datasets)), **kw)
    frames = []
    for d in datasets:
        df = run(analysis, d, **kw)
        if "dataset" not in df.columns:
            df.insert(0, "dataset", getattr(d, "name", None))
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
