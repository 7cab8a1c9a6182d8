"""SLC, MAG-aware selective lossy compression (P4 = Lal, Lucas & Juurlink, DATE'19; SPEC 1.11).

When E2MC compresses a block to a few bytes above a multiple of the memory access granularity
(MAG), a whole further burst is fetched for those bytes (P4 §II-B). SLC drops the codes of a
short run of symbols so the block fits the MAG multiple below, and predicts them on decode. The
codec itself is ``get_codec("slc", ...)`` (presets ``slc.opt`` ★, ``slc.pred``, ``slc.simp``),
a real encoder and decoder on the E2MC machinery; this module adds what a study needs:

* :func:`compress` -- approximated blocks and a report: raw CR, effective CR at MAG before (E2MC)
  and after (SLC), bandwidth saved, lossy blocks (and those that saved no burst against E2MC),
  truncated symbols and their code bits, quality metrics, the training used;
* :func:`sweep` -- the same over thresholds x MAGs x variants, as one long-form table, streamed;
* :func:`quality` -- P4's MRE, NRMSE and PSNR, and robust metrics beside them (the relative error
  with a floor and its percentiles, NRMSE by the std, sign flips, non-finite outputs), between
  original and approximated data read as a dtype, with a :class:`MetricWarning` when one of P4's
  is dominated by tiny or huge originals; :func:`effect` -- the error an approximation causes in a
  computation (a matrix product, an inference function) on the data.

The MAG analysis the paper starts from (its Figs. 1 and 2) works for any codec:
:func:`memcomp.mag_study`.
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ._common import (
    MemcompWarning,
    ProgressArg,
    block_bytes_of,
    check_float,
    check_int,
    in_memory,
    provenance,
    source_of,
    whole,
)
from .analysis.base import Analysis, Any_, Choice, Int, IntList, Option
from .analysis.run import run
from .codecs import Codec, Encoded, Sizes, get_codec

if TYPE_CHECKING:
    import pandas

__all__ = [
    "BUDGETS",
    "REL_FLOOR_SHARE",
    "VARIANTS",
    "MetricWarning",
    "SLCResult",
    "as_values",
    "compress",
    "effect",
    "quality",
    "sweep",
]

#: TSLC variants (P4 §V): truncated symbols decoded as 0, predicted, predicted with extra nodes.
VARIANTS = ("simp", "pred", "opt")
_TYPES: Dict[str, Any] = {
    "float32": np.float32,
    "float16": np.float16,
    "float64": np.float64,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
}


def _dtype_name(dtype: Any) -> str:
    if isinstance(dtype, str) and dtype in ("bfloat16", "bf16"):
        return "bfloat16"
    try:
        name = np.dtype(dtype).name
    except TypeError as e:  # a str that names no dtype is a bad value, anything else a wrong type
        err = ValueError if isinstance(dtype, str) else TypeError
        raise err(f"dtype must be one of {sorted(_TYPES) + ['bfloat16']}, got {dtype!r}") from e
    if name not in _TYPES:
        raise ValueError(f"dtype must be one of {sorted(_TYPES) + ['bfloat16']}, got {name}")
    return name


def _itemsize(name: str) -> int:
    return 2 if name == "bfloat16" else np.dtype(_TYPES[name]).itemsize


def as_values(blocks: np.ndarray, dtype: Any = np.float32) -> np.ndarray:
    """The elements of ``blocks`` (an ``(n, B)`` uint8 array) read as ``dtype`` (little-endian;
    ``"bfloat16"`` is the top half of a float32), as float64, shape ``(n, B / itemsize)``."""
    if not isinstance(blocks, np.ndarray) or blocks.dtype != np.uint8 or blocks.ndim != 2:
        raise TypeError("blocks must be an (n, B) uint8 array; use memcomp.as_blocks(array, block_bytes)")
    name = _dtype_name(dtype)
    size = _itemsize(name)
    if blocks.shape[1] % size:
        raise ValueError(f"a {name} element ({size} B) does not divide the {blocks.shape[1]} B block")
    b = np.ascontiguousarray(blocks)
    with np.errstate(invalid="ignore", over="ignore"):
        if name == "bfloat16":
            return (b.view("<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return b.view(np.dtype(_TYPES[name]).newbyteorder("<")).astype(np.float64)


class MetricWarning(MemcompWarning):
    """A quality metric of a report is dominated by a few elements: P4's MRE by originals below the
    floor, the range-normalised NRMSE and PSNR by a range far above the originals' std. The message
    names the robust metric to read instead."""


#: The relative error's default floor, as a share of the median |original| over the finite non-zero
#: originals of the blocks the model is fitted on: |a - o| / max(|o|, floor) stays finite and
#: meaningful for tiny and zero originals. A median, not an RMS, so a few huge values (34 above 1e3
#: in an OCR network's weights) do not lift the floor over the typical values.
REL_FLOOR_SHARE = 1e-3
#: Percentiles of the relative error come from a log histogram: a float64 binned by its exponent
#: and top 10 mantissa bits (sparse, so partials merge exactly); a reported percentile is its bin's
#: lower edge, at most 2**-10 (0.1 %) below the exact one (exact for 1, 0.5, 2, ...).
_HIST_SHIFT = 52 - 10
_INF_KEY = 0x7FF0000000000000 >> _HIST_SHIFT
#: Above this ratio of the originals' range to their std, range-normalised metrics warn.
_RANGE_OVER_STD = 100.0
#: Percentiles reported (rel_err_p50, ...).
_PERCENTILES = (50, 90, 99)


def _floor_of(magnitudes: Sequence[np.ndarray], dname: str) -> float:
    """REL_FLOOR_SHARE x the median of ``magnitudes`` (arrays of |v| over finite non-zero values);
    without any, the dtype's smallest normal (1 for integers)."""
    v = np.concatenate(magnitudes) if len(magnitudes) else np.zeros(0)
    if v.size:
        return REL_FLOOR_SHARE * float(np.median(v))
    return 1.0 if dname.startswith(("int", "uint")) else float(np.finfo(_TYPES.get(dname, np.float32)).tiny)


