"""Exact 32-bit counts in bounded memory (memcomp._counts): runs spilled to disk and read back
shard by shard give exactly what one in-memory histogram gives (a NumPy oracle), whatever the
chunking, spilling and sharding; the summaries behind SPEC 3's SL-32 bounds match the full counts."""

import gc
import math
import os
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcomp import _core, _counts, entropy, workloads
from memcomp._counts import SHARDS, CountSummary, SparseCounts


@pytest.fixture
def tiny_runs(monkeypatch, tmp_path):
    """Every partial over 8 entries goes to a run file in a directory of the test's own."""
    monkeypatch.setattr(_counts, "RUN_ENTRIES", 8)
    monkeypatch.setenv("MEMCOMP_TMPDIR", str(tmp_path))
    return tmp_path


def _oracle(words: np.ndarray):
    return np.unique(words, return_counts=True)


def _counted(words: np.ndarray, cuts) -> SparseCounts:
    total = None
    for part in np.split(words, sorted(cuts)):
        v, c = np.unique(part, return_counts=True)
        sc = SparseCounts(v.astype(np.uint32), c.astype(np.uint64))
        total = sc if total is None else total + sc
    return total


def _top_oracle(values, counts, k):
    order = np.lexsort((values, -counts.astype(np.float64)))[:k]
    return values[order], counts[order]


words_st = st.lists(st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 7, 0x3F800000, 2**32 - 1]), max_size=300).map(
    lambda xs: np.array(xs, np.uint32)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=words_st,
    cuts=st.lists(st.integers(0, 300), max_size=6),
    k=st.integers(1, 40),
    threads=st.sampled_from([None, 1, 2, 3, 7]),
)
def test_spilled_counts_equal_one_histogram(words, cuts, k, threads, tiny_runs):
    cuts = [c for c in cuts if c <= words.size]
    sc = _counted(words, cuts)
    v, c = _oracle(words)
    got_v, got_c = sc.arrays()
    assert np.array_equal(got_v, v) and np.array_equal(got_c, c)
    assert sc.total == words.size
    s = sc.summary(k, threads=threads)  # ranges of shards side by side: the same summary
    assert (s.total, s.distinct, s.mask) == (words.size, v.size, sc.mask)
    tv, tc = _top_oracle(v, c, k)
    assert np.array_equal(s.top_values, tv) and np.array_equal(s.top_counts, tc)
    f = c.astype(np.float64)
    want_h = 0.0 if words.size == 0 else max(0.0, math.log2(words.size) - math.fsum(f * np.log2(f)) / words.size)
    assert s.entropy() == want_h  # the sum is exact: fsum's correctly rounded result
    # pickles as its canonical arrays, whatever its runs
    back = pickle.loads(pickle.dumps(sc))
    assert pickle.dumps(back) == pickle.dumps(_counted(words, []))


def test_runs_go_to_disk_and_are_removed(tiny_runs):
    rng = np.random.default_rng(1)
    parts = [np.unique(rng.integers(0, 2**32, 50, dtype=np.uint32), return_counts=True) for _ in range(4)]
    total = None
    for v, c in parts:
        sc = SparseCounts(v, c.astype(np.uint64))
        total = sc if total is None else total + sc
    assert total.runs_on_disk == 4 and total.entries_in_memory == 0
    assert len(os.listdir(tiny_runs)) == 4
    del total, sc
    gc.collect()
    assert os.listdir(tiny_runs) == []


def test_run_files_keep_counts_past_32_bits(tiny_runs):
    """A run is written with 32-bit counts when they fit and 64-bit ones otherwise: either way
    it reads back as it was counted."""
    v = np.arange(0, 4000, 7, dtype=np.uint32)
    narrow = SparseCounts(v, np.full(v.size, 3, np.uint64))
    wide = SparseCounts(v[:9], (np.arange(9, dtype=np.uint64) + 1) << np.uint64(33))
    assert narrow._runs[0].count_dtype == np.uint32 and wide._runs[0].count_dtype == np.uint64
    both = narrow + wide
    got_v, got_c = both.arrays()
    want_c = np.full(v.size, 3, np.uint64)
    want_c[:9] += (np.arange(9, dtype=np.uint64) + 1) << np.uint64(33)
    assert np.array_equal(got_v, v) and np.array_equal(got_c, want_c)
    s = both.summary(3)
    assert s.total == int(want_c.sum()) and list(s.top_values) == [v[8], v[7], v[6]]


