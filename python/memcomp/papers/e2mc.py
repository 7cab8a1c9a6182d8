"""P1 (Lal, Lucas, Juurlink, "E2MC: Entropy Encoding Based Memory Compression for GPUs", IPDPS'17)
from your own data: 128 B blocks, MAG 32 B (§III-C), offline probability (a model fitted on each
whole dataset, §III-B2a) unless a figure says online, geometric means over the datasets (§V-A),
E2MC without parallel decoding (1 PDW) except in Fig. 10, where the ways are the variable.

What the paper's GPU simulations give (speedup, energy, the RTL's area and power: Figs. 1, 5, 12,
13, Tables III, IV, VI) is not in a memory dump: those figures carry the paper's numbers and a
note, no memcomp value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List

import numpy as np

from ._base import GEOMEAN, Context, Figure, PaperValue, dataset_bars, summary_bars, with_geomean

if TYPE_CHECKING:
    import pandas

PAPER = "e2mc"
BLOCK_BYTES = 128  # §IV-A: GTX580's 128 B memory blocks
MAG = 32  # §III-C: "We assume the MAG is 32B for this study"
SLS = (4, 8, 16, 32)
PDWS = (1, 2, 4, 8)  # Fig. 10
MFVS = (256, 512, 1024, 2048, 4096)  # Fig. 4a, relative to 1K (§III-B2b)
WINDOWS = (0.01, 0.05, 0.1, 0.2, 0.5)  # Fig. 4b: shares of the blocks, relative to the first
RAW_LABEL = "raw CR\n(uncompressed / compressed bytes)"
MAG_LABEL = f"CR at MAG {MAG} B\n(uncompressed / fetched bytes)"


def _e2mc(sl: int = 16, pdw: int = 1):
    from ..codecs import get_codec

    return get_codec("e2mc", symbol_bits=sl, pdw=pdw, mag=MAG)


def _codecs() -> Dict[str, Any]:
    """Fig. 9's series: BDI, FPC and E2MC at each symbol length, by the paper's names."""
    from ..codecs import get_codec

    return {"BDI": get_codec("bdi.paper"), "FPC": get_codec("fpc.paper"), **{f"E2MC{sl}": _e2mc(sl) for sl in SLS}}


def _compare(ctx: Context, codecs: Dict[str, Any], key: str) -> "pandas.DataFrame":
    """compare() of each dataset, rows named by series: cr, cr_mag and the MAG shares, long form."""
    import pandas as pd

    from ..report import compare

    def make():
        rows = []
        for name, d in ctx.blocks(BLOCK_BYTES).items():
            df = compare(d, list(codecs.values()), mag=MAG, oracle=False, threads=ctx.threads)
            quantities = ["cr", "cr_mag"] + [c for c in df.columns if c.startswith("share_")]
            rows += [
                {"dataset": name, "series": series, "quantity": q, "value": float(r[q])}
                for series, (_, r) in zip(codecs, df.iterrows())
                for q in quantities
            ]
        return pd.DataFrame(rows)

    return ctx.cached((PAPER, key), make)


def _offline(ctx: Context) -> "pandas.DataFrame":
    return _compare(ctx, _codecs(), "offline")


def _pick(df: "pandas.DataFrame", series, quantities) -> "pandas.DataFrame":
    return df[df["series"].isin(series) & df["quantity"].isin(quantities)].reset_index(drop=True)


def fig3(ctx: Context) -> "pandas.DataFrame":
    return with_geomean(_pick(_offline(ctx), [f"E2MC{sl}" for sl in SLS], ["cr"]))


def fig9a(ctx: Context) -> "pandas.DataFrame":
    return with_geomean(_pick(_offline(ctx), list(_codecs()), ["cr"]))


def fig9b(ctx: Context) -> "pandas.DataFrame":
    return with_geomean(_pick(_offline(ctx), list(_codecs()), ["cr_mag"]))


def bound(ctx: Context) -> "pandas.DataFrame":
    """Shannon's bound (order-0 entropy of SL-bit symbols, per position at SL 4/8 as E2MC codes
    them) beside E2MC's raw CR at each SL (:func:`memcomp.e2mc.bound_gap`)."""
    import pandas as pd

    from ..e2mc import bound_gap

    rows = []
    for name, d in ctx.blocks(BLOCK_BYTES).items():
        g = bound_gap(d, SLS, pdw=1, mag=MAG, threads=ctx.threads)
        rows += [
            {"dataset": name, "series": f"E2MC{r.symbol_bits}", "quantity": q, "value": getattr(r, q)}
            for r in g.itertuples(index=False)
            for q in ("cr_bound", "cr")
        ]
    return with_geomean(pd.DataFrame(rows))


