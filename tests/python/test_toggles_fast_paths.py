"""Energy Control's fast path equals its reference bit for bit. The core runs EC as one sequential
scan over the blocks (runs of blocks sent raw whatever the state counted as one stream, with SIMD
kernels where the CPU has them); ``_core.set_simd(False)`` (or MEMCOMP_SIMD=0) runs the per-block
reference instead. Every option energy_control accepts, drawn by hypothesis, on random,
adversarial and realistic blocks and their codec streams, in chunks that carry the wire state,
must give the same decisions, per-block counts, totals and final state either way."""

import contextlib
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import _core
from memcomp import toggles as T
from test_fast_paths import SUPPORTED, at_tier  # the SIMD tiers this CPU has, and a switch to one

CODECS = ("bdi.paper", "fpc.paper", "cpack.paper", "fpc.mc", "bpc.isca16", "zca.paper")


@contextlib.contextmanager
def reference():
    _core.set_simd(False)
    try:
        yield
    finally:
        _core.set_simd(True)


def _bus(data) -> dict:
    """A bus: every option energy_control takes, each drawn or left to its default."""
    b = {}
    channel = data.draw(st.sampled_from(["noc", "dram"]), label="channel")
    b["channel"] = channel
    if channel == "noc":
        b["flit_bytes"] = data.draw(st.sampled_from([1, 2, 3, 4, 8, 12, 16, 24, 32, 64]), label="flit_bytes")
        b["init"] = data.draw(st.sampled_from([0, 1]), label="init")
    else:
        b["bus_bits"] = data.draw(st.sampled_from([8, 16, 32, 64]), label="bus_bits")
        b["burst_length"] = data.draw(st.sampled_from([1, 2, 4, 8, 16, 32]), label="burst_length")
        b["idle"] = data.draw(st.sampled_from(["high", "low"]), label="idle")
        dbi = data.draw(st.sampled_from([None, None, "dc", "ac"]), label="dbi")
        b["dbi"] = dbi
        if dbi == "ac":
            b["ac_threshold"] = data.draw(st.integers(0, 8), label="ac_threshold")
            b["ac_first"] = data.draw(st.sampled_from(["threshold", "no_invert"]), label="ac_first")
            b["ac_count_pin"] = data.draw(st.booleans(), label="ac_count_pin")
    b["pad"] = data.draw(st.sampled_from(["zero", "one", "hold"]), label="pad")
    b["mode"] = data.draw(st.sampled_from(["stream", "isolated"]), label="mode")
    return b


def _blocks(data, B: int) -> np.ndarray:
    seed = data.draw(st.integers(0, 2**16), label="seed")
    rng = np.random.default_rng(seed)
    kinds = [
        adversarial(B, seed)[: data.draw(st.integers(0, 120), label="adversarial")],
        realistic(B, max(1 << 13, 64 * B), seed=seed % 7)[: data.draw(st.integers(0, 300), label="realistic")],
        rng.integers(0, 256, (data.draw(st.integers(0, 40), label="random"), B), dtype=np.uint8),
        np.zeros((data.draw(st.integers(0, 30), label="zeros"), B), np.uint8),  # long runs of one form
    ]
    x = np.concatenate(kinds)
    if data.draw(st.booleans(), label="shuffle"):
        x = x[rng.permutation(len(x))]
    return np.ascontiguousarray(x)


def _ec_options(data, n: int, bus: dict) -> dict:
    """Every option energy_control takes for n blocks on `bus`, drawn."""
    if data.draw(st.booleans(), label="bu per block"):
        bu = np.random.default_rng(n).choice([0.0, 0.3, 0.5, 0.6, 0.9, 1.0], n)
    else:
        bu = data.draw(st.sampled_from([0.0, 0.5, 0.75, 1.0]), label="bu")
    ec = data.draw(st.sampled_from(["ec1", "ec2", "helps"]), label="ec")
    return dict(
        ec=ec,
        alpha=data.draw(st.sampled_from([1.0, 0.5, 0.9, 1.5, 4.0]), label="alpha") if ec != "helps" else 1.0,
        ratio=data.draw(st.sampled_from(["units", "bits"]), label="ratio"),
        per_block=data.draw(st.booleans(), label="per_block"),
        close=data.draw(st.booleans(), label="close"),
        bu=bu if ec != "helps" else 0.0,  # helps: no energy term, so no alpha or bu
        **bus,
    )


