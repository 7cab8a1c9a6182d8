"""memcomp.numcodecs: MemcompCodec (numcodecs) and MemcompZarrCodec (zarr v3), and the
Encoded.to_bytes/from_bytes format under them.

Round trips are bit-exact for every lossless preset at every block size it supports among 32, 64
and 128 B (buffers of any length: the last block is zero-padded and the padding dropped on
decode); data-driven codecs travel with their model in the config; corrupt or truncated buffers
raise ValueError and never crash; zarr v3 arrays reopen in a fresh interpreter through the
``zarr.codecs`` entry point alone.
"""

import dataclasses
import importlib.metadata
import json
import os
import pickle
import struct
import subprocess
import sys
import textwrap
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numcodecs
import numcodecs.registry
import numpy as np
import pytest
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from zarr.storage import LocalStore, MemoryStore

import memcomp
from memcomp import Codec, CorruptStreamError, Encoded, get_codec
from memcomp.numcodecs import MemcompCodec, MemcompZarrCodec

#: the documented 30-byte header: magic, version, flags, bytes, blocks, block bytes, CRC-32
HEADER = struct.Struct("<4sBBQQII")
FIELDS = struct.Struct("<4sBBQQI")  # what the CRC-32 covers, before the body
RAW = 1  # flags bit 0: the body is the chunk's bytes as they are
HEADER_V2 = struct.Struct("<4sBQQII")  # version 2 (still read): no flags
HEADER_V1 = struct.Struct("<4sBQQI")  # version 1 (still read): no flags, no CRC
SIZES = (32, 64, 128)
ALL = [get_codec(n) for n in memcomp.codec_names()]
#: lossless, decodable and model-free (or carrying a preset model, like mpc.cal22_rtl)
EXACT = [c.preset for c in ALL if c.exact and not c.lossy and not c.requires_fit]
#: lossless and decodable once fitted
DATA_DRIVEN = [c.preset for c in ALL if c.exact and not c.lossy and c.requires_fit]
LOSSY = [c.preset for c in ALL if c.lossy]
ACCOUNTING = [c.preset for c in ALL if not c.exact and not c.lossy]
PAIRS = [(n, b) for n in EXACT for b in SIZES if get_codec(n).supports(b)]
FIT_PAIRS = [(n, b) for n in DATA_DRIVEN + ["mpc.cal22_rtl"] for b in SIZES if get_codec(n).supports(b)]
SAMPLE = memcomp.workloads.sample_dump(1 << 16, seed=3)
#: a part of SAMPLE that every lossless preset compresses (its first 16 KiB are noise, stored raw)
REGULAR = SAMPLE[45056:53248]


def test_the_preset_lists_cover_what_they_should():
    assert {"bdi.paper", "fpc.paper", "cpack.paper", "cpack.skku", "bpc.isca16", "lzss.block", "mpc.cal22_rtl"} <= set(
        EXACT
    )
    assert {"e2mc.paper", "sc2.paper", "fvc.paper"} <= set(DATA_DRIVEN)
    assert {"slc.opt", "slc.pred", "slc.simp"} <= set(LOSSY)
    assert {"bdi.cmu", "fpc.skku", "cpack.gem5", "bpc.skku", "fvc.gem5", "sc2.kim"} <= set(ACCOUNTING)
    assert "cpack.skku" in [n for n in EXACT if get_codec(n).stateful]
    assert ("mpc.cal22_rtl", 32) in PAIRS and ("mpc.cal22_rtl", 128) not in PAIRS
    assert len(PAIRS) == 3 * len(EXACT) - 2
    assert set(EXACT) | set(DATA_DRIVEN) | set(LOSSY) | set(ACCOUNTING) == set(memcomp.codec_names())


@lru_cache(maxsize=None)
def numcodec(name: str, block_bytes: int) -> MemcompCodec:
    return MemcompCodec(name, block_bytes=block_bytes)


@lru_cache(maxsize=None)
def fitted(name: str, block_bytes: int) -> Codec:
    return get_codec(name).fit(memcomp.as_blocks(SAMPLE, block_bytes))


@lru_cache(maxsize=None)
def fitted_numcodec(name: str, block_bytes: int) -> MemcompCodec:
    return MemcompCodec(fitted(name, block_bytes), block_bytes=block_bytes)


def fresh(mc: MemcompCodec) -> Codec:
    """A memcomp Codec equal to mc's, in its initial state."""
    return Codec.from_config(mc.codec.get_config())


