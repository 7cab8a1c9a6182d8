"""SLC (P4; SPEC 1.11): a real lossy codec on the E2MC machinery. Golden W13, decisions against a
brute-force oracle (oracles_slc.py) on random code lengths, the lossless/lossy contract, the
variants, threshold 0 = E2MC, corrupt streams, bad parameters, quality metrics and the study API."""

import contextlib
import dataclasses
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
import oracles_slc as O
from blockgen import adversarial, realistic
from memcomp import slc

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "slc.json")).read_text())


def table_model(codes, esc_len=1, sl=16):
    """An E2MC model of one table coding each value of ``codes`` ({value: bits}) with its bits."""
    values = sorted(codes)
    return {
        "format": "memcomp.model/1",
        "codec": "e2mc",
        "sl": sl,
        "positions": 1,
        "max_len": 20,
        "tables": [{"symbols": values, "lengths": [codes[v] for v in values], "esc_len": esc_len}],
    }


def model_of(lengths, esc_len=1, sl=16, first=1000):
    """An E2MC model coding value first + i with lengths[i] bits."""
    return table_model({first + i: n for i, n in enumerate(lengths)}, esc_len, sl)


def block_of(values, dtype="<u2"):
    return np.ascontiguousarray(np.asarray(values, dtype=dtype).view(np.uint8).reshape(1, -1))


def header(enc, i, ss_bits=6):
    """(m, ss, len) of block i's SLC header."""
    h = int.from_bytes(enc.block_stream(i)[:4].ljust(4, b"\0"), "big")
    return h >> 31, (h >> (31 - ss_bits)) & ((1 << ss_bits) - 1), ((h >> (27 - ss_bits)) & 0xF) + 1


