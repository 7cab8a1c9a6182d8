"""Exact counts of 32-bit symbols in bounded memory (SPEC 3's SL-32 bounds; DESIGN "Results": the
monoid rule). A dump of n words can hold n distinct 32-bit values (half of the bundled sample's are
distinct, so 8 GiB holds about 10^9), which no in-memory histogram bounds. Here counts are kept as
runs of (key, count) sorted by the value's **key** (``value * 0x9E3779B1 mod 2^32``, a bijection
whose top bits are the value's shard), so every run is partitioned into shards as it is sorted; a
run that outgrows :data:`RUN_ENTRIES` entries is written to a temporary file (``MEMCOMP_TMPDIR``,
else the system's), and a result is read back one shard at a time, so memory is bounded by one
shard's distinct values, whatever the dump. Counts are exact integers: how a dump is cut into
chunks, threads or Dask tasks never changes them.

:class:`SparseCounts` is the mergeable partial result (``a + b``; it pickles as its canonical
arrays, for Dask, where :meth:`SparseCounts.shard` lets each shard be merged on its own);
:class:`CountSummary` is what the bounds need of it (total, distinct values, the exact sum of
``c log2 c``, the K most frequent values), and adds across disjoint shards. The core sums a
shard's runs without merging them (``_core.summarize_key_runs``).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import weakref
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._common import ExactSum, each_on_threads

__all__ = ["CountSummary", "SparseCounts", "RUN_ENTRIES", "SHARDS"]

SHARD_BITS = 8
#: Shards a run is partitioned into (the top bits of the value's key).
SHARDS = 1 << SHARD_BITS
ALL = (1 << SHARDS) - 1
#: Entries a partial result keeps in memory before it writes them to a run file: about one
#: chunk's distinct values, so a chunk's run is written once instead of merged into a larger one
#: in memory chunk after chunk (memcomp entropy on 1 GiB: 13.1 s at 2^21, 11.8 s here).
RUN_ENTRIES = 1 << 20
_V, _C, _C32 = np.dtype("<u4"), np.dtype("<u8"), np.dtype("<u4")
_MUL, _INV = np.uint32(0x9E3779B1), np.uint32(pow(0x9E3779B1, -1, 1 << 32))
#: Where each shard's keys start: shard s holds the keys [s << 24, (s + 1) << 24).
_SHARD_STARTS = (np.arange(1, SHARDS, dtype=np.uint64) << np.uint64(32 - SHARD_BITS)).astype(np.uint32)


def key_of(values: np.ndarray) -> np.ndarray:
    """Each value's key, ``value * 0x9E3779B1 mod 2^32`` (``value_of`` undoes it)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.uint32) * _MUL


