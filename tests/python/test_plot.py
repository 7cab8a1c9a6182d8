"""memcomp.plot renders every figure from the analyses' own tables (Agg backend) and draws what the
tables say: points at the table's values, bars of its heights, cells of its shares, labels."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import memcomp  # noqa: E402
from blockgen import realistic  # noqa: E402
from memcomp import plot, toggles  # noqa: E402


@pytest.fixture(scope="module")
def blocks():
    return realistic(128, 1 << 17)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def offsets(ax):
    return np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())])


def test_ratio_toggle_scatter_per_codec_and_ec(blocks):
    df = toggles.compare(blocks, ["bdi", "fpc", "fpc.mc"], ec="ec2", dbi="dc")
    ax = plot.ratio_toggle_scatter(df)
    pts = offsets(ax)
    want = df[["cr", "t_ratio"]].to_numpy()
    assert len(pts) == len(df) and all(np.isclose(pts, w).all(axis=1).any() for w in want)
    # DRAM with DBI DC: EC's metric is the zeros sent (issue 33 item 1), not toggles
    assert (df["metric"] == "zeros_total").all()
    assert ax.get_xlabel() == "compression ratio (raw bits / bits sent)"
    assert ax.get_ylabel().replace("\n", " ") == "zeros sent / zeros raw (data + DBI pins)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:3] == ["bdi.paper", "fpc.paper", "fpc.mc"] and "with ec2" in labels
    assert len([c for c in ax.get_children() if isinstance(c, matplotlib.text.Annotation)]) == 3  # one arrow each
    assert any(np.allclose(line.get_ydata(), 1.0) for line in ax.get_lines())


def test_ratio_toggle_scatter_per_block(blocks):
    df = toggles.scatter(blocks[:500], ["bdi", "fpc"])
    ax = plot.ratio_toggle_scatter(df, max_points=100)
    assert [len(c.get_offsets()) for c in ax.collections] == [100, 100]
    lo, hi = ax.get_xlim()
    finite = df["cr"][np.isfinite(df["cr"])]
    assert lo <= finite.min() or hi >= finite.max()


def legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_cr_bars_with_bounds(blocks):
    """Bars of each row's raw CR (left) and CR at MAG (right), the codecs on x, and a dashed line
    at each chosen symbol length's SL / H. That line is the order-0 entropy of the dump, which
    per-block codecs beat (BPC here), so it is not labelled a bound (issue 33 item 11)."""
    df = memcomp.compare(blocks, ["bdi", "fpc", "bpc", "e2mc"])
    bound = memcomp.entropy.table(blocks, [8, 16, 32])
    fig, ax = plt.subplots()
    assert plot.cr_bars(df, ax=ax, bound=bound, symbol_bits=(8, 16)) is ax
    n = len(df)
    raw, at_mag = ax.patches[:n], ax.patches[n:]
    assert [p.get_height() for p in raw] == df["cr"].tolist()
    assert [p.get_height() for p in at_mag] == df["cr_mag"].tolist()
    centres = lambda bars: [p.get_x() + p.get_width() / 2 for p in bars]  # noqa: E731
    assert np.allclose(centres(raw), np.arange(n) - 0.2) and np.allclose(centres(at_mag), np.arange(n) + 0.2)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(df["codec"])
    assert (
        ax.get_xlabel() == "codec"
        and ax.get_ylabel().replace("\n", " ") == "compression ratio (raw bits / charged bits)"
    )
    dashed = [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert dashed == bound.loc[bound.symbol_bits.isin([8, 16]), "cr_bound"].tolist()
    texts = [t.get_text() for t in ax.texts]
    # every bar's value on it, raw CRs then CRs at MAG, then the lines' symbol lengths
    assert texts == [f"{v:.2f}" for v in [*df["cr"], *df["cr_mag"]]] + ["SL 8", "SL 16"]
    name = "order-0 entropy of the dump, SL / H (not a per-block bound)"
    assert sorted(legend(ax)) == sorted([name, "raw CR", "CR at MAG 32 B"])
    assert ax.get_yscale() == "linear" and ax.get_ylim()[1] >= dashed[-1]
    assert not any("bound SL" in t.get_text() or "H bound" in t.get_text() for t in ax.texts)
    # what the line is not: BPC, a per-block codec, beats SL 16's on the bundled sample (1.67 > 1.54)
    sample = memcomp.as_blocks(memcomp.workloads.sample_dump(), 128)
    bpc = memcomp.compare(sample, ["bpc"])["cr"].item()
    assert bpc > memcomp.entropy.table(sample, [16])["cr_bound"].item()
    ax = plot.cr_bars(df, mag=False)
    assert [p.get_height() for p in ax.patches] == df["cr"].tolist() and legend(ax) == ["raw CR"]
    assert np.allclose(centres(ax.patches), np.arange(n))


def test_cr_bars_log_axis_where_crs_span_decades():
    """A zero page's CR (64 at 128 B under BDI) beside dense data's (~1): a linear axis would flatten
    every other bar, so the axis turns log (None) unless told; the bound lines stay inside it."""
    x = realistic(128, 1 << 15)
    x[:64] = 0
    df = memcomp.compare(x[:64], ["bdi", "fpc"], oracle=False)
    df = __import__("pandas").concat([df, memcomp.compare(x[64:], ["bpc"], oracle=False)], ignore_index=True)
    assert df["cr"].max() > 20 * df["cr"].min()
    assert plot.cr_bars(df).get_yscale() == "log"
    assert plot.cr_bars(df, log=False).get_yscale() == "linear"
    flat = memcomp.compare(x[64:], ["bdi", "fpc"], oracle=False)
    assert plot.cr_bars(flat).get_yscale() == "linear" and plot.cr_bars(flat, log=True).get_yscale() == "log"
    ax = plot.cr_bars(flat, values=False, bound=memcomp.entropy.table(x, [32]))
    assert [t.get_text() for t in ax.texts] == ["SL 32"]
    assert ax.get_ylim()[1] > memcomp.entropy.table(x, [32])["cr_bound"].item()


def test_every_figure_draws_in_the_paper_style(blocks):
    """Each function draws under paper_style by default: a new figure is a column wide (3.5 in; 7 in
    with width="double") with 8 pt labels; paper=False keeps the caller's settings; inside a
    paper_style block a figure takes that block's width."""
    df = memcomp.compare(blocks[:256], ["bdi", "fpc"])
    with matplotlib.rc_context({"font.size": 13, "figure.figsize": (9.0, 5.0)}):
        ax = plot.cr_bars(df)
        assert ax.figure.get_figwidth() == 3.5 and ax.xaxis.label.get_fontsize() == 8
        assert plot.cr_bars(df, width="double").figure.get_figwidth() == 7.0
        ax = plot.cr_bars(df, paper=False)
        assert ax.figure.get_figwidth() == 9.0 and ax.xaxis.label.get_fontsize() == 13
        with plot.paper_style("double"):
            assert plot.cr_bars(df).figure.get_figwidth() == 7.0
    with pytest.raises(TypeError, match="paper must be True or False"):
        plot.cr_bars(df, paper="yes")
    with pytest.raises(ValueError, match="width must be one of"):
        plot.cr_bars(df, width="wide")
    import inspect

    for name, fn in plot.KINDS.items():
        params = inspect.signature(fn).parameters
        assert params["paper"].default is True and params["width"].default is None, name


