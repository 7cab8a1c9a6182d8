"""memcomp on Dask (optional extra ``dask``): :func:`compare`, :func:`entropy_table`,
:func:`toggles_compare` and :func:`mpc_train` over many dumps, or dumps larger than one machine,
with the same result as the serial call.

Every analysis is a sum of mergeable partial results (DESIGN "Results": the monoid rule; integer
histograms and counts, so the order of additions cannot change an answer). A dataset is cut into
parts of about ``partition_bytes``: a memory-mapped dump into byte ranges that each task maps
again on its worker (:meth:`memcomp.io.Dump.part`: only the path and range travel), a dask array
into its chunks along the first axis. Tasks compute the partials (``report.collect_stats``,
``entropy.table_stats``, ``mpc.train_stats`` / ``train_scans``), a tree of tasks adds them, and
the table is made from the total exactly as the serial call makes it. Data-driven codecs are
fitted once per dataset, on a worker, on the same bounded sample the serial call uses.

The bus state of :func:`toggles_compare` runs through a dataset in order: each part starts from
the states that replaying the blocks before it gives, and the parts are joined only where each
starts exactly where the one before ended (else it is counted again from the true states). What
cannot be cut runs over its dataset in one task (datasets still run in parallel): a stateful
codec (``cpack.skku``, ``cpack.cal22``) and a compressed dump (``.gz``, ``.zst``, ...). A pipe or
FIFO cannot be shipped to a worker: save it to a file first.

Rows carry the serial calls' provenance columns (dataset, file, format, byte range, memcomp
version, config); a dask array gives its name as the dataset, no file, format ``"dask"`` and its
byte range. A dask array dataset is ``(n, B)`` uint8 blocks (``x.reshape(-1, B)`` of a flat one).

Results are computed with :func:`dask.compute`: on the active ``distributed.Client`` if there is
one (or the ``client`` given), else on Dask's default local scheduler. Each task runs the C++ core
on ``threads`` threads (default 1: the workers are the parallelism; the core releases the GIL, so
threaded workers run in parallel too)::

    from distributed import Client, LocalCluster
    import memcomp.dask

    with Client(LocalCluster(n_workers=2, threads_per_worker=1)):
        df = memcomp.dask.compare("dumps/*.bin", "defaults", block_bytes=128)
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

try:
    import dask
    import dask.array as _da
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError("memcomp.dask needs Dask: pip install 'memcomp[dask]'") from e

from . import entropy as _entropy
from . import mpc as _mpc
from . import report as _report
from . import toggles as _toggles
from ._common import block_bytes_of, check_chunk_blocks, check_int, sample_how, sample_index, source_of
from .analysis.base import Analysis
from .analysis.run import CHUNK_BLOCKS, Pooled, as_units, closed, concat, draw, fold, named, units_of
from .io import Dump, StreamDump, open_dumps

if TYPE_CHECKING:
    import pandas

__all__ = ["compare", "entropy_table", "mpc_train", "run", "toggles_compare", "PARTITION_BYTES"]

#: Bytes per task when a dataset is cut into parts.
PARTITION_BYTES = 64 << 20

_delayed = dask.delayed(pure=False)


# ------------------------------------------------------------------------------------ datasets
def _datasets(data: Any, block_bytes: Optional[int], allow_partial: bool) -> List[Any]:
    """The datasets of ``data``: Dumps (from paths, directories and globs too), (n, B) uint8
    arrays and dask arrays, in order."""
    items = list(data) if isinstance(data, (list, tuple)) else [data]
    if not items:
        raise ValueError("no datasets given")
    out: List[Any] = []
    for x in items:
        if isinstance(x, (str, os.PathLike)):
            out.extend(open_dumps(x, block_bytes=block_bytes, allow_partial=allow_partial))
        elif isinstance(x, (_da.Array, np.ndarray)):
            if x.ndim != 2 or x.dtype != np.uint8:
                raise TypeError(
                    f"an array dataset must be (n, B) uint8 blocks, got shape {x.shape} of {x.dtype}; "
                    f"{_blocks_hint(x, block_bytes)}"
                )
            if isinstance(x, _da.Array) and any(np.isnan(c) for c in x.chunks[0]):
                raise ValueError("the dask array's chunk sizes are unknown: call .compute_chunk_sizes() first")
            out.append(x)
        elif isinstance(x, StreamDump):
            if x.format == "stream":
                raise ValueError(
                    f"{str(x.path)!r} is a pipe, FIFO or device: it is read once by this process and "
                    "cannot be shipped to Dask workers; save it to a file, or use the serial call"
                )
            out.append(x)
        elif isinstance(x, Dump):
            out.append(x)
        else:
            raise TypeError(
                f"a dataset is a path, a glob, a memcomp Dump, an (n, B) uint8 ndarray or a dask array, "
                f"got {type(x).__name__}"
            )
    return out


def _blocks_hint(x: Any, block_bytes: Optional[int]) -> str:
    """The call that makes ``x`` (an ndarray or dask array) (n, B) uint8 blocks."""
    B = block_bytes or 128
    per = "" if block_bytes else f" (or your block size for {B})"
    if isinstance(x, np.ndarray):
        return f"use memcomp.as_blocks(array, {B}){per}"
    call = ("x" if x.dtype == np.uint8 else "x.view(np.uint8)") + ("" if x.ndim == 1 else ".reshape(-1)")
    nbytes = x.nbytes  # (dask reshapes only merge or split dimensions evenly: flat first)
    if not np.isnan(nbytes) and int(nbytes) % B:  # whole blocks only: the tail is cut off
        call += f"[:{int(nbytes) // B * B}]"
    return f"for a dask array x use {call}.reshape(-1, {B}){per}; memcomp.as_blocks takes NumPy arrays"


def _parts(d: Any, partition_bytes: int, whole: bool = False) -> List[Tuple[Any, int]]:
    """(part, index of its first block) covering dataset ``d`` in order; one part if ``whole``."""
    if isinstance(d, _da.Array):
        d = d.rechunk({1: -1})
        if whole:
            return [(_delayed(np.concatenate)(list(d.to_delayed().ravel())), 0)]
        starts = np.concatenate([[0], np.cumsum(d.chunks[0])[:-1]]).astype(int)
        return list(zip(d.to_delayed().ravel(), (int(s) for s in starts)))
    if isinstance(d, StreamDump) or whole:
        return [(d, 0)]
    n, B = len(d), block_bytes_of(d)
    step = max(1, partition_bytes // max(B, 1))
    if n <= step:
        return [(d, 0)]
    cut = d.part if isinstance(d, Dump) else (lambda s, e: d[s:e])
    return [(cut(s, min(s + step, n)), s) for s in range(0, n, step)]


def _n_blocks(d: Any) -> int:
    return int(d.shape[0]) if isinstance(d, (np.ndarray, _da.Array)) else int(len(d))


def _known_blocks(d: Any) -> Optional[int]:
    return None if isinstance(d, StreamDump) else _n_blocks(d)


def _block_bytes(d: Any) -> int:
    return int(d.shape[1]) if isinstance(d, _da.Array) else block_bytes_of(d)


def _source(d: Any) -> dict:
    """The provenance columns of dataset ``d``: a Dump's (the serial calls' ``source_of``); for a
    dask array what it can say: its name as the dataset, no file, format ``"dask"`` and its byte
    range."""
    if isinstance(d, _da.Array):
        return {"dataset": d.name, "file": None, "format": "dask", "offset_begin": 0, "offset_end": int(d.nbytes)}
    return source_of(d)


def _partials(fn: Callable[..., Any], d: Any, parts: List[Tuple[Any, int]], *a: Any, **kw: Any) -> Tuple[Any, Any]:
    """(sum of ``fn(part, *a, **kw)`` over ``parts``, provenance of ``d``) as delayed values. A
    stream's provenance (its length) is known once it has been read: its one task returns it."""
    if isinstance(d, StreamDump):
        out = _delayed(_with_source)(fn, parts[0][0], *a, **kw)
        return out[0], out[1]
    return _tree([_delayed(fn)(p, *a, **kw) for p, _ in parts], _sum), _source(d)


