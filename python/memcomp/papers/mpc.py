"""P3 (Jin, Jeong, Park, Ko, Kim, "Multi-Prediction Compression: An Efficient and Scalable Memory
Compression Framework for GP-GPU", IEEE CAL 2022) from your own data: 32 B blocks (§2.1, sectors),
ratio entropies of every byte pair (§2.3, Fig. 2), the predictors MPC extracts from them by a
minimum spanning tree (§3.1, Fig. 3), and raw CR under the paper's train/test protocol (§4, Fig. 5:
the datasets sorted by traffic entropy, three of every four trained on 80 % of their blocks and
tested on the other 20 %, the fourth unseen), next to BPC, FPC, SC2, BDI and C-Pack both as their
papers define them and as the authors' tool (CAL_22-MPC) computes them, which is what P3 printed.

The execution times and the synthesis (Fig. 6, §4's area and power) need a simulator: they carry
the paper's numbers and a note. The split of MPC's CR into integer and floating-point
applications (2.87 and 2.09) needs each dataset's type, which a dump does not say."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List

import numpy as np

from ._base import Context, Figure, PaperValue, summary_bars

if TYPE_CHECKING:
    import pandas

PAPER = "mpc"
BLOCK_BYTES = 32
SHOWN = 8  # Fig. 2: "REs of the first 8 bytes out of 32B blocks"
#: Fig. 5's codecs: the series name, the preset as its paper defines it, and the authors' tool's.
CODECS = (
    ("BPC", "bpc.isca16", "bpc.cal22"),
    ("FPC", "fpc.paper", "fpc.cal22"),
    ("SC2", "sc2.paper", "sc2.cal22"),
    ("BDI", "bdi.paper", "bdi.cal22"),
    ("C-Pack", "cpack.paper", "cpack.cal22"),
)
TOOL = " (CAL_22)"  # the authors' tool's preset of the same codec
ALL = "all"  # the dataset of a test set's totals


def fig2(ctx: Context) -> "pandas.DataFrame":
    """The ratio entropy RE(i, j) of the first 8 byte positions, per dataset (row i target,
    column j base)."""
    import pandas as pd

    from ..mpc import ratio_entropy

    rows = []
    for name, d in ctx.blocks(BLOCK_BYTES).items():
        m = ratio_entropy(d, threads=ctx.threads).matrix()
        rows += [
            {"dataset": name, "series": name, "quantity": f"re_{i}_{j}", "value": float(m[i, j]), "i": i, "j": j}
            for i in range(SHOWN)
            for j in range(SHOWN)
        ]
    return pd.DataFrame(rows)


def _protocol(ctx: Context):
    from ..mpc import protocol

    def make():
        datasets = {
            k: (v if isinstance(v, np.ndarray) else v.read_blocks(0, v.n_blocks))
            for k, v in ctx.blocks(BLOCK_BYTES).items()
        }
        presets = [p for _, paper, tool in CODECS for p in (paper, tool)]
        return protocol(datasets, codecs=presets, threads=ctx.threads)

    return ctx.cached((PAPER, "protocol"), make)


def fig3(ctx: Context) -> "pandas.DataFrame":
    """The predictors MPC extracts on the training blocks: per module (block class 2-6), each
    byte's base position (its parent in the minimum spanning tree of the ratio entropies; the
    root is its own) and power-of-2 shift."""
    import pandas as pd

    from ..mpc import GROUPS

    model, _ = _protocol(ctx)
    rows = []
    for mod in model.data["modules"]:
        series = f"{GROUPS[mod['class'] - 2]} (class {mod['class']})"
        for pos, (base, shift) in enumerate(zip(mod["base"], mod["shift"])):
            rows.append(
                {
                    "dataset": "training blocks",
                    "series": series,
                    "quantity": f"base_{pos}",
                    "value": float(base),
                    "pos": pos,
                }
            )
            rows.append(
                {
                    "dataset": "training blocks",
                    "series": series,
                    "quantity": f"shift_{pos}",
                    "value": float(shift),
                    "pos": pos,
                }
            )
    return pd.DataFrame(rows)


def fig5(ctx: Context) -> "pandas.DataFrame":
    """Raw CR on 32 B blocks under P3's protocol: per test dataset (``cr``, in its set) and, on
    the ``all`` rows, over the seen set, the unseen set and both (ratios of sums)."""
    import pandas as pd

    _, df = _protocol(ctx)
    series: Dict[str, str] = {"mpc": "MPC"}
    for name, paper, tool in CODECS:
        series[paper], series[tool] = name, name + TOOL
    df = df.assign(series=df["codec"].map(lambda c: series.get(c, c)))
    rows: List[dict] = [
        {"dataset": r.workload, "series": r.series, "quantity": "cr", "value": float(r.cr)}
        for r in df[df["workload"] != ALL].itertuples(index=False)
    ]
    totals = df[df["workload"] == ALL]
    for s, g in totals.groupby("series", sort=False):
        rows += [
            {"dataset": ALL, "series": s, "quantity": f"cr_{r.set}", "value": float(r.cr)}
            for r in g.itertuples(index=False)
        ]
        bits, blocks = int(g["bits"].sum()), int(g["blocks"].sum())
        rows.append(
            {"dataset": ALL, "series": s, "quantity": "cr_overall", "value": 256 * blocks / bits if bits else np.inf}
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------- drawing


def _draw_fig2(df: "pandas.DataFrame", fig) -> None:
    names = list(dict.fromkeys(df["dataset"]))
    cols = min(4, len(names))
    rows = -(-len(names) // cols)
    axes = fig.subplots(rows, cols, squeeze=False)
    top = float(df["value"].max()) or 1.0
    im = None
    for ax, name in zip(axes.ravel(), names):
        g = df[df["dataset"] == name]
        m = np.full((SHOWN, SHOWN), np.nan)
        m[g["i"].to_numpy(), g["j"].to_numpy()] = g["value"].to_numpy()
        im = ax.imshow(m, cmap="magma_r", vmin=0.0, vmax=top, interpolation="nearest")
        ax.set_title(name, fontsize=7)
        ax.set_xticks(range(SHOWN))
        ax.set_yticks(range(SHOWN))
        ax.tick_params(labelsize=5)
        ax.grid(False)
        ax.set_xlabel("base byte j", fontsize=6)
        ax.set_ylabel("target byte i", fontsize=6)
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    if im is not None:
        fig.colorbar(im, ax=axes.ravel().tolist(), label="ratio entropy (bits; low: correlated)", shrink=0.8)


def _draw_fig3(df: "pandas.DataFrame", fig) -> None:
    ax = fig.gca()
    base = df[df["quantity"].str.startswith("base_")]
    shift = df[df["quantity"].str.startswith("shift_")].set_index(["series", "pos"])["value"]
    modules = list(dict.fromkeys(base["series"]))
    m = np.array([base[base["series"] == s].sort_values("pos")["value"].to_numpy() for s in modules])
    ax.imshow(m, cmap="cividis", aspect="auto", interpolation="nearest", vmin=0, vmax=m.shape[1] - 1)
    for (k, s), pos in ((ks, p) for ks in enumerate(modules) for p in range(m.shape[1])):
        sh = int(shift[(s, pos)])
        label = f"{int(m[k, pos])}" + (f"\n{sh:+d}" if sh else "")
        ax.text(pos, k, label, ha="center", va="center", fontsize=4.5, color="w" if m[k, pos] < m.shape[1] / 2 else "k")
    ax.set_yticks(range(len(modules)), modules)
    ax.set_xticks(range(0, m.shape[1], 4))
    ax.grid(False)
    ax.set_xlabel("byte position in the 32 B block (cell: its base position; second line: shift, where not 0)")
    ax.set_ylabel("module (block group)")


_TOOL_SRC = "§4, Fig. 5 (the authors' implementations, i.e. their tool)"

FIGURES = (
    Figure(
        PAPER,
        "fig2",
        "Ratio entropy of the first 8 bytes of 32 B blocks, per dataset",
        fig2,
        _draw_fig2,
        note="P3 groups blocks by data type; memcomp draws each dataset",
        height=3.6,
    ),
    Figure(
        PAPER,
        "fig3",
        "The predictors extracted by the MST: each byte's base position and shift, per module",
        fig3,
        _draw_fig3,
        note="trained on the protocol's training blocks (Fig. 5)",
        height=2.2,
    ),
    Figure(
        PAPER,
        "fig5",
        "Raw CR on 32 B blocks under P3's train/test protocol",
        fig5,
        summary_bars(
            {"cr_seen": "seen test set", "cr_unseen": "unseen test set", "cr_overall": "overall"},
            "codec",
            "raw CR, 32 B blocks",
            dataset=ALL,
        ),
        tuple(
            PaperValue(s + TOOL, "cr_overall", v, f"{_TOOL_SRC}: '{q}'", ALL)
            for s, v, q in (
                ("BPC", 0.79, "BPC shows the lowsest compression ratio (0.79)"),
                ("FPC", 1.50, "a low overall compression ratio (1.50)"),
                ("SC2", 1.56, "a moderate compression ratio (1.56)"),
                ("BDI", 1.67, "compression ratio = 1.67"),
                ("C-Pack", 1.71, "compression ratio = 1.71"),
            )
        )
        + tuple(
            PaperValue(
                "MPC",
                q,
                v,
                "§4, Fig. 5: 'MPC achieves superior compression ratios of 2.31, 2.06, "
                "and 2.26 for the seen test set, the unseen test set, and overall'",
                ALL,
            )
            for q, v in (("cr_seen", 2.31), ("cr_unseen", 2.06), ("cr_overall", 2.26))
        ),
        note="the unseen set needs 4 or more datasets; MPC's integer / floating-point split (2.87 / 2.09) needs "
        "each dataset's type",
    ),
    Figure(
        PAPER,
        "fig6",
        "Execution time with MPC and C-Pack at 1/8 of the DRAM bandwidth",
        note="needs a GPU simulator (GPGPU-Sim): a dump holds no execution time",
        paper_values=(
            PaperValue("MPC", "speedup_io_bound", 1.69, "§4, Fig. 6: '69.0% ... speed-ups for I/O-'", ""),
            PaperValue("MPC", "speedup_compute_bound", 1.041, "§4, Fig. 6: 'and 4.1% ... for compute-bound'", ""),
            PaperValue("C-Pack", "speedup_io_bound", 1.545, "§4, Fig. 6: '54.5% speed-up than no-compression'", ""),
        ),
    ),
    Figure(
        PAPER,
        "synthesis",
        "Area and power of MPC's compressor and decompressor",
        note="RTL synthesis (UMC 28 nm): not in a dump",
    ),
)