def _run(blocks, enc, chunks, kw):
    """EC over the blocks in consecutive calls, the state carried and the bus closed after the last."""
    n = len(blocks)
    out, state = [], None
    bu = kw.pop("bu")
    close = kw.pop("close")
    for k in range(chunks):
        b, e = n * k // chunks, n * (k + 1) // chunks
        part = dataclasses.replace(
            enc, bit_offsets=enc.bit_offsets[b:e], bit_lengths=enc.bit_lengths[b:e], tags=enc.tags[b:e]
        )
        bu_k = bu[b:e] if isinstance(bu, np.ndarray) else bu
        r = T.energy_control(blocks[b:e], part, bu=bu_k, state=state, close=close and k + 1 == chunks, **kw)
        out.append(r)
        state = r.state
    return out


def _assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.columns.keys() == w.columns.keys()
        for k in w.columns:
            assert g.columns[k].dtype == w.columns[k].dtype, k
            assert np.array_equal(g.columns[k], w.columns[k]), k
        assert g.sent.keys() == w.sent.keys()
        for k in w.sent:
            assert np.array_equal(g.sent[k], w.sent[k]), k
        assert g.totals == w.totals
        assert g.state == w.state


def _check(blocks, enc, chunks, kw):
    with reference():
        want = _run(blocks, enc, chunks, dict(kw))
    got = _run(blocks, enc, chunks, dict(kw))
    _assert_same(got, want)
    return got


def test_the_switch_selects_the_reference():
    blocks = realistic(32, 1 << 14, seed=2)
    enc = memcomp.get_codec("bdi.paper").encode(blocks, threads=1)
    with reference():
        assert not _core.simd_enabled()
        a = T.energy_control(blocks, enc, "ec2")
    b = T.energy_control(blocks, enc, "ec2")
    _assert_same([b], [a])


@pytest.mark.parametrize("name", ["bdi.paper", "fpc.paper"])
@pytest.mark.parametrize("per_block", [False, True])
@pytest.mark.parametrize("ratio", ["units", "bits"])
def test_the_benchmark_case(name, per_block, ratio):
    # bench_all.py's EC row: sample dump, 32-byte blocks, the default bus, one call.
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 20, seed=0), 32)
    enc = memcomp.get_codec(name).encode(blocks, threads=1)
    got = _check(blocks, enc, 1, dict(ec="ec2", bu=0.0, close=True, per_block=per_block, ratio=ratio))
    assert got[0].totals["blocks"] == len(blocks)