def test_save_embeds_truetype_fonts(tmp_path):
    """plot.save writes a PDF whose fonts are TrueType (Type 42: /FontFile2), not Type 3, even
    where matplotlib's own setting is Type 3."""
    ax = plot.cr_bars(memcomp.compare(realistic(128, 1 << 13), ["bdi"], oracle=False))
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        plot.save(ax, tmp_path / "a.pdf")
        ax.figure.savefig(tmp_path / "b.pdf")
    a, b = (tmp_path / "a.pdf").read_bytes(), (tmp_path / "b.pdf").read_bytes()
    assert b"/FontFile2" in a and b"/Type3" not in a
    assert b"/Type3" in b  # the control: matplotlib's setting alone gives Type 3


def test_cr_bars_marks_a_skipped_preset():
    x = realistic(128, 1 << 15)
    with pytest.warns(memcomp.report.SkippedCodecWarning):
        df = memcomp.compare(x, ["bdi", "defaults"], oracle=False)
    ax = plot.cr_bars(df)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[-1] == "mpc.cal22_rtl (skipped)" and ticks[:-1] == df["codec"].tolist()[:-1]
    assert np.isnan(ax.patches[len(df) - 1].get_height())


def test_above_mag_heatmap():
    _, above = memcomp.mag_study(
        memcomp.workloads.sample_dump(1 << 17), ["bdi", "fpc"], block_sizes=(128,), mags=(32, 64)
    )
    with pytest.raises(ValueError, match="one MAG"):
        plot.above_mag_heatmap(above)
    sel = above[above.mag == 32]
    ax = plot.above_mag_heatmap(sel)
    img = ax.images[0].get_array()
    assert img.shape == (2, 33)  # rows: codecs; columns: P4's bins 0 .. 31 and raw
    for r, codec in enumerate(["bdi.paper", "fpc.paper"]):
        want = sel[sel.codec == codec].groupby("paper_bin")["share"].sum().reindex(range(33), fill_value=0.0)
        assert np.allclose(img[r], want.to_numpy())
        assert img[r].sum() == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["bdi.paper", "fpc.paper"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "4", "8", "12", "16", "20", "24", "28", "raw"]
    assert [t for t in ax.get_xticks()] == [0, 4, 8, 12, 16, 20, 24, 28, 32]
    assert ax.get_xlabel() == "bytes above a multiple of MAG (32 B)" and ax.get_ylabel().replace("\n", " ") == "codec"
    assert ax.figure.axes[-1].get_ylabel() == "share of blocks"  # the colour bar
    by_set = sel.assign(dataset=np.where(sel.codec == "bdi.paper", "a", "b"))
    ax = plot.above_mag_heatmap(by_set, row="dataset")
    assert ax.get_ylabel().replace("\n", " ") == "dataset" and [t.get_text() for t in ax.get_yticklabels()] == [
        "a",
        "b",
    ]


