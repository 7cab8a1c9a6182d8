"""MPC analysis and training: ratio entropy, guess_dtype, parameter extraction (P3 §2.3, §3.1-3.2,
§4; SPEC 1.12 and 3).

Ratio entropy ``RE(i, j) = H(q(D[i], D[j]))`` over a data set, i the target and j the base position
(:func:`ratio_entropy`). Buckets: ``0`` Z00 (both zero), ``1`` Z0x (target zero), ``2`` Zx0 (base
zero), then ``3 + q - q_min`` for the quantised ratio q (``+ n_q`` for a negative sign product when
``signed``); bytes have 19 buckets with the default ``floor`` quantiser.

==============  ==============================================================================
option          meaning
==============  ==============================================================================
``zeros``       ``"buckets"`` (default) the three zero buckets; ``"exclude"`` only pairs with
                both elements non-zero enter RE (the zero buckets are still counted, so partial
                results stay the same shape); ``"as_one"`` reads a zero as 1 (public extractor)
``quantiser``   ``"floor"`` (default) floor(log2(a/b)), exact; ``"round"`` the nearest integer
                (the ``cal22`` extraction preset)
``signed``      |a| and |b| of two's complement elements, buckets split by sign(a)·sign(b)
``elem_bytes``  1 (default), 2 or 4: little-endian elements instead of bytes
==============  ==============================================================================

:class:`RatioEntropy` objects are mergeable partial results: ``a + b`` adds the counts, so dumps
stream in chunks and ``ratio_entropy(x) + ratio_entropy(y) == ratio_entropy(concat(x, y))``.

Extraction (SPEC 1.12 table): edge weight ``(RE(i, j) + RE(j, i)) / 2`` (``weight="cal22"``:
``RE(max, min)``); Kruskal MST with ties by (w, min, max); the root of minimum tree height, ties to
the highest order-0 byte entropy, then the lowest index; base = parent away from the root;
shift = the modal ratio bucket of (j, base) (target zero -> -8; a mostly-zero base uses the mode over
the ratio buckets only; ties to the lowest shift); the scan is the greedy chain over the XORed
residue planes (:func:`scan`).

:func:`train` fits the five modules (classes 2..6 = Bool/INT8, INT16, INT32/64, FP32, FP64) on
blocks that are neither all-zero (class 0) nor all-words-same (class 1). A group with no training
blocks gets the module trained on all training blocks (marked ``fallback`` in ``model.info``).
:func:`protocol` runs P3 §4's split and compares MPC with BDI, FPC, C-Pack, BPC and SC2.

Layers: the model and its training live in ``memcomp._mpc_train``, below :mod:`memcomp.codecs`
(``Codec.fit`` trains the ``mpc`` codec with it); this module, above the codecs, re-exports them
and adds what builds or measures codecs: :meth:`MPCModel.codec` and the protocol.
"""

from __future__ import annotations

import functools
import math
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _core, _mpc_train
from ._common import check_float, check_int, chunks
from ._mpc_train import (
    GROUPS,
    RatioEntropy,
    _blocks32,
    byte_entropy,
    extract,
    guess_dtype,
    ratio_entropy,
    scan,
    shifts,
    special_class,
    train_module,
    validate_model,
)

# the rest of the training's public names, as before the split (memcomp.mpc.TrainStats, ...)
from ._mpc_train import MODEL_VERSION as MODEL_VERSION
from ._mpc_train import QUANTISERS as QUANTISERS
from ._mpc_train import WEIGHTS as WEIGHTS
from ._mpc_train import ZEROS as ZEROS
from ._mpc_train import ModuleStats as ModuleStats
from ._mpc_train import TrainStats as TrainStats
from ._mpc_train import check_labels as check_labels
from ._mpc_train import check_train_options as check_train_options
from ._mpc_train import module_stats as module_stats
from ._mpc_train import scan_counts as scan_counts
from ._mpc_train import train_predictors as train_predictors
from ._mpc_train import train_scans as train_scans
from ._mpc_train import train_stats as train_stats
from .codec_list import resolve_codecs
from .codecs import get_codec

if TYPE_CHECKING:
    import pandas

__all__ = [
    "GROUPS",
    "MPCModel",
    "RatioEntropy",
    "byte_entropy",
    "default_model",
    "extract",
    "guess_dtype",
    "mpc_codec_available",
    "protocol",
    "ratio_entropy",
    "scan",
    "shifts",
    "special_class",
    "train",
    "train_module",
    "validate_model",
]

_DATA = Path(__file__).resolve().parent / "data"