def _with_source(fn: Callable[..., Any], part: Any, *a: Any, **kw: Any) -> tuple:
    result = fn(part, *a, **kw)
    return result, source_of(part)


def _tree(items: Sequence[Any], combine: Callable[..., Any], fan_in: int = 8) -> Any:
    """A tree of tasks adding ``items`` ``fan_in`` at a time."""
    items = list(items)
    while len(items) > 1:
        items = [_delayed(combine)(*items[i : i + fan_in]) for i in range(0, len(items), fan_in)]
    return items[0]


def _sum(*parts: Any) -> Any:
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def _compute(graphs: Sequence[Any], client: Any) -> tuple:
    return dask.compute(*graphs, scheduler=client) if client is not None else dask.compute(*graphs)


def _concat(frames: Sequence[Any]) -> "pandas.DataFrame":
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def _check_partition(partition_bytes: Any) -> int:
    return check_int("partition_bytes", partition_bytes, 1)


# ------------------------------------------------------------------------------------- the runner
def _sample_for(d: Any, want: Any) -> Any:
    """What a prepare task gets of dataset ``d`` for ``want`` (:meth:`Analysis.samples`): the
    dataset itself when a worker can map or reopen it (it draws the serial call's sample there),
    else the sample as (blocks, how)."""
    if isinstance(d, _da.Array):
        if want == "fit":
            idx = sample_index(d.shape[0], d.shape[1])
            return None, None, ((d if idx is None else d[idx]).rechunk({0: -1, 1: -1}), sample_how(idx))
        return None, None, (d[: int(want)].rechunk({0: -1, 1: -1}), f"head({int(want)} blocks)")
    if isinstance(d, StreamDump) or (isinstance(d, Dump) and d._mmap is not None):
        return d, want, None
    return None, None, draw(d, want)


