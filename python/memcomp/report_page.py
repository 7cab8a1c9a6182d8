"""``memcomp report``'s document: a summary across datasets first (the best codec of each, its CR and
CR at MAG, the gap to the entropy bound, its DRAM bus energy), what every column holds, then a
section per dataset with its tables and figures, and the run's provenance (command line, date,
memcomp version, machine, codec configs, energy model) folded away at the end. HTML with the
figures as inline SVG, one self-contained file; or PDF through matplotlib's PDF backend (the same
tables and figures, a page each)."""

from __future__ import annotations

import datetime
import html
import io
import json
import os
import platform
import shlex
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

if TYPE_CHECKING:
    import pandas

#: What each column of the summary holds, for the page's glossary and headers.
SUMMARY_COLUMNS = {
    "dataset": "the dump (or the bundled sample)",
    "blocks": "blocks of the dataset",
    "best codec": "the lossless codec with the highest CR at MAG (the oracle row aside)",
    "raw CR": "its raw bits / charged bits",
    "CR at MAG": "its raw bytes / bytes in whole MAG-byte accesses",
    "entropy bound (SL 16)": "SL / H: the order-0 entropy bound of one code of 16-bit symbols for the whole dataset",
    "bound / raw CR": "how far the best codec is from that bound (above 1: room left)",
    "DRAM energy ratio": "its DRAM bus energy in pJ, compressed / raw (Energy Control ec2, DBI dc)",
}


@dataclass
class DatasetSection:
    """One dataset's tables: compare, entropy.table, mag_study's bytes above MAG, toggles.compare."""

    name: str
    blocks: int
    provenance: Dict[str, Any]
    compare: "pandas.DataFrame"
    entropy: "pandas.DataFrame"
    above: "pandas.DataFrame"
    toggles: Optional["pandas.DataFrame"]