def test_ratio_entropy_heatmap_and_tree(blocks):
    s = memcomp.sectorize(blocks, 32)
    re = memcomp.mpc.ratio_entropy(s)
    module = memcomp.mpc.train(s).model["modules"][3]
    ax = plot.ratio_entropy_heatmap(re, module=module)
    assert np.array_equal(ax.images[0].get_array(), re.matrix())
    edges, root = ax.collections[0].get_offsets(), ax.collections[1].get_offsets()
    assert len(edges) == 31 and tuple(root[0]) == (module["root"], module["root"])
    # x is the base j (a column), y the target i (a row): the edge of target j sits at (base[j], j)
    assert {(int(x), int(y)) for x, y in edges} == {(module["base"][j], j) for j in range(32) if j != module["root"]}
    assert ax.get_xlabel() == "base byte j" and ax.get_ylabel().replace("\n", " ") == "target byte i"
    assert legend(ax) == ["MST edge", "root"]
    assert ax.figure.axes[-1].get_ylabel() == "ratio entropy (bits)"
    with pytest.raises(ValueError, match="square"):
        plot.ratio_entropy_heatmap(np.zeros((3, 4)))


def test_ratio_entropy_heatmap_draws_rows_as_targets():
    """An asymmetric matrix: cell (row i, column j) is RE(target i, base j), drawn at y = i, x = j."""
    m = np.arange(16, dtype=float).reshape(4, 4)
    ax = plot.ratio_entropy_heatmap(m)
    img = ax.images[0]
    assert np.array_equal(img.get_array(), m) and img.origin == "upper"
    assert tuple(img.get_extent()) == (-0.5, 3.5, 3.5, -0.5)  # columns along x, rows down y
    re2 = memcomp.mpc.ratio_entropy(memcomp.sectorize(realistic(128, 1 << 14), 32), elem_bytes=2)
    ax = plot.ratio_entropy_heatmap(re2)
    assert ax.images[0].get_array().shape == (16, 16)
    assert ax.get_xlabel() == "base element (2 B) j" and ax.get_ylabel().replace("\n", " ") == "target element (2 B) i"


