"""Every SIMD fast path equals its scalar reference bit for bit (issue 15). The core picks its
kernels at run time from one kernel table per tier (issue 36: ``memcomp.simd_tier()``, by default
the CPU's highest of scalar, avx2, avx512); ``_core.set_simd(False)`` (or MEMCOMP_SIMD=0) runs the
portable scalar code instead, ``memcomp.set_simd_tier`` (or MEMCOMP_SIMD=scalar|avx2|avx512) picks
a tier, and each tier the CPU has is compared. Every preset under hypothesis-drawn option combinations,
block sizes and data (random, adversarial, realistic, and values on every delta boundary) must
measure, encode and decode the same either way, so a new fast path is covered by construction."""

import contextlib
import csv
import dataclasses
import functools
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import _core
from test_mpc_codec import random_model
from test_option_space import _value

NAMES = memcomp.codec_names()


@contextlib.contextmanager
def scalar():
    _core.set_simd(False)
    try:
        yield
    finally:
        _core.set_simd(True)


@contextlib.contextmanager
def avx2_only():
    _core.set_simd_avx512(False)
    try:
        yield
    finally:
        _core.set_simd_avx512(True)


#: The tiers, lowest first, and the ones this CPU has.
TIERS = ("scalar", "avx2", "avx512")
SUPPORTED = TIERS[: TIERS.index(memcomp.simd_tier_supported()) + 1]


@contextlib.contextmanager
def at_tier(name):
    """The kernels of tier `name` (scalar: no ISA kernels, the portable shortcuts on)."""
    memcomp.set_simd_tier(name)
    try:
        yield
    finally:
        memcomp.set_simd_tier(memcomp.simd_tier_supported())


def tiers():
    """Every tier this CPU has, each as a context."""
    return [functools.partial(at_tier, t) for t in SUPPORTED]


def boundary_blocks(B, seed):
    """Blocks of k-byte elements (k = 2, 4, 8) at the edges of every d-byte range, as immediates
    and as deltas from a base, in both byte orders: the cases a vector compare gets wrong first."""
    rng = np.random.default_rng(seed)
    out = []
    for k in (2, 4, 8):
        n = B // k
        for d in (1, 2, 4):
            if d >= k:
                continue
            h = 1 << (8 * d - 1)
            edges = np.array([-h - 1, -h, -h + 1, -1, 0, 1, h - 2, h - 1, h, h + 1], dtype=np.int64)
            for _ in range(12):
                base = np.uint64(int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2)))
                v = rng.choice(edges, n).view(np.uint64)
                as_delta = rng.random(n) < 0.7
                vals = np.where(as_delta, v + base, v)  # wraps modulo 2^64
                if rng.random() < 0.5:
                    vals[0] = base  # the base first, or after some immediates
                u = (vals & np.uint64((1 << (8 * k)) - 1 if k < 8 else (1 << 64) - 1)).astype(f"<u{k}")
                out.extend(np.frombuffer(u.astype(f"{order}u{k}").tobytes(), np.uint8) for order in "<>")
    return np.stack(out)


def _blocks(data, B):
    return _mixed(B, data.draw(st.integers(0, 2**16), label="seed"))


def _mixed(B, seed):
    rng = np.random.default_rng(seed)
    kinds = [
        boundary_blocks(B, seed),
        adversarial(B, seed),
        realistic(B, max(1 << 13, 64 * B), seed=seed % 7)[:200],
        rng.integers(0, 256, (40, B), dtype=np.uint8) & rng.integers(0, 256, (40, 1), dtype=np.uint8),
    ]
    x = np.concatenate(kinds)
    return np.ascontiguousarray(x[rng.permutation(len(x))])


def _reference(codec, x):
    """Sizes, streams and decoded blocks of the scalar reference (set_simd(False))."""
    with scalar():
        ref = codec.measure(x, threads=1)
        ref_enc = codec.encode(x, threads=1) if codec.exact else None
        ref_dec = codec.decode(ref_enc, threads=1) if codec.exact else None
    return ref, ref_enc, ref_dec


