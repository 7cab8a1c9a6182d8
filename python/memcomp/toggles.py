"""Bus energy of block transfers (SPEC 2; P2 = "A Case for Toggle-Aware Compression for GPU
Systems", HPCA'16): bit toggles on on-chip flits, zeros and transitions on a DRAM bus with data
bus inversion (DBI), Energy Control (EC) and Metadata Consolidation (the ``*.mc`` presets).

A transfer is a compressed block's in-band stream or the raw block bytes. Stream bit ``t`` travels
on wire ``t mod W`` of unit ``t // W`` (a flit on chip, a beat on DRAM); the last unit is padded
(``pad`` = ``"zero"``, ``"one"`` or ``"hold"``). Tag bits, the EC flag among them, travel beside
the block and are not counted.

Bus options (keywords of every function here):

* ``channel``: ``"noc"`` (on-chip flits, ``flit_bytes`` 1..64, default 32: W = 256) or ``"dram"``
  (``bus_bits`` 8/16/32/64, default 32, ``burst_length`` default 8: one burst = one MAG);
* ``mode``: ``"stream"`` (wire state carried across blocks in array order) or ``"isolated"``
  (every block starts from ``init`` on chip, from idle on DRAM, and DRAM returns to idle);
* ``init`` (noc, 0 or 1), ``idle`` (dram, ``"high"`` for DDR4/GDDR POD or ``"low"`` for LPDDR4);
* ``dbi`` (dram): ``None``, ``"dc"`` (limited weight) or ``"ac"`` (bus invert; ``ac_threshold``
  default 4; ``ac_first="threshold"``, the default, compares a beat that follows idle with the idle
  pattern, as DRAMPower v6.2.0 (``util/dbi.h``) does; ``"no_invert"`` never inverts it, an option
  of ours that no public implementation uses; ``ac_count_pin``, default off as in DRAMPower).

DBI counts reproduce DRAMPower v6.2.0's DBI classes on every field (zeros, ones, transitions of data
and pins, inversions) with the defaults above: DC and AC, thresholds 0-8, idle high and low, stream
and isolated transfers (SPEC 2, W8-W8c).

The EC metric T is the toggle count on chip, and on DRAM the bits at the costly level, data plus
DBI pins: zeros_total with idle high (P2 §5.2), ones with idle low. Tables name it in their
``metric`` column; ``t_ratio`` is T sent / T raw, so on DRAM a zeros (or ones) ratio, and
``toggles_ratio`` counts wire transitions on every bus. Energy Control decides with ``ec="ec1"`` or
``"ec2"`` (P2 §4.2) or ``"helps"`` (P2's baseline: compressed iff CR > 1, no energy term).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._common import (
    check_bool,
    check_chunk_blocks,
    check_float,
    check_int,
    chunks,
    each_on_threads,
    in_memory,
    n_blocks_of,
    provenance,
    refuse_masked,
)
from .analysis.base import Analysis, Any_, Int, Option
from .analysis.run import run
from .codec_list import CODECS, fit_missing, resolve_codecs
from .codecs import Codec, Encoded, Session
from .energy import EnergyModel, default_model, energy_model

if TYPE_CHECKING:
    import pandas

FIELDS = (
    "bits",
    "units",
    "beats",
    "toggles",
    "t01",
    "t10",
    "zeros",
    "ones",
    "pin_zeros",
    "pin_ones",
    "pin_t01",
    "pin_t10",
    "inversions",
    "energy",
)

WireState = _core.WireState


def bus_options(**bus: Any) -> Dict[str, Any]:
    """Every bus option with its effective value; ValueError/TypeError for a bad one."""
    return dict(_core.bus_options(_bus_dict(bus)))


def _bus_dict(bus: Dict[str, Any]) -> Dict[str, Any]:
    """Bus keywords for the core: None means the bus's default (``dbi=None``: no DBI); the core
    checks the rest (types included)."""
    return {k: v for k, v in bus.items() if v is not None}


@dataclass(frozen=True)
class Bus:
    """The bus a block transfer travels on, as a value (SPEC 2; P2 §5.1 on-chip flits, §5.2 DRAM,
    §5.3 DBI): the bus options of this module's docstring, checked by the core's option table
    (the same ValueError/TypeError as the keywords). Every field holds its effective value: None
    gives the default, and the width option of the other channel (``flit_bytes`` on DRAM,
    ``bus_bits`` on chip), which the bus does not read, its default. The channel defaults to
    ``"dram"`` as in :func:`compare` (the keywords of :func:`count`, :func:`drive` and
    :func:`energy_control` default to ``"noc"``). ``Bus(channel="dram", dbi="dc")``."""

    channel: str = "dram"
    flit_bytes: int = 32
    bus_bits: int = 32
    burst_length: int = 8
    pad: str = "zero"
    mode: str = "stream"
    init: int = 0
    idle: str = "high"
    dbi: str = "none"
    ac_threshold: int = 4
    ac_first: str = "threshold"
    ac_count_pin: bool = False

    def __post_init__(self) -> None:
        given = {f.name: getattr(self, f.name) for f in fields(self)}
        defaults = {f.name: f.default for f in fields(self)}
        opts = _core.bus_options({k: defaults[k] if v is None else v for k, v in given.items()})
        for k, v in opts.items():
            object.__setattr__(self, k, v)

    def replace(self, **changes: Any) -> "Bus":
        """This bus with some options changed (checked as in the constructor)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        """Every option with its value (what :func:`bus_options` returns for this bus)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> "Bus":
        """The bus of an option dict (:meth:`to_dict`'s, or some options: the rest take their
        defaults); ValueError naming an unknown key."""
        if not isinstance(options, Mapping):
            raise TypeError(f"Bus.from_dict takes a dict of bus options, got {type(options).__name__}")
        return cls(**_core.bus_options({"channel": cls.channel, **_bus_dict(dict(options))}))


def _bus_of(bus: Optional[Bus], keywords: Dict[str, Any], channel: str) -> Bus:
    """The bus of a call: ``bus=`` or the loose bus keywords (``channel`` their default channel),
    not both (TypeError naming them)."""
    if bus is None:  # None: the core's default, as the keywords always meant
        return Bus(**_core.bus_options(_bus_dict({"channel": channel, **keywords})))
    if keywords:
        raise TypeError(
            "give the bus either as bus=Bus(...) or as keywords, not both: bus and " + ", ".join(sorted(keywords))
        )
    if not isinstance(bus, Bus):
        raise TypeError(f"bus must be a memcomp.toggles.Bus, got {type(bus).__name__}")
    return bus


def metric_name(**bus: Any) -> str:
    """What the EC metric T counts on this bus."""
    o = bus_options(**bus)
    if o["channel"] == "noc":
        return "toggles"
    return "zeros_total" if o["idle"] == "high" else "ones_total"


@dataclass
class BusStats:
    """Totals of a run of transfers (mergeable: ``a + b`` adds the counts of two chunks)."""

    counts: Dict[str, int]
    blocks: int = 0

    @classmethod
    def empty(cls) -> "BusStats":
        return cls({f: 0 for f in FIELDS}, 0)

    def __add__(self, other: "BusStats") -> "BusStats":
        return BusStats({f: self.counts[f] + other.counts[f] for f in FIELDS}, self.blocks + other.blocks)

    def __getitem__(self, key: str) -> int:
        return self.counts[key]

    @property
    def zeros_total(self) -> int:
        return self.counts["zeros"] + self.counts["pin_zeros"]

    def toggle_rate(self, width_bits: int) -> float:
        """Toggles per transmitted wire bit (units on the wires x W)."""
        wire_bits = self.counts["beats"] * int(width_bits)
        return self.counts["toggles"] / wire_bits if wire_bits else 0.0


@dataclass
class BusResult:
    """Per-block counts (``columns``: one uint32 array per field), totals, the final state and the
    bus options they were counted with (``bus``: every option, :meth:`Bus.to_dict`)."""

    columns: Dict[str, np.ndarray]
    stats: BusStats
    state: Any
    bus: Dict[str, Any] = field(default_factory=dict)

    def energy_pj(self, model: Union[str, Dict[str, Any], EnergyModel]) -> Union[float, np.ndarray]:
        """Energy of every transfer in pJ under an energy model (:mod:`memcomp.energy`) of the
        bus counted (ValueError for a model of another channel or idle level)."""
        m = energy_model(model)
        opts = bus_options(**self.bus)
        m.check_bus(opts["channel"], opts["idle"])
        return m.energy_pj(self.columns)

    def to_frame(self) -> "pandas.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.columns)


def _streams(enc: Encoded) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    return enc.data, enc.bit_offsets, enc.bit_lengths


def count(
    data: Union[np.ndarray, Encoded],
    *,
    state: Optional[WireState] = None,
    close: bool = True,
    per_block: bool = True,
    bus: Optional[Bus] = None,
    **keywords: Any,
) -> BusResult:
    """Counts the transfers of raw blocks (an ``(n, B)`` uint8 array) or of encoded blocks (an
    :class:`Encoded` from :meth:`Codec.encode`), in array order. ``state`` continues from an earlier
    call (stream mode, chunk by chunk); ``close`` returns a DRAM bus to idle after the last block
    (counted in that block). ``per_block=False`` returns totals only (empty columns). The bus is
    ``bus`` (a :class:`Bus`) or the bus keywords (channel ``"noc"`` by default)."""
    b = _bus_of(bus, keywords, "noc").to_dict()
    close, per_block = check_bool("close", close), check_bool("per_block", per_block)
    if isinstance(data, Encoded):
        cols, tot, st = _core.bus_count_streams(*_streams(data), b, state, close, per_block)
        n = data.n_blocks
    elif isinstance(data, np.ndarray):
        refuse_masked(data, "data")
        cols, tot, st = _core.bus_count_raw(data, b, state, close, per_block)
        n = int(data.shape[0])
    else:
        raise TypeError(f"count takes an (n, B) uint8 array or an Encoded, got {type(data).__name__}")
    return BusResult(dict(cols), BusStats(dict(tot), n), st, b)


def drive(
    stream,
    nbits: Optional[int] = None,
    *,
    state: Optional[WireState] = None,
    bus: Optional[Bus] = None,
    **keywords: Any,
):
    """One transfer of ``stream`` (bytes or a 1-D uint8 array; ``nbits`` defaults to all its bits)
    on ``bus`` or the bus keywords, as in :func:`count`: ``(beats as driven, DBI pin level per lane
    and beat, counts, state)``."""
    b = _bus_of(bus, keywords, "noc").to_dict()
    if isinstance(stream, (bytes, bytearray)):
        stream = np.frombuffer(bytes(stream), dtype=np.uint8)
    if not isinstance(stream, np.ndarray):
        raise TypeError(f"stream must be bytes or a 1-D uint8 array, got {type(stream).__name__}")
    refuse_masked(stream, "stream")
    if nbits is None:
        nbits = 8 * int(stream.shape[0]) if stream.ndim == 1 else 0
    nbits = check_int("nbits", nbits, 0, 8 * int(stream.size))
    d, p, c, st = _core.bus_drive(stream, nbits, b, state)
    return d, p, dict(c), st


#: k of each decision function: (g CR)^k T0 > alpha T1 (k = 0: no energy term, CR > 1 alone).
#: Energy Control's options (kind, alpha, ratio) as the core declares them, once.
_EC_SPACE = _core.ec_option_space()

#: Energy Control's decision functions (P2 §4.2): ``"ec1"`` (Energy x Delay), ``"ec2"`` (Energy x
#: Delay^2) and ``"helps"``, P2's baseline without an energy term: "compress only where it helps",
#: i.e. send compressed iff CR > 1 (the compressed form is smaller in EC's ratio units). It is the
#: compression P2 measures EC against: "Compression ratio reduces because EC decides to transfer
#: some compressible lines in the uncompressed form" (P2 §7.1.1, footnote 7), so without EC every
#: compressible line travels compressed.
EC_MODES = tuple(_EC_SPACE["kind"]["choices"])
_EC_K = {m: int(_core.ec_k(m)) for m in EC_MODES}  # the power of CR in each decision (0: no energy term)


def _check_ec(ec: Any) -> str:
    if not isinstance(ec, str) or ec not in EC_MODES:
        raise ValueError(f"ec must be {_EC_SPACE['kind']['help']}, got {ec!r}")
    return ec


def _ec_k(ec: str) -> int:
    return _EC_K[_check_ec(ec)]


def _no_energy_term(ec: Optional[str], alpha: float, bu: Any) -> None:
    """alpha and bu weigh EC1/EC2's energy term; ValueError if they are set where nothing uses them."""
    if ec is not None and _EC_K[ec] > 0:
        return
    what = "ec=None (every block sent compressed)" if ec is None else f"ec={ec!r} (no energy term)"
    if alpha != 1.0:
        raise ValueError(f"alpha weighs the energy term of ec1/ec2 and changes nothing with {what}")
    if isinstance(bu, np.ndarray) or bu != 0.0:
        raise ValueError(f"bu weighs the energy term of ec1/ec2 and changes nothing with {what}")


