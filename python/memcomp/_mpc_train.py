"""MPC's model and training (P3 §2.3, §3.1-3.2; SPEC 1.12 and 3), below :mod:`memcomp.codecs`:
``Codec.fit`` trains the ``mpc`` codec with :func:`train`, and nothing here builds a codec. The
public face is :mod:`memcomp.mpc` (module docstring there), which adds what needs the codecs
(``MPCModel.codec``, P3 §4's protocol) and re-exports the rest.
"""

from __future__ import annotations

import hashlib
import math
import os
import weakref
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union, cast

import numpy as np

from . import _core
from ._common import (
    block_bytes_of,
    check_bool,
    check_choice,
    check_int,
    chunks,
    n_blocks_of,
    refuse_masked,
)
from .analysis.base import Analysis, Any_, Bool, Choice, Int, Option
from .analysis.run import Pooled, fold, run
from .blocks import check_blocks, sectorize
from .models import FORMAT, Model, training_provenance

__all__ = [
    "GROUPS",
    "MPCModel",
    "RatioEntropy",
    "byte_entropy",
    "extract",
    "guess_dtype",
    "ratio_entropy",
    "scan",
    "shifts",
    "special_class",
    "train",
    "train_module",
    "validate_model",
]

#: Training groups in class order 2..6 (P3 §3.1; the order is SPEC 1.12's choice).
GROUPS = ("bool_int8", "int16", "int32_64", "fp32", "fp64")
ZEROS = ("buckets", "exclude", "as_one")
QUANTISERS = ("floor", "round")
WEIGHTS = ("mean", "cal22")
MODEL_VERSION = 1


def _blocks32(blocks: Any, what: str = "blocks") -> np.ndarray:
    """An (n, 32) uint8 C-contiguous array; larger valid blocks are sectorized."""
    if not isinstance(blocks, np.ndarray):
        raise TypeError(
            f"{what} must be an (n, 32) uint8 ndarray, got {type(blocks).__name__}; use memcomp.as_blocks(array, 32)"
        )
    refuse_masked(blocks, what)
    if blocks.dtype != np.uint8:
        raise TypeError(f"{what} must have dtype uint8, got {blocks.dtype}; use memcomp.as_blocks(array, 32)")
    if blocks.ndim != 2:
        raise ValueError(
            f"{what} must be a 2-D uint8 array of 32 B blocks, got {blocks.ndim}-D; use memcomp.as_blocks(array, 32)"
        )
    if blocks.shape[1] != 32:
        raise ValueError(f"MPC works on 32 B blocks, got {blocks.shape[1]} B; use memcomp.sectorize(blocks, 32)")
    if not blocks.flags.c_contiguous:
        raise ValueError(f"{what} must be C-contiguous; copy explicitly with np.ascontiguousarray if you mean to")
    return blocks


# ------------------------------------------------------------------------------ ratio entropy


@dataclass(frozen=True)
class RatioEntropy:
    """Joint counts ``counts[i, j, k]`` of ratio bucket k for target i and base j (diagonal
    empty), with their options. Adds with ``+``; :meth:`matrix` gives RE in bits."""

    counts: np.ndarray
    blocks: int
    zeros: str = "buckets"
    quantiser: str = "floor"
    signed: bool = False
    elem_bytes: int = 1

    @property
    def positions(self) -> int:
        return int(self.counts.shape[0])

    @property
    def layout(self) -> Dict[str, int]:
        """q_min, q_max, n_q and buckets of the options."""
        return dict(_core.ratio_layout(self.zeros, self.quantiser, self.signed, self.elem_bytes))

    def _key(self):
        return (self.counts.shape, self.zeros, self.quantiser, self.signed, self.elem_bytes)

    def __add__(self, other: "RatioEntropy") -> "RatioEntropy":
        if not isinstance(other, RatioEntropy):
            return NotImplemented
        if self._key() != other._key():
            raise ValueError("cannot merge ratio entropies of different block sizes or options")
        return RatioEntropy(
            self.counts + other.counts,
            self.blocks + other.blocks,
            self.zeros,
            self.quantiser,
            self.signed,
            self.elem_bytes,
        )

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:  # sum([...])
            return self
        return self.__add__(other)

    def matrix(self) -> np.ndarray:
        """RE(i target, j base) in bits, an (n, n) float64 array with a zero diagonal."""
        return _core.ratio_entropy_matrix(np.ascontiguousarray(self.counts, np.uint64), self.zeros)


def ratio_entropy(
    blocks,
    *,
    zeros: str = "buckets",
    quantiser: str = "floor",
    signed: bool = False,
    elem_bytes: int = 1,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 20,
) -> RatioEntropy:
    """Ratio-bucket counts of every ordered position pair of ``blocks`` (an (n, B) uint8 array or a
    Dump, streamed in chunks). See the module doc for the options."""
    check_choice("zeros", zeros, ZEROS)
    check_choice("quantiser", quantiser, QUANTISERS)
    signed = check_bool("signed", signed)
    if check_int("elem_bytes", elem_bytes) not in (1, 2, 4):
        raise ValueError(f"elem_bytes must be 1, 2 or 4, got {elem_bytes!r}")
    total: Optional[RatioEntropy] = None
    for chunk in chunks(blocks, chunk_blocks):
        if chunk.shape[1] % elem_bytes or chunk.shape[1] // elem_bytes < 2:
            raise ValueError(f"{chunk.shape[1]} B blocks do not hold at least two {elem_bytes}-byte elements")
        c = _core.ratio_counts(chunk, zeros, quantiser, bool(signed), int(elem_bytes), threads)
        part = RatioEntropy(c, int(chunk.shape[0]), zeros, quantiser, bool(signed), int(elem_bytes))
        total = part if total is None else total + part
    assert total is not None
    return total


# ------------------------------------------------------------------------------ classification