def _sampling(ctx: Context) -> "pandas.DataFrame":
    from ..e2mc import sampling_study

    def make():
        import pandas as pd

        parts = []
        for name, d in ctx.blocks(BLOCK_BYTES).items():
            s = sampling_study(d, mfv=MFVS, windows=WINDOWS, symbol_bits=16, mag=MAG, pdw=1, threads=ctx.threads)
            parts.append(s.assign(dataset=name))
        return pd.concat(parts, ignore_index=True)

    return ctx.cached((PAPER, "sampling"), make)


def fig4a(ctx: Context) -> "pandas.DataFrame":
    """CR with K MFVs relative to 1K MFVs (offline fits at SL 16)."""
    import pandas as pd

    s = _sampling(ctx)
    rows = []
    for name, g in s[s["study"] == "mfv"].groupby("dataset", sort=False):
        ref = g[g["mfv"] == 1024].iloc[0]
        for r in g.itertuples(index=False):
            for q, col in (("cr_rel_1k", "cr"), ("cr_mag_rel_1k", "cr_mag")):
                v = getattr(r, col) / ref[col]
                rows.append({"dataset": name, "series": f"{r.mfv} MFVs", "quantity": q, "value": v, "mfv": r.mfv})
    return with_geomean(pd.DataFrame(rows))


def fig4b(ctx: Context) -> "pandas.DataFrame":
    """Online CR against the sampling window (a share of the blocks: a dump holds no instruction
    count) relative to the shortest window."""
    import pandas as pd

    s = _sampling(ctx)
    rows = []
    for name, g in s[s["study"] == "online"].groupby("dataset", sort=False):
        for f, r in zip(WINDOWS, g.itertuples(index=False)):
            for q, col in (("cr_rel_first", "cr_rel"), ("cr_mag_rel_first", "cr_mag_rel")):
                rows.append(
                    {
                        "dataset": name,
                        "series": f"{f:.0%} of blocks",
                        "quantity": q,
                        "value": getattr(r, col),
                        "window": f,
                    }
                )
    return with_geomean(pd.DataFrame(rows))


def _pdw(ctx: Context) -> "pandas.DataFrame":
    return _compare(ctx, {f"{k} PDW{'s' if k > 1 else ''}": _e2mc(16, k) for k in PDWS}, "pdw")


def _fig10(ctx: Context, q: str) -> "pandas.DataFrame":
    import pandas as pd

    p = _pick(_pdw(ctx), list(_pdw(ctx)["series"].unique()), [q])
    first = p[p["series"] == "1 PDW"].set_index("dataset")["value"]
    rel = p.assign(quantity=f"{q}_rel_pdw1", value=p["value"] / p["dataset"].map(first).to_numpy())
    ref = _pick(_offline(ctx), ["BDI", "FPC"], [q])
    return with_geomean(pd.concat([ref, p, rel], ignore_index=True))


def fig10a(ctx: Context) -> "pandas.DataFrame":
    return _fig10(ctx, "cr")


def fig10b(ctx: Context) -> "pandas.DataFrame":
    return _fig10(ctx, "cr_mag")


