"""memcomp.dask on a distributed LocalCluster (2 worker processes) gives exactly the serial
results: compare, entropy tables, toggles and MPC training over the bundled sample, a multi-file
dump (raw, npy, npz, gz) and dask arrays; the command line's --dask; the core releases the GIL."""

import gzip
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

import memcomp  # noqa: E402
import memcomp.dask as md  # noqa: E402
from memcomp import entropy, mpc, report, toggles, workloads  # noqa: E402
from memcomp.cli import main  # noqa: E402
from memcomp.io import open_dump, open_dumps  # noqa: E402

SMALL = 1 << 20  # bytes per part: several parts per dataset
#: the provenance columns a Dump gives (memcomp_version and config are there for every dataset)
SOURCE = ["dataset", "file", "format", "offset_begin", "offset_end"]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def sample_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dask") / "sample.bin"
    path.write_bytes(workloads.sample_dump(6 << 20).tobytes())
    return path


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    """A multi-file dump: a raw file, an npy of float32, an npz of two arrays and a gzip file."""
    root = tmp_path_factory.mktemp("multi")
    w = workloads.sample(1 << 20, seed=3)
    names = sorted(w)
    (root / "a.bin").write_bytes(np.asarray(w[names[0]]).tobytes())
    np.save(root / "b.npy", np.asarray(w[names[1]]).view(np.uint8).view(np.float32))
    np.savez(root / "c.npz", x=np.asarray(w[names[2]]).view(np.uint8), y=np.asarray(w[names[3]]).view(np.uint8))
    with gzip.open(root / "d.bin.gz", "wb") as f:
        f.write(np.asarray(w[names[4]]).tobytes())
    return root


def serial(fn, dumps, *a, **kw):
    return pd.concat([fn(d, *a, **kw) for d in dumps], ignore_index=True)


