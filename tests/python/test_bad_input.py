"""The bad-input matrix: one named case per (entry point, bad input), each asserting the exact
exception type and a fragment of its message, or the correct result (README "Errors"): wrong types
raise TypeError, bad values ValueError, corrupt streams and malformed encoded files
CorruptStreamError, malformed model files ValueError naming the file and the field, missing files
OSError naming the file. No case may leak a pybind11 signature dump, RecursionError, MemoryError,
BadZipFile, EOFError, NotImplementedError or a pickle hint."""

import contextlib
import copy
import io
import json
import os
import pickle
import struct
import zipfile
from functools import lru_cache

import numpy as np
import pytest

import memcomp
from memcomp import CorruptStreamError, Encoded, Model, entropy, mpc, slc, toggles
from memcomp.cli import main
from memcomp.codecs import _BYTES_HEADER
from memcomp.numcodecs import MemcompCodec

RAW = memcomp.workloads.sample_dump(1 << 14, seed=1)
B32 = memcomp.as_blocks(RAW, 32)  # 512 blocks of 32 B
F32 = memcomp.as_blocks(np.random.default_rng(0).standard_normal(2048).astype(np.float32), 32)
NAMES = memcomp.codec_names()
LEAKS = ("incompatible function arguments", "allow_pickle", "Invoked with", "recursion", "Traceback")

CASES = []


def case(id, fn, exc=None, match=None, check=None):
    """A case: ``fn(ctx)`` raises exactly ``exc`` with ``match`` in its message, or (exc None)
    returns a result that ``check`` accepts."""
    CASES.append(pytest.param(fn, exc, match, check, id=id))


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    """Files the cases read: dumps, encoded files and models, good and bad."""
    d = tmp_path_factory.mktemp("bad_input")
    RAW[:8192].tofile(d / "dump.bin")
    (d / "odd.bin").write_bytes(bytes(100))
    (d / "empty.bin").write_bytes(b"")
    (d / "emptydir").mkdir()
    (d / "bad.npy").write_bytes(b"\x93NUMPY garbage")
    (d / "bad.npz").write_bytes(b"PK not a zip")
    (d / "bad.safetensors").write_bytes(b"\xff" * 8 + b"{}")
    np.save(d / "obj.npy", np.array([1, "x"], dtype=object))
    np.save(d / "fortran.npy", np.asfortranarray(np.zeros((32, 4), np.float32)))
    np.savez(d / "pickled.npz", a=np.array([1, "x"], dtype=object))
    _npz(d / "huge_dump.npz", {"a": (np.zeros(64, np.uint8), (1 << 30,))})
    enc = memcomp.get_codec("bdi").encode(B32[:64])
    enc.save(d / "good.npz")
    good = (d / "good.npz").read_bytes()
    (d / "trunc.npz").write_bytes(good[: len(good) // 2])
    bad_dir = bytearray(good)  # the central directory's offset moved far past the file (EINVAL on seek)
    at = bad_dir.rfind(b"PK\x05\x06") + 16
    bad_dir[at : at + 4] = (int.from_bytes(bad_dir[at : at + 4], "little") + 0x2D000000).to_bytes(4, "little")
    (d / "bad_directory.npz").write_bytes(bytes(bad_dir))
    (d / "empty.npz").write_bytes(b"")
    (d / "garbage.npz").write_bytes(b"PK\x03\x04" + b"x" * 100)
    base = _enc_arrays(enc)
    _save_enc(d / "pickle.npz", base, format=np.array(["memcomp.encoded/1"], dtype=object))
    _save_enc(d / "deep.npz", base, config=np.array("[" * 100000 + "]" * 100000))
    _save_enc(d / "nan_config.npz", base, config=np.array('{"preset": NaN}'))
    _save_enc(d / "mismatch.npz", base, bit_offsets=np.zeros(3, np.uint64))
    _save_enc(d / "bb_huge.npz", base, block_bytes=np.array(1 << 40, np.int64))
    _save_enc(d / "bb_str.npz", base, block_bytes=np.array("x"))
    _save_enc(d / "format.npz", base, format=np.array("memcomp.encoded/9"))
    _save_enc(d / "config_list.npz", base, config=np.array("[1, 2]"))
    _save_enc(d / "config_preset.npz", base, config=np.array('{"preset": "nope"}'))
    _save_enc(d / "data_float.npz", base, data=base["data"].astype(np.float32))
    _save_enc(d / "outside.npz", base, data=base["data"][:4])
    _save_enc(d / "too_long.npz", base, bit_lengths=np.full(64, 10**6, np.uint32))
    _save_enc(d / "offsets_2d.npz", base, bit_offsets=base["bit_offsets"].reshape(8, 8))
    missing = dict(base)
    missing.pop("tags")
    np.savez(d / "missing_key.npz", **missing)
    np.savez(d / "extra_key.npz", extra=np.zeros(1), **base)
    stateful = memcomp.get_codec("cpack.skku").encode(B32[:8])
    st = _enc_arrays(stateful)
    st.pop("entry_state")
    np.savez(d / "no_state.npz", **st)
    arrays = {k: (v, None) for k, v in base.items()}
    arrays["data"] = (base["data"][:16], (1 << 30,))  # a 1 GB length field over 16 bytes
    _npz(d / "gb_length.npz", arrays)
    # models
    e2 = memcomp.get_codec("e2mc").fit(B32)
    e2.model.save(d / "e2mc.json")
    m = mpc.train(B32)
    m.save(d / "mpc.json")
    (d / "mpc_empty.json").write_text("")
    (d / "mpc_binary.json").write_bytes(b"\xff\xfe\x00")
    (d / "mpc_deep.json").write_text("[" * 100000 + "]" * 100000)
    (d / "model_nan.json").write_text(json.dumps(e2.model.data).replace('"max_len": 20', '"max_len": NaN'))
    return d


def _enc_arrays(enc):
    out = dict(
        format=np.array("memcomp.encoded/1"),
        config=np.array(json.dumps(enc.config, sort_keys=True)),
        block_bytes=np.array(enc.block_bytes, np.int64),
        data=enc.data,
        bit_offsets=enc.bit_offsets,
        bit_lengths=enc.bit_lengths,
        tags=enc.tags,
    )
    if enc.entry_state is not None:
        out["entry_state"] = enc.entry_state
    return out


def _save_enc(path, base, **changes):
    np.savez(path, **{**base, **changes})


def _npz(path, arrays):
    """An .npz whose members may declare another shape than the bytes they hold."""
    with zipfile.ZipFile(path, "w") as zf:
        for key, (a, shape) in arrays.items():
            f = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(a.dtype), "fortran_order": False, "shape": shape or a.shape}
            )
            zf.writestr(key + ".npy", f.getvalue() + a.tobytes())


@lru_cache(maxsize=None)
def codec(name):
    """``name``'s codec, fitted on B32 if it is data-driven."""
    c = memcomp.get_codec(name)
    return c.fit(B32) if c.requires_fit else c


