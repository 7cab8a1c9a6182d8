"""Golden vectors (tests/golden/, SPEC §4 worked examples) against the real codecs and metrics."""

import json
import os
from fractions import Fraction

import numpy as np
import pytest

import memcomp

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden")


def load(name):
    with open(os.path.join(GOLDEN, name)) as f:
        return json.load(f)


def block(hex_str):
    return np.frombuffer(bytes.fromhex(hex_str), dtype=np.uint8).reshape(1, -1).copy()


def policy_str(p):
    if isinstance(p, str):
        return p
    name, *args = p
    return f"{name}({','.join(str(a) for a in args)})" if args else name


def assert_record(codec, blk, want):
    s = codec.measure(blk)
    got = {
        "mode": int(s.mode[0]),
        "payload": int(s.payload_bits[0]),
        "meta": int(s.meta_bits[0]),
        "header": int(s.header_bits[0]),
        "tag": int(s.tag_bits[0]),
    }
    assert got == {k: want[k] for k in got}
    if codec.exact:
        assert np.array_equal(codec.decode(codec.encode(blk)), blk)


W4 = load("bdi_w4.json")["cases"]


@pytest.mark.parametrize("case", W4, ids=[c["id"] for c in W4])
def test_bdi_w4(case):
    want = {k: case[f"{k}_bits"] for k in ("payload", "meta", "header", "tag")}
    want["mode"] = case["mode"]
    assert_record(memcomp.get_codec("bdi.paper"), block(case["block"]), want)
    if case["block_bytes"] in (32, 64):  # the SPEC table: the named encoding and Table 2 payloads
        assert case["mode"] == case["named_encoding"]
        assert case["payload_bits"] == case["named_payload_bits"]


EDGE = load("bdi_presets_edge.json")["cases"]


@pytest.mark.parametrize("case", EDGE, ids=[c["id"] for c in EDGE])
def test_bdi_preset_axes(case):
    for preset, want in case["expected"].items():
        assert_record(memcomp.get_codec(preset), block(case["block"]), want)


FPC = load("fpc_w5.json")


@pytest.mark.parametrize("w", FPC["words"], ids=[w["word"] for w in FPC["words"]])
def test_fpc_w5_words(w):
    # one pattern word followed by zero words: the word's bits plus one 6-bit zero run
    blk = np.zeros((1, 16), np.uint8)
    blk[0, :4] = np.frombuffer(int(w["word"], 16).to_bytes(4, "little"), np.uint8)
    s = memcomp.get_codec("fpc.paper").measure(blk)
    assert int(s.size_bits[0]) == w["bits"] + 6
    assert int(s.meta_bits[0]) == w["meta_bits"] + 3


@pytest.mark.parametrize("run", [r for r in FPC["zero_runs"] if r["block"]], ids=lambda r: str(r["zero_words"]))
def test_fpc_zero_runs(run):
    blk = block(run["block"])
    for preset, bits in run["bits"].items():
        assert int(memcomp.get_codec(preset).measure(blk).size_bits[0]) == bits, preset


@pytest.mark.parametrize("case", FPC["blocks"], ids=[c["id"] for c in FPC["blocks"]])
def test_fpc_blocks(case):
    blk = block(case["block"])
    for preset, want in case["expected"].items():
        s = memcomp.get_codec(preset).measure(blk)
        assert (int(s.payload_bits[0]), int(s.meta_bits[0]), int(s.size_bits[0])) == (
            want["payload"],
            want["meta"],
            want["bits"],
        ), preset


M = load("metrics_w2_w3_w16.json")


def test_w2():
    w = M["W2"]
    bits = np.array([w["bits"]], np.uint32)
    assert int(memcomp.charge(bits, 128, "none")[0]) == w["bits"]
    assert int(memcomp.charge(bits, 128, policy_str(w["policy"]))[0]) == w["charged_bits"]
    assert 1024 / w["bits"] == pytest.approx(w["raw_cr"])
    assert Fraction(1024, w["charged_bits"]) == Fraction(w["cr_mag_fraction"])


def test_w3_and_w16():
    for key in ("W3", "W16"):
        g = M[key]
        bits = np.array([c["bits"] for c in g["cases"]], np.uint32)
        got = memcomp.charge(bits, g["block_bytes"], policy_str(g["policy"]))
        assert got.tolist() == [c["charged_bits"] for c in g["cases"]], key


@pytest.mark.parametrize("case", M["policies"], ids=lambda c: f"{policy_str(c['policy'])}-{c['bits']}")
def test_policies(case):
    got = memcomp.charge(np.array([case["bits"]], np.uint32), case["block_bytes"], policy_str(case["policy"]))
    assert Fraction(int(got[0])) == Fraction(case["charged_bits"])
