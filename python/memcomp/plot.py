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
import functools
import inspect
import textwrap
import threading
from typing import Any, Callable, Dict, Iterator, Optional, Sequence, TypeVar

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
    "save",
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
        _active.depth = getattr(_active, "depth", 0) + 1
        try:
            yield rc
        finally:
            _active.depth -= 1


#: How many paper_style contexts the calling thread is inside (a figure drawn in one keeps it).
_active = threading.local()
_F = TypeVar("_F", bound=Callable[..., Any])


def _styled(fn: _F) -> _F:
    """Give a figure function the keywords ``paper`` and ``width``: with ``paper`` (default) it
    draws under :func:`paper_style` (``width``; None: the enclosing paper_style's, else
    "single"), so a figure looks the same from a notebook, the command line and ``reproduce``;
    ``paper=False`` draws under the caller's matplotlib settings."""

    @functools.wraps(fn)
    def wrapper(*args: Any, paper: bool = True, width: Optional[str] = None, **keywords: Any) -> Any:
        if not isinstance(paper, (bool, np.bool_)):
            raise TypeError(f"paper must be True or False, got {paper!r}")
        nested = getattr(_active, "drawing", 0)  # a figure function called by another keeps its style
        _active.drawing = nested + 1
        try:
            if not paper or (width is None and (nested or getattr(_active, "depth", 0))):
                return fn(*args, **keywords)
            with paper_style("single" if width is None else width):
                return fn(*args, **keywords)
        finally:
            _active.drawing = nested

    params = list(inspect.signature(fn).parameters.values())
    extra = [
        inspect.Parameter("paper", inspect.Parameter.KEYWORD_ONLY, default=True),
        inspect.Parameter("width", inspect.Parameter.KEYWORD_ONLY, default=None),
    ]
    var = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    params = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD] + extra + var
    wrapper.__signature__ = inspect.signature(fn).replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def save(fig, path, **keywords) -> None:
    """``fig.savefig(path)`` (a Figure, or an Axes' figure) under :func:`paper_style`'s output
    settings, so a PDF embeds its fonts as TrueType (Type 42) however matplotlib is set up."""
    import matplotlib as mpl

    fig = getattr(fig, "figure", fig)
    with mpl.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none", "savefig.bbox": "tight"}):
        fig.savefig(path, **keywords)