def _assert_same(codec, x, tier_names=None, reference=None):
    ref, ref_enc, ref_dec = reference or _reference(codec, x)
    for tier in tiers() if tier_names is None else [functools.partial(at_tier, t) for t in tier_names]:
        with tier():
            got = codec.measure(x, threads=2)
            for col in ("size_bits", "payload_bits", "meta_bits", "header_bits", "tag_bits", "mode"):
                assert np.array_equal(getattr(got, col), getattr(ref, col)), (codec.name, tier, col)
            if ref_enc is None:
                continue
            enc = codec.encode(x, threads=2)
            assert enc.data.tobytes() == ref_enc.data.tobytes(), (codec.name, tier)
            assert np.array_equal(enc.tags, ref_enc.tags) and np.array_equal(enc.bit_lengths, ref_enc.bit_lengths)
            assert np.array_equal(codec.decode(enc, threads=2), ref_dec), (codec.name, tier)


def test_the_switch_works():
    assert _core.simd_enabled()
    with scalar():
        assert not _core.simd_enabled() and not _core.simd_avx2() and not _core.simd_avx512()
    assert _core.simd_enabled()
    avx2 = _core.simd_avx2()
    with avx2_only():
        assert not _core.simd_avx512() and _core.simd_avx2() == avx2
    flags = _cpu_flags()
    if flags is not None:  # the tier runs exactly where the CPU has all of it
        assert _core.simd_avx512() == (flags >= AVX512_TIER)
        assert (memcomp.simd_tier_supported() == "avx512") == (flags >= AVX512_TIER)
        assert (memcomp.simd_tier_supported() != "scalar") == (flags >= AVX2_TIER)


AVX2_TIER = {"avx2", "bmi1", "bmi2", "popcnt", "ssse3"}
AVX512_TIER = {"avx2", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512vbmi", "avx512_bitalg"}
AVX512_TIER |= {"avx512_vpopcntdq", "gfni"}


def _cpu_flags():
    """The CPU's feature flags (Linux on x86), or None."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((line for line in f if line.startswith("flags")), None)
    except OSError:
        return None
    return set(line.split(":", 1)[1].split()) if line else None


_REFERENCES: dict = {}


@pytest.mark.parametrize("tier", SUPPORTED)
@pytest.mark.parametrize(
    "name,B", [(n, B) for n in NAMES for B in memcomp.VALID_BLOCK_BYTES if memcomp.get_codec(n).supports(B)]
)
def test_presets_equal_the_scalar_reference(name, B, tier):
    """Each tier the CPU has (memcomp.set_simd_tier) x every preset x every block size: the same
    sizes, streams and decoded blocks as the scalar reference on boundary, adversarial, random and
    realistic (memcomp.workloads.sample_dump) blocks."""
    codec = memcomp.get_codec(name)
    if codec.requires_fit:
        codec = codec.fit(realistic(B, 1 << 14, seed=1))
    rng = np.random.default_rng(B)
    x = np.concatenate(
        [
            boundary_blocks(B, 1),
            adversarial(B, 2),
            rng.integers(0, 256, (64, B), dtype=np.uint8),
            realistic(B, 1 << 16, seed=3),
        ]
    )
    x = np.ascontiguousarray(x)
    if (name, B) not in _REFERENCES:  # one reference for every tier's case
        _REFERENCES.clear()
        _REFERENCES[name, B] = _reference(codec, x)
    _assert_same(codec, x, [tier], _REFERENCES[name, B])


def test_tiers_name_their_choices():
    """set_simd_tier takes the tiers by name, up to the CPU's; simd_tier reports the active one."""
    assert memcomp.simd_tier() == memcomp.simd_tier_supported() == SUPPORTED[-1]
    for t in SUPPORTED:
        with at_tier(t):
            assert memcomp.simd_tier() == t and _core.simd_enabled()
            assert _core.simd_avx2() == (t != "scalar") and _core.simd_avx512() == (t == "avx512")
            with scalar():
                assert memcomp.simd_tier() == "scalar"
            assert memcomp.simd_tier() == t  # set_simd(True) brings the tier back
    assert memcomp.simd_tier() == SUPPORTED[-1]
    with pytest.raises(ValueError, match=r"'avx1' is none of scalar, avx2, avx512 \(this CPU has up to "):
        memcomp.set_simd_tier("avx1")
    with pytest.raises(TypeError):
        memcomp.set_simd_tier(2)
    for t in TIERS[len(SUPPORTED) :]:  # above the CPU (none on an AVX-512 machine)
        with pytest.raises(ValueError, match=f"SIMD tier {t} is above this CPU's highest, {SUPPORTED[-1]}"):
            memcomp.set_simd_tier(t)
    assert memcomp.simd_tier() == SUPPORTED[-1]


@pytest.mark.parametrize("preset", NAMES)
@given(data=st.data())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_every_option_combination_equals_the_scalar_reference(preset, data):
    space = _core.option_space(preset)
    opts = {}
    for key in sorted(space):
        d = space[key]
        if d["kind"] == "string" or not data.draw(st.booleans(), label=f"set {key}"):
            continue
        opts[key] = _value(data, key, d)
    try:
        codec = memcomp.get_codec(preset, **opts)
    except ValueError:
        assume(False)
    sizes = [b for b in memcomp.VALID_BLOCK_BYTES if codec.supports(b)]
    assume(sizes)
    B = data.draw(st.sampled_from(sizes), label="block_bytes")
    if codec.requires_fit:
        try:
            codec = codec.fit(realistic(B, 1 << 14, seed=1))
        except ValueError:
            assume(False)  # options no model fits (e.g. max_len below the code's depth), with a message
    _assert_same(codec, _blocks(data, B))


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), select=st.sampled_from(["rtl", "min_bits"]))
@settings(max_examples=25, deadline=None)
def test_random_mpc_models_equal_the_scalar_reference(seed, n, select):
    """Models of any shape (base trees, shifts -8..8 in up to 17 groups, any scan) through the
    vector module form: measure, encode and decode equal the scalar path."""
    rng = np.random.default_rng(seed)
    classes = sorted(rng.choice(np.arange(2, 7), n, replace=False).tolist())
    model = random_model(rng, classes)
    codec = memcomp.get_codec("mpc.cal22_rtl", select=select, model=json.dumps(model))
    _assert_same(codec, _mixed(32, seed % 2**16))


