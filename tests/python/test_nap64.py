"""NAP64 presets (issue 35): bdi.nap64, cpack.nap64 and bpc.nap64 against NAP64's plugins
(NAP64/Memory-Compression-Measurements-Open@eefc809): hand-worked lines per rule, a plain reading
of the tools (oracles_nap64.py) under hypothesis, and the tools' own per-line sizes on real lines
(tests/golden/nap64_lines.json, made by tools/peers/nap64)."""

import base64
import dataclasses
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
import oracles_nap64 as oracle

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "nap64_lines.json").read_text())
PRESETS = {"bdi.nap64": ("bdi", 64), "cpack.nap64": ("cpack", 64), "bpc.nap64": ("bpc", 128)}


def sizes(name, lines, policy=None):
    """Per-line bits of preset ``name`` charged under ``policy`` (default: the preset's own)."""
    c = memcomp.get_codec(name)
    blocks = np.frombuffer(b"".join(lines), np.uint8).reshape(len(lines), -1).copy()
    s = c.measure(blocks)
    return memcomp.charge(s.size_bits, blocks.shape[1], c.policy if policy is None else policy), s


def one(name, line, policy=None):
    bits, s = sizes(name, [line], policy)
    return int(bits[0]), memcomp.get_codec(name).modes[int(s.mode[0])]


# ---- the tools' own sizes on real lines ----------------------------------------------------------
@pytest.mark.parametrize("name", list(PRESETS))
def test_golden_lines_equal_nap64_as_shipped_and_uncapped(name):
    plugin, b = PRESETS[name]
    rows = GOLDEN["lines64" if b == 64 else "lines128"]
    lines = [base64.b64decode(r["line"]) for r in rows]
    capped = np.array([r[plugin][0] for r in rows])
    uncapped = np.array([r[plugin][1] for r in rows])
    assert len(rows) >= 70
    assert (uncapped > capped).any() == (plugin != "bdi")  # lines the cap changes (bdi: none exceed 64 B)
    got, _ = sizes(name, lines)  # get_codec(name) with its default policy: NAP64's default
    assert np.array_equal(got, capped)
    got, _ = sizes(name, lines, "none")  # NAP64 -p
    assert np.array_equal(got, uncapped)


def test_presets_name_nap64s_default_and_cpack_is_schreiber():
    for name in PRESETS:
        assert memcomp.get_codec(name).policy == "threshold(1)"  # s > line ? line : s, no flag bit
    assert memcomp.get_codec("cpack.nap64").options == memcomp.get_codec("cpack.schreiber").options
    assert memcomp.get_codec("bpc.nap64").options["words"] == "unsigned"
    assert memcomp.get_codec("bpc.nap64").options["precedence"] == "liu"
    assert memcomp.get_codec("bdi.nap64").exact and memcomp.get_codec("cpack.nap64").exact
    assert all(memcomp.get_codec("bdi.nap64").supports(b) for b in memcomp.VALID_BLOCK_BYTES)


def test_policy_is_nap64s_cap():
    """cpack.c:30-31 and bpc.c:46-47: s > line bits ? line bits : s; nothing charged for a flag."""
    cpack, bpc = memcomp.get_codec("cpack.nap64").policy, memcomp.get_codec("bpc.nap64").policy
    assert memcomp.charge(np.array([511, 512, 513, 544], np.uint32), 64, cpack).tolist() == [511, 512, 512, 512]
    assert memcomp.charge(np.array([1024, 1025, 1089], np.uint32), 128, bpc).tolist() == [1024, 1024, 1024]


# ---- hand-worked lines: BDI (bdi.h) ------------------------------------------------------------
def _le(fmt, *v):
    return struct.pack("<" + fmt, *v)


