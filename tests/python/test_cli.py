"""The memcomp command line: every subcommand, on the bundled sample and on dump files, its output
formats, and bad input (exit code 2 with one line naming the flag)."""

import io
import json
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import memcomp
from memcomp import mpc, report_page
from memcomp.cli import main

SMALL = ["--sample-bytes", str(1 << 18)]


def run(*argv):
    out = io.StringIO()
    rc = main(list(argv), out=out)
    return rc, out.getvalue()


def cli_error(argv, capsys):
    """(exit code, stderr) of a command line that fails in argparse or in memcomp."""
    try:
        rc = run(*argv)[0]
    except SystemExit as e:
        rc = e.code
    return rc, capsys.readouterr().err


@pytest.fixture
def dumps(tmp_path):
    """Two kernel dumps in a directory."""
    d = tmp_path / "kernels"
    d.mkdir()
    for i in range(2):
        memcomp.save_dump(d / f"k{i}.bin", memcomp.workloads.sample_dump(1 << 16, seed=i))
    return d


# --------------------------------------------------------------------------------------- compare
def test_compare_on_bundled_sample_csv_matches_api():
    rc, text = run("compare", "--codecs", "bdi,fpc", "--block", "64", *SMALL, "--csv")
    assert rc == 0
    df = pd.read_csv(io.StringIO(text))
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 18, seed=0), 64)
    api = memcomp.compare(blocks, ["bdi", "fpc"])
    assert list(df["codec"]) == ["bdi.paper", "fpc.paper", "oracle"]
    assert df["cr"].tolist() == pytest.approx(api["cr"].tolist())
    assert df["dataset"].iloc[0].startswith("sample(") and (df["memcomp_version"] == memcomp.__version__).all()


def test_default_main_job_tells_a_story(capsys):
    """The README's main job (compare --codecs all) runs at 128 B, where CR at MAG is not all 1;
    the one preset not defined at 128 B is named in one warning line (issue 33 item 10), shown
    whatever the warning filters say (this suite turns warnings into errors)."""
    rc, text = run("compare", "--codecs", "all", *SMALL, "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and (df["block_bytes"] == 128).all() and df["cr_mag"].max() > 1.3
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "memcomp: warning: mpc.cal22_rtl skipped at 128 B blocks: mpc is defined for 32 B blocks only (SPEC 1.12), "
        "not 128 B: split larger blocks into 32 B sectors with memcomp.sectorize(blocks, 32)"
    ]


def test_compare_directory_one_dataset_each_json_and_parquet(dumps, tmp_path):
    rc, text = run("compare", str(dumps), "--block", "128", "--codecs", "all", "--json")
    rows = json.loads(text)
    assert rc == 0 and {r["dataset"] for r in rows} == {"k0.bin", "k1.bin"}
    # 'all' is every lossless preset; one not defined at 128 B gets a row saying why (issue 33 items 8, 10)
    usable = [n for n in memcomp.codec_names(group="all") if memcomp.get_codec(n).supports(128)]
    assert [r["codec"] for r in rows if r["dataset"] == "k0.bin"] == usable + ["mpc.cal22_rtl", "oracle"]
    assert all(r["offset_end"] - r["offset_begin"] == r["blocks"] * 128 for r in rows if r["note"] is None)
    pytest.importorskip("pyarrow")
    out = tmp_path / "t.parquet"
    assert run("compare", str(dumps / "k0.bin"), "-o", str(out))[0] == 0
    assert pd.read_parquet(out)["dataset"].eq("k0.bin").all()


def test_train_mpc_trains_on_a_sample_by_default(tmp_path):
    """train-mpc's --fit-bytes defaults to FIT_BYTES_MPC (256 MiB): past it, runs of sectors
    evenly spread (the model of mpc.train with that fit_bytes, said on the output); none: every
    sector."""
    from memcomp import _mpc_train

    dumps = tmp_path / "kernels"
    dumps.mkdir()
    for i in range(2):  # 8 runs of 4096 sectors
        memcomp.save_dump(dumps / f"k{i}.bin", memcomp.workloads.sample_dump(1 << 19, seed=i))
    sources = [memcomp.open_dump(dumps / f"k{i}.bin", 32) for i in range(2)]
    options = {o.name: o for o in _mpc_train.TrainMPC.OPTIONS}
    assert options["fit_bytes"].command_line_default == _mpc_train.FIT_BYTES_MPC == 256 << 20
    model = tmp_path / "m.json"
    rc, text = run("train-mpc", str(dumps), "--fit-bytes", str(1 << 18), "-o", str(model))
    assert rc == 0 and "a sample: runs of 4096 sectors, 1 in 4" in text and "--fit-bytes none" in text
    want = mpc.train(sources, fit_bytes=1 << 18)
    assert mpc.MPCModel.load(model).data == want.data
    rc, text = run("train-mpc", str(dumps), "--fit-bytes", "none", "-o", str(model))
    assert rc == 0 and "sample" not in text
    assert mpc.MPCModel.load(model).data == mpc.train(sources).data
    assert mpc.train(sources).data != want.data


