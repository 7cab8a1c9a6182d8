"""Long-form comparison tables: one row per (codec preset, block size) (DESIGN "Results").

:func:`compare` streams a dump through every codec once and reports raw CR, CR at MAG, the share
of blocks per MAG size class, where the bits go (payload, per-element metadata, header, tags),
and an "oracle" row: the per-block smallest of all codecs, the headroom a hybrid could reach.
Data-driven codecs that have no model yet are fitted on the compared blocks themselves (offline
training, P1's best case); the ``model`` column says which codecs were. Raw CR and CR at MAG
charge blocks by one storage rule (:func:`memcomp.metrics.storage_policy`, the ``policy``
column). A preset a group names that is not defined for the block size gets a row of its own
whose ``note`` says why, and a :class:`SkippedCodecWarning`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ClassVar,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from . import _core
from ._common import (
    Progress,
    ProgressArg,
    block_bytes_of,
    check_chunk_blocks,
    check_int,
    check_progress,
    check_threads,
    n_blocks_of,
    provenance,
)
from .analysis.base import Analysis, Any_, Bool, Int, Option, Text
from .analysis.run import fold, run
from .codec_list import CODECS, CodecsArg, fit_missing, resolve_codecs
from .codec_list import CodecList as CodecList  # these were memcomp.report's before memcomp.codec_list
from .codec_list import SkippedCodecWarning as SkippedCodecWarning
from .codecs import Codec, Session, _block_array, get_codec, named_errors
from .metrics import SizeStats, mag_policy, parse_policy, storage_policy

if TYPE_CHECKING:
    import pandas

ProgressFn = Callable[[int, int], None]

ORACLE = "oracle"


def collect_stats(
    blocks,
    codecs: CodecsArg = ("bdi", "fpc"),
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    progress: ProgressArg = None,
    oracle_over: str = "exact",
) -> Tuple[List[SizeStats], SizeStats, np.ndarray]:
    """Streams ``blocks`` through every (fitted) codec chunk by chunk (:class:`Compare`'s partial
    result, folded over the data).

    Returns one merged SizeStats per codec, the oracle's SizeStats (per block the smallest in-band
    size of the codecs ``oracle_over`` names: ``"exact"`` the decodable ones, ``"all"`` every one;
    its mode is the index of the first codec reaching it) and the number of blocks each codec won
    that way (0 for codecs outside the oracle). ``progress``: see :func:`compare`."""
    check_chunk_blocks(chunk_blocks)
    check_progress(progress)
    cs = [] if isinstance(codecs, list) and not codecs else resolve_codecs(codecs)
    a = Compare.measuring(cs, block_bytes_of(blocks), oracle_over)
    with Progress(progress, n_blocks_of(blocks), "compare") as step:
        total, _ = fold(a, blocks, a.start(), threads=threads, chunk_blocks=chunk_blocks, step=step)
    return total.stats, total.oracle, total.wins


ORACLE_OVER = ("exact", "all")


def oracle_member(codec: Codec, oracle_over: str) -> bool:
    """Whether the oracle row takes ``codec`` into account: ``"exact"`` (default) only decodable
    lossless presets, since accounting-only ones (``exact=False``) may undercharge (e.g.
    ``bpc.skku``'s base) and lossy ones (SLC) buy their size with error; ``"all"`` every codec."""
    if oracle_over not in ORACLE_OVER:
        raise ValueError(f"oracle must be one of {ORACLE_OVER} (or False for no oracle row), got {oracle_over!r}")
    return oracle_over == "all" or (codec.exact and not codec.lossy)


def default_policy(codec: Codec, block_bytes: int) -> str:
    """The policy a table charges ``codec`` by when none is given: its preset's policy under the
    storage rule of :func:`memcomp.metrics.storage_policy` (``cap`` first where the format can
    exceed 8B bits and the preset has no fallback of its own)."""
    return storage_policy(codec.policy, codec.max_compressed_bits(block_bytes) > 8 * block_bytes)


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
    skipped: Sequence[Tuple[Codec, int, str]] = (),
) -> "pandas.DataFrame":
    """The comparison table from per-codec statistics (see :func:`compare`); ``source`` is the
    data's provenance (:func:`memcomp._common.source_of`), put on every row; ``skipped`` the
    presets left out (:attr:`CodecList.skipped`), one row each."""
    import pandas as pd

    rows = []
    members = [oracle_member(c, oracle_over) for c in codecs]

    def row(st: SizeStats, name, family, preset, exact, lossy, pol, fields, config):
        tagged = count_tag and fields.get("tag_bits") is not None
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
            "charged_bits": st.charged_bits(pol, tagged),
            "cr": st.cr(pol, tagged),
            "mag": int(mag),
            "u_min": int(u_min),
            "count_tag": bool(count_tag),
            "cr_mag": st.cr(mag_policy(pol, mag, u_min), tagged),
        }
        for size, share in st.size_classes(mag, u_min, pol).items():
            r[f"share_{size}B"] = share
        return r

    for i, (st, c) in enumerate(zip(stats, codecs)):
        pol = default_policy(c, st.block_bytes) if policy is None else policy
        r = row(st, c.name, c.codec_id, c.preset, c.exact, c.lossy, pol, st.bits_by_field(), c.get_config())
        r["model"] = training[i] if training is not None else ("given" if c.model is not None else "-")
        if wins is not None:
            r["oracle_wins"] = int(wins[i]) if members[i] else None
        r["oracle_over"] = oracle_over if oracle is not None else None
        r["note"] = None
        rows.append(r)
    none = {"payload_bits": None, "meta_bits": None, "header_bits": None, "tag_bits": None}
    for c, block_bytes, why in skipped:  # measured on no block: counts 0, ratios and shares NaN, and why
        pol = storage_policy(c.policy) if policy is None else policy
        empty = SizeStats(c.name, block_bytes, pol, np.zeros(1, dtype=np.int64))
        r = row(empty, c.name, c.codec_id, c.preset, c.exact, c.lossy, pol, none, c.get_config())
        r.update({k: float("nan") for k in r if k.startswith("share_")})
        r["model"] = "-"
        if wins is not None:
            r["oracle_wins"] = None
        r["oracle_over"] = oracle_over if oracle is not None else None
        r["note"] = f"skipped: {why}"
        rows.append(r)
    if oracle is not None and sum(members) > 1:
        inside = [c for c, m in zip(codecs, members) if m]
        # the oracle follows the members' storage rule: per block the smallest in-band size,
        # stored uncompressed where even that is not smaller than the block
        expands = all(c.max_compressed_bits(oracle.block_bytes) > 8 * oracle.block_bytes for c in inside)
        pol = storage_policy("none", expands) if policy is None else policy
        config = {"id": ORACLE, "members": [c.name for c in inside]}
        r = row(
            oracle,
            ORACLE,
            ORACLE,
            ORACLE,
            None,
            oracle_over == "all" and any(c.lossy for c in codecs),
            pol,
            none,
            config,
        )
        r["model"] = "-"
        r["oracle_wins"] = oracle.n_blocks
        r["oracle_over"] = oracle_over
        r["note"] = None
        rows.append(r)
    df = pd.DataFrame(rows)
    for col in ("payload_bits", "meta_bits", "header_bits", "tag_bits", "oracle_wins"):
        if col in df:
            df[col] = df[col].astype("Int64")
    return df


