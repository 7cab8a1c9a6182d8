"""Helpers every analysis shares (DESIGN "One place per shared helper"): argument checks with
messages that say what to pass, the ``(n, B)`` array behind a Dump, and chunked iteration."""

from __future__ import annotations

import ast
import errno
import hashlib
import inspect
import json
import math
import numbers
import os
import re
import struct
import zipfile
import zlib
from fractions import Fraction
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from ._version import __version__


class MemcompWarning(UserWarning):
    """Base of memcomp's own warnings (a skipped preset, a misleading metric): the command line
    prints each as one line, whatever the warning filters say about other warnings."""


def check_int(name: str, value: Any, lo: Optional[int] = None, hi: Optional[int] = None) -> int:
    """``value`` as a Python int: ints and NumPy integers only (no bool, float or str), within
    ``[lo, hi]``. TypeError / ValueError name the argument and the accepted range."""
    if hi is None:
        what = {None: "an integer", 0: "a non-negative integer", 1: "a positive integer"}.get(lo, f"an integer >= {lo}")
    else:
        what = f"an integer in [{lo}, {hi}]" if lo is not None else f"an integer <= {hi}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be {what}, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {what}, got {v}")
    return v


def check_float(
    name: str, value: Any, lo: Optional[float] = None, hi: Optional[float] = None, *, lo_open: bool = False
) -> float:
    """``value`` as a finite Python float: real numbers only (no bool or str, no NaN or infinity),
    within ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``)."""
    low = "" if lo is None else f"{'>' if lo_open else '>='} {lo}"
    what = f"a finite number{' ' + low if low else ''}{' and <= ' + str(hi) if hi is not None else ''}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be {what}, got {value!r} of type {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or (lo is not None and (v <= lo if lo_open else v < lo)) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {what}, got {v}")
    return v


def has_buffer(obj: Any) -> bool:
    """True if ``obj`` exposes the buffer protocol (bytes, bytearray, memoryview, array.array...)."""
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def check_threads(threads: Any) -> Optional[int]:
    """Worker threads: None (every core) or an integer in [1, 4096]."""
    return None if threads is None else check_int("threads", threads, 1, 4096)


