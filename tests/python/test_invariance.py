"""Results are bit-identical whatever runs them (issue 14): the thread count of every threaded call,
the chunk size of every streamed analysis over a memory-mapped Dump, and several Python threads
calling one codec object at once. Stateful presets (``cpack.skku``, ``cpack.cal22``) keep their
sequential semantics: a batch starts from the initial state, ``resume=True`` continues where the
previous batch ended (chunks resumed in order equal one whole batch), concurrent calls on one
object are serialised (each equals the serial answer), and an encoded chunk carries the state its
encode started from, so it decodes on its own.

The codec data is large enough that the core really splits it (4096 blocks per codec worker,
2048 per block-entropy worker, 16384 per scan worker): realistic workloads, adversarial blocks
and random ones."""

import concurrent.futures as cf
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import memcomp
from blockgen import adversarial, realistic
from memcomp import e2mc, entropy, mpc, slc, toggles

THREADS = (1, 2, 7, None)  # None: every hardware thread (0 is refused: see test_threads_zero_is_refused)
NAMES = memcomp.codec_names()
STATEFUL = [n for n in NAMES if memcomp.get_codec(n).stateful]
PROVENANCE = {"dataset", "file", "format", "offset_begin", "offset_end"}


def _mixed(B, n_realistic_bytes, seed):
    """Realistic blocks with adversarial and random runs spliced in (so every worker's range holds
    a different mix, and a stateful codec sees all kinds in one dictionary)."""
    rng = np.random.default_rng(seed)
    real = realistic(B, n_realistic_bytes, seed=seed)
    adv = adversarial(B, seed)
    rnd = rng.integers(0, 256, (512, B), dtype=np.uint8)
    narrow = rng.integers(0, 256, (512, B), dtype=np.uint8) & rng.integers(0, 16, (512, 1), dtype=np.uint8)
    cut = [len(real) // 5, 2 * len(real) // 5, 3 * len(real) // 5]
    parts = [real[: cut[0]], adv, real[cut[0] : cut[1]], rnd, real[cut[1] : cut[2]], narrow, real[cut[2] :], adv[::-1]]
    return np.ascontiguousarray(np.concatenate(parts))


@pytest.fixture(scope="module")
def x32():
    """~34 K sectors of 32 B: enough for 7 codec workers (7 x 4096) and 2 scan workers (2 x 16384)."""
    x = _mixed(32, 1 << 20, seed=14)
    assert x.shape[0] > 7 * 4096
    return x


@pytest.fixture(scope="module")
def x128():
    """~10 K blocks of 128 B: two codec workers and more."""
    return _mixed(128, 5 << 18, seed=15)


def _fitted(name, x, threads=1):
    c = memcomp.get_codec(name)
    return c.fit(x, threads=threads) if c.requires_fit else c


def _data(name, x32, x128):
    return x32 if name.startswith("mpc") else x128


def assert_sizes_equal(a, b, what=""):
    for col in ("size_bits", "payload_bits", "meta_bits", "header_bits", "tag_bits", "mode"):
        x, y = getattr(a, col), getattr(b, col)
        assert x.dtype == y.dtype and np.array_equal(x, y), (what, col)


def assert_encoded_equal(a, b, what=""):
    assert a.config == b.config and a.block_bytes == b.block_bytes, what
    for col in ("data", "bit_offsets", "bit_lengths", "tags"):
        x, y = getattr(a, col), getattr(b, col)
        assert x.dtype == y.dtype and np.array_equal(x, y), (what, col)
    assert (a.entry_state is None) == (b.entry_state is None), what
    if a.entry_state is not None:
        assert np.array_equal(a.entry_state, b.entry_state), (what, "entry_state")
    assert a.to_bytes() == b.to_bytes(), what


def assert_frames_equal(a, b, what=""):
    """Tables equal bit for bit (floats compared exactly; NaN equals NaN)."""
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True, obj=str(what))


