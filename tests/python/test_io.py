"""Tests for memcomp.io: memory-mapped dumps and save_dump."""

from __future__ import annotations

import itertools
import os
import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcomp.io import Dump, open_dump, open_dumps, save_dump


def _pattern(n_bytes: int) -> np.ndarray:
    return (np.arange(n_bytes, dtype=np.uint64) * 7 % 251).astype(np.uint8)


# --------------------------------------------------------------------------
# raw dumps


@pytest.mark.parametrize("block_bytes", [16, 32, 64, 128, 256])
def test_raw_round_trip(tmp_path, block_bytes):
    data = _pattern(4096)
    path = tmp_path / "dump.bin"
    assert save_dump(path, data) == 4096
    assert path.stat().st_size == 4096
    dump = open_dump(path, block_bytes)
    assert isinstance(dump, Dump)
    assert dump.path == path
    assert dump.block_bytes == block_bytes
    assert dump.n_blocks == len(dump) == 4096 // block_bytes
    assert dump.nbytes == 4096
    assert dump.format == "raw"
    assert dump.dropped_bytes == 0 and dump.offset == 0
    assert dump.source_dtype == np.uint8
    blocks = dump.blocks
    assert type(blocks) is np.ndarray
    assert blocks.dtype == np.uint8
    assert blocks.shape == (4096 // block_bytes, block_bytes)
    assert blocks.flags.c_contiguous
    assert not blocks.flags.writeable
    assert np.array_equal(blocks.reshape(-1), data)
    with pytest.raises(ValueError, match="read-only"):
        blocks[0, 0] = 1


def test_raw_any_extension_and_str_path(tmp_path):
    data = _pattern(512)
    for name in ("dump.raw", "dump", "memory.img", "DUMP.BIN"):
        path = tmp_path / name
        save_dump(str(path), data)
        dump = open_dump(str(path), 64)
        assert dump.format == "raw"
        assert dump.blocks.tobytes() == data.tobytes()


def test_save_dump_writes_memory_order_bytes(tmp_path):
    array = np.arange(64, dtype=">u4").reshape(4, 16)
    path = tmp_path / "words.bin"
    assert save_dump(path, array) == 256
    assert path.read_bytes() == array.tobytes()
    assert open_dump(path, 256).blocks[0, :8].tolist() == [0, 0, 0, 0, 0, 0, 0, 1]


def test_raw_offset_skips_a_header(tmp_path):
    header = b"HDR!" * 16
    payload = _pattern(1024)
    path = tmp_path / "with_header.bin"
    path.write_bytes(header + payload.tobytes())
    dump = open_dump(path, 128, offset=len(header))
    assert dump.offset == 64
    assert dump.n_blocks == 8
    assert dump.blocks.tobytes() == payload.tobytes()


def test_raw_offset_not_aligned_to_pages(tmp_path):
    path = tmp_path / "dump.bin"
    data = _pattern(5000 + 3)
    save_dump(path, data)
    dump = open_dump(path, 16, offset=4099, allow_partial=True)
    assert dump.blocks.tobytes() == data[4099 : 4099 + dump.nbytes].tobytes()
    assert dump.n_blocks == (5003 - 4099) // 16
    assert dump.dropped_bytes == (5003 - 4099) % 16


def test_offset_at_end_gives_empty_dump(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(64))
    dump = open_dump(path, 32, offset=64)
    assert dump.n_blocks == 0 and dump.blocks.shape == (0, 32)


@pytest.mark.parametrize(
    ("offset", "error", "message"),
    [
        (65, ValueError, r"offset=65 is past the end of the file.*64 bytes"),
        (-1, ValueError, "non-negative"),
        (1.5, TypeError, "non-negative integer"),
        (True, TypeError, "non-negative integer"),
    ],
)
def test_bad_offset(tmp_path, offset, error, message):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(64))
    with pytest.raises(error, match=message):
        open_dump(path, 32, offset=offset)


# --------------------------------------------------------------------------
# partial tails and empty files


def test_partial_tail_raises_with_a_clear_message(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(1000))
    with pytest.raises(
        ValueError,
        match=r"1000 bytes.*block_bytes=64: 40 trailing byte\(s\).*15 full "
        r"block.*allow_partial=True",
    ):
        open_dump(path, 64)


