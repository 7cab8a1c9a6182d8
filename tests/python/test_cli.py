"""The memcomp command line."""
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import memcomp
from memcomp.cli import ProgressBar, main


def run(*argv):
    out = io.StringIO()
    rc = main(list(argv), out=out)
    return rc, out.getvalue()


def test_compare_on_bundled_sample_csv_matches_api():
    rc, text = run("compare", "--codecs", "bdi,fpc", "--block", "64", "--sample-bytes", str(1 << 18), "--csv")
    assert rc == 0
    df = pd.read_csv(io.StringIO(text))
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 18, seed=0), 64)
    api = memcomp.compare(blocks, ["bdi", "fpc"])
    assert list(df["codec"]) == ["bdi.paper", "fpc.paper", "oracle"]
    assert df["cr"].tolist() == pytest.approx(api["cr"].tolist())
    assert df["dataset"].iloc[0].startswith("sample(")


def test_compare_on_dump_file_json_and_text(tmp_path):
    data = memcomp.workloads.sample_dump(1 << 16, seed=1)
    p = tmp_path / "d.bin"
    memcomp.save_dump(p, data)
    rc, text = run("compare", str(p), "--block", "128", "--codecs", "all", "--mag", "32", "--json")
    assert rc == 0
    rows = json.loads(text)
    usable = [n for n in memcomp.codec_names() if memcomp.get_codec(n).supports(128)]
    assert [r["codec"] for r in rows] == usable + ["oracle"]
    assert "mpc.cal22_rtl" not in usable  # 32 B sectors only: left out of 'all' at 128 B
    assert all(r["blocks"] == len(data) // 128 for r in rows)
    rc, text = run("compare", str(p), "--codecs", "bdi.gem5")
    assert rc == 0 and "bdi.gem5" in text and "threshold(0.5)" in text


def test_errors_exit_2(tmp_path, capsys):
    assert run("compare", str(tmp_path / "missing.bin"))[0] == 2
    assert "error" in capsys.readouterr().err
    assert run("compare", "--codecs", "nope", "--sample-bytes", "4096")[0] == 2
    p = tmp_path / "odd.bin"
    p.write_bytes(b"x" * 100)
    assert run("compare", str(p))[0] == 2
    rc, text = run("compare", str(p), "--allow-partial", "--csv")
    assert rc == 0 and pd.read_csv(io.StringIO(text))["blocks"].iloc[0] == 3


def test_codecs_listing():
    rc, text = run("codecs")
    assert rc == 0
    for name in memcomp.codec_names():
        assert name in text


def test_progress_bar():
    s = io.StringIO()
    bar = ProgressBar(32, stream=s, width=10)
    bar(5, 10)
    bar(10, 10)
    assert "[#####-----] 50.0%" in s.getvalue() and s.getvalue().endswith("\n")


def test_console_script_entry_point():
    r = subprocess.run([sys.executable, "-m", "memcomp", "compare", "--codecs", "zca", "--sample-bytes", "8192"],
                       capture_output=True, text=True, check=True)
    assert "zca.paper" in r.stdout


def cli_error(argv, capsys):
    """(exit code, stderr) of a command line that fails in argparse or in memcomp."""
    try:
        rc = run(*argv)[0]
    except SystemExit as e:
        rc = e.code
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("argv, flag", [
    (["--codecs", "nope"], "--codecs"),
    (["--policy", "cap+xx"], "--policy"),
    (["--sample-bytes", "100"], "--sample-bytes"),
    (["--mag", "0"], "--mag"),
    (["--threads", "0"], "--threads"),
    (["--chunk-blocks", "-3"], "--chunk-blocks"),
    (["--offset", "-1"], "--offset"),
    (["--block", "48"], "--block"),
    (["--codecs", "mpc", "--block", "64"], "--block"),
])
def test_every_error_names_the_flag(argv, flag, capsys):
    if "--sample-bytes" not in argv:
        argv = argv + ["--sample-bytes", "4096"]
    rc, err = cli_error(["compare", *argv], capsys)
    assert rc == 2
    assert flag in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("memcomp")


def test_partial_block_error_names_allow_partial(tmp_path, capsys):
    p = tmp_path / "odd.bin"
    p.write_bytes(b"x" * 100)
    assert run("compare", str(p))[0] == 2
    err = capsys.readouterr().err
    assert "--allow-partial" in err and "allow_partial=True" not in err and "--block 32" in err
    assert run("compare", str(p), "--offset", "200")[0] == 2
    assert "--offset 200" in capsys.readouterr().err


def test_compare_takes_slc_like_any_codec():
    rc, text = run("compare", "--codecs", "e2mc,slc", "--block", "128", "--sample-bytes", str(1 << 18), "--csv")
    assert rc == 0
    df = pd.read_csv(io.StringIO(text)).set_index("codec")
    assert df.loc["slc.opt", "lossy"] and not df.loc["e2mc.paper", "lossy"]
    assert df.loc["slc.opt", "cr_mag"] > df.loc["e2mc.paper", "cr_mag"]
    rc, text = run("compare", "--codecs", "e2mc,slc", "--block", "128", "--sample-bytes", str(1 << 18))
    assert rc == 0 and "lossy" in text.splitlines()[1]