def ro(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _same_sizes(name):
    def check(sizes):
        want = codec(name).measure(B32[:32].copy())
        return np.array_equal(sizes.size_bits, want.size_bits) and not sizes.size_bits.flags.writeable

    return check


def _decode_truncated(name):
    c = codec(name)
    enc = c.encode(B32[100:132])
    bad = Encoded(
        enc.config,
        enc.block_bytes,
        enc.data[: enc.data.size // 2],
        enc.bit_offsets,
        enc.bit_lengths,
        enc.tags,
        enc.entry_state,
    )
    return c.decode(bad)


def _numcodecs_flip(name, bit):
    mc = MemcompCodec(codec(name), block_bytes=32)
    buf = bytearray(mc.encode(RAW[:2000]))
    pos = min(40 + bit, len(buf) - 1)
    buf[pos] ^= 1 << (bit % 8)
    return mc.decode(bytes(buf))


def _save_load_decode(c, name):
    path = c / f"enc_{name}.npz"
    codec(name).encode(ro(B32[:16])).save(path)
    return codec(name).decode(Encoded.load(path))


# ---- every codec -------------------------------------------------------------------------------
for _n in NAMES:
    case(f"{_n}-measure-int16", lambda c, n=_n: codec(n).measure(B32.view(np.int16)), TypeError, "dtype uint8")
    case(f"{_n}-measure-list", lambda c, n=_n: codec(n).measure([[0] * 32]), TypeError, "NumPy array")
    case(f"{_n}-measure-non-contiguous", lambda c, n=_n: codec(n).measure(B32[::2]), ValueError, "C-contiguous")
    case(
        f"{_n}-measure-fortran",
        lambda c, n=_n: codec(n).measure(np.asfortranarray(B32[:8])),
        ValueError,
        "C-contiguous",
    )
    case(f"{_n}-measure-read-only", lambda c, n=_n: codec(n).measure(ro(B32[:32])), check=_same_sizes(_n))
    case(f"{_n}-measure-zero-blocks", lambda c, n=_n: codec(n).measure(B32[:0]), check=lambda s: s.n_blocks == 0)
    case(f"{_n}-measure-48B-blocks", lambda c, n=_n: codec(n).measure(np.zeros((2, 48), np.uint8)), ValueError, "48 B")
    case(f"{_n}-threads-negative", lambda c, n=_n: codec(n).measure(B32, threads=-5), ValueError, "threads")
    case(f"{_n}-threads-2**70", lambda c, n=_n: codec(n).measure(B32, threads=2**70), ValueError, "threads")
    case(f"{_n}-threads-str", lambda c, n=_n: codec(n).measure(B32, threads="2"), TypeError, "threads")
    case(f"{_n}-encode-list", lambda c, n=_n: codec(n).encode([[0] * 32]), TypeError, "NumPy array")
    case(f"{_n}-decode-list", lambda c, n=_n: codec(n).decode([1, 2]), TypeError, "Encoded")
    _c = memcomp.get_codec(_n)
    if _c.exact:
        case(f"{_n}-decode-truncated-stream", lambda c, n=_n: _decode_truncated(n), CorruptStreamError, "outside")
    else:
        case(f"{_n}-encode-accounting-only", lambda c, n=_n: codec(n).encode(B32), ValueError, "accounting-only")
    if _c.exact:
        case(
            f"{_n}-from-bytes-truncated",
            lambda c, n=_n: Encoded.from_bytes(codec(n).encode(B32[:16]).to_bytes()[:-1]),
            CorruptStreamError,
            "truncated or padded",
        )
    if _c.exact and not _c.lossy:
        case(
            f"{_n}-save-load-decode",
            lambda c, n=_n: _save_load_decode(c, n),
            check=lambda x: np.array_equal(x, B32[:16]),
        )
        for _bit in (3, 17):
            case(
                f"{_n}-numcodecs-bit-flip-{_bit}",
                lambda c, n=_n, b=_bit: _numcodecs_flip(n, b),
                CorruptStreamError,
                "CRC-32",
            )
    if _c.requires_fit or _n == "mpc.cal22_rtl":
        case(
            f"{_n}-fit-zero-blocks",
            lambda c, n=_n: memcomp.get_codec(n).fit(B32[:0]),
            ValueError,
            "cannot fit .* on 0 blocks",
        )
    else:
        case(f"{_n}-fit-model-free", lambda c, n=_n: memcomp.get_codec(n).fit(B32), ValueError, "not data-driven")

# ---- as_blocks -----------------------------------------------------------------------------------
case("as_blocks-float-block-bytes", lambda c: memcomp.as_blocks(RAW, 32.7), TypeError, "block_bytes must be an integer")
case("as_blocks-str-block-bytes", lambda c: memcomp.as_blocks(RAW, "32"), TypeError, "block_bytes must be an integer")
case("as_blocks-bool-block-bytes", lambda c: memcomp.as_blocks(RAW, True), TypeError, "block_bytes must be an integer")
case(
    "as_blocks-numpy-int-block-bytes",
    lambda c: memcomp.as_blocks(RAW, np.int64(32)),
    check=lambda b: b.shape == (512, 32),
)
case("as_blocks-unsupported-block-bytes", lambda c: memcomp.as_blocks(RAW, 48), ValueError, "must be one of")
case("as_blocks-negative-block-bytes", lambda c: memcomp.as_blocks(RAW, -32), ValueError, "must be one of")
case("as_blocks-size-does-not-divide", lambda c: memcomp.as_blocks(RAW[:100], 32), ValueError, "not a multiple")
case(
    "as_blocks-object-dtype",
    lambda c: memcomp.as_blocks(np.array([1, "x"], dtype=object), 16),
    TypeError,
    "Python object",
)
case("as_blocks-unicode-dtype", lambda c: memcomp.as_blocks(np.array(["abcd"] * 8), 16), TypeError, "string dtype")
case("as_blocks-non-contiguous", lambda c: memcomp.as_blocks(RAW[::2], 32), ValueError, "not C-contiguous")
case(
    "as_blocks-fortran",
    lambda c: memcomp.as_blocks(np.asfortranarray(RAW.reshape(128, 128)), 32),
    ValueError,
    "not C-contiguous",
)
case(
    "as_blocks-read-only-works",
    lambda c: memcomp.as_blocks(ro(RAW), 32),
    check=lambda b: b.shape == (512, 32) and not b.flags.writeable,
)
case("as_blocks-zero-bytes", lambda c: memcomp.as_blocks(RAW[:0], 32), check=lambda b: b.shape == (0, 32))
case("as_blocks-list", lambda c: memcomp.as_blocks([1, 2, 3], 16), TypeError, "expected a numpy.ndarray")
case("as_blocks-none", lambda c: memcomp.as_blocks(None, 16), TypeError, "expected a numpy.ndarray")
case("as_blocks-masked", lambda c: memcomp.as_blocks(np.ma.masked_array(RAW), 32), TypeError, "masked")
case(
    "as_blocks-float32-view",
    lambda c: memcomp.as_blocks(RAW.view(np.float32), 32),
    check=lambda b: np.array_equal(b, B32),
)
case(
    "sectorize-does-not-divide",
    lambda c: memcomp.sectorize(memcomp.as_blocks(RAW, 32), 64),
    ValueError,
    "does not divide",
)

# ---- get_codec, names and options -----------------------------------------------------------------
case("get_codec-unknown", lambda c: memcomp.get_codec("nope"), ValueError, "unknown codec 'nope'")
case("get_codec-int-name", lambda c: memcomp.get_codec(3), TypeError, "codec name must be a str")
case("get_codec-option-2**70", lambda c: memcomp.get_codec("e2mc", mfv=2**70), ValueError, "out of range")
case("get_codec-option-negative", lambda c: memcomp.get_codec("e2mc", mfv=-5), ValueError, "must be in")
case(
    "get_codec-option-float-for-int",
    lambda c: memcomp.get_codec("e2mc", mag=32.7),
    TypeError,
    "option 'mag' must be an integer",
)
case(
    "get_codec-option-str-for-int",
    lambda c: memcomp.get_codec("e2mc", mag="32"),
    TypeError,
    "option 'mag' must be an integer",
)
case(
    "get_codec-option-bool-for-int",
    lambda c: memcomp.get_codec("e2mc", mfv=True),
    TypeError,
    "option 'mfv' must be an integer",
)
case(
    "get_codec-option-nan-for-int",
    lambda c: memcomp.get_codec("e2mc", mfv=float("nan")),
    TypeError,
    "option 'mfv' must be an integer",
)
case(
    "get_codec-option-nan-for-float",
    lambda c: memcomp.get_codec("bdi", member_threshold=float("nan")),
    ValueError,
    "member_threshold",
)
case(
    "get_codec-option-inf-for-float",
    lambda c: memcomp.get_codec("bdi", member_threshold=float("inf")),
    ValueError,
    "member_threshold",
)
case("get_codec-option-list", lambda c: memcomp.get_codec("e2mc", mfv=[1]), TypeError, "option 'mfv'")
case(
    "get_codec-option-numpy-int",
    lambda c: memcomp.get_codec("e2mc", mfv=np.int64(512)),
    check=lambda x: x.options["mfv"] == 512,
)
case(
    "get_codec-option-numpy-float",
    lambda c: memcomp.get_codec("bdi", member_threshold=np.float32(0.5)),
    check=lambda x: x.options["member_threshold"] == 0.5,
)
case("get_codec-option-unknown", lambda c: memcomp.get_codec("bdi", window=3), ValueError, "unknown option")
case("get_codec-max_len-negative", lambda c: memcomp.get_codec("e2mc", max_len=-7), ValueError, "max_len")
case("get_codec-max_len-huge", lambda c: memcomp.get_codec("e2mc", max_len=10**6), ValueError, "max_len")
case("get_codec-max_len-str", lambda c: memcomp.get_codec("sc2", max_len="x"), TypeError, "max_len")
case(
    "get_codec-max_len-too-short",
    lambda c: memcomp.get_codec("e2mc", max_len=5).fit(B32),
    ValueError,
    "max_len 5 cannot code",
)
case(
    "name-with-options-parses",
    lambda c: memcomp.get_codec("fpc.paper(endian=big)"),
    check=lambda x: x.name == "fpc.paper(endian=big)" and x == memcomp.get_codec("fpc", endian="big"),
)
case(
    "name-int-option-parses",
    lambda c: memcomp.get_codec("e2mc.paper(mfv=512)"),
    check=lambda x: x.options["mfv"] == 512,
)
case(
    "name-bestof-parses",
    lambda c: memcomp.get_codec("bestof(bdi.paper,fpc.paper(endian=big))"),
    check=lambda x: x.name == "bestof(bdi.paper,fpc.paper(endian=big))",
)
case(
    "name-members-key-parses",
    lambda c: memcomp.get_codec("bestof.bdi_fpc(members=bdi.paper,fpc.cmu)"),
    check=lambda x: x.name == "bestof(bdi.paper,fpc.cmu)",
)
case("name-unbalanced", lambda c: memcomp.get_codec("fpc.paper(endian=big"), ValueError, "malformed codec name")
case("name-unknown-option", lambda c: memcomp.get_codec("fpc.paper(window=3)"), ValueError, "has no option 'window'")
case("name-bad-int-value", lambda c: memcomp.get_codec("e2mc.paper(mfv=lots)"), ValueError, "takes an integer")
case(
    "name-model-refused",
    lambda c: memcomp.get_codec("e2mc.paper(model=fitted)"),
    ValueError,
    "fitted model cannot be given by name",
)
case(
    "name-members-on-plain-codec",
    lambda c: memcomp.get_codec("bdi.paper(fpc.paper)"),
    ValueError,
    "not key=value options",
)
case(
    "bestof-fitted-member-short-name",
    lambda c: memcomp.get_codec("bestof", members=[codec("e2mc.paper"), "bdi"]),
    check=lambda x: x.name == "bestof(e2mc.paper,bdi.paper)",
)
case(
    "bestof-error-under-own-name",
    lambda c: memcomp.get_codec("bestof", members=["bdi", "e2mc"]).measure(B32),
    ValueError,
    r"^bestof\(bdi.paper,e2mc.paper\) has no model",
)
case(
    "bestof-unknown-member",
    lambda c: memcomp.get_codec("bestof", members=["bdi", "nope"]),
    ValueError,
    "unknown codec 'nope'",
)
case("bestof-member-int", lambda c: memcomp.get_codec("bestof", members=["bdi", 3]), TypeError, "members are")
case(
    "check_block_bytes-float",
    lambda c: memcomp.get_codec("bdi").check_block_bytes(32.7),
    TypeError,
    "block_bytes must be an integer",
)
case(
    "check_block_bytes-negative",
    lambda c: memcomp.get_codec("bdi").check_block_bytes(-1),
    ValueError,
    "block_bytes must be an integer in",
)
case(
    "max_compressed_bits-numpy-int",
    lambda c: memcomp.get_codec("bdi").max_compressed_bits(np.int64(32)),
    check=lambda v: v > 0,
)
case("measure-resume-str", lambda c: memcomp.get_codec("bdi").measure(B32, resume="yes"), TypeError, "resume")
case(
    "measure-approximable-list", lambda c: codec("slc.opt").measure(B32, approximable=[True]), TypeError, "approximable"
)
case(
    "measure-approximable-wrong-length",
    lambda c: codec("slc.opt").measure(B32, approximable=np.ones(3, bool)),
    ValueError,
    "512 entries",
)
case(
    "decode-other-codec",
    lambda c: memcomp.get_codec("fpc").decode(memcomp.get_codec("bdi").encode(B32)),
    ValueError,
    "encoded by bdi.paper",
)
case(
    "decode-int64-lengths",
    lambda c: _with_field("bit_lengths", lambda a: a.astype(np.int64)),
    TypeError,
    "'bit_lengths' must be a 1-D uint32",
)
case("decode-short-tags", lambda c: _with_field("tags", lambda a: a[:-1]), CorruptStreamError, "'tags' must have")
case("decode-list-data", lambda c: _with_field("data", lambda a: list(a)), TypeError, "'data' must be a 1-D")
case(
    "decode-length-beyond-maximum",
    lambda c: _with_field("bit_lengths", lambda a: a + 10**6),
    CorruptStreamError,
    "exceeds",
)
case(
    "decode-offset-out-of-range",
    lambda c: _with_field("bit_offsets", lambda a: a + np.uint64(2**60)),
    CorruptStreamError,
    "outside",
)
case("decode-block-bytes-str", lambda c: _with_field("block_bytes", lambda a: "32"), TypeError, "block_bytes")
case("decode-block-bytes-huge", lambda c: _with_field("block_bytes", lambda a: 1 << 40), ValueError, "block_bytes")


def _with_field(key, change):
    c = memcomp.get_codec("bdi")
    enc = c.encode(B32[:16])
    fields = dict(
        config=enc.config,
        block_bytes=enc.block_bytes,
        data=enc.data,
        bit_offsets=enc.bit_offsets,
        bit_lengths=enc.bit_lengths,
        tags=enc.tags,
    )
    fields[key] = change(fields[key])
    return c.decode(Encoded(**fields))


_MASKED = np.ma.masked_array(B32, mask=np.zeros(B32.shape, bool))  # an unmasked mask: still refused
case(
    "name-option-twice",
    lambda c: memcomp.get_codec("fpc(endian=big,endian=little)"),
    ValueError,
    "option 'endian' given twice",
)
case(
    "name-and-keyword-option-twice",
    lambda c: memcomp.get_codec("fpc.paper(endian=big)", endian="little"),
    ValueError,
    "option 'endian' given twice, in the name and as a keyword",
)
case(
    "bestof-empty-member",
    lambda c: memcomp.get_codec("bestof", members="bdi,,fpc"),
    ValueError,
    "members: an empty name between commas",
)
case("name-bestof-empty-member", lambda c: memcomp.get_codec("bestof(bdi,,fpc)"), ValueError, "an empty name")
case(
    "max_compressed_bits-zero",
    lambda c: memcomp.get_codec("bdi").max_compressed_bits(0),
    ValueError,
    "block size 0 B is not supported",
)
case(
    "max_compressed_bits-33",
    lambda c: memcomp.get_codec("bdi").max_compressed_bits(33),
    ValueError,
    "block size 33 B is not supported",
)
case("max_compressed_bits-mpc-64", lambda c: memcomp.get_codec("mpc").max_compressed_bits(64), ValueError, "32 B")
case(
    "sizes-cr-count-tag-int",
    lambda c: memcomp.get_codec("bdi").measure(B32).cr(count_tag=1),
    TypeError,
    "count_tag must be True or False",
)
for _op in ("measure", "encode"):
    case(
        f"{_op}-masked-array",
        lambda c, op=_op: getattr(memcomp.get_codec("bdi"), op)(_MASKED),
        TypeError,
        "blocks is a masked array",
    )
case("fit-masked-array", lambda c: memcomp.get_codec("e2mc").fit(_MASKED), TypeError, "masked array")
case("compare-masked-array", lambda c: memcomp.compare(_MASKED, ["bdi"]), TypeError, "masked array")
case("compare-progress-int", lambda c: memcomp.compare(B32, ["bdi"], progress=5), TypeError, "^progress must be")
case(
    "compare-progress-takes-no-arguments",
    lambda c: memcomp.compare(B32, ["bdi"], progress=lambda: None),
    TypeError,
    r"progress must be a callable taking \(done, total\)",
)


# ---- compare and tables --------------------------------------------------------------------------
case("compare-mag-float", lambda c: memcomp.compare(B32, ["bdi"], mag=32.7), TypeError, "mag must be an integer")
case("compare-mag-zero", lambda c: memcomp.compare(B32, ["bdi"], mag=0), ValueError, "mag must be an integer in")
case("compare-mag-2**70", lambda c: memcomp.compare(B32, ["bdi"], mag=2**70), ValueError, "mag must be")
case(
    "compare-mag-numpy",
    lambda c: memcomp.compare(B32, ["bdi"], mag=np.int64(64)),
    check=lambda df: (df["mag"] == 64).all(),
)
case("compare-u_min-nan", lambda c: memcomp.compare(B32, ["bdi"], u_min=float("nan")), TypeError, "u_min")
case("compare-threads-negative", lambda c: memcomp.compare(B32, ["bdi"], threads=-5), ValueError, "threads")
case(
    "compare-threads-numpy", lambda c: memcomp.compare(B32, ["bdi"], threads=np.int64(2)), check=lambda df: len(df) == 1
)
case("compare-policy-int", lambda c: memcomp.compare(B32, ["bdi"], policy=5), TypeError, "policy must be a str")
case("compare-policy-unknown", lambda c: memcomp.compare(B32, ["bdi"], policy="x"), ValueError, "bad policy")
case("compare-oracle-unknown", lambda c: memcomp.compare(B32, ["bdi"], oracle="x"), ValueError, "oracle must be")
case("compare-no-codecs", lambda c: memcomp.compare(B32, []), ValueError, "no codecs given")
case("compare-codec-int", lambda c: memcomp.compare(B32, [5]), TypeError, "codec name must be a str")
case("compare-unknown-codec", lambda c: memcomp.compare(B32, ["nope"]), ValueError, "unknown codec")
case("compare-chunk-blocks-zero", lambda c: memcomp.compare(B32, ["bdi"], chunk_blocks=0), ValueError, "chunk_blocks")
case("compare-count_tag-str", lambda c: memcomp.compare(B32, ["bdi"], count_tag="yes"), TypeError, "count_tag")
case("compare-list-blocks", lambda c: memcomp.compare([[0] * 32], ["bdi"]), TypeError, "memcomp Dump")
case("compare-1d-blocks", lambda c: memcomp.compare(RAW, ["bdi"]), ValueError, "2-D")
case("compare-int16-blocks", lambda c: memcomp.compare(B32.view(np.int16), ["bdi"]), TypeError, "dtype uint8")
case(
    "compare-read-only",
    lambda c: memcomp.compare(ro(B32), ["bdi", "fpc"]),
    check=lambda df: len(df) == 3 and df["cr"].gt(0).all(),
)
case("compare-zero-blocks", lambda c: memcomp.compare(B32[:0], ["bdi"]), check=lambda df: int(df["blocks"][0]) == 0)
case(
    "compare-zero-blocks-data-driven",
    lambda c: memcomp.compare(B32[:0], ["e2mc"]),
    check=lambda df: int(df["blocks"][0]) == 0 and df["model"][0] == "-",
)
case(
    "compare-table-name-round-trip",
    lambda c: memcomp.compare(B32, ["fpc.paper(endian=big)"]),
    check=lambda df: list(df["codec"]) == ["fpc.paper(endian=big)"],
)
case(
    "compare-bestof-row-name-is-short",
    lambda c: memcomp.compare(B32, [memcomp.get_codec("bestof", members=[codec("e2mc.paper"), "bdi"])], oracle=False),
    check=lambda df: list(df["codec"]) == ["bestof(e2mc.paper,bdi.paper)"],
)
case(
    "mag_study-float-block-size",
    lambda c: memcomp.mag_study(B32, ["bdi"], block_sizes=[32.5]),
    TypeError,
    "block_sizes",
)
case("mag_study-mag-zero", lambda c: memcomp.mag_study(RAW, ["bdi"], mags=[0]), ValueError, "mags")
case("mag_study-mags-int", lambda c: memcomp.mag_study(RAW, ["bdi"], mags=32), TypeError, "mags must be a sequence")
case(
    "mag_study-block-sizes-str",
    lambda c: memcomp.mag_study(RAW, ["bdi"], block_sizes="32"),
    TypeError,
    "block_sizes must be a sequence",
)
case(
    "sizestats-cr-count_tag-int",
    lambda c: memcomp.get_codec("bdi").measure(B32).stats().cr(count_tag=1),
    TypeError,
    "count_tag must be True or False",
)
case("check_blocks-masked", lambda c: memcomp.blocks.check_blocks(_MASKED), TypeError, "masked array")
case("charge-list-bits", lambda c: memcomp.charge([1, 2], 32), TypeError, "bits must be a uint32 NumPy array")
case("with-mag-float", lambda c: memcomp.report.with_mag("e2mc", 32.5), TypeError, "mag")
case("charge-float-block-bytes", lambda c: memcomp.charge(np.zeros(2, np.uint32), 32.5), TypeError, "block_bytes")

case(
    "sizes-cr-policy-int",
    lambda c: memcomp.get_codec("bdi").measure(B32).cr(policy=5),
    TypeError,
    "policy must be a str",
)
case("size-stats-cr-mag-float", lambda c: memcomp.get_codec("bdi").measure(B32).stats().cr_mag(32.5), TypeError, "mag")
case("e2mc-online-window-float", lambda c: memcomp.e2mc.online(B32, window=2.5), TypeError, "window")
case("e2mc-online-window-zero", lambda c: memcomp.e2mc.online(B32, window=0), ValueError, "window")
case(
    "energy-model-unknown-parameter",
    lambda c: memcomp.energy.energy_model({"x": 1}),
    ValueError,
    "unknown energy model parameter",
)
case(
    "energy-model-nan",
    lambda c: memcomp.energy.energy_model({"name": "m", "channel": "noc", "toggle_pj": float("nan")}),
    ValueError,
    "toggle_pj",
)
case("workloads-sample-float", lambda c: memcomp.workloads.sample_dump(1000.5), TypeError, "n_bytes")
case("dump-chunks-float", lambda c: list(memcomp.open_dump(c / "dump.bin", 32).chunks(2.5)), TypeError, "chunk_blocks")
case("dump-part-reversed", lambda c: memcomp.open_dump(c / "dump.bin", 32).part(5, 2), ValueError, "stop")

case(
    "size-stats-above-mag-float",
    lambda c: memcomp.get_codec("bdi").measure(B32).stats().above_mag(32.5),
    TypeError,
    "mag",
)
case("mpc-ratio-entropy-elem-bytes-float", lambda c: mpc.ratio_entropy(B32, elem_bytes=2.0), TypeError, "elem_bytes")

for _p in (
    "threshold(nan)",
    "threshold(inf)",
    "segments(inf)",
    "mag(1e999)",
    "pow2(99999999999999999999)",
    "cap+mag(32,-1)",
):
    case(f"policy-{_p}", lambda c, p=_p: memcomp.compare(B32, ["bdi"], policy=p), ValueError, "bad policy")

# ---- entropy ---------------------------------------------------------------------------------------
case("entropy-symbol-bits-12", lambda c: entropy.histogram(B32, 12), ValueError, "symbol_bits must be one of")
case("entropy-symbol-bits-bool", lambda c: entropy.bound(B32, True), TypeError, "symbol_bits")
case("entropy-symbol-bits-float", lambda c: entropy.histogram(B32, 16.0), TypeError, "symbol_bits")
case("entropy-symbol-bits-numpy", lambda c: entropy.histogram(B32, np.int64(8)), check=lambda s: s.symbol_bits == 8)
case("entropy-endian-none", lambda c: entropy.histogram(B32, 8, endian=None), TypeError, "endian must be one of")
case("entropy-endian-unknown", lambda c: entropy.table(B32, endian="middle"), ValueError, "endian must be one of")
case("entropy-block-endian-int", lambda c: entropy.block_entropy(B32, 8, endian=0), TypeError, "endian")
case("entropy-per-position-str", lambda c: entropy.histogram(B32, 8, per_position="yes"), TypeError, "per_position")
case("entropy-symbol-bits-empty", lambda c: entropy.table(B32, []), ValueError, "at least one")
case("entropy-mfv-zero", lambda c: entropy.table(B32, mfv=0), ValueError, "mfv must be a positive integer")
case("entropy-mfv-negative", lambda c: entropy.histogram(B32, 16).mfv_cr(-1), ValueError, "mfv")
case("entropy-mfv-float", lambda c: entropy.table(B32, mfv=10.5), TypeError, "mfv")
case("entropy-mfv-huge", lambda c: entropy.table(B32, [16], mfv=2**70), check=lambda df: df["cr_mfv"][0] > 0)
case(
    "entropy-max_len-negative",
    lambda c: entropy.histogram(B32, 16).length_limited_bits(1024, -1),
    ValueError,
    "max_len",
)
case(
    "entropy-max_len-huge", lambda c: entropy.histogram(B32, 16).length_limited_bits(1024, 2**70), ValueError, "max_len"
)
case("entropy-topk-negative", lambda c: entropy.TopK(-1), ValueError, "capacity")
case("entropy-topk-float", lambda c: entropy.TopK(1.5), TypeError, "capacity")
case("entropy-topk-k-negative", lambda c: entropy.TopK(16).add(B32).top(-1), ValueError, "k must be")
case("entropy-threads-negative", lambda c: entropy.histogram(B32, 8, threads=-5), ValueError, "threads")
case("entropy-list", lambda c: entropy.histogram([1, 2, 3], 8), TypeError, "memcomp Dump")
case("entropy-endian", lambda c: entropy.histogram(B32, 16, endian="middle"), ValueError, "endian")
case("entropy-variant", lambda c: entropy.bound(B32, 8, "best"), ValueError, "variant")
case("entropy-non-contiguous", lambda c: entropy.histogram(B32[::2], 8), ValueError, "C-contiguous")
case("entropy-block-entropy-list", lambda c: entropy.block_entropy([[1]], 8), TypeError, "numpy.ndarray")
case("entropy-per-workload-list", lambda c: entropy.bound_per_workload([B32]), TypeError, "mapping")
case("entropy-table-from-stats-none", lambda c: entropy.table_from_stats(None), TypeError, "TableStats")
case("entropy-read-only", lambda c: entropy.bound(ro(B32), 8), check=lambda b: b.cr == entropy.bound(B32, 8).cr)
case("entropy-zero-blocks", lambda c: entropy.table(B32[:0]), check=lambda df: (df["symbols"] == 0).all())
case("entropy-stats-top-negative", lambda c: entropy.histogram(B32, 16).top(-1), ValueError, "k must be a non-neg")
case("entropy-stats-top-float", lambda c: entropy.histogram(B32, 16).top(2.5), TypeError, "k must be")
case("entropy-stats-top-zero", lambda c: entropy.histogram(B32, 16).top(0), check=lambda t: t[0].size == 0)
case("entropy-table-symbol-bits-float", lambda c: entropy.table(B32, 16.5), TypeError, "symbol_bits must be one of")
case("entropy-table-symbol-bits-object", lambda c: entropy.table_stats(B32, object()), TypeError, "symbol_bits")
case("entropy-histogram-masked", lambda c: entropy.histogram(_MASKED, 8), TypeError, "masked array")
case("entropy-block-entropy-masked", lambda c: entropy.block_entropy(_MASKED, 8), TypeError, "masked array")

# ---- toggles ----------------------------------------------------------------------------------------
_DRAM = dict(channel="dram", bus_bits=32)
case("toggles-count-list", lambda c: toggles.count([1, 2]), TypeError, "uint8 array or an Encoded")
case("toggles-count-int16", lambda c: toggles.count(B32.view(np.int16)), TypeError, "dtype uint8")
case("toggles-count-non-contiguous", lambda c: toggles.count(B32[::2]), ValueError, "C-contiguous")
case("toggles-bus-bits-7", lambda c: toggles.count(B32, channel="dram", bus_bits=7), ValueError, "bus_bits")
case("toggles-bus-bits-float", lambda c: toggles.count(B32, channel="dram", bus_bits=32.5), TypeError, "bus_bits")
case("toggles-bus-bits-2**70", lambda c: toggles.count(B32, channel="dram", bus_bits=2**70), ValueError, "bus_bits")
case(
    "toggles-bus-bits-numpy",
    lambda c: toggles.count(B32, channel="dram", bus_bits=np.int64(32)),
    check=lambda r: r.stats.blocks == 512,
)
case("toggles-unknown-option", lambda c: toggles.count(B32, foo=1), ValueError, "unknown option")
case("toggles-channel-int", lambda c: toggles.count(B32, channel=3), TypeError, "channel")
case("toggles-close-str", lambda c: toggles.count(B32, close="yes"), TypeError, "close must be True or False")
case(
    "toggles-read-only",
    lambda c: toggles.count(ro(B32), **_DRAM),
    check=lambda r: r.stats.counts == toggles.count(B32, **_DRAM).stats.counts,
)
case("toggles-zero-blocks", lambda c: toggles.count(B32[:0], **_DRAM), check=lambda r: r.stats.blocks == 0)
case("toggles-drive-nbits-negative", lambda c: toggles.drive(b"abc", -1), ValueError, "nbits")
case("toggles-drive-list", lambda c: toggles.drive([1, 2]), TypeError, "stream must be bytes")
case("toggles-compare-bu-nan", lambda c: toggles.compare(B32, ["bdi"], bu=float("nan")), ValueError, "bu must be")
case("toggles-compare-bu-inf", lambda c: toggles.compare(B32, ["bdi"], bu=float("inf")), ValueError, "bu must be")
case(
    "toggles-compare-bu-array-nan",
    lambda c: toggles.compare(B32, ["bdi"], ec="ec2", bu=np.full(512, np.nan)),
    ValueError,
    "bu must lie in",
)
case("toggles-compare-alpha-nan", lambda c: toggles.compare(B32, ["bdi"], alpha=float("nan")), ValueError, "alpha")
case("toggles-compare-alpha-zero", lambda c: toggles.compare(B32, ["bdi"], alpha=0), ValueError, "alpha")
case("toggles-compare-alpha-str", lambda c: toggles.compare(B32, ["bdi"], alpha="1"), TypeError, "alpha")
case("toggles-compare-mag-float", lambda c: toggles.compare(B32, ["bdi"], mag=32.5), TypeError, "mag")
case("toggles-compare-ec-unknown", lambda c: toggles.compare(B32, ["bdi"], ec="ec9"), ValueError, "ec must be")
case(
    "toggles-compare-energy-unknown",
    lambda c: toggles.compare(B32, ["bdi"], energy="x"),
    ValueError,
    "unknown energy model",
)
case("toggles-compare-accounting-only", lambda c: toggles.compare(B32, ["bdi.cmu"]), ValueError, "bdi.cmu")
case("toggles-decide-nan", lambda c: toggles.decide(float("nan"), 1, 2), ValueError, "t0")
case("toggles-gain-above-one", lambda c: toggles.gain(2.0), ValueError, "bu")
case(
    "toggles-energy-control-length-mismatch",
    lambda c: toggles.energy_control(B32[:3], memcomp.get_codec("bdi").encode(B32)),
    ValueError,
    "one compressed stream per block",
)
case("toggles-energy-control-not-encoded", lambda c: toggles.energy_control(B32, B32), TypeError, "Encoded")
_BDI = memcomp.get_codec("bdi")
case("toggles-ec-codec-name", lambda c: toggles.energy_control(B32, "bdi"), TypeError, "or a Codec, got str")
case("toggles-ec-codec-unfitted", lambda c: toggles.energy_control(B32, memcomp.get_codec("e2mc")), ValueError, "model")
case(
    "toggles-ec-codec-accounting",
    lambda c: toggles.energy_control(B32, memcomp.get_codec("bdi.cmu")),
    ValueError,
    "exact",
)
case(
    "toggles-ec-codec-mpc-128",
    lambda c: toggles.energy_control(memcomp.as_blocks(RAW, 128), memcomp.get_codec("mpc")),
    ValueError,
    "32 B",
)
case("toggles-ec-codec-bu-length", lambda c: toggles.energy_control(B32, _BDI, bu=np.zeros(3)), ValueError, "bu")
case("toggles-ec-codec-int8", lambda c: toggles.energy_control(B32.view(np.int8), _BDI), TypeError, "uint8")
case("toggles-ec-codec-strided", lambda c: toggles.energy_control(B32[::2], _BDI), ValueError, "C-contiguous")
case("toggles-ec-codec-list", lambda c: toggles.energy_control(B32.tolist(), _BDI), TypeError, "NumPy array")
case("toggles-ec-codec-threads", lambda c: toggles.energy_control(B32, _BDI, threads="2"), TypeError, "threads")
case("toggles-ec-codec-resume", lambda c: toggles.energy_control(B32, _BDI, resume=1), TypeError, "resume")
case("toggles-ec-codec-ratio", lambda c: toggles.energy_control(B32, _BDI, ratio="x"), ValueError, "ratio")
case(
    "toggles-ec-encoded-threads",
    lambda c: toggles.energy_control(B32, _BDI.encode(B32), threads=1),
    ValueError,
    "apply when encoded is a Codec",
)
case(
    "toggles-ec-codec-state-other-bus",
    lambda c: toggles.energy_control(B32, _BDI, state=toggles.energy_control(B32, _BDI, channel="dram").state),
    ValueError,
    "another bus",
)
case("toggles-state-wrong-type", lambda c: toggles.count(B32, state=5), TypeError, "WireState")
for _other in (
    dict(channel="noc"),
    dict(channel="dram", bus_bits=64),
    dict(channel="dram", dbi="dc"),
    dict(channel="dram", idle="low"),
    dict(channel="dram", burst_length=4),
    dict(channel="dram", pad="one"),
    dict(channel="dram", mode="isolated"),
    dict(channel="dram", dbi="ac", ac_threshold=2),
):
    case(
        "toggles-state-of-another-bus-" + "-".join(f"{k}={v}" for k, v in _other.items()),
        lambda c, o=_other: toggles.count(B32, state=toggles.count(B32[:4], **_DRAM).state, **o),
        ValueError,
        "another bus configuration",
    )
case(
    "toggles-state-malformed-pickle",
    lambda c: toggles.WireState.__new__(toggles.WireState).__setstate__((b"",)),
    ValueError,
    "malformed WireState",
)
case(
    "toggles-state-continues-on-its-own-bus",
    lambda c: toggles.count(B32[4:], state=toggles.count(B32[:4], close=False, **_DRAM).state, **_DRAM),
    check=lambda r: r.stats.blocks == 508,
)
case(
    "toggles-state-pickle-round-trip",
    lambda c: pickle.loads(pickle.dumps(toggles.count(B32[:4], **_DRAM).state)),
    check=lambda s: s == toggles.count(B32[:4], **_DRAM).state,
)


def _gddr5_by_hand(e):
    """GDDR5's energy of each DRAM transfer from the counts (SPEC 2): pJ per data transition, per
    data zero (the bus idles high), and the same for the DBI pins."""
    cols = toggles.count(B32, **_DRAM).columns
    m = memcomp.energy.MODELS["gddr5"]
    want = m.toggle_pj * cols["toggles"].astype(float) + m.level_pj * cols["zeros"]
    want += m.toggle_pj * (cols["pin_t01"].astype(float) + cols["pin_t10"]) + m.level_pj * cols["pin_zeros"]
    return np.allclose(e, want) and e.shape == (512,)


def _scatter_then_resume(c):
    """The caller streams B32 through a stateful codec in two chunks and runs toggles.scatter on
    it between them: its second chunk must start from the state its first ended in (the entry
    state it records) and encode as without the scatter."""
    mine, ref = memcomp.get_codec("cpack.skku"), memcomp.get_codec("cpack.skku")
    mine.encode(B32[:256])
    ref.encode(B32[:256])
    toggles.scatter(B32[256:], [mine])
    a, b = mine.encode(B32[256:], resume=True), ref.encode(B32[256:], resume=True)
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("entry_state", "bit_lengths", "data"))


case(
    "toggles-energy-model-of-another-channel",
    lambda c: toggles.count(B32, **_DRAM).energy_pj("noc"),
    ValueError,
    "'noc' is for the noc channel, not dram",
)
case(
    "toggles-energy-model-of-another-idle-level",
    lambda c: toggles.count(B32, **_DRAM).energy_pj("lpddr4"),
    ValueError,
    "'lpddr4' is for a bus idling low, this bus idles high",
)
case("toggles-energy-model-of-this-bus", lambda c: toggles.count(B32, **_DRAM).energy_pj("gddr5"), check=_gddr5_by_hand)
case("toggles-scatter-leaves-callers-codec-state", _scatter_then_resume, check=lambda same: same is True)
case("toggles-count-masked", lambda c: toggles.count(_MASKED, **_DRAM), TypeError, "data is a masked array")
case("toggles-drive-masked", lambda c: toggles.drive(np.ma.masked_array(B32[0])), TypeError, "stream is a masked")
case("toggles-ec-masked", lambda c: toggles.energy_control(_MASKED, _BDI), TypeError, "blocks is a masked array")
case("toggles-compare-masked", lambda c: toggles.compare(_MASKED, ["bdi"]), TypeError, "masked array")

# ---- MPC training and models -----------------------------------------------------------------------
case("mpc-train-list", lambda c: mpc.train([1, 2]), TypeError, "ndarray or a memcomp Dump")
case("mpc-train-int16", lambda c: mpc.train(B32.view(np.int16)), TypeError, "dtype uint8")
case("mpc-train-64B", lambda c: mpc.train(np.zeros((4, 48), np.uint8)), ValueError, "32 B blocks, got 48 B")
case("mpc-train-non-contiguous", lambda c: mpc.train(B32[::2]), ValueError, "C-contiguous")
case("mpc-train-zero-blocks", lambda c: mpc.train(B32[:0]), ValueError, "no training blocks")
case("mpc-train-max-blocks-zero", lambda c: mpc.train(B32, max_blocks=0), ValueError, "max_blocks")
case("mpc-train-max-blocks-float", lambda c: mpc.train(B32, max_blocks=3.5), TypeError, "max_blocks")
case("mpc-train-seed-negative", lambda c: mpc.train(B32, seed=-1, max_blocks=5), ValueError, "seed")
case("mpc-train-zeros-unknown", lambda c: mpc.train(B32, zeros="x"), ValueError, "zeros must be one of")
case("mpc-train-threads-str", lambda c: mpc.train(B32, threads="2"), TypeError, "threads")
case("mpc-train-chunk-zero", lambda c: mpc.train(B32, chunk_blocks=0), ValueError, "chunk_blocks")
_RE = mpc.ratio_entropy(B32)
case("mpc-shifts-root-negative", lambda c: mpc.shifts(_RE, -1, [0] * 32), ValueError, "root")
case("mpc-shifts-base-short", lambda c: mpc.shifts(_RE, 0, [0] * 31), ValueError, "base must have 32")
case("mpc-shifts-base-float", lambda c: mpc.shifts(_RE, 0, [0.5] * 32), TypeError, "base entries")
case("mpc-scan-shift-huge", lambda c: mpc.scan(B32, 0, [0] * 32, [2**70] * 32), ValueError, "shift entries")
case("mpc-scan-base-str", lambda c: mpc.scan(B32, 0, "x" * 32, [0] * 32), TypeError, "base must be a sequence")
case("mpc-scan-counts-not-a-mapping", lambda c: mpc.scan_counts(B32, [0]), TypeError, "predictor must be a mapping")
case("mpc-shifts-not-ratio-entropy", lambda c: mpc.shifts(None, 0, [0] * 32), TypeError, "RatioEntropy")
case("mpc-byte-entropy-list", lambda c: mpc.byte_entropy([[1, 2]]), TypeError, "numpy.ndarray")
case("mpc-byte-entropy-int16", lambda c: mpc.byte_entropy(B32.view(np.int16)), TypeError, "dtype uint8")
case("mpc-split-list", lambda c: mpc.split([B32]), TypeError, "mapping")
case(
    "mpc-split-fraction-nan", lambda c: mpc.split({"a": B32}, train_fraction=float("nan")), ValueError, "train_fraction"
)
case("mpc-train-predictors-not-stats", lambda c: mpc.train_predictors(None), TypeError, "TrainStats")
case("mpc-train-read-only", lambda c: mpc.train(ro(B32)), check=lambda m: m == mpc.train(B32))


def _mpc_bad(edit, field):
    def run(c):
        data = json.loads((c / "mpc.json").read_text())
        edit(data)
        p = c / f"mpc_bad_{field}.json"
        p.write_text(json.dumps(data))
        return mpc.MPCModel.load(p)

    return run


def _mpc_case(id, edit, match):
    case(f"mpc-model-{id}", _mpc_bad(edit, id), ValueError, r"mpc_bad_" + id + r"\.json: .*" + match)


case("mpc-model-missing-file", lambda c: mpc.MPCModel.load(c / "nope.json"), FileNotFoundError, "nope.json")
case("mpc-model-directory", lambda c: mpc.MPCModel.load(c / "emptydir"), IsADirectoryError, "emptydir")
case(
    "mpc-model-empty-file",
    lambda c: mpc.MPCModel.load(c / "mpc_empty.json"),
    ValueError,
    "mpc_empty.json: model: not valid JSON",
)
case("mpc-model-binary", lambda c: mpc.MPCModel.load(c / "mpc_binary.json"), ValueError, "mpc_binary.json: .*UTF-8")
case(
    "mpc-model-deep-nesting",
    lambda c: mpc.MPCModel.load(c / "mpc_deep.json"),
    ValueError,
    "mpc_deep.json: .*nested too deeply",
)
_mpc_case("no-modules", lambda d: d.pop("modules"), "'modules'")
_mpc_case("modules-str", lambda d: d.__setitem__("modules", "x"), "'modules'")
_mpc_case("modules-of-ints", lambda d: d.__setitem__("modules", [1, 2]), r"'modules\[0\]' must be an object")
_mpc_case("class-str", lambda d: d["modules"][0].__setitem__("class", "2"), r"modules\[0\]\.class")
_mpc_case(
    "class-duplicate", lambda d: d["modules"][1].__setitem__("class", d["modules"][0]["class"]), r"modules\[1\]\.class"
)
_mpc_case("root-none", lambda d: d["modules"][0].__setitem__("root", None), "'root'")
_mpc_case("root-huge", lambda d: d["modules"][0].__setitem__("root", 10**12), "'root'")
_mpc_case("base-none", lambda d: d["modules"][0].__setitem__("base", None), "'base'")
_mpc_case("base-short", lambda d: d["modules"][0].__setitem__("base", [0] * 31), "'base'")
_mpc_case("base-negative", lambda d: d["modules"][0]["base"].__setitem__(3, -1), "'base'")
_mpc_case("shift-out-of-range", lambda d: d["modules"][0]["shift"].__setitem__(0, 99), "'shift'")
_mpc_case("shift-float", lambda d: d["modules"][0]["shift"].__setitem__(0, 1.5), "'shift'")
_mpc_case(
    "scan-not-a-permutation",
    lambda d: (
        d["modules"][0]["scan_row"].__setitem__(0, d["modules"][0]["scan_row"][1])
        or d["modules"][0]["scan_col"].__setitem__(0, d["modules"][0]["scan_col"][1])
    ),
    "permutation",
)
_mpc_case("scan-row-str", lambda d: d["modules"][0].__setitem__("scan_row", "x"), "'scan_row'")
_mpc_case("version", lambda d: d.__setitem__("version", 99), "'version'")
_mpc_case("format", lambda d: d.__setitem__("format", "x"), "'format'")
_CYCLE = [0] * 32
_CYCLE[1], _CYCLE[2] = 2, 1  # bytes 1 and 2 take each other as base: neither reaches root 0
_NEG = _RE.matrix().copy()
_NEG[0, 1] = -0.5
case(
    "mpc-extract-nan-byte-entropy",
    lambda c: mpc.extract(_RE.matrix(), np.full(32, np.nan)),
    ValueError,
    "byte_entropy must hold entropies in bits: finite and >= 0",
)
case("mpc-extract-negative-byte-entropy", lambda c: mpc.extract(_RE.matrix(), -np.ones(32)), ValueError, "byte_entr")
case("mpc-extract-byte-entropy-short", lambda c: mpc.extract(_RE.matrix(), np.ones(31)), ValueError, "one entry per")
case("mpc-extract-negative-weight", lambda c: mpc.extract(_NEG), ValueError, "re_matrix must hold entropies")
case("mpc-extract-str-weights", lambda c: mpc.extract([["a", "b"], ["c", "d"]]), TypeError, "re_matrix must be")
case(
    "mpc-scan-base-cycle",
    lambda c: mpc.scan(B32, 0, _CYCLE, [0] * 32),
    ValueError,
    "base must form a tree rooted at 0: the base pointers of byte 1 form a cycle",
)
case("mpc-shifts-base-cycle", lambda c: mpc.shifts(_RE, 0, _CYCLE), ValueError, "base must form a tree")
case(
    "mpc-scan-counts-base-cycle",
    lambda c: mpc.scan_counts(B32, {"root": 0, "base": _CYCLE, "shift": [0] * 32}),
    ValueError,
    "form a cycle",
)
case("mpc-split-seed-float", lambda c: mpc.split({"a": B32}, seed=1.5), TypeError, "seed must be")
case("mpc-split-seed-negative", lambda c: mpc.split({"a": B32}, seed=-1), ValueError, "seed must be")
case("mpc-train-module-cls-float", lambda c: mpc.train_module(B32, 2.5), TypeError, "cls must be")
case("mpc-train-module-cls-7", lambda c: mpc.train_module(B32, 7), ValueError, r"cls must be an integer in \[2, 6\]")
case("mpc-train-stats-seed-float", lambda c: mpc.train_stats(B32, seed=1.5, max_blocks=4), TypeError, "seed must")
case("mpc-train-stats-offset-str", lambda c: mpc.train_stats(B32, offset="1"), TypeError, "offset must be")
case("mpc-ratio-entropy-signed-int", lambda c: mpc.ratio_entropy(B32, signed=1), TypeError, "signed must be True or")
case("mpc-train-stats-digest-str", lambda c: mpc.train_stats(B32, digest="sha256"), TypeError, "digest must be")
case("mpc-protocol-codecs-int", lambda c: mpc.protocol({"a": B32}, codecs=3), TypeError, "codecs must be")
case("mpc-byte-entropy-masked", lambda c: mpc.byte_entropy(_MASKED), TypeError, "masked array")
case("mpc-train-masked", lambda c: mpc.train(_MASKED), TypeError, "masked array")


# ---- E2MC/SC2 models ---------------------------------------------------------------------------------
def _e2mc_model(edit, family="e2mc"):
    def run(c):
        data = copy.deepcopy(codec(f"{family}.paper").model.data)
        edit(data)
        return memcomp.get_codec(family, model=data)

    return run


for _fam in ("e2mc", "sc2"):
    for _id, _edit, _exc, _match in [
        ("max_len-negative", lambda d: d.__setitem__("max_len", -7), ValueError, "'max_len'"),
        ("max_len-zero", lambda d: d.__setitem__("max_len", 0), ValueError, "'max_len'"),
        ("max_len-huge", lambda d: d.__setitem__("max_len", 10**9), ValueError, "'max_len'"),
        ("max_len-str", lambda d: d.__setitem__("max_len", "x"), ValueError, "'max_len'"),
        ("max_len-bool", lambda d: d.__setitem__("max_len", True), ValueError, "'max_len'"),
        ("max_len-below-code-lengths", lambda d: d.__setitem__("max_len", 2), ValueError, r"longer than 'max_len' 2"),
        (
            "lengths-kraft-violated",
            lambda d: d["tables"][0].__setitem__("lengths", [1] * len(d["tables"][0]["lengths"])),
            ValueError,
            "Kraft",
        ),
        ("lengths-negative", lambda d: d["tables"][0]["lengths"].__setitem__(0, -3), ValueError, "outside 1..32"),
        (
            "lengths-nan",
            lambda d: d["tables"][0]["lengths"].__setitem__(0, float("nan")),
            ValueError,
            "not JSON-serialisable",
        ),
        ("missing-tables", lambda d: d.pop("tables"), ValueError, "tables"),
        ("tables-str", lambda d: d.__setitem__("tables", "x"), ValueError, "model"),
        ("symbols-short", lambda d: d["tables"][0].__setitem__("symbols", [1, 2]), ValueError, "symbols but"),
        ("esc_len-huge", lambda d: d["tables"][0].__setitem__("esc_len", 1 << 30), ValueError, "esc_len"),
        ("sl-str", lambda d: d.__setitem__("sl", "16"), ValueError, "model"),
        ("wrong-codec", lambda d: d.__setitem__("codec", "fvc"), ValueError, "codec"),
        ("deep-nesting", lambda d: d.__setitem__("x", json.loads("[" * 500 + "]" * 500)), ValueError, "nesting"),
    ]:
        case(f"{_fam}-model-{_id}", _e2mc_model(_edit, _fam), _exc, _match)
case(
    "model-deep-text",
    lambda c: Model('{"format":"memcomp.model/1","codec":"e2mc","x":' + "[" * 100000 + "]" * 100000 + "}"),
    ValueError,
    "nested too deeply",
)
case("model-not-json", lambda c: memcomp.get_codec("e2mc", model="{x"), ValueError, "not valid JSON")
case("model-list", lambda c: memcomp.get_codec("e2mc", model=[1]), TypeError, "a model is a JSON object")
case("model-json-array", lambda c: Model("[1, 2]"), ValueError, "a model is a JSON object")
case(
    "model-nan-text",
    lambda c: Model('{"format": "memcomp.model/1", "codec": "e2mc", "x": NaN}'),
    ValueError,
    "NaN is not valid JSON",
)
case(
    "model-huge-number",
    lambda c: Model('{"format": "memcomp.model/1", "codec": "e2mc", "x": 1e999}'),
    ValueError,
    "out of range",
)
case("model-load-nan-names-file", lambda c: Model.load(c / "model_nan.json"), ValueError, "model_nan.json: ")
case("model-load-missing", lambda c: Model.load(c / "nope.json"), FileNotFoundError, "nope.json")
case("model-load-directory", lambda c: Model.load(c / "emptydir"), IsADirectoryError, "emptydir")
case("model-load-good", lambda c: Model.load(c / "e2mc.json"), check=lambda m: m.codec == "e2mc")
case(
    "sc2-cal22-max_len-refused-when-made",
    lambda c: memcomp.get_codec("sc2.cal22", max_len=6),
    ValueError,
    "tree='heap' builds its code without a length limit.*needs max_len=0, got max_len=6",
)
case(
    "sc2-heap-tree-without-limit-fits",
    lambda c: memcomp.get_codec("sc2.kim", tree="heap").fit(B32),
    check=lambda x: x.model is not None,
)
case("slc-mag-divides-no-block", lambda c: memcomp.get_codec("slc", mag=34), ValueError, "power of two up to 256")
_SMALL = B32[:64]
for _id, _kw, _exc, _match in [
    ("mfv-float", dict(mfv=[1.7]), TypeError, "mfv entries must be a positive integer, got 1.7"),
    ("mfv-bool", dict(mfv=[True]), TypeError, "mfv entries must be a positive integer"),
    ("mfv-str", dict(mfv=["64"]), TypeError, "mfv entries must be a positive integer"),
    ("mfv-one-str", dict(mfv="64"), TypeError, "mfv must be a sequence, got str"),
    ("mfv-zero", dict(mfv=[0]), ValueError, "mfv entries must be a positive integer"),
    ("windows-negative", dict(windows=[-0.5]), ValueError, "windows entries must be a finite number > 0.0 and <= 1.0"),
    ("windows-zero", dict(windows=[0.0]), ValueError, "windows entries must be"),
    ("windows-above-one", dict(windows=[1.5]), ValueError, "windows entries must be"),
    ("windows-nan", dict(windows=[float("nan")]), ValueError, "windows entries must be"),
    ("windows-inf", dict(windows=[float("inf")]), ValueError, "windows entries must be"),
    ("windows-bool", dict(windows=[True]), TypeError, "windows entries must be"),
    ("windows-one-number", dict(windows=0.5), TypeError, "windows must be a sequence, got float"),
    ("mag-zero", dict(mag=0), ValueError, "mag must be"),
]:
    case(
        f"e2mc-sampling-study-{_id}",
        lambda c, kw=_kw: memcomp.e2mc.sampling_study(_SMALL, **{"mfv": [64], "windows": [0.5], **kw}),
        _exc,
        _match,
    )
case(
    "e2mc-sampling-study-numpy-numbers",
    lambda c: memcomp.e2mc.sampling_study(_SMALL, mfv=[np.int64(64)], windows=[np.float64(0.5)]),
    check=lambda df: list(df["window"]) == [64, 32] and list(df["mfv"]) == [64, 1024],  # 0.5 x 64 blocks
)
case("e2mc-online-codec-int", lambda c: memcomp.e2mc.online(B32, codec=3), TypeError, "codec must be a codec name")
case("e2mc-online-masked", lambda c: memcomp.e2mc.online(_MASKED), TypeError, "masked array")
case(
    "e2mc-bound-gap-symbol-bits-float",
    lambda c: memcomp.e2mc.bound_gap(_SMALL, symbol_bits=1.5),
    TypeError,
    "symbol_bits must be a sequence",
)

# ---- SLC ---------------------------------------------------------------------------------------------
case("slc-threshold-negative", lambda c: slc.compress(F32, threshold_bytes=-1), ValueError, "threshold_bytes")
case("slc-threshold-float", lambda c: slc.compress(F32, threshold_bytes=1.5), TypeError, "threshold_bytes")
case("slc-threshold-2**70", lambda c: slc.compress(F32, threshold_bytes=2**70), ValueError, "threshold_bytes")
case("slc-mag-zero", lambda c: slc.compress(F32, mag=0), ValueError, "mag")
case("slc-mag-does-not-divide", lambda c: slc.compress(F32, mag=33), ValueError, "does not divide")
case("slc-variant-unknown", lambda c: slc.compress(F32, variant="x"), ValueError, "variant must be one of")
case("slc-dtype-unknown", lambda c: slc.compress(F32, dtype="x"), ValueError, "dtype must be one of")
case("slc-dtype-object", lambda c: slc.compress(F32, dtype=[1]), TypeError, "dtype must be one of")
case("slc-list", lambda c: slc.compress([1, 2]), TypeError, "memcomp Dump")
case("slc-zero-blocks", lambda c: slc.compress(F32[:0]), check=lambda r: r.report["blocks"] == 0)
case("slc-sweep-threshold-negative", lambda c: slc.sweep(F32, thresholds=[-1], mags=[32]), ValueError, "thresholds")
case("slc-sweep-threshold-float", lambda c: slc.sweep(F32, thresholds=[8.5], mags=[32]), TypeError, "thresholds")
case("slc-sweep-mag-nan", lambda c: slc.sweep(F32, thresholds=[8], mags=[float("nan")]), TypeError, "mag")
case("slc-sweep-mag-inf", lambda c: slc.sweep(F32, thresholds=[8], mags=[float("inf")]), TypeError, "mag")
case("slc-quality-shapes", lambda c: slc.quality(F32, F32[:2]), ValueError, "differ in shape")
case("slc-quality-list", lambda c: slc.quality([1], F32), TypeError, "uint8 arrays")
case("slc-read-only", lambda c: slc.compress(ro(F32)), check=lambda r: r is not None)

# ---- open_dump / open_dumps ---------------------------------------------------------------------------
case("open_dump-block-float", lambda c: memcomp.open_dump(c / "dump.bin", 32.7), TypeError, "block_bytes")
case("open_dump-block-str", lambda c: memcomp.open_dump(c / "dump.bin", "32"), TypeError, "block_bytes")
case(
    "open_dump-block-numpy",
    lambda c: memcomp.open_dump(c / "dump.bin", np.int64(32)),
    check=lambda d: d.n_blocks == 256,
)
case("open_dump-block-48", lambda c: memcomp.open_dump(c / "dump.bin", 48), ValueError, "block_bytes")
case("open_dump-size-does-not-divide", lambda c: memcomp.open_dump(c / "odd.bin", 32), ValueError, "allow_partial")
case(
    "open_dump-allow-partial",
    lambda c: memcomp.open_dump(c / "odd.bin", 32, allow_partial=True),
    check=lambda d: d.n_blocks == 3 and d.dropped_bytes == 4,
)
case(
    "open_dump-allow-partial-str",
    lambda c: memcomp.open_dump(c / "dump.bin", 32, allow_partial="yes"),
    TypeError,
    "allow_partial",
)
case("open_dump-empty-file", lambda c: memcomp.open_dump(c / "empty.bin", 32), check=lambda d: d.n_blocks == 0)
case("open_dump-directory", lambda c: memcomp.open_dump(c / "emptydir", 32), IsADirectoryError, "emptydir")
case("open_dump-missing", lambda c: memcomp.open_dump(c / "missing.bin", 32), FileNotFoundError, "missing.bin")
case("open_dump-offset-negative", lambda c: memcomp.open_dump(c / "dump.bin", 32, offset=-32), ValueError, "offset")
case(
    "open_dump-offset-past-end",
    lambda c: memcomp.open_dump(c / "dump.bin", 32, offset=1 << 40),
    ValueError,
    "past the end",
)
case("open_dump-offset-float", lambda c: memcomp.open_dump(c / "dump.bin", 32, offset=32.0), TypeError, "offset")
case(
    "open_dump-offset-numpy",
    lambda c: memcomp.open_dump(c / "dump.bin", 32, offset=np.int64(32)),
    check=lambda d: d.n_blocks == 255,
)
case(
    "open_dump-offset-unaligned",
    lambda c: memcomp.open_dump(c / "dump.bin", 32, offset=3),
    ValueError,
    "not a multiple",
)
case("open_dump-length-negative", lambda c: memcomp.open_dump(c / "dump.bin", 32, length=-1), ValueError, "length")
case("open_dump-length-huge", lambda c: memcomp.open_dump(c / "dump.bin", 32, length=1 << 62), ValueError, "length")
case("open_dump-path-int", lambda c: memcomp.open_dump(5, 32), TypeError, "path must be")
case("open_dump-path-none", lambda c: memcomp.open_dump(None, 32), TypeError, "path must be")
case("open_dump-bad-npy", lambda c: memcomp.open_dump(c / "bad.npy", 32), ValueError, "bad.npy")
case("open_dump-object-npy", lambda c: memcomp.open_dump(c / "obj.npy", 32), TypeError, "dtype object")
case("open_dump-fortran-npy", lambda c: memcomp.open_dump(c / "fortran.npy", 32), ValueError, "Fortran-ordered")
case("open_dumps-nothing", lambda c: memcomp.open_dumps(), ValueError, "at least one")
case("open_dumps-block-float", lambda c: memcomp.open_dumps(c / "dump.bin", block_bytes=32.7), TypeError, "block_bytes")
case(
    "open_dumps-block-numpy",
    lambda c: memcomp.open_dumps(c / "dump.bin", block_bytes=np.int64(32)),
    check=lambda ds: ds[0].n_blocks == 256,
)
case(
    "open_dumps-glob-no-match",
    lambda c: memcomp.open_dumps(str(c / "*.nomatch"), block_bytes=32),
    FileNotFoundError,
    "nomatch",
)
case(
    "open_dumps-empty-directory",
    lambda c: memcomp.open_dumps(c / "emptydir", block_bytes=32),
    check=lambda ds: ds == [],
)
case(
    "open_dumps-bad-npz",
    lambda c: memcomp.open_dumps(c / "bad.npz", block_bytes=32),
    ValueError,
    "bad.npz: not a valid .npz file",
)
case(
    "open_dumps-pickled-npz",
    lambda c: memcomp.open_dumps(c / "pickled.npz", block_bytes=32),
    ValueError,
    "pickled.npz: .*Python objects",
)
case(
    "open_dumps-npz-1GB-length",
    lambda c: memcomp.open_dumps(c / "huge_dump.npz", block_bytes=32),
    ValueError,
    "huge_dump.npz: .*the header describes 1073741824",
)
case(
    "open_dumps-bad-safetensors",
    lambda c: memcomp.open_dumps(c / "bad.safetensors", block_bytes=32),
    ValueError,
    "bad.safetensors",
)
case(
    "open_dumps-allow-partial-str",
    lambda c: memcomp.open_dumps(c / "dump.bin", block_bytes=32, allow_partial=1),
    TypeError,
    "allow_partial",
)


def _manifest(text):
    def run(c):
        d = c / f"manifest_{abs(hash(text))}"
        d.mkdir(exist_ok=True)
        (d / "a.bin").write_bytes(bytes(64))
        (d / "manifest.json").write_text(text)
        return memcomp.open_dumps(d, block_bytes=32)

    return run


for _id, _text, _match in [
    ("not-json", "{bad", "manifest.json: not valid JSON"),
    ("datasets-int", '{"datasets": 5}', "'datasets' must be a list"),
    ("deep", "[" * 100000, "manifest.json: JSON nested too deeply"),
    ("file-outside", '{"datasets": [{"file": "../dump.bin", "name": "x"}]}', r"'datasets\[0\]' must have"),
    ("name-missing", '{"datasets": [{"file": "a.bin"}]}', r"'datasets\[0\]' must have"),
]:
    case(f"open_dumps-manifest-{_id}", _manifest(_text), ValueError, _match)
case(
    "open_dumps-manifest-good",
    _manifest('{"datasets": [{"file": "a.bin", "name": "x"}]}'),
    check=lambda ds: [d.name for d in ds] == ["x"] and ds[0].n_blocks == 2,
)


def _safetensors(header: bytes, data: bytes = bytes(64)):
    def run(c):
        p = c / f"st_{abs(hash(header))}.safetensors"
        p.write_bytes(struct.pack("<Q", len(header)) + header + data)
        return memcomp.open_dumps(p, block_bytes=32)

    return run


for _id, _head, _match in [
    ("deep", b"[" * 100000, "safetensors header: JSON nested too deeply"),
    ("not-json", b"{x", "safetensors header: not valid JSON"),
    ("array", b"[1]", "not a JSON object"),
    ("offsets-outside", b'{"t": {"dtype": "U8", "shape": [64], "data_offsets": [0, 4096]}}', "lie outside the data"),
    ("offsets-float", b'{"t": {"dtype": "U8", "shape": [64], "data_offsets": [0.5, 64]}}', "no valid data_offsets"),
    ("offsets-missing", b'{"t": {"dtype": "U8", "shape": [64]}}', "no valid data_offsets"),
]:
    case(f"open_dumps-safetensors-{_id}", _safetensors(_head), ValueError, _match)
case(
    "open_dumps-safetensors-good",
    _safetensors(b'{"t": {"dtype": "U8", "shape": [64], "data_offsets": [0, 64]}}'),
    check=lambda ds: [d.name for d in ds] == ["t"] and ds[0].n_blocks == 2,
)


# issue 34: compressed streams, .npy headers, ONNX files, file names, empty streams
def _compressed(suffix, payload):
    import bz2
    import gzip
    import lzma

    if suffix == ".zst":
        zstandard = pytest.importorskip("zstandard")
        return zstandard.ZstdCompressor(write_checksum=True).compress(payload)  # as the zstd tool writes
    return {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](payload)


def _damaged_stream(suffix, damage):
    """compare on RAW (16 KiB) compressed, then cut to half its bytes or with 40 bytes after the
    first 24 flipped: the dump is incomplete or corrupt, never a shorter valid one."""

    def run(c):
        data = _compressed(suffix, RAW.tobytes())
        if damage == "truncated":
            data = data[: len(data) // 2]
        else:
            data = data[:24] + bytes(b ^ 0xA5 for b in data[24:64]) + data[64:]
        path = c / f"{damage}{suffix}"
        path.write_bytes(data)
        return memcomp.compare(memcomp.open_dump(path, 32), ["bdi"])

    return run


for _sfx in (".gz", ".bz2", ".xz", ".zst"):
    case(
        f"open_dump-truncated{_sfx}", _damaged_stream(_sfx, "truncated"), CorruptStreamError, "truncated.* is truncated"
    )
    case(f"open_dump-corrupt{_sfx}", _damaged_stream(_sfx, "corrupt"), CorruptStreamError, "corrupt.* is not a valid")


def _not_gzip(c):
    (c / "raw.bin.gz").write_bytes(RAW.tobytes())
    return memcomp.open_dump(c / "raw.bin.gz", 32)


case("open_dump-gz-not-gzip", _not_gzip, CorruptStreamError, r"raw.bin.gz' is not a valid gzip stream")


def _cli_stderr(*argv):
    """(exit code, standard error) of the CLI."""
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv], out=io.StringIO())
    return rc, err.getvalue()