def test_compare_bundled_sample_equals_serial(client, sample_file):
    dumps = open_dumps(sample_file, block_bytes=128)
    with pytest.warns(report.SkippedCodecWarning, match="mpc.cal22_rtl"):  # 32 B only: a row says why
        want = serial(report.compare, dumps, "defaults")
    with pytest.warns(report.SkippedCodecWarning, match="mpc.cal22_rtl"):
        got = md.compare(sample_file, "defaults", block_bytes=128, partition_bytes=SMALL)
    assert len(got) == len(want) > 5 and (got["model"] == "offline").any()
    assert got.set_index("codec").loc["mpc.cal22_rtl", "note"].startswith("skipped: ")
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("block", [32, 128])
def test_multi_file_dump_equals_serial(client, multi, block):
    dumps = open_dumps(multi, block_bytes=block, allow_partial=True)
    assert {d.format for d in dumps} >= {"raw", "npy", "npz", "gzip"} and len(dumps) == 5
    codecs = ["bdi", "fpc", "e2mc", "cpack.skku"] + (["mpc"] if block == 32 else [])
    pd.testing.assert_frame_equal(
        md.compare(str(multi), codecs, block_bytes=block, allow_partial=True, partition_bytes=SMALL // 4),
        serial(report.compare, open_dumps(multi, block_bytes=block, allow_partial=True), codecs),
    )
    pd.testing.assert_frame_equal(
        md.entropy_table(str(multi / "*"), block_bytes=block, allow_partial=True, partition_bytes=SMALL // 4),
        serial(entropy.table, open_dumps(multi / "*", block_bytes=block, allow_partial=True)),
    )
    pd.testing.assert_frame_equal(
        md.toggles_compare(open_dumps(multi, block_bytes=block, allow_partial=True), ["bdi", "fpc"], dbi="dc"),
        serial(toggles.compare, open_dumps(multi, block_bytes=block, allow_partial=True), ["bdi", "fpc"], dbi="dc"),
    )


@pytest.mark.parametrize(
    "bus",
    [
        {},
        {"channel": "noc"},
        {"channel": "noc", "mode": "isolated", "ec": "ec1"},
        {"dbi": "ac"},
        {"dbi": "dc", "ec": "ec2", "ec_ratio": "bits"},
        {"dbi": "ac", "ec": "ec2", "idle": "low", "energy": "lpddr4"},
    ],
)
def test_toggles_parts_join_into_the_serial_result(client, sample_file, bus):
    d = open_dump(sample_file, 128)
    codecs = ["bdi", "fpc", "cpack", "fpc.mc", "e2mc"]
    got = md.toggles_compare(d, codecs, partition_bytes=SMALL, **bus)
    pd.testing.assert_frame_equal(got, toggles.compare(d, codecs, **bus))


def test_toggles_parts_counted_again_when_the_warm_up_misses(sample_file, monkeypatch):
    """A part whose warm-up did not reach the true bus states is counted again from them: hit on
    its own with a short warm-up, and forced for every part."""
    import dask

    d = open_dump(sample_file, 128)
    bu = np.random.default_rng(1).random(len(d))
    want = toggles.compare(d, ["bdi", "fpc"], dbi="ac", ec="ec2", bu=bu)
    calls = []
    part = md._part_task

    def spy(*a, **kw):
        calls.append(kw.get("given", False))
        return part(*a, **kw)

    monkeypatch.setattr(md, "_part_task", spy)
    with dask.config.set(scheduler="sync"):
        # runs of zero blocks longer than the warm-up send nothing, so the states before them stay
        got = md.toggles_compare(d, ["bdi", "fpc"], dbi="ac", ec="ec2", bu=bu, partition_bytes=SMALL, warmup_blocks=64)
        pd.testing.assert_frame_equal(got, want)
        assert 0 < sum(calls) < len(d) // (SMALL // 128)
        calls.clear()

        def no_warm_up(an, p, warm, *a, **kw):  # every part starts from the initial states
            calls.append(kw.get("given", False))
            return part(an, p, None, *a, **kw)

        monkeypatch.setattr(md, "_part_task", no_warm_up)
        got = md.toggles_compare(d, ["bdi", "fpc"], dbi="ac", ec="ec2", bu=bu, partition_bytes=SMALL)
        pd.testing.assert_frame_equal(got, want)
        assert sum(calls) == len(d) // (SMALL // 128) - 1  # every part but the first
    with pytest.raises(ValueError, match="one dataset"):
        md.toggles_compare([d, d], ["bdi"], ec="ec2", bu=bu)
    with pytest.raises(ValueError, match="one entry per block"):
        md.toggles_compare(d, ["bdi"], ec="ec2", bu=bu[:-1])
    with pytest.raises(ValueError, match="accounting-only"):
        md.toggles_compare(d, ["bpc.skku"])


def test_parts_are_byte_ranges_and_travel_as_paths(sample_file):
    d = open_dump(sample_file, 128)
    parts = md._parts(d, SMALL)
    assert [s for _, s in parts] == list(range(0, len(d), SMALL // 128))
    assert np.array_equal(np.concatenate([p.blocks for p, _ in parts]), d.blocks)
    import pickle

    assert all(len(pickle.dumps(p)) < 1000 for p, _ in parts)


def test_dask_array_input_equals_serial(client, sample_file):
    arr = np.fromfile(sample_file, np.uint8).reshape(-1, 64)
    x = da.from_array(arr, chunks=(7001, 64))  # uneven chunks
    codecs = ["bdi", "fpc", "e2mc", "sc2", "fvc", "cpack.skku"]
    pd.testing.assert_frame_equal(md.compare(x, codecs).drop(columns=SOURCE), report.compare(arr, codecs))
    pd.testing.assert_frame_equal(md.entropy_table(x).drop(columns=SOURCE), entropy.table(arr))
    pd.testing.assert_frame_equal(md.toggles_compare(x, ["bdi"]).drop(columns=SOURCE), toggles.compare(arr, ["bdi"]))
    x32 = da.from_array(arr.reshape(-1, 32), chunks=(9001, 32))
    got, want = md.mpc_train(x32, partition_bytes=SMALL), mpc.train(arr.reshape(-1, 32))
    assert got.data == want.data and got.info == want.info


def test_dask_array_results_keep_the_provenance_columns(client, sample_file):
    """Each memcomp.dask function on a dask array gives the columns the serial one gives on a dump
    of the same bytes, in its order: memcomp_version and config, and the source columns with what
    a dask array can say (its name as the dataset, no file, format "dask", bytes 0 to n x B); every
    other column holds the serial value."""
    d = open_dump(sample_file, 64)
    x = da.from_array(np.fromfile(sample_file, np.uint8).reshape(-1, 64), chunks=(7001, 64))
    size = os.path.getsize(sample_file)
    for got, want in (
        (md.compare(x, ["bdi", "e2mc"]), report.compare(d, ["bdi", "e2mc"])),
        (md.entropy_table(x), entropy.table(d)),
        (md.toggles_compare(x, ["bdi", "fpc"], dbi="dc"), toggles.compare(d, ["bdi", "fpc"], dbi="dc")),
    ):
        assert list(got.columns) == list(want.columns)
        assert set(SOURCE + ["memcomp_version"]) <= set(got.columns)
        assert (want["dataset"] == "sample.bin").all() and (want["format"] == "raw").all()
        assert (got["dataset"] == x.name).all() and x.name.startswith("array-")
        assert got["file"].isna().all() and (got["format"] == "dask").all()
        assert (got["offset_begin"] == 0).all() and (got["offset_end"] == size).all()
        assert (got["memcomp_version"] == memcomp.__version__).all()
        pd.testing.assert_frame_equal(got.drop(columns=SOURCE), want.drop(columns=SOURCE))
    # next to a dump the rows line up column for column
    both = md.entropy_table([d, x])
    assert list(both["dataset"].unique()) == ["sample.bin", x.name] and list(both["format"].unique()) == ["raw", "dask"]


@pytest.mark.parametrize(
    "make,B,n",  # the array, the block size asked for, the bytes the hint keeps
    [
        (lambda raw: raw, None, 1 << 20),  # 1-D uint8: x.reshape(-1, 128)
        (lambda raw: raw, 64, 1 << 20),
        (lambda raw: raw[:-5], None, (1 << 20) - 128),  # a partial block at the end is cut off
        (lambda raw: raw.view(np.float32).reshape(-1, 16), 32, 1 << 20),  # float32 (n, 16)
        (lambda raw: raw[:-16].view(np.float32).reshape(-1, 10), None, (1 << 20) - 128),
    ],
)
def test_the_hint_for_an_array_that_is_not_blocks_is_the_call_that_works(make, B, n):
    raw = workloads.sample_dump(1 << 20, seed=2)
    x = da.from_array(make(raw), chunks=5000)
    with pytest.raises(TypeError, match="must be \\(n, B\\) uint8 blocks") as e:
        md.compare(x, ["bdi"], block_bytes=B)
    (call,) = re.findall(r"use (x\S*\.reshape\(-1, \d+\))", str(e.value))
    blocks = eval(call, {"x": x, "np": np})  # the call as the message gives it
    assert blocks.shape == (n // (B or 128), B or 128) and blocks.dtype == np.uint8
    assert np.array_equal(blocks.compute().reshape(-1), raw[:n])
    pd.testing.assert_frame_equal(
        md.compare(blocks, ["bdi"]).drop(columns=SOURCE), report.compare(memcomp.as_blocks(raw[:n], B or 128), ["bdi"])
    )
    if B is None:
        assert "(or your block size for 128)" in str(e.value)


@pytest.mark.filterwarnings("ignore:Sending large graph")
def test_dask_array_fit_sample_is_the_serial_sample(client):
    """Above 64 MiB the data-driven codecs are fitted on the same evenly spaced sample."""
    rng = np.random.default_rng(5)
    n = (72 << 20) // 128
    arr = np.zeros((n, 128), np.uint8)
    arr[::3, :4] = rng.integers(0, 16, (len(arr[::3]), 4), dtype=np.uint8)
    x = da.from_array(arr, chunks=(n // 5, 128))
    want = report.compare(arr, ["fvc", "bdi"], oracle=False)
    got = md.compare(x, ["fvc", "bdi"], oracle=False)
    assert list(got["model"]) == ["sample(64 MiB)", "-"]
    pd.testing.assert_frame_equal(got.drop(columns=SOURCE), want)


def test_mpc_train_equals_serial(client, multi, sample_file):
    sources = open_dumps(multi, block_bytes=32, allow_partial=True)
    files = [s for s in sources if s.format != "gzip"]
    want = mpc.train(files)
    got = md.mpc_train(files, partition_bytes=SMALL // 8)
    assert got.data == want.data and got.info == want.info
    n = sum(len(f) for f in files)
    labels = np.random.default_rng(0).integers(0, 5, n)
    labels[: n // 2] = 3
    want = mpc.train(files, labels, weight="cal22", quantiser="round")
    got = md.mpc_train(files, labels, weight="cal22", quantiser="round", partition_bytes=SMALL // 8)
    assert got.data == want.data
    # 128 B dumps are read as 32 B sectors; a bottom-k sample needs one pass
    big = open_dump(sample_file, 128)
    for kw in ({}, {"max_blocks": 3000, "seed": 7}):
        assert md.mpc_train(big, partition_bytes=SMALL, **kw).data == mpc.train(big, **kw).data
    with pytest.raises(ValueError, match="stream"):
        md.mpc_train([s for s in sources if s.format == "gzip"])


def test_refusals(client, tmp_path, sample_file):
    r, w = os.pipe()
    os.close(w)
    import pathlib

    from memcomp.io import StreamDump

    pipe = StreamDump(pathlib.Path(f"/dev/fd/{r}"), 128)
    with pytest.raises(ValueError, match="cannot be shipped"):
        md.compare(pipe)
    os.close(r)
    with pytest.raises(TypeError, match="uint8"):
        md.compare(da.zeros((10, 128), dtype=np.int16))
    with pytest.raises(TypeError, match="uint8"):
        md.entropy_table(np.zeros(1280, np.uint8))
    unknown = da.from_array(np.zeros((10, 128), np.uint8))
    unknown = unknown[unknown[:, 0] == 0]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        md.compare(unknown)
    with pytest.raises(ValueError, match="partition_bytes"):
        md.compare(sample_file, block_bytes=128, partition_bytes=0)
    with pytest.raises(ValueError, match="no datasets"):
        md.compare([])
    with pytest.raises(TypeError, match="a dataset is"):
        md.compare([3])


def test_cli_dask_on_a_scheduler_equals_serial(client, sample_file, capsys):
    args = [str(sample_file), "--codecs", "bdi,fpc,e2mc", "--csv", "--no-progress"]
    assert main(["compare", *args]) == 0
    want = capsys.readouterr().out
    assert main(["compare", *args, "--dask", client.scheduler.address]) == 0
    assert capsys.readouterr().out == want
    args = [str(sample_file), "--csv", "--no-progress"]
    for cmd in (["entropy"], ["toggles", "--codecs", "bdi"]):
        assert main([*cmd, *args]) == 0
        want = capsys.readouterr().out
        assert main([*cmd, *args, "--dask", client.scheduler.address]) == 0
        assert capsys.readouterr().out == want


def test_cli_dask_local_cluster_on_the_bundled_sample(tmp_path):
    """``memcomp compare --dask`` with no address starts its own cluster of worker processes."""
    run = [sys.executable, "-m", "memcomp", "compare", "--sample-bytes", str(4 << 20), "--csv", "--no-progress"]
    want = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    got = subprocess.run(run + ["--dask", "--dask-workers", "2"], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stdout == want
    bad = subprocess.run(run + ["--dask", "tcp://127.0.0.1:9"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--dask" in bad.stderr


def test_train_mpc_cli_dask(client, sample_file, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["train-mpc", str(sample_file), "-o", str(a), "--block", "128"]) == 0
    assert (
        main(["train-mpc", str(sample_file), "-o", str(b), "--block", "128", "--dask", client.scheduler.address]) == 0
    )
    assert mpc.MPCModel.load(a).data == mpc.MPCModel.load(b).data


# ------------------------------------------------------------------------------------- the GIL
def _measure_blocks():
    return memcomp.as_blocks(workloads.sample_dump(8 << 20, seed=1), 128)


def test_core_releases_the_gil_while_measuring():
    """A pure-Python thread keeps running while the core measures: the GIL is released."""
    blocks = _measure_blocks()
    codec = memcomp.get_codec("bpc")
    stop, ticks = threading.Event(), [0]

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.05)
        before = ticks[0]
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.3:
            codec.measure(blocks, threads=1)
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    assert during > 1000  # with the GIL held the spinning thread could not have counted at all


def test_two_python_threads_measure_at_once_identically():
    """Two Python threads measuring at once (the GIL released, test above) get the serial answer.
    How much faster it is is a figure, not a test: tests/benchmarks/bench_dask.py prints it."""
    blocks = _measure_blocks()
    codecs = [memcomp.get_codec("bpc"), memcomp.get_codec("fpc")]
    want = [c.measure(blocks, threads=1).size_bits for c in codecs]
    out = [None, None]
    ts = [
        threading.Thread(target=lambda i=i: out.__setitem__(i, codecs[i].measure(blocks, threads=1).size_bits))
        for i in range(2)
    ]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(np.array_equal(g, w) for g, w in zip(out, want))