def _prepare(a: Analysis, d: Any, want: Any, sample: Any, threads: Optional[int]) -> Analysis:
    if sample is None:
        sample = draw(d, want)
    return a.prepare((np.ascontiguousarray(sample[0]), str(sample[1])), threads)


def _part_task(
    a: Analysis,
    part: Any,
    warm: Any,
    first: int,
    threads: Optional[int],
    chunk_blocks: int,
    start: Any = None,
    given: bool = False,
) -> tuple:
    """(partial, carry it started from, carry it ended with, provenance) of ``part`` (block or
    unit ``first`` on of its group): from the carry ``start`` if ``given``, else from the one
    replaying ``warm`` (the blocks before it) from the initial carry ends in."""
    carry = start if given else a.start()
    if not given and warm is not None:
        before = int(units_of(a, warm)[1] or 0)  # a slice of a file or array: its length is known
        _, carry = fold(a, warm, carry, first=first - before, threads=threads, chunk_blocks=chunk_blocks)
    entry = carry if a.carried else None
    total, end = fold(a, part, carry, first=first, threads=threads, chunk_blocks=chunk_blocks)
    return total, entry, end, source_of(part)


def _merge(a: Analysis) -> Callable[..., Any]:
    def merged(*parts: Any) -> Any:
        total = parts[0]
        for p in parts[1:]:
            total = a.merge(total, p)
        return total

    return merged


def _source_of_task(task: tuple) -> Any:
    return task[3]


def _split(a: Analysis, total: Any) -> List[Any]:
    pieces = a.split(total)
    if len(pieces) != a.shards:
        raise RuntimeError(f"{a.name} split a partial into {len(pieces)} pieces, not its {a.shards} shards")
    return pieces


def _compact(a: Analysis, piece: Any) -> Any:
    return a.compact(piece)


def _first_of(parts: Sequence[Any]) -> Any:
    return parts[0]


def _group_parts(a: Analysis, ds: List[Any], partition_bytes: int, warm: int) -> List[Tuple[Any, int, Any]]:
    """(part, index of its first block or unit in the group, the blocks before it to warm up on)
    covering the datasets ``ds`` of a group in order; one part if ``a`` is not splittable."""
    unit = a.unit_bytes
    if not a.splittable(_block_bytes(ds[0])):
        return [(ds[0] if len(ds) == 1 else Pooled(ds, unit), 0, None)]
    out, base = [], 0
    for k, d in enumerate(ds):
        per = _block_bytes(d) // unit if unit else 1
        for p, s in _parts(d, partition_bytes):
            before = None if s == 0 or not a.carried else _slice(d, max(0, s - warm), s)
            out.append((p, base + s * per, before))
        if k + 1 < len(ds):
            if isinstance(d, StreamDump):
                raise ValueError(
                    f"{str(d.path)!r} is read as a stream, whose length is unknown until it has been read: "
                    "decompress it to a file to pool it with other datasets, or use the serial call"
                )
            base += _n_blocks(d) * per
    return out


