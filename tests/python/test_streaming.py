"""Streaming (issue 13): every analysis runs over a mapped dump or a stream in chunks, partial
results merge by addition, so the chunk size never changes an answer; memory stays a few chunks
whatever the dump's size. Checked against the in-memory serial answer (the array, one call)."""

import bz2
import gzip
import io
import json
import lzma
import os
import pickle
import struct
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memcomp
from memcomp import _common, cli, entropy, mpc, slc, toggles
from memcomp.io import StreamDump

B = 128
CHUNKS = (1, 7, 1000, None)  # None: the analysis' default
#: Columns that say where the data came from, not what it measures (absent for an array).
PROVENANCE = {"dataset", "file", "format", "offset_begin", "offset_end"}


@pytest.fixture(scope="module")
def data():
    """512 KiB of the bundled sample dump (every workload kind), as flat bytes."""
    return memcomp.workloads.sample_dump(512 << 10, seed=3)


@pytest.fixture(scope="module")
def small(data):
    """Its first 64 KiB: for chunk_blocks=1, where per-call overhead dominates."""
    return data[: 64 << 10]


@pytest.fixture()
def raw(tmp_path, data):
    path = tmp_path / "dump.bin"
    path.write_bytes(data.tobytes())
    return path


def kw(chunk):
    return {} if chunk is None else {"chunk_blocks": chunk}


def measured(df, ref):
    """``df`` without its provenance columns, in ``ref``'s column order (ref: from an array)."""
    assert set(df.columns) - set(ref.columns) <= PROVENANCE, set(df.columns) - set(ref.columns)
    return df[list(ref.columns)]


def numeric(df):
    """What a result measures: every column but provenance and the model's provenance."""
    return df.drop(columns=[c for c in df.columns if c in PROVENANCE | {"model"}]).reset_index(drop=True)


# ------------------------------------------------------------------------- chunk-size invariance
ANALYSES = {
    "compare": lambda x, **k: memcomp.compare(x, ("bdi", "fpc", "cpack", "e2mc"), **k),
    "compare_oracle_all": lambda x, **k: memcomp.compare(
        x, ("bdi", "fpc.mc", "bpc.skku", "zca"), oracle="all", mag=64, policy="cap+mag(64)", **k
    ),
    "breakdown": lambda x, **k: memcomp.breakdown(x, ("bdi", "fpc"), **k),
    "entropy_table": lambda x, **k: entropy.table(x, **k),
    "toggles": lambda x, **k: toggles.compare(x, ("bdi", "fpc.mc", "cpack"), ec="ec2", **k),
    "toggles_noc": lambda x, **k: toggles.compare(x, ("bdi", "cpack.skku"), channel="noc", **k),
    "slc_sweep": lambda x, **k: slc.sweep(x, thresholds=(0, 16), mags=(32, 64), variants=("pred", "opt"), **k),
}


@pytest.mark.filterwarnings("ignore::memcomp.slc.MetricWarning")  # the sample's tiny FP32 values: not the point here
@pytest.mark.parametrize("name", sorted(ANALYSES))
@pytest.mark.parametrize("chunk", CHUNKS)
def test_tables_do_not_depend_on_chunk_size(name, chunk, data, small, tmp_path):
    x = small if chunk == 1 else data
    if name == "slc_sweep" and chunk in (1, 7):  # E2MC/SLC calls cost ~ms each (model config copies)
        x = x[: (16 << 10) * chunk]
    fn = ANALYSES[name]
    arr = memcomp.as_blocks(x, B)
    ref = fn(arr)
    assert len(ref) > 0
    pd.testing.assert_frame_equal(fn(arr, **kw(chunk)), ref)
    path = tmp_path / "d.bin"
    path.write_bytes(x.tobytes())
    with memcomp.open_dump(path, B) as d:
        got = fn(d, **kw(chunk))
    pd.testing.assert_frame_equal(measured(got, ref), ref)
    if name != "breakdown":  # every row says where its data came from
        assert (got["offset_end"] == x.nbytes).all() and (got["format"] == "raw").all()


@pytest.mark.parametrize("chunk", CHUNKS)
def test_mag_study_bounds_and_histograms_do_not_depend_on_chunk_size(chunk, data, small, tmp_path):
    x = small if chunk == 1 else data
    arr = memcomp.as_blocks(x, B)
    codecs = ("bdi", "fpc", "e2mc")
    ref_rows, ref_hist = memcomp.mag_study(arr, codecs, block_sizes=(B,))
    path = tmp_path / "m.bin"
    path.write_bytes(x.tobytes())
    with memcomp.open_dump(path, B) as d:
        rows, hist = memcomp.mag_study(d, codecs, **kw(chunk))
        pd.testing.assert_frame_equal(measured(rows, ref_rows), ref_rows)
        pd.testing.assert_frame_equal(hist, ref_hist)
        for variant in ("global", "per_position", "block"):
            sl = 8 if variant == "per_position" else 16
            assert entropy.bound(d, sl, variant, **kw(chunk)) == entropy.bound(arr, sl, variant)
        h32 = entropy.histogram(d, 32, **kw(chunk))
        ref32 = entropy.histogram(arr, 32)
        assert np.array_equal(h32.values, ref32.values) and np.array_equal(h32.counts, ref32.counts)
        assert h32.total == ref32.total == x.nbytes // 4
        re = mpc.ratio_entropy(d, **kw(chunk))
        assert np.array_equal(re.counts, mpc.ratio_entropy(arr).counts) and re.blocks == len(arr)


