"""Zero-run-length histogram: per block, the maximal runs of consecutive all-zero words, counted
by length. It says how much of a dump FPC's zero-run pattern (UW TR-1500: runs of 1-8 words, one
3-bit prefix and a 3-bit length) or C-Pack's zzzz code could take, and how long the runs are.

A whole analysis in one module: its options, partial result, merge and table. The registry
(:mod:`memcomp.analysis.registry`) lists it, so it runs serially, over a stream, on Dask and as
``memcomp zero-runs`` with no further code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

import numpy as np

from .._common import provenance
from .base import Analysis, Int, Option

if TYPE_CHECKING:
    import pandas

__all__ = ["ZeroRuns", "ZeroRunStats", "zero_run_lengths"]

_WORD = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def zero_run_lengths(chunk: np.ndarray, word_bytes: int) -> np.ndarray:
    """The lengths, in words, of every maximal run of zero words inside each block of ``chunk``
    (runs never cross a block boundary), block by block in order."""
    n, B = chunk.shape
    if B % word_bytes:
        raise ValueError(f"word_bytes={word_bytes} does not divide the {B} B blocks")
    z = np.zeros((n, B // word_bytes + 2), dtype=np.int8)  # a non-zero word on each side of a block
    z[:, 1:-1] = chunk.view(_WORD[word_bytes]) == 0
    d = np.diff(z, axis=1)
    starts, ends = np.nonzero(d == 1)[1], np.nonzero(d == -1)[1]  # row by row: pairs line up
    return ends - starts


@dataclass(frozen=True)
class ZeroRunStats:
    """The partial result: blocks seen and, per run length 0..B/w, the runs counted."""

    word_bytes: int
    block_bytes: int
    blocks: int
    runs: np.ndarray

    def __add__(self, other: "ZeroRunStats") -> "ZeroRunStats":
        if (self.word_bytes, self.block_bytes) != (other.word_bytes, other.block_bytes):
            raise ValueError("cannot merge zero-run histograms of different word or block sizes")
        return ZeroRunStats(self.word_bytes, self.block_bytes, self.blocks + other.blocks, self.runs + other.runs)


class ZeroRuns(Analysis):
    """Per run length in words, the runs of consecutive zero words inside blocks, the zero words
    they hold and their share of all zero words and of all words.

    Columns: ``run_words`` (1 to B / ``word_bytes``), ``runs``, ``zero_words`` (runs x length),
    ``share_of_zero_words`` and ``share_of_words``; ``blocks`` and ``word_bytes`` on every row."""

    name = "zero-runs"
    summary = "histogram of the lengths of runs of zero words inside blocks"
    OPTIONS = (Option("word_bytes", 4, Int(choices=tuple(_WORD)), "word size in bytes"),)

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "ZeroRuns":
        if block_bytes % self["word_bytes"]:
            raise ValueError(f"word_bytes={self['word_bytes']} does not divide the {block_bytes} B blocks")
        return self

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple[ZeroRunStats, Any]:
        w, B = self["word_bytes"], int(chunk.shape[1])
        runs = np.bincount(zero_run_lengths(chunk, w), minlength=B // w + 1).astype(np.int64)
        return ZeroRunStats(w, B, int(chunk.shape[0]), runs), carry

    def finish(self, total: ZeroRunStats, source: Dict[str, Any]) -> "pandas.DataFrame":
        import pandas as pd

        lengths = np.arange(1, total.runs.size, dtype=np.int64)
        runs = total.runs[1:]
        zero_words = runs * lengths
        words = total.blocks * (total.block_bytes // total.word_bytes)
        zeros = int(zero_words.sum())
        df = pd.DataFrame(
            {
                "run_words": lengths,
                "runs": runs,
                "zero_words": zero_words,
                "share_of_zero_words": zero_words / zeros if zeros else np.full(lengths.size, np.nan),
                "share_of_words": zero_words / words if words else np.full(lengths.size, np.nan),
            }
        )
        front = {**source, **provenance(), "block_bytes": total.block_bytes, "word_bytes": total.word_bytes}
        front["blocks"] = total.blocks
        for i, (k, v) in enumerate(front.items()):
            df.insert(i, k, v)
        return df
