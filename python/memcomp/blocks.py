"""Zero-copy block views over the bytes of NumPy arrays.

Every codec and analysis in memcomp works on a C-contiguous ``uint8`` array
of shape ``(n_blocks, B)`` with ``B`` in :data:`VALID_BLOCK_BYTES`
(SPEC section 0.1). The helpers here build such views without ever copying
or casting: the bytes of the input array are reinterpreted in memory order,
and anything that would need a copy raises with a message that says which
explicit call makes it work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import has_buffer, refuse_masked

__all__ = [
    "VALID_BLOCK_BYTES",
    "as_blocks",
    "byte_view",
    "check_block_bytes",
    "check_blocks",
    "sectorize",
]

#: Block (and sector) sizes accepted by memcomp, in bytes.
VALID_BLOCK_BYTES: tuple[int, ...] = (16, 32, 64, 128, 256)


def check_block_bytes(block_bytes: Any, *, name: str = "block_bytes") -> int:
    """Validate a block size and return it as a Python ``int``.

    Raises ``TypeError`` if ``block_bytes`` is not an integer (``bool`` is
    rejected) and ``ValueError`` if it is not one of
    :data:`VALID_BLOCK_BYTES`.
    """
    if isinstance(block_bytes, (bool, np.bool_)) or not isinstance(block_bytes, (int, np.integer)):
        raise TypeError(
            f"{name} must be an integer, one of {_valid_sizes()}; "
            f"got {block_bytes!r} of type {type(block_bytes).__name__}"
        )
    value = int(block_bytes)
    if value not in VALID_BLOCK_BYTES:
        raise ValueError(f"{name} must be one of {_valid_sizes()} bytes; got {value}")
    return value


def byte_view(array: Any) -> np.ndarray:
    """Return a zero-copy 1-D ``uint8`` view of the bytes of ``array``.

    The input must be a C-contiguous ``numpy.ndarray`` (``np.memmap``
    included) whose dtype holds plain binary data. Bytes are taken in memory
    order, so non-native byte orders are kept as stored. A read-only input
    gives a read-only view.
    """
    array = _host_array(array)
    if isinstance(array, np.ma.MaskedArray):
        raise TypeError(
            "masked arrays are not accepted because the mask would be ignored; "
            "pass array.filled(fill_value) or array.data explicitly"
        )
    if not isinstance(array, np.ndarray):
        raise TypeError(_not_an_array_message(array))
    dtype = array.dtype
    if dtype.hasobject:
        raise TypeError(
            f"arrays with dtype {dtype} hold Python object pointers, not data "
            "bytes; convert them to a numeric or fixed-size dtype first"
        )
    if dtype.kind == "U":
        raise TypeError(
            f"arrays with string dtype {dtype} are not memory contents; encode "
            "them first, e.g. np.frombuffer(text.encode(), dtype=np.uint8)"
        )
    if not array.flags.c_contiguous:
        raise ValueError(
            "the array is not C-contiguous, so its bytes cannot be viewed as "
            "blocks without a copy; call np.ascontiguousarray(array) "
            "explicitly (this copies) and pass the result"
        )
    if dtype.itemsize == 0:
        # Zero-itemsize dtypes (e.g. an empty structured dtype) hold no bytes.
        empty = np.empty(0, dtype=np.uint8)
        empty.flags.writeable = bool(array.flags.writeable)
        return empty
    # C-contiguous, so reshape(-1) is a view; view(type=...) drops subclasses
    # such as np.memmap or np.matrix without touching the data.
    return array.view(type=np.ndarray).reshape(-1).view(np.uint8)


def as_blocks(array: Any, block_bytes: int) -> np.ndarray:
    """View the bytes of ``array`` as ``(n_blocks, block_bytes)`` ``uint8``.

    Works for any C-contiguous array of any fixed-size dtype and any number of
    dimensions, including ``np.memmap``. The result shares memory with the
    input and is read-only when the input is.

    Raises:
        TypeError: ``array`` is not an ``ndarray`` or its dtype holds Python
            objects or unicode strings; ``block_bytes`` is not an integer.
        ValueError: ``block_bytes`` is not a valid block size, the array is
            not C-contiguous, or its size is not a multiple of
            ``block_bytes``.
    """
    size = check_block_bytes(block_bytes)
    flat = byte_view(array)
    nbytes = flat.shape[0]
    tail = nbytes % size
    if tail:
        full = nbytes - tail
        raise ValueError(
            f"the array holds {nbytes} bytes, which is not a multiple of "
            f"block_bytes={size}: {tail} trailing byte(s) are left after "
            f"{full // size} full block(s); slice the data to a multiple of "
            f"{size} bytes first, e.g. as_blocks(memcomp.blocks.byte_view(array)[:{full}], "
            f"{size})"
        )
    return flat.reshape(nbytes // size, size)


def check_blocks(blocks: Any) -> np.ndarray:
    """Check that ``blocks`` is a valid ``(n_blocks, B)`` block array.

    Returns ``blocks`` unchanged. Raises ``TypeError`` for non-arrays or a
    dtype other than ``uint8`` and ``ValueError`` for a wrong number of
    dimensions, an invalid ``B`` or a non-C-contiguous array.
    """
    if not isinstance(blocks, np.ndarray):
        raise TypeError(_not_an_array_message(blocks) + "; build blocks with as_blocks(array, block_bytes)")
    refuse_masked(blocks)
    if blocks.dtype != np.uint8:
        raise TypeError(
            f"blocks must have dtype uint8, got {blocks.dtype}; reinterpret "
            "the bytes explicitly with as_blocks(array, block_bytes)"
        )
    if blocks.ndim != 2:
        raise ValueError(
            f"blocks must be 2-D (n_blocks, block_bytes), got shape {blocks.shape}; use as_blocks(array, block_bytes)"
        )
    check_block_bytes(blocks.shape[1], name="the block size (blocks.shape[1])")
    if not blocks.flags.c_contiguous:
        raise ValueError(
            "blocks must be C-contiguous; call np.ascontiguousarray(blocks) "
            "explicitly (this copies) and pass the result"
        )
    return blocks


def sectorize(blocks: Any, sector_bytes: int) -> np.ndarray:
    """Split ``(n, B)`` blocks into ``(n * B // s, s)`` sectors, zero-copy.

    Sector ``j`` of block ``i`` becomes row ``i * (B // s) + j``. ``B`` must
    be a multiple of ``sector_bytes`` and both must be valid block sizes.
    The result shares memory with ``blocks`` and keeps its read-only flag.
    """
    sector = check_block_bytes(sector_bytes, name="sector_bytes")
    check_blocks(blocks)
    n_blocks, size = blocks.shape
    if size % sector:
        raise ValueError(
            f"sector_bytes={sector} does not divide the block size {size}; "
            f"choose sector_bytes from "
            f"{tuple(s for s in VALID_BLOCK_BYTES if size % s == 0)}"
        )
    return blocks.reshape(n_blocks * (size // sector), sector)


def _host_array(obj: Any) -> Any:
    """An ndarray over the memory of ``obj`` without a copy: DLPack objects (PyTorch, JAX, CuPy
    tensors) on the CPU, and objects with the buffer protocol (bytes, bytearray, memoryview,
    array.array). A tensor on another device is refused: copy it to the host explicitly."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device, index = obj.__dlpack_device__()
        if int(device) != 1:  # kDLCPU
            raise TypeError(
                f"{type(obj).__name__} lives on device type {int(device)} (index {index}), not in host "
                "memory; copy it to the host explicitly (e.g. tensor.cpu() or cupy.asnumpy(x)) and pass that"
            )
        try:
            return np.from_dlpack(obj)
        except (TypeError, BufferError, RuntimeError) as e:
            raise TypeError(
                f"NumPy cannot view this {type(obj).__name__} through DLPack ({e}); view its bytes as a "
                "NumPy-known dtype first (e.g. a bfloat16 tensor as tensor.view(torch.int16))"
            ) from None
    if isinstance(obj, (bytes, bytearray, memoryview)) or has_buffer(obj):
        view = memoryview(obj)
        if not view.c_contiguous:
            raise ValueError("the buffer is not C-contiguous, so its bytes cannot be viewed as blocks without a copy")
        return np.frombuffer(view.cast("B") if view.format != "B" or view.ndim != 1 else view, dtype=np.uint8)
    return obj


def _valid_sizes() -> str:
    return ", ".join(str(size) for size in VALID_BLOCK_BYTES)


def _not_an_array_message(obj: Any) -> str:
    kind = type(obj).__name__
    if isinstance(obj, (bytes, bytearray, memoryview)):
        hint = "wrap it without copying with np.frombuffer(data, dtype=np.uint8)"
    else:
        hint = (
            "convert it explicitly, e.g. np.asarray(data, dtype=np.uint32), "
            "choosing the dtype that matches the memory contents"
        )
    return f"expected a numpy.ndarray, got {kind}; {hint}"