def test_train_mpc_then_compare_with_the_model(dumps, tmp_path):
    model = tmp_path / "m.json"
    rc, text = run("train-mpc", str(dumps), "-o", str(model))
    assert rc == 0 and "wrote" in text and model.exists()
    rc, text = run(
        "compare", str(dumps / "k0.bin"), "--block", "32", "--codecs", "mpc,bdi", "--model", str(model), "--csv"
    )
    df = pd.read_csv(io.StringIO(text)).set_index("codec")
    assert rc == 0 and df.filter(like="mpc", axis=0)["model"].iloc[0] == "given"
    blocks = memcomp.open_dump(dumps / "k0.bin", 32).blocks
    row = df.filter(like="mpc", axis=0).iloc[0]
    want = memcomp.mpc.MPCModel.load(model).codec().measure(blocks).cr(row["policy"])  # under the row's policy
    assert row["cr"] == pytest.approx(want)


# ------------------------------------------------------------------------------- other commands
def test_entropy_toggles_slc_info_codecs(dumps, capsys):
    rc, text = run("entropy", *SMALL, "--symbol-bits", "8,16", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["symbol_bits"].tolist() == [8, 16]
    rc, text = run("toggles", *SMALL, "--codecs", "bdi,fpc.mc", "--dbi", "dc", "--energy", "ddr4", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and set(df["ec"]) == {"none", "ec2"} and (df["energy_model"] == "ddr4").all()
    rc, text = run("slc", *SMALL, "--thresholds", "0,16", "--variants", "opt", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["threshold_bytes"].tolist() == [0, 16] and df["lossy_blocks"].iloc[0] == 0
    # the bundled mix read as float32 holds tiny values: MRE is flagged in one line naming the robust metric
    warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("memcomp: warning: mre")]
    assert len(warned) == 1 and "mre_floored" in warned[0], warned
    rc, text = run("info", str(dumps), "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["dataset"].tolist() == ["k0.bin", "k1.bin"] and (df["blocks"] == 512).all()
    rc, text = run("codecs")
    assert rc == 0 and all(n in text for n in memcomp.codec_names())
    rc, text = run("codecs", "fpc.gem5")  # one preset's options: values, default, its value, help
    assert rc == 0 and "halfwords" in text and "signed, gem5" in text and "two-halfword row" in text
    rc, text = run("codecs", "bdi.gem5", "--csv")
    df = pd.read_csv(io.StringIO(text), dtype=str).set_index("option")
    assert rc == 0 and list(df.loc["zero_bits", ["values", "default", "value"]]) == ["[0, 16]", "8", "0"]


def test_codecs_unknown_name_is_one_line(capsys):
    rc, err = cli_error(["codecs", "nope"], capsys)
    assert rc == 2 and err.startswith("memcomp") and "codecs: unknown codec 'nope'" in err
    assert len(err.strip().splitlines()) == 1


def test_report_is_one_self_contained_page(tmp_path):
    out = tmp_path / "r.html"
    rc, _ = run("report", *SMALL, "--codecs", "bdi,fpc,e2mc", "-o", str(out))
    page = out.read_text()
    assert rc == 0 and page.startswith("<!doctype html>") and page.count("<svg") == 3  # figures inline, as SVG
    assert "<img" not in page and 'src="http' not in page and "<script" not in page
    summary = page[page.index("<h2 id='summary'>") : page.index("<dl id='columns'>")]
    assert re.findall(r"<th>(.*?)</th>", summary) == list(report_page.SUMMARY_COLUMNS)
    assert all(f"<dt>{k}</dt>" in page for k in report_page.SUMMARY_COLUMNS)  # what each column holds
    prov = page[page.index("<details id='provenance'>") :]
    for key in ("command", "date", "memcomp", "machine", "energy model", "codecs"):
        assert f"<th scope='row'>{key}</th>" in prov, key
    assert "memcomp report" in prov and "bdi.paper" in prov
    assert "bdi.paper" in page and "Entropy bounds" not in page  # not a bound on per-block codecs (item 11)
    for header in (
        "raw CR (raw bits / charged bits)",
        "CR at MAG 32 B (raw bytes / bytes in accesses)",
        "storage policy",
        "share of blocks in 32 B",
        "order-0 entropy H (bits per symbol)",
        "K (table entries)",
        "not per-block codecs",
    ):
        assert header in page, header


def test_console_script_entry_point():
    r = subprocess.run(
        [sys.executable, "-m", "memcomp", "compare", "--codecs", "zca", "--sample-bytes", "8192"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "zca.paper" in r.stdout and r.stderr == ""  # quiet: no progress bar when not a terminal


def test_help_teaches():
    r = subprocess.run([sys.executable, "-m", "memcomp", "--help"], capture_output=True, text=True, check=True)
    for cmd in ("compare", "entropy", "toggles", "train-mpc", "slc", "report", "info", "codecs"):
        assert cmd in r.stdout
    r = subprocess.run([sys.executable, "-m", "memcomp", "train-mpc", "--help"], capture_output=True, text=True)
    assert "--codecs mpc --model" in r.stdout


# ---------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "argv, flag",
    [
        (["compare", "--codecs", "nope"], "--codecs"),
        (["compare", "--policy", "cap+xx"], "--policy"),
        (["compare", "--sample-bytes", "100"], "--sample-bytes"),
        (["compare", "--mag", "0"], "--mag"),
        (["compare", "--threads", "0"], "--threads"),
        (["compare", "--chunk-blocks", "-3"], "--chunk-blocks"),
        (["compare", "--offset", "-1"], "--offset"),
        (["compare", "--length", "1.5G"], "--length"),
        (["compare", "--max-bytes", "4X"], "--max-bytes"),
        (["compare", "--block", "48"], "--block"),
        (["compare", "--codecs", "mpc", "--block", "64"], "--block"),
        (["compare", "--codecs", "bdi", "--model", "/nonexistent/m.json"], "--model"),
        (["entropy", "--symbol-bits", "12"], "--symbol-bits"),
        (["toggles", "--energy", "hbm9"], "--energy"),
        (["toggles", "--channel", "noc", "--energy", "ddr4"], "--energy"),
        (["slc", "--variants", "best"], "--variants"),
        (["slc", "--mags", "48"], "--mags"),
        (["train-mpc", "--block", "16", "-o", "/tmp/x.json"], "--block"),
        (["report", "-o", "report.txt"], "-o"),
        (["compare", "--format", "parquet"], "-o"),
        (["compare", "/nonexistent/dump.bin"], "/nonexistent/dump.bin"),
    ],
)
def test_every_error_names_the_flag(argv, flag, capsys):
    if "--sample-bytes" not in argv:
        argv = argv + ["--sample-bytes", "4096"]
    rc, err = cli_error(argv, capsys)
    assert rc == 2
    assert flag in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("memcomp"), err  # the error alone, no warning first


def test_partial_block_error_names_allow_partial(tmp_path, capsys):
    p = tmp_path / "odd.bin"
    p.write_bytes(b"x" * 100)
    assert run("compare", str(p), "--block", "32")[0] == 2
    err = capsys.readouterr().err
    assert "--allow-partial" in err and "allow_partial=True" not in err and "--block 32" in err
    rc, text = run("compare", str(p), "--block", "32", "--allow-partial", "--csv")
    assert rc == 0 and pd.read_csv(io.StringIO(text))["blocks"].iloc[0] == 3
    assert run("compare", str(p), "--offset", "200")[0] == 2
    assert "--offset 200" in capsys.readouterr().err


def test_compare_takes_slc_like_any_codec():
    rc, text = run("compare", "--codecs", "e2mc,slc", "--block", "128", *SMALL, "--csv")
    assert rc == 0
    df = pd.read_csv(io.StringIO(text)).set_index("codec")
    assert df.loc["slc.opt", "lossy"] and not df.loc["e2mc.paper", "lossy"]
    assert df.loc["slc.opt", "cr_mag"] > df.loc["e2mc.paper", "cr_mag"]
    rc, text = run("compare", "--codecs", "e2mc,slc", "--block", "128", *SMALL)
    assert rc == 0 and "lossy" in text.splitlines()[0]


def test_progress_bar_on_request(capsys):
    rc, _ = run("compare", "--codecs", "bdi", *SMALL, "--progress")
    assert rc == 0 and "B/s" in capsys.readouterr().err  # tqdm's bar with its rate
    rc, _ = run("compare", "--codecs", "bdi", *SMALL)
    assert rc == 0 and capsys.readouterr().err == ""  # not a terminal, small: quiet


@pytest.mark.parametrize("offset, length", [("1K", "2KiB"), ("1024", "2048"), ("1kb", "2k")])
def test_offset_and_length_take_byte_units(tmp_path, offset, length):
    data = memcomp.workloads.sample_dump(8192, seed=2)
    p = tmp_path / "d.bin"
    p.write_bytes(data.tobytes())
    rc, text = run("compare", str(p), "--codecs", "bdi,fpc", "--offset", offset, "--length", length, "--csv")
    assert rc == 0
    got = pd.read_csv(io.StringIO(text))
    want = memcomp.compare(memcomp.as_blocks(data[1024:3072], 128), ["bdi", "fpc"])
    assert list(got["offset_begin"].unique()) == [1024] and list(got["offset_end"].unique()) == [3072]
    np.testing.assert_array_equal(got["inband_bits"], want["inband_bits"])


def test_progress_on_a_stream_of_unknown_length(tmp_path, capsys):
    """A stream's length is unknown until read: --progress shows a bar without a total (it
    compared None with an int before)."""
    import gzip

    p = tmp_path / "d.bin.gz"
    with gzip.open(p, "wb") as f:
        f.write(memcomp.workloads.sample_dump(1 << 16, seed=4).tobytes())
    for cmd in (["compare", "--codecs", "bdi,e2mc"], ["slc", "--mags", "32"]):
        rc, text = run(*cmd, str(p), "--progress", "--csv", "--chunk-blocks", "100")
        assert rc == 0, capsys.readouterr().err
        assert len(pd.read_csv(io.StringIO(text))) >= 2


# ------------------------------------------------------------------------- a pipeline-fit CLI
ARGPARSE_ERRORS = [
    (["compare", "--block", "48"], "--block"),
    (["compare", "--mag", "0"], "--mag"),
    (["compare", "--threads", "-5"], "--threads"),
    (["compare", "--format", "xlsx"], "--format"),
    (["slc", "--thresholds", "quarter"], "--thresholds"),
    ([], "COMMAND"),
]


@pytest.mark.parametrize("argv, flag", ARGPARSE_ERRORS)
def test_argparse_errors_are_one_line(argv, flag, capsys):
    """The README promises one line naming the flag (argparse printed 13 usage lines first)."""
    rc, err = cli_error(argv, capsys)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, err
    assert lines[0].startswith("memcomp") and "error:" in lines[0] and flag in lines[0]


def many_dumps(tmp_path, n=12):
    d = tmp_path / "pg"
    d.mkdir()
    for i in range(n):
        memcomp.save_dump(d / f"pg_{i:02d}.bin", memcomp.workloads.sample_dump(4096, seed=i))
    return d


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_closed_pipe_exits_141_never_a_silent_partial_write(tmp_path, unbuffered):
    """The reader takes 10 bytes and leaves while more than a pipe's 64 KiB is still to come:
    every run exits 141 (PYTHONUNBUFFERED=1 made sys.stdout drop the rest of a short write to a
    pipe and exit 0), and a reader that takes everything still gets exit 0."""
    import os

    argv = [sys.executable, "-m", "memcomp", "compare", str(many_dumps(tmp_path)), "--codecs", "all", "--json"]
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    full = subprocess.run(argv, capture_output=True, env=env)
    assert full.returncode == 0 and len(full.stdout) > 4 * 65536  # far more than a pipe holds
    for _ in range(3):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        head = os.read(p.stdout.fileno(), 10)
        p.stdout.close()
        _, err = p.communicate(timeout=120)
        assert len(head) == 10 and p.returncode == 141, err
        assert b"Traceback" not in err and b"Exception ignored" not in err and b"Broken" not in err


def test_dash_reads_standard_input_streamed(tmp_path):
    """``cat d.bin | memcomp compare - --block 32``: standard input, read as a stream (its
    format column says so), named 'stdin'; the numbers equal those of the file."""
    data = memcomp.workloads.sample_dump(1 << 15, seed=3)
    p = tmp_path / "d.bin"
    p.write_bytes(data.tobytes())
    argv = [sys.executable, "-m", "memcomp", "compare", "-", "--block", "32", "--codecs", "bdi,fpc", "--csv"]
    r = subprocess.run(argv, input=data.tobytes(), capture_output=True, check=True)
    got = pd.read_csv(io.BytesIO(r.stdout))
    want = pd.read_csv(io.StringIO(run("compare", str(p), "--block", "32", "--codecs", "bdi,fpc", "--csv")[1]))
    assert got["dataset"].unique().tolist() == ["stdin"] and got["format"].unique().tolist() == ["stream"]
    np.testing.assert_array_equal(got["inband_bits"], want["inband_bits"])
    assert got["blocks"].iloc[0] == (1 << 15) // 32
    for path in ("/dev/fd/0", "/proc/self/fd/0"):  # standard input by another of its names
        r = subprocess.run(
            argv[:3] + ["info", path, "--block", "32", "--csv"], input=data.tobytes(), capture_output=True, check=True
        )
        assert pd.read_csv(io.BytesIO(r.stdout))["dataset"].tolist() == ["stdin"]


def test_dash_on_a_terminal_is_refused(capsys):
    import os
    import pty

    master, slave = pty.openpty()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "memcomp", "info", "-"], stdin=slave, capture_output=True, text=True, timeout=60
        )
    finally:
        os.close(master)
        os.close(slave)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "standard input" in r.stderr and "terminal" in r.stderr


def test_process_substitution_gets_a_useful_name(tmp_path):
    """``memcomp info <(cat d.bin)``: a pipe at /dev/fd/N, named for what it is, not 'N'; a file
    descriptor open on a regular file is named after that file."""
    import shutil

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("needs bash")
    p = tmp_path / "d.bin"
    memcomp.save_dump(p, memcomp.workloads.sample_dump(4096, seed=1))
    cmd = f"{sys.executable} -m memcomp info <(cat {p}) /dev/fd/7 --block 32 --csv 7<{p}"
    r = subprocess.run([bash, "-c", cmd], capture_output=True, text=True, check=True)
    df = pd.read_csv(io.StringIO(r.stdout))
    pipe, fd7 = df["dataset"].tolist()
    assert pipe.startswith("/dev/fd/") and pipe == df["file"].iloc[0]  # not "63"
    assert fd7 == "d.bin" and (df["blocks"] == 128).all()


def test_output_format_from_the_extension(tmp_path, capsys):
    """``-o result.xlsx`` wrote an ASCII table into the .xlsx: an unknown extension is refused
    with one line naming --format, and written in the format --format names."""
    bad = tmp_path / "result.xlsx"
    rc, err = cli_error(["compare", "--codecs", "bdi", *SMALL, "-o", str(bad)], capsys)
    assert rc == 2 and "--format" in err and ".xlsx" in err and len(err.strip().splitlines()) == 1
    assert not bad.exists()
    assert run("compare", "--codecs", "bdi,fpc", *SMALL, "-o", str(bad), "--format", "csv")[0] == 0
    assert pd.read_csv(bad)["codec"].tolist() == ["bdi.paper", "fpc.paper", "oracle"]
    for name, check in (("r.csv", lambda t: t.startswith("dataset,")), ("r.json", lambda t: t.startswith("["))):
        assert run("compare", "--codecs", "bdi", *SMALL, "-o", str(tmp_path / name))[0] == 0
        assert check((tmp_path / name).read_text())
    assert run("compare", "--codecs", "bdi", *SMALL, "-o", str(tmp_path / "r.txt"))[0] == 0
    assert (tmp_path / "r.txt").read_text().split()[:2] == ["dataset", "codec"]  # the terminal's table


def test_codec_names_are_matched_case_insensitively(capsys):
    rc, text = run("compare", "--codecs", "BDI,Fpc.GEM5", *SMALL, "--csv")
    assert rc == 0 and pd.read_csv(io.StringIO(text))["codec"].tolist() == ["bdi.paper", "fpc.gem5", "oracle"]
    assert memcomp.get_codec("FPC.Gem5") == memcomp.get_codec("fpc.gem5")
    assert memcomp.get_codec("Fpc.Paper(endian=big)").name == "fpc.paper(endian=big)"
    rc, err = cli_error(["compare", "--codecs", "bdi.gme5", *SMALL], capsys)
    assert rc == 2 and "did you mean bdi.gem5" in err and "--codecs" in err
    with pytest.raises(ValueError, match="did you mean cpack"):
        memcomp.get_codec("cpak")


def test_train_mpc_output_directory_names_the_flag_before_training(tmp_path, capsys):
    import time

    t = time.perf_counter()
    rc, err = cli_error(["train-mpc", "--sample-bytes", str(64 << 20), "-o", str(tmp_path)], capsys)
    assert rc == 2 and "-o" in err and str(tmp_path) in err and "directory" in err
    assert time.perf_counter() - t < 5  # refused before 64 MiB are read and trained on


def test_no_oracle_drops_the_oracle_columns():
    for flag in ("--no-oracle", "--oracle=none"):
        rc, text = run("compare", "--codecs", "bdi,fpc", *SMALL, flag, "--csv")
        df = pd.read_csv(io.StringIO(text))
        assert rc == 0 and "oracle" not in df["codec"].tolist()
        assert not [c for c in df.columns if c.startswith("oracle")]
    rc, text = run("compare", "--codecs", "bdi,fpc", *SMALL, "--csv")
    assert {"oracle_wins", "oracle_over"} <= set(pd.read_csv(io.StringIO(text)).columns)


def test_info_zero_block_share_is_the_share(tmp_path):
    """3 of 8 blocks all zero: the column is named as the share it is and holds 3/8."""
    data = np.arange(8 * 32, dtype=np.uint32).astype(np.uint8).reshape(8, 32) | 1
    data[[1, 4, 6]] = 0
    p = tmp_path / "z.bin"
    p.write_bytes(data.tobytes())
    rc, text = run("info", str(p), "--block", "32", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and "zero_blocks" not in df.columns
    assert df["zero_block_share"].iloc[0] == pytest.approx(3 / 8)


def test_slc_thresholds_half_pairs_each_mag_with_half_of_it():
    """P4 §V-C: the threshold is half the MAG (16 B at MAG 32, 32 B at MAG 64)."""
    argv = ["--mags", "32,64", "--thresholds", "half", "--variants", "simp", "--dtype", "uint8", "--csv"]
    rc, text = run("slc", *SMALL, *argv)
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and list(zip(df["mag"], df["threshold_bytes"])) == [(32, 16), (64, 32)]


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        (["--budget", "stream"], {"budget": "stream"}),
        (["--budget", "codes"], {"budget": "codes"}),
        (["--predict", "symbol"], {"predict": "symbol"}),
        (["--training", "online", "--window", "300"], {"training": "online", "window": 300}),
        (["--rel-floor", "0.5"], {"rel_floor": 0.5}),
    ],
)
def test_slc_flags_reach_the_sweep(flags, kwargs, tmp_path, capsys):
    """Each SLC option of the command line is the library's (issue 33 items 4 and 6): its rows
    equal slc.sweep's with that option, and differ from the defaults' rows."""
    photo = memcomp.workloads.sample_dump(1 << 18, seed=3)  # the bundled mix: floats among other data
    path = tmp_path / "d.bin"
    photo.tofile(path)
    base = ["slc", str(path), "--mags", "16,32", "--thresholds", "half", "--variants", "opt", "--csv"]
    rc, text = run(*base, *flags)
    got = pd.read_csv(io.StringIO(text))
    blocks = memcomp.as_blocks(photo, 128)
    with warnings.catch_warnings():  # the mix's tiny floats: MRE is flagged (the CLI prints it)
        warnings.simplefilter("ignore", memcomp.MetricWarning)
        want = memcomp.slc.sweep(blocks, thresholds="half", mags=(16, 32), variants=("opt",), **kwargs)
        default = memcomp.slc.sweep(blocks, thresholds="half", mags=(16, 32), variants=("opt",))
    cols = ["cr_e2mc", "cr_mag_slc", "lossy_blocks", "lossy_no_gain", "mre_floored", "rel_err_p99", "training"]
    assert rc == 0
    pd.testing.assert_frame_equal(got[cols], want[cols], check_dtype=False)
    assert not got[cols].equals(default[cols]), flags
    for k, v in kwargs.items():
        if k in ("budget", "predict", "rel_floor"):
            assert (got[k] == v).all(), k


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--budget", "most"], "--budget"),
        (["--predict", "word0"], "--predict"),
        (["--training", "later"], "--training"),
        (["--window", "0"], "--window"),
        (["--training", "online", "--window", "99999999"], "--window"),
        (["--rel-floor", "-1"], "--rel-floor"),
        (["--rel-floor", "nan"], "--rel-floor"),
    ],
)
def test_slc_flag_errors_name_the_flag(argv, flag, capsys):
    rc, err = cli_error(["slc", *SMALL, *argv], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and flag in err, err


def test_help_says_what_defaults_holds():
    r = subprocess.run([sys.executable, "-m", "memcomp", "compare", "--help"], capture_output=True, text=True)
    text = " ".join(r.stdout.split())
    held = text.split("'defaults' holds ", 1)[1].split(" (default", 1)[0]
    assert held.split(", ") == memcomp.codec_names(group="defaults")  # lossless only: no slc.opt
    assert "'lossy'" in text and "slc" not in held


def test_model_applies_to_the_family_name_and_a_published_preset_keeps_its_own(dumps, tmp_path):
    """``--codecs mpc,mpc.cal22_rtl --model m.json``: the family name takes the model, the
    published preset keeps its own; two rows, each named for what it is, each with its own CR."""
    model = tmp_path / "m.json"
    assert run("train-mpc", str(dumps), "-o", str(model))[0] == 0
    argv = ["--block", "32", "--codecs", "mpc,mpc.cal22_rtl", "--model", str(model), "--csv"]
    rc, text = run("compare", str(dumps / "k0.bin"), *argv)
    df = pd.read_csv(io.StringIO(text)).set_index("codec")
    assert rc == 0 and df.index.tolist() == ["mpc.cal22_rtl(model=fitted)", "mpc.cal22_rtl", "oracle"]
    blocks = memcomp.open_dump(dumps / "k0.bin", 32).blocks
    policy = df["policy"].iloc[0]
    fitted = memcomp.mpc.MPCModel.load(model).codec().measure(blocks).cr(policy)
    published = memcomp.get_codec("mpc.cal22_rtl").measure(blocks).cr(policy)
    assert fitted != published and (df["policy"] == policy).all()
    assert df.loc["mpc.cal22_rtl(model=fitted)", "cr"] == pytest.approx(fitted)
    assert df.loc["mpc.cal22_rtl", "cr"] == pytest.approx(published)
    assert df.loc["mpc.cal22_rtl(model=fitted)", "config"] != df.loc["mpc.cal22_rtl", "config"]


def test_model_for_a_published_preset_alone_says_how_to_use_it(dumps, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert run("train-mpc", str(dumps), "-o", str(model))[0] == 0
    rc, err = cli_error(["compare", "--block", "32", "--codecs", "mpc.cal22_rtl", "--model", str(model)], capsys)
    assert rc == 2 and "--model" in err and "--codecs mpc" in err


def test_e2mc_model_goes_to_the_codecs_without_one_of_their_own(tmp_path, capsys):
    """An E2MC model goes to e2mc.paper and SLC (which compresses with E2MC's model, P4 §III)."""
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 18, seed=0), 128)
    model = tmp_path / "e2mc.json"
    memcomp.get_codec("e2mc").fit(blocks[: len(blocks) // 2]).model.save(model)  # on part of the data
    rc, text = run("compare", "--codecs", "E2MC.paper,slc.opt,bdi", *SMALL, "--model", str(model), "--csv")
    df = pd.read_csv(io.StringIO(text)).set_index("codec")
    assert rc == 0 and df.loc["e2mc.paper", "model"] == "given" and df.loc["slc.opt", "model"] == "given"
    assert df.loc["bdi.paper", "model"] == "-"
    want = memcomp.get_codec("e2mc", model=memcomp.Model.load(model)).measure(blocks)
    assert df.loc["e2mc.paper", "cr"] == pytest.approx(want.cr(df.loc["e2mc.paper", "policy"]))
    rc, err = cli_error(["compare", "--codecs", "bdi,fpc", *SMALL, "--model", str(model)], capsys)
    assert rc == 2 and "--model" in err and "--codecs e2mc,bdi,fpc" in err
