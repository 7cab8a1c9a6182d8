"""Long-form comparison tables: one row per (codec preset, block size) (DESIGN "Results").

:func:`compare` streams a dump through every codec once and reports raw CR, CR at MAG, the share
of blocks per MAG size class, where the bits go (payload, per-element metadata, header, tags),
and an "oracle" row: the per-block smallest of all codecs, the headroom a hybrid could reach.
Data-driven codecs that have no model yet are fitted on the compared blocks themselves (offline
training, P1's best case); the ``model`` column says which codecs were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ._common import (
    block_bytes_of,
    check_bool,
    check_chunk_blocks,
    check_int,
    chunks,
    fit_sample,
    n_blocks_of,
    provenance,
    source_of,
)
from .codecs import Codec, codec_names, get_codec
from .metrics import SizeStats, mag_policy, parse_policy

if TYPE_CHECKING:
    import pandas

ProgressFn = Callable[[int, int], None]
CodecsArg = Union[str, Codec, Iterable[Union[str, Codec]]]

ORACLE = "oracle"


def resolve_codecs(codecs: CodecsArg, block_bytes: Optional[int] = None) -> List[Codec]:
    """Codec objects from names, objects, ``"all"`` (every preset) or ``"defaults"``; with
    ``block_bytes``, the groups keep only codecs defined for that block size."""
    if isinstance(codecs, (str, Codec)):
        codecs = [codecs]
    if isinstance(codecs, Mapping) or not isinstance(codecs, Iterable):
        raise TypeError(
            f"codecs must be a codec name, a Codec, 'all', 'defaults' or a list of them, got {type(codecs).__name__}"
        )
    out: List[Codec] = []
    for c in codecs:
        if isinstance(c, str) and c in ("all", "defaults"):
            group = (get_codec(n) for n in codec_names(defaults_only=c == "defaults"))
            out.extend(g for g in group if block_bytes is None or g.supports(block_bytes))
        else:
            out.append(get_codec(c))
    if not out:
        raise ValueError("no codecs given")
    return out


def fit_missing(
    blocks, codecs: Sequence[Codec], threads: Optional[int] = None, sample: Optional[Tuple[np.ndarray, str]] = None
) -> Tuple[List[Codec], List[str]]:
    """Fits every data-driven codec without a model on ``blocks`` (offline training), on at most
    ``FIT_BYTES`` (64 MiB) of them (:func:`memcomp._common.fit_sample`, or ``sample``: the blocks
    and how they were taken, when the caller drew them). Returns the codecs and, per codec,
    ``"-"`` (no model), ``"given"``, ``"offline"`` (fitted on every block) or ``"sample(64 MiB)"``
    / ``"head(64 MiB)"`` (fitted on part of a larger dump or a stream)."""
    out, how = [], []
    for c in codecs:
        if c.requires_fit:
            if sample is None:
                sample = fit_sample(blocks)
            if len(sample[0]) == 0:  # an empty dump: nothing to fit on, nothing to measure
                out.append(c)
                how.append("-")
                continue
            out.append(c.fit(sample[0], threads=threads))
            how.append(sample[1])
        else:
            out.append(c)
            how.append("given" if c.model is not None else "-")
    return out, how


def collect_stats(
    blocks,
    codecs: CodecsArg = ("bdi", "fpc"),
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    progress: Optional[ProgressFn] = None,
    oracle_over: str = "exact",
) -> Tuple[List[SizeStats], SizeStats, np.ndarray]:
    """Streams ``blocks`` through every (fitted) codec chunk by chunk.

    Returns one merged SizeStats per codec, the oracle's SizeStats (per block the smallest in-band
    size of the codecs ``oracle_over`` names: ``"exact"`` the decodable ones, ``"all"`` every one;
    its mode is the index of the first codec reaching it) and the number of blocks each codec won
    that way (0 for codecs outside the oracle)."""
    check_chunk_blocks(chunk_blocks)
    cs = resolve_codecs(codecs)
    members = np.array([oracle_member(c, oracle_over) for c in cs], dtype=bool)
    block_bytes = block_bytes_of(blocks)
    total = n_blocks_of(blocks)
    stats = [SizeStats.empty(c, block_bytes) for c in cs]
    max_bits = max([c.max_compressed_bits(block_bytes) for c, m in zip(cs, members) if m] or [0])
    oracle = SizeStats(ORACLE, block_bytes, "none", np.zeros(max_bits + 1, dtype=np.int64))
    wins = np.zeros(len(cs), dtype=np.int64)
    done = 0
    run = [c._private() for c in cs]  # a stateful codec's state is ours between chunks
    for chunk in chunks(blocks, chunk_blocks):
        sizes = [c.measure(chunk, threads=threads, resume=done > 0) for c in run]
        for i, s in enumerate(sizes):
            stats[i] = stats[i] + s.stats()
        if chunk.shape[0] and members.any():
            idx_of = np.flatnonzero(members)
            bits = np.stack([sizes[i].size_bits for i in idx_of])
            best = idx_of[bits.argmin(axis=0)]  # first minimum: ties go to the earlier codec
            wins += np.bincount(best, minlength=len(cs))
            oracle.hist += np.bincount(bits.min(axis=0), minlength=max_bits + 1)
            idx, counts = np.unique(best, return_counts=True)
            for i, n in zip(idx, counts):
                oracle.modes.setdefault(int(i), [0, 0, 0, 0, 0])[0] += int(n)
        done += int(chunk.shape[0])
        if progress is not None:
            progress(done, total if total is not None else done)
    return stats, oracle, wins


ORACLE_OVER = ("exact", "all")


def oracle_member(codec: Codec, oracle_over: str) -> bool:
    """Whether the oracle row takes ``codec`` into account: ``"exact"`` (default) only decodable
    lossless presets, since accounting-only ones (``exact=False``) may undercharge (e.g.
    ``bpc.skku``'s base) and lossy ones (SLC) buy their size with error; ``"all"`` every codec."""
    if oracle_over not in ORACLE_OVER:
        raise ValueError(f"oracle must be one of {ORACLE_OVER} (or False for no oracle row), got {oracle_over!r}")
    return oracle_over == "all" or (codec.exact and not codec.lossy)


def table(
    stats: Sequence[SizeStats],
    codecs: Sequence[Codec],
    *,
    mag: int = 32,
    u_min: int = 1,
    policy: Optional[str] = None,
    count_tag: bool = False,
    oracle: Optional[SizeStats] = None,
    wins: Optional[np.ndarray] = None,
    training: Optional[Sequence[str]] = None,
    oracle_over: str = "exact",
    source: Optional[dict] = None,
) -> "pandas.DataFrame":
    """The comparison table from per-codec statistics (see :func:`compare`); ``source`` is the
    data's provenance (:func:`memcomp._common.source_of`), put on every row."""
    import pandas as pd

    rows = []
    members = [oracle_member(c, oracle_over) for c in codecs]

    def row(st: SizeStats, name, family, preset, exact, lossy, pol, fields, config):
        r = {
            **(source or {}),
            **provenance(config),
            "codec": name,
            "family": family,
            "preset": preset,
            "exact": exact,
            "lossy": lossy,
            "block_bytes": st.block_bytes,
            "blocks": st.n_blocks,
            "raw_bits": st.raw_bits,
            "inband_bits": st.inband_bits,
            **fields,
            "policy": pol,
            "charged_bits": st.charged_bits(pol, count_tag and fields.get("tag_bits") is not None),
            "cr": st.cr(pol, count_tag and fields.get("tag_bits") is not None),
            "mag": int(mag),
            "u_min": int(u_min),
            "count_tag": bool(count_tag),
            "cr_mag": st.cr(mag_policy(pol, mag, u_min)),
        }
        for size, share in st.size_classes(mag, u_min, pol).items():
            r[f"share_{size}B"] = share
        return r

    for i, (st, c) in enumerate(zip(stats, codecs)):
        pol = c.policy if policy is None else policy
        r = row(st, c.name, c.codec_id, c.preset, c.exact, c.lossy, pol, st.bits_by_field(), c.get_config())
        r["model"] = training[i] if training is not None else ("given" if c.model is not None else "-")
        if wins is not None:
            r["oracle_wins"] = int(wins[i]) if members[i] else None
        r["oracle_over"] = oracle_over if oracle is not None else None
        rows.append(r)
    if oracle is not None and sum(members) > 1:
        none = {"payload_bits": None, "meta_bits": None, "header_bits": None, "tag_bits": None}
        config = {"id": ORACLE, "members": [c.name for c, m in zip(codecs, members) if m]}
        r = row(
            oracle,
            ORACLE,
            ORACLE,
            ORACLE,
            None,
            oracle_over == "all" and any(c.lossy for c in codecs),
            "none",
            none,
            config,
        )
        r["model"] = "-"
        r["oracle_wins"] = oracle.n_blocks
        r["oracle_over"] = oracle_over
        rows.append(r)
    df = pd.DataFrame(rows)
    for col in ("payload_bits", "meta_bits", "header_bits", "tag_bits", "oracle_wins"):
        if col in df:
            df[col] = df[col].astype("Int64")
    return df


def compare(
    blocks,
    codecs: CodecsArg = ("bdi", "fpc"),
    *,
    mag: int = 32,
    u_min: int = 1,
    policy: Optional[str] = None,
    count_tag: bool = False,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    oracle: Union[bool, str] = "exact",
    codec_mag: bool = False,
    progress: Optional[ProgressFn] = None,
) -> "pandas.DataFrame":
    """Compares codecs on ``blocks`` (an ``(n, B)`` uint8 array or a Dump from :func:`open_dump`).

    One row per codec preset: blocks, raw bits, in-band bits and where they go (payload, meta,
    header, tag), charged bits under the policy (default: each preset's own), raw CR (a ratio of
    sums), CR at ``mag`` bytes (the policy's fallback, then MAG rounding), the share of blocks
    charged each multiple of MAG, how many blocks the codec wins outright (``oracle_wins``) and
    whether its model was fitted here (``model``: ``offline``). With ``oracle`` and more than one
    codec, a last row takes per block the smallest in-band size of all codecs (no selector cost):
    the headroom a hybrid could reach. By default (``oracle="exact"``) it is taken over the
    decodable presets only; ``oracle="all"`` includes the accounting-only ones, ``False`` drops the
    row, and the ``oracle_over`` column says which.

    ``mag`` is accounting only: it changes CR at MAG and the size classes, never a codec. Formats
    that depend on a MAG keep their own ``mag`` option (E2MC stores a block raw above B - MAG
    bytes, P1 §III-E; SPEC 0.5), so raw CR does not move with ``mag``. ``codec_mag=True`` also
    sets the ``mag`` option of every codec that has one, so the format follows the MAG studied.

    Every row carries its provenance (``memcomp_version``, ``config``: the codec's JSON config
    with fitted models reduced to a digest, ``block_bytes``, ``mag``, ``u_min``, ``policy``,
    ``count_tag``), so tables of several runs concatenate (long form).
    """
    check_chunk_blocks(chunk_blocks)
    mag, u_min = check_int("mag", mag, 1, 4096), check_int("u_min", u_min, 0, 4096)
    count_tag, codec_mag = check_bool("count_tag", count_tag), check_bool("codec_mag", codec_mag)
    if policy is not None:
        parse_policy(policy)
    over = "exact" if oracle is True else oracle
    if over not in (False, None) and over not in ORACLE_OVER:
        raise ValueError(f"oracle must be one of {ORACLE_OVER}, True or False, got {oracle!r}")
    block_bytes = block_bytes_of(blocks)
    cs = resolve_codecs(codecs, block_bytes)
    if codec_mag:
        cs = [with_mag(c, mag) for c in cs]
    cs, training = fit_missing(blocks, cs, threads)
    stats, orc, wins = collect_stats(
        blocks, cs, threads=threads, chunk_blocks=chunk_blocks, progress=progress, oracle_over=over or "exact"
    )
    return table(
        stats,
        cs,
        mag=mag,
        u_min=u_min,
        policy=policy,
        count_tag=count_tag,
        oracle=orc if over else None,
        wins=wins,
        training=training,
        oracle_over=over or "exact",
        source=source_of(blocks),
    )


def with_mag(codec: Codec, mag: int) -> Codec:
    """``codec`` with its ``mag`` option set to ``mag`` (unchanged if it has none)."""
    codec, mag = get_codec(codec), check_int("mag", mag, 1, 4096)
    if "mag" not in codec.options or codec.options["mag"] == mag:
        return codec
    cfg = codec.get_config()
    cfg["mag"] = int(mag)  # a fitted model stays valid: it does not depend on the MAG
    return Codec.from_config(cfg)


def breakdown(
    blocks,
    codecs: CodecsArg = ("bdi", "fpc"),
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> "pandas.DataFrame":
    """Where the bits go, per codec and encoding mode: blocks, share of blocks, mean in-band bits
    and the payload / meta / header / tag totals of each mode (a best-of codec's modes name the
    member that won, e.g. ``fpc.paper:fpc``)."""
    import pandas as pd

    check_chunk_blocks(chunk_blocks)
    cs, _ = fit_missing(blocks, resolve_codecs(codecs, block_bytes_of(blocks)), threads)
    stats, _, _ = collect_stats(blocks, cs, threads=threads, chunk_blocks=chunk_blocks)
    rows = []
    for st, c in zip(stats, cs):
        names = c.modes
        for m, (n, payload, meta, header, tag) in sorted(st.modes.items()):
            rows.append(
                {
                    "codec": c.name,
                    "mode": m,
                    "mode_name": names.get(m, str(m)),
                    "blocks": n,
                    "share": n / max(st.n_blocks, 1),
                    "mean_bits": (payload + meta + header) / max(n, 1),
                    "payload_bits": payload,
                    "meta_bits": meta,
                    "header_bits": header,
                    "tag_bits": tag,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "codec",
            "mode",
            "mode_name",
            "blocks",
            "share",
            "mean_bits",
            "payload_bits",
            "meta_bits",
            "header_bits",
            "tag_bits",
        ],
    )


def mag_study(
    data,
    codecs: CodecsArg = ("bdi", "fpc", "cpack", "e2mc"),
    *,
    block_sizes: Sequence[int] = (32, 64, 128),
    mags: Sequence[int] = (16, 32, 64),
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> Tuple["pandas.DataFrame", "pandas.DataFrame"]:
    """What memory access granularity does to the gain (P4 §II, Figs. 1 and 2), for any codec.

    ``data`` is an array (its bytes are cut into each block size) or a Dump (its own block size).
    Returns two long-form tables: per (codec, block_bytes, mag) raw CR and effective CR at MAG
    (``cr``, ``cr_mag``, ``loss`` = 1 - cr_mag / cr), and the distribution of compressed sizes
    against the MAG grid (:meth:`SizeStats.above_mag`). Each codec is measured once per block size;
    the MAG views come from the same mergeable size histogram. MPC runs on 32 B sectors only."""
    import pandas as pd

    from .blocks import as_blocks, byte_view, check_block_bytes

    if hasattr(data, "chunks") and not isinstance(data, np.ndarray):
        sources = {block_bytes_of(data): data}
    else:
        flat = byte_view(data)
        sizes = [check_block_bytes(b, name="block_sizes entries") for b in block_sizes]
        sources = {b: as_blocks(flat[: flat.shape[0] // b * b], b) for b in sizes}
    mags = [check_int("mags entries", m, 1, 4096) for m in mags]
    rows, hists = [], []
    for b, blocks in sources.items():
        cs = resolve_codecs(codecs, b)
        cs = [c for c in cs if c.supports(b)]
        if not cs:
            continue
        cs, _ = fit_missing(blocks, cs, threads)
        stats, _, _ = collect_stats(blocks, cs, threads=threads, chunk_blocks=chunk_blocks, oracle_over="exact")
        for st, c in zip(stats, cs):
            for m in mags:
                cr, cr_mag = st.cr("none"), st.cr_mag(m, policy="none")
                rows.append(
                    {
                        **source_of(blocks),
                        **provenance(c.get_config()),
                        "codec": c.name,
                        "block_bytes": b,
                        "mag": int(m),
                        "blocks": st.n_blocks,
                        "cr": cr,
                        "cr_mag": cr_mag,
                        "loss": 1 - cr_mag / cr,
                    }
                )
                h = st.above_mag(m)
                h["codec"] = c.name
                hists.append(h)
    return pd.DataFrame(rows), (pd.concat(hists, ignore_index=True) if hists else pd.DataFrame())
