"""Entropy bounds (SPEC 3) against a plain NumPy oracle; statistics as mergeable partial results."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import _core
from memcomp import entropy as E


def symbols(blocks, sl, endian="little"):
    """SPEC 0.2 symbol order, written plainly."""
    flat = blocks.reshape(-1)
    if sl == 4:
        lo, hi = flat & 0xF, flat >> 4
        pair = (lo, hi) if endian == "little" else (hi, lo)
        return np.stack(pair, axis=1).reshape(-1).astype(np.uint32)
    if sl == 8:
        return flat.astype(np.uint32)
    dt = {16: "<u2", 32: "<u4"}[sl] if endian == "little" else {16: ">u2", 32: ">u4"}[sl]
    return flat.view(dt).astype(np.uint32)


def oracle_entropy(sym):
    _, c = np.unique(sym, return_counts=True)
    p = c / c.sum()
    return float(-(p * np.log2(p)).sum())


@pytest.mark.parametrize("sl", E.SYMBOL_BITS)
@pytest.mark.parametrize("endian", ["little", "big"])
def test_histogram_and_entropy_match_oracle(sl, endian):
    blocks = np.concatenate([adversarial(32), realistic(32, 1 << 16)])
    st_ = E.histogram(blocks, sl, endian=endian)
    sym = symbols(blocks, sl, endian)
    values, counts = np.unique(sym, return_counts=True)
    got_v, got_c = st_.pooled()
    assert np.array_equal(got_v, values) and np.array_equal(got_c, counts)
    assert st_.total == sym.size and st_.distinct == values.size
    assert st_.entropy() == pytest.approx(oracle_entropy(sym), abs=1e-9)
    assert st_.cr() == pytest.approx(sl / oracle_entropy(sym))
    b = E.bound(blocks, sl, endian=endian)
    assert b.cr == pytest.approx(st_.cr()) and b.achievable


@pytest.mark.parametrize("sl", [4, 8])
def test_per_position(sl):
    blocks = realistic(64, 1 << 16)
    st_ = E.histogram(blocks, sl, per_position=True)
    sym = symbols(blocks, sl)
    npos = 32 // sl
    assert st_.counts.shape == (npos, 1 << sl)
    hs = [oracle_entropy(sym[p::npos]) for p in range(npos)]
    assert st_.entropy("per_position") == pytest.approx(np.mean(hs))
    assert E.bound(blocks, sl, "per_position").cr == pytest.approx(sl / np.mean(hs))
    with pytest.raises(ValueError, match="per-position"):
        E.histogram(blocks, 16, per_position=True)


def test_nibble_order_and_positions_golden():
    # byte 0 = 0x21: little-endian nibble order gives 1 then 2 (SPEC 0.2)
    blk = np.zeros((1, 16), np.uint8)
    blk[0, 0] = 0x21
    le = E.histogram(blk, 4, per_position=True)
    assert le.counts[0, 1] == 1 and le.counts[1, 2] == 1
    be = E.histogram(blk, 4, per_position=True, endian="big")
    assert be.counts[0, 2] == 1 and be.counts[1, 1] == 1


@pytest.mark.parametrize("sl", E.SYMBOL_BITS)
def test_block_entropy_and_block_bound(sl):
    for size in (16, 256):  # the core's tables sized by the block (512 symbols at SL 4, 256 B)
        other = np.concatenate([adversarial(size)[:50], realistic(size, 1 << 14)])
        for endian in ("little", "big"):
            want = [oracle_entropy(symbols(b[None, :], sl, endian)) for b in other]
            assert np.allclose(E.block_entropy(other, sl, endian=endian, threads=2), want, atol=1e-9), (size, endian)
    blocks = np.concatenate([adversarial(64)[:50], realistic(64, 1 << 14)])
    h = E.block_entropy(blocks, sl)
    want = [oracle_entropy(symbols(b[None, :], sl)) for b in blocks]
    assert np.allclose(h, want, atol=1e-9)
    b = E.bound(blocks, sl, "block")
    assert not b.achievable and b.cr == pytest.approx(sl / np.mean(want))
    assert b.cr >= E.bound(blocks, sl).cr - 1e-9  # per-block models look better than one global


def test_merge_equals_whole_and_sl32_merge():
    blocks = realistic(32, 1 << 18)
    for sl in E.SYMBOL_BITS:
        whole = E.histogram(blocks, sl)
        parts = [E.histogram(blocks[i : i + 999], sl) for i in range(0, len(blocks), 999)]
        merged = sum(parts[1:], parts[0])
        assert merged.total == whole.total
        assert all(np.array_equal(a, b) for a, b in zip(merged.pooled(), whole.pooled()))
        assert E.histogram(blocks, sl, chunk_blocks=500).entropy() == pytest.approx(whole.entropy())
    with pytest.raises(ValueError, match="cannot merge"):
        E.histogram(blocks, 8) + E.histogram(blocks, 16)


def test_mfv_bound_chain():
    blocks = realistic(128, 1 << 18)
    for sl in (16, 32):
        st_ = E.histogram(blocks, sl)
        h = st_.entropy()
        prev = math.inf
        for k in (1, 16, 256, 1024, 10**9):
            hk = st_.mfv_entropy(k)
            assert hk >= h - 1e-9 and hk <= prev + 1e-9  # more MFVs never hurt the bound
            prev = hk
        assert st_.mfv_entropy(10**9) == pytest.approx(h)  # every value in the table: no escapes
        # hand formula on the oracle
        sym = symbols(blocks, sl)
        v, c = np.unique(sym, return_counts=True)
        order = np.lexsort((v, -c))[:16]
        p = c[order] / sym.size
        pe = 1 - p.sum()
        assert st_.mfv_entropy(16) == pytest.approx(-(p * np.log2(p)).sum() - pe * math.log2(pe) + pe * sl)
        assert st_.mfv_cr(16) <= st_.cr() + 1e-9
        # the chain CR_H >= CR_K >= CR_L* (SPEC 3), and E2MC's payload is never below L*
        assert st_.length_limited_cr(16) <= st_.mfv_cr(16) + 1e-9
        assert st_.length_limited_cr(16, max_len=32) <= st_.mfv_cr(16) + 1e-9
        codec = memcomp.get_codec("e2mc", symbol_bits=sl, mfv=16, pdw=1, raw=False, limit="package_merge").fit(blocks)
        payload = int(codec.measure(blocks).payload_bits.sum())
        assert payload == pytest.approx(st_.length_limited_bits(16) * st_.total, rel=1e-9)


@given(st.lists(st.integers(0, 255), min_size=16, max_size=256))
def test_hypothesis_entropy_bounds(data):
    data = data[: len(data) // 16 * 16]
    blocks = np.array(data, np.uint8).reshape(-1, 16)
    for sl in E.SYMBOL_BITS:
        h = E.histogram(blocks, sl).entropy()
        assert 0.0 <= h <= min(sl, math.log2(8 * blocks.size / sl)) + 1e-9
        assert h == pytest.approx(oracle_entropy(symbols(blocks, sl)), abs=1e-9)


def test_topk_sketch():
    rng = np.random.default_rng(0)
    words = np.concatenate(
        [
            np.repeat(np.arange(20, dtype=np.uint32), rng.integers(50, 500, 20)),
            rng.integers(0, 2**32, 5000, dtype=np.uint32),
        ]
    )
    rng.shuffle(words)
    words = words[: len(words) // 4 * 4]
    blocks = memcomp.as_blocks(words, 16)
    exact = dict(zip(*np.unique(words, return_counts=True)))
    few = E.TopK(capacity=10_000).add(blocks)
    df = few.top()
    assert (df["error"] == 0).all() and len(df) == len(exact)  # capacity above distinct: exact
    assert all(exact[v] == c for v, c in zip(df["value"], df["count"]))
    sk = E.TopK(capacity=64).add(blocks)
    top = sk.top()
    assert len(top) == 64 and sk.total == words.size
    for v in range(20):  # heavy hitters (count > total / capacity) are kept, counts bracket the truth
        row = top[top["value"] == v]
        assert len(row) == 1
        assert row["count"].item() - row["error"].item() <= exact[v] <= row["count"].item()
    half = len(blocks) // 2
    merged = E.TopK(64).add(blocks[:half]) + E.TopK(64).add(blocks[half:])
    assert merged.total == sk.total
    assert set(range(20)) <= set(merged.top()["value"])
    back = pickle.loads(pickle.dumps(merged))
    assert back.top().equals(merged.top())


def test_bad_input():
    blocks = realistic(32, 1 << 12)
    with pytest.raises(ValueError, match="symbol_bits"):
        E.histogram(blocks, 12)
    with pytest.raises(TypeError, match="symbol_bits"):
        E.bound(blocks, True)
    with pytest.raises(ValueError, match="variant"):
        E.bound(blocks, 8, "best")
    with pytest.raises(TypeError, match="ndarray or a memcomp Dump"):
        E.histogram([1, 2, 3], 8)
    with pytest.raises(TypeError, match="uint8"):
        E.histogram(blocks.view(np.int8), 8)
    with pytest.raises(ValueError, match="endian"):
        E.histogram(blocks, 16, endian="middle")
    with pytest.raises(ValueError, match="capacity"):
        E.TopK(0)
    with pytest.raises(ValueError, match="mfv must be a positive integer"):
        E.histogram(blocks, 16).mfv_entropy(0)


def test_table_and_per_workload():
    blocks = realistic(128, 1 << 18)
    t = E.table(blocks)
    assert list(t["symbol_bits"]) == [4, 8, 16, 32]
    for _, r in t.iterrows():
        assert r["cr_bound"] == pytest.approx(E.bound(blocks, r["symbol_bits"]).cr)
        assert r["cr_mfv"] <= r["cr_bound"] + 1e-9
    parts = {name: memcomp.as_blocks(a, 128) for name, a in memcomp.workloads.sample(1 << 16).items()}
    g, df = E.bound_per_workload(parts, 16)
    finite = df["cr"][np.isfinite(df["cr"])]
    assert g == pytest.approx(float(np.exp(np.log(finite).mean())))
    assert len(df) == len(parts)


@pytest.mark.parametrize("endian", ["little", "big"])
def test_table_rows_do_not_depend_on_the_other_symbol_lengths(endian):
    """SL 4 rides along with SL 8 (nibble counts by position and per-block entropies from the
    bytes'): each row equals the row of a table of that symbol length alone."""
    blocks = realistic(64, 1 << 16)
    both = E.table(blocks, (4, 8, 16), endian=endian).set_index("symbol_bits")
    for sl in (4, 8, 16):
        alone = E.table(blocks, (sl,), endian=endian).set_index("symbol_bits")
        assert (
            both.loc[[sl]]
            .drop(columns=["memcomp_version"], errors="ignore")
            .equals(alone.drop(columns=["memcomp_version"], errors="ignore"))
        ), sl
    h8 = _core.symbol_histogram(blocks, 8, True, endian, 1)["counts"]
    assert np.array_equal(E._nibble_counts(h8, endian), _core.symbol_histogram(blocks, 4, True, endian, 1)["counts"])


def test_table_columns_are_documented_and_per_position_is_what_it_says():
    """Issue 33 item 11: every column of entropy.table says what it holds; cr_bound is SL / H of one
    histogram over the whole dump (a per-block codec can beat it); cr_per_position is SL / mean
    H_p over the symbol positions of a 32-bit word at SL 4 and 8 (E2MC's per-position trees, P1
    §III-F) and NaN at SL 16 and 32, where E2MC keeps one tree."""
    blocks = realistic(64, 1 << 16)
    t = E.table(blocks).set_index("symbol_bits")
    provenance = {"memcomp_version", "block_bytes", "endian"}
    for col in set(t.reset_index().columns) - provenance - {"symbol_bits"}:
        assert f"``{col}``" in E.table.__doc__, col
    assert "whole dump" in E.table.__doc__ and "not per-block codecs" in E.table.__doc__
    for sl in (4, 8):
        sym = symbols(blocks, sl)
        npos = 32 // sl
        h = np.mean([oracle_entropy(sym[p::npos]) for p in range(npos)])
        assert t.loc[sl, "cr_per_position"] == pytest.approx(sl / h)
        assert t.loc[sl, "cr_bound"] == pytest.approx(sl / oracle_entropy(sym))
    assert np.isnan(t.loc[16, "cr_per_position"]) and np.isnan(t.loc[32, "cr_per_position"])
    assert "NaN at SL 16 and 32" in E.table.__doc__


@given(
    n=st.integers(0, 3000),
    block=st.sampled_from([16, 32, 64, 128, 256]),
    sl=st.sampled_from([4, 8]),
    endian=st.sampled_from(["little", "big"]),
    per_position=st.booleans(),
    threads=st.sampled_from([1, 2, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_nibble_and_byte_histograms_are_numpys(n, block, sl, endian, per_position, threads, seed):
    """SL 4 and 8 histograms (from the bytes' counts per position in a word) equal a bincount of
    SPEC 0.2's symbols, per position (symbol index mod 32 / SL) or pooled, at every split."""
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 256, (n, block)) & rng.choice([0x0F, 0xF0, 0xFF], (n, block))).astype(np.uint8)
    got = E.histogram(x, sl, per_position=per_position, endian=endian, threads=threads)
    s = symbols(x, sl, endian)
    per = 32 // sl if per_position else 1
    want = np.zeros((per, 1 << sl), np.int64)
    np.add.at(want, (np.arange(s.size) % per, s), 1)
    assert got.total == s.size and np.array_equal(np.asarray(got.counts).reshape(per, -1), want)
