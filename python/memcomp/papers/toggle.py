"""P2 (Pekhimenko, Bolotin, Vijaykumar, Mutlu, Mowry, Keckler, "A Case for Toggle-Aware Compression
for GPU Systems", HPCA'16) from your own data: 128 B cache lines without the all-zero ones (§3:
"These results exclude simple data patterns (e.g., zero cache lines)", the baseline GPUs already
compress), the six algorithms of §3 (FPC, BDI, BDI+FPC, LZSS, Fibonacci, C-Pack) and Metadata
Consolidation's FPC and C-Pack (§4.3), on the DRAM bus (GDDR5: 32-bit bus, bursts of 8, DBI DC as
P2's baseline assumes, §8; its "toggles" are zeros, §2) and on the on-chip interconnect (32 B
flits, §5.1; toggles are transitions). Compression ratios are P2's "effective bandwidth increase":
raw flits or bursts over compressed ones, at most 4 (§6). Energy Control is EC1 (Energy x Delay)
and EC2 (Energy x Delay^2), §4.2, with the bus utilisation term off (BU 0), against P2's
compressed baseline, which sends a line raw where compression does not shrink it; bus energy in pJ
comes from memcomp.energy's model of each channel. Averages are geometric means over the datasets
(P2 averages over each application suite).

Performance, DRAM and system energy (Figs. 14, 15, 18) need a simulator: they carry P2's
numbers and a note."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Tuple

import numpy as np

from ._base import GEOMEAN, Context, Figure, PaperValue, dataset_bars, with_geomean

if TYPE_CHECKING:
    import pandas

PAPER = "toggle"
BLOCK_BYTES = 128
#: §3's algorithms and §4.3's Metadata Consolidation, by P2's names.
CODECS = {
    "FPC": "fpc.paper",
    "BDI": "bdi.paper",
    "BDI+FPC": "bestof.bdi_fpc",
    "LZSS": "lzss.block",
    "Fibonacci": "fib.ours",
    "C-Pack": "cpack.paper",
    "FPC+MC": "fpc.mc",
    "C-Pack+MC": "cpack.mc",
}
PLAIN = [k for k in CODECS if not k.endswith("+MC")]
#: The two channels: the bus keywords, and the name of what the EC metric counts on it.
CHANNELS: Dict[str, Tuple[Dict[str, Any], str]] = {
    "dram": ({"channel": "dram", "dbi": "dc"}, "zeros"),
    "noc": ({"channel": "noc", "flit_bytes": 32}, "toggles"),
}
#: "Without EC" is P2's compressed baseline, which sends a line raw where compressing does not
#: shrink it (memcomp's ec="helps"), not ec="none", which sends even an expanded stream.
EC = {"helps": "", "ec1": " EC1", "ec2": " EC2"}
SIM = "needs a GPU simulator (GPGPU-Sim with GPUWattch): a dump holds no execution time or system energy"


def _nonzero(ctx: Context) -> Dict[str, np.ndarray]:
    """Each dataset's blocks that are not all zero, in memory (a dump's, read whole)."""

    def make():
        out = {}
        for name, d in ctx.blocks(BLOCK_BYTES).items():
            a = d if isinstance(d, np.ndarray) else d.read_blocks(0, d.n_blocks)
            out[name] = np.ascontiguousarray(a[a.any(axis=1)])
        return out

    return ctx.cached((PAPER, "nonzero"), make)


def _runs(ctx: Context) -> "pandas.DataFrame":
    """toggles.compare of every dataset, codec, channel and EC setting, long form: ``cr_units``
    (P2's CR), ``t_ratio`` (the channel's EC metric: zeros on DRAM, toggles on chip, compressed
    over raw), ``energy_ratio`` (bus pJ) and ``fraction_compressed``."""
    import pandas as pd

    from ..toggles import compare

    codec_of = {v: k for k, v in CODECS.items()}

    def make():
        rows: List[dict] = []
        for name, d in _nonzero(ctx).items():
            if d.shape[0] == 0:
                continue
            for ch, (bus, _) in CHANNELS.items():
                for ec in EC:
                    df = compare(d, list(CODECS.values()), ec=ec, threads=ctx.threads, **bus)
                    df = df[df["ec"] != "none"]  # every run's first rows: not P2's baseline
                    series = [codec_of[p] + EC[e] for p, e in zip(df["preset"], df["ec"])]
                    rows += [
                        {"dataset": name, "series": s, "quantity": f"{ch}_{q}", "value": float(v)}
                        for q in ("cr_units", "t_ratio", "energy_ratio", "fraction_compressed")
                        for s, v in zip(series, df[q])
                    ]
        return pd.DataFrame(rows)

    return ctx.cached((PAPER, "runs"), make)


def _pick(ctx: Context, series, quantities) -> "pandas.DataFrame":
    r = _runs(ctx)
    return r[r["series"].isin(list(series)) & r["quantity"].isin(list(quantities))].reset_index(drop=True)


def fig1(ctx: Context) -> "pandas.DataFrame":
    return with_geomean(_pick(ctx, PLAIN, ["dram_cr_units"]))


def fig2(ctx: Context) -> "pandas.DataFrame":
    return with_geomean(_pick(ctx, PLAIN, ["dram_t_ratio", "noc_t_ratio"]))


def fig3(ctx: Context) -> "pandas.DataFrame":
    """FPC's CR against its normalized zeros count on DRAM, a point per dataset."""
    return _pick(ctx, ["FPC"], ["dram_cr_units", "dram_t_ratio"])