def _cli_truncated_gz(c):
    data = _compressed(".gz", RAW.tobytes())
    (c / "cut.gz").write_bytes(data[: len(data) // 2])
    return _cli_stderr("compare", c / "cut.gz", "--block", "32", "--codecs", "bdi")


case(
    "cli-truncated-gz-one-line",
    _cli_truncated_gz,
    check=lambda r: r[0] == 2 and r[1].count("\n") == 1 and "cut.gz' is truncated" in r[1] and "Traceback" not in r[1],
)

_TRUNCATE_WHILE_READ = r"""
import os, sys, threading
import memcomp
path = sys.argv[1]
with open(path, "wb") as f:
    f.truncate(128 << 20)
d = memcomp.open_dump(path, 128)
seen = 0
try:
    for chunk in d.chunks(1 << 16):
        os.truncate(path, 0)  # after the chunk was handed out, before it is read
        seen += int(chunk.sum() == 0)
except OSError as e:
    print("chunks", seen, e)
with open(path, "wb") as f:
    f.truncate(128 << 20)
d = memcomp.open_dump(path, 128)
threading.Timer(0.05, os.truncate, (path, 0)).start()  # while compare reads a chunk
try:
    memcomp.compare(d, ["bdi", "fpc", "cpack"])
except OSError as e:
    print("compare", e)
"""


def _truncated_while_read(c):
    import subprocess
    import sys

    path = c / "truncated_while_read.bin"
    try:
        r = subprocess.run(
            [sys.executable, "-c", _TRUNCATE_WHILE_READ, str(path)], capture_output=True, text=True, timeout=300
        )
    finally:
        path.unlink(missing_ok=True)
    return r.returncode, r.stdout.splitlines()


case(
    "open_dump-truncated-while-a-chunk-is-read",  # the process died of SIGBUS (exit 135, -7 here)
    _truncated_while_read,
    check=lambda r: (
        r[0] == 0
        and len(r[1]) == 2
        and r[1][0].startswith("chunks 1 ")
        and r[1][1].startswith("compare ")
        and all("truncated_while_read.bin' was truncated to 0 bytes while being read" in ln for ln in r[1])
    ),
)


_TRUNCATE_WHILE_IN_MEMORY = r"""
import os, sys, threading
import numpy as np
import memcomp
path = sys.argv[1]
runs = {
    "fit": lambda d: memcomp.compare(d, ["e2mc"]),  # the 64 MiB fit sample
    "slc": lambda d: memcomp.slc.compress(d, threshold_bytes=16),  # every block at once
    "scatter": lambda d: memcomp.toggles.scatter(d, ["bdi"]),
}
for name, run in runs.items():
    np.full(256 << 20, 7, np.uint8).tofile(path)
    d = memcomp.open_dump(path, 128)
    threading.Timer(0.01, os.truncate, (path, 0)).start()  # while the blocks are read or used
    try:
        run(d)
        print(name, "finished first")
    except OSError as e:
        print(name, e)
"""


def _truncated_while_in_memory(c):
    import subprocess
    import sys

    path = c / "truncated_in_memory.bin"
    try:
        r = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", _TRUNCATE_WHILE_IN_MEMORY, str(path)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        path.unlink(missing_ok=True)
    return r.returncode, r.stdout.splitlines()


case(
    # fitting, SLC's compress and a scatter took the blocks from the map: SIGBUS on truncation
    "open_dump-truncated-while-read-into-memory",
    _truncated_while_in_memory,
    check=lambda r: (
        r[0] == 0
        and [ln.split()[0] for ln in r[1]] == ["fit", "slc", "scatter"]
        and all("truncated_in_memory.bin' " in ln and "truncated" in ln for ln in r[1])
    ),
)
case(
    "dump-read_blocks-after-truncation",
    lambda c: _read_after_truncation(c / "read_blocks.bin"),
    OSError,
    "was truncated to 0 bytes",
)


def _read_after_truncation(path):
    RAW[:4096].tofile(path)
    d = memcomp.open_dump(path, 128)
    os.truncate(path, 0)
    return d.read_blocks(0, 8)


def _npy_file(c, name, header, data=b""):
    """A version 1.0 .npy file with ``header`` as its (padded) header text."""
    h = header.encode("latin1")
    h += b" " * (63 - (10 + len(h)) % 64) + b"\n"
    path = c / name
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)
    return path


for _id, _header, _data, _match in [
    ("unbalanced-bracket", "{'descr': '|u1', 'fortran_order': False, 'shape': (64,", b"", "malformed .npy header"),
    ("shape-bool", "{'descr': '<f8', 'fortran_order': False, 'shape': (True,), }", bytes(8), "malformed .npy header"),
    ("shape-negative", "{'descr': '|u1', 'fortran_order': False, 'shape': (-64,), }", bytes(64), "malformed .npy"),
    (  # a file cut 10 B short of the 64 B its header describes
        "data-cut-short",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (64,), }",
        bytes(54),
        r"describes 64 bytes of array data .* the file holds 54 after the header",
    ),
    (  # 3037000500**2 * 8 B overflows int64: NumPy's map warned (RuntimeWarning) before refusing;
        # (3037000000 + 500)**2 = 9223369 * 10**12 + 2 * 3037000000 * 500 + 250000 = 9223372037000250000
        "shape-overflows",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3037000500, 3037000500), }",
        bytes(64),
        r"describes 73786976296002000000 bytes of array data .* the file holds 64 after the header",
    ),
]:
    case(
        f"open_dump-npy-{_id}",
        lambda c, i=_id, h=_header, d=_data: memcomp.open_dump(_npy_file(c, f"{i}.npy", h, d), 32),
        ValueError,
        f"{_id}.npy.* {_match}",
    )
    case(
        f"open_dumps-npy-{_id}",  # no block_bytes: the header is read to find an (N, L) trace's L
        lambda c, i=_id, h=_header, d=_data: memcomp.open_dumps(_npy_file(c, f"{i}.npy", h, d)),
        ValueError,
        f"{_id}.npy.* {_match}",
    )