def value_of(keys: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(keys, dtype=np.uint32) * _INV


def shard_of(values: np.ndarray) -> np.ndarray:
    """The shard of each value: the top bits of its key (a bijection, so values that cluster, such
    as small integers or floats of one exponent, spread evenly)."""
    return (key_of(values) >> np.uint32(32 - SHARD_BITS)).astype(np.uint8)


def _shard_offsets(keys: np.ndarray) -> np.ndarray:
    """Where each shard starts in keys sorted ascending, and the end (SHARDS + 1 entries)."""
    inner = np.searchsorted(keys, _SHARD_STARTS)
    return np.concatenate(([0], inner, [keys.size])).astype(np.int64)


def merge_runs(parts: Sequence[Tuple[np.ndarray, np.ndarray]]) -> Tuple[np.ndarray, np.ndarray]:
    """The sum of (keys, counts) runs, sorted with each key once (runs sorted by key merge in
    linear passes; any other run is sorted first). Counts come back as uint64."""
    parts = [p for p in parts if p[0].size]
    if not parts:
        return np.empty(0, _V), np.empty(0, _C)
    if len(parts) == 1:
        return parts[0][0], np.ascontiguousarray(parts[0][1], _C)
    runs = [(np.ascontiguousarray(v, _V), np.ascontiguousarray(c, _C)) for v, c in parts]
    return _core.merge_count_runs(runs)  # linear merges, pairwise


def _tmpdir() -> str:
    return os.environ.get("MEMCOMP_TMPDIR") or tempfile.gettempdir()


class _Run:
    """One run on disk: keys (ascending) then counts (uint32 when every count fits, else uint64);
    ``offsets[s]`` is where shard s starts. The file is removed when no result refers to it any
    more."""

    __slots__ = ("path", "offsets", "count_dtype", "__weakref__")

    def __init__(self, keys: np.ndarray, counts: np.ndarray) -> None:
        keys = np.ascontiguousarray(keys, _V)
        if counts.dtype != _C32 and (counts.size == 0 or int(counts.max()) <= 0xFFFFFFFF):
            counts = counts.astype(_C32)
        counts = np.ascontiguousarray(counts)
        self.count_dtype = counts.dtype
        self.offsets = _shard_offsets(keys)
        fd, self.path = tempfile.mkstemp(prefix="memcomp-counts-", suffix=".bin", dir=_tmpdir())
        weakref.finalize(self, _remove, self.path)
        with os.fdopen(fd, "wb") as f:
            keys.tofile(f)
            counts.tofile(f)

    @property
    def entries(self) -> int:
        return int(self.offsets[-1])

    def read(self, lo: int, hi: int) -> Tuple[np.ndarray, np.ndarray]:
        """The (keys, counts) of shards lo..hi-1, keys ascending."""
        a, b = int(self.offsets[lo]), int(self.offsets[hi])
        n = b - a
        with open(self.path, "rb") as f:
            f.seek(4 * a)
            keys = np.fromfile(f, _V, n)
            f.seek(4 * self.entries + self.count_dtype.itemsize * a)
            counts = np.fromfile(f, self.count_dtype, n)
        if keys.size != n or counts.size != n:
            raise OSError(f"the temporary count file {self.path!r} was truncated while in use")
        return keys, counts


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):  # removed already (its directory cleaned)
        os.remove(path)


