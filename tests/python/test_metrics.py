"""Metrics layer (SPEC 0.6): policies, SizeStats as a mergeable partial result, CR at MAG."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles as O
from blockgen import realistic
from memcomp.metrics import SizeStats, mag_policy, split_policy
from memcomp.report import SkippedCodecWarning

POLICIES = [
    "none",
    "cap",
    "threshold(0.5)",
    "bytes",
    "segments(8)",
    "mag(32)",
    "mag(32,0)",
    "pow2",
    "pow2(8)",
    "cap+mag(32)",
    "threshold(0.99)+bytes",
    "cap+pow2(4)",
]


def oracle_policy(p):
    """oracles.charge's spelling of a policy string."""
    terms = []
    for t in p.split("+"):
        name, _, args = t.partition("(")
        vals = [float(a) if "." in a else int(a) for a in args.rstrip(")").split(",") if a]
        terms.append(name if not vals else (name, *vals))
    return terms


def oracle_charge(bits, b, policy):
    for t in oracle_policy(policy):
        bits = O.charge(bits, b, t)
    return bits


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("block_bytes", [16, 32, 128])
def test_charge_matches_oracle(policy, block_bytes):
    bits = np.arange(0, 8 * block_bytes + 40, dtype=np.uint32)
    got = memcomp.charge(bits, block_bytes, policy)
    assert got.dtype == np.uint64
    assert got.tolist() == [int(oracle_charge(int(x), block_bytes, policy)) for x in bits]


def test_policy_parsing():
    assert memcomp.parse_policy(" Cap + MAG(32) ") == "cap+mag(32)"
    assert split_policy("cap+mag(32)") == ("cap", "mag(32)")
    assert split_policy("none") == (None, None)
    assert mag_policy("cap+bytes", 32) == "cap+mag(32)"
    assert mag_policy("none", 64, 0) == "mag(64,0)"
    for bad in ["", "mag", "frob", "bytes+cap", "cap+threshold(0.5)", "mag(32,5)"]:
        with pytest.raises(ValueError, match="bad policy"):
            memcomp.parse_policy(bad)
    with pytest.raises(TypeError):
        memcomp.parse_policy(3)
    with pytest.raises(TypeError, match="uint32"):
        memcomp.charge(np.arange(4), 32, "none")
    with pytest.raises(ValueError, match="not supported"):
        memcomp.charge(np.arange(4, dtype=np.uint32), 48, "none")


def test_stats_merge_equals_whole():
    blocks = realistic(32, 1 << 20)
    codec = memcomp.get_codec("bdi")
    whole = codec.measure(blocks).stats()
    parts = [codec.measure(blocks[i : i + 777]).stats() for i in range(0, len(blocks), 777)]
    merged = sum(parts[1:], parts[0])
    assert np.array_equal(merged.hist, whole.hist)
    assert merged.mode_counts == whole.mode_counts and merged.tag_bits == whole.tag_bits
    for p in POLICIES:
        assert merged.charged_bits(p) == whole.charged_bits(p)
    with pytest.raises(ValueError, match="cannot merge"):
        whole + memcomp.get_codec("fpc").measure(blocks).stats()


@pytest.mark.parametrize("name", ["bdi.paper", "bdi.cmu", "fpc.cmu", "zca"])
def test_cr_is_ratio_of_sums(name):
    blocks = realistic(64, 1 << 18)
    codec = memcomp.get_codec(name)
    s = codec.measure(blocks)
    st_ = s.stats()
    charged = memcomp.charge(s.size_bits, 64, codec.policy)
    assert st_.cr() == pytest.approx(blocks.size * 8 / charged.sum())
    assert st_.inband_bits == s.total_bits
    assert st_.n_blocks == len(blocks) and st_.raw_bits == blocks.size * 8
    tags = s.tag_bits.sum() + (len(blocks) if codec.policy.startswith("cap") else 0)
    assert st_.cr(count_tag=True) == pytest.approx(blocks.size * 8 / (charged.sum() + tags))
    mag = memcomp.charge(s.size_bits, 64, mag_policy(codec.policy, 32))
    assert st_.cr_mag(32) == pytest.approx(blocks.size * 8 / mag.sum())
    shares = st_.size_classes(32)
    assert set(shares) == {32, 64}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares[32] == pytest.approx(np.mean(mag == 256))