def test_a_truncated_run_file_is_an_error_naming_it(tiny_runs):
    v = np.arange(0, 4000, 3, dtype=np.uint32)
    sc = SparseCounts(v, np.ones(v.size, np.uint64))
    (name,) = os.listdir(tiny_runs)
    with open(tiny_runs / name, "r+b") as f:
        f.truncate(100)
    with pytest.raises(OSError, match="truncated"):
        sc.summary(4)


def test_shards_merge_and_compact_to_the_whole(tiny_runs):
    rng = np.random.default_rng(2)
    # and the values whose keys open each shard (the edges of every range of shards)
    edges = _counts.value_of((np.arange(SHARDS, dtype=np.uint64) << np.uint64(24)).astype(np.uint32))
    words = np.concatenate([rng.integers(0, 500, 3000), rng.integers(0, 2**32, 3000), edges]).astype(np.uint32)
    sc = _counted(words, [1000, 2500, 4000])
    whole = sc.summary(16)
    pieces = [sc.shard(lo, lo + 32).summary(16) for lo in range(0, SHARDS, 32)]
    merged = pieces[0]
    for p in pieces[1:]:
        merged = merged + p
    assert merged.mask == whole.mask
    assert (merged.total, merged.distinct, merged.entropy()) == (whole.total, whole.distinct, whole.entropy())
    assert np.array_equal(merged.top_values, whole.top_values)
    assert np.array_equal(merged.top_counts, whole.top_counts)
    with pytest.raises(ValueError, match="overlapping shards"):
        pieces[0] + pieces[0]
    with pytest.raises(ValueError, match="top 16"):
        pieces[0] + sc.shard(32, 64).summary(8)
    # each shard range holds its own values only
    for lo in range(0, SHARDS, 64):
        v, _ = sc.shard(lo, lo + 64).arrays()
        keys = _counts.shard_of(v)
        assert ((keys >= lo) & (keys < lo + 64)).all()


