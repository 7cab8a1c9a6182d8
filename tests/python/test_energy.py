"""Bus energy in joules (memcomp.energy): linear in the counts, per block and in totals, presets
with their sources, validation, and what toggles.compare / scatter report."""

import re

import numpy as np
import pytest

import memcomp
from blockgen import realistic
from memcomp import energy as E
from memcomp import toggles as T


def test_presets_are_cited_and_valid():
    assert {"ddr4", "gddr5", "gddr6", "lpddr4", "noc"} <= set(E.MODELS)
    for name, m in E.MODELS.items():
        assert m.name == name and m.source and E.SOURCES[name] == m.source
        assert m.toggle_pj > 0
        if m.channel == "dram":
            assert m.level_pj > 0 and m.idle in ("high", "low")
    assert E.MODELS["lpddr4"].idle == "low" and E.MODELS["gddr5"].idle == "high"


def test_energy_is_the_linear_combination_of_the_counts():
    blocks = realistic(128, 1 << 15)
    m = E.EnergyModel("test", "dram", toggle_pj=1.5, level_pj=2.0, pin_toggle_pj=0.25, pin_level_pj=0.5, idle="high")
    r = T.count(blocks, channel="dram", dbi="dc")
    c = {k: v.astype(np.float64) for k, v in r.columns.items()}
    want = 1.5 * c["toggles"] + 2.0 * c["zeros"] + 0.25 * (c["pin_t01"] + c["pin_t10"]) + 0.5 * c["pin_zeros"]
    assert np.allclose(r.energy_pj(m), want)
    assert m.energy_pj(r.stats.counts) == pytest.approx(want.sum())
    low = m.replace(idle="low")
    r2 = T.count(blocks, channel="dram", dbi="dc", idle="low")
    c2 = {k: v.astype(np.float64) for k, v in r2.columns.items()}
    assert np.allclose(
        r2.energy_pj(low),
        1.5 * c2["toggles"] + 2.0 * c2["ones"] + 0.25 * (c2["pin_t01"] + c2["pin_t10"]) + 0.5 * c2["pin_ones"],
    )
    noc = E.EnergyModel("wire", "noc", toggle_pj=0.1)
    rn = T.count(blocks, channel="noc")
    assert np.allclose(rn.energy_pj(noc), 0.1 * rn.columns["toggles"])


def test_compare_reports_joules_next_to_the_counts():
    blocks = realistic(128, 1 << 16)
    df = T.compare(blocks, ["bdi", "cpack"], channel="dram", dbi="dc", ec="ec2")
    m = E.MODELS["gddr5"]
    assert (df["energy_model"] == "gddr5").all()
    for _, r in df.iterrows():
        assert r["energy_pj_per_block"] == pytest.approx(r["energy_pj"] / r["blocks"])
        assert r["energy_ratio"] == pytest.approx(r["energy_pj"] / r["energy_pj_raw"])
    raw = T.count(blocks, channel="dram", dbi="dc")
    assert df["energy_pj_raw"].iloc[0] == pytest.approx(m.energy_pj(raw.stats.counts))
    enc = memcomp.get_codec("bdi").encode(blocks)
    sent = T.count(enc, channel="dram", dbi="dc")
    assert df["energy_pj"].iloc[0] == pytest.approx(m.energy_pj(sent.stats.counts))
    ddr4 = T.compare(blocks, ["bdi"], channel="dram", energy="ddr4")
    assert (ddr4["energy_model"] == "ddr4").all()
    custom = T.compare(
        blocks,
        ["bdi"],
        channel="dram",
        energy={"name": "mine", "channel": "dram", "toggle_pj": 1.0, "level_pj": 0.0, "idle": "high"},
    )
    assert custom["energy_pj"].iloc[0] == pytest.approx(custom["toggles"].iloc[0])
    noc = T.compare(blocks, ["bdi"], channel="noc")
    assert (noc["energy_model"] == "noc").all()
    sc = T.scatter(blocks, ["bdi"], channel="dram")
    assert sc["energy_pj"].sum() == pytest.approx(m.energy_pj(T.count(enc, channel="dram").stats.counts))


def test_bad_models_are_refused():
    with pytest.raises(ValueError, match="unknown energy model"):
        E.energy_model("hbm9")
    with pytest.raises(ValueError, match=">= 0"):
        E.EnergyModel("x", "dram", toggle_pj=-1, idle="high")
    with pytest.raises(ValueError, match=">= 0"):
        E.EnergyModel("x", "dram", toggle_pj=float("nan"), idle="high")
    with pytest.raises(ValueError, match="idle"):
        E.EnergyModel("x", "dram", toggle_pj=1)
    with pytest.raises(TypeError):
        E.energy_model(3)
    blocks = realistic(128, 1 << 12)
    with pytest.raises(ValueError, match="idling high"):
        T.compare(blocks, ["bdi"], channel="dram", idle="low", energy="gddr5")
    with pytest.raises(ValueError, match="channel"):
        T.compare(blocks, ["bdi"], channel="noc", energy="ddr4")


