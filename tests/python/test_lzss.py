"""Block-local LZSS (SPEC 1.13): golden vectors (tests/golden/lzss.json) and the naive plain-Python
oracle (oracles_lzss.py) against the C++ codec: sizes, tokens and stream bits."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles_lzss as O
from blockgen import adversarial, realistic

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "lzss.json")).read_text())
OPTIONS = [
    {},
    {"token_bytes": 4},
    {"min_match": 2},
    {"min_match": 5, "length_bits": 3},
    {"length_bits": 2},
    {"token_bytes": 4, "min_match": 2, "length_bits": 3},
]


def bits_of(data: bytes, n: int) -> str:
    return "".join(format(b, "08b") for b in data)[:n]


def as_tokens(toks):
    return [["lit", t[1].hex()] if t[0] == "lit" else list(t) for t in toks]


def record(s, i):
    return {
        "mode": int(s.mode[i]),
        "payload": int(s.payload_bits[i]),
        "meta": int(s.meta_bits[i]),
        "header": int(s.header_bits[i]),
        "tag": int(s.tag_bits[i]),
    }


# --- golden --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["id"] for c in GOLDEN["cases"]])
def test_golden(case):
    blk = np.frombuffer(bytes.fromhex(case["block"]), np.uint8).reshape(1, -1).copy()
    assert blk.shape[1] == case["block_bytes"]
    opts = case.get("options", {})
    codec = memcomp.get_codec("lzss", **opts)
    s = codec.measure(blk)
    want = {"mode": 0, "payload": case["payload_bits"], "meta": case["meta_bits"], "header": 0, "tag": 0}
    assert record(s, 0) == want
    assert int(s.size_bits[0]) == case["bits"]
    assert as_tokens(O.tokens(blk[0].tobytes(), **opts)) == case["tokens"]
    enc = codec.encode(blk)
    assert bits_of(enc.block_stream(0), int(enc.bit_lengths[0])) == case["stream"]
    assert np.array_equal(codec.decode(enc), blk)


def test_literal_only_blocks_cost_9_bits_per_byte():
    for b in memcomp.VALID_BLOCK_BYTES:
        blk = np.arange(b, dtype=np.uint8).reshape(1, b)  # distinct bytes: no repeat at all
        assert int(memcomp.get_codec("lzss").measure(blk).size_bits[0]) == 9 * b
        rng = np.random.default_rng(b)
        while True:  # random bytes without a repeated 3-byte string
            r = rng.integers(0, 256, b, dtype=np.uint8)
            grams = [r[i : i + 3].tobytes() for i in range(b - 2)]
            if len(set(grams)) == len(grams):
                break
        assert int(memcomp.get_codec("lzss").measure(r.reshape(1, b)).size_bits[0]) == 9 * b


def test_match_cost_at_128_bytes():
    # SPEC 1.13: at B = 128 a match costs 12 bits and a literal 9
    blk = np.zeros((1, 128), np.uint8)
    s = memcomp.get_codec("lzss").measure(blk)
    assert int(s.size_bits[0]) == 2 * 9 + 7 * 12


# --- oracle --------------------------------------------------------------------------------------
def compare(blocks, **opts):
    codec = memcomp.get_codec("lzss", **opts)
    s = codec.measure(blocks)
    enc = codec.encode(blocks)
    for i, blk in enumerate(blocks):
        data = blk.tobytes()
        assert record(s, i) == O.lzss_size(data, **opts), f"{opts} block {i}: {data.hex()}"
        toks = O.tokens(data, **opts)
        want = O.stream_bits(toks, len(data), **opts)
        assert bits_of(enc.block_stream(i), int(enc.bit_lengths[i])) == want, f"{opts} block {i} stream"
        assert O.decode_tokens(toks) == data
    assert np.array_equal(codec.decode(enc), blocks)


@pytest.mark.parametrize("block_bytes", memcomp.VALID_BLOCK_BYTES)
def test_matches_oracle(block_bytes):
    compare(np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 14)]))


@pytest.mark.parametrize("opts", OPTIONS[1:], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("block_bytes", [16, 64, 256])
def test_options_match_oracle(opts, block_bytes):
    compare(np.concatenate([adversarial(block_bytes)[::2], realistic(block_bytes, 1 << 13)]), **opts)


# Blocks from a tiny alphabet: long overlapping matches, many equal-length candidates (ties).
@given(
    st.sampled_from([16, 32, 64, 128, 256]).flatmap(
        lambda b: st.tuples(
            st.just(b), st.lists(st.sampled_from(b"ab\x00"), min_size=b, max_size=b), st.sampled_from(OPTIONS)
        )
    )
)
def test_hypothesis_small_alphabet(case):
    b, data, opts = case
    compare(np.array([data], np.uint8), **opts)


@given(st.binary(min_size=32, max_size=32), st.integers(0, 31), st.integers(1, 31), st.integers(1, 31))
def test_hypothesis_planted_repeats(data, src, dst, length):
    """Random bytes with one copied run planted in them (a match at a known distance)."""
    buf = bytearray(data)
    for k in range(length):
        if dst + k < 32 and src + k < 32:
            buf[dst + k] = buf[src + k]
    compare(np.frombuffer(bytes(buf), np.uint8).reshape(1, 32).copy())


# --- options and corrupt streams ---------------------------------------------------------------------
def test_options_and_defaults():
    c = memcomp.get_codec("lzss")
    assert c.preset == "lzss.block" and c.exact and not c.stateful
    assert c.options == {"token_bytes": 1, "min_match": 3, "length_bits": 4, "endian": "little"}
    assert memcomp.get_codec("lzss", token_bytes=4).options["min_match"] == 1
    assert c.max_compressed_bits(128) == 9 * 128
    assert memcomp.get_codec("lzss", token_bytes=4).max_compressed_bits(128) == 33 * 32
    with pytest.raises(ValueError, match="token_bytes"):
        memcomp.get_codec("lzss", token_bytes=2)
    with pytest.raises(ValueError):
        memcomp.get_codec("lzss", length_bits=0)


def encoded(codec, bits: str, block_bytes: int):
    n = -(-len(bits) // 8)
    data = int(bits.ljust(8 * n, "0"), 2).to_bytes(n, "big") if bits else b""
    return memcomp.Encoded(
        config=codec.get_config(),
        block_bytes=block_bytes,
        data=np.frombuffer(data, np.uint8).copy(),
        bit_offsets=np.zeros(1, np.uint64),
        bit_lengths=np.array([len(bits)], np.uint32),
        tags=np.zeros(1, np.uint32),
    )


def test_decoder_rejects_bad_distance_length_and_truncation():
    codec = memcomp.get_codec("lzss")
    lit = "0" + "01100001"  # 'a'
    with pytest.raises(memcomp.CorruptStreamError, match="before the block start"):
        codec.decode(encoded(codec, "1" + "0000" + "0000", 16))  # a match at byte 0
    with pytest.raises(memcomp.CorruptStreamError, match="before the block start"):
        codec.decode(encoded(codec, lit + "1" + "0001" + "1100", 16))  # distance 2 at byte 1
    with pytest.raises(memcomp.CorruptStreamError, match="past the block end"):
        codec.decode(encoded(codec, lit + "1" + "0000" + "1111", 16))  # 18 bytes from byte 1 of 16
    ok = lit + "1" + "0000" + "1100"  # 15 bytes at distance 1
    assert codec.decode(encoded(codec, ok, 16)).tobytes() == b"a" * 16
    for cut in range(len(ok)):
        with pytest.raises(memcomp.CorruptStreamError):
            codec.decode(encoded(codec, ok[:cut], 16))