BDI_LINES = [
    # 170-174: all zero -> out[0] = 0, 1 byte = 8 bits
    (bytes(64), 8, "zeros"),
    # 175-180: every byte 0x07 -> header + 1 byte = 16
    (bytes([7]) * 64, 16, "rep1"),
    # 181-186: halfword 0x0201 repeated (bytes 01 02; R1 fails on byte 1) -> 1 + 2 bytes = 24
    (bytes([1, 2]) * 32, 24, "rep2"),
    # 187-192: 01 02 03 04 repeated (R2 fails: 0x0201 != 0x0403) -> 1 + 4 bytes = 40
    (bytes([1, 2, 3, 4]) * 16, 40, "rep4"),
    # 193-198: 01..08 repeated -> 1 + 8 bytes = 72
    (bytes(range(1, 9)) * 8, 72, "rep8"),
    # 242-246: LE words 1000..1007: min 1000, every word - 1000 <= 0xff -> 1 + 8 + 8 = 17 bytes
    (_le("8Q", *range(1000, 1008)), 136, "b8d1"),
    # 247-251: the same words big-endian: LE values differ by multiples of 2^56 (b8d1 and the
    # LE b8d1i fail), BE ones by <= 7 -> tB8D1, 17 bytes
    (struct.pack(">8Q", *range(1000, 1008)), 136, "b8d1.be"),
    # 252-256: 5, 7, 0, 9 are immediates (<= 0xff); the base is the smallest other word, 0x123456;
    # the others differ by 0, 0x0a, 0xa9, 0 -> 1 + 1 (mask) + 8 + 8 = 18 bytes. b8d1 fails
    # (0x1234ff - 0 > 0xff), the BE ones span 2^56.
    (_le("8Q", 5, 0x123456, 7, 0x123460, 0, 0x1234FF, 9, 0x123456), 144, "b8d1i"),
    # 262-266: LE u32 0x40000000 + 7i: min + <= 105; as u64 the high halves differ by 7 << 32 (all
    # b8 fail) -> 1 + 4 + 16 = 21 bytes
    (_le("16I", *(0x40000000 + 7 * i for i in range(16))), 168, "b4d1"),
    # 289-295: immediates 0x1234, 0x2345, 0x3456, 0x10 (<= 0xffff); base 0x500000, others within
    # 0xffff; b8d1/b8d1i/b4* fail (0x500000 - 0x1234 > 0xff) -> 27 bytes although its fields
    # take 1 + 1 + 8 + 16 = 26
    (_le("8Q", 0x1234, 0x500000, 0x2345, 0x50ABCD, 0x3456, 0x501000, 0x10, 0x50FFFF), 216, "b8d2i"),
    # 308-311: BE halfwords 0x1000..0x101f would fit tB2D1 (35 bytes), but that branch tests
    # tB8D2, already false; LE halfwords span 0x1f00 and every wider candidate spans more -> raw
    (struct.pack(">32H", *range(0x1000, 0x1020)), 512, "raw"),
    # 150-151: BE words 5, 0x10000, 0x10646 + 0x123 (i - 2): the BE b4d2i base is taken only from
    # words whose LE value exceeds 0xffff; word 1 (bytes 00 01 00 00, LE 0x100) is skipped, so the
    # base is 0x10646 and 0x10000 - 0x10646 wraps above 0xffff: no fit. Word 0 (5) puts the no-
    # immediate b4d2 span over 0xffff; every other candidate spans more -> raw, where the BE base
    # 0x10000 would give 39 bytes.
    (struct.pack(">16I", 5, 0x10000, *(0x10646 + 0x123 * (i - 2) for i in range(2, 16))), 512, "raw"),
    # 363-366: no pattern -> 64 bytes, no header
    (bytes(range(0, 256, 4)), 512, "raw"),
]


@pytest.mark.parametrize("line,bits,mode", BDI_LINES)
def test_bdi_golden_lines(line, bits, mode):
    assert one("bdi.nap64", line) == (bits, mode)
    assert one("bdi.nap64", line, "none") == (bits, mode)  # no line exceeds 64 bytes
    assert oracle.bdi(line) == bits


def test_bdi_stream_is_the_measured_size_and_round_trips():
    c = memcomp.get_codec("bdi.nap64")
    blocks = np.frombuffer(b"".join(x[0] for x in BDI_LINES), np.uint8).reshape(-1, 64).copy()
    enc = c.encode(blocks)
    assert enc.bit_lengths.tolist() == [x[1] for x in BDI_LINES]
    assert enc.tags.tolist() == [int(x[2] == "raw") for x in BDI_LINES]  # the raw flag
    assert np.array_equal(c.decode(enc), blocks)