def _onnx_external(c, location, data=None, **keys):
    """A model dir/m.onnx with one float32 initializer 'w' of 64 values whose bytes are in the
    external file ``location``, written (when ``data`` is given) beside the model; ``keys``: more
    external data entries."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    d = c / f"onnx_{abs(hash((location, *keys)))}"
    d.mkdir(exist_ok=True)
    w = onnx.TensorProto(name="w", data_type=onnx.TensorProto.FLOAT, dims=[64])
    w.data_location = onnx.TensorProto.EXTERNAL
    w.external_data.add(key="location", value=location)
    for key, value in keys.items():
        w.external_data.add(key=key, value=value)
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
        initializer=[w],
    )
    onnx.save(helper.make_model(graph), str(d / "m.onnx"))
    if data is not None:
        (d / location).write_bytes(data)
    return d / "m.onnx"


_W = np.arange(64, dtype="<f4").tobytes()


def _onnx_beside_the_model(c):
    model = _onnx_external(c, "w.bin", _W)
    elsewhere = c / "onnx_cwd"
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "w.bin").write_bytes(bytes(256))  # a w.bin in the current directory is not the model's
    import os

    cwd = os.getcwd()
    os.chdir(elsewhere)
    try:
        return memcomp.open_dumps(model, block_bytes=32)
    finally:
        os.chdir(cwd)


case(
    "open_dumps-onnx-external-data-beside-the-model",
    _onnx_beside_the_model,
    check=lambda ds: [d.name for d in ds] == ["w"] and ds[0].n_blocks == 8 and ds[0].blocks.tobytes() == _W,
)
case(
    "open_dumps-onnx-external-data-missing",
    lambda c: memcomp.open_dumps(_onnx_external(c, "gone.bin"), block_bytes=32),
    FileNotFoundError,
    "initializer 'w' of .*m.onnx' is not a file next to the model: .*gone.bin",
)
case(
    "open_dumps-onnx-external-data-outside-the-model-directory",
    lambda c: memcomp.open_dumps(_onnx_external(c, "../dump.bin"), block_bytes=32),
    ValueError,
    r"m.onnx': initializer 'w' keeps its data in '\.\./dump.bin', outside the model's directory",
)
case(
    "open_dumps-onnx-external-data-unknown-key",  # onnx warned and ignored it
    lambda c: memcomp.open_dumps(_onnx_external(c, "w.bin", _W, length2="256"), block_bytes=32),
    ValueError,
    r"m.onnx': initializer 'w' has external data keys \['length2'\]; ONNX defines",
)
case(
    "open_dumps-onnx-external-data-too-short",
    lambda c: memcomp.open_dumps(_onnx_external(c, "short.bin", _W[:100]), block_bytes=32),
    ValueError,
    # 100 B hold 25 float32 of the 64 the tensor's dims say
    r"m.onnx': initializer 'w' \(external data 'short.bin'\) cannot be read .*array of size 25 into shape \(64,\)",
)


def _corrupt_onnx(c):
    pytest.importorskip("onnx")
    (c / "corrupt.onnx").write_bytes(b"garbage\xff\xff\x01")
    return memcomp.open_dumps(c / "corrupt.onnx", block_bytes=32)


case("open_dumps-onnx-corrupt", _corrupt_onnx, ValueError, r"corrupt.onnx' is not a valid ONNX model \(DecodeError")


def _brackets(pattern):
    def run(c):
        d = c / "brackets"
        d.mkdir(exist_ok=True)
        (d / "x[1].bin").write_bytes(bytes(range(32)))  # a file whose name holds [ ]
        (d / "x1.bin").write_bytes(bytes(32))  # what the pattern x[1].bin matches
        ds = memcomp.open_dumps(str(d / pattern), block_bytes=32)
        return [(x.path.name, x.blocks.tobytes(), memcomp.compare(x, ["bdi"])["file"][0]) for x in ds]

    return run


case(
    "open_dumps-existing-name-with-brackets-is-that-file",
    _brackets("x[1].bin"),
    check=lambda r: [(n, b) for n, b, _ in r] == [("x[1].bin", bytes(range(32)))] and r[0][2].endswith("/x[1].bin"),
)
case(
    "open_dumps-missing-name-with-brackets-is-a-pattern",
    _brackets("x[12].bin"),
    check=lambda r: [(n, b) for n, b, _ in r] == [("x1.bin", bytes(32))] and r[0][2].endswith("/x1.bin"),
)


def _pipe(payload):
    """open_dump of a pipe holding ``payload`` (the write end closed)."""

    def run(c):
        import os

        r, w = os.pipe()
        os.write(w, payload)
        os.close(w)
        try:
            return memcomp.open_dump(f"/dev/fd/{r}", 32)
        finally:
            os.close(r)

    return run


# a stream with no whole block is a dump of 0 blocks when it is opened, as an empty file is
case("open_dump-dev-null", lambda c: memcomp.open_dump("/dev/null", 32), check=lambda d: d.n_blocks == 0)
case("open_dump-empty-pipe", _pipe(b""), check=lambda d: (d.n_blocks, d.dropped_bytes) == (0, 0))
case("open_dump-pipe-shorter-than-a-block", _pipe(bytes(10)), ValueError, "ended with 10 trailing byte.*allow_partial")
for _cmd in ("toggles", "compare"):  # as for an empty file: exit 2 in one line, not NaN and inf
    case(
        f"cli-{_cmd}-dev-null",
        lambda c, cmd=_cmd: _cli_stderr(cmd, "/dev/null", "--block", "32"),
        check=lambda r: (
            r[0] == 2
            and r[1].endswith("memcomp: error: no dataset holds a whole 32 B block; choose a smaller --block\n")
        ),
    )


def _cli_empty_pipe(c):
    import os

    r, w = os.pipe()
    os.close(w)
    try:
        return _cli_stderr("toggles", f"/dev/fd/{r}", "--block", "32")
    finally:
        os.close(r)


case(
    "cli-toggles-empty-pipe",
    _cli_empty_pipe,
    check=lambda r: r[0] == 2 and "no dataset holds a whole 32 B block" in r[1],
)
case("open_dump-path-empty", lambda c: memcomp.open_dump("", 32), ValueError, "path must be a file name, got an empty")
case(
    "open_dumps-path-empty",  # read the current directory
    lambda c: memcomp.open_dumps("", block_bytes=32),
    ValueError,
    "path must be a file name, got an empty path",
)
case("open_dump-name-int", lambda c: memcomp.open_dump(c / "dump.bin", 32, name=5), TypeError, "name must be a str")
case("open_dump-name-empty", lambda c: memcomp.open_dump(c / "dump.bin", 32, name=""), ValueError, "name must not be")
case(
    "open_dump-dtype-check-str",
    lambda c: memcomp.open_dump(c / "dump.bin", 32, dtype_check="no"),
    TypeError,
    "dtype_check",
)
case(
    "dump-chunks-release-str",
    lambda c: list(memcomp.open_dump(c / "dump.bin", 32).chunks(8, release="no")),
    TypeError,
    "release",
)

# ---- Encoded files and bytes ----------------------------------------------------------------------------
for _file, _exc, _match in [
    ("empty.npz", CorruptStreamError, "empty.npz: .*empty"),
    ("trunc.npz", CorruptStreamError, "trunc.npz: not a memcomp encoded file"),
    ("garbage.npz", CorruptStreamError, "garbage.npz: not a memcomp encoded file"),
    ("pickle.npz", CorruptStreamError, "pickle.npz: .*pickles are never loaded"),
    ("deep.npz", CorruptStreamError, "deep.npz: field 'config': JSON nested too deeply"),
    ("nan_config.npz", CorruptStreamError, "nan_config.npz: field 'config': not valid JSON"),
    ("mismatch.npz", CorruptStreamError, "mismatch.npz: field 'bit_lengths' must have 3 entries"),
    ("bb_huge.npz", CorruptStreamError, "bb_huge.npz: block_bytes"),
    ("bb_str.npz", CorruptStreamError, "bb_str.npz: field 'block_bytes' must be a single integer"),
    ("format.npz", CorruptStreamError, "format.npz: unsupported format"),
    ("config_list.npz", CorruptStreamError, "config_list.npz: bad codec config"),
    ("config_preset.npz", CorruptStreamError, "config_preset.npz: bad codec config .*unknown codec"),
    ("data_float.npz", CorruptStreamError, "data_float.npz: field 'data' must be a 1-D uint8"),
    ("outside.npz", CorruptStreamError, "outside.npz: block .* lies outside"),
    ("too_long.npz", CorruptStreamError, "too_long.npz: block 0 is 1000000 bits long"),
    ("offsets_2d.npz", CorruptStreamError, "offsets_2d.npz: field 'bit_offsets' must be a 1-D"),
    ("missing_key.npz", CorruptStreamError, r"missing_key.npz: not a memcomp encoded file \(missing \['tags'\]"),
    ("extra_key.npz", CorruptStreamError, r"extra_key.npz: .*unexpected \['extra'\]"),
    ("no_state.npz", CorruptStreamError, "no_state.npz: cpack.skku is stateful"),
    ("gb_length.npz", CorruptStreamError, "gb_length.npz: array 'data': the header describes 1073741824"),
    ("missing.npz", FileNotFoundError, "missing.npz"),
    ("emptydir", IsADirectoryError, "emptydir"),
]:
    case(f"encoded-load-{_file}", lambda c, f=_file: Encoded.load(c / f), _exc, _match)
case(
    "encoded-load-directory-offset-past-end",
    lambda c: Encoded.load(c / "bad_directory.npz"),
    CorruptStreamError,
    "bad_directory.npz",
)
case(
    "encoded-load-good",
    lambda c: memcomp.get_codec("bdi").decode(Encoded.load(c / "good.npz")),
    check=lambda x: np.array_equal(x, B32[:64]),
)

_GOOD = memcomp.get_codec("bdi").encode(B32[:64]).to_bytes()
_HEAD = list(_BYTES_HEADER.unpack_from(_GOOD))


def _header(**changes):
    names = ["magic", "version", "flags", "lw", "tw", "block_bytes", "n", "n_data", "n_text", "n_state"]
    h = dict(zip(names, _HEAD))
    h.update(changes)
    return _BYTES_HEADER.pack(*[h[k] for k in names])


_BODY = _GOOD[_BYTES_HEADER.size :]
_CONFIG = _BODY[: _HEAD[8]]
for _id, _data, _exc, _match in [
    ("str", "abc", TypeError, "bytes-like"),
    ("list", [1, 2, 3], TypeError, "bytes-like"),
    ("none", None, TypeError, "bytes-like"),
    ("empty", b"", CorruptStreamError, "shorter than the 36 B header"),
    ("truncated", _GOOD[:-5], CorruptStreamError, "truncated or padded"),
    ("padded", _GOOD + b"\0", CorruptStreamError, "truncated or padded"),
    ("magic", b"XXXX" + _GOOD[4:], CorruptStreamError, "not memcomp encoded bytes"),
    ("version", _header(version=9) + _BODY, CorruptStreamError, "unsupported encoded-bytes version 9"),
    ("flags", _header(flags=64) + _BODY, CorruptStreamError, "malformed encoded bytes"),
    ("width", _header(lw=3) + _BODY, CorruptStreamError, "malformed encoded bytes"),
    ("config-not-json", _header(n_text=4, n=0, n_data=0, lw=0, tw=0) + b"{x}]", CorruptStreamError, "not valid JSON"),
    (
        "config-deep",
        _header(n_text=20000, n=0, n_data=0, lw=0, tw=0) + b"[" * 10000 + b"]" * 10000,
        CorruptStreamError,
        "nested too deeply",
    ),
    ("lengths-need-more-data", _header(n_data=_HEAD[7] - 1) + _BODY[:-1], CorruptStreamError, "the bit lengths need"),
    ("1GB-block-count", _header(n=1 << 30, lw=0, tw=0, n_data=0) + _CONFIG, None, None),
]:
    if _exc is None:
        case(
            f"encoded-from-bytes-{_id}-takes-no-memory",
            lambda c, d=_data: Encoded.from_bytes(d),
            check=lambda e: e.n_blocks == 1 << 30 and e.bit_lengths.strides == (0,),
        )
    else:
        case(f"encoded-from-bytes-{_id}", lambda c, d=_data: Encoded.from_bytes(d), _exc, _match)
case(
    "encoded-from-bytes-1GB-block-count-decode",
    lambda c: memcomp.get_codec("bdi").decode(Encoded.from_bytes(_header(n=1 << 40, lw=0, tw=0, n_data=0) + _CONFIG)),
    ValueError,
    "more than this machine's memory",
)
case(
    "encoded-from-bytes-zero-length-blocks-decode",
    lambda c: memcomp.get_codec("bdi.gem5").decode(
        Encoded.from_bytes(memcomp.get_codec("bdi.gem5").encode(np.zeros((4, 32), np.uint8)).to_bytes())
    ),
    check=lambda x: x.shape == (4, 32) and not x.any(),
)
case(
    "encoded-from-bytes-other-codec",
    lambda c: Encoded.from_bytes(_GOOD, memcomp.get_codec("fpc")),
    ValueError,
    "encoded by bdi.paper, not fpc.paper",
)
case(
    "encoded-from-bytes-no-config",
    lambda c: Encoded.from_bytes(memcomp.get_codec("bdi").encode(B32[:4]).to_bytes(config=False)),
    ValueError,
    "pass codec=",
)
case(
    "encoded-from-bytes-non-contiguous",
    lambda c: Encoded.from_bytes(np.frombuffer(_GOOD * 2, np.uint8)[::2]),
    ValueError,
    "not C-contiguous",
)
case(
    "encoded-from-bytes-read-only",
    lambda c: memcomp.get_codec("bdi").decode(Encoded.from_bytes(ro(np.frombuffer(_GOOD, np.uint8)))),
    check=lambda x: np.array_equal(x, B32[:64]),
)


def _rewrite_member(src, dst, member, change):
    """A copy of the zip ``src`` whose ``member`` holds ``change(its bytes)``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            raw = zin.read(info)
            zout.writestr(info.filename, change(raw) if info.filename == member else raw)
    return dst