def test_partial_tail_dropped_with_allow_partial(tmp_path):
    data = _pattern(1000)
    path = tmp_path / "dump.bin"
    save_dump(path, data)
    dump = open_dump(path, 64, allow_partial=True)
    assert dump.n_blocks == 15
    assert dump.nbytes == 960
    assert dump.dropped_bytes == 40
    assert dump.blocks.tobytes() == data[:960].tobytes()
    assert "dropped_bytes=40" in repr(dump)


def test_file_smaller_than_a_block(tmp_path):
    path = tmp_path / "tiny.bin"
    save_dump(path, _pattern(10))
    with pytest.raises(ValueError, match="10 trailing byte"):
        open_dump(path, 16)
    dump = open_dump(path, 16, allow_partial=True)
    assert dump.n_blocks == 0 and dump.dropped_bytes == 10
    assert dump.blocks.shape == (0, 16)


def test_empty_raw_file(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    dump = open_dump(path, 128)
    assert dump.n_blocks == len(dump) == 0
    assert dump.nbytes == 0
    assert dump.blocks.shape == (0, 128)
    assert dump.blocks.dtype == np.uint8
    assert not dump.blocks.flags.writeable
    assert list(dump.chunks()) == []


def test_save_dump_empty_array(tmp_path):
    path = tmp_path / "empty.bin"
    assert save_dump(path, np.zeros(0, dtype=np.float32)) == 0
    assert path.stat().st_size == 0
    assert open_dump(path, 16).n_blocks == 0


# --------------------------------------------------------------------------
# .npy files


@pytest.mark.parametrize(
    "array",
    [
        np.arange(1024, dtype=np.uint8),
        np.linspace(-1, 1, 256, dtype=np.float32).reshape(16, 16),
        np.arange(96, dtype=">i8").reshape(2, 3, 16),
        np.zeros(8, dtype=[("id", "<i4"), ("x", "<f4"), ("t", "<i8"), ("pad", "V16")]),
    ],
    ids=["uint8", "float32-2d", "int64-big-endian-3d", "structured"],
)
def test_npy_round_trip(tmp_path, array):
    path = tmp_path / "array.npy"
    assert save_dump(path, array) == array.nbytes
    assert np.array_equal(np.load(path), array)
    dump = open_dump(path, 32)
    assert dump.format == "npy"
    assert dump.source_dtype == array.dtype
    assert dump.n_blocks == array.nbytes // 32
    assert dump.blocks.tobytes() == array.tobytes()
    assert not dump.blocks.flags.writeable
    assert f"source_dtype={array.dtype.str!r}" in repr(dump)


def test_npy_written_by_numpy_and_uppercase_suffix(tmp_path):
    array = np.arange(64, dtype=np.float64)
    path = tmp_path / "DATA.NPY"
    with open(path, "wb") as handle:
        np.save(handle, array)
    dump = open_dump(path, 64)
    assert dump.format == "npy"
    assert np.array_equal(dump.blocks.view("<f8").reshape(-1), array)


def test_npy_offset_counts_from_array_data(tmp_path):
    array = np.arange(40, dtype=np.uint32)
    path = tmp_path / "a.npy"
    np.save(path, array)
    dump = open_dump(path, 16, offset=32)
    assert dump.n_blocks == 8
    assert np.array_equal(dump.blocks.view("<u4").reshape(-1), array[8:])
    with pytest.raises(ValueError, match="past the end of the array data"):
        open_dump(path, 16, offset=161)


def test_npy_partial_tail(tmp_path):
    array = np.arange(10, dtype=np.float32)  # 40 bytes
    path = tmp_path / "a.npy"
    np.save(path, array)
    with pytest.raises(ValueError, match="8 trailing byte"):
        open_dump(path, 16)
    dump = open_dump(path, 16, allow_partial=True)
    assert dump.n_blocks == 2 and dump.dropped_bytes == 8
    assert dump.blocks.tobytes() == array.tobytes()[:32]


def test_npy_empty_array(tmp_path):
    path = tmp_path / "empty.npy"
    np.save(path, np.zeros((0, 4), dtype=np.float32))
    dump = open_dump(path, 64)
    assert dump.n_blocks == 0 and dump.blocks.shape == (0, 64)


def test_npy_object_dtype_is_a_type_error(tmp_path):
    path = tmp_path / "objects.npy"
    np.save(path, np.array([1, "a", None], dtype=object), allow_pickle=True)
    with pytest.raises(TypeError, match="pickled Python objects"):
        open_dump(path, 16)


def test_npy_unicode_needs_dtype_check_false(tmp_path):
    array = np.array(["abcd", "efgh"])  # <U4: 2 * 16 bytes
    path = tmp_path / "text.npy"
    np.save(path, array)
    with pytest.raises(TypeError, match="dtype_check=False"):
        open_dump(path, 16)
    dump = open_dump(path, 16, dtype_check=False)
    assert dump.n_blocks == 2
    assert dump.blocks.tobytes() == array.tobytes()


def test_npy_fortran_order_is_refused(tmp_path):
    path = tmp_path / "fortran.npy"
    np.save(path, np.asfortranarray(np.zeros((4, 8), dtype=np.float32)))
    with pytest.raises(ValueError, match=r"Fortran-ordered.*np\.ascontiguousarray"):
        open_dump(path, 16)


def test_not_really_npy(tmp_path):
    path = tmp_path / "raw.npy"
    path.write_bytes(bytes(64))
    with pytest.raises(ValueError, match="not a valid .npy file"):
        open_dump(path, 16)


# --------------------------------------------------------------------------
# argument and file errors


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such dump file"):
        open_dump(tmp_path / "missing.bin", 64)


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        open_dump(tmp_path, 64)


@pytest.mark.parametrize(("size", "error"), [(48, ValueError), ("64", TypeError)])
def test_bad_block_bytes(tmp_path, size, error):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(256))
    with pytest.raises(error, match="block_bytes"):
        open_dump(path, size)


