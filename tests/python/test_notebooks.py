"""The notebooks in notebooks/ run top to bottom on the bundled sample (nbclient), each ending with
its figure, show every figure they draw exactly once, and are committed without outputs.

A figure is counted where it is drawn: a hidden first cell counts every matplotlib Figure made
(``Figure.__init__``), and a hidden cell after each code cell prints the count since the last one
and the figures' titles; each cell's ``image/png`` outputs must equal that count (a cell ending in
``fig``, whose value Jupyter shows beside the inline backend's own copy, has two)."""

import glob
import json
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient

import memcomp

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "notebooks")
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "*.ipynb")))

_SETUP = """\
import matplotlib.figure as _mf
_memcomp_drawn = []
_memcomp_init = _mf.Figure.__init__
def _memcomp_counting_init(self, *args, **kwargs):
    _memcomp_init(self, *args, **kwargs)
    _memcomp_drawn.append(self)
_mf.Figure.__init__ = _memcomp_counting_init
"""
_PROBE = """\
import json as _json
print("#figures", _json.dumps([
    [f._suptitle.get_text() if f._suptitle else "", [a.get_title() for a in f.axes]] for f in _memcomp_drawn
]))
_memcomp_drawn.clear()
"""


def execute(path, first=""):
    """Runs the notebook at ``path`` (after the code ``first``, if any); returns its code cells, each
    as (outputs, figures drawn), a figure being [suptitle, [axes titles]]."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    cells = [nbformat.v4.new_code_cell(first + _SETUP)]
    for c in code:
        cells += [c, nbformat.v4.new_code_cell(_PROBE)]
    nb.cells = cells
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": ROOT}}).execute()
    assert all(o.output_type != "error" for c in nb.cells for o in c.outputs), [
        o for c in nb.cells for o in c.outputs if o.output_type == "error"
    ]
    out = []
    for cell, probe in zip(nb.cells[1::2], nb.cells[2::2]):
        text = "".join(o.get("text", "") for o in probe.outputs)  # (a stream may arrive in several parts)
        (line,) = [ln for ln in text.splitlines() if ln.startswith("#figures")]
        out.append((cell.outputs, json.loads(line.split(" ", 1)[1])))
    return out


def pngs(outputs) -> int:
    return sum("image/png" in o.get("data", {}) for o in outputs)


def text(outputs) -> str:
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)


def test_the_four_notebooks_exist():
    assert [os.path.basename(p) for p in NOTEBOOKS] == [
        "01_explore_a_dump.ipynb",
        "02_train_mpc.ipynb",
        "03_bus_energy.ipynb",
        "04_slc.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "strip the outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_runs_ends_with_its_figure_and_shows_each_figure_once(path):
    cells = execute(path)
    for i, (outputs, drawn) in enumerate(cells):
        assert pngs(outputs) == len(drawn), f"code cell {i} draws {len(drawn)} figure(s), shows {pngs(outputs)}"
    last_outputs, last_drawn = cells[-1]
    assert len(last_drawn) == 1 and pngs(last_outputs) == 1, "the last cell shows the paper's figure, once"
    if os.path.basename(path) == "02_train_mpc.ipynb":  # PyTorch is installed: the captured dumps are in
        said = re.search(
            r"MPC trains and is measured on (\d+) captured PyTorch dumps and (\d+) synthetic", text(cells[2][0])
        )
        assert said and int(said[1]) >= 1 and int(said[2]) == len(memcomp.workloads.WORKLOADS)
        assert last_drawn[0][0] == f"Trained on {said[1]} captured PyTorch dumps and {said[2]} synthetic workloads"


def test_mpc_notebook_without_pytorch_says_it_trains_on_synthetic_workloads_only():
    """No synthetic data under a "captured dumps" title: with ``import torch`` failing, the notebook
    says that nothing was captured, and so does its figure."""
    cells = execute(os.path.join(ROOT, "02_train_mpc.ipynb"), first="import sys\nsys.modules['torch'] = None\n")
    assert "PyTorch is not installed: no dumps captured" in text(cells[1][0])
    n = len(memcomp.workloads.WORKLOADS)
    assert f"MPC trains and is measured on {n} synthetic workloads only (no PyTorch dumps captured)" in text(
        cells[2][0]
    )
    ((suptitle, titles),) = cells[-1][1]
    assert suptitle == f"Trained on {n} synthetic workloads only (no PyTorch dumps captured)"
    assert not any("captured PyTorch" in t for t in titles)
    nb = nbformat.read(os.path.join(ROOT, "02_train_mpc.ipynb"), as_version=4)
    assert "captured dumps" not in nb.cells[0].source.splitlines()[0]  # the notebook's title
