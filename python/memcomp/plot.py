"""Figures of memcomp's tables (matplotlib; ``pip install memcomp[plot]``).

Every function takes a DataFrame an analysis returns, draws on ``ax`` (a new figure's axes if
None), returns the Axes and computes nothing the analyses do not expose (DESIGN "Figures"):

=============================  ===============================================================
function                       data
=============================  ===============================================================
:func:`ratio_toggle_scatter`   ``toggles.scatter`` (per block) or ``toggles.compare`` (per codec
                               and EC setting): compression ratio against toggle ratio, P2's
                               central figure, with and without EC / MC
:func:`cr_bars`                ``compare`` (raw CR and CR at MAG per codec; P1/P4 Fig. 1 style),
                               optionally ``entropy.table`` for the entropy-bound lines
:func:`above_mag_heatmap`      ``mag_study``'s second table or ``SizeStats.above_mag``: share of
                               blocks per bytes above a MAG multiple (P4 Fig. 2)
:func:`ratio_entropy_heatmap`  a 32 x 32 ratio-entropy matrix and an MPC module's tree over it
                               (P3 Fig. 2 style)
:func:`sampling_study`         ``e2mc.sampling_study`` (P1 Fig. 4)
:func:`slc_tradeoff`           ``slc.sweep``: error against bandwidth saved per variant
=============================  ===============================================================
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

__all__ = [
    "above_mag_heatmap",
    "cr_bars",
    "ratio_entropy_heatmap",
    "ratio_toggle_scatter",
    "sampling_study",
    "slc_tradeoff",
]


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


def ratio_toggle_scatter(df, ax=None, *, alpha: float = 0.3, max_points: int = 20000, seed: int = 0):
    """Compression ratio (x) against toggle ratio (y, T sent / T raw; below 1 saves energy).

    Per-block input (``toggles.scatter``: codec, cr, toggle_ratio) draws one point cloud per codec
    (at most ``max_points`` per codec, sampled reproducibly). Per-codec input (``toggles.compare``:
    codec, ec, cr, t_ratio) draws one marker per codec and EC setting, an arrow from the plain row to
    its EC row, so EC's and MC's effects read as moves."""
    ax = _axes(ax)
    if "toggle_ratio" in getattr(df, "columns", ()):
        _need(df, ["codec", "cr", "toggle_ratio"], "ratio_toggle_scatter")
        rng = np.random.default_rng(seed)
        for codec, g in df.groupby("codec", sort=False):
            g = g[np.isfinite(g["cr"]) & np.isfinite(g["toggle_ratio"])]
            if len(g) > max_points:
                g = g.iloc[np.sort(rng.choice(len(g), max_points, replace=False))]
            ax.scatter(g["cr"], g["toggle_ratio"], s=6, alpha=alpha, label=str(codec), rasterized=True)
    else:
        _need(df, ["codec", "ec", "cr", "t_ratio"], "ratio_toggle_scatter")
        for codec, g in df.groupby("codec", sort=False):
            plain = g[g["ec"] == "none"]
            pts = ax.scatter(plain["cr"], plain["t_ratio"], s=40, label=str(codec), zorder=3)
            color = pts.get_facecolor()[0]
            for _, r in g[g["ec"] != "none"].iterrows():
                ax.scatter([r["cr"]], [r["t_ratio"]], s=40, marker="D", color=color, zorder=3)
                if len(plain):
                    ax.annotate(
                        "",
                        xy=(r["cr"], r["t_ratio"]),
                        xytext=(plain["cr"].iloc[0], plain["t_ratio"].iloc[0]),
                        arrowprops={"arrowstyle": "->", "color": color},
                    )
        if (df["ec"] != "none").any():
            ax.scatter([], [], marker="D", color="gray", label="with " + "/".join(sorted(set(df["ec"]) - {"none"})))
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_xlabel("compression ratio")
    ax.set_ylabel("toggle ratio (T sent / T raw)")
    ax.legend(fontsize="small", frameon=False)
    return ax


def cr_bars(df, ax=None, *, bound=None, symbol_bits: Optional[Sequence[int]] = None, mag: bool = True):
    """Raw CR per codec, with CR at MAG beside it (``compare`` rows; the oracle row too), and the
    order-0 entropy bound of each symbol length as a dashed line (``bound`` = ``entropy.table``)."""
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
        for _, r in bound.iterrows():
            if symbol_bits is None or int(r["symbol_bits"]) in symbol_bits:
                ax.axhline(r["cr_bound"], ls="--", lw=1, color="k", alpha=0.6)
                ax.text(
                    len(df) - 0.5,
                    r["cr_bound"],
                    f" H bound SL {int(r['symbol_bits'])}",
                    va="bottom",
                    ha="right",
                    fontsize="x-small",
                )
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([str(c) for c in df["codec"]], rotation=45, ha="right", fontsize="small")
    ax.set_ylabel("compression ratio")
    ax.legend(fontsize="small", frameon=False)
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
    ax.figure.colorbar(im, ax=ax, label="share of blocks")
    return ax


def ratio_entropy_heatmap(re, ax=None, *, module: Optional[dict] = None, cmap: str = "magma_r"):
    """The ratio-entropy matrix (a :class:`memcomp.mpc.RatioEntropy` or an (n, n) array; row =
    target, column = base; low = correlated) and, given an MPC ``module`` (a dict with root and
    base, as in ``model["modules"][k]``), its tree: a marker on each (target, base) edge, a star on
    the root's diagonal cell."""
    m = re.matrix() if hasattr(re, "matrix") else np.asarray(re, dtype=float)
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
    ax.set_xlabel("base byte j")
    ax.set_ylabel("target byte i")
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
    ax.set_ylabel("CR relative to the first point" if ycols[0].endswith("rel") else "compression ratio")
    ax.legend(fontsize="small", frameon=False)
    return ax


def slc_tradeoff(
    df, ax=None, *, x: str = "bandwidth_saved", y: str = "mre", hue: str = "variant", style: Optional[str] = "mag"
):
    """SLC's trade-off (``slc.sweep``): error (``y``: mre, nrmse, ...) against bandwidth saved
    (``x``), one line per variant (``hue``) and MAG (``style``), through the thresholds."""
    _need(df, [x, y, hue, "threshold_bytes"], "slc_tradeoff")
    ax = _axes(ax)
    groups = [hue] + ([style] if style and style in df.columns and df[style].nunique() > 1 else [])
    for key, g in df.groupby(groups, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values("threshold_bytes")
        label = " ".join(f"{k}" if n == hue else f"{n} {k}" for n, k in zip(groups, key))
        ax.plot(g[x], g[y], marker="o", label=label)
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(y.upper() if len(y) <= 5 else y.replace("_", " "))
    ax.legend(fontsize="small", frameon=False)
    return ax
