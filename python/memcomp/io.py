"""Memory dumps on disk as blocks.

:func:`open_dump` maps a raw binary dump (any extension) or a ``.npy`` file
read-only and exposes it as zero-copy ``(n_blocks, B)`` ``uint8`` blocks,
so dumps larger than RAM can be analysed chunk by chunk with
:meth:`Dump.chunks`, which reads each chunk from the file (a file truncated
meanwhile raises OSError naming it). :func:`save_dump` writes an array's bytes
back to disk.

:func:`open_dumps` opens many datasets at once: paths, directories and glob
patterns (a name that exists is that file, ``x[1].bin`` included; only a name
that does not exist is a pattern), one :class:`Dump` (one ``dataset``) per
file, or per array or tensor of a container file, through a reader chosen by
the file's suffix:

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
                    ``pip install memcomp[onnx]``); external data is read
                    from the model's directory
a directory         its files but dotfiles, sorted; a ``manifest.json``
                    written by :mod:`memcomp.capture` gives names and order
==================  ============================================================

A reader for another format is a function ``reader(path, block_bytes,
allow_partial) -> list[Dump]`` registered with :func:`register_reader`; build
each Dump with :func:`dump_from_bytes` or :func:`open_dump`. Every Dump knows
its provenance (:meth:`Dump.provenance`: dataset, file, format, byte range).
A malformed file raises ValueError naming it (a corrupt or truncated
compressed stream: :class:`~memcomp.CorruptStreamError`, a ValueError); one
that cannot be read, OSError naming it.
In weight files (safetensors, ONNX) a tensor whose size is not a multiple of
the block size keeps its whole blocks (``dropped_bytes`` records the tail):
tensor sizes are the model's, not the user's choice.
"""

from __future__ import annotations

import contextlib
import errno
import math
import mmap as mmap_module
import os
import pathlib
import re
import stat
import sys
from collections.abc import Iterator
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from ._common import (
    check_bool,
    check_chunk_blocks,
    check_int,
    check_path,
    parse_json,
    read_npy_header,
    read_npz,
    read_text,
)
from .blocks import as_blocks, byte_view, check_block_bytes

__all__ = ["Dump", "StreamDump", "dump_from_bytes", "open_dump", "open_dumps", "register_reader", "save_dump"]

PathLike = Union[str, bytes, "os.PathLike[str]"]

