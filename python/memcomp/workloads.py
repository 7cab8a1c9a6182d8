"""Deterministic synthetic GPU memory contents, so examples run without data.

Each workload imitates a kind of buffer found in GPU memory dumps. All data
is little-endian and generated with ``np.random.default_rng`` (PCG64) seeded
with ``seed * 1000 + index`` (``index`` is the workload's position in
:data:`WORKLOADS`), so the same ``(name, n_bytes, seed)`` gives the same bytes
on every run.

==================  ========================================================
Workload            Contents
==================  ========================================================
fp32_activations    Post-ReLU CNN feature maps (NCHW, 32x32 float32 maps):
                    spatially smooth fields plus noise, per-channel bias and
                    scale, dead channels; about 60% exact zeros, no
                    negative values.
fp32_weights        He-initialised float32 layer weights: normal values with
                    std sqrt(2 / fan_in) and a per-output-channel scale.
int32_csr           CSR structure of a sparse graph (int32): a row-pointer
                    array (non-decreasing, starts at 0, ends at nnz) followed
                    by column indices, strictly increasing within each row,
                    mostly near the diagonal.
int32_indices       Gather/scatter index arrays (int32, all in [0, 2**20)):
                    Zipf-distributed embedding lookups, sorted scatter
                    targets, stencil neighbours, strided (transpose) gathers
                    and permutations of small ranges.
records             Array of 32-byte structs (:data:`RECORD_DTYPE`): int32
                    id (increasing), float32 x/y/z clustered positions,
                    uint16 flags from a few values, 6 zero padding bytes and
                    an increasing int64 nanosecond timestamp.
image_rgba          256x256 uint8 RGBA images in row-major order: smooth
                    colour gradients, low-frequency blobs, texture noise and
                    a constant alpha of 255.
fp16_tensor         Layer-normalised float16 activations (32x32 maps): a
                    smooth field plus noise with per-channel gain and bias,
                    zero-centred, |x| < 16.
zero_pages          4 KiB pages, about 70% entirely zero; the rest hold a
                    few (1 to 16) nonzero 32-bit words: small counters,
                    all-ones flags and random values.
==================  ========================================================

:func:`generate` returns one workload as bytes, :func:`generate_parts` the
typed arrays behind those bytes, :func:`sample` several workloads and
:func:`sample_dump` one mixed dump with the workloads interleaved in runs of
4 KiB pages, like a real memory dump.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Optional, Union

import numpy as np

__all__ = [
    "PAGE_BYTES",
    "RECORD_DTYPE",
    "MPC_GROUP",
    "WORKLOADS",
    "generate",
    "generate_parts",
    "sample",
    "sample_dump",
]

#: Page size used by ``zero_pages`` and by :func:`sample_dump`.
PAGE_BYTES = 4096

#: Sizes passed to :func:`generate` must be a multiple of this.
_GRANULE = 256

#: The struct used by the ``records`` workload (32 bytes, C layout).
RECORD_DTYPE = np.dtype(
    [
        ("id", "<i4"),
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("flags", "<u2"),
        ("pad", "u1", (6,)),
        ("timestamp", "<i8"),
    ]
)

Parts = dict[str, np.ndarray]


# --------------------------------------------------------------------------
# helpers


def _smooth_field(rng: np.random.Generator, n_maps: int, side: int, cell: int) -> np.ndarray:
    """Smooth noise of shape ``(n_maps, side, side)``, roughly unit scale.

    A coarse grid of normal values (one per ``cell`` pixels) is bilinearly
    upsampled; only additions and multiplications are used, so the result is
    bit-reproducible.
    """
    coarse_side = side // cell + 2
    coarse = rng.standard_normal((n_maps, coarse_side, coarse_side))
    pos = np.arange(side) / cell
    lo = pos.astype(np.intp)
    frac = pos - lo
    rows = coarse[:, lo, :] * (1.0 - frac)[None, :, None] + coarse[:, lo + 1, :] * frac[None, :, None]
    return rows[:, :, lo] * (1.0 - frac) + rows[:, :, lo + 1] * frac


def _exact(values: np.ndarray, count: int) -> np.ndarray:
    """First ``count`` elements of ``values`` flattened, as a C array."""
    return np.ascontiguousarray(values.reshape(-1)[:count])


# --------------------------------------------------------------------------
# generators: each returns typed parts whose bytes total exactly n_bytes


def _fp32_activations(rng: np.random.Generator, n_bytes: int) -> Parts:
    count = n_bytes // 4
    side = 32
    n_maps = -(-count // (side * side))
    field = _smooth_field(rng, n_maps, side, cell=8)
    noise = rng.standard_normal((n_maps, side, side)) * 0.25
    bias = rng.normal(-0.2, 0.5, size=(n_maps, 1, 1))
    dead = rng.random((n_maps, 1, 1)) < 0.1
    bias = np.where(dead, -4.0, bias)
    scale = rng.gamma(2.0, 0.5, size=(n_maps, 1, 1))
    pre = (field + noise + bias) * scale
    act = np.where(pre > 0.0, pre, 0.0).astype("<f4")
    return {"activations": _exact(act, count)}


def _fp32_weights(rng: np.random.Generator, n_bytes: int) -> Parts:
    count = n_bytes // 4
    fan_ins = np.array([27, 64, 144, 288, 576, 1152, 2304])
    fan_outs = np.array([16, 32, 64, 128, 256, 512])
    row_len: list[np.ndarray] = []
    row_std: list[np.ndarray] = []
    filled = 0
    while filled < count:
        fan_in = int(rng.choice(fan_ins))
        fan_out = int(rng.choice(fan_outs))
        std = np.sqrt(2.0 / fan_in)
        row_len.append(np.full(fan_out, fan_in))
        row_std.append(std * rng.uniform(0.5, 1.5, size=fan_out))
        filled += fan_in * fan_out
    scale = np.repeat(np.concatenate(row_std), np.concatenate(row_len))[:count]
    weights = (rng.standard_normal(count) * scale).astype("<f4")
    return {"weights": weights}


def _int32_csr(rng: np.random.Generator, n_bytes: int) -> Parts:
    words = n_bytes // 4
    # The row-pointer array fills whole 256-byte granules (64 words), like a
    # 256-byte aligned allocation, with about 12 nonzeros per row.
    granule_words = _GRANULE // 4
    row_words = max(granule_words, (words // 13) // granule_words * granule_words)
    row_words = min(row_words, words)
    n_rows = row_words - 1
    n_cols = n_rows
    nnz = words - row_words

    weight = rng.pareto(2.5, size=n_rows) + 1.0
    degree = rng.multinomial(nnz, weight / weight.sum())
    # Columns are unique per row, so a row holds at most n_cols nonzeros.
    excess = int(np.maximum(degree - n_cols, 0).sum())
    degree = np.minimum(degree, n_cols)
    while excess:
        room = np.flatnonzero(degree < n_cols)[:excess]
        degree[room] += 1
        excess -= room.size
    row_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(degree, out=row_ptr[1:])

    row = np.repeat(np.arange(n_rows), degree)
    local = np.arange(nnz) - row_ptr[row]
    deg = degree[row]
    near = row + np.rint(rng.normal(0.0, 8.0, size=nnz)).astype(np.int64)
    far = rng.integers(0, max(n_cols, 1), size=nnz)
    col = np.where(rng.random(nnz) < 0.75, near, far)
    # Draw in [0, n_cols - deg], sort within each row, then spread duplicates
    # so columns are strictly increasing and stay below n_cols.
    col = np.clip(col, 0, n_cols - deg)
    col = np.sort(row * n_cols + col) - row * n_cols
    shifted = col - local + row * (2 * n_cols + 1)
    col = np.maximum.accumulate(shifted) - row * (2 * n_cols + 1) + local
    return {"row_ptr": row_ptr.astype("<i4"), "col_idx": col.astype("<i4")}


def _int32_indices(rng: np.random.Generator, n_bytes: int) -> Parts:
    count = n_bytes // 4
    pieces: list[np.ndarray] = []
    filled = 0
    while filled < count:
        m = int(rng.integers(1024, 16385))
        base = int(rng.integers(0, 1 << 18))
        kind = int(rng.integers(0, 5))
        if kind == 0:  # embedding lookups: Zipf-distributed rows
            vocab = int(rng.integers(1000, 50000))
            idx = (rng.zipf(1.2, size=m) - 1) % vocab
        elif kind == 1:  # sorted scatter targets
            idx = base + np.cumsum(rng.integers(0, 4, size=m))
        elif kind == 2:  # stencil / neighbour gather
            idx = base + np.arange(m) + rng.integers(-8, 9, size=m)
            idx = np.maximum(idx, 0)
        elif kind == 3:  # strided gather (matrix transpose)
            n_r = int(rng.choice([32, 64, 128]))
            n_c = -(-m // n_r)
            i = np.arange(m)
            idx = base + (i % n_r) * n_c + i // n_r
        else:  # permutation of a small range
            idx = base + rng.permutation(m)
        pieces.append(idx)
        filled += m
    return {"indices": np.concatenate(pieces)[:count].astype("<i4")}


def _records(rng: np.random.Generator, n_bytes: int) -> Parts:
    count = n_bytes // RECORD_DTYPE.itemsize
    rec = np.zeros(count, dtype=RECORD_DTYPE)
    gaps = np.where(rng.random(count) < 0.02, rng.integers(2, 100, size=count), 1)
    rec["id"] = int(rng.integers(0, 1 << 20)) + np.cumsum(gaps)

    # Particles sorted by cluster: runs of records share a cluster centre.
    run = rng.integers(64, 513, size=count // 64 + 1)
    cluster = np.repeat(np.arange(run.size), run)[:count]
    centre = rng.uniform(-100.0, 100.0, size=(run.size, 3))
    pos = centre[cluster] + rng.normal(0.0, 0.5, size=(count, 3))
    rec["x"], rec["y"], rec["z"] = pos[:, 0], pos[:, 1], pos[:, 2]

    flag_values = np.array([0x0001, 0x0003, 0x0011, 0x0101, 0x8001], dtype="<u2")
    flag_prob = np.array([0.6, 0.2, 0.1, 0.07, 0.03])
    rec["flags"] = flag_values[rng.choice(flag_values.size, size=count, p=flag_prob)]

    start = 1_700_000_000_000_000_000 + int(rng.integers(0, 10**15))
    rec["timestamp"] = start + np.cumsum(rng.integers(1, 2000, size=count))
    return {"records": rec}


def _image_rgba(rng: np.random.Generator, n_bytes: int) -> Parts:
    pixels = n_bytes // 4
    side = 256
    n_img = -(-pixels // (side * side))
    ramp = (np.arange(side) / (side - 1)) - 0.5
    rgb = np.empty((n_img, side, side, 3))
    for channel in range(3):
        base = rng.uniform(30.0, 220.0, size=(n_img, 1, 1))
        grad_x = rng.uniform(-80.0, 80.0, size=(n_img, 1, 1))
        grad_y = rng.uniform(-80.0, 80.0, size=(n_img, 1, 1))
        blobs = _smooth_field(rng, n_img, side, cell=32) * 25.0
        texture = rng.normal(0.0, 3.0, size=(n_img, side, side))
        rgb[..., channel] = base + grad_x * ramp[None, None, :] + grad_y * ramp[None, :, None] + blobs + texture
    image = np.empty((n_img, side, side, 4), dtype=np.uint8)
    image[..., :3] = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    image[..., 3] = 255
    return {"pixels": _exact(image, pixels * 4).reshape(pixels, 4)}


def _fp16_tensor(rng: np.random.Generator, n_bytes: int) -> Parts:
    count = n_bytes // 2
    side = 32
    n_maps = -(-count // (side * side))
    field = _smooth_field(rng, n_maps, side, cell=8) * 1.3
    noise = rng.standard_normal((n_maps, side, side)) * 0.5
    gain = rng.uniform(0.5, 1.5, size=(n_maps, 1, 1))
    bias = rng.normal(0.0, 0.2, size=(n_maps, 1, 1))
    values = np.clip((field + noise) * gain + bias, -15.0, 15.0).astype("<f2")
    return {"values": _exact(values, count)}


def _zero_pages(rng: np.random.Generator, n_bytes: int) -> Parts:
    page_words = PAGE_BYTES // 4
    n_pages = -(-n_bytes // PAGE_BYTES)
    words = np.zeros((n_pages, page_words), dtype="<u4")
    live = np.flatnonzero(rng.random(n_pages) < 0.3)
    per_page = rng.integers(1, 17, size=live.size)
    page = np.repeat(live, per_page)
    slot = rng.integers(0, page_words, size=page.size)
    kind = rng.random(page.size)
    values = np.where(
        kind < 0.6,
        rng.integers(1, 256, size=page.size, dtype=np.uint64),
        np.where(
            kind < 0.75,
            np.uint64(0xFFFFFFFF),
            rng.integers(1, 1 << 32, size=page.size, dtype=np.uint64),
        ),
    )
    words[page, slot] = values
    return {"words": _exact(words, n_bytes // 4)}


_GENERATORS: dict[str, Callable[[np.random.Generator, int], Parts]] = {
    "fp32_activations": _fp32_activations,
    "fp32_weights": _fp32_weights,
    "int32_csr": _int32_csr,
    "int32_indices": _int32_indices,
    "records": _records,
    "image_rgba": _image_rgba,
    "fp16_tensor": _fp16_tensor,
    "zero_pages": _zero_pages,
}

#: Names of the bundled workloads, in a fixed order (the seed index).
WORKLOADS: tuple[str, ...] = tuple(_GENERATORS)

#: The primary element type of each workload as an MPC training group (P3 §3.1,
#: :data:`memcomp.mpc.GROUPS`): the labels a caller who knows the data would give. ``records``
#: is FP32 by its three float fields (12 of 32 bytes); ``zero_pages`` holds 32-bit words.
MPC_GROUP: dict[str, str] = {
    "fp32_activations": "fp32",
    "fp32_weights": "fp32",
    "int32_csr": "int32_64",
    "int32_indices": "int32_64",
    "records": "fp32",
    "image_rgba": "bool_int8",
    "fp16_tensor": "int16",
    "zero_pages": "int32_64",
}


# --------------------------------------------------------------------------
# public API


def generate_parts(name: str, n_bytes: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Return the typed arrays behind :func:`generate` for one workload.

    Concatenating the bytes of the returned arrays, in order, gives exactly
    ``generate(name, n_bytes, seed)``. For example ``int32_csr`` returns
    ``{"row_ptr": ..., "col_idx": ...}`` and ``records`` returns
    ``{"records": <array of RECORD_DTYPE>}``.
    """
    index = _check_name(name)
    n_bytes = _check_n_bytes(n_bytes)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed * 1000 + index)
    parts = _GENERATORS[name](rng, n_bytes)
    total = sum(part.nbytes for part in parts.values())
    if total != n_bytes:  # pragma: no cover - generator invariant
        raise AssertionError(f"{name} produced {total} bytes, not {n_bytes}")
    return parts