def gain(bu: float) -> float:
    """g = 1 / (1 - BU) for BU > 0.5 (BU clamped to 0.99), else 1."""
    return float(_core.ec_gain(check_float("bu", bu, 0.0, 1.0)))


def decide(t0: float, t1: float, cr: float, ec: str = "ec2", bu: float = 0.0, alpha: float = 1.0) -> bool:
    """Energy Control's decision (P2 §4.2): send compressed iff CR > 1 and (T1 == 0 or
    (g CR)^k T0 > alpha T1), k = 1 for ``"ec1"`` and 2 for ``"ec2"``; ``"helps"`` (P2's baseline)
    sends compressed iff CR > 1 and takes no alpha or bu."""
    t0, t1 = check_float("t0", t0, 0.0), check_float("t1", t1, 0.0)
    cr, alpha = check_float("cr", cr, 0.0), check_float("alpha", alpha, 0.0, lo_open=True)
    _no_energy_term(_check_ec(ec), alpha, check_float("bu", bu, 0.0, 1.0))
    return bool(_core.ec_decide(t0, t1, cr, gain(bu), _ec_k(ec), alpha))


@dataclass
class EcResult:
    """Energy Control over a batch: per-block ``columns`` (compressed, cr, t0, t1, units, bits),
    per-block counts of the forms sent (``sent``), totals and the final wire state."""

    columns: Dict[str, np.ndarray]
    sent: Dict[str, np.ndarray]
    totals: Dict[str, Any]
    state: Any

    @property
    def fraction_compressed(self) -> float:
        n = self.totals["blocks"]
        return self.totals["compressed"] / n if n else 0.0

    def to_frame(self) -> "pandas.DataFrame":
        import pandas as pd

        df = pd.DataFrame(self.columns)
        for k, v in self.sent.items():
            df[f"sent_{k}"] = v
        return df