def guess_dtype(blocks: np.ndarray, *, threads: Optional[int] = None) -> np.ndarray:
    """The primary element type of each 32 B block as an int8 group (P3 §3.1): 0 Bool/INT8,
    1 INT16 (FP16 and BF16 included: 2-byte elements), 2 INT32/64, 3 FP32, 4 FP64.

    The rule (SPEC 1.12, revised; ours): the element width whose data describes the block in the
    fewest bits wins, then float or integer at that width.

    1. For each width of 1, 2, 4 and 8 bytes, the fewest bits of: every element at the block's
       widest two's complement width; a zero mask plus the nonzero elements at their widest
       width; differences from the element s places back (bytes: s = 1, 3 and 4, for RGB/RGBA
       pixels; halfwords: 1 and 2; words: 1); and floats (FP16 and BF16 at 2 bytes, FP32 at 4,
       FP64 at 8) as a zero mask if any element is +-0, then per nonzero element a sign bit if
       signs differ, the exponent within the block's exponent range and the mantissa less the
       trailing zeros all share. Zero masks do not apply when the nonzero elements fill exactly
       one index residue of a wider element (those zeros are its high part).
    2. A width counts if it saves at least 24 of the 256 bits; the fewest bits win, ties to the
       narrower width. No width (and an all-zero block): Bool/INT8.
    3. 4 and 8 bytes: FP32 / FP64 if at most half of the nonzero elements have their top 9 / 12
       bits all equal (as a sign-extended integer does), otherwise INT32/64.

    Measured on realistic arrays (tests/python/test_mpc_analysis.py): 99 % of blocks get their
    array's group; ReLU outputs with zeros in every other word (FP64-like), FP16 with a wide
    range and RGBA pixels are the blocks that stay ambiguous. Labels you know are better: pass
    them to :func:`train`."""
    group, _ = _core.mpc_classify(_blocks32(blocks), threads)
    return group


def special_class(blocks: np.ndarray, *, threads: Optional[int] = None) -> np.ndarray:
    """MPC's fixed classes per 32 B block: 0 all bytes zero, 1 byte[i] == byte[i mod 4] (all words
    the same), -1 otherwise (int8 array)."""
    _, special = _core.mpc_classify(_blocks32(blocks), threads)
    return special


def byte_entropy(blocks: np.ndarray) -> np.ndarray:
    """Order-0 entropy in bits of each byte position (float64, one per column)."""
    blocks = check_blocks(refuse_masked(blocks))
    out = np.zeros(blocks.shape[1], dtype=np.float64)
    n = blocks.shape[0]
    if n == 0:
        return out
    for j in range(blocks.shape[1]):
        c = np.bincount(blocks[:, j], minlength=256).astype(np.float64)
        c = c[c > 0]
        out[j] = max(0.0, math.log2(n) - float(np.dot(c, np.log2(c))) / n)
    return out


# ------------------------------------------------------------------------------ extraction


def extract(
    re_matrix: np.ndarray, byte_entropy: Optional[np.ndarray] = None, *, weight: str = "mean"
) -> Dict[str, Any]:
    """MST extraction on an (n, n) RE matrix (entropies in bits: finite, >= 0) and, to break ties
    between roots, the ``n`` order-0 byte entropies (finite, >= 0): ``{"root", "base", "depth",
    "height", "edges"}``. ``base[root] = root``; ``edges`` are the MST's (u < v) pairs in Kruskal
    order."""
    check_choice("weight", weight, WEIGHTS)
    re = _entropies("re_matrix", re_matrix)
    if re.ndim != 2 or re.shape[0] != re.shape[1] or re.shape[0] < 2:
        raise ValueError(f"re_matrix must be a square (n, n) matrix with n >= 2, got shape {re.shape}")
    h = None if byte_entropy is None else _entropies("byte_entropy", byte_entropy)
    if h is not None and h.shape != (re.shape[0],):
        raise ValueError(f"byte_entropy must have one entry per position ({re.shape[0]}), got shape {h.shape}")
    w = _core.mpc_edge_weights(re, weight)
    edges = _core.mpc_mst(np.ascontiguousarray(w))
    t = _core.mpc_orient(np.ascontiguousarray(edges, dtype=np.intc), re.shape[0], h)
    return {
        "root": int(t["root"]),
        "base": list(t["base"]),
        "depth": list(t["depth"]),
        "height": int(t["height"]),
        "edges": [tuple(map(int, e)) for e in edges],
    }


def _entropies(name: str, values: Any) -> np.ndarray:
    """``values`` as a C-contiguous float64 array of entropies in bits: ValueError naming ``name``
    for NaN, infinite or negative entries, TypeError for what is not numbers."""
    try:
        a = np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers, got {type(values).__name__}") from None
    if not (np.isfinite(a).all() and (a >= 0).all()):
        raise ValueError(f"{name} must hold entropies in bits: finite and >= 0 (no NaN)")
    return a


