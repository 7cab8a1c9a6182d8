"""Figures of memcomp's tables (matplotlib; ``pip install memcomp[plot]``).

Every function takes a DataFrame an analysis returns, draws on ``ax`` (a new figure's axes if
None), returns the Axes and computes nothing the analyses do not expose (DESIGN "Figures"):

=============================  ===============================================================
function                       data
=============================  ===============================================================
:func:`ratio_toggle_scatter`   ``toggles.scatter`` (per block) or ``toggles.compare`` (per codec
                               and EC setting): compression ratio against the EC metric (toggles
                               on chip, zeros or ones on DRAM), toggles or pJ, P2's central
                               figure, with and without EC / MC
:func:`cr_bars`                ``compare`` (raw CR and CR at MAG per codec; P1/P4 Fig. 1 style),
                               optionally ``entropy.table`` for the order-0 entropy lines
:func:`above_mag_heatmap`      ``mag_study``'s second table or ``SizeStats.above_mag``: share of
                               blocks per bytes above a MAG multiple (P4 Fig. 2)
:func:`ratio_entropy_heatmap`  a 32 x 32 ratio-entropy matrix and an MPC module's tree over it
                               (P3 Fig. 2 style)
:func:`sampling_study`         ``e2mc.sampling_study`` (P1 Fig. 4)
:func:`slc_tradeoff`           ``slc.sweep``: error against bandwidth saved per variant
:func:`grouped_bars`           any long-form table: one group of bars per x value, one bar per
                               series, value labels where asked (the papers' bar figures)
=============================  ===============================================================

:func:`toggle_label` names what a column of the toggles tables holds (zeros, toggles or pJ, on
which bus and energy model), for an axis or a table header. :func:`paper_style` is the one style
for figures that go into a paper: sizes for single- (3.5 in) or double-column (7 in) width,
fonts embedded in PDF as TrueType (Type 42), vector output, and a colour-blind-safe palette
(Okabe and Ito) whose series also differ by marker and hatch (:data:`PALETTE`, :data:`MARKERS`,
:data:`HATCHES`).
"""

from __future__ import annotations

import contextlib
import textwrap
from typing import Any, Callable, Dict, Iterator, Optional, Sequence

import numpy as np

__all__ = [
    "HATCHES",
    "KINDS",
    "MARKERS",
    "PALETTE",
    "above_mag_heatmap",
    "cr_bars",
    "facet",
    "grouped_bars",
    "paper_style",
    "ratio_entropy_heatmap",
    "ratio_toggle_scatter",
    "sampling_study",
    "slc_tradeoff",
    "toggle_label",
]


#: Okabe and Ito's colour-blind-safe palette (Color Universal Design), black last.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: A marker per series, in palette order, so series stay apart in grey print too.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: A hatch per series of bars, in palette order.
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo", "--")
#: Figure widths in inches: a column and the page of a two-column paper.
WIDTHS = {"single": 3.5, "double": 7.0}


@contextlib.contextmanager
def paper_style(width: str = "single") -> Iterator[dict]:
    """The style of a figure for a paper, as a matplotlib rc context: 8 pt text (7 pt ticks and
    legends) that stays readable at ``width`` ("single": 3.5 in, "double": 7 in), TrueType fonts
    embedded in PDF and PostScript (Type 42), the :data:`PALETTE` colour cycle with its markers,
    light horizontal grid lines under the data. Yields the rc settings."""
    import matplotlib as mpl
    from cycler import cycler

    if width not in WIDTHS:
        raise ValueError(f"width must be one of {sorted(WIDTHS)}, got {width!r}")
    rc: Dict[str, Any] = {
        "figure.figsize": (WIDTHS[width], WIDTHS[width] * (0.75 if width == "single" else 0.4)),
        "figure.dpi": 150,
        "savefig.dpi": 300,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.fonttype": "none",
        "font.size": 8,
        "axes.titlesize": 8,
        "axes.labelsize": 8,
        "xtick.labelsize": 7,
        "ytick.labelsize": 7,
        "legend.fontsize": 7,
        "legend.frameon": False,
        "axes.prop_cycle": cycler(color=PALETTE) + cycler(marker=MARKERS),
        "axes.grid": True,
        "axes.grid.axis": "y",
        "axes.axisbelow": True,
        "grid.linewidth": 0.4,
        "grid.alpha": 0.5,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "lines.linewidth": 1.2,
        "lines.markersize": 4,
        "hatch.linewidth": 0.5,
    }
    with mpl.rc_context(rc):  # type: ignore[arg-type]  # (matplotlib types the keys as literals)
        yield rc