def _bu_arg(bu, n: Optional[int]):
    """Bandwidth utilisation: a number in [0, 1], or (a float64 array or a list) one per block (n
    of them, unless n is None)."""
    if isinstance(bu, (list, tuple)):
        bu = np.asarray(bu, dtype=np.float64)
    if not isinstance(bu, np.ndarray):
        return check_float("bu", bu, 0.0, 1.0)
    if n is not None and bu.shape != (n,):
        raise ValueError(f"bu must be a number or have one entry per block ({n}), got shape {bu.shape}")
    if bu.dtype.kind == "f" and not (np.isfinite(bu).all() and (bu >= 0).all() and (bu <= 1).all()):
        raise ValueError("bu must lie in [0, 1] for every block (no NaN or infinity)")
    return bu


EC_RATIOS = tuple(_EC_SPACE["ratio"]["choices"])


def _check_ratio(ratio: Any, name: str = "ratio") -> str:
    if not isinstance(ratio, str) or ratio not in EC_RATIOS:
        raise ValueError(f"{name} must be one of {EC_RATIOS}, got {ratio!r}")
    return ratio


@dataclass(frozen=True, eq=False)
class EnergyControl:
    """Energy Control's settings as a value (P2 §4.2): ``kind`` is ``"ec1"`` (Energy x Delay),
    ``"ec2"`` (Energy x Delay^2) or ``"helps"`` (P2's baseline, compressed iff CR > 1: no energy
    term, so ``alpha`` and ``bu`` keep their defaults); ec1/ec2 send compressed iff (g CR)^k T0 >
    ``alpha`` T1, g = 1 / (1 - ``bu``) above BU = 0.5; ``bu`` is a number in [0, 1] or a float64
    array with one entry per block (kept as given, not copied); ``ratio`` is CR's unit,
    ``"units"`` (P2's effective bandwidth increase) or ``"bits"`` (:func:`energy_control`).
    Checked with the keywords' messages. ``EnergyControl("ec2", alpha=2.0)``."""

    kind: str = _EC_SPACE["kind"]["default"]
    alpha: float = _EC_SPACE["alpha"]["default"]
    bu: Any = 0.0
    ratio: str = _EC_SPACE["ratio"]["default"]

    def __post_init__(self) -> None:
        _check_ec(self.kind)
        _check_ratio(self.ratio)
        object.__setattr__(self, "alpha", check_float("alpha", self.alpha, 0.0, lo_open=True))
        object.__setattr__(self, "bu", _bu_arg(self.bu, None))
        _no_energy_term(self.kind, self.alpha, self.bu)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EnergyControl):
            return NotImplemented
        a, b = self.bu, other.bu
        same_bu = (
            np.array_equal(a, b) and a.dtype == b.dtype
            if isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
            else not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and a == b
        )
        return (self.kind, self.alpha, self.ratio) == (other.kind, other.alpha, other.ratio) and bool(same_bu)

    def replace(self, **changes: Any) -> "EnergyControl":
        """These settings with some changed (checked as in the constructor)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> "EnergyControl":
        if not isinstance(options, Mapping):
            raise TypeError(f"EnergyControl.from_dict takes a dict, got {type(options).__name__}")
        return cls(**options)


def _ec_given(ec: Any, keywords: Dict[str, Any]) -> None:
    """TypeError if an EnergyControl comes with EC keywords too (``keywords``: those given)."""
    if isinstance(ec, EnergyControl) and keywords:
        raise TypeError(
            "give Energy Control either as ec=EnergyControl(...) or as keywords, not both: ec and "
            + ", ".join(sorted(keywords))
        )


def energy_control(
    blocks: np.ndarray,
    encoded: Union[Encoded, Codec],
    ec: Union[str, EnergyControl] = "ec2",
    bu=0.0,
    alpha: float = 1.0,
    *,
    state: Optional[WireState] = None,
    close: bool = True,
    per_block: bool = True,
    ratio: str = "units",
    threads: Optional[int] = None,
    session: Optional[Session] = None,
    resume: bool = False,
    bus: Optional[Bus] = None,
    **keywords: Any,
) -> EcResult:
    """Energy Control (P2 §4.2, SPEC 2) over ``blocks`` and their ``encoded`` streams: per block,
    T0 (raw) and T1 (compressed) from the current wire state and the compression ratio CR; the
    form chosen advances the wires. ``ratio="units"`` (default) is P2's CR, the effective
    bandwidth increase: raw transfer units / compressed units (flits on chip, bursts on DRAM, so
    at most 4 for 128 B in 32 B units); ``"bits"`` is 8B / compressed bits. On DRAM whole bursts
    leave the unit ratio at a few values (0.8, 1, 1.33, 2, 4 at 128 B), where EC1 and EC2 rarely
    disagree; the bit ratio separates them. ``bu`` is a number or a float64 array, one per block.
    ``per_block=False`` returns the totals and the per-block decisions only (``columns`` holds
    just ``compressed``; ``sent`` is empty), which is all :func:`compare` needs.

    ``ec`` is ``"ec1"`` (Energy x Delay: compressed iff CR > 1 and (T1 = 0 or g CR T0 >
    alpha T1)), ``"ec2"`` (Energy x Delay^2: (g CR)^2 T0 > alpha T1) or ``"helps"``, P2's baseline
    "compress only where it helps": compressed iff CR > 1 in ``ratio``'s units, with no energy
    term (``alpha`` and ``bu`` must keep their defaults); it runs the same passes as ec1/ec2 (k = 0),
    so its columns hold T0 and T1 too.

    ``encoded`` may also be a :class:`Codec`: the blocks are then encoded as Energy Control goes,
    a cache-sized chunk at a time (``threads``, ``session`` and ``resume`` as in
    :meth:`Codec.encode`), and no
    stream is kept. The result is the same as over ``codec.encode(blocks)``, in one pass over the
    blocks instead of two and without the memory to hold their streams.

    ``ec`` may be an :class:`EnergyControl` (then ``bu``, ``alpha`` and ``ratio`` keep their
    defaults: it holds them), the bus ``bus`` (a :class:`Bus`) or the bus keywords (channel
    ``"noc"`` by default), not both."""
    refuse_masked(blocks)
    b = _bus_of(bus, keywords, "noc").to_dict()
    if isinstance(ec, EnergyControl):
        given = {"bu": isinstance(bu, (np.ndarray, list, tuple)) or bu != 0.0, "alpha": alpha != 1.0}
        given["ratio"] = ratio != "units"
        _ec_given(ec, {k: v for k, v in given.items() if v})
        control = ec
        ec, bu, alpha, ratio = control.kind, control.bu, control.alpha, control.ratio
    if isinstance(encoded, Encoded):
        if isinstance(blocks, np.ndarray) and blocks.ndim == 2 and encoded.block_bytes != blocks.shape[1]:
            raise ValueError(f"encoded blocks are {encoded.block_bytes} B, blocks are {blocks.shape[1]} B")
        if threads is not None or session is not None or resume is not False:
            raise ValueError("threads, session and resume apply when encoded is a Codec (the blocks are encoded here)")
    elif not isinstance(encoded, Codec):
        raise TypeError(f"encoded must be an Encoded from Codec.encode or a Codec, got {type(encoded).__name__}")
    n = int(blocks.shape[0]) if isinstance(blocks, np.ndarray) and blocks.ndim >= 1 else 0
    _check_ratio(ratio)
    # The checks cost microseconds a call: plain floats and bools in range skip them.
    if type(alpha) is not float or not 0.0 < alpha < math.inf:
        alpha = check_float("alpha", alpha, 0.0, lo_open=True)
    if type(close) is not bool or type(per_block) is not bool:
        close, per_block = check_bool("close", close), check_bool("per_block", per_block)
    if type(bu) is not float or not 0.0 <= bu <= 1.0:
        bu = _bu_arg(bu, n)
    _no_energy_term(_check_ec(ec), alpha, bu)
    if isinstance(encoded, Codec):
        return _ec_result(
            *encoded._encode_energy_control(
                blocks, b, ec, alpha, bu, state, close, per_block, ratio, threads, session, resume
            )
        )
    return _ec_result(
        *_core.energy_control(blocks, *_streams(encoded), b, ec, alpha, bu, state, close, per_block, ratio)
    )


def _ec_result(cols, sent, tot, st) -> EcResult:
    tot = dict(tot)
    tot["sent"] = dict(tot["sent"])
    return EcResult(dict(cols), dict(sent), tot, st)


# ---- comparison tables ---------------------------------------------------------------------------


def _codecs_for_energy(blocks, codecs, threads) -> List[Codec]:
    cs, _ = fit_missing(blocks, resolve_codecs(codecs), threads)
    for c in cs:
        if not c.exact:
            raise ValueError(
                f"{c.name} is accounting-only (exact=False): it has no stream to put on a bus; use a decodable preset"
            )
    return cs


def _lookahead(it):
    """(item, is_last) pairs."""
    it = iter(it)
    try:
        prev = next(it)
    except StopIteration:
        return
    for x in it:
        yield prev, False
        prev = x
    yield prev, True


def compare(
    blocks,
    codecs: Union[str, Codec, Iterable[Union[str, Codec]]] = ("bdi", "fpc", "fpc.mc", "cpack", "cpack.mc"),
    *,
    bus: Optional[Bus] = None,
    ec: Union[None, str, EnergyControl] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 16,
    **options: Any,
) -> "pandas.DataFrame":
    """Compression ratio against bus energy, one row per codec and EC setting (long form).

    Rows: ``ec="none"`` (every block sent compressed, an expanded stream too) and, with ``ec`` =
    ``"ec1"``/``"ec2"`` (Energy Control, P2 §4.2) or ``"helps"`` (P2's baseline without an energy
    term: compressed iff CR > 1 in ``ec_ratio`` units; no ``alpha`` or ``bu``), a row with that
    decision per block. ``bu`` may be a float64 array with one entry per block; ``ec_ratio`` is
    EC's compression ratio (``"units"``, P2's effective bandwidth increase, or ``"bits"``; see
    :func:`energy_control`). The ``*.mc`` presets (Metadata Consolidation) appear as codecs.
    Data-driven codecs without a model are fitted on ``blocks``.

    Options: the bus, ``bus=Bus(...)`` or the bus keywords (``channel="dram"``, ``flit_bytes=32``,
    ``bus_bits=32``, ``burst_length=8``, ``dbi=None``, ``mode="stream"``, ``pad="zero"`` and the
    others of the module docstring); Energy Control, ``ec=EnergyControl(...)`` or ``ec`` with
    ``bu=0.0``, ``alpha=1.0``, ``ec_ratio="units"``; ``mag=32``, ``u_min=1`` and ``energy=None``.
    An object and a keyword it holds are not given together (TypeError).

    Every size column counts what the row sends (one storage rule): the compressed stream of a
    block sent compressed, as it is even when longer than the block, and B bytes for one sent raw.

    * metric: what T counts, the EC metric: ``"toggles"`` (wire transitions, on chip),
      ``"zeros_total"`` (bit-times at 0 on data wires plus DBI pins, DRAM idling high, P2 §5.2) or
      ``"ones_total"`` (at 1, DRAM idling low);
    * fraction_compressed: share of blocks sent compressed;
    * raw_bits (8B per block), sent_bits; cr = raw_bits / sent_bits;
    * cr_mag: raw bytes / bytes the sent transfers occupy in accesses of ``mag`` bytes (each
      MAG * max(u_min, ceil(bytes / MAG)), not capped at B), so cr_mag <= cr;
    * units_raw, units (flits on chip, bursts on DRAM), cr_units = units_raw / units;
    * t_raw (T of the raw transfers, the baseline), t (T of what was sent), t_ratio = t / t_raw
      (< 1 saves; a zeros or ones ratio on DRAM, a toggle ratio on chip);
    * toggles_raw, toggles, toggles_ratio: data-wire transitions (DBI pins not included) of the
      raw and sent transfers, on every bus; toggle_rate: toggles per wire bit sent;
    * zeros_total: data plus DBI pin bit-times at 0 of what was sent; inversions: DBI inversions.

    Energy in picojoules (:mod:`memcomp.energy`): ``energy`` is an energy model (a preset name such
    as ``"gddr5"``, ``"ddr4"``, ``"gddr6"``, ``"lpddr4"``, ``"noc"``, a dict of parameters or an
    :class:`~memcomp.energy.EnergyModel`; default GDDR5 on a DRAM bus idling high, LPDDR4 idling
    low, the on-chip wire model on chip). Columns energy_model, energy_pj_raw (pJ of the raw
    transfers), energy_pj (pJ of what was sent), energy_pj_per_block (energy_pj / blocks) and
    energy_ratio = energy_pj / energy_pj_raw (< 1 saves).
    """
    a = Toggles(codecs=codecs, ec=ec, **({} if bus is None else {"bus": bus}), **options)
    n_known = n_blocks_of(blocks)
    bu_all = a.setup.bu_all
    if bu_all is not None and (n_known is None or bu_all.shape != (n_known,)):
        raise ValueError(f"bu must be a number or have one entry per block ({n_known}), got shape {bu_all.shape}")
    return run(a, blocks, threads=threads, chunk_blocks=chunk_blocks)


@dataclass(frozen=True)
class _Setup:
    """compare()'s validated options: the bus, the EC settings, MAG accounting and energy model
    (``ec``, ``bu``, ``alpha``, ``ec_ratio``: ``control``'s, or as given without EC)."""

    bus: Bus
    opts: Dict[str, Any]
    width: int
    metric: str
    model: EnergyModel
    control: Optional[EnergyControl]
    ec: Optional[str]
    bu: Any
    bu_all: Optional[np.ndarray]
    alpha: float
    ec_ratio: str
    mag: int
    u_min: int


#: Energy Control's keywords beside ``ec`` (an :class:`EnergyControl` holds them).
_EC_KEYWORDS = ("bu", "alpha", "ec_ratio")


def bus_setup(
    *,
    bus: Optional[Bus] = None,
    ec: Union[None, str, EnergyControl] = None,
    mag: int = 32,
    u_min: int = 1,
    energy: Union[None, str, Dict[str, Any], EnergyModel] = None,
    **keywords: Any,
) -> _Setup:
    """compare()'s options checked: ``bus`` or the bus keywords (channel ``"dram"`` by default),
    ``ec`` an :class:`EnergyControl` or a name with ``bu``, ``alpha`` and ``ec_ratio``."""
    given = {k: keywords.pop(k) for k in _EC_KEYWORDS if k in keywords}
    b = _bus_of(bus, keywords, "dram")
    opts = b.to_dict()
    model = default_model(opts["channel"], opts["idle"]) if energy is None else energy_model(energy)
    model.check_bus(opts["channel"], opts["idle"])
    _ec_given(ec, given)
    if isinstance(ec, EnergyControl):
        control: Optional[EnergyControl] = ec
        bu, alpha, ec_ratio = ec.bu, ec.alpha, ec.ratio
    else:
        if ec is not None:
            _check_ec(ec)
        ec_ratio = _check_ratio(given.get("ec_ratio", "units"), "ec_ratio")
        alpha = check_float("alpha", given.get("alpha", 1.0), 0.0, lo_open=True)
        bu = _bu_arg(given.get("bu", 0.0), None)
        _no_energy_term(ec, alpha, bu)
        control = None if ec is None else EnergyControl(ec, alpha, bu, ec_ratio)
    mag, u_min = check_int("mag", mag, 1, 4096), check_int("u_min", u_min, 0, 4096)
    bu_all = np.asarray(bu, dtype=np.float64) if isinstance(bu, np.ndarray) else None
    return _Setup(
        b,
        opts,
        opts["flit_bytes"] * 8 if opts["channel"] == "noc" else opts["bus_bits"],
        metric_name(**opts),
        model,
        control,
        None if control is None else control.kind,
        bu,
        bu_all,
        alpha,
        ec_ratio,
        mag,
        u_min,
    )


@dataclass(frozen=True)
class BusSums:
    """:class:`Toggles`'s partial result: over a run of blocks, the raw transfers' counts and, per
    codec, the compressed ones' (with EC: the forms sent). ``a + b`` is the run of a's blocks then
    b's (the runner joins runs only where each starts from the bus states the one before ended in)."""

    blocks: int
    block_bytes: int
    raw: BusStats
    codecs: Tuple[Dict[str, Any], ...]

    def __add__(self, other: "BusSums") -> "BusSums":
        codecs = tuple({k: a[k] + b[k] for k in a} for a, b in zip(self.codecs, other.codecs))
        return BusSums(self.blocks + other.blocks, self.block_bytes, self.raw + other.raw, codecs)


@dataclass
class BusCarry:
    """What runs through the blocks in order: the wire states (raw, then per codec the compressed
    and the EC transfers; None: the initial state) and a session per codec (a stateful codec's
    stream). Equal when the states are (the codecs of a split dataset are stateless)."""

    states: Tuple[Optional[WireState], ...]
    sessions: List[Session]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BusCarry):
            return NotImplemented
        return len(self.states) == len(other.states) and all(
            a is None and b is None or (a is not None and b is not None and a == b)
            for a, b in zip(self.states, other.states)
        )


