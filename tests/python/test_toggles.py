"""memcomp.toggles: bus energy (SPEC 2) against a NumPy bit-level oracle, the worked examples
W8/W8b/W8c/W9/W10 (tests/golden/toggles.json), the Energy Control property and Metadata
Consolidation round trips."""

import dataclasses
import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import toggles as T
from memcomp.energy import MODELS

GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "golden" / "toggles.json").read_text())


# ---- NumPy oracle ------------------------------------------------------------------------------


def _units(stream_bits: np.ndarray, width: int, n_units: int, pad: str, prev: np.ndarray) -> np.ndarray:
    """(n_units, width) wire bits of one transfer: the stream, then padding."""
    bits = np.empty(n_units * width, dtype=np.uint8)
    bits[: stream_bits.size] = stream_bits
    for t in range(stream_bits.size, bits.size):
        bits[t] = 0 if pad == "zero" else 1 if pad == "one" else (bits[t - width] if t >= width else prev[t])
    return bits.reshape(n_units, width)


def oracle(
    streams,
    *,
    channel="noc",
    flit_bytes=32,
    bus_bits=32,
    burst_length=8,
    pad="zero",
    mode="stream",
    init=0,
    idle="high",
    dbi=None,
):
    """Per-transfer dicts of toggles, t01, t10, zeros, ones, units, pin counts (dbi None or dc)."""
    noc = channel == "noc"
    width = 8 * flit_bytes if noc else bus_bits
    lanes = width // 8
    level = init if noc else (1 if idle == "high" else 0)
    start = np.full(width, level, dtype=np.uint8)
    start_pins = np.full(lanes, 1 if idle == "high" else 0, dtype=np.uint8)
    state, pins, is_idle = start.copy(), start_pins.copy(), True
    out = []
    for i, s in enumerate(streams):
        if mode == "isolated":
            state, pins, is_idle = start.copy(), start_pins.copy(), True
        r = dict(
            toggles=0,
            t01=0,
            t10=0,
            zeros=0,
            ones=0,
            units=0,
            pin_zeros=0,
            pin_ones=0,
            pin_t01=0,
            pin_t10=0,
            inversions=0,
        )
        if s.size:
            n = -(-s.size // width)
            r["units"] = n
            if not noc:
                r["units"] = -(-n // burst_length)
                n = r["units"] * burst_length
            u = _units(s, width, n, pad, state)
            if dbi == "dc":
                lane_ones = u.reshape(n, lanes, 8).sum(axis=2)
                inv = lane_ones < 4 if idle == "high" else lane_ones > 4
                u = u ^ np.repeat(inv, 8, axis=1).astype(np.uint8)
                asserted = 0 if idle == "high" else 1
                p = np.where(inv, asserted, 1 - asserted).astype(np.uint8)
                pp = np.vstack([pins[None, :], p])
                r["pin_t01"] = int(((pp[:-1] == 0) & (pp[1:] == 1)).sum())
                r["pin_t10"] = int(((pp[:-1] == 1) & (pp[1:] == 0)).sum())
                r["pin_ones"] = int(p.sum())
                r["pin_zeros"] = int(p.size - p.sum())
                r["inversions"] = int(inv.sum())
                pins = p[-1].copy()
            w = np.vstack([state[None, :], u])
            r["t01"] = int(((w[:-1] == 0) & (w[1:] == 1)).sum())
            r["t10"] = int(((w[:-1] == 1) & (w[1:] == 0)).sum())
            r["ones"] = int(u.sum())
            r["zeros"] = int(u.size - u.sum())
            state, is_idle = u[-1].copy(), False
        last = i + 1 == len(streams)
        if not noc and not is_idle and (mode == "isolated" or last):
            r["t01"] += int(((state == 0) & (start == 1)).sum())
            r["t10"] += int(((state == 1) & (start == 0)).sum())
            r["pin_t01"] += int(((pins == 0) & (start_pins == 1)).sum())
            r["pin_t10"] += int(((pins == 1) & (start_pins == 0)).sum())
            state, pins, is_idle = start.copy(), start_pins.copy(), True
        r["toggles"] = r["t01"] + r["t10"]
        out.append(r)
    return out


def stream_bits_of(enc) -> list:
    out = []
    for i in range(enc.n_blocks):
        off, n = int(enc.bit_offsets[i]), int(enc.bit_lengths[i])
        out.append(np.unpackbits(enc.data[off // 8 : off // 8 + (n + 7) // 8])[:n])
    return out


def raw_bits_of(blocks) -> list:
    return [np.unpackbits(b) for b in blocks]


@pytest.fixture(scope="module")
def blocks():
    rng = np.random.default_rng(5)
    parts = [
        rng.integers(0, 256, size=(40, 64), dtype=np.uint8),
        rng.integers(0, 40, size=(40, 16), dtype=np.int32).view(np.uint8).reshape(40, 64),
        np.zeros((8, 64), dtype=np.uint8),
        np.tile(np.array([0xFF, 0, 0x0F, 0xF0], dtype=np.uint8), (20, 16)),
    ]
    return np.ascontiguousarray(rng.permutation(np.vstack(parts)))


def _check(got, want, keys):
    for k in keys:
        assert got.columns[k].tolist() == [w[k] for w in want], k
        assert got.stats[k] == sum(w[k] for w in want), k


NOC_KEYS = ("toggles", "t01", "t10", "zeros", "ones", "units")
DRAM_KEYS = NOC_KEYS + ("pin_zeros", "pin_ones", "pin_t01", "pin_t10", "inversions")


@pytest.mark.parametrize("flit_bytes", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("pad", ["zero", "one", "hold"])
@pytest.mark.parametrize("mode", ["stream", "isolated"])
def test_noc_toggles_match_numpy_oracle(blocks, flit_bytes, pad, mode):
    bus = dict(channel="noc", flit_bytes=flit_bytes, pad=pad, mode=mode)
    _check(T.count(blocks, **bus), oracle(raw_bits_of(blocks), **bus), NOC_KEYS)
    for name in ("fpc", "cpack.mc", "bdi"):
        enc = memcomp.get_codec(name).encode(blocks)
        _check(T.count(enc, **bus), oracle(stream_bits_of(enc), **bus), NOC_KEYS)


@pytest.mark.parametrize("bus_bits", [8, 16, 32, 64])
@pytest.mark.parametrize("dbi", [None, "dc"])
@pytest.mark.parametrize("idle", ["high", "low"])
@pytest.mark.parametrize("mode", ["stream", "isolated"])
def test_dram_zeros_match_numpy_oracle(blocks, bus_bits, dbi, idle, mode):
    bus = dict(
        channel="dram", bus_bits=bus_bits, dbi=dbi, idle=idle, mode=mode, pad="hold" if bus_bits == 16 else "zero"
    )
    _check(T.count(blocks, **bus), oracle(raw_bits_of(blocks), **bus), DRAM_KEYS)
    enc = memcomp.get_codec("fpc").encode(blocks)
    got = T.count(enc, **bus)
    _check(got, oracle(stream_bits_of(enc), **bus), DRAM_KEYS)
    costly = "zeros" if idle == "high" else "ones"
    assert got.columns["energy"].tolist() == (got.columns[costly] + got.columns["pin_" + costly]).tolist()


def test_stream_state_continues_across_chunks(blocks):
    for bus in (dict(channel="noc", flit_bytes=16), dict(channel="dram", dbi="ac")):
        whole = T.count(blocks, **bus)
        a = T.count(blocks[:33], close=False, **bus)
        b = T.count(blocks[33:], state=a.state, **bus)
        assert (a.stats + b.stats).counts == whole.stats.counts
        assert (
            np.concatenate([a.columns["toggles"], b.columns["toggles"]]).tolist() == whole.columns["toggles"].tolist()
        )


# ---- golden --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", GOLDEN["dbi"], ids=lambda c: c["id"])
def test_golden_dbi(case):
    sent, pins, counts, state = T.drive(bytes.fromhex(case["data"]), **case["bus"])
    assert bytes(sent).hex().upper() == case["sent"]
    assert pins.tolist() == case["pins"]
    for k, v in case["expected"].items():
        assert counts[k] == v, k
    assert state.idle


def test_golden_w9():
    w9 = GOLDEN["w9"]
    blk = np.frombuffer(bytes.fromhex(w9["block"]), dtype=np.uint8).reshape(1, -1)
    assert blk.view("<u4").ravel().tolist() == [5, 6, 7, 5]
    for e in w9["raw_toggles"]:
        assert T.count(blk, flit_bytes=e["flit_bytes"], **w9["bus"]).stats["toggles"] == e["toggles"]
    for preset, bits in w9["streams"].items():
        codec = memcomp.get_codec(preset)
        enc = codec.encode(blk)
        assert "".join(map(str, stream_bits_of(enc)[0])) == bits
        assert codec.decode(enc).tobytes() == blk.tobytes()
        for e in w9["toggles"]:
            assert T.count(enc, flit_bytes=e["flit_bytes"], **w9["bus"]).stats["toggles"] == e[preset]


@pytest.mark.parametrize("case", GOLDEN["w10"]["cases"], ids=lambda c: f"cr{c['cr']}-bu{c['bu']}")
def test_golden_w10(case):
    w10 = GOLDEN["w10"]
    for ec in ("ec1", "ec2"):
        assert T.decide(w10["t0"], w10["t1"], case["cr"], ec=ec, bu=case["bu"]) == case[ec]


def test_gain():
    assert T.gain(0.0) == 1.0 and T.gain(0.5) == 1.0 and T.gain(0.75) == 4.0
    assert T.gain(1.0) == pytest.approx(100.0)


# ---- Energy Control ------------------------------------------------------------------------------


@pytest.mark.parametrize("channel", ["noc", "dram"])
@pytest.mark.parametrize("ec", ["ec1", "ec2"])
@pytest.mark.parametrize("bu", [0.0, 0.9])
def test_energy_control_never_increases_the_metric(blocks, channel, ec, bu):
    """Isolated mode (state-independent): per block E x D^k, D = 1 raw and 1/(g CR) compressed
    (compressed only where CR > 1), summed, is never above always-raw or always-compressed."""
    k = 1 if ec == "ec1" else 2
    g = T.gain(bu)
    bus = dict(channel=channel, mode="isolated", dbi="dc" if channel == "dram" else None)
    for name in ("fpc", "cpack", "fpc.mc", "bdi"):
        enc = memcomp.get_codec(name).encode(blocks)
        r = T.energy_control(blocks, enc, ec, bu, **bus)
        c = r.columns
        t0, t1, cr = c["t0"].astype(float), c["t1"].astype(float), c["cr"]
        comp = np.where(cr > 1, t1 / (g * cr) ** k, t0)
        cost_ec = np.where(c["compressed"], comp, t0).sum()
        assert cost_ec <= t0.sum() * (1 + 1e-12)
        assert cost_ec <= comp.sum() * (1 + 1e-12)
        # T0, T1 are the isolated transfers' metrics
        assert t0.tolist() == T.count(blocks, **bus).columns["energy"].tolist()
        assert t1.tolist() == T.count(enc, **bus).columns["energy"].tolist()
        assert c["compressed"].tolist() == [T.decide(a, b, x, ec, bu) for a, b, x in zip(t0, t1, cr)]
        assert r.totals["sent"]["energy"] == int(np.where(c["compressed"], t1, t0).sum())


def test_energy_control_stream_state_follows_the_form_sent(blocks):
    enc = memcomp.get_codec("cpack").encode(blocks)
    bus = dict(channel="noc", flit_bytes=8)
    r = T.energy_control(blocks, enc, "ec1", **bus)
    # replay: the sent forms as one stream of transfers give the same per-block toggles
    sent = [np.unpackbits(b) if not z else s for b, s, z in zip(blocks, stream_bits_of(enc), r.columns["compressed"])]
    want = oracle(sent, **bus)
    assert r.sent["toggles"].tolist() == [w["toggles"] for w in want]
    assert 0 < r.fraction_compressed < 1


def test_energy_control_totals_only_agree(blocks):
    """per_block=False: the same decisions, totals and state, without the per-block counts."""
    enc = memcomp.get_codec("bdi").encode(blocks)
    for bus in (dict(channel="noc", flit_bytes=32), dict(channel="dram", dbi="dc"), dict(channel="noc", pad="hold")):
        full = T.energy_control(blocks, enc, "ec2", **bus)
        lean = T.energy_control(blocks, enc, "ec2", per_block=False, **bus)
        assert list(lean.columns) == ["compressed"] and lean.sent == {}
        assert lean.columns["compressed"].tolist() == full.columns["compressed"].tolist()
        assert lean.totals == full.totals
        assert lean.totals["sent"]["energy"] == int(full.sent["energy"].sum())
        # the states carry on alike
        more = blocks[::-1].copy()
        enc2 = memcomp.get_codec("bdi").encode(more)
        a = T.energy_control(more, enc2, "ec2", state=full.state, **bus)
        b = T.energy_control(more, enc2, "ec2", state=lean.state, per_block=False, **bus)
        assert a.totals == b.totals


def test_energy_control_per_block_bu(blocks):
    enc = memcomp.get_codec("fpc").encode(blocks)
    bu = np.where(np.arange(blocks.shape[0]) % 2 == 0, 0.0, 0.99)
    r = T.energy_control(blocks, enc, "ec1", bu, channel="noc", mode="isolated")
    lo = T.energy_control(blocks, enc, "ec1", 0.0, channel="noc", mode="isolated")
    hi = T.energy_control(blocks, enc, "ec1", 0.99, channel="noc", mode="isolated")
    want = np.where(bu > 0.5, hi.columns["compressed"], lo.columns["compressed"])
    assert r.columns["compressed"].tolist() == want.tolist()


def test_compare_rows_and_chunking(blocks):
    codecs = ["bdi", "fpc", "fpc.mc", "cpack", "cpack.mc"]
    a = T.compare(blocks, codecs, ec="ec2", chunk_blocks=1 << 16)
    b = T.compare(blocks, codecs, ec="ec2", chunk_blocks=17)
    num = a.select_dtypes("number").columns
    assert np.allclose(a[num].to_numpy(float), b[num].to_numpy(float), equal_nan=True)
    assert list(a["codec"]) == [
        c for c in ("bdi.paper", "fpc.paper", "fpc.mc", "cpack.paper", "cpack.mc") for _ in range(2)
    ]
    assert set(a["ec"]) == {"none", "ec2"}
    fpc = a[(a.codec == "fpc.paper") & (a.ec == "none")].iloc[0]
    s = memcomp.get_codec("fpc").measure(blocks)
    assert fpc["sent_bits"] == s.total_bits and fpc["cr"] == pytest.approx(s.cr())
    assert fpc["t_raw"] == T.count(blocks, channel="dram").stats["energy"]
    # cr_mag charges what the row sends: each stream in whole 32 B accesses (at least one), an
    # expanded one (more than 64 B here) as it is, never capped at B
    bits = memcomp.get_codec("fpc").encode(blocks).bit_lengths.astype(np.int64)
    charged = 32 * np.maximum(1, -(-bits // 256))
    assert (bits > 512).any() and fpc["cr_mag"] == pytest.approx(64 * len(blocks) / charged.sum())
    assert (a["cr_mag"] <= a["cr"] * (1 + 1e-12)).all()
    # MC keeps the size, changes the wires
    mc = a[(a.codec == "fpc.mc") & (a.ec == "none")].iloc[0]
    assert mc["sent_bits"] == fpc["sent_bits"]
    n = T.compare(blocks, ["fpc"], channel="noc", flit_bytes=8, mode="isolated")
    assert n.iloc[0]["metric"] == "toggles"


@pytest.mark.parametrize("u_min", [0, 1, 2])
@pytest.mark.parametrize("mag", [16, 32, 64])
def test_cr_mag_charges_what_the_row_sends(blocks, mag, u_min):
    """ZCA sends nothing for a zero block and the 64 B block for any other: at MAG m a zero block
    costs m * u_min bytes, another m * max(u_min, ceil(64 / m)). With EC ('helps', by bits) the
    sent forms are the same, so both rows charge alike; cr_mag <= cr always."""
    df = T.compare(blocks, ["zca"], ec="helps", ec_ratio="bits", mag=mag, u_min=u_min)
    zero = ~blocks.any(axis=1)
    assert 0 < zero.sum() < len(blocks)
    charged = np.where(zero, mag * u_min, mag * max(u_min, -(-64 // mag)))
    for _, row in df.iterrows():
        assert row["cr_mag"] == pytest.approx(64 * len(blocks) / charged.sum())
        assert row["cr"] == pytest.approx(64 * len(blocks) / (64 * (~zero).sum()))
        assert row["cr_mag"] <= row["cr"] and row["mag"] == mag and row["u_min"] == u_min


def test_scatter(blocks):
    df = T.scatter(blocks, ["fpc", "cpack.mc"], channel="noc", mode="isolated")
    assert len(df) == 2 * blocks.shape[0]
    f = df[df.codec == "fpc.paper"]
    enc = memcomp.get_codec("fpc").encode(blocks)
    assert f["bits"].tolist() == enc.bit_lengths.tolist()
    t_raw = T.count(blocks, channel="noc", mode="isolated").columns["energy"]
    t = T.count(enc, channel="noc", mode="isolated").columns["energy"]
    ok = t_raw > 0
    assert np.allclose(f["t_ratio"].to_numpy()[ok], t[ok] / t_raw[ok])
    assert np.isnan(f["t_ratio"].to_numpy()[~ok]).all() and (f["metric"] == "toggles").all()
    tog_raw = T.count(blocks, channel="noc", mode="isolated").columns["toggles"]
    tog = T.count(enc, channel="noc", mode="isolated").columns["toggles"]
    assert f["toggles"].tolist() == tog.tolist() and f["toggles_raw"].tolist() == tog_raw.tolist()
    ok = tog_raw > 0
    assert np.allclose(f["toggles_ratio"].to_numpy()[ok], tog[ok] / tog_raw[ok])
    e_raw = f["energy_pj_raw"].to_numpy()
    assert np.allclose(f["energy_ratio"][e_raw > 0], (f["energy_pj"] / f["energy_pj_raw"])[e_raw > 0])
    assert np.isnan(f["energy_ratio"][e_raw == 0]).all() and (e_raw == 0).any()
    assert "toggle_ratio" not in df.columns


def test_scatter_streams_chunks_and_keeps_every_kth_block(blocks, tmp_path):
    """A Dump read a few blocks at a time gives the array's rows, a stateful codec (cpack.cal22)
    continuing its session across chunks; every=k keeps exactly the rows of blocks k*i."""
    names = ["fpc", "cpack.cal22", "sc2"]  # sc2 fitted on the dump, streamed
    whole = T.scatter(blocks, names)
    assert len(whole) == 3 * blocks.shape[0]
    path = tmp_path / "d.bin"
    blocks.tofile(path)
    with memcomp.open_dump(path, blocks.shape[1]) as d:
        pd.testing.assert_frame_equal(T.scatter(d, names, chunk_blocks=7), whole)
        kept = T.scatter(d, names, chunk_blocks=5, every=3)
    want = whole[whole.block % 3 == 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, want)
    # the session matters: cpack.cal22 restarted per chunk would differ
    restarted = np.concatenate(
        [memcomp.get_codec("cpack.cal22").encode(blocks[i : i + 7]).bit_lengths for i in range(0, len(blocks), 7)]
    )
    assert not np.array_equal(restarted, whole[whole.codec == "cpack.cal22"]["bits"].to_numpy())
    for bad in (0, -1):
        with pytest.raises(ValueError, match="every"):
            T.scatter(blocks, ["fpc"], every=bad)
    with pytest.raises(ValueError, match="chunk_blocks"):
        T.scatter(blocks, ["fpc"], chunk_blocks=0)


# ---- Metadata Consolidation -----------------------------------------------------------------------


@pytest.mark.parametrize("B", [16, 32, 64, 128, 256])
@pytest.mark.parametrize("base,mc", [("fpc.paper", "fpc.mc"), ("cpack.paper", "cpack.mc")])
def test_mc_round_trip_same_size(B, base, mc):
    rng = np.random.default_rng(B)
    x = np.vstack(
        [
            rng.integers(0, 256, size=(30, B), dtype=np.uint8),
            rng.integers(-9, 9, size=(30, B // 4), dtype=np.int32).view(np.uint8).reshape(30, B),
            np.zeros((3, B), dtype=np.uint8),
        ]
    )
    a, b = memcomp.get_codec(base), memcomp.get_codec(mc)
    assert b.options["layout"] == "mc" and a.options["layout"] == "interleaved"
    ea, eb = a.encode(x), b.encode(x)
    assert ea.bit_lengths.tolist() == eb.bit_lengths.tolist()
    assert b.decode(eb).tobytes() == x.tobytes()
    assert b.measure(x).size_bits.tolist() == eb.bit_lengths.tolist()
    assert (
        memcomp.get_codec(base, layout="mc") == memcomp.get_codec(mc)
        or memcomp.get_codec(base, layout="mc").options == b.options
    )


def test_mc_presets_registered():
    names = memcomp.codec_names()
    assert "fpc.mc" in names and "cpack.mc" in names
    with pytest.raises(ValueError):
        memcomp.get_codec("bdi", layout="mc")  # BDI's stream is already consolidated


# ---- bad input --------------------------------------------------------------------------------------


def test_bad_input(blocks):
    with pytest.raises(TypeError):
        T.count(blocks.astype(np.int16))
    with pytest.raises(ValueError):
        T.count(blocks[:, ::2])
    with pytest.raises(ValueError):
        T.count(blocks, channel="pcie")
    with pytest.raises(ValueError):
        T.count(blocks, dbi="dc")  # noc
    with pytest.raises(ValueError):
        T.count(blocks, flit_byte=8)
    with pytest.raises(ValueError):
        T.count(blocks, channel="dram", bus_bits=24)
    with pytest.raises(TypeError):
        T.count(blocks, state="idle")
    with pytest.raises(TypeError):
        T.count([1, 2, 3])
    enc = memcomp.get_codec("fpc").encode(blocks)
    with pytest.raises(ValueError):
        T.energy_control(blocks, enc, "ec3")
    with pytest.raises(ValueError):
        T.energy_control(blocks, enc, "ec2", bu=1.5)
    with pytest.raises(ValueError):
        T.energy_control(blocks[:5], enc, "ec2")
    with pytest.raises(ValueError):
        T.energy_control(blocks, enc, "ec2", bu=np.zeros(3))
    with pytest.raises(ValueError):
        T.compare(blocks, ["fpc.cmu"])  # accounting-only: no stream
    with pytest.raises(ValueError):
        T.decide(1, 2, 3, ec="ec9")


@pytest.mark.parametrize("nbits", [2**64 - 1, 2**64 - 7, 17, -1, 2**70])
def test_drive_rejects_nbits_beyond_the_stream(nbits):
    """nbits near 2^64 used to wrap (nbits + 7) / 8 in the binding and segfault."""
    with pytest.raises(ValueError, match="nbits"):
        T.drive(b"\x01\x02", nbits)


def test_drive_rejects_non_integer_nbits():
    with pytest.raises(TypeError, match="nbits"):
        T.drive(b"\x01\x02", 3.0)
    d, p, c, st = T.drive(b"\x01\x02", np.int64(16), channel="noc", flit_bytes=2)
    assert c["bits"] == 16


def test_state_from_another_bus_is_refused():
    blocks = memcomp.as_blocks(np.arange(256, dtype=np.uint8), 32)
    r = T.count(blocks, channel="dram", bus_bits=32)
    T.count(blocks, channel="dram", bus_bits=32, state=r.state)  # the same bus: fine
    for other in (
        dict(channel="noc"),
        dict(channel="dram", bus_bits=64),
        dict(channel="dram", idle="low"),
        dict(channel="dram", dbi="dc"),
        dict(channel="dram", burst_length=4),
        dict(channel="dram", pad="one"),
        dict(channel="dram", mode="isolated"),
    ):  # every option: a state continues only its own bus
        with pytest.raises(ValueError, match="another bus configuration"):
            T.count(blocks, state=r.state, **other)


def test_binding_drive_checks_nbits_without_wrapping():
    stream = np.frombuffer(b"\x01\x02", np.uint8)
    for nbits in (2**64 - 1, 2**64 - 8, 17):
        with pytest.raises(ValueError, match="exceeds"):
            memcomp._core.bus_drive(stream, nbits, {}, None)


def test_ec_ratio_units_is_the_papers_and_bits_separates_ec1_from_ec2():
    """P2's CR is the effective bandwidth increase (raw units / compressed units, at most 4 for
    128 B in 32 B bursts). On DRAM whole bursts leave it at a few values, and EC1 and EC2 made
    identical decisions; ratio="bits" (8B / compressed bits) is offered beside it."""
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 20, seed=0), 128)[:4096]
    enc = memcomp.get_codec("cpack").encode(blocks)
    full = {r: T.energy_control(blocks, enc, "ec2", channel="dram", ratio=r) for r in ("units", "bits")}
    units = full["units"].columns
    assert np.array_equal(
        units["cr"], np.where(units["units_comp"] > 0, units["units_raw"] / np.maximum(units["units_comp"], 1), np.inf)
    )
    assert set(np.unique(units["cr"][np.isfinite(units["cr"])])) <= {0.8, 1.0, 128 / 96, 2.0, 4.0}
    bits = full["bits"].columns
    assert np.allclose(bits["cr"], np.where(enc.bit_lengths > 0, 1024 / np.maximum(enc.bit_lengths, 1), np.inf))
    differ = {}
    for r in ("units", "bits"):
        d = [
            T.energy_control(blocks, enc, k, channel="dram", ratio=r, per_block=False).columns["compressed"]
            for k in ("ec1", "ec2")
        ]
        differ[r] = int((d[0] != d[1]).sum())
        assert (d[0] <= d[1]).all()  # EC1 never compresses where EC2 does not
    assert differ["units"] == 0 and differ["bits"] > 0
    # a block that saves bits but no burst: sent raw by the paper's ratio
    t = memcomp.toggles.compare(blocks, ["cpack"], channel="dram", ec="ec2", ec_ratio="bits")
    u = memcomp.toggles.compare(blocks, ["cpack"], channel="dram", ec="ec2")
    assert t["ec_ratio"].iloc[1] == "bits" and u["ec_ratio"].iloc[1] == "units"
    assert t["fraction_compressed"].iloc[1] >= u["fraction_compressed"].iloc[1]
    with pytest.raises(ValueError, match="ratio"):
        T.energy_control(blocks, enc, "ec2", ratio="bytes")


def test_wire_states_compare_and_pickle(blocks):
    """States pickle (to Dask workers) and compare by value; a state continued after a round trip
    counts the same; a malformed pickle is refused."""
    import pickle

    bus = dict(channel="dram", dbi="ac", idle="low")
    first = T.count(blocks[:50], close=False, **bus)
    back = pickle.loads(pickle.dumps(first.state))
    assert back == first.state and back is not first.state and not (back != first.state)  # noqa: SIM202 (tests __ne__)
    assert back != T.count(blocks[:51], close=False, **bus).state or np.array_equal(blocks[49], blocks[50])
    assert first.state != 3
    a = T.count(blocks[50:], state=first.state, **bus)
    b = T.count(blocks[50:], state=back, **bus)
    assert a.stats == b.stats and a.state == b.state
    with pytest.raises(TypeError):
        hash(back)
    state = T.WireState.__new__(T.WireState)
    for bad in [(b"x", b"y", True, 0), (b"\0" * 64,), (b"\0" * 64, b"\0" * 8, True)]:
        with pytest.raises(ValueError, match="malformed WireState"):
            state.__setstate__(bad)


# ---- P2's baseline: compress only where it helps ---------------------------------------------------


@pytest.mark.parametrize(
    "bus",
    [
        dict(channel="dram"),
        dict(channel="dram", dbi="dc", idle="low"),
        dict(channel="noc", flit_bytes=32),
        dict(channel="noc", flit_bytes=32, mode="isolated", pad="one"),
    ],
)
@pytest.mark.parametrize("ratio", ["units", "bits"])
def test_helps_compresses_only_where_the_compressed_form_is_smaller(blocks, bus, ratio):
    """64 B blocks: raw = 512 bits = 2 bursts of 32 x 8 bits = 2 flits of 32 B; a stream of b bits
    takes ceil(b / 256) bursts or flits. So by units, compressed iff b <= 256 (1 unit, or 0 for an
    empty stream); by bits, iff b < 512. The sent forms, counted by the NumPy oracle, give every
    per-block and total count and T0/T1 are each form's metric from the state the sent forms leave."""
    enc = memcomp.get_codec("fpc").encode(blocks)
    bits = enc.bit_lengths.astype(np.int64)
    want = bits <= 256 if ratio == "units" else bits < 512
    assert 0 < want.sum() < len(want)
    r = T.energy_control(blocks, enc, "helps", ratio=ratio, **bus)
    assert r.columns["compressed"].tolist() == want.tolist()
    assert r.totals["compressed"] == int(want.sum()) and r.fraction_compressed == want.mean()
    streams, raws = stream_bits_of(enc), raw_bits_of(blocks)
    sent = [s if z else w for s, w, z in zip(streams, raws, want)]
    o = oracle(sent, **bus)
    for k in ("toggles", "zeros", "ones", "units", "pin_zeros", "inversions"):
        assert r.sent[k].tolist() == [x[k] for x in o], k
        assert r.totals["sent"][k] == sum(x[k] for x in o), k
    assert r.totals["sent_bits"] == int(np.where(want, bits, 512).sum()) and r.totals["raw_bits"] == 512 * len(bits)
    assert r.totals["sent_units"] == sum(x["units"] for x in o) and r.totals["raw_units"] == 2 * len(bits)
    cr = r.columns["cr"]
    if ratio == "units":
        units = -(-bits // 256)
        assert np.array_equal(cr, np.where(units > 0, 2 / np.maximum(units, 1), np.inf))
    else:
        assert np.array_equal(cr, np.where(bits > 0, 512 / np.maximum(bits, 1), np.inf))
    # T0 and T1 of block j: each form driven from the state the sent forms 0..j-1 left
    for j in (0, 1, 7, len(bits) - 1):
        prefix = sent[:j]
        t = [oracle(prefix + [f], **bus)[-1] for f in (raws[j], streams[j])]
        if bus["channel"] == "dram" and j < len(bits) - 1:  # the bus closes after the last block only
            t = [oracle(prefix + [f, raws[0]], **bus)[-2] for f in (raws[j], streams[j])]
        costly = {"noc": "toggles"}.get(bus["channel"], "zeros" if bus.get("idle", "high") == "high" else "ones")
        got = (r.columns["t0"][j], r.columns["t1"][j])
        want_t = [x[costly] + (x["pin_" + costly] if costly != "toggles" else 0) for x in t]
        assert list(got) == want_t, j


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_helps_is_energy_control_without_its_energy_term(data):
    """Where T0 > 0, EC1 with g = 100 (bu = 1) and alpha = 5e-324 compresses iff CR > 1, as
    'helps' does: g CR T0 >= 100 > alpha T1 for any T1 < 2^32. So up to the first block where T0 =
    0 < T1 and CR > 1 (EC1 then sends raw) the two agree on every column and count, and over a
    whole run without such a block on the totals and the state too. Also: chunks carrying the
    state equal one call, per_block=False the same totals, a Codec the same as its streams."""
    B = data.draw(st.sampled_from([32, 64, 128]), label="B")
    seed = data.draw(st.integers(0, 5), label="seed")
    rng = np.random.default_rng(seed)
    x = np.concatenate(
        [
            adversarial(B, seed)[rng.permutation(40)[: data.draw(st.integers(0, 40))]],
            realistic(B, 1 << 13, seed=seed)[: data.draw(st.integers(0, 30))],
            np.zeros((data.draw(st.integers(0, 4)), B), np.uint8),
        ]
    )
    blocks = np.ascontiguousarray(x[rng.permutation(len(x))])
    channel = data.draw(st.sampled_from(["noc", "dram"]), label="channel")
    bus = dict(channel=channel, mode=data.draw(st.sampled_from(["stream", "isolated"]), label="mode"))
    bus["pad"] = data.draw(st.sampled_from(["zero", "one", "hold"]), label="pad")
    if channel == "dram":
        bus["dbi"] = data.draw(st.sampled_from([None, "dc", "ac"]), label="dbi")
        bus["idle"] = data.draw(st.sampled_from(["high", "low"]), label="idle")
        bus["bus_bits"] = data.draw(st.sampled_from([16, 32, 64]), label="bus_bits")
    else:
        bus["flit_bytes"] = data.draw(st.sampled_from([4, 8, 32]), label="flit_bytes")
    ratio = data.draw(st.sampled_from(["units", "bits"]), label="ratio")
    codec = memcomp.get_codec(data.draw(st.sampled_from(["fpc", "bdi", "cpack.skku", "fpc.mc"]), label="codec"))
    enc = codec.encode(blocks)
    h = T.energy_control(blocks, enc, "helps", ratio=ratio, **bus)
    ref = T.energy_control(blocks, enc, "ec1", 1.0, 5e-324, ratio=ratio, **bus)
    c = ref.columns
    odd = np.flatnonzero((c["t0"] == 0) & (c["t1"] > 0) & (c["cr"] > 1))
    end = int(odd[0]) if odd.size else len(blocks)
    for k in ref.columns:
        assert np.array_equal(h.columns[k][:end], ref.columns[k][:end]), k
    for k in ref.sent:
        assert np.array_equal(h.sent[k][:end], ref.sent[k][:end]), k
    if end < len(blocks):
        assert h.columns["compressed"][end] and not ref.columns["compressed"][end]
    else:
        assert h.totals == ref.totals and h.state == ref.state
    lean = T.energy_control(blocks, enc, "helps", ratio=ratio, per_block=False, **bus)
    assert lean.totals == h.totals and lean.state == h.state and list(lean.columns) == ["compressed"]
    assert lean.columns["compressed"].tolist() == h.columns["compressed"].tolist()
    k = data.draw(st.integers(0, max(0, len(blocks) - 1)), label="split")  # the last call closes the bus
    parts = [
        dataclasses.replace(enc, bit_offsets=enc.bit_offsets[a:b], bit_lengths=enc.bit_lengths[a:b], tags=enc.tags[a:b])
        for a, b in ((0, k), (k, len(blocks)))
    ]
    first = T.energy_control(blocks[:k], parts[0], "helps", ratio=ratio, close=False, **bus)
    second = T.energy_control(blocks[k:], parts[1], "helps", ratio=ratio, state=first.state, **bus)
    for col in h.columns:
        assert np.concatenate([first.columns[col], second.columns[col]]).tolist() == h.columns[col].tolist(), col
    assert second.state == h.state
    fused = T.energy_control(blocks, memcomp.get_codec(codec.name), "helps", ratio=ratio, **bus)
    assert fused.totals == h.totals and fused.state == h.state
    for col in h.columns:
        assert np.array_equal(fused.columns[col], h.columns[col]), col


def test_helps_takes_no_energy_term(blocks):
    enc = memcomp.get_codec("fpc").encode(blocks)
    for kw in (dict(alpha=2.0), dict(bu=0.9), dict(bu=np.zeros(len(blocks)))):
        with pytest.raises(ValueError, match="energy term"):
            T.energy_control(blocks, enc, "helps", **kw)
        with pytest.raises(ValueError, match="energy term"):
            T.compare(blocks, ["fpc"], ec="helps", **kw)
        with pytest.raises(ValueError, match="energy term"):
            T.compare(blocks, ["fpc"], **kw)  # ec=None: every block compressed, nothing weighed
    with pytest.raises(ValueError, match="energy term"):
        T.decide(5, 9, 2.0, "helps", alpha=2.0)
    with pytest.raises(ValueError, match="'helps'"):
        T.energy_control(blocks, enc, "ec3")
    assert T.decide(5, 900, 1.01, "helps") and not T.decide(900, 5, 1.0, "helps") and T.decide(0, 9, 4.0, "helps")
    assert not T.decide(0, 9, 4.0, "ec2")  # the case where EC without an energy term differs


def test_compare_helps_row(blocks):
    df = T.compare(blocks, ["fpc"], ec="helps", ec_ratio="bits")
    assert df["ec"].tolist() == ["none", "helps"]
    row = df.iloc[1]
    bits = memcomp.get_codec("fpc").encode(blocks).bit_lengths.astype(np.int64)
    want = bits < 512  # 64 B blocks, by bits
    assert row["fraction_compressed"] == want.mean() and row["sent_bits"] == np.where(want, bits, 512).sum()
    assert row["ec_ratio"] == "bits" and row["ec_alpha"] is None and row["ec_bu"] is None
    assert row["cr"] >= df.iloc[0]["cr"] and row["cr"] > 1  # never sends a form longer than raw


# ---- every option changes the result on every path that takes it -------------------------------

BASE = dict(channel="dram", dbi="dc", idle="high", ec="ec2", ec_ratio="bits", alpha=1.0, bu=0.0, energy=None)
CHANGES = [
    ("ec_ratio", "units"),
    ("alpha", 4.0),
    ("bu", 0.9),
    ("ec", "ec1"),
    ("ec", "helps"),
    ("dbi", None),
    ("idle", "low"),
    ("energy", "ddr4"),
]
EC_OPTIONS = ("ec", "ec_ratio", "alpha", "bu")


@pytest.fixture(scope="module")
def mixed():
    return realistic(128, 1 << 18)


def _ec_kw(kw):
    """energy_control's arguments for compare-style options."""
    bus = {k: v for k, v in kw.items() if k in ("channel", "dbi", "idle")}
    return dict(ec=kw["ec"], ratio=kw["ec_ratio"], alpha=kw["alpha"], bu=kw["bu"], **bus)


def _reference_row(blocks, codec, kw):
    """compare's EC row from energy_control and the energy model by hand."""
    r = T.energy_control(blocks, memcomp.get_codec(codec).encode(blocks), **_ec_kw(kw))
    model = MODELS[kw["energy"] or ("gddr5" if kw["idle"] == "high" else "lpddr4")]
    return r, model.energy_pj(r.totals["sent"])


@pytest.mark.parametrize("option, value", CHANGES, ids=[f"{o}={v}" for o, v in CHANGES])
def test_each_option_changes_compare_and_energy_control(mixed, option, value):
    kws = [BASE, {**BASE, option: value}]
    rows = [T.compare(mixed, ["cpack"], **kw).iloc[-1] for kw in kws]
    for kw, row in zip(kws, rows):
        ref, pj = _reference_row(mixed, "cpack", kw)
        assert row["ec"] == kw["ec"] and row["fraction_compressed"] == ref.fraction_compressed
        assert row["t"] == ref.totals["sent"]["energy"] and row["sent_bits"] == ref.totals["sent_bits"]
        assert row["energy_pj"] == pytest.approx(pj)
    cols = ["fraction_compressed", "t", "energy_pj"]
    assert rows[0][cols].tolist() != rows[1][cols].tolist()
    if option == "energy":
        return
    # energy_control over an Encoded and over a Codec, in one pass
    enc = memcomp.get_codec("cpack").encode(mixed)
    for src in (enc, memcomp.get_codec("cpack")):
        a, b = (T.energy_control(mixed, src, per_block=False, **_ec_kw(kw)) for kw in kws)
        assert a.totals != b.totals
        if option in EC_OPTIONS:
            assert a.columns["compressed"].tolist() != b.columns["compressed"].tolist()
        assert b.totals == T.energy_control(mixed, enc, per_block=False, **_ec_kw(kws[1])).totals


@pytest.mark.parametrize("option, value", [c for c in CHANGES if c[0] not in EC_OPTIONS])
def test_each_option_changes_scatter(mixed, option, value):
    kws = [BASE, {**BASE, option: value}]
    frames = []
    for kw in kws:
        bus = {k: kw[k] for k in ("channel", "dbi", "idle")}
        df = T.scatter(mixed, ["cpack"], energy=kw["energy"], **bus)
        model = MODELS[kw["energy"] or ("gddr5" if kw["idle"] == "high" else "lpddr4")]
        sent = T.count(memcomp.get_codec("cpack").encode(mixed), **bus)
        assert df["t"].tolist() == sent.columns["energy"].tolist()
        raw = T.count(mixed, **bus).columns
        for ratio, of in (("t_ratio", "energy"), ("toggles_ratio", "toggles")):
            ok = raw[of] > 0
            assert ok.mean() > 0.8 and np.isnan(df[ratio][~ok]).all()
            assert np.allclose(df[ratio][ok], sent.columns[of][ok] / raw[of][ok])
        assert (df["metric"] == ("zeros_total" if kw["idle"] == "high" else "ones_total")).all()
        assert np.allclose(df["energy_pj"], model.energy_pj(sent.columns)) and (df["energy_model"] == model.name).all()
        frames.append(df)
    assert not np.array_equal(frames[0]["energy_pj"], frames[1]["energy_pj"])


@pytest.mark.parametrize("option, value", CHANGES, ids=[f"{o}={v}" for o, v in CHANGES])
def test_each_option_changes_dask_toggles_compare(mixed, option, value):
    pytest.importorskip("dask")
    import memcomp.dask as md

    kws = [BASE, {**BASE, option: value}]
    got = [md.toggles_compare(mixed, ["cpack"], partition_bytes=1 << 16, **kw) for kw in kws]
    for kw, g in zip(kws, got):
        want = T.compare(mixed, ["cpack"], **kw)
        num = want.select_dtypes("number").columns
        assert np.allclose(g[num].to_numpy(float), want[num].to_numpy(float), equal_nan=True)
    cols = ["fraction_compressed", "t", "energy_pj"]
    assert got[0].iloc[-1][cols].tolist() != got[1].iloc[-1][cols].tolist()


# ---- the figure: every axis names the column it plots ------------------------------------------


@pytest.fixture
def pyplot():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _points(ax) -> list:
    pts = np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
    return sorted(map(tuple, np.round(np.asarray(pts, dtype=float), 9)))


# What each axis must say, written out: T is zeros (data wires and DBI pins) on DRAM idling high,
# ones idling low, toggles on chip; pJ under the table's energy model.
Y_LABELS = {
    ("t_ratio", "zeros_total"): "zeros sent / zeros raw (data + DBI pins)",
    ("t_ratio", "ones_total"): "ones sent / ones raw (data + DBI pins)",
    ("t_ratio", "toggles"): "toggles sent / toggles raw (wire transitions)",
    "toggles_ratio": "toggles sent / toggles raw (data-wire transitions)",
    "energy_ratio": "energy sent / energy raw (pJ / pJ, {model})",
    "energy_pj_per_block": "energy sent per block (pJ, {model})",
}
X_LABELS = {
    ("cr", "dram"): "compression ratio (raw bits / bits sent)",
    ("cr", "noc"): "compression ratio (raw bits / bits sent)",
    ("cr_units", "dram"): "compression ratio (raw bursts / bursts sent)",
    ("cr_units", "noc"): "compression ratio (raw flits / flits sent)",
    ("cr_mag", "dram"): "compression ratio at MAG 32 B (raw bytes / bytes in accesses)",
    ("cr_mag", "noc"): "compression ratio at MAG 32 B (raw bytes / bytes in accesses)",
}
BUSES = {
    "dram-dc": (dict(channel="dram", dbi="dc"), "zeros_total", "gddr5"),
    "dram-low": (dict(channel="dram", dbi="dc", idle="low"), "ones_total", "lpddr4"),
    "noc": (dict(channel="noc"), "toggles", "noc"),
}


@pytest.fixture(scope="module")
def tables(mixed):
    return {k: T.compare(mixed, ["bdi", "fpc", "cpack"], ec="ec2", **bus) for k, (bus, _, _) in BUSES.items()}


@pytest.mark.parametrize("bus", list(BUSES))
@pytest.mark.parametrize("y", ["t_ratio", "toggles_ratio", "energy_ratio", "energy_pj_per_block"])
@pytest.mark.parametrize("x", ["cr", "cr_units", "cr_mag"])
def test_ratio_toggle_scatter_plots_and_names_the_columns_asked(pyplot, tables, bus, y, x):
    from memcomp import plot

    df = tables[bus]
    _, metric, model = BUSES[bus]
    assert (df["metric"] == metric).all() and (df["energy_model"] == model).all()
    ax = plot.ratio_toggle_scatter(df, y=y, x=x)
    assert _points(ax) == sorted(map(tuple, np.round(df[[x, y]].to_numpy(float), 9)))
    assert ax.get_xlabel() == X_LABELS[x, BUSES[bus][0]["channel"]]
    assert ax.get_ylabel().replace("\n", " ") == Y_LABELS.get((y, metric), Y_LABELS.get(y, "")).format(model=model)
    ref = [line.get_ydata()[0] for line in ax.get_lines()]
    per_block = (df["energy_pj_raw"] / df["blocks"]).iloc[0]
    assert ref == pytest.approx([per_block if y == "energy_pj_per_block" else 1.0])


def test_dram_dbi_scatter_shows_the_zeros_ratio_as_such(pyplot, tables):
    """Issue 33 item 1: on DRAM with DBI, T is the zeros ratio, which can fall while wire toggles
    rise; the default y axis is T and says zeros, and toggles_ratio is there to ask for."""
    from memcomp import plot

    df = tables["dram-dc"]
    cp = df[(df["codec"] == "cpack.paper") & (df["ec"] == "none")].iloc[0]
    assert cp["t_ratio"] < 1 < cp["toggles_ratio"]
    ax = plot.ratio_toggle_scatter(df)
    assert "toggle" not in ax.get_ylabel().replace("\n", " ") and ax.get_ylabel().replace("\n", " ").startswith("zeros")
    assert (round(cp["cr"], 9), round(cp["t_ratio"], 9)) in _points(ax)
    assert (round(cp["cr"], 9), round(cp["toggles_ratio"], 9)) not in _points(ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["bdi.paper", "fpc.paper", "cpack.paper", "with ec2"]


@pytest.mark.parametrize("y", ["t_ratio", "toggles_ratio", "energy_ratio"])
@pytest.mark.parametrize("x", ["cr", "cr_units"])
def test_ratio_toggle_scatter_per_block(pyplot, mixed, x, y):
    from memcomp import plot

    df = T.scatter(mixed[:600], ["fpc", "cpack"], channel="dram", dbi="dc")
    ax = plot.ratio_toggle_scatter(df, x=x, y=y, max_points=10_000)
    for c, codec in zip(ax.collections, ["fpc.paper", "cpack.paper"]):
        g = df[df["codec"] == codec][[x, y]].to_numpy(float)
        g = g[np.isfinite(g).all(axis=1)]
        assert np.array_equal(np.asarray(c.get_offsets(), dtype=float), g)
    assert ax.get_xlabel() == X_LABELS[x, "dram"]
    assert ax.get_ylabel().replace("\n", " ") == Y_LABELS.get((y, "zeros_total"), Y_LABELS.get(y, "")).format(
        model="gddr5"
    )
    # a table saved before the column was renamed still plots, named from its metric
    old = df.rename(columns={"t_ratio": "toggle_ratio"})
    ax = plot.ratio_toggle_scatter(old, ax=pyplot.subplots()[1])
    assert ax.get_ylabel().replace("\n", " ") == Y_LABELS["t_ratio", "zeros_total"]


def test_ratio_toggle_scatter_refuses_what_one_label_cannot_name(pyplot, tables):
    import pandas as pd

    from memcomp import plot

    both = pd.concat([tables["dram-dc"], tables["noc"]])
    with pytest.raises(ValueError, match="metric"):
        plot.ratio_toggle_scatter(both)
    with pytest.raises(ValueError, match="energy_model"):
        plot.ratio_toggle_scatter(pd.concat([tables["dram-dc"], tables["dram-low"]]), y="energy_ratio")
    with pytest.raises(ValueError, match="plots y in"):
        plot.ratio_toggle_scatter(tables["noc"], y="t")
    with pytest.raises(ValueError, match="plots y in"):
        plot.ratio_toggle_scatter(tables["noc"], x="energy_ratio")