# ====================================================================================== threads
@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_batches_split_across_threads_equal_one_thread(name):
    """A stateful codec's measure, encode and decode on several threads guess each range's
    starting state, and run a range again where the guess was wrong (a run of zero blocks pushes
    nothing, so the dictionary after it still holds what came before): sizes, streams, decoded
    blocks, the state a resumed batch starts from and the entry state an encode records all equal
    one thread's."""
    real = _mixed(32, 6 << 20, seed=21)
    x = np.ascontiguousarray(np.concatenate([real[: len(real) // 2], np.zeros((150_000, 32), np.uint8), real]))
    assert len(x) >= 6 * 65536

    def state(c):  # the state a resumed batch starts from
        return c.encode(x[:0], resume=True).entry_state

    for t in THREADS[1:]:
        one, many = memcomp.get_codec(name), memcomp.get_codec(name)
        for resume in (False, True, True):
            assert_sizes_equal(many.measure(x, threads=t, resume=resume), one.measure(x, threads=1, resume=resume), t)
            assert np.array_equal(state(many), state(one)), (name, t)
            enc = one.encode(x, threads=1, resume=resume)
            assert_encoded_equal(many.encode(x, threads=t, resume=resume), enc, (name, t))
            assert np.array_equal(state(many), state(one)), (name, t)
            assert np.array_equal(many.decode(enc, threads=t), x), (name, t)
            assert np.array_equal(state(many), state(one)), (name, t)


@pytest.mark.parametrize("name", NAMES)
def test_codec_results_do_not_depend_on_threads(name, x32, x128):
    """measure, encode (streams, tags, offsets, entry state), decode and fit: equal for 1, 2, 7 and
    all threads, at a size the core splits into several workers."""
    for x in [x32, x128] if not name.startswith("mpc") else [x32]:
        base = memcomp.get_codec(name)
        if not base.supports(x.shape[1]):
            continue
        ref_codec = _fitted(name, x, threads=1)
        if base.requires_fit:
            for t in THREADS[1:]:
                assert base.fit(x, threads=t) == ref_codec, (name, t, "fit")
        ref = ref_codec.measure(x, threads=1)
        for t in THREADS[1:]:
            assert_sizes_equal(ref_codec.measure(x, threads=t), ref, (name, t, "measure"))
        if not ref_codec.stateful:  # resume means nothing to a codec without state
            assert_sizes_equal(ref_codec.measure(x, threads=2, resume=True), ref, (name, "resume"))
        if not ref_codec.exact:
            continue
        enc = ref_codec.encode(x, threads=1)
        assert np.array_equal(enc.bit_lengths, ref.size_bits), name
        for t in THREADS[1:]:
            assert_encoded_equal(ref_codec.encode(x, threads=t), enc, (name, t, "encode"))
        if not ref_codec.stateful:
            assert_encoded_equal(ref_codec.encode(x, resume=True), enc, (name, "resume"))
        dec = ref_codec.decode(enc, threads=1)
        if not ref_codec.lossy:
            assert np.array_equal(dec, x), name
        for t in THREADS[1:]:
            assert np.array_equal(ref_codec.decode(enc, threads=t), dec), (name, t, "decode")
        if ref_codec.lossy:  # an approximable mask: only the marked blocks may change
            mask = (np.arange(x.shape[0]) % 3) != 0
            s1 = ref_codec.measure(x, threads=1, approximable=mask)
            e1 = ref_codec.encode(x, threads=1, approximable=mask)
            d1 = ref_codec.decode(e1, threads=1)
            assert np.array_equal(d1[~mask], x[~mask]), name
            for t in THREADS[1:]:
                assert_sizes_equal(ref_codec.measure(x, threads=t, approximable=mask), s1, (name, t))
                e = ref_codec.encode(x, threads=t, approximable=mask)
                assert_encoded_equal(e, e1, (name, t))
                assert np.array_equal(ref_codec.decode(e, threads=t), d1), (name, t)


def test_threads_zero_is_refused():
    """threads: None means every hardware thread; 0 and negatives are refused with a ValueError
    that names the argument, the same way everywhere (never silently serial)."""
    x = realistic(32, 1 << 14)
    c = memcomp.get_codec("bdi")
    enc = c.encode(x)
    calls = [
        lambda t: c.measure(x, threads=t),
        lambda t: c.encode(x, threads=t),
        lambda t: c.decode(enc, threads=t),
        lambda t: memcomp.get_codec("e2mc").fit(x, threads=t),
        lambda t: entropy.histogram(x, 16, threads=t),
        lambda t: entropy.block_entropy(x, 16, threads=t),
        lambda t: mpc.guess_dtype(x, threads=t),
        lambda t: mpc.ratio_entropy(x, threads=t),
        lambda t: memcomp.compare(x, ["bdi"], threads=t),
    ]
    for call in calls:
        for t in (0, -1):
            with pytest.raises(ValueError, match="threads"):
                call(t)
        with pytest.raises(TypeError, match="threads"):
            call(2.0)


def test_entropy_does_not_depend_on_threads(x32, x128):
    for x in (x32, x128):
        for sl in (4, 8, 16, 32):
            for pp in (False, True) if sl <= 8 else (False,):  # per position: 4- and 8-bit symbols
                ref = entropy.histogram(x, sl, per_position=pp, threads=1)
                for t in THREADS[1:]:
                    h = entropy.histogram(x, sl, per_position=pp, threads=t)
                    assert h.total == ref.total and np.array_equal(h.counts, ref.counts), (sl, pp, t)
                    assert (h.values is None) == (ref.values is None)
                    if ref.values is not None:
                        assert np.array_equal(h.values, ref.values), (sl, pp, t)
                    assert h.entropy("per_position" if pp else "global") == ref.entropy(
                        "per_position" if pp else "global"
                    )
            ref_h = entropy.block_entropy(x, sl, threads=1)
            for t in THREADS[1:]:
                assert np.array_equal(entropy.block_entropy(x, sl, threads=t), ref_h), (sl, t)
            for variant in ("global", "per_position", "block") if sl <= 8 else ("global", "block"):
                ref_b = entropy.bound(x, sl, variant, threads=1)
                for t in THREADS[1:]:
                    assert entropy.bound(x, sl, variant, threads=t) == ref_b, (sl, variant, t)
        ref_t = entropy.table(x, threads=1)
        ref_ts = pickle.dumps(entropy.table_stats(x, threads=1))
        for t in THREADS[1:]:
            assert_frames_equal(entropy.table(x, threads=t), ref_t, ("table", t))
            assert pickle.dumps(entropy.table_stats(x, threads=t)) == ref_ts, ("table_stats", t)


def test_toggles_do_not_depend_on_threads(x128):
    x = x128
    codecs = ["bdi", "fpc.mc", "cpack.skku", "e2mc", "bestof.hycomp"]
    for kw in (
        dict(channel="dram", dbi="dc", ec="ec2", energy="gddr5"),
        dict(channel="noc", flit_bytes=16, ec="ec1", ec_ratio="bits"),
    ):
        ref = toggles.compare(x, codecs, threads=1, **kw)
        for t in THREADS[1:]:
            assert_frames_equal(toggles.compare(x, codecs, threads=t, **kw), ref, ("toggles.compare", kw, t))
    small = x[:3000]
    ref = toggles.scatter(small, ["bdi", "cpack.cal22", "sc2"], threads=1)
    for t in THREADS[1:]:
        assert_frames_equal(toggles.scatter(small, ["bdi", "cpack.cal22", "sc2"], threads=t), ref, ("scatter", t))


@pytest.mark.filterwarnings("ignore::memcomp.report.SkippedCodecWarning")  # mpc.cal22_rtl at 128 B: a row says so
def test_compare_does_not_depend_on_threads(x128):
    ref = memcomp.compare(x128, "all", oracle="all", mag=32, threads=1)
    for t in THREADS[1:]:
        assert_frames_equal(memcomp.compare(x128, "all", oracle="all", mag=32, threads=t), ref, ("compare", t))
    ref = memcomp.breakdown(x128, ["bdi", "e2mc", "bestof.bdi_fpc", "cpack.skku"], threads=1)
    assert_frames_equal(memcomp.breakdown(x128, ["bdi", "e2mc", "bestof.bdi_fpc", "cpack.skku"], threads=7), ref)
    arr = x128[:4096]
    a = memcomp.mag_study(arr, ["bdi", "fpc", "cpack.skku", "e2mc"], threads=1)
    b = memcomp.mag_study(arr, ["bdi", "fpc", "cpack.skku", "e2mc"], threads=None)
    for fa, fb in zip(a, b):
        assert_frames_equal(fa, fb, "mag_study")


def test_mpc_does_not_depend_on_threads(x32):
    x = x32
    ref_g = mpc.guess_dtype(x, threads=1)
    ref_s = mpc.special_class(x, threads=1)
    for t in THREADS[1:]:
        assert np.array_equal(mpc.guess_dtype(x, threads=t), ref_g), t
        assert np.array_equal(mpc.special_class(x, threads=t), ref_s), t
    for kw in (dict(), dict(zeros="as_one", quantiser="round", signed=True, elem_bytes=2)):
        ref = mpc.ratio_entropy(x, threads=1, **kw)
        for t in THREADS[1:]:
            assert np.array_equal(mpc.ratio_entropy(x, threads=t, **kw).counts, ref.counts), (kw, t)
    ref_m = mpc.train(x, threads=1)
    for t in THREADS[1:]:
        assert mpc.train(x, threads=t) == ref_m, t
    ref_k = mpc.train(x, threads=1, max_blocks=500, seed=3)
    assert mpc.train(x, threads=7, max_blocks=500, seed=3) == ref_k
    codec = ref_m.codec()
    assert memcomp.get_codec("mpc").fit(x, threads=2) == codec
    labels = np.arange(x.shape[0]) % 5
    ref_l = mpc.train(x, labels, threads=1)
    assert mpc.train(x, labels, threads=None) == ref_l
    ref_ms = mpc.module_stats(x, threads=1)
    pred = ref_ms.predictor()
    ref_sc = mpc.scan_counts(x, pred, threads=1)
    ref_mod = mpc.train_module(x, 3, threads=1)
    for t in THREADS[1:]:
        ms = mpc.module_stats(x, threads=t)
        assert np.array_equal(ms.re.counts, ref_ms.re.counts) and np.array_equal(ms.hist, ref_ms.hist), t
        assert np.array_equal(mpc.scan_counts(x, pred, threads=t), ref_sc), t
        assert mpc.train_module(x, 3, threads=t) == ref_mod, t
    # the two training passes on their own, and a protocol run over three workloads
    st1, st7 = mpc.train_stats(x, threads=1), mpc.train_stats(x, threads=7)
    assert st1.counts == st7.counts and all(
        (a is None and b is None) or np.array_equal(a.re.counts, b.re.counts) for a, b in zip(st1.groups, st7.groups)
    )
    preds = mpc.train_predictors(st1)
    assert np.array_equal(mpc.train_scans(x, preds, threads=1), mpc.train_scans(x, preds, threads=7))
    wl = {f"w{i}": x[i * 8000 : (i + 1) * 8000] for i in range(4)}
    m1, t1 = mpc.protocol(wl, codecs=("bdi", "sc2"), threads=1)
    m2, t2 = mpc.protocol(wl, codecs=("bdi", "sc2"), threads=None)
    assert m1 == m2
    assert_frames_equal(t1, t2, "mpc.protocol")


@pytest.mark.filterwarnings("ignore::memcomp.MetricWarning")  # the synthetic floats' tiny values
def test_slc_and_e2mc_do_not_depend_on_threads(x128):
    x = x128[:6000]
    ref = slc.compress(x, threshold_bytes=16, mag=32, variant="opt", threads=1)
    for t in THREADS[1:]:
        r = slc.compress(x, threshold_bytes=16, mag=32, variant="opt", threads=t)
        assert np.array_equal(r.blocks, ref.blocks), t
        assert json.dumps(r.report, sort_keys=True, default=str) == json.dumps(ref.report, sort_keys=True, default=str)
    kw = dict(thresholds=(0, 16), mags=(32, 64), variants=("simp", "opt"))
    ref = slc.sweep(x, threads=1, **kw)
    for t in THREADS[1:]:
        assert_frames_equal(slc.sweep(x, threads=t, **kw), ref, ("slc.sweep", t))
    ref = e2mc.bound_gap(x, threads=1)
    assert_frames_equal(e2mc.bound_gap(x, threads=7), ref, "bound_gap")
    a, b = e2mc.online(x, threads=1), e2mc.online(x, threads=None)
    assert a.codec == b.codec and a.cr() == b.cr()
    kw = dict(mfv=(64, 1024), windows=(0.05, 0.5))
    assert_frames_equal(
        e2mc.sampling_study(x, threads=1, **kw), e2mc.sampling_study(x, threads=7, **kw), "sampling_study"
    )


# ========================================================================== chunk size over a Dump
N_DUMP = 700  # 128 B blocks: chunk 1 stays quick


@pytest.fixture(scope="module")
def dump_path(tmp_path_factory):
    x = _mixed(128, 64 << 10, seed=21)[:N_DUMP]
    x = np.concatenate([x, realistic(128, 64 << 10, seed=22)])[:N_DUMP]
    path = tmp_path_factory.mktemp("inv") / "dump.bin"
    path.write_bytes(x.tobytes())
    return path


CHUNKS = (1, 7, 64, N_DUMP, 10 * N_DUMP)


def _numeric(df):
    return df.drop(columns=[c for c in df.columns if c in PROVENANCE]).reset_index(drop=True)


STREAMED = {
    "compare": lambda d, **k: memcomp.compare(
        d,
        ["bdi", "fpc", "cpack.skku", "cpack.cal22", "e2mc", "sc2.kim", "bestof.hycomp", "bpc.cal22"],
        oracle="all",
        mag=32,
        **k,
    ),
    "compare_policy": lambda d, **k: memcomp.compare(
        d, ["bdi.gem5", "fpc.cmu", "cpack.skku"], policy="cap+mag(64)", mag=64, **k
    ),
    "breakdown": lambda d, **k: memcomp.breakdown(d, ["e2mc", "cpack.cal22", "bestof.bdi_fpc"], **k),
    "entropy_table": lambda d, **k: entropy.table(d, **k),
    "toggles": lambda d, **k: toggles.compare(
        d, ["bdi", "fpc.mc", "cpack.skku", "e2mc"], ec="ec2", dbi="ac", energy="ddr4", **k
    ),
    "toggles_noc": lambda d, **k: toggles.compare(
        d, ["cpack.cal22", "bdi"], channel="noc", flit_bytes=32, ec="ec1", **k
    ),
    "slc_sweep": lambda d, **k: slc.sweep(d, thresholds=(0, 16), mags=(32, 64), variants=("opt",), **k),
    "slc_sweep_mask": lambda d, **k: slc.sweep(
        d, thresholds=(32,), mags=(32,), variants=("pred",), **{"approximable": np.arange(N_DUMP) % 4 != 1, **k}
    ),
}


@pytest.mark.parametrize("name", sorted(STREAMED))
@pytest.mark.filterwarnings("ignore::memcomp.MetricWarning")  # SLC's error metrics on the dump's tiny floats
def test_streamed_tables_do_not_depend_on_chunk_size(name, dump_path):
    fn = STREAMED[name]
    arr = np.fromfile(dump_path, np.uint8).reshape(-1, 128)
    ref = _numeric(fn(arr))
    head = 120  # chunk 1 streams the first 120 blocks (one call per block and codec)
    ref_head = _numeric(
        fn(arr[:head], **({"approximable": np.arange(head) % 4 != 1} if name == "slc_sweep_mask" else {}))
    )
    for chunk in CHUNKS:
        length = 128 * head if chunk == 1 else None
        kw = {"approximable": np.arange(head) % 4 != 1} if chunk == 1 and name == "slc_sweep_mask" else {}
        with memcomp.open_dump(dump_path, 128, length=length) as d:
            got = _numeric(fn(d, chunk_blocks=chunk, **kw))
        want = ref_head if chunk == 1 else ref
        assert_frames_equal(got[list(want.columns)], want, (name, chunk))


def test_streamed_partials_do_not_depend_on_chunk_size(dump_path):
    arr = np.fromfile(dump_path, np.uint8).reshape(-1, 128)
    for chunk in CHUNKS:
        with memcomp.open_dump(dump_path, 128) as d:
            for sl in (8, 16, 32):
                for pp in (False, True) if sl <= 8 else (False,):
                    a = entropy.histogram(d, sl, per_position=pp, chunk_blocks=chunk)
                    b = entropy.histogram(arr, sl, per_position=pp)
                    assert a.total == b.total and np.array_equal(a.counts, b.counts), (chunk, sl, pp)
                for variant in ("global", "per_position", "block") if sl <= 8 else ("global", "block"):
                    assert entropy.bound(d, sl, variant, chunk_blocks=chunk) == entropy.bound(arr, sl, variant), (
                        chunk,
                        sl,
                        variant,
                    )
            ts_d, ts_a = entropy.table_stats(d, chunk_blocks=chunk), entropy.table_stats(arr)
            assert pickle.dumps(ts_d) == pickle.dumps(ts_a) or _numeric(entropy.table_from_stats(ts_d)).equals(
                _numeric(entropy.table_from_stats(ts_a))
            ), chunk


@pytest.mark.parametrize("chunk", (1, 7, 64, 4 * N_DUMP, 40 * N_DUMP))
def test_mpc_training_does_not_depend_on_chunk_size(chunk, dump_path):
    n = {1: 300, 7: 600}.get(chunk)  # chunks 1 and 7: the first sectors only
    length = None if n is None else 32 * n
    arr = memcomp.sectorize(np.fromfile(dump_path, np.uint8).reshape(-1, 128), 32)[:n]
    ref = mpc.train(arr)
    ref_stats = mpc.train_stats(arr)
    ref_re = mpc.ratio_entropy(arr)
    with memcomp.open_dump(dump_path, 32, length=length) as d:
        assert mpc.train(d, chunk_blocks=chunk) == ref, chunk
        st = mpc.train_stats(d, chunk_blocks=chunk)
        assert st.counts == ref_stats.counts and st.dropped_special == ref_stats.dropped_special
        for g, (a, b) in enumerate(zip(st.groups, ref_stats.groups)):
            assert (a is None) == (b is None), g
            if a is not None:
                assert np.array_equal(a.re.counts, b.re.counts) and np.array_equal(a.hist, b.hist), g
        assert np.array_equal(mpc.ratio_entropy(d, chunk_blocks=chunk).counts, ref_re.counts)
        assert mpc.train(d, chunk_blocks=chunk, max_blocks=100, seed=7) == mpc.train(arr, max_blocks=100, seed=7)


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--codecs", "bdi,cpack.skku,e2mc,bestof.hycomp", "--oracle", "all"],
        ["entropy", "--symbol-bits", "8,16"],
        ["toggles", "--codecs", "fpc,cpack.cal22", "--ec", "ec2", "--dbi", "dc"],
        ["slc", "--thresholds", "0,16", "--mags", "32"],
    ],
)
def test_cli_output_does_not_depend_on_threads_or_chunks(argv, dump_path):
    """The command line's CSV is byte-identical for --threads 1, 2 and 7 and any --chunk-blocks."""
    import io

    from memcomp import cli

    outs = []
    for extra in (
        [],
        ["--threads", "1"],
        ["--threads", "2", "--chunk-blocks", "7"],
        ["--threads", "7", "--chunk-blocks", "64"],
    ):
        buf = io.StringIO()
        assert cli.main([*argv, str(dump_path), "--format", "csv", *extra], out=buf) == 0
        outs.append(buf.getvalue())
    assert outs[0] and all(o == outs[0] for o in outs), argv


# ============================================================================ concurrent callers
def _tasks(x, n_inputs=4):
    """Distinct inputs: slices of different sizes and offsets, a reversed copy, an empty array."""
    n = x.shape[0]
    outs = [x[: n // 3], x[n // 4 : n // 4 + 777], np.ascontiguousarray(x[::-1][: n // 2]), x[:0], x[-1:]]
    return outs[: n_inputs + 1]


def _run(codec, inp, threads):
    s = codec.measure(inp, threads=threads)
    if not codec.exact:
        return s, None, None
    e = codec.encode(inp, threads=threads)
    return s, e, codec.decode(e, threads=threads)


@pytest.mark.parametrize("name", NAMES)
def test_concurrent_calls_on_one_codec_object(name, x32, x128):
    """6 Python threads call one codec object at once (measure, encode, decode, each with its own
    input and thread count): every call returns what a serial call returns."""
    x = _data(name, x32, x128)[:9000]
    codec = _fitted(name, x)
    inputs = _tasks(x)
    serial = [_run(codec, inp, 1) for inp in inputs]
    jobs = [(i, t) for _ in range(3) for i in range(len(inputs)) for t in (1, 2, None)]
    with cf.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda job: _run(codec, inputs[job[0]], job[1]), jobs))
    for (i, t), (s, e, d) in zip(jobs, results):
        assert_sizes_equal(s, serial[i][0], (name, i, t))
        if e is not None:
            assert_encoded_equal(e, serial[i][1], (name, i, t))
            assert np.array_equal(d, serial[i][2]), (name, i, t)


@pytest.mark.parametrize("name", [n for n in NAMES if memcomp.get_codec(n).requires_fit] + ["mpc.cal22_rtl"])
def test_concurrent_fits_on_one_codec_object(name, x32, x128):
    """fit from several threads on one codec object (MPC: its preset model replaced by training)."""
    x = _data(name, x32, x128)[:6000]
    codec = memcomp.get_codec(name)
    inputs = [x[:2000], x[1000:5000], x]
    serial = [codec.fit(inp, threads=1) for inp in inputs]
    jobs = [i for _ in range(2) for i in range(len(inputs))]
    with cf.ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda i: codec.fit(inputs[i], threads=2), jobs))
    for i, c in zip(jobs, got):
        assert c == serial[i], (name, i)
        assert c.get_config() == serial[i].get_config()