def mpc_codec_available() -> bool:
    """True if this build registers the MPC codec family (``get_codec("mpc", model=...)``)."""
    return any(p["family"] == "mpc" for p in _core.list_presets())


class MPCModel(_mpc_train.MPCModel):
    __doc__ = _mpc_train.MPCModel.__doc__
    __slots__ = ()

    def codec(self, **options: Any):
        """``get_codec("mpc", model=...)``; RuntimeError if the MPC codec is not available."""
        if not mpc_codec_available():
            raise RuntimeError("the MPC codec is not registered in this build of memcomp")
        return get_codec("mpc", model=self.model, **options)


def _public(model: _mpc_train.MPCModel) -> MPCModel:
    """The model as this module's MPCModel (training below the codecs makes the base class)."""
    return model if isinstance(model, MPCModel) else MPCModel(model.model, model.info)


class TrainMPC(_mpc_train.TrainMPC):
    __doc__ = _mpc_train.TrainMPC.__doc__

    def then(self, total: TrainStats) -> Optional["TrainScans"]:
        scans = super().then(total)
        return None if scans is None else TrainScans(self, scans.stats, scans.predictors)

    def finish(self, total: TrainStats, source: Dict[str, Any]) -> MPCModel:
        return _public(super().finish(total, source))


class TrainScans(_mpc_train.TrainScans):
    __doc__ = _mpc_train.TrainScans.__doc__

    def finish(self, total: np.ndarray, source: Dict[str, Any]) -> MPCModel:
        return _public(super().finish(total, source))


@functools.wraps(_mpc_train.train_from_stats)
def train_from_stats(*args: Any, **kwargs: Any) -> MPCModel:
    return _public(_mpc_train.train_from_stats(*args, **kwargs))


@functools.wraps(_mpc_train.train)
def train(*args: Any, **kwargs: Any) -> MPCModel:
    return _public(_mpc_train.train(*args, **kwargs))


def default_model() -> MPCModel:
    """The bundled model (``memcomp/data/mpc_default.json``), trained by :func:`train_default`."""
    return MPCModel.load(_DATA / "mpc_default.json")


def train_default(n_bytes: int = 4 << 20, seed: int = 0, threads: Optional[int] = None) -> MPCModel:
    """Trains on every bundled sample workload (``memcomp.workloads.sample(n_bytes, seed)``, as 32 B
    blocks), each labelled with its element type (``workloads.MPC_GROUP``): how
    ``mpc_default.json`` is made."""
    from . import workloads
    from .blocks import as_blocks

    parts = {k: as_blocks(x, 32) for k, x in workloads.sample(n_bytes, seed).items()}
    labels = np.concatenate([np.full(len(b), GROUPS.index(workloads.MPC_GROUP[k]), np.int8) for k, b in parts.items()])
    return train(np.concatenate(list(parts.values())), labels, threads=threads, seed=seed)


# ------------------------------------------------------------------------------ P3 §4 protocol


def _as32(x: Any) -> np.ndarray:
    from .blocks import as_blocks, sectorize

    if isinstance(x, np.ndarray) and x.ndim == 2 and x.dtype == np.uint8:
        return _blocks32(sectorize(np.ascontiguousarray(x), 32) if x.shape[1] != 32 else x)
    return as_blocks(x, 32)


def traffic_entropy(blocks: Any) -> float:
    """Order-0 byte entropy of the 32-byte blocks that are neither all-zero nor all-words-same
    (P3 §4). ``blocks`` is an ``(n, 32)`` uint8 array, or a Dump or stream of any block size (its
    blocks cut into 32-byte sectors), read a chunk at a time in bounded memory."""
    counts = np.zeros(256, np.int64)
    parts = (_blocks32(blocks),) if isinstance(blocks, np.ndarray) else (_as32(c) for c in chunks(blocks, 1 << 16))
    for b in parts:
        b = b[special_class(b) < 0]
        counts += np.bincount(b.reshape(-1), minlength=256)
    c = counts[counts > 0].astype(np.float64)
    if c.size == 0:
        return 0.0
    n = c.sum()
    return max(0.0, math.log2(n) - float(np.dot(c, np.log2(c))) / n)


