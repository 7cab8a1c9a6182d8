"""Memory-mapped access to memory dumps on disk.

:func:`open_dump` maps a raw binary dump (any extension) or a ``.npy`` file
read-only and exposes it as zero-copy ``(n_blocks, B)`` ``uint8`` blocks,
so dumps larger than RAM can be analysed chunk by chunk with
:meth:`Dump.chunks`. :func:`save_dump` writes an array's bytes back to disk.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator
from typing import Any, Union

import numpy as np

from ._common import check_chunk_blocks
from .blocks import as_blocks, byte_view, check_block_bytes

__all__ = ["Dump", "open_dump", "save_dump"]

PathLike = Union[str, "os.PathLike[str]"]

_NPY_SUFFIX = ".npy"


class Dump:
    """A memory dump viewed as read-only ``(n_blocks, block_bytes)`` blocks.

    Create it with :func:`open_dump`. Attributes:

    * ``path``: the file, as a :class:`pathlib.Path`.
    * ``block_bytes``: the block size B.
    * ``n_blocks``: number of full blocks; ``len(dump)`` gives the same.
    * ``nbytes``: bytes covered by the blocks (``n_blocks * block_bytes``).
    * ``offset``: bytes skipped before the first block (for ``.npy`` files,
      counted from the start of the array data, after the header).
    * ``dropped_bytes``: trailing bytes not covered by a full block (non-zero
      only with ``allow_partial=True``).
    * ``format``: ``"raw"`` or ``"npy"``.
    * ``source_dtype``: the dtype stored in a ``.npy`` file (``uint8`` for
      raw dumps).
    * ``blocks``: the zero-copy, read-only ``uint8`` block view.

    Closing the dump (``close()`` or leaving a ``with`` block) drops its
    reference to the mapping; the operating system mapping is released once
    no view taken from the dump is alive any more.
    """

    def __init__(
        self,
        path: pathlib.Path,
        block_bytes: int,
        blocks: np.ndarray,
        *,
        offset: int = 0,
        dropped_bytes: int = 0,
        format: str = "raw",
        source_dtype: np.dtype | None = None,
    ) -> None:
        self.path = path
        self.block_bytes = block_bytes
        self.n_blocks = int(blocks.shape[0])
        self.nbytes = self.n_blocks * block_bytes
        self.offset = offset
        self.dropped_bytes = dropped_bytes
        self.format = format
        self.source_dtype = (
            np.dtype(np.uint8) if source_dtype is None else source_dtype
        )
        self._blocks: np.ndarray | None = blocks

    @property
    def blocks(self) -> np.ndarray:
        """The ``(n_blocks, block_bytes)`` read-only ``uint8`` view."""
        if self._blocks is None:
            raise ValueError(
                f"{self.path} is closed; open it again with open_dump()"
            )
        return self._blocks

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._blocks is None

    def __len__(self) -> int:
        return self.n_blocks

    def chunks(self, chunk_blocks: int = 1 << 16) -> Iterator[np.ndarray]:
        """Yield consecutive zero-copy ``(m, block_bytes)`` views, in order.

        Every chunk has ``chunk_blocks`` blocks except possibly the last one.
        Together the chunks cover every block exactly once.
        """
        step = check_chunk_blocks(chunk_blocks)
        blocks = self.blocks
        return (blocks[start:start + step] for start in range(0, len(blocks), step))

    def close(self) -> None:
        """Drop the reference to the memory map. Safe to call twice."""
        self._blocks = None

    def __enter__(self) -> Dump:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = ", closed" if self.closed else ""
        extra = ""
        if self.offset:
            extra += f", offset={self.offset}"
        if self.dropped_bytes:
            extra += f", dropped_bytes={self.dropped_bytes}"
        if self.format == "npy":
            extra += f", source_dtype={self.source_dtype.str!r}"
        return (
            f"Dump({str(self.path)!r}, block_bytes={self.block_bytes}, "
            f"n_blocks={self.n_blocks}, format={self.format!r}{extra}{state})"
        )


def open_dump(
    path: PathLike,
    block_bytes: int,
    *,
    offset: int = 0,
    dtype_check: bool = True,
    allow_partial: bool = False,
) -> Dump:
    """Memory-map a dump file read-only as ``(n_blocks, block_bytes)`` blocks.

    Files ending in ``.npy`` are opened with ``np.load(mmap_mode="r")`` and
    their array bytes are used in memory order; any other file is mapped as
    raw bytes with ``np.memmap``. Nothing is read into memory up front.

    Args:
        path: the file to open.
        block_bytes: block size B, one of ``VALID_BLOCK_BYTES``.
        offset: bytes to skip before the first block (for ``.npy`` files,
            counted from the start of the array data).
        dtype_check: for ``.npy`` files, reject arrays whose bytes are not
            plain memory contents (unicode strings). Object arrays are always
            rejected because they cannot be mapped.
        allow_partial: drop trailing bytes that do not make a full block
            instead of raising; ``Dump.dropped_bytes`` records how many.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        IsADirectoryError: ``path`` is a directory.
        TypeError: bad argument types, or a ``.npy`` dtype that cannot be
            viewed as bytes.
        ValueError: invalid ``block_bytes`` or ``offset``, a Fortran-ordered
            ``.npy`` array, or trailing bytes with ``allow_partial=False``.
    """
    file = _as_path(path)
    size = check_block_bytes(block_bytes)
    if isinstance(offset, (bool, np.bool_)) or not isinstance(
        offset, (int, np.integer)
    ):
        raise TypeError(f"offset must be a non-negative integer, got {offset!r}")
    offset = int(offset)
    if offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset}")
    if not file.exists():
        raise FileNotFoundError(f"no such dump file: {str(file)!r}")
    if file.is_dir():
        raise IsADirectoryError(f"{str(file)!r} is a directory, not a dump file")

    data: np.ndarray | None = None
    source_dtype: np.dtype | None = None
    if file.suffix.lower() == _NPY_SUFFIX:
        data, source_dtype = _map_npy(file, dtype_check)
        fmt = "npy"
        available = int(data.shape[0])
    else:
        fmt = "raw"
        available = file.stat().st_size

    if offset > available:
        where = "array data" if fmt == "npy" else "file"
        raise ValueError(
            f"offset={offset} is past the end of the {where} of {str(file)!r} "
            f"({available} bytes)"
        )
    usable = available - offset
    tail = usable % size
    if tail and not allow_partial:
        full = usable - tail
        raise ValueError(
            f"{str(file)!r} has {usable} bytes after offset {offset}, which is "
            f"not a multiple of block_bytes={size}: {tail} trailing byte(s) "
            f"are left after {full // size} full block(s); pass "
            "allow_partial=True to drop them, or choose an offset/block size "
            "that fits the file"
        )
    length = usable - tail

    if length == 0:
        # np.memmap cannot map zero bytes; an empty view stands in for it.
        flat = np.empty(0, dtype=np.uint8)
        flat.flags.writeable = False
    elif data is not None:
        flat = data[offset:offset + length]
    else:
        mapped = np.memmap(file, dtype=np.uint8, mode="r", offset=offset,
                           shape=(length,))
        flat = mapped.view(type=np.ndarray)
    return Dump(
        file,
        size,
        as_blocks(flat, size),
        offset=offset,
        dropped_bytes=tail,
        format=fmt,
        source_dtype=source_dtype,
    )


def save_dump(path: PathLike, array: Any) -> int:
    """Write the bytes of a C-contiguous array to ``path``; return the count.

    Files ending in ``.npy`` are written with ``np.save`` (dtype and shape
    kept, so :func:`open_dump` sees the same bytes); any other path gets the
    raw bytes in memory order, with no header. Non-contiguous arrays are
    refused rather than copied: pass ``np.ascontiguousarray(array)``.
    """
    file = _as_path(path)
    flat = byte_view(array)
    if file.suffix.lower() == _NPY_SUFFIX:
        np.save(file, array, allow_pickle=False)
    else:
        with open(file, "wb") as handle:
            handle.write(memoryview(flat))
    return int(flat.shape[0])


def _as_path(path: Any) -> pathlib.Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path must be a str or os.PathLike, got {type(path).__name__}"
        )
    return pathlib.Path(path)


def _map_npy(file: pathlib.Path, dtype_check: bool) -> tuple[np.ndarray, np.dtype]:
    """Map a ``.npy`` file; return its data as flat ``uint8`` and its dtype."""
    header_dtype = _read_npy_dtype(file)
    if header_dtype is not None:
        # Checked before np.load, which cannot map object arrays at all.
        _check_npy_dtype(file, header_dtype, dtype_check)
    array = np.load(file, mmap_mode="r", allow_pickle=False)
    _check_npy_dtype(file, array.dtype, dtype_check)
    if not array.flags.c_contiguous:
        raise ValueError(
            f"{str(file)!r} stores a Fortran-ordered array of shape "
            f"{array.shape}, whose bytes are not in C order; re-save it with "
            "np.save(path, np.ascontiguousarray(array))"
        )
    if array.dtype.itemsize == 0:
        flat = np.empty(0, dtype=np.uint8)
        flat.flags.writeable = False
    else:
        flat = array.view(type=np.ndarray).reshape(-1).view(np.uint8)
    return flat, array.dtype


def _read_npy_dtype(file: pathlib.Path) -> np.dtype | None:
    """Read the dtype from a ``.npy`` header without loading the array.

    Returns ``None`` for header versions that have no public reader;
    ``np.load`` then validates the file itself.
    """
    fmt = np.lib.format
    with open(file, "rb") as handle:
        try:
            version = fmt.read_magic(handle)
        except ValueError as err:
            raise ValueError(
                f"{str(file)!r} ends in .npy but is not a valid .npy file "
                f"({err}); rename it to open it as a raw dump"
            ) from None
        if version == (1, 0):
            return fmt.read_array_header_1_0(handle)[2]
        if version == (2, 0):
            return fmt.read_array_header_2_0(handle)[2]
    return None


def _check_npy_dtype(file: pathlib.Path, dtype: np.dtype, dtype_check: bool) -> None:
    if dtype.hasobject:
        raise TypeError(
            f"{str(file)!r} stores an array of dtype {dtype}, which holds "
            "pickled Python objects and cannot be memory-mapped; save the "
            "data with a numeric or fixed-size dtype"
        )
    if dtype_check and dtype.kind == "U":
        raise TypeError(
            f"{str(file)!r} stores unicode strings (dtype {dtype}), which are "
            "not memory contents; pass dtype_check=False to map their bytes "
            "anyway"
        )