def _ec(channel: str):
    def compute(ctx: Context) -> "pandas.DataFrame":
        series = [c + e for c in PLAIN if c != "LZSS" for e in EC.values()]  # §7 leaves LZSS out
        qs = [f"{channel}_{q}" for q in ("cr_units", "t_ratio", "energy_ratio", "fraction_compressed")]
        df = with_geomean(_pick(ctx, series, qs))
        return df[
            ~((df["dataset"] == GEOMEAN) & df["quantity"].str.endswith("fraction_compressed") & (df["value"] == 0))
        ]

    return compute


def fig12(ctx: Context) -> "pandas.DataFrame":
    """C-Pack per dataset on DRAM without EC, with EC1 and EC2 (Figs. 12, 13)."""
    return _pick(ctx, ["C-Pack" + e for e in EC.values()], ["dram_t_ratio", "dram_cr_units"])


def fig20(ctx: Context) -> "pandas.DataFrame":
    """FPC on DRAM: zeros normalized to raw without MC and EC, with MC, with EC2, with both; and
    §7.3's extra reduction of MC over EC2 for FPC and C-Pack."""
    import pandas as pd

    df = with_geomean(
        _pick(ctx, ["FPC", "FPC+MC", "FPC EC2", "FPC+MC EC2", "C-Pack EC2", "C-Pack+MC EC2"], ["dram_t_ratio"])
    )
    gm = df[df["dataset"] == GEOMEAN].set_index("series")["value"]
    extra = [
        {
            "dataset": GEOMEAN,
            "series": c,
            "quantity": "dram_mc_over_ec2",
            "value": 1.0 - gm[f"{c}+MC EC2"] / gm[f"{c} EC2"],
        }
        for c in ("FPC", "C-Pack")
    ]
    return pd.concat([df, pd.DataFrame(extra)], ignore_index=True)


# ---------------------------------------------------------------------------------------- drawing


def _label(q: str) -> str:
    ch, what = q.split("_", 1)
    bus = "DRAM bus, DBI DC" if ch == "dram" else "on-chip, 32 B flits"
    return {
        "cr_units": f"CR, effective bandwidth\n({bus})",
        "t_ratio": f"{CHANNELS[ch][1]}, compressed / raw\n({bus})",
        "energy_ratio": f"bus energy (pJ), compressed / raw\n({bus})",
    }[what]