def test_concurrent_analyses_share_codec_objects(x128):
    """compare / toggles.compare in several Python threads over one list of codec objects (a
    stateful one included, streamed in small chunks with resume): each equals its serial table."""
    cs = [memcomp.get_codec(n) for n in ("bdi", "cpack.skku", "cpack.cal22", "fpc")]
    cs.append(memcomp.get_codec("e2mc").fit(x128))
    inputs = [x128[:1500], x128[3000:4200], np.ascontiguousarray(x128[::-1][:900]), x128[5000:7000]]
    serial = [memcomp.compare(inp, cs, chunk_blocks=37) for inp in inputs]
    serial_t = [toggles.compare(inp, cs, chunk_blocks=53, ec="ec2") for inp in inputs]
    jobs = [i for _ in range(3) for i in range(len(inputs))]
    with cf.ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda i: memcomp.compare(inputs[i], cs, chunk_blocks=37), jobs))
        got_t = list(pool.map(lambda i: toggles.compare(inputs[i], cs, chunk_blocks=53, ec="ec2"), jobs))
    for i, df, dt in zip(jobs, got, got_t):
        assert_frames_equal(df, serial[i], ("compare", i))
        assert_frames_equal(dt, serial_t[i], ("toggles", i))


def test_concurrent_analyses_on_one_dump(dump_path):
    """Several Python threads streaming one memory-mapped Dump at once (each releasing the pages
    it has read) get the serial answers."""
    with memcomp.open_dump(dump_path, 128) as d:
        jobs = {
            "compare": lambda: memcomp.compare(d, ["bdi", "cpack.skku", "e2mc"], chunk_blocks=50),
            "entropy": lambda: entropy.table(d, chunk_blocks=64),
            "toggles": lambda: toggles.compare(d, ["fpc", "cpack.cal22"], ec="ec2", chunk_blocks=33),
            "slc": lambda: slc.sweep(d, thresholds=(16,), mags=(32,), variants=("opt",), chunk_blocks=90),
        }
        serial = {k: f() for k, f in jobs.items()}
        order = sorted(jobs) * 3
        with cf.ThreadPoolExecutor(6) as pool:
            got = list(pool.map(lambda k: jobs[k](), order))
    for k, df in zip(order, got):
        assert_frames_equal(df, serial[k], k)


