"""memcomp: memory-block compression analysis for GPU memory-system research.

Bit-exact block codecs (BDI, FPC, ...) with presets that reproduce public implementations, and
the metrics to compare them: raw CR, CR at memory access granularity (MAG), size histograms.

>>> import memcomp, numpy as np
>>> blocks = memcomp.as_blocks(np.arange(1024, dtype=np.int32), 32)
>>> memcomp.get_codec("bdi").measure(blocks).cr()  # doctest: +SKIP

The names below load on first use (PEP 562): ``import memcomp`` itself imports nothing heavy,
so the command line handles a Ctrl-C while NumPy and the extension load.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any, List

from ._version import __version__ as __version__

# name -> the module that defines it (a submodule: its own name)
_WHERE = {
    **{m: m for m in ("e2mc", "energy", "entropy", "mpc", "slc", "toggles", "workloads")},
    **{n: "_core" for n in ("CorruptStreamError", "set_simd_tier", "simd_tier", "simd_tier_supported")},
    "MemcompWarning": "_common",
    "MetricWarning": "slc",
    "SkippedCodecWarning": "report",
    **{n: "blocks" for n in ("VALID_BLOCK_BYTES", "as_blocks", "sectorize")},
    **{n: "codecs" for n in ("Codec", "Encoded", "Session", "Sizes", "codec_names", "get_codec", "list_codecs")},
    **{n: "io" for n in ("Dump", "open_dump", "open_dumps", "register_reader", "save_dump")},
    **{n: "metrics" for n in ("SizeStats", "charge", "parse_policy")},
    "Model": "models",
    **{n: "toggles" for n in ("Bus", "EnergyControl")},
    **{n: "report" for n in ("breakdown", "compare", "mag_study")},
}

__all__ = [
    "VALID_BLOCK_BYTES",
    "Bus",
    "Codec",
    "CorruptStreamError",
    "Dump",
    "Encoded",
    "EnergyControl",
    "MemcompWarning",
    "MetricWarning",
    "Model",
    "Session",
    "SizeStats",
    "Sizes",
    "SkippedCodecWarning",
    "as_blocks",
    "breakdown",
    "charge",
    "codec_names",
    "compare",
    "e2mc",
    "energy",
    "entropy",
    "get_codec",
    "list_codecs",
    "mag_study",
    "mpc",
    "open_dump",
    "open_dumps",
    "register_reader",
    "parse_policy",
    "save_dump",
    "sectorize",
    "set_simd_tier",
    "simd_tier",
    "simd_tier_supported",
    "slc",
    "toggles",
    "workloads",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'memcomp' has no attribute {name!r}")
    module = import_module(f".{where}", __name__)
    value = module if where == name else getattr(module, name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from . import e2mc, energy, entropy, mpc, slc, toggles, workloads
    from ._common import MemcompWarning
    from ._core import CorruptStreamError, set_simd_tier, simd_tier, simd_tier_supported
    from .blocks import VALID_BLOCK_BYTES, as_blocks, sectorize
    from .codecs import Codec, Encoded, Session, Sizes, codec_names, get_codec, list_codecs
    from .io import Dump, open_dump, open_dumps, register_reader, save_dump
    from .metrics import SizeStats, charge, parse_policy
    from .models import Model
    from .report import SkippedCodecWarning, breakdown, compare, mag_study
    from .slc import MetricWarning
    from .toggles import Bus, EnergyControl