@pytest.mark.parametrize("path", [42, None, [b"dump.bin"]])
def test_bad_path_type(path):
    with pytest.raises(TypeError, match=r"path must be a path \(str, bytes or os.PathLike\)"):
        open_dump(path, 64)


def test_paths_are_str_bytes_or_pathlike(tmp_path):
    """As everywhere in memcomp (Encoded.load too); an empty one is refused, not the current directory."""
    save_dump(tmp_path / "dump.bin", _pattern(128))
    for path in (str(tmp_path / "dump.bin"), bytes(tmp_path / "dump.bin"), tmp_path / "dump.bin"):
        assert open_dump(path, 64).path == tmp_path / "dump.bin"
        assert open_dumps(path, block_bytes=64)[0].path == tmp_path / "dump.bin"
    for empty in ("", b""):  # (Path("") is Path("."), the current directory, asked for as such)
        with pytest.raises(ValueError, match="path must be a file name, got an empty path"):
            open_dumps(empty, block_bytes=64)


def test_save_dump_refuses_non_contiguous(tmp_path):
    path = tmp_path / "x.bin"
    with pytest.raises(ValueError, match=r"np\.ascontiguousarray"):
        save_dump(path, np.zeros((8, 8), dtype=np.float32).T)
    with pytest.raises(ValueError, match=r"np\.ascontiguousarray"):
        save_dump(tmp_path / "x.npy", np.zeros((8, 8), dtype=np.float32)[:, ::2])
    assert not path.exists()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1, 2, 3], r"np\.asarray"),
        (np.array([None, 1], dtype=object), "Python object"),
    ],
)
def test_save_dump_refuses_non_arrays_and_objects(tmp_path, value, message):
    with pytest.raises(TypeError, match=message):
        save_dump(tmp_path / "x.bin", value)


def test_save_dump_writes_buffers(tmp_path):
    assert save_dump(tmp_path / "x.bin", b"abc") == 3 and (tmp_path / "x.bin").read_bytes() == b"abc"


# --------------------------------------------------------------------------
# chunks, context manager, repr


@pytest.mark.parametrize("chunk_blocks", [1, 3, 7, 16, 17, 1000])
def test_chunks_cover_every_block_once_in_order(tmp_path, chunk_blocks):
    data = _pattern(16 * 64)
    path = tmp_path / "dump.bin"
    save_dump(path, data)
    dump = open_dump(path, 64)
    chunks = list(dump.chunks(chunk_blocks))
    assert len(chunks) == -(-16 // chunk_blocks)
    assert [len(c) for c in chunks[:-1]] == [chunk_blocks] * (len(chunks) - 1)
    assert sum(len(c) for c in chunks) == 16
    assert np.array_equal(np.concatenate(chunks), dump.blocks)
    for chunk in chunks:
        assert chunk.shape[1] == 64
        assert chunk.flags.c_contiguous
        assert not chunk.flags.writeable
        assert not np.shares_memory(chunk, dump.blocks)  # read from the file, not a view of the map
    # chunks kept by the caller keep their own buffers: none is overwritten by a later one
    assert not any(np.shares_memory(a, b) for i, a in enumerate(chunks) for b in chunks[i + 1 :])


def test_chunks_default_size(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, np.zeros((1 << 16) * 16 + 16 * 5, dtype=np.uint8))
    sizes = [len(c) for c in open_dump(path, 16).chunks()]
    assert sizes == [1 << 16, 5]


@pytest.mark.parametrize(
    ("chunk_blocks", "error"),
    [(0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError)],
)
def test_chunks_bad_size(tmp_path, chunk_blocks, error):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(64))
    with pytest.raises(error, match="chunk_blocks must be a positive integer"):
        open_dump(path, 16).chunks(chunk_blocks)