def test_32_bit_histograms_merge_in_batches_with_exact_counts():
    """SL 32 statistics are merged in batches (not re-sorted per chunk) and sum like one call."""
    rng = np.random.default_rng(0)
    words = rng.integers(0, 3000, 1 << 16, dtype=np.uint32) * np.uint32(0x10001)
    arr = memcomp.as_blocks(words.view(np.uint8), 16)
    ref = entropy.histogram(arr, 32)
    values, counts = np.unique(words, return_counts=True)
    assert np.array_equal(ref.values, values) and np.array_equal(ref.counts, counts)
    for chunk in (1, 13, 4096):
        got = entropy.histogram(arr, 32, chunk_blocks=chunk)
        assert np.array_equal(got.values, values) and np.array_equal(got.counts, counts) and got.total == words.size
    parts = [entropy.histogram(arr[i : i + 5000], 32) for i in range(0, len(arr), 5000)]
    total = sum(parts[1:], parts[0])
    assert np.array_equal(total.values, values) and np.array_equal(total.counts, counts)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_mpc_training_does_not_depend_on_chunk_size(chunk, data, small, tmp_path):
    x = (small if chunk == 1 else data)[: 128 << 10]
    arr32 = memcomp.as_blocks(x, 32)
    path = tmp_path / "t.bin"
    path.write_bytes(x.tobytes())
    ref = mpc.train(arr32)
    ref_k = mpc.train(arr32, max_blocks=300, seed=5)
    assert ref != ref_k
    with memcomp.open_dump(path, B) as d:  # a Dump is read as its 32 B sectors
        for got, want in ((mpc.train(d, **kw(chunk)), ref), (mpc.train(d, max_blocks=300, seed=5, **kw(chunk)), ref_k)):
            assert got == want and got.info == want.info
    assert mpc.train(arr32, **kw(chunk)) == ref


