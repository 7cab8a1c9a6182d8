"""memcomp toggles and the report's energy section: every bus and Energy Control option reaches the
table (the same rows as toggles.compare with that option, different from without it), bad values
exit 2 with one line naming the flag, and the report plots and names energy in pJ."""

import io
import re

import numpy as np
import pandas as pd
import pytest

import memcomp
from memcomp import toggles
from test_cli import cli_error, run

SAMPLE = ["--sample-bytes", str(1 << 18)]
BLOCKS = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 18, seed=0), 128)  # what SAMPLE reads

# A base line with every EC option in play, and one change at a time (flags, then the API's names).
BASE = ["--codecs", "cpack", "--dbi", "dc", "--ec", "ec2", "--ec-ratio", "bits"]
BASE_KW = dict(dbi="dc", ec="ec2", ec_ratio="bits")
CHANGES = [
    (["--ec-ratio", "units"], dict(ec_ratio="units")),
    (["--alpha", "4"], dict(alpha=4.0)),
    (["--bu", "0.9"], dict(bu=0.9)),
    (["--ec", "ec1"], dict(ec="ec1")),
    (["--ec", "helps"], dict(ec="helps")),
    (["--dbi", "none"], dict(dbi=None)),
    (["--idle", "low"], dict(idle="low")),
    (["--energy", "ddr4"], dict(energy="ddr4")),
]
COMPARED = ["fraction_compressed", "cr", "cr_mag", "t", "t_ratio", "toggles_ratio", "energy_pj", "energy_ratio"]


def table(*argv) -> pd.DataFrame:
    rc, text = run("toggles", *SAMPLE, *argv, "--csv")
    assert rc == 0
    return pd.read_csv(io.StringIO(text))


@pytest.fixture(scope="module")
def base():
    return table(*BASE)


@pytest.mark.parametrize("flags, kw", CHANGES, ids=[" ".join(f) for f, _ in CHANGES])
def test_each_option_reaches_the_table(base, flags, kw):
    got = table(*BASE, *flags)
    want = toggles.compare(BLOCKS, ["cpack"], **{**BASE_KW, **kw})
    assert got["ec"].tolist() == want["ec"].tolist() and got["metric"].tolist() == want["metric"].tolist()
    assert np.allclose(got[COMPARED].to_numpy(float), want[COMPARED].to_numpy(float), rtol=1e-9)
    assert got.iloc[-1][COMPARED].tolist() != base.iloc[-1][COMPARED].tolist()
    if "alpha" in kw or "bu" in kw:
        col = "ec_alpha" if "alpha" in kw else "ec_bu"
        assert got[col].iloc[-1] == pytest.approx(kw.get("alpha", kw.get("bu")))


def test_base_line_is_the_api_with_those_options(base):
    want = toggles.compare(BLOCKS, ["cpack"], **BASE_KW)
    assert np.allclose(base[COMPARED].to_numpy(float), want[COMPARED].to_numpy(float), rtol=1e-9)
    assert base["ec_alpha"].iloc[-1] == 1.0 and base["ec_bu"].iloc[-1] == 0.0


def test_the_terminal_table_says_what_t_counts():
    rc, text = run("toggles", *SAMPLE, "--codecs", "fpc", "--dbi", "dc")
    header = text.splitlines()[0].split()
    assert rc == 0 and "metric" in header and header.index("metric") < header.index("t_ratio")
    assert "zeros_total" in text


def test_dask_takes_the_same_options():
    pytest.importorskip("distributed")
    flags = ["--codecs", "cpack", "--dbi", "ac", "--ec", "ec1", "--alpha", "2", "--bu", "0.8", "--idle", "low"]
    serial = table(*flags)
    on_dask = table(*flags, "--dask")
    assert np.allclose(on_dask[COMPARED].to_numpy(float), serial[COMPARED].to_numpy(float), rtol=1e-12)
    assert on_dask["ec_alpha"].iloc[-1] == 2.0 and on_dask["ec_bu"].iloc[-1] == 0.8


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--alpha", "0"], "--alpha"),
        (["--alpha", "nan"], "--alpha"),
        (["--alpha", "x"], "--alpha"),
        (["--bu", "1.5"], "--bu"),
        (["--bu", "-0.1"], "--bu"),
        (["--bu", "inf"], "--bu"),
        (["--ec", "helps", "--alpha", "2"], "--alpha"),
        (["--ec", "none", "--bu", "0.9"], "--bu"),
        (["--ec", "ec3"], "--ec"),
    ],
)
def test_bad_ec_options_name_the_flag(argv, flag, capsys):
    rc, err = cli_error(["toggles", "--sample-bytes", "4096", *argv], capsys)
    assert rc == 2 and flag in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("memcomp")


def test_help_lists_the_choices(capsys):
    with pytest.raises(SystemExit):
        run("toggles", "--help")
    text = capsys.readouterr().out
    assert "helps" in text and "--alpha" in text and "--bu" in text


# ---- the HTML report's energy section ------------------------------------------------------------


def test_report_energy_section_plots_and_names_pj(tmp_path, monkeypatch):
    """The report draws CR against pJ per block and against the zeros ratio, each axis naming what
    it holds, and its table's headers say what each column is (no bare t_ratio)."""
    from memcomp import plot

    drawn = []
    real = plot.ratio_toggle_scatter

    def spy(df, ax=None, **kw):
        ax = real(df, ax=ax, **kw)
        drawn.append((kw.get("y", "t_ratio"), ax.get_xlabel(), ax.get_ylabel().replace("\n", " "), df))
        return ax

    monkeypatch.setattr(plot, "ratio_toggle_scatter", spy)
    out = tmp_path / "r.html"
    rc, _ = run("report", *SAMPLE, "--codecs", "bdi,fpc", "-o", str(out))
    page = out.read_text()
    assert rc == 0
    assert [(y, xl, yl) for y, xl, yl, _ in drawn] == [
        ("energy_pj_per_block", "compression ratio (raw bits / bits sent)", "energy sent per block (pJ, gddr5)"),
        ("t_ratio", "compression ratio (raw bits / bits sent)", "zeros sent / zeros raw (data + DBI pins)"),
    ]
    tg = drawn[0][3]
    assert (tg["metric"] == "zeros_total").all() and (tg["energy_model"] == "gddr5").all()
    section = page[page.index("<h3>Compression against DRAM bus energy") :]
    assert "in pJ (gddr5, DBI dc" in section
    headers = re.findall(r"<th>(.*?)</th>", section)
    assert headers == [
        "codec",
        "Energy Control",
        "compression ratio (raw bits / bits sent)",
        "share of blocks sent compressed",
        "zeros sent / zeros raw (data + DBI pins)",
        "toggles sent / toggles raw (data-wire transitions)",
        "energy sent per block (pJ, gddr5)",
        "energy sent / energy raw (pJ / pJ, gddr5)",
    ]
    # the table's numbers are the rows' own: fpc's plain row, pJ per block to 4 decimals
    fpc = tg[(tg["codec"] == "fpc.paper") & (tg["ec"] == "none")].iloc[0]
    assert f"<td>{fpc['energy_pj_per_block']:.4f}</td>" in section and f"<td>{fpc['t_ratio']:.4f}</td>" in section