_NPY_SUFFIX = ".npy"
#: A mapped dump's chunks are read in pieces of this many bytes, in parallel.
_READ_PIECE = 4 << 20


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
    * ``blocks``: the zero-copy, read-only ``uint8`` block view: of a mapped
      file, the map itself, which is only as safe as the file (reading it after
      another process truncated the file kills the process with SIGBUS);
      :meth:`chunks` reads the file instead and raises OSError.

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
        # set by open_dump for mapped files: the mmap, where the blocks start in it, the file
        # offsets of their first and past-the-last byte (a file truncated below the end would
        # fault on access to the map: SIGBUS) and the file's identity (st_dev, st_ino)
        self._mmap = None
        self._map_delta = 0
        self._file_begin = 0
        self._file_end = 0
        self._file_id: tuple | None = None

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
        """Yield consecutive read-only ``(m, block_bytes)`` chunks, in order.

        Every chunk has ``chunk_blocks`` blocks except possibly the last one.
        Together the chunks cover every block exactly once. A mapped file's
        chunks are read from the file into buffers (each reused once no chunk
        of it is referenced any more), not taken from the map: a file truncated
        or replaced while it is read raises OSError naming it instead of killing
        the process (SIGBUS), and the resident size stays a few chunks whatever
        the dump's size. An in-memory dump's chunks are zero-copy views.
        ``release`` is kept for compatibility: no chunk holds mapped pages.
        """
        step = check_chunk_blocks(chunk_blocks)
        check_bool("release", release)
        blocks = self.blocks
        if self._mmap is None:
            return (blocks[start : start + step] for start in range(0, len(blocks), step))
        return self._read_chunks(step)

    def read_blocks(self, start: int = 0, stop: Optional[int] = None) -> np.ndarray:
        """Blocks ``[start, stop)`` (default: all) as a ``(m, block_bytes)`` array in memory: read
        from a mapped file (a copy; a file truncated or replaced meanwhile raises OSError naming
        it, never SIGBUS), a read-only view of an in-memory dump. What an analysis that needs the
        blocks all at once (fitting a model, SLC's compress, a per-block scatter) reads."""
        start = check_int("start", start, 0, self.n_blocks)
        stop = self.n_blocks if stop is None else check_int("stop", stop, start, self.n_blocks)
        blocks = self.blocks
        if self._mmap is None:
            return blocks[start:stop]
        B = self.block_bytes
        out = np.empty((stop - start, B), np.uint8)
        with open(self.path, "rb", buffering=0) as f:
            st = os.fstat(f.fileno())
            if (st.st_dev, st.st_ino) != self._file_id:
                raise OSError(f"{str(self.path)!r} was replaced by another file since it was opened; open it again")
            self._read_into(f, out.reshape(-1), self._file_begin + start * B)
        return out

    def _read_chunks(self, step: int) -> Iterator[np.ndarray]:
        B, n = self.block_bytes, self.n_blocks
        pool: List[np.ndarray] = []  # buffers: two in turn when each chunk is dropped after the next is read
        pieces = -(-min(step, n) * B // _READ_PIECE)
        workers = min(os.cpu_count() or 1, pieces) if hasattr(os, "preadv") else 1
        with open(self.path, "rb", buffering=0) as f, contextlib.ExitStack() as stack:
            st = os.fstat(f.fileno())
            if (st.st_dev, st.st_ino) != self._file_id:
                raise OSError(f"{str(self.path)!r} was replaced by another file since it was opened; open it again")
            ex = None
            if workers > 1:
                from concurrent.futures import ThreadPoolExecutor

                ex = stack.enter_context(ThreadPoolExecutor(workers, thread_name_prefix="memcomp-read"))
            # A buffer is free once no chunk (nor any view of one: their base is the buffer) holds
            # it: its reference count is then what the pool and this loop alone give, measured
            # here on a probe in the same loop rather than assumed (interpreters count differently).
            idle = 0
            for probe in [np.empty(0, np.uint8)]:
                idle = sys.getrefcount(probe)
            for start in range(0, n, step):
                m = min(step, n - start)
                for buf in pool:
                    if sys.getrefcount(buf) == idle:  # no chunk of it is alive
                        break
                else:
                    buf = np.empty(min(step, n) * B, np.uint8)
                    pool = [*pool[-3:], buf]  # a chunk kept by the caller keeps its buffer, not the pool
                self._read_chunk(f, ex, buf[: m * B], self._file_begin + start * B)
                chunk = buf[: m * B].reshape(m, B)
                chunk.flags.writeable = False
                yield chunk
                del chunk

    def _read_chunk(self, f: Any, ex: Any, out: np.ndarray, pos: int) -> None:
        """Fills ``out`` with the file's bytes from ``pos`` on, in pieces read in parallel by the
        executor ``ex`` (os.preadv releases the GIL) or, without one, in one go."""
        if ex is None:
            self._read_into(f, out, pos)
            return
        lows = range(0, out.size, _READ_PIECE)
        for _ in ex.map(
            self._read_into, [f] * len(lows), [out[lo : lo + _READ_PIECE] for lo in lows], [pos + lo for lo in lows]
        ):
            pass

    def _read_into(self, f: Any, out: np.ndarray, pos: int) -> None:
        """Fills ``out`` with the file's bytes from ``pos`` on (positioned reads where the platform
        has them, so threads can share ``f``); OSError naming the file if it ends first."""
        preadv = getattr(os, "preadv", None)
        if preadv is None:
            f.seek(pos)
        got = 0
        while got < out.size:
            k = preadv(f.fileno(), [out[got:]], pos + got) if preadv else f.readinto(out[got:])
            if not k:
                self.check_intact()  # truncated: says to what size
                raise OSError(
                    f"{str(self.path)!r} ended at byte {pos + got} while being read; its blocks need "
                    f"{self._file_end} bytes (was the dump rewritten by another process?)"
                )
            got += k

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

    def part(self, start: int, stop: int) -> "Dump":
        """Blocks ``[start, stop)`` as a Dump of the same data (zero-copy): what a Dask task gets.
        A part of a mapped file pickles as a re-open of its byte range, not as its bytes."""
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
        d._mmap, d._map_delta, d._file_id = self._mmap, self._map_delta + start * B, self._file_id
        d._file_begin = self._file_begin + start * B
        d._file_end = d._file_begin + d.nbytes
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

    Files ending in ``.npy`` have their header checked against the file and
    their array bytes mapped in memory order; any other file is mapped as raw
    bytes. Nothing is read into memory up front. Compressed files
    (``.gz``, ``.bz2``, ``.xz``, ``.zst``), pipes, FIFOs, character devices
    and ``/proc`` files are read once as a :class:`StreamDump`, whose first
    block is read here: a stream with no whole block is a dump of 0 blocks
    (or the trailing-bytes error), as an empty file is.

    Args:
        path: the file to open (str, bytes or os.PathLike).
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
        ValueError: invalid ``block_bytes`` or ``offset``, an empty ``path``,
            a malformed ``.npy`` header or one that describes more bytes than
            the file holds, a Fortran-ordered ``.npy`` array, or trailing bytes
            with ``allow_partial=False``.
        CorruptStreamError: a compressed stream that is corrupt or truncated
            (a ValueError; raised by the read that finds it).
    """
    file = _as_path(path)
    size = check_block_bytes(block_bytes)
    allow_partial = check_bool("allow_partial", allow_partial)
    dtype_check = check_bool("dtype_check", dtype_check)
    name = _check_name(name)
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
        stream = StreamDump(file, size, allow_partial=allow_partial, name=name)
        stream._peek()
        return stream

    source_dtype: np.dtype | None = None
    if file.suffix.lower() == _NPY_SUFFIX:
        source_dtype, _, base, available = _npy_layout(file, dtype_check)
        fmt = "npy"
    else:
        fmt, base, available = "raw", 0, file.stat().st_size

    if offset > available:
        where = "array data" if fmt == "npy" else "file"
        raise ValueError(f"offset={offset} is past the end of the {where} of {str(file)!r} ({available} bytes)")
    usable = available - offset
    if length is not None:
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

    mapped = None
    if length == 0:
        # np.memmap cannot map zero bytes; an empty view stands in for it.
        flat = np.empty(0, dtype=np.uint8)
        flat.flags.writeable = False
    else:
        mapped = np.memmap(file, dtype=np.uint8, mode="r", offset=base + offset, shape=(length,))
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
    if mapped is not None:
        st = os.stat(file)
        dump._mmap = mapped._mmap  # type: ignore[attr-defined]
        dump._map_delta = (base + offset) % mmap_module.ALLOCATIONGRANULARITY  # np.memmap maps from there
        dump._file_begin, dump._file_end = base + offset, base + offset + length
        dump._file_id = (st.st_dev, st.st_ino)
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
class _ZstdFrames:
    """The frames of a ``.zst`` file one after another (a zstd file is a sequence of frames, RFC
    8878 §3.1), decompressed from pieces of :attr:`PIECE` compressed bytes: zstd expands a byte at
    most about 32,768 times, so a piece never inflates past 128 MiB. ``read`` raises EOFError when
    the file ends inside a frame (a truncated stream) and ``zstandard.ZstdError`` for a corrupt one."""

    PIECE = 4096

    def __init__(self, path: pathlib.Path, zstandard: Any) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 (closed by close())
        self._new = zstandard.ZstdDecompressor().decompressobj
        self._frame: Any = None  # the decompressor of the frame being read; None between frames
        self._out = bytearray()

    def read(self, n: int) -> bytes:
        while len(self._out) < n:
            piece = self._file.read(self.PIECE)
            if not piece:
                if self._frame is not None:
                    raise EOFError("the file ends inside a zstd frame")
                break
            while piece:  # a piece may end one frame and start the next
                if self._frame is None:
                    self._frame = self._new()
                self._out += self._frame.decompress(piece)
                if not self._frame.eof:
                    break
                piece, self._frame = self._frame.unused_data, None
        out = bytes(self._out[:n])
        del self._out[:n]
        return out

    def close(self) -> None:
        self._file.close()


def _open_compressed(path: pathlib.Path, suffix: str) -> tuple:
    """(reader, errors): the decompressing reader of a compressed dump and the exceptions its
    ``read`` raises for a corrupt or truncated stream (besides OSError without an errno, which
    gzip and bz2 raise for data that is not theirs)."""
    import zlib

    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rb"), (EOFError, zlib.error)
    if suffix == ".bz2":
        import bz2

        return bz2.open(path, "rb"), (EOFError,)
    if suffix == ".xz":
        import lzma

        return lzma.open(path, "rb"), (EOFError, lzma.LZMAError)
    try:
        import zstandard
    except ImportError:
        raise ImportError(
            f"{str(path)!r}: reading .zst dumps needs the zstandard package: pip install memcomp[zstd]"
        ) from None
    return _ZstdFrames(path, zstandard), (EOFError, zstandard.ZstdError)


_COMPRESSED = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}

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
        self.format = _COMPRESSED.get(path.suffix.lower(), "stream")
        self.offset = 0
        self.dropped_bytes = 0
        self.n_blocks: int | None = None
        self.nbytes: int | None = None
        self.allow_partial = allow_partial
        self._file: Optional[Any] = None
        self._errors: tuple = ()  # what the decompressor raises for a corrupt or truncated stream
        self._buffer = b""  # bytes read by head() and not streamed yet
        self._read = 0  # bytes read from the source so far
        self._eof = False  # the source has ended
        self._started = False

    def again(self) -> "StreamDump":
        """The same stream from its start, for an analysis that reads its data twice (MPC's
        training): a compressed regular file is decompressed again; a pipe, FIFO or device, which
        can be read only once, is a ValueError."""
        text = str(self.path)
        if _FD_PATH.fullmatch(text) or not os.path.isfile(text) or self.path.suffix.lower() not in _COMPRESSED:
            raise ValueError(
                f"{text!r} is a stream that can be read only once, and this analysis reads its data twice: "
                "save it to a file first"
            )
        return StreamDump(self.path, self.block_bytes, allow_partial=self.allow_partial, name=self.name)

    def _source(self):
        if self._file is None:
            suffix = self.path.suffix.lower()
            if suffix in _COMPRESSED:
                self._file, self._errors = _open_compressed(self.path, suffix)
            else:
                self._file = open(self.path, "rb")  # noqa: SIM115 (closed by close())
        return self._file

    def _take(self, n: int) -> bytes:
        parts, got = [], 0
        while got < n and not self._eof:
            piece = self._read_source(n - got)
            if not piece:
                self._eof = True
                break
            parts.append(piece)
            got += len(piece)
            self._read += len(piece)
        return b"".join(parts)

    def _read_source(self, n: int) -> bytes:
        """At most ``n`` bytes from the source; CorruptStreamError naming the file for a corrupt or
        truncated compressed stream, OSError naming it for a failed read."""
        src = self._source()
        try:
            return src.read(n)
        except OSError as e:
            self._fail()
            if e.errno is None and self.format != "stream":  # gzip's and bz2's "not my data"
                raise self._corrupt(e) from None
            if e.filename is not None:
                raise
            if e.errno is not None:
                raise OSError(e.errno, e.strerror, str(self.path)) from None
            raise OSError(f"{str(self.path)!r}: {e}") from None
        except self._errors as e:
            self._fail()
            raise self._corrupt(e) from None

    def _fail(self) -> None:
        """After a failed read: closed, and refused as read already (never re-read from the start)."""
        self.close()
        self._started = True

    def _corrupt(self, e: Exception) -> Exception:
        from ._core import CorruptStreamError

        if isinstance(e, EOFError):
            why = f"is truncated: its {self.format} stream ends before it is complete"
        else:
            detail = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
            why = f"is not a valid {self.format} stream ({detail})"
        return CorruptStreamError(f"{str(self.path)!r} {why}")

    def _peek(self) -> None:
        """Reads the first block, so a stream that holds none is known when it is opened: a dump of
        0 blocks (with ``allow_partial``, or when empty) or the trailing-bytes error, as for a file."""
        self._buffer = self._take(self.block_bytes)
        if len(self._buffer) < self.block_bytes:  # the source has ended
            self._finish(0, len(self._buffer))

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
        check_bool("release", release)
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
        self._finish(blocks, len(pending) - pos)

    def _finish(self, blocks: int, tail: int) -> None:
        """The source has ended after ``blocks`` whole blocks and ``tail`` more bytes."""
        B = self.block_bytes
        self.n_blocks, self.nbytes, self.dropped_bytes = blocks, blocks * B, tail
        self.close()
        if tail and not self.allow_partial:
            raise ValueError(
                f"{str(self.path)!r} ended with {tail} trailing byte(s) after {blocks} whole "
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
        dtype, shape = _npy_layout(path, True)[:2]
        if dtype == np.uint8 and len(shape) == 2 and shape[1] in (16, 32, 64, 128, 256):
            block_bytes = int(shape[1])
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
    """One dataset per initializer; external data is read from the model's directory (ONNX's
    external data format names files relative to the model). ValueError naming the file for a
    model that is not valid protobuf or an initializer that cannot be read; FileNotFoundError
    naming the external data file that is not there."""
    b = _need_block(block_bytes, path)
    try:
        import onnx
        from google.protobuf.message import Error as ProtobufError  # type: ignore[import-untyped,unused-ignore]
        from onnx import numpy_helper
    except ImportError:
        raise ImportError(
            f"{str(path)!r}: reading ONNX initializers needs the onnx package: pip install memcomp[onnx]"
        ) from None
    try:
        model = onnx.load(str(path), load_external_data=False)
    except (ProtobufError, ValueError, TypeError, RecursionError) as e:
        raise ValueError(f"{str(path)!r} is not a valid ONNX model ({type(e).__name__}: {str(e)[:200]})") from None
    out: List["AnyDump"] = []
    for t in model.graph.initializer:
        where = f"{str(path)!r}: initializer {t.name[:80]!r}"
        if not isinstance(t.name, str):  # protobuf hands over a string field that is not UTF-8 as bytes
            raise ValueError(f"{where}: its name is not UTF-8 text")
        if t.data_location == onnx.TensorProto.EXTERNAL:
            where += f" (external data {_onnx_external_file(path, t, where)!r})"
        try:
            arr = numpy_helper.to_array(t, base_dir=str(path.parent))  # little-endian, as the tensor sits in memory
            if arr.dtype.hasobject:
                raise TypeError(f"it holds {arr.dtype} values, not memory contents")
            arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
        except (
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            OverflowError,
            MemoryError,
            onnx.checker.ValidationError,
        ) as e:
            raise ValueError(f"{where} cannot be read ({type(e).__name__}: {str(e)[:200]})") from None
        out.append(dump_from_bytes(arr, b, path=path, name=t.name, format="onnx", allow_partial=True))
    return out


#: The keys of an ONNX tensor's external data (the ONNX IR's TensorProto.external_data; basepath is
#: written by onnx's own tools).
_ONNX_EXTERNAL_KEYS = {"location", "offset", "length", "checksum", "basepath"}


def _onnx_external_file(path: pathlib.Path, t: Any, where: str) -> str:
    """The file beside the model ``path`` that holds the initializer ``t``'s data: ValueError
    (``where`` names the model and the initializer) for an unknown key or a location outside the
    model's directory, FileNotFoundError naming a file that is not there."""
    unknown = [e.key for e in t.external_data if e.key not in _ONNX_EXTERNAL_KEYS]  # str, or bytes if not UTF-8
    if unknown:
        raise ValueError(
            f"{where} has external data keys {str(unknown)[:200]}; ONNX defines {sorted(_ONNX_EXTERNAL_KEYS)}"
        )
    location = next((e.value for e in t.external_data if e.key == "location"), "")
    if not isinstance(location, str):
        raise ValueError(f"{where}: its external data location {location[:200]!r} is not UTF-8 text")
    inside = os.path.normpath(location)
    if os.path.isabs(inside) or inside.split(os.sep)[0] == "..":
        raise ValueError(
            f"{where} keeps its data in {location[:200]!r}, outside the model's directory (ONNX external data "
            "is named relative to it)"
        )
    if not location or not (path.parent / location).is_file():
        raise FileNotFoundError(
            errno.ENOENT,
            f"the external data of initializer {t.name[:80]!r} of {str(path)!r} is not a file next to the model",
            str(path.parent / location),
        )
    return location


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
    order, through the reader of each file's suffix (module doc). A path that exists is always
    that file or directory, whatever characters its name holds (``x[1].bin``); only one that does
    not exist is a pattern. ``block_bytes`` may be left out only for ``(N, L)`` uint8 ``.npy``
    traces. Raises FileNotFoundError for a path or pattern that matches nothing."""
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
        pattern = not os.path.lexists(text) and any(ch in text for ch in "*?[")
        matches = sorted(glob.glob(text)) if pattern else [text]
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
    """``path`` (str, bytes or os.PathLike) as a Path; an empty one is refused (pathlib would make
    it ".", the current directory)."""
    return pathlib.Path(check_path("path", path))


def _check_name(name: Any) -> Optional[str]:
    """A dataset name: None (the file's) or a non-empty str."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the dataset's name) or None, got {type(name).__name__}")
    if not name:
        raise ValueError("name must not be empty (a dataset's name); leave it out to use the file's")
    return name