def test_empty_dumps_give_the_empty_array_answers(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    empty = np.empty((0, B), np.uint8)
    d = memcomp.open_dump(path, B)
    pd.testing.assert_frame_equal(measured(entropy.table(d), entropy.table(empty)), entropy.table(empty))
    assert entropy.histogram(d, 32).total == 0 and entropy.bound(d).symbols == 0
    assert entropy.bound(d, variant="block").symbols == 0
    assert mpc.ratio_entropy(d).blocks == 0
    ref = memcomp.compare(empty)
    pd.testing.assert_frame_equal(measured(memcomp.compare(d), ref), ref)
    gz = tmp_path / "empty.bin.gz"
    gz.write_bytes(gzip.compress(b""))
    s = memcomp.open_dump(gz, B)
    assert isinstance(s, StreamDump) and entropy.table(s)["symbols"].eq(0).all() and s.n_blocks == 0


# ------------------------------------------------------------------------- streams
def write_compressed(path, payload):
    import zstandard

    openers = {
        ".gz": gzip.compress,
        ".bz2": bz2.compress,
        ".xz": lzma.compress,
        ".zst": lambda b: zstandard.ZstdCompressor().compress(b),
    }
    path.write_bytes(openers[path.suffix](payload))
    return path


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_compressed_dumps_are_read_directly(suffix, data, raw, tmp_path):
    path = write_compressed(tmp_path / f"dump.bin{suffix}", data.tobytes())
    mapped = memcomp.open_dump(raw, B)
    s = memcomp.open_dump(path, B)
    assert isinstance(s, StreamDump) and s.n_blocks is None
    assert s.format == {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}[suffix]
    got = memcomp.compare(s, ("bdi", "fpc", "e2mc"), chunk_blocks=1000)
    want = memcomp.compare(mapped, ("bdi", "fpc", "e2mc"))
    pd.testing.assert_frame_equal(numeric(got), numeric(want))  # config: the same fitted model
    # the stream ends before 64 MiB: the model was fitted on every block, as the map's was
    assert got.set_index("codec").loc["e2mc.paper", "model"] == "offline"
    assert want.set_index("codec").loc["e2mc.paper", "model"] == "offline"
    assert s.n_blocks == mapped.n_blocks and (got["offset_end"] == data.nbytes).all()
    with pytest.raises(ValueError, match="read already"):
        entropy.table(s)
    for fn in (
        lambda x: entropy.table(x, chunk_blocks=333),
        lambda x: toggles.compare(x, ("bdi", "fpc")),
        lambda x: memcomp.mag_study(x, ("bdi", "e2mc"))[1],
    ):
        pd.testing.assert_frame_equal(numeric(fn(memcomp.open_dump(path, B))), numeric(fn(mapped)))


def test_a_stream_yields_chunks_of_the_size_asked_also_after_head(data, tmp_path):
    path = write_compressed(tmp_path / "d.gz", data.tobytes())
    s = memcomp.open_dump(path, B)
    head = s.head(10_000)
    assert head.shape == (10_000 // B, B) and np.array_equal(head, memcomp.as_blocks(data, B)[:78])
    sizes, parts = [], []
    for c in s.chunks(7):
        sizes.append(len(c))
        parts.append(c.copy())
    assert set(sizes[:-1]) == {7} and 1 <= sizes[-1] <= 7
    assert np.array_equal(np.concatenate(parts), memcomp.as_blocks(data, B))
    assert s.provenance()["offset_end"] == data.nbytes and len(s) == len(data) // B


def feed(target, payload):
    """Writes ``payload`` to ``target`` (a path to open, or a file descriptor) in a thread."""

    def run():
        if isinstance(target, int):
            with os.fdopen(target, "wb") as f:
                f.write(payload)
        else:
            with open(target, "wb") as f:
                f.write(payload)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_pipe_fed_by_a_thread(data, raw):
    r, w = os.pipe()
    try:
        t = feed(w, data.tobytes())
        s = memcomp.open_dump(f"/dev/fd/{r}", B)
        assert isinstance(s, StreamDump) and s.format == "stream"
        with pytest.raises(TypeError, match="cannot be shipped"):
            pickle.dumps(s)
        got = toggles.compare(s, ("bdi", "fpc"), chunk_blocks=999)
        t.join(10)
    finally:
        os.close(r)
    want = toggles.compare(memcomp.open_dump(raw, B), ("bdi", "fpc"))
    pd.testing.assert_frame_equal(numeric(got), numeric(want))


def test_a_fifo_fed_by_a_thread_and_by_a_subprocess(data, raw, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t = feed(fifo, data.tobytes())
    got = entropy.table(memcomp.open_dump(fifo, B), chunk_blocks=500)
    t.join(10)
    want = entropy.table(memcomp.open_dump(raw, B))
    pd.testing.assert_frame_equal(numeric(got), numeric(want))
    writer = subprocess.Popen(["sh", "-c", f"cat '{raw}' > '{fifo}'"])
    try:
        got = memcomp.compare(memcomp.open_dump(fifo, B), ("bdi", "fpc", "sc2"), chunk_blocks=777)
    finally:
        assert writer.wait(30) == 0
    want = memcomp.compare(memcomp.open_dump(raw, B), ("bdi", "fpc", "sc2"))
    pd.testing.assert_frame_equal(numeric(got), numeric(want))


def run_cli(*argv, stdin=None):
    r = subprocess.run([sys.executable, "-m", "memcomp", *argv], input=stdin, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    return pd.read_csv(io.BytesIO(r.stdout))


def test_cli_reads_dev_stdin_from_a_pipe(data, raw):
    args = ("--block", "128", "--codecs", "bdi,fpc,e2mc", "--chunk-blocks", "300", "--csv")
    got = run_cli("compare", "/dev/stdin", *args, stdin=data.tobytes())
    want = run_cli("compare", str(raw), *args)
    pd.testing.assert_frame_equal(numeric(got), numeric(want))
    assert set(got["format"]) == {"stream"} and set(want["format"]) == {"raw"}
    got = run_cli("entropy", "/dev/stdin", "--block", "128", "--csv", stdin=data.tobytes())
    pd.testing.assert_frame_equal(numeric(got), numeric(run_cli("entropy", str(raw), "--block", "128", "--csv")))


def test_proc_files_are_streamed(tmp_path):
    """/proc files report size 0 but have content: read as streams, a partial block dropped."""
    status = memcomp.open_dump("/proc/self/status", 16, allow_partial=True)
    assert isinstance(status, StreamDump) and os.path.getsize("/proc/self/status") == 0
    table = entropy.table(status, (8,))
    assert status.n_blocks > 0 and 0 <= status.dropped_bytes < 16 and table["symbols"][0] == 16 * status.n_blocks
    # a /proc file whose content stays the same while the process runs: compared with a copy
    path = next(
        p for p in ("/proc/self/environ", "/proc/self/cmdline", "/proc/version") if len(Path(p).read_bytes()) >= 48
    )
    content = Path(path).read_bytes()
    copy = tmp_path / "copy.bin"
    copy.write_bytes(content[: len(content) // 16 * 16])
    got = memcomp.compare(memcomp.open_dump(path, 16, allow_partial=True), ("bdi", "fpc"), chunk_blocks=3)
    pd.testing.assert_frame_equal(numeric(got), numeric(memcomp.compare(memcomp.open_dump(copy, 16), ("bdi", "fpc"))))
    if len(content) % 16:
        with pytest.raises(ValueError, match="allow_partial"):
            entropy.table(memcomp.open_dump(path, 16))


# ------------------------------------------------------------------------- truncation, memory
TRUNCATE = textwrap.dedent(r"""
    import os, sys
    import numpy as np
    import memcomp
    path = sys.argv[1]
    d = memcomp.open_dump(path, 128)
    seen = 0
    try:
        for i, chunk in enumerate(d.chunks(64)):
            seen += int(chunk.sum(dtype=np.int64) >= 0)
            if i == 1:
                os.truncate(path, 4096)
    except OSError as e:
        print("chunks:", seen, e)
    for name, fn in (("compare", lambda: memcomp.compare(d, ("bdi",), chunk_blocks=64)),
                     ("fit", lambda: memcomp.compare(d, ("e2mc",))),
                     ("entropy", lambda: memcomp.entropy.table(d))):
        try:
            fn()
        except OSError as e:
            print(name + ":", e)
    print("alive")
""")


def test_a_dump_truncated_while_mapped_raises_oserror_not_sigbus(tmp_path, data):
    path = tmp_path / "victim.bin"
    path.write_bytes(data.tobytes())
    r = subprocess.run([sys.executable, "-c", TRUNCATE, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"rc {r.returncode} (-7 is SIGBUS): {r.stderr}"
    lines = r.stdout.splitlines()
    assert lines[-1] == "alive"
    assert lines[0].startswith("chunks: 2 ") and "was truncated to 4096 bytes while being read" in lines[0]
    assert f"its blocks need {data.nbytes} bytes" in lines[0]
    for name in ("compare", "fit", "entropy"):
        assert any(ln.startswith(f"{name}: ") and "truncated to 4096 bytes" in ln for ln in lines), (name, lines)


RSS = textwrap.dedent(r"""
    import json, sys, time
    import numpy as np
    import pandas  # noqa: F401  (imported before the baseline: not what is measured)
    import memcomp
    from memcomp import entropy

    def status(key):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) << 10

    path, size, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    page = memcomp.workloads.sample_dump(1 << 20, seed=1)
    with open(path, "wb") as f:  # sparse, with 64 KiB of real data every 16 MiB
        f.truncate(size)
        for i, off in enumerate(range(0, size, 16 << 20)):
            f.seek(off)
            f.write(page[(i % 16) * (64 << 10):][: 64 << 10].tobytes())
    del page
    d = memcomp.open_dump(path, 128)
    warm = d.part(0, 4096)  # the same code paths once, small: imports, allocator pools
    memcomp.compare(warm, ("bdi", "fpc"), chunk_blocks=chunk)
    entropy.table(warm, (8, 16), chunk_blocks=chunk)
    out = {"base": status("VmRSS")}
    t = time.perf_counter()
    cmp = memcomp.compare(d, ("bdi", "fpc"), chunk_blocks=chunk)
    out["compare_s"], out["compare_hwm"] = time.perf_counter() - t, status("VmHWM")
    t = time.perf_counter()
    ent = entropy.table(d, (8, 16), chunk_blocks=chunk)
    out["entropy_s"], out["entropy_hwm"] = time.perf_counter() - t, status("VmHWM")
    out["blocks"] = cmp["blocks"].tolist()
    out["symbols"] = ent["symbols"].tolist()
    # the control: reading the map itself (Dump.blocks), whose pages stay, does grow the resident size
    before = status("VmRSS")
    mapped = d.part(0, (256 << 20) // 128).blocks
    for i in range(0, len(mapped), chunk):
        mapped[i : i + chunk, 0].sum()
    out["control_growth"] = status("VmRSS") - before
    print(json.dumps(out))
""")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc to read the resident size")
def test_resident_size_stays_bounded_over_a_dump_larger_than_the_budget(tmp_path):
    ceiling = 256 << 20  # the memory budget the run sets itself
    size = 8 * ceiling  # a dump 8 times larger (2 GiB, sparse with data pages: fast to measure)
    path = tmp_path / "sparse.bin"
    try:
        r = subprocess.run(
            [sys.executable, "-c", RSS, str(path), str(size), "4096"], capture_output=True, text=True, timeout=600
        )
    finally:
        path.unlink(missing_ok=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["blocks"] == [size // 128] * 3 and out["symbols"] == [size, size // 2]
    for what in ("compare", "entropy"):
        growth = out[f"{what}_hwm"] - out["base"]
        assert growth < ceiling, f"{what}: peak RSS grew by {growth >> 20} MiB over a {size >> 20} MiB dump"
    assert out["control_growth"] > 200 << 20, out  # the measurement sees mapped pages that are kept


# ------------------------------------------------------------------------- bounded fit sample
@pytest.mark.filterwarnings("ignore::memcomp.slc.MetricWarning")  # the sweep is here for its model only
def test_data_driven_codecs_are_fitted_on_a_bounded_deterministic_sample(data, raw, tmp_path, monkeypatch):
    fit = 64 << 10  # instead of 64 MiB, so a 512 KiB dump is "larger"
    monkeypatch.setattr(_common, "FIT_BYTES", fit)
    arr = memcomp.as_blocks(data, B)
    idx = _common.sample_index(len(arr), B)
    assert idx is not None and idx.size * B == fit and np.unique(idx).size == idx.size
    assert idx[0] == 0 and idx[-1] == len(arr) - 1 and np.all(np.diff(idx) > 0)

    def config(codec):  # the config column (fitted model as a digest) of a codec
        return memcomp.compare(arr[:8], codec)["config"][0]

    sampled, headed, offline = (
        config(memcomp.get_codec("e2mc").fit(x)) for x in (np.ascontiguousarray(arr[idx]), arr[: fit // B], arr)
    )
    assert len({sampled, headed, offline}) == 3

    def e2mc(df):
        return df.set_index("codec").loc["e2mc.paper", ["model", "config"]].tolist()

    got = e2mc(memcomp.compare(memcomp.open_dump(raw, B), ("bdi", "e2mc")))
    assert got == ["sample(64 KiB)", sampled]
    assert e2mc(memcomp.compare(arr, ("bdi", "e2mc"))) == got  # an array: the same sample
    assert e2mc(memcomp.compare(memcomp.open_dump(raw, B), ("bdi", "e2mc"), chunk_blocks=9)) == got  # again
    assert e2mc(memcomp.compare(memcomp.open_dump(raw, B, length=fit), ("e2mc", "bdi")))[0] == "offline"
    gz = write_compressed(tmp_path / "d.gz", data.tobytes())
    assert e2mc(memcomp.compare(memcomp.open_dump(gz, B), ("bdi", "e2mc"))) == ["head(64 KiB)", headed]
    monkeypatch.setattr(_common, "FIT_BYTES", len(data))
    assert e2mc(memcomp.compare(memcomp.open_dump(raw, B), ("bdi", "e2mc"))) == ["offline", offline]
    assert e2mc(memcomp.compare(memcomp.open_dump(gz, B), ("bdi", "e2mc"))) == ["offline", offline]  # all of it
    monkeypatch.setattr(_common, "FIT_BYTES", fit)
    sweep = slc.sweep(memcomp.open_dump(raw, B), thresholds=(16,), mags=(32,), variants=("opt",))
    assert sweep["model"].tolist() == ["sample(64 KiB)"]
    assert json.loads(sweep["config"][0])["model"] == json.loads(sampled)["model"]
    assert slc.sweep(arr[:100], thresholds=(16,), mags=(32,), variants=("opt",))["model"].tolist() == ["offline"]


def test_fit_sample_of_a_mapped_dump_is_read_from_the_file(raw, monkeypatch):
    """The sampled runs of a mapped dump are read from the file (Dump.read_blocks), never taken from
    its map: equal to the map's sampled blocks, and an OSError once the file is truncated."""
    monkeypatch.setattr(_common, "FIT_BYTES", 64 << 10)
    d = memcomp.open_dump(raw, B)
    idx = _common.sample_index(d.n_blocks, B)
    sample, how = _common.fit_sample(d)
    assert how == "sample(64 KiB)" and sample.flags.c_contiguous and sample.base is not d.blocks.base
    assert np.array_equal(sample, d.blocks[idx])
    calls = []
    read = d.read_blocks
    monkeypatch.setattr(d, "read_blocks", lambda *a: calls.append(a) or read(*a))
    _common.fit_sample(d)
    runs = np.split(idx, np.flatnonzero(np.diff(idx) != 1) + 1)
    assert calls == [(int(r[0]), int(r[-1]) + 1) for r in runs]


# ------------------------------------------------------------------------- CLI byte ranges
@pytest.mark.parametrize("flag", ["--length", "--max-bytes"])
def test_cli_offset_and_length_analyse_part_of_a_dump(flag, data, raw):
    offset, length = 3 * 4096 + 256, 200 * B

    def run(*argv):
        out = io.StringIO()
        assert (
            cli.main([*argv, str(raw), "--block", "128", "--offset", str(offset), flag, str(length), "--csv"], out=out)
            == 0
        )
        return pd.read_csv(io.StringIO(out.getvalue()))

    part = memcomp.as_blocks(data[offset : offset + length], B)
    got = run("compare", "--codecs", "bdi,fpc,e2mc")
    want = memcomp.compare(part, ("bdi", "fpc", "e2mc"))
    assert (got["offset_begin"] == offset).all() and (got["offset_end"] == offset + length).all()
    assert (got["blocks"] == 200).all()
    for col in ("raw_bits", "inband_bits", "charged_bits", "oracle_wins", "config"):
        assert got[col].astype(str).tolist() == want[col].astype(str).tolist(), col
    np.testing.assert_allclose(got["cr"], want["cr"], rtol=1e-12)
    got = run("entropy")
    want = entropy.table(part)
    assert got["symbols"].tolist() == want["symbols"].tolist() and got["distinct"].tolist() == want["distinct"].tolist()
    np.testing.assert_allclose(got["entropy"], want["entropy"], rtol=1e-12)


def test_open_dump_length_is_the_same_as_slicing(data, raw):
    for offset, length in ((0, 0), (128, 128), (1000, 50 * B), (0, len(data))):
        d = memcomp.open_dump(raw, B, offset=offset, length=length)
        assert np.array_equal(d.blocks.reshape(-1), data[offset : offset + length])
    with pytest.raises(ValueError, match="read as a stream"):
        memcomp.open_dump("/proc/self/status", 16, offset=16)


# ------------------------------------------------------------------------- parts and pickles
def round_trip(d):
    blob = pickle.dumps(d)
    return pickle.loads(blob), len(blob)


def test_raw_parts_pickle_as_a_reopen_of_their_byte_range(data, raw):
    d = memcomp.open_dump(raw, B, offset=B)
    p = d.part(10, 50)
    assert np.array_equal(p.blocks, memcomp.as_blocks(data, B)[11:51]) and p.offset == 11 * B and len(p) == 40
    back, n = round_trip(p)
    assert n < 1000 and back._mmap is not None  # a re-open, not the bytes
    assert np.array_equal(back.blocks, p.blocks) and back.provenance() == p.provenance()
    pp = p.part(5, 7)
    assert np.array_equal(round_trip(pp)[0].blocks, memcomp.as_blocks(data, B)[16:18])
    assert len(d.part(3, 3)) == 0
    with pytest.raises(ValueError):
        d.part(5, 4)
    # a part's chunks release only its own pages and still read the right bytes
    assert np.array_equal(np.concatenate(list(pp.chunks(1))), pp.blocks)
    # partial results of parts add up to the whole
    halves = [entropy.table_stats(d.part(a, b)) for a, b in ((0, 1000), (1000, len(d)))]
    pd.testing.assert_frame_equal(
        entropy.table_from_stats(halves[0] + halves[1]), entropy.table_from_stats(entropy.table_stats(d))
    )


def test_npy_parts_count_offsets_from_the_array_data(data, tmp_path):
    path = tmp_path / "words.npy"
    np.save(path, data.view(np.float32))  # a header before the bytes; not uint8
    d = memcomp.open_dump(path, B, offset=2 * B)
    p = d.part(3, 9)
    want = memcomp.as_blocks(data, B)[5:11]
    assert d.format == "npy" and p.offset == 5 * B and np.array_equal(p.blocks, want)
    back, n = round_trip(p)
    assert n < 1000 and back.format == "npy" and back.source_dtype == np.float32
    assert np.array_equal(back.blocks, want) and back.provenance() == p.provenance()


def test_in_memory_npz_parts_pickle_their_bytes(data, tmp_path):
    path = tmp_path / "arrays.npz"
    np.savez(path, a=data[:4096], b=data[4096:8192].view(np.int16))
    a, b = memcomp.open_dumps(path, block_bytes=B)
    p = b.part(2, 6)
    back, n = round_trip(p)
    assert n > 4 * B and back.format == "npz" and back.name == p.name and back.offset == 2 * B
    assert np.array_equal(back.blocks, memcomp.as_blocks(data[4096:8192], B)[2:6])
    assert not back.blocks.flags.writeable


def test_safetensors_tensors_reopen_as_safetensors(data, tmp_path):
    payload = data[: 10 * B].tobytes()
    head = json.dumps({"w": {"dtype": "U8", "shape": [len(payload)], "data_offsets": [0, len(payload)]}}).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + payload)
    (t,) = memcomp.open_dumps(path, block_bytes=B)
    back, n = round_trip(t.part(1, 4))
    assert n < 1000 and back.format == "safetensors" and back.name == "w"
    assert np.array_equal(back.blocks, memcomp.as_blocks(data, B)[1:4])


def test_streams_pickle_as_a_reopen_until_read(data, raw, tmp_path):
    gz = write_compressed(tmp_path / "d.bin.gz", data.tobytes())
    s = memcomp.open_dump(gz, B, name="zipped")
    s.head(4096)  # not streamed yet: still a re-open
    back, _ = round_trip(s)
    assert isinstance(back, StreamDump) and back.name == "zipped" and back.format == "gzip"
    pd.testing.assert_frame_equal(entropy.table(back), entropy.table(s))
    with pytest.raises(TypeError, match="cannot be shipped"):
        pickle.dumps(s)  # read once already
    with pytest.raises(TypeError, match="read as a stream"):
        s.blocks  # noqa: B018 (the property access is what raises)


# ------------------------------------------------------------------------- MPC on streams
def test_mpc_training_reads_a_compressed_file_twice_and_a_pipe_needs_max_blocks(data, tmp_path):
    x = data[: 256 << 10]
    gz = write_compressed(tmp_path / "t.bin.gz", x.tobytes())
    arr32 = memcomp.as_blocks(x, 32)
    full = mpc.train(memcomp.open_dump(gz, B), chunk_blocks=300)  # two passes: decompressed twice
    assert full.info == mpc.train(arr32).info and full.to_json() == mpc.train(arr32).to_json()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # read once: refused before the FIFO is opened (a StreamDump opens on its first read)
    with pytest.raises(ValueError, match=r"can be read only once.*max_blocks=N"):
        mpc.train(memcomp.io.StreamDump(fifo, B))
    want = mpc.train(arr32, max_blocks=500, seed=1)
    got = mpc.train(memcomp.open_dump(gz, B), max_blocks=500, seed=1, chunk_blocks=77)
    assert got == want and got.info == want.info
    # a multi-file dump: a stream and a mapped file, in order
    raw = tmp_path / "t2.bin"
    raw.write_bytes(x.tobytes())
    both = mpc.train([memcomp.open_dump(gz, B), memcomp.open_dump(raw, B)], max_blocks=500, seed=1)
    assert both == mpc.train(np.concatenate([arr32, arr32]), max_blocks=500, seed=1)


# ------------------------------------------------------------------------- SLC, exact sums
def test_slc_sweep_streams_the_report_compress_gives(data, tmp_path):
    x = memcomp.as_blocks(memcomp.workloads.generate("fp32_activations", 128 << 10, seed=1), B)
    model = memcomp.get_codec("e2mc").fit(x).model
    mask = np.arange(len(x)) % 3 != 0
    df = slc.sweep(
        x, thresholds=(0, 16), mags=(32, 64), variants=("simp", "opt"), model=model, approximable=mask, chunk_blocks=100
    )
    assert len(df) == 8 and set(df["model"]) == {"given"}
    for _, row in df.iterrows():
        rep = slc.compress(
            x, model, threshold_bytes=row.threshold_bytes, mag=row.mag, variant=row.variant, approximable=mask
        ).report
        for k, v in rep.items():
            if isinstance(v, float) and k in ("mre", "nrmse", "psnr"):  # sums: exact here, float in compress
                assert row[k] == pytest.approx(v, rel=1e-12), k
            else:
                assert row[k] == v, k
    gz = write_compressed(tmp_path / "x.gz", x.tobytes())
    streamed = slc.sweep(
        memcomp.open_dump(gz, B),
        thresholds=(16,),
        mags=(32,),
        variants=("opt",),
        model=model,
        approximable=mask,
        chunk_blocks=333,
    )
    pd.testing.assert_frame_equal(
        numeric(streamed), numeric(df[(df.threshold_bytes == 16) & (df.mag == 32) & (df.variant == "opt")])
    )
    with pytest.raises(ValueError, match="one entry per block"):
        slc.sweep(
            memcomp.open_dump(gz, B),
            thresholds=(16,),
            mags=(32,),
            variants=("opt",),
            model=model,
            approximable=mask[:-1],
        )
    with pytest.raises(TypeError, match="read as a stream"):
        slc.compress(memcomp.open_dump(gz, B), model)  # compress returns every block: not a streamed analysis


def test_exact_sums_do_not_depend_on_how_values_are_split():
    import math
    from fractions import Fraction

    rng = np.random.default_rng(7)
    v = rng.standard_normal(5000) * 10.0 ** rng.integers(-300, 300, 5000)
    v = np.concatenate([v, [5e-324, -5e-324, 2.2250738585072014e-308, 1.7e308, -1.7e308]])
    want = float(sum(map(Fraction, v)))
    assert _common.ExactSum(v).value() == want == math.fsum(v)
    for parts in (7, 100, 5005):
        total = _common.ExactSum()
        for p in np.array_split(rng.permutation(v), parts):
            total = total + _common.ExactSum(p)
        assert total.value() == want
    assert pickle.loads(pickle.dumps(_common.ExactSum(v))).value() == want
    assert _common.ExactSum([1e308, 1e308]).value() == math.inf
    assert _common.ExactSum([np.inf, 1.0]).value() == math.inf and _common.ExactSum([-np.inf]).value() == -math.inf
    assert math.isnan(_common.ExactSum([np.inf, -np.inf]).value()) and math.isnan(_common.ExactSum([np.nan]).value())
    assert _common.ExactSum([]).value() == 0.0
    # weights: each value added that many times, the same exact sum as repeating it
    w = rng.integers(0, 5, v.size)
    assert _common.ExactSum(v, weights=w).total == _common.ExactSum(np.repeat(v, w)).total
    assert _common.ExactSum([0.5, -3.0], weights=[2**70, 1]).fraction() == Fraction(2**69 - 3)
    specials = _common.ExactSum([np.inf, -np.inf, np.nan, 1.0], weights=np.array([2, 0, 3, 1], np.uint64))
    assert (specials.pos_inf, specials.neg_inf, specials.nan, specials.total) == (2, 0, 3, 1 << 1126)
    with pytest.raises(ValueError, match="non-negative integers"):
        _common.ExactSum([1.0], weights=[-1])
    with pytest.raises(ValueError, match="one per value"):
        _common.ExactSum([1.0, 2.0], weights=[1])


@pytest.mark.parametrize("tail", [0, 1, 57, B - 1])
@pytest.mark.parametrize("head", [None, 1000, 1 << 20])  # head() reads part of the stream, or all of it
@pytest.mark.parametrize("source", ["gzip", "pipe"])
def test_a_stream_reports_the_exact_bytes_it_dropped(data, tmp_path, tail, head, source):
    """37 whole blocks and a tail of ``tail`` bytes: with allow_partial the 37 blocks are yielded
    and ``dropped_bytes`` is ``tail``; without it the error names the count."""
    payload = data[: 37 * B + tail].tobytes()
    path = write_compressed(tmp_path / "d.bin.gz", payload)

    def opened(**kw):
        if source == "gzip":
            return memcomp.open_dump(path, B, **kw), None
        r, w = os.pipe()
        feed(w, payload)
        return memcomp.open_dump(f"/dev/fd/{r}", B, **kw), r

    s, fd = opened(allow_partial=True)
    try:
        assert isinstance(s, StreamDump) and s.dropped_bytes == 0  # nothing read yet
        if head is not None:
            assert len(s.head(head)) == min(head // B, 37)
        blocks = np.concatenate(list(s.chunks(5)))
    finally:
        if fd is not None:
            os.close(fd)
    assert np.array_equal(blocks, memcomp.as_blocks(data[: 37 * B], B))
    assert (s.n_blocks, s.nbytes, s.dropped_bytes) == (37, 37 * B, tail)
    if tail:
        s, fd = opened()
        try:
            with pytest.raises(ValueError, match=f"ended with {tail} trailing byte\\(s\\) after 37 whole block"):
                list(s.chunks(5))
        finally:
            if fd is not None:
                os.close(fd)


def test_cli_info_reports_the_bytes_a_stream_dropped(data, tmp_path):
    path = write_compressed(tmp_path / "d.bin.gz", data[: 10 * B + 77].tobytes())
    got = run_cli("info", str(path), "--block", str(B), "--allow-partial", "--csv")
    assert list(got[["format", "blocks", "bytes", "dropped_bytes"]].iloc[0]) == ["gzip", 10, 10 * B, 77]


# ------------------------------------------------------------------------- reading safely (issue 34)
def test_zstd_dumps_are_read_frame_by_frame_and_a_cut_frame_is_refused(data, tmp_path, monkeypatch):
    """A .zst file is a sequence of frames (RFC 8878 §3.1; a skippable frame holds no dump bytes):
    every frame is read, and a file that ends inside a frame is CorruptStreamError, never a
    shorter dump (half of a 1 MiB stream read as 393,216 bytes)."""
    zstandard = pytest.importorskip("zstandard")
    a, b = data[: 320 * B].tobytes(), data[320 * B : 512 * B].tobytes()
    c = zstandard.ZstdCompressor(write_checksum=True)
    fb = c.compress(b)
    skippable = struct.pack("<II", 0x184D2A50, 5) + b"notes"  # magic 0x184D2A5?, size, user data
    stream = c.compress(a) + skippable + fb
    monkeypatch.setattr(memcomp.io._ZstdFrames, "PIECE", 7)  # frames and their headers split over pieces
    path = tmp_path / "d.zst"
    path.write_bytes(stream)
    assert np.concatenate(list(memcomp.open_dump(path, B).chunks(50))).tobytes() == a + b
    for cut in (1, 4, len(fb) // 2, len(fb) - 1):  # inside the last frame: its checksum, blocks, magic
        path.write_bytes(stream[:-cut])
        with pytest.raises(memcomp.CorruptStreamError, match=r"d.zst' is truncated: its zstd stream ends"):
            list(memcomp.open_dump(path, B, allow_partial=True).chunks(50))
    path.write_bytes(stream[: -len(fb)])  # whole frames: a valid, shorter zstd file (as zstd -d reads it)
    assert np.concatenate(list(memcomp.open_dump(path, B).chunks(50))).tobytes() == a


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_truncated_compressed_dump_is_refused_wherever_it_is_cut(suffix, data, tmp_path):
    full = write_compressed(tmp_path / f"full{suffix}", data.tobytes()).read_bytes()
    path = tmp_path / f"cut{suffix}"
    for keep in (20, len(full) // 3, len(full) - 1):  # in the header (refused when opened), data, trailer
        path.write_bytes(full[:keep])
        with pytest.raises(memcomp.CorruptStreamError, match=f"cut{suffix}' is truncated"):
            entropy.table(memcomp.open_dump(path, B, allow_partial=True))
    s = memcomp.open_dump(path, B)
    with pytest.raises(memcomp.CorruptStreamError):
        list(s.chunks(64))
    with pytest.raises(ValueError, match="read already"):  # never read again from its start
        s.head(B)


def test_chunks_read_in_pieces_are_the_file_bytes(data, raw, tmp_path, monkeypatch):
    """A mapped dump's chunks are read from the file in pieces (in parallel); pieces that split
    blocks, byte ranges, parts, .npy data offsets and the serial fallback all give the bytes."""
    monkeypatch.setattr(memcomp.io, "_READ_PIECE", 1000)
    want = memcomp.as_blocks(data, B)
    d = memcomp.open_dump(raw, B, offset=3 * B)
    for step in (1, 7, 999, len(want)):
        assert np.array_equal(np.concatenate(list(d.chunks(step))), want[3:]), step
    assert np.array_equal(np.concatenate(list(d.part(10, 400).chunks(33))), want[13:403])
    npy = tmp_path / "words.npy"
    np.save(npy, data.view(np.float32))  # a header before the bytes
    assert np.array_equal(np.concatenate(list(memcomp.open_dump(npy, B, offset=2 * B).chunks(50))), want[2:])
    monkeypatch.delattr(os, "preadv")  # a platform without positioned reads: one reader
    assert np.array_equal(np.concatenate(list(d.chunks(77))), want[3:])


def test_chunks_reuse_a_buffer_no_chunk_of_which_is_alive(raw):
    d = memcomp.open_dump(raw, B)
    one = set()
    for chunk in d.chunks(100):
        one.add(chunk.__array_interface__["data"][0])
        del chunk  # dropped before the next is read
    # a comprehension holds the last chunk while the next is read: two buffers in turn
    two = {chunk.__array_interface__["data"][0] for chunk in d.chunks(100)}
    assert len(one) == 1 and len(two) == 2


def test_a_file_replaced_after_it_was_opened_is_not_read(data, raw, tmp_path):
    d = memcomp.open_dump(raw, B)
    new = tmp_path / "new.bin"
    new.write_bytes(bytes(len(data)))
    os.replace(new, raw)  # another file now has the name
    with pytest.raises(OSError, match="dump.bin' was replaced by another file since it was opened"):
        list(d.chunks())
    assert d.blocks.tobytes() == data.tobytes()  # the map still holds the file it was opened on


def test_streams_with_no_whole_block_are_empty_dumps_when_opened(tmp_path):
    """/dev/null, an empty pipe and an empty .gz are dumps of 0 blocks once opened, as an empty
    file is, and every analysis gives the empty file's answer (the CLI then exits 2 for each)."""
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    gz = write_compressed(tmp_path / "empty.gz", b"")
    ref = memcomp.compare(memcomp.open_dump(empty, B), ("bdi", "fpc"))
    r, w = os.pipe()
    os.close(w)
    try:
        for source in ("/dev/null", f"/dev/fd/{r}", gz):
            s = memcomp.open_dump(source, B)
            assert isinstance(s, StreamDump) and (s.n_blocks, s.nbytes, s.dropped_bytes) == (0, 0, 0), source
            pd.testing.assert_frame_equal(numeric(memcomp.compare(s, ("bdi", "fpc"))), numeric(ref))
    finally:
        os.close(r)
    short = write_compressed(tmp_path / "short.gz", bytes(B - 1))
    s = memcomp.open_dump(short, B, allow_partial=True)
    assert (s.n_blocks, s.dropped_bytes) == (0, B - 1)
    with pytest.raises(ValueError, match=f"ended with {B - 1} trailing byte"):
        memcomp.open_dump(short, B)


def test_mpc_fit_on_a_dump_streams_it(data, tmp_path, monkeypatch):
    """Codec.fit of MPC on a Dump trains a chunk at a time (never reading the whole dump into
    memory) and gives the model fitting the same blocks as one array gives."""
    x = data[: 256 << 10]
    raw = tmp_path / "d.bin"
    raw.write_bytes(x.tobytes())
    want = memcomp.get_codec("mpc").fit(memcomp.as_blocks(x, 32))

    def whole(*a, **kw):
        raise AssertionError("the whole dump was read into memory")

    monkeypatch.setattr(memcomp.io.Dump, "read_blocks", whole)
    got = memcomp.get_codec("mpc").fit(memcomp.open_dump(raw, B))
    assert json.loads(got.model.to_json())["modules"] == json.loads(want.model.to_json())["modules"]
    with pytest.raises(ValueError, match="cannot fit mpc"):
        empty = tmp_path / "e.bin"
        empty.write_bytes(b"")
        memcomp.get_codec("mpc").fit(memcomp.open_dump(empty, B))