def generate(name: str, n_bytes: int, seed: int = 0) -> np.ndarray:
    """Generate ``n_bytes`` bytes of workload ``name`` as 1-D ``uint8``.

    ``n_bytes`` must be a positive multiple of 256 and ``seed`` a
    non-negative integer. The output is deterministic.
    """
    parts = generate_parts(name, n_bytes, seed)
    flat = [np.ascontiguousarray(p).reshape(-1).view(np.uint8) for p in parts.values()]
    return flat[0].copy() if len(flat) == 1 else np.concatenate(flat)


def sample(
    n_bytes: int = 4 << 20,
    seed: int = 0,
    workloads: Optional[Union[str, Iterable[str]]] = None,
) -> dict[str, np.ndarray]:
    """Generate several workloads, ``n_bytes`` each, keyed by name.

    ``workloads`` is a name or an iterable of names (default: all of
    :data:`WORKLOADS`, in that order).
    """
    if workloads is None:
        names: tuple[str, ...] = WORKLOADS
    elif isinstance(workloads, str):
        names = (workloads,)
    else:
        names = tuple(workloads)
    for name in names:
        _check_name(name)
    return {name: generate(name, n_bytes, seed) for name in names}


def sample_dump(n_bytes: int = 4 << 20, seed: int = 0) -> np.ndarray:
    """One mixed dump of all workloads, interleaved in 4 KiB pages.

    The pages are split evenly between the workloads. Each workload's pages
    are cut into runs of 1 to 16 consecutive pages (like allocations) and the
    runs are shuffled, so the dump alternates between workloads the way a
    real memory dump does. Returns 1-D ``uint8`` of exactly ``n_bytes``
    bytes (a positive multiple of 256); the last page may be partial.
    """
    n_bytes = _check_n_bytes(n_bytes)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed * 1000 + 999)
    n_pages = -(-n_bytes // PAGE_BYTES)
    n_work = len(WORKLOADS)
    counts = [n_pages // n_work + (i < n_pages % n_work) for i in range(n_work)]

    runs: list[tuple[int, int, int]] = []  # (workload, first page, length)
    for work, count in enumerate(counts):
        first = 0
        while first < count:
            length = min(int(rng.integers(1, 17)), count - first)
            runs.append((work, first, length))
            first += length
    order = rng.permutation(len(runs))

    pages = [
        generate(name, count * PAGE_BYTES, seed).reshape(count, PAGE_BYTES)
        if count
        else np.empty((0, PAGE_BYTES), dtype=np.uint8)
        for name, count in zip(WORKLOADS, counts)
    ]
    out = np.empty((n_pages, PAGE_BYTES), dtype=np.uint8)
    at = 0
    for run_index in order:
        work, first, length = runs[run_index]
        out[at : at + length] = pages[work][first : first + length]
        at += length
    return out.reshape(-1)[:n_bytes].copy()


def _check_name(name: Any) -> int:
    if not isinstance(name, str) or name not in _GENERATORS:
        raise ValueError(f"unknown workload {name!r}; choose one of: {', '.join(WORKLOADS)}")
    return WORKLOADS.index(name)


def _check_n_bytes(n_bytes: Any) -> int:
    if isinstance(n_bytes, (bool, np.bool_)) or not isinstance(n_bytes, (int, np.integer)):
        raise TypeError(f"n_bytes must be an integer multiple of {_GRANULE}, got {n_bytes!r}")
    value = int(n_bytes)
    if value <= 0 or value % _GRANULE:
        raise ValueError(
            f"n_bytes must be a positive multiple of {_GRANULE}, got {value}; "
            f"round it, e.g. to {max(_GRANULE, value // _GRANULE * _GRANULE)}"
        )
    return value


def _check_seed(seed: Any) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}")
    value = int(seed)
    if value < 0:
        raise ValueError(f"seed must be a non-negative integer, got {value}")
    return value
