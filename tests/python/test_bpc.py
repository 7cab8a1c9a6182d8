"""BPC (SPEC 1.5): golden vectors (tests/golden/bpc.json) and the plain-Python oracle
(oracles_bpc.py) against the C++ codec, sizes and stream bytes, for every preset and block size."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles_bpc as O
from blockgen import adversarial, realistic

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "bpc.json")).read_text())
PRESETS = sorted(O.PRESETS)
FIELDS = ("mode", "payload", "meta", "header", "tag")


def records(sizes, i):
    return {
        "mode": int(sizes.mode[i]),
        "payload": int(sizes.payload_bits[i]),
        "meta": int(sizes.meta_bits[i]),
        "header": int(sizes.header_bits[i]),
        "tag": int(sizes.tag_bits[i]),
    }


def bits_of(data: bytes, n: int) -> str:
    return "".join(format(b, "08b") for b in data)[:n]


def compare(name, blocks, **options):
    """measure() and every block's stream bytes against the oracle; exact codecs round-trip."""
    codec = memcomp.get_codec(name, **options)
    cfg = {**O.PRESETS[name], **options}
    s = codec.measure(blocks)
    enc = codec.encode(blocks) if codec.exact else None
    for i, blk in enumerate(blocks):
        bits, want = O.bpc_encode(blk.tobytes(), **cfg)
        assert records(s, i) == want, f"{name} {options} block {i}: {blk.tobytes().hex()}"
        if enc is not None:
            assert enc.block_stream(i) == O.to_bytes(bits), f"{name} {options} block {i} stream"
    if enc is not None:
        assert np.array_equal(codec.decode(enc), blocks)
    return s


# --- golden ------------------------------------------------------------------------------------
CASES = [(c, e) for c in GOLDEN["cases"] for e in c["expected"]]


@pytest.mark.parametrize("case,exp", CASES, ids=[f"{c['id']}-{e['preset']}{e.get('options', '')}" for c, e in CASES])
def test_golden(case, exp):
    blk = np.frombuffer(bytes.fromhex(case["block"]), np.uint8).reshape(1, -1).copy()
    assert blk.shape[1] == case["block_bytes"]
    assert blk[0].tobytes() == b"".join(int(w, 16).to_bytes(4, "little") for w in case["words"])
    codec = memcomp.get_codec(exp["preset"], **exp.get("options", {}))
    s = codec.measure(blk)
    got = {
        "payload_bits": int(s.payload_bits[0]),
        "meta_bits": int(s.meta_bits[0]),
        "header_bits": int(s.header_bits[0]),
        "tag_bits": int(s.tag_bits[0]),
        "mode": int(s.mode[0]),
        "bits": int(s.size_bits[0]),
    }
    assert got == {k: exp[k] for k in got}
    bits, rec = O.bpc_encode(blk[0].tobytes(), **{**O.PRESETS[exp["preset"]], **exp.get("options", {})})
    assert rec["payload"] == exp["payload_bits"] and rec["meta"] == exp["meta_bits"]
    if "stream" in exp:
        assert codec.exact and bits == exp["stream"]
        enc = codec.encode(blk)
        assert enc.block_stream(0) == O.to_bytes(exp["stream"])
        assert np.array_equal(codec.decode(enc), blk)
    else:
        assert not codec.exact


def test_w11():
    c = memcomp.get_codec("bpc")
    assert c.preset == "bpc.isca16" and c.exact
    z128, ramp128 = np.zeros((1, 128), np.uint8), np.arange(32, dtype="<u4").view(np.uint8).reshape(1, 128)
    ones = np.full(32, 0x3F800000, "<u4").view(np.uint8).reshape(1, 128)
    z32, ramp32 = np.zeros((1, 32), np.uint8), np.arange(8, dtype="<u4").view(np.uint8).reshape(1, 32)
    assert [int(c.measure(b).size_bits[0]) for b in (z128, ramp128, ones, z32, ramp32)] == [10, 15, 40, 10, 15]


def test_presets_registered():
    t = memcomp.list_codecs()
    rows = t[t["name"].str.startswith("bpc.")].set_index("name")
    assert list(rows.index) == ["bpc.isca16", "bpc.skku", "bpc.cal22", "bpc.liu", "bpc.nap64"]
    assert rows.loc["bpc.isca16", "default"] and rows.loc["bpc.isca16", "exact"]
    assert not rows.loc["bpc.skku", "exact"] and rows.loc["bpc.liu", "exact"]
    assert memcomp.get_codec("bpc.liu").modes == {0: "delta", 1: "rows"}
    assert memcomp.get_codec("bpc").options == {
        "endian": "little",
        "code_map": "ebpc",
        "delta_bits": 33,
        "base": "coded",
        "alt_mode": "none",
        "precedence": "kim",
        "words": "signed",
        "fields": "width",
    }


# --- oracle --------------------------------------------------------------------------------------
@pytest.mark.parametrize("block_bytes", memcomp.VALID_BLOCK_BYTES)
@pytest.mark.parametrize("name", PRESETS)
def test_matches_oracle(name, block_bytes):
    rng = np.random.default_rng(block_bytes)
    rand = rng.integers(0, 256, (40, block_bytes), dtype=np.uint8)
    blocks = np.ascontiguousarray(np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 14), rand]))
    compare(name, blocks)


