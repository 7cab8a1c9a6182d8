"""memcomp report in a real browser (headless Chromium from Debian, which tests/run_all.sh installs):
the page renders its summary, glossary, inline-SVG figures and folded provenance, and a screenshot
of it is not blank; and the PDF form holds a page per figure with embedded TrueType fonts."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from memcomp import report_page
from memcomp.cli import main

matplotlib = pytest.importorskip("matplotlib")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("the report's browser test needs headless Chromium: apt-get install chromium (tests/run_all.sh does)")


ARGS = ["--sample-bytes", "131072", "--codecs", "bdi,fpc,e2mc"]


def browse(page, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *flags, page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )


def test_report_renders_in_chromium(tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", *ARGS, "-o", str(page)]) == 0
    dom = browse(page, "--dump-dom").stdout.decode()
    assert dom.count("<svg") == 3 and '<details id="provenance">' in dom  # the DOM as the browser built it
    summary = dom[dom.index('id="summary"') : dom.index('id="columns"')]
    assert re.findall(r"<th>(.*?)</th>", summary) == list(report_page.SUMMARY_COLUMNS)
    shot = tmp_path / "report.png"
    browse(page, "--window-size=1280,2400", f"--screenshot={shot}")
    import matplotlib.image

    img = matplotlib.image.imread(shot)
    assert img.shape[:2] == (2400, 1280)
    ink = (img[..., :3] < 0.5).any(axis=2)  # dark pixels: text, lines, bars
    rows = np.flatnonzero(ink.any(axis=1))
    assert ink.mean() > 0.005 and rows.max() - rows.min() > 1500  # a full page of content, top to bottom


def test_report_as_pdf(tmp_path):
    out = tmp_path / "report.pdf"
    assert main(["report", *ARGS, "-o", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 4  # the summary, then the three figures
    assert b"/Type3" not in data and b"/CIDFontType2" in data  # fonts embedded as TrueType
    assert main(["report", *ARGS, "-o", str(tmp_path / "report.txt")]) == 2