@pytest.mark.parametrize("push", ["unmatched", "literal", "nonnarrow", "nonzero"])
@pytest.mark.parametrize(
    "dictionary,init", [("fifo", "empty"), ("fifo", "zeros"), ("deque", "zeros"), ("fill", "empty"), ("block", "empty")]
)
@pytest.mark.parametrize("B", [16, 32, 64, 128])
def test_cpack_dictionary_grid_equals_the_scalar_reference(push, dictionary, init, B):
    """C-Pack's kernels (every earlier word as a set for fresh dictionaries up to 64 B, an index
    by upper half for push=literal, the stepped dictionary otherwise) against the scalar
    word-by-word search, both byte orders, fresh and persistent dictionaries; a persistent one
    also in chunks that resume, against one batch."""
    for endian in ("little", "big"):
        for persistent in (False, True) if dictionary != "block" else (False,):
            codec = memcomp.get_codec(
                "cpack.paper", push=push, dictionary=dictionary, init=init, endian=endian, persistent=persistent
            )
            x = _mixed(B, B + len(push))
            _assert_same(codec, x)
            if persistent:
                whole = codec.measure(x).size_bits
                half = len(x) // 2
                parts = [codec.measure(x[:half]).size_bits, codec.measure(x[half:], resume=True).size_bits]
                assert np.array_equal(np.concatenate(parts), whole)


def _decode_or_error(codec, enc):
    """The decoded blocks, or the error: the index of the block it names, and its message."""
    try:
        return codec.decode(enc, threads=1), None
    except memcomp.CorruptStreamError as e:
        return None, (int(re.search(r"block (\d+)", str(e)).group(1)), str(e))


