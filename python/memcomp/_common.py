"""Helpers every analysis shares (DESIGN "One place per shared helper"): argument checks with
messages that say what to pass, the ``(n, B)`` array behind a Dump, and chunked iteration."""
from __future__ import annotations

import hashlib
import json
import numbers
from typing import Any, Dict, Iterator, Optional

import numpy as np

from ._version import __version__


def check_int(name: str, value: Any, lo: Optional[int] = None, hi: Optional[int] = None) -> int:
    """``value`` as a Python int: ints and NumPy integers only (no bool, float or str), within
    ``[lo, hi]``. TypeError / ValueError name the argument and the accepted range."""
    if hi is None:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(lo, f"an integer >= {lo}")
    else:
        what = f"an integer in [{lo}, {hi}]" if lo is not None else f"an integer <= {hi}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be {what}, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {what}, got {v}")
    return v


def check_chunk_blocks(chunk_blocks: Any) -> int:
    """Blocks per chunk of a streamed analysis: a positive integer."""
    return check_int("chunk_blocks", chunk_blocks, 1)


def block_bytes_of(blocks: Any) -> int:
    """The block size of an array or a Dump (a stream included)."""
    if isinstance(blocks, np.ndarray):
        return int(blocks.shape[-1]) if blocks.ndim == 2 else 0
    if hasattr(blocks, "block_bytes") and hasattr(blocks, "chunks"):
        return int(blocks.block_bytes)
    return int(whole(blocks).shape[-1])


def n_blocks_of(blocks: Any) -> Optional[int]:
    """Blocks of an array or a Dump; None for a stream not read yet."""
    if isinstance(blocks, np.ndarray):
        return int(blocks.shape[0]) if blocks.ndim == 2 else 0
    return getattr(blocks, "n_blocks", None)


#: What data-driven codecs are fitted on when compare() fits them (bounded, so a dump of any size
#: fits in bounded memory): all blocks up to this many bytes, else evenly spaced runs of blocks
#: adding up to it (a stream: its first bytes).
FIT_BYTES = 64 << 20


def sample_index(n_blocks: int, block_bytes: int, fit_bytes: int = FIT_BYTES) -> Optional[np.ndarray]:
    """The blocks :func:`fit_sample` takes from ``n_blocks`` blocks: None for every block (they fit
    in ``fit_bytes``), else the indices of 256 evenly spaced runs adding up to ``fit_bytes``."""
    want = max(1, fit_bytes // max(block_bytes, 1))
    if n_blocks <= want:
        return None
    runs = 256
    per = max(1, want // runs)
    starts = (np.arange(runs, dtype=np.int64) * (n_blocks - per)) // (runs - 1)
    return (starts[:, None] + np.arange(per, dtype=np.int64)).ravel()


def sample_how(index: Optional[np.ndarray], fit_bytes: int = FIT_BYTES) -> str:
    return "offline" if index is None else f"sample({fit_bytes >> 20} MiB)"


def fit_sample(blocks: Any, fit_bytes: int = FIT_BYTES) -> tuple:
    """(blocks to fit on, how) where how is "offline" (every block), "sample(N MiB)" (evenly spaced
    runs of a larger dump, :func:`sample_index`) or "head(N MiB)" (the first bytes of a stream)."""
    B = block_bytes_of(blocks)
    if hasattr(blocks, "head") and not isinstance(blocks, np.ndarray):
        return blocks.head(fit_bytes), f"head({fit_bytes >> 20} MiB)"
    arr = whole(blocks)
    idx = sample_index(arr.shape[0], B, fit_bytes)
    return (arr if idx is None else np.ascontiguousarray(arr[idx])), sample_how(idx, fit_bytes)


def whole(blocks: Any) -> np.ndarray:
    """The array behind ``blocks``: a Dump's memory map, or the ndarray itself."""
    if isinstance(blocks, np.ndarray):
        return blocks
    if hasattr(blocks, "blocks") and hasattr(blocks, "chunks"):
        return blocks.blocks
    raise TypeError(
        f"blocks must be an (n, B) uint8 ndarray or a memcomp Dump, got {type(blocks).__name__}; "
        "use memcomp.as_blocks(array, block_bytes) or memcomp.open_dump(path, block_bytes)"
    )


def chunks(blocks: Any, chunk_blocks: Any) -> Iterator[np.ndarray]:
    """Consecutive zero-copy chunks of ``chunk_blocks`` blocks (the last may be shorter). An array
    always gives at least one chunk, empty or not 2-D included, so the analysis it feeds validates
    it and says what is wrong. A Dump releases each chunk's pages once the next is asked for."""
    step = check_chunk_blocks(chunk_blocks)
    if not isinstance(blocks, np.ndarray):
        if not (hasattr(blocks, "chunks") and hasattr(blocks, "block_bytes")):
            whole(blocks)  # raises TypeError for anything but a Dump
        yield from blocks.chunks(step)
        return
    if blocks.ndim != 2:
        yield blocks
        return
    for start in range(0, max(blocks.shape[0], 1), step):
        yield blocks[start : start + step]


def digest(obj: Any) -> str:
    """A short content digest of a JSON-serialisable object (e.g. a fitted model)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _config_digested(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: (digest(v) if k == "model" and isinstance(v, dict) else _config_digested(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_config_digested(v) for v in obj]
    return obj


def provenance(config: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Columns every result row carries: the memcomp version and, for a codec, its config as JSON
    text (fitted models reduced to a digest), so rows of several runs concatenate."""
    out: Dict[str, Any] = {"memcomp_version": __version__}
    if config is not None:
        out["config"] = json.dumps(_config_digested(config), sort_keys=True, separators=(",", ":"))
    return out


def source_of(blocks: Any) -> Dict[str, Any]:
    """Provenance of the data: a Dump's dataset, file, format and byte range; {} for an array."""
    if hasattr(blocks, "provenance") and callable(blocks.provenance) and not isinstance(blocks, np.ndarray):
        return {k: v for k, v in blocks.provenance().items() if k != "block_bytes"}
    return {}