@_styled
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
    _xticklabels(ax, [str(g) for g in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xlabel(xlabel if xlabel is not None else x)
    _set_ylabel(ax, ylabel if ylabel is not None else y)
    top = positive.max() if positive.size else 1.0
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_ylim(positive.min() / 1.5, top * (4.0 if labels else 1.5))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 1, 10, 100, not 10^0
    else:
        ax.set_ylim(0, top * (1.2 if labels else 1.05))
    _legend_above(ax, len(names))
    return ax


def _xticklabels(ax, labels: Sequence[str]) -> None:
    ax.set_xticks(np.arange(len(labels)))
    slanted = len(labels) > 4
    ax.set_xticklabels(labels, rotation=30 if slanted else 0, ha="right" if slanted else "center")


def _legend_above(ax, n: int) -> None:
    """The legend in a band above the axes, in as many columns (up to 4) as fit the figure's width."""
    from matplotlib.font_manager import FontProperties

    labels = ax.get_legend_handles_labels()[1]
    points = FontProperties(size="x-small").get_size_in_points()
    inches = [0.45 + 0.55 * points * len(t) / 72 for t in labels]  # handle and gap, then the text
    room = ax.figure.get_figwidth() * 0.95
    ncol = max(k for k in range(1, min(n, 4) + 1) if sum(sorted(inches)[-k:]) <= room or k == 1)
    ax.legend(ncol=ncol, loc="lower left", bbox_to_anchor=(0, 1.0), fontsize="x-small")


def _set_ylabel(ax, text: str) -> None:
    """``text`` as the y label, wrapped to the figure's height (a column-wide figure is short)."""
    size = ax.yaxis.label.get_fontsize()
    width = max(16, int(0.8 * ax.figure.get_figheight() * 72 / (0.55 * size)))
    ax.set_ylabel(textwrap.fill(text, width, break_on_hyphens=False))


def _axes(ax, aspect: Optional[float] = None):
    """``ax``, or the axes of a new figure of the style's size (``aspect``: height / width)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    w, h = plt.rcParams["figure.figsize"]
    _, ax = plt.subplots(figsize=(w, w * aspect if aspect else h), constrained_layout=True)
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


@_styled
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
    hue: str = "codec",
    style: Optional[str] = None,
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
    ``hue`` names the column whose values get a colour each (the codec; or a dataset column of
    tables concatenated), ``style`` one whose values get a marker each, as in seaborn. Per-codec
    input takes none of these. :func:`facet` draws one panel per dataset, channel or codec."""
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
        keys = [hue] + ([style] if style is not None and style != hue else [])
        _need(df, list(dict.fromkeys(["codec", x, y, *keys])), "ratio_toggle_scatter (per block)")
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
            hues = list(dict.fromkeys(df[hue]))
            styles = list(dict.fromkeys(df[style])) if style is not None else []
            for key, g in df.groupby(keys, sort=False):
                key = key if isinstance(key, tuple) else (key,)
                g = g[np.isfinite(g[x]) & np.isfinite(g[y])]
                if len(g) > max_points:
                    g = g.iloc[np.sort(rng.choice(len(g), max_points, replace=False))]
                gx, gy = g[x].to_numpy(dtype=float), g[y].to_numpy(dtype=float)
                if jitter and len(g):
                    gx = gx + rng.uniform(-jitter, jitter, len(g)) * (np.ptp(gx) or 1.0)
                    gy = gy + rng.uniform(-jitter, jitter, len(g)) * (np.ptp(gy) or 1.0)
                ax.scatter(
                    gx,
                    gy,
                    s=6,
                    alpha=alpha,
                    label=", ".join(map(str, key)),
                    color=PALETTE[hues.index(key[0]) % len(PALETTE)],
                    marker=MARKERS[styles.index(key[-1]) % len(MARKERS)] if styles else "o",
                    rasterized=True,
                )
            if logx:
                ax.set_xscale("log")
    else:
        if density or jitter or codec is not None or hue != "codec" or style is not None:
            raise ValueError(
                "density, jitter, codec, hue and style apply to per-block tables (toggles.scatter); "
                "a per-codec table gets a colour per codec (facet draws a panel per dataset)"
            )
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
    _set_ylabel(ax, ylabel)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", frameon=False)
    return ax


@_styled
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


@_styled
def cr_bars(
    df,
    ax=None,
    *,
    bound=None,
    symbol_bits: Optional[Sequence[int]] = None,
    mag: bool = True,
    values: bool = True,
    log: Optional[bool] = None,
):
    """Raw CR per codec, with CR at MAG beside it (``compare`` rows, each under the table's
    ``policy``; the oracle row too; a skipped preset keeps its tick, marked, with no bar), each
    bar's value printed on it (``values``), on a log axis where the CRs span more than a factor
    of 20 (``log`` None; True/False force it), and with ``bound`` (``entropy.table``) a dashed
    line per symbol length SL at ``cr_bound`` = SL / H, H the order-0 entropy of SL-bit symbols
    over the whole dump. That bounds one fixed symbol-by-symbol code for the dump (E2MC, SC2), not
    per-block codecs such as BDI or BPC, which can beat it (SPEC 3); ``symbol_bits`` picks the
    lengths drawn."""
    import pandas as pd

    _need(df, ["codec", "cr"] + (["cr_mag"] if mag else []), "cr_bars")
    notes = df["note"] if "note" in df.columns else [None] * len(df)
    ticks = [f"{c} (skipped)" if isinstance(n, str) and n else str(c) for c, n in zip(df["codec"], notes)]
    series = [("cr", "raw CR")]
    if mag:
        series.append(("cr_mag", f"CR at MAG {int(df['mag'].iloc[0])} B" if "mag" in df.columns else "CR at MAG"))
    long = pd.DataFrame(  # groups by row position: a codec may be listed twice
        [(i, name, float(v)) for col, name in series for i, v in enumerate(df[col])],
        columns=["row", "series", "cr"],
    )
    lines = []
    if bound is not None:
        _need(bound, ["symbol_bits", "cr_bound"], "cr_bars bound")
        lines = [
            (int(r["symbol_bits"]), float(r["cr_bound"]))
            for _, r in bound.iterrows()
            if symbol_bits is None or int(r["symbol_bits"]) in symbol_bits
        ]
    if log is None:  # decide on bars and lines together, so every line lands inside the axes
        v = np.concatenate([long["cr"].to_numpy(dtype=float), [c for _, c in lines]])
        v = v[np.isfinite(v) & (v > 0)]
        log = bool(v.size) and v.max() > 20 * v.min()
    ax = grouped_bars(
        long,
        "row",
        "series",
        "cr",
        ax,
        ylabel="compression ratio (raw bits / charged bits)",
        xlabel="codec",
        labels=range(len(ticks)) if values else (),
        log=log,
        baseline=1.0,
    )
    _xticklabels(ax, ticks)
    for k, (sl, c) in enumerate(lines):
        name = None if k else "order-0 entropy of the dump, SL / H (not a per-block bound)"
        ax.axhline(c, ls="--", lw=0.8, color="k", alpha=0.6, label=name)
        ax.annotate(
            f"SL {sl}",
            (1.0, c),
            xycoords=("axes fraction", "data"),
            xytext=(2, 0),
            textcoords="offset points",
            va="center",
            ha="left",
            fontsize="x-small",
        )
    if lines:
        lo, hi = ax.get_ylim()
        top = max(c for _, c in lines if np.isfinite(c)) if any(np.isfinite(c) for _, c in lines) else hi
        ax.set_ylim(lo, max(hi, top * (1.5 if log else 1.1)))
        _legend_above(ax, len(series) + 1)
    return ax


@_styled
def above_mag_heatmap(df, ax=None, *, row: str = "codec", cmap: str = "viridis"):
    """Share of blocks per bytes above a MAG multiple (x: P4 Fig. 2's bins, 0 = a multiple or under
    one burst, MAG = stored uncompressed), one row per ``row`` value (codec or dataset)."""
    _need(df, [row, "paper_bin", "share", "mag"], "above_mag_heatmap")
    mags = df["mag"].unique()
    if len(mags) != 1:
        raise ValueError(f"above_mag_heatmap draws one MAG; filter the table first (it holds MAGs {sorted(mags)})")
    m = int(mags[0])
    ax = _axes(ax, aspect=(0.5 + 0.35 * df[row].nunique()) / 7.0)
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


@_styled
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
    ax = _axes(ax, aspect=0.87)
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


@_styled
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
    _set_ylabel(
        ax, "CR relative to each line's first point" if relative else "compression ratio (raw bits / charged bits)"
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


@_styled
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