def _charged_at_mag(sent_bits: np.ndarray, mag: int, u_min: int) -> int:
    """Bits that transfers of ``sent_bits`` occupy on a bus moved in accesses of ``mag`` bytes:
    per transfer MAG * max(u_min, ceil(bits / 8 MAG)) bytes (SPEC 0.6's MAG rounding). There is no
    cap at B: a row is charged what it sends, an expanded stream sent as it is included, so a
    row's ``cr_mag`` is never above its ``cr``."""
    m = 8 * int(mag)
    units = (sent_bits.astype(np.uint64) + np.uint64(m - 1)) // np.uint64(m)
    return m * int(np.maximum(units, np.uint64(u_min)).sum(dtype=np.uint64))


def _none_or(reader: Any) -> Any:
    """A command-line reader where ``none`` means None."""
    return lambda text: None if text == "none" else reader(text)


def _bus_option(key: str, default: Any, help: str, reader: Any = str, label: str = "VALUE", **kw: Any) -> Option:
    """A bus or EC option: :func:`bus_setup` checks it (its messages name the option)."""
    return Option(key, default, Any_(fn=lambda name, v: v, reader=reader, label=label), help, **kw)


class Toggles(Analysis):
    """Compression ratio against bus energy (P2 §4-§6): the rows of :func:`compare`. The carry is
    the bus's wire states (stream mode runs them through the blocks in order), so a Dask part
    starts from the states replaying the blocks before it gives, checked when the parts join."""

    name = "toggles"
    summary = "bit toggles, DBI zeros and bus energy of compressed transfers, with Energy Control"
    carried = True
    OPTIONS = (
        Option(
            "codecs",
            ("bdi", "fpc", "fpc.mc", "cpack", "cpack.mc"),
            CODECS,
            "decodable codec presets and groups",
        ),
        _bus_option("bus", None, "the bus as a memcomp.toggles.Bus, instead of the bus options", flag=""),
        _bus_option("channel", "dram", "the bus: DRAM or on-chip flits", label="{dram,noc}"),
        _bus_option("flit_bytes", 32, "on-chip flit width in bytes (noc)", int, "N"),
        _bus_option("bus_bits", 32, "DRAM bus width in bits: 8, 16, 32 or 64", int, "N"),
        _bus_option("burst_length", 8, "DRAM beats per burst", int, "N"),
        _bus_option("dbi", None, "data bus inversion (dram)", _none_or(str), "{none,dc,ac}", cli_default=None),
        _bus_option(
            "mode", "stream", "wire state carried across blocks, or every block from idle", label="{stream,isolated}"
        ),
        _bus_option("pad", "zero", "what pads a transfer's last beat", flag=""),
        _bus_option("init", None, "the wires' state before the first block", flag=""),
        _bus_option("idle", None, "DRAM idle level (high: POD; default by channel)", label="{high,low}"),
        _bus_option("ac_threshold", None, "AC DBI's inversion threshold", flag=""),
        _bus_option("ac_first", None, "AC DBI's first beat rule", flag=""),
        _bus_option("ac_count_pin", None, "AC DBI counts the DBI pin", flag=""),
        _bus_option(
            "ec",
            None,
            "a row per codec with Energy Control (P2 4.2): ec1 (energy x delay), ec2 (energy x delay^2), helps "
            "(P2's baseline: compressed only where it is smaller in --ec-ratio units, no energy term), none",
            _none_or(str),
            "{none,ec1,ec2,helps}",
            cli_default="ec2",
        ),
        _bus_option(
            "bu",
            0.0,
            "bandwidth utilisation in [0, 1] for ec1/ec2 (one per block from Python): above 0.5, "
            "g = 1/(1 - BU) weighs CR",
            float,
            "BU",
        ),
        _bus_option("alpha", 1.0, "ec1/ec2 send compressed iff (g CR)^k T0 > ALPHA T1", float, "ALPHA"),
        _bus_option("ec_ratio", "units", "EC's compression ratio", label="{units,bits}"),
        Option("mag", 32, Int(1, 4096), "memory access granularity in bytes (cr_mag)"),
        Option("u_min", 1, Int(0, 4096), "fewest MAG bursts a transfer is charged"),
        _bus_option(
            "energy",
            None,
            "energy model: ddr4, gddr5, gddr6, lpddr4, noc (default by bus), a dict or an EnergyModel",
            label="MODEL",
        ),
    )

    def __init__(self, **options: Any) -> None:
        self._given = frozenset(options)  # bus_setup refuses an object with a keyword it holds
        super().__init__(**options)

    def check(self) -> None:
        # the options as given (None included: bus_setup refuses it where it means nothing; a bus
        # option's None means "the bus's default"), the others at bus_setup's defaults
        self.setup = bus_setup(**{k: v for k, v in self.options.items() if k != "codecs" and k in self._given})
        self._cs: Optional[List[Codec]] = None
        self._block_bytes = 0

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "Toggles":
        out = copy.copy(self)
        out._cs, out._block_bytes = list(resolve_codecs(self["codecs"])), int(block_bytes)
        for c in out._cs:
            if not c.exact:
                raise ValueError(
                    f"{c.name} is accounting-only (exact=False): it has no stream to put on a bus; "
                    "use a decodable preset"
                )
        return out

    def _codecs(self) -> List[Codec]:
        if self._cs is None:
            raise RuntimeError("resolve the analysis for a block size first (memcomp.analysis.run does)")
        return self._cs

    def samples(self) -> Optional[str]:
        return "fit" if any(c.requires_fit for c in self._codecs()) else None

    def prepare(self, sample: Optional[tuple], threads: Optional[int] = None) -> "Toggles":
        out = copy.copy(self)
        out._cs = fit_missing(None, self._codecs(), threads, sample)[0]
        return out

    def splittable(self, block_bytes: int) -> bool:
        return not any(c.stateful for c in self.resolve(block_bytes)._codecs())

    def start(self) -> BusCarry:
        cs = self._codecs()
        return BusCarry((None,) * (1 + 2 * len(cs)), [c.session() for c in cs])

    def partial(self, chunk: np.ndarray, carry: BusCarry, first: int, threads: Optional[int]) -> Tuple[BusSums, Any]:
        return self._sums(chunk, carry, first, threads, False)

    def close(self, carry: BusCarry) -> BusSums:
        """What closing the transfers after the last block adds (a DRAM bus back to idle)."""
        empty = np.empty((0, self._block_bytes), dtype=np.uint8)
        return self._sums(empty, carry, 0, None, True)[0]

    def _sums(self, chunk: np.ndarray, carry: BusCarry, first: int, threads: Optional[int], closing: bool) -> tuple:
        """The chunk's totals: the raw transfers, then each codec's (encoded, counted, and with
        Energy Control): independent jobs, each on a thread of its own (each_on_threads), each
        from and to its own wire states."""
        setup, b, ec = self.setup, self.setup.bus, self.setup.ec
        B, n = int(chunk.shape[1]), int(chunk.shape[0])
        states = carry.states

        def raw(_: Any, inner: Optional[int]) -> Tuple[BusStats, Any]:
            r = count(chunk, state=states[0], close=closing, per_block=False, bus=b)
            return r.stats, r.state

        def codec(i: int, inner: Optional[int]) -> Tuple[Dict[str, Any], Any, Any]:
            stream = carry.sessions[i]
            a: Dict[str, Any] = {}
            enc = stream.codec.encode(chunk, threads=inner, session=stream)
            p = count(enc, state=states[1 + 2 * i], close=closing, per_block=False, bus=b)
            a["plain"], plain_state, ec_state = p.stats, p.state, states[2 + 2 * i]
            a["plain_bits"] = int(enc.bit_lengths.sum(dtype=np.uint64))
            a["plain_charged"] = _charged_at_mag(enc.bit_lengths, setup.mag, setup.u_min)
            a.update(ec=BusStats.empty(), ec_bits=0, ec_charged=0, ec_comp=0, ec_units=0)
            if ec is not None:
                bu_chunk = setup.bu_all[first : first + n] if setup.bu_all is not None else float(setup.bu)
                e = energy_control(
                    chunk,
                    enc,
                    ec,
                    bu_chunk,
                    setup.alpha,
                    state=ec_state,
                    close=closing,
                    per_block=False,
                    ratio=setup.ec_ratio,
                    bus=b,
                )
                ec_state = e.state
                a["ec"] = BusStats({f: int(e.totals["sent"][f]) for f in FIELDS}, n)
                a["ec_comp"] = int(e.totals["compressed"])
                a["ec_bits"] = int(e.totals["sent_bits"])
                a["ec_units"] = int(e.totals["sent_units"])
                sent_bits = np.where(e.columns["compressed"], enc.bit_lengths, np.uint32(8 * B))
                a["ec_charged"] = _charged_at_mag(sent_bits, setup.mag, setup.u_min)
            return a, plain_state, ec_state

        jobs: List[Any] = [None, *range(len(carry.sessions))]
        # Longest first, by the last chunk's times, so no thread is left alone with a long job at
        # the chunk's end (the schedule only: each job's result is its own).
        seconds = self.__dict__.setdefault("_seconds", {})
        order = sorted(jobs, key=lambda j: -seconds.get(j, 0.0))

        def timed(j: Any, inner: Optional[int]) -> Any:
            t0 = time.perf_counter()
            out = raw(j, inner) if j is None else codec(j, inner)
            seconds[j] = time.perf_counter() - t0
            return out

        got = dict(zip(order, each_on_threads(timed, order, threads)))
        done = [got[j] for j in jobs]
        (raw_stats, raw_state), per_codec = done[0], done[1:]
        new_states = [raw_state]
        for _, plain_state, ec_state in per_codec:
            new_states += [plain_state, ec_state]
        acc = [a for a, _, _ in per_codec]
        return BusSums(n, B, raw_stats, tuple(acc)), BusCarry(tuple(new_states), carry.sessions)

    def finish(self, total: BusSums, source: Dict[str, Any]) -> "pandas.DataFrame":
        return totals_frame(total, self._codecs(), self.setup, source)