def grouped_bars(
    df,
    x: str,
    series: str,
    y: str,
    ax=None,
    *,
    ylabel: Optional[str] = None,
    xlabel: Optional[str] = None,
    labels: Sequence = (),
    log: Optional[bool] = None,
    baseline: Optional[float] = None,
):
    """One group of bars per value of column ``x`` (in order of appearance), one bar per value
    of ``series`` (same order in every group, each its :data:`PALETTE` colour and hatch), height
    ``y``. ``labels``: the x values whose bars get their value printed above them (e.g. the
    geometric mean); ``log`` a log y axis (None: where the positive values span more than a
    factor of 20, as a zero page's CR beside dense data does); ``baseline`` a thin line at that y
    (1.0: no compression). The legend goes above the axes. Draws only the table's values; returns
    the Axes."""
    _need(df, [x, series, y], "grouped_bars")
    ax = _axes(ax)
    values = df[y].to_numpy(dtype=float)
    positive = values[np.isfinite(values) & (values > 0)]
    if log is None:
        log = bool(positive.size) and positive.max() > 20 * positive.min()
    groups = list(dict.fromkeys(df[x]))
    names = list(dict.fromkeys(df[series]))
    width = 0.8 / max(len(names), 1)
    at = {g: i for i, g in enumerate(groups)}
    for k, name in enumerate(names):
        rows = df[df[series] == name]
        pos = np.array([at[g] for g in rows[x]], dtype=float) - 0.4 + width * (k + 0.5)
        vals = rows[y].to_numpy(dtype=float)
        bars = ax.bar(
            pos,
            vals,
            width=width,
            label=str(name),
            color=PALETTE[k % len(PALETTE)],
            hatch=HATCHES[k % len(HATCHES)],
            edgecolor="white" if not HATCHES[k % len(HATCHES)] else "0.25",
            linewidth=0.3,
        )
        for bar, g, v in zip(bars, rows[x], vals):
            if g in labels and np.isfinite(v):
                ax.annotate(
                    f"{v:.2f}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    xytext=(0, 1),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    rotation=90,
                    fontsize="xx-small",
                )
    if baseline is not None:
        ax.axhline(baseline, color="0.3", lw=0.6, zorder=0)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(np.arange(len(groups)))
    slanted = len(groups) > 4
    ax.set_xticklabels([str(g) for g in groups], rotation=30 if slanted else 0, ha="right" if slanted else "center")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xlabel(xlabel if xlabel is not None else x)
    ax.set_ylabel(ylabel if ylabel is not None else y)
    top = positive.max() if positive.size else 1.0
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_ylim(positive.min() / 1.5, top * (4.0 if labels else 1.5))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 1, 10, 100, not 10^0
    else:
        ax.set_ylim(0, top * (1.2 if labels else 1.05))
    ax.legend(ncol=min(len(names), 4), loc="lower left", bbox_to_anchor=(0, 1.0), fontsize="x-small")
    return ax


def _axes(ax, figsize=(6.0, 4.0)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, constrained_layout=True)
    return ax


def _need(df, cols: Sequence[str], what: str) -> None:
    missing = [c for c in cols if c not in getattr(df, "columns", ())]
    if missing:
        raise ValueError(f"{what} needs a DataFrame with columns {list(cols)} (missing {missing})")


#: The EC metric T of a toggles table (its ``metric`` column), as words for a label.
_METRIC_WORDS = {
    "toggles": ("toggles", "wire transitions"),
    "zeros_total": ("zeros", "data + DBI pins"),
    "ones_total": ("ones", "data + DBI pins"),
}


