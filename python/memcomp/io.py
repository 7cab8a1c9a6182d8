"""Memory dumps on disk as blocks.

:func:`open_dump` maps a raw binary dump (any extension) or a ``.npy`` file
read-only and exposes it as zero-copy ``(n_blocks, B)`` ``uint8`` blocks,
so dumps larger than RAM can be analysed chunk by chunk with
:meth:`Dump.chunks`. :func:`save_dump` writes an array's bytes back to disk.

:func:`open_dumps` opens many datasets at once: paths, directories and glob
patterns, one :class:`Dump` (one ``dataset``) per file, or per array or tensor
of a container file, through a reader chosen by the file's suffix:

==================  ============================================================
suffix              datasets
==================  ============================================================
(any other)         the raw bytes of the file
``.npy``            the array's bytes; a 2-D uint8 ``(N, L)`` trace (the MPC
                    authors' tools' format) defaults to ``L``-byte blocks
``.npz``            one per array (read into memory: zip members are not mapped)
``.safetensors``    one per tensor, its bytes in file order, mapped; name = the
                    tensor's name
``.onnx``           one per initializer with its raw bytes (needs ``onnx``:
                    ``pip install memcomp[onnx]``)
a directory         its files but dotfiles, sorted; a ``manifest.json``
                    written by :mod:`memcomp.capture` gives names and order
==================  ============================================================

A reader for another format is a function ``reader(path, block_bytes,
allow_partial) -> list[Dump]`` registered with :func:`register_reader`; build
each Dump with :func:`dump_from_bytes` or :func:`open_dump`. Every Dump knows
its provenance (:meth:`Dump.provenance`: dataset, file, format, byte range).
In weight files (safetensors, ONNX) a tensor whose size is not a multiple of
the block size keeps its whole blocks (``dropped_bytes`` records the tail):
tensor sizes are the model's, not the user's choice.
"""

from __future__ import annotations

import contextlib
import mmap as mmap_module
import os
import pathlib
import re
import stat
from collections.abc import Iterator
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from ._common import check_bool, check_chunk_blocks, check_int, parse_json, read_npz, read_text
from .blocks import as_blocks, byte_view, check_block_bytes

