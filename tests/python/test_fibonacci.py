"""Fibonacci codec (SPEC 1.14, W15): golden vectors (tests/golden/fibonacci.json) and the
plain-Python oracle (oracles_fib.py) against the C++ codec, sizes and stream bytes."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles_fib as OF
from blockgen import adversarial, realistic

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "fibonacci.json")).read_text())


def block_of(words, endian="<"):
    return np.array(words, f"{endian}u4").view(np.uint8).reshape(1, -1)


def compare(blocks, **options):
    codec = memcomp.get_codec("fib", **options)
    s = codec.measure(blocks)
    enc = codec.encode(blocks)
    for i, blk in enumerate(blocks):
        bits, want = OF.fib_encode(blk.tobytes(), **options)
        got = {
            "mode": int(s.mode[i]),
            "payload": int(s.payload_bits[i]),
            "meta": int(s.meta_bits[i]),
            "header": int(s.header_bits[i]),
            "tag": int(s.tag_bits[i]),
        }
        assert got == want, f"block {i}: {blk.tobytes().hex()}"
        assert enc.block_stream(i) == OF.to_bytes(bits), f"block {i} stream"
    assert np.array_equal(codec.decode(enc), blocks)


def codeword(n):
    """The C++ codeword of n, cut from the stream of [0, d, d, d] (d = the delta with zigzag n - 1)."""
    u = n - 1
    d = u // 2 if u % 2 == 0 else -(u + 1) // 2
    blk = block_of([0, d % 2**32, d % 2**32, d % 2**32])
    enc = memcomp.get_codec("fib").encode(blk)
    bits = "".join(format(b, "08b") for b in enc.block_stream(0))[: int(enc.bit_lengths[0])]
    assert bits[:32] == "0" * 32 and bits.endswith("1111")
    return bits[32:-4]


def test_w15():
    assert [codeword(n) for n in range(1, 6)] == ["11", "011", "0011", "1011", "00011"]
    assert len(codeword(2**32)) == 47
    c = memcomp.get_codec("fib")
    assert c.preset == "fib.ours" and c.exact and c.modes == {0: "fib"} and c.options == {"endian": "little"}


@pytest.mark.parametrize("w", GOLDEN["codewords"], ids=lambda w: str(w["n"]))
def test_golden_codewords(w):
    assert w["u"] == w["n"] - 1 and OF.zigzag(w["delta"]) == w["u"]
    assert codeword(w["n"]) == w["code"] == OF.fib_code(w["n"])
    assert OF.fib_value(w["code"]) == w["n"]
    assert "11" not in w["code"][:-1]


@pytest.mark.parametrize("case", GOLDEN["lengths"], ids=lambda case: str(case["n"]))
def test_golden_lengths(case):
    assert len(codeword(case["n"])) == case["bits"] == OF.fib_length(case["n"])


def test_golden_max_codeword():
    m = GOLDEN["max_codeword"]
    assert sum(OF.F[k] for k in m["terms"]) == m["n"] == 2**32
    assert all(a - b >= 2 for a, b in zip(m["terms"], m["terms"][1:]))  # Zeckendorf: no adjacent terms
    assert codeword(m["n"]) == m["code"] and len(m["code"]) == 47


@pytest.mark.parametrize("b", GOLDEN["blocks"], ids=lambda b: b["id"])
def test_golden_blocks(b):
    blk = np.frombuffer(bytes.fromhex(b["block"]), np.uint8).reshape(1, -1).copy()
    assert blk.shape[1] == b["block_bytes"]
    assert blk[0].tobytes() == b"".join(int(w, 16).to_bytes(4, "little") for w in b["words"])
    c = memcomp.get_codec("fib")
    s = c.measure(blk)
    assert int(s.size_bits[0]) == int(s.payload_bits[0]) == b["bits"] == len(b["stream"])
    assert int(s.meta_bits[0]) == int(s.header_bits[0]) == int(s.tag_bits[0]) == 0
    enc = c.encode(blk)
    assert enc.block_stream(0) == OF.to_bytes(b["stream"])
    assert OF.fib_encode(blk[0].tobytes())[0] == b["stream"]
    assert np.array_equal(c.decode(enc), blk)


@pytest.mark.parametrize("block_bytes", memcomp.VALID_BLOCK_BYTES)
def test_matches_oracle(block_bytes):
    rng = np.random.default_rng(block_bytes)
    rand = rng.integers(0, 256, (40, block_bytes), dtype=np.uint8)
    compare(np.ascontiguousarray(np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 14), rand])))


@pytest.mark.parametrize("block_bytes", [16, 128])
def test_big_endian_matches_oracle(block_bytes):
    compare(adversarial(block_bytes, seed=2), endian="big")


def test_limits():
    c = memcomp.get_codec("fib")
    assert int(c.measure(block_of([7, 7, 7, 7])).size_bits[0]) == 32 + 3 * 2  # u = 0
    worst = block_of([0, 0x80000000, 0, 0x80000000])  # every u = 2^32 - 1
    assert int(c.measure(worst).size_bits[0]) == 32 + 3 * 47 == c.max_compressed_bits(16)
    assert c.max_compressed_bits(256) == 32 + 63 * 47


def _encoded(c, bits, block_bytes):
    data = np.frombuffer(OF.to_bytes(bits) or b"\0", np.uint8)
    return memcomp.Encoded(
        c.get_config(),
        block_bytes,
        data,
        np.zeros(1, np.uint64),
        np.array([len(bits)], np.uint32),
        np.zeros(1, np.uint32),
    )


def test_decode_rejects_bad_streams():
    c = memcomp.get_codec("fib")
    z = "0" * 32
    assert np.array_equal(c.decode(_encoded(c, z + "11" + "0011" + "1011", 16)), block_of([0, 0, 1, 0xFFFFFFFF]))
    for bad, why in [
        (z + "0" * 12, "truncated"),  # the stream ends inside a codeword
        (z + "0" * 60 + "111111", "no terminator"),  # 47 bits without a terminator
        (z + "0" * 41 + "1010" + "1" + "1111", "> 2\\^32"),  # F47 + F45 + F43
        (z + "11" * 3 + "0", "trailing"),
        (z[:20], "truncated"),
    ]:  # no first word
        with pytest.raises(memcomp.CorruptStreamError, match=why):
            c.decode(_encoded(c, bad, 16))


@given(
    st.sampled_from(memcomp.VALID_BLOCK_BYTES).flatmap(
        lambda b: st.tuples(
            st.integers(0, 2**32 - 1),
            st.lists(st.integers(-(2**31), 2**31 - 1) | st.integers(-40, 40), min_size=b // 4, max_size=b // 4),
        )
    )
)
def test_hypothesis_matches_oracle(t):
    base, deltas = t
    words, w = [], base
    for d in deltas:
        w = (w + d) % 2**32
        words.append(w)
    compare(block_of(words))