def test_shards_spread_clustered_values():
    """Small integers and the floats of one exponent (what dumps are full of) fill every shard."""
    for values in (np.arange(1 << 16, dtype=np.uint32), np.arange(0x3F800000, 0x3F810000, dtype=np.uint32)):
        per = np.bincount(_counts.shard_of(values), minlength=SHARDS)
        assert per.min() > 0.8 * per.mean() and per.max() < 1.2 * per.mean()


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(1, 50), min_size=1, max_size=60),
    k=st.integers(1, 70),
    max_len=st.integers(7, 20),
)
def test_length_limited_bits_from_the_top_k_and_escapes(counts, k, max_len):
    """L* from a summary (the K most frequent and a count of the rest) equals L* from every count."""
    v = np.sort(np.arange(len(counts), dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    c = np.array(counts, np.uint64)
    full = _core.length_limited_bits(v, c, 32, min(k, v.size), max_len)
    tv, tc = _top_oracle(v, c, k)
    esc = int(c.sum()) - int(tc.sum())
    got = _core.length_limited_bits(
        np.ascontiguousarray(tv), np.ascontiguousarray(tc), 32, min(k, tv.size), max_len, esc
    )
    assert got == pytest.approx(full, rel=1e-15)
    if esc == 0:
        assert got == full
    with pytest.raises(ValueError, match="SL >= 9"):
        _core.length_limited_bits(np.arange(3, dtype=np.uint32), np.ones(3, np.uint64), 8, 3, 8, 1)


def test_table_counts_spilled_or_not_give_the_same_rows(monkeypatch, tmp_path):
    blocks64 = workloads.sample_dump(1 << 18, seed=4).reshape(-1, 64)
    ref = entropy.table(blocks64, (16, 32))
    monkeypatch.setattr(_counts, "RUN_ENTRIES", 64)
    monkeypatch.setenv("MEMCOMP_TMPDIR", str(tmp_path))
    ts = entropy.table_stats(blocks64, (16, 32), chunk_blocks=37)
    assert ts.stats[1].sparse.runs_on_disk > 0
    got = entropy.table_from_stats(ts)
    cols = ["symbols", "distinct", "entropy", "cr_bound", "cr_mfv", "cr_length_limited"]
    assert got[cols].equals(ref[cols])
    # SL-32 statistics of a table agree with the in-memory histogram of the same words
    h = entropy.histogram(blocks64, 32)
    st32 = ts.stats[1]
    assert st32.distinct == h.distinct and st32.entropy() == h.entropy()
    assert st32.mfv_entropy(100) == h.mfv_entropy(100)
    assert all(np.array_equal(a, b) for a, b in zip(st32.top(50), h.top(50)))
    assert all(np.array_equal(a, b) for a, b in zip(st32.pooled(), h.pooled()))
    with pytest.raises(ValueError, match="in-memory"):
        st32 + h
    summary = entropy.SymbolStats(32, False, "little", st32.total, None, None, st32.sparse.summary(1024))
    with pytest.raises(ValueError, match="most frequent"):
        summary.pooled()
    assert isinstance(summary.sparse, CountSummary) and summary.distinct == h.distinct


@given(
    runs=st.lists(
        st.tuples(st.lists(st.integers(0, 2**32 - 1), max_size=300), st.booleans(), st.integers(0, 2**32 - 1)),
        max_size=7,
    ),
    small=st.booleans(),
)
def test_core_merge_is_numpys(runs, small):
    """merge_count_runs: the sum of any runs (sorted with each key once, or not), sorted with each
    key once, as np.unique adds them up."""
    parts, every_v, every_c = [], [], []
    for values, keep_sorted, seed in runs:
        v = np.array(values, np.uint64)
        if small:
            v %= 50  # many equal values across runs
        v = v.astype(np.uint32)
        if keep_sorted:
            v = np.unique(v)
        c = np.random.default_rng(seed).integers(1, 1 << 40, v.size).astype(np.uint64)
        parts.append((v, c))
        every_v.append(v)
        every_c.append(c)
    mv, mc = _core.merge_count_runs(parts)
    allv = np.concatenate(every_v) if every_v else np.empty(0, np.uint32)
    allc = np.concatenate(every_c) if every_c else np.empty(0, np.uint64)
    want_v, inv = np.unique(allv, return_inverse=True)
    want_c = np.zeros(want_v.size, np.uint64)
    np.add.at(want_c, inv, allc)
    assert mv.dtype == np.uint32 and mc.dtype == np.uint64
    assert np.array_equal(mv, want_v) and np.array_equal(mc, want_c)


def _runs_of_words(words: np.ndarray):
    """(keys, counts) sorted by key, as np.unique counts the words."""
    v, c = np.unique(words, return_counts=True)
    keys = _counts.key_of(v)
    order = np.argsort(keys)
    return keys[order], c[order].astype(np.uint64)


@settings(max_examples=80, deadline=None)
@given(
    words=st.lists(st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 0x3F800000]), max_size=400),
    repeat=st.integers(1, 40),
    block_words=st.sampled_from([4, 8, 32, 64]),
    big=st.booleans(),
    threads=st.sampled_from([None, 1, 2, 3]),
)
def test_core_counts_words_by_key_as_numpy(words, repeat, block_words, big, threads):
    """count_word_keys: every word counted, (keys, counts) sorted by key = word * 0x9E3779B1 mod
    2^32 (runs of repeats and big-endian words included), counts in uint32."""
    w = np.repeat(np.array(words, np.uint32), repeat)
    w = w[: w.size // block_words * block_words]
    stored = w.astype(">u4" if big else "<u4")
    blocks = stored.view(np.uint8).reshape(-1, 4 * block_words)
    keys, counts = _core.count_word_keys(blocks, "big" if big else "little", threads)
    want_k, want_c = _runs_of_words(w)
    assert keys.dtype == np.uint32 and counts.dtype == np.uint32
    assert np.array_equal(keys, want_k) and np.array_equal(counts, want_c)
    assert np.array_equal(_counts.value_of(keys), np.unique(w)[np.argsort(_counts.key_of(np.unique(w)))])
    assert np.array_equal(keys >> 24, _counts.shard_of(_counts.value_of(keys)))


@settings(max_examples=80, deadline=None)
@given(
    runs=st.lists(
        st.tuples(
            st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 40), max_size=300),
            st.sampled_from([1, 3, 5000, 1 << 33]),
            st.booleans(),
            st.integers(0, 2**32 - 1),
        ),
        max_size=6,
    ),
    k=st.integers(0, 30),
)
def test_core_summary_of_key_runs_is_numpys(runs, k):
    """summarize_key_runs: the total, distinct values, how many values have each count (small
    counts and ones of 4096 and more) and the k most frequent values of the sum of the runs,
    with uint32 and uint64 counts, as np.unique adds them up."""
    parts, every_k, every_c = [], [], []
    for values, top, narrow, seed in runs:
        keys = np.unique(np.array(values, np.uint32))
        c = np.random.default_rng(seed).integers(1, top + 1, keys.size).astype(np.uint64)
        if narrow and top < 1 << 32:
            c = c.astype(np.uint32)
        parts.append((keys, c))
        every_k.append(keys)
        every_c.append(c.astype(np.uint64))
    got = _core.summarize_key_runs(parts, k)
    allk = np.concatenate(every_k) if every_k else np.empty(0, np.uint32)
    allc = np.concatenate(every_c) if every_c else np.empty(0, np.uint64)
    want_k, inv = np.unique(allk, return_inverse=True)
    want_c = np.zeros(want_k.size, np.uint64)
    np.add.at(want_c, inv, allc)
    assert (got["total"], got["distinct"]) == (int(allc.sum()), want_k.size)
    cv, cm = np.unique(want_c, return_counts=True)
    assert np.array_equal(got["count_values"], cv) and np.array_equal(got["count_multiplicity"], cm)
    tv, tc = _top_oracle(_counts.value_of(want_k), want_c, k)
    assert np.array_equal(got["top_values"], tv) and np.array_equal(got["top_counts"], tc)