# Each preset's pJ derived by hand from the circuit values its source names.
#
# POD (idle high), DRAMPower's static energy per zero bit-time and CACTI-IO's dynamic energy:
#   level  = VDDQ^2 / (R_on + R_TT + R_s) * t_bit,   t_bit = 1 / (Gb/s per pin)
#   toggle = 1/2 * C * VDDQ * V_swing,              V_swing = VDDQ * R_TT / (R_on + R_TT + R_s)
# ddr4:  VDDQ 1.2 V, 34 + 60 ohm = 94 ohm, 3.2 Gb/s -> t_bit 312.5 ps, C 3 pF
#   level  = 1.44 / 94 W = 15.319 mW * 312.5 ps          = 4.787 pJ
#   toggle = 0.5 * 3 pF * 1.2 V * (1.2 * 60 / 94 = 0.7660 V) = 1.379 pJ
# gddr5: VDDQ 1.5 V, 40 + 60 + 15 ohm = 115 ohm, 7 Gb/s -> t_bit 142.857 ps, C 2.5 pF
#   level  = 2.25 / 115 W = 19.565 mW * 142.857 ps       = 2.795 pJ
#   toggle = 0.5 * 2.5 pF * 1.5 V * (1.5 * 60 / 115 = 0.7826 V) = 1.467 pJ
# gddr6: VDDQ 1.35 V, 40 + 60 ohm = 100 ohm, 14 Gb/s -> t_bit 71.429 ps, C 2 pF
#   level  = 1.8225 / 100 W = 18.225 mW * 71.429 ps      = 1.302 pJ
#   toggle = 0.5 * 2 pF * 1.35 V * (1.35 * 60 / 100 = 0.81 V) = 1.0935 pJ
# lpddr4 (LVSTL, idle low): VDDQ 1.1 V, V_OH = VDDQ / 3 = 0.3667 V into 60 ohm for 312.5 ps
#   level  = 1.1 V * (0.3667 V / 60 ohm = 6.111 mA) = 6.722 mW * 312.5 ps = 2.10 pJ per one bit
#   toggle = 0.5 * 2 pF * 1.1 V * 0.3667 V = 0.403 pJ, quoted as 0.4
# noc: 0.1 pJ per transition per mm over 2 mm = 0.2 pJ
BY_HAND = {
    "ddr4": (1.379, 4.787),
    "gddr5": (1.467, 2.795),
    "gddr6": (1.0935, 1.302),
    "lpddr4": (0.4, 2.1),
    "noc": (0.2, 0.0),
}


@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_every_preset_matches_its_derivation_by_hand(name):
    m = E.MODELS[name]
    toggle, level = BY_HAND[name]
    assert m.toggle_pj == pytest.approx(toggle, abs=1e-3)
    assert m.level_pj == pytest.approx(level, abs=1e-3)
    assert m.pin_toggle == m.toggle_pj and m.pin_level == m.level_pj  # DBI pins are data pins
    if name in ("ddr4", "gddr5", "gddr6"):  # the source states the same numbers, to 0.01 pJ
        said = re.search(r"([\d.]+) pJ per zero bit, ([\d.]+) pJ per transition", m.source)
        assert said and float(said[1]) == pytest.approx(level, abs=0.006)
        assert float(said[2]) == pytest.approx(toggle, abs=0.006)
    assert set(BY_HAND) == set(E.MODELS)  # a new preset needs its derivation here


def test_a_zero_block_costs_by_hand():
    """One 128 B zero block on a 32-bit DRAM bus idling high (GDDR5), 32 beats then back to idle:
    no DBI: 1024 zeros and 32 + 32 transitions (all wires fall on the first beat, rise after the
    last) = 1024 * 2.795 + 64 * 1.467 = 2955.97 pJ. DBI dc inverts every lane (8 zeros > 4): the
    data stay high, the 4 pins are held low for 32 beats (128 pin zeros) and fall and rise once
    each (8 pin transitions) = 128 * 2.795 + 8 * 1.467 = 369.50 pJ. On chip (32 B flits, wires
    starting at 0) nothing toggles: 0 pJ."""
    z = np.zeros((1, 128), np.uint8)
    assert T.count(z, channel="dram").energy_pj("gddr5")[0] == pytest.approx(2955.97, abs=0.01)
    assert T.count(z, channel="dram", dbi="dc").energy_pj("gddr5")[0] == pytest.approx(369.50, abs=0.01)
    assert T.count(z, channel="noc").energy_pj("noc")[0] == 0.0
    df = T.compare(z, ["bdi"], channel="dram", dbi="dc")
    assert df["energy_pj_raw"].iloc[0] == pytest.approx(369.50, abs=0.01)
    # one 0x01 byte per lane: on chip 32 B flits of 0x01 bytes, 32 wires rise on flit 0 and stay
    ones = np.full((1, 128), 0x01, np.uint8)
    assert T.count(ones, channel="noc").energy_pj("noc")[0] == pytest.approx(32 * 0.2)