@given(data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_every_option_combination_equals_the_reference(data):
    name = data.draw(st.sampled_from(CODECS), label="codec")
    codec = memcomp.get_codec(name)
    B = data.draw(st.sampled_from([b for b in (16, 32, 64, 128, 256) if codec.supports(b)]), label="block_bytes")
    blocks = _blocks(data, B)
    enc = codec.encode(blocks, threads=1)
    bus = _bus(data)
    n = len(blocks)
    kw = _ec_options(data, n, bus)
    chunks = data.draw(st.integers(1, 3), label="chunks") if n else 1
    _check(blocks, enc, chunks, kw)


@given(data=st.data())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_hand_built_streams_equal_the_reference(data):
    # Streams of any length (empty, one bit, on and around every unit and the CR threshold,
    # longer than the block), the buffer ending with the last one.
    B = data.draw(st.sampled_from([16, 32, 64, 128, 256]), label="block_bytes")
    bus = _bus(data)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    edges = [0, 1, 7, 8, 9, 8 * B - 1, 8 * B, 8 * B + 1]
    for w in (8, 16, 32, 64, 128, 256, 512):
        edges += [w - 1, w, w + 1, 2 * w, 4 * w - 1, 8 * w, 32 * w + 1]
    n = data.draw(st.integers(0, 150), label="n")
    lens = np.where(rng.random(n) < 0.6, rng.choice(edges, n), rng.integers(0, 8 * B + 300, n)).astype(np.uint32)
    nbytes = (lens.astype(np.uint64) + 7) // 8
    offsets = np.concatenate([[0], np.cumsum(nbytes)[:-1]]).astype(np.uint64) * np.uint64(8)
    pattern = data.draw(st.sampled_from(["random", "zeros", "ones", "alternating"]), label="pattern")
    total = int(nbytes.sum())
    fill = {"zeros": 0x00, "ones": 0xFF, "alternating": 0xAA}.get(pattern)
    buf = rng.integers(0, 256, total, dtype=np.uint8) if fill is None else np.full(total, fill, np.uint8)
    enc = memcomp.Encoded(
        config={}, block_bytes=B, data=buf, bit_offsets=offsets, bit_lengths=lens, tags=np.zeros(n, np.uint8)
    )
    blocks = rng.integers(0, 256, (n, B), dtype=np.uint8)
    blocks[rng.random(n) < 0.3] = 0
    ec = data.draw(st.sampled_from(["ec1", "ec2", "helps"]), label="ec")
    kw = dict(
        ec=ec,
        alpha=data.draw(st.sampled_from([1.0, 0.5, 2.0]), label="alpha") if ec != "helps" else 1.0,
        ratio=data.draw(st.sampled_from(["units", "bits"]), label="ratio"),
        per_block=data.draw(st.booleans(), label="per_block"),
        close=data.draw(st.booleans(), label="close"),
        bu=data.draw(st.sampled_from([0.0, 0.9]), label="bu") if ec != "helps" else 0.0,
        **bus,
    )
    _check(blocks, enc, data.draw(st.integers(1, 3), label="chunks") if n else 1, kw)


@pytest.mark.parametrize("ec_ratio", ["units", "bits"])
@pytest.mark.parametrize("channel", ["noc", "dram"])
def test_compare_equals_the_reference(channel, ec_ratio):
    blocks = np.concatenate([adversarial(64, 3), realistic(64, 1 << 16, seed=4)])
    kw = dict(channel=channel, ec="ec2", ec_ratio=ec_ratio, chunk_blocks=333, threads=1)
    with reference():
        want = T.compare(blocks, ("bdi", "fpc", "cpack.mc"), **kw)
    got = T.compare(blocks, ("bdi", "fpc", "cpack.mc"), **kw)
    assert got.equals(want)


# ---- encode and Energy Control in one pass ---------------------------------------------------------

FUSED = ("bdi.paper", "fpc.paper", "cpack.paper", "cpack.skku", "bpc.isca16", "zca.paper", "e2mc.paper", "fib.ours")


def _fused_codec(name: str) -> memcomp.Codec:
    c = memcomp.get_codec(name)
    return c.fit(realistic(128, 1 << 14, seed=3)) if c.requires_fit else c


def _fused_run(blocks, codec, chunks, kw, chunk_blocks, threads):
    """_run with the blocks encoded inside EC, chunk_blocks at a time (a stateful codec's stream in
    one session)."""
    n, out, state, stream = len(blocks), [], None, codec.session()
    bu, close, bus = kw.pop("bu"), kw.pop("close"), {k: kw.pop(k) for k in list(kw) if k not in ("ec", "alpha")}
    per_block, ratio = bus.pop("per_block"), bus.pop("ratio")
    for k in range(chunks):
        b, e = n * k // chunks, n * (k + 1) // chunks
        bu_k = bu[b:e] if isinstance(bu, np.ndarray) else bu
        r = T._ec_result(
            *codec._encode_energy_control(
                blocks[b:e], T._bus_dict(bus), kw["ec"], kw["alpha"], bu_k, state,
                close and k + 1 == chunks, per_block, ratio, threads, stream, False, chunk_blocks,
            )
        )  # fmt: skip
        out.append(r)
        state = r.state
    return out


def _encoded_run(blocks, codec, chunks, kw):
    """_run over codec.encode of each call's blocks (a stateful codec resumes)."""
    n, out, state = len(blocks), [], None
    bu, close = kw.pop("bu"), kw.pop("close")
    for k in range(chunks):
        b, e = n * k // chunks, n * (k + 1) // chunks
        bu_k = bu[b:e] if isinstance(bu, np.ndarray) else bu
        enc = codec.encode(blocks[b:e], threads=1, resume=k > 0)
        r = T.energy_control(blocks[b:e], enc, bu=bu_k, state=state, close=close and k + 1 == chunks, **kw)
        out.append(r)
        state = r.state
    return out


@given(data=st.data())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_encode_and_ec_in_one_pass_equals_ec_over_the_streams(data):
    codec = _fused_codec(data.draw(st.sampled_from(FUSED), label="codec"))
    B = data.draw(st.sampled_from([b for b in (16, 32, 64, 128, 256) if codec.supports(b)]), label="block_bytes")
    blocks, bus = _blocks(data, B), _bus(data)
    n = len(blocks)
    kw = _ec_options(data, n, bus)
    chunks = data.draw(st.integers(1, 3), label="calls") if n else 1
    chunk_blocks = data.draw(st.sampled_from([0, 1, 2, 7, 64]), label="chunk_blocks")
    threads = data.draw(st.sampled_from([1, 2]), label="threads")
    want = _encoded_run(blocks, codec, chunks, dict(kw))
    _assert_same(_fused_run(blocks, codec, chunks, dict(kw), chunk_blocks, threads), want)


@pytest.mark.parametrize("name", ["bdi.paper", "cpack.skku"])
def test_encode_and_ec_in_one_pass_over_many_chunks(name):
    # the public call, in the core's own chunks (256 KiB of 32 B blocks: 8192 a chunk), a per-block bu
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 20, seed=1), 32)
    codec = memcomp.get_codec(name)
    bu = np.random.default_rng(0).uniform(0, 1, len(blocks))
    kw = dict(channel="dram", dbi="dc", ratio="bits")  # bits: a 32 B block's units ratio is 1 on a 32 B burst
    want = T.energy_control(blocks, codec.encode(blocks, threads=2), "ec1", bu, **kw)
    got = T.energy_control(blocks, codec, "ec1", bu, threads=2, **kw)
    _assert_same([got], [want])
    assert got.totals["blocks"] == len(blocks) == 32768 and 0 < got.totals["compressed"] < len(blocks)