def toggle_label(df, column: str) -> str:
    """What a column of ``toggles.compare`` / ``toggles.scatter`` holds, for an axis or a table
    header; ValueError if the table mixes buses or energy models (one label cannot name both)."""

    def only(col: str):
        if col not in getattr(df, "columns", ()):
            return None
        values = df[col].dropna().unique()
        if len(values) > 1:
            raise ValueError(f"the table holds several {col} values {sorted(map(str, values))}; filter it first")
        return values[0] if len(values) else None

    if column == "t_ratio":
        metric = only("metric")
        word, what = _METRIC_WORDS.get(metric, ("T", "the EC metric"))
        return f"{word} sent / {word} raw ({what})"
    if column == "toggles_ratio":
        return "toggles sent / toggles raw (data-wire transitions)"
    if column in ("energy_ratio", "energy_pj_per_block", "energy_pj", "energy_pj_raw"):
        model = only("energy_model")
        of = f", {model}" if model else ""
        return {
            "energy_ratio": f"energy sent / energy raw (pJ / pJ{of})",
            "energy_pj_per_block": f"energy sent per block (pJ{of})",
            "energy_pj": f"energy sent (pJ{of})",
            "energy_pj_raw": f"energy raw (pJ{of})",
        }[column]
    if column == "cr":
        return "compression ratio (raw bits / bits sent)"
    if column == "cr_units":
        unit = "flits" if only("metric") == "toggles" else "bursts"
        return f"compression ratio (raw {unit} / {unit} sent)"
    if column == "cr_mag":
        mag = only("mag")
        return f"compression ratio at MAG{f' {int(mag)} B' if mag is not None else ''} (raw bytes / bytes in accesses)"
    if column == "fraction_compressed":
        return "share of blocks sent compressed"
    return column