__all__ = ["Dump", "StreamDump", "dump_from_bytes", "open_dump", "open_dumps", "register_reader", "save_dump"]

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
        name: str | None = None,
    ) -> None:
        self.path = path
        self.name = dataset_name(path) if name is None else name
        self.block_bytes = block_bytes
        self.n_blocks = int(blocks.shape[0])
        self.nbytes = self.n_blocks * block_bytes
        self.offset = offset
        self.dropped_bytes = dropped_bytes
        self.format = format
        self.source_dtype = np.dtype(np.uint8) if source_dtype is None else source_dtype
        self._blocks: np.ndarray | None = blocks
        # set by open_dump for mapped files: the mmap, where the blocks start in it, and the file
        # size the blocks need (a file truncated below it would fault on access: SIGBUS)
        self._mmap = None
        self._map_delta = 0
        self._file_end = 0

    @property
    def blocks(self) -> np.ndarray:
        """The ``(n_blocks, block_bytes)`` read-only ``uint8`` view."""
        if self._blocks is None:
            raise ValueError(f"{self.path} is closed; open it again with open_dump()")
        return self._blocks

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._blocks is None

    def __len__(self) -> int:
        return self.n_blocks

    def provenance(self) -> dict:
        """Where the blocks come from: dataset name, file, format, byte range, block size."""
        return {
            "dataset": self.name,
            "file": str(self.path),
            "format": self.format,
            "offset_begin": self.offset,
            "offset_end": self.offset + self.nbytes,
            "block_bytes": self.block_bytes,
        }

    def chunks(self, chunk_blocks: int = 1 << 16, *, release: bool = True) -> Iterator[np.ndarray]:
        """Yield consecutive zero-copy ``(m, block_bytes)`` views, in order.

        Every chunk has ``chunk_blocks`` blocks except possibly the last one.
        Together the chunks cover every block exactly once. For a mapped file,
        the pages of a chunk are handed back to the kernel (``MADV_DONTNEED``)
        once the next one is asked for, so the resident size stays a few
        chunks whatever the dump's size (``release=False`` keeps them); and a
        file truncated while it is read raises instead of faulting.
        """
        step = check_chunk_blocks(chunk_blocks)
        blocks = self.blocks
        return self._chunks(blocks, step, release)

    def _chunks(self, blocks: np.ndarray, step: int, release: bool) -> Iterator[np.ndarray]:
        B = self.block_bytes
        for start in range(0, len(blocks), step):
            end = min(start + step, len(blocks))
            self.check_intact()
            yield blocks[start:end]
            if release:
                self._release(start * B, end * B)

    def check_intact(self) -> None:
        """Raises OSError if the mapped file has been truncated below the bytes the blocks cover
        (reading them would kill the process with SIGBUS)."""
        if self._mmap is None:
            return
        try:
            size = os.stat(self.path).st_size
        except OSError as e:
            raise OSError(f"{str(self.path)!r} went away while it was being read ({e})") from None
        if size < self._file_end:
            raise OSError(
                f"{str(self.path)!r} was truncated to {size} bytes while being read; its blocks need "
                f"{self._file_end} bytes (was the dump rewritten by another process?)"
            )

    def _release(self, begin: int, end: int) -> None:
        """Drops the whole pages of bytes [begin, end) of the blocks from this process's memory."""
        mm = self._mmap
        if mm is None or not hasattr(mm, "madvise") or not hasattr(mmap_module, "MADV_DONTNEED"):
            return
        page = mmap_module.PAGESIZE
        lo = -(-(begin + self._map_delta) // page) * page
        hi = (end + self._map_delta) // page * page
        if hi > lo:
            with contextlib.suppress(OSError, ValueError):  # a closed map or an odd platform: keep the pages
                mm.madvise(mmap_module.MADV_DONTNEED, lo, hi - lo)

    def part(self, start: int, stop: int) -> "Dump":
        """Blocks ``[start, stop)`` as a Dump of the same data (zero-copy): what a Dask task gets.
        A part of a mapped file pickles as a re-open of its byte range, not as its bytes."""
        from ._common import check_int

        start = check_int("start", start, 0, self.n_blocks)
        stop = check_int("stop", stop, start, self.n_blocks)
        B = self.block_bytes
        d = Dump(
            self.path,
            B,
            self.blocks[start:stop],
            offset=self.offset + start * B,
            format=self.format,
            source_dtype=self.source_dtype,
            name=self.name,
        )
        d._mmap, d._map_delta, d._file_end = self._mmap, self._map_delta + start * B, self._file_end
        return d

    def __reduce__(self):
        if self._mmap is not None and self.format in ("raw", "npy", "safetensors"):
            return _reopen, (
                str(self.path),
                self.block_bytes,
                self.offset,
                self.nbytes,
                self.name,
                self.format,
                self.dropped_bytes,
            )
        return _in_memory, (
            str(self.path),
            self.block_bytes,
            np.ascontiguousarray(self.blocks),
            self.offset,
            self.format,
            self.source_dtype,
            self.name,
        )

    def close(self) -> None:
        """Drop the reference to the memory map. Safe to call twice."""
        self._blocks = None

    def __enter__(self) -> "Dump":
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
        if self.name != self.path.name:
            extra += f", name={self.name!r}"
        return (
            f"Dump({str(self.path)!r}, block_bytes={self.block_bytes}, "
            f"n_blocks={self.n_blocks}, format={self.format!r}{extra}{state})"
        )


def _reopen(
    path: str, block_bytes: int, offset: int, length: int, name: str, format: str = "raw", dropped_bytes: int = 0
) -> Dump:
    d = open_dump(path, block_bytes, offset=offset, length=length, name=name)
    assert isinstance(d, Dump)  # a byte range of a regular file is mapped
    d.format, d.dropped_bytes = format, dropped_bytes  # a safetensors tensor is mapped as raw bytes
    return d


def _in_memory(
    path: str, block_bytes: int, blocks: np.ndarray, offset: int, format: str, source_dtype: np.dtype, name: str
) -> Dump:
    blocks.flags.writeable = False
    return Dump(
        pathlib.Path(path), block_bytes, blocks, offset=offset, format=format, source_dtype=source_dtype, name=name
    )


def open_dump(
    path: PathLike,
    block_bytes: int,
    *,
    offset: int = 0,
    length: int | None = None,
    dtype_check: bool = True,
    allow_partial: bool = False,
    name: str | None = None,
) -> "AnyDump":
    """Memory-map a dump file read-only as ``(n_blocks, block_bytes)`` blocks.

    Files ending in ``.npy`` are opened with ``np.load(mmap_mode="r")`` and
    their array bytes are used in memory order; any other file is mapped as
    raw bytes with ``np.memmap``. Nothing is read into memory up front.

    Args:
        path: the file to open.
        block_bytes: block size B, one of ``VALID_BLOCK_BYTES``.
        offset: bytes to skip before the first block (for ``.npy`` files,
            counted from the start of the array data).
        length: bytes to take from ``offset`` on (default: to the end).
        name: the dataset name (default: the file name).
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
    allow_partial = check_bool("allow_partial", allow_partial)
    if isinstance(offset, (bool, np.bool_)) or not isinstance(offset, (int, np.integer)):
        raise TypeError(f"offset must be a non-negative integer, got {offset!r}")
    offset = int(offset)
    if offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset}")
    if not file.exists():
        raise FileNotFoundError(f"no such dump file: {str(file)!r}")
    if file.is_dir():
        raise IsADirectoryError(f"{str(file)!r} is a directory, not a dump file")
    if _is_stream(file):
        if offset or length is not None:
            raise ValueError(f"{str(file)!r} is read as a stream: --offset/--length need a file that can be mapped")
        return StreamDump(file, size, allow_partial=allow_partial, name=name)

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
        raise ValueError(f"offset={offset} is past the end of the {where} of {str(file)!r} ({available} bytes)")
    usable = available - offset
    if length is not None:
        from ._common import check_int

        usable = check_int("length", length, 0, usable)
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
        flat = data[offset : offset + length]
    else:
        mapped = np.memmap(file, dtype=np.uint8, mode="r", offset=offset, shape=(length,))
        flat = mapped.view(type=np.ndarray)
    dump = Dump(
        file,
        size,
        as_blocks(flat, size),
        offset=offset,
        dropped_bytes=tail,
        format=fmt,
        source_dtype=source_dtype,
        name=name,
    )
    source = data.base if data is not None else (mapped if length else None)
    while source is not None and not isinstance(source, np.memmap) and getattr(source, "base", None) is not None:
        source = source.base
    if isinstance(source, np.memmap) and getattr(source, "_mmap", None) is not None:
        map_start = source.offset - source.offset % mmap_module.ALLOCATIONGRANULARITY
        data_start = source.offset + (offset if data is not None else 0)  # file offset of the first block
        dump._mmap = source._mmap  # type: ignore[union-attr]
        dump._map_delta = data_start - map_start
        dump._file_end = data_start + length
    return dump


def dump_from_bytes(
    data: Any, block_bytes: int, *, path: PathLike, name: str, format: str, offset: int = 0, allow_partial: bool = False
) -> Dump:
    """A Dump over bytes already in memory (a container member, a tensor): ``data`` is any
    C-contiguous array or buffer; its whole blocks are used (the tail is dropped, and counted,
    with ``allow_partial``)."""
    size = check_block_bytes(block_bytes)
    flat = byte_view(np.frombuffer(data, np.uint8) if isinstance(data, (bytes, bytearray, memoryview)) else data)
    tail = flat.shape[0] % size
    if tail and not allow_partial:
        raise ValueError(
            f"{name} in {str(path)!r} has {flat.shape[0]} bytes, not a multiple of block_bytes={size}; "
            "pass allow_partial=True to drop the last partial block"
        )
    view = flat[: flat.shape[0] - tail]
    if view.flags.writeable:
        view = view.view()
        view.flags.writeable = False
    return Dump(
        _as_path(path), size, as_blocks(view, size), offset=offset, dropped_bytes=tail, format=format, name=name
    )


# ---------------------------------------------------------------------------------- streams
def _open_zstd(path):
    try:
        import zstandard
    except ImportError:
        raise ImportError(
            f"{str(path)!r}: reading .zst dumps needs the zstandard package: pip install memcomp[zstd]"
        ) from None
    return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)


def _compressed_openers():
    import bz2
    import gzip
    import lzma

    return {
        ".gz": lambda p: gzip.open(p, "rb"),
        ".bz2": lambda p: bz2.open(p, "rb"),
        ".xz": lambda p: lzma.open(p, "rb"),
        ".zst": _open_zstd,
    }


_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")

_FD_PATH = re.compile(r"/dev/stdin|/dev/fd/(\d+)|/proc/self/fd/(\d+)")


def dataset_name(path: pathlib.Path) -> str:
    """A dataset's default name: the file name. A file descriptor's path (``/dev/stdin``, which
    ``memcomp compare -`` reads, ``/dev/fd/N``, ``/proc/self/fd/N``) is named after the file it is
    open on; a pipe's after what it is: ``stdin`` for descriptor 0, else its path (a process
    substitution ``<(zcat d.gz)`` is ``/dev/fd/63``, not ``63``)."""
    text = str(path)
    m = _FD_PATH.fullmatch(text)
    if not m:
        return path.name
    target = os.path.realpath(text)  # /dev/fd/7 -> /proc/self/fd/7 -> the file, or "pipe:[...]"
    if os.path.isfile(target) and not _FD_PATH.fullmatch(target):
        return os.path.basename(target)
    return "stdin" if text == "/dev/stdin" or (m.group(1) or m.group(2)) == "0" else text


def _is_stream(file: pathlib.Path) -> bool:
    """Read front to back instead of mapped: compressed files, pipes, FIFOs, character devices
    and files that report no size (``/proc``)."""
    if file.suffix.lower() in _COMPRESSED:
        return True
    st = os.stat(file)
    if not stat.S_ISREG(st.st_mode):
        return True
    if st.st_size == 0:  # empty, or a /proc or /sys file that reports no size but has content
        with open(file, "rb") as f:
            return bool(f.read(1))
    return False


class StreamDump:
    """A dump read once, front to back, in chunks: a compressed file (``.gz``, ``.bz2``, ``.xz``,
    ``.zst``), a pipe or FIFO (``memcomp compare <(zcat dump.gz)``), ``/dev/stdin`` or a ``/proc``
    file. Analyses that stream (compare, breakdown, entropy tables, histograms and bounds, ratio
    entropy, toggles totals, MAG histograms, SLC sweeps, MPC training with ``max_blocks``) take it
    like a Dump; fitting data-driven codecs reads the first bytes (:meth:`head`), which are kept and
    streamed again. ``n_blocks`` is None until the stream has been read."""

    def __init__(
        self, path: pathlib.Path, block_bytes: int, *, allow_partial: bool = False, name: str | None = None
    ) -> None:
        self.path = path
        self.name = dataset_name(path) if name is None else name
        self.block_bytes = block_bytes
        suffix = path.suffix.lower()
        self.format = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}.get(suffix, "stream")
        self.offset = 0
        self.dropped_bytes = 0
        self.n_blocks: int | None = None
        self.nbytes: int | None = None
        self.allow_partial = allow_partial
        self._file: Optional[Any] = None
        self._buffer = b""  # bytes read by head() and not streamed yet
        self._read = 0  # bytes read from the source so far
        self._started = False

    def _source(self):
        if self._file is None:
            opener = _compressed_openers().get(self.path.suffix.lower())
            self._file = opener(self.path) if opener else open(self.path, "rb")  # noqa: SIM115 (closed by close())
        return self._file

    def _take(self, n: int) -> bytes:
        parts, got = [], 0
        src = self._source()
        while got < n:
            piece = src.read(n - got)
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
        self._read += got
        return b"".join(parts)

    def head(self, nbytes: int) -> np.ndarray:
        """The whole blocks of the first ``nbytes`` bytes (kept, so :meth:`chunks` still yields
        them first). Only before the stream is consumed."""
        if self._started:
            raise ValueError(f"{str(self.path)!r} is a stream and has been read already; open it again")
        want = nbytes // self.block_bytes * self.block_bytes
        if len(self._buffer) < want:
            self._buffer += self._take(want - len(self._buffer))
        data = self._buffer[: len(self._buffer) // self.block_bytes * self.block_bytes][:want]
        return np.frombuffer(data, np.uint8).reshape(-1, self.block_bytes)

    @property
    def blocks(self) -> np.ndarray:
        raise TypeError(
            f"{str(self.path)!r} is read as a stream, once, front to back: this analysis needs the whole "
            "dump at once; write it to a file first (e.g. zcat dump.gz > dump.bin)"
        )

    def chunks(self, chunk_blocks: int = 1 << 16, *, release: bool = True) -> Iterator[np.ndarray]:
        step = check_chunk_blocks(chunk_blocks)
        if self._started:
            raise ValueError(f"{str(self.path)!r} is a stream and has been read already; open it again")
        self._started = True
        return self._stream(step)

    def _stream(self, step: int) -> Iterator[np.ndarray]:
        B = self.block_bytes
        want = step * B
        pending, pos = self._buffer, 0  # bytes read and not yielded yet: pending[pos:]
        self._buffer = b""
        blocks = 0
        while True:
            if len(pending) - pos < want:
                pending, pos = pending[pos:] + self._take(want - (len(pending) - pos)), 0
            # at most chunk_blocks blocks, also out of a larger head() buffer
            whole_bytes = min(len(pending) - pos, want) // B * B
            if whole_bytes:
                chunk = np.frombuffer(pending, np.uint8, count=whole_bytes, offset=pos).reshape(-1, B)
                blocks += chunk.shape[0]
                self.n_blocks, self.nbytes = blocks, blocks * B
                yield chunk
            pos += whole_bytes
            if whole_bytes < want:  # the source is exhausted
                break
        pending = pending[pos:]
        self.n_blocks, self.nbytes = blocks, blocks * B
        self.dropped_bytes = len(pending)
        if self._file is not None:
            self._file.close()
            self._file = None
        if pending and not self.allow_partial:
            raise ValueError(
                f"{str(self.path)!r} ended with {len(pending)} trailing byte(s) after {blocks} whole "
                f"block(s) of block_bytes={B}; pass allow_partial=True to drop them"
            )

    def __reduce__(self):
        if self._started or self.format == "stream":
            raise TypeError(
                f"{str(self.path)!r} is a pipe, FIFO or device read once by this process: it cannot be "
                "shipped to another process (Dask); save it to a file first"
            )
        return StreamDump, (self.path, self.block_bytes), {"allow_partial": self.allow_partial, "name": self.name}

    def __setstate__(self, state: dict) -> None:
        self.allow_partial, self.name = state["allow_partial"], state["name"]

    def __len__(self) -> int:
        if self.n_blocks is None:
            raise TypeError(f"{str(self.path)!r} is a stream: its length is known once it has been read")
        return self.n_blocks

    def provenance(self) -> dict:
        return {
            "dataset": self.name,
            "file": str(self.path),
            "format": self.format,
            "offset_begin": 0,
            "offset_end": self.nbytes or 0,
            "block_bytes": self.block_bytes,
        }

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "StreamDump":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"StreamDump({str(self.path)!r}, block_bytes={self.block_bytes}, format={self.format!r})"


# ------------------------------------------------------------------------------- many datasets
Reader = Callable[[pathlib.Path, Optional[int], bool], List["AnyDump"]]
_READERS: Dict[str, Reader] = {}


#: What open_dump returns: a mapped file or in-memory array (Dump) or a stream read once (StreamDump).
AnyDump = Union[Dump, StreamDump]


def register_reader(suffix: str, reader: Reader) -> None:
    """Makes :func:`open_dumps` open files ending in ``suffix`` (e.g. ``".bin16"``) with
    ``reader(path, block_bytes, allow_partial) -> list[Dump]`` (block_bytes may be None: choose
    or refuse). A later registration for the same suffix replaces the earlier one."""
    if not isinstance(suffix, str) or not suffix.startswith("."):
        raise ValueError(f"suffix must be a string starting with '.', got {suffix!r}")
    if not callable(reader):
        raise TypeError("reader must be callable: reader(path, block_bytes, allow_partial) -> list[Dump]")
    _READERS[suffix.lower()] = reader


def _need_block(block_bytes: Optional[int], path: pathlib.Path) -> int:
    if block_bytes is None:
        raise ValueError(f"{str(path)!r}: give block_bytes (the CLI's --block)")
    return block_bytes


def _read_raw(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    return [open_dump(path, _need_block(block_bytes, path), allow_partial=allow_partial)]


def _read_npy(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    if block_bytes is None:  # an (N, L) uint8 trace names its own line size
        _read_npy_dtype(path)  # a malformed header: ValueError naming the file
        arr = _load_npy(path)
        if arr.dtype == np.uint8 and arr.ndim == 2 and arr.shape[1] in (16, 32, 64, 128, 256):
            block_bytes = int(arr.shape[1])
    return [open_dump(path, _need_block(block_bytes, path), allow_partial=allow_partial)]


def _read_npz(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    b = _need_block(block_bytes, path)
    out: List["AnyDump"] = []
    for key, arr in read_npz(str(path), "a valid .npz file").items():
        out.append(
            dump_from_bytes(arr, b, path=path, name=f"{path.name}:{key}", format="npz", allow_partial=allow_partial)
        )
    return out


def _read_safetensors(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    import struct

    b = _need_block(block_bytes, path)
    size = path.stat().st_size
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) < 8:
            raise ValueError(f"{str(path)!r} is not a safetensors file (shorter than its 8-byte header length)")
        n = struct.unpack("<Q", raw)[0]
        if n > size - 8 or n > 100 << 20:
            raise ValueError(f"{str(path)!r}: safetensors header length {n} exceeds the file ({size} bytes)")
        head = parse_json(f.read(n), f"{str(path)!r}: the safetensors header")
    if not isinstance(head, dict):
        raise ValueError(f"{str(path)!r}: the safetensors header is not a JSON object")
    tensors = []
    for key, t in head.items():
        if key == "__metadata__":
            continue
        try:
            lo, hi = (check_int("data_offsets", v, 0) for v in t["data_offsets"])
        except (TypeError, KeyError, ValueError):
            raise ValueError(f"{str(path)!r}: tensor {key!r} has no valid data_offsets") from None
        if not 0 <= lo <= hi <= size - 8 - n:
            raise ValueError(f"{str(path)!r}: tensor {key!r} bytes [{lo}, {hi}) lie outside the data")
        tensors.append((lo, hi, key))
    out = [
        open_dump(path, b, offset=8 + n + lo, length=hi - lo, allow_partial=True, name=key)
        for lo, hi, key in sorted(tensors)
    ]
    for d in out:
        d.format = "safetensors"
    return out


def _read_onnx(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    b = _need_block(block_bytes, path)
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise ImportError(
            f"{str(path)!r}: reading ONNX initializers needs the onnx package: pip install memcomp[onnx]"
        ) from None
    model = onnx.load(str(path), load_external_data=False)
    out: List["AnyDump"] = []
    for t in model.graph.initializer:
        arr = numpy_helper.to_array(t)  # little-endian bytes, as the tensor sits in memory
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
        out.append(dump_from_bytes(arr, b, path=path, name=t.name, format="onnx", allow_partial=True))
    return out


def _read_directory(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    manifest = path / "manifest.json"
    if manifest.exists():  # written by memcomp.capture: names and order
        out = []
        for file, name in _manifest_items(manifest):
            out.append(open_dump(path / file, _need_block(block_bytes, path), allow_partial=True, name=name))
        return out
    out = []
    for f in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
        out.extend(_read_file(f, block_bytes, allow_partial))
    return out


def _manifest_items(manifest: pathlib.Path) -> List[tuple]:
    """(file, name) of every dataset a capture manifest lists; ValueError naming the manifest and
    the field for a malformed one."""
    data = parse_json(read_text(manifest, "a capture manifest (JSON)"), str(manifest))
    items = data.get("datasets") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError(f'{str(manifest)!r}: \'datasets\' must be a list of {{"file", "name"}} objects')
    out = []
    for i, it in enumerate(items):
        file, name = (it.get("file"), it.get("name")) if isinstance(it, dict) else (None, None)
        if (
            not isinstance(file, str)
            or not isinstance(name, str)
            or not file
            or pathlib.Path(file).name != file
            or file in (".", "..")
        ):
            raise ValueError(
                f"{str(manifest)!r}: 'datasets[{i}]' must have a 'name' and the 'file' name of a file in the directory"
            )
        out.append((file, name))
    return out


def _read_file(path: pathlib.Path, block_bytes: Optional[int], allow_partial: bool) -> List["AnyDump"]:
    if path.is_dir():
        return _read_directory(path, block_bytes, allow_partial)
    return _READERS.get(path.suffix.lower(), _read_raw)(path, block_bytes, allow_partial)


def open_dumps(*paths: Any, block_bytes: Optional[int] = None, allow_partial: bool = False) -> List["AnyDump"]:
    """Every dataset of the given paths, directories and glob patterns (``"dumps/*.bin"``), in
    order, through the reader of each file's suffix (module doc). ``block_bytes`` may be left out
    only for ``(N, L)`` uint8 ``.npy`` traces. Raises FileNotFoundError for a path or pattern that
    matches nothing."""
    import glob

    if block_bytes is not None:
        block_bytes = check_block_bytes(block_bytes)
    allow_partial = check_bool("allow_partial", allow_partial)
    flat: List[Any] = []
    for p in paths:
        flat.extend(p if isinstance(p, (list, tuple)) else [p])
    if not flat:
        raise ValueError("give at least one dump path")
    out: List["AnyDump"] = []
    for p in flat:
        text = str(_as_path(p))
        matches = sorted(glob.glob(text)) if any(ch in text for ch in "*?[") else [text]
        if not matches or not os.path.exists(matches[0]):
            raise FileNotFoundError(f"no such dump file or directory: {text!r}")
        for m in matches:
            out.extend(_read_file(pathlib.Path(m), block_bytes, allow_partial))
    return out


for _suffix, _reader in (
    (".npy", _read_npy),
    (".npz", _read_npz),
    (".safetensors", _read_safetensors),
    (".onnx", _read_onnx),
):
    register_reader(_suffix, _reader)


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
            handle.write(flat.data)
    return int(flat.shape[0])


def _as_path(path: Any) -> pathlib.Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    return pathlib.Path(path)


def _map_npy(file: pathlib.Path, dtype_check: bool) -> tuple[np.ndarray, np.dtype]:
    """Map a ``.npy`` file; return its data as flat ``uint8`` and its dtype."""
    header_dtype = _read_npy_dtype(file)
    if header_dtype is not None:
        # Checked before np.load, which cannot map object arrays at all.
        _check_npy_dtype(file, header_dtype, dtype_check)
    array = _load_npy(file)
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
                f"{str(file)!r} ends in .npy but is not a valid .npy file ({err}); rename it to open it as a raw dump"
            ) from None
        try:
            if version == (1, 0):
                return fmt.read_array_header_1_0(handle)[2]
            if version == (2, 0):
                return fmt.read_array_header_2_0(handle)[2]
        except ValueError as err:
            raise ValueError(f"{str(file)!r} has a malformed .npy header ({err})") from None
        if version != (3, 0):
            raise ValueError(
                f"{str(file)!r} ends in .npy but is not a valid .npy file (format version "
                f"{version}); rename it to open it as a raw dump"
            )
    return None


def _load_npy(file: pathlib.Path) -> np.ndarray:
    """``np.load(file, mmap_mode="r")`` without pickles; ValueError naming the file for a malformed
    one (a header that promises more bytes than the file holds included)."""
    try:
        return np.load(file, mmap_mode="r", allow_pickle=False)
    except (ValueError, EOFError, OverflowError, SyntaxError) as err:
        raise ValueError(f"{str(file)!r} is not a readable .npy file ({type(err).__name__}: {err})") from None


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