# ------------------------------------------------------------------------------------------ golden
@pytest.mark.parametrize("variant", ["simp", "pred", "opt"])
def test_w13(variant):
    g = GOLDEN["w13"]
    model = model_of([13] * 32 + [12] * 32)
    x = block_of(1000 + np.arange(64))
    # kept lossless (at MAG 16, where E2MC's raw rule still lets 832 bits through)
    lossless = memcomp.get_codec("slc", variant=variant, model=model, mag=16).measure(x, approximable=np.array([False]))
    assert int(lossless.header_bits[0]) == g["header_bits"]  # 1 + 6 + 4 + 21 pointer bits, no pads
    assert int(lossless.size_bits[0]) == g["comp"]
    c = memcomp.get_codec("slc", variant=variant, model=model)
    s, enc = c.measure(x), c.encode(x)
    want = g["opt" if variant == "opt" else "pred"]
    assert int(s.size_bits[0]) == int(enc.bit_lengths[0]) == want["bits"] and int(s.mode[0]) == 2
    assert header(enc, 0) == (1, want["ss"], want["len"])
    assert int(memcomp.charge(s.size_bits, 128, "mag(32)")[0]) == 8 * g["charged_bytes_at_mag"] == g["budget"]
    if variant == "opt":
        assert int(s.header_bits[0]) == 32 + want["pad"]
    d = c.decode(enc)[0].view("<u2")
    kept = np.r_[0 : want["ss"], want["ss"] + want["len"] : 64]
    assert np.array_equal(d[kept], 1000 + kept)
    cut = d[want["ss"] : want["ss"] + want["len"]]
    if variant == "simp":
        assert (cut == 0).all()
    else:  # the first kept word (symbols 2k, 2k+1 after the run) copied word by word
        first = want["ss"] + want["len"]
        assert np.array_equal(cut, np.tile([1000 + first, 1001 + first], want["len"] // 2))


def issue_block():
    """GOLDEN["prediction"]: model {0x1111: 8, 0x2222: 12, 0x3333: 11}, ESC 2, and its block."""
    model = table_model({0x1111: 8, 0x2222: 12, 0x3333: 11}, esc_len=2)
    return model, block_of([0x1111, 0xBEEF] + [0x2222] * 36 + [0x3333] * 26)


@pytest.mark.parametrize("variant", ["pred", "opt"])
def test_prediction_never_copies_a_truncated_symbol(variant):
    """Issue 33 item 2: the run [1, 2) starts inside word 0. P4 §III-E: "the value of the first
    non-truncated symbol of the block" is symbol 0 (0x1111); the word predictor copies word 1, the
    first whole word kept (symbol 1 takes symbol 3, 0x2222). Before: 0x0 (itself, zero-filled)."""
    g = GOLDEN["prediction"]
    model, x = issue_block()
    assert int(memcomp.get_codec("e2mc", model=model).measure(x).size_bits[0]) == g["e2mc_bits"]
    keep = np.array([False])
    assert int(memcomp.get_codec("slc", model=model, mag=16).measure(x, approximable=keep).size_bits[0]) == g["comp"]
    for how in ("symbol", "word"):
        c = memcomp.get_codec("slc", variant=variant, predict=how, budget="stream", model=model)
        s, enc = c.measure(x), c.encode(x)
        assert (int(s.mode[0]), int(s.size_bits[0])) == (2, g["stream"]["bits"])
        assert header(enc, 0) == (1, g["stream"]["ss"], g["stream"]["len"])
        d = c.decode(enc)[0].view("<u2")
        assert hex(d[1]) == g["decoded_symbol_1"][how]
        assert np.array_equal(np.delete(d, 1), np.delete(x[0].view("<u2"), 1))


def test_budget_rules_by_hand():
    """Issue 33 item 4, GOLDEN["prediction"] and ["budget_codes_w13_mag16"]: "stream" makes the issue's
    block lossy with no burst saved (3 bursts, as E2MC); "gain" keeps it exact (784 bits: raw);
    "codes" (P4 §III-C, code lengths only: 744 bits, extra 232 > 128) too. On W13 at MAG 16 "codes"
    truncates span 4 and is charged its 784-bit stream (7 bursts, as E2MC's 824 bits)."""
    g = GOLDEN["prediction"]
    model, x = issue_block()
    for budget in ("stream", "gain", "codes"):
        s = memcomp.get_codec("slc", variant="pred", budget=budget, model=model).measure(x)
        assert {0: "raw", 2: "lossy"}[int(s.mode[0])] == g[budget]["mode"], budget
        assert int(s.size_bits[0]) == g[budget]["bits"], budget
    assert memcomp.get_codec("slc").get_config()["budget"] == "gain"
    zero = slc.compress(x, model, threshold_bytes=0).report  # SLC without lossy mode is E2MC, block for block
    assert (zero["lossless_more_bursts"], zero["lossy_no_gain"], zero["cr_mag_slc"]) == (0, 0, 128 / 96)
    w = GOLDEN["budget_codes_w13_mag16"]
    w13, xw = model_of([13] * 32 + [12] * 32), block_of(1000 + np.arange(64))
    c = memcomp.get_codec("slc", variant="pred", budget="codes", mag=w["mag"], model=w13)
    s, enc = c.measure(xw), c.encode(xw)
    assert (int(s.mode[0]), int(s.size_bits[0]), header(enc, 0)) == (2, w["bits"], (1, w["ss"], w["len"]))
    assert int(memcomp.charge(s.size_bits, 128, "mag(16)")[0]) == 8 * w["charged_bytes"]
    s32 = memcomp.get_codec("slc", variant="pred", budget="codes", model=w13).measure(xw)
    assert (int(s32.mode[0]), int(s32.size_bits[0])) == (
        0,
        w["at_mag32"]["bits"],
    )  # the lossy stream breaks the raw rule
    e = memcomp.get_codec("e2mc", mag=16, model=w13).measure(xw)
    assert int(e.size_bits[0]) == w["e2mc_bits"]
    assert int(memcomp.charge(e.size_bits, 128, "mag(16)")[0]) == 8 * w["e2mc_charged_bytes"]
    rep = slc.compress(xw, w13, mag=16, variant="pred", budget="codes").report
    assert (rep["lossy_blocks"], rep["lossy_share"], rep["lossy_no_gain"], rep["truncated_symbols"]) == (
        1,
        1.0,
        1,
        w["len"],
    )
    for budget in ("gain", "stream"):  # W13 at MAG 16: budget 6 bursts < E2MC's 7
        r = slc.compress(xw, w13, mag=16, variant="pred", budget=budget).report
        assert (r["lossy_blocks"], r["lossy_share"], r["lossy_no_gain"], r["truncated_symbols"]) == (1, 1.0, 0, 8)
    for budget, no_gain, more in (("stream", 1, 0), ("gain", 0, 1), ("codes", 0, 1)):
        rep = slc.compress(x, model, variant="pred", budget=budget).report
        assert (rep["lossy_no_gain"], rep["lossless_more_bursts"], rep["budget"]) == (no_gain, more, budget)
        assert rep["cr_mag_e2mc"] == 128 / 96  # E2MC: 768 bits, 3 bursts
        assert rep["cr_mag_slc"] == (128 / 96 if budget == "stream" else 1.0)


@pytest.mark.parametrize("case", ["span6", "span12"])
@pytest.mark.parametrize("variant", ["opt", "pred"])
def test_opt_extra_nodes_start_at_8q_and_16q(case, variant):
    """SPEC 1.11: TSLC-OPT's span-6 nodes start at 8q and its span-12 nodes at 16q (P4 §III-F's "8
    and 4 extra nodes"); GOLDEN["opt_nodes"] picks the node at q = 1 by hand."""
    g = GOLDEN["opt_nodes"][case]
    lengths = {"span6": [8, 16, 13], "span12": [8, 14, 16]}[case]
    runs = {"span6": [8, 8, 48], "span12": [16, 12, 36]}[case]
    values = [0x0C0C, 0x0A0A, 0x0D0D]
    model = table_model(dict(zip(values, lengths)))
    x = block_of(np.repeat(values, runs))
    t = g.get("threshold_bytes", 16)
    keep = np.array([False])  # comp, kept lossless (at MAG 8 E2MC's raw rule lets up to 960 bits through)
    assert int(memcomp.get_codec("slc", model=model, mag=8).measure(x, approximable=keep).size_bits[0]) == g["comp"]
    c = memcomp.get_codec("slc", variant=variant, threshold_bytes=t, model=model)
    s, enc = c.measure(x), c.encode(x)
    want = g[variant]
    assert (int(s.mode[0]), int(s.size_bits[0])) == (2, want["bits"])
    assert header(enc, 0) == (1, want["ss"], want["len"])
    rep = slc.compress(x, model, threshold_bytes=t, variant=variant).report
    assert (rep["truncated_symbols"], rep["truncated_bits"]) == (
        want["len"],
        {"span6": 96, "span12": 168}[case] if variant == "opt" else {"span6": 128, "span12": 232}[case],
    )


def test_truncated_bits_are_the_code_bits_of_the_truncated_symbols():
    """Issue 33 item 3 (GOLDEN["truncated_bits"]): 64 symbols of 13-bit codes, E2MC stores the block
    raw (1,024 bits); SLC truncates 8 symbols, 8 x 13 = 104 code bits (before: 1024 - 728 = 296)."""
    g = GOLDEN["truncated_bits"]
    model, x = model_of([13] * 64), block_of(1000 + np.arange(64))
    assert int(memcomp.get_codec("e2mc", model=model).measure(x).mode[0]) == 0  # raw
    r = slc.compress(x, model, variant="pred")
    assert header(r.encoded, 0) == (1, g["ss"], g["len"]) and int(r.sizes.size_bits[0]) == g["bits"]
    assert (r.report["truncated_symbols"], r.report["truncated_bits"]) == (g["len"], g["truncated_bits"])
    df = slc.sweep(
        np.repeat(x, 3, axis=0), thresholds=(16,), mags=(32,), variants=("pred",), model=model, chunk_blocks=2
    )
    assert (int(df["truncated_symbols"][0]), int(df["truncated_bits"][0])) == (3 * g["len"], 3 * g["truncated_bits"])


# ------------------------------------------------------------------------------- brute-force oracle
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["simp", "pred", "opt"]),
    st.sampled_from([8, 16, 32]),
    st.booleans(),
    st.sampled_from([1, 2, 4]),
    st.sampled_from(["gain", "stream", "codes"]),
    st.sampled_from([16, 32, 64]),
    st.sampled_from(["word", "symbol"]),
)
@settings(max_examples=150, deadline=None)
def test_decisions_equal_brute_force(seed, variant, threshold, compact, pdw, budget, mag, predict):
    """On random code-length vectors the codec's mode, size, header and node are those of an
    exhaustive search over every candidate node (P4 §III-D rules, SPEC 1.11 order) under each
    budget rule, and a lossy block decodes to the oracle's prediction (P4 §III-E)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(6, 21, 96)  # Kraft <= 96 / 64 * 2^-6 < 1/2 beside a 1-bit ESC
    c = memcomp.get_codec(
        "slc",
        variant=variant,
        threshold_bytes=threshold,
        compact_lossless=compact,
        pdw=pdw,
        mag=mag,
        budget=budget,
        predict=predict,
        model=model_of(lengths.tolist()),
    )
    picks = rng.integers(0, 96, (40, 64))
    x = np.ascontiguousarray((1000 + picks).astype("<u2").view(np.uint8).reshape(40, 128))
    s, enc = c.measure(x), c.encode(x)
    assert np.array_equal(s.size_bits, enc.bit_lengths)
    d = c.decode(enc).view("<u2")
    names = {0: "raw", 1: "lossless", 2: "lossy"}
    for i in range(len(x)):
        costs = lengths[picks[i]].tolist()
        want = O.plan(
            costs, 128, pdw=pdw, mag=mag, threshold=threshold, variant=variant, compact=compact, budget=budget
        )
        assert names[int(s.mode[i])] == want["mode"], i
        assert int(s.size_bits[i]) == want["bits"], i
        if want["mode"] != "raw":
            assert int(s.header_bits[i]) == want["header"], i
        if want["mode"] == "lossy":
            assert header(enc, i) == (1, want["ss"], want["len"])
            charged = int(memcomp.charge(s.size_bits[i : i + 1], 128, f"mag({mag})")[0])
            # within the budget, below it when a threshold of a MAG or more lets a node drop a whole burst
            # (P4 §V-C); "codes" is charged what its stream takes (its bits are the oracle's, above)
            assert budget == "codes" or charged <= want["budget"], i
            assert budget == "codes" or threshold >= mag or charged == want["budget"], i
            symbols = (1000 + picks[i]).tolist()
            assert d[i].tolist() == O.predict(symbols, want["ss"], want["len"], variant=variant, how=predict)
        else:
            assert np.array_equal(d[i], 1000 + picks[i])


@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 32), (8, 64), (16, 128), (32, 256)]), st.data())
@settings(max_examples=60, deadline=None)
def test_prediction_equals_the_oracle_at_every_symbol_size(seed, sl_b, data):
    """At SL 4/8 (8 and 4 symbols a word) a run can start inside word 0 at ss > 0: every lossy
    block decodes to the oracle's prediction, which never reads a truncated symbol."""
    sl, B = sl_b
    variant = data.draw(st.sampled_from(["simp", "pred", "opt"]))
    how = data.draw(st.sampled_from(["word", "symbol"]))
    rng = np.random.default_rng(seed)
    c = memcomp.get_codec(
        "slc",
        symbol_bits=sl,
        pdw=1,
        mag=min(32, B // 4),
        variant=variant,
        predict=how,
        budget="stream",
        threshold_bytes=32,
    ).fit(realistic(B, 1 << 14, seed=seed % 7))
    x = np.ascontiguousarray(np.concatenate([realistic(B, 1 << 13, seed=seed % 5 + 1), adversarial(B, seed % 9)]))
    x = x[rng.permutation(len(x))[:200]]
    s, enc = c.measure(x), c.encode(x)
    d = c.decode(enc)
    n = 8 * B // sl
    ss_bits = math.ceil(math.log2(n))

    def symbols(block):
        if sl == 4:
            return np.stack([block & 15, block >> 4], axis=1).ravel().tolist()  # low nibble first (SPEC 0.2)
        return block.view({8: "<u1", 16: "<u2", 32: "<u4"}[sl]).tolist()

    for i in np.flatnonzero(s.mode == 2):
        _, ss, length = header(enc, int(i), ss_bits)
        assert symbols(d[i]) == O.predict(symbols(x[i]), ss, length, sl=sl, variant=variant, how=how)


# ---------------------------------------------------------------------------------- the contract
@pytest.fixture(scope="module")
def fp32():
    x = memcomp.as_blocks(memcomp.workloads.generate("fp32_activations", 1 << 19, seed=1), 128)
    return x, memcomp.get_codec("e2mc").fit(x).model


def test_lossless_blocks_exact_lossy_blocks_fit_their_budget(fp32):
    x, model = fp32
    c = memcomp.get_codec("slc", model=model)
    s, enc = c.measure(x), c.encode(x)
    d = c.decode(enc)
    lossy = s.mode == 2
    assert 0.05 < lossy.mean() < 0.9
    assert np.array_equal(d[~lossy], x[~lossy])
    assert (d[lossy] != x[lossy]).any(axis=1).all()
    ll = c.measure(x, approximable=np.zeros(len(x), bool))  # the same blocks kept lossless
    assert not (ll.mode == 2).any()
    charged = memcomp.charge(s.size_bits, 128, "mag(32)")
    assert (charged[lossy] % 256 == 0).all()
    # comp, the lossless stream's bits (at MAG 16 E2MC's raw rule lets up to 896 bits through)
    comp = memcomp.get_codec("slc", model=model, mag=16).measure(x, approximable=np.zeros(len(x), bool))
    assert (comp.mode[lossy] == 1).all()
    budget = comp.size_bits[lossy].astype(np.int64) // 256 * 256  # the MAG multiple below comp
    assert np.array_equal(charged[lossy], budget)
    assert (charged[lossy] < memcomp.charge(ll.size_bits, 128, "mag(32)")[lossy]).all()
    assert (comp.size_bits[lossy] - budget <= 8 * 16).all()  # at most the threshold above it
    assert np.array_equal(
        memcomp.charge(s.size_bits, 128, "mag(32)")[~lossy], memcomp.charge(ll.size_bits, 128, "mag(32)")[~lossy]
    )


def test_variants_differ_only_where_they_should(fp32):
    x, model = fp32
    simp, pred, opt = (memcomp.get_codec("slc", variant=v, model=model) for v in ("simp", "pred", "opt"))
    es, ep, eo = simp.encode(x), pred.encode(x), opt.encode(x)
    for f in ("data", "bit_offsets", "bit_lengths", "tags"):
        assert np.array_equal(getattr(es, f), getattr(ep, f)), f  # simp and pred write the same stream
    ds, dp, do = simp.decode(es), pred.decode(ep), opt.decode(eo)
    lossy = pred.measure(x).mode == 2
    assert np.array_equal(ds[~lossy], dp[~lossy]) and not np.array_equal(ds[lossy], dp[lossy])
    mo = opt.measure(x).mode
    assert np.array_equal(mo == 2, lossy)  # the extra nodes change which node, not whether
    hp = np.array([header(ep, i)[2] for i in np.flatnonzero(lossy)])
    ho = np.array([header(eo, i)[2] for i in np.flatnonzero(lossy)])
    assert (ho <= hp).all() and (ho < hp).any() and set(ho[ho != hp]) <= {6, 12}
    same = np.flatnonzero(lossy)[ho == hp]
    assert np.array_equal(do[same], dp[same]) and np.array_equal(do[~lossy], x[~lossy])
    qs, qp, qo = (slc.quality(x, d) for d in (ds, dp, do))
    assert qo["nrmse"] <= qp["nrmse"] < qs["nrmse"]  # P4 Fig. 7: OPT lowest error, SIMP highest


def test_header_is_iii_g():
    """m:1, ss:log2 S, len:4, then E2MC's pointers; compact_lossless drops ss and len when m = 0."""
    model = model_of([13] * 32 + [12] * 32)
    x = block_of(1000 + np.arange(64))
    keep = np.array([False])
    full = memcomp.get_codec("slc", model=model, mag=16).measure(x, approximable=keep)
    compact = memcomp.get_codec("slc", model=model, mag=16, compact_lossless=True).measure(x, approximable=keep)
    assert (int(full.header_bits[0]), int(full.size_bits[0])) == (32, 832)
    # 1 + 21 pointer bits; segment 1 ends at 230 bits, padded to 232: header 24, 832 - 8
    assert (int(compact.header_bits[0]), int(compact.size_bits[0])) == (24, 824)
    e = memcomp.get_codec("e2mc", model=model, mag=16).measure(x)
    assert (int(e.header_bits[0]), int(e.size_bits[0])) == (
        24,
        824,
    )  # E2MC: 21 + a 3-bit pad: the mode bit fits the pad
    for sl, B, ss_bits in ((4, 64, 7), (8, 32, 5), (32, 256, 6), (16, 16, 3)):
        c = memcomp.get_codec("slc", symbol_bits=sl, pdw=1, mag=min(32, B)).fit(realistic(B, 1 << 14))
        s = c.measure(realistic(B, 1 << 12), approximable=np.zeros((1 << 12) // B, bool))
        assert set(s.header_bits[s.mode == 1]) == {1 + ss_bits + 4}


@pytest.mark.parametrize("sl, B", [(16, 128), (4, 32), (8, 64), (32, 256)])
def test_threshold_zero_is_e2mc(sl, B):
    x = realistic(B, 1 << 16)
    e = memcomp.get_codec("e2mc", symbol_bits=sl).fit(x)
    c = memcomp.get_codec("slc", symbol_bits=sl, threshold_bytes=0, model=e.model)
    assert not c.lossy
    a, b = c.encode(x), e.encode(x)
    assert np.array_equal(a.bit_lengths, b.bit_lengths) and np.array_equal(a.data, b.data)
    assert np.array_equal(c.decode(a), x) and np.array_equal(c.measure(x).size_bits, e.measure(x).size_bits)


@pytest.mark.parametrize("budget", ["gain", "stream", "codes"])
@pytest.mark.parametrize("variant", ["simp", "pred", "opt"])
@pytest.mark.parametrize("sl, pdw, B", [(16, 4, 128), (8, 2, 64), (4, 1, 32), (32, 4, 128), (16, 8, 256)])
def test_measure_equals_encode_and_lossless_roundtrip(variant, sl, pdw, B, budget):
    x = np.ascontiguousarray(np.concatenate([adversarial(B)[:60], realistic(B, 1 << 15)]))
    c = memcomp.get_codec("slc", variant=variant, symbol_bits=sl, pdw=pdw, budget=budget).fit(x[::3].copy())
    s, enc = c.measure(x), c.encode(x)
    assert np.array_equal(s.size_bits, enc.bit_lengths) and int(s.size_bits.max()) <= c.max_compressed_bits(B)
    d = c.decode(enc)
    assert np.array_equal(d[s.mode != 2], x[s.mode != 2])
    mask = np.arange(len(x)) % 2 == 0
    sm = c.measure(x, approximable=mask)
    assert not (sm.mode[~mask] == 2).any()
    assert np.array_equal(c.decode(c.encode(x, approximable=mask))[~mask], x[~mask])
    # "gain" (SPEC 1.11 Revised): a lossy block takes fewer bursts than E2MC takes for it
    e2mc = memcomp.get_codec("e2mc", symbol_bits=sl, pdw=pdw, model=c.model).measure(x)
    saved = memcomp.charge(s.size_bits, B, "mag(32)") < memcomp.charge(e2mc.size_bits, B, "mag(32)")
    assert budget != "gain" or saved[s.mode == 2].all()


def test_corrupt_and_truncated_streams_raise(fp32):
    x, model = fp32
    c = memcomp.get_codec("slc", model=model)
    enc = c.encode(x[:400])
    lossy = np.flatnonzero(c.measure(x[:400]).mode == 2)
    i = int(lossy[0])
    off = int(enc.bit_offsets[i]) // 8
    bad = enc.data.copy()
    bad[off] ^= 0x03  # ss becomes a start that is not a node of the tree
    with pytest.raises(memcomp.CorruptStreamError):
        c.decode(dataclasses.replace(enc, data=bad))
    short = enc.bit_lengths.copy()
    short[i] -= 9
    with pytest.raises(memcomp.CorruptStreamError):
        c.decode(dataclasses.replace(enc, bit_lengths=short))
    lossless = int(np.flatnonzero(c.measure(x[:400]).mode == 1)[0])
    bad = enc.data.copy()
    bad[int(enc.bit_offsets[lossless]) // 8] |= 0x20  # m = 0 with a non-zero start field
    with pytest.raises(memcomp.CorruptStreamError, match="lossless block with a start"):
        c.decode(dataclasses.replace(enc, data=bad))
    rng = np.random.default_rng(0)
    for _ in range(200):  # bit flips anywhere: a clean error or some blocks, never a crash
        flipped = enc.data.copy()
        flipped[rng.integers(0, len(flipped))] ^= np.uint8(1 << rng.integers(0, 8))
        with contextlib.suppress(memcomp.CorruptStreamError):
            c.decode(dataclasses.replace(enc, data=flipped))


def test_bad_parameters():
    x = realistic(128, 1 << 14)
    with pytest.raises(ValueError, match="threshold_bytes"):
        memcomp.get_codec("slc", threshold_bytes=-1)
    with pytest.raises(ValueError, match="variant"):
        memcomp.get_codec("slc", variant="best")
    with pytest.raises(ValueError, match="MAG"):
        memcomp.get_codec("slc", mag=24).fit(x)
    with pytest.raises(ValueError, match="does not divide"):
        slc.compress(x, mag=48)
    with pytest.raises(ValueError, match="variant"):
        slc.compress(x, variant="best")
    with pytest.raises(ValueError, match="threshold_bytes"):
        slc.compress(x, threshold_bytes=-4)
    with pytest.raises(ValueError, match="does not divide"):
        slc.as_values(np.zeros((2, 6), np.uint8), np.float32)
    with pytest.raises(ValueError, match="dtype"):
        slc.compress(x, dtype=np.complex64)
    with pytest.raises(ValueError, match="approximable"):
        slc.compress(x, approximable=np.ones(3, bool))
    with pytest.raises(ValueError, match="lossless"):
        memcomp.get_codec("bdi").measure(x, approximable=np.ones(len(x), bool))
    with pytest.raises(ValueError):
        memcomp.get_codec("slc").fit(x).measure(x, approximable=np.ones(len(x) - 1, bool))


# ------------------------------------------------------------------------------------- quality
def test_quality_metrics_match_numpy():
    rng = np.random.default_rng(3)
    o = rng.normal(0, 1, 4096).astype(np.float32)
    a = o.copy()
    a[::7] += 0.01
    a[5] = 0.0
    ob, ab = (memcomp.as_blocks(v, 128) for v in (o, a))
    q = slc.quality(ob, ab, np.float32)
    err = a.astype(np.float64) - o
    assert q["mre"] == pytest.approx(np.mean(np.abs(err) / np.abs(o.astype(np.float64))))
    assert q["nrmse"] == pytest.approx(np.sqrt(np.mean(err**2)) / (o.max() - o.min()))
    assert q["psnr"] == pytest.approx(10 * np.log10(float(o.max() - o.min()) ** 2 / np.mean(err**2)))
    assert q["max_abs_error"] == pytest.approx(np.abs(err).max()) and q["changed"] == np.mean(err != 0)
    img = rng.integers(0, 256, 4096, dtype=np.uint8)
    img2 = img.copy()
    img2[:10] ^= 1
    qi = slc.quality(memcomp.as_blocks(img, 128), memcomp.as_blocks(img2, 128), np.uint8)
    assert qi["psnr"] == pytest.approx(10 * np.log10(255**2 / (10 / 4096)))
    bf = (o.view(np.uint32) >> 16).astype(np.uint16)
    qb = slc.quality(memcomp.as_blocks(bf, 128), memcomp.as_blocks(bf, 128), "bfloat16")
    assert qb["mre"] == 0 and qb["psnr"] == math.inf
    want = (np.array([bf[0]], np.uint32) << 16).view(np.float32)[0]
    assert slc.as_values(memcomp.as_blocks(bf, 128), "bfloat16").ravel()[0] == want


def test_robust_metrics_match_numpy():
    """Issue 33 item 6: the floored relative error, its percentiles over changed elements, NRMSE by
    the std, sign flips and non-finite outputs, against NumPy on the same values."""
    rng = np.random.default_rng(5)
    o = rng.normal(0, 1, 4096).astype(np.float32)
    o[:3] = [0.0, 1e-7, -2.5]
    a = o.copy()
    a[:3] = [0.5, 2e-7, 2.5]  # a zero changed, a tiny value doubled, a sign flipped
    a[10:400:3] *= np.float32(1.01)
    ob, ab = (memcomp.as_blocks(v, 128) for v in (o, a))
    q = slc.quality(ob, ab)
    o64, a64 = o.astype(np.float64), a.astype(np.float64)
    err = a64 - o64
    floor = 1e-3 * np.median(np.abs(o64[o64 != 0]))
    rel = np.abs(err) / np.maximum(np.abs(o64), floor)
    assert q["rel_floor"] == floor
    assert q["mre_floored"] == pytest.approx(rel.mean(), rel=1e-12)
    changed = rel[err != 0]
    for p in (50, 90, 99):  # the histogram bin's lower edge: at most 2**-10 below the exact value
        exact = np.percentile(changed, p, method="inverted_cdf")
        assert exact * (1 - 2**-10) <= q[f"rel_err_p{p}"] <= exact, p
    assert q["rel_err_max"] == 0.5 / floor == changed.max()  # the zero made 0.5
    assert q["nrmse_std"] == pytest.approx(np.sqrt(np.mean(err**2)) / o64.std(), rel=1e-12)
    assert q["nrmse"] == pytest.approx(np.sqrt(np.mean(err**2)) / (o64.max() - o64.min()), rel=1e-12)
    assert (q["sign_flips"], q["nonfinite"]) == (1, 0)
    assert slc.quality(ob, ab, rel_floor=0.5)["mre_floored"] == pytest.approx(
        np.mean(np.abs(err) / np.maximum(np.abs(o64), 0.5)), rel=1e-12
    )
    a[5], a[6] = np.inf, np.nan
    q = slc.quality(ob, memcomp.as_blocks(a, 128), rel_floor=floor)
    assert (q["nonfinite"], q["rel_err_max"], q["max_abs_error"]) == (2, math.inf, math.inf)
    same = slc.quality(ob, ob)
    assert same["rel_err_p99"] == same["mre_floored"] == same["sign_flips"] == 0
    with pytest.raises(ValueError, match="rel_floor"):
        slc.quality(ob, ab, rel_floor=0)
    with pytest.raises(TypeError, match="rel_floor"):
        slc.quality(ob, ab, rel_floor="1e-3")


def test_quality_warns_when_a_metric_is_dominated():
    """MRE with over half of its sum from originals below the floor, and NRMSE/PSNR by a range
    over 100 x the std, warn and name the robust metric (issue 33 item 6: an OCR network's MRE
    1.96e17 and PSNR 212 dB)."""
    rng = np.random.default_rng(2)
    o = rng.normal(1, 0.1, 32768).astype(np.float32)
    a = o * np.float32(1 + 1e-6)
    o[0], a[0] = 1e-9, 3e-9  # one tiny original (floor ~1e-3) with relative error 2: MRE's sum is ~2 + 0.03
    ob, ab = memcomp.as_blocks(o, 128), memcomp.as_blocks(a, 128)
    with pytest.warns(slc.MetricWarning, match=r"mre .* tiny originals.*mre_floored") as got:
        q = slc.quality(ob, ab)
    assert len(got) == 1 and q["mre_floored"] < 1e-5 < q["mre"]
    # the bound, "over half of its sum": 32767 x 1e-6 = 0.033 beside 0.05 (60 %) warns, beside 0.02 (38 %) not
    a[0] = np.float32(1.05e-9)
    with pytest.warns(slc.MetricWarning, match=r"6\d\.\d% of its sum"):
        slc.quality(ob, memcomp.as_blocks(a, 128))
    a[0] = np.float32(1.02e-9)
    slc.quality(ob, memcomp.as_blocks(a, 128))
    o[0] = a[0] = 1e6  # one huge original, kept: range / std = 181 (about sqrt(32768)); the median floor stays 1e-3
    with pytest.warns(slc.MetricWarning, match=r"range .* std.*nrmse_std") as got:
        q = slc.quality(memcomp.as_blocks(o, 128), memcomp.as_blocks(a, 128))
    assert len(got) == 1 and q["rel_floor"] == pytest.approx(1e-3, rel=0.01) and q["nrmse"] < q["nrmse_std"] / 100
    o[0] = a[0] = 1.0
    slc.quality(memcomp.as_blocks(o, 128), memcomp.as_blocks(a, 128))  # no warning (the suite errors on one)


def test_effect_on_a_matrix_product(fp32):
    rng = np.random.default_rng(1)
    w = rng.normal(0, 0.05, (64, 256)).astype(np.float32)
    x = memcomp.as_blocks(w, 128)
    with pytest.warns(
        slc.MetricWarning, match="mre .* dominated by tiny originals"
    ):  # N(0, 0.05): see test_quality_warns
        r = slc.compress(x, threshold_bytes=32)
    inp = rng.normal(0, 1, (256, 8)).astype(np.float32)
    e = slc.effect(lambda m: m @ inp, x, r.blocks, np.float32, shape=(64, 256))
    out0 = w.astype(np.float64) @ inp
    out1 = slc.as_values(r.blocks).reshape(64, 256).astype(np.float32).astype(np.float64) @ inp
    assert e["max_abs_error"] == pytest.approx(np.abs(out1 - out0).max(), rel=1e-5)
    assert 0 <= e["argmax_agreement"] <= 1
    same = slc.effect(lambda m: m @ inp, x, x, np.float32, shape=(64, 256))
    assert same["mre"] == 0 and same["argmax_agreement"] == 1


# --------------------------------------------------------------------------------- compress/sweep
def test_compress_report(fp32):
    x, model = fp32
    r = slc.compress(x, model)
    e2mc = memcomp.get_codec("e2mc", model=model).measure(x)
    rep = r.report
    assert rep["cr_e2mc"] == pytest.approx(e2mc.cr()) and rep["cr_mag_e2mc"] == pytest.approx(e2mc.stats().cr_mag(32))
    assert rep["cr_mag_slc"] == pytest.approx(r.sizes.stats().cr_mag(32)) and rep["cr_mag_slc"] > rep["cr_mag_e2mc"]
    assert rep["bandwidth_saved"] == pytest.approx(1 - rep["cr_mag_e2mc"] / rep["cr_mag_slc"])
    assert rep["lossy_blocks"] == np.count_nonzero(r.sizes.mode == 2) > 0
    assert rep["lossy_share"] == pytest.approx(np.mean(r.sizes.mode == 2))
    q = slc.quality(x, r.blocks, rel_floor=rep["rel_floor"])
    assert {k: rep[k] for k in q} == q and rep["truncated_symbols"] > 0 and rep["truncated_bits"] > 0
    assert np.array_equal(r.blocks, r.codec.decode(r.encoded))
    assert (rep["training"], rep["budget"], rep["predict"]) == ("given", "gain", "word")
    zero = slc.compress(x, model, threshold_bytes=0).report
    assert zero["lossy_blocks"] == 0 and zero["cr_mag_slc"] == zero["cr_mag_e2mc"] and zero["mre"] == 0
    masked = slc.compress(x, model, approximable=np.zeros(len(x), bool)).report
    assert masked["lossy_blocks"] == 0
    with pytest.warns(slc.MetricWarning, match="mre"):  # the window's floor is lower: 60 % of MRE's sum below it
        online = slc.compress(x, training="online", window=100).report
    assert online["blocks"] == len(x) and online["cr_mag_e2mc"] < rep["cr_mag_e2mc"] + 1
    assert online["training"] == "online(100)" and slc.compress(x[:50]).report["training"] == "offline"


def test_sweep_is_long_form(fp32):
    x, model = fp32
    df = slc.sweep(x[:2000], thresholds=(0, 16), mags=(32, 64), variants=("pred", "opt"), model=model)
    assert len(df) == 8 and set(df["mag"]) == {32, 64} and set(df["variant"]) == {"pred", "opt"}
    assert (df.loc[df.threshold_bytes == 0, "lossy_blocks"] == 0).all()
    half = slc.sweep(x[:2000], thresholds="half", mags=(16, 32), variants=("opt",), model=model)
    assert half["threshold_bytes"].tolist() == [8, 16]


def _quiet(fn, *args, **kw):
    """fn(...) with MetricWarning ignored (tested on its own in test_quality_warns_...)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", slc.MetricWarning)
        return fn(*args, **kw)


def test_raw_cr_does_not_move_with_mag():
    """Issue 33 item 5, P4 §V-C: raw CR "does not depend on MAG". 64 symbols of 9-bit codes: E2MC
    takes 21 + 144 = 165 -> 168; 312; 456; 600 bits, compressed at its format MAG 32 (<= 768);
    E2MC configured with MAG 64 (raw above 512 bits) stores it raw for CR at MAG."""
    model, x = model_of([9] * 64), block_of(1000 + np.arange(64))
    df = slc.sweep(x, thresholds=(0,), mags=(32, 64), variants=("opt",), model=model).set_index("mag")
    assert df["cr_e2mc"].tolist() == [1024 / 600, 1024 / 600]
    assert (df.loc[32, "cr_mag_e2mc"], df.loc[64, "cr_mag_e2mc"]) == (128 / 96, 1.0)
    assert slc.compress(x, model, mag=64, threshold_bytes=0).report["cr_e2mc"] == 1024 / 600


def test_sweep_trains_online_and_rows_equal_compress(fp32):
    """Issue 33 item 6: sweep's training="online" fits on the first `window` blocks, which travel
    raw in both codecs (P1 §III-B2b; P4 §IV-A's baseline), and every row equals compress's report."""
    x, _ = fp32
    x = x[:1500]
    df = _quiet(slc.sweep, x, thresholds=(0, 16), mags=(32,), variants=("opt",), training="online", window=150)
    assert set(df["training"]) == {"online(150)"}
    model = memcomp.get_codec("e2mc").fit(x[:150]).model
    e2mc = memcomp.get_codec("e2mc", model=model).measure(x[150:])
    charged = 150 * 128 + int(memcomp.charge(e2mc.size_bits, 128, "mag(32)").sum()) // 8
    assert df["cr_mag_e2mc"].tolist() == [len(x) * 128 / charged] * 2
    assert df["cr_e2mc"][0] == 8 * len(x) * 128 / (150 * 1024 + int(e2mc.size_bits.sum()))
    for _, row in df.iterrows():
        rep = _quiet(slc.compress, x, threshold_bytes=row.threshold_bytes, training="online", window=150).report
        for k, v in rep.items():
            assert row[k] == v or (isinstance(v, float) and math.isnan(v) and math.isnan(row[k])), k
    with pytest.raises(ValueError, match="model=None"):
        slc.sweep(x, model=model, training="online", window=10)
    with pytest.raises(ValueError, match="window"):
        slc.compress(x, window=10)
    with pytest.raises(ValueError, match="window"):
        slc.sweep(x, training="online", window=0)


def test_sweep_does_not_depend_on_chunks_and_names_budget():
    x = realistic(128, 1 << 17, seed=4)
    kw = dict(thresholds=(16,), mags=(16, 32), variants=("pred",), dtype=np.int8, budget="stream", predict="symbol")
    ref = slc.sweep(x, **kw)
    for chunk in (7, 333):
        got = slc.sweep(x, chunk_blocks=chunk, **kw)
        assert got.drop(columns="config").equals(ref.drop(columns="config")), chunk
    assert set(ref["budget"]) == {"stream"} and set(ref["predict"]) == {"symbol"}
    assert all(json.loads(c)["budget"] == "stream" for c in ref["config"])
    with pytest.raises(ValueError, match="budget"):
        slc.sweep(x, budget="paper")
    with pytest.raises(ValueError, match="predict"):
        slc.compress(x, predict="value")


def test_slc_tradeoff_plots_any_metric_labelled(fp32):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from memcomp import plot

    x, model = fp32
    df = _quiet(slc.sweep, x[:2000], thresholds=(0, 8, 16, 32), mags=(32,), variants=("simp", "opt"), model=model)
    for y in ("rel_err_p99", "nrmse_std", "mre_floored", "sign_flips", "psnr", "mre"):
        ax = plot.slc_tradeoff(df, y=y)
        assert ax.get_xlabel().replace("\n", " ") == "bandwidth saved against E2MC at the same MAG (share of bytes)"
        label = ax.get_ylabel().replace("\n", " ")
        assert {
            "rel_err_p99": "99th percentile",
            "nrmse_std": "std",
            "mre_floored": "max(|o|, floor",
            "sign_flips": "sign",
            "psnr": "dB",
            "mre": "P4's MRE",
        }[y] in label, label
        if y.startswith("rel_err") or y == "mre_floored":
            assert f"{df['rel_floor'][0]:.3g}" in label
        for line in ax.get_lines():  # the plotted values are the table's
            v = line.get_label()
            g = df[df.variant == v].sort_values("threshold_bytes")
            assert np.array_equal(line.get_xdata(), g["bandwidth_saved"]) and np.array_equal(line.get_ydata(), g[y])
        assert ax.get_yscale() == ("linear" if y in ("psnr", "sign_flips") else "symlog")
        plt.close(ax.figure)
    with pytest.raises(ValueError, match="missing"):
        plot.slc_tradeoff(df, y="nope")


def test_slc_plugs_into_compare_breakdown_and_toggles(fp32):
    x, _ = fp32
    df = memcomp.compare(x, ["e2mc", "slc"], mag=32).set_index("codec")
    assert df.loc["slc.opt", "cr_mag"] > df.loc["e2mc.paper", "cr_mag"]
    assert pd_isna(df.loc["slc.opt", "oracle_wins"])  # lossy codecs stay out of the exact oracle
    b = memcomp.breakdown(x, ["slc"])
    assert set(b["mode_name"]) <= {"raw", "lossless", "lossy"} and b["blocks"].sum() == len(x)
    t = memcomp.toggles.compare(x[:1000], ["slc"], channel="dram")
    assert t["cr"].iloc[0] > 1


def pd_isna(v):
    import pandas as pd

    return pd.isna(v)


# ------------------------------------------------------------------------------------ MAG study
def test_mag_study_tables():
    data = memcomp.workloads.sample_dump(1 << 18)
    from memcomp.report import SkippedCodecWarning

    with pytest.warns(SkippedCodecWarning, match="mpc.cal22_rtl skipped at (64|128) B") as skipped:
        t, h = memcomp.mag_study(
            data, ["bdi", "fpc", "cpack", "bpc", "e2mc", "mpc"], block_sizes=(32, 64, 128), mags=(16, 32, 64)
        )
    assert len(skipped) == 2  # MPC is defined for 32 B sectors only (SPEC 1.12): a row with a note, no numbers
    assert set(t["block_bytes"]) == {32, 64, 128} and set(t["mag"]) == {16, 32, 64}
    gone = t[t["note"].notna()]
    assert set(gone["codec"]) == {"mpc.cal22_rtl"} and set(gone["block_bytes"]) == {64, 128} and gone["cr"].isna().all()
    t = t[t["note"].isna()]
    assert "mpc.cal22_rtl" in set(t.loc[t.block_bytes == 32, "codec"])
    for _, g in t.groupby(["codec", "block_bytes"]):
        assert g["cr"].nunique() == 1  # raw CR does not depend on the MAG (P4 §V-C)
        assert (g.sort_values("mag")["cr_mag"].diff().dropna() <= 1e-12).all()  # larger MAG, lower CR
    bdi = memcomp.get_codec("bdi").measure(memcomp.as_blocks(data, 64))
    nbytes = (bdi.size_bits.astype(np.int64) + 7) // 8
    hb = h[(h.codec == "bdi.paper") & (h.block_bytes == 64) & (h.mag == 16)]
    for above in range(16):
        assert hb.loc[hb.bytes_above == above, "blocks"].sum() == int(np.sum(nbytes % 16 == above))
    assert hb["share"].sum() == pytest.approx(1.0)
    row = t[(t.codec == "bdi.paper") & (t.block_bytes == 64) & (t.mag == 16)].iloc[0]
    assert row["cr_mag"] == pytest.approx(bdi.stats().cr_mag(16))


def test_compress_no_blocks_reports_nan_ratios():
    r = slc.compress(np.zeros((0, 128), np.uint8))
    assert r.report["blocks"] == 0 and r.report["lossy_blocks"] == 0 and r.report["lossy_share"] == 0.0
    assert all(math.isnan(r.report[k]) for k in ("cr_e2mc", "cr_slc", "cr_mag_e2mc", "cr_mag_slc", "bandwidth_saved"))