@pytest.mark.parametrize("name", ["bdi", "cpack.skku", "cpack.cal22", "e2mc", "bestof.hycomp"])
def test_concurrent_numcodecs_chunks(name, x128):
    """One MemcompCodec encoding and decoding chunks from several threads (as zarr does): each
    chunk's bytes equal the serial ones and decode back (a stateful codec starts every chunk
    afresh)."""
    pytest.importorskip("numcodecs")
    from memcomp.numcodecs import MemcompCodec

    base = memcomp.get_codec(name)
    codec = MemcompCodec(base.fit(x128) if base.requires_fit else name, block_bytes=128)
    raw = x128.reshape(-1)
    chunks = [raw[: 128 * 700], raw[128 * 900 : 128 * 2000 + 77], raw[-5000:], raw[:0], raw[3333 : 3333 + 128 * 300]]
    serial = [codec.encode(c) for c in chunks]
    jobs = list(range(len(chunks))) * 4
    with cf.ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda i: codec.encode(chunks[i]), jobs))
        back = list(pool.map(lambda i: codec.decode(serial[i]), jobs))
    for i, enc, dec in zip(jobs, got, back):
        assert enc == serial[i], (name, i)
        assert np.array_equal(
            np.frombuffer(dec, np.uint8) if not isinstance(dec, np.ndarray) else dec.reshape(-1), chunks[i]
        ), (name, i)


