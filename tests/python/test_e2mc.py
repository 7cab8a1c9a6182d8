"""E2MC and SC2 (P1; SPEC 1.8-1.10) against a plain-Python oracle built from the fitted model."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import entropy as E
from memcomp.e2mc import E2MC_RAW_MODE as RAW


def symbols(block, sl):
    flat = np.asarray(block, np.uint8)
    if sl == 4:
        return np.stack([flat & 0xF, flat >> 4], axis=1).reshape(-1).tolist()
    if sl == 8:
        return flat.tolist()
    return flat.view({16: "<u2", 32: "<u4"}[sl]).tolist()


def oracle(codec, block):
    """(payload, header, tag, mode) from the model's tables and SPEC 1.10's layout rules."""
    o, m = codec.options, codec.model
    sl, pdw, mag, B = o["symbol_bits"], o["pdw"], o["mag"], len(block)
    tables = []
    for t in m["tables"]:
        lengths = dict(zip(t["symbols"], t["lengths"]))
        tables.append((lengths, t["esc_len"]))
    sym = symbols(block, sl)
    n = len(sym)

    def cost(i, v):
        lengths, esc = tables[i % len(tables)]
        if v in lengths:
            return lengths[v]
        return (1 if o["miss"] == "flag" else esc) + sl

    seg = [sum(cost(i, sym[i]) for i in range(k * n // pdw, (k + 1) * n // pdw)) for k in range(pdw)]
    header = (pdw - 1) * int(math.log2(B))
    at = header
    for k in range(pdw):
        if k:
            aligned = -(-at // 8) * 8
            header += aligned - at
            at = aligned
        at += seg[k]
    if not o["raw"]:
        return sum(seg), header, 0, 0
    # most bursts of a compressed block; the tag holds bursts - 1 or all ones for raw
    most = -(-(B - mag) // mag) if 2 * mag <= B else -(-B // mag)
    tag = max(1, math.ceil(math.log2(most + 1)))
    compressed = at <= 8 * (B - mag) if 2 * mag <= B else at < 8 * B
    if not compressed:
        return 8 * B, 0, tag, RAW
    return sum(seg), header, tag, max(1, -(-at // (8 * mag)))


CONFIGS = [
    dict(symbol_bits=16),
    dict(symbol_bits=16, mag=1),
    dict(symbol_bits=16, mag=16),
    dict(symbol_bits=8, mag=4),
    dict(symbol_bits=16, mag=24),
    dict(symbol_bits=16, pdw=1),
    dict(symbol_bits=16, pdw=8, mfv=64),
    dict(symbol_bits=32),
    dict(symbol_bits=8),
    dict(symbol_bits=8, per_position=False),
    dict(symbol_bits=4, pdw=2),
    dict(symbol_bits=16, limit="package_merge", max_len=12),
    dict(symbol_bits=16, limit="drop", max_len=10),
]


@pytest.mark.parametrize("block_bytes", [32, 128, 256])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_sizes_match_oracle_and_roundtrip(cfg, block_bytes):
    blocks = np.concatenate([adversarial(block_bytes)[:80], realistic(block_bytes, 1 << 15)])
    codec = memcomp.get_codec("e2mc", **cfg).fit(blocks[::2].copy())
    s = codec.measure(blocks)
    for i, b in enumerate(blocks):
        want = oracle(codec, b)
        got = (int(s.payload_bits[i]), int(s.header_bits[i]), int(s.tag_bits[i]), int(s.mode[i]))
        assert got == want, f"block {i}"
    enc = codec.encode(blocks)
    assert np.array_equal(enc.bit_lengths, s.size_bits)
    assert np.array_equal(codec.decode(enc), blocks)
    if cfg.get("pdw", 4) == 4 and block_bytes == 128:
        assert set(s.header_bits[s.mode != RAW] >= 21) == {True}  # W14: 3 x 7 pointer bits at least


@pytest.mark.parametrize("B, mag", [(32, 1), (32, 2), (256, 16), (128, 8), (64, 3)])
def test_many_bursts_measure_equals_encode(B, mag):
    """With B/MAG >= 16 a compressed block can take 15 bursts or more: such blocks stay compressed
    (mode = bursts), only the raw rule's blocks are stored raw (mode 0, tag all ones)."""
    blocks = np.concatenate([adversarial(B)[:80], realistic(B, 1 << 15)])
    codec = memcomp.get_codec("e2mc", mag=mag, pdw=1).fit(blocks)
    s = codec.measure(blocks)
    enc = codec.encode(blocks)
    assert np.array_equal(enc.bit_lengths, s.size_bits)
    assert np.array_equal(codec.decode(enc), blocks)
    bursts = np.maximum(1, -(-s.size_bits.astype(np.int64) // (8 * mag)))
    comp = s.mode != RAW
    assert np.array_equal(s.mode[comp], bursts[comp])
    assert (s.size_bits[~comp] == 8 * B).all()
    assert (bursts[comp] >= 15).any(), "the data must reach the old mode-15 collision"
    assert set(codec.modes) >= {RAW, *map(int, s.mode)}
    tb = int(s.tag_bits[0])
    assert (enc.tags[~comp] == (1 << tb) - 1).all() and (enc.tags[comp] == bursts[comp] - 1).all()


@pytest.mark.parametrize("preset", ["sc2.paper", "sc2.kim"])
def test_sc2_presets(preset):
    blocks = realistic(64, 1 << 16)
    codec = memcomp.get_codec(preset).fit(blocks)
    assert codec.options["symbol_bits"] == 32 and codec.options["pdw"] == 1 and not codec.options["raw"]
    s = codec.measure(blocks)
    assert not s.header_bits.any() and not s.tag_bits.any()
    for i in range(0, len(blocks), 37):
        assert int(s.payload_bits[i]) == oracle(codec, blocks[i])[0]
    lengths = codec.model["tables"][0]["lengths"]
    assert max(lengths) <= (16 if preset == "sc2.paper" else 32)


@pytest.mark.parametrize("sl", [4, 8, 16, 32])
def test_never_beats_the_entropy_bound_beyond_escape_accounting(sl):
    """A prefix code cannot beat the entropy of what it codes. With the raw rule and pointers off
    every symbol is coded, and the payload is at least the per-position entropy (SL 4/8: one
    table per position) or N * H_K (SL 16/32: K table values + ESC, escapes costing SL raw bits)."""
    blocks = realistic(128, 1 << 17)
    codec = memcomp.get_codec("e2mc", symbol_bits=sl, pdw=1, raw=False).fit(blocks)
    payload = int(codec.measure(blocks).payload_bits.sum())
    st_ = E.histogram(blocks, sl, per_position=sl <= 8)
    if sl <= 8:
        bound = sum(E._entropy(row) * row.sum() for row in st_.counts)
    else:
        bound = st_.mfv_entropy(len(codec.model["tables"][0]["symbols"])) * st_.total
    assert payload >= bound * (1 - 1e-12)
    assert payload <= bound * 1.25 + st_.total  # and a fitted Huffman code is close to it


@given(st.integers(0, 2**31), st.sampled_from([4, 8, 16, 32]), st.sampled_from([1, 2, 4]))
@settings(max_examples=25, deadline=None)
def test_hypothesis_roundtrip_any_model(seed, sl, pdw):
    rng = np.random.default_rng(seed)
    train = rng.integers(0, rng.integers(2, 256), size=(64, 64), dtype=np.uint8)
    test = rng.integers(0, 256, size=(40, 64), dtype=np.uint8) & rng.integers(0, 256, dtype=np.uint8)
    codec = memcomp.get_codec("e2mc", symbol_bits=sl, pdw=pdw).fit(train)
    enc = codec.encode(test)
    assert np.array_equal(codec.decode(enc), test)
    assert np.array_equal(enc.bit_lengths, codec.measure(test).size_bits)


def test_online_training():
    blocks = realistic(128, 1 << 18)
    r = memcomp.e2mc.online(blocks, window=100)
    assert r.window == 100 and r.stats.n_blocks == len(blocks)
    fitted = memcomp.get_codec("e2mc").fit(blocks[:100])
    assert r.codec == fitted
    rest = fitted.measure(blocks[100:]).stats()
    assert r.stats.inband_bits == rest.inband_bits + 100 * 1024
    assert r.stats.mode_counts[RAW] == rest.mode_counts.get(RAW, 0) + 100
    default = memcomp.e2mc.online(blocks)
    assert default.window == math.ceil(0.1 * len(blocks))
    with pytest.raises(ValueError, match="window"):
        memcomp.e2mc.online(blocks, window=0)


@pytest.mark.parametrize("chunk", (7, 100, 1 << 18))
def test_online_training_streams_a_dump_and_a_stream(chunk, tmp_path):
    """A Dump and a compressed stream, read a chunk at a time after the window, give the array's
    result exactly; a stream needs its window, and a window longer than the stream is refused."""
    import gzip

    blocks = realistic(128, 1 << 17)
    raw, gz = tmp_path / "d.bin", tmp_path / "d.bin.gz"
    raw.write_bytes(blocks.tobytes())
    gz.write_bytes(gzip.compress(blocks.tobytes(), compresslevel=1))
    want = memcomp.e2mc.online(blocks, window=100)
    for d in (memcomp.open_dump(raw, 128), memcomp.open_dump(gz, 128)):
        got = memcomp.e2mc.online(d, window=100, chunk_blocks=chunk)
        assert got.codec == want.codec and got.stats.hist.tolist() == want.stats.hist.tolist()
        assert (got.stats.inband_bits, got.stats.n_blocks) == (want.stats.inband_bits, want.stats.n_blocks)
        assert got.stats.mode_counts == want.stats.mode_counts
    assert memcomp.e2mc.online(memcomp.open_dump(raw, 128), chunk_blocks=chunk).window == math.ceil(0.1 * len(blocks))
    with pytest.raises(ValueError, match="window: give it for a stream"):
        memcomp.e2mc.online(memcomp.open_dump(gz, 128))
    with pytest.raises(ValueError, match=r"window must be in \[1, 1024\] blocks, got 2000"):
        memcomp.e2mc.online(memcomp.open_dump(gz, 128), window=2000, chunk_blocks=chunk)


def test_sampling_study_and_bound_gap():
    blocks = realistic(128, 1 << 17)
    df = memcomp.e2mc.sampling_study(blocks, mfv=(16, 256), windows=(0.05, 0.5))
    assert list(df["study"]) == ["mfv", "mfv", "online", "online"]
    one = memcomp.get_codec("e2mc", mfv=256).fit(blocks)
    assert df["cr"].iloc[1] == pytest.approx(one.measure(blocks).cr("none"))
    assert df["cr_rel"].iloc[0] == 1.0 and df["cr_rel"].iloc[2] == 1.0
    gap = memcomp.e2mc.bound_gap(blocks, symbol_bits=(8, 16))
    for _, r in gap.iterrows():
        assert r["cr_bound"] >= r["cr_mfv_bound"] - 1e-9
        assert r["gap"] == pytest.approx(r["cr_bound"] / r["cr"])


def test_model_roundtrip_and_errors(tmp_path):
    blocks = realistic(128, 1 << 16)
    c = memcomp.get_codec("e2mc").fit(blocks)
    m = c.model
    assert m.codec == "e2mc" and m["sl"] == 16 and m["max_len"] == 20 and len(m["tables"]) == 1
    m.save(tmp_path / "e2mc.json")
    again = memcomp.get_codec("e2mc", model=memcomp.Model.load(tmp_path / "e2mc.json"))
    assert again == c
    assert np.array_equal(again.measure(blocks).size_bits, c.measure(blocks).size_bits)
    with pytest.raises(ValueError, match="has no model"):
        memcomp.get_codec("e2mc").measure(blocks)
    with pytest.raises(ValueError, match="differs from symbol_bits"):
        memcomp.get_codec("e2mc", symbol_bits=32, model=m)
    with pytest.raises(ValueError, match="8B must be divisible"):
        memcomp.get_codec("e2mc", symbol_bits=32, pdw=8).fit(np.zeros((4, 16), np.uint8))
    bad = m.data
    bad["tables"][0]["lengths"][0] = 40
    with pytest.raises(ValueError):
        memcomp.get_codec("e2mc", model=bad)


_STREAM_FITS = [
    ("e2mc.paper", {}),
    ("e2mc", {"symbol_bits": 4}),
    ("e2mc", {"symbol_bits": 8, "per_position": False}),
    ("e2mc", {"symbol_bits": 16, "tree": "heap", "miss": "flag", "max_len": 0}),
    ("sc2.paper", {}),
    ("sc2.kim", {"mfv": 64}),
    ("slc", {}),
    ("fvc", {}),
    ("fvc", {"entries": 255, "code_bits": 8}),
    ("sc2.cal22", {}),  # the MPC authors' sample: fitted on the blocks read whole
    ("fvc.gem5", {}),  # gem5's sampled table: likewise
    ("sc2.paper", {"tree": "heap", "miss": "flag", "max_len": 0}),  # 32-bit heap tree: likewise
]


@pytest.fixture(scope="module")
def stream_fit_dump(tmp_path_factory):
    x = memcomp.workloads.sample_dump(3 << 20, seed=6)
    path = tmp_path_factory.mktemp("fit") / "d.bin"
    memcomp.save_dump(path, x)
    return x, path


@pytest.mark.parametrize("preset,options", _STREAM_FITS)
@pytest.mark.parametrize("block_bytes", [32, 128])
def test_fit_on_a_dump_streams_counts_to_the_same_model(preset, options, block_bytes, stream_fit_dump, monkeypatch):
    """Codec.fit on a Dump counts symbols a chunk at a time (two chunks at 32 B), SL 32's counts
    spilled to disk past a bound (set low here) and summarised to their most frequent values, and
    fits the model from the counts: the same model, and the same provenance, as fit() on the array."""
    import memcomp._counts as counts

    monkeypatch.setattr(counts, "RUN_ENTRIES", 5000)
    x, path = stream_fit_dump
    codec = memcomp.get_codec(preset, **options)
    whole = codec.fit(memcomp.as_blocks(x, block_bytes))
    dump = memcomp.open_dump(path, block_bytes)
    streamed = codec.fit(dump)
    assert streamed.model.data == whole.model.data
    for k in ("sha256", "bytes", "blocks"):
        assert streamed.model.provenance[k] == whole.model.provenance[k], k
    b = memcomp.as_blocks(x, block_bytes)
    assert np.array_equal(streamed.measure(b).size_bits, whole.measure(b).size_bits)


def test_fit_counts_checks_its_counts():
    c = memcomp.get_codec("e2mc.paper")._c
    assert memcomp.get_codec("bdi")._c.count_plan is None
    with pytest.raises(ValueError, match="counts of 8-bit symbols for SL 16"):
        c.fit_counts(8, np.zeros((1, 256), np.uint64))
    with pytest.raises(ValueError, match="rows of 65536 values"):
        c.fit_counts(16, np.zeros((1, 256), np.uint64))
    with pytest.raises(ValueError, match="does not fit its model from symbol counts"):
        memcomp.get_codec("bdi")._c.fit_counts(32)
    with pytest.raises(ValueError, match="samples the blocks themselves"):
        memcomp.get_codec("fvc.gem5")._c.fit_counts(32)
    # the ESC leaf weighs the symbols not listed: more of them, a shorter ESC code
    sc2 = memcomp.get_codec("sc2.paper")._c
    v, n = np.arange(1, 5, dtype=np.uint64), np.array([40, 30, 20, 10], np.uint64)
    few, many = (memcomp.Model(sc2.fit_counts(32, None, v, n, u)) for u in (1, 1000))
    esc = lambda m: m.data["tables"][0]  # noqa: E731
    assert esc(few) != esc(many)


def test_count_plans_name_the_counts_each_fit_reads():
    """The core says which counts a streamed fit gathers (Capabilities::counts): SL and rows per
    position from the options, SL 32's top values from mfv (E2MC, SC2) or entries (FVC), and
    none where the fit needs the blocks (the cal22 sample, 32-bit heap trees, gem5's table)."""

    def plan(name, **o):
        return memcomp.get_codec(name, **o)._c.count_plan

    def want(sl, per_position=False, endian="little", top=0):
        return {"symbol_bits": sl, "per_position": per_position, "endian": endian, "top": top}

    assert plan("e2mc.paper") == want(16)
    assert plan("e2mc.paper", symbol_bits=8, per_position=True) == want(8, True)
    assert plan("e2mc.paper", symbol_bits=8, per_position=False, endian="big") == want(8, endian="big")
    assert plan("e2mc.paper", symbol_bits=32, mfv=77) == want(32, top=77)
    assert plan("sc2.paper") == want(32, top=1024)
    assert plan("slc.opt") == want(16)
    assert plan("fvc.paper", endian="big") == want(32, endian="big", top=7)
    assert plan("fvc.paper", entries=3) == want(32, top=3)
    heap = {"tree": "heap", "miss": "flag", "max_len": 0}
    assert plan("e2mc.paper", symbol_bits=16, **heap) == want(16)
    for name, o in [("sc2.cal22", {}), ("fvc.gem5", {}), ("e2mc.paper", {"symbol_bits": 32, **heap})]:
        assert plan(name, **o) is None, name


def test_bound_gap_on_a_dump_equals_the_array(stream_fit_dump):
    """bound_gap reads a Dump a chunk at a time (bounds, fits from counts, sizes): the same table
    as over the array, and its bounds are the entropy table's."""
    import pandas as pd

    x, path = stream_fit_dump
    arr = memcomp.as_blocks(x, 32)
    ref = memcomp.e2mc.bound_gap(arr, symbol_bits=(8, 16, 32))
    pd.testing.assert_frame_equal(memcomp.e2mc.bound_gap(memcomp.open_dump(path, 32), symbol_bits=(8, 16, 32)), ref)
    t = E.table(arr, (8, 16, 32)).set_index("symbol_bits")
    assert list(ref["cr_bound"]) == [t.loc[8, "cr_per_position"], t.loc[16, "cr_bound"], t.loc[32, "cr_bound"]]
    assert list(ref["cr_mfv_bound"][1:]) == [t.loc[16, "cr_mfv"], t.loc[32, "cr_mfv"]]
    one = memcomp.get_codec("e2mc", symbol_bits=16).fit(arr).measure(arr)
    assert ref["cr"][1] == one.cr("none")


def test_sampling_study_and_bound_gap_stream_a_dump_and_a_compressed_stream(tmp_path):
    """Both read a Dump, or a compressed stream once per pass, a chunk at a time: the same tables
    as over the array."""
    import gzip

    import pandas as pd

    blocks = realistic(128, 1 << 17)
    (tmp_path / "d.bin").write_bytes(blocks.tobytes())
    (tmp_path / "d.bin.gz").write_bytes(gzip.compress(blocks.tobytes(), compresslevel=1))
    kw = dict(mfv=(16, 256), windows=(0.05, 0.5))
    study, gap = memcomp.e2mc.sampling_study(blocks, **kw), memcomp.e2mc.bound_gap(blocks, symbol_bits=(8, 32))
    for name in ("d.bin", "d.bin.gz"):
        pd.testing.assert_frame_equal(memcomp.e2mc.sampling_study(memcomp.open_dump(tmp_path / name, 128), **kw), study)
        got = memcomp.e2mc.bound_gap(memcomp.open_dump(tmp_path / name, 128), symbol_bits=(8, 32))
        pd.testing.assert_frame_equal(got, gap)
    # windows only: a stream is read once for its length first
    only = memcomp.e2mc.sampling_study(memcomp.open_dump(tmp_path / "d.bin.gz", 128), mfv=(), windows=(0.5,))
    assert list(only["window"]) == [blocks.shape[0] // 2]