def _npy_layout(file: pathlib.Path, dtype_check: bool) -> tuple:
    """(dtype, shape, offset of the array data, its bytes) of a ``.npy`` file, its header read as
    NumPy writes one (:func:`memcomp._common.read_npy_header`) and checked against the file without
    loading or mapping anything: ValueError naming the file for a malformed header, one that
    describes more bytes than the file holds, or a Fortran-ordered array whose bytes are not in C
    order; TypeError for a dtype that is not memory contents."""
    with open(file, "rb") as handle:
        file_bytes = os.fstat(handle.fileno()).st_size
        if handle.read(6) != b"\x93NUMPY":
            raise ValueError(
                f"{str(file)!r} ends in .npy but is not a valid .npy file (no .npy magic); rename it to open it as "
                "a raw dump"
            )
        handle.seek(0)
        shape, fortran, dtype, data_start = read_npy_header(handle, repr(str(file)), file_bytes)
    _check_npy_dtype(file, dtype, dtype_check)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > file_bytes - data_start:
        raise ValueError(
            f"{str(file)!r}: its .npy header describes {nbytes} bytes of array data (shape {shape}, "
            f"dtype {dtype}), the file holds {file_bytes - data_start} after the header"
        )
    if fortran and sum(d > 1 for d in shape) > 1:
        raise ValueError(
            f"{str(file)!r} stores a Fortran-ordered array of shape "
            f"{shape}, whose bytes are not in C order; re-save it with "
            "np.save(path, np.ascontiguousarray(array))"
        )
    return dtype, shape, data_start, nbytes


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