def test_concurrent_entropy_and_mpc(x32):
    x = x32[:20000]
    inputs = [x[:5000], x[5000:12000], x]
    ser_h = [entropy.histogram(inp, 16, threads=1).counts for inp in inputs]
    ser_g = [mpc.guess_dtype(inp, threads=1) for inp in inputs]
    with cf.ThreadPoolExecutor(6) as pool:
        got_h = list(pool.map(lambda i: entropy.histogram(inputs[i], 16, threads=2).counts, [0, 1, 2] * 3))
        got_g = list(pool.map(lambda i: mpc.guess_dtype(inputs[i], threads=2), [0, 1, 2] * 3))
    for k, (h, g) in enumerate(zip(got_h, got_g)):
        assert np.array_equal(h, ser_h[k % 3]) and np.array_equal(g, ser_g[k % 3]), k


# ======================================================================= stateful presets' semantics
def _chunks(x, step):
    return [x[i : i + step] for i in range(0, x.shape[0], step)]


@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_batch_starts_from_the_initial_state(name, x128):
    x, y = x128[:3000], x128[6000:8000]
    c = memcomp.get_codec(name)
    fresh = c.measure(x)
    c.measure(y)  # leaves the dictionary full of y's words
    assert_sizes_equal(c.measure(x), fresh, "after another batch")
    c.encode(y)
    assert_sizes_equal(c.measure(x), fresh, "after an encode")
    assert_sizes_equal(memcomp.Codec.from_config(c.get_config()).measure(x), fresh, "from_config")
    assert_sizes_equal(pickle.loads(pickle.dumps(c)).measure(x), fresh, "pickled")
    # resume on a codec that has not run yet starts from the initial state too
    assert_sizes_equal(memcomp.get_codec(name).measure(x, resume=True), fresh, "first batch with resume")
    # the state really carries over: resumed after the blocks before them, blocks cost otherwise
    r = realistic(128, 1 << 16)
    c.measure(r[:100])
    assert not np.array_equal(c.measure(r[100:], resume=True).size_bits, c.measure(r[100:]).size_bits)
    # thread counts never matter (a stateful batch runs on one thread)
    for t in THREADS:
        assert_sizes_equal(c.measure(x, threads=t), fresh, t)
        assert_encoded_equal(c.encode(x, threads=t), c.encode(x, threads=1), t)