def test_context_manager_closes(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(256))
    with open_dump(path, 128) as dump:
        assert not dump.closed
        first = dump.blocks[0].copy()
    assert dump.closed
    assert first.tolist() == _pattern(128).tolist()
    with pytest.raises(ValueError, match="closed.*open_dump"):
        _ = dump.blocks
    with pytest.raises(ValueError, match="closed"):
        list(dump.chunks())
    dump.close()  # idempotent
    assert len(dump) == 2
    assert repr(dump).endswith(", closed)")


def test_repr(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(512))
    text = repr(open_dump(path, 64, offset=256))
    assert text == (f"Dump({str(path)!r}, block_bytes=64, n_blocks=4, format='raw', offset=256)")


def test_views_outlive_close(tmp_path):
    data = _pattern(256)
    path = tmp_path / "dump.bin"
    save_dump(path, data)
    dump = open_dump(path, 32)
    blocks = dump.blocks
    dump.close()
    assert blocks.tobytes() == data.tobytes()


def test_path_is_pathlib(tmp_path):
    path = tmp_path / "dump.bin"
    save_dump(path, _pattern(32))
    assert isinstance(open_dump(str(path), 32).path, pathlib.Path)


# --------------------------------------------------------------------------
# open_dumps: weight files and directories


def _onnx_model(path: pathlib.Path, tensors: dict) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
        initializer=[numpy_helper.from_array(a, name) for name, a in tensors.items()],
    )
    onnx.save(helper.make_model(graph), str(path))


@pytest.mark.parametrize("allow_partial", [False, True])
def test_onnx_initializers_keep_their_whole_blocks_whatever_allow_partial(tmp_path, allow_partial):
    """Tensor sizes are the model's, not the user's choice (module doc): an initializer that is no
    multiple of the block size keeps its whole blocks and records the tail, with allow_partial
    False (the default) as with True; a raw file of the same bytes is refused without it."""
    tensors = {
        "w40": np.arange(10, dtype=np.float32),  # 40 B: 1 block of 32, 8 dropped
        "w70": np.arange(70, dtype=np.int8),  # 70 B: 2 blocks, 6 dropped
        "w64": np.arange(16, dtype=np.float32) - 3,  # 64 B: 2 blocks, none dropped
        "w3": np.arange(3, dtype=np.uint8),  # 3 B: no block, 3 dropped
    }
    _onnx_model(tmp_path / "m.onnx", tensors)
    ds = open_dumps(tmp_path / "m.onnx", block_bytes=32, allow_partial=allow_partial)
    assert [d.name for d in ds] == list(tensors) and {d.format for d in ds} == {"onnx"}
    assert [(d.n_blocks, d.dropped_bytes) for d in ds] == [(1, 8), (2, 6), (2, 0), (0, 3)]
    for d, a in zip(ds, tensors.values()):
        raw = a.view(np.uint8).reshape(-1)
        assert d.blocks.tobytes() == raw[: d.n_blocks * 32].tobytes()
    save_dump(tmp_path / "w40.bin", tensors["w40"])
    with pytest.raises(ValueError, match="8 trailing byte"):
        open_dump(tmp_path / "w40.bin", 32)