def _group_shape(a: Analysis, ds: List[Any]) -> Tuple[int, Optional[int]]:
    """(block or unit bytes, blocks or units) of a group as ``a`` counts them."""
    unit = a.unit_bytes
    sizes = {_block_bytes(d) for d in ds}
    if not unit and len(sizes) > 1:
        raise ValueError(f"datasets of different block sizes ({sorted(sizes)} B) cannot be read as one")
    size = unit or sizes.pop()
    total: Optional[int] = 0
    for d in ds:
        n = _known_blocks(d)
        if n is None or total is None:
            total = None
            continue
        B = _block_bytes(d)
        as_units(np.empty((0, B), np.uint8), size)
        total += n * B // size
    return size, total


def run(
    analysis: Analysis,
    data: Any,
    *,
    block_bytes: Optional[int] = None,
    allow_partial: bool = False,
    threads: Optional[int] = 1,
    chunk_blocks: int = CHUNK_BLOCKS,
    partition_bytes: int = PARTITION_BYTES,
    warmup_blocks: Optional[int] = None,
    client: Any = None,
) -> Any:
    """Any registered analysis (:mod:`memcomp.analysis`) over every dataset of ``data`` on Dask:
    the serial :func:`memcomp.analysis.run_each`'s result, bit for bit.

    ``data`` is a path, directory or glob (opened with :func:`memcomp.open_dumps` and
    ``block_bytes``), a Dump, an ``(n, B)`` uint8 ndarray or dask array, or a list of them. Each
    dataset (all of them as one, for an analysis whose datasets make one result) is resolved
    here (warnings reach you), prepared once on a worker (data-driven codecs fitted on the serial
    call's sample), cut into parts of about ``partition_bytes`` whose partials a tree of tasks
    merges in order, and finished. A part of a ``carried`` analysis starts from the carry that
    replaying its ``warmup_blocks`` preceding blocks gives (default the analysis's own); the
    parts are joined in order, each checked to start where the one before ended, and counted
    again from the true carry where it did not. An analysis that is not ``splittable`` (a
    stateful codec) and a compressed dump run as one part (datasets still run in parallel)."""
    if not isinstance(analysis, Analysis):
        raise TypeError(f"analysis must be a memcomp Analysis, got {type(analysis).__name__}")
    check_chunk_blocks(chunk_blocks)
    partition_bytes = _check_partition(partition_bytes)
    warm = analysis.warmup_blocks if warmup_blocks is None else check_int("warmup_blocks", warmup_blocks, 1)
    datasets = _datasets(data, block_bytes, allow_partial)
    groups = [[d] for d in datasets] if analysis.per_dataset else [datasets]
    jobs: List[Any] = [analysis.resolve(*_group_shape(analysis, ds)) for ds in groups]
    results: List[Any] = [None] * len(groups)
    todo = list(range(len(groups)))
    while todo:
        graphs, cut = [], {}
        for i in todo:
            ds, a = groups[i], jobs[i]
            want = a.samples()
            if want is not None and len(ds) > 1:
                raise ValueError(f"{a.name} samples its data: run it on one dataset at a time")
            prepared = (
                a.prepare(None, threads) if want is None else _delayed(_prepare)(a, *_sample_for(ds[0], want), threads)
            )
            cut[i] = _group_parts(a, ds, partition_bytes, warm)
            tasks = [_delayed(_part_task)(prepared, p, w, s, threads, chunk_blocks) for p, s, w in cut[i]]
            if a.carried or (len(tasks) == 1 and a.shards <= 1):  # joined here, in order, closed with the true carry
                graphs.append((prepared, tasks, None))
            else:
                merge = _delayed(_merge)(prepared)
                totals = [_delayed(_first_of)(t) for t in tasks]
                if a.shards > 1:  # each shard merged and compacted on its own: no task holds the whole
                    pieces = [_delayed(_split, nout=a.shards)(prepared, t) for t in totals]
                    totals = [
                        _delayed(_compact)(prepared, _tree([p[g] for p in pieces], merge)) for g in range(a.shards)
                    ]
                merged = _tree(totals, merge)
                graphs.append((prepared, [_delayed(_source_of_task)(tasks[0])] if len(tasks) == 1 else [], merged))
        done = _compute(graphs, client)
        again = []
        for i, (prepared, tasks, merged) in zip(todo, done):
            ds = groups[i]
            if merged is None:
                total, _, end, source = tasks[0]
                for (p, s, _), (part_total, entry, part_end, _) in zip(cut[i][1:], tasks[1:]):
                    if entry != end:  # the warm-up did not reach the true carry: count it again
                        ((part_total, _, part_end, _),) = _compute(
                            [_delayed(_part_task)(prepared, p, None, s, threads, chunk_blocks, start=end, given=True)],
                            client,
                        )
                    total, end = prepared.merge(total, part_total), part_end
                total = closed(prepared, total, end)
            else:
                total, source = merged, tasks[0] if tasks else None
            if len(ds) > 1:
                source = Pooled(ds, prepared.unit_bytes).provenance()
            elif not isinstance(ds[0], StreamDump):  # a stream's provenance: what its task read
                source = _source(ds[0])
            nxt = prepared.then(total)
            if nxt is not None:
                jobs[i] = nxt.resolve(*_group_shape(nxt, ds))
                again.append(i)
                continue
            out = prepared.finish(total, source)
            results[i] = named(out, ds[0]) if prepared.per_dataset else out
        todo = again
    return concat(results) if analysis.per_dataset else results[0]