# ---- hand-worked lines: C-Pack (cpack.h) -------------------------------------------------------
CPACK_LINES = [
    # words in memory order a b c d: 11223344 xxxx (2 + 32, pushed), 11223344 mmmm (2 + 4),
    # 11225566 mmxx (4 + 4 + 16), 11223399 mmmx (4 + 4 + 8), 12 zero words zzzz (12 x 2) = 104
    (bytes.fromhex("11223344112233441122556611223399") + bytes(48), 104, 104),
    # 000000 07 is zzzx (4 + 8), tested before the dictionary (82-90); 15 zzzz: 12 + 30 = 42
    (bytes([0, 0, 0, 7]) + bytes(60), 42, 42),
    # 16 words with distinct first two bytes: 16 xxxx = 16 x 34 = 544, capped at 512 (cpack.c:31)
    (b"".join(bytes([i + 1, 0x80, 0x55, 0x66]) for i in range(16)), 512, 544),
]


@pytest.mark.parametrize("line,capped,uncapped", CPACK_LINES)
def test_cpack_golden_lines(line, capped, uncapped):
    assert one("cpack.nap64", line)[0] == capped
    assert one("cpack.nap64", line, "none")[0] == uncapped
    assert (oracle.cpack(line), oracle.cpack(line, capped=False)) == (capped, uncapped)


# ---- hand-worked lines: BPC (bpc.h) ------------------------------------------------------------
BPC_LINES = [
    # words 0x80000000, then 0x7fffffff x 31. Base: not within 16 signed bits -> 1 + 32 = 33.
    # 0x7fffffff < 0x80000000 unsigned, so the 33rd bit of delta 1 is set (25-27) and its low 32
    # bits are all ones: DBP[32] = DBP[31..0] = 1 (bit 0). DBX[32] = 1: a single one, 5 + 5 = 10;
    # DBX[31..0] = 0: a run of 32, 2 + 5 = 7. Total 50 (a signed compare clears the 33rd bit:
    # 33 + 3 + 10 + 7 = 53).
    (_le("32I", 0x80000000, *[0x7FFFFFFF] * 31), 50),
    # words 0, then 2 x 31: base 0 -> 3. Only DBP[1] = 1. DBX[32..2] = 0: a run of 31, 7 bits;
    # DBX[1] = 1, single one 10; DBX[0] = DBP[1] ^ DBP[0] = 1 with DBP[0] = 0: NAP64 tests the
    # single one first (126-148), 10 bits (Kim's order: DBP zero, 5). Total 3 + 7 + 10 + 10 = 30.
    (_le("32I", 0, *[2] * 31), 30),
    # all zero: base 0 -> 3, a run of 33 planes -> 2 + 5: 10
    (bytes(128), 10),
]


@pytest.mark.parametrize("line,bits", BPC_LINES)
def test_bpc_golden_lines(line, bits):
    assert one("bpc.nap64", line)[0] == bits
    assert one("bpc.nap64", line, "none")[0] == bits
    assert oracle.bpc(line) == bits


