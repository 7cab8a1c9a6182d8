"""Tests for memcomp.workloads: deterministic synthetic GPU memory contents."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcomp.blocks import VALID_BLOCK_BYTES, as_blocks
from memcomp.workloads import (
    PAGE_BYTES,
    RECORD_DTYPE,
    WORKLOADS,
    generate,
    generate_parts,
    sample,
    sample_dump,
)

N = 1 << 20  # 1 MiB per workload for the statistics tests

REQUIRED = (
    "fp32_activations",
    "fp32_weights",
    "int32_csr",
    "int32_indices",
    "records",
    "image_rgba",
    "fp16_tensor",
    "zero_pages",
)


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    return sample(N, seed=0)


def test_workload_names():
    assert set(REQUIRED) <= set(WORKLOADS)
    assert len(set(WORKLOADS)) == len(WORKLOADS)


# --------------------------------------------------------------------------
# shape, determinism, seeds


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("n_bytes", [256, 512, 4096, 4352, 65536, 3 * 65536 + 768])
def test_generate_exact_length(name, n_bytes):
    out = generate(name, n_bytes)
    assert out.dtype == np.uint8
    assert out.shape == (n_bytes,)
    assert out.flags.c_contiguous and out.flags.writeable


@pytest.mark.parametrize("name", WORKLOADS)
def test_generate_deterministic(name):
    first = generate(name, 32768, seed=5)
    second = generate(name, 32768, seed=5)
    assert np.array_equal(first, second)
    assert not np.shares_memory(first, second)


@pytest.mark.parametrize("name", WORKLOADS)
def test_different_seeds_differ(name):
    assert not np.array_equal(generate(name, 32768, 0), generate(name, 32768, 1))


def test_workloads_differ_from_each_other():
    digests = {hashlib.sha256(generate(name, 8192).tobytes()).hexdigest() for name in WORKLOADS}
    assert len(digests) == len(WORKLOADS)


def test_numpy_integer_seed_and_size_are_accepted():
    assert np.array_equal(generate("records", np.int64(1024), seed=np.uint8(3)), generate("records", 1024, 3))


def test_byte_identical_in_a_fresh_interpreter():
    script = (
        "import hashlib\n"
        "from memcomp.workloads import WORKLOADS, generate, sample_dump\n"
        "for name in WORKLOADS:\n"
        "    print(hashlib.sha256(generate(name, 16384, 7).tobytes()).hexdigest())\n"
        "print(hashlib.sha256(sample_dump(65536, 7).tobytes()).hexdigest())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    expected = [hashlib.sha256(generate(name, 16384, 7).tobytes()).hexdigest() for name in WORKLOADS]
    expected.append(hashlib.sha256(sample_dump(65536, 7).tobytes()).hexdigest())
    assert result.stdout.split() == expected


@pytest.mark.parametrize("name", WORKLOADS)
def test_generate_parts_concatenate_to_generate(name):
    parts = generate_parts(name, 65536, seed=2)
    assert parts and all(isinstance(p, np.ndarray) for p in parts.values())
    joined = b"".join(np.ascontiguousarray(p).tobytes() for p in parts.values())
    assert joined == generate(name, 65536, seed=2).tobytes()


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("block_bytes", VALID_BLOCK_BYTES)
def test_generated_data_is_valid_block_input(name, block_bytes):
    out = generate(name, 4096)
    blocks = as_blocks(out, block_bytes)
    assert blocks.shape == (4096 // block_bytes, block_bytes)
    assert np.shares_memory(blocks, out)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(WORKLOADS),
    granules=st.integers(min_value=1, max_value=300),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_generate_property(name, granules, seed):
    n_bytes = granules * 256
    out = generate(name, n_bytes, seed)
    assert out.shape == (n_bytes,) and out.dtype == np.uint8
    assert sum(p.nbytes for p in generate_parts(name, n_bytes, seed).values()) == n_bytes


# --------------------------------------------------------------------------
# error paths


@pytest.mark.parametrize("n_bytes", [0, -256, 100, 257, 4095, 1000])
def test_generate_bad_size(n_bytes):
    with pytest.raises(ValueError, match="positive multiple of 256"):
        generate("records", n_bytes)


@pytest.mark.parametrize("n_bytes", [256.0, "256", True, None])
def test_generate_size_type(n_bytes):
    with pytest.raises(TypeError, match="n_bytes must be an integer"):
        generate("records", n_bytes)


@pytest.mark.parametrize("name", ["nope", "FP32_WEIGHTS", "", None, 3])
def test_generate_unknown_name_lists_choices(name):
    with pytest.raises(ValueError, match=r"unknown workload.*fp32_activations.*zero_pages"):
        generate(name, 256)


def test_generate_bad_seed():
    with pytest.raises(ValueError, match="non-negative"):
        generate("records", 256, seed=-1)
    with pytest.raises(TypeError, match="seed must be"):
        generate("records", 256, seed=1.0)
    with pytest.raises(TypeError, match="seed must be"):
        generate("records", 256, seed=True)


# --------------------------------------------------------------------------
# statistics that characterise each workload


def test_fp32_activations(data):
    values = data["fp32_activations"].view("<f4")
    assert np.isfinite(values).all()
    assert values.min() >= 0.0
    assert not np.signbit(values).any()  # no -0.0 either
    zeros = np.mean(values == 0.0)
    assert 0.3 <= zeros <= 0.9
    positive = values[values > 0]
    assert 0.05 < positive.mean() < 5.0
    # Spatial correlation: neighbours inside a 32-wide row are alike.
    maps = values.reshape(-1, 32, 32)
    left, right = maps[:, :, :-1].ravel(), maps[:, :, 1:].ravel()
    assert np.corrcoef(left, right)[0, 1] > 0.6
    # Shuffled neighbours are not.
    rng = np.random.default_rng(0)
    assert abs(np.corrcoef(left, rng.permutation(right))[0, 1]) < 0.05


def test_fp32_weights(data):
    values = data["fp32_weights"].view("<f4")
    assert np.isfinite(values).all()
    assert abs(float(values.mean())) < 2e-3
    assert 0.01 < float(values.std()) < 0.2
    assert float(np.abs(values).max()) < 2.0
    assert np.mean(values == 0.0) < 1e-3
    assert 0.45 < np.mean(values > 0) < 0.55


def test_int32_csr_structure():
    parts = generate_parts("int32_csr", N, seed=0)
    assert list(parts) == ["row_ptr", "col_idx"]
    row_ptr = parts["row_ptr"].astype(np.int64)
    col_idx = parts["col_idx"].astype(np.int64)
    assert parts["row_ptr"].dtype == np.dtype("<i4") == parts["col_idx"].dtype
    # The row pointers fill whole 256-byte granules.
    assert parts["row_ptr"].nbytes % 256 == 0
    n_rows = row_ptr.size - 1
    assert row_ptr[0] == 0
    assert np.all(np.diff(row_ptr) >= 0)
    assert row_ptr[-1] == col_idx.size
    assert 8 <= col_idx.size / n_rows <= 16
    assert col_idx.min() >= 0 and col_idx.max() < n_rows  # square matrix
    row = np.repeat(np.arange(n_rows), np.diff(row_ptr))
    same_row = row[1:] == row[:-1]
    assert np.all(col_idx[1:][same_row] > col_idx[:-1][same_row])
    # Mostly near the diagonal.
    assert np.median(np.abs(col_idx - row)) < 32
    # And it is what generate() returns.
    words = generate("int32_csr", N).view("<i4")
    assert np.array_equal(words[: row_ptr.size], row_ptr)


def test_int32_csr_smallest_size():
    parts = generate_parts("int32_csr", 256)
    assert parts["row_ptr"].size == 64
    assert parts["col_idx"].size == 0
    assert not parts["row_ptr"].any()


def test_int32_indices(data):
    values = data["int32_indices"].view("<i4")
    assert values.min() >= 0
    assert values.max() < 1 << 20
    # Small ranges: the top byte of every index is zero.
    assert not data["int32_indices"].reshape(-1, 4)[:, 3].any()
    # Many runs of small steps (sorted scatter, stencil, permutations).
    assert np.mean(np.abs(np.diff(values.astype(np.int64))) <= 16) > 0.15


def test_records(data):
    records = data["records"].view(RECORD_DTYPE)
    assert RECORD_DTYPE.itemsize == 32
    assert records.size == N // 32
    assert np.all(np.diff(records["id"].astype(np.int64)) >= 1)
    assert np.all(np.diff(records["timestamp"]) > 0)
    assert records["timestamp"].min() > 1_600_000_000_000_000_000
    assert not records["pad"].any()
    assert set(np.unique(records["flags"]).tolist()) <= {0x0001, 0x0003, 0x0011, 0x0101, 0x8001}
    for axis in "xyz":
        assert np.isfinite(records[axis]).all()
        assert np.abs(records[axis]).max() < 110.0
    # Positions are clustered: consecutive records are usually close.
    step = np.abs(np.diff(records["x"]))
    assert np.median(step) < 1.5


def test_image_rgba(data):
    pixels = data["image_rgba"].reshape(-1, 4)
    assert np.all(pixels[:, 3] == 255)
    rgb = pixels[:, :3].astype(np.int64)
    assert rgb.std() > 20  # not flat
    # Smooth along rows: neighbouring pixels differ by a few levels.
    rows = rgb.reshape(-1, 256, 3)
    assert np.mean(np.abs(np.diff(rows, axis=1))) < 8
    assert np.any(rows[:, 1:] != rows[:, :-1])  # texture noise present
    assert generate_parts("image_rgba", 4096)["pixels"].shape == (1024, 4)


def test_fp16_tensor(data):
    values = data["fp16_tensor"].view("<f2")
    assert np.isfinite(values).all()
    assert np.abs(values).max() < 16
    assert 0.4 < np.mean(values < 0) < 0.6
    assert 0.5 < float(values.astype(np.float32).std()) < 2.0
    assert np.mean(values == 0) < 0.01


def test_zero_pages(data):
    raw = data["zero_pages"]
    assert np.mean(raw == 0) > 0.99
    pages = raw.reshape(-1, PAGE_BYTES)
    zero_page = ~pages.any(axis=1)
    assert 0.55 < zero_page.mean() < 0.85
    nonzero_words = pages.reshape(pages.shape[0], -1, 4).any(axis=2).sum(axis=1)
    assert nonzero_words[~zero_page].min() >= 1
    assert nonzero_words.max() <= 16


# --------------------------------------------------------------------------
# sample and sample_dump


def test_sample_all(data):
    assert list(data) == list(WORKLOADS)
    for name, out in data.items():
        assert out.shape == (N,) and out.dtype == np.uint8
        assert np.array_equal(out, generate(name, N, 0))


def test_sample_subset_and_single_name():
    subset = sample(4096, seed=3, workloads=["records", "zero_pages"])
    assert list(subset) == ["records", "zero_pages"]
    assert np.array_equal(subset["records"], generate("records", 4096, 3))
    single = sample(4096, workloads="image_rgba")
    assert list(single) == ["image_rgba"]


def test_sample_default_size():
    out = sample(workloads=("fp16_tensor",))
    assert out["fp16_tensor"].shape == (4 << 20,)


def test_sample_errors():
    with pytest.raises(ValueError, match="unknown workload 'bogus'"):
        sample(4096, workloads=["records", "bogus"])
    with pytest.raises(ValueError, match="multiple of 256"):
        sample(1000)


def test_sample_dump_default():
    dump = sample_dump()
    assert dump.shape == (4 << 20,) and dump.dtype == np.uint8
    assert np.array_equal(dump, sample_dump())
    assert not np.array_equal(dump, sample_dump(seed=1))


@pytest.mark.parametrize("n_bytes", [256, 4096, 4096 + 512, 40 * 4096, 100 * 4096 + 256])
def test_sample_dump_length(n_bytes):
    out = sample_dump(n_bytes, seed=4)
    assert out.shape == (n_bytes,) and out.dtype == np.uint8


def test_sample_dump_pages_come_from_the_workloads_in_runs():
    n_pages = 96
    dump = sample_dump(n_pages * PAGE_BYTES, seed=11).reshape(n_pages, PAGE_BYTES)
    share = n_pages // len(WORKLOADS)
    expected: Counter[bytes] = Counter()
    owner: dict[bytes, int] = {}
    for index, name in enumerate(WORKLOADS):
        pages = generate(name, share * PAGE_BYTES, seed=11).reshape(share, PAGE_BYTES)
        for page in pages:
            expected[page.tobytes()] += 1
            if page.any():
                owner[page.tobytes()] = index
    # The dump holds exactly the pages of each workload's share.
    assert Counter(page.tobytes() for page in dump) == expected
    # Interleaved: the owner of non-zero pages changes many times, but runs
    # of consecutive pages from one workload exist too.
    labels = np.array([owner[page.tobytes()] for page in dump if page.any()])
    changes = int(np.count_nonzero(labels[1:] != labels[:-1]))
    assert 8 <= changes < labels.size - 1


def test_sample_dump_errors():
    with pytest.raises(ValueError, match="multiple of 256"):
        sample_dump(300)
    with pytest.raises(ValueError, match="non-negative"):
        sample_dump(4096, seed=-3)