def split(workloads: Mapping[str, Any], *, train_fraction: float = 0.8, seed: int = 0) -> Dict[str, Any]:
    """P3 §4's split: applications sorted by traffic entropy (descending, ties by name); of every
    four, the first three are training applications and the fourth is unseen. Each training
    application's blocks are split at random (``seed``) into ``train_fraction`` for extraction and
    the rest for the seen test set. Returns ``{"order": [(name, entropy, role)], "train": {name:
    idx}, "seen": {name: idx}, "unseen": [names]}`` with sorted block indices."""
    if not isinstance(workloads, Mapping):
        raise TypeError(f"workloads must be a mapping of names to blocks, got {type(workloads).__name__}")
    if not 0 < check_float("train_fraction", train_fraction) < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction!r}")
    seed = check_int("seed", seed, 0)
    if not workloads:
        raise ValueError("protocol needs at least one workload")
    blocks = {k: _as32(v) for k, v in workloads.items()}
    ent = {k: traffic_entropy(v) for k, v in blocks.items()}
    names = sorted(blocks, key=lambda k: (-ent[k], k))
    rng = np.random.default_rng(seed)
    out: Dict[str, Any] = {"order": [], "train": {}, "seen": {}, "unseen": []}
    for i, name in enumerate(names):
        role = "unseen" if i % 4 == 3 else "train"
        out["order"].append((name, ent[name], role))
        if role == "unseen":
            out["unseen"].append(name)
            continue
        n = blocks[name].shape[0]
        perm = rng.permutation(n)
        k = int(round(train_fraction * n))
        out["train"][name] = np.sort(perm[:k])
        out["seen"][name] = np.sort(perm[k:])
    return out


def protocol(
    workloads: Mapping[str, Any],
    *,
    codecs: Sequence[str] = ("bdi", "fpc", "cpack", "bpc", "sc2"),
    train_fraction: float = 0.8,
    seed: int = 0,
    threads: Optional[int] = None,
    **train_options: Any,
) -> Tuple[MPCModel, "pandas.DataFrame"]:
    """P3 §4: train MPC on 80% of the blocks of three of every four applications (sorted by
    entropy), then measure raw CR on the seen (other 20%) and unseen (fourth applications) sets
    next to ``codecs``. Data-driven codecs (SC2) are fitted on the same training blocks.

    Returns ``(model, df)``; ``df`` is long-form: ``set`` (seen/unseen), ``workload`` (``"all"``
    for the whole set), ``entropy``, ``codec``, ``blocks``, ``bits``, ``cr`` (ratio of sums, in-band
    bits, no tag). The MPC column needs the ``mpc`` codec; without it the MPC rows are left out
    with a warning.
    """
    import pandas as pd

    resolved = resolve_codecs(codecs)
    s = split(workloads, train_fraction=train_fraction, seed=seed)
    blocks = {k: _as32(v) for k, v in workloads.items()}
    ent = {name: e for name, e, _ in s["order"]}
    train_parts = [blocks[k][idx] for k, idx in s["train"].items()]
    if not train_parts or sum(p.shape[0] for p in train_parts) == 0:
        raise ValueError("no training blocks")
    train_blocks = np.concatenate(train_parts)
    model = train(train_blocks, threads=threads, seed=seed, **train_options)
    model.info["split"] = [{"workload": n, "entropy": e, "role": r} for n, e, r in s["order"]]

    cs = [c.fit(train_blocks, threads=threads) if c.requires_fit else c for c in resolved]
    labels = [c.name for c in cs]
    if mpc_codec_available():
        cs.append(model.codec())
        labels.append("mpc")
    else:
        warnings.warn(
            "the MPC codec is not registered in this build; protocol() reports the other codecs only",
            RuntimeWarning,
            stacklevel=2,
        )

    sets = {"seen": {k: blocks[k][idx] for k, idx in s["seen"].items()}, "unseen": {k: blocks[k] for k in s["unseen"]}}
    rows = []
    for set_name, parts in sets.items():
        if not parts:
            continue
        for label, c in zip(labels, cs):
            tot_bits = tot_blocks = 0
            for wname, b in parts.items():
                n = int(b.shape[0])
                bits = int(c.measure(b, threads=threads).total_bits) if n else 0
                tot_bits += bits
                tot_blocks += n
                rows.append(
                    {
                        "set": set_name,
                        "workload": wname,
                        "entropy": ent[wname],
                        "codec": label,
                        "blocks": n,
                        "bits": bits,
                        "cr": (256 * n / bits) if bits else math.inf,
                    }
                )
            rows.append(
                {
                    "set": set_name,
                    "workload": "all",
                    "entropy": math.nan,
                    "codec": label,
                    "blocks": tot_blocks,
                    "bits": tot_bits,
                    "cr": (256 * tot_blocks / tot_bits) if tot_bits else math.inf,
                }
            )
    return model, pd.DataFrame(rows, columns=["set", "workload", "entropy", "codec", "blocks", "bits", "cr"])
