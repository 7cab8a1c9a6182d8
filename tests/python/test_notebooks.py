"""The notebooks in notebooks/ run top to bottom on the bundled sample (nbclient), each ending with
its figure, and are committed without outputs."""

import glob
import os

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "notebooks")
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "*.ipynb")))


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
def test_runs_and_ends_with_its_figure(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": ROOT}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(o.output_type != "error" for c in code for o in c.outputs)
    last = code[-1].outputs
    assert any("image/png" in o.get("data", {}) for o in last), "the last cell shows the paper's figure"
