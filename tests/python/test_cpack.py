"""C-Pack (SPEC 1.4, W6): golden vectors (tests/golden/cpack.json) and the plain-Python oracle
(oracles_cpack.py) against the C++ codec: sizes, codes, indices and stream bits, every preset."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles_cpack as O
from blockgen import adversarial, realistic

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "cpack.json")).read_text())
PRESETS = sorted(O.PRESETS)


def one(hex_str):
    return np.frombuffer(bytes.fromhex(hex_str), np.uint8).reshape(1, -1).copy()


def stream_of(enc, i):
    return O.to_bits(enc.block_stream(i), int(enc.bit_lengths[i]))


def record(s, i):
    return {
        "mode": int(s.mode[i]),
        "payload": int(s.payload_bits[i]),
        "meta": int(s.meta_bits[i]),
        "header": int(s.header_bits[i]),
        "tag": int(s.tag_bits[i]),
    }


# --- golden --------------------------------------------------------------------------------------
CASES = [(c, e) for c in GOLDEN["cases"] for e in c["expected"]]


@pytest.mark.parametrize("case,exp", CASES, ids=[f"{c['id']}-{e['preset']}{e.get('options', '')}" for c, e in CASES])
def test_golden(case, exp):
    blk = one(case["block"])
    assert blk.shape[1] == case["block_bytes"]
    assert blk[0].tobytes() == b"".join(int(w, 16).to_bytes(4, "little") for w in case["words"])
    opts = exp.get("options", {})
    codec = memcomp.get_codec(exp["preset"], **opts)
    s = codec.measure(blk)
    assert (int(s.payload_bits[0]), int(s.meta_bits[0]), int(s.size_bits[0])) == (
        exp["payload_bits"],
        exp["meta_bits"],
        exp["bits"],
    )
    assert int(s.header_bits[0]) == 0 and int(s.tag_bits[0]) == 0 and int(s.mode[0]) == 0
    # the oracle reproduces the hand-derived trace
    trace = O.CPackOracle(exp["preset"].split(".")[1], **opts).trace(blk[0].tobytes())
    assert [t[0] for t in trace] == exp["codes"]
    assert [t[1] for t in trace] == exp["indices"]
    if codec.exact:
        enc = codec.encode(blk)
        bits = stream_of(enc, 0)
        assert bits == exp["stream"]
        parsed = O.parse_stream(bits, blk.shape[1] // 4)
        assert [p[0] for p in parsed] == exp["codes"]
        assert [p[1] for p in parsed] == exp["indices"]
        assert np.array_equal(codec.decode(enc), blk)
    else:
        assert "stream" not in exp
        with pytest.raises(ValueError, match="accounting-only"):
            codec.encode(blk)


def test_w6_totals_match_spec():
    w6 = next(c for c in GOLDEN["cases"] if c["id"] == "W6")
    bits = {e["preset"]: e["bits"] for e in w6["expected"]}
    assert (bits["cpack.paper"], bits["cpack.gem5"], bits["cpack.kim"]) == (134, 134, 152)
    blk = one(w6["block"])
    for preset, want in bits.items():
        assert int(memcomp.get_codec(preset).measure(blk).size_bits[0]) == want


SEQS = [(q, e) for q in GOLDEN["sequences"] for e in q["expected"]]


@pytest.mark.parametrize("seq,exp", SEQS, ids=[f"{q['id']}-{e['preset']}" for q, e in SEQS])
def test_golden_sequences(seq, exp):
    blocks = np.stack([one(h)[0] for h in seq["blocks"]])
    codec = memcomp.get_codec(exp["preset"])
    for _ in range(2):  # every batch starts from the initial dictionary
        assert codec.measure(blocks).size_bits.tolist() == exp["bits"]
    oracle = O.CPackOracle(exp["preset"].split(".")[1])
    for i, blk in enumerate(blocks):
        trace = oracle.trace(blk.tobytes())
        assert [t[0] for t in trace] == exp["codes"][i]
        assert [t[1] for t in trace] == exp["indices"][i]
    enc = codec.encode(blocks)
    for i in range(len(blocks)):
        parsed = O.parse_stream(stream_of(enc, i), seq["block_bytes"] // 4)
        assert [p[0] for p in parsed] == exp["codes"][i]
        assert [p[1] for p in parsed] == exp["indices"][i]
    assert np.array_equal(codec.decode(enc), blocks)


# --- oracle --------------------------------------------------------------------------------------
def compare(name, blocks, style="best", **opts):
    codec = memcomp.get_codec(name, **opts)
    s = codec.measure(blocks)
    oracle = O.CPackOracle(name.split(".")[1], style, **opts)
    enc = codec.encode(blocks) if codec.exact else None
    for i, blk in enumerate(blocks):
        trace = oracle.trace(blk.tobytes())
        want = {
            "mode": 0,
            "header": 0,
            "tag": 0,
            "meta": sum(len(O.CODES[c][0]) for c, _, _ in trace),
            "payload": sum(O.CODES[c][1] for c, _, _ in trace),
        }
        assert record(s, i) == want, f"{name} {opts} block {i}: {blk.tobytes().hex()}"
        if enc is not None:
            assert stream_of(enc, i) == O.stream_bits(trace), f"{name} {opts} block {i} stream"
    if enc is not None:
        assert np.array_equal(codec.decode(enc), blocks)


@pytest.mark.parametrize("block_bytes", memcomp.VALID_BLOCK_BYTES)
@pytest.mark.parametrize("preset", PRESETS)
def test_matches_oracle(preset, block_bytes):
    blocks = np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 15)])
    compare(f"cpack.{preset}", blocks)


@pytest.mark.parametrize("preset", ["kim", "schreiber", "skku"])
def test_first_match_search_gives_the_same_codes(preset):
    """schreiber and skku search entries in order and stop at the first whose bits 31..16 match; with
    xxxx-only pushes that equals the smallest-code rule (SPEC 1.4), indices included."""
    blocks = np.concatenate([adversarial(64), realistic(64, 1 << 15)])
    compare(f"cpack.{preset}", blocks, style="first")


OPTION_SETS = [
    {"push": "nonzero"},
    {"push": "nonnarrow", "dictionary": "fifo"},
    {"push": "literal", "dictionary": "deque"},
    {"push": "unmatched", "dictionary": "fill", "endian": "big"},
    {"init": "zeros", "push": "unmatched"},
    {"init": "zeros", "dictionary": "deque", "push": "nonzero", "persistent": True},
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("block_bytes", [16, 64, 256])
def test_option_combinations_match_oracle(opts, block_bytes):
    blocks = np.concatenate([adversarial(block_bytes)[::3], realistic(block_bytes, 1 << 13)])
    compare("cpack.paper", blocks, **opts)


# a small vocabulary of words sharing upper bytes: every code and many dictionary hits
WORDS = st.sampled_from(
    [
        0,
        0x7F,
        0xFF,
        0x100,
        0xABCD,
        0x12345678,
        0x123456AB,
        0x1234ABCD,
        0x12340000,
        0xDEADBEEF,
        0xDEAD0000,
        0x78563412,
        0xAB563412,
        0x00001234,
        0x00010000,
    ]
)


@given(
    st.sampled_from([16, 32, 64, 128, 256]).flatmap(
        lambda b: st.lists(st.lists(WORDS, min_size=b // 4, max_size=b // 4), min_size=1, max_size=4)
    )
)
def test_hypothesis_vocabulary_blocks(rows):
    blocks = np.array([[b for w in row for b in w.to_bytes(4, "little")] for row in rows], np.uint8)
    for preset in PRESETS:
        compare(f"cpack.{preset}", blocks)


# --- statefulness (skku) ---------------------------------------------------------------------------
def test_skku_carries_the_dictionary_across_blocks_and_resets_per_batch():
    x = one("1020304011203040122030401320304014203040152030401620304017203040")
    codec = memcomp.get_codec("cpack.skku")
    assert codec.stateful and codec.exact
    pair = np.concatenate([x, x])
    first = codec.measure(pair).size_bits.tolist()
    assert first == [8 * 34, 8 * 6]  # the second copy finds every word
    assert codec.measure(pair).size_bits.tolist() == first  # a new batch starts from the zeros
    assert codec.measure(x).size_bits.tolist() == [8 * 34]
    assert memcomp.get_codec("cpack.schreiber").measure(pair).size_bits.tolist() == [8 * 34, 8 * 34]
    enc = codec.encode(pair)
    assert np.array_equal(codec.decode(enc), pair)


def test_skku_results_do_not_depend_on_threads():
    blocks = realistic(32, 1 << 16)
    codec = memcomp.get_codec("cpack.skku")
    a, b = codec.measure(blocks, threads=1), codec.measure(blocks, threads=4)
    assert np.array_equal(a.size_bits, b.size_bits)
    assert [r["payload"] for r in O.cpack_sizes(blocks, "skku")] == a.payload_bits.tolist()


def test_only_skku_is_stateful_and_only_gem5_accounting():
    for p in PRESETS:
        c = memcomp.get_codec(f"cpack.{p}")
        assert c.stateful == (p == "skku"), p
        assert c.exact == (p != "gem5"), p
        assert c.max_compressed_bits(128) == 34 * 32
        assert set(c.options) == {"endian", "push", "dictionary", "init", "persistent", "layout"}
        assert c.modes == {0: "cpack"}
    assert memcomp.get_codec("cpack").preset == "cpack.paper"


def test_invalid_option_combinations():
    with pytest.raises(ValueError, match="init=zeros"):
        memcomp.get_codec("cpack", init="zeros", dictionary="fill")
    with pytest.raises(ValueError, match="persistent"):
        memcomp.get_codec("cpack", persistent=True, dictionary="block")
    with pytest.raises(ValueError, match="must be one of"):
        memcomp.get_codec("cpack", push="everything")


# --- corrupt streams -------------------------------------------------------------------------------
def encoded(codec, bits: str, block_bytes: int):
    data = int(bits.ljust(-(-len(bits) // 8) * 8, "0"), 2).to_bytes(-(-len(bits) // 8), "big") if bits else b""
    return memcomp.Encoded(
        config=codec.get_config(),
        block_bytes=block_bytes,
        data=np.frombuffer(data, np.uint8).copy(),
        bit_offsets=np.zeros(1, np.uint64),
        bit_lengths=np.array([len(bits)], np.uint32),
        tags=np.zeros(1, np.uint32),
    )


def test_decoder_rejects_empty_slots_undefined_code_and_truncation():
    codec = memcomp.get_codec("cpack")
    with pytest.raises(memcomp.CorruptStreamError, match="empty dictionary slot"):
        codec.decode(encoded(codec, "100000" + "00" * 3, 16))  # mmmm of slot 0, nothing pushed
    lit = "01" + "0" * 32
    with pytest.raises(memcomp.CorruptStreamError, match="empty dictionary slot"):
        codec.decode(encoded(codec, lit + "100001" + "00" * 2, 16))  # slot 1 after one push
    assert codec.decode(encoded(codec, lit + "100000" + "00" * 2, 16)).tolist() == [[0] * 16]
    with pytest.raises(memcomp.CorruptStreamError, match="1111"):
        codec.decode(encoded(codec, "1111" + "00" * 3, 16))
    blk = one(next(c for c in GOLDEN["cases"] if c["id"] == "W6")["block"])
    full = stream_of(codec.encode(blk), 0)
    for cut in range(0, len(full), 7):
        with pytest.raises(memcomp.CorruptStreamError):
            codec.decode(encoded(codec, full[:cut], 32))


def test_resumed_skku_chunk_decodes_alone_and_after_save_load(tmp_path):
    """A chunk encoded with resume=True records the dictionary it started from: it decodes on its
    own, by a fresh codec object, and after save/load (it used to decode to wrong bytes)."""
    blocks = realistic(32, 1 << 16)
    c = memcomp.get_codec("cpack.skku")
    half = len(blocks) // 2
    first = c.encode(blocks[:half])
    second = c.encode(blocks[half:], resume=True)
    assert second.entry_state is not None and len(second.entry_state) == 2 + 64
    assert not np.array_equal(second.entry_state, first.entry_state)  # the dictionary moved on
    fresh = memcomp.get_codec("cpack.skku")
    assert np.array_equal(fresh.decode(second), blocks[half:])
    assert np.array_equal(fresh.decode(first), blocks[:half])
    second.save(tmp_path / "second.npz")
    loaded = memcomp.Encoded.load(tmp_path / "second.npz")
    assert np.array_equal(loaded.entry_state, second.entry_state)
    assert np.array_equal(memcomp.get_codec("cpack.skku").decode(loaded), blocks[half:])
    # the whole stream in one batch gives the same bits as the two chunks
    whole = c.encode(blocks)
    assert np.array_equal(whole.bit_lengths, np.concatenate([first.bit_lengths, second.bit_lengths]))
    # a file without the state is refused for a stateful codec, not decoded wrongly
    with np.load(tmp_path / "second.npz") as z:
        np.savez(tmp_path / "old.npz", **{k: z[k] for k in z.files if k != "entry_state"})
    with pytest.raises(ValueError, match="entry state"):
        memcomp.Encoded.load(tmp_path / "old.npz")
    import dataclasses

    with pytest.raises(ValueError, match="entry state"):
        fresh.decode(dataclasses.replace(second, entry_state=None))
    bad = second.entry_state.copy()
    bad[0] = 40
    with pytest.raises(memcomp.CorruptStreamError, match="entry state"):
        fresh.decode(dataclasses.replace(second, entry_state=bad))


def test_stateless_codecs_record_no_entry_state():
    blocks = realistic(32, 1 << 12)
    enc = memcomp.get_codec("cpack").encode(blocks)
    assert enc.entry_state is None