def _check_oracle(name: str, value: Any) -> Any:
    if value is True:
        return "exact"
    if value in (False, None):
        return False
    if not isinstance(value, str) or value not in ORACLE_OVER:
        raise ValueError(f"{name} must be one of {ORACLE_OVER}, True or False, got {value!r}")
    return value


@dataclass(frozen=True)
class CompareStats:
    """:class:`Compare`'s partial result: per codec its SizeStats, the oracle's SizeStats and the
    blocks each codec won; added term by term (exact integer histograms)."""

    stats: Tuple[SizeStats, ...]
    oracle: SizeStats
    wins: np.ndarray

    def __add__(self, other: "CompareStats") -> "CompareStats":
        return CompareStats(
            tuple(a + b for a, b in zip(self.stats, other.stats)), self.oracle + other.oracle, self.wins + other.wins
        )


class Compare(Analysis):
    """Codec presets compared on a dump: the table of :func:`compare` (P1 §V, SPEC 0.4 and 0.6).
    The carry is each stateful codec's dictionary (its own copy), so a dump with a stateful
    preset is one part on Dask."""

    name = "compare"
    summary = "raw CR, CR at MAG, MAG size classes and the per-block oracle of codec presets"
    OPTIONS: ClassVar[Tuple[Option, ...]] = (
        Option(
            "codecs",
            ("bdi", "fpc"),
            CODECS,
            "codec presets and groups (defaults, all, lossy)",
            cli_default=("defaults",),
        ),
        Option("mag", 32, Int(1, 4096), "memory access granularity in bytes (CR at MAG, size classes)"),
        Option("u_min", 1, Int(0, 4096), "fewest MAG bursts a block is charged"),
        Option("policy", None, Text(parse_policy, none=True), "report policy for every row (default: each preset's)"),
        Option("count_tag", False, Bool(), "charge the tag-side bits too"),
        Option(
            "oracle",
            "exact",
            Any_(
                fn=_check_oracle,
                reader=lambda text: False if text == "none" else text,
                bad_values=("some", 2),
                label="{exact,all,none}",
            ),
            "the per-block best-of-codecs row: over decodable lossless presets, all, or none (False)",
        ),
        Option("codec_mag", False, Bool(), "set the mag option of every codec that has one to the MAG studied"),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._cs: Optional[List[Codec]] = None
        self._skipped: List[Tuple[Codec, int, str]] = []
        self._training: Optional[List[str]] = None
        self._block_bytes = 0

    @classmethod
    def measuring(cls, codecs: Sequence[Codec], block_bytes: int, oracle_over: str = "exact") -> "Compare":
        """The analysis measuring these (fitted) codecs as they are, for ``block_bytes`` blocks."""
        a = cls(codecs=list(codecs) or ["bdi"], oracle=oracle_over)
        a._cs, a._block_bytes = list(codecs), int(block_bytes)
        return a

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "Compare":
        out = copy.copy(self)
        resolved = resolve_codecs(self["codecs"], block_bytes)
        out._cs = [with_mag(c, self["mag"]) for c in resolved] if self["codec_mag"] else list(resolved)
        out._skipped, out._block_bytes = resolved.skipped, int(block_bytes)
        return out

    def samples(self) -> Optional[str]:
        return "fit" if any(c.requires_fit for c in self._codecs()) else None

    def prepare(self, sample: Optional[tuple], threads: Optional[int] = None) -> "Compare":
        out = copy.copy(self)
        out._cs, out._training = fit_missing(None, self._codecs(), threads, sample)
        return out

    def _codecs(self) -> List[Codec]:
        if self._cs is None:
            raise RuntimeError("resolve the analysis for a block size first (memcomp.analysis.run does)")
        return self._cs

    def splittable(self, block_bytes: int) -> bool:
        return not any(c.stateful for c in self.resolve(block_bytes)._codecs())

    def start(self) -> List[Session]:
        return [c.session() for c in self._codecs()]  # a stateful codec's stream runs from chunk to chunk

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple[CompareStats, Any]:
        cs, B = self._codecs(), int(chunk.shape[1]) if chunk.ndim == 2 else self._block_bytes
        over = self["oracle"] or "exact"
        members = np.array([oracle_member(c, over) for c in cs], dtype=bool)
        max_bits = max([c.max_compressed_bits(B) for c, m in zip(cs, members) if m] or [0])
        oracle = SizeStats(ORACLE, B, "none", np.zeros(max_bits + 1, dtype=np.int64))
        wins = np.zeros(len(cs), dtype=np.int64)
        idx_of = np.flatnonzero(members)
        chunk = _block_array(chunk)
        with named_errors(cs):  # one pass: every codec on each cache-sized piece, reduced as it goes
            totals, (hist, won) = _core.compare_totals(
                [c._c for c in cs],
                [s._s for s in carry],
                chunk,
                [c.max_compressed_bits(B) + 1 for c in cs],
                [int(i) for i in idx_of],
                max_bits + 1,
                check_threads(threads),
            )  # the oracle's first smallest: ties go to the earlier codec
        if chunk.shape[0] and idx_of.size:
            oracle.hist += hist
            wins[idx_of] += won
            oracle.modes = {int(i): [int(n), 0, 0, 0, 0] for i, n in zip(idx_of, won) if n}
        stats = tuple(SizeStats.from_totals(c, B, t) for c, t in zip(cs, totals))
        return CompareStats(stats, oracle, wins), carry

    def finish(self, total: CompareStats, source: Dict[str, Any]) -> "pandas.DataFrame":
        over = self["oracle"]
        return table(
            list(total.stats),
            self._codecs(),
            mag=self["mag"],
            u_min=self["u_min"],
            policy=self["policy"],
            count_tag=self["count_tag"],
            oracle=total.oracle if over else None,
            wins=total.wins,
            training=self._training,
            oracle_over=over or "exact",
            source=source,
            skipped=self._skipped,
        )


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
    progress: ProgressArg = None,
) -> "pandas.DataFrame":
    """Compares codecs on ``blocks`` (an ``(n, B)`` uint8 array or a Dump from :func:`open_dump`).


    ``codecs``: names, Codec objects or groups: ``"defaults"`` (each lossless family's default),
    ``"all"`` (every lossless preset) and ``"lossy"`` (SLC's presets; lossy codecs are in a table
    only when asked for by name or by this group); ``codec_names(group=...)`` lists each. A
    group's preset that is not defined for B (``mpc.cal22_rtl`` takes 32 B blocks only) gets a row
    with ``blocks`` 0, NaN ratios and a ``note`` saying why, and a :class:`SkippedCodecWarning`.

    One row per codec preset (SPEC 0.4, 0.6; P1 §V):

    * ``blocks``, ``raw_bits`` (8B per block), ``inband_bits`` (the codec's stream bits, Σ L) and
      where they go: ``payload_bits``, ``meta_bits``, ``header_bits``, ``tag_bits`` (tag-side
      bits, outside the stream; counted only with ``count_tag``);
    * ``policy``: how blocks are charged (SPEC 0.6). By default each preset's own policy under one
      storage rule (:func:`memcomp.metrics.storage_policy`): a block whose compressed form is not
      smaller than the block is stored uncompressed (``cap``, added where the preset has no
      fallback of its own and its format can exceed 8B bits). ``policy=`` replaces it for every
      row; ``policy="none"`` gives the plain sums, where an expanded block counts as it is in raw
      CR but as B bytes at MAG;
    * ``charged_bits`` and ``cr``: raw CR, Σ raw bits / Σ charged bits (a ratio of sums);
    * ``cr_mag``: CR at MAG, the policy's fallback, then each block rounded up to whole ``mag``
      byte bursts (at least ``u_min``, at most B bytes). The fallback and, with ``count_tag``,
      the tag bits are the same for both, so ``cr_mag <= cr`` under the default policies;
    * ``share_{k}B``: the share of blocks charged k bytes at MAG (k = MAG, 2 MAG, ..., B);
    * ``model``: ``-`` (no model), ``given``, or how it was fitted here (``offline``: on every
      block; ``sample(64 MiB)``, ``head(64 MiB)``: on part of a larger dump);
    * ``oracle_wins``: blocks the codec is the smallest for (ties to the earlier codec; NA for
      codecs outside the oracle), ``oracle_over`` which codecs the oracle takes;
    * ``note``: why a row holds no measurement (a skipped preset), else empty.

    With ``oracle`` and more than one member, a last row, ``oracle``, takes per block the smallest
    in-band size of the members (no selector cost) under the same storage rule: the headroom a
    hybrid could reach. By default (``oracle="exact"``) its members are the decodable lossless
    presets; ``oracle="all"`` takes every codec (accounting-only and lossy ones too), ``False``
    drops the row.

    ``mag`` is accounting only: it changes CR at MAG and the size classes, never a codec. Formats
    that depend on a MAG keep their own ``mag`` option (E2MC stores a block raw above B - MAG
    bytes, P1 §III-E; SPEC 0.5), so raw CR does not move with ``mag``. ``codec_mag=True`` also
    sets the ``mag`` option of every codec that has one, so the format follows the MAG studied.

    ``progress``: True draws a progress bar (tqdm.auto: a widget in Jupyter, text on a terminal),
    a callable is called with ``(blocks done, total)`` after each chunk.

    Every row carries its provenance (``memcomp_version``, ``config``: the codec's JSON config
    with fitted models reduced to a digest, ``block_bytes``, ``mag``, ``u_min``, ``policy``,
    ``count_tag``), so tables of several runs concatenate (long form).
    """
    a = Compare(
        codecs=codecs, mag=mag, u_min=u_min, policy=policy, count_tag=count_tag, oracle=oracle, codec_mag=codec_mag
    )
    return run(a, blocks, threads=threads, chunk_blocks=chunk_blocks, progress=progress)


