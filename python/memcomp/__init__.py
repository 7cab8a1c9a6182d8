"""memcomp: memory-block compression analysis for GPU memory-system research.

Bit-exact block codecs (BDI, FPC, ...) with presets that reproduce public implementations, and
the metrics to compare them: raw CR, CR at memory access granularity (MAG), size histograms.

>>> import memcomp, numpy as np
>>> blocks = memcomp.as_blocks(np.arange(1024, dtype=np.int32), 32)
>>> memcomp.get_codec("bdi").measure(blocks).cr()  # doctest: +SKIP
"""

from . import e2mc, energy, entropy, mpc, slc, toggles, workloads
from ._core import CorruptStreamError
from ._version import __version__ as __version__
from .blocks import VALID_BLOCK_BYTES, as_blocks, sectorize
from .codecs import Codec, Encoded, Sizes, codec_names, get_codec, list_codecs
from .io import Dump, open_dump, open_dumps, register_reader, save_dump
from .metrics import SizeStats, charge, parse_policy
from .models import Model
from .report import breakdown, compare, mag_study

__all__ = [
    "VALID_BLOCK_BYTES",
    "Codec",
    "CorruptStreamError",
    "Dump",
    "Encoded",
    "Model",
    "SizeStats",
    "Sizes",
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
    "slc",
    "toggles",
    "workloads",
]