def test_size_classes_with_u_min_zero_and_histogram():
    blocks = np.zeros((10, 128), np.uint8)
    blocks[:3, 0] = 0xFF
    st_ = memcomp.get_codec("zca").measure(blocks).stats()
    assert st_.size_classes(32, u_min=0) == {0: 0.7, 32: 0.0, 64: 0.0, 96: 0.0, 128: 0.3}
    assert st_.cr_mag(32, u_min=0) == pytest.approx(10 / 3)
    h = st_.histogram()
    assert h.to_dict() == {0: 7, 1024: 3}


@given(st.lists(st.integers(0, 300), min_size=1, max_size=50), st.sampled_from(POLICIES))
def test_hypothesis_histogram_charging_equals_per_block(bits, policy):
    """Charging the histogram of sizes equals charging each block: partial results are exact."""
    arr = np.array(bits, np.uint32)
    codec = memcomp.get_codec("fpc")
    hist = np.bincount(arr, minlength=codec.max_compressed_bits(32) + 1)
    st_ = SizeStats("fpc.paper", 32, "none", hist.astype(np.int64))
    assert st_.charged_bits(policy) == int(memcomp.charge(arr, 32, policy).sum())


# --- one storage rule for raw CR and CR at MAG (issue 33 item 9) ------------------------------
def _words(word, block_bytes, n=1):
    return np.full((n, block_bytes // 4), word, "<u4").view(np.uint8)


def test_expanded_blocks_are_stored_raw_in_raw_cr_as_at_mag():
    """FPC on 64 B blocks of 0x12345678 (no FPC pattern fits: prefix 111 + 32 raw bits = 35 bits a
    word, 16 x 35 = 560 bits > 512): the plain sums give raw CR 512/560 = 32/35 below CR at MAG
    32 B (min(64, 96) = 64 B: 1.0), the 'FPC on weights 0.918 vs 1.003' of the issue. By default
    a block that is not smaller is stored uncompressed (cap) in both: 1.0 and 1.0."""
    blocks = _words(0x12345678, 64, 10)
    assert memcomp.get_codec("fpc").measure(blocks).size_bits.tolist() == [560] * 10
    row = memcomp.compare(blocks, ["fpc"]).iloc[0]
    assert row["policy"] == "cap" and row["charged_bits"] == 5120
    assert row["cr"] == 1.0 and row["cr_mag"] == 1.0
    plain = memcomp.compare(blocks, ["fpc"], policy="none").iloc[0]
    assert plain["policy"] == "none" and plain["cr"] == pytest.approx(32 / 35) and plain["cr_mag"] == 1.0
    study, _ = memcomp.mag_study(blocks, ["fpc"], block_sizes=(64,), mags=(32,))
    assert study["policy"].tolist() == ["cap"] and study["cr"].item() == study["cr_mag"].item() == 1.0
    assert study["loss"].item() == 0.0
    study, _ = memcomp.mag_study(blocks, ["fpc"], block_sizes=(64,), mags=(32,), policy="none")
    assert study["cr"].item() == pytest.approx(32 / 35) and study["loss"].item() == pytest.approx(1 - 35 / 32)


def test_storage_policy_adds_cap_only_where_needed():
    from memcomp.metrics import storage_policy

    assert storage_policy("none") == "cap" and storage_policy("bytes") == "cap+bytes"
    assert storage_policy("threshold(0.5)") == "threshold(0.5)"  # the preset's own fallback stays
    assert storage_policy("cap+bytes") == "cap+bytes" and storage_policy("none", expands=False) == "none"
    # formats that never exceed 8B bits have their own raw mode (SPEC 0.5): nothing to add
    policies = memcomp.compare(realistic(128, 1 << 16), ["bdi", "e2mc", "zca", "fpc", "bdi.gem5", "bdi.cmu"])
    assert policies["policy"].tolist() == ["none", "none", "none", "cap", "threshold(0.5)", "cap+bytes", "none"]


def test_oracle_row_follows_the_storage_rule():
    """Per block the smallest in-band size of the members, then the same rule: stored raw where
    even that is not smaller (FPC and C-Pack both expand on random words). Reference in NumPy."""
    rng = np.random.default_rng(5)
    blocks = np.concatenate([rng.integers(0, 256, (300, 32), dtype=np.uint8), realistic(32, 1 << 14)])
    names = ["fpc", "cpack"]
    df = memcomp.compare(blocks, names).set_index("codec")
    best = np.stack([memcomp.get_codec(n).measure(blocks).size_bits for n in names]).min(axis=0).astype(np.int64)
    assert (best > 256).sum() >= 300  # random blocks expand in both
    charged = np.minimum(best, 256)
    mag = 8 * np.minimum(32, 32 * np.maximum(1, -(-best // 256)))
    assert df.loc["oracle", "policy"] == "cap" and df.loc["oracle", "charged_bits"] == charged.sum()
    assert df.loc["oracle", "cr"] == pytest.approx(blocks.size * 8 / charged.sum())
    assert df.loc["oracle", "cr_mag"] == pytest.approx(blocks.size * 8 / mag.sum())
    assert df.loc["oracle", "cr"] >= df["cr"].max() - 1e-12
    plain = memcomp.compare(blocks, names, policy="none").set_index("codec")
    assert plain.loc["oracle", "policy"] == "none" and plain.loc["oracle", "inband_bits"] == best.sum()
    assert plain.loc["oracle", "cr"] == pytest.approx(blocks.size * 8 / best.sum())


def test_count_tag_counts_the_same_tags_at_mag():
    blocks = realistic(64, 1 << 16)
    row = memcomp.compare(blocks, ["fpc"], count_tag=True).iloc[0]
    s = memcomp.get_codec("fpc").measure(blocks)
    tags = int(s.tag_bits.sum()) + len(blocks)  # cap's raw flag: 1 bit a block (SPEC 0.6)
    raw = sum(oracle_charge(int(b), 64, "cap") for b in s.size_bits) + tags
    at_mag = sum(oracle_charge(int(b), 64, "cap+mag(32)") for b in s.size_bits) + tags
    assert row["cr"] == pytest.approx(blocks.size * 8 / raw)
    assert row["cr_mag"] == pytest.approx(blocks.size * 8 / at_mag)


def test_cr_at_mag_never_exceeds_raw_cr_on_the_sample():
    """fib.ours on the bundled mix: raw CR 1.346 against 1.378 at MAG before (the issue's 1.121
    vs 1.150). Every preset, lossy ones and the oracle included."""
    blocks = realistic(128, 1 << 20)
    with pytest.warns(SkippedCodecWarning, match="mpc.cal22_rtl"):
        df = memcomp.compare(blocks, ["all", "lossy"], oracle="all")
    assert df["note"].notna().sum() == 1  # mpc.cal22_rtl: 32 B only
    measured = df[df["note"].isna()]
    assert (measured["cr_mag"] <= measured["cr"] + 1e-12).all(), measured.loc[
        measured["cr_mag"] > measured["cr"], ["codec", "cr", "cr_mag"]
    ]
    assert df.set_index("codec").loc["fib.ours", "cr"] > df.set_index("codec").loc["fib.ours", "cr_mag"]


def _mixed_blocks(kinds, block_bytes, seed):
    rng = np.random.default_rng(seed)
    out = []
    for k in kinds:
        words = block_bytes // 4
        if k == 0:
            w = np.zeros(words, np.uint32)
        elif k == 1:
            w = rng.integers(0, 1 << 32, words, dtype=np.uint32)
        elif k == 2:
            w = rng.integers(0, 300, words, dtype=np.uint32)
        elif k == 3:
            w = np.full(words, rng.integers(0, 1 << 32), np.uint32)
        else:
            w = np.where(rng.random(words) < 0.3, rng.integers(0, 1 << 32, words, dtype=np.uint32), 0).astype(np.uint32)
        out.append(w.view(np.uint8))
    return np.ascontiguousarray(np.stack(out))


@given(
    block_bytes=st.sampled_from([16, 32, 64, 128]),
    kinds=st.lists(st.integers(0, 4), min_size=1, max_size=24),
    seed=st.integers(0, 2**16),
    names=st.lists(st.sampled_from(memcomp.codec_names()), min_size=1, max_size=4, unique=True),
    mag=st.sampled_from([8, 16, 32, 64]),
    u_min=st.sampled_from([0, 1]),
    count_tag=st.booleans(),
)
def test_hypothesis_cr_at_mag_never_exceeds_raw_cr(block_bytes, kinds, seed, names, mag, u_min, count_tag):
    """Under the default policies, every row's CR at MAG <= its raw CR: whatever the codec
    (lossless, lossy, accounting-only, data-driven), data, MAG, u_min and tag counting."""
    blocks = _mixed_blocks(kinds, block_bytes, seed)
    names = [n for n in names if memcomp.get_codec(n).supports(block_bytes)]
    if not names:
        return
    df = memcomp.compare(blocks, names, mag=mag, u_min=u_min, count_tag=count_tag, oracle="all")
    for _, r in df.iterrows():
        assert r["cr_mag"] <= r["cr"] * (1 + 1e-12), (r["codec"], r["policy"], r["cr"], r["cr_mag"])


# --- which codecs a table holds (issue 33 items 8 and 10) -------------------------------------
def test_lossy_codecs_are_in_a_table_only_when_asked():
    blocks = realistic(32, 1 << 14)
    for group in ("defaults", "all"):
        df = memcomp.compare(blocks, group, oracle=False)
        assert not df["lossy"].any() and "slc.opt" not in set(df["codec"])
        assert df["codec"].tolist() == memcomp.codec_names(group=group)
    lossy = memcomp.compare(blocks, "lossy", oracle=False)
    assert lossy["codec"].tolist() == ["slc.opt", "slc.pred", "slc.simp"] and lossy["lossy"].all()
    named = memcomp.compare(blocks, ["defaults", "slc.opt"], oracle=False)
    assert named["codec"].tolist() == memcomp.codec_names(group="defaults") + ["slc.opt"]
    assert memcomp.compare(blocks, "ALL", oracle=False)["codec"].tolist() == memcomp.codec_names(group="all")


def test_a_skipped_preset_is_reported_by_a_warning_and_a_row():
    """compare(..., "all") at 128 B dropped mpc.cal22_rtl (32 B sectors only) without a word."""
    blocks = realistic(128, 1 << 15)
    with pytest.warns(SkippedCodecWarning, match=r"mpc\.cal22_rtl skipped at 128 B blocks: .*32 B blocks only"):
        df = memcomp.compare(blocks, ["bdi", "defaults"])
    assert df["codec"].tolist()[-2:] == ["mpc.cal22_rtl", "oracle"]
    skip = df.set_index("codec").loc["mpc.cal22_rtl"]
    assert skip["note"].startswith("skipped: ") and "32 B blocks only" in skip["note"]
    assert skip["blocks"] == 0 and skip["block_bytes"] == 128 and np.isnan(skip["cr"]) and np.isnan(skip["cr_mag"])
    assert np.isnan(skip["share_128B"]) and pd.isna(skip["oracle_wins"]) and skip["model"] == "-"
    assert df["note"].drop(df.index[-2]).isna().all()  # every measured row: no note
    oracle = df.set_index("codec").loc["oracle"]
    assert "mpc.cal22_rtl" not in json.loads(oracle["config"])["members"]
    # a named preset the block size does not allow is an error, not a skip
    with pytest.raises(ValueError, match="32 B blocks only"):
        memcomp.compare(blocks, ["bdi", "mpc"])
    # at 32 B nothing is skipped: no warning (the suite turns warnings into errors), no note
    assert memcomp.compare(realistic(32, 1 << 14), "defaults")["note"].isna().all()


def test_everything_skipped_still_gives_the_rows_that_say_why():
    blocks = realistic(16, 1 << 12)
    with pytest.warns(SkippedCodecWarning) as seen:
        df = memcomp.compare(blocks, "lossy")
    assert sorted(str(w.message).split()[0] for w in seen) == ["slc.opt", "slc.pred", "slc.simp"]
    assert df["codec"].tolist() == ["slc.opt", "slc.pred", "slc.simp"]
    assert df["note"].str.contains("must divide the block").all() and (df["blocks"] == 0).all()


def test_mag_study_reports_skipped_codecs_and_takes_policy():
    data = memcomp.workloads.sample_dump(1 << 16)
    with pytest.warns(SkippedCodecWarning, match="mpc.cal22_rtl skipped at 128 B"):
        study, above = memcomp.mag_study(data, ["bdi", "mpc", "fpc"], block_sizes=(32, 128), mags=(32, 64))
    key = study.set_index(["codec", "block_bytes", "mag"])
    for m in (32, 64):
        assert key.loc[("mpc.cal22_rtl", 32, m), "note"] is None or pd.isna(key.loc[("mpc.cal22_rtl", 32, m), "note"])
        assert key.loc[("mpc.cal22_rtl", 128, m), "note"].startswith("skipped: ")
        assert np.isnan(key.loc[("mpc.cal22_rtl", 128, m), "cr"])
    assert set(above["codec"]) == {"bdi.paper", "mpc.cal22_rtl", "fpc.paper"}
    assert set(above.loc[above.codec == "mpc.cal22_rtl", "block_bytes"]) == {32}
    measured = study[study["note"].isna()]
    assert (measured["loss"] >= 0).all() and (measured["policy"] != "").all()
    # policy= means what compare's does: the same raw CR and CR at MAG per (codec, block size, MAG)
    for pol in (None, "none", "cap+bytes", "threshold(0.5)"):
        s, _ = memcomp.mag_study(data, ["bdi", "fpc"], block_sizes=(64,), mags=(32,), policy=pol)
        c = memcomp.compare(memcomp.as_blocks(data, 64), ["bdi", "fpc"], mag=32, policy=pol, oracle=False)
        assert s["cr"].tolist() == c["cr"].tolist() and s["cr_mag"].tolist() == c["cr_mag"].tolist()
        assert s["policy"].tolist() == c["policy"].tolist()
    with pytest.raises(ValueError, match="bad policy"):
        memcomp.mag_study(data, ["bdi"], policy="frob")


def test_above_mag_applies_the_policy_fallback():
    """bdi.gem5's threshold(0.5) stores every block above half the block raw: those blocks move to
    P4's raw bin, as they are charged."""
    s = memcomp.get_codec("bdi.gem5").measure(realistic(64, 1 << 16))
    st_ = s.stats()
    plain, fb = st_.above_mag(32), st_.above_mag(32, "threshold(0.5)")
    raw_share = lambda t: t.loc[t.paper_bin == 32, "share"].sum()  # noqa: E731
    nbytes = (s.size_bits.astype(np.int64) + 7) // 8
    assert raw_share(plain) == pytest.approx(np.mean(nbytes >= 64))
    assert raw_share(fb) == pytest.approx(np.mean((s.size_bits > 256) | (nbytes >= 64)))
    assert fb["blocks"].sum() == plain["blocks"].sum() == len(s.size_bits)


# --- progress= (issue 33 item 16) --------------------------------------------------------------
def _progress_calls():
    blocks = realistic(32, 1 << 14)
    return {
        "compare": lambda p: memcomp.compare(blocks, ["bdi"], chunk_blocks=100, progress=p),
        "slc.sweep": lambda p: memcomp.slc.sweep(
            blocks[:300], thresholds=(8,), mags=(32,), variants=("simp",), chunk_blocks=100, progress=p
        ),
    }


def test_every_progress_argument_is_covered():
    """Every public function that takes progress= is in _progress_calls (one helper serves all)."""
    import importlib
    import inspect

    found = set()
    for mod in ("report", "slc", "entropy", "toggles", "e2mc", "mpc", "dask", "metrics", "codecs"):
        m = importlib.import_module(f"memcomp.{mod}")
        for name, fn in vars(m).items():
            public = inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == m.__name__
            if public and "progress" in inspect.signature(fn).parameters and name != "collect_stats":
                found.add(f"{mod}.{name}".replace("report.", ""))
    assert found == set(_progress_calls())


@pytest.mark.parametrize("name", sorted(_progress_calls()))
def test_progress_true_draws_a_bar_and_callables_still_work(name, capsys):
    call = _progress_calls()[name]
    seen = []
    call(lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)
    call(True)  # raised TypeError: 'bool' object is not callable
    err = capsys.readouterr().err
    assert f"{seen[-1][1]}/{seen[-1][1]}" in err  # tqdm's "n/total" at the end
    call(False)
    call(None)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be True"):
        call("yes")


# ---- the core's reductions of size columns (issue 38: compare's totals in one pass) ------------


def _columns(rng, n, max_bits, modes):
    return {
        "size_bits": rng.integers(0, max_bits + 1, n).astype(np.uint32),
        "payload_bits": rng.integers(0, 1 << 12, n).astype(np.uint32),
        "meta_bits": rng.integers(0, 1 << 8, n).astype(np.uint32),
        "header_bits": rng.integers(0, 1 << 4, n).astype(np.uint32),
        "tag_bits": rng.integers(0, 1 << 3, n).astype(np.uint32),
        "mode": rng.choice(np.array(modes, np.int16), n),
    }


@given(
    n=st.integers(0, 300_000),
    modes=st.lists(st.integers(-(1 << 15), (1 << 15) - 1), min_size=1, max_size=6),
    threads=st.sampled_from([1, 2, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_size_totals_is_numpys_unique_and_bincount(n, modes, threads, seed):
    """hist = bincount(size_bits); per mode present, in increasing order: blocks and each field's
    sum (modes past the dense table's 0..255, negative ones too); the tag bits' total."""
    from memcomp import _core

    cols = _columns(np.random.default_rng(seed), n, 1100, modes)
    hist, rows, tag = _core.size_totals(cols, 1101, threads)
    assert hist.dtype == np.int64 and np.array_equal(hist, np.bincount(cols["size_bits"], minlength=1101))
    present, inv = np.unique(cols["mode"], return_inverse=True)
    want = np.column_stack(
        [present, np.bincount(inv, minlength=len(present))]
        + [
            np.bincount(inv, weights=cols[f], minlength=len(present))
            for f in ("payload_bits", "meta_bits", "header_bits", "tag_bits")
        ]
    ).astype(np.int64)
    assert np.array_equal(rows, want.reshape(-1, 6))
    assert tag == int(cols["tag_bits"].sum(dtype=np.uint64))


@given(
    n=st.integers(0, 200_000),
    k=st.integers(1, 6),
    spread=st.sampled_from([2, 50, 1100]),
    threads=st.sampled_from([1, 2, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_oracle_totals_is_numpys_argmin(n, k, spread, threads, seed):
    """The histogram of each block's smallest size, and the blocks each codec is the first
    smallest for (ties, frequent with a small spread, go to the earlier codec, as argmin's)."""
    from memcomp import _core

    rng = np.random.default_rng(seed)
    sizes = [rng.integers(0, spread, n).astype(np.uint32) for _ in range(k)]
    hist, wins = _core.oracle_totals(sizes, n, 1100, threads)
    bits = np.stack(sizes) if n else np.zeros((k, 0), np.uint32)
    assert np.array_equal(hist, np.bincount(bits.min(axis=0), minlength=1100) if n else np.zeros(1100))
    assert np.array_equal(wins, np.bincount(bits.argmin(axis=0), minlength=k) if n else np.zeros(k))


def test_size_reductions_refuse_what_they_cannot_count():
    from memcomp import _core

    cols = _columns(np.random.default_rng(0), 1000, 100, [0, 1])
    with pytest.raises(ValueError, match="exceeds the codec's max_compressed_bits"):
        _core.size_totals(cols, 100, 1)  # a block of 100 bits, 100 bins
    with pytest.raises(ValueError, match="exceeds the codec's max_compressed_bits"):
        _core.oracle_totals([cols["size_bits"]], 1000, 100, 1)
    with pytest.raises(TypeError, match="dtype int16"):
        _core.size_totals({**cols, "mode": cols["mode"].astype(np.int32)}, 101, 1)
    with pytest.raises(ValueError, match="must have 1000 entries"):
        _core.size_totals({**cols, "meta_bits": cols["meta_bits"][:999]}, 101, 1)
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.oracle_totals([cols["size_bits"][::2].copy(), cols["size_bits"][::2]], 500, 101, 1)
    with pytest.raises(KeyError):
        _core.size_totals({k: v for k, v in cols.items() if k != "tag_bits"}, 101, 1)