def test_sampling_study_lines_are_the_table(blocks):
    ss = memcomp.e2mc.sampling_study(blocks[:4000], mfv=(64, 256, 1024), windows=(0.05, 0.2))
    ax = plot.sampling_study(ss)
    lines = ax.get_lines()
    assert legend(ax) == [
        "MFV entries: raw CR",
        "MFV entries: CR at MAG",
        "sampled blocks: raw CR",
        "sampled blocks: CR at MAG",
    ]
    mfv, online = ss[ss.study == "mfv"], ss[ss.study == "online"]
    want = [
        (mfv.mfv, mfv.cr_rel),
        (mfv.mfv, mfv.cr_mag_rel),
        (online.window, online.cr_rel),
        (online.window, online.cr_mag_rel),
    ]
    for line, (x, y) in zip(lines, want):
        assert list(line.get_xdata()) == x.tolist() and list(line.get_ydata()) == y.tolist()
    assert [line.get_linestyle() for line in lines] == ["-", "--", "-", "--"]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "MFV table entries / blocks sampled"
    assert ax.get_ylabel().replace("\n", " ") == "CR relative to each line's first point"
    ax = plot.sampling_study(ss, relative=False)
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [
        mfv.cr.tolist(),
        mfv.cr_mag.tolist(),
        online.cr.tolist(),
        online.cr_mag.tolist(),
    ]
    assert ax.get_ylabel().replace("\n", " ") == "compression ratio (raw bits / charged bits)"


@pytest.mark.filterwarnings("ignore::memcomp.slc.MetricWarning")  # the bundled mix read as float32: MRE on tiny values
def test_sampling_study_and_slc_tradeoff(blocks):
    ss = memcomp.e2mc.sampling_study(blocks, mfv=(64, 256), windows=(0.1, 0.5))
    sw = memcomp.slc.sweep(blocks[:800], thresholds=(0, 8, 16), mags=(32, 64), variants=("simp", "opt"))
    ax = plot.slc_tradeoff(sw, y="nrmse")
    assert len(ax.get_lines()) == 4
    line = ax.get_lines()[0]
    g = sw[(sw.variant == "simp") & (sw.mag == 32)].sort_values("threshold_bytes")
    assert np.allclose(line.get_xdata(), g["bandwidth_saved"]) and np.allclose(line.get_ydata(), g["nrmse"])
    with pytest.raises(ValueError, match="columns"):
        plot.slc_tradeoff(ss)


# ---- memcomp plot, density, jitter and facets (issue 37 part 2) -----------------------------------


def _scatter_table():
    from memcomp import toggles

    b = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 18), 64)
    return toggles.scatter(b, ["fpc", "bdi"])


def test_density_draws_every_block_of_one_codec():
    df = _scatter_table()
    fpc = df[df["codec"] == "fpc.paper"]
    fig, ax = plt.subplots()
    try:
        plot.ratio_toggle_scatter(df, ax, density=True, codec="fpc.paper")
        (hb,) = ax.collections
        assert hb.get_array().sum() == len(fpc)  # every block counted once, none sampled away
        assert ax.get_xscale() == "log" and "blocks per cell" in fig.axes[1].get_ylabel()
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="density draws one codec"):
        plot.ratio_toggle_scatter(df, density=True)
    with pytest.raises(ValueError, match="not in the table"):
        plot.ratio_toggle_scatter(df, codec="lz4")
    with pytest.raises(ValueError, match="jitter"):
        plot.ratio_toggle_scatter(df, jitter=2)
    plt.close("all")


def test_jitter_moves_points_by_at_most_its_share_of_the_span():
    df = _scatter_table()
    g = df[df["codec"] == "bdi.paper"]
    fig, ax = plt.subplots()
    try:
        plot.ratio_toggle_scatter(df, ax, codec="bdi.paper", jitter=0.01)
        pts = ax.collections[0].get_offsets()
        x, y = g["cr"].to_numpy(float), g["t_ratio"].to_numpy(float)
        ok = np.isfinite(x) & np.isfinite(y)
        dx, dy = np.abs(pts[:, 0] - x[ok]), np.abs(pts[:, 1] - y[ok])
        assert dx.max() <= 0.01 * np.ptp(x[ok]) + 1e-12 and dy.max() <= 0.01 * np.ptp(y[ok]) + 1e-12
        assert dx.max() > 0  # moved
    finally:
        plt.close(fig)


