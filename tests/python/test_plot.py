"""memcomp.plot renders every figure from the analyses' own tables (Agg backend) and draws what the
tables say: points at the table's values, bars of its heights, cells of its shares, labels."""

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
    assert ax.get_xlabel() == "compression ratio" and "toggle ratio" in ax.get_ylabel()
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


def test_cr_bars_with_bounds(blocks):
    df = memcomp.compare(blocks, ["bdi", "fpc", "e2mc"])
    bound = memcomp.entropy.table(blocks, [8, 16])
    fig, ax = plt.subplots()
    assert plot.cr_bars(df, ax=ax, bound=bound) is ax
    heights = [p.get_height() for p in ax.patches]
    assert np.allclose(heights, list(df["cr"]) + list(df["cr_mag"]))
    assert [t.get_text() for t in ax.get_xticklabels()] == list(df["codec"])
    dashed = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")
    assert np.allclose(dashed, sorted(bound["cr_bound"]))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["raw CR", "CR at MAG 32 B"]


def test_above_mag_heatmap():
    _, above = memcomp.mag_study(
        memcomp.workloads.sample_dump(1 << 17), ["bdi", "fpc"], block_sizes=(128,), mags=(32, 64)
    )
    with pytest.raises(ValueError, match="one MAG"):
        plot.above_mag_heatmap(above)
    sel = above[above.mag == 32]
    ax = plot.above_mag_heatmap(sel)
    img = ax.images[0].get_array()
    assert img.shape == (2, 33)
    for r, codec in enumerate(["bdi.paper", "fpc.paper"]):
        want = sel[sel.codec == codec].groupby("paper_bin")["share"].sum()
        assert np.allclose([img[r, b] for b in want.index], want.to_numpy())
        assert img[r].sum() == pytest.approx(1.0)
    assert ax.get_xticklabels()[-1].get_text() == "raw" and "MAG (32 B)" in ax.get_xlabel()


def test_ratio_entropy_heatmap_and_tree(blocks):
    s = memcomp.sectorize(blocks, 32)
    re = memcomp.mpc.ratio_entropy(s)
    module = memcomp.mpc.train(s).model["modules"][3]
    ax = plot.ratio_entropy_heatmap(re, module=module)
    assert np.allclose(ax.images[0].get_array(), re.matrix())
    edges, root = ax.collections[0].get_offsets(), ax.collections[1].get_offsets()
    assert len(edges) == 31 and tuple(root[0]) == (module["root"], module["root"])
    assert {(int(x), int(y)) for x, y in edges} == {(module["base"][j], j) for j in range(32) if j != module["root"]}
    with pytest.raises(ValueError, match="square"):
        plot.ratio_entropy_heatmap(np.zeros((3, 4)))


def test_sampling_study_and_slc_tradeoff(blocks):
    ss = memcomp.e2mc.sampling_study(blocks, mfv=(64, 256), windows=(0.1, 0.5))
    ax = plot.sampling_study(ss)
    assert len(ax.get_lines()) == 4 and ax.get_xscale() == "log"
    assert np.allclose(ax.get_lines()[0].get_ydata(), ss[ss.study == "mfv"]["cr_rel"])
    sw = memcomp.slc.sweep(blocks[:800], thresholds=(0, 8, 16), mags=(32, 64), variants=("simp", "opt"))
    ax = plot.slc_tradeoff(sw, y="nrmse")
    assert len(ax.get_lines()) == 4
    line = ax.get_lines()[0]
    g = sw[(sw.variant == "simp") & (sw.mag == 32)].sort_values("threshold_bytes")
    assert np.allclose(line.get_xdata(), g["bandwidth_saved"]) and np.allclose(line.get_ydata(), g["nrmse"])
    with pytest.raises(ValueError, match="columns"):
        plot.slc_tradeoff(ss)
