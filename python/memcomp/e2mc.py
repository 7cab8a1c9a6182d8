"""E2MC studies (P1 = Lal, Lucas & Juurlink, IPDPS'17): online training, the sampling study of
its Fig. 4, and how close the achieved ratio comes to the entropy bound (its §V-A gap).

The codec itself is ``get_codec("e2mc", symbol_bits=16, pdw=4, ...)``; fitted offline with
``.fit(blocks)`` on the evaluated dump (P1's best case) or on any other sample (external).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np

from . import entropy
from ._common import (
    block_bytes_of,
    check_chunk_blocks,
    check_float,
    check_int,
    chunks,
    in_memory,
    n_blocks_of,
    refuse_masked,
)
from .analysis.run import again, draw
from .codecs import Codec, get_codec
from .metrics import SizeStats

if TYPE_CHECKING:
    import pandas

#: ``mode`` of a block E2MC's raw rule stores uncompressed; a compressed block's mode is its bursts.
E2MC_RAW_MODE = 0


def _blocks(blocks) -> np.ndarray:
    arr = in_memory(blocks) if hasattr(blocks, "blocks") and not isinstance(blocks, np.ndarray) else blocks
    if not isinstance(arr, np.ndarray) or arr.ndim != 2:
        raise TypeError("blocks must be an (n, B) uint8 ndarray or a memcomp Dump")
    refuse_masked(arr)
    return arr


def _numbers(name: str, values: Any, check: Callable[[str, Any], Any]) -> list:
    """``values``, a sequence, with each entry checked by ``check(name, entry)``; TypeError naming
    ``name`` for a str or a single number."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence, got {type(values).__name__}")
    return [check(f"{name} entries", v) for v in values]


@dataclass(frozen=True)
class OnlineResult:
    """Online training (P1 §III-B2b): the first ``window`` blocks are sampled (and stored raw),
    the codec fitted on them compresses the rest. ``stats`` covers every block."""

    codec: Codec
    window: int
    stats: SizeStats

    def cr(self) -> float:
        return self.stats.cr("none")

    def cr_mag(self, mag: int = 32) -> float:
        return self.stats.cr_mag(mag)


def online(
    blocks,
    codec="e2mc",
    window: Optional[int] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    **options,
) -> OnlineResult:
    """Fits ``codec`` on the first ``window`` blocks (default ceil(0.1 n), SPEC 1.10), stores those
    raw and measures the remaining blocks with the fitted model. ``blocks``: an ``(n, B)`` array,
    a Dump or a stream (which needs ``window``: its length is unknown until read), streamed in
    chunks of ``chunk_blocks`` blocks after the window, so a dump of any size fits in memory."""
    if isinstance(blocks, np.ndarray) or not hasattr(blocks, "chunks"):  # an array, not a Dump or stream
        blocks = _blocks(blocks)
    check_chunk_blocks(chunk_blocks)
    n = n_blocks_of(blocks)
    if window is not None:
        w = check_int("window", window)
    elif n is None:
        raise ValueError("window: give it for a stream, whose length is unknown until it has been read")
    else:
        w = math.ceil(0.1 * n)
    if not 1 <= w <= (w if n is None else n):
        raise ValueError(f"window must be in [1, {n}] blocks, got {w}")
    if isinstance(codec, str):
        c = get_codec(codec, **options)
    elif isinstance(codec, Codec) and not options:
        c = codec
    else:
        raise TypeError(
            f"codec must be a codec name (options as keywords) or a Codec without options, got {type(codec).__name__}"
        )
    B = block_bytes_of(blocks)
    fitted = c.fit(draw(blocks, w)[0], threads=threads)
    stats = SizeStats.empty(fitted, B)
    stats.hist[8 * B] += w  # the sampled blocks travel uncompressed
    stats.modes[E2MC_RAW_MODE] = [w, w * 8 * B, 0, 0, 0]
    seen = 0
    for chunk in chunks(blocks, chunk_blocks):  # the blocks after the window, a chunk at a time
        rest = chunk[max(0, w - seen) :]
        seen += int(chunk.shape[0])
        if rest.shape[0]:
            stats = stats + fitted.measure(np.ascontiguousarray(rest), threads=threads).stats()
    if seen < w:
        raise ValueError(f"window must be in [1, {seen}] blocks, got {w}")
    return OnlineResult(fitted, w, stats)


def _stats(codec: Codec, source: Any, threads: Optional[int]) -> SizeStats:
    """The codec's size statistics over an array, or a Dump or stream (from its start) a chunk
    at a time."""
    return functools.reduce(
        operator.add, (codec.measure(chunk, threads=threads).stats() for chunk in chunks(again(source), 1 << 18))
    )