def totals_frame(tot: BusSums, cs: Sequence[Codec], setup: _Setup, source: Dict[str, Any]) -> "pandas.DataFrame":
    """compare()'s rows from its totals."""
    import pandas as pd

    opts, model, raw, ec, B, n_total = setup.opts, setup.model, tot.raw, setup.ec, tot.block_bytes, tot.blocks
    raw_bits = 8 * B * n_total
    rows = []

    def row(c: Codec, ec_name: str, st: BusStats, sent_bits: int, charged: int, units: int, frac: float):
        t_raw, t = raw["energy"], st["energy"]
        e_raw, e = model.energy_pj(raw.counts), model.energy_pj(st.counts)
        return {
            **source,
            **provenance(c.get_config()),
            **{k if k.startswith("bus_") else f"bus_{k}": v for k, v in opts.items()},
            "codec": c.name,
            "family": c.codec_id,
            "preset": c.preset,
            "channel": opts["channel"],
            "ec": ec_name,
            "blocks": n_total,
            "block_bytes": B,
            "metric": setup.metric,
            "fraction_compressed": frac,
            "raw_bits": raw_bits,
            "sent_bits": sent_bits,
            "cr": raw_bits / sent_bits if sent_bits else float("inf"),
            "mag": int(setup.mag),
            "u_min": int(setup.u_min),
            "policy": "none",
            "ec_alpha": float(setup.alpha) if _EC_K.get(ec_name, 0) > 0 else None,
            "ec_ratio": setup.ec_ratio if ec_name != "none" else None,
            "ec_bu": (float(setup.bu) if setup.bu_all is None else "per_block") if _EC_K.get(ec_name, 0) > 0 else None,
            "cr_mag": raw_bits / charged if charged else float("inf"),
            "units_raw": raw["units"],
            "units": units,
            "cr_units": raw["units"] / units if units else float("inf"),
            "t_raw": t_raw,
            "t": t,
            "t_ratio": t / t_raw if t_raw else float("nan"),
            "toggles_raw": raw["toggles"],
            "toggles": st["toggles"],
            "toggles_ratio": st["toggles"] / raw["toggles"] if raw["toggles"] else float("nan"),
            "toggle_rate": st.toggle_rate(setup.width),
            "zeros_total": st.zeros_total,
            "inversions": st["inversions"],
            "energy_model": model.name,
            "energy_pj_raw": e_raw,
            "energy_pj": e,
            "energy_pj_per_block": e / n_total if n_total else float("nan"),
            "energy_ratio": e / e_raw if e_raw else float("nan"),
        }

    for c, a in zip(cs, tot.codecs):
        rows.append(row(c, "none", a["plain"], a["plain_bits"], a["plain_charged"], a["plain"]["units"], 1.0))
        if ec is not None:
            rows.append(
                row(
                    c,
                    ec,
                    a["ec"],
                    a["ec_bits"],
                    a["ec_charged"],
                    a["ec_units"],
                    a["ec_comp"] / n_total if n_total else 0.0,
                )
            )
    return pd.DataFrame(rows)


