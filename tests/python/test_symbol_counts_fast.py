"""Exact 32-bit symbol counts (entropy.histogram(..., 32)) against np.unique: random, adversarial
and dump-like words, both byte orders, 1 to 4 threads."""

import numpy as np
import pytest

import memcomp
from memcomp import entropy as E


def words_to_blocks(words: np.ndarray, endian: str = "little", block_bytes: int = 16) -> np.ndarray:
    dt = "<u4" if endian == "little" else ">u4"
    return np.ascontiguousarray(words.astype(dt)).view(np.uint8).reshape(-1, block_bytes)


def check(words: np.ndarray, block_bytes: int = 16) -> None:
    """Counts of every word (a whole number of blocks of them) in both byte orders, 1 to 4 threads."""
    words = np.asarray(words, dtype=np.uint32)
    assert words.size % (block_bytes // 4) == 0
    want_v, want_c = np.unique(words, return_counts=True)
    for endian in ("little", "big"):
        blocks = words_to_blocks(words, endian, block_bytes)
        for threads in (1, 2, 3, 4):
            st = E.histogram(blocks, 32, endian=endian, threads=threads)
            assert st.total == words.size
            assert st.values is not None
            np.testing.assert_array_equal(st.values, want_v)
            np.testing.assert_array_equal(st.counts, want_c)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize("n", [4, 8, 12, 16, 20, 36, 64, 68, 1000])
def test_small_sizes(n):
    check(rng(n).integers(0, 5, size=n, dtype=np.uint32) * 0x01010101)


def test_random_words():
    check(rng(1).integers(0, 2**32, size=300_000, dtype=np.uint32))


def test_small_alphabet():
    check(rng(2).integers(0, 1000, size=400_000, dtype=np.uint32))


@pytest.mark.parametrize("value", [0, 1, 0xDEADBEEF, 0xFFFFFFFF])
def test_all_equal(value):
    check(np.full(200_004, value, dtype=np.uint32))


def test_all_distinct():
    check((np.arange(400_000, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32))


def test_alternating_and_pairs():
    i = np.arange(200_000, dtype=np.uint32)
    check(np.where(i % 2 == 1, np.uint32(0x12345678), np.uint32(0)))
    check((i // 2) * np.uint32(40503))


def test_runs_of_every_length():
    g = rng(3)
    lengths = np.arange(40).repeat(200) % 40 + 1
    values = g.integers(0, 5000, size=lengths.size, dtype=np.uint32) * np.uint32(977)
    values[g.random(lengths.size) < 0.25] = 0
    w = np.repeat(values, lengths)
    check(w[: w.size // 4 * 4])


def test_shared_low_bits_and_prefixes():
    g = rng(4)
    r = g.integers(0, 2**32, size=300_000, dtype=np.uint64)
    kinds = np.arange(r.size) % 4
    u = np.uint64
    w = np.where(kinds == 0, (r % u(4096)) << u(16) | u(0xABCD), r)
    w = np.where(kinds == 1, u(0x00030000) | (r & u(0xFFFF)), w)
    w = np.where(kinds == 2, (r % u(65536)) << u(16) | np.where(r % u(2) == 1, u(0xFFFF), u(0)), w)
    check(w.astype(np.uint32))


def test_sample_dump_and_block_sizes():
    data = memcomp.workloads.sample_dump(8 << 20, seed=3)
    words = data.view("<u4")
    want_v, want_c = np.unique(words, return_counts=True)
    for b in (32, 128):
        blocks = memcomp.as_blocks(data, b)
        for threads in (1, 2, 4):
            st = E.histogram(blocks, 32, threads=threads)
            np.testing.assert_array_equal(st.values, want_v)
            np.testing.assert_array_equal(st.counts, want_c)
    check(words[: 1 << 20])