def _online(ctx: Context) -> "pandas.DataFrame":
    """E2MC16 with online sampling (fitted on the first 10 % of the blocks, which travel raw;
    SPEC 1.10), its CR relative to offline, BDI and FPC (which sample nothing) beside it."""
    import pandas as pd

    from ..e2mc import online

    def make():
        off = _offline(ctx)
        rows: List[dict] = []
        for name, d in ctx.blocks(BLOCK_BYTES).items():
            r = online(d, _e2mc(16), threads=ctx.threads)
            for q, v in (("cr", r.cr()), ("cr_mag", r.cr_mag(MAG))):
                o = off[(off.dataset == name) & (off.series == "E2MC16") & (off.quantity == q)]["value"].iloc[0]
                rows.append({"dataset": name, "series": "E2MC16 online", "quantity": q, "value": v})
                rows.append(
                    {"dataset": name, "series": "E2MC16 online", "quantity": f"{q}_rel_offline", "value": v / o}
                )
        return pd.DataFrame(rows)

    return ctx.cached((PAPER, "online"), make)


def fig11a(ctx: Context) -> "pandas.DataFrame":
    import pandas as pd

    on = _online(ctx)
    return with_geomean(
        pd.concat(
            [_pick(_offline(ctx), ["BDI", "FPC"], ["cr"]), on[on.quantity.isin(["cr", "cr_rel_offline"])]],
            ignore_index=True,
        )
    )


def fig11b(ctx: Context) -> "pandas.DataFrame":
    import pandas as pd

    on = _online(ctx)
    return with_geomean(
        pd.concat(
            [_pick(_offline(ctx), ["BDI", "FPC"], ["cr_mag"]), on[on.quantity.isin(["cr_mag", "cr_mag_rel_offline"])]],
            ignore_index=True,
        )
    )


#: Table II: CR bands of a 128 B block and the bytes fetched at MAG 32 B.
BANDS = (
    ("CR 1.00-1.33", 1.0, 1.33, 128),
    ("CR 1.33-1.99", 1.33, 1.99, 96),
    ("CR 2.00-3.99", 2.0, 3.99, 64),
    ("CR >= 4.00", 4.0, 8.0, 32),
)


def table2(ctx: Context) -> "pandas.DataFrame":
    """The bytes a block of each CR band fetches (memcomp's MAG rule at the band's middle CR),
    and the share of each dataset's E2MC16 blocks that fetch 32, 64, 96 or 128 bytes."""
    import pandas as pd

    from ..metrics import charge, mag_policy

    rows = []
    for band, lo, hi, _ in BANDS:
        bits = np.array([int(np.ceil(8 * BLOCK_BYTES / ((lo + hi) / 2)))], dtype=np.uint32)
        fetched = int(charge(bits, BLOCK_BYTES, mag_policy("none", MAG))[0]) // 8
        rows.append({"dataset": "(rule)", "series": band, "quantity": "bytes_fetched", "value": float(fetched)})
    shares = _pick(_offline(ctx), ["E2MC16"], [f"share_{k}B" for k in (32, 64, 96, 128)])
    return pd.concat([pd.DataFrame(rows), shares], ignore_index=True)


# ---------------------------------------------------------------------------------------- drawing