def _n_blocks(source: Any) -> int:
    """Blocks in an array or a Dump; a stream not read yet is read once to count them."""
    if isinstance(source, np.ndarray):
        return int(source.shape[0])
    if source.n_blocks is None:
        source = again(source)
        for _ in chunks(source, 1 << 18):
            pass
    return int(source.n_blocks)


def sampling_study(
    blocks,
    mfv: Sequence[int] = (64, 256, 1024, 4096),
    windows: Sequence[float] = (0.01, 0.05, 0.1, 0.2, 0.5),
    symbol_bits: int = 16,
    mag: int = 32,
    threads: Optional[int] = None,
    **options,
) -> "pandas.DataFrame":
    """P1 Fig. 4 on your data: CR (raw and at MAG) against the MFV table size (``mfv``: positive
    integers; offline fit on the whole dump) and against the online sampling length (``windows``:
    fractions of the blocks in (0, 1], at least one block each), each also relative to its first
    entry as P1 plots it. ``blocks`` is an array, or a Dump or compressed stream read a chunk at a
    time in bounded memory (fits from symbol counts, the online runs streamed; a stream is read
    once per pass).
    TypeError / ValueError name the argument for anything else."""
    import pandas as pd

    source = _blocks(blocks) if isinstance(blocks, np.ndarray) else blocks
    mfv = _numbers("mfv", mfv, lambda name, k: check_int(name, k, 1))
    windows = _numbers("windows", windows, lambda name, f: check_float(name, f, 0.0, 1.0, lo_open=True))
    mag = check_int("mag", mag, 1, 4096)
    rows = []
    for k in mfv:
        c = get_codec("e2mc", symbol_bits=symbol_bits, mfv=k, **options).fit(again(source), threads=threads)
        st = _stats(c, source, threads)
        rows.append({"study": "mfv", "mfv": k, "window": st.n_blocks, "cr": st.cr("none"), "cr_mag": st.cr_mag(mag)})
    n = rows[0]["window"] if rows else _n_blocks(source)
    for f in windows:
        w = max(1, int(round(f * n)))
        r = online(again(source), "e2mc", window=w, threads=threads, symbol_bits=symbol_bits, **options)
        rows.append(
            {"study": "online", "mfv": r.codec.options["mfv"], "window": w, "cr": r.cr(), "cr_mag": r.cr_mag(mag)}
        )
    df = pd.DataFrame(rows)
    for _, g in df.groupby("study"):
        df.loc[g.index, "cr_rel"] = g["cr"] / g["cr"].iloc[0]
        df.loc[g.index, "cr_mag_rel"] = g["cr_mag"] / g["cr_mag"].iloc[0]
    return df


def bound_gap(
    blocks,
    symbol_bits: Union[int, Sequence[int]] = (4, 8, 16, 32),
    mfv: int = 1024,
    pdw: int = 4,
    mag: int = 32,
    threads: Optional[int] = None,
) -> "pandas.DataFrame":
    """E2MC's achieved CR next to the entropy bounds at each symbol length (P1 §V-A: 1.97 achieved
    vs 2.61 bound at SL 16): the order-0 bound CR_H, the MFV bound CR_K, and E2MC offline with
    ``pdw`` ways (raw CR and CR at MAG). The gap is bound / achieved. ``blocks`` is an array, or a
    Dump or compressed stream read a chunk at a time in bounded memory: the bounds in one pass
    (:func:`memcomp.entropy.table`), then per SL the fit from symbol counts and the sizes."""
    import pandas as pd

    source = _blocks(blocks) if isinstance(blocks, np.ndarray) else blocks
    sls = (
        [symbol_bits] if isinstance(symbol_bits, (int, np.integer)) else _numbers("symbol_bits", symbol_bits, check_int)
    )
    bounds = entropy.table(again(source), sls, mfv=mfv, threads=threads).set_index("symbol_bits")
    rows = []
    for sl in sls:
        b = bounds.loc[sl]
        c = get_codec("e2mc", symbol_bits=sl, mfv=mfv, pdw=pdw, mag=mag).fit(again(source), threads=threads)
        got = _stats(c, source, threads)
        bound = float(b["cr_per_position"] if sl <= 8 else b["cr_bound"])
        rows.append(
            {
                "symbol_bits": sl,
                "cr_bound": bound,
                "cr_mfv_bound": float(b["cr_mfv"]) if sl >= 16 else bound,
                "cr": got.cr("none"),
                "cr_mag": got.cr_mag(mag),
                "gap": bound / got.cr("none"),
                "raw_blocks": got.mode_counts.get(E2MC_RAW_MODE, 0) / max(got.n_blocks, 1),
            }
        )
    return pd.DataFrame(rows)
