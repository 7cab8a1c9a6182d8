"""Long-form comparison tables: one row per (codec preset, block size) (DESIGN "Results")."""
from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence, Union

import numpy as np

from .codecs import Codec, codec_names, get_codec
from .metrics import SizeStats, mag_policy

ProgressFn = Callable[[int, int], None]


def resolve_codecs(codecs: Union[str, Codec, Iterable[Union[str, Codec]]]) -> List[Codec]:
    """Codec objects from names, objects, ``"all"`` (every preset) or ``"defaults"``."""
    if isinstance(codecs, (str, Codec)):
        codecs = [codecs]
    out: List[Codec] = []
    for c in codecs:
        if isinstance(c, str) and c in ("all", "defaults"):
            out.extend(get_codec(n) for n in codec_names(defaults_only=c == "defaults"))
        else:
            out.append(get_codec(c))
    if not out:
        raise ValueError("no codecs given")
    return out


def _chunks(blocks, chunk_blocks: int):
    if hasattr(blocks, "chunks") and callable(blocks.chunks):
        yield from blocks.chunks(chunk_blocks)
        return
    if not isinstance(blocks, np.ndarray):
        raise TypeError(
            f"blocks must be an (n, B) uint8 ndarray or a memcomp Dump, got {type(blocks).__name__}; "
            "use memcomp.as_blocks(array, block_bytes)"
        )
    if blocks.ndim != 2:
        raise ValueError(f"blocks must be 2-D (n_blocks, block_bytes), got shape {blocks.shape}")
    for start in range(0, blocks.shape[0], chunk_blocks):
        yield blocks[start : start + chunk_blocks]


def collect_stats(
    blocks,
    codecs: Union[str, Codec, Iterable[Union[str, Codec]]] = ("bdi", "fpc"),
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    progress: Optional[ProgressFn] = None,
) -> List[SizeStats]:
    """Streams ``blocks`` through every codec chunk by chunk; one merged SizeStats per codec."""
    cs = resolve_codecs(codecs)
    total = int(blocks.n_blocks) if hasattr(blocks, "n_blocks") else int(getattr(blocks, "shape", (0,))[0])
    stats: List[Optional[SizeStats]] = [None] * len(cs)
    done = 0
    for chunk in _chunks(blocks, int(chunk_blocks)):
        for i, c in enumerate(cs):
            s = c.measure(chunk, threads=threads).stats()
            stats[i] = s if stats[i] is None else stats[i] + s
        done += int(chunk.shape[0])
        if progress is not None:
            progress(done, total)
    if stats and stats[0] is None:  # no blocks at all: still validate and report zero rows
        block_bytes = int(blocks.block_bytes if hasattr(blocks, "block_bytes") else blocks.shape[1])
        for c in cs:
            c.measure(np.zeros((0, block_bytes), dtype=np.uint8))
        stats = [SizeStats.empty(c, block_bytes) for c in cs]
    return stats  # type: ignore[return-value]


def table(
    stats: Sequence[SizeStats],
    codecs: Sequence[Codec],
    *,
    mag: int = 32,
    u_min: int = 1,
    policy: Optional[str] = None,
    count_tag: bool = False,
) -> "pandas.DataFrame":  # noqa: F821
    """The comparison table from per-codec statistics (see :func:`compare`)."""
    import pandas as pd

    rows = []
    for st, c in zip(stats, codecs):
        pol = c.policy if policy is None else policy
        row = {
            "codec": c.name,
            "family": c.codec_id,
            "preset": c.preset,
            "exact": c.exact,
            "block_bytes": st.block_bytes,
            "blocks": st.n_blocks,
            "raw_bits": st.raw_bits,
            "inband_bits": st.inband_bits,
            "tag_bits": st.tag_bits,
            "policy": pol,
            "charged_bits": st.charged_bits(pol, count_tag),
            "cr": st.cr(pol, count_tag),
            "mag": int(mag),
            "cr_mag": st.cr(mag_policy(pol, mag, u_min)),
        }
        for size, share in st.size_classes(mag, u_min, pol).items():
            row[f"share_{size}B"] = share
        rows.append(row)
    return pd.DataFrame(rows)


def compare(
    blocks,
    codecs: Union[str, Codec, Iterable[Union[str, Codec]]] = ("bdi", "fpc"),
    *,
    mag: int = 32,
    u_min: int = 1,
    policy: Optional[str] = None,
    count_tag: bool = False,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    progress: Optional[ProgressFn] = None,
) -> "pandas.DataFrame":  # noqa: F821
    """Compares codecs on ``blocks`` (an ``(n, B)`` uint8 array or a Dump from :func:`open_dump`).

    One row per codec preset: blocks, raw bits, in-band and tag bits, charged bits under the
    policy (default: each preset's own), raw CR (a ratio of sums), CR at ``mag`` bytes (the
    policy's fallback, then MAG rounding) and the share of blocks charged each multiple of MAG.
    """
    cs = resolve_codecs(codecs)
    stats = collect_stats(blocks, cs, threads=threads, chunk_blocks=chunk_blocks, progress=progress)
    return table(stats, cs, mag=mag, u_min=u_min, policy=policy, count_tag=count_tag)
