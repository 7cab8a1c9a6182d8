"""Entropy bounds on memory data (SPEC 3; E2MC, P1 §III-B1 and §V-A).

The order-0 Shannon entropy H of SL-bit symbols over the whole dump bounds what one fixed
symbol-by-symbol code for the whole dump reaches (E2MC and SC2 with an offline model, before
their headers): ``CR_H = SL / H`` (P1's "optimal CR", 2.61 at SL 16 on its data). It is **not**
a bound on per-block codecs (BDI, FPC, BPC, C-Pack...): they exploit what is alike inside one
block (a shared base, runs, bit planes), which an order-0 model of the dump does not see, and can
beat it (BPC does on the bundled sample at 128 B). Variants:

==================  ===========================================================================
``global``          one histogram over the dump (default; P1's bound)
``per_position``    mean of H_p over positions p = index mod 32/SL (E2MC's SL 4/8 tables)
``block``           sum(8B) / sum_b(n_b H_b) over per-block histograms; ignores the model
                    cost, so it is **not achievable**
``per_workload``    ``global`` per dump, then the geometric mean over dumps
==================  ===========================================================================

A most-frequent-value (MFV) table of K entries bounds E2MC/SC2 more tightly: symbols outside the
table cost an escape plus SL raw bits, ``H_K = -sum_M p log2 p - p_E log2 p_E + p_E SL`` (SPEC 3),
and with E2MC's code-length cap the optimal code's mean length L* gives ``CR_H >= CR_K >= CR_L*``.

Statistics are mergeable partial results: :class:`SymbolStats` objects add (``a + b``), so a dump
streamed in chunks, on threads or on Dask gives exactly the serial answer. For 32-bit symbols with
too many distinct values, :class:`TopK` keeps bounded-memory heavy hitters instead.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union, cast

import numpy as np

from . import _core
from ._common import (
    ENDIANS,
    ExactSum,
    check_bool,
    check_choice,
    check_int,
    chunks,
    each_on_threads,
    provenance,
    refuse_masked,
)
from ._counts import ALL as _ALL_SHARDS
from ._counts import SHARDS, CountSummary, SparseCounts
from .analysis.base import Analysis, Any_, Choice, Int, IntList, Option
from .analysis.run import fold, run
from .blocks import check_blocks

if TYPE_CHECKING:
    import pandas

SYMBOL_BITS = (4, 8, 16, 32)
VARIANTS = ("global", "per_position", "block")


def _check_sl(symbol_bits: Any) -> int:
    if isinstance(symbol_bits, (bool, np.bool_)) or not isinstance(symbol_bits, (int, np.integer)):
        raise TypeError(
            f"symbol_bits must be one of {SYMBOL_BITS}, got {symbol_bits!r} of type {type(symbol_bits).__name__}"
        )
    if symbol_bits not in SYMBOL_BITS:
        raise ValueError(f"symbol_bits must be one of {SYMBOL_BITS}, got {symbol_bits!r}")
    return int(symbol_bits)


def _check_mfv(k: int) -> int:
    return check_int("mfv", k, 1)


def _entropy(counts: np.ndarray) -> float:
    """Plug-in entropy in bits of one histogram (0 log 0 = 0): log2 n - sum(c log2 c) / n with
    the sum exact, so it does not depend on how the counts are ordered or split into shards."""
    c = np.asarray(counts)
    c = c[c > 0]
    n = int(c.sum(dtype=np.uint64))
    if n == 0:
        return 0.0
    f = c.astype(np.float64)
    return max(0.0, math.log2(n) - ExactSum(f * np.log2(f)).value() / n)


@dataclass(frozen=True)
class SymbolStats:
    """Exact counts of SL-bit symbols: ``counts[p, v]`` for SL <= 16 (p = position if
    ``per_position``), or sorted ``values`` with their ``counts`` for SL 32. Adds with ``+``.

    In bounded memory (:func:`table_stats`), SL-32 counts are ``sparse`` instead: a
    :class:`memcomp._counts.SparseCounts` (runs spilled to disk, read back shard by shard) or its
    :class:`~memcomp._counts.CountSummary`; ``values`` and ``counts`` are None, and the bounds come
    from the summary (:meth:`pooled` loads every distinct value)."""

    symbol_bits: int
    per_position: bool
    endian: str
    total: int
    counts: Optional[np.ndarray]
    values: Optional[np.ndarray] = None
    sparse: Optional[Union[SparseCounts, CountSummary]] = None

    def __add__(self, other: "SymbolStats") -> "SymbolStats":
        if not isinstance(other, SymbolStats):
            return NotImplemented
        if (self.symbol_bits, self.per_position, self.endian) != (other.symbol_bits, other.per_position, other.endian):
            raise ValueError("cannot merge statistics of different symbol lengths, positions or byte orders")
        total = self.total + other.total
        if self.sparse is not None or other.sparse is not None:
            if self.sparse is None or other.sparse is None:
                raise ValueError("cannot merge bounded-memory (sparse) statistics with in-memory ones")
            merged = cast(Any, self.sparse) + other.sparse  # counts (shards merge) or summaries (disjoint shards)
            return SymbolStats(self.symbol_bits, False, self.endian, total, None, None, merged)
        if self.values is None:
            return SymbolStats(self.symbol_bits, self.per_position, self.endian, total, self._dense + other._dense)
        return _merge_sparse([self, other])

    __radd__ = __add__

    @property
    def _dense(self) -> np.ndarray:
        """The counts array (every statistic but bounded-memory SL-32 ones has one)."""
        if self.counts is None:
            raise ValueError("bounded-memory SL-32 statistics keep their counts in shards: use pooled() or summary()")
        return self.counts

    def summary(self, k: int = 1024) -> CountSummary:
        """Total, distinct values, exact sum(c log2 c) and the ``k`` most frequent values."""
        if self.sparse is not None:
            return self.sparse.summary(k)
        s = CountSummary.empty(k, _ALL_SHARDS)
        s._add_shard(*self.pooled())
        return s

    def _summary(self) -> CountSummary:
        """A summary already computed, if any (its k does not matter to the caller)."""
        assert self.sparse is not None
        if isinstance(self.sparse, CountSummary):
            return self.sparse
        done = self.sparse._summary
        return next(iter(done.values())) if done else self.sparse.summary(1024)

    @property
    def distinct(self) -> int:
        """Distinct symbol values seen (over all positions)."""
        if self.sparse is not None:
            return self._summary().distinct
        if self.values is not None:
            return int(self.values.shape[0])
        return int(np.count_nonzero(self._dense.sum(axis=0)))

    def pooled(self) -> Tuple[np.ndarray, np.ndarray]:
        """(values, counts) over all positions, values ascending, zero counts dropped."""
        if isinstance(self.sparse, SparseCounts):
            return self.sparse.arrays()
        if self.sparse is not None:
            raise ValueError("a summary of the counts keeps only the most frequent values")
        if self.values is not None:
            return self.values, self._dense
        c = self._dense.sum(axis=0)
        nz = np.nonzero(c)[0]
        return nz.astype(np.uint32), c[nz]

    def entropy(self, variant: str = "global") -> float:
        """Bits per symbol: ``global`` (pooled) or ``per_position`` (mean of H_p)."""
        if variant == "global":
            return self._summary().entropy() if self.sparse is not None else _entropy(self.pooled()[1])
        if variant == "per_position":
            if self.values is not None or not self.per_position:
                raise ValueError("per_position entropy needs a per-position histogram of 4- or 8-bit symbols")
            return float(np.mean([_entropy(row) for row in self._dense]))
        raise ValueError(f"variant must be 'global' or 'per_position' here, got {variant!r}")

    def cr(self, variant: str = "global") -> float:
        """The bound CR_H = SL / H (inf for H = 0)."""
        h = self.entropy(variant)
        return math.inf if h == 0 else self.symbol_bits / h

    def top(self, k: int) -> Tuple[np.ndarray, np.ndarray]:
        """The k most frequent values and counts: count descending, ties to the smaller value."""
        k = check_int("k", k, 0)
        if self.sparse is not None:
            s = self.sparse.summary(k) if k else CountSummary.empty(0)
            return s.top_values, s.top_counts
        values, counts = self.pooled()
        order = np.lexsort((values, -counts.astype(np.float64)))[:k]
        return values[order], counts[order]

    def mfv_entropy(self, k: int) -> float:
        """H_K: bits per symbol with a K-entry MFV table, escapes costing SL raw bits (SPEC 3)."""
        k = _check_mfv(k)
        n = float(self.total if self.sparse is not None else self.pooled()[1].sum())
        if n == 0:
            return 0.0
        _, kept = self.top(k)
        p = kept.astype(np.float64) / n
        p_e = max(0.0, 1.0 - float(p.sum()))
        h = -float(np.sum(p * np.log2(p)))  # not np.dot: see _entropy
        if p_e > 0:
            h += -p_e * math.log2(p_e) + p_e * self.symbol_bits
        return h

    def mfv_cr(self, k: int) -> float:
        h = self.mfv_entropy(k)
        return math.inf if h == 0 else self.symbol_bits / h

    def length_limited_bits(self, k: int = 1024, max_len: Optional[int] = None) -> float:
        """L*: mean bits per symbol of the optimal length-limited code over the K MFVs + ESC
        (escapes add SL raw bits), with E2MC's limits (8/16/20/20 for SL 4/8/16/32) by default.
        For SL <= 8 every value is coded (weights count + 1, SPEC 1.8)."""
        k = _check_mfv(k)
        escaped = 0
        if self.sparse is not None:
            s = self.sparse.summary(k)
            values, counts = s.top_values, s.top_counts
            escaped = s.total - int(counts.sum(dtype=np.uint64))
        elif self.values is not None or self.symbol_bits >= 16 or not self.per_position:
            values, counts = self.pooled()
        else:
            raise ValueError("L* is defined on pooled statistics; histogram without per_position")
        ml = (
            {4: 8, 8: 16, 16: 20, 32: 20}[self.symbol_bits] if max_len is None else check_int("max_len", max_len, 1, 32)
        )
        if counts.size == 0:
            return 0.0
        return float(
            _core.length_limited_bits(
                np.ascontiguousarray(values, np.uint32),
                np.ascontiguousarray(counts, np.uint64),
                self.symbol_bits,
                min(k, int(counts.size)),
                ml,
                escaped,
            )
        )  # no more MFVs than values

    def length_limited_cr(self, k: int = 1024, max_len: Optional[int] = None) -> float:
        """CR_L* = SL / L*: what an E2MC-style table can reach before pointers, pads and MAG."""
        lbits = self.length_limited_bits(k, max_len)
        return math.inf if lbits == 0 else self.symbol_bits / lbits


def _merge_sparse(parts: Sequence[SymbolStats]) -> SymbolStats:
    """The sum of 32-bit statistics (sorted ``values``) in one sort: exact uint64 counts."""
    first = parts[0]
    values = np.concatenate([p.values for p in parts])
    order = np.argsort(values, kind="stable")  # each part is sorted: runs the sort merges
    values = values[order]
    counts = np.concatenate([p.counts for p in parts]).astype(np.uint64, copy=False)[order]
    del order
    if values.size:
        starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
        values, counts = values[starts], np.add.reduceat(counts, starts)
    return SymbolStats(first.symbol_bits, first.per_position, first.endian, sum(p.total for p in parts), counts, values)


class _Summer:
    """Adds SymbolStats chunk by chunk. 32-bit statistics are merged in batches (when the pending
    entries outgrow a quarter of the running total), so a stream in small chunks does not re-sort every
    distinct value per chunk; the counts are the same either way. Exact 32-bit counts take memory
    in proportion to the distinct values seen (bounded by the data, not the chunk size); :class:`TopK`
    is the bounded-memory alternative."""

    def __init__(self) -> None:
        self.total: Optional[SymbolStats] = None
        self.pending: list = []
        self.size = 0

    def add(self, part: SymbolStats) -> None:
        if part.values is None:
            self.total = part if self.total is None else self.total + part
            return
        self.pending.append(part)
        self.size += int(part.values.size)
        held = 0 if self.total is None or self.total.values is None else int(self.total.values.size)
        if self.size > max(1 << 18, held // 4):
            self.result()

    def result(self) -> Optional[SymbolStats]:
        if self.pending:
            if self.total is not None:
                self.pending.insert(0, self.total)
            self.total = self.pending[0] if len(self.pending) == 1 else _merge_sparse(self.pending)
            self.pending, self.size = [], 0
        return self.total


def histogram(
    blocks,
    symbol_bits: int = 16,
    *,
    per_position: bool = False,
    endian: str = "little",
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 20,
) -> SymbolStats:
    """Exact symbol counts of an ``(n, B)`` uint8 array or a Dump (streamed in chunks)."""
    sl = _check_sl(symbol_bits)
    per_position = check_bool("per_position", per_position)
    check_choice("endian", endian, ENDIANS)
    total = _Summer()
    for chunk in chunks(blocks, chunk_blocks):
        h = _core.symbol_histogram(chunk, sl, per_position, endian, threads)
        total.add(SymbolStats(sl, bool(per_position), endian, int(h["total"]), h["counts"], h.get("values")))
    out = total.result()
    assert out is not None
    return out


def _nibble_counts(byte_counts: np.ndarray, endian: str) -> np.ndarray:
    """Per-position nibble counts (8, 16) from per-position byte counts (4, 256): nibble 2k + h of
    a word is the low or the high nibble of byte k (h = 0: the low one little-endian, the high
    one big-endian), as the core counts them."""
    m = byte_counts.reshape(4, 16, 16)  # [k, high nibble, low nibble]
    low, high = m.sum(axis=1, dtype=np.uint64), m.sum(axis=2, dtype=np.uint64)
    first, second = (low, high) if endian == "little" else (high, low)
    out = np.empty((8, 16), np.uint64)
    out[0::2], out[1::2] = first, second
    return out


def block_entropy(
    blocks: np.ndarray, symbol_bits: int = 16, *, endian: str = "little", threads: Optional[int] = None
) -> np.ndarray:
    """Per-block order-0 entropy H_b in bits per symbol."""
    return _core.block_entropy(
        check_blocks(refuse_masked(blocks)), _check_sl(symbol_bits), check_choice("endian", endian, ENDIANS), threads
    )


@dataclass(frozen=True)
class Bound:
    """An entropy bound: ``cr = symbol_bits / entropy``. ``achievable`` is False for the
    ``block`` variant (it ignores the cost of describing per-block models)."""

    symbol_bits: int
    variant: str
    entropy: float
    cr: float
    symbols: int
    distinct: int
    achievable: bool = True


def bound(
    blocks,
    symbol_bits: int = 16,
    variant: str = "global",
    *,
    endian: str = "little",
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 20,
) -> Bound:
    """The entropy bound of ``blocks`` at ``symbol_bits`` (see the module doc for variants),
    streamed in chunks of ``chunk_blocks`` blocks."""
    sl = _check_sl(symbol_bits)
    if variant == "block":
        n_blocks = symbols = 0
        h_sum = ExactSum()
        for c in chunks(blocks, chunk_blocks):
            h_sum.add(block_entropy(c, sl, endian=endian, threads=threads))
            n_blocks += c.shape[0]
            symbols += c.shape[0] * 8 * c.shape[1] // sl
        h = h_sum.value() / n_blocks if n_blocks else 0.0
        return Bound(sl, variant, h, math.inf if h == 0 else sl / h, symbols, -1, achievable=False)
    if variant not in ("global", "per_position"):
        raise ValueError(f"variant must be one of {VARIANTS} (or use bound_per_workload), got {variant!r}")
    st = histogram(
        blocks, sl, per_position=variant == "per_position", endian=endian, threads=threads, chunk_blocks=chunk_blocks
    )
    h = st.entropy(variant)
    return Bound(sl, variant, h, math.inf if h == 0 else sl / h, st.total, st.distinct)


def bound_per_workload(
    workloads: Mapping[str, object], symbol_bits: int = 16, **kw
) -> Tuple[float, "pandas.DataFrame"]:
    """``per_workload``: the global bound of each dump and their geometric mean (as P1 reports)."""
    import pandas as pd

    if not isinstance(workloads, Mapping):
        raise TypeError(f"workloads must be a mapping of names to blocks or Dumps, got {type(workloads).__name__}")
    rows = [{"workload": name, **bound(b, symbol_bits, **kw).__dict__} for name, b in workloads.items()]
    df = pd.DataFrame(rows)
    finite = df["cr"][np.isfinite(df["cr"])]
    gmean = float(np.exp(np.log(finite).mean())) if len(finite) else math.inf
    return gmean, df


#: Per-block entropies are summed as integers in units of 2^-32 bit, so a sum does not depend on
#: how the blocks were split into chunks, threads or Dask tasks (float addition is not associative).
@dataclass(frozen=True)
class TableStats:
    """Everything :func:`table` reports, as a mergeable partial result (``a + b``): per symbol
    length the exact symbol counts (per position for SL <= 8) and the exact sum of per-block
    entropies. One pass over the data, so a stream is read once; pickles for Dask."""

    symbol_bits: Tuple[int, ...]
    endian: str
    block_bytes: int
    blocks: int
    stats: Tuple[SymbolStats, ...]
    block_h: Tuple[ExactSum, ...]  # exact sums of the per-block entropies

    def __add__(self, other: "TableStats") -> "TableStats":
        if not isinstance(other, TableStats):
            return NotImplemented
        if (self.symbol_bits, self.endian) != (other.symbol_bits, other.endian):
            raise ValueError("cannot merge table statistics of different symbol lengths or byte orders")
        if self.blocks and other.blocks and self.block_bytes != other.block_bytes:
            raise ValueError(f"cannot merge table statistics of {self.block_bytes} B and {other.block_bytes} B blocks")
        return TableStats(
            self.symbol_bits,
            self.endian,
            self.block_bytes if self.blocks else other.block_bytes,
            self.blocks + other.blocks,
            tuple(a + b for a, b in zip(self.stats, other.stats)),
            tuple(a + b for a, b in zip(self.block_h, other.block_h)),
        )

    __radd__ = __add__


def _check_sls(name: str, symbol_bits: Any) -> Tuple[int, ...]:
    given: Any = symbol_bits
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        given = (given,)  # _check_sl names a bad one
    sls = tuple(_check_sl(sl) for sl in given)
    if not sls:
        raise ValueError(f"symbol_bits: give at least one of {SYMBOL_BITS}")
    return sls


class EntropyTable(Analysis):
    """Shannon bounds per symbol length (P1 §III-F, SPEC 3): the rows of :func:`table`. The
    partial result is :class:`TableStats` (exact counts, exact per-block entropy sums)."""

    name = "entropy"
    summary = "order-0 entropy bounds per symbol length: CR_H >= CR_K (MFV table) >= CR_L* (length-limited)"
    OPTIONS = (
        Option(
            "symbol_bits",
            SYMBOL_BITS,
            Any_(fn=_check_sls, reader=IntList().parse, bad_values=((), (12,), ("8",), 3.5), label="SL,SL,..."),
            "symbol lengths in bits, of 4, 8, 16, 32",
        ),
        Option("mfv", 1024, Int(1), "MFV table size K for CR_K"),
        Option("endian", "little", Choice(tuple(ENDIANS)), "byte order of the symbols"),
    )
    summary_columns = (
        "dataset",
        "symbol_bits",
        "entropy",
        "cr_bound",
        "cr_per_position",
        "cr_mfv",
        "cr_length_limited",
        "cr_block_unachievable",
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.options["symbol_bits"] = _check_sls("symbol_bits", self["symbol_bits"])
        self._threads: Optional[int] = None

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple["TableStats", Any]:
        sls, endian = self["symbol_bits"], self["endian"]

        def counts(sl: int, inner: Optional[int]) -> Dict[int, SymbolStats]:
            if sl == 32:  # bounded memory: runs by key spilled to disk, read back a shard at a time
                sc = SparseCounts.from_keys(*_core.count_word_keys(chunk, endian, inner))
                return {32: SymbolStats(sl, False, endian, sc.total, None, None, sc)}
            h = _core.symbol_histogram(chunk, sl, sl <= 8, endian, inner)
            out = {sl: SymbolStats(sl, sl <= 8, endian, int(h["total"]), h["counts"])}
            if sl == 8 and 4 in sls:  # the nibbles' counts by position, from the bytes'
                out[4] = SymbolStats(4, True, endian, 2 * int(h["total"]), _nibble_counts(h["counts"], endian))
            return out

        def block_h(sl: int, inner: Optional[int]) -> Dict[int, ExactSum]:
            if sl == 8 and 4 in sls:  # both from one pass over the bytes
                h4, h8 = _core.block_entropy_4_8(chunk, inner)
                return {4: ExactSum(h4), 8: ExactSum(h8)}
            return {sl: ExactSum(block_entropy(chunk, sl, endian=endian, threads=inner))}

        # each symbol length's counts and block entropies: independent jobs, side by side (SL 4
        # rides along with SL 8 when both are asked for)
        own = [sl for sl in sls if not (sl == 4 and 8 in sls)]
        jobs = [(counts, sl) for sl in own] + [(block_h, sl) for sl in own]
        done = each_on_threads(lambda job, inner: job[0](job[1], inner), jobs, threads)
        stat_of = {k: v for d in done[: len(own)] for k, v in d.items()}
        sum_of = {k: v for d in done[len(own) :] for k, v in d.items()}
        stats, sums = tuple(stat_of[sl] for sl in sls), tuple(sum_of[sl] for sl in sls)
        return TableStats(sls, endian, int(chunk.shape[1]), int(chunk.shape[0]), stats, sums), carry

    #: On Dask, SL-32 counts are merged and summarised in this many ranges of shards.
    shards = 16

    def split(self, total: "TableStats") -> List["TableStats"]:
        step = SHARDS // self.shards
        out = []
        for g in range(self.shards):
            stats = []
            for st in total.stats:
                if isinstance(st.sparse, SparseCounts):
                    sc = st.sparse.shard(g * step, (g + 1) * step)
                    stats.append(SymbolStats(st.symbol_bits, False, st.endian, sc.total, None, None, sc))
                elif g == 0:
                    stats.append(st)
                else:  # the dense counts, blocks and per-block sums travel with the first piece
                    stats.append(SymbolStats(st.symbol_bits, st.per_position, st.endian, 0, np.zeros_like(st.counts)))
            block_h = total.block_h if g == 0 else tuple(ExactSum() for _ in total.block_h)
            out.append(replace(total, blocks=total.blocks if g == 0 else 0, stats=tuple(stats), block_h=block_h))
        return out

    def compact(self, piece: "TableStats") -> "TableStats":
        return replace(
            piece,
            stats=tuple(
                replace(st, sparse=st.sparse.summary(self["mfv"])) if isinstance(st.sparse, SparseCounts) else st
                for st in piece.stats
            ),
        )

    def prepare(self, sample: Optional[tuple], threads: Optional[int] = None) -> "EntropyTable":
        out = copy.copy(self)
        out._threads = threads  # the SL-32 summaries of finish() run on the job's threads
        return out

    def finish(self, total: "TableStats", source: Mapping[str, object]) -> "pandas.DataFrame":
        for st in total.stats:  # shards side by side; the table's rows reuse the summaries
            if isinstance(st.sparse, SparseCounts):
                st.sparse.summary(self["mfv"], threads=self._threads)
        return table_from_stats(total, mfv=self["mfv"], source=source)


def table_stats(
    blocks,
    symbol_bits: Union[int, Sequence[int]] = SYMBOL_BITS,
    *,
    endian: str = "little",
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> TableStats:
    """The partial result behind :func:`table`, in one pass over ``blocks`` (array, Dump or stream)."""
    a = EntropyTable(symbol_bits=symbol_bits, endian=endian)
    return fold(a, blocks, None, threads=threads, chunk_blocks=chunk_blocks)[0]


def table(
    blocks,
    symbol_bits: Sequence[int] = SYMBOL_BITS,
    *,
    mfv: int = 1024,
    endian: str = "little",
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> "pandas.DataFrame":
    """One row per symbol length SL, in one pass over the data in chunks of ``chunk_blocks``
    blocks (see :func:`table_stats`). Columns (SPEC 3):

    * ``symbols``, ``distinct``: SL-bit symbols counted and distinct values among them;
    * ``entropy``: H, the order-0 entropy in bits per symbol of one histogram over the whole dump;
    * ``cr_bound``: SL / H. Bounds one fixed symbol-by-symbol code for the whole dump (E2MC's,
      SC2's), not per-block codecs, which use context inside a block and can exceed it;
    * ``cr_per_position``: SL / mean_p H_p with one histogram per symbol position in a 32-bit
      word, E2MC's separate trees for SL 4 and 8 (P1 §III-F, "For SLs 4 and 8-bit, we build
      different Huffman trees corresponding to different symbols in a word"). NaN at SL 16 and 32,
      where E2MC keeps one tree: there it is ``cr_bound``'s model, not computed separately;
    * ``mfv``, ``cr_mfv``: the MFV-table bound SL / H_K with K = ``mfv`` entries plus an escape
      costing SL raw bits (SL <= 8: every value has an entry, so it is ``cr_bound``);
    * ``cr_length_limited``: SL / L*, the optimal code under E2MC's length cap over those entries;
    * ``cr_block_unachievable``: SL / mean_b H_b over per-block histograms; ignores the cost of
      describing each block's model, so no codec reaches it.
    """
    a = EntropyTable(symbol_bits=symbol_bits, mfv=mfv, endian=endian)
    return run(a, blocks, threads=threads, chunk_blocks=chunk_blocks)


def table_from_stats(
    ts: TableStats, *, mfv: int = 1024, source: Optional[Mapping[str, object]] = None
) -> "pandas.DataFrame":
    """The rows of :func:`table` from merged :class:`TableStats` (``source``: provenance columns)."""
    import pandas as pd

    if not isinstance(ts, TableStats):
        raise TypeError(f"ts must be the TableStats of table_stats(), got {type(ts).__name__}")

    rows = []
    for sl, st, hb in zip(ts.symbol_bits, ts.stats, ts.block_h):
        h = st.entropy("global")
        pooled = st if sl >= 16 else SymbolStats(sl, False, st.endian, st.total, st._dense.sum(axis=0, keepdims=True))
        h_blk = hb.value() / ts.blocks if ts.blocks else 0.0
        rows.append(
            {
                **dict(source or {}),
                **provenance(),
                "block_bytes": ts.block_bytes,
                "endian": ts.endian,
                "symbol_bits": sl,
                "symbols": st.total,
                "distinct": st.distinct,
                "entropy": h,
                "cr_bound": math.inf if h == 0 else sl / h,
                "cr_per_position": st.cr("per_position") if sl <= 8 else math.nan,
                "mfv": mfv if sl >= 16 else 1 << sl,
                "cr_mfv": st.mfv_cr(mfv) if sl >= 16 else (math.inf if h == 0 else sl / h),
                "cr_length_limited": pooled.length_limited_cr(mfv),
                "cr_block_unachievable": math.inf if h_blk == 0 else sl / h_blk,
            }
        )
    return pd.DataFrame(rows)


class TopK:
    """Bounded-memory heavy hitters of 32-bit words (Space-Saving): every value more frequent than
    total/capacity is kept; counts are upper bounds, ``count - error`` lower bounds. Adds with ``+``
    (pickles, so Dask partitions combine)."""

    def __init__(self, capacity: int = 4096, endian: str = "little"):
        self._s = _core.SpaceSaving(check_int("capacity", capacity, 1, 1 << 26))
        self.endian = check_choice("endian", endian, ENDIANS)

    def add(self, blocks) -> "TopK":
        for chunk in chunks(blocks, 1 << 20):
            self._s.add_words(chunk, self.endian)
        return self

    def __add__(self, other: "TopK") -> "TopK":
        if not isinstance(other, TopK):
            return NotImplemented
        if (self.capacity, self.endian) != (other.capacity, other.endian):
            raise ValueError("cannot merge sketches of different capacities or byte orders")
        out = TopK(self.capacity, self.endian)
        out._s.merge(self._s)
        out._s.merge(other._s)
        return out

    @property
    def capacity(self) -> int:
        return self._s.capacity

    @property
    def total(self) -> int:
        return self._s.total

    def top(self, k: Optional[int] = None) -> "pandas.DataFrame":
        import pandas as pd

        values, counts, errors = self._s.entries()
        df = pd.DataFrame({"value": values, "count": counts, "error": errors})
        return df if k is None else df.head(check_int("k", k, 0))

    def __getstate__(self):
        return {"s": self._s, "endian": self.endian}

    def __setstate__(self, state):
        self._s, self.endian = state["s"], state["endian"]