def with_mag(codec: Codec, mag: int) -> Codec:
    """``codec`` with its ``mag`` option set to ``mag`` (unchanged if it has none)."""
    codec, mag = get_codec(codec), check_int("mag", mag, 1, 4096)
    if "mag" not in codec.options or codec.options["mag"] == mag:
        return codec
    cfg = codec.get_config()
    cfg["mag"] = int(mag)  # a fitted model stays valid: it does not depend on the MAG
    return Codec.from_config(cfg)


class Breakdown(Compare):
    """Where the bits go, per codec and encoding mode (P1 §V's per-pattern view): blocks, their
    share, mean in-band bits and the payload / meta / header / tag totals of each mode, from
    :class:`Compare`'s partial (a best-of codec's modes name the member that won)."""

    name = "breakdown"
    summary = "per codec and encoding mode: blocks, share, mean bits and where the bits go"
    OPTIONS = (
        Option(
            "codecs",
            ("bdi", "fpc"),
            CODECS,
            "codec presets and groups",
        ),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.options.update(oracle=False, mag=32, u_min=1, count_tag=False, codec_mag=False, policy=None)

    def finish(self, total: CompareStats, source: Dict[str, Any]) -> "pandas.DataFrame":
        import pandas as pd

        rows = []
        for st, c in zip(total.stats, self._codecs()):
            names = c.modes
            for m, (n, payload, meta, header, tag) in sorted(st.modes.items()):
                rows.append(
                    {
                        **source,
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
        columns = [*source, "codec", "mode", "mode_name", "blocks", "share", "mean_bits"]
        return pd.DataFrame(rows, columns=columns + ["payload_bits", "meta_bits", "header_bits", "tag_bits"])


def breakdown(
    blocks,
    codecs: CodecsArg = ("bdi", "fpc"),
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> "pandas.DataFrame":
    """Where the bits go, per codec and encoding mode (:class:`Breakdown`): blocks, share of
    blocks, mean in-band bits and the payload / meta / header / tag totals of each mode (a
    best-of codec's modes name the member that won, e.g. ``fpc.paper:fpc``); a dump's provenance
    columns first."""
    return run(Breakdown(codecs=codecs), blocks, threads=threads, chunk_blocks=chunk_blocks)


def _int_list(name: str, values) -> list:
    """``values`` as a list: a sequence of integers, or TypeError naming ``name``."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of integers such as (32, 64), got {type(values).__name__}")
    return list(values)


def _check_mags(name: str, values: Any) -> Tuple[int, ...]:
    return tuple(check_int(f"{name} entries", m, 1, 4096) for m in _int_list(name, values))


class MagStudy(Compare):
    """What memory access granularity does to the gain (P4 §II, Figs. 1 and 2): per codec and MAG
    raw CR, CR at MAG and the loss, and the compressed sizes against the MAG grid, from
    :class:`Compare`'s partial (each codec measured once; every MAG from its size histogram). A
    preset not defined for the block size gets a row whose ``note`` says why. The result is two
    tables: (CR per MAG, sizes above the MAG grid)."""

    name = "mag-study"
    summary = "raw CR against CR at each MAG, and the compressed sizes on the MAG grid (P4 §II)"
    tables = ("above_mag",)
    OPTIONS = (
        Option(
            "codecs",
            ("bdi", "fpc", "cpack", "e2mc"),
            CODECS,
            "codec presets and groups",
        ),
        Option(
            "mags",
            (16, 32, 64),
            Any_(fn=_check_mags, reader=lambda t: [int(x) for x in t.split(",")], bad_values=(5, (0,), ("32",))),
            "MAGs in bytes",
        ),
        Option("policy", None, Text(parse_policy, none=True), "report policy for every row (default: each preset's)"),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.options.update(oracle=False, mag=32, u_min=1, count_tag=False, codec_mag=False)

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "MagStudy":
        out = copy.copy(self)
        resolved = resolve_codecs(self["codecs"], block_bytes, skip_named=True)
        out._cs, out._skipped, out._block_bytes = list(resolved), resolved.skipped, int(block_bytes)
        return out

    def finish(self, total: CompareStats, source: Dict[str, Any]) -> Tuple["pandas.DataFrame", "pandas.DataFrame"]:
        import pandas as pd

        b, policy = self._block_bytes, self["policy"]
        measured: List[Tuple[SizeStats, Codec, str, Optional[str]]] = [
            (st, c, default_policy(c, b) if policy is None else policy, None)
            for st, c in zip(total.stats, self._codecs())
        ]
        for c, _, why in self._skipped:
            empty = SizeStats(c.name, b, c.policy, np.zeros(1, dtype=np.int64))
            measured.append((empty, c, storage_policy(c.policy) if policy is None else policy, f"skipped: {why}"))
        rows, hists = [], []
        for st, c, pol, note in measured:
            for m in self["mags"]:
                cr, cr_mag = st.cr(pol), st.cr_mag(m, policy=pol)
                rows.append(
                    {
                        **source,
                        **provenance(c.get_config()),
                        "codec": c.name,
                        "block_bytes": b,
                        "mag": int(m),
                        "policy": pol,
                        "blocks": st.n_blocks,
                        "cr": cr,
                        "cr_mag": cr_mag,
                        "loss": 1 - cr_mag / cr if note is None else float("nan"),
                        "note": note,
                    }
                )
                if note is None:
                    h = st.above_mag(m, pol)
                    h["codec"] = c.name
                    hists.append(h)
        return pd.DataFrame(rows), (pd.concat(hists, ignore_index=True) if hists else pd.DataFrame())


def mag_study(
    data,
    codecs: CodecsArg = ("bdi", "fpc", "cpack", "e2mc"),
    *,
    block_sizes: Sequence[int] = (32, 64, 128),
    mags: Sequence[int] = (16, 32, 64),
    policy: Optional[str] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> Tuple["pandas.DataFrame", "pandas.DataFrame"]:
    """What memory access granularity does to the gain (P4 §II, Figs. 1 and 2), for any codec.

    ``data`` is an array (its bytes are cut into each block size) or a Dump (its own block size).
    Returns two long-form tables: per (codec, block_bytes, mag) raw CR and effective CR at MAG
    (``cr``, ``cr_mag``, ``loss`` = 1 - cr_mag / cr) under ``policy`` (as in :func:`compare`: by
    default each preset's own under the storage rule, so ``loss >= 0``; ``"none"`` for the plain
    sums; the ``policy`` column), and the distribution of compressed sizes against the MAG grid
    (:meth:`SizeStats.above_mag`, after the policy's fallback). Each codec is measured once per
    block size; the MAG views come from the same mergeable size histogram. A codec not defined
    for a block size (MPC runs on 32 B sectors only) is skipped there with a
    :class:`SkippedCodecWarning` and a row whose ``note`` says why."""
    import pandas as pd

    from .blocks import as_blocks, byte_view, check_block_bytes

    a = MagStudy(codecs=codecs, mags=mags, policy=policy)
    if hasattr(data, "chunks") and not isinstance(data, np.ndarray):
        sources = [data]
    else:
        flat = byte_view(data)
        sizes = [check_block_bytes(b, name="block_sizes entries") for b in _int_list("block_sizes", block_sizes)]
        sources = [as_blocks(flat[: flat.shape[0] // b * b], b) for b in sizes]
    out = [run(a, d, threads=threads, chunk_blocks=chunk_blocks) for d in sources]
    return (
        pd.concat([o[0] for o in out], ignore_index=True),
        pd.concat([o[1] for o in out if len(o[1])], ignore_index=True)
        if any(len(o[1]) for o in out)
        else pd.DataFrame(),
    )