def ratio_toggle_scatter(
    df,
    ax=None,
    *,
    y: str = "t_ratio",
    x: str = "cr",
    alpha: float = 0.3,
    max_points: int = 20000,
    seed: int = 0,
    density: bool = False,
    jitter: float = 0.0,
    codec: Optional[str] = None,
):
    """Compression ratio (``x``) against what the bus spends (``y``), P2's central figure; each
    axis says what it plots, from the table's ``metric`` and ``energy_model`` columns.

    ``y``: ``"t_ratio"`` (default: the EC metric sent / raw, i.e. toggles on chip, zeros of data
    and DBI pins on DRAM idling high, ones idling low), ``"toggles_ratio"`` (data-wire transitions
    sent / raw), ``"energy_ratio"`` (pJ sent / pJ raw) or, per codec, ``"energy_pj_per_block"``
    (pJ, with the raw transfers' pJ per block as the reference line). ``x``: ``"cr"`` (raw bits /
    bits sent), ``"cr_units"`` (bursts or flits) or, per codec, ``"cr_mag"``.

    Per-block input (``toggles.scatter``) draws one point cloud per codec (at most
    ``max_points`` per codec, sampled reproducibly). Per-codec input (``toggles.compare``) draws
    one marker per codec and EC setting, an arrow from the plain row to its EC row, so EC's and
    MC's effects read as moves.

    Per block, ``codec`` keeps one codec's rows; ``density=True`` draws one codec's blocks (every
    one, not a sample) as a hexagonal 2-D histogram with a log colour scale, which shows where
    millions of blocks lie where points would pile up; ``jitter`` moves each point by up to that
    share of each axis's span (seeded), so identical blocks stacked on one spot show their number.
    Per-codec input takes neither. :func:`facet` draws one panel per dataset, channel or codec."""
    if not isinstance(density, (bool, np.bool_)):
        raise TypeError(f"density must be True or False, got {density!r}")
    if not (isinstance(jitter, (int, float)) and 0 <= jitter <= 0.5):
        raise ValueError(f"jitter must be a share of the axis span in [0, 0.5], got {jitter!r}")
    ys = ("t_ratio", "toggles_ratio", "energy_ratio", "energy_pj_per_block")
    if y not in ys or x not in ("cr", "cr_units", "cr_mag"):
        raise ValueError(
            f"ratio_toggle_scatter plots y in {ys} against x in ('cr', 'cr_units', 'cr_mag'), got {y=}, {x=}"
        )
    cols = getattr(df, "columns", ())
    if "toggle_ratio" in cols and "t_ratio" not in cols:  # toggles.scatter's tables before t_ratio
        df = df.rename(columns={"toggle_ratio": "t_ratio"})
    ax = _axes(ax)
    ylabel, xlabel = toggle_label(df, y), toggle_label(df, x)
    if "ec" not in cols:
        _need(df, ["codec", x, y], "ratio_toggle_scatter (per block)")
        if codec is not None:
            if codec not in set(df["codec"]):
                raise ValueError(f"codec {codec!r} is not in the table (it holds {sorted(set(df['codec']))})")
            df = df[df["codec"] == codec]
        rng = np.random.default_rng(seed)
        xs = df[x].to_numpy(dtype=float)
        xs = xs[np.isfinite(xs) & (xs > 0)]
        logx = bool(xs.size) and xs.max() > 20 * xs.min()  # CRs spanning decades (a zero block's 64x)
        if density:
            if df["codec"].nunique() != 1:
                raise ValueError(
                    f"density draws one codec's blocks: pass codec= one of {sorted(set(df['codec']))}, or facet by codec"
                )
            g = df[np.isfinite(df[x]) & np.isfinite(df[y])]
            hb = ax.hexbin(
                g[x],
                g[y],
                gridsize=40,
                bins="log",
                mincnt=1,
                cmap="viridis",
                xscale="log" if logx else "linear",
                rasterized=True,
            )
            ax.figure.colorbar(hb, ax=ax, label=f"blocks per cell ({df['codec'].iloc[0]}, log scale)")
        else:
            for name, g in df.groupby("codec", sort=False):
                g = g[np.isfinite(g[x]) & np.isfinite(g[y])]
                if len(g) > max_points:
                    g = g.iloc[np.sort(rng.choice(len(g), max_points, replace=False))]
                gx, gy = g[x].to_numpy(dtype=float), g[y].to_numpy(dtype=float)
                if jitter and len(g):
                    gx = gx + rng.uniform(-jitter, jitter, len(g)) * (np.ptp(gx) or 1.0)
                    gy = gy + rng.uniform(-jitter, jitter, len(g)) * (np.ptp(gy) or 1.0)
                ax.scatter(gx, gy, s=6, alpha=alpha, label=str(name), rasterized=True)
            if logx:
                ax.set_xscale("log")
    else:
        if density or jitter or codec is not None:
            raise ValueError("density, jitter and codec apply to per-block tables (toggles.scatter)")
        _need(df, ["codec", "ec", x, y], "ratio_toggle_scatter (per codec)")
        for codec, g in df.groupby("codec", sort=False):
            plain = g[g["ec"] == "none"]
            pts = ax.scatter(plain[x], plain[y], s=40, label=str(codec), zorder=3)
            color = pts.get_facecolor()[0]
            for _, r in g[g["ec"] != "none"].iterrows():
                ax.scatter([r[x]], [r[y]], s=40, marker="D", facecolors="none", edgecolors=[color], zorder=4)
                if len(plain):
                    ax.annotate(
                        "",
                        xy=(r[x], r[y]),
                        xytext=(plain[x].iloc[0], plain[y].iloc[0]),
                        arrowprops={"arrowstyle": "->", "color": color},
                    )
        if (df["ec"] != "none").any():
            with_ec = "with " + "/".join(sorted(set(df["ec"]) - {"none"}))
            ax.scatter([], [], marker="D", facecolors="none", edgecolors="gray", label=with_ec)
    if y == "energy_pj_per_block":
        _need(df, ["energy_pj_raw", "blocks"], "ratio_toggle_scatter (energy_pj_per_block)")
        for i, v in enumerate((df["energy_pj_raw"] / df["blocks"]).unique()):
            ax.axhline(v, color="gray", lw=0.8, ls="--", label=None if i else "raw transfers")
    else:
        ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", frameon=False)
    return ax