def _unbalanced(raw):
    """An .npy member whose header's shape opens a bracket it never closes: "(64, " for "(64,)"."""
    assert b"'shape': (64,)" in raw
    return raw.replace(b"'shape': (64,)", b"'shape': (64, ")


def _npz_dump_unbalanced(c):
    np.savez(c / "dump64.npz", a=np.zeros(64, np.uint8))
    path = _rewrite_member(c / "dump64.npz", c / "unbalanced_dump.npz", "a.npy", _unbalanced)
    return memcomp.open_dumps(path, block_bytes=32)


def _bomb(c, data_bytes):
    """good.npz with a 'data' member whose .npy header promises 16 B but which inflates to
    ``data_bytes`` zeros (deflated: about a thousandth of that on disk)."""
    path = c / f"bomb_{data_bytes}.npz"
    with zipfile.ZipFile(c / "good.npz") as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in src.infolist():
            if info.filename != "data.npy":
                zf.writestr(info.filename, src.read(info))
                continue
            with zf.open("data.npy", "w", force_zip64=True) as w:
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(head, {"descr": "|u1", "fortran_order": False, "shape": (16,)})
                w.write(head.getvalue())
                for _ in range(data_bytes >> 20):
                    w.write(bytes(1 << 20))
    return path


def _load_peak(path):
    """(the error of Encoded.load(path), the peak of what Python allocated meanwhile)."""
    import tracemalloc

    tracemalloc.start()
    try:
        Encoded.load(path)
        err = None
    except CorruptStreamError as e:
        err = str(e)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return err, peak