# ---- a plain reading of the tools, on lines built to reach every rule ------------------------------
@st.composite
def lines(draw, b):
    """Lines of k-byte elements near a base (some immediates), in either byte order, or repeats,
    zeros and noise."""
    kind = draw(st.sampled_from(["delta", "delta", "delta", "repeat", "zeros", "noise"]))
    if kind == "zeros":
        return bytes(b)
    if kind == "noise":
        return draw(st.binary(min_size=b, max_size=b))
    if kind == "repeat":
        k = draw(st.sampled_from([1, 2, 4, 8]))
        return draw(st.binary(min_size=k, max_size=k)) * (b // k)
    k = draw(st.sampled_from([2, 4, 8]))
    spread = draw(st.sampled_from([1 << 4, 1 << 8, 1 << 9, 1 << 16, 1 << 17, 1 << 32]))
    base = draw(st.integers(0, (1 << (8 * k)) - 1))
    imm = draw(st.sampled_from([0, 1 << 8, 1 << 16]))
    vals = []
    for _ in range(b // k):
        if imm and draw(st.booleans()):
            vals.append(draw(st.integers(0, imm - 1)))
        else:
            vals.append((base + draw(st.integers(0, spread))) % (1 << (8 * k)))
    order = draw(st.sampled_from(["little", "big"]))
    return b"".join(v.to_bytes(k, order) for v in vals)


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(64), min_size=1, max_size=8))
def test_bdi_and_cpack_equal_the_plain_reading(ls):
    for name, f in (("bdi.nap64", oracle.bdi), ("cpack.nap64", oracle.cpack)):
        capped, _ = sizes(name, ls)
        uncapped, _ = sizes(name, ls, "none")
        assert capped.tolist() == [f(x) for x in ls], name
        assert uncapped.tolist() == [f(x, capped=False) for x in ls], name
    c = memcomp.get_codec("bdi.nap64")
    blocks = np.frombuffer(b"".join(ls), np.uint8).reshape(-1, 64).copy()
    assert np.array_equal(c.decode(c.encode(blocks)), blocks)


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(128), min_size=1, max_size=8))
def test_bpc_equals_the_plain_reading(ls):
    capped, _ = sizes("bpc.nap64", ls)
    uncapped, _ = sizes("bpc.nap64", ls, "none")
    assert capped.tolist() == [oracle.bpc(x) for x in ls]
    assert uncapped.tolist() == [oracle.bpc(x, capped=False) for x in ls]


def test_bdi_other_block_sizes():
    """Ours beyond 64 B lines: n = B/k, the mask rounded up to bytes, a candidate not smaller than
    the block skipped. 16 B of LE words 1000, 1001: b8d1 = 1 + 8 + 2 = 11 bytes. 16 B LE words
    5, 0x123456: b8d1i = 1 + 1 (2 mask bits and 6 zero bits) + 8 + 2 = 12 bytes. 16 B LE u32
    0x40000000 + i: as u64 they differ by 0x200000002 (every b8 fails), b4d1 = 1 + 4 + 4 = 9 bytes.
    128 B of bytes 100..227: raw, 1024 bits."""
    assert one("bdi.nap64", _le("2Q", 1000, 1001)) == (88, "b8d1")
    assert one("bdi.nap64", _le("2Q", 5, 0x123456)) == (96, "b8d1i")
    assert one("bdi.nap64", _le("4I", *range(0x40000000, 0x40000004))) == (72, "b4d1")
    assert one("bdi.nap64", bytes(range(100, 228))) == (1024, "raw")


def test_bpc_nap64_decodes_unsigned_deltas():
    """bpc.nap64 is exact: the decoder reads the word before as unsigned, so a delta across the
    signed wrap (0xFFFFFFFF then 0: -4294967295 unsigned, +1 signed) comes back, and a stream whose
    delta leaves 0..2^32 - 1 is refused."""
    words = np.array([0xFFFFFFFF, 0, 0x80000000, 0x7FFFFFFF] * 8, dtype="<u4")
    blocks = words.view(np.uint8).reshape(1, 128)
    c = memcomp.get_codec("bpc.nap64")
    enc = c.encode(blocks)
    assert int(enc.bit_lengths[0]) == int(c.measure(blocks).size_bits[0])
    np.testing.assert_array_equal(c.decode(enc), blocks)
    rng = np.random.default_rng(5)
    many = rng.integers(0, 2**32, size=(500, 32), dtype=np.uint64).astype("<u4").view(np.uint8).reshape(500, 128)
    np.testing.assert_array_equal(c.decode(c.encode(many)), many)
    # a stream bpc.isca16 writes for 0 then 0xFFFFFFFF (delta -1 between signed words) takes word 1
    # below 0 when the word before is read unsigned: refused, never wrapped
    b = np.array([0] + [0xFFFFFFFF] * 31, dtype="<u4").view(np.uint8).reshape(1, 128)
    signed = dataclasses.replace(memcomp.get_codec("bpc.isca16").encode(b), config=c.get_config())
    with pytest.raises(memcomp.CorruptStreamError, match="delta -1 of word 1 leaves the unsigned 32-bit range"):
        c.decode(signed)