def _lines(q: str, x: str, xlabel: str, ylabel: str):
    def draw(df: "pandas.DataFrame", fig) -> None:
        ax = fig.gca()
        d = df[df["quantity"] == q]
        for name, g in d.groupby("dataset", sort=False):
            mean = name == GEOMEAN
            ax.plot(
                g[x],
                g["value"],
                label=name,
                lw=2.0 if mean else 0.8,
                color="k" if mean else None,
                alpha=1.0 if mean else 0.8,
            )
        ax.set_xscale("log")
        ticks = sorted(d[x].unique())
        ax.set_xticks(ticks, [f"{t:.0%}" if x == "window" else f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.axhline(1.0, color="0.3", lw=0.6, zorder=0)
        ax.legend(ncol=3, loc="lower left", bbox_to_anchor=(0, 1.0), fontsize="x-small")

    return draw


def _draw_table2(df: "pandas.DataFrame", fig) -> None:
    from ..plot import grouped_bars

    d = df[df["quantity"].str.startswith("share_")].copy()
    d["series"] = d["quantity"].str.slice(6).str.replace("B", " B fetched")
    grouped_bars(d, "dataset", "series", "value", fig.gca(), ylabel="share of E2MC16's blocks", xlabel="dataset")


_AVG = "the geometric mean over the paper's 15 benchmarks"

FIGURES = (
    Figure(
        PAPER,
        "fig1",
        "Speedup with 2x, 4x and 8x memory bandwidth",
        note="needs a GPU simulator (gpgpu-sim): a dump holds no execution time",
    ),
    Figure(
        PAPER,
        "fig3",
        "Raw CR of E2MC per symbol length (offline probability)",
        fig3,
        dataset_bars("cr", RAW_LABEL),
        note="§III-B1: SL 16 the highest on average, SL 8 for TP, MUM, SPMV",
    ),
    Figure(
        PAPER,
        "fig4a",
        "CR with K most frequent values relative to 1K MFVs (SL 16)",
        fig4a,
        _lines("cr_rel_1k", "mfv", "MFV table entries K", "raw CR relative to K = 1024"),
        (
            PaperValue(
                "4096 MFVs",
                "cr_rel_1k",
                1.01,
                "§III-B2b, Fig. 4a: 'the compression ratio does not increase much with the number of "
                "MFVs, only 1% on average'",
            ),
        ),
    ),
    Figure(
        PAPER,
        "fig4b",
        "Online CR against the sampling window, relative to the shortest",
        fig4b,
        _lines("cr_rel_first", "window", "sampling window (share of the blocks)", "raw CR relative to the 1 % window"),
        note="the paper samples 1M-100M instructions (best: 20M, §III-B2b); a dump holds no instruction "
        "count, so windows are shares of the blocks",
    ),
    Figure(
        PAPER,
        "fig5",
        "Speedup as (de)compression latency falls from 80 to 0 cycles",
        note="needs a GPU simulator: latency is not in a dump",
        paper_values=(
            PaperValue("decompression latency 0", "speedup", 1.09, "§III-B3, Fig. 5b: 'geometric mean of 9%'", ""),
            PaperValue("compression latency 0", "speedup", 1.01, "§III-B3, Fig. 5a: 'geometric mean of 1%'", ""),
        ),
    ),
    Figure(
        PAPER,
        "fig9a",
        "Raw CR of BDI, FPC and E2MC (offline probability)",
        fig9a,
        dataset_bars("cr", RAW_LABEL),
        tuple(
            PaperValue(s, "cr", v, f"§V-A, Fig. 9a: {_AVG}")
            for s, v in (
                ("BDI", 1.44),
                ("FPC", 1.53),
                ("E2MC4", 1.55),
                ("E2MC8", 1.80),
                ("E2MC16", 1.97),
                ("E2MC32", 1.76),
            )
        ),
    ),
    Figure(
        PAPER,
        "fig9b",
        f"CR at MAG {MAG} B of BDI, FPC and E2MC (offline probability)",
        fig9b,
        dataset_bars("cr_mag", MAG_LABEL),
        tuple(
            PaperValue(s, "cr_mag", v, f"§V-A, Fig. 9b: {_AVG}")
            for s, v in (
                ("BDI", 1.24),
                ("FPC", 1.34),
                ("E2MC4", 1.36),
                ("E2MC8", 1.53),
                ("E2MC16", 1.62),
                ("E2MC32", 1.45),
            )
        ),
    ),
    Figure(
        PAPER,
        "bound",
        "E2MC's raw CR beside Shannon's bound per symbol length",
        bound,
        summary_bars(
            {"cr_bound": "Shannon bound (SL / H)", "cr": "E2MC, raw CR"},
            "symbol length (bits)",
            "CR, geometric mean over the datasets",
            lambda series: series.replace("E2MC", "SL "),
        ),
        (
            PaperValue(
                "E2MC16",
                "cr_bound",
                2.61,
                "§V-A: 'The average optimal CR for SL 16-bit is 2.61x' (gap of 64 % to 1.97)",
            ),
        ),
        width="single",
    ),
    Figure(
        PAPER,
        "fig10a",
        "Raw CR of E2MC16 with 1-8 parallel decoding ways",
        fig10a,
        dataset_bars("cr", RAW_LABEL),
        (PaperValue("4 PDWs", "cr_rel_pdw1", 0.91, "§V-A1, Fig. 10a: 'there is 9% loss in raw CR with 4 PDWs'"),),
    ),
    Figure(
        PAPER,
        "fig10b",
        f"CR at MAG {MAG} B of E2MC16 with 1-8 parallel decoding ways",
        fig10b,
        dataset_bars("cr_mag", MAG_LABEL),
        (PaperValue("4 PDWs", "cr_mag_rel_pdw1", 0.96, "§V-A1, Fig. 10b: 'while at MAG it is only 4%'"),),
    ),
    Figure(
        PAPER,
        "fig11a",
        "Raw CR with online sampling (E2MC16 fitted on the first 10 % of the blocks)",
        fig11a,
        dataset_bars("cr", RAW_LABEL),
        (
            PaperValue("E2MC16 online", "cr", 1.79, "§V-B, Fig. 11a: 'The CR of E2MC16 is 1.79x'"),
            PaperValue(
                "E2MC16 online",
                "cr_rel_offline",
                0.82,
                "§V-B, Fig. 11a: 'the CR with online sampling is lower by 18% on average than that of offline'",
            ),
        ),
        note="online: 10 % of the blocks (SPEC 1.10) instead of the paper's 20M instructions",
    ),
    Figure(
        PAPER,
        "fig11b",
        f"CR at MAG {MAG} B with online sampling",
        fig11b,
        dataset_bars("cr_mag", MAG_LABEL),
        (
            PaperValue("E2MC16 online", "cr_mag", 1.52, "§V-B, Fig. 11b: 'The CR of E2MC16 at MAG is 1.52x'"),
            PaperValue(
                "E2MC16 online",
                "cr_mag_rel_offline",
                0.90,
                "§V-B, Fig. 11b: 'the CR at MAG with online sampling is 10% lower than offline sampling'",
            ),
        ),
        note="online: 10 % of the blocks (SPEC 1.10) instead of the paper's 20M instructions",
    ),
    Figure(
        PAPER,
        "fig12",
        "Speedup of BDI, FPC and E2MC",
        note="needs a GPU simulator: a dump holds no execution time",
        paper_values=(
            PaperValue(
                "E2MC16 4 PDWs offline",
                "speedup",
                1.20,
                "§V-C, Fig. 12b: 'The geometric mean of the speedup of E2MC16 with 4 PDWs is about 20% "
                "with offline probability'",
                "",
            ),
            PaperValue("E2MC16 4 PDWs online", "speedup", 1.17, "§V-C, Fig. 12c: '17% with online probability'", ""),
        ),
    ),
    Figure(
        PAPER,
        "fig13",
        "Energy and EDP of E2MC16 over no compression",
        note="needs a GPU power model (GPUSimPow)",
        paper_values=(
            PaperValue("E-OFF", "energy_reduction", 0.13, "§V-E, Fig. 13: '13% ... reduction in energy'", ""),
            PaperValue("EDP-OFF", "edp_reduction", 0.27, "§V-E, Fig. 13: '27% reduction in ... EDP'", ""),
        ),
    ),
    Figure(
        PAPER,
        "table2",
        f"CR bands and the bytes fetched at MAG {MAG} B",
        table2,
        _draw_table2,
        tuple(
            PaperValue(
                band,
                "bytes_fetched",
                float(b),
                "§III-C, Table II: CR bands of a 128 B block and the bytes fetched at MAG 32 B",
                "(rule)",
            )
            for band, _, _, b in BANDS
        ),
    ),
    Figure(
        PAPER,
        "table3-6",
        "Frequency, area, power and latency of the (de)compressors",
        note="RTL synthesis (Synopsys, 32 nm) and simulator latencies: not in a dump",
    ),
)
