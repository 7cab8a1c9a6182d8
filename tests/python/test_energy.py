"""Bus energy in joules (memcomp.energy): linear in the counts, per block and in totals, presets
with their sources, validation, and what toggles.compare / scatter report."""

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
