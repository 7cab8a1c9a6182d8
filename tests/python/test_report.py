"""memcomp.compare: the long-form comparison table."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import memcomp
from blockgen import realistic


def test_compare_table_values():
    blocks = realistic(128, 1 << 20)
    df = memcomp.compare(blocks, ["bdi", "fpc.cmu", "zca"], mag=32, oracle=False)
    assert list(df["codec"]) == ["bdi.paper", "fpc.cmu", "zca.paper"]
    assert set(df.columns) >= {
        "codec",
        "family",
        "preset",
        "exact",
        "block_bytes",
        "blocks",
        "raw_bits",
        "inband_bits",
        "tag_bits",
        "policy",
        "charged_bits",
        "cr",
        "mag",
        "cr_mag",
        "share_32B",
        "share_64B",
        "share_96B",
        "share_128B",
    }
    for _, row in df.iterrows():
        c = memcomp.get_codec(row["codec"])
        s = c.measure(blocks)
        charged = memcomp.charge(s.size_bits, 128, c.policy).sum()
        assert row["blocks"] == len(blocks) and row["raw_bits"] == blocks.size * 8
        assert row["inband_bits"] == s.total_bits
        assert row["payload_bits"] == s.payload_bits.sum() and row["meta_bits"] == s.meta_bits.sum()
        assert row["header_bits"] == s.header_bits.sum() and row["tag_bits"] == s.tag_bits.sum()
        assert row["charged_bits"] == charged
        assert row["cr"] == pytest.approx(blocks.size * 8 / charged)
        mag = memcomp.charge(s.size_bits, 128, memcomp.metrics.mag_policy(c.policy, 32))
        assert row["cr_mag"] == pytest.approx(blocks.size * 8 / mag.sum())
        shares = [row[f"share_{k}B"] for k in (32, 64, 96, 128)]
        assert sum(shares) == pytest.approx(1.0)
        assert row["share_128B"] == pytest.approx(np.mean(mag == 1024))
    assert df.loc[df.codec == "fpc.cmu", "policy"].item() == "cap"


@pytest.mark.filterwarnings("ignore::memcomp.report.SkippedCodecWarning")  # mpc.cal22_rtl at 64 B: a row says so
def test_compare_chunked_and_dump_match_whole(tmp_path):
    data = memcomp.workloads.sample_dump(1 << 20, seed=3)
    blocks = memcomp.as_blocks(data, 64)
    whole = memcomp.compare(blocks, "all")
    chunked = memcomp.compare(blocks, "all", chunk_blocks=1000, threads=1)
    assert whole["codec"].iloc[-1] == "oracle"
    pd.testing.assert_frame_equal(whole, chunked)
    p = tmp_path / "dump.bin"
    memcomp.save_dump(p, data)
    seen = []
    with memcomp.open_dump(p, 64) as dump:
        from_dump = memcomp.compare(dump, "all", chunk_blocks=5000, progress=lambda d, t: seen.append((d, t)))
    src = ["dataset", "file", "format", "offset_begin", "offset_end"]
    assert from_dump[src].drop_duplicates().to_dict("records") == [
        {"dataset": "dump.bin", "file": str(p), "format": "raw", "offset_begin": 0, "offset_end": len(data)}
    ]
    pd.testing.assert_frame_equal(whole, from_dump.drop(columns=src))
    assert seen[-1] == (len(blocks), len(blocks)) and len(seen) == -(-len(blocks) // 5000)


def test_compare_policy_override_and_tags():
    blocks = realistic(32, 1 << 16)
    df = memcomp.compare(blocks, ["bdi.paper"], policy="cap+bytes", count_tag=True)
    s = memcomp.get_codec("bdi").measure(blocks)
    charged = memcomp.charge(s.size_bits, 32, "cap+bytes").sum() + s.tag_bits.sum() + len(blocks)
    assert df["charged_bits"].item() == charged
    assert df["policy"].item() == "cap+bytes"


def test_compare_all_and_defaults():
    blocks = realistic(32, 1 << 14)
    # "all" is every lossless preset: lossy ones (SLC) only when asked for (issue 33 item 8)
    assert list(memcomp.compare(blocks, "all")["codec"]) == memcomp.codec_names(group="all") + ["oracle"]
    df = memcomp.compare(blocks, "defaults", oracle=False)
    assert list(df["codec"]) == memcomp.codec_names(defaults_only=True)
    assert df.set_index("codec").loc["fvc.paper", "model"] == "offline"
    assert df.set_index("codec").loc["bdi.paper", "model"] == "-"


def test_oracle_row_and_wins():
    blocks = realistic(64, 1 << 18)
    names = ["bdi", "fpc", "zca", "bestof.bdi_fpc"]
    df = memcomp.compare(blocks, names).set_index("codec")
    sizes = np.stack([memcomp.get_codec(n).measure(blocks).size_bits for n in names])
    best = sizes.min(axis=0)
    assert df.loc["oracle", "inband_bits"] == best.sum()
    assert df.loc["oracle", "cr"] == pytest.approx(blocks.size * 8 / best.sum())
    wins = np.bincount(sizes.argmin(axis=0), minlength=len(names))
    assert df["oracle_wins"].iloc[:-1].tolist() == wins.tolist()
    assert df.loc["oracle", "oracle_wins"] == len(blocks)
    assert pd.isna(df.loc["oracle", "payload_bits"])
    # the oracle is never worse than any codec, the best-of never better than the oracle
    assert df.loc["oracle", "cr"] >= df["cr"].max() - 1e-12
    assert memcomp.compare(blocks, ["bdi"])["codec"].tolist() == ["bdi.paper"]  # one codec: no oracle


def test_fitted_codec_is_reported_as_given():
    blocks = realistic(32, 1 << 16)
    fvc = memcomp.get_codec("fvc").fit(blocks)
    df = memcomp.compare(blocks, [fvc, "fvc"], oracle=False)
    assert df["model"].tolist() == ["given", "offline"]
    assert df["cr"].iloc[0] == pytest.approx(df["cr"].iloc[1])  # same data, same model


def test_breakdown_per_mode():
    blocks = realistic(32, 1 << 18)
    df = memcomp.breakdown(blocks, ["bdi", "bestof.bdi_fpc"])
    for name, g in df.groupby("codec"):
        c = memcomp.get_codec(name)
        s = c.measure(blocks)
        assert g["blocks"].sum() == len(blocks)
        assert g["share"].sum() == pytest.approx(1.0)
        for _, r in g.iterrows():
            sel = s.mode == r["mode"]
            assert r["blocks"] == sel.sum() and r["payload_bits"] == s.payload_bits[sel].sum()
            assert r["meta_bits"] == s.meta_bits[sel].sum() and r["header_bits"] == s.header_bits[sel].sum()
            assert r["mode_name"] == c.modes[r["mode"]]
    assert set(df.loc[df.codec == "bestof.bdi_fpc", "mode_name"]) <= {
        f"{m}:{n}" for m in ("bdi.paper", "fpc.paper") for n in list(memcomp.get_codec(m).modes.values())
    }


def test_compare_bad_input():
    with pytest.raises(TypeError, match="ndarray or a memcomp Dump"):
        memcomp.compare([[0] * 32], "bdi")
    with pytest.raises(ValueError, match="2-D"):
        memcomp.compare(np.zeros(64, np.uint8), "bdi")
    with pytest.raises(TypeError, match="uint8"):
        memcomp.compare(np.zeros((2, 32), np.int8), "bdi")
    with pytest.raises(ValueError, match="unknown codec"):
        memcomp.compare(np.zeros((2, 32), np.uint8), "nope")
    with pytest.raises(ValueError, match="no codecs"):
        memcomp.compare(np.zeros((2, 32), np.uint8), [])
    with pytest.raises(ValueError, match="bad policy"):
        memcomp.compare(np.zeros((2, 32), np.uint8), "bdi", policy="frob")
    empty = memcomp.compare(np.zeros((0, 32), np.uint8), "bdi")
    assert empty["blocks"].item() == 0 and math.isnan(empty["cr"].item())  # 0 / 0


_CHUNKED = {
    "compare": lambda b, k: memcomp.compare(b, ["bdi"], chunk_blocks=k),
    "breakdown": lambda b, k: memcomp.breakdown(b, ["bdi"], chunk_blocks=k),
    "toggles.compare": lambda b, k: memcomp.toggles.compare(b, ["bdi"], chunk_blocks=k),
    "entropy.histogram": lambda b, k: memcomp.entropy.histogram(b, 8, chunk_blocks=k),
    "mpc.ratio_entropy": lambda b, k: memcomp.mpc.ratio_entropy(b, chunk_blocks=k),
    "dump.chunks": lambda b, k: list(memcomp.Dump.__new__(memcomp.Dump).chunks(k)),
}


@pytest.mark.parametrize("fn", sorted(_CHUNKED))
@pytest.mark.parametrize(
    "bad, error",
    [
        (0, ValueError),
        (-1, ValueError),
        (-(2**40), ValueError),
        (2.0, TypeError),
        ("8", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_chunk_blocks_is_validated_in_one_place(fn, bad, error):
    """A non-positive or non-integer chunk_blocks used to analyse nothing (0 blocks, CR inf) or
    fail with a bare AssertionError / range() error; every streamed analysis now says what to pass."""
    blocks = realistic(32, 1 << 12)
    with pytest.raises(error, match="chunk_blocks must be a positive integer"):
        _CHUNKED[fn](blocks, bad)


def test_chunk_blocks_numpy_integer_is_an_integer():
    blocks = realistic(32, 1 << 12)
    a = memcomp.compare(blocks, ["bdi"], chunk_blocks=np.int64(7))
    assert a["blocks"].iloc[0] == len(blocks) and a["cr"].iloc[0] == memcomp.compare(blocks, ["bdi"])["cr"].iloc[0]


def test_oracle_is_over_exact_presets_by_default():
    """bpc.skku undercharges its base (a documented bug of that tool): an oracle that lets it win
    reports headroom no decodable format reaches. By default the oracle takes exact presets only."""
    blocks = realistic(128, 1 << 18)
    names = ["bdi", "bpc.skku", "fpc", "bpc"]
    df = memcomp.compare(blocks, names, chunk_blocks=333).set_index("codec")
    sizes = {n: memcomp.get_codec(n).measure(blocks).size_bits.astype(np.int64) for n in names}
    exact = np.stack([sizes[n] for n in ("bdi", "fpc", "bpc")])
    assert df.loc["oracle", "inband_bits"] == exact.min(axis=0).sum()
    assert df.loc["oracle", "oracle_over"] == "exact" and (df["oracle_over"] == "exact").all()
    assert pd.isna(df.loc["bpc.skku", "oracle_wins"])
    assert df["oracle_wins"].drop(["oracle", "bpc.skku"]).sum() == len(blocks)
    assert json.loads(df.loc["oracle", "config"])["members"] == ["bdi.paper", "fpc.paper", "bpc.isca16"]
    alls = memcomp.compare(blocks, names, oracle="all").set_index("codec")
    everything = np.stack([sizes[n] for n in names])
    assert alls.loc["oracle", "inband_bits"] == everything.min(axis=0).sum() < df.loc["oracle", "inband_bits"]
    assert alls.loc["bpc.skku", "oracle_wins"] > 0 and alls.loc["oracle", "oracle_over"] == "all"
    assert "oracle" not in memcomp.compare(blocks, names, oracle=False)["codec"].tolist()
    with pytest.raises(ValueError, match="oracle must be one of"):
        memcomp.compare(blocks, names, oracle="best")


def test_compare_mag_is_accounting_only_unless_asked():
    """E2MC's raw rule (store raw above B - MAG, P1 §III-E) is part of its format and follows the
    codec's own mag option; compare(mag=...) changes CR at MAG only, unless codec_mag=True."""
    blocks = realistic(128, 1 << 18)
    e2mc = memcomp.get_codec("e2mc").fit(blocks)
    a = memcomp.compare(blocks, [e2mc], mag=32).iloc[0]
    b = memcomp.compare(blocks, [e2mc], mag=64).iloc[0]
    assert a["cr"] == b["cr"] and a["cr_mag"] != b["cr_mag"]
    assert json.loads(b["config"])["mag"] == 32
    c = memcomp.compare(blocks, [e2mc], mag=64, codec_mag=True).iloc[0]
    assert json.loads(c["config"])["mag"] == 64
    direct = memcomp.get_codec("e2mc", mag=64, model=e2mc.model).measure(blocks)
    assert c["inband_bits"] == direct.total_bits and c["cr"] != a["cr"]
    assert c["model"] == "given"