def each_on_threads(fn: Callable[[Any, Optional[int]], Any], items: Sequence[Any], threads: Optional[int]) -> List[Any]:
    """``[fn(item, inner) for item in items]``, the items side by side on up to ``threads``
    workers (None: every core), each call given ``inner`` threads of its own: the cores each
    worker has (``threads`` when the items run one after the other: one item, or one core).
    For independent jobs with serial parts (a bus's wire states run block after block) the jobs
    overlap instead of each one's serial part leaving the other cores idle. The results come in
    the items' order, whatever the schedule."""
    cores = threads if threads is not None else (os.cpu_count() or 1)
    workers = min(len(items), cores)
    if workers <= 1:
        return [fn(item, threads) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    inner = max(1, cores // workers)
    with ThreadPoolExecutor(workers, thread_name_prefix="memcomp-job") as ex:
        return list(ex.map(lambda item: fn(item, inner), items))


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``choices``: TypeError for a non-string, ValueError
    naming the choices otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {value!r} of type {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


ENDIANS = ("little", "big")


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool: True or False (NumPy bools too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} of type {type(value).__name__}")
    return bool(value)


def _finite_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number {text} is out of range (JSON numbers must be finite)")
    return v


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def parse_json(text: Any, where: str) -> Any:
    """JSON text (str or UTF-8 bytes) as Python objects; ValueError naming ``where`` for text
    that is not JSON, nests too deeply, or holds NaN, Infinity or out-of-range numbers."""
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8")
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, non-finite numbers, integers of too many digits
        raise ValueError(f"{where}: not valid JSON ({e})") from None


def read_text(path: Any, what: str) -> str:
    """The UTF-8 text of the file ``path`` (``what`` says what it should hold): OSError
    (FileNotFoundError, IsADirectoryError...) naming the file, ValueError for a binary one."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise IsADirectoryError(errno.EISDIR, f"is a directory, not {what}", name)
    with open(name, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{name}: not {what} (not UTF-8 text: {e.reason} at byte {e.start})") from None


def check_path(name: str, path: Any) -> str:
    """A file name given as a str, bytes (decoded as :func:`os.fsdecode` does) or os.PathLike, as
    a str; TypeError naming the argument for anything else, ValueError for an empty name."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str, bytes or os.PathLike), got {type(path).__name__}")
    text = os.fsdecode(os.fspath(path))
    if not text:
        raise ValueError(f"{name} must be a file name, got an empty path")
    return text


def refuse_masked(value: Any, name: str = "blocks") -> Any:
    """``value``, unless it is a masked array, whose mask an analysis of bytes would ignore:
    TypeError naming ``name`` then (as :func:`memcomp.as_blocks` refuses it)."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array and its mask would be ignored; pass {name}.filled(fill_value) "
            f"or {name}.data explicitly"
        )
    return value


#: Deflate turns no bit pair into more than one 258-byte match (RFC 1951): at most 1032 bytes out
#: per byte in, so a zip member's compressed size bounds the bytes it can inflate to.
_DEFLATE_MAX_RATIO = 1032


def read_npz(
    where: str, what: str, error: type = ValueError, max_members: Optional[int] = None
) -> Dict[str, np.ndarray]:
    """The arrays of the .npz file ``where`` (read-only), read without pickles. Nothing is inflated
    for a member before its .npy header and the zip's sizes agree on how many bytes it holds (NumPy
    writes stored or deflated members, and deflate's ratio is bounded), so a small file cannot make
    this allocate more than its members honestly hold. ``error`` (a ValueError) names the file for a
    malformed one; OSError for one that cannot be read (FileNotFoundError, IsADirectoryError)."""
    if os.path.isdir(where):
        raise IsADirectoryError(errno.EISDIR, f"is a directory, not {what}", where)
    size = os.path.getsize(where)  # FileNotFoundError naming the file
    bad = f"{where}: not {what}"
    if size == 0:
        raise error(f"{bad}: the file is empty")
    try:
        with zipfile.ZipFile(where) as zf:
            members = zf.infolist()
            if max_members is not None and len(members) > max_members:
                raise error(f"{bad}: {len(members)} members")
            out = {}
            for info in members:
                name = info.filename[:80]
                key = info.filename[:-4]
                if not info.filename.endswith(".npy"):
                    raise error(f"{bad}: member {name!r} is not an array")
                if key in out:
                    raise error(f"{bad}: member {name!r} appears twice")
                _check_member_sizes(bad, info, size, error)
                with zf.open(info) as member:
                    out[key] = _npy_array(f"{where}: array {key[:80]!r}", member, info.file_size, error)
            return out
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        OverflowError,
        MemoryError,
        struct.error,
        zlib.error,
        OSError,
    ) as e:
        if isinstance(e, error):
            raise
        if isinstance(e, OSError) and e.errno != errno.EINVAL:  # a read that failed, not a malformed file
            raise
        raise error(f"{bad}: {type(e).__name__}: {e}") from None


def _check_member_sizes(bad: str, info: zipfile.ZipInfo, size: int, error: type) -> None:
    """``error`` unless the zip member ``info`` is stored or deflated and its sizes are possible
    in a file of ``size`` bytes: what it inflates to is then bounded before a byte is inflated."""
    name, n, packed = info.filename[:80], info.file_size, info.compress_size
    if info.compress_type == zipfile.ZIP_STORED:
        if n != packed or n > size:
            raise error(f"{bad}: member {name!r} claims {n} B stored in {packed} B of a {size} B file")
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        if packed > size or n > _DEFLATE_MAX_RATIO * packed:
            raise error(
                f"{bad}: member {name!r} claims {n} B deflated into {packed} B of a {size} B file "
                f"(deflate inflates at most {_DEFLATE_MAX_RATIO} B per byte)"
            )
    else:
        raise error(
            f"{bad}: member {name!r} uses zip compression method {info.compress_type} (NumPy writes stored "
            "or deflated members)"
        )


_NPY_MAGIC = b"\x93NUMPY"
#: numpy.lib.format reads no longer header without allow_pickle.
_NPY_MAX_HEADER = 10000
_NPY_KEYS = {"descr", "fortran_order", "shape"}
#: A dtype string as NumPy writes one (``dtype.str``): no deprecated aliases.
_NPY_DTYPE = re.compile(r"[<>|=]?(?:[biufcSUV][0-9]+|O|[mM]8(?:\[[0-9]*[A-Za-z]+\])?)")
#: What may follow a backslash in a header: escapes valid in str and bytes literals alike (any other
#: would make the parser warn).
_NPY_ESCAPES = frozenset("\\'\"abfnrtvx01234567\n")


def _read_exactly(f: Any, n: int, what: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise EOFError(f"{what} ends after {len(data)} of {n} B")
    return data


def read_npy_header(f: Any, where: str, limit: int, error: type = ValueError) -> tuple:
    """(shape, fortran_order, dtype, header bytes) of the .npy stream ``f`` (at its start), at most
    ``limit`` bytes long, parsed without NumPy's fallback for Python 2 headers (which raises
    tokenize's errors and warns): ``error`` naming ``where`` for a malformed header."""
    from numpy.lib import format as npformat

    try:
        prefix = _read_exactly(f, 8, "the .npy magic")
        if prefix[:6] != _NPY_MAGIC:
            raise ValueError(f"magic {prefix[:6]!r}, not {_NPY_MAGIC!r}")
        version = (prefix[6], prefix[7])
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise ValueError(f"unsupported .npy version {version}")
        width = 2 if version == (1, 0) else 4
        (length,) = struct.unpack("<H" if width == 2 else "<I", _read_exactly(f, width, "the .npy header length"))
        if length > _NPY_MAX_HEADER or 8 + width + length > limit:
            raise ValueError(f"a header of {length} B (at most {_NPY_MAX_HEADER} B, in {limit} B)")
        text = _read_exactly(f, length, "the .npy header").decode("utf-8" if version == (3, 0) else "latin-1")
        if not set(re.findall(r"\\(.)", text, re.S)) <= _NPY_ESCAPES:
            raise ValueError("an invalid escape sequence")
        head = ast.literal_eval(text)
        if not isinstance(head, dict) or set(head) != _NPY_KEYS:
            raise ValueError(f"not a dict of {sorted(_NPY_KEYS)}")
        shape, fortran, descr = head["shape"], head["fortran_order"], head["descr"]
        if not isinstance(shape, tuple) or any(type(d) is not int or d < 0 for d in shape):
            raise ValueError(f"shape {str(shape)[:80]} is not a tuple of non-negative integers")
        if not isinstance(fortran, bool):
            raise ValueError(f"fortran_order {str(fortran)[:80]} is not True or False")
        if not _npy_descr_ok(descr):
            raise ValueError(f"descr {str(descr)[:80]} is not a dtype NumPy writes")
        dtype = npformat.descr_to_dtype(descr)
    except (EOFError, SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise error(f"{where}: malformed .npy header ({type(e).__name__}: {str(e)[:200]})") from None
    return shape, fortran, dtype, 8 + width + length


def _npy_descr_ok(descr: Any) -> bool:
    """Whether ``descr`` is a dtype description as NumPy writes one: a dtype string, or a list of
    (name, descr[, shape]) fields."""
    if isinstance(descr, str):
        return _NPY_DTYPE.fullmatch(descr) is not None
    if not isinstance(descr, list):
        return False
    for field in descr:
        if not isinstance(field, tuple) or len(field) not in (2, 3) or not _npy_descr_ok(field[1]):
            return False
        name = field[0]
        if not (isinstance(name, str) or (isinstance(name, tuple) and all(isinstance(x, str) for x in name))):
            return False
        if len(field) == 3 and not (
            isinstance(field[2], tuple) and all(type(d) is int and 0 <= d < 1 << 31 for d in field[2])
        ):
            return False
    return True


def _npy_array(where: str, f: Any, nbytes: int, error: type) -> np.ndarray:
    """A read-only array from the stream ``f`` of an .npy member of ``nbytes`` bytes; its header
    must describe exactly those bytes before any is read for the data."""
    shape, fortran, dtype, head = read_npy_header(f, where, nbytes, error)
    if dtype.hasobject:
        raise error(f"{where}: holds Python objects (pickles are never loaded)")
    if len(shape) > 1 and fortran:
        raise error(f"{where}: Fortran-ordered {len(shape)}-D array")
    count = math.prod(shape)
    held = nbytes - head
    if count * dtype.itemsize != held:
        raise error(f"{where}: the header describes {count} x {dtype.itemsize} B, the member holds {held} B")
    if dtype.itemsize == 0:  # nothing to read, nothing to allocate
        out = np.empty(shape, dtype)
    else:
        buf = bytearray(held)
        view = memoryview(buf)
        got = 0
        while got < held:  # in slices: what the member inflates to never exceeds what it claims
            part = f.read(min(held - got, 1 << 20))
            if not part:
                raise error(f"{where}: the member ends after {got} of its {held} B of data")
            view[got : got + len(part)] = part
            got += len(part)
        out = np.frombuffer(buf, dtype=dtype, count=count).reshape(shape)
    out.flags.writeable = False
    return out


#: ``progress=`` of a streamed analysis (see :func:`check_progress`).
ProgressArg = Union[None, bool, Callable[[int, int], None]]


def check_progress(progress: Any) -> ProgressArg:
    """``progress=`` of a streamed analysis: None or False (no progress), True (a tqdm.auto bar:
    a widget in Jupyter, a text bar on a terminal) or a callable taking ``(done, total)`` blocks.
    TypeError for anything else, a callable that cannot take two arguments included."""
    if progress is None or isinstance(progress, (bool, np.bool_)):
        return None if progress is None else bool(progress)
    if callable(progress):
        try:
            signature = inspect.signature(progress)
        except (TypeError, ValueError):  # a builtin without a signature: called as it is
            return progress
        try:
            signature.bind(0, 0)
        except TypeError:
            raise TypeError(
                f"progress must be a callable taking (done, total), got {getattr(progress, '__name__', progress)!r} "
                f"with parameters {signature}"
            ) from None
        return progress
    raise TypeError(
        f"progress must be True (a progress bar), False/None or a callable (done, total), "
        f"got {progress!r} of type {type(progress).__name__}"
    )


class Progress:
    """Reports a loop over ``total`` blocks (None: not known yet, a stream) to ``progress`` (see
    :func:`check_progress`), the one place every ``progress=`` argument is served: call it with
    the blocks done so far after each chunk. A callable gets ``(done, total)`` (``total`` = ``done``
    while unknown); True draws a tqdm.auto bar named ``desc``, closed by :meth:`close` or at the
    end of a ``with`` block; None or False do nothing."""

    def __init__(self, progress: Any, total: Optional[int], desc: str) -> None:
        self._fn = check_progress(progress)
        self._total = total
        self._bar = None
        if self._fn and not callable(self._fn):  # True
            from tqdm.auto import tqdm

            # one update a chunk (thousands of blocks), each drawn
            self._bar = tqdm(
                total=total, desc=desc, unit=" blocks", unit_scale=True, leave=False, mininterval=0, miniters=1
            )

    def __call__(self, done: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
        elif callable(self._fn):
            self._fn(done, self._total if self._total is not None else done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def check_chunk_blocks(chunk_blocks: Any) -> int:
    """Blocks per chunk of a streamed analysis: a positive integer."""
    return check_int("chunk_blocks", chunk_blocks, 1)


def block_bytes_of(blocks: Any) -> int:
    """The block size of an array or a Dump (a stream included); ValueError for an array that is
    not 2-D (it has no block size)."""
    if isinstance(blocks, np.ndarray):
        if blocks.ndim != 2:
            raise ValueError(
                f"blocks must be 2-D (n_blocks, block_bytes), got {blocks.ndim}-D; use memcomp.as_blocks(array, "
                "block_bytes)"
            )
        return int(blocks.shape[1])
    if hasattr(blocks, "block_bytes") and hasattr(blocks, "chunks"):
        return int(blocks.block_bytes)
    return int(whole(blocks).shape[-1])


def n_blocks_of(blocks: Any) -> Optional[int]:
    """Blocks of an array or a Dump; None for a stream not read yet."""
    if isinstance(blocks, np.ndarray):
        return int(blocks.shape[0]) if blocks.ndim == 2 else 0
    return getattr(blocks, "n_blocks", None)


#: What data-driven codecs are fitted on when compare() fits them (bounded, so a dump of any size
#: fits in bounded memory): all blocks up to this many bytes, else evenly spaced runs of blocks
#: adding up to it (a stream: its first bytes).
FIT_BYTES = 64 << 20


def sample_index(n_blocks: int, block_bytes: int, fit_bytes: Optional[int] = None) -> Optional[np.ndarray]:
    """The blocks :func:`fit_sample` takes from ``n_blocks`` blocks: None for every block (they fit
    in ``fit_bytes``, default :data:`FIT_BYTES`), else the indices of 256 (fewer if ``fit_bytes``
    holds fewer blocks) evenly spaced, disjoint runs adding up to at most ``fit_bytes``."""
    fit_bytes = FIT_BYTES if fit_bytes is None else fit_bytes  # read at call time: settable
    want = max(1, fit_bytes // max(block_bytes, 1))
    if n_blocks <= want:
        return None
    runs = min(256, want)  # runs of at least one block, so none overlap and none repeats a block
    per = want // runs
    if runs == 1:
        return np.arange(per, dtype=np.int64)
    starts = (np.arange(runs, dtype=np.int64) * (n_blocks - per)) // (runs - 1)
    return (starts[:, None] + np.arange(per, dtype=np.int64)).ravel()


def _size_label(nbytes: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def sample_how(index: Optional[np.ndarray], fit_bytes: Optional[int] = None) -> str:
    fit_bytes = FIT_BYTES if fit_bytes is None else fit_bytes
    return "offline" if index is None else f"sample({_size_label(fit_bytes)})"


def fit_sample(blocks: Any, fit_bytes: Optional[int] = None) -> tuple:
    """(blocks to fit on, how) where how is "offline" (every block), "sample(N MiB)" (evenly spaced
    runs of a larger dump, :func:`sample_index`) or "head(N MiB)" (the first bytes of a stream
    longer than that);
    at most ``fit_bytes`` (default :data:`FIT_BYTES`, read when called)."""
    fit_bytes = FIT_BYTES if fit_bytes is None else fit_bytes
    B = block_bytes_of(blocks)
    if hasattr(blocks, "head") and not isinstance(blocks, np.ndarray):
        head = blocks.head(fit_bytes)
        # a stream with no block after these gave every block (the one more read stays buffered)
        whole_stream = blocks.head(head.nbytes + B).nbytes == head.nbytes
        return head, "offline" if whole_stream else f"head({_size_label(fit_bytes)})"
    arr = whole(blocks)
    idx = sample_index(arr.shape[0], B, fit_bytes)
    if hasattr(blocks, "read_blocks") and not isinstance(blocks, np.ndarray):  # a Dump: read, not mapped
        if idx is None:
            return blocks.read_blocks(), sample_how(idx, fit_bytes)
        runs = np.split(idx, np.flatnonzero(np.diff(idx) != 1) + 1)
        sample = np.concatenate([blocks.read_blocks(int(r[0]), int(r[-1]) + 1) for r in runs])
        return sample, sample_how(idx, fit_bytes)
    if idx is None:
        return arr, sample_how(idx, fit_bytes)
    return np.ascontiguousarray(arr[idx]), sample_how(idx, fit_bytes)


def in_memory(blocks: Any) -> np.ndarray:
    """The blocks as one array in memory, for an analysis that needs them all at once (fitting
    on every block, SLC's compress, a per-block scatter): an ndarray itself, a Dump's blocks read
    from its file (:meth:`memcomp.io.Dump.read_blocks`: a file truncated meanwhile is an OSError
    naming it, never SIGBUS), and for a stream the refusal :func:`whole` gives."""
    if hasattr(blocks, "read_blocks") and not isinstance(blocks, np.ndarray):
        return blocks.read_blocks()
    return whole(blocks)


def whole(blocks: Any) -> np.ndarray:
    """The array behind ``blocks``: a Dump's memory map, or the ndarray itself (not a masked one)."""
    if isinstance(blocks, np.ndarray):
        refuse_masked(blocks)
        return blocks
    if hasattr(blocks, "blocks") and hasattr(blocks, "chunks"):
        arr = blocks.blocks
        if hasattr(blocks, "check_intact"):
            blocks.check_intact()  # a truncated mapped file: OSError now rather than SIGBUS later
        return arr
    raise TypeError(
        f"blocks must be an (n, B) uint8 ndarray or a memcomp Dump, got {type(blocks).__name__}; "
        "use memcomp.as_blocks(array, block_bytes) or memcomp.open_dump(path, block_bytes)"
    )


def chunks(blocks: Any, chunk_blocks: Any) -> Iterator[np.ndarray]:
    """Consecutive zero-copy chunks of ``chunk_blocks`` blocks (the last may be shorter). An array
    always gives at least one chunk, empty or not 2-D included, so the analysis it feeds validates
    it and says what is wrong; so does a Dump or stream (an empty one gives one ``(0, B)`` chunk).
    A Dump releases each chunk's pages once the next is asked for."""
    step = check_chunk_blocks(chunk_blocks)
    if not isinstance(blocks, np.ndarray):
        if not (hasattr(blocks, "chunks") and hasattr(blocks, "block_bytes")):
            whole(blocks)  # raises TypeError for anything but a Dump
        empty = True
        for chunk in blocks.chunks(step):
            empty = False
            yield chunk
        if empty:  # analyses merge at least one partial result, as for an empty array
            yield np.empty((0, int(blocks.block_bytes)), np.uint8)
        return
    refuse_masked(blocks)
    if blocks.ndim != 2:
        yield blocks
        return
    for start in range(0, max(blocks.shape[0], 1), step):
        yield blocks[start : start + step]


def digest(obj: Any) -> str:
    """A short content digest of a JSON-serialisable object (e.g. a fitted model)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _config_digested(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: (digest(v) if k == "model" and isinstance(v, dict) else _config_digested(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_config_digested(v) for v in obj]
    return obj


def provenance(config: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Columns every result row carries: the memcomp version and, for a codec, its config as JSON
    text (fitted models reduced to a digest), so rows of several runs concatenate."""
    out: Dict[str, Any] = {"memcomp_version": __version__}
    if config is not None:
        out["config"] = json.dumps(_config_digested(config), sort_keys=True, separators=(",", ":"))
    return out


def source_of(blocks: Any) -> Dict[str, Any]:
    """Provenance of the data: a Dump's dataset, file, format and byte range; {} for an array."""
    if hasattr(blocks, "provenance") and callable(blocks.provenance) and not isinstance(blocks, np.ndarray):
        return {k: v for k, v in blocks.provenance().items() if k != "block_bytes"}
    return {}


class ExactSum:
    """The exact sum of float64 values, added array by array and merged with ``+`` (a mergeable
    partial result): every finite value is an integer multiple of 2**-1126, so the sum is kept as
    a Python int and :meth:`value` rounds it once. Unlike float addition the result does not depend
    on how the values were split into chunks, threads or Dask tasks."""

    _SCALE = 1126  # 2**-1074 (the smallest subnormal) = 2**-53 * 2**-1021 with frexp's mantissa scaled to 2**53
    _BATCH = 1 << 24  # float64 bincount sums of 26-bit halves stay exact below 2**27 values per bucket

    __slots__ = ("total", "nan", "pos_inf", "neg_inf")

    def __init__(self, values: Any = None, weights: Any = None) -> None:
        self.total, self.nan, self.pos_inf, self.neg_inf = 0, 0, 0, 0
        if values is not None:
            self.add(values, weights)

    def add(self, values: Any, weights: Any = None) -> "ExactSum":
        """Adds every value, or each value ``weights[i]`` times (non-negative integers; the
        same exact sum as adding it that many times)."""
        v = np.asarray(values, dtype=np.float64).ravel()
        if weights is not None:
            w = np.asarray(weights).ravel()
            ws = w.tolist()
            if w.shape != v.shape or w.dtype.kind not in "uiO" or not all(type(n) is int and n >= 0 for n in ws):
                raise ValueError("weights must be non-negative integers, one per value")
            for x, n in zip(v.tolist(), ws):
                if n == 0 or x == 0:
                    continue
                if not math.isfinite(x):
                    self.nan += n if math.isnan(x) else 0
                    self.pos_inf += n if x == math.inf else 0
                    self.neg_inf += n if x == -math.inf else 0
                    continue
                m, e = math.frexp(x)  # as below, one value at a time
                self.total += (int(m * 2.0**53) << (e + 1073)) * n
            return self
        finite = np.isfinite(v)
        if not finite.all():
            self.nan += int(np.isnan(v).sum())
            self.pos_inf += int((v == np.inf).sum())
            self.neg_inf += int((v == -np.inf).sum())
            v = v[finite]
        v = v[v != 0]
        for lo in range(0, v.size, self._BATCH):
            m, e = np.frexp(v[lo : lo + self._BATCH])  # v = m * 2**e, 0.5 <= |m| < 1, m has 53 bits
            mant = (m * 2.0**53).astype(np.int64)
            key = (e + 1073).astype(np.int64)  # e >= -1073 (subnormals included)
            hi = np.bincount(key, weights=(mant >> 26).astype(np.float64))
            low = np.bincount(key, weights=(mant & ((1 << 26) - 1)).astype(np.float64))
            for k in np.flatnonzero((hi != 0) | (low != 0)):
                self.total += ((int(hi[k]) << 26) + int(low[k])) << int(k)
        return self

    def __add__(self, other: "ExactSum") -> "ExactSum":
        if not isinstance(other, ExactSum):
            return NotImplemented
        out = ExactSum()
        out.total = self.total + other.total
        out.nan, out.pos_inf, out.neg_inf = (
            self.nan + other.nan,
            self.pos_inf + other.pos_inf,
            self.neg_inf + other.neg_inf,
        )
        return out

    def value(self) -> float:
        """The sum, correctly rounded to float64 (inf or nan as float addition would give)."""
        if self.nan or (self.pos_inf and self.neg_inf):
            return float("nan")
        if self.pos_inf or self.neg_inf:
            return float("inf") if self.pos_inf else float("-inf")
        try:
            return self.total / (1 << self._SCALE)  # int / int rounds once, correctly
        except OverflowError:
            return float("inf") if self.total > 0 else float("-inf")

    def fraction(self) -> Fraction:
        """The sum of the finite values added, as an exact fraction."""
        return Fraction(self.total, 1 << self._SCALE)

    def __getstate__(self):
        return (self.total, self.nan, self.pos_inf, self.neg_inf)

    def __setstate__(self, state) -> None:
        self.total, self.nan, self.pos_inf, self.neg_inf = state