def _ints(name: str, values: Any, n: int, lo: int, hi: int) -> list:
    """``values`` as a list of ``n`` integers in [lo, hi] (NumPy integers too); TypeError/ValueError naming it."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of {n} integers, got {type(values).__name__}")
    if len(values) != n:
        raise ValueError(f"{name} must have {n} entries, got {len(values)}")
    return [check_int(f"{name} entries", v, lo, hi) for v in values]


def _predictor(root: Any, base: Any, shift: Any = None) -> tuple:
    """(root, base, shift) of one MPC predictor, checked: root and base entries in 0..31 forming a
    tree (every byte's base pointers reach the root), shifts in -8..8 (32 of each)."""
    root, base = check_int("root", root, 0, 31), _ints("base", base, 32, 0, 31)
    j = _off_tree(root, base)
    if j is not None:
        raise ValueError(f"base must form a tree rooted at {root}: the base pointers of byte {j} form a cycle")
    return root, base, None if shift is None else _ints("shift", shift, 32, -8, 8)


def _off_tree(root: int, base: Sequence[int]) -> Optional[int]:
    """The first byte whose chain of base pointers never reaches ``root`` (they cycle), or None."""
    for j in range(len(base)):
        k, steps = j, 0
        while k != root and steps < len(base):
            k, steps = base[k], steps + 1
        if k != root:
            return j
    return None


def shifts(re: RatioEntropy, root: int, base: Sequence[int]) -> list:
    """The modal shift of every (j, base[j]) pair from the counts of ``re`` (0 at the root)."""
    if not isinstance(re, RatioEntropy):
        raise TypeError(f"re must be the RatioEntropy of ratio_entropy(), got {type(re).__name__}")
    if re.elem_bytes != 1:
        raise ValueError("MPC shifts are defined on byte ratio counts (elem_bytes=1)")
    root, base, _ = _predictor(root, base)
    return list(_core.mpc_shifts(np.ascontiguousarray(re.counts), root, base, re.zeros, re.quantiser, re.signed))


def scan(
    blocks: np.ndarray, root: int, base: Sequence[int], shift: Sequence[int], *, threads: Optional[int] = None
) -> Tuple[list, list]:
    """The greedy scan over the XORed residue planes of ``blocks`` under one predictor:
    ``(scan_row, scan_col)``, cell t -> (plane, column)."""
    b = _blocks32(blocks)
    order = (
        list(range(256))
        if b.shape[0] == 0
        else _scan_order(scan_counts(b, {"root": root, "base": base, "shift": shift}, threads=threads))
    )
    return [c // 32 for c in order], [c % 32 for c in order]


def _byte_hist(blocks: np.ndarray, threads: Optional[int] = None) -> np.ndarray:
    """(B, 256) uint64 counts of each byte value at each position."""
    return _core.byte_position_counts(blocks, threads)


def _hist_entropy(hist: np.ndarray) -> np.ndarray:
    """Order-0 entropy in bits of each row of a (B, 256) count table (what :func:`byte_entropy` gives)."""
    out = np.zeros(hist.shape[0], dtype=np.float64)
    for j, row in enumerate(hist):
        n = float(row.sum())
        c = row[row > 0].astype(np.float64)
        if n:
            out[j] = max(0.0, math.log2(n) - float(np.dot(c, np.log2(c))) / n)
    return out


@dataclass(frozen=True)
class ModuleStats:
    """Pass 1 of training one module, mergeable (``a + b``): ratio counts and byte histograms."""

    re: RatioEntropy
    hist: np.ndarray

    def __add__(self, other: "ModuleStats") -> "ModuleStats":
        return ModuleStats(self.re + other.re, self.hist + other.hist)

    @property
    def blocks(self) -> int:
        return self.re.blocks

    def predictor(self, weight: str = "mean") -> Dict[str, Any]:
        """``{root, base, shift}`` from the merged counts (MST extraction, modal shifts)."""
        tree = extract(self.re.matrix(), _hist_entropy(self.hist), weight=weight)
        root, base = tree["root"], tree["base"]
        shift = shifts(self.re, root, base)
        base[root], shift[root] = root, 0
        return {"root": int(root), "base": [int(x) for x in base], "shift": [int(x) for x in shift]}


def module_stats(
    blocks: np.ndarray, *, zeros: str = "buckets", quantiser: str = "floor", threads: Optional[int] = None
) -> ModuleStats:
    b = _blocks32(blocks)
    return ModuleStats(ratio_entropy(b, zeros=zeros, quantiser=quantiser, threads=threads), _byte_hist(b, threads))


def scan_counts(blocks: np.ndarray, predictor: Mapping[str, Any], *, threads: Optional[int] = None) -> np.ndarray:
    """Pass 2, mergeable by addition: (257, 256) uint64, row 0 the zero count of each residue cell
    and rows 1.. their co-occurrence, under ``predictor``."""
    b = _blocks32(blocks)
    if not isinstance(predictor, Mapping) or not {"root", "base", "shift"} <= set(predictor):
        raise TypeError("predictor must be a mapping with 'root', 'base' and 'shift'")
    root, base, shift = _predictor(predictor["root"], predictor["base"], predictor["shift"])
    out = np.zeros((257, 256), np.uint64)
    if b.shape[0]:
        z, co = _core.mpc_cell_zeros(b, root, base, shift, threads)
        out[0], out[1:] = z, co
    return out


def _scan_order(counts: np.ndarray) -> list:
    return list(_core.mpc_greedy_scan(counts[0], np.ascontiguousarray(counts[1:])))


def _module(cls: int, predictor: Mapping[str, Any], counts: np.ndarray) -> Dict[str, Any]:
    order = _scan_order(counts)
    return {
        "class": int(cls),
        **{k: predictor[k] for k in ("root", "base", "shift")},
        "scan_row": [c // 32 for c in order],
        "scan_col": [c % 32 for c in order],
    }


def train_module(
    blocks: np.ndarray,
    cls: int = 2,
    *,
    zeros: str = "buckets",
    quantiser: str = "floor",
    weight: str = "mean",
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """One module (``{class, root, base, shift, scan_row, scan_col}``) of class ``cls`` (2..6)
    trained on ``blocks``."""
    cls = check_int("cls", cls, 2, 6)
    b = _blocks32(blocks)
    if b.shape[0] == 0:
        raise ValueError("a module needs at least one training block")
    pred = module_stats(b, zeros=zeros, quantiser=quantiser, threads=threads).predictor(weight)
    return _module(cls, pred, scan_counts(b, pred, threads=threads))


# ------------------------------------------------------------------------------ model


def _int_list(cls: Any, key: str, value: Any, n: int, lo: int, hi: int) -> list:
    if (
        not isinstance(value, list)
        or len(value) != n
        or any(isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi for x in value)
    ):
        raise ValueError(f"class {cls}: '{key}' must be a list of {n} integers in [{lo}, {hi}]")
    return value


def validate_model(data: Mapping[str, Any]) -> None:
    """Raises ValueError naming the field unless ``data`` is a well-formed MPC model (SPEC 1.12
    "Parameters")."""
    if not isinstance(data, Mapping):
        raise ValueError(f"an MPC model is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT or data.get("codec") != "mpc":
        raise ValueError(f"an MPC model has 'format' {FORMAT!r} and 'codec' 'mpc'")
    if data.get("version") != MODEL_VERSION:
        raise ValueError(f"MPC model 'version' must be {MODEL_VERSION}, got {str(data.get('version'))[:40]!r}")
    mods = data.get("modules")
    if not isinstance(mods, list) or not 1 <= len(mods) <= 5:
        raise ValueError("MPC model 'modules' must be a list of 1 to 5 modules")
    classes = set()
    for i, m in enumerate(mods):
        if not isinstance(m, Mapping):
            raise ValueError(f"MPC model 'modules[{i}]' must be an object, got {type(m).__name__}")
        cls = m.get("class")
        if isinstance(cls, bool) or not isinstance(cls, int) or not 2 <= cls <= 6 or cls in classes:
            raise ValueError(f"MPC model 'modules[{i}].class' must be distinct integers in 2..6, got {str(cls)[:40]!r}")
        classes.add(cls)
        root = m.get("root")
        if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < 32:
            raise ValueError(f"class {cls}: 'root' must be an integer in 0..31, got {str(root)[:40]!r}")
        base = _int_list(cls, "base", m.get("base"), 32, 0, 31)
        _int_list(cls, "shift", m.get("shift"), 32, -8, 8)
        j = _off_tree(root, base)
        if j is not None:
            raise ValueError(f"class {cls}: the 'base' pointers of byte {j} do not reach the root")
        row = _int_list(cls, "scan_row", m.get("scan_row"), 256, 0, 7)
        col = _int_list(cls, "scan_col", m.get("scan_col"), 256, 0, 31)
        if sorted(32 * r + c for r, c in zip(row, col)) != list(range(256)):
            raise ValueError(f"class {cls}: ('scan_row', 'scan_col') must be a permutation of the 8 x 32 cells")


_M = TypeVar("_M", bound="MPCModel")


class MPCModel:
    """A trained MPC model: the immutable JSON :class:`memcomp.Model` (``.model``) plus training
    information that is not part of the model (``.info``: blocks and fallback flag per group)."""

    __slots__ = ("model", "info")

    def __init__(self, model: Union[Model, Mapping[str, Any], str], info: Optional[Dict[str, Any]] = None):
        m = model if isinstance(model, Model) else Model(model)
        validate_model(m.data)
        self.model = m
        self.info = dict(info or {})

    @property
    def data(self) -> Dict[str, Any]:
        return self.model.data

    @property
    def modules(self) -> list:
        return self.model["modules"]

    def module(self, cls: int) -> Dict[str, Any]:
        for m in self.modules:
            if m["class"] == cls:
                return m
        raise KeyError(f"no module of class {cls}")

    @property
    def provenance(self) -> Optional[Dict[str, Any]]:
        """How the model was trained (:func:`memcomp.models.training_provenance`): memcomp
        version, options, source, bytes and SHA-256, blocks per group; None if not recorded."""
        return self.model.provenance

    def with_source(
        self: _M,
        blocks: Any,
        labels: str,
        sha256: Optional[str] = None,
        described: bool = False,
        nbytes: Optional[int] = None,
        sample: Optional[str] = None,
    ) -> _M:
        """This model with the training source in its provenance: ``blocks`` (what :func:`train`
        took; with ``described``, their provenance dicts, and ``nbytes`` the bytes read), how groups were assigned (``labels``:
        ``"given"`` or ``"guess_dtype"``), the ``sample`` trained on (``fit_bytes``: which sectors),
        and the ``sha256`` of the bytes read, when known."""
        prov = self.provenance or training_provenance("memcomp.mpc.train", self.info.get("options", {}))
        sources = _sources(blocks)
        nbytes = nbytes if described else _n_bytes(sources)
        src = training_provenance(
            prov["trainer"],
            {**prov["options"], "labels": labels, **({"sample": sample} if sample else {})},
            sources,
            sha256=sha256,
            nbytes=nbytes,
            described=described,
        )
        return type(self)(
            self.model.with_provenance({**src, **{k: v for k, v in prov.items() if k not in src}}), self.info
        )

    def to_json(self, indent: Any = None) -> str:
        return self.model.to_json(indent)

    def save(self, path: Union[str, os.PathLike]) -> None:
        self.model.save(path)

    @classmethod
    def load(cls: Type[_M], path: Union[str, os.PathLike]) -> _M:
        """Reads a model file; ValueError naming the file and the field for a malformed one."""
        model = Model.load(path)
        try:
            return cls(model)
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: {e}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MPCModel) and self.model == other.model

    def __hash__(self) -> int:
        return hash(self.model)

    def __repr__(self) -> str:
        roots = {m["class"]: m["root"] for m in self.modules}
        return f"<MPCModel classes/roots {roots}>"


# Training streams over arrays, Dumps and lists of them (a multi-file dump) in two passes of
# mergeable partials, so chunk size, threads and Dask partitions never change the model:
# pass 1 (:func:`train_stats`) counts ratio buckets and byte values per group, the predictors
# (MST, shifts) come from the merged counts, pass 2 (:func:`train_scans`) counts residue-cell zeros
# under them for the greedy scan. With ``max_blocks`` one pass keeps a bounded sample per group
# instead: the blocks with the ``max_blocks`` smallest keys splitmix64(seed, global block index),
# a bottom-k sample that merges exactly and does not depend on how the data was split.

_NGROUPS = len(GROUPS)


def _sources(blocks: Any) -> list:
    return list(blocks) if isinstance(blocks, (list, tuple)) else [blocks]


def _n_bytes(sources: Sequence[Any]) -> Optional[int]:
    """Bytes of all sources' whole blocks (a stream's once read); None if unknown."""
    n = _n_sectors(list(sources))
    return None if n is None else 32 * n


def _n_sectors(blocks: Any) -> Optional[int]:
    """32 B sectors in all sources; None while a stream has not been read."""
    total = 0
    for s in _sources(blocks):
        n = n_blocks_of(s)
        if n is None:
            return None
        total += n if isinstance(s, np.ndarray) else n * block_bytes_of(s) // 32
    return total


def _keys(seed: int, index: np.ndarray) -> np.ndarray:
    """splitmix64 of (seed, global block index): the bottom-k sample's keys."""
    with np.errstate(over="ignore"):
        z = index.astype(np.uint64) + np.uint64((int(seed) * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) % (1 << 64))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _bottom(sample: Optional[tuple], keys: np.ndarray, blocks: np.ndarray, k: int) -> Optional[tuple]:
    """The k (key, block) pairs with the smallest keys of ``sample`` and the new ones."""
    if sample is not None:
        keys, blocks = np.concatenate([sample[0], keys]), np.concatenate([sample[1], blocks])
    if keys.size == 0:
        return sample
    order = np.argsort(keys, kind="stable")[:k]
    return keys[order], np.ascontiguousarray(blocks[order])


@dataclass(frozen=True)
class TrainStats:
    """Pass 1 of :func:`train` (``a + b`` merges): per group its :class:`ModuleStats` or, with
    ``max_blocks``, its bottom-k sample (index 5: the sample over all groups, for fallbacks)."""

    options: Tuple[str, str, int, Optional[int]]
    counts: Tuple[int, ...]
    dropped_special: int
    groups: Tuple[Optional[ModuleStats], ...]
    samples: Tuple[Optional[tuple], ...]
    sha256: Optional[str] = None  # of every byte read, in order (a serial run's close)

    def __add__(self, other: "TrainStats") -> "TrainStats":
        if self.options != other.options:
            raise ValueError("cannot merge training statistics of different options")
        k = self.options[3]
        groups = tuple(b if a is None else a if b is None else a + b for a, b in zip(self.groups, other.groups))
        samples = tuple(
            a if b is None else _bottom(a, b[0], b[1], cast(int, k)) for a, b in zip(self.samples, other.samples)
        )
        return TrainStats(
            self.options,
            tuple(a + b for a, b in zip(self.counts, other.counts)),
            self.dropped_special + other.dropped_special,
            groups,
            samples,
            self.sha256 or other.sha256,
        )

    __radd__ = __add__


def check_labels(labels: Any, n: Optional[int]) -> Optional[np.ndarray]:
    if labels is None:
        return None
    lab = np.asarray(labels)
    if lab.ndim != 1 or (n is not None and lab.shape[0] != n):
        raise ValueError(f"labels must have one entry per block ({n}), got shape {lab.shape}")
    if lab.size and (not np.issubdtype(lab.dtype, np.integer) or lab.min() < 0 or lab.max() > 4):
        raise ValueError("labels must be integers 0..4 (Bool/INT8, INT16, INT32/64, FP32, FP64)")
    return lab.astype(np.int8)


def _train_chunks(
    blocks: Any,
    labels: Optional[np.ndarray],
    offset: int,
    chunk_blocks: int,
    threads: Optional[int],
    digest: Any = None,
):
    """(global index of the first block, blocks, group, kept) per chunk of every source; each
    chunk's bytes go to ``digest`` (a hashlib object) first, if given."""
    start = offset
    for src in _sources(blocks):
        for chunk in chunks(src if not isinstance(src, np.ndarray) else _blocks32(src), chunk_blocks):
            if digest is not None:
                digest.update(np.ascontiguousarray(chunk))
            if not isinstance(src, np.ndarray) and chunk.shape[1] != 32:  # a Dump: its 32 B sectors
                chunk = sectorize(chunk, 32)
            b = _blocks32(chunk)
            group, special = _core.mpc_classify(b, threads)
            if labels is not None:
                if start - offset + b.shape[0] > labels.shape[0]:
                    raise ValueError(f"labels must have one entry per block, got {labels.shape[0]} for more blocks")
                group = labels[start - offset : start - offset + b.shape[0]]
            yield start, b, group, special < 0
            start += b.shape[0]
    if labels is not None and start - offset != labels.shape[0]:
        raise ValueError(f"labels must have one entry per block ({start - offset}), got {labels.shape[0]}")


def check_train_options(zeros: str, quantiser: str, weight: str, max_blocks: Any) -> Optional[int]:
    check_choice("zeros", zeros, ZEROS)
    check_choice("quantiser", quantiser, QUANTISERS)
    check_choice("weight", weight, WEIGHTS)
    return None if max_blocks is None else check_int("max_blocks", max_blocks, 1)


def _stats_of(
    b: np.ndarray, group: np.ndarray, keep: np.ndarray, start: int, opts: tuple, threads: Optional[int]
) -> TrainStats:
    """Pass 1's partial over 32 B blocks ``b`` (global index of the first: ``start``)."""
    zeros, quantiser, seed, max_blocks = opts
    counts = [0] * _NGROUPS
    groups: list = [None] * _NGROUPS
    samples: list = [None] * (_NGROUPS + 1)
    keys = _keys(seed, np.arange(start, start + b.shape[0], dtype=np.uint64)) if max_blocks else None
    for g in range(_NGROUPS):
        m = keep & (group == g)
        if not m.any():
            continue
        counts[g] = int(m.sum())
        if keys is not None:
            samples[g] = _bottom(None, keys[m], b[m], cast(int, max_blocks))
        else:
            groups[g] = module_stats(b[m], zeros=zeros, quantiser=quantiser, threads=threads)
    if keys is not None and keep.any():
        samples[_NGROUPS] = _bottom(None, keys[keep], b[keep], cast(int, max_blocks))
    return TrainStats(opts, tuple(counts), int((~keep).sum()), tuple(groups), tuple(samples))


def _check_labels_option(name: str, labels: Any) -> Optional[np.ndarray]:
    return check_labels(labels, None)


class _KeptLabels:
    """Pass 1's labels of each chunk (by first block and count), kept in this process for pass 2
    of the same run, so pass 2 does not classify every sector again: at most :data:`LABELS_KEPT`
    bytes (2 per sector: 8 GiB of sectors); beyond that, or where the passes run in other
    processes (Dask), pass 2 classifies again, with the same result."""

    def __init__(self) -> None:
        self.chunks: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}
        self.nbytes = 0

    def keep(self, first: int, group: np.ndarray, keep: np.ndarray) -> None:
        size = int(group.nbytes + keep.nbytes)
        if self.nbytes + size <= LABELS_KEPT:
            self.chunks[(first, int(keep.shape[0]))] = (group, keep)
            self.nbytes += size

    def take(self, first: int, n: int) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        got = self.chunks.pop((first, n), None)
        if got is not None:
            self.nbytes -= int(got[0].nbytes + got[1].nbytes)
        return got


#: Sectors per run of the training sample (``fit_bytes``): 128 KiB read and trained on together.
SAMPLE_RUN = 4096
#: The command line's ``--fit-bytes``: train-mpc trains on at most 256 MiB of sectors (on the
#: benchmarks' 1 GiB, the model's CR on held-out dumps within 0.1 % of one trained on every
#: sector, in 40 % of the time: tests/benchmarks/mpc_sample_quality.py).
FIT_BYTES_MPC = 256 << 20


def sampled_before(g: int, stride: int) -> int:
    """Sectors before global index ``g`` in the training sample: those of runs 0, stride, 2 stride, ..."""
    runs, rest = divmod(g, SAMPLE_RUN)
    return SAMPLE_RUN * (-(-runs // stride)) + (rest if runs % stride == 0 else 0)


#: Bytes of pass-1 labels kept for pass 2 (:class:`_KeptLabels`).
LABELS_KEPT = 512 << 20
_KEPT: "weakref.WeakKeyDictionary[TrainMPC, _KeptLabels]" = weakref.WeakKeyDictionary()


class TrainMPC(Analysis):
    """MPC's training (P3 §3), pass 1: per group (:data:`GROUPS`, from ``labels`` or
    :func:`guess_dtype`) the ratio buckets and byte values (:class:`TrainStats`), or with
    ``max_blocks`` a bottom-k sample keyed by ``seed`` and the sector's index. :meth:`then` is pass
    2 (:class:`TrainScans`), whose result is the model. Datasets pool into one model, in 32 B
    sectors; ``sha256`` records the digest of the bytes read (in order: one part on Dask)."""

    name = "train-mpc"
    summary = "train MPC's five per-type modules on 32 B sectors (P3 §3)"
    per_dataset = False
    unit_bytes = 32
    tabular = False  # its result is a model
    OPTIONS = (
        Option(
            "labels", None, Any_(fn=_check_labels_option, bad_values=([7],)), "a group 0..4 per 32 B sector", flag=""
        ),
        Option("zeros", "buckets", Choice(ZEROS), "how all-zero bytes count in the ratio buckets"),
        Option("quantiser", "floor", Choice(QUANTISERS), "ratio quantiser"),
        Option("weight", "mean", Choice(WEIGHTS), "edge weights of the MST"),
        # the command line's --seed (of the bundled sample too)
        Option("seed", 0, Int(0, (1 << 64) - 1), "key of the bottom-k sample (with max_blocks)", flag=""),
        Option("max_blocks", None, Int(1, none=True), "cap the training sectors per group (one pass)"),
        Option(
            "fit_bytes",
            None,
            Int(SAMPLE_RUN * 32, none=True),
            "train on runs of 4096 sectors evenly spread over the data, at most this many bytes of them "
            "(none: every sector)",
            cli_default=FIT_BYTES_MPC,
        ),
        Option("sha256", False, Bool(), "record the SHA-256 of the bytes read", flag=""),
    )

    def check(self) -> None:
        if self["fit_bytes"] is not None and (self["labels"] is not None or self["max_blocks"] is not None):
            raise ValueError("fit_bytes samples the sectors itself: give it without labels and max_blocks")

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "TrainMPC":
        if n_blocks is not None:
            check_labels(self["labels"], n_blocks)
        fit = self["fit_bytes"]
        self._sectors = n_blocks  # every sector read (None: a stream, trained on whole)
        self._stride = 1 if fit is None or n_blocks is None else max(1, -(-32 * n_blocks // fit))
        return self

    @property
    def stride(self) -> int:
        """1 in this many runs of :data:`SAMPLE_RUN` sectors is trained on (1: every sector)."""
        return getattr(self, "_stride", 1)

    def sample(self, chunk: np.ndarray, first: int) -> Tuple[np.ndarray, int]:
        """The sectors of ``chunk`` (global index of its first: ``first``) in the training sample,
        and the index of the first of them among the sample's sectors."""
        s = self.stride
        if s == 1:
            return chunk, first
        end = first + int(chunk.shape[0])
        r0 = -(-(first // SAMPLE_RUN) // s) * s  # the first sampled run at or after the chunk's
        parts = [
            chunk[max(r * SAMPLE_RUN, first) - first : min((r + 1) * SAMPLE_RUN, end) - first]
            for r in range(r0, -(-end // SAMPLE_RUN), s)
        ]
        kept = chunk[:0] if not parts else parts[0] if len(parts) == 1 else np.concatenate(parts)
        return kept, sampled_before(first, s)

    def splittable(self, block_bytes: int) -> bool:
        return not self["sha256"]

    def start(self) -> Any:
        _KEPT[self] = _KeptLabels()  # a new run: no labels of an earlier one
        return hashlib.sha256() if self["sha256"] else None

    def _opts(self) -> tuple:
        return (self["zeros"], self["quantiser"], int(self["seed"]), self["max_blocks"])

    def _groups(self, b: np.ndarray, first: int, threads: Optional[int]) -> Tuple[np.ndarray, np.ndarray]:
        group, special = _core.mpc_classify(b, threads)
        labels = self["labels"]
        if labels is not None:
            if first + b.shape[0] > labels.shape[0]:
                raise ValueError(f"labels must have one entry per block, got {labels.shape[0]} for more blocks")
            group = labels[first : first + b.shape[0]]
        return group, special < 0  # special: MPC classes 0 and 1 (all-zero, all words equal), dropped

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple[TrainStats, Any]:
        if carry is not None:
            carry.update(np.ascontiguousarray(chunk))
        chunk, first = self.sample(chunk, first)
        group, keep = self._groups(chunk, first, threads)
        if self["max_blocks"] is None and self in _KEPT:  # (a bottom-k sample has no pass 2)
            _KEPT[self].keep(first, group, keep)
        return _stats_of(chunk, group, keep, first, self._opts(), threads), carry

    def close(self, carry: Any) -> Optional[TrainStats]:
        if carry is None:
            return None
        empty = (None,) * _NGROUPS
        return TrainStats(self._opts(), (0,) * _NGROUPS, 0, empty, empty + (None,), carry.hexdigest())

    def then(self, total: TrainStats) -> Optional["TrainScans"]:
        labels = self["labels"]
        if labels is not None and sum(total.counts) + total.dropped_special != labels.shape[0]:
            n = sum(total.counts) + total.dropped_special
            raise ValueError(f"labels must have one entry per block ({n}), got {labels.shape[0]}")
        if self["max_blocks"] is not None:
            return None
        return TrainScans(self, total, train_predictors(total, self["weight"]))

    def finish(self, total: TrainStats, source: Dict[str, Any]) -> MPCModel:
        return _with_source(train_from_stats(total, weight=self["weight"]), self, total, source)


class TrainScans(Analysis):
    """MPC's training, pass 2: per group the residue-cell zero counts under the predictor pass 1
    made (index 5: all kept sectors under the fallback's); its result is the model."""

    name = "train-mpc-scans"
    per_dataset = False
    unit_bytes = 32
    tabular = False  # its result is a model

    def __init__(self, pass1: TrainMPC, stats: TrainStats, predictors: list) -> None:
        super().__init__()
        self.pass1, self.stats, self.predictors = pass1, stats, predictors

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple[np.ndarray, Any]:
        chunk, first = self.pass1.sample(chunk, first)
        kept = _KEPT.get(self.pass1)
        labels = kept.take(first, int(chunk.shape[0])) if kept is not None else None
        group, keep = labels if labels is not None else self.pass1._groups(chunk, first, threads)
        out = np.zeros((_NGROUPS + 1, 257, 256), np.uint64)
        for g, pred in enumerate(self.predictors):
            if pred is not None:
                m = keep if g == _NGROUPS else keep & (group == g)
                if m.any():
                    out[g] += scan_counts(chunk[m], pred, threads=threads)
        return out, carry

    def finish(self, total: np.ndarray, source: Dict[str, Any]) -> MPCModel:
        model = train_from_stats(self.stats, self.predictors, total, weight=self.pass1["weight"])
        return _with_source(model, self.pass1, self.stats, source)


def _with_source(model: MPCModel, a: TrainMPC, stats: TrainStats, source: Dict[str, Any]) -> MPCModel:
    labels = "given" if a["labels"] is not None else "guess_dtype"
    nbytes = 32 * (sum(stats.counts) + stats.dropped_special)  # every sector trained on
    sample = None
    if a.stride > 1:  # (a stride above 1 comes with the sector count)
        read = 32 * cast(int, a._sectors)
        sample = f"runs of {SAMPLE_RUN} sectors, 1 in {a.stride} ({nbytes} B of {read} B read)"
        nbytes = read
    return model.with_source(
        source.get("datasets", [source]),
        labels=labels,
        sha256=stats.sha256,
        described=True,
        nbytes=nbytes,
        sample=sample,
    )


def train_stats(
    blocks: Any,
    labels: Union[None, Sequence[int], np.ndarray] = None,
    *,
    zeros: str = "buckets",
    quantiser: str = "floor",
    seed: int = 0,
    max_blocks: Optional[int] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    offset: int = 0,
    digest: Any = None,
) -> TrainStats:
    """Pass 1 of :func:`train` over ``blocks`` (whose first 32 B sector has global index
    ``offset``); ``digest`` (a hashlib object) is updated with every byte read, in order."""
    check_train_options(zeros, quantiser, "mean", max_blocks)
    offset = check_int("offset", offset, 0)
    if digest is not None and not callable(getattr(digest, "update", None)):
        raise TypeError(f"digest must be a hashlib object (e.g. hashlib.sha256()), got {type(digest).__name__}")
    a = TrainMPC(labels=labels, zeros=zeros, quantiser=quantiser, seed=seed, max_blocks=max_blocks)
    data = _pooled(blocks)
    a.resolve(32, data.n_blocks)
    return fold(a, data, digest, first=offset, threads=threads, chunk_blocks=chunk_blocks)[0]


def _check_stats(stats: Any) -> None:
    if not isinstance(stats, TrainStats):
        raise TypeError(f"stats must be the TrainStats of train_stats(), got {type(stats).__name__}")


def train_predictors(stats: TrainStats, weight: str = "mean") -> list:
    """The predictor of each group (None for an empty one) and, last, the fallback's (None if no
    group is empty), from merged pass-1 statistics."""
    _check_stats(stats)
    check_choice("weight", weight, WEIGHTS)
    if stats.options[3] is not None:
        raise ValueError("with max_blocks, train from the samples (train_from_stats)")
    if not any(stats.counts):
        raise ValueError("no training blocks: every block is all-zero or all-words-same (MPC classes 0 and 1)")
    preds = [None if g is None else g.predictor(weight) for g in stats.groups]
    fallback = None
    if any(p is None for p in preds):
        fallback = _sum_present(stats.groups).predictor(weight)
    return preds + [fallback]


def _sum_present(parts: Sequence[Optional[ModuleStats]]) -> ModuleStats:
    present = [p for p in parts if p is not None]
    total = present[0]
    for p in present[1:]:
        total = total + p
    return total


def train_scans(
    blocks: Any,
    predictors: Sequence[Optional[Mapping[str, Any]]],
    labels: Union[None, Sequence[int], np.ndarray] = None,
    *,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
    offset: int = 0,
) -> np.ndarray:
    """Pass 2 of :func:`train`: (6, 257, 256) residue-cell zero counts per group under its
    predictor (index 5: all kept blocks under the fallback's), mergeable by addition."""
    offset = check_int("offset", offset, 0)
    data = _pooled(blocks)
    a = TrainScans(TrainMPC(labels=labels).resolve(32, data.n_blocks), None, list(predictors))  # type: ignore[arg-type]
    return fold(a, data, None, first=offset, threads=threads, chunk_blocks=chunk_blocks)[0]


def _pooled(blocks: Any) -> Pooled:
    """The training sources as one dataset of 32 B sectors: arrays must be (n, 32) uint8 blocks,
    Dumps are read as their sectors."""
    sources = [_blocks32(s) if isinstance(s, np.ndarray) else s for s in _sources(blocks)]
    for s in sources:
        if not isinstance(s, np.ndarray) and not (hasattr(s, "chunks") and hasattr(s, "block_bytes")):
            raise TypeError(
                f"training data must be an (n, 32) uint8 ndarray or a memcomp Dump (or a list of them), "
                f"got {type(s).__name__}"
            )
    return Pooled(sources, 32)


def train_from_stats(
    stats: TrainStats,
    predictors: Optional[Sequence[Any]] = None,
    scans: Optional[np.ndarray] = None,
    *,
    weight: str = "mean",
    threads: Optional[int] = None,
) -> MPCModel:
    """The model from merged partials: ``stats`` alone with ``max_blocks`` (modules trained on the
    samples), else ``stats`` with :func:`train_predictors` and the merged :func:`train_scans`."""
    _check_stats(stats)
    zeros, quantiser, seed, max_blocks = stats.options
    if not any(stats.counts):
        raise ValueError("no training blocks: every block is all-zero or all-words-same (MPC classes 0 and 1)")
    kw: Dict[str, Any] = dict(zeros=zeros, quantiser=quantiser, weight=weight, threads=threads)
    modules: list = []
    info: Dict[str, Any] = {
        "groups": {},
        "options": dict(zeros=zeros, quantiser=quantiser, weight=weight, seed=seed, max_blocks=max_blocks),
    }
    fallback: Optional[Dict[str, Any]] = None
    for g, name in enumerate(GROUPS):
        cls = 2 + g
        if max_blocks is not None:
            sample = stats.samples[g] if stats.counts[g] else stats.samples[_NGROUPS]
            assert sample is not None  # sampled statistics keep a sample wherever they counted blocks
            if not stats.counts[g] and fallback is None:
                fallback = train_module(sample[1], cls, **kw)
            m = train_module(sample[1], cls, **kw) if stats.counts[g] else dict(cast(dict, fallback), **{"class": cls})
        else:  # full statistics come with the predictors and scans they were trained with
            assert predictors is not None and scans is not None
            k = g if stats.counts[g] else _NGROUPS
            m = _module(cls, predictors[k], scans[k])
        modules.append(m)
        info["groups"][name] = {"class": cls, "blocks": int(stats.counts[g]), "fallback": stats.counts[g] == 0}
    info["dropped_special"] = int(stats.dropped_special)
    data = {"format": FORMAT, "codec": "mpc", "version": MODEL_VERSION, "modules": modules}
    provenance = training_provenance(
        "memcomp.mpc.train",
        info["options"],
        blocks=sum(stats.counts),
        dropped_special=info["dropped_special"],
        groups=info["groups"],
    )
    return MPCModel(Model(data, provenance=provenance), info)


def train(
    blocks,
    labels: Union[None, Sequence[int], np.ndarray] = None,
    *,
    zeros: str = "buckets",
    quantiser: str = "floor",
    weight: str = "mean",
    threads: Optional[int] = None,
    seed: int = 0,
    max_blocks: Optional[int] = None,
    fit_bytes: Optional[int] = None,
    chunk_blocks: int = 1 << 18,
) -> MPCModel:
    """Trains the five modules of classes 2..6 (groups :data:`GROUPS`) on 32 B ``blocks``: an
    array, a Dump (read as its 32 B sectors) or a list of them (a multi-file dump), streamed in
    chunks.

    Blocks of MPC classes 0 and 1 are dropped; the rest are grouped by ``labels`` (ints 0..4 per
    block, over all sources in order) or :func:`guess_dtype`. ``max_blocks`` caps the blocks per
    group to a bottom-k sample keyed by ``seed`` and the block's index (one pass; the only way to
    train on a pipe, which is read once; a compressed file is decompressed twice). ``fit_bytes``
    trains on runs of :data:`SAMPLE_RUN` sectors, 1 run in every ``ceil(data bytes / fit_bytes)``,
    by their index in the data (every byte is still read, and hashed); ``memcomp train-mpc`` does
    so by default (:data:`FIT_BYTES_MPC`). Groups without blocks get the module trained on all
    kept blocks (``info["groups"][g]["fallback"]``). ``mpc.extract.cal22`` is
    ``quantiser="round", zeros="as_one", weight="cal22"``.
    """
    max_blocks = check_train_options(zeros, quantiser, weight, max_blocks)
    seed = check_int("seed", seed, 0, (1 << 64) - 1)
    if max_blocks is None:  # two passes: a pipe is refused before the first
        for s in _sources(blocks):
            if hasattr(s, "again"):
                try:
                    s.again()
                except ValueError as e:
                    raise ValueError(f"{e}, or pass max_blocks=N to train on a bounded sample in one pass") from None
    a = TrainMPC(
        labels=labels,
        zeros=zeros,
        quantiser=quantiser,
        weight=weight,
        seed=seed,
        max_blocks=max_blocks,
        fit_bytes=fit_bytes,
        sha256=True,
    )
    return run(a, _pooled(blocks), threads=threads, chunk_blocks=chunk_blocks)
