"""P4 (Lal, Lucas, Juurlink, "SLC: Memory Access Granularity Aware Selective Lossy Compression for
GPUs", DATE'19) from your own data: 128 B blocks and a MAG of 32 B (§II-B), the lossless baseline
E2MC with 16-bit symbols and 4 parallel decoding ways fitted online (§IV-A: on the first 10 % of
the blocks, SPEC 1.10, where the paper samples 20M instructions), a lossy threshold of 16 B (§V),
geometric means over the datasets. Every block may be approximated (the paper approximates the
regions a programmer marks, Table III); the errors are those of the blocks' values read as
float32, not of an application's output, which a dump does not hold.

The speedups, energy and the hardware's area and power (Figs. 7a, 8's energy, 9a, Table I) need
a GPU simulator: those figures carry the paper's numbers and a note, no memcomp value."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, List

import numpy as np

from ._base import GEOMEAN, Context, Figure, PaperValue, dataset_bars, geomean, summary_bars, with_geomean

if TYPE_CHECKING:
    import pandas

PAPER = "slc"
BLOCK_BYTES = 128
MAG = 32
THRESHOLD = 16  # §V: "a lossy threshold of 16B"
MAGS = (16, 32, 64)  # §V-C
VARIANTS = {"simp": "TSLC-SIMP", "pred": "TSLC-PRED", "opt": "TSLC-OPT"}  # §V
SIM = "needs a GPU simulator (gpgpu-sim, GPUSimPow): a dump holds no execution time or power"


def _fig1_codecs() -> dict:
    from ..codecs import get_codec

    return {
        "BDI": get_codec("bdi.paper"),
        "FPC": get_codec("fpc.paper"),
        "C-PACK": get_codec("cpack.paper"),
        "E2MC": get_codec("e2mc", symbol_bits=16, pdw=4, mag=MAG),
    }


def _mag_study(ctx: Context):
    """mag_study of every dataset at 128 B blocks: the CRs per codec and MAG 32, and E2MC's
    distribution of bytes above a MAG multiple (P4 Fig. 2's bins)."""
    from ..report import mag_study

    def make():
        out = []
        codecs = _fig1_codecs()
        for name, d in ctx.blocks(BLOCK_BYTES).items():
            table, above = mag_study(d, list(codecs.values()), mags=(MAG,), block_sizes=(BLOCK_BYTES,))
            out.append((name, table.assign(series=list(codecs)), above))
        return out

    return ctx.cached((PAPER, "mag_study"), make)


def fig1(ctx: Context) -> "pandas.DataFrame":
    """Raw CR and CR at MAG 32 B per codec; on the geomean row also P4's loss, 1 - GM(CR at
    MAG) / GM(raw CR)."""
    import pandas as pd

    rows = [
        {"dataset": name, "series": r.series, "quantity": q, "value": float(getattr(r, q))}
        for name, table, _ in _mag_study(ctx)
        for r in table.itertuples(index=False)
        for q in ("cr", "cr_mag")
    ]
    df = with_geomean(pd.DataFrame(rows))
    gm = df[df["dataset"] == GEOMEAN].pivot(index="series", columns="quantity", values="value")
    loss = [
        {"dataset": GEOMEAN, "series": s, "quantity": "gm_loss", "value": 1.0 - gm.loc[s, "cr_mag"] / gm.loc[s, "cr"]}
        for s in dict.fromkeys(df["series"])
    ]
    return pd.concat([df, pd.DataFrame(loss)], ignore_index=True)


def fig2(ctx: Context) -> "pandas.DataFrame":
    """Share of E2MC's blocks per bytes above a multiple of MAG (0: a multiple, or under one burst;
    32: stored uncompressed), per dataset."""
    import pandas as pd

    rows = []
    for name, _, above in _mag_study(ctx):
        a = above[above["codec"] == above["codec"].iloc[-1]]  # E2MC's rows (the last codec)
        share = a.groupby("paper_bin")["share"].sum().reindex(range(MAG + 1), fill_value=0.0)
        rows += [
            {"dataset": name, "series": "E2MC", "quantity": f"share_{k}B_above", "value": float(v), "bytes_above": k}
            for k, v in share.items()
        ]
    return pd.DataFrame(rows)


def _sweep(ctx: Context, key: str, **kw: Any) -> "pandas.DataFrame":
    import pandas as pd

    from ..slc import MetricWarning, sweep

    def make():
        # the errors reported are mre_floored's: P4's plain MRE, which sweep also computes, blows up on
        # integer data read as float32 (its MetricWarning says so), and this table does not show it
        with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", MetricWarning)
            parts = [
                sweep(d, training="online", pdw=4, symbol_bits=16, threads=ctx.threads, **kw).assign(dataset=name)
                for name, d in ctx.blocks(BLOCK_BYTES).items()
            ]
        return pd.concat(parts, ignore_index=True)

    return ctx.cached((PAPER, key), make)


def _slc_rows(s: "pandas.DataFrame", series_of) -> "pandas.DataFrame":
    """bandwidth_ratio (SLC's bytes at MAG / E2MC's), bandwidth_saved and the error
    (mre_floored: mean |a - o| / max(|o|, floor) over the float32 values) per dataset and series,
    with geometric means: of the ratio (so saved = 1 - GM ratio, as P4 normalises to E2MC) and of
    the error."""
    import pandas as pd

    rows: List[dict] = []
    for r in s.itertuples(index=False):
        series = series_of(r)
        for q, v in (
            ("bandwidth_ratio", 1.0 - r.bandwidth_saved),
            ("bandwidth_saved", r.bandwidth_saved),
            ("mre_floored", r.mre_floored),
        ):
            rows.append({"dataset": r.dataset, "series": series, "quantity": q, "value": float(v)})
    df = pd.DataFrame(rows)
    per = df[df["quantity"] != "bandwidth_saved"]
    out = with_geomean(per)
    saved = [
        {"dataset": GEOMEAN, "series": s, "quantity": "bandwidth_saved", "value": 1.0 - geomean(g["value"])}
        for s, g in per[per["quantity"] == "bandwidth_ratio"].groupby("series", sort=False)
    ]
    return pd.concat([out, df[df["quantity"] == "bandwidth_saved"], pd.DataFrame(saved)], ignore_index=True)


def fig8(ctx: Context) -> "pandas.DataFrame":
    """Bandwidth saved against E2MC per TSLC variant (threshold 16 B, MAG 32 B), and each
    variant's error on the blocks' float32 values (Fig. 7b's error beside it)."""
    s = _sweep(ctx, "variants", thresholds=(THRESHOLD,), mags=(MAG,), variants=tuple(VARIANTS))
    return _slc_rows(s, lambda r: VARIANTS[r.variant])


def fig9(ctx: Context) -> "pandas.DataFrame":
    """TSLC-OPT with the threshold at half the MAG, MAG 16, 32 and 64 B (§V-C)."""
    s = _sweep(ctx, "mags", thresholds="half", mags=MAGS, variants=("opt",))
    return _slc_rows(s, lambda r: f"MAG {r.mag} B")


def sec5c(ctx: Context) -> "pandas.DataFrame":
    """E2MC's raw CR and CR at MAG 16, 32 and 64 B (its format at each MAG), the baseline of §V-C."""
    import pandas as pd

    s = _sweep(ctx, "mags", thresholds="half", mags=MAGS, variants=("opt",))
    rows = [
        {"dataset": r.dataset, "series": f"MAG {r.mag} B", "quantity": q, "value": float(v)}
        for r in s.itertuples(index=False)
        for q, v in (("cr_e2mc", r.cr_e2mc), ("cr_mag_e2mc", r.cr_mag_e2mc))
    ]
    return with_geomean(pd.DataFrame(rows))


# ---------------------------------------------------------------------------------------- drawing


def _draw_fig2(df: "pandas.DataFrame", fig) -> None:
    from ..plot import above_mag_heatmap

    d = df.assign(paper_bin=df["bytes_above"], share=df["value"], mag=MAG)
    ax = above_mag_heatmap(d, fig.gca(), row="dataset")
    ax.grid(False)
    ax.set_xlabel(f"bytes above a multiple of MAG {MAG} B (0: a multiple or under one burst; raw: uncompressed)")


_GM = "geometric mean over the paper's benchmarks"

FIGURES = (
    Figure(
        PAPER,
        "fig1",
        f"Raw CR and CR at MAG {MAG} B of BDI, FPC, C-PACK and E2MC",
        fig1,
        summary_bars({"cr": "raw CR", "cr_mag": f"CR at MAG {MAG} B"}, "codec", "CR, geometric mean over the datasets"),
        tuple(
            PaperValue(
                s,
                "gm_loss",
                v,
                "§I, Fig. 1: 'The geometric mean (GM) of the effective compression "
                "ratio of BDI, FPC, C-PACK and E2MC is 22%, 19%, 18%, and 23% less "
                "than the GM of the raw compression ratio'",
            )
            for s, v in (("BDI", 0.22), ("FPC", 0.19), ("C-PACK", 0.18), ("E2MC", 0.23))
        ),
        note="every codec as compare() fits it: E2MC offline on each dataset",
        width="single",
    ),
    Figure(PAPER, "fig2", "E2MC's blocks by bytes above a multiple of MAG", fig2, _draw_fig2),
    Figure(
        PAPER,
        "fig7a",
        "Speedup of TSLC over E2MC (threshold 16 B, MAG 32 B)",
        note=SIM,
        paper_values=tuple(
            PaperValue(s, "speedup", v, f"§V-A, Fig. 7a: {_GM}", "")
            for s, v in (("TSLC-SIMP", 1.09), ("TSLC-PRED", 1.098), ("TSLC-OPT", 1.097))
        ),
    ),
    Figure(
        PAPER,
        "fig8",
        "Bandwidth saved against E2MC per TSLC variant (threshold 16 B, MAG 32 B)",
        fig8,
        dataset_bars("bandwidth_saved", f"bandwidth saved against E2MC\n(bytes at MAG {MAG} B)"),
        tuple(
            PaperValue(
                s,
                "bandwidth_saved",
                0.14,
                "§V-B, Fig. 8: 'The geometric mean (GM) of the reduction in memory bandwidth is about 14% "
                "for all three variations of TSLC'",
            )
            for s in VARIANTS.values()
        ),
        note="error: mre_floored of the blocks' float32 values (P4 reports the applications' output error, "
        "e.g. TSLC-OPT's GM MRE 0.99 %, §V-A)",
    ),
    Figure(
        PAPER,
        "fig8-energy",
        "Energy and EDP reduction against E2MC",
        note=SIM,
        paper_values=(
            PaperValue("TSLC", "energy_reduction", 0.083, "§V-B, Fig. 8: 'about 8.3%'", ""),
            PaperValue("TSLC", "edp_reduction", 0.175, "§V-B, Fig. 8: 'and 17.5%'", ""),
        ),
    ),
    Figure(
        PAPER,
        "fig9",
        "TSLC-OPT with the threshold at half the MAG: bandwidth saved per MAG",
        fig9,
        dataset_bars("bandwidth_saved", "bandwidth saved against E2MC\n(bytes at each MAG)"),
        note="the paper plots speedup and error (GM speedup 5 %, 9.7 %, 9 % at MAG 16, 32, 64 B: a simulator's)",
    ),
    Figure(
        PAPER,
        "sec5c",
        "E2MC's raw CR and CR at MAG 16, 32 and 64 B",
        sec5c,
        dataset_bars("cr_mag_e2mc", "E2MC's CR at MAG\n(uncompressed / fetched bytes)"),
        tuple(
            PaperValue(
                f"MAG {m} B",
                "cr_mag_e2mc",
                v,
                "§V-C: 'The geometric mean (GM) of the effective compression ratio is 1.41, 1.31, 1.16 "
                "for E2MC with MAG of 16B, 32B, and 64B'",
            )
            for m, v in zip(MAGS, (1.41, 1.31, 1.16))
        )
        + tuple(
            PaperValue(
                f"MAG {m} B",
                "cr_e2mc",
                1.54,
                "§V-C: 'The GM of the raw compression ratio (1.54) is the same for different MAGs'",
            )
            for m in MAGS
        ),
    ),
    Figure(PAPER, "table1", "Frequency, area and power of TSLC", note="RTL synthesis (Synopsys, 32 nm): not in a dump"),
)