def facet(df, fn, col: str, *, ncols: int = 4, panel_width: float = 3.5, panel_height: float = 2.6, **keywords):
    """One panel per value of ``col`` (a dataset, channel or codec column of a long-form table),
    each drawn by ``fn`` (a function of this module) with ``keywords``, titled by its value, in a
    grid of at most ``ncols`` columns. Returns the Figure."""
    import matplotlib.pyplot as plt

    _need(df, [col], "facet")
    values = list(dict.fromkeys(df[col]))
    if not values:
        raise ValueError(f"facet: the table has no rows to split by {col!r}")
    cols = min(int(ncols), len(values))
    rows = -(-len(values) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(panel_width * cols, panel_height * rows), squeeze=False, constrained_layout=True
    )
    for ax, v in zip(axes.ravel(), values):
        fn(df[df[col] == v], ax=ax, **keywords)
        ax.set_title(f"{col} = {v}", fontsize="small")
    for ax in axes.ravel()[len(values) :]:
        ax.set_visible(False)
    return fig


def cr_bars(df, ax=None, *, bound=None, symbol_bits: Optional[Sequence[int]] = None, mag: bool = True):
    """Raw CR per codec, with CR at MAG beside it (``compare`` rows, each under the table's
    ``policy``; the oracle row too; a skipped preset keeps its tick, marked, with no bar), and
    with ``bound`` (``entropy.table``) a dashed line per symbol length SL at ``cr_bound`` = SL / H,
    H the order-0 entropy of SL-bit symbols over the whole dump. That bounds one fixed
    symbol-by-symbol code for the dump (E2MC, SC2), not per-block codecs such as BDI or BPC, which
    can beat it (SPEC 3); ``symbol_bits`` picks the lengths drawn."""
    _need(df, ["codec", "cr"] + (["cr_mag"] if mag else []), "cr_bars")
    ax = _axes(ax)
    x = np.arange(len(df))
    w = 0.4 if mag else 0.8
    ax.bar(x - (w / 2 if mag else 0), df["cr"], width=w, label="raw CR")
    if mag:
        label = f"CR at MAG {int(df['mag'].iloc[0])} B" if "mag" in df.columns else "CR at MAG"
        ax.bar(x + w / 2, df["cr_mag"], width=w, label=label)
    if bound is not None:
        _need(bound, ["symbol_bits", "cr_bound"], "cr_bars bound")
        drawn = 0
        for _, r in bound.iterrows():
            if symbol_bits is None or int(r["symbol_bits"]) in symbol_bits:
                name = None if drawn else "order-0 entropy of the dump, SL / H (not a per-block bound)"
                ax.axhline(r["cr_bound"], ls="--", lw=1, color="k", alpha=0.6, label=name)
                sl = int(r["symbol_bits"])
                ax.text(len(df) - 0.5, r["cr_bound"], f" SL {sl}", va="bottom", ha="right", fontsize="x-small")
                drawn += 1
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xticks(x)
    notes = df["note"] if "note" in df.columns else [None] * len(df)
    ticks = [f"{c} (skipped)" if isinstance(n, str) and n else str(c) for c, n in zip(df["codec"], notes)]
    ax.set_xticklabels(ticks, rotation=45, ha="right", fontsize="small")
    ax.set_xlabel("codec")
    ax.set_ylabel("compression ratio (raw bits / charged bits)")
    tops = [ax.get_ylim()[1]] + ([float(bound["cr_bound"].max())] if bound is not None and len(bound) else [])
    ax.set_ylim(top=1.25 * max(t for t in tops if np.isfinite(t)))  # room for the legend above bars and lines
    ax.legend(fontsize="small", frameon=False, loc="upper left")
    return ax


