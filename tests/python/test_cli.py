"""The memcomp command line: every subcommand, on the bundled sample and on dump files, its output
formats, and bad input (exit code 2 with one line naming the flag)."""

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import memcomp
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


def test_default_main_job_tells_a_story():
    """The README's main job (compare --codecs all) runs at 128 B, where CR at MAG is not all 1."""
    rc, text = run("compare", "--codecs", "all", *SMALL, "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and (df["block_bytes"] == 128).all() and df["cr_mag"].max() > 1.3


def test_compare_directory_one_dataset_each_json_and_parquet(dumps, tmp_path):
    rc, text = run("compare", str(dumps), "--block", "128", "--codecs", "all", "--json")
    rows = json.loads(text)
    assert rc == 0 and {r["dataset"] for r in rows} == {"k0.bin", "k1.bin"}
    usable = [n for n in memcomp.codec_names() if memcomp.get_codec(n).supports(128)]
    assert [r["codec"] for r in rows if r["dataset"] == "k0.bin"] == usable + ["oracle"]
    assert all(r["offset_end"] - r["offset_begin"] == r["blocks"] * 128 for r in rows)
    pytest.importorskip("pyarrow")
    out = tmp_path / "t.parquet"
    assert run("compare", str(dumps / "k0.bin"), "-o", str(out))[0] == 0
    assert pd.read_parquet(out)["dataset"].eq("k0.bin").all()


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
    want = memcomp.mpc.MPCModel.load(model).codec().measure(blocks).cr()
    assert df.filter(like="mpc", axis=0)["cr"].iloc[0] == pytest.approx(want)


# ------------------------------------------------------------------------------- other commands
def test_entropy_toggles_slc_info_codecs(dumps):
    rc, text = run("entropy", *SMALL, "--symbol-bits", "8,16", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["symbol_bits"].tolist() == [8, 16]
    rc, text = run("toggles", *SMALL, "--codecs", "bdi,fpc.mc", "--dbi", "dc", "--energy", "ddr4", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and set(df["ec"]) == {"none", "ec2"} and (df["energy_model"] == "ddr4").all()
    rc, text = run("slc", *SMALL, "--thresholds", "0,16", "--variants", "opt", "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["threshold_bytes"].tolist() == [0, 16] and df["lossy_blocks"].iloc[0] == 0
    rc, text = run("info", str(dumps), "--csv")
    df = pd.read_csv(io.StringIO(text))
    assert rc == 0 and df["dataset"].tolist() == ["k0.bin", "k1.bin"] and (df["blocks"] == 512).all()
    rc, text = run("codecs")
    assert rc == 0 and all(n in text for n in memcomp.codec_names())


def test_report_is_one_self_contained_page(tmp_path):
    out = tmp_path / "r.html"
    rc, _ = run("report", *SMALL, "--codecs", "bdi,fpc,e2mc", "-o", str(out))
    page = out.read_text()
    assert rc == 0 and page.startswith("<!doctype html>") and page.count("<img") == 3
    assert "data:image/png;base64," in page and 'src="http' not in page
    assert "bdi.paper" in page and "Entropy bounds" in page


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
    assert err.strip().splitlines()[-1].startswith("memcomp")


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