def test_hue_and_style_colour_and_mark_by_column():
    """hue: a colour per value of a column (PALETTE order), style: a marker per value of another,
    one cloud per pair, as seaborn does; a per-codec table takes neither."""
    import pandas as pd
    from matplotlib.colors import to_rgba

    a, b = _scatter_table(), _scatter_table().iloc[::2]
    df = pd.concat([a.assign(dataset="a"), b.assign(dataset="b")], ignore_index=True)
    ax = plot.ratio_toggle_scatter(df, hue="dataset", style="codec", alpha=1.0)
    assert legend(ax) == ["a, fpc.paper", "a, bdi.paper", "b, fpc.paper", "b, bdi.paper"]
    colours = [tuple(c.get_facecolor()[0]) for c in ax.collections]
    assert colours == [to_rgba(plot.PALETTE[i]) for i in (0, 0, 1, 1)]
    shapes = [c.get_paths()[0].vertices.round(6).tobytes() for c in ax.collections]
    assert shapes[0] == shapes[2] != shapes[1] == shapes[3]  # a marker per codec
    sizes = [len(c.get_offsets()) for c in ax.collections]
    want = [
        len(d[(d.codec == c) & np.isfinite(d.cr) & np.isfinite(d.t_ratio)])
        for d in (a, b)
        for c in ("fpc.paper", "bdi.paper")
    ]
    assert sizes == want
    ax = plot.ratio_toggle_scatter(a, style="codec")  # the hue's own column: a colour and a marker per codec
    assert legend(ax) == ["fpc.paper", "bdi.paper"]
    shapes = [c.get_paths()[0].vertices.round(6).tobytes() for c in ax.collections]
    assert shapes[0] != shapes[1]
    with pytest.raises(ValueError, match="missing"):
        plot.ratio_toggle_scatter(a, hue="dataset")
    per_codec = toggles.compare(memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 15), 64), ["bdi"])
    with pytest.raises(ValueError, match="per-block tables"):
        plot.ratio_toggle_scatter(per_codec, style="codec")


def test_facet_draws_a_panel_per_value():
    df = _scatter_table()
    fig = plot.facet(df, plot.ratio_toggle_scatter, "codec", density=True)
    try:
        panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
        assert [ax.get_title() for ax in panels] == ["codec = fpc.paper", "codec = bdi.paper"]
        counts = [ax.collections[0].get_array().sum() for ax in panels]
        assert counts == [int((df["codec"] == c).sum()) for c in ("fpc.paper", "bdi.paper")]
    finally:
        plt.close(fig)


def test_plot_command_draws_a_saved_table(tmp_path):
    from memcomp.cli import main

    t = tmp_path / "cmp.csv"
    assert main(["compare", "--codecs", "bdi,fpc", "--sample-bytes", "65536", "--csv", "-o", str(t)]) == 0
    for fig in ("a.pdf", "a.png", "a.svg"):
        assert main(["plot", "cr_bars", str(t), "-o", str(tmp_path / fig)], out=io.StringIO()) == 0
        assert (tmp_path / fig).stat().st_size > 1000
    assert b"/Type3" not in (tmp_path / "a.pdf").read_bytes()  # fonts embedded as TrueType
    sc = tmp_path / "sc.parquet"
    _scatter_table().to_parquet(sc)
    args = ["plot", "ratio_toggle_scatter", str(sc), "-o", str(tmp_path / "d.png"), "--col", "codec"]
    assert main([*args, "--set", "density=true"], out=io.StringIO()) == 0
    assert (
        main(["plot", "ratio_toggle_scatter", str(sc), "-o", str(tmp_path / "e.png"), "--set", "y=toggles_ratio"]) == 0
    )
    # errors name what to change, exit 2
    assert main(["plot", "cr_bars", str(t), "-o", str(tmp_path / "x.txt")]) == 2
    assert main(["plot", "cr_bars", str(t), "-o", str(tmp_path / "x.png"), "--set", "colour=red"]) == 2
    assert main(["plot", "cr_bars", str(tmp_path / "x.json"), "-o", str(tmp_path / "x.png")]) == 2
    assert main([*args[:5], "--col", "dataset"]) == 2


def test_keyword_values_parse_as_types():
    from memcomp.cli import _keyword_value

    assert _keyword_value("true") is True and _keyword_value("False") is False and _keyword_value("none") is None
    assert _keyword_value("3") == 3 and _keyword_value("0.5") == 0.5 and _keyword_value("t_ratio") == "t_ratio"