def _claim_size(c, size):
    """good.npz deflated, its central directory saying 'data.npy' inflates to ``size`` bytes."""
    path = c / f"claims_{size}.npz"
    with zipfile.ZipFile(c / "good.npz") as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in src.infolist():
            zf.writestr(info.filename, src.read(info))
    raw = bytearray(path.read_bytes())
    at = raw.find(b"PK\x01\x02")
    while raw[at + 46 : at + 46 + 8] != b"data.npy":
        at = raw.find(b"PK\x01\x02", at + 4)
    raw[at + 24 : at + 28] = size.to_bytes(4, "little")  # the uncompressed size (SPEC: APPNOTE 4.3.12)
    path.write_bytes(bytes(raw))
    return path


def _zip_members(c, name, extra):
    """good.npz with its members stored, then each (member, compression) of ``extra`` again."""
    path = c / name
    with zipfile.ZipFile(c / "good.npz") as src, zipfile.ZipFile(path, "w") as zf:
        for info in src.infolist():
            if info.filename not in {m for m, _ in extra}:
                zf.writestr(info.filename, src.read(info))
        with pytest.warns(UserWarning, match="Duplicate name") if len(extra) > 1 else contextlib.nullcontext():
            for member, how in extra:
                zf.writestr(member, src.read(member), compress_type=how)
    return path


