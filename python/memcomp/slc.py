"""SLC, MAG-aware selective lossy compression (P4 = Lal, Lucas & Juurlink, DATE'19; SPEC 1.11).

When E2MC compresses a block to a few bytes above a multiple of the memory access granularity
(MAG), a whole further burst is fetched for those bytes (P4 §II-B). SLC drops the codes of a
short run of symbols so the block fits the MAG multiple below, and predicts them on decode. The
codec itself is ``get_codec("slc", ...)`` (presets ``slc.opt`` ★, ``slc.pred``, ``slc.simp``),
a real encoder and decoder on the E2MC machinery; this module adds what a study needs:

* :func:`compress` -- approximated blocks and a report: raw CR, effective CR at MAG before (E2MC)
  and after (SLC), bandwidth saved, lossy blocks, truncated symbols and bits, quality metrics;
* :func:`sweep` -- the same over thresholds x MAGs x variants, as one long-form table;
* :func:`quality` -- MRE, NRMSE, PSNR and max |error| between original and approximated data read
  as a dtype; :func:`effect` -- the error an approximation causes in a computation (a matrix
  product, an inference function) on the data.

The MAG analysis the paper starts from (its Figs. 1 and 2) works for any codec:
:func:`memcomp.mag_study`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Optional, Sequence

import numpy as np

from ._common import check_int, provenance, source_of, whole
from .codecs import Codec, Encoded, Sizes, get_codec

if TYPE_CHECKING:
    import pandas

__all__ = ["VARIANTS", "SLCResult", "as_values", "compress", "effect", "quality", "sweep"]

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


def quality(
    original: np.ndarray, approximated: np.ndarray, dtype: Any = np.float32, *, peak: Optional[float] = None
) -> Dict[str, float]:
    """Error of ``approximated`` against ``original`` (both ``(n, B)`` uint8 blocks), read as
    ``dtype``: ``mre`` the mean relative error |a - o| / |o| over elements with o != 0 (P4's MRE),
    ``nrmse`` the RMS error over the range of the original, ``psnr`` in dB against ``peak`` (default:
    the dtype's range for integers, the data's range for floats; inf when equal), ``max_abs_error``,
    ``changed`` the share of elements that differ. Non-finite originals are left out."""
    if not isinstance(original, np.ndarray) or not isinstance(approximated, np.ndarray):
        raise TypeError("original and approximated must be (n, B) uint8 arrays")
    if original.shape != approximated.shape:
        raise ValueError(f"original {original.shape} and approximated {approximated.shape} differ in shape")
    o, a = as_values(original, dtype).ravel(), as_values(approximated, dtype).ravel()
    keep = np.isfinite(o)
    o, a = o[keep], a[keep]
    if o.size == 0:
        return {"mre": 0.0, "nrmse": 0.0, "psnr": math.inf, "max_abs_error": 0.0, "changed": 0.0}
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(np.isfinite(a), a - o, np.inf)
    nz = o != 0
    mre = float(np.mean(np.abs(err[nz]) / np.abs(o[nz]))) if nz.any() else 0.0
    with np.errstate(over="ignore"):
        mse = float(np.mean(err * err))
    rng = float(o.max() - o.min())
    name = _dtype_name(dtype)
    if peak is None:
        peak = (
            float(np.iinfo(_TYPES[name]).max - np.iinfo(_TYPES[name]).min) if name.startswith(("int", "uint")) else rng
        )
    return {
        "mre": mre,
        "nrmse": math.sqrt(mse) / rng if rng > 0 else (0.0 if mse == 0 else math.inf),
        "psnr": math.inf
        if mse == 0
        else (10 * math.log10(peak * peak / mse) if peak > 0 and math.isfinite(mse) else -math.inf),
        "max_abs_error": float(np.max(np.abs(err))),
        "changed": float(np.mean(err != 0)),
    }


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


def _lossy_fields(enc: Encoded, sizes: Sizes, symbol_bits: int) -> np.ndarray:
    """(ss, len) of every block's SLC header (len 0 for blocks not lossy)."""
    B = enc.block_bytes
    ss_bits = max(0, math.ceil(math.log2(8 * B // symbol_bits)))
    out = np.zeros((enc.n_blocks, 2), np.int64)
    for i in np.flatnonzero(sizes.mode == 2):
        head = int.from_bytes(enc.block_stream(int(i))[:4].ljust(4, b"\0"), "big")
        out[i] = ((head >> (31 - ss_bits)) & ((1 << ss_bits) - 1), ((head >> (27 - ss_bits)) & 0xF) + 1)
    return out


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
    training: str = "offline",
    window: Optional[int] = None,
    threads: Optional[int] = None,
) -> SLCResult:
    """Compresses ``blocks`` (``(n, B)`` uint8, or a Dump) with SLC and reports what it gained
    and cost against lossless E2MC with the same model.

    ``model``: an E2MC model (a :class:`~memcomp.Model`, its dict, or a fitted E2MC/SLC codec);
    None fits one on the blocks: ``training="offline"`` on all of them (P1's best case),
    ``"online"`` on the first ``window`` blocks (default 10 %), which then travel uncompressed in
    both codecs (P1 §III-B2b). ``approximable``: per-block bool mask (default all; P4 §IV-C's
    safe-to-approximate regions). ``dtype`` reads the data for the quality metrics."""
    arr = whole(blocks)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise TypeError("blocks must be an (n, B) uint8 array or a Dump; use memcomp.as_blocks(array, block_bytes)")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    threshold_bytes = check_int("threshold_bytes", threshold_bytes, 0, 256)
    mag = check_int("mag", mag, 1, 4096)
    if arr.shape[1] % mag:
        raise ValueError(
            f"MAG {mag} B does not divide the {arr.shape[1]} B block; pass mag from "
            f"{[m for m in (8, 16, 32, 64, 128) if arr.shape[1] % m == 0]}"
        )
    dname = _dtype_name(dtype)
    if arr.shape[1] % _itemsize(dname):
        raise ValueError(f"a {dname} element ({_itemsize(dname)} B) does not divide the {arr.shape[1]} B block")
    if training not in ("offline", "online"):
        raise ValueError(f"training must be 'offline' or 'online', got {training!r}")
    n = arr.shape[0]
    skip = 0
    if model is None:
        if training == "online":
            skip = math.ceil(0.1 * n) if window is None else check_int("window", window, 1, n)
            sample = arr[:skip]
        else:
            sample = arr
        if n:  # no blocks: nothing to fit on, and nothing to compress
            model = get_codec("e2mc", symbol_bits=symbol_bits, pdw=pdw).fit(sample, threads=threads).model
    elif isinstance(model, Codec):
        model = model.model
    opts = dict(symbol_bits=symbol_bits, pdw=pdw, mag=mag, model=model)
    base = get_codec("e2mc", **opts)
    slc = get_codec("slc", variant=variant, threshold_bytes=threshold_bytes, **opts)
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
    report = _report(arr, sizes, lossless, enc, skip, mag, dname, approx, symbol_bits)
    report.update(source_of(blocks))
    report.update(provenance(slc.get_config()))
    report.update(variant=variant, threshold_bytes=threshold_bytes, training=training, dtype=dname)
    return SLCResult(approx, slc, base, sizes, lossless, enc, report)


def _charged(bits: np.ndarray, B: int, mag: int, skip: int) -> int:
    """Bytes fetched at MAG (blocks before `skip` travel raw)."""
    b = np.asarray(bits, np.int64)
    bursts = np.minimum(np.maximum(1, -(-b // (8 * mag))), B // mag)
    bytes_ = bursts * mag
    bytes_[:skip] = B
    return int(bytes_.sum())


def _ratio(a: float, b: float) -> float:
    """a / b; NaN for 0 / 0 (no blocks)."""
    return a / b if b else (math.nan if a == 0 else math.inf)


def _report(arr, sizes, lossless, enc, skip, mag, dname, approx, symbol_bits) -> Dict[str, Any]:
    B, n = arr.shape[1], arr.shape[0]
    raw_bytes = n * B

    def total_bits(s):
        b = s.size_bits.astype(np.int64).copy()
        b[:skip] = 8 * B
        return int(b.sum())

    before, after = _charged(lossless.size_bits, B, mag, skip), _charged(sizes.size_bits, B, mag, skip)
    lossy = sizes.mode == 2
    fields = _lossy_fields(enc, sizes, symbol_bits)
    kept = lossless.payload_bits.astype(np.int64) - sizes.payload_bits.astype(np.int64)
    out = {
        "blocks": n,
        "block_bytes": B,
        "mag": mag,
        "cr_e2mc": _ratio(8 * raw_bytes, max(total_bits(lossless), 1) if n else 0),
        "cr_slc": _ratio(8 * raw_bytes, max(total_bits(sizes), 1) if n else 0),
        "cr_mag_e2mc": _ratio(raw_bytes, before),
        "cr_mag_slc": _ratio(raw_bytes, after),
        "cr_mag_gain": _ratio(before, after) - 1,
        "bandwidth_saved": 1 - _ratio(after, before),
        "lossy_blocks": float(lossy.mean()) if n else 0.0,
        "truncated_symbols": int(fields[:, 1].sum()),
        "truncated_bits": int(kept[lossy].sum()),
    }
    out.update(quality(arr, approx, dname))
    return out


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
    approximable: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    chunk_blocks: int = 1 << 16,
    training: str = "offline",
    window: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> "pandas.DataFrame":
    """:func:`compress`'s report over every (MAG, threshold, variant): one row each (long form).
    P4 §V-C pairs each MAG with a threshold of half of it, ``thresholds="half"`` does the same.

    ``blocks`` is an ``(n, B)`` uint8 array, a Dump or a stream (:func:`memcomp.open_dump`), read
    once in chunks of ``chunk_blocks`` blocks: the report's totals, extremes and error sums
    (summed exactly, :class:`memcomp._common.ExactSum`) are mergeable partials, so memory stays a
    few chunks and the chunk size never changes a number. The E2MC model (it does not depend on
    MAG or the threshold) is ``model``, or fitted once on at most 64 MiB of the blocks (the
    ``model`` column: ``given``, ``offline``, ``sample(64 MiB)`` or ``head(64 MiB)``, as in
    :func:`memcomp.compare`). ``training`` and ``window`` are recorded as :func:`compress` does
    with a given model. The error metrics match :func:`quality` up to float rounding."""
    import pandas as pd

    from ._common import block_bytes_of, check_chunk_blocks, chunks, fit_sample, n_blocks_of

    step = check_chunk_blocks(chunk_blocks)
    if isinstance(blocks, np.ndarray) and (blocks.ndim != 2 or blocks.dtype != np.uint8):
        raise TypeError("blocks must be an (n, B) uint8 array or a Dump; use memcomp.as_blocks(array, block_bytes)")
    B = block_bytes_of(blocks)
    configs = []
    for m in mags:
        m = check_int("mag", m, 1, 4096)
        if B % m:
            raise ValueError(
                f"MAG {m} B does not divide the {B} B block; pass mag from "
                f"{[x for x in (8, 16, 32, 64, 128) if B % x == 0]}"
            )
        ts = [m // 2] if isinstance(thresholds, str) and thresholds == "half" else list(thresholds)
        for t in ts:
            t = check_int("threshold_bytes", t, 0, 256)
            for v in variants:
                if v not in VARIANTS:
                    raise ValueError(f"variant must be one of {VARIANTS}, got {v!r}")
                configs.append((m, t, v))
    dname = _dtype_name(dtype)
    if B % _itemsize(dname):
        raise ValueError(f"a {dname} element ({_itemsize(dname)} B) does not divide the {B} B block")
    if training not in ("offline", "online"):
        raise ValueError(f"training must be 'offline' or 'online', got {training!r}")
    n_known = n_blocks_of(blocks)
    mask = None
    if approximable is not None:
        mask = np.asarray(approximable)
        if mask.dtype != bool or mask.ndim != 1 or (n_known is not None and mask.shape[0] != n_known):
            raise ValueError(
                f"approximable must be a bool array with one entry per block ({n_known}), got "
                f"{mask.dtype} of shape {mask.shape}"
            )
    if model is None:
        sample, how = fit_sample(blocks)
        if len(sample):  # an empty dump: nothing to fit on, and nothing to compress
            model = get_codec("e2mc", symbol_bits=symbol_bits, pdw=pdw).fit(sample, threads=threads).model
        del sample
    else:
        how = "given"
        if isinstance(model, Codec):
            model = model.model
    opts = dict(symbol_bits=symbol_bits, pdw=pdw, model=model)
    bases = {m: get_codec("e2mc", mag=m, **opts) for m in {c[0] for c in configs}}
    slcs = [get_codec("slc", variant=v, threshold_bytes=t, mag=m, **opts) for m, t, v in configs]
    parts = [_SweepStats() for _ in configs]
    done = 0
    for chunk in chunks(blocks, step):
        n = int(chunk.shape[0])
        if n == 0:
            continue
        if mask is not None and done + n > mask.shape[0]:
            raise ValueError(f"approximable must have one entry per block, got {mask.shape[0]} for more blocks")
        given = None if mask is None else mask[done : done + n]
        lossless = {m: c.measure(chunk, threads=threads, resume=done > 0) for m, c in bases.items()}
        for i, ((m, _, _), codec) in enumerate(zip(configs, slcs)):
            parts[i] = parts[i] + _SweepStats.of(
                chunk, codec, lossless[m], given if codec.lossy else None, m, dname, symbol_bits, done > 0, threads
            )
        done += n
        if progress is not None:
            progress(done, n_known if n_known is not None else done)
    if mask is not None and done != mask.shape[0]:
        raise ValueError(f"approximable must have one entry per block ({done}), got {mask.shape[0]}")
    source = source_of(blocks)
    rows = []
    for (m, t, v), codec, st in zip(configs, slcs, parts):
        r = st.report(B, m, dname)
        r.update(source)
        r.update(provenance(codec.get_config()))
        r.update(variant=v, threshold_bytes=t, training=training, dtype=dname, model=how)
        rows.append(r)
    return pd.DataFrame(rows)


@dataclass
class _SweepStats:
    """The mergeable partial of one :func:`sweep` row: integer totals, exact error sums, extremes."""

    blocks: int = 0
    bits_e2mc: int = 0
    bits_slc: int = 0
    charged_e2mc: int = 0
    charged_slc: int = 0
    lossy: int = 0
    truncated_symbols: int = 0
    truncated_bits: int = 0
    values: int = 0  # finite original elements
    nonzero: int = 0  # ... of them non-zero (MRE's denominator)
    rel: Any = None  # ExactSum of |error| / |original| over the non-zero ones
    sq: Any = None  # ExactSum of error**2
    lo: float = math.inf  # the originals' range
    hi: float = -math.inf
    max_abs: float = 0.0
    changed: int = 0

    @classmethod
    def of(
        cls,
        chunk: np.ndarray,
        codec: Codec,
        lossless: Sizes,
        given: Optional[np.ndarray],
        mag: int,
        dname: str,
        symbol_bits: int,
        resume: bool,
        threads: Optional[int],
    ) -> "_SweepStats":
        from ._common import ExactSum

        B = chunk.shape[1]
        enc = codec.encode(chunk, threads=threads, resume=resume, approximable=given)
        approx = codec.decode(enc, threads=threads)
        sizes = codec.measure(chunk, threads=threads, resume=resume, approximable=given)
        lossy = sizes.mode == 2
        fields = _lossy_fields(enc, sizes, symbol_bits)
        kept = lossless.payload_bits.astype(np.int64) - sizes.payload_bits.astype(np.int64)
        o, a = as_values(chunk, dname).ravel(), as_values(approx, dname).ravel()
        keep = np.isfinite(o)
        o, a = o[keep], a[keep]
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.where(np.isfinite(a), a - o, np.inf)
            nz = o != 0
            rel = np.abs(err[nz]) / np.abs(o[nz])
            sq = err * err
        return cls(
            blocks=int(chunk.shape[0]),
            bits_e2mc=int(lossless.size_bits.astype(np.int64).sum()),
            bits_slc=int(sizes.size_bits.astype(np.int64).sum()),
            charged_e2mc=_charged(lossless.size_bits, B, mag, 0),
            charged_slc=_charged(sizes.size_bits, B, mag, 0),
            lossy=int(lossy.sum()),
            truncated_symbols=int(fields[:, 1].sum()),
            truncated_bits=int(kept[lossy].sum()),
            values=int(o.size),
            nonzero=int(nz.sum()),
            rel=ExactSum(rel),
            sq=ExactSum(sq),
            lo=float(o.min()) if o.size else math.inf,
            hi=float(o.max()) if o.size else -math.inf,
            max_abs=float(np.max(np.abs(err))) if err.size else 0.0,
            changed=int(np.count_nonzero(err != 0)),
        )

    def __add__(self, other: "_SweepStats") -> "_SweepStats":
        def add(a, b):
            return b if a is None else a if b is None else a + b

        return _SweepStats(
            *(
                add(getattr(self, f), getattr(other, f))
                for f in (  # type: ignore[call-arg]
                    "blocks",
                    "bits_e2mc",
                    "bits_slc",
                    "charged_e2mc",
                    "charged_slc",
                    "lossy",
                    "truncated_symbols",
                    "truncated_bits",
                    "values",
                    "nonzero",
                    "rel",
                    "sq",
                )
            ),
            min(self.lo, other.lo),
            max(self.hi, other.hi),
            max(self.max_abs, other.max_abs),
            self.changed + other.changed,
        )

    def report(self, B: int, mag: int, dname: str) -> Dict[str, Any]:
        """The row :func:`compress` reports (same keys, same formulas)."""
        n, raw_bytes = self.blocks, self.blocks * B
        before, after = self.charged_e2mc, self.charged_slc
        out = {
            "blocks": n,
            "block_bytes": B,
            "mag": mag,
            "cr_e2mc": _ratio(8 * raw_bytes, max(self.bits_e2mc, 1) if n else 0),
            "cr_slc": _ratio(8 * raw_bytes, max(self.bits_slc, 1) if n else 0),
            "cr_mag_e2mc": _ratio(raw_bytes, before),
            "cr_mag_slc": _ratio(raw_bytes, after),
            "cr_mag_gain": _ratio(before, after) - 1,
            "bandwidth_saved": 1 - _ratio(after, before),
            "lossy_blocks": self.lossy / n if n else 0.0,
            "truncated_symbols": self.truncated_symbols,
            "truncated_bits": self.truncated_bits,
        }
        if self.values == 0:
            out.update(mre=0.0, nrmse=0.0, psnr=math.inf, max_abs_error=0.0, changed=0.0)
            return out
        mse = self.sq.value() / self.values
        rng = self.hi - self.lo
        peak = (
            float(np.iinfo(_TYPES[dname]).max - np.iinfo(_TYPES[dname]).min)
            if dname.startswith(("int", "uint"))
            else rng
        )
        out.update(
            mre=self.rel.value() / self.nonzero if self.nonzero else 0.0,
            nrmse=math.sqrt(mse) / rng if rng > 0 else (0.0 if mse == 0 else math.inf),
            psnr=math.inf
            if mse == 0
            else (10 * math.log10(peak * peak / mse) if peak > 0 and math.isfinite(mse) else -math.inf),
            max_abs_error=self.max_abs,
            changed=self.changed / self.values,
        )
        return out
