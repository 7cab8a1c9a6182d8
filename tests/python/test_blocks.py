"""Tests for memcomp.blocks: zero-copy block views and their validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from memcomp.blocks import (
    VALID_BLOCK_BYTES,
    as_blocks,
    byte_view,
    check_block_bytes,
    check_blocks,
    sectorize,
)

RECORD = np.dtype([("id", "<i4"), ("x", "<f4"), ("flags", "<u2"), ("pad", "u1", (6,))])


# --------------------------------------------------------------------------
# check_block_bytes


def test_valid_block_bytes_constant():
    assert VALID_BLOCK_BYTES == (16, 32, 64, 128, 256)


@pytest.mark.parametrize("size", VALID_BLOCK_BYTES)
def test_check_block_bytes_accepts_valid_sizes(size):
    assert check_block_bytes(size) == size
    result = check_block_bytes(np.int64(size))
    assert result == size and type(result) is int


@pytest.mark.parametrize("size", [0, 8, 48, 100, 512, -64])
def test_check_block_bytes_rejects_other_sizes(size):
    with pytest.raises(ValueError, match=r"one of 16, 32, 64, 128, 256"):
        check_block_bytes(size)


@pytest.mark.parametrize("size", [True, False, np.bool_(True), 64.0, "64", None])
def test_check_block_bytes_rejects_non_integers(size):
    with pytest.raises(TypeError, match="must be an integer"):
        check_block_bytes(size)


# --------------------------------------------------------------------------
# as_blocks: shapes, zero copy, dtypes


@pytest.mark.parametrize(
    "dtype",
    ["u1", "i2", "<i4", ">i4", "u8", "f2", "f4", "f8", "c16", "?", "M8[ns]", RECORD],
)
@pytest.mark.parametrize("block_bytes", [16, 128])
def test_as_blocks_any_dtype_is_a_zero_copy_view(dtype, block_bytes):
    dtype = np.dtype(dtype)
    count = 256 * 16 // dtype.itemsize
    array = np.zeros(count, dtype=dtype)
    array.view(np.uint8)[:] = np.arange(array.nbytes, dtype=np.uint64) % 251
    blocks = as_blocks(array, block_bytes)
    assert type(blocks) is np.ndarray
    assert blocks.dtype == np.uint8
    assert blocks.shape == (4096 // block_bytes, block_bytes)
    assert blocks.flags.c_contiguous
    assert np.shares_memory(blocks, array)
    assert blocks.tobytes() == array.tobytes()


def test_as_blocks_multidimensional_array_in_memory_order():
    array = np.arange(2 * 3 * 16, dtype=np.int32).reshape(2, 3, 16)
    blocks = as_blocks(array, 64)
    assert blocks.shape == (6, 64)
    assert np.shares_memory(blocks, array)
    # Block 4 holds row [1, 1, :] of the array, little-endian int32.
    assert np.array_equal(blocks[4].view("<i4"), array[1, 1])


def test_as_blocks_zero_dimensional_array():
    array = np.array(3 + 4j, dtype="<c16")
    blocks = as_blocks(array, 16)
    assert blocks.shape == (1, 16)
    assert np.shares_memory(blocks, array)
    assert blocks.tobytes() == array.tobytes()


@pytest.mark.parametrize("shape", [(0,), (0, 7), (3, 0)])
def test_as_blocks_empty_array_gives_zero_blocks(shape):
    blocks = as_blocks(np.zeros(shape, dtype=np.float32), 32)
    assert blocks.shape == (0, 32)
    assert blocks.dtype == np.uint8


def test_as_blocks_writes_go_through_to_the_input():
    array = np.zeros(16, dtype=np.uint32)
    blocks = as_blocks(array, 64)
    assert blocks.flags.writeable
    blocks[0, :4] = [1, 0, 0, 0]
    assert array[0] == 1


def test_as_blocks_keeps_read_only_flag():
    array = np.arange(64, dtype=np.uint16)
    array.flags.writeable = False
    blocks = as_blocks(array, 32)
    assert not blocks.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        blocks[0, 0] = 1


def test_as_blocks_big_endian_bytes_are_kept_as_stored():
    array = np.array([1, 2, 3, 4], dtype=">u4")
    blocks = as_blocks(array, 16)
    assert blocks[0, :4].tolist() == [0, 0, 0, 1]


@pytest.mark.parametrize("mode", ["r", "r+", "c"])
def test_as_blocks_on_memmap(tmp_path, mode):
    path = tmp_path / "dump.bin"
    np.arange(1024, dtype=np.uint8).tofile(path)
    mapped = np.memmap(path, dtype=np.uint8, mode=mode)
    blocks = as_blocks(mapped, 256)
    assert type(blocks) is np.ndarray
    assert blocks.shape == (4, 256)
    assert np.shares_memory(blocks, mapped)
    assert blocks.flags.writeable == (mode != "r")
    assert blocks[3, 255] == 1023 % 256
    del blocks, mapped


def test_as_blocks_on_np_matrix_ignores_matrix_semantics():
    with pytest.warns(PendingDeprecationWarning):
        matrix = np.matrix(np.arange(8, dtype=np.float64).reshape(2, 4))
    blocks = as_blocks(matrix, 64)
    assert type(blocks) is np.ndarray and blocks.shape == (1, 64)
    assert np.shares_memory(blocks, matrix)


def test_byte_view_is_flat_and_zero_copy():
    array = np.ones((3, 5), dtype=np.int16)
    flat = byte_view(array)
    assert flat.shape == (30,) and flat.dtype == np.uint8
    assert np.shares_memory(flat, array)


def test_byte_view_zero_itemsize_dtype():
    array = np.zeros(4, dtype=np.dtype([]))
    array.flags.writeable = False
    flat = byte_view(array)
    assert flat.shape == (0,)
    assert not flat.flags.writeable


@settings(max_examples=150, deadline=None)
@given(
    array=hnp.arrays(
        dtype=st.one_of(
            hnp.integer_dtypes(),
            hnp.unsigned_integer_dtypes(),
            hnp.floating_dtypes(),
            hnp.complex_number_dtypes(),
        ),
        shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=9),
    ),
    block_bytes=st.sampled_from(VALID_BLOCK_BYTES),
)
def test_as_blocks_property(array, block_bytes):
    if array.nbytes % block_bytes:
        with pytest.raises(ValueError, match="trailing byte"):
            as_blocks(array, block_bytes)
        return
    blocks = as_blocks(array, block_bytes)
    assert blocks.shape == (array.nbytes // block_bytes, block_bytes)
    assert blocks.tobytes() == array.tobytes()
    if array.nbytes:
        assert np.shares_memory(blocks, array)


# --------------------------------------------------------------------------
# as_blocks: error paths


@pytest.mark.parametrize(
    ("data", "hint"),
    [
        ([1, 2, 3], r"np\.asarray"),
        ((1, 2), r"np\.asarray"),
        (7, r"np\.asarray"),
    ],
)
def test_as_blocks_rejects_non_arrays(data, hint):
    with pytest.raises(TypeError, match=f"expected a numpy.ndarray.*{hint}"):
        as_blocks(data, 16)


@pytest.mark.parametrize(
    "make",
    [bytes, bytearray, lambda n: memoryview(bytearray(n)), lambda n: __import__("array").array("I", [0]) * (n // 4)],
)
def test_as_blocks_views_buffer_protocol_objects(make):
    """Objects with the buffer protocol are viewed in place (no copy): writes show through."""
    data = make(64)
    b = as_blocks(data, 16)
    assert b.shape == (4, 16) and b.dtype == np.uint8
    if not isinstance(data, bytes):
        memoryview(data).cast("B")[5] = 7
        assert b[0, 5] == 7
    else:
        assert not b.flags.writeable


class _Device:
    """A DLPack object on a GPU: it must be copied to the host explicitly."""

    def __dlpack__(self, stream=None):  # pragma: no cover - never called
        raise AssertionError("must not be read")

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA


def test_as_blocks_refuses_device_tensors():
    with pytest.raises(TypeError, match="copy it to the host explicitly"):
        as_blocks(_Device(), 32)


def test_as_blocks_rejects_object_dtype():
    with pytest.raises(TypeError, match="Python object"):
        as_blocks(np.array([1, "a"] * 8, dtype=object), 16)


def test_as_blocks_rejects_structured_dtype_with_objects():
    dtype = np.dtype([("a", "<i8"), ("b", object)])
    with pytest.raises(TypeError, match="Python object"):
        as_blocks(np.zeros(8, dtype=dtype), 16)


def test_as_blocks_rejects_unicode_dtype():
    with pytest.raises(TypeError, match="string dtype.*encode"):
        as_blocks(np.array(["abcd"] * 4), 16)


def test_as_blocks_rejects_masked_arrays():
    masked = np.ma.masked_array(np.zeros(16, np.uint8), mask=[False] * 16)
    with pytest.raises(TypeError, match=r"masked.*filled"):
        as_blocks(masked, 16)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(128, dtype=np.uint8)[::2],
        lambda: np.zeros((8, 8), dtype=np.uint32).T,
        lambda: np.asfortranarray(np.zeros((4, 8), dtype=np.float32)),
        lambda: np.zeros((8, 16), dtype=np.uint8)[:, :8],
    ],
)
def test_as_blocks_rejects_non_contiguous_without_copying(make):
    with pytest.raises(ValueError, match=r"not C-contiguous.*np\.ascontiguousarray"):
        as_blocks(make(), 16)


def test_as_blocks_trailing_bytes_message():
    array = np.zeros(70, dtype=np.uint8)
    with pytest.raises(
        ValueError,
        match=r"70 bytes.*block_bytes=32: 6 trailing byte\(s\).*2 full block.*\[:64\]",
    ):
        as_blocks(array, 32)


def test_as_blocks_suggested_slice_works():
    array = np.arange(70, dtype=np.uint8)
    blocks = as_blocks(byte_view(array)[:64], 32)
    assert blocks.shape == (2, 32)
    assert np.shares_memory(blocks, array)


@pytest.mark.parametrize(("size", "error"), [(24, ValueError), (32.0, TypeError)])
def test_as_blocks_validates_block_bytes(size, error):
    with pytest.raises(error, match="block_bytes"):
        as_blocks(np.zeros(96, dtype=np.uint8), size)


# --------------------------------------------------------------------------
# check_blocks and sectorize


def test_check_blocks_returns_input():
    blocks = np.zeros((3, 64), dtype=np.uint8)
    assert check_blocks(blocks) is blocks


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ([[0] * 16], TypeError, "as_blocks"),
        (np.zeros((2, 16), dtype=np.int8), TypeError, "dtype uint8"),
        (np.zeros(32, dtype=np.uint8), ValueError, "2-D"),
        (np.zeros((2, 2, 16), dtype=np.uint8), ValueError, "2-D"),
        (np.zeros((2, 48), dtype=np.uint8), ValueError, "blocks.shape"),
        (np.zeros((4, 16), dtype=np.uint8)[::2], ValueError, "C-contiguous"),
    ],
)
def test_check_blocks_errors(value, error, message):
    with pytest.raises(error, match=message):
        check_blocks(value)


def test_sectorize_shape_order_and_zero_copy():
    data = np.arange(3 * 128, dtype=np.uint16).astype(np.uint8)
    blocks = as_blocks(data, 128)
    sectors = sectorize(blocks, 32)
    assert sectors.shape == (12, 32)
    assert np.shares_memory(sectors, blocks)
    # Sector j of block i is row i * 4 + j.
    assert np.array_equal(sectors[1 * 4 + 2], blocks[1, 64:96])
    assert sectors.tobytes() == blocks.tobytes()


@pytest.mark.parametrize("block_bytes", VALID_BLOCK_BYTES)
@pytest.mark.parametrize("sector_bytes", VALID_BLOCK_BYTES)
def test_sectorize_all_size_pairs(block_bytes, sector_bytes):
    blocks = np.zeros((5, block_bytes), dtype=np.uint8)
    if sector_bytes > block_bytes:
        with pytest.raises(ValueError, match="does not divide"):
            sectorize(blocks, sector_bytes)
    else:
        sectors = sectorize(blocks, sector_bytes)
        assert sectors.shape == (5 * block_bytes // sector_bytes, sector_bytes)
        assert np.shares_memory(sectors, blocks)


def test_sectorize_keeps_read_only_flag():
    blocks = np.zeros((2, 64), dtype=np.uint8)
    blocks.flags.writeable = False
    assert not sectorize(blocks, 16).flags.writeable


def test_sectorize_empty():
    assert sectorize(np.zeros((0, 128), dtype=np.uint8), 32).shape == (0, 32)


@pytest.mark.parametrize(
    ("blocks", "sector", "error", "message"),
    [
        (np.zeros((2, 64), dtype=np.uint8), 24, ValueError, "sector_bytes"),
        (np.zeros((2, 64), dtype=np.uint8), True, TypeError, "sector_bytes"),
        (
            np.zeros((2, 64), dtype=np.uint8),
            128,
            ValueError,
            r"choose sector_bytes from \(16, 32, 64\)",
        ),
        (np.zeros((2, 16), dtype=np.float32), 16, TypeError, "dtype uint8"),
        (np.zeros(64, dtype=np.uint8), 16, ValueError, "2-D"),
        (np.zeros((64, 4), dtype=np.uint8), 16, ValueError, "block size"),
        (np.zeros((4, 64), dtype=np.uint8)[::2], 16, ValueError, "C-contiguous"),
        (b"\x00" * 64, 16, TypeError, "numpy.ndarray"),
    ],
)
def test_sectorize_errors(blocks, sector, error, message):
    with pytest.raises(error, match=message):
        sectorize(blocks, sector)