def _save_exact(c):
    memcomp.get_codec("bdi").encode(B32[:64]).save(c / "out.enc")
    assert not (c / "out.enc.npz").exists()
    return memcomp.get_codec("bdi").decode(Encoded.load(c / "out.enc"))


def _save_to_directory(c):
    try:
        memcomp.get_codec("bdi").encode(B32[:4]).save(c / "emptydir")
    finally:
        assert not (c / "emptydir.npz").exists()


case(
    "encoded-load-npy-header-unbalanced-bracket",
    lambda c: Encoded.load(_rewrite_member(c / "good.npz", c / "unbalanced.npz", "tags.npy", _unbalanced)),
    CorruptStreamError,
    r"unbalanced.npz: array 'tags': malformed .npy header \(SyntaxError",
)
case(
    "encoded-load-npy-header-python-2-long",
    lambda c: Encoded.load(
        _rewrite_member(c / "good.npz", c / "py2.npz", "tags.npy", lambda r: r.replace(b"(64,)", b"(64L,"))
    ),
    CorruptStreamError,
    "py2.npz: array 'tags': malformed .npy header",
)
case(
    "encoded-load-npy-header-invalid-escape",
    lambda c: Encoded.load(
        _rewrite_member(c / "good.npz", c / "escape.npz", "tags.npy", lambda r: r.replace(b"'<u4'", b"'\\d4'"))
    ),
    CorruptStreamError,
    r"escape.npz: array 'tags': malformed .npy header \(ValueError: an invalid escape sequence\)",
)
case(
    "encoded-load-npy-header-deprecated-dtype-alias",  # NumPy 2 warns about 'a4' before reading it as 'S4'
    lambda c: Encoded.load(
        _rewrite_member(c / "good.npz", c / "alias.npz", "tags.npy", lambda r: r.replace(b"'<u4'", b"'|a4'"))
    ),
    CorruptStreamError,
    "alias.npz: array 'tags': malformed .npy header .*descr [|]a4 is not a dtype NumPy writes",
)
case(
    "encoded-load-npy-header-negative-shape",  # -8 x -8 = 64 entries, as many as the member holds
    lambda c: Encoded.load(
        _rewrite_member(c / "good.npz", c / "negative.npz", "tags.npy", lambda r: r.replace(b"(64,), }", b"(-8,-8)}"))
    ),
    CorruptStreamError,
    r"negative.npz: array 'tags': malformed .npy header .*shape \(-8, -8\) is not a tuple of non-negative",
)
case(
    "encoded-load-member-twice",
    lambda c: Encoded.load(_zip_members(c, "twice.npz", [("tags.npy", zipfile.ZIP_STORED)] * 2)),
    CorruptStreamError,
    "twice.npz: .*member 'tags.npy' appears twice",
)
case(
    "encoded-load-member-bzip2",
    lambda c: Encoded.load(_zip_members(c, "bzip2.npz", [("tags.npy", zipfile.ZIP_BZIP2)])),
    CorruptStreamError,
    "bzip2.npz: .*member 'tags.npy' uses zip compression method 12",
)
case("npz-dump-npy-header-unbalanced-bracket", _npz_dump_unbalanced, ValueError, "unbalanced_dump.npz: .*malformed")
case(
    "encoded-load-zip-bomb-allocates-little",
    lambda c: _load_peak(_bomb(c, 128 << 20)),
    check=lambda r: "bomb_134217728.npz: array 'data': the header describes 16 x 1 B" in r[0] and r[1] < 16 << 20,
)
case(
    "encoded-load-member-claims-more-than-deflate-gives",
    lambda c: Encoded.load(_claim_size(c, 1 << 31)),
    CorruptStreamError,
    r"claims_2147483648.npz: .*member 'data.npy' claims 2147483648 B deflated into \d+ B",
)
case("encoded-save-exact-path", _save_exact, check=lambda x: np.array_equal(x, B32[:64]))
case("encoded-save-to-directory", _save_to_directory, IsADirectoryError, "emptydir")
case(
    "encoded-load-bytes-path",
    lambda c: memcomp.get_codec("bdi").decode(Encoded.load(bytes(c / "good.npz"))),
    check=lambda x: np.array_equal(x, B32[:64]),
)
case(
    "encoded-save-bytes-path",
    lambda c: memcomp.get_codec("bdi").encode(B32[:4]).save(bytes(c / "bytes_path.enc")),
    check=lambda r: r is None,
)
case("encoded-load-path-int", lambda c: Encoded.load(3), TypeError, "path must be a path")
case("encoded-to-bytes-config-int", lambda c: _BDI.encode(B32[:4]).to_bytes(config=1), TypeError, "config must be True")
case("encoded-save-path-int", lambda c: memcomp.get_codec("bdi").encode(B32[:4]).save(3), TypeError, "path must be")
for _n in (1 << 62, (1 << 64) - 1):
    case(
        f"encoded-from-bytes-block-count-{_n}",
        lambda c, n=_n: Encoded.from_bytes(_header(n=n, lw=0, tw=0, n_data=0) + _CONFIG),
        CorruptStreamError,
        f"malformed encoded bytes: {_n} blocks of 32 B, more than an array can hold",
    )