@pytest.mark.parametrize("name", STATEFUL)
@pytest.mark.parametrize("step", (1, 7, 64, 1000))
def test_stateful_resume_equals_one_batch(name, step, x128):
    x = x128[:2000] if step > 1 else x128[:300]
    c = memcomp.get_codec(name)
    whole_s = c.measure(x)
    whole_e = c.encode(x)
    parts_s = [c.measure(ch, resume=k > 0) for k, ch in enumerate(_chunks(x, step))]
    for col in ("size_bits", "payload_bits", "meta_bits", "header_bits", "tag_bits", "mode"):
        assert np.array_equal(np.concatenate([getattr(p, col) for p in parts_s]), getattr(whole_s, col)), col
    parts_e = [c.encode(ch, resume=k > 0) for k, ch in enumerate(_chunks(x, step))]
    assert np.array_equal(np.concatenate([e.bit_lengths for e in parts_e]), whole_e.bit_lengths)
    assert np.array_equal(np.concatenate([e.tags for e in parts_e]), whole_e.tags)
    streams = [e.block_stream(i) for e in parts_e for i in range(e.n_blocks)]
    assert streams == [whole_e.block_stream(i) for i in range(whole_e.n_blocks)]
    assert np.array_equal(parts_e[0].entry_state, whole_e.entry_state)  # the initial state
    if step < 100:  # chunks each from the initial state are another answer
        alone = np.concatenate([c.measure(ch).size_bits for ch in _chunks(x, step)])
        assert not np.array_equal(alone, whole_s.size_bits)
    # measure and encode share one state: a measured chunk is resumed by an encode and vice versa
    mixed = []
    for k, ch in enumerate(_chunks(x, step)):
        mixed.append(c.measure(ch, resume=k > 0).size_bits if k % 2 else c.encode(ch, resume=k > 0).bit_lengths)
    assert np.array_equal(np.concatenate(mixed), whole_s.size_bits)
    # every chunk decodes on its own, with a fresh codec and after a round trip through bytes
    fresh = memcomp.Codec.from_config(c.get_config())
    for k, (e, ch) in enumerate(zip(parts_e, _chunks(x, step))):
        assert np.array_equal(fresh.decode(e), ch), k
        assert np.array_equal(fresh.decode(memcomp.Encoded.from_bytes(e.to_bytes())), ch), k
    # decoding out of order, or the last chunk first, changes nothing
    for k in reversed(range(len(parts_e))):
        assert np.array_equal(c.decode(parts_e[k]), _chunks(x, step)[k]), k