def _draw_fig2(df: "pandas.DataFrame", fig) -> None:
    from ..plot import grouped_bars

    axes = fig.subplots(1, 2)
    for ax, q in zip(axes, ("dram_t_ratio", "noc_t_ratio")):
        d = df[(df["quantity"] == q) & (df["dataset"] == GEOMEAN)]
        grouped_bars(
            d,
            "series",
            "dataset",
            "value",
            ax,
            ylabel=_label(q),
            xlabel="codec",
            labels=list(d["series"]),
            baseline=1.0,
        )
        ax.get_legend().remove()  # one bar per codec: the geometric mean


def _draw_fig3(df: "pandas.DataFrame", fig) -> None:
    from ..plot import MARKERS, PALETTE

    ax = fig.gca()
    p = df.pivot(index="dataset", columns="quantity", values="value")
    for k, (name, r) in enumerate(p.iterrows()):
        ax.scatter(
            r["dram_cr_units"],
            r["dram_t_ratio"],
            marker=MARKERS[k % len(MARKERS)],
            color=PALETTE[k % len(PALETTE)],
            label=name,
            s=18,
        )
    ax.axhline(1.0, color="0.3", lw=0.6, zorder=0)
    ax.set_xlabel(_label("dram_cr_units").replace("\n", " "))
    ax.set_ylabel(_label("dram_t_ratio"))
    ax.legend(fontsize="x-small", ncol=2)


def _draw_ec(channel: str):
    def draw(df: "pandas.DataFrame", fig) -> None:
        from ..plot import grouped_bars

        axes = fig.subplots(1, 2)
        for ax, q in zip(axes, (f"{channel}_t_ratio", f"{channel}_cr_units")):
            d = df[(df["quantity"] == q) & (df["dataset"] == GEOMEAN)]
            d = d.assign(
                codec=d["series"].str.replace(r" EC\d$", "", regex=True),
                ec=d["series"].str.extract(r"(EC\d)$", expand=False).fillna("without EC"),
            )
            grouped_bars(
                d, "codec", "ec", "value", ax, ylabel=_label(q), xlabel="codec", labels=list(d["codec"]), baseline=1.0
            )

    return draw


def _draw_fig12(df: "pandas.DataFrame", fig) -> None:
    from ..plot import grouped_bars

    axes = fig.subplots(2, 1, sharex=True)
    for ax, q in zip(axes, ("dram_t_ratio", "dram_cr_units")):
        grouped_bars(
            df[df["quantity"] == q], "dataset", "series", "value", ax, ylabel=_label(q), xlabel="dataset", baseline=1.0
        )
    axes[0].set_xlabel("")
    axes[1].get_legend().remove()


def _draw_fig20(df: "pandas.DataFrame", fig) -> None:
    from ..plot import grouped_bars

    d = df[(df["quantity"] == "dram_t_ratio") & df["series"].str.startswith("FPC")]
    grouped_bars(
        d,
        "dataset",
        "series",
        "value",
        fig.gca(),
        ylabel=_label("dram_t_ratio"),
        xlabel="dataset",
        labels=[GEOMEAN],
        baseline=1.0,
    )


_SUITE = "the paper's average over its open-source applications"