class SparseCounts:
    """Exact counts of 32-bit values: in-memory runs plus runs on disk, of (key, count) sorted by
    key, of the shards in ``mask`` (bit s: shard s; all of them unless made by :meth:`shard`).
    Adds with ``+``; holds at most :data:`RUN_ENTRIES` entries in memory, writing the rest to run
    files."""

    __slots__ = ("mask", "total", "_mem", "_runs", "_summary")

    def __init__(self, values: Optional[np.ndarray] = None, counts: Optional[np.ndarray] = None, mask: int = ALL):
        """From distinct ``values`` (any order) and their ``counts`` (a histogram's)."""
        self.mask = mask
        self._runs: List[_Run] = []
        self._mem: List[Tuple[np.ndarray, np.ndarray]] = []
        self._summary: dict = {}
        self.total = 0
        if values is not None:
            v = np.ascontiguousarray(values, _V)
            c = np.ascontiguousarray(counts, _C)
            if v.shape != c.shape or v.ndim != 1:
                raise ValueError("values and counts must be 1-D arrays of one length")
            keys = key_of(v)
            order = np.argsort(keys, kind="stable")
            self._set(keys[order], c[order])

    @classmethod
    def from_keys(cls, keys: np.ndarray, counts: np.ndarray) -> "SparseCounts":
        """From a run of the core (``_core.count_word_keys``): keys ascending, each once."""
        out = cls()
        out._set(keys, counts)
        return out

    def _set(self, keys: np.ndarray, counts: np.ndarray) -> None:
        self.total = int(counts.sum(dtype=np.uint64))
        self._mem = [(keys, counts)] if keys.size else []
        self._spill()

    @property
    def entries_in_memory(self) -> int:
        return sum(int(k.size) for k, _ in self._mem)

    @property
    def runs_on_disk(self) -> int:
        return len(self._runs)

    def _spill(self) -> None:
        if self.entries_in_memory > RUN_ENTRIES:
            self._runs.append(_Run(*self._merged_mem()))
            self._mem = []

    def _merged_mem(self) -> Tuple[np.ndarray, np.ndarray]:
        if len(self._mem) == 1:  # as it came (uint32 counts stay uint32 on disk)
            return self._mem[0]
        return merge_runs(self._mem)

    def __add__(self, other: "SparseCounts") -> "SparseCounts":
        if not isinstance(other, SparseCounts):
            return NotImplemented
        out = SparseCounts(mask=self.mask | other.mask)
        out.total = self.total + other.total
        out._runs = self._runs + other._runs  # runs are immutable: shared, not copied
        out._mem = self._mem + other._mem
        if len(out._mem) > 1:
            out._mem = [merge_runs(out._mem)]
        out._spill()
        return out

    __radd__ = __add__

    def _parts(self, lo: int, hi: int) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Every run's (keys, counts) of shards lo..hi-1."""
        parts = [r.read(lo, hi) for r in self._runs]
        for k, c in self._mem:
            off = _shard_offsets(k)
            parts.append((k[off[lo] : off[hi]], c[off[lo] : off[hi]]))
        return parts

    def read(self, lo: int = 0, hi: int = SHARDS) -> Tuple[np.ndarray, np.ndarray]:
        """The merged (values, counts) of shards lo..hi-1, in key order. All shards at once (the
        default) load every distinct value: use :meth:`summary` for bounds."""
        k, c = merge_runs(self._parts(lo, hi))
        return value_of(k), c

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Every (value, count), values ascending (loads all distinct values into memory)."""
        v, c = self.read()
        order = np.argsort(v, kind="stable")
        return v[order], c[order]

    def shard(self, lo: int, hi: int) -> "SparseCounts":
        """Shards lo..hi-1 only, in memory (Dask merges each range of shards on its own)."""
        out = SparseCounts(mask=self.mask & (((1 << hi) - 1) ^ ((1 << lo) - 1)))
        k, c = merge_runs(self._parts(lo, hi))
        out.total = int(c.sum(dtype=np.uint64))
        out._mem = [(k, c)] if k.size else []
        return out

    def summary(self, k: int, threads: Optional[int] = None) -> "CountSummary":
        """What the bounds need (:class:`CountSummary` with the ``k`` most frequent values), read
        one shard at a time and summed by the core without a merge: ranges of shards side by side
        on ``threads`` threads (None: every core), their summaries added in shard order (the same
        result on any thread count)."""
        if k not in self._summary:

            def shards(rng: Tuple[int, int], inner: Optional[int]) -> CountSummary:
                lo, hi = rng
                out = CountSummary.empty(k, self.mask & (((1 << hi) - 1) ^ ((1 << lo) - 1)))
                for s in range(lo, hi):
                    parts = self._parts(s, s + 1)  # no more top values than entries (k may be huge)
                    out._add_sums(_core.summarize_key_runs(parts, min(k, sum(int(p[0].size) for p in parts))))
                return out

            cores = threads if threads is not None else (os.cpu_count() or 1)
            edges = np.linspace(0, SHARDS, min(max(cores, 1), SHARDS) + 1).astype(int)
            parts = each_on_threads(shards, list(zip(edges[:-1].tolist(), edges[1:].tolist())), threads)
            out = parts[0]
            for p in parts[1:]:
                out = out + p
            if out.total != self.total:
                raise OSError(f"the count runs hold {out.total} symbols, not the {self.total} counted")
            self._summary = {k: out}
        return self._summary[k]

    def __getstate__(self) -> tuple:
        k, c = merge_runs(self._parts(0, SHARDS))
        return self.mask, self.total, k, c

    def __setstate__(self, state: tuple) -> None:
        self.mask, self.total, k, c = state
        self._runs, self._summary = [], {}
        self._mem = [(k, c)] if k.size else []
        self._spill()


def _top(values: np.ndarray, counts: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
    """The k most frequent (count descending, ties to the smaller value)."""
    n = int(values.size)
    if k < n:  # keep the candidates: counts above the k-th largest, and the smallest tied values
        thr = np.partition(counts, n - k)[n - k]
        above = np.flatnonzero(counts > thr)
        tied = np.flatnonzero(counts == thr)
        tied = tied[np.argsort(values[tied], kind="stable")[: k - above.size]]
        keep = np.concatenate((above, tied))
        values, counts = values[keep], counts[keep]
    order = np.lexsort((values, -counts.astype(np.float64)))[:k]
    return values[order], counts[order]


class CountSummary:
    """What SPEC 3's bounds need of exact 32-bit counts over the shards in ``mask``: the total,
    the distinct values, the exact sum of ``c log2 c`` and the ``k`` most frequent values (count
    descending, ties to the smaller value). Summaries of disjoint shards add with ``+``."""

    __slots__ = ("k", "mask", "total", "distinct", "clogc", "top_values", "top_counts")
    k: int
    mask: int
    total: int
    distinct: int
    clogc: ExactSum
    top_values: np.ndarray
    top_counts: np.ndarray

    @classmethod
    def empty(cls, k: int, mask: int = 0) -> "CountSummary":
        s = cls()
        s.k, s.mask, s.total, s.distinct, s.clogc = int(k), mask, 0, 0, ExactSum()
        s.top_values, s.top_counts = np.empty(0, _V), np.empty(0, _C)
        return s

    def _add_shard(self, values: np.ndarray, counts: np.ndarray) -> None:
        self.total += int(counts.sum(dtype=np.uint64))
        self.distinct += int(values.size)
        c = counts.astype(np.float64)
        self.clogc.add(c * np.log2(c))
        self._keep(*_top(values, counts, self.k))

    def _add_sums(self, sums: dict) -> None:
        """Adds a shard summed by the core (``_core.summarize_key_runs``): sum(c log2 c) from how
        many values have each count, the same exact sum as over every count."""
        self.total += int(sums["total"])
        self.distinct += int(sums["distinct"])
        c = sums["count_values"].astype(np.float64)
        self.clogc.add(c * np.log2(c), weights=sums["count_multiplicity"])
        self._keep(sums["top_values"], sums["top_counts"])

    def _keep(self, values: np.ndarray, counts: np.ndarray) -> None:
        self.top_values, self.top_counts = _top(
            np.concatenate((self.top_values, values)), np.concatenate((self.top_counts, counts)), self.k
        )

    def __add__(self, other: "CountSummary") -> "CountSummary":
        if not isinstance(other, CountSummary):
            return NotImplemented
        if self.k != other.k:
            raise ValueError(f"cannot add summaries of the top {self.k} and the top {other.k} values")
        if self.mask & other.mask:
            raise ValueError("cannot add summaries of overlapping shards (their values would be counted twice)")
        out = CountSummary.empty(self.k, self.mask | other.mask)
        out.total, out.distinct = self.total + other.total, self.distinct + other.distinct
        out.clogc = self.clogc + other.clogc
        out.top_values, out.top_counts = self.top_values, self.top_counts
        out._keep(other.top_values, other.top_counts)
        return out

    def summary(self, k: int) -> "CountSummary":
        if k != self.k:
            raise ValueError(f"this summary keeps the top {self.k} values, not {k}")
        return self

    def entropy(self) -> float:
        """H in bits per symbol: log2 n - sum(c log2 c) / n, the sum exact."""
        if self.total == 0:
            return 0.0
        return max(0.0, math.log2(self.total) - self.clogc.value() / self.total)

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, s) for s in self.__slots__)

    def __setstate__(self, state: tuple) -> None:
        for s, v in zip(self.__slots__, state):
            setattr(self, s, v)