@pytest.mark.parametrize("name", STATEFUL)
def test_sessions_share_one_codec(name, x128):
    """The codec is a value: two streams interleaved on one codec object, each in its own session,
    equal each stream alone; the codec itself keeps no state; a session pickles mid-stream and goes
    on where it stood; measure, encode and Energy Control continue one session's stream."""
    a, b = x128[:1500], realistic(128, 1500 * 128, seed=5)
    c = memcomp.get_codec(name)
    whole = {k: c.measure(x).size_bits for k, x in (("a", a), ("b", b))}
    sa, sb = c.session(), c.session()
    got = {"a": [], "b": []}
    for lo in range(0, 1500, 250):  # a's chunk, then b's, on the same codec object
        got["a"].append(c.measure(a[lo : lo + 250], session=sa).size_bits)
        got["b"].append(c.measure(b[lo : lo + 250], session=sb).size_bits)
    for k in got:
        assert np.array_equal(np.concatenate(got[k]), whole[k]), k
    assert_sizes_equal(c.measure(a), c.measure(a), "no state in the codec")
    # a session starts at the initial state, moves with its batches, and pickles with its state
    fresh = c.session()
    assert np.array_equal(fresh.state, c.encode(a[:0]).entry_state)
    half = c.session()
    first = c.measure(a[:700], session=half).size_bits
    assert not np.array_equal(half.state, fresh.state)
    moved = pickle.loads(pickle.dumps(half))
    assert np.array_equal(moved.state, half.state) and moved.codec == c
    rest = moved.codec.measure(a[700:], session=moved).size_bits
    assert np.array_equal(np.concatenate([first, rest]), whole["a"])
    # measure, encode and Energy Control move one stream: each continues where the last left it
    s, t = c.session(), c.session()
    parts = [c.measure(a[:500], session=s).size_bits, c.encode(a[500:1000], session=s).bit_lengths]
    assert np.array_equal(np.concatenate(parts), whole["a"][:1000])
    c.measure(a[:1000], session=t)
    assert np.array_equal(s.state, t.state)
    ec = toggles.energy_control(a[1000:], c, "ec2", per_block=False, session=s)
    ref = toggles.energy_control(a[1000:], c.encode(a[1000:], session=t), "ec2", per_block=False)
    assert ec.totals == ref.totals and np.array_equal(s.state, t.state)


@pytest.mark.parametrize("name", [*STATEFUL, "bdi.paper"])
def test_session_errors(name, x128):
    c, x = memcomp.get_codec(name), x128[:64]
    # an equal codec is another object: its sessions are its own (a stateless codec's too)
    with pytest.raises(ValueError, match="another codec"):
        c.measure(x, session=memcomp.get_codec(name).session())
    with pytest.raises(ValueError, match="another codec"):
        toggles.energy_control(x, c, session=memcomp.get_codec("fpc").session())
    with pytest.raises(ValueError, match="not both"):
        c.measure(x, session=c.session(), resume=True)
    with pytest.raises(TypeError, match="Session"):
        c.encode(x, session="fresh")
    with pytest.raises(TypeError, match="Session"):
        memcomp.Session("bdi")
    if not c.stateful:  # a stateless codec's batches ignore a session; it has no state
        s = c.session()
        assert_sizes_equal(c.measure(x, session=s), c.measure(x), name)
        assert s.state is None
        with pytest.raises(ValueError, match="stateless"):
            memcomp.Session(c, np.zeros(3, np.uint8))
    else:  # bytes no state serialises to
        with pytest.raises(ValueError, match="entry state"):
            memcomp.Session(c, np.zeros(3, np.uint8))
    for bad in ([0] * 66, np.zeros(66, np.int16), np.zeros((2, 33), np.uint8)):  # no silent cast
        with pytest.raises(TypeError, match="1-D uint8 array"):
            memcomp.Session(c, bad)