def above_mag_heatmap(df, ax=None, *, row: str = "codec", cmap: str = "viridis"):
    """Share of blocks per bytes above a MAG multiple (x: P4 Fig. 2's bins, 0 = a multiple or under
    one burst, MAG = stored uncompressed), one row per ``row`` value (codec or dataset)."""
    _need(df, [row, "paper_bin", "share", "mag"], "above_mag_heatmap")
    mags = df["mag"].unique()
    if len(mags) != 1:
        raise ValueError(f"above_mag_heatmap draws one MAG; filter the table first (it holds MAGs {sorted(mags)})")
    m = int(mags[0])
    ax = _axes(ax, figsize=(7.0, 0.5 + 0.35 * df[row].nunique()))
    table = df.pivot_table(index=row, columns="paper_bin", values="share", aggfunc="sum", sort=False)
    table = table.reindex(columns=range(m + 1), fill_value=0.0).fillna(0.0)
    im = ax.imshow(table.to_numpy(), aspect="auto", cmap=cmap, interpolation="nearest", vmin=0.0)
    ax.set_yticks(range(len(table.index)))
    ax.set_yticklabels([str(v) for v in table.index], fontsize="small")
    ticks = [t for t in range(0, m + 1, max(1, m // 8))]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t}" if t < m else "raw" for t in ticks])
    ax.set_xlabel(f"bytes above a multiple of MAG ({m} B)")
    ax.set_ylabel(row)
    ax.figure.colorbar(im, ax=ax, label="share of blocks")
    return ax


def ratio_entropy_heatmap(re, ax=None, *, module: Optional[dict] = None, cmap: str = "magma_r"):
    """The ratio-entropy matrix (a :class:`memcomp.mpc.RatioEntropy` or an (n, n) array; row =
    target, column = base; low = correlated) and, given an MPC ``module`` (a dict with root and
    base, as in ``model["modules"][k]``), its tree: a marker on each (target, base) edge, a star on
    the root's diagonal cell. Indices are bytes, or elements of ``re.elem_bytes`` bytes."""
    m = re.matrix() if hasattr(re, "matrix") else np.asarray(re, dtype=float)
    eb = int(getattr(re, "elem_bytes", 1))
    unit = "byte" if eb == 1 else f"element ({eb} B)"
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"ratio_entropy_heatmap needs a square matrix, got shape {m.shape}")
    ax = _axes(ax, figsize=(5.5, 4.8))
    im = ax.imshow(m, cmap=cmap, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label="ratio entropy (bits)")
    if module is not None:
        root, base = int(module["root"]), list(module["base"])
        ti = [j for j in range(len(base)) if j != root]
        ax.scatter([base[j] for j in ti], ti, marker="s", s=18, facecolors="none", edgecolors="cyan", label="MST edge")
        ax.scatter([root], [root], marker="*", s=90, color="cyan", label="root")
        ax.legend(fontsize="x-small", loc="upper right")
    ax.set_xlabel(f"base {unit} j")
    ax.set_ylabel(f"target {unit} i")
    return ax


def sampling_study(df, ax=None, *, relative: bool = True):
    """P1 Fig. 4: CR (raw and at MAG) against the MFV table size and against the online sampling
    length (``e2mc.sampling_study``); ``relative`` plots them against their first entry."""
    _need(df, ["study", "mfv", "window", "cr", "cr_mag"], "sampling_study")
    ax = _axes(ax)
    ycols = ("cr_rel", "cr_mag_rel") if relative and "cr_rel" in df.columns else ("cr", "cr_mag")
    for study, xcol, mark in (("mfv", "mfv", "o"), ("online", "window", "s")):
        g = df[df["study"] == study]
        if g.empty:
            continue
        for y, ls in zip(ycols, ("-", "--")):
            ax.plot(
                g[xcol],
                g[y],
                marker=mark,
                ls=ls,
                label=f"{'MFV entries' if study == 'mfv' else 'sampled blocks'}: "
                f"{'CR at MAG' if 'mag' in y else 'raw CR'}",
            )
    ax.set_xscale("log")
    ax.set_xlabel("MFV table entries / blocks sampled")
    relative = ycols[0].endswith("rel")
    ax.set_ylabel(
        "CR relative to each line's first point" if relative else "compression ratio (raw bits / charged bits)"
    )
    ax.legend(fontsize="small", frameon=False)
    return ax


#: What each column of ``slc.sweep`` holds, for an axis label ({floor}: the relative error's floor).
_SLC_LABELS = {
    "bandwidth_saved": "bandwidth saved against E2MC at the same MAG (share of bytes)",
    "cr_mag_gain": "CR at MAG of SLC / of E2MC at the same MAG - 1",
    "cr_mag_slc": "SLC's CR at MAG",
    "cr_slc": "SLC's raw CR (in-band bits)",
    "lossy_blocks": "blocks stored lossy (count)",
    "lossy_share": "share of blocks stored lossy",
    "lossy_no_gain": "lossy blocks with no burst saved against E2MC (count)",
    "truncated_bits": "code bits of the truncated symbols",
    "mre": "P4's MRE: mean |a - o| / |o| over o != 0",
    "mre_floored": "mean |a - o| / max(|o|, floor {floor})",
    "rel_err_p50": "median of |a - o| / max(|o|, floor {floor}) over changed elements",
    "rel_err_p90": "90th percentile of |a - o| / max(|o|, floor {floor}) over changed elements",
    "rel_err_p99": "99th percentile of |a - o| / max(|o|, floor {floor}) over changed elements",
    "rel_err_max": "max |a - o| / max(|o|, floor {floor})",
    "nrmse": "P4's NRMSE: RMS error / range of the originals",
    "nrmse_std": "RMS error / std of the originals",
    "psnr": "PSNR in dB (peak: the originals' range; the dtype's for integers)",
    "max_abs_error": "max |a - o|",
    "changed": "share of elements changed",
    "sign_flips": "elements whose sign flipped (count)",
    "nonfinite": "non-finite outputs from finite originals (count)",
}
#: Error magnitudes spanning decades: drawn on a symlog axis (zero, e.g. threshold 0, stays visible).
_SLC_LOG = {"mre", "mre_floored", "rel_err_p50", "rel_err_p90", "rel_err_p99", "rel_err_max", "nrmse", "nrmse_std"}
_SLC_LOG |= {"max_abs_error"}


def _slc_axis(df, col: str, set_label, set_scale, log: Optional[bool]) -> None:
    floors = df["rel_floor"].unique() if "rel_floor" in df.columns else []
    floor = f"{floors[0]:.3g}" if len(floors) == 1 else "per row"
    set_label(textwrap.fill(_SLC_LABELS.get(col, col.replace("_", " ")).format(floor=floor), 48))
    if (col in _SLC_LOG) if log is None else log:
        v = df[col].to_numpy(dtype=float)
        pos = v[np.isfinite(v) & (v > 0)]
        set_scale("symlog", linthresh=float(pos.min()) if pos.size else 1.0)


def slc_tradeoff(
    df,
    ax=None,
    *,
    x: str = "bandwidth_saved",
    y: str = "mre",
    hue: str = "variant",
    style: Optional[str] = "mag",
    logx: Optional[bool] = None,
    logy: Optional[bool] = None,
):
    """SLC's trade-off (``slc.sweep``): an error metric (``y``: P4's ``mre``, ``nrmse``, ``psnr``,
    or a robust one, ``mre_floored``, ``rel_err_p50``/``p90``/``p99``/``max``, ``nrmse_std``,
    ``sign_flips``, ``nonfinite``, ...) against bandwidth saved (``x``), one line per variant
    (``hue``) and MAG (``style``), through the thresholds. Each axis label says what the column
    holds (the relative error's floor included); error magnitudes get a symlog axis (linear up to
    the smallest positive value, so zero stays visible) unless ``logx``/``logy`` say otherwise."""
    _need(df, [x, y, hue, "threshold_bytes"], "slc_tradeoff")
    ax = _axes(ax)
    groups = [hue] + ([style] if style and style in df.columns and df[style].nunique() > 1 else [])
    for key, g in df.groupby(groups, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values("threshold_bytes")
        label = " ".join(
            f"{k}" if n == hue else f"MAG {k} B" if n == "mag" else f"{n} {k}" for n, k in zip(groups, key)
        )
        ax.plot(g[x], g[y], marker="o", label=label)
    _slc_axis(df, x, ax.set_xlabel, ax.set_xscale, logx)
    _slc_axis(df, y, ax.set_ylabel, ax.set_yscale, logy)
    ax.legend(fontsize="small", frameon=False)
    return ax


#: The figures ``memcomp plot KIND TABLE`` draws from a saved table, by name.
KINDS: Dict[str, Callable[..., Any]] = {
    "above_mag_heatmap": above_mag_heatmap,
    "cr_bars": cr_bars,
    "grouped_bars": grouped_bars,
    "ratio_toggle_scatter": ratio_toggle_scatter,
    "sampling_study": sampling_study,
    "slc_tradeoff": slc_tradeoff,
}
