"""The metrics layer (SPEC 0.5, 0.6): report policies, raw CR and CR at MAG, size histograms.

Codecs report exact bits; everything that rounds (bytes, 8 B segments, MAG bursts, gem5's
power-of-two factor) or falls back ("stored uncompressed if not smaller") happens here.

A policy is a string: an optional fallback (``cap``, ``threshold(f)``) then an optional rounding
(``bytes``, ``segments(s)``, ``mag(M[,u_min])``, ``pow2[(fmax)]``), joined by ``+``, e.g.
``"cap+mag(32)"``. ``none`` charges the in-band bits as they are.

:class:`SizeStats` is a mergeable partial result: a histogram of in-band bits per block plus tag
and mode counts. Any policy's totals are computed from it afterwards, and ``a + b`` merges two
chunks (threads, processes, Dask partitions) into exactly the serial answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional

import numpy as np

from . import _core
from ._common import check_bool, check_int, check_threads

if TYPE_CHECKING:
    import pandas


def parse_policy(policy: str) -> str:
    """Canonical spelling of a policy; ValueError if malformed."""
    if not isinstance(policy, str):
        raise TypeError(f"policy must be a str such as 'cap+mag(32)', got {type(policy).__name__}")
    return _core.policy_str(policy)


def split_policy(policy: str) -> tuple:
    """(fallback, rounding) parts of a canonical policy, each a string or None."""
    fallback = rounding = None
    for term in parse_policy(policy).split("+"):
        if term == "none":
            continue
        if term.startswith(("cap", "threshold")):
            fallback = term
        else:
            rounding = term
    return fallback, rounding


def join_policy(fallback: Optional[str], rounding: Optional[str]) -> str:
    return parse_policy("+".join(t for t in (fallback, rounding) if t) or "none")


def storage_policy(policy: str, expands: bool = True) -> str:
    """The policy a comparison table charges a preset by default: the preset's own ``policy``,
    with SPEC 0.6's ``cap`` fallback in front when it has no fallback of its own and its format
    ``expands`` (can exceed 8B bits; a format that cannot already stores such blocks raw, SPEC
    0.5): a block whose compressed form is not smaller than the block is stored uncompressed.
    CR at MAG stores such blocks raw anyway (``mag`` charges at most B bytes), so with one rule
    for both, CR at MAG never exceeds raw CR (P1 §V: "the CR of all three techniques at MAG is
    less than the raw CR"). A table given ``policy="none"`` reports the plain sums instead."""
    fallback, rounding = split_policy(policy)
    if fallback is None and check_bool("expands", expands):
        fallback = "cap"
    return join_policy(fallback, rounding)


def mag_policy(policy: str, mag: int, u_min: int = 1) -> str:
    """``policy``'s fallback followed by ``mag(M, u_min)`` rounding (CR at MAG, P1 §V)."""
    mag, u_min = check_int("mag", mag, 1, 4096), check_int("u_min", u_min, 0, 4096)
    fallback, _ = split_policy(policy)
    return join_policy(fallback, f"mag({mag},{u_min})")


def charge(bits: np.ndarray, block_bytes: int, policy: str = "none") -> np.ndarray:
    """Bits charged per block (uint64) for in-band ``bits`` (uint32) under ``policy``."""
    if not isinstance(bits, np.ndarray):
        raise TypeError(
            f"bits must be a uint32 NumPy array of in-band sizes (Sizes.size_bits), got {type(bits).__name__}"
        )
    if not isinstance(policy, str):
        parse_policy(policy)  # TypeError saying what to pass
    return _core.charge(bits, check_int("block_bytes", block_bytes, 1, 1 << 30), policy)


#: The columns of a measure (:class:`memcomp.codecs.Sizes`) that statistics reduce.
_SIZE_COLUMNS = ("size_bits", "payload_bits", "meta_bits", "header_bits", "tag_bits", "mode")


@dataclass
class SizeStats:
    """Mergeable size statistics of one codec on blocks of one size.

    ``hist[b]`` counts blocks of exactly ``b`` in-band bits; ``tag_bits`` sums tag-side bits;
    ``modes[m]`` is ``[blocks, payload bits, meta bits, header bits, tag bits]`` of encoding ``m``:
    where the bits go, per mode.
    """

    codec: str
    block_bytes: int
    policy: str
    hist: np.ndarray
    tag_bits: int = 0
    modes: Dict[int, List[int]] = field(default_factory=dict)

    @classmethod
    def empty(cls, codec, block_bytes: int) -> "SizeStats":
        n = codec.max_compressed_bits(block_bytes) + 1
        return cls(codec.name, int(block_bytes), codec.policy, np.zeros(n, dtype=np.int64))

    @classmethod
    def from_sizes(cls, sizes, threads: Optional[int] = None) -> "SizeStats":
        """The statistics of a measure's :class:`~memcomp.codecs.Sizes`, reduced in one pass in
        the core (on ``threads``)."""
        cols = {k: getattr(sizes, k) for k in _SIZE_COLUMNS}
        n_bins = sizes.codec.max_compressed_bits(sizes.block_bytes) + 1
        return cls.from_totals(sizes.codec, sizes.block_bytes, _core.size_totals(cols, n_bins, check_threads(threads)))

    @classmethod
    def from_totals(cls, codec, block_bytes: int, totals: tuple) -> "SizeStats":
        """The statistics from the core's ``(hist, mode rows, tag bits)`` of ``codec`` on
        ``block_bytes`` blocks (``_core.size_totals``, ``_core.compare_totals``)."""
        hist, modes, tag_bits = totals
        st = cls(codec.name, int(block_bytes), codec.policy, hist, int(tag_bits))
        st.modes = {int(r[0]): [int(v) for v in r[1:]] for r in modes.tolist()}
        return st

    def __add__(self, other: "SizeStats") -> "SizeStats":
        if not isinstance(other, SizeStats):
            return NotImplemented
        if (self.codec, self.block_bytes) != (other.codec, other.block_bytes):
            raise ValueError(
                f"cannot merge statistics of {self.codec} at {self.block_bytes} B with "
                f"{other.codec} at {other.block_bytes} B"
            )
        n = max(self.hist.shape[0], other.hist.shape[0])
        hist = np.zeros(n, dtype=np.int64)
        hist[: self.hist.shape[0]] += self.hist
        hist[: other.hist.shape[0]] += other.hist
        modes = {m: list(v) for m, v in self.modes.items()}
        for m, v in other.modes.items():
            modes[m] = [a + b for a, b in zip(modes.get(m, [0] * len(v)), v)]
        return SizeStats(self.codec, self.block_bytes, self.policy, hist, self.tag_bits + other.tag_bits, modes)

    __radd__ = __add__

    # --- totals ----------------------------------------------------------------------------
    @property
    def n_blocks(self) -> int:
        return int(self.hist.sum())

    @property
    def raw_bits(self) -> int:
        return 8 * self.block_bytes * self.n_blocks

    @property
    def mode_counts(self) -> Dict[int, int]:
        """Blocks per encoding id."""
        return {m: v[0] for m, v in self.modes.items()}

    def bits_by_field(self) -> Dict[str, int]:
        """Total payload, meta, header and tag bits: where the bits go."""
        names = ("payload_bits", "meta_bits", "header_bits", "tag_bits")
        return {n: sum(v[i + 1] for v in self.modes.values()) for i, n in enumerate(names)}

    @property
    def inband_bits(self) -> int:
        return int(np.dot(self.hist, np.arange(self.hist.shape[0], dtype=np.int64)))

    def charged_bits(self, policy: Optional[str] = None, count_tag: bool = False) -> int:
        """Total bits charged under ``policy`` (default: the preset's); tags on request."""
        policy = self.policy if policy is None else policy
        count_tag = check_bool("count_tag", count_tag)
        levels = np.arange(self.hist.shape[0], dtype=np.uint32)
        total = int(np.dot(self.hist.astype(np.uint64), charge(levels, self.block_bytes, policy)))
        if count_tag:
            total += self.tag_bits + self.n_blocks * _core.policy_extra_tag_bits(policy)
        return total

    def cr(self, policy: Optional[str] = None, count_tag: bool = False) -> float:
        """Raw CR = sum(8B) / sum(charged bits), a ratio of sums (SPEC 0.6); inf for 0 bits, NaN
        for no blocks (0 / 0, as SLC's reports)."""
        charged = self.charged_bits(policy, count_tag)
        if charged == 0:
            return float("nan") if self.raw_bits == 0 else float("inf")
        return self.raw_bits / charged

    def cr_mag(self, mag: int = 32, u_min: int = 1, policy: Optional[str] = None) -> float:
        """CR at memory access granularity ``mag`` bytes (P1 §V), after the policy's fallback."""
        return self.cr(mag_policy(self.policy if policy is None else policy, mag, u_min))

    def size_classes(self, mag: int = 32, u_min: int = 1, policy: Optional[str] = None) -> Dict[int, float]:
        """Share of blocks charged each number of bytes at MAG: ``{32: 0.4, 64: 0.1, ...}``."""
        p = mag_policy(self.policy if policy is None else policy, mag, u_min)
        levels = np.arange(self.hist.shape[0], dtype=np.uint32)
        charged_bytes = charge(levels, self.block_bytes, p) // 8
        n = max(self.n_blocks, 1)
        out = {}
        for b in range(0 if u_min == 0 else mag, self.block_bytes + 1, mag):
            out[b] = float(self.hist[charged_bytes == b].sum()) / n
        if self.block_bytes % mag:
            out[self.block_bytes] = float(self.hist[charged_bytes == self.block_bytes].sum()) / n
        return out

    def above_mag(self, mag: int = 32, policy: str = "none") -> "pandas.DataFrame":
        """Where compressed sizes fall against the MAG grid (P4 §II-B, Fig. 2), in whole bytes:
        one row per (bursts_below, bytes_above) with ``bytes = ceil(bits / 8)``, ``bursts_below =
        bytes // mag``, ``bytes_above = bytes % mag`` (0 .. mag-1): the bytes for which a whole
        further burst is fetched. ``paper_bin`` is P4's x axis: blocks under one burst go to 0 and
        blocks of B bytes or more (stored uncompressed) to ``mag``. Columns blocks and share.
        ``policy``'s fallback (``cap``, ``threshold(f)``) applies first: a block it stores
        uncompressed counts as B bytes; its rounding does not apply (the grid is the rounding)."""
        import pandas as pd

        mag = check_int("mag", mag, 1, 4096)
        bits = np.nonzero(self.hist)[0]
        counts = self.hist[bits]
        fallback, _ = split_policy(policy)
        if fallback is not None:
            bits = charge(bits.astype(np.uint32), self.block_bytes, fallback).astype(np.int64)
        nbytes = (bits + 7) // 8
        below, above = nbytes // mag, nbytes % mag
        paper = np.where(nbytes < mag, 0, np.where(nbytes >= self.block_bytes, mag, above))
        df = pd.DataFrame({"bursts_below": below, "bytes_above": above, "paper_bin": paper, "blocks": counts})
        df = df.groupby(["bursts_below", "bytes_above", "paper_bin"], as_index=False)["blocks"].sum()
        df.insert(0, "codec", self.codec)
        df.insert(1, "block_bytes", self.block_bytes)
        df.insert(2, "mag", mag)
        df["share"] = df["blocks"] / max(self.n_blocks, 1)
        return df

    def histogram(self) -> "pandas.Series":
        """Blocks per in-band size in bits (non-empty bins only)."""
        import pandas as pd

        nz = np.nonzero(self.hist)[0]
        return pd.Series(self.hist[nz], index=pd.Index(nz, name="bits"), name="blocks")
