"""memcomp.toggles.Bus and EnergyControl, the bus and Energy Control settings as values (issue 36):
the core's bus option table behind them, their round trips, the keywords they stand for, and wire
states tied to the whole bus that made them (SPEC 2; P2 §4.2, §5)."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
from memcomp import _core
from memcomp import toggles as T
from memcomp.toggles import Bus, EnergyControl

BLOCKS = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 13, seed=3), 32)  # 256 blocks of 32 B

# The twelve bus options and their defaults, as SPEC 2 and the module docstring state them (the
# core's table defaults to the on-chip bus; Bus to DRAM, as compare does).
CORE_DEFAULTS = {
    "channel": "noc",
    "flit_bytes": 32,
    "bus_bits": 32,
    "burst_length": 8,
    "pad": "zero",
    "mode": "stream",
    "init": 0,
    "idle": "high",
    "dbi": "none",
    "ac_threshold": 4,
    "ac_first": "threshold",
    "ac_count_pin": False,
}

# A bus with every option away from its default (flit_bytes is not read on DRAM).
OTHER = dict(
    channel="dram",
    bus_bits=16,
    burst_length=4,
    pad="one",
    mode="isolated",
    init=1,
    idle="low",
    dbi="ac",
    ac_threshold=2,
    ac_first="no_invert",
    ac_count_pin=True,
)


# ---- the core's table ------------------------------------------------------------------------


def test_option_space_lists_every_bus_option_with_its_default_and_help():
    space = _core.bus_option_space()
    assert {k: v["default"] for k, v in space.items()} == CORE_DEFAULTS
    assert all(v["help"] for v in space.values())
    assert space["dbi"]["choices"] == ["none", "dc", "ac"]
    assert (space["ac_threshold"]["lo"], space["ac_threshold"]["hi"]) == (0, 8)
    assert space["ac_count_pin"]["kind"] == "bool"


def test_keywords_left_out_take_the_tables_defaults():
    assert T.bus_options() == CORE_DEFAULTS
    assert T.count(BLOCKS[:2]).bus == CORE_DEFAULTS


# ---- Bus -------------------------------------------------------------------------------------


def test_bus_defaults_and_effective_values():
    assert Bus().to_dict() == {**CORE_DEFAULTS, "channel": "dram"}
    b = Bus(channel="dram", flit_bytes=16, bus_bits=np.int64(64), dbi=None, ac_first=None)
    # the width of the other channel is not read: its default; None: the default
    assert b.to_dict() == {**CORE_DEFAULTS, "channel": "dram", "bus_bits": 64}
    assert type(b.bus_bits) is int
    assert b == Bus(bus_bits=64) and hash(b) == hash(Bus(bus_bits=64))
    assert Bus(channel="noc", flit_bytes=16).bus_bits == 32


def test_bus_round_trips():
    b = Bus(**OTHER)
    assert b.to_dict() == {**OTHER, "flit_bytes": 32}
    assert Bus.from_dict(b.to_dict()) == b
    assert pickle.loads(pickle.dumps(b)) == b
    assert Bus.from_dict({}) == Bus()
    assert Bus.from_dict({"dbi": "dc"}) == Bus(dbi="dc")
    assert b.replace(dbi="dc") == Bus(**{**OTHER, "dbi": "dc"})
    with pytest.raises(AttributeError):
        b.dbi = "dc"  # type: ignore[misc]


@pytest.mark.parametrize(
    "kw, exc, message",
    [
        (dict(bus_bits=24), ValueError, "dram bus width must be 8, 16, 32 or 64 bits, got 24"),
        (dict(bus_bits=7), ValueError, "toggles: option 'bus_bits' must be in [8, 64], got 7"),
        (dict(bus_bits=32.5), TypeError, "toggles: option 'bus_bits' must be an integer, got 32.5"),
        (dict(bus_bits=True), TypeError, "toggles: option 'bus_bits' must be an integer, got True"),
        (dict(channel=3), TypeError, "toggles: option 'channel' must be a string, got 3"),
        (dict(channel="pcie"), ValueError, "toggles: option 'channel' must be one of 'noc', 'dram', got 'pcie'"),
        (dict(channel="noc", dbi="dc"), ValueError, "dbi applies to the dram channel only"),
        (dict(channel="noc", flit_bytes=0), ValueError, "toggles: option 'flit_bytes' must be in [1, 64], got 0"),
        (dict(burst_length=33), ValueError, "toggles: option 'burst_length' must be in [1, 32], got 33"),
        (dict(ac_threshold=9), ValueError, "toggles: option 'ac_threshold' must be in [0, 8], got 9"),
        (dict(init=2), ValueError, "toggles: option 'init' must be in [0, 1], got 2"),
        (dict(ac_count_pin=1), TypeError, "toggles: option 'ac_count_pin' must be a bool, got 1"),
        (dict(pad="two"), ValueError, "toggles: option 'pad' must be one of 'zero', 'one', 'hold', got 'two'"),
    ],
)
def test_bus_refuses_what_the_keywords_refuse_with_the_same_message(kw, exc, message):
    with pytest.raises(exc) as got:
        Bus(**kw)
    assert str(got.value) == message
    with pytest.raises(exc) as kw_call:
        T.count(BLOCKS[:1], **{"channel": "dram", **kw})
    assert str(kw_call.value) == message


def test_bus_from_dict_refuses_unknown_keys_and_non_dicts():
    with pytest.raises(ValueError, match=r"toggles: unknown option\(s\) 'foo'; valid options: ac_count_pin"):
        Bus.from_dict({"foo": 1})
    with pytest.raises(TypeError, match="dict of bus options"):
        Bus.from_dict([("dbi", "dc")])  # type: ignore[arg-type]


# ---- EnergyControl ---------------------------------------------------------------------------


def test_energy_control_round_trips():
    e = EnergyControl("ec1", alpha=2, bu=0.8, ratio="bits")
    assert (e.kind, e.alpha, e.bu, e.ratio) == ("ec1", 2.0, 0.8, "bits")
    assert type(e.alpha) is float
    assert EnergyControl.from_dict(e.to_dict()) == e
    assert pickle.loads(pickle.dumps(e)) == e
    assert e.replace(kind="ec2") == EnergyControl("ec2", 2.0, 0.8, "bits")
    assert EnergyControl() == EnergyControl("ec2", 1.0, 0.0, "units")
    per_block = EnergyControl("ec2", bu=[0.1, 0.9])
    assert per_block.bu.dtype == np.float64
    assert pickle.loads(pickle.dumps(per_block)) == per_block
    assert per_block != EnergyControl("ec2", bu=np.array([0.1, 0.8]))
    assert per_block != EnergyControl("ec2", bu=0.1)


@pytest.mark.parametrize(
    "args, kw, exc, message",
    [
        (("ec9",), {}, ValueError, "ec must be 'ec1' (energy x delay), 'ec2' (energy x delay^2) or 'helps'"),
        (("ec2",), dict(alpha=0), ValueError, "alpha must be a finite number > 0.0, got 0.0"),
        (("ec2",), dict(alpha="1"), TypeError, "alpha must be a finite number > 0.0, got '1' of type str"),
        (("ec2",), dict(bu=float("nan")), ValueError, "bu must be a finite number >= 0.0 and <= 1.0, got nan"),
        (("ec2",), dict(bu=np.full(3, 2.0)), ValueError, "bu must lie in [0, 1] for every block"),
        (("ec2",), dict(ratio="x"), ValueError, "ratio must be one of ('units', 'bits'), got 'x'"),
        (
            ("helps",),
            dict(alpha=2.0),
            ValueError,
            "alpha weighs the energy term of ec1/ec2 and changes nothing with ec='helps' (no energy term)",
        ),
        (
            ("helps",),
            dict(bu=0.5),
            ValueError,
            "bu weighs the energy term of ec1/ec2 and changes nothing with ec='helps' (no energy term)",
        ),
    ],
)
def test_energy_control_refuses_with_todays_messages(args, kw, exc, message):
    with pytest.raises(exc) as got:
        EnergyControl(*args, **kw)
    assert str(got.value).startswith(message)
    loose = {"ec_ratio" if k == "ratio" else k: v for k, v in kw.items()}
    with pytest.raises(exc) as kw_call:
        T.compare(BLOCKS[:3], ["bdi"], ec=args[0], **loose)
    assert str(kw_call.value).startswith(message.replace("ratio must", "ec_ratio must"))


# ---- the objects stand for the keywords ------------------------------------------------------


def test_compare_with_objects_equals_the_keyword_call():
    got = T.compare(BLOCKS, ["bdi", "fpc"], bus=Bus(dbi="dc"), ec=EnergyControl("ec2", alpha=2))
    want = T.compare(BLOCKS, ["bdi", "fpc"], dbi="dc", ec="ec2", alpha=2)
    pd.testing.assert_frame_equal(got, want)
    bu = np.linspace(0.0, 1.0, len(BLOCKS))
    bus = Bus(channel="noc", flit_bytes=16, pad="hold")
    got = T.compare(BLOCKS, ["cpack"], bus=bus, ec=EnergyControl("ec1", bu=bu, ratio="bits"), mag=64)
    want = T.compare(
        BLOCKS, ["cpack"], channel="noc", flit_bytes=16, pad="hold", ec="ec1", bu=bu, ec_ratio="bits", mag=64
    )
    pd.testing.assert_frame_equal(got, want)
    assert got.loc[got["ec"] == "ec1", "ec_bu"].tolist() == ["per_block"]


def test_count_drive_energy_control_scatter_with_a_bus_equal_the_keywords():
    kw = dict(channel="dram", bus_bits=16, dbi="ac", ac_threshold=3)
    bus = Bus(**kw)
    a, b = T.count(BLOCKS, bus=bus), T.count(BLOCKS, **kw)
    assert a.stats.counts == b.stats.counts and a.state == b.state
    assert all(np.array_equal(a.columns[f], b.columns[f]) for f in T.FIELDS)
    d1, d2 = T.drive(b"\x0f\xf0\xaa", bus=bus), T.drive(b"\x0f\xf0\xaa", **kw)
    assert np.array_equal(d1[0], d2[0]) and d1[2] == d2[2]
    enc = memcomp.get_codec("fpc").encode(BLOCKS)
    e1 = T.energy_control(BLOCKS, enc, EnergyControl("ec1", alpha=1.5, ratio="bits"), bus=bus)
    e2 = T.energy_control(BLOCKS, enc, "ec1", alpha=1.5, ratio="bits", **kw)
    assert e1.totals == e2.totals and np.array_equal(e1.columns["compressed"], e2.columns["compressed"])
    pd.testing.assert_frame_equal(T.scatter(BLOCKS, ["bdi"], bus=bus), T.scatter(BLOCKS, ["bdi"], **kw))


def test_an_object_and_a_keyword_it_holds_are_a_type_error():
    with pytest.raises(TypeError, match="bus and channel"):
        T.compare(BLOCKS, ["bdi"], bus=Bus(), channel="dram")  # even at the keyword's default
    with pytest.raises(TypeError, match="bus and dbi, pad"):
        T.count(BLOCKS, bus=Bus(), pad="one", dbi=None)
    with pytest.raises(TypeError, match="bus and idle"):
        T.Toggles(bus=Bus(), idle="low")
    with pytest.raises(TypeError, match="ec and alpha"):
        T.compare(BLOCKS, ["bdi"], ec=EnergyControl(), alpha=2.0)
    with pytest.raises(TypeError, match="ec and ec_ratio"):
        T.compare(BLOCKS, ["bdi"], ec=EnergyControl(), ec_ratio="units")
    enc = memcomp.get_codec("bdi").encode(BLOCKS)
    with pytest.raises(TypeError, match="ec and bu"):
        T.energy_control(BLOCKS, enc, EnergyControl(), 0.5)
    with pytest.raises(TypeError, match="bus must be a memcomp.toggles.Bus, got dict"):
        T.count(BLOCKS, bus={"channel": "dram"})


# ---- a wire state belongs to the bus that made it ---------------------------------------------


@pytest.mark.parametrize("key", sorted(set(OTHER) - {"flit_bytes"}))
def test_a_state_continues_only_on_its_own_bus(key):
    bus = Bus(**OTHER)
    other = bus.replace(**{key: CORE_DEFAULTS[key]}, **({"dbi": "none"} if key == "channel" else {}))
    assert other != bus
    state = T.count(BLOCKS[:4], close=False, bus=bus).state
    T.count(BLOCKS[4:8], state=state, bus=bus)  # its own bus
    T.count(BLOCKS[4:8], state=pickle.loads(pickle.dumps(state)), bus=bus)
    for s in (state, pickle.loads(pickle.dumps(state))):
        with pytest.raises(ValueError, match="state belongs to another bus configuration"):
            T.count(BLOCKS[4:8], state=s, bus=other)


def test_a_state_pickled_with_a_bus_number_is_refused():
    # a state carries its whole bus (its options), not a number standing for it
    s = _core.WireState.__new__(_core.WireState)
    with pytest.raises(ValueError, match="malformed WireState pickle: the bus options must be a dict"):
        s.__setstate__((bytes(64), bytes(8), True, 1 << 16))
    state = T.count(BLOCKS[:2], bus=Bus(dbi="dc")).state
    assert state.__getstate__()[3] == Bus(dbi="dc").to_dict()


_BUS = st.fixed_dictionaries(
    {
        "channel": st.just("dram"),
        "bus_bits": st.sampled_from([8, 16, 32, 64]),
        "burst_length": st.integers(1, 32),
        "pad": st.sampled_from(["zero", "one", "hold"]),
        "mode": st.sampled_from(["stream", "isolated"]),
        "idle": st.sampled_from(["high", "low"]),
        "dbi": st.sampled_from(["none", "dc", "ac"]),
        "ac_threshold": st.integers(0, 8),
        "ac_first": st.sampled_from(["threshold", "no_invert"]),
        "ac_count_pin": st.booleans(),
    }
) | st.fixed_dictionaries(
    {
        "channel": st.just("noc"),
        "flit_bytes": st.integers(1, 64),
        "pad": st.sampled_from(["zero", "one", "hold"]),
        "init": st.integers(0, 1),
    }
)


@settings(max_examples=40, deadline=None)
@given(_BUS, _BUS)
def test_bus_values_round_trip_and_states_follow_equality(kw, kw2):
    b, b2 = Bus(**kw), Bus(**kw2)
    assert Bus.from_dict(b.to_dict()) == b == pickle.loads(pickle.dumps(b))
    assert b.to_dict() == T.bus_options(**kw)
    state = T.count(BLOCKS[:2], close=False, bus=b).state
    if b == b2:
        T.count(BLOCKS[2:3], state=state, bus=b2)
    else:
        with pytest.raises(ValueError, match="another bus configuration"):
            T.count(BLOCKS[2:3], state=state, bus=b2)


def test_energy_control_settings_come_from_the_core_table():
    """EC's kinds, ratios, defaults and the kind's message are the core's option table
    (ec_option_space); the signature defaults of energy_control agree with it."""
    import inspect

    space = _core.ec_option_space()
    assert T.EC_MODES == tuple(space["kind"]["choices"]) == ("ec1", "ec2", "helps")
    assert T.EC_RATIOS == tuple(space["ratio"]["choices"]) == ("units", "bits")
    assert {m: _core.ec_k(m) for m in T.EC_MODES} == {"ec1": 1, "ec2": 2, "helps": 0}
    ec = T.EnergyControl()
    assert (ec.kind, ec.alpha, ec.ratio) == (
        space["kind"]["default"],
        space["alpha"]["default"],
        space["ratio"]["default"],
    )
    sig = inspect.signature(T.energy_control).parameters
    assert (sig["ec"].default, sig["alpha"].default, sig["ratio"].default) == (ec.kind, ec.alpha, ec.ratio)
    with pytest.raises(ValueError) as e:
        T.EnergyControl("ec9")
    assert str(e.value) == f"ec must be {space['kind']['help']}, got 'ec9'"
    with pytest.raises(ValueError, match="kind"):
        _core.ec_k("ec9")