# ------------------------------------------------------------------------------------- compare
def compare(
    data: Any,
    codecs: _report.CodecsArg = ("bdi", "fpc"),
    *,
    mag: int = 32,
    u_min: int = 1,
    policy: Optional[str] = None,
    count_tag: bool = False,
    oracle: Any = "exact",
    codec_mag: bool = False,
    block_bytes: Optional[int] = None,
    allow_partial: bool = False,
    threads: Optional[int] = 1,
    chunk_blocks: int = 1 << 18,
    partition_bytes: int = PARTITION_BYTES,
    client: Any = None,
) -> "pandas.DataFrame":
    """:func:`memcomp.report.compare` of every dataset of ``data`` on Dask (:func:`run` of
    :class:`memcomp.report.Compare`), rows concatenated in dataset order: equal to
    ``pd.concat([report.compare(d, codecs, ...) for d in datasets])``."""
    a = _report.Compare(
        codecs=codecs, mag=mag, u_min=u_min, policy=policy, count_tag=count_tag, oracle=oracle, codec_mag=codec_mag
    )
    return run(
        a,
        data,
        block_bytes=block_bytes,
        allow_partial=allow_partial,
        threads=threads,
        chunk_blocks=chunk_blocks,
        partition_bytes=partition_bytes,
        client=client,
    )


# ------------------------------------------------------------------------------------- entropy
def entropy_table(
    data: Any,
    symbol_bits: Sequence[int] = _entropy.SYMBOL_BITS,
    *,
    mfv: int = 1024,
    endian: str = "little",
    block_bytes: Optional[int] = None,
    allow_partial: bool = False,
    threads: Optional[int] = 1,
    chunk_blocks: int = 1 << 18,
    partition_bytes: int = PARTITION_BYTES,
    client: Any = None,
) -> "pandas.DataFrame":
    """:func:`memcomp.entropy.table` of every dataset of ``data`` (as in :func:`compare`) on
    Dask (:func:`run` of :class:`memcomp.entropy.EntropyTable`), rows concatenated in dataset
    order."""
    return run(
        _entropy.EntropyTable(symbol_bits=symbol_bits, mfv=mfv, endian=endian),
        data,
        block_bytes=block_bytes,
        allow_partial=allow_partial,
        threads=threads,
        chunk_blocks=chunk_blocks,
        partition_bytes=partition_bytes,
        client=client,
    )