def _magnitudes(values: np.ndarray, dname: str) -> np.ndarray:
    """|v| over the finite non-zero ``values`` (float64), as float32 where that is exact."""
    v = np.abs(values[np.isfinite(values) & (values != 0)])
    return v.astype(np.float32) if dname not in ("float64", "int32", "uint32") else v


def _default_floor(sample: np.ndarray, dname: str) -> float:
    """The default floor from the blocks a model is fitted on (``(n, B)`` uint8), read in chunks."""
    step = 1 << 16
    return _floor_of(
        [_magnitudes(as_values(sample[i : i + step], dname).ravel(), dname) for i in range(0, len(sample), step)], dname
    )


@dataclass
class _Quality:
    """The mergeable partial of the error metrics (exact sums, counts, extremes and the relative
    error's log histogram over changed elements), for one floor."""

    values: int = 0  # finite originals
    nonzero: int = 0  # ... of them non-zero (MRE's denominator)
    changed: int = 0
    sign_flips: int = 0
    nonfinite: int = 0  # non-finite outputs from finite originals
    rel: Any = None  # ExactSum of |e| / |o| over o != 0 (P4's MRE)
    rel_tiny: Any = None  # ... its part from 0 < |o| < floor
    rel_floored: Any = None  # ExactSum of |e| / max(|o|, floor)
    sq: Any = None  # ExactSum of e**2
    s1: Any = None  # ExactSum of o
    s2: Any = None  # ExactSum of o**2
    lo: float = math.inf  # the originals' range
    hi: float = -math.inf
    max_abs: float = 0.0
    max_rel: float = 0.0  # max |e| / max(|o|, floor)
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # histogram bins (sorted)
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def of(cls, o: np.ndarray, a: np.ndarray, floor: float) -> "_Quality":
        """From originals ``o`` and approximations ``a`` (float64; non-finite originals left out)."""
        from ._common import ExactSum

        keep = np.isfinite(o)
        o, a = o[keep], a[keep]
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.where(np.isfinite(a), a - o, np.inf)
            ae, ao = np.abs(err), np.abs(o)
            nz = o != 0
            rel = ae[nz] / ao[nz]
            floored = ae / np.maximum(ao, floor)
        ch = err != 0
        keys, counts = np.unique(floored[ch].view(np.int64) >> _HIST_SHIFT, return_counts=True)
        return cls(
            values=int(o.size),
            nonzero=int(nz.sum()),
            changed=int(ch.sum()),
            sign_flips=int(np.count_nonzero(((o > 0) & (a < 0)) | ((o < 0) & (a > 0)))),
            nonfinite=int(np.count_nonzero(~np.isfinite(a))),
            rel=ExactSum(rel),
            rel_tiny=ExactSum(rel[ao[nz] < floor]),
            rel_floored=ExactSum(floored),
            sq=ExactSum(err * err),
            s1=ExactSum(o),
            s2=ExactSum(o * o),
            lo=float(o.min()) if o.size else math.inf,
            hi=float(o.max()) if o.size else -math.inf,
            max_abs=float(ae.max()) if o.size else 0.0,
            max_rel=float(floored.max()) if o.size else 0.0,
            keys=keys.astype(np.int64),
            counts=counts.astype(np.int64),
        )

    def __add__(self, other: "_Quality") -> "_Quality":
        def add(a, b):
            return b if a is None else a if b is None else a + b

        keys, inv = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        counts = np.bincount(inv, weights=np.concatenate([self.counts, other.counts]), minlength=keys.size)
        sums = ("rel", "rel_tiny", "rel_floored", "sq", "s1", "s2")
        ints = ("values", "nonzero", "changed", "sign_flips", "nonfinite")
        return _Quality(
            **{f: getattr(self, f) + getattr(other, f) for f in ints},
            **{f: add(getattr(self, f), getattr(other, f)) for f in sums},
            lo=min(self.lo, other.lo),
            hi=max(self.hi, other.hi),
            max_abs=max(self.max_abs, other.max_abs),
            max_rel=max(self.max_rel, other.max_rel),
            keys=keys.astype(np.int64),
            counts=counts.astype(np.int64),
        )

    def _percentile(self, p: int) -> float:
        """The p-th percentile (inverted CDF) of the floored relative error over changed elements:
        the lower edge of its histogram bin (0.0 when nothing changed)."""
        total = int(self.counts.sum())
        if total == 0:
            return 0.0
        rank = max(1, -(-p * total // 100))
        k = int(self.keys[int(np.searchsorted(np.cumsum(self.counts), rank))])
        return math.inf if k >= _INF_KEY else float(np.array([k << _HIST_SHIFT], np.int64).view(np.float64)[0])

    def _std(self) -> float:
        """The originals' (population) std from the exact sums, rounded once."""
        n, s1, s2 = self.values, self.s1, self.s2
        if not math.isfinite(s2.value()) or not math.isfinite(s1.value()):
            return math.inf
        var = (n * s2.fraction() - s1.fraction() ** 2) / (n * n)
        return math.sqrt(float(var)) if var > 0 else 0.0

    def report(self, dname: str, floor: float, peak: Optional[float] = None) -> "tuple[Dict[str, Any], list]":
        """(the metrics, [(kind, warning text)]); see :func:`quality`."""
        out: Dict[str, Any] = {
            "mre": 0.0,
            "nrmse": 0.0,
            "psnr": math.inf,
            "max_abs_error": 0.0,
            "changed": 0.0,
            "mre_floored": 0.0,
            **{f"rel_err_p{p}": 0.0 for p in _PERCENTILES},
            "rel_err_max": 0.0,
            "nrmse_std": 0.0,
            "sign_flips": self.sign_flips,
            "nonfinite": self.nonfinite,
            "rel_floor": floor,
        }
        if self.values == 0:
            return out, []
        mse = self.sq.value() / self.values
        rng = self.hi - self.lo
        std = self._std()
        if peak is None:
            peak = (
                float(np.iinfo(_TYPES[dname]).max - np.iinfo(_TYPES[dname]).min)
                if dname.startswith(("int", "uint"))
                else rng
            )
        rel_sum = self.rel.value()

        def normalised(scale: float) -> float:
            return math.sqrt(mse) / scale if scale > 0 else (0.0 if mse == 0 else math.inf)

        out.update(
            mre=rel_sum / self.nonzero if self.nonzero else 0.0,
            nrmse=normalised(rng),
            psnr=math.inf
            if mse == 0
            else (10 * math.log10(peak * peak / mse) if peak > 0 and math.isfinite(mse) else -math.inf),
            max_abs_error=self.max_abs,
            changed=self.changed / self.values,
            mre_floored=self.rel_floored.value() / self.values,
            **{f"rel_err_p{p}": self._percentile(p) for p in _PERCENTILES},
            rel_err_max=self.max_rel,
            nrmse_std=normalised(std),
        )
        warns = []
        tiny = self.rel_tiny.value()
        if self.changed and rel_sum > 0 and tiny > 0.5 * rel_sum:
            warns.append(
                (
                    "mre",
                    f"mre ({out['mre']:.3g}) is dominated by tiny originals: {tiny / rel_sum:.1%} of its sum comes "
                    f"from elements with |original| < {floor:.3g} (the floor); read mre_floored "
                    f"({out['mre_floored']:.3g}) or rel_err_p50/p99 instead",
                )
            )
        if self.changed and std > 0 and rng > _RANGE_OVER_STD * std:
            warns.append(
                (
                    "range",
                    f"nrmse and psnr are normalised by the originals' range ({rng:.3g}), {rng / std:.3g} x their std "
                    f"(a few huge values); read nrmse_std ({out['nrmse_std']:.3g}) instead",
                )
            )
        return out, warns


def _warn(warns: list, stacklevel: int = 3) -> None:
    for _, text in warns:
        warnings.warn(text, MetricWarning, stacklevel=stacklevel)


def quality(
    original: np.ndarray,
    approximated: np.ndarray,
    dtype: Any = np.float32,
    *,
    peak: Optional[float] = None,
    rel_floor: Optional[float] = None,
) -> Dict[str, float]:
    """Error of ``approximated`` against ``original`` (both ``(n, B)`` uint8 blocks) read as
    ``dtype``; non-finite originals are left out, a non-finite output counts as an infinite error.

    P4's metrics (§IV-B): ``mre`` the mean relative error |a - o| / |o| over o != 0, ``nrmse`` the
    RMS error over the originals' range, ``psnr`` in dB against ``peak`` (default: the dtype's range
    for integers, the data's range for floats; inf when equal); ``max_abs_error``; ``changed`` the
    share of elements that differ. Robust ones: ``mre_floored`` the mean of |a - o| / max(|o|,
    floor) over all elements, ``rel_err_p50``/``p90``/``p99`` its percentiles over the changed
    elements (0 when none changed; from a log histogram, at most 0.1 % below the exact value) and
    ``rel_err_max``; ``nrmse_std`` the RMS error over the originals' std; ``sign_flips`` elements
    whose sign flipped, ``nonfinite`` non-finite outputs from finite originals (counts);
    ``rel_floor`` the floor used: ``rel_floor``, default :data:`REL_FLOOR_SHARE` x the median
    |original| (finite, non-zero). Warns (:class:`MetricWarning`) when over half of MRE's sum comes from originals below the
    floor, or when the range is over 100 x the std."""
    from ._common import check_float

    if not isinstance(original, np.ndarray) or not isinstance(approximated, np.ndarray):
        raise TypeError("original and approximated must be (n, B) uint8 arrays")
    if original.shape != approximated.shape:
        raise ValueError(f"original {original.shape} and approximated {approximated.shape} differ in shape")
    name = _dtype_name(dtype)
    o, a = as_values(original, name).ravel(), as_values(approximated, name).ravel()
    floor = (
        _floor_of([_magnitudes(o, name)], name)
        if rel_floor is None
        else check_float("rel_floor", rel_floor, 0, lo_open=True)
    )
    out, warns = _Quality.of(o, a, floor).report(name, floor, peak)
    _warn(warns)
    return out


def effect(
    fn: Callable[[np.ndarray], Any],
    original: np.ndarray,
    approximated: np.ndarray,
    dtype: Any = np.float32,
    shape: Optional[Sequence[int]] = None,
) -> Dict[str, float]:
    """The error the approximation causes in a computation: ``fn`` is called on the original and
    on the approximated data, each as a ``dtype`` array (reshaped to ``shape`` if given; bfloat16
    comes as float32), and the outputs are compared: ``mre``, ``nrmse``, ``max_abs_error`` and
    ``argmax_agreement`` (share of rows whose argmax is unchanged, for class scores)."""
    name = _dtype_name(dtype)

    def typed(b):
        v = as_values(b, name)
        x = v.astype(np.float32) if name == "bfloat16" else v.astype(_TYPES[name])
        return x.reshape(shape) if shape is not None else x.reshape(-1)

    y0 = np.asarray(fn(typed(original)), dtype=np.float64)
    y1 = np.asarray(fn(typed(approximated)), dtype=np.float64)
    if y0.shape != y1.shape:
        raise ValueError(f"fn returned shapes {y0.shape} and {y1.shape} for the two inputs")
    err = y1 - y0
    nz = y0 != 0
    rng = float(y0.max() - y0.min()) if y0.size else 0.0
    rmse = math.sqrt(float(np.mean(err * err))) if y0.size else 0.0
    rows = y0.reshape(y0.shape[0], -1) if y0.ndim > 1 else y0.reshape(1, -1)
    rows1 = y1.reshape(rows.shape)
    return {
        "mre": float(np.mean(np.abs(err[nz]) / np.abs(y0[nz]))) if nz.any() else 0.0,
        "nrmse": rmse / rng if rng > 0 else (0.0 if rmse == 0 else math.inf),
        "max_abs_error": float(np.max(np.abs(err))) if err.size else 0.0,
        "argmax_agreement": float(np.mean(rows.argmax(axis=1) == rows1.argmax(axis=1))) if rows.size else 1.0,
    }


@dataclass
class SLCResult:
    """What :func:`compress` returns: the approximated blocks, the codecs, their per-block sizes,
    the encoded stream and the report (a dict; :meth:`to_frame` gives one row)."""

    blocks: np.ndarray
    codec: Codec
    baseline: Codec
    sizes: Sizes
    lossless: Sizes
    encoded: Encoded
    report: Dict[str, Any]

    def to_frame(self) -> "pandas.DataFrame":
        import pandas as pd

        return pd.DataFrame([self.report])


#: What the SLC budget decision counts as the lossless size (SPEC 1.11, Revised "lossy only for a
#: gain"): "gain" (default) SLC's lossless stream, lossy only when the budget is fewer bursts than
#: E2MC takes for the block; "stream" the same without that check; "codes" P4 §III-C's sum of the
#: code lengths, the block charged what its stream then takes.
BUDGETS = ("gain", "stream", "codes")


def _lossy_fields(enc: Encoded, sizes: Sizes, symbol_bits: int) -> np.ndarray:
    """(ss, len) of every block's SLC header (len 0 for blocks not lossy)."""
    B = enc.block_bytes
    ss_bits = max(0, math.ceil(math.log2(8 * B // symbol_bits)))
    out = np.zeros((enc.n_blocks, 2), np.int64)
    for i in np.flatnonzero(sizes.mode == 2):
        head = int.from_bytes(enc.block_stream(int(i))[:4].ljust(4, b"\0"), "big")
        out[i] = ((head >> (31 - ss_bits)) & ((1 << ss_bits) - 1), ((head >> (27 - ss_bits)) & 0xF) + 1)
    return out


def _check_study(
    B: int, mags: Iterable[Any], dtype: Any, budget: str, predict: str, training: str, name: str = "mag"
) -> tuple:
    """Validated MAGs (the argument ``name``) and dtype name of a study of B-byte blocks."""
    out = []
    for m in mags:
        m = check_int(name, m, 1, 4096)
        if B % m:
            raise ValueError(
                f"{name}: MAG {m} B does not divide the {B} B block; pass {name} from "
                f"{[x for x in (8, 16, 32, 64, 128) if B % x == 0]}"
            )
        out.append(m)
    dname = _dtype_name(dtype)
    if B % _itemsize(dname):
        raise ValueError(f"a {dname} element ({_itemsize(dname)} B) does not divide the {B} B block")
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {BUDGETS}, got {budget!r}")
    if predict not in ("word", "symbol"):
        raise ValueError(f"predict must be 'word' or 'symbol', got {predict!r}")
    if training not in ("offline", "online"):
        raise ValueError(f"training must be 'offline' or 'online', got {training!r}")
    return out, dname


def _train(blocks, model, training, window, symbol_bits, pdw, threads, *, bounded: bool) -> tuple:
    """(model, training label, blocks that travel raw first, the blocks the model is fitted on or
    None for a given model). ``training="offline"`` fits on every block (``bounded``: on
    :func:`memcomp._common.fit_sample`'s sample, labelled as it says); ``"online"`` on the first
    ``window`` blocks (default 10 %), which then travel uncompressed in both codecs (P1 §III-B2b,
    P4 §IV-A)."""
    from ._common import fit_sample, n_blocks_of

    if model is not None:
        if training == "online" or window is not None:
            raise ValueError(
                "training='online' and window fit the model on the first blocks: pass model=None to train online"
            )
        return (model.model if isinstance(model, Codec) else model), "given", 0, None
    n = n_blocks_of(blocks)
    if training == "online":
        if window is None:
            if n is None:
                raise ValueError("training='online' on a stream needs window (the blocks to fit on)")
            window = math.ceil(0.1 * n)
        else:
            window = check_int("window", window, 1, n)
        if isinstance(blocks, np.ndarray):
            sample = blocks[:window]
        elif hasattr(blocks, "head"):
            sample = blocks.head(window * block_bytes_of(blocks))
        elif hasattr(blocks, "read_blocks"):  # a Dump: read from the file, never from its map
            sample = blocks.read_blocks(0, window)
        else:
            sample = whole(blocks)[:window]
        how, skip = f"online({window})", window
    else:
        if window is not None:
            raise ValueError("window is the online training's sample: pass training='online' with it")
        sample, how = fit_sample(blocks) if bounded else (in_memory(blocks), "offline")
        skip = 0
    fitted = None
    if len(sample):  # no blocks: nothing to fit on, and nothing to compress
        fitted = get_codec("e2mc", symbol_bits=symbol_bits, pdw=pdw).fit(sample, threads=threads).model
    return fitted, how, skip, sample


def compress(
    blocks,
    model=None,
    threshold_bytes: int = 16,
    mag: int = 32,
    variant: str = "opt",
    dtype: Any = np.float32,
    *,
    approximable: Optional[np.ndarray] = None,
    symbol_bits: int = 16,
    pdw: int = 4,
    budget: str = "gain",
    predict: str = "word",
    training: str = "offline",
    window: Optional[int] = None,
    rel_floor: Optional[float] = None,
    threads: Optional[int] = None,
) -> SLCResult:
    """Compresses ``blocks`` (``(n, B)`` uint8, or a Dump) with SLC and reports what it gained
    and cost against lossless E2MC with the same model.

    ``model``: an E2MC model (a :class:`~memcomp.Model`, its dict, or a fitted E2MC/SLC codec);
    None fits one on the blocks: ``training="offline"`` on all of them (P1's best case),
    ``"online"`` on the first ``window`` blocks (default 10 %), which then travel uncompressed in
    both codecs (P1 §III-B2b; P4 §IV-A's baseline). ``approximable``: per-block bool mask (default
    all; P4 §IV-C's safe-to-approximate regions). ``budget`` (:data:`BUDGETS`) and ``predict``
    are the codec's options (SPEC 1.11). ``dtype`` reads the data for the quality metrics, whose
    relative error is floored at ``rel_floor`` (default :data:`REL_FLOOR_SHARE` x the median
    |original| of the blocks the model is fitted on, or of ``offline``'s for a given model).

    The report's columns (one row, as :func:`sweep`'s): ``cr_e2mc`` E2MC's raw CR (8B / in-band
    bits) at its format MAG of 32 B, the same for every studied MAG (P4 §V-C: raw CR "does not
    depend on MAG"); ``cr_slc`` SLC's raw CR at the studied MAG and threshold; ``cr_mag_e2mc`` and
    ``cr_mag_slc`` the CR at MAG (every block charged whole bursts of ``mag`` bytes) of E2MC
    configured with ``mag`` (its raw rule at that MAG) and of SLC; ``cr_mag_gain`` = cr_mag_slc /
    cr_mag_e2mc - 1; ``bandwidth_saved`` = 1 - SLC's bytes at MAG / E2MC's (P4 §V-B);
    ``lossy_blocks`` the count of blocks stored lossy and ``lossy_share`` their share of the blocks;
    ``lossy_no_gain`` the count of lossy blocks
    that take no fewer bursts than E2MC (0 under budget "gain"); ``lossless_more_bursts`` the count
    of blocks SLC keeps exact that take more bursts than E2MC (SLC's 32-bit header against E2MC's
    21 bits); ``truncated_symbols`` and ``truncated_bits`` (the code bits of the truncated symbols);
    the metrics of :func:`quality`; ``training`` (given, offline or online(W)), ``budget``,
    ``predict``, ``variant``, ``threshold_bytes``, ``dtype``."""
    from ._common import fit_sample

    arr = in_memory(blocks)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise TypeError("blocks must be an (n, B) uint8 array or a Dump; use memcomp.as_blocks(array, block_bytes)")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    threshold_bytes = check_int("threshold_bytes", threshold_bytes, 0, 256)
    (mag,), dname = _check_study(arr.shape[1], (mag,), dtype, budget, predict, training)
    floor = None if rel_floor is None else check_float("rel_floor", rel_floor, 0, lo_open=True)
    n = arr.shape[0]
    model, how, skip, sample = _train(arr, model, training, window, symbol_bits, pdw, threads, bounded=False)
    if floor is None:
        floor = _default_floor(fit_sample(arr)[0] if sample is None else sample, dname)
    opts = dict(symbol_bits=symbol_bits, pdw=pdw, model=model)
    base = get_codec("e2mc", mag=mag, **opts)
    slc = get_codec(
        "slc", variant=variant, threshold_bytes=threshold_bytes, mag=mag, budget=budget, predict=predict, **opts
    )
    mask = np.ones(n, bool) if approximable is None else np.asarray(approximable)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(
            f"approximable must be a bool array with one entry per block ({n}), got {mask.dtype} of shape {mask.shape}"
        )
    if skip:
        mask = mask.copy()
        mask[:skip] = False
    given = mask if slc.lossy else None  # threshold 0: SLC is E2MC, nothing to mark
    enc = slc.encode(arr, threads=threads, approximable=given)
    approx = slc.decode(enc, threads=threads)
    sizes = slc.measure(arr, threads=threads, approximable=given)
    lossless = base.measure(arr, threads=threads)
    refs = _references(arr, opts, {mag: lossless}, threads)
    st = _SweepStats.of(arr, approx, enc, sizes, lossless, *refs, skip, mag, dname, floor, symbol_bits)
    report, warns = st.report(arr.shape[1], mag, dname, floor)
    _warn(warns)
    report.update(source_of(blocks))
    report.update(provenance(slc.get_config()))
    report.update(
        variant=variant,
        threshold_bytes=threshold_bytes,
        budget=budget,
        predict=predict,
        training=how,
        dtype=dname,
    )
    return SLCResult(approx, slc, base, sizes, lossless, enc, report)


def _references(chunk, opts, lossless, threads) -> Tuple[Sizes, Sizes]:
    """E2MC's sizes at its format MAG (raw CR, P4 §V-C) and its payload without pointers or raw
    mode, one segment: the code bits of every symbol (truncated_bits)."""
    e2mc = get_codec("e2mc", **opts)  # at its format MAG, 32 B (SPEC 1.10), as mag_study measures it
    m = e2mc.options["mag"]
    fmt = lossless[m] if m in lossless else e2mc.measure(chunk, threads=threads)
    codes = get_codec("e2mc", **{**opts, "pdw": 1, "raw": False}).measure(chunk, threads=threads)
    return fmt, codes


def _bursts(bits: np.ndarray, B: int, mag: int, skip: int) -> np.ndarray:
    """MAG bursts each block takes (blocks before `skip` travel raw)."""
    b = np.asarray(bits, np.int64)
    out = np.minimum(np.maximum(1, -(-b // (8 * mag))), B // mag)
    out[:skip] = B // mag
    return out


def _ratio(a: float, b: float) -> float:
    """a / b; NaN for 0 / 0 (no blocks)."""
    return a / b if b else (math.nan if a == 0 else math.inf)


def _check_thresholds(name: str, value: Any) -> Any:
    if isinstance(value, str):
        if value != "half":
            raise ValueError(f"{name} must be byte counts or 'half' (half of each MAG), got {value!r}")
        return value
    if isinstance(value, bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of byte counts such as (8, 16), or 'half', got {value!r}")
    return tuple(check_int(name, t, 0, 256) for t in value)


def _check_variants(name: str, value: Any) -> Tuple[str, ...]:
    if not isinstance(value, (str, Iterable)):
        raise TypeError(f"{name} must be variant names from {VARIANTS}, got {value!r}")
    vs = (value,) if isinstance(value, str) else tuple(value)
    for v in vs:
        if v not in VARIANTS:
            raise ValueError(f"{name}: a variant must be one of {VARIANTS}, got {v!r}")
    return vs


def _check_mags(name: str, value: Any) -> Tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"mags must be a sequence of MAGs in bytes such as (16, 32), got {value!r}")
    return tuple(check_int(name, m, 1, 4096) for m in value)


def _check_mask(name: str, value: Any) -> Optional[np.ndarray]:
    if value is None:
        return None
    mask = np.asarray(value)
    if mask.dtype != bool or mask.ndim != 1:
        raise ValueError(
            f"{name} must be a bool array with one entry per block, got {mask.dtype} of shape {mask.shape}"
        )
    return mask


def _thresholds_text(text: str) -> Any:
    """The command line's thresholds: comma-separated byte counts, or ``half``."""
    return "half" if text.strip().lower() == "half" else IntList().parse(text)


def _split(text: str) -> List[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


class Sweep(Analysis):
    """SLC against E2MC per (MAG, threshold, variant) (P4 §V-C): the rows of :func:`sweep`. Each
    row's partial is :class:`_SweepStats` (integer totals, exact error sums, log histograms)."""

    name = "slc"
    summary = "SLC's bandwidth gain and error per threshold, MAG and variant (P4 §V-C)"
    OPTIONS = (
        Option(
            "thresholds",
            (0, 8, 16, 32),
            Any_(
                fn=_check_thresholds,
                reader=_thresholds_text,
                bad_values=("quarter", (-1,), (257,)),
                label="B,B,..|half",
            ),
            "lossy thresholds in bytes, or 'half': half of each MAG, as P4 §V-C pairs them",
            cli_default=(16,),
        ),
        Option(
            "mags",
            (16, 32, 64),
            Any_(fn=_check_mags, reader=IntList().parse, bad_values=(32, (0,), ("32",)), label="MAG,MAG,..."),
            "MAGs in bytes",
            cli_default=(32,),
        ),
        Option(
            "variants",
            VARIANTS,
            Any_(fn=_check_variants, reader=_split, bad_values=(("fast",), 3), label="NAME,NAME,..."),
            "TSLC variants: simp, pred, opt",
        ),
        Option(
            "dtype",
            "float32",
            Any_(fn=lambda name, v: _dtype_name(v) and v, bad_values=("complex64",), label="DTYPE"),
            "element type of the data for the error metrics",
        ),
        Option("model", None, Any_(), "an E2MC model or codec (default: fitted, see training)", flag=""),
        Option("symbol_bits", 16, Int(choices=(4, 8, 16, 32)), "E2MC's symbol length in bits"),
        Option("pdw", 4, Int(1, 16), "E2MC's parallel decoding ways"),
        Option(
            "budget",
            "gain",
            Choice(BUDGETS),
            "when a block goes lossy: gain (only for a burst saved against E2MC), stream (SLC's own stream, "
            "its longer header included, above a MAG multiple) or codes (P4 §III-C: the sum of the code lengths)",
        ),
        Option(
            "predict",
            "word",
            Choice(("word", "symbol")),
            "pred/opt's prediction: the first kept 32-bit word, or P4's first kept symbol",
        ),
        Option(
            "approximable",
            None,
            Any_(fn=_check_mask, bad_values=(np.zeros(3, np.int8),)),
            "bool per block: may it be approximated",
            flag="",
        ),
        Option(
            "training",
            "offline",
            Choice(("offline", "online")),
            "E2MC's model: fitted on the data (offline), or on the first --window blocks, which then travel "
            "raw (online, P1 §III-B2b; P4's baseline)",
        ),
        Option("window", None, Int(1, none=True), "online training's blocks (default: 10 % of a file)"),
        Option(
            "rel_floor",
            None,
            Any_(
                fn=lambda name, v: None if v is None else check_float(name, v, 0, lo_open=True),
                reader=float,
                bad_values=(0.0, -1.0, "x"),
                label="X",
            ),
            "the relative error's floor, |a - o| / max(|o|, floor) (default: 1e-3 x the median |original|)",
        ),
    )
    summary_columns = (
        "dataset",
        "mag",
        "threshold_bytes",
        "variant",
        "cr_mag_e2mc",
        "cr_mag_slc",
        "cr_mag_gain",
        "bandwidth_saved",
        "lossy_share",
        "lossy_no_gain",
        "mre",
        "mre_floored",
        "rel_err_p99",
        "nrmse",
        "nrmse_std",
        "sign_flips",
        "psnr",
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # set by resolve (the block size's study) and prepare (the model, floor and codecs)
        self._B, self._dname = 0, "float32"
        self._n: Optional[int] = None
        self._window: Optional[int] = None
        self._configs: List[Tuple[int, int, str]] = []
        self._how, self._skip, self._floor = "", 0, 0.0
        self._opts: Dict[str, Any] = {}
        self._bases: Dict[int, Codec] = {}
        self._slcs: List[Codec] = []

    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "Sweep":
        mags, dname = _check_study(
            block_bytes, self["mags"], self["dtype"], self["budget"], self["predict"], self["training"], "mags"
        )
        out = copy.copy(self)
        out._B, out._n, out._dname = block_bytes, n_blocks, dname
        out._configs = [
            (m, t, v)
            for m in mags
            for t in ([m // 2] if self["thresholds"] == "half" else self["thresholds"])
            for v in self["variants"]
        ]
        mask = self["approximable"]
        if mask is not None and n_blocks is not None and mask.shape[0] != n_blocks:
            raise ValueError(
                f"approximable must be a bool array with one entry per block ({n_blocks}), got "
                f"{mask.dtype} of shape {mask.shape}"
            )
        model, training, window = self["model"], self["training"], self["window"]
        if model is not None and (training == "online" or window is not None):
            raise ValueError(
                "training='online' and window fit the model on the first blocks: pass model=None to train online"
            )
        if training == "online":
            if window is None:
                if n_blocks is None:
                    raise ValueError("training='online' on a stream needs window (the blocks to fit on)")
                window = math.ceil(0.1 * n_blocks)
            elif n_blocks is not None:
                window = check_int("window", window, 1, n_blocks)
        elif window is not None:
            raise ValueError("window is the online training's sample: pass training='online' with it")
        out._window = window
        return out

    def samples(self) -> Any:
        if self["model"] is not None and self["rel_floor"] is not None:
            return None  # nothing to fit, and the floor is given
        return self._window if self["training"] == "online" else "fit"

    def prepare(self, sample: Optional[tuple], threads: Optional[int] = None) -> "Sweep":
        out = copy.copy(self)
        model, symbol_bits, pdw = self["model"], self["symbol_bits"], self["pdw"]
        blocks = None if sample is None else sample[0]
        if model is not None:
            fitted, how, skip = (model.model if isinstance(model, Codec) else model), "given", 0
        else:
            assert sample is not None and blocks is not None  # samples() asks for one
            skip = int(self._window or 0) if self["training"] == "online" else 0
            fitted, how = None, f"online({skip})" if skip else str(sample[1])
            if len(blocks):  # no blocks: nothing to fit on, and nothing to compress
                fitted = get_codec("e2mc", symbol_bits=symbol_bits, pdw=pdw).fit(blocks, threads=threads).model
        out._how, out._skip = how, skip
        floor = self["rel_floor"]
        if floor is None:
            assert blocks is not None  # samples() asks for one when the floor is not given
            floor = _default_floor(blocks, self._dname)
        out._floor = floor
        opts = dict(symbol_bits=symbol_bits, pdw=pdw, model=fitted)
        out._opts = opts
        out._bases = {m: get_codec("e2mc", mag=m, **opts) for m in {c[0] for c in self._configs}}
        out._slcs = [
            get_codec(
                "slc", variant=v, threshold_bytes=t, mag=m, budget=self["budget"], predict=self["predict"], **opts
            )
            for m, t, v in self._configs
        ]
        return out

    def partial(
        self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]
    ) -> Tuple[List["_SweepStats"], Any]:
        n, mask = int(chunk.shape[0]), self["approximable"]
        if n == 0:
            return [_SweepStats() for _ in self._configs], carry
        if mask is not None and first + n > mask.shape[0]:
            raise ValueError(f"approximable must have one entry per block, got {mask.shape[0]} for more blocks")
        raw = min(max(self._skip - first, 0), n)  # blocks of the online window in this chunk
        given = None
        if mask is not None or raw:
            given = np.ones(n, bool) if mask is None else mask[first : first + n].copy()
            given[:raw] = False
        # E2MC and SLC are stateless: every chunk is measured on its own
        lossless = {m: c.measure(chunk, threads=threads) for m, c in self._bases.items()}
        refs = _references(chunk, self._opts, lossless, threads)
        parts = []
        for (m, _, _), codec in zip(self._configs, self._slcs):
            g = given if codec.lossy else None
            enc = codec.encode(chunk, threads=threads, approximable=g)
            approx = codec.decode(enc, threads=threads)
            sizes = codec.measure(chunk, threads=threads, approximable=g)
            parts.append(
                _SweepStats.of(
                    chunk, approx, enc, sizes, lossless[m], *refs, raw, m, self._dname, self._floor, self["symbol_bits"]
                )
            )
        return parts, carry

    def merge(self, a: List["_SweepStats"], b: List["_SweepStats"]) -> List["_SweepStats"]:
        return [x + y for x, y in zip(a, b)]

    def finish(self, total: List["_SweepStats"], source: Dict[str, Any]) -> "pandas.DataFrame":
        import pandas as pd

        mask, done = self["approximable"], sum(st.blocks for st in total[:1])
        if mask is not None and total and done != mask.shape[0]:
            raise ValueError(f"approximable must have one entry per block ({done}), got {mask.shape[0]}")
        rows: List[Dict[str, Any]] = []
        flagged: Dict[str, Any] = {}
        how = self._how
        for (m, t, v), codec, st in zip(self._configs, self._slcs, total):
            r, warns = st.report(self._B, m, self._dname, self._floor)
            for kind, text in warns:
                flagged.setdefault(kind, [text, []])[1].append(f"MAG {m} threshold {t} {v}")
            r.update(source)
            r.update(provenance(codec.get_config()))
            r.update(
                variant=v,
                threshold_bytes=t,
                budget=self["budget"],
                predict=self["predict"],
                training=how,
                dtype=self._dname,
                model=how,
            )
            rows.append(r)
        for text, which in flagged.values():
            warnings.warn(f"{text} (rows: {'; '.join(which)})", MetricWarning, stacklevel=4)
        return pd.DataFrame(rows)


def sweep(
    blocks,
    thresholds: Iterable[int] = (0, 8, 16, 32),
    mags: Iterable[int] = (16, 32, 64),
    variants: Iterable[str] = VARIANTS,
    dtype: Any = np.float32,
    *,
    model=None,
    symbol_bits: int = 16,
    pdw: int = 4,
    budget: str = "gain",
    predict: str = "word",
    approximable: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 16,
    training: str = "offline",
    window: Optional[int] = None,
    rel_floor: Optional[float] = None,
    progress: ProgressArg = None,
) -> "pandas.DataFrame":
    """:func:`compress`'s report over every (MAG, threshold, variant): one row each (long form,
    the same columns). P4 §V-C pairs each MAG with a threshold of half of it, ``thresholds="half"``
    does the same.

    ``blocks`` is an ``(n, B)`` uint8 array, a Dump or a stream (:func:`memcomp.open_dump`), read
    once in chunks of ``chunk_blocks`` blocks: the report's totals, extremes, exact error sums
    (:class:`memcomp._common.ExactSum`) and relative-error histograms are mergeable partials, so
    memory stays a few chunks and the chunk size never changes a number. The E2MC model (it does
    not depend on MAG or the threshold) is ``model``, or fitted once: ``training="offline"`` on at
    most 64 MiB of the blocks, ``"online"`` on the first ``window`` blocks (default 10 %; a stream
    needs it), which then travel raw in both codecs (P1 §III-B2b, P4 §IV-A). The ``training``
    column says which: ``given``, ``offline``, ``sample(64 MiB)``, ``head(64 MiB)`` (as in
    :func:`memcomp.compare`) or ``online(W)``; ``model`` repeats it for older scripts. The default
    ``rel_floor`` comes from the blocks the model is fitted on (those of ``offline`` for a given
    model). :class:`MetricWarning` is raised once per kind, naming the rows it concerns."""
    if isinstance(blocks, np.ndarray) and (blocks.ndim != 2 or blocks.dtype != np.uint8):
        raise TypeError("blocks must be an (n, B) uint8 array or a Dump; use memcomp.as_blocks(array, block_bytes)")
    a = Sweep(
        thresholds=thresholds,
        mags=mags,
        variants=variants,
        dtype=dtype,
        model=model,
        symbol_bits=symbol_bits,
        pdw=pdw,
        budget=budget,
        predict=predict,
        approximable=approximable,
        training=training,
        window=window,
        rel_floor=rel_floor,
    )
    return run(a, blocks, threads=threads, chunk_blocks=chunk_blocks, progress=progress)


@dataclass
class _SweepStats:
    """The mergeable partial of one report row (:func:`compress`, a :func:`sweep` row): integer
    totals and the error metrics' partial."""

    blocks: int = 0
    bits_e2mc: int = 0  # E2MC's in-band bits at its format MAG (raw CR)
    bits_slc: int = 0
    charged_e2mc: int = 0  # bytes at the studied MAG
    charged_slc: int = 0
    lossy: int = 0
    lossy_no_gain: int = 0
    lossless_more_bursts: int = 0
    truncated_symbols: int = 0
    truncated_bits: int = 0
    quality: _Quality = field(default_factory=_Quality)

    @classmethod
    def of(
        cls,
        chunk: np.ndarray,
        approx: np.ndarray,
        enc: Encoded,
        sizes: Sizes,
        lossless: Sizes,
        fmt: Sizes,
        codes: Sizes,
        skip: int,
        mag: int,
        dname: str,
        floor: float,
        symbol_bits: int,
    ) -> "_SweepStats":
        """From SLC's ``sizes``, stream and decoded blocks, E2MC's ``lossless`` sizes at the studied
        MAG and ``fmt`` at its format MAG, and ``codes`` (every symbol's code bits as payload); the
        first ``skip`` blocks travel raw (online training's window)."""
        B = chunk.shape[1]

        def total(s: Sizes) -> int:
            b = s.size_bits.astype(np.int64)
            b[:skip] = 8 * B
            return int(b.sum())

        be, bs = _bursts(lossless.size_bits, B, mag, skip), _bursts(sizes.size_bits, B, mag, skip)
        lossy = sizes.mode == 2
        kept = codes.payload_bits.astype(np.int64) - sizes.payload_bits.astype(np.int64)
        return cls(
            blocks=int(chunk.shape[0]),
            bits_e2mc=total(fmt),
            bits_slc=total(sizes),
            charged_e2mc=int(be.sum()) * mag,
            charged_slc=int(bs.sum()) * mag,
            lossy=int(lossy.sum()),
            lossy_no_gain=int(np.count_nonzero(lossy & (bs >= be))),
            lossless_more_bursts=int(np.count_nonzero(~lossy & (bs > be))),
            truncated_symbols=int(_lossy_fields(enc, sizes, symbol_bits)[:, 1].sum()),
            truncated_bits=int(kept[lossy].sum()),
            quality=_Quality.of(as_values(chunk, dname).ravel(), as_values(approx, dname).ravel(), floor),
        )

    def __add__(self, other: "_SweepStats") -> "_SweepStats":
        return _SweepStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def report(self, B: int, mag: int, dname: str, floor: float) -> "tuple[Dict[str, Any], list]":
        """(the report row, [(kind, warning text)]): see :func:`compress`."""
        n, raw_bytes = self.blocks, self.blocks * B
        before, after = self.charged_e2mc, self.charged_slc
        out: Dict[str, Any] = {
            "blocks": n,
            "block_bytes": B,
            "mag": mag,
            "cr_e2mc": _ratio(8 * raw_bytes, max(self.bits_e2mc, 1) if n else 0),
            "cr_slc": _ratio(8 * raw_bytes, max(self.bits_slc, 1) if n else 0),
            "cr_mag_e2mc": _ratio(raw_bytes, before),
            "cr_mag_slc": _ratio(raw_bytes, after),
            "cr_mag_gain": _ratio(before, after) - 1,
            "bandwidth_saved": 1 - _ratio(after, before),
            "lossy_blocks": self.lossy,
            "lossy_share": self.lossy / n if n else 0.0,
            "lossy_no_gain": self.lossy_no_gain,
            "lossless_more_bursts": self.lossless_more_bursts,
            "truncated_symbols": self.truncated_symbols,
            "truncated_bits": self.truncated_bits,
        }
        metrics, warns = self.quality.report(dname, floor)
        out.update(metrics)
        return out, warns
