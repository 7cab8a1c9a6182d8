"""The *.gem5 presets, as shipped, against gem5 v24's compressors (src/mem/cache/compressors):
hand-worked lines per rule, oracle properties (oracles_gem5.py), and per-line sizes that gem5's
own code reported on real lines (tests/golden/gem5_lines.json, made by tools/peers/gem5)."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
import oracles_gem5 as og
from memcomp.metrics import charge
from oracles import inband
from oracles_cpack import cpack_sizes

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "gem5_lines.json"
GEM5_PRESETS = ["bdi.gem5", "cpack.gem5", "fpc.gem5", "fvc.gem5"]


def lines_of(words, block_bytes=64):
    return memcomp.as_blocks(np.array(words, dtype="<u4"), block_bytes)


def reported(name, blocks, fit_on=None, **options):
    """Per-line bits as the preset reports them: get_codec(name), fitted if data-driven, charged
    under its default policy."""
    codec = memcomp.get_codec(name, **options)
    if codec.requires_fit:
        codec = codec.fit(blocks if fit_on is None else fit_on)
    return charge(codec.measure(blocks).size_bits, blocks.shape[1], codec.policy).tolist()


def test_every_gem5_preset_defaults_to_gem5s_fallback():
    # Compressors.py: size_threshold_percentage = 50 for every compressor; base.cc stores a line
    # whose size exceeds it as the full line.
    for name in GEM5_PRESETS:
        assert memcomp.get_codec(name).policy == "threshold(0.5)", name


# -- base.cc fallback, worked by hand on CPack (cpack.hh codes: xxxx 2 + 32, zzzz 2) -------------
def test_cpack_gem5_threshold_lines():
    xxxx = [((i + 1) << 24) | 0x123456 for i in range(8)]  # bits 31..16 all differ: no mmxx/mmmx
    kept = xxxx[:7] + [0] * 9  # 7 * 34 + 9 * 2 = 256 bits = 50 % of 512: not above, kept
    full = xxxx[:8] + [0] * 8  # 8 * 34 + 8 * 2 = 288 > 256: stored as 512
    assert reported("cpack.gem5", lines_of(kept + full)) == [256, 512]
    # 32 B lines, threshold 16 B = 128 bits: 3 * 34 + 5 * 2 = 112 kept, 4 * 34 + 4 * 2 = 144 -> 256
    assert reported("cpack.gem5", lines_of(xxxx[:3] + [0] * 5 + xxxx[:4] + [0] * 4, 32)) == [112, 256]


# -- fpc.hh SignExtendedTwoHalfwords and fpc.cc zero runs, by hand --------------------------------
def test_fpc_gem5_halfword_rule_lines():
    z15 = [0] * 15  # runs of 8 and 7 zeros: 2 * (3 + 3) = 12 bits
    lines = lines_of(
        [0x0000FFF8]
        + z15  # low half -8: int16_t -8 != (uint16_t) 0xFFF8, so uncompressed: 35 + 12 = 47
        + [0x007F0001]
        + z15  # halves 127 and 1: the two-halfword row 3 + 16, + 12 = 31
        + [0xFF80007F]
        + z15  # high half -128 fails as -8 did: 35 + 12 = 47
        + [0x12345678] * 7
        + [0] * 9  # 7 * 35 + runs of 8 and 1 (12) = 257 > 256: stored as 512
    )
    assert reported("fpc.gem5", lines) == [47, 31, 47, 512]
    # 16 B lines (the scalar path): halves 0x0080 = 128 fail too: 35 + a run of 3 zeros (6) = 41
    assert reported("fpc.gem5", lines_of([0x00800080, 0, 0, 0, 0x00050003, 0, 0, 0], 16)) == [41, 25]
    # fpc.paper keeps the paper's rule (signed bytes -128..127) and no fallback
    assert reported("fpc.paper", lines) == [31, 31, 31, 257]


def test_fpc_gem5_is_exact_with_the_gem5_rule():
    words = [0x0000FFF8, 0x007F0001, 0xFF80007F, 0x00050003, 0x00800000, 0, 0, 7] * 4
    blocks = lines_of(words, 32)
    codec = memcomp.get_codec("fpc.gem5")
    enc = codec.encode(blocks)
    assert np.array_equal(codec.decode(enc), blocks)
    assert enc.bit_lengths.tolist() == [og.fpc_bits(words[:8])] * 4 == [35 + 19 + 35 + 19 + 19 + 6 + 7] * 4


# -- frequent_values.cc sampling into the LFU VFT, by hand ---------------------------------------
def test_fvc_gem5_table_lfu_small():
    # entries=4, ways=2: 2 sets, set = value & 1. Line A = 2, 4, 2, 6 (set 0): 2 -> way 0 (count 1),
    # 4 -> way 1 (1), 2 hits (2), 6 evicts the smaller count: way 1 = 6 (1). Line B = 8, 8, 4, 1:
    # 8 evicts way 1 (count 1 < 2) = 8 (1), 8 hits (2), 4: counts tie at 2, the first way goes: way
    # 0 = 4 (1); 1 -> set 1 way 0. Entry order: 4, 8, 1. (The global top 3 would be 2, 4, 8.)
    lines = lines_of([2, 4, 2, 6, 8, 8, 4, 1], 16)
    small = dict(entries=4, code_bits=2, ways=2)
    assert memcomp.get_codec("fvc.gem5", **small).fit(lines).model["values"] == [4, 8, 1]
    # samples=4: the 4 words of line A reach num_samples, so sampling stops there: 2, 6
    assert memcomp.get_codec("fvc.gem5", samples=4, **small).fit(lines).model["values"] == [2, 6]
    # samples=5: checked after each line, so line B is sampled whole
    assert memcomp.get_codec("fvc.gem5", samples=5, **small).fit(lines).model["values"] == [4, 8, 1]


def test_fvc_gem5_table_as_shipped():
    # 1024 entries, 16 ways: multiples of 64 all index set 0. Line 1 fills its 16 ways with 64..1024
    # (count 1 each); line 2: 64 hits 15 times, 1088 evicts the first way of count 1, way 1 (128).
    first = [64 * k for k in range(1, 17)]
    second = [64] * 15 + [64 * 17]
    probe = [128] * 16  # evicted: 16 misses of 10 + 32 = 672 > 256 bits -> 512
    hits = [64] * 16  # 16 hits of log2(1024) = 10 bits = 160
    lines = lines_of(first + second + probe + hits)
    codec = memcomp.get_codec("fvc.gem5").fit(lines[:2])
    assert codec.model["values"] == [64, 64 * 17] + [64 * k for k in range(3, 17)]
    # line 1 now misses 128 once: 15 * 10 + 42 = 192; line 2 all hits: 160
    assert reported("fvc.gem5", lines, fit_on=lines[:2]) == [192, 160, 512, 160]
    # samples=16 (one line of 64 B): 1088 never enters, so line 2 has one miss: 15*10 + 42 = 192
    assert reported("fvc.gem5", lines, fit_on=lines[:2], samples=16) == [160, 192, 160, 160]


def test_fvc_gem5_samples_default_is_gem5s():
    assert memcomp.get_codec("fvc.gem5").options["samples"] == 100000  # Compressors.py num_samples
    assert memcomp.get_codec("fvc.gem5").options["ways"] == 16  # vft_assoc
    assert memcomp.get_codec("fvc.gem5").options["table"] == "gem5"
    assert memcomp.get_codec("fvc.paper").options["table"] == "top"


def test_fvc_table_option_checks():
    with pytest.raises(ValueError, match="ways"):
        memcomp.get_codec("fvc.gem5", ways=3)
    with pytest.raises(ValueError, match="ways"):
        memcomp.get_codec("fvc.gem5", ways=1024 // 3 * 0 + 48)  # 1024 / 48 is not whole


# -- oracle properties ---------------------------------------------------------------------------
INTERESTING = [
    0,
    1,
    7,
    8,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0x8000,
    0xFFF8,
    0xFFFF,
    0x10000,
    0x007F007F,
    0x00800080,
    0xFF80FF80,
    0xFFFF0000,
    0x0000FF80,
    0x7F7F7F7F,
    0xFFFFFFF8,
    0xFFFFFFFF,
    0x12345678,
    0x3F800000,
]
word = st.one_of(
    st.sampled_from(INTERESTING),
    st.integers(0, 0xFFFFFFFF),
    st.builds(lambda a, b: a << 16 | b, st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(word, min_size=8, max_size=8 * 6), st.sampled_from([16, 32, 64]))  # 16 B: the scalar path
def test_fpc_gem5_matches_oracle(words, block_bytes):
    n = block_bytes // 4
    words = (words * n)[: len(words) // n * n or n]
    blocks = lines_of(words, block_bytes)
    want = [og.fallback(og.fpc_bits(words[i : i + n]), block_bytes) for i in range(0, len(words), n)]
    assert reported("fpc.gem5", blocks) == want


@settings(max_examples=100, deadline=None)
@given(st.lists(word, min_size=8, max_size=8 * 6), st.sampled_from([32, 64]))
def test_cpack_gem5_matches_oracle(words, block_bytes):
    n = block_bytes // 4
    words = (words * n)[: len(words) // n * n or n]
    blocks = lines_of(words, block_bytes)
    want = [og.fallback(inband(r), block_bytes) for r in cpack_sizes(blocks, "gem5")]
    assert reported("cpack.gem5", blocks) == want


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=4, max_size=4 * 30),
    st.sampled_from([(8, 2), (8, 4), (16, 4), (4, 4)]),
    st.integers(1, 80),
)
def test_fvc_gem5_table_matches_oracle(values, shape, samples):
    entries, ways = shape
    values = values[: len(values) // 4 * 4]
    blocks = lines_of(values, 16)
    lines = [values[i : i + 4] for i in range(0, len(values), 4)]
    table = og.fvc_table(lines, entries, ways, samples)
    codec = memcomp.get_codec("fvc.gem5", entries=entries, ways=ways, samples=samples).fit(blocks)
    assert codec.model["values"] == table
    code = entries.bit_length() - 1
    want = [og.fallback(og.fvc_bits(line, table, entries), 16) for line in lines]
    assert (
        reported("fvc.gem5", blocks, fit_on=blocks, entries=entries, ways=ways, samples=samples, code_bits=code) == want
    )


# -- gem5's own per-line sizes on real lines -----------------------------------------------------
@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("name", GEM5_PRESETS)
@pytest.mark.parametrize("block_bytes", [64, 32])
def test_gem5_preset_as_shipped_matches_gem5_lines(golden, name, block_bytes):
    data = np.frombuffer(bytes.fromhex(golden["lines_hex"]), dtype=np.uint8)
    blocks = np.ascontiguousarray(data.reshape(-1, block_bytes))
    want = golden["sizes"][str(block_bytes)][name]
    assert len(want) == len(blocks)
    got = reported(name, blocks)  # fvc.gem5 fitted on the lines in order, as gem5 samples them
    assert got == want
    assert 0 < sum(w < 8 * block_bytes for w in want) < len(want)  # both kept and fallen-back lines