def scatter(
    blocks,
    codecs: Union[str, Codec, Iterable[Union[str, Codec]]] = ("bdi", "fpc", "fpc.mc", "cpack", "cpack.mc"),
    *,
    bus: Optional[Bus] = None,
    threads: Optional[int] = None,
    energy: Union[None, str, Dict[str, Any], EnergyModel] = None,
    every: int = 1,
    chunk_blocks: int = 1 << 16,
    **keywords: Any,
) -> "pandas.DataFrame":
    """Per-block compression ratio against the EC metric, toggles and energy, for P2's scatter
    of compression ratio against toggles (:func:`memcomp.plot.ratio_toggle_scatter`).

    One row per (codec, block), each block's raw and compressed transfers counted in their own
    stream of transfers: codec, block, bits, cr (8B / bits), cr_units (raw units / compressed
    units), metric (what T counts, as in :func:`compare`: toggles, zeros_total or ones_total),
    t_raw and t (T of the raw and the compressed transfer), t_ratio = t / t_raw, toggles_raw,
    toggles, toggles_ratio (data-wire transitions), energy_model, energy_pj_raw, energy_pj (pJ
    under ``energy``, as in :func:`compare`) and energy_ratio. A ratio is NaN where its raw
    value is 0. (The column t_ratio was called toggle_ratio before, although on DRAM it is a
    zeros or ones ratio.) The bus is ``bus`` (a :class:`Bus`) or the bus keywords, as in
    :func:`compare` (channel ``"dram"`` by default).

    The blocks (an array, a Dump or a stream) are read ``chunk_blocks`` at a time, a stateful
    codec continuing one session across chunks, so the rows equal the whole array's. ``every``
    keeps the rows of every ``every``-th block (block index divisible by it): the table of a large
    dump, which has a row per block and codec, stays as small as the plot needs."""
    import pandas as pd

    every = check_int("every", every, 1)
    step = check_chunk_blocks(chunk_blocks)
    b = _bus_of(bus, keywords, "dram")
    opts = b.to_dict()
    model = default_model(opts["channel"], opts["idle"]) if energy is None else energy_model(energy)
    model.check_bus(opts["channel"], opts["idle"])
    metric = metric_name(**opts)
    cs = _codecs_for_energy(blocks, codecs, threads)
    sessions = [c.session() for c in cs]  # a stateful codec given keeps its own stream
    frames: List[List["pandas.DataFrame"]] = [[] for _ in cs]

    def ratio(x: np.ndarray, of: np.ndarray) -> np.ndarray:
        x, of = x.astype(np.float64), of.astype(np.float64)
        return np.where(of > 0, x / np.where(of > 0, of, 1.0), np.nan)

    first, raw_state = 0, None
    wires: List[Optional[WireState]] = [None] * len(cs)  # each stream's bus state, chunk to chunk
    for arr, last in _lookahead(chunks(blocks, step)):
        if arr.ndim != 2 or arr.dtype != np.uint8:
            in_memory(arr)  # the array's own error
        B = int(arr.shape[1])
        index = np.arange(first, first + arr.shape[0])
        keep = index % every == 0
        first += arr.shape[0]
        raw = count(arr, bus=b, state=raw_state, close=last)
        raw_state = raw.state
        raw_units, t_raw, tog_raw = (raw.columns[k][keep] for k in ("units", "energy", "toggles"))
        e_raw = np.asarray(raw.energy_pj(model), dtype=np.float64)[keep]
        for k, (c, session, out) in enumerate(zip(cs, sessions, frames)):
            enc = c.encode(arr, threads=threads, session=session)
            comp = count(enc, bus=b, state=wires[k], close=last)
            wires[k] = comp.state
            bits = enc.bit_lengths[keep].astype(np.float64)
            units = comp.columns["units"][keep].astype(np.float64)
            t, toggles = comp.columns["energy"][keep], comp.columns["toggles"][keep]
            e = np.asarray(comp.energy_pj(model), dtype=np.float64)[keep]
            with np.errstate(divide="ignore"):
                out.append(
                    pd.DataFrame(
                        {
                            "codec": c.name,
                            "block": index[keep],
                            "bits": enc.bit_lengths[keep],
                            "cr": np.where(bits > 0, 8.0 * B / bits, np.inf),
                            "cr_units": np.where(units > 0, raw_units / units, np.inf),
                            "metric": metric,
                            "t_raw": t_raw,
                            "t": t,
                            "t_ratio": ratio(t, t_raw),
                            "toggles_raw": tog_raw,
                            "toggles": toggles,
                            "toggles_ratio": ratio(toggles, tog_raw),
                            "energy_model": model.name,
                            "energy_pj_raw": e_raw,
                            "energy_pj": e,
                            "energy_ratio": ratio(e, e_raw),
                        }
                    )
                )
    every_frame = [f for out in frames for f in out]
    return pd.concat(every_frame, ignore_index=True) if every_frame else pd.DataFrame()


__all__ = [
    "Bus",
    "BusResult",
    "BusStats",
    "EC_MODES",
    "EcResult",
    "EnergyControl",
    "WireState",
    "bus_options",
    "compare",
    "count",
    "decide",
    "drive",
    "energy_control",
    "gain",
    "metric_name",
    "scatter",
]