def test_a_directory_skips_hidden_files(tmp_path):
    """A directory's datasets are its visible files, sorted: dotfiles (.DS_Store, .hidden.bin) and
    what a hidden directory (.git) holds are not data."""
    save_dump(tmp_path / "b.bin", _pattern(128))
    save_dump(tmp_path / "a.bin", _pattern(256))
    save_dump(tmp_path / ".hidden.bin", _pattern(64))  # a whole number of blocks: it would be read
    (tmp_path / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (tmp_path / ".git").mkdir()
    save_dump(tmp_path / ".git" / "x.bin", _pattern(64))
    ds = open_dumps(tmp_path, block_bytes=64)
    assert [(d.name, d.n_blocks) for d in ds] == [("a.bin", 4), ("b.bin", 2)]
    assert open_dumps(tmp_path / ".hidden.bin", block_bytes=64)[0].n_blocks == 1  # named: read


# --------------------------------------------------------------------------
# hostile files: the atheris harness' invariant, under hypothesis


def _readers_harness():
    """tests/fuzz/atheris_readers.py (which needs atheris only to fuzz): its seeds, mutations and
    invariant, so the suite checks the same thing."""
    import importlib.util

    path = pathlib.Path(__file__).parents[1] / "fuzz" / "atheris_readers.py"
    spec = importlib.util.spec_from_file_location("atheris_readers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_HARNESS = _readers_harness()
_SEEDS = _HARNESS.seeds()
_MUTATION = st.tuples(st.sampled_from(_HARNESS.OPS), st.integers(0, 1 << 16), st.integers(0, 255))


def test_the_reader_seeds_are_read_whole(tmp_path):
    """Unmutated, each seed gives its payload's bytes: the fuzzing starts from valid files."""
    payload = _HARNESS.PAYLOAD.tobytes()
    for kind, files in _SEEDS.items():
        d = tmp_path / kind
        d.mkdir()
        got = _HARNESS.read(d, files, 32, False)
        if kind in ("onnx", "onnx-external"):
            assert got == [payload, payload[:192]], kind  # w, then b's 6 whole 32 B blocks of its 200 B
        elif kind == "npz":
            assert got == [payload[:2048], payload[2048:]], kind
        else:
            assert got == [payload], kind
    assert set(_SEEDS) >= {"gz", "bz2", "xz", "npy", "npz"}


@settings(
    max_examples=int(os.environ.get("MEMCOMP_FUZZ_EXAMPLES", 300)),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(sorted(_SEEDS)),
    which=st.integers(0, 1),
    ops=st.lists(_MUTATION, min_size=1, max_size=6),
    no_block=st.booleans(),
    allow_partial=st.booleans(),
)
def test_mutated_files_read_or_raise_an_error_naming_them(tmp_path, kind, which, ops, no_block, allow_partial):
    """A mutated compressed dump, .npy, .npz or ONNX model (or its external data file) is read, or
    refused with TypeError/ValueError/OSError naming it: never another exception, a warning or a
    crash (tests/fuzz/atheris_readers.py fuzzes the same invariant coverage-guided)."""
    files = dict(_SEEDS[kind])
    target = list(files)[which % len(files)]
    files[target] = bytes(_HARNESS.mutate(bytearray(files[target]), ops))
    d = tmp_path / f"example{next(_EXAMPLE)}"
    d.mkdir()
    _HARNESS.read(d, files, None if no_block and kind == "npy" else 32, allow_partial)


_EXAMPLE = itertools.count()


def test_onnx_strings_that_are_not_utf8_are_refused_naming_the_model(tmp_path):
    """Protobuf hands over a string field that is not UTF-8 as bytes (found by the atheris harness:
    a TypeError that named nothing)."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    w = onnx.TensorProto(name="w", data_type=onnx.TensorProto.FLOAT, dims=[8])
    w.data_location = onnx.TensorProto.EXTERNAL
    w.external_data.add(key="location", value="w.bin")
    graph = helper.make_graph([], "g", [], [], initializer=[w])
    raw = helper.make_model(graph).SerializeToString()
    (tmp_path / "w.bin").write_bytes(bytes(32))
    for old, new, match in (
        (b"w.bin", b"w\xffbin", "location b'w\\\\xffbin' is not UTF-8"),
        (b"B\x01w", b"B\x01\xff", "its name is not UTF-8"),  # TensorProto.name: field 8, tag 0x42
    ):
        assert raw.count(old) == 1
        (tmp_path / "m.onnx").write_bytes(raw.replace(old, new))
        with pytest.raises(ValueError, match=f"m.onnx': initializer .*{match}"):
            open_dumps(tmp_path / "m.onnx", block_bytes=32)
    (tmp_path / "m.onnx").write_bytes(raw)
    assert open_dumps(tmp_path / "m.onnx", block_bytes=32)[0].n_blocks == 1