OPTION_VARIANTS = [
    ("bpc.isca16", {"code_map": "kim"}),
    ("bpc.isca16", {"endian": "big"}),
    ("bpc.isca16", {"alt_mode": "planes"}),
    ("bpc.isca16", {"alt_mode": "rows", "precedence": "liu"}),
    ("bpc.liu", {"endian": "big"}),
    ("bpc.liu", {"delta_bits": 33, "precedence": "kim", "code_map": "kim"}),
    ("bpc.skku", {"delta_bits": 32}),
]


@pytest.mark.parametrize("block_bytes", [16, 32, 64, 256])
@pytest.mark.parametrize("name,options", OPTION_VARIANTS, ids=[f"{n}{o}" for n, o in OPTION_VARIANTS])
def test_option_variants_match_oracle(name, options, block_bytes):
    blocks = np.ascontiguousarray(
        np.concatenate([adversarial(block_bytes, seed=3), realistic(block_bytes, 1 << 13, seed=3)])
    )
    compare(name, blocks, **options)


def test_skku_differs_only_in_the_base():
    blocks = np.concatenate([adversarial(32), realistic(32, 1 << 14)])
    a, b = memcomp.get_codec("bpc.skku").measure(blocks), memcomp.get_codec("bpc.isca16").measure(blocks)
    w0 = blocks[:, :4].copy().view("<i4")[:, 0].astype(np.int64)
    base = np.select(
        [w0 == 0, np.abs(w0 + 0.5) < 8, np.abs(w0 + 0.5) < 128, np.abs(w0 + 0.5) < 32768], [3, 7, 11, 19], 33
    )
    assert np.array_equal(a.size_bits.astype(np.int64) - 7, b.size_bits.astype(np.int64) - base)
    assert (a.size_bits != b.size_bits).any()
    with pytest.raises(ValueError, match="accounting-only"):
        memcomp.get_codec("bpc.skku").encode(blocks[:2])


def test_liu_takes_the_smaller_mode_ties_to_delta():
    blocks = np.concatenate([adversarial(64), realistic(64, 1 << 15)])
    liu = memcomp.get_codec("bpc.liu")
    s = liu.measure(blocks)
    delta = memcomp.get_codec("bpc.liu", alt_mode="none").measure(blocks)
    assert set(np.unique(s.mode).tolist()) == {0, 1}
    assert np.all(s.size_bits <= delta.size_bits + 1)
    assert np.array_equal(s.size_bits[s.mode == 0], delta.size_bits[s.mode == 0] + 1)
    for i in np.flatnonzero(s.mode == 0)[:50]:  # the rows candidate is never strictly smaller
        rows_bits, _, _ = O.rows_candidate(blocks[i].tobytes(), "little", "ebpc", "liu")
        assert len(rows_bits) >= int(delta.size_bits[i])
    enc = liu.encode(blocks)
    first_bits = np.array([enc.block_stream(i)[0] >> 7 for i in range(len(blocks))])
    assert np.array_equal(first_bits, s.mode)


# --- corrupt streams ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bpc.isca16", "bpc.liu"])
def test_corrupt_streams_raise_or_decode(name):
    codec = memcomp.get_codec(name)
    blocks = adversarial(32)[:80]
    enc = codec.encode(blocks)
    rng = np.random.default_rng(1)
    for i in range(len(blocks)):
        stream = bytearray(enc.block_stream(i))
        n = int(enc.bit_lengths[i])
        for trial in range(4):
            data, length = bytearray(stream), n
            if trial == 0:
                length = int(rng.integers(0, n))  # truncation always fails
            else:
                data[int(rng.integers(0, len(data)))] ^= 1 << int(rng.integers(0, 8))
            one = memcomp.Encoded(
                enc.config,
                32,
                np.frombuffer(bytes(data), np.uint8),
                np.zeros(1, np.uint64),
                np.array([length], np.uint32),
                np.zeros(1, np.uint32),
            )
            if trial == 0:
                with pytest.raises(memcomp.CorruptStreamError):
                    codec.decode(one)
            else:
                try:
                    out = codec.decode(one)
                except memcomp.CorruptStreamError:
                    continue
                # an accepted stream is canonical: it is what the encoder writes for its output
                again = codec.encode(out)
                assert int(again.bit_lengths[0]) == length
                assert bits_of(again.block_stream(0), length) == bits_of(bytes(data), length)


# --- property -------------------------------------------------------------------------------------
def structured_blocks(block_bytes):
    """Words from a base plus narrow or sparse deltas: every BPC symbol type shows up."""
    n = block_bytes // 4
    return st.tuples(
        st.integers(0, 2**32 - 1),
        st.sampled_from([0, 1, 2, 4, 8, 16, 32]),
        st.lists(st.integers(-(2**31), 2**31 - 1), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
    ).map(lambda t: _build(block_bytes, *t))


def _build(block_bytes, base, width, deltas, keep):
    words, w = [], base
    for d, k in zip(deltas, keep):
        if width < 32:
            d = d % (1 << width) - (1 << width) // 2 if width else 0
        w = (w + (d if k else 0)) % (1 << 32)
        words.append(w)
    return np.array(words, "<u4").view(np.uint8).reshape(1, block_bytes)


@given(st.sampled_from(memcomp.VALID_BLOCK_BYTES).flatmap(structured_blocks), st.sampled_from(["little", "big"]))
def test_hypothesis_matches_oracle(blk, endian):
    for name in PRESETS:
        compare(name, blk, endian=endian)
