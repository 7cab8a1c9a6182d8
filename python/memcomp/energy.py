"""Bus energy in picojoules from toggle and level counts (SPEC 2; P2 §2 and §5.2): "what it costs
in bus energy" as joules, next to the counts of :mod:`memcomp.toggles`.

A transfer's energy is linear in its counts, so per-block and total energies add like the counts:

    E = toggle_pj * data transitions + level_pj * data bit-times at the terminated level
      + pin_toggle_pj * DBI pin transitions + pin_level_pj * pin bit-times at that level

The terminated level is low for pseudo-open-drain (POD) interfaces that idle high (DDR4, GDDR5,
GDDR6: a driven 0 draws current through the termination to VDDQ, P2 §5.2's "zeros") and high for
LPDDR4's LVSTL, terminated to ground (idle low). On chip there is no termination: only
transitions cost (P2 §2, full-swing wires).

Presets (:data:`MODELS`) and where their numbers come from are listed in :data:`SOURCES`; every
parameter can be changed (``EnergyModel(...)``, ``model.replace(toggle_pj=...)``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Union

import numpy as np

__all__ = ["MODELS", "SOURCES", "EnergyModel", "energy_model"]


@dataclass(frozen=True)
class EnergyModel:
    """Energy per event of one interface, in pJ. ``idle`` is the level the wires rest at
    (``"high"`` POD, ``"low"`` LVSTL; ``None`` on chip): the other level is the costly one."""

    name: str
    channel: str
    toggle_pj: float
    level_pj: float = 0.0
    pin_toggle_pj: Optional[float] = None
    pin_level_pj: Optional[float] = None
    idle: Optional[str] = None
    source: str = ""

    def __post_init__(self):
        if self.channel not in ("dram", "noc"):
            raise ValueError(f"channel must be 'dram' or 'noc', got {self.channel!r}")
        if self.idle not in (None, "high", "low"):
            raise ValueError(f"idle must be 'high', 'low' or None, got {self.idle!r}")
        if self.channel == "dram" and self.idle is None:
            raise ValueError("a dram energy model needs idle='high' (POD) or 'low' (LVSTL)")
        for f in ("toggle_pj", "level_pj", "pin_toggle_pj", "pin_level_pj"):
            v = getattr(self, f)
            if v is not None and not (isinstance(v, (int, float)) and np.isfinite(v) and v >= 0):
                raise ValueError(f"{f} must be a finite number >= 0 (pJ), got {v!r}")

    @property
    def pin_toggle(self) -> float:
        return self.toggle_pj if self.pin_toggle_pj is None else self.pin_toggle_pj

    @property
    def pin_level(self) -> float:
        return self.level_pj if self.pin_level_pj is None else self.pin_level_pj

    def replace(self, **changes: Any) -> "EnergyModel":
        """A copy with some parameters changed (``name`` keeps the preset's unless given)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def check_bus(self, channel: str, idle: str) -> None:
        """ValueError if the model does not describe that bus."""
        if channel != self.channel:
            raise ValueError(f"energy model {self.name!r} is for the {self.channel} channel, not {channel}")
        if channel == "dram" and idle != self.idle:
            raise ValueError(
                f"energy model {self.name!r} is for a bus idling {self.idle}, this bus idles {idle}; "
                f"pass idle={self.idle!r} or another model"
            )

    def energy_pj(self, counts: Mapping[str, Any]) -> Union[float, np.ndarray]:
        """Energy of transfers from their counts (a toggles count dict / BusStats.counts, or
        per-block columns: then an array per block)."""

        def get(k):
            v = counts[k]
            return v.astype(np.float64) if isinstance(v, np.ndarray) else float(v)

        level = "zeros" if self.idle != "low" else "ones"
        e = self.toggle_pj * get("toggles")
        if self.channel == "dram":
            e = e + self.level_pj * get(level)
            e = e + self.pin_toggle * (get("pin_t01") + get("pin_t10")) + self.pin_level * get("pin_" + level)
        return e


# Parameters and where they come from.
SOURCES: Dict[str, str] = {}
MODELS: Dict[str, EnergyModel] = {}


def _add(model: EnergyModel, source: str) -> None:
    MODELS[model.name] = dataclasses.replace(model, source=source)
    SOURCES[model.name] = source


def _pod(name: str, vddq: float, r_on: float, r_tt: float, r_s: float, gbps: float, c_pf: float, source: str) -> None:
    """A POD interface from its circuit: a driven 0 draws VDDQ^2 / (R_on + R_TT + R_s) for one
    bit time (DRAMPower v5/v6 interface_calculation_DDR4.cpp: static energy per zero,
    V^2 / R_eq * t_bit); an edge moves C through the swing VDDQ R_TT / (R_on + R_TT + R_s), half
    C VDDQ V_swing on average (CACTI-IO extio.cc's C VDD V_swing f dynamic power per cycle)."""
    r = r_on + r_tt + r_s
    level = vddq * vddq / r * (1e3 / gbps)  # W * ps = pJ
    toggle = 0.5 * c_pf * vddq * (vddq * r_tt / r)
    _add(
        EnergyModel(name, "dram", toggle_pj=round(toggle, 3), level_pj=round(level, 3), idle="high"),
        f"{source}: POD, VDDQ {vddq} V, R_on {r_on} + R_TT {r_tt}"
        + (f" + R_s {r_s}" if r_s else "")
        + f" ohm, {gbps} Gb/s per pin, C {c_pf} pF: {level:.2f} pJ per zero bit, {toggle:.2f} pJ per transition",
    )


_pod(
    "ddr4",
    1.2,
    34,
    60,
    0,
    3.2,
    3.0,
    "DDR4-3200; C from CACTI-IO's DDR4 defaults (c_tx 2 pF + c_data 1 pF, extio_technology.cc)",
)
_pod(
    "gddr5",
    1.5,
    40,
    60,
    15,
    7.0,
    2.5,
    "GDDR5 at 7 Gb/s; R values from energydram's GDDR5 termination test (rz 40, rtt 60, rs 15 ohm)",
)
_pod("gddr6", 1.35, 40, 60, 0, 14.0, 2.0, "GDDR6 at 14 Gb/s; typical JEDEC drive and termination settings")
_add(
    EnergyModel("lpddr4", "dram", toggle_pj=0.4, level_pj=2.1, idle="low"),
    "LPDDR4-3200, LVSTL terminated to VSSQ (DRAMPower v5 interface_calculation_LPDDR4.cpp charges ones): "
    "VDDQ 1.1 V, V_OH about VDDQ/3 into 60 ohm for 312.5 ps: 2.1 pJ per one bit; 0.5 C VDDQ V_OH with C 2 pF: "
    "0.4 pJ per transition",
)
_add(
    EnergyModel("noc", "noc", toggle_pj=0.2),
    "full-swing on-chip wires, about 0.1 pJ per transition per mm at 28-40 nm (Keckler et al.: on-chip wire "
    "18-110 fJ/bit-mm; ISRN survey of on-chip signalling), over 2 mm of wire",
)


def energy_model(spec: Union[str, Mapping[str, Any], EnergyModel]) -> EnergyModel:
    """A model from a preset name (:data:`MODELS`), a dict of parameters or a model."""
    if isinstance(spec, EnergyModel):
        return spec
    if isinstance(spec, str):
        if spec not in MODELS:
            raise ValueError(f"unknown energy model {spec!r}; presets: {', '.join(MODELS)}")
        return MODELS[spec]
    if isinstance(spec, Mapping):
        fields = {f.name for f in dataclasses.fields(EnergyModel)}
        unknown = sorted(str(k) for k in spec if k not in fields)
        if unknown:
            raise ValueError(
                f"unknown energy model parameter(s) {', '.join(unknown)}; parameters: {', '.join(sorted(fields))}"
            )
        missing = [f for f in ("name", "channel", "toggle_pj") if f not in spec]
        if missing:
            raise ValueError(f"an energy model needs {', '.join(missing)}")
        return EnergyModel(**dict(spec))
    raise TypeError(f"energy model must be a preset name, a dict or an EnergyModel, got {type(spec).__name__}")


def default_model(channel: str, idle: str = "high") -> EnergyModel:
    """The preset :func:`memcomp.toggles.compare` uses when none is given: GDDR5 for a DRAM bus
    idling high (the GPU memory of P2's evaluation), LPDDR4 for one idling low, the on-chip wire
    model on chip."""
    if channel == "noc":
        return MODELS["noc"]
    return MODELS["gddr5" if idle == "high" else "lpddr4"]