@pytest.mark.parametrize(
    "name,options,B",
    [
        ("e2mc.paper", {}, 128),
        ("e2mc.paper", {"pdw": 2}, 128),
        ("e2mc.paper", {"pdw": 8}, 128),
        ("bdi.paper", {"encoding": "inband"}, 128),
        ("bdi.paper", {"encoding": "inband", "endian": "big"}, 128),
        ("fpc.paper", {}, 128),
        ("fpc.paper", {"endian": "big"}, 128),
        ("fib.ours", {}, 128),
        ("cpack.paper", {}, 128),
        ("cpack.paper", {"endian": "big", "dictionary": "deque", "init": "zeros"}, 128),
        ("cpack.paper", {"dictionary": "fill", "push": "nonzero"}, 128),
        ("bpc.isca16", {}, 128),
        ("bpc.isca16", {"code_map": "kim", "endian": "big"}, 64),
        ("bpc.isca16", {"precedence": "liu"}, 32),
        ("bpc.isca16", {"delta_bits": 32}, 128),
    ],
)
def test_damaged_streams_decode_alike(name, options, B):
    """E2MC decodes the PDW segments of a block side by side, BDI unpacks its deltas with byte
    shuffles, FPC, C-Pack and Fibonacci decode 24 blocks side by side (lanes of registers), BPC
    decodes a block's symbols without a branch per class: every run of blocks with damaged
    streams (bits flipped anywhere: pointers, pads, encodings, masks, prefixes, codewords,
    planes) is refused with the same error, naming the same first bad block, or decoded to the
    same blocks, exactly as the scalar reference does."""
    x = realistic(B, 1 << 14, seed=5)
    codec = memcomp.get_codec(name, **options)
    codec = codec.fit(x) if codec.requires_fit else codec
    enc = codec.encode(x[:64])
    rng = np.random.default_rng(len(options) + len(name))
    outcomes = set()
    for trial in range(400):
        j = int(rng.integers(24))  # blocks j .. j + 39 (a group of lanes and more), one or two damaged
        data = enc.data.copy()
        for i in rng.choice(40, int(rng.integers(1, 3)), replace=False) + j:
            off, n = int(enc.bit_offsets[i]), int(enc.bit_lengths[i])
            for bit in rng.integers(off, off + n, int(rng.integers(1, 4))):
                data[bit // 8] ^= np.uint8(0x80 >> (bit % 8))
        run = dataclasses.replace(
            enc,
            data=data,
            bit_offsets=enc.bit_offsets[j : j + 40],
            bit_lengths=enc.bit_lengths[j : j + 40],
            tags=enc.tags[j : j + 40],
        )
        got, got_bad = _decode_or_error(codec, run)
        with scalar():
            ref, ref_bad = _decode_or_error(codec, run)
        assert (got_bad is None) == (ref_bad is None), trial
        assert got_bad is None or got_bad[0] == ref_bad[0], trial
        if name.startswith("bpc"):  # its fast decoder hands every stream it doubts to the scalar one
            assert got_bad == ref_bad, trial
        assert got is None or np.array_equal(got, ref), trial
        outcomes.add(got is None)
    assert outcomes == {True, False}  # both refusals and decodable damage were met


def _lower(a, b):
    return a if TIERS.index(a) <= TIERS.index(b) else b


@pytest.mark.parametrize(
    "env,tier,enabled",
    [
        ("0", "scalar", False),  # the whole scalar reference
        ("scalar", "scalar", True),  # no ISA kernels, the shortcuts on
        ("avx2", _lower("avx2", SUPPORTED[-1]), True),
        ("avx512", SUPPORTED[-1], True),
        ("", SUPPORTED[-1], True),  # unset: the CPU's highest
    ],
)
def test_the_environment_caps_the_tier(env, tier, enabled):
    """MEMCOMP_SIMD at load time: 0 is set_simd(False); scalar, avx2, avx512 cap the tier at the
    CPU's."""
    code = "import memcomp; from memcomp import _core; print(memcomp.simd_tier(), _core.simd_enabled())"
    r = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "MEMCOMP_SIMD": env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [tier, str(enabled)]


def test_info_reports_the_tiers():
    """memcomp info: the active tier and the CPU's highest, as columns of every row."""
    from memcomp.cli import main

    for t in SUPPORTED:
        out = io.StringIO()
        with at_tier(t):
            assert main(["info", "--csv", "--sample-bytes", "65536"], out=out) == 0
        rows = list(csv.DictReader(io.StringIO(out.getvalue())))
        assert rows and all(r["simd_tier"] == t and r["simd_tier_supported"] == SUPPORTED[-1] for r in rows)
