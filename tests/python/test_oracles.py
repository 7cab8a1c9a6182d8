"""Self-tests of the independent oracles and the golden vectors.

These tests do not import memcomp: they check that tests/python/oracles.py,
the JSON files in tests/golden/ and the SPEC worked examples agree with each
other, and that the vectorised NumPy speed reference agrees with the oracles.
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
for _p in (HERE, os.path.join(TESTS, "benchmarks")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy_reference as NR  # noqa: E402
import oracles as O  # noqa: E402

GOLDEN = os.path.join(TESTS, "golden")


def load(name):
    with open(os.path.join(GOLDEN, name)) as fh:
        return json.load(fh)


def le(vals, k):
    return b"".join((v % (1 << (8 * k))).to_bytes(k, "little") for v in vals)


def rec(mode, payload, meta=0, header=0, tag=0):
    return {"mode": mode, "payload": payload, "meta": meta, "header": header, "tag": tag}


# ---------------------------------------------------------------------------
# BDI W4 golden
# ---------------------------------------------------------------------------
BDI_W4 = load("bdi_w4.json")


@pytest.mark.parametrize("case", BDI_W4["cases"], ids=lambda c: c["id"])
def test_bdi_w4_golden(case):
    blk = bytes.fromhex(case["block"])
    assert len(blk) == case["block_bytes"]
    got = O.bdi_size(blk, "paper")
    assert got == rec(case["mode"], case["payload_bits"], case["meta_bits"], case["header_bits"], case["tag_bits"])
    assert O.inband(got) == case["inband_bits"]
    # ndarray input gives the same answer
    assert O.bdi_size(np.frombuffer(blk, dtype=np.uint8), "paper") == got


def test_bdi_w4_matches_spec_lists():
    """SPEC §4 W4 text: the named encoding is selected, payload bytes at 32 B
    1,8,12,16,24,12,20,18,32 and at 64 B 1,8,16,24,40,20,36,34,64; meta = n
    bits for the BΔ encodings."""
    spec = {32: [1, 8, 12, 16, 24, 12, 20, 18, 32], 64: [1, 8, 16, 24, 40, 20, 36, 34, 64]}
    ids = [0, 1, 2, 3, 4, 5, 6, 7, 15]
    kk = {2: 8, 3: 8, 4: 8, 5: 4, 6: 4, 7: 2}
    for B, payload_bytes in spec.items():
        cases = [c for c in BDI_W4["cases"] if c["block_bytes"] == B]
        assert [c["mode"] for c in cases] == ids
        assert [c["payload_bits"] // 8 for c in cases] == payload_bytes
        assert [c["meta_bits"] for c in cases] == [B // kk[i] if i in kk else 0 for i in ids]
        assert all("note" not in c for c in cases)


def test_bdi_w4_blocks_rebuilt():
    """Rebuild the W4 blocks here (independently of make_golden.py)."""
    base = 0x1122334455667700
    for B in (16, 32, 64, 128):
        want = {
            "zeros": bytes(B),
            "rep8": bytes.fromhex("efcdab8967452301") * (B // 8),
            "B8D1": le([base + 3 * i for i in range(B // 8)], 8),
            "B8D2": le([base + 256 * i for i in range(B // 8)], 8),
            "B8D4": le([base + (1 << 24) * i for i in range(B // 8)], 8),
            "B4D1": le([(1 << 31) + 5 * i for i in range(B // 4)], 4),
            "B4D2": le([(1 << 31) + 256 * i for i in range(B // 4)], 4),
            "B2D1": le([(1 << 15) + 3 * i for i in range(B // 2)], 2),
            "raw": bytes((37 * i + 11) & 255 for i in range(B)),
        }
        for c in BDI_W4["cases"]:
            if c["block_bytes"] == B:
                assert bytes.fromhex(c["block"]) == want[c["name"]], c["id"]


def test_bdi_w4_first_bytes_by_hand():
    c = {x["id"]: x for x in BDI_W4["cases"]}
    # 0x1122334455667700 little-endian, then +3
    assert c["W4/32/B8D1"]["block"][:32] == "00776655443322110377665544332211"
    # 0x80000000, 0x80000005
    assert c["W4/32/B4D1"]["block"][:16] == "0000008005000080"
    # 0x8000, 0x8003
    assert c["W4/32/B2D1"]["block"][:8] == "00800380"
    # 11, 48, 85, 122
    assert c["W4/32/raw"]["block"][:8] == "0b30557a"


# ---------------------------------------------------------------------------
# BDI preset edge golden
# ---------------------------------------------------------------------------
BDI_EDGE = load("bdi_presets_edge.json")


@pytest.mark.parametrize("case", BDI_EDGE["cases"], ids=lambda c: c["id"])
def test_bdi_edge_golden(case):
    blk = bytes.fromhex(case["block"])
    for preset, exp in case["expected"].items():
        assert O.bdi_size(blk, preset.split(".")[1]) == exp, preset


# ---------------------------------------------------------------------------
# BDI hand-computed edge cases (explicit here, independent of the JSON)
# ---------------------------------------------------------------------------
B0 = 0x1122334455667700


def test_delta_minus128_paper_accepts_gem5_rejects():
    blk = le([B0, B0 - 128, B0, B0 - 128], 8)
    assert O.bdi_size(blk, "paper") == rec(2, 96, 4, 0, 4)
    assert O.bdi_size(blk, "gem5")["mode"] == 3  # B8Δ2
    # and +127 is fine for both
    blk = le([B0, B0 + 127, B0, B0 + 127], 8)
    assert O.bdi_size(blk, "paper")["mode"] == 2
    assert O.bdi_size(blk, "gem5")["mode"] == 2


def test_gem5_symmetric_immediates():
    # 4-byte immediates: -128 is an immediate for paper, not for gem5
    blk = le([0xFFFFFF80] + [0x5000 + i for i in range(7)], 4)
    assert O.bdi_size(blk, "paper")["mode"] == 5
    assert O.bdi_size(blk, "gem5")["mode"] != 5


def test_kim_misses_negative_4byte_immediate():
    blk = le([0xFFFFFFFF] + [0x1000 + i for i in range(7)], 4)
    assert O.bdi_size(blk, "paper")["mode"] == 5
    assert O.bdi_size(blk, "kim") == rec(6, 160, 8, 4, 0)


def test_kim_k8_negative_is_immediate():
    blk = le([-1, -5, 3, 0], 8)  # all 8-byte Δ1 immediates for kim too
    assert O.bdi_size(blk, "kim") == rec(2, 96, 4, 4, 0)


def test_kim_header_on_every_block():
    raw = bytes((37 * i + 11) & 255 for i in range(32))
    assert O.bdi_size(raw, "kim") == rec(15, 256, 0, 4, 0)
    assert O.bdi_size(bytes(32), "kim") == rec(0, 8, 0, 4, 0)


def test_cmu_accepts_delta_255_not_256():
    assert O.bdi_size(le([B0, B0 + 255] * 2, 8), "cmu") == rec(2, 160)
    assert O.bdi_size(le([B0, B0 - 255] * 2, 8), "cmu") == rec(2, 160)
    assert O.bdi_size(le([B0, B0 + 256] * 2, 8), "cmu") == rec(3, 192)  # Δ2: 2*4 + 16 B
    assert O.bdi_size(le([B0, B0 + 255] * 2, 8), "paper")["mode"] == 3


def test_cmu_raw_competes_and_repeat4():
    assert O.bdi_size(le([0xDEADBEEF] * 8, 4), "cmu") == rec(8, 32)
    assert O.bdi_size(bytes(32), "cmu") == rec(0, 8)
    raw = bytes((37 * i + 11) & 255 for i in range(32))
    assert O.bdi_size(raw, "cmu") == rec(15, 256)
    # B8Δ4 at 32 B is 4*4 + 16 = 32 B = B: tie with raw -> raw (CMU starts from best = B and
    # replaces it only with a strictly smaller size)
    blk = le([B0 + (1 << 24) * i for i in range(4)], 8)
    assert O.bdi_size(blk, "cmu") == rec(15, 256)
    # at 16 B B8Δ4 costs 24 B > 16 B -> raw
    assert O.bdi_size(le([B0, B0 + (1 << 24)], 8), "cmu") == rec(15, 128)


def test_gem5_threshold_and_factor():
    # only B8Δ4 fits at 16 B: 130 bits > 0.99*128 -> raw for gem5, chosen by paper
    blk = le([B0, B0 + (1 << 24)], 8)
    assert O.bdi_size(blk, "gem5") == rec(15, 128, 0, 0, 4)
    assert O.bdi_size(blk, "paper") == rec(4, 128, 2, 0, 4)
    # zero block: Zero member 0 bits
    assert O.bdi_size(bytes(64), "gem5") == rec(0, 0, 0, 0, 4)
    assert O.pow2_factor(136, 64) == 4 and O.pow2_factor(176, 64) == 2


def test_paper_tie_break_lower_id():
    blk = le([0x10000 + 200 * (j % 3 == 1) for j in range(16)], 4)  # 64 B
    r = O.bdi_size(blk, "paper")
    assert r["mode"] == 6 and O.inband(r) == 304
    assert O.bdi_size(blk, "kim")["mode"] == 7  # kim's tie order


def test_bdi_rejects_bad_preset_and_size():
    with pytest.raises(ValueError):
        O.bdi_size(bytes(32), "nope")
    with pytest.raises(ValueError):
        O.bdi_size(bytes(12), "paper")


# ---------------------------------------------------------------------------
# FPC golden (W5)
# ---------------------------------------------------------------------------
FPC = load("fpc_w5.json")
TOTAL = {"001": 7, "010": 11, "011": 19, "100": 19, "101": 19, "110": 11, "111": 35}

W5_TEXT = [  # SPEC §4 W5, verbatim
    ("00000005", "001", 7),
    ("FFFFFFF9", "001", 7),
    ("FFFFFFFF", "001", 7),
    ("0000007F", "010", 11),
    ("FFFFFF80", "010", 11),
    ("00000080", "011", 19),
    ("00001234", "011", 19),
    ("12340000", "100", 19),
    ("007F0012", "101", 19),
    ("FF80FFFF", "101", 19),
    ("ABABABAB", "110", 11),
    ("00FF00FF", "111", 35),
    ("12345678", "111", 35),
]


def test_fpc_w5_text_in_golden():
    g = {(w["word"], w["prefix"], w["bits"]) for w in FPC["words"]}
    for item in W5_TEXT:
        assert item in g


@pytest.mark.parametrize("w", FPC["words"], ids=lambda w: w["word"])
def test_fpc_word_golden(w):
    v = int(w["word"], 16)
    p, payload = O.fpc_word(v)
    assert p == w["prefix"] and payload == w["payload_bits"]
    assert w["bits"] == TOTAL[p] == w["payload_bits"] + w["meta_bits"]
    r = O.fpc_words_size([v], "paper")
    assert r == rec(0, w["payload_bits"], 3)
    # the same word as a 16 B block padded with non-zero raw words
    blk = le([v, 0x12345678, 0x12345678, 0x12345678], 4)
    assert O.inband(O.fpc_size(blk, "paper")) == w["bits"] + 3 * 35


@pytest.mark.parametrize("z", FPC["zero_runs"], ids=lambda z: str(z["zero_words"]))
def test_fpc_zero_runs(z):
    for preset, bits in z["bits"].items():
        r = O.fpc_words_size([0] * z["zero_words"], preset.split(".")[1])
        assert O.inband(r) == bits
        if z["block"] is not None:
            assert O.inband(O.fpc_size(bytes.fromhex(z["block"]), preset.split(".")[1])) == bits


def test_fpc_zero_runs_spec_w5():
    assert O.inband(O.fpc_words_size([0] * 8)) == 6
    assert O.inband(O.fpc_words_size([0] * 9)) == 12
    assert O.inband(O.fpc_words_size([0] * 16)) == 12


@pytest.mark.parametrize("b", FPC["blocks"], ids=lambda b: b["id"])
def test_fpc_blocks_golden(b):
    blk = bytes.fromhex(b["block"])
    assert [f"{w:08X}" for w in O.elements(blk, 4)] == b["words"]
    for preset, e in b["expected"].items():
        assert O.fpc_size(blk, preset.split(".")[1]) == rec(e["mode"], e["payload"], e["meta"])
        assert e["bits"] == e["payload"] + e["meta"]


def test_fpc_hand_edges():
    assert O.fpc_word(0x80) == ("011", 16)
    assert O.fpc_word(0xFFFF8000) == ("011", 16)
    assert O.fpc_word(0x00008000) == ("111", 32)
    assert O.fpc_word(0xFFFF7FFF) == ("111", 32)  # -32769; halves 0xFFFF, 0x7FFF
    assert O.fpc_word(0x01000000) == ("100", 16)
    # zero run flushed by a non-zero word, then a new run
    assert O.inband(O.fpc_words_size([0, 0, 7, 0])) == 6 + 7 + 6
    # skku: one token per maximal run
    assert O.inband(O.fpc_words_size([0] * 20 + [1] + [0] * 11, "skku")) == 6 + 7 + 6
    assert O.inband(O.fpc_words_size([0] * 20 + [1] + [0] * 11, "paper")) == 18 + 7 + 12


def test_fpc_cmu_edges():
    one = lambda v: O.fpc_words_size([v], "cmu")["payload"] // 8  # noqa: E731
    assert one(0) == 1 and one(0xFF) == 1 and one(0xFFFFFF01) == 1  # |-255|
    assert one(0x100) == 2 and one(0xFFFF) == 2 and one(0xFFFF0001) == 2  # |-65535|
    assert one(0x80000000) == 2  # |INT32_MIN| = 2^31, then low half zero
    assert one(0x00FF00FF) == 2  # unsigned halves <= 0xFF
    assert one(0x01010101) == 1 and one(0x12345678) == 4
    # prefixes: floor(3*nwords/8) bytes, no cap
    assert O.fpc_size(bytes(range(1, 65)), "cmu")["meta"] == 8 * 6
    assert O.fpc_size(le([0x12345678] * 8, 4), "cmu") == rec(0, 256, 24)


# ---------------------------------------------------------------------------
# ZCA / zrep
# ---------------------------------------------------------------------------
def test_zca_zrep():
    assert O.zca_size(bytes(32)) == rec(1, 0, 0, 0, 1)
    assert O.zca_size(b"\x01" + bytes(31)) == rec(0, 256, 0, 0, 1)
    assert O.zrep_size(bytes(64)) == rec(0, 0, 0, 2, 0)
    assert O.zrep_size(bytes.fromhex("efcdab8967452301") * 8) == rec(1, 64, 0, 2, 0)
    assert O.zrep_size(bytes.fromhex("efcdab89") * 16, w=4) == rec(1, 32, 0, 2, 0)
    assert O.zrep_size(bytes.fromhex("efcdab89") * 15 + bytes(4), w=4) == rec(3, 512, 0, 2, 0)


# ---------------------------------------------------------------------------
# Metrics golden (W2, W3, W16 + policies)
# ---------------------------------------------------------------------------
MET = load("metrics_w2_w3_w16.json")


def _policy(p):
    return tuple(p) if isinstance(p, list) else p


def test_w2():
    w = MET["W2"]
    assert w["bits"] == 520
    assert O.charge(w["bits"], w["block_bytes"], _policy(w["policy"])) == w["charged_bits"] == 768
    assert O.charge_bytes(w["bits"], 128, ("mag", 32)) == 96
    assert O.raw_cr([128], [520]) == Fraction(1024, 520)
    assert round(w["raw_cr"], 3) == 1.969 and round(w["cr_mag"], 3) == 1.333
    assert O.raw_cr([128], [768]) == Fraction(4, 3)


def test_w3():
    w = MET["W3"]
    assert [c["charged_bytes"] for c in w["cases"]] == [32, 32, 64, 64, 96, 96, 128, 128]
    for c in w["cases"]:
        assert O.charge_bytes(c["bits"], 128, _policy(w["policy"])) == c["charged_bytes"]
        assert O.charge(c["bits"], 128, _policy(w["policy"])) == c["charged_bits"]


def test_w16():
    w = MET["W16"]
    assert [(c["compressed_bytes"], c["f"]) for c in w["cases"]] == [(20, 4), (24, 2), (33, 1), (65, 1), (0, 4)]
    for c in w["cases"]:
        assert O.pow2_factor(c["bits"], 64, 4) == c["f"]
        assert O.charge(c["bits"], 64, ("pow2", 4)) == c["charged_bits"] == 512 // c["f"]
    assert O.charge(0, 64, "pow2") == 128  # fmax defaults to 4


@pytest.mark.parametrize("p", MET["policies"], ids=lambda p: f"{p['policy']}-{p['block_bytes']}-{p['bits']}")
def test_policies(p):
    assert O.charge(p["bits"], p["block_bytes"], _policy(p["policy"])) == p["charged_bits"]


def test_nextpow2():
    assert [O.nextpow2(x) for x in (1, 2, 3, 4, 5, 8, 9)] == [1, 2, 4, 4, 8, 8, 16]


# ---------------------------------------------------------------------------
# NumPy speed reference vs oracles
# ---------------------------------------------------------------------------
def _mixed_blocks(n, B, seed):
    rng = np.random.default_rng(seed)
    out = np.zeros((n, B), dtype=np.uint8)
    for i in range(n):
        t = i % 9
        if t == 0:
            continue  # zeros
        if t == 1:
            b = rng.integers(0, 256, B, dtype=np.uint8)
        elif t == 2:  # small ints
            b = rng.integers(-200, 200, B // 4).astype("<i4").view(np.uint8)
        elif t == 3:  # FP32-like
            b = rng.normal(0, 1, B // 4).astype("<f4").view(np.uint8)
        elif t == 4:  # repeated 8 B value
            b = np.tile(rng.integers(0, 256, 8, dtype=np.uint8), B // 8)
        elif t == 5:  # base + small deltas at a random element width
            k = int(rng.choice([2, 4, 8]))
            base = int.from_bytes(rng.bytes(k), "little")
            d = rng.integers(-300, 300, B // k)
            if rng.random() < 0.5:
                d[rng.random(B // k) < 0.4] = 0
                vals = [int(x) if x == 0 else base + int(x) for x in d]
            else:
                vals = [base + int(x) for x in d]
            b = np.frombuffer(le(vals, k), dtype=np.uint8)
        elif t == 6:  # sparse int16
            b = rng.integers(-20000, 20000, B // 2).astype("<i2").view(np.uint8).copy()
            b[rng.random(B) < 0.5] = 0
        elif t == 7:  # sparse bytes / zero runs
            b = rng.integers(0, 256, B, dtype=np.uint8)
            b[rng.random(B) < 0.8] = 0
        else:  # FPC pattern words
            pats = [0, 5, 0xFFFFFFF9, 0x7F, 0x1234, 0x12340000, 0x007F0012, 0xABABABAB, 0x12345678, 0x8000]
            b = np.frombuffer(le([pats[j] for j in rng.integers(0, len(pats), B // 4)], 4), dtype=np.uint8)
        out[i] = b
    return out


@pytest.mark.parametrize("B", [32, 64])
def test_numpy_reference_matches_oracles(B):
    x = _mixed_blocks(1000, B, seed=B)
    bits, modes = NR.bdi_paper_bits(x, return_mode=True)
    fbits = NR.fpc_paper_bits(x)
    exp_b = [O.bdi_size(row, "paper") for row in x]
    exp_f = [O.inband(O.fpc_size(row, "paper")) for row in x]
    assert bits.tolist() == [O.inband(r) for r in exp_b]
    assert modes.tolist() == [r["mode"] for r in exp_b]
    assert fbits.tolist() == exp_f
    assert len(set(modes.tolist())) >= 6  # the mix exercises many encodings


def test_numpy_reference_multichunk_and_goldens(monkeypatch):
    monkeypatch.setattr(NR, "CHUNK_BYTES", 1024)  # force many chunks and the pruned path
    for B in (16, 32, 64, 128):
        cases = [c for c in BDI_W4["cases"] if c["block_bytes"] == B]
        x = np.stack([np.frombuffer(bytes.fromhex(c["block"]), dtype=np.uint8) for c in cases] * 40)
        bits, modes = NR.bdi_paper_bits(x, return_mode=True)
        assert bits.tolist() == [c["inband_bits"] for c in cases] * 40
        assert modes.tolist() == [c["mode"] for c in cases] * 40
    for b in FPC["blocks"]:
        x = np.frombuffer(bytes.fromhex(b["block"]), dtype=np.uint8)[None, :]
        assert NR.fpc_paper_bits(x).tolist() == [b["expected"]["fpc.paper"]["bits"]]
    x = _mixed_blocks(600, 64, seed=7)
    assert NR.fpc_paper_bits(x).tolist() == [O.inband(O.fpc_size(r, "paper")) for r in x]
    assert NR.bdi_paper_bits(x).tolist() == [O.inband(O.bdi_size(r, "paper")) for r in x]