def test_core_count_helpers_refuse_bad_arrays():
    v, c = np.arange(5, dtype=np.uint32), np.ones(5, np.uint64)
    with pytest.raises(TypeError, match="dtype uint32"):
        _core.merge_count_runs([(v.astype(np.int64), c)])
    with pytest.raises(ValueError, match="must have 5 entries"):
        _core.merge_count_runs([(v, c[:4])])
    with pytest.raises(ValueError, match="strictly increasing"):
        _core.summarize_key_runs([(v[::-1].copy(), c)], 4)
    with pytest.raises(ValueError, match="strictly increasing"):
        _core.summarize_key_runs([(np.array([1, 1], np.uint32), c[:2])], 4)
    with pytest.raises(ValueError, match="a count is 0"):
        _core.summarize_key_runs([(v, np.zeros(5, np.uint32))], 4)
    with pytest.raises(TypeError, match="dtype uint64"):
        _core.summarize_key_runs([(v, c.astype(np.int64))], 4)
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.summarize_key_runs([(np.arange(10, dtype=np.uint32)[::2], c)], 4)
    with pytest.raises(ValueError, match="block size"):
        _core.count_word_keys(np.zeros((4, 6), np.uint8))
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.count_word_keys(np.zeros((4, 16), np.uint8)[:, ::2])


@given(
    n=st.integers(0, 5000),
    block=st.sampled_from([16, 32, 64, 128]),
    threads=st.sampled_from([1, 2, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_byte_position_counts_are_numpys(n, block, threads, seed):
    """MPC's per-position byte histogram (P3 §3's byte entropies): a bincount of position * 256 +
    byte, whatever the thread count; a non-contiguous array is refused, not copied."""
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 256, (n, block)) & rng.choice([0x03, 0xFF], (n, block))).astype(np.uint8)
    want = np.bincount((np.arange(block) * 256 + x).ravel(), minlength=block * 256).reshape(block, 256)
    got = _core.byte_position_counts(x, threads)
    assert got.dtype == np.uint64 and np.array_equal(got, want)
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.byte_position_counts(np.zeros((4, 64), np.uint8)[:, ::2], 1)