def summary(sections: Sequence[DatasetSection]) -> "pandas.DataFrame":
    """One row per dataset: its best lossless codec by CR at MAG and what the page says of it."""
    import pandas as pd

    rows = []
    for s in sections:
        c = s.compare[(s.compare["codec"] != "oracle") & (s.compare["blocks"] > 0)]
        if "exact" in c.columns:
            c = c[c["exact"].fillna(False).astype(bool)]
        best = c.loc[c["cr_mag"].idxmax()] if len(c) else None
        ent = s.entropy.set_index("symbol_bits")
        bound = float(ent.loc[16, "cr_bound"]) if 16 in ent.index else float("nan")
        energy = float("nan")
        if best is not None and s.toggles is not None:
            t = s.toggles[(s.toggles["codec"] == best["codec"]) & (s.toggles["ec"] != "none")]
            if len(t):
                energy = float(t["energy_ratio"].iloc[0])
        rows.append(
            {
                "dataset": s.name,
                "blocks": s.blocks,
                "best codec": best["codec"] if best is not None else "",
                "raw CR": float(best["cr"]) if best is not None else float("nan"),
                "CR at MAG": float(best["cr_mag"]) if best is not None else float("nan"),
                "entropy bound (SL 16)": bound,
                "bound / raw CR": bound / float(best["cr"]) if best is not None else float("nan"),
                "DRAM energy ratio": energy,
            }
        )
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def provenance(argv: Sequence[str], codecs: Sequence[Any], energy_model: str, extra: Dict[str, Any]) -> Dict[str, Any]:
    """What produced the page: the command line (``argv``, the arguments after ``memcomp``), the
    date (UTC), memcomp's version, the machine and the codecs' configs."""
    from . import __version__
    from ._core import simd_tier

    return {
        "command": " ".join(shlex.quote(a) for a in ["memcomp", *argv]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "memcomp": __version__,
        "machine": f"{platform.platform()}; {platform.processor() or platform.machine()}; {os.cpu_count()} CPUs; "
        f"SIMD tier {simd_tier()}",
        "python": sys.version.split()[0],
        "energy model": energy_model,
        **extra,
        "codecs": {c.name: c.get_config() for c in codecs},
    }


def svg(fig) -> str:
    """A matplotlib figure as inline SVG markup (text kept as text), the figure closed."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 7px;"
    "text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    "h2{margin-top:2em;border-bottom:1px solid #ddd}dl{font-size:13px}dt{font-weight:600}dd{margin:0 0 .4em 1.5em}"
    "details{margin-top:2em;font-size:13px}summary{cursor:pointer;font-weight:600}pre{white-space:pre-wrap}"
    "figure{margin:1em 0}figcaption{font-size:13px;color:#555}svg{max-width:100%;height:auto}"
)


def _table(df: "pandas.DataFrame", headers: Optional[Dict[str, str]] = None) -> str:
    d = df.rename(columns=headers) if headers else df
    return d.to_html(index=False, float_format=lambda v: f"{v:.4f}", na_rep="–", border=0)


def html_page(
    sections: Sequence[DatasetSection],
    items: Dict[str, List[tuple]],
    prov: Dict[str, Any],
    mag: int,
    block_bytes: int,
) -> str:
    """The page: title, summary, glossary, per-dataset sections (each dataset's ``items``: a
    captioned table's HTML or figure's inline SVG, in order), provenance in a <details> block."""
    from . import __version__

    s = summary(sections)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>memcomp report</title>"
        f"<style>{_CSS}</style></head><body>",
        f"<h1>memcomp report</h1><p>{len(sections)} dataset{'s' if len(sections) != 1 else ''}, blocks of "
        f"{block_bytes} B, MAG {mag} B; memcomp {html.escape(__version__)}.</p>",
        "<h2 id='summary'>Summary</h2>",
        _table(s),
        "<dl id='columns'>"
        + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in SUMMARY_COLUMNS.items())
        + "</dl>",
    ]
    for sec in sections:
        where = f"{sec.provenance.get('file', '')} ({sec.provenance.get('format', '')})"
        parts.append(f"<h2>{html.escape(sec.name)}</h2><p>{sec.blocks} blocks of {html.escape(where)}</p>")
        for kind, caption, markup in items.get(sec.name, []):
            if kind == "table":
                parts.append(f"<h3>{html.escape(caption)}</h3>{markup}")
            else:
                parts.append(f"<figure>{markup}<figcaption>{html.escape(caption)}</figcaption></figure>")
    rows = "".join(
        f"<tr><th scope='row'>{html.escape(k)}</th><td style='text-align:left'>"
        + (f"<pre>{html.escape(json.dumps(v, indent=1))}</pre>" if isinstance(v, dict) else html.escape(str(v)))
        + "</td></tr>"
        for k, v in prov.items()
    )
    parts.append(f"<details id='provenance'><summary>Provenance</summary><table>{rows}</table></details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def pdf_document(path: str, sections: Sequence[DatasetSection], items: Dict[str, list], prov: Dict[str, Any]) -> None:
    """The report as a PDF (matplotlib's PDF backend): the summary and provenance on the first
    page, then each dataset's figures, a page each."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    s = summary(sections)
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:  # TrueType fonts, embedded
        fig = plt.figure(figsize=(11.0, 8.5))
        fig.suptitle("memcomp report: summary", x=0.02, ha="left", fontsize=12)
        ax = fig.add_axes((0.02, 0.45, 0.96, 0.45))
        ax.axis("off")
        cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in r] for r in s.itertuples(index=False)]
        t = ax.table(cellText=cells or [[""] * len(s.columns)], colLabels=list(s.columns), loc="upper left")
        t.auto_set_font_size(False)
        t.set_fontsize(7)
        text = "\n".join(f"{k}: {v if not isinstance(v, dict) else ', '.join(v)}" for k, v in prov.items())
        fig.text(0.02, 0.40, text, fontsize=7, va="top", family="monospace", wrap=True)
        pdf.savefig(fig)
        plt.close(fig)
        for sec in sections:
            for caption, fig in (item[1:] for item in items.get(sec.name, []) if item[0] == "figure"):
                fig.suptitle(f"{sec.name}: {caption}", x=0.02, ha="left", fontsize=10)
                pdf.savefig(fig, bbox_inches="tight")
                plt.close(fig)
        info = pdf.infodict()
        info["Title"] = "memcomp report"
        info["Creator"] = f"memcomp {prov.get('memcomp', '')}"