def test_encode_and_ec_in_one_pass_holds_a_stateful_codec_throughout():
    # Another Python thread's calls on the same stateful codec wait for the whole pass: none lands
    # between two chunks (each would restart the dictionary the pass carries).
    import threading

    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(2 << 20, seed=4), 32)
    codec = memcomp.get_codec("cpack.skku")
    want = T.energy_control(blocks, codec.encode(blocks, threads=1), "ec2", ratio="bits")
    other = blocks[::-1].copy()
    stop = threading.Event()

    def disturb():
        while not stop.is_set():
            codec.measure(other[:64], threads=1)

    t = threading.Thread(target=disturb)
    t.start()
    try:
        got = [T.energy_control(blocks, codec, "ec2", ratio="bits", threads=1) for _ in range(3)]
    finally:
        stop.set()
        t.join()
    _assert_same(got, [want] * 3)


def _counts(blocks, enc, bus):
    """Bus counts of the raw blocks and of the streams, and Energy Control over both."""
    raw, comp = T.count(blocks, **bus), T.count(enc, **bus)
    return raw, comp, T.energy_control(blocks, enc, "ec2", per_block=True, **bus)


@pytest.mark.parametrize("tier", SUPPORTED)
@pytest.mark.parametrize(
    "bus",
    [
        dict(channel="noc", flit_bytes=32),
        dict(channel="noc", flit_bytes=8, init=1),
        dict(channel="dram", bus_bits=64, burst_length=8, dbi="dc"),
        dict(channel="dram", bus_bits=32, burst_length=8, dbi="ac", ac_threshold=2),
    ],
)
def test_bus_counts_equal_across_tiers(tier, bus):
    """Each tier the CPU has counts the same ones, zeros and toggles, per block and in total, and
    makes the same Energy Control decisions as the scalar reference (set_simd(False))."""
    rng = np.random.default_rng(9)
    blocks = np.ascontiguousarray(
        np.concatenate(
            [
                realistic(32, 1 << 16, seed=6),
                rng.integers(0, 256, (200, 32), dtype=np.uint8),
                np.zeros((40, 32), np.uint8),
                adversarial(32, 4),
            ]
        )
    )
    for name in ("bdi.paper", "fpc.paper"):
        enc = memcomp.get_codec(name).encode(blocks, threads=1)
        with reference():
            want = _counts(blocks, enc, bus)
        with at_tier(tier):
            got = _counts(blocks, enc, bus)
        for g, w in zip(got[:2], want[:2]):
            assert g.columns.keys() == w.columns.keys()
            for k in w.columns:
                assert np.array_equal(g.columns[k], w.columns[k]), (name, tier, k)
            assert g.stats == w.stats and g.state == w.state, (name, tier)
        _assert_same([got[2]], [want[2]])