# ------------------------------------------------------------------------------------- toggles
#: Blocks a part of a carried analysis (:func:`toggles_compare`) replays before its first block to
#: learn the carry it starts from.
WARMUP_BLOCKS = 1024


def _slice(d: Any, start: int, stop: int) -> Any:
    return d.part(start, stop) if isinstance(d, Dump) else d[start:stop]


def toggles_compare(
    data: Any,
    codecs: Any = ("bdi", "fpc", "fpc.mc", "cpack", "cpack.mc"),
    *,
    block_bytes: Optional[int] = None,
    allow_partial: bool = False,
    threads: Optional[int] = 1,
    chunk_blocks: int = 1 << 16,
    partition_bytes: int = PARTITION_BYTES,
    warmup_blocks: int = WARMUP_BLOCKS,
    client: Any = None,
    **kw: Any,
) -> "pandas.DataFrame":
    """:func:`memcomp.toggles.compare` of every dataset of ``data`` (as in :func:`compare`) on
    Dask (:func:`run` of :class:`memcomp.toggles.Toggles`), rows concatenated in dataset order;
    ``kw`` are toggles.compare's bus, EC and energy options.

    The bus state runs through a dataset in order, so a part's counts depend on the states the
    part before it ended in. Each part therefore starts from the states that replaying its
    ``warmup_blocks`` preceding blocks gives (a wire state forgets its past after a few transfers,
    but blocks that send nothing, such as zero blocks, keep it: hence a long warm-up), and the
    parts are then joined in order, each checked to start where the one before ended (the states
    are compared exactly); a part that does not is counted again from the true states. The result
    is the serial call's, bit for bit, whatever the data. Stateful codecs make a dataset one task."""
    a = _toggles.Toggles(codecs=codecs, **kw)
    datasets = _datasets(data, block_bytes, allow_partial)
    bu_all = a.setup.bu_all
    if bu_all is not None:
        if len(datasets) != 1:
            raise ValueError("a per-block bu array needs exactly one dataset")
        n = None if isinstance(datasets[0], StreamDump) else _n_blocks(datasets[0])
        if bu_all.shape != (n,):
            raise ValueError(f"bu must be a number or have one entry per block ({n}), got shape {bu_all.shape}")
    return run(
        a,
        datasets,
        threads=threads,
        chunk_blocks=chunk_blocks,
        partition_bytes=partition_bytes,
        warmup_blocks=warmup_blocks,
        client=client,
    )


# ----------------------------------------------------------------------------------------- mpc
def mpc_train(
    data: Any,
    labels: Optional[Sequence[int]] = None,
    *,
    zeros: str = "buckets",
    quantiser: str = "floor",
    weight: str = "mean",
    seed: int = 0,
    max_blocks: Optional[int] = None,
    block_bytes: Optional[int] = None,
    allow_partial: bool = False,
    threads: Optional[int] = 1,
    chunk_blocks: int = 1 << 18,
    partition_bytes: int = PARTITION_BYTES,
    client: Any = None,
) -> "_mpc.MPCModel":
    """:func:`memcomp.mpc.train` on the datasets of ``data`` (as in :func:`compare`; all of them
    train one model, as the serial call on their list) on Dask (:func:`run` of
    :class:`memcomp.mpc.TrainMPC`): pass 1's :class:`~memcomp.mpc.TrainStats` of every part are
    added up, the predictors are made from the total, pass 2's residue counts are added up, and
    the modules are made from both. ``labels`` has one entry per 32 B sector over all datasets.
    The model's provenance has no SHA-256 (the bytes are read in parts, not in one order)."""
    _mpc.check_train_options(zeros, quantiser, weight, max_blocks)
    datasets = _datasets(data, block_bytes, allow_partial)
    for d in datasets:
        if isinstance(d, StreamDump):
            raise ValueError(
                f"{str(d.path)!r} is read as a stream, whose length is unknown until it has been read: "
                "decompress it to a file for memcomp.dask.mpc_train, or use memcomp.mpc.train"
            )
    a = _mpc.TrainMPC(labels=labels, zeros=zeros, quantiser=quantiser, weight=weight, seed=seed, max_blocks=max_blocks)
    return run(a, datasets, threads=threads, chunk_blocks=chunk_blocks, partition_bytes=partition_bytes, client=client)