FIGURES = (
    Figure(
        PAPER,
        "fig1",
        "Effective bandwidth compression ratio per algorithm (DRAM bus)",
        fig1,
        dataset_bars("dram_cr_units", _label("dram_cr_units")),
        tuple(
            PaperValue(
                s,
                "dram_cr_units",
                1.72,
                f"§3, Fig. 1: 'as high as 72% on average with the Fibonacci and BDI+FPC algorithms' ({_SUITE})",
            )
            for s in ("Fibonacci", "BDI+FPC")
        ),
    ),
    Figure(
        PAPER,
        "fig2",
        "Bit toggle count increase due to compression: zeros on DRAM, toggles on chip",
        fig2,
        _draw_fig2,
        (
            PaperValue(
                "C-Pack",
                "dram_t_ratio",
                2.2,
                "§1.1, Fig. 2: 'with C-Pack ... a corresponding 2.2x average increase' (mobile applications)",
            ),
        ),
        note="zero cache lines left out, as P2's baseline compresses them",
    ),
    Figure(
        PAPER,
        "fig3",
        "FPC's CR against its normalized zeros count on DRAM, a point per dataset",
        fig3,
        _draw_fig3,
        width="single",
        height=2.8,
    ),
    Figure(
        PAPER,
        "fig10-11",
        "Energy Control on the DRAM bus: zeros and CR without EC, with EC1 and EC2",
        _ec("dram"),
        _draw_ec("dram"),
        note="EC without the bus-utilisation term (BU = 0); LZSS left out as in §7",
    ),
    Figure(
        PAPER,
        "fig12-13",
        "C-Pack per dataset on DRAM without EC, with EC1 and EC2: zeros and CR",
        fig12,
        _draw_fig12,
        height=4.0,
    ),
    Figure(
        PAPER,
        "fig14-15",
        "Performance, DRAM and system energy with Energy Control",
        note=SIM,
        paper_values=(
            PaperValue(
                "C-Pack EC1/EC2",
                "dram_energy_reduction",
                0.083,
                "§7.1.3, Fig. 15: 'Overall, DRAM energy is reduced by 8.3% for both EC1 and EC2'",
                "",
            ),
            PaperValue(
                "C-Pack EC1/EC2",
                "system_energy_reduction",
                0.021,
                "§7.1.3: 'a total system energy reduction of 2.1% on average'",
                "",
            ),
        ),
    ),
    Figure(
        PAPER,
        "fig16-17",
        "Energy Control on the on-chip interconnect: toggles and CR without EC, with EC1 and EC2",
        _ec("noc"),
        _draw_ec("noc"),
        (
            PaperValue("C-Pack", "noc_t_ratio", 1.6, "§7.2.1, Fig. 16: 'from 1.6x to 0.9x with C-Pack'"),
            PaperValue("C-Pack EC2", "noc_t_ratio", 0.9, "§7.2.1, Fig. 16: 'from 1.6x to 0.9x with C-Pack'"),
            PaperValue(
                "C-Pack",
                "noc_energy_ratio",
                2.1,
                "§7.2.2, Fig. 19: 'we reduce the overhead from 2.1x to only 1.1x' (interconnect energy)",
            ),
            PaperValue(
                "C-Pack EC2",
                "noc_energy_ratio",
                1.1,
                "§7.2.2, Fig. 19: 'we reduce the overhead from 2.1x to only 1.1x' (interconnect energy)",
            ),
        ),
        note="EC without the bus-utilisation term (BU = 0); energy from memcomp.energy's on-chip model (Fig. 19)",
    ),
    Figure(PAPER, "fig18", "Performance with Energy Control on the on-chip interconnect", note=SIM),
    Figure(
        PAPER,
        "fig20",
        "Metadata Consolidation with FPC on DRAM: zeros without and with MC and EC2",
        fig20,
        _draw_fig20,
        (
            PaperValue(
                "FPC",
                "dram_t_ratio",
                1.93,
                f"§7.3, Fig. 20: 'MC substantially reduces the bit toggle count, from "
                f"1.93x to 1.66x on average' ({_SUITE})",
            ),
            PaperValue("FPC+MC", "dram_t_ratio", 1.66, f"§7.3, Fig. 20: 'from 1.93x to 1.66x on average' ({_SUITE})"),
            PaperValue(
                "FPC",
                "dram_mc_over_ec2",
                0.032,
                "§7.3: 'additional toggle reduction on the DRAM bus from "
                "applying MC (over EC2) of 3.2% and 2.9% for FPC and C-Pack'",
            ),
            PaperValue(
                "C-Pack",
                "dram_mc_over_ec2",
                0.029,
                "§7.3: 'additional toggle reduction on the DRAM bus from "
                "applying MC (over EC2) of 3.2% and 2.9% for FPC and C-Pack'",
            ),
        ),
    ),
)