@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_entry_state_is_required_and_used(name, x128, tmp_path):
    x = realistic(128, 1 << 16)  # its first 100 blocks change how the rest encode
    c = memcomp.get_codec(name)
    c.encode(x[:100])
    e = c.encode(x[100:], resume=True)
    path = tmp_path / "chunk.npz"
    e.save(path)
    assert np.array_equal(memcomp.Codec.from_config(c.get_config()).decode(memcomp.Encoded.load(path)), x[100:])
    # the same streams with the initial state instead of the recorded one do not decode to x
    initial = c.encode(x[:1]).entry_state
    assert not np.array_equal(initial, e.entry_state)
    wrong = memcomp.Encoded(e.config, e.block_bytes, e.data, e.bit_offsets, e.bit_lengths, e.tags, initial)
    try:
        out = c.decode(wrong)
    except ValueError:
        pass
    else:
        assert not np.array_equal(out, x[100:])
    stateless = memcomp.Encoded(e.config, e.block_bytes, e.data, e.bit_offsets, e.bit_lengths, e.tags, None)
    with pytest.raises(ValueError, match="entry state"):
        c.decode(stateless)


@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_concurrent_calls_serialise(name, x128):
    """Calls on one stateful object from several Python threads run one at a time, each from the
    initial state (no resume): each equals the serial answer, whatever interleaving."""
    c = memcomp.get_codec(name)
    inputs = [x128[:2500], x128[2500:4000], np.ascontiguousarray(x128[::-1][:3000]), x128[7000:7300]]
    serial = [_run(c, inp, 1) for inp in inputs]
    jobs = [(i, t) for _ in range(4) for i in range(len(inputs)) for t in (1, None)]
    with cf.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda j: _run(c, inputs[j[0]], j[1]), jobs))
    for (i, t), (s, e, d) in zip(jobs, got):
        assert_sizes_equal(s, serial[i][0], (i, t))
        assert_encoded_equal(e, serial[i][1], (i, t))
        assert np.array_equal(d, inputs[i]), (i, t)


# ==================================================================== placement of the input bytes
@pytest.mark.parametrize("name", NAMES)
def test_results_do_not_depend_on_where_blocks_live(name, x32, x128, tmp_path):
    """Per-block results depend on the block alone (stateless codecs): any order or subset of the
    blocks gives the same per-block sizes and streams; and the same bytes at any alignment (1 to 7
    bytes off), read-only or in a memory map give the same answer."""
    x = _data(name, x32, x128)[:3000]
    c = _fitted(name, x)
    ref = c.measure(x)
    path = tmp_path / "blocks.bin"
    path.write_bytes(x.tobytes())
    with memcomp.open_dump(path, x.shape[1]) as d:
        assert_sizes_equal(c.measure(d.blocks), ref, (name, "memory map"))
    enc = c.encode(x) if c.exact else None
    if not c.stateful:
        perm = np.random.default_rng(7).permutation(x.shape[0])[:1000]
        s = c.measure(np.ascontiguousarray(x[perm]))
        for col in ("size_bits", "payload_bits", "meta_bits", "header_bits", "tag_bits", "mode"):
            assert np.array_equal(getattr(s, col), getattr(ref, col)[perm]), (name, col)
        if enc is not None:
            e = c.encode(np.ascontiguousarray(x[perm]))
            assert np.array_equal(e.tags, enc.tags[perm])
            assert [e.block_stream(i) for i in range(0, 1000, 37)] == [
                enc.block_stream(int(perm[i])) for i in range(0, 1000, 37)
            ]
    for shift in (1, 3, 7):
        buf = np.zeros(x.nbytes + 8, np.uint8)
        moved = np.frombuffer(buf.data, np.uint8, count=x.nbytes, offset=shift).reshape(x.shape)
        moved[...] = x
        moved.flags.writeable = False
        assert_sizes_equal(c.measure(moved), ref, (name, shift))
        if enc is not None:
            assert_encoded_equal(c.encode(moved), enc, (name, shift))
            # a container read from a buffer at an odd offset: its arrays are unaligned views
            buf = bytearray(shift) + enc.to_bytes()
            back = memcomp.Encoded.from_bytes(memoryview(buf)[shift:])
            assert np.array_equal(c.decode(back), c.decode(enc)), (name, shift)


def _fork_child(x):
    codec = memcomp.get_codec("bdi.paper")
    return codec.measure(x, threads=2).size_bits.tolist(), codec.decode(codec.encode(x, threads=2), threads=2).tobytes()


def test_forked_child_starts_its_own_pool(x32):
    """The core's threads live in a pool started once per process: a child forked after the parent
    used it (multiprocessing, Dask's process workers) starts its own, and threaded calls there
    return what the parent's do."""
    import multiprocessing as mp

    codec = memcomp.get_codec("bdi.paper")
    want = codec.measure(x32, threads=2).size_bits.tolist()  # the parent's pool now runs
    with cf.ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as pool:
        got = list(pool.map(_fork_child, [x32, x32[::-1].copy()]))
    assert got[0] == (want, x32.tobytes())
    assert got[1][0] == codec.measure(x32[::-1].copy(), threads=1).size_bits.tolist()