def test_rows_carry_provenance():
    blocks = realistic(64, 1 << 16)
    fvc = memcomp.get_codec("fvc").fit(blocks)
    df = memcomp.compare(blocks, ["bdi.gem5", fvc], mag=32, policy="cap")
    for col in ("memcomp_version", "config", "block_bytes", "mag", "u_min", "policy", "count_tag"):
        assert col in df.columns and df[col].notna().all(), col
    assert (df["memcomp_version"] == memcomp.__version__).all()
    cfg = json.loads(df["config"].iloc[0])
    assert memcomp.Codec.from_config(cfg) == memcomp.get_codec("bdi.gem5")
    assert json.loads(df["config"].iloc[1])["model"].startswith("sha256:")
    t = memcomp.toggles.compare(blocks, ["bdi"], channel="dram", dbi="dc", ec="ec2")
    for col in ("memcomp_version", "config", "block_bytes", "mag", "bus_channel", "bus_dbi", "bus_bits", "ec_alpha"):
        assert col in t.columns, col
    assert (t["bus_dbi"] == "dc").all() and t["ec_alpha"].iloc[1] == 1.0
    e = memcomp.entropy.table(blocks, [8, 16])
    assert (e["memcomp_version"] == memcomp.__version__).all() and (e["block_bytes"] == 64).all()
    # two runs concatenate into one long table
    both = pd.concat([memcomp.compare(blocks, ["bdi"], mag=m) for m in (32, 64)], ignore_index=True)
    assert both.groupby("mag")["cr_mag"].nunique().tolist() == [1, 1] and both["cr_mag"].nunique() == 2


def test_empty_input_with_data_driven_codecs_gives_zero_block_rows():
    """Nothing to fit on and nothing to measure: one row per codec with 0 blocks and no model."""
    t = memcomp.compare(np.zeros((0, 128), np.uint8), ["e2mc", "sc2", "fvc", "bdi"])
    assert list(t["blocks"]) == [0] * 5 and set(t["model"]) == {"-"}
    unfitted = memcomp.get_codec("e2mc")
    assert unfitted.measure(np.zeros((0, 128), np.uint8)).size_bits.shape == (0,)
    with pytest.raises(ValueError, match="has no model"):
        unfitted.measure(np.zeros((1, 128), np.uint8))