def check_round_trip(mc: MemcompCodec, x: np.ndarray) -> bytes:
    """encode -> decode is bit-exact, the header is as documented, the body is memcomp's encoding
    of the zero-padded blocks (the padding rule) or, when that is not smaller, the raw bytes
    (flagged), so the output is never longer than the input plus the header."""
    B = mc.block_bytes
    raw = x.tobytes(order="A")  # memory order, as numcodecs reads it
    enc = mc.encode(x)
    assert isinstance(enc, bytes)
    assert len(enc) <= len(raw) + 30  # never grows beyond the fixed header
    n_blocks = -(-len(raw) // B)
    padded = np.zeros(n_blocks * B, np.uint8)
    padded[: len(raw)] = np.frombuffer(raw, np.uint8)
    stream = fresh(mc).encode(padded.reshape(n_blocks, B)).to_bytes(config=False)
    flags = RAW if len(stream) >= len(raw) else 0
    assert HEADER.unpack_from(enc)[:6] == (b"MCNC", 3, flags, len(raw), n_blocks, B)
    assert HEADER.unpack_from(enc)[6] == zlib.crc32(enc[HEADER.size :], zlib.crc32(enc[: FIELDS.size]))
    assert enc[HEADER.size :] == (raw if flags else stream)

    dec = mc.decode(enc)
    assert isinstance(dec, np.ndarray) and dec.dtype == np.uint8 and dec.shape == (len(raw),)
    assert dec.tobytes() == raw
    out = np.empty_like(x)  # same shape, dtype and memory order
    assert mc.decode(enc, out=out) is out
    assert out.tobytes(order="A") == raw
    assert mc.decode(bytearray(enc)).tobytes() == raw
    assert mc.decode(np.frombuffer(enc, np.uint8)).tobytes() == raw
    return enc


DTYPES = ["u1", "i1", "<u2", ">i2", "<i4", ">u4", "<f2", "<f4", ">f4", "<f8", "<i8", "<c8", "?", "M8[ns]"]


@st.composite
def arrays(draw, max_side: int = 8):
    """Arrays of assorted dtypes, 0-3 dimensions, C or Fortran order, with contents from random
    bytes to the regular data the codecs compress (zeros, small values, ramps)."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=max_side))
    count = int(np.prod(shape))
    kind = draw(st.sampled_from(["bytes", "zeros", "small", "ramp"]))
    if kind == "bytes":
        flat = np.frombuffer(
            draw(st.binary(min_size=count * dtype.itemsize, max_size=count * dtype.itemsize)), np.uint8
        ).view(dtype)
    elif kind == "zeros":
        flat = np.zeros(count, dtype)
    elif kind == "small":
        flat = np.array(draw(st.lists(st.integers(0, 3), min_size=count, max_size=count)), np.uint8).astype(dtype)
    else:
        start = draw(st.integers(0, 1000))
        flat = np.arange(start, start + count).astype(np.int64).astype(dtype)
    x = flat.reshape(shape)
    if x.ndim >= 2 and draw(st.booleans()):
        x = np.asfortranarray(x)
    return x


@settings(max_examples=100, deadline=None)
@given(pair=st.sampled_from(PAIRS), x=arrays())
def test_hypothesis_round_trip_of_arrays(pair, x):
    check_round_trip(numcodec(*pair), x)


@settings(max_examples=100, deadline=None)
@given(pair=st.sampled_from(PAIRS), data=st.binary(max_size=700))
def test_hypothesis_round_trip_of_any_length(pair, data):
    """Lengths that are not multiples of the block size, the empty buffer included."""
    check_round_trip(numcodec(*pair), np.frombuffer(data, np.uint8))


@settings(max_examples=40, deadline=None)
@given(pair=st.sampled_from(FIT_PAIRS), x=arrays(max_side=6))
def test_hypothesis_round_trip_of_fitted_data_driven_codecs(pair, x):
    check_round_trip(fitted_numcodec(*pair), x)


@pytest.mark.parametrize("name", EXACT)
def test_every_exact_preset_round_trips_at_every_block_size(name):
    """Deterministic companion of the hypothesis tests: every preset and block size, real data, the
    lengths around the block boundaries."""
    sizes = [b for b in SIZES if get_codec(name).supports(b)]
    assert sizes
    for B in sizes:
        mc = numcodec(name, B)
        for n in (0, 1, B - 1, B, B + 1, 3 * B + 5, 4096, 4099):
            check_round_trip(mc, SAMPLE[:n])
            check_round_trip(mc, REGULAR[:n])
        check_round_trip(mc, SAMPLE[:4000].view(np.float32).reshape(20, 50))
        check_round_trip(mc, REGULAR[:4000].view(np.float32).reshape(20, 50))
        check_round_trip(mc, np.asfortranarray(REGULAR[:1998].view(np.int16).reshape(27, 37)))


def test_empty_buffers():
    for name, B in PAIRS:
        mc = numcodec(name, B)
        enc = mc.encode(b"")
        assert enc == FIELDS.pack(b"MCNC", 3, RAW, 0, 0, B) + struct.pack("<I", zlib.crc32(enc[: FIELDS.size]))
        assert mc.decode(enc).shape == (0,)
        assert mc.decode(enc, out=np.empty((0, 3), np.float32)).shape == (0, 3)


@pytest.mark.parametrize("name,B", PAIRS)
def test_a_chunk_the_codec_would_expand_is_stored_raw(name, B):
    """Random bytes expand under every codec: the chunk is stored as it is, flagged, after a
    header written out here field by field, so it is the input plus 30 bytes."""
    x = np.random.default_rng(B).integers(0, 256, 1024, dtype=np.uint8)
    stream = fresh(numcodec(name, B)).encode(memcomp.as_blocks(x, B)).to_bytes(config=False)
    assert len(stream) >= x.nbytes  # the codec would expand it
    fields = FIELDS.pack(b"MCNC", 3, RAW, 1024, 1024 // B, B)
    want = fields + struct.pack("<I", zlib.crc32(x.tobytes(), zlib.crc32(fields))) + x.tobytes()
    enc = numcodec(name, B).encode(x)
    assert enc == want and len(enc) == 1054
    dec = numcodec(name, B).decode(enc)
    assert dec.tobytes() == x.tobytes() and dec.flags.writeable
    out = np.empty(256, np.float32)
    assert numcodec(name, B).decode(enc, out=out) is out and out.tobytes() == x.tobytes()


def test_bdi_on_a_float_ramp_is_stored_raw_and_fpc_is_not():
    """50 FP32 values -3, -2.75, ..., 9.25 (200 B, 64 B blocks): BDI's stream is 231 B (version 2
    stored it so, 260 B in all: GOLDEN_V2 below), longer than the data, so the chunk goes raw
    (30 + 200 B); FPC's 164 B stream (193 B under version 2's 29-byte header) is kept."""
    x = (np.arange(50, dtype=np.float32) * 0.25 - 3).view(np.uint8)
    bdi = numcodec("bdi.paper", 64).encode(x)
    assert HEADER.unpack_from(bdi)[2] == RAW and len(bdi) == 230
    fpc = numcodec("fpc.paper", 64).encode(x)
    assert HEADER.unpack_from(fpc)[2] == 0 and len(fpc) == 30 + 164
    for mc, enc in ((numcodec("bdi.paper", 64), bdi), (numcodec("fpc.paper", 64), fpc)):
        assert mc.decode(enc).tobytes() == x.tobytes()


#: Buffers written by memcomp before format version 3 (version 2: 29-byte header with a CRC-32;
#: version 1: 25 bytes, no CRC), of RAMP_F32, kept byte for byte: they must keep decoding.
RAMP_F32 = (np.arange(50, dtype=np.float32) * 0.25 - 3).view(np.uint8)  # -3, -2.75, ..., 9.25: 200 B
GOLDEN_V2 = {
    ("bdi.paper", 64): (
        "4d434e4302c8000000000000000400000000000000400000007150405b4d43454e01000201400000000400000000000000b7000000"
        "00000000000000000000000000020002300188000f0f0702000040c0000030c0000020c0000010c0000000c00000e0bf0000c0bf00"
        "00a0bf000080bf000040bf000000bf000080be000000000000803e0000003f0000403f0000803f0000a03f0000c03f0000e03f0000"
        "004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098405555555540a000"
        "0000080010001800200028003000380040004800500058006000640068006c8041140000411000000000000000000000"
    ),
    ("fpc.paper", 64): (
        "4d434e4302c80000000000000004000000000000004000000098073abf4d43454e010002004000000004000000000000007800000000"
        "0000000000000000000000230130013001320098081300c260104c010980012ff825fe04bfa097f012fd025f804be80021f4043f00"
        "87e80087f010fe821fe043fe088001100422010440308808110142203044070881011022220484409888141102a22058440b888181"
        "103222068440d8881c1103a22078440f8882011041220844410c88221104507140"
    ),
    ("cpack.skku", 32): (  # stateful: the stream carries its entry state
        "4d434e4302c800000000000000070000000000000020000000283c6be24d43454e010201002000000007000000000000009000000000"
        "00000000000000420000"
        "00b492b4c0c0b43c000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000c040c0c030c0c020c0c010c0dc0c0e0bfc0c0bfc0a0bf0c080bfc040bfdbfc08"
        "0be30200fb4ff0100fc0c0803fc0a03fc0c03fc0e03fd40c01040c02040c030400c04040c05040c06040c07040c08040c08840c090"
        "40c09840c0a040c0a840c0b040c0b840c0c040c0c840c0d040c0d840c0e040c0e840c0f040c0f840d41c00441c00841c00c410c010"
        "41c014410000"
    ),
}


@pytest.mark.parametrize("name,B", list(GOLDEN_V2))
def test_buffers_of_format_versions_1_and_2_still_decode(name, B):
    v2 = bytes.fromhex(GOLDEN_V2[name, B])
    assert HEADER_V2.unpack_from(v2)[:5] == (b"MCNC", 2, 200, -(-200 // B), B)
    mc = numcodec(name, B)
    assert mc.decode(v2).tobytes() == RAMP_F32.tobytes()
    out = np.empty(50, np.float32)
    assert mc.decode(v2, out=out) is out and out.tobytes() == RAMP_F32.tobytes()
    v1 = b"MCNC\x01" + v2[5:25] + v2[29:]  # the same fields and stream, without the CRC-32
    assert mc.decode(v1).tobytes() == RAMP_F32.tobytes()
    with pytest.raises(CorruptStreamError, match="CRC-32 mismatch"):  # version 2's CRC-32 is checked
        mc.decode(v2[:-1] + bytes([v2[-1] ^ 1]))
    # the zero-byte buffer as version 2 wrote it
    empty_v2 = bytes.fromhex(
        "4d434e43020000000000000000000000000000000040000000dde19ef6"
        "4d43454e0100000040000000000000000000000000000000000000000000000000000000"
    )
    assert numcodec("bdi.paper", 64).decode(empty_v2).shape == (0,)


def test_decode_into_preallocated_out():
    mc = numcodec("bdi.paper", 64)
    x = SAMPLE[:6000].view(np.float32).reshape(30, 50)
    enc = mc.encode(x)
    out = np.full((30, 50), np.nan, np.float32)
    assert mc.decode(enc, out=out) is out
    assert out.tobytes() == x.tobytes()
    ba = bytearray(x.nbytes)  # any writable buffer of the right size
    mc.decode(enc, out=ba)
    assert bytes(ba) == x.tobytes()
    for bad in (np.empty(1499, np.float32), np.empty(1501, np.float32), np.empty(10, np.uint8)):
        with pytest.raises(ValueError, match="out has"):
            mc.decode(enc, out=bad)


# --- data-driven codecs ------------------------------------------------------------------------


@pytest.mark.parametrize("name,B", FIT_PAIRS)
def test_fitted_codec_travels_with_its_model_in_the_config(name, B):
    mc = fitted_numcodec(name, B)
    cfg = mc.get_config()
    assert cfg["id"] == "memcomp" and cfg["codec"] == name and cfg["block_bytes"] == B
    model = fitted(name, B).model
    if model is not None:
        assert cfg["model"] == model.data
    else:  # a hybrid: its fitted members carry their models in the options
        assert "model" not in cfg and any(isinstance(m, dict) and m.get("model") for m in cfg["options"]["members"])
    text = json.dumps(cfg)
    again = numcodecs.get_codec(json.loads(text))
    assert isinstance(again, MemcompCodec) and again == mc and again.get_config() == cfg
    x = SAMPLE[5000:9000]
    enc = mc.encode(x)
    assert again.decode(enc).tobytes() == x.tobytes()
    assert again.encode(x) == enc
    if model is None:
        return
    # the model given by hand, as a dict or as JSON text
    by_dict = MemcompCodec(name, block_bytes=B, options=cfg["options"], model=cfg["model"])
    by_text = MemcompCodec(name, block_bytes=B, options=cfg["options"], model=model.to_json())
    assert by_dict == mc and by_text == mc
    assert by_dict.decode(enc).tobytes() == x.tobytes()


@pytest.mark.parametrize("name", DATA_DRIVEN)
def test_unfitted_data_driven_codec_is_refused(name):
    with pytest.raises(ValueError, match=r"data-driven and has no model; pass model="):
        MemcompCodec(name, block_bytes=64)
    with pytest.raises(ValueError, match="data-driven"):
        MemcompCodec(get_codec(name), block_bytes=64)
    with pytest.raises(ValueError, match="data-driven"):
        numcodecs.get_codec({"id": "memcomp", "codec": name, "block_bytes": 64})


@pytest.mark.parametrize("name", LOSSY)
def test_lossy_codecs_are_refused(name):
    with pytest.raises(ValueError, match="lossy"):
        MemcompCodec(name, block_bytes=64)
    with pytest.raises(ValueError, match="lossy"):  # fitted or not
        MemcompCodec(get_codec(name).fit(memcomp.as_blocks(SAMPLE[:16384], 64)), block_bytes=64)


@pytest.mark.parametrize("name", ACCOUNTING)
def test_accounting_only_presets_are_refused(name):
    codec = get_codec(name)
    if codec.requires_fit:
        codec = codec.fit(memcomp.as_blocks(SAMPLE[:16384], 64))
    with pytest.raises(ValueError, match="accounting-only"):
        MemcompCodec(codec, block_bytes=64)
    with pytest.raises(ValueError, match="accounting-only"):
        MemcompCodec(name, block_bytes=64)


def test_unsupported_block_sizes_and_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="block_bytes=64"):
        MemcompCodec("mpc.cal22_rtl", block_bytes=64)
    with pytest.raises(ValueError, match="block_bytes=128"):
        numcodecs.get_codec({"id": "memcomp", "codec": "mpc.cal22_rtl", "block_bytes": 128})
    for bad in (0, 3, 48, -8):
        with pytest.raises(ValueError, match="block"):
            MemcompCodec("bdi", block_bytes=bad)
    for bad in (64.0, True, "64", None):
        with pytest.raises(TypeError):
            MemcompCodec("bdi", block_bytes=bad)
    with pytest.raises(ValueError, match="unknown codec"):
        MemcompCodec("nope")
    with pytest.raises(ValueError, match="unknown option"):
        MemcompCodec("bdi", options={"nope": 1})
    with pytest.raises(TypeError):
        MemcompCodec(get_codec("bdi"), options={"endian": "big"})
    with pytest.raises(TypeError, match="model given twice"):
        MemcompCodec("e2mc", options={"model": {}}, model={})
    with pytest.raises(ValueError, match="not a memcomp codec config"):
        MemcompCodec.from_config({"id": "zstd", "codec": "bdi"})


# --- configs, registry, entry points ------------------------------------------------------------


def test_config_round_trips_through_json_for_every_accepted_preset():
    codecs = [numcodec(*p) for p in PAIRS] + [fitted_numcodec(*p) for p in FIT_PAIRS]
    codecs += [
        MemcompCodec("fpc", block_bytes=32, options={"endian": "big"}),
        MemcompCodec("bdi.paper", block_bytes=128, options={"endian": "big"}),
    ]
    for mc in codecs:
        cfg = json.loads(json.dumps(mc.get_config()))
        assert cfg == mc.get_config()
        for again in (MemcompCodec.from_config(cfg), numcodecs.get_codec(cfg), numcodecs.registry.get_codec(dict(cfg))):
            assert type(again) is MemcompCodec
            assert again == mc and again.get_config() == cfg and again.block_bytes == mc.block_bytes
            assert again.codec == mc.codec
    assert MemcompCodec("fpc", block_bytes=32, options={"endian": "big"}) != MemcompCodec("fpc", block_bytes=32)
    assert MemcompCodec("bdi", block_bytes=32) != MemcompCodec("bdi", block_bytes=64)


def test_registry_with_a_short_config():
    mc = numcodecs.registry.get_codec({"id": "memcomp", "codec": "bdi", "block_bytes": 64})
    assert isinstance(mc, MemcompCodec) and mc.block_bytes == 64 and mc.codec.preset == "bdi.paper"
    assert mc == MemcompCodec("bdi.paper", block_bytes=64)
    default = numcodecs.registry.get_codec({"id": "memcomp"})
    assert default == MemcompCodec() and default.block_bytes == 128
    assert numcodecs.registry.codec_registry["memcomp"] is MemcompCodec


def test_entry_points_are_declared():
    (nc,) = [ep for ep in importlib.metadata.entry_points(group="numcodecs.codecs") if ep.name == "memcomp"]
    assert nc.value == "memcomp.numcodecs:MemcompCodec" and nc.load() is MemcompCodec
    (zc,) = [ep for ep in importlib.metadata.entry_points(group="zarr.codecs") if ep.name == "numcodecs.memcomp"]
    assert zc.value == "memcomp.numcodecs:MemcompZarrCodec" and zc.load() is MemcompZarrCodec
    assert MemcompZarrCodec.codec_name == "numcodecs.memcomp"


def run_fresh(code: str, cwd) -> str:
    """Runs ``code`` in a fresh interpreter; returns its stdout."""
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, cwd=str(cwd)
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_numcodecs_finds_the_codec_through_its_entry_point_alone(tmp_path):
    x = SAMPLE[:3001]
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "enc.bin").write_bytes(numcodec("fpc.paper", 64).encode(x))
    out = run_fresh(
        """
        import sys, numpy as np, numcodecs
        assert not any(m.startswith("memcomp") for m in sys.modules)
        c = numcodecs.get_codec({"id": "memcomp", "codec": "fpc.paper", "block_bytes": 64})
        assert type(c).__module__ == "memcomp.numcodecs"
        assert c.decode(open("enc.bin", "rb").read()).tobytes() == np.load("x.npy").tobytes()
        print("ok")
    """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_pickle():
    for mc in (numcodec("bdi.paper", 64), numcodec("cpack.skku", 32), fitted_numcodec("e2mc.paper", 128)):
        again = pickle.loads(pickle.dumps(mc))
        assert again == mc and again.encode(SAMPLE[:1000]) == mc.encode(SAMPLE[:1000])
    zc = MemcompZarrCodec(fitted_numcodec("sc2.paper", 64))
    again = pickle.loads(pickle.dumps(zc))
    assert again == zc and again.to_dict() == zc.to_dict()


# --- stateful codecs ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in EXACT if get_codec(n).stateful])
def test_stateful_codec_encodes_every_chunk_on_its_own(name):
    mc = MemcompCodec(name, block_bytes=32)
    a, b = SAMPLE[40000:45000], SAMPLE[20000:23001]
    ea = mc.encode(a)
    eb = mc.encode(b)
    assert HEADER.unpack_from(ea)[2] == HEADER.unpack_from(eb)[2] == 0  # compressed, not stored raw
    assert mc.encode(a) == ea  # the same buffer twice: the same bytes (b in between changed nothing)
    assert mc.encode(b) == eb
    assert MemcompCodec(name, block_bytes=32).encode(b) == eb  # as a fresh codec would
    # every chunk decodes on its own, in any order, with any instance
    assert MemcompCodec(name, block_bytes=32).decode(eb).tobytes() == b.tobytes()
    assert mc.decode(eb).tobytes() == b.tobytes() and mc.decode(ea).tobytes() == a.tobytes()
    # the stream records the state encode started from: the initial one, for every chunk
    assert (
        Encoded.from_bytes(ea[HEADER.size :], mc.codec).entry_state.tobytes()
        == Encoded.from_bytes(eb[HEADER.size :], mc.codec).entry_state.tobytes()
    )
    # concurrent encodes and decodes (zarr runs codecs in threads) give the same bytes
    chunks = [SAMPLE[i * 3000 : (i + 1) * 3000 + i] for i in range(12)]
    expect = [mc.encode(c) for c in chunks]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(mc.encode, chunks)) == expect
            assert [d.tobytes() for d in pool.map(mc.decode, expect)] == [c.tobytes() for c in chunks]


# --- corrupt and truncated input ---------------------------------------------------------------


def as_v1(enc: bytes) -> bytes:
    """A version 3 buffer of a compressed chunk under a version 1 header (no flags, no CRC)."""
    magic, _, flags, nbytes, n_blocks, B, _ = HEADER.unpack_from(enc)
    assert flags == 0
    return HEADER_V1.pack(magic, 1, nbytes, n_blocks, B) + enc[HEADER.size :]


def test_corrupt_stream_error_is_a_value_error():
    assert issubclass(CorruptStreamError, ValueError)
    assert CorruptStreamError is memcomp.CorruptStreamError


@pytest.mark.parametrize("name", EXACT)
def test_truncated_at_every_length_raises_value_error(name):
    B = 32 if name.startswith("mpc") else 64
    mc = numcodec(name, B)
    x = np.concatenate([REGULAR[:300], np.zeros(64, np.uint8), REGULAR[4000:4100]])
    enc = mc.encode(x)
    assert HEADER.unpack_from(enc)[2] == 0  # compressed (a raw chunk's truncation is caught too, below)
    for n in range(len(enc)):
        with pytest.raises(ValueError):
            mc.decode(enc[:n])
    with pytest.raises(ValueError):  # and padded
        mc.decode(enc + b"\0")
    assert mc.decode(enc).tobytes() == x.tobytes()
    raw = mc.encode(SAMPLE[:500])
    assert HEADER.unpack_from(raw)[2] == RAW
    for n in range(len(raw)):
        with pytest.raises(ValueError):
            mc.decode(raw[:n])


def test_wrong_magic_version_block_size_and_header():
    mc = numcodec("bdi.paper", 64)
    x = REGULAR[:1000]
    enc = mc.encode(x)
    _, _, flags, nbytes, n_blocks, B, _ = HEADER.unpack_from(enc)
    assert flags == 0  # compressed
    body = enc[HEADER.size :]

    def bad(head_fields, match):  # version 1 headers (no CRC), so each check is reached
        with pytest.raises(ValueError, match=match):
            mc.decode(HEADER_V1.pack(*head_fields) + body)

    assert mc.decode(HEADER_V1.pack(b"MCNC", 1, nbytes, n_blocks, B) + body).tobytes() == x.tobytes()
    bad((b"MCNX", 1, nbytes, n_blocks, B), "not a memcomp buffer")
    bad((b"MCNC", 4, nbytes, n_blocks, B), "unsupported format version 4")
    bad((b"MCNC", 0, nbytes, n_blocks, B), "unsupported format version 0")
    bad((b"MCNC", 1, nbytes, n_blocks, 128), "buffer of 128 B blocks, this codec has 64 B")
    bad((b"MCNC", 1, nbytes, n_blocks + 1, B), "corrupt header")
    bad((b"MCNC", 1, nbytes + 64, n_blocks, B), "corrupt header")
    bad((b"MCNC", 1, nbytes + 64, n_blocks + 1, B), "corrupt buffer")  # consistent, but not the stream's
    with pytest.raises(ValueError, match="buffer of 64 B blocks, this codec has 128 B"):
        numcodec("bdi.paper", 128).decode(enc)
    with pytest.raises(ValueError, match="shorter than the 25 B header"):
        mc.decode(b"MCNC")
    with pytest.raises(ValueError, match="not memcomp encoded bytes"):  # the inner stream's magic
        mc.decode(HEADER_V1.pack(b"MCNC", 1, nbytes, n_blocks, B) + b"XXXX" + body[4:])
    with pytest.raises(CorruptStreamError, match="CRC-32 mismatch"):  # the same under a version 3 header
        mc.decode(enc[: HEADER.size] + b"XXXX" + body[4:])

    def bad3(flags, nbytes, body, match):  # version 3 headers with their right CRC-32
        fields = FIELDS.pack(b"MCNC", 3, flags, nbytes, -(-nbytes // B), B)
        with pytest.raises(CorruptStreamError, match=match):
            mc.decode(fields + struct.pack("<I", zlib.crc32(body, zlib.crc32(fields))) + body)

    bad3(2, nbytes, body, r"unknown flags 0x02")
    bad3(RAW | 4, nbytes, x.tobytes(), r"unknown flags 0x05")
    bad3(RAW, nbytes, x.tobytes()[:-1], "a raw chunk of 999 B, header says 1000 B")
    bad3(RAW, nbytes - 1, x.tobytes(), "a raw chunk of 1000 B, header says 999 B")
    bad3(0, nbytes, x.tobytes(), "corrupt buffer|not memcomp encoded bytes")  # raw bytes, not flagged
    # a stream of another codec under a valid header
    other = numcodec("fpc.paper", 64).encode(x)
    with pytest.raises(ValueError):
        mc.decode(other)


def test_flipped_block_count_of_zero_length_blocks_is_caught_before_allocating():
    """All-zero blocks are 0 bits long in bdi.gem5, so nothing but the header bounds the stream's
    block count: a flipped high bit of it used to allocate up to tens of GiB (MemoryError)."""
    mc = numcodec("bdi.gem5", 128)
    enc = mc.encode(np.zeros(512, np.uint8))
    enc = as_v1(enc)  # version 1: no CRC to catch it first
    inner_count = HEADER_V1.size + 12  # MCEN, version, flags, 2 widths, block bytes, then the block count
    assert struct.unpack_from("<Q", enc, inner_count)[0] == 4
    for byte in range(8):
        for bit in range(8):
            bb = bytearray(enc)
            bb[inner_count + byte] ^= 1 << bit
            with pytest.raises(ValueError, match="corrupt buffer"):
                mc.decode(bytes(bb))


@pytest.mark.parametrize("name", EXACT)
def test_random_byte_flips_never_crash(name):
    """A flipped byte of a version 3 buffer raises (the CRC-32). Of a version 1 buffer (no CRC) it
    gives ValueError or some output: of the original length, unless the flip hit the header's byte
    count (then a length the block count allows); lossless codecs without a checksum cannot always
    tell."""
    B = 32 if name.startswith("mpc") else 64
    mc = numcodec(name, B)
    x = np.concatenate([REGULAR[1000:1400], np.zeros(100, np.uint8), REGULAR[6000:6090]])
    enc = mc.encode(x)
    n_blocks = -(-x.nbytes // B)
    rng = np.random.default_rng(sum(map(ord, name)))
    for pos in list(range(HEADER.size + 40)) + list(rng.integers(0, len(enc), 60)):
        bb = bytearray(enc)
        bb[pos] ^= int(rng.integers(1, 256))
        with pytest.raises(ValueError):
            mc.decode(bytes(bb))
    enc = as_v1(enc)
    positions = list(range(HEADER_V1.size + 40)) + list(rng.integers(0, len(enc), 60))
    for pos in positions:
        bb = bytearray(enc)
        bb[pos] ^= int(rng.integers(1, 256))
        try:
            out = mc.decode(bytes(bb))
        except ValueError:
            continue
        assert isinstance(out, np.ndarray) and out.dtype == np.uint8
        if 5 <= pos < 13:  # the byte count
            assert (n_blocks - 1) * B < out.nbytes <= n_blocks * B
        else:
            assert out.nbytes == x.nbytes


def test_garbage_after_a_valid_header_never_crashes():
    rng = np.random.default_rng(7)
    for name, B in PAIRS[::3]:
        mc = numcodec(name, B)
        for _ in range(20):
            n = int(rng.integers(0, 400))
            body = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
            nbytes = int(rng.integers(0, 1000))
            with pytest.raises(ValueError):
                mc.decode(HEADER_V1.pack(b"MCNC", 1, nbytes, -(-nbytes // B), B) + body)


# --- Encoded.to_bytes / from_bytes -------------------------------------------------------------


def encoded(name="fpc.paper", B=64, n=4096) -> Encoded:
    return get_codec(name).encode(memcomp.as_blocks(SAMPLE[:n], B))


def same(a: Encoded, b: Encoded) -> bool:
    return (
        a.config == b.config
        and a.block_bytes == b.block_bytes
        and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("data", "bit_offsets", "bit_lengths", "tags"))
        and (a.entry_state is None) == (b.entry_state is None)
        and (a.entry_state is None or np.array_equal(a.entry_state, b.entry_state))
    )


@pytest.mark.parametrize("name", ["fpc.paper", "bdi.paper", "cpack.skku", "zca.paper", "lzss.block", "bestof.bdi_fpc"])
def test_encoded_bytes_round_trip_with_and_without_config(name):
    codec = get_codec(name)
    blocks = memcomp.as_blocks(SAMPLE[:8192], 64)
    e = codec.encode(blocks)
    with_cfg, without = e.to_bytes(), e.to_bytes(config=False)
    assert len(with_cfg) > len(without)
    for back in (
        Encoded.from_bytes(with_cfg),
        Encoded.from_bytes(with_cfg, codec),
        Encoded.from_bytes(with_cfg, codec.get_config()),
        Encoded.from_bytes(without, codec),
        Encoded.from_bytes(without, codec.get_config()),
        Encoded.from_bytes(bytearray(without), codec),
        Encoded.from_bytes(memoryview(with_cfg)),
    ):
        assert same(back, e)
        assert not back.data.flags.writeable
        assert np.array_equal(codec.decode(back), blocks)
    with pytest.raises(ValueError, match="carry no config"):
        Encoded.from_bytes(without)


def test_encoded_bytes_refuse_a_mismatched_codec():
    e = encoded("fpc.paper")
    with pytest.raises(ValueError, match="encoded by fpc.paper, not bdi.paper"):
        Encoded.from_bytes(e.to_bytes(), get_codec("bdi.paper"))
    with pytest.raises(ValueError, match="not fpc.paper\\(endian=big\\)"):
        Encoded.from_bytes(e.to_bytes(), get_codec("fpc.paper", endian="big"))
    with pytest.raises(ValueError, match="stateful"):  # without a config, a stateful codec needs the entry state
        Encoded.from_bytes(e.to_bytes(config=False), get_codec("cpack.skku"))


def test_encoded_bytes_with_offsets_not_back_to_back():
    e = encoded("fpc.paper")
    parts, offsets, at = [], [], 0
    for i in range(e.n_blocks):  # a 3-byte gap before every block, and a block starting mid-byte
        s = e.block_stream(i)
        parts.append(b"\xaa\xbb\xcc" + s)
        offsets.append(8 * (at + 3))
        at += 3 + len(s)
    g = dataclasses.replace(e, data=np.frombuffer(b"".join(parts), np.uint8), bit_offsets=np.array(offsets, np.uint64))
    codec = get_codec("fpc.paper")
    blocks = codec.decode(e)
    assert np.array_equal(codec.decode(g), blocks)
    for config in (True, False):
        raw = g.to_bytes(config=config)
        assert len(raw) == len(e.to_bytes(config=config)) + 3 * e.n_blocks + 8 * e.n_blocks  # gaps + offsets
        back = Encoded.from_bytes(raw, codec)
        assert same(back, g) and np.array_equal(codec.decode(back), blocks)
    # packed offsets are left out and recomputed
    assert same(Encoded.from_bytes(e.to_bytes()), e)
    # arrays that are views with strides (not contiguous) are written all the same
    wide = np.zeros(2 * e.data.nbytes, np.uint8)
    wide[::2] = e.data
    strided = dataclasses.replace(e, data=wide[::2])
    assert not strided.data.flags.c_contiguous
    assert strided.to_bytes() == e.to_bytes()


def test_encoded_bytes_edge_cases_and_corruption():
    codec = get_codec("fpc.paper")
    empty = codec.encode(np.zeros((0, 64), np.uint8))
    back = Encoded.from_bytes(empty.to_bytes())
    assert back.n_blocks == 0 and codec.decode(back).shape == (0, 64)
    stateful = get_codec("cpack.skku").encode(memcomp.as_blocks(SAMPLE[:2048], 32))
    assert stateful.entry_state is not None
    assert same(Encoded.from_bytes(stateful.to_bytes(config=False), get_codec("cpack.skku")), stateful)
    raw = encoded(n=1024).to_bytes()
    for n in range(len(raw)):
        with pytest.raises(ValueError):
            Encoded.from_bytes(raw[:n])
    with pytest.raises(ValueError, match="truncated or padded"):
        Encoded.from_bytes(raw + b"\0")
    with pytest.raises(ValueError, match="not memcomp encoded bytes"):
        Encoded.from_bytes(b"XXXX" + raw[4:])
    with pytest.raises(ValueError, match="version"):
        Encoded.from_bytes(raw[:4] + b"\x07" + raw[5:])


# --- zarr v3 -----------------------------------------------------------------------------------


def zarr_codec_entry(path) -> dict:
    meta = json.loads((path / "zarr.json").read_text())
    (entry,) = [c for c in meta["codecs"] if c["name"].endswith("memcomp")]
    return entry


ZARR_CASES = [  # dtype, shape, chunks (chunk bytes are no multiple of block_bytes), codec
    ("float32", (37, 23), (10, 7), MemcompCodec("bdi", block_bytes=64)),  # 280 B chunks
    ("int16", (50, 9), (13, 5), MemcompCodec("cpack.skku", block_bytes=32)),  # 130 B, stateful
    ("float32", (301,), (77,), MemcompCodec("fpc.paper", block_bytes=128, options={"endian": "little"})),
]


def zarr_data(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "float32":
        return (
            np.frombuffer(memcomp.workloads.generate("fp32_weights", 4 * (-(-n // 64) * 64)), np.float32)[:n]
            .reshape(shape)
            .copy()
        )
    return (np.arange(n, dtype=np.int64) % 300 - 150).astype(np.int16).reshape(shape)


@pytest.mark.parametrize("dtype,shape,chunks,mc", ZARR_CASES)
def test_zarr_local_store_round_trip_and_reopen_in_a_fresh_process(tmp_path, dtype, shape, chunks, mc):
    assert (int(np.prod(chunks)) * np.dtype(dtype).itemsize) % mc.block_bytes
    path = tmp_path / "a.zarr"
    zc = MemcompZarrCodec(mc)
    z = zarr.create_array(LocalStore(path), shape=shape, dtype=dtype, chunks=chunks, compressors=[zc])
    x = zarr_data(dtype, shape)
    z[...] = x
    assert z[...].tobytes() == x.tobytes()
    assert zarr.open_array(LocalStore(path))[...].tobytes() == x.tobytes()
    entry = zarr_codec_entry(path)
    cfg = mc.get_config()
    cfg.pop("id")
    assert entry == {"name": "numcodecs.memcomp", "configuration": cfg}
    chunk_file = next(p for p in (path / "c").rglob("*") if p.is_file())
    assert chunk_file.read_bytes()[:4] == b"MCNC"
    np.save(tmp_path / "x.npy", x)
    out = run_fresh(
        f"""
        import sys, numpy as np, zarr
        assert not any(m.startswith("memcomp") for m in sys.modules)
        z = zarr.open_array({str(path)!r})
        assert type(z.compressors[0]).__name__ == "MemcompZarrCodec", z.compressors
        assert z[...].tobytes() == np.load("x.npy").tobytes()
        z[1:3] = 7  # and writes
        print(z.compressors[0].to_dict()["configuration"]["codec"])
    """,
        tmp_path,
    )
    assert out.strip() == mc.codec.preset
    y = x.copy()
    y[1:3] = 7
    assert zarr.open_array(LocalStore(path))[...].tobytes() == y.tobytes()


@pytest.mark.parametrize("dtype,shape,chunks,mc", ZARR_CASES)
def test_zarr_memory_store_round_trip(dtype, shape, chunks, mc):
    store = MemoryStore()
    z = zarr.create_array(
        store,
        name="arr",
        shape=shape,
        dtype=dtype,
        chunks=chunks,
        compressors=[MemcompZarrCodec(mc.codec, block_bytes=mc.block_bytes)],
    )
    x = zarr_data(dtype, shape)
    z[...] = x
    assert z[...].tobytes() == x.tobytes()
    z[: shape[0] // 2] = x[: shape[0] // 2][::-1]  # partial chunk writes
    x[: shape[0] // 2] = x[: shape[0] // 2][::-1].copy()
    again = zarr.open_array(store, path="arr")
    assert again[...].tobytes() == x.tobytes()
    (codec,) = again.compressors
    assert isinstance(codec, MemcompZarrCodec) and codec.to_dict() == MemcompZarrCodec(mc).to_dict()


@pytest.mark.parametrize("name", ["bdi.paper", "fpc.paper", "cpack.paper", "bpc.isca16"])
def test_zarr_array_never_grows(tmp_path, name):
    """FP32 noise (random mantissas, as a photo's low bits are) expands under every codec: each
    chunk file is the chunk's 4 x 30 x 20 = 2400 B plus the 30-byte header, and reads back."""
    path = tmp_path / "noise.zarr"
    x = np.random.default_rng(5).normal(0, 1, (60, 40)).astype(np.float32)
    z = zarr.create_array(
        LocalStore(path), shape=x.shape, dtype="float32", chunks=(30, 20), compressors=[MemcompZarrCodec(name, 64)]
    )
    z[...] = x
    sizes = [p.stat().st_size for p in (path / "c").rglob("*") if p.is_file()]
    assert len(sizes) == 4 and all(n <= 2400 + 30 for n in sizes), sizes
    assert zarr.open_array(LocalStore(path))[...].tobytes() == x.tobytes()


def test_zarr_fitted_data_driven_codec_round_trips_with_its_model(tmp_path):
    path = tmp_path / "fitted.zarr"
    x = np.frombuffer(memcomp.workloads.generate("fp32_activations", 1 << 16), np.float32)[:16000].reshape(160, 100)
    codec = get_codec("e2mc").fit(memcomp.as_blocks(x.view(np.uint8).reshape(-1), 128))
    z = zarr.create_array(
        LocalStore(path),
        shape=x.shape,
        dtype="float32",
        chunks=(33, 17),
        compressors=[MemcompZarrCodec(codec, block_bytes=128)],
    )
    z[...] = x
    entry = zarr_codec_entry(path)
    assert entry["configuration"]["model"] == codec.model.data
    assert entry["configuration"]["codec"] == "e2mc.paper"
    np.save(tmp_path / "x.npy", x)
    out = run_fresh(
        f"""
        import numpy as np, zarr
        z = zarr.open_array({str(path)!r})
        assert z[...].tobytes() == np.load("x.npy").tobytes()
        print("ok")
    """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_zarr_codec_dict_round_trip_and_refusals():
    zc = MemcompZarrCodec("fpc", block_bytes=32, options={"endian": "big"})
    d = zc.to_dict()
    assert d["name"] == "numcodecs.memcomp" and d["configuration"]["block_bytes"] == 32
    again = MemcompZarrCodec.from_dict(json.loads(json.dumps(d)))
    assert again == zc and again.to_dict() == d
    assert MemcompZarrCodec(MemcompCodec("fpc", 32, {"endian": "big"})) == zc
    with pytest.raises(ValueError, match="expected a 'numcodecs.memcomp' codec"):
        MemcompZarrCodec.from_dict({"name": "numcodecs.zstd", "configuration": {}})
    with pytest.raises(ValueError, match="lossy"):
        MemcompZarrCodec("slc")
    with pytest.raises(ValueError, match="data-driven"):
        MemcompZarrCodec("sc2")
    with pytest.raises(ValueError, match="block_bytes=64"):
        MemcompZarrCodec("mpc.cal22_rtl", block_bytes=64)


# --- the benchmark script ----------------------------------------------------------------------


def test_bench_numcodecs_runs_with_a_tiny_size():
    bench = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks", "bench_numcodecs.py")
    r = subprocess.run(
        [sys.executable, bench, "--mib", "1", "--chunk-kib", "128", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    names = {ln.split()[0] for ln in r.stdout.splitlines() if ln.strip()}
    for want in (
        "memcomp:bdi.paper",
        "memcomp:fpc.paper",
        "memcomp:cpack.paper",
        "memcomp:bpc.isca16",
        "memcomp:e2mc.paper",
        "blosc:lz4",
        "blosc:zstd",
        "zstd:1",
    ):
        assert want in names, r.stdout