# ---- numcodecs and zarr -------------------------------------------------------------------------------
def _v1(buf):
    """A version 3 numcodecs buffer of a compressed chunk as version 1 (no flags, no CRC)."""
    magic, _, flags, nbytes, n_blocks, block_bytes = struct.unpack_from("<4sBBQQI", buf)
    assert flags == 0
    return struct.pack("<4sBQQI", magic, 1, nbytes, n_blocks, block_bytes) + buf[30:]


_MC = MemcompCodec("bdi", block_bytes=32)
_ENC = _MC.encode(RAW[:1000])
case("numcodecs-block-bytes-float", lambda c: MemcompCodec("bdi", block_bytes=32.7), TypeError, "block_bytes")
case("numcodecs-block-bytes-48", lambda c: MemcompCodec("bdi", block_bytes=48), ValueError, "block_bytes=48")
case("numcodecs-lossy", lambda c: MemcompCodec(codec("slc.opt")), ValueError, "lossy")
case("numcodecs-accounting-only", lambda c: MemcompCodec("bdi.cmu"), ValueError, "accounting-only")
case("numcodecs-unfitted", lambda c: MemcompCodec("e2mc"), ValueError, "has no model")
case("numcodecs-truncated", lambda c: _MC.decode(_ENC[:-3]), CorruptStreamError, "CRC-32")
case("numcodecs-header-only", lambda c: _MC.decode(_ENC[:20]), CorruptStreamError, "shorter than the 25 B header")
case(
    "numcodecs-flipped-byte-count",
    lambda c: _MC.decode(_ENC[:6] + bytes([_ENC[6] ^ 1]) + _ENC[7:]),
    CorruptStreamError,
    "CRC-32",
)
case(
    "numcodecs-version-1-still-read",
    lambda c: _MC.decode(_v1(_ENC)),
    check=lambda x: x.tobytes() == RAW[:1000].tobytes(),
)
case(
    "numcodecs-version-1-corrupt-count",
    lambda c: _MC.decode(_v1(_ENC)[:5] + struct.pack("<Q", 10**9) + _v1(_ENC)[13:]),
    CorruptStreamError,
    "corrupt header",
)
case(
    "numcodecs-version-9",
    lambda c: _MC.decode(_ENC[:4] + b"\x09" + _ENC[5:]),
    CorruptStreamError,
    "unsupported format version 9",
)
case("numcodecs-out-wrong-size", lambda c: _MC.decode(_ENC, out=np.empty(10, np.uint8)), ValueError, "out has 10 B")
case(
    "zarr-decode-bounded-by-chunk", lambda c: _MC._decode(_ENC, None, 999), CorruptStreamError, "the chunk holds 999 B"
)
case("zarr-decode-within-chunk", lambda c: _MC._decode(_ENC, None, 1000), check=lambda x: x.nbytes == 1000)
case(
    "numcodecs-read-only-input",
    lambda c: _MC.decode(_MC.encode(ro(RAW[:1000]))),
    check=lambda x: x.tobytes() == RAW[:1000].tobytes(),
)
case("numcodecs-options-list", lambda c: MemcompCodec("bdi", options=[1, 2]), TypeError, "options must be a mapping")
case("numcodecs-options-str", lambda c: MemcompCodec("bdi", options="endian=big"), TypeError, "options must be a")
case("numcodecs-options-int-key", lambda c: MemcompCodec("bdi", options={1: 2}), TypeError, "options must be a")
case("numcodecs-codec-int", lambda c: MemcompCodec(3), TypeError, "codec must be a codec name or a memcomp Codec")
case("numcodecs-from-config-list", lambda c: MemcompCodec.from_config([1]), TypeError, "config must be a mapping")


# ---- command line ------------------------------------------------------------------------------------
def cli(*argv, out=None):
    def run(c):
        args = [str(a).format(d=c) for a in argv]
        return main(args, out=out or io.StringIO())

    return run


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def _interrupted(c, monkeypatch=None):
    import memcomp.cli as mcli

    saved = mcli._COMMANDS["info"]
    mcli._COMMANDS["info"] = lambda args, out: (_ for _ in ()).throw(KeyboardInterrupt())
    try:
        return main(["info", str(c / "dump.bin"), "--block", "32"], out=io.StringIO())
    finally:
        mcli._COMMANDS["info"] = saved


_D = "{d}/dump.bin"
case("cli-ok", cli("compare", _D, "--block", "32", "--codecs", "bdi"), check=lambda rc: rc == 0)
case(
    "cli-table-names-in-codecs",
    cli("compare", _D, "--block", "32", "--codecs", "fpc.paper(endian=big),bestof(bdi.paper,fpc.paper(endian=big))"),
    check=lambda rc: rc == 0,
)
case("cli-empty-directory", cli("compare", "{d}/emptydir", "--block", "32"), check=lambda rc: rc == 2)
case("cli-missing-dump", cli("compare", "{d}/missing.bin"), check=lambda rc: rc == 2)
case(
    "cli-output-is-directory",
    cli("compare", _D, "--block", "32", "--codecs", "bdi", "-o", "{d}"),
    check=lambda rc: rc == 2,
)
case(
    "cli-output-disk-full",
    cli("compare", _D, "--block", "32", "--codecs", "bdi", "-o", "/dev/full"),
    check=lambda rc: rc == 2,
)
case("cli-broken-pipe", cli("codecs", out=_ClosedPipe()), check=lambda rc: rc == 141)
case("cli-interrupted", _interrupted, check=lambda rc: rc == 130)
case("cli-unknown-codec", cli("compare", _D, "--block", "32", "--codecs", "nope"), check=lambda rc: rc == 2)
case(
    "cli-unbalanced-codec-name",
    cli("compare", _D, "--block", "32", "--codecs", "fpc.paper(endian=big"),
    check=lambda rc: rc == 2,
)
case(
    "cli-model-directory",
    cli("compare", _D, "--block", "32", "--codecs", "e2mc", "--model", "{d}/emptydir"),
    check=lambda rc: rc == 2,
)
case(
    "cli-model-missing",
    cli("compare", _D, "--block", "32", "--codecs", "e2mc", "--model", "{d}/nope.json"),
    check=lambda rc: rc == 2,
)
case(
    "cli-model-malformed",
    cli("compare", _D, "--block", "32", "--codecs", "mpc", "--model", "{d}/mpc_deep.json"),
    check=lambda rc: rc == 2,
)
case("cli-odd-dump", cli("compare", "{d}/odd.bin", "--block", "32"), check=lambda rc: rc == 2)
case("cli-block-48", cli("compare", _D, "--block", "48"), SystemExit, "2")
case("cli-block-float", cli("compare", _D, "--block", "32.7"), SystemExit, "2")
case("cli-threads-negative", cli("compare", _D, "--threads", "-5"), SystemExit, "2")
case("cli-entropy-symbol-bits", cli("entropy", _D, "--block", "32", "--symbol-bits", "12"), check=lambda rc: rc == 2)
case("cli-slc-dtype", cli("slc", _D, "--block", "32", "--dtype", "nope"), check=lambda rc: rc == 2)
case("cli-train-mpc-output-directory", cli("train-mpc", _D, "-o", "{d}/emptydir"), check=lambda rc: rc == 2)


@pytest.mark.parametrize("fn,exc,match,check", CASES)
def test_bad_input(fn, exc, match, check, ctx):
    if exc is None:
        result = fn(ctx)
        assert check is None or check(result), result
        return
    with pytest.raises(exc, match=match) as info:
        fn(ctx)
    assert type(info.value) is exc, f"{type(info.value).__name__}: {info.value}"
    text = str(info.value)
    assert not any(leak in text for leak in LEAKS), text


def test_cli_errors_are_one_line_without_traceback(ctx, capsys):
    for argv in (
        ["compare", str(ctx / "dump.bin"), "--block", "32", "-o", "/dev/full"],
        ["compare", str(ctx / "dump.bin"), "--block", "32", "-o", str(ctx)],
        ["compare", str(ctx / "emptydir"), "--block", "32"],
        ["compare", str(ctx / "dump.bin"), "--block", "32", "--codecs", "mpc", "--model", str(ctx / "mpc_deep.json")],
    ):
        assert main(argv, out=io.StringIO()) == 2
        err = capsys.readouterr().err
        assert err.startswith("memcomp: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert "No space left" in _last_error(ctx, capsys, "-o", "/dev/full")
    assert "is a directory" in _last_error(ctx, capsys, "-o", str(ctx))
    assert main(["codecs"], out=_ClosedPipe()) == 141
    assert capsys.readouterr().err == ""


def _last_error(ctx, capsys, *extra):
    main(["compare", str(ctx / "dump.bin"), "--block", "32", "--codecs", "bdi", *extra], out=io.StringIO())
    return capsys.readouterr().err


def test_cli_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["toggles", "--help"])
    text = capsys.readouterr().out
    for fragment in ("(default: dram)", "(default: 32)", "(default: stream)", "(default: units)"):
        assert fragment in text, fragment


def test_matrix_is_large():
    assert len(CASES) > 200


def _memcomp_process(*argv, **kw):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "memcomp", *argv], stderr=subprocess.PIPE, text=True, **kw)


def _resident_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        return next((int(line.split()[1]) << 10 for line in status if line.startswith("VmRSS:")), 0)  # 0: exited


def test_cli_ctrl_c_exits_130_in_one_line():
    import contextlib
    import signal
    import subprocess
    import time

    # As at a terminal: Ctrl-C's default action, whatever the test process inherited (a worker of the suite may run
    # with SIGINT ignored, and a child started so keeps ignoring it, as a shell's background job does).
    p = _memcomp_process(
        "compare",
        "--sample-bytes",
        str(1 << 30),
        "--no-progress",
        stdout=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Interrupt the run, not Python's start: wait until the 1 GiB sample is being built (the imports alone stay near
    # 150 MB resident; on a loaded machine they take seconds, so a fixed sleep can land inside `import numpy`).
    deadline = time.monotonic() + 120
    while _resident_bytes(p.pid) < 384 << 20:
        assert p.poll() is None and time.monotonic() < deadline, "the run neither started nor ended"
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(p.pid, signal.SIGINT)  # (Popen.send_signal skips a process it has seen end)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err == "memcomp: interrupted\n", (p.returncode, err)


def test_cli_ctrl_c_while_the_libraries_load_exits_130_in_one_line(monkeypatch, capsys):
    # `python -m memcomp` and the `memcomp` command load the command line (NumPy, the extension)
    # inside run(), so a Ctrl-C then is handled as during a run.
    import builtins

    from memcomp.__main__ import run

    real_import = builtins.__import__

    def interrupted(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cli" and level == 1 and globals and globals.get("__name__") == "memcomp.__main__":
            raise KeyboardInterrupt
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert run() == 130
    assert capsys.readouterr().err == "memcomp: interrupted\n"


def test_cli_ctrl_c_while_numpy_loads_exits_130_in_one_line(monkeypatch, capsys):
    """Issue 34 item 7: a Ctrl-C inside NumPy's C extension initialisation reaches us as NumPy's
    47-line ImportError chained to the KeyboardInterrupt: still one line and 130."""
    import builtins

    from memcomp.__main__ import run

    real_import = builtins.__import__

    def interrupted(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cli" and level == 1 and globals and globals.get("__name__") == "memcomp.__main__":
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as e:  # as numpy/_core/__init__.py does: raise ImportError(msg) from exc
                raise ImportError("Importing the numpy C-extensions failed. ...\n" * 20) from e
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert run() == 130
    assert capsys.readouterr().err == "memcomp: interrupted\n"


def test_cli_import_error_not_from_ctrl_c_is_not_hidden(monkeypatch):
    import builtins

    from memcomp.__main__ import run

    real_import = builtins.__import__

    def broken(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cli" and level == 1 and globals and globals.get("__name__") == "memcomp.__main__":
            raise ImportError("a broken install")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", broken)
    with pytest.raises(ImportError, match="a broken install"):
        run()


@pytest.mark.parametrize("to_file", [False, True])
def test_cli_with_standard_output_closed(to_file, tmp_path):
    """Issue 34 item 7: `memcomp compare f >&-` died with AttributeError. A table bound for the
    closed standard output is refused in one line naming -o (exit 2); with -o the run works."""
    import os
    import subprocess
    import sys

    dump = tmp_path / "d.bin"
    RAW[:4096].tofile(dump)
    out = tmp_path / "t.csv"
    argv = [sys.executable, "-m", "memcomp", "compare", str(dump), "--block", "32", "--codecs", "bdi"]
    argv += ["-o", str(out)] if to_file else []
    r = subprocess.run(argv, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
    if to_file:
        assert r.returncode == 0 and r.stderr == "" and "bdi.paper" in out.read_text()
    else:
        assert (
            r.returncode == 2
            and r.stderr == "memcomp: error: cannot write the standard output: it is closed; give -o FILE\n"
        )


def test_import_memcomp_loads_nothing_heavy():
    # What `python -m memcomp` runs before run() can catch a Ctrl-C: the package's own import.
    import subprocess
    import sys

    code = "import sys, memcomp; print(sorted({'numpy', 'memcomp._core', 'memcomp.codecs'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"
    code = "import sys, memcomp; memcomp.get_codec; print('memcomp._core' in sys.modules, memcomp.toggles.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "True memcomp.toggles\n"  # names load on first use
    assert sorted(memcomp.__all__) == sorted(memcomp._WHERE)  # every public name, and each loads
    assert all(getattr(memcomp, name) is not None for name in memcomp.__all__)


def test_cli_closed_pipe_exits_quietly():
    import subprocess

    p = _memcomp_process("codecs", stdout=subprocess.PIPE)
    p.stdout.close()  # the reader goes away before the table is written (memcomp codecs | head -0)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 141 and err == "", (p.returncode, err)
