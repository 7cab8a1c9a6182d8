"""The committed type stub of the extension (python/memcomp/_core.pyi) matches the module.

mypy's stubtest finds names missing on either side; since pybind11 functions have no introspectable
signature, a second check compares every stubbed function's parameter names and defaults with the
signature line pybind11 writes into its docstring. Regenerate the stub after changing a binding:
``pybind11-stubgen memcomp._core -o python --numpy-array-use-type-var``.
"""

import ast
import os
import re
import subprocess
import sys

import pytest

import memcomp
from memcomp import _core

STUB = os.path.join(os.path.dirname(memcomp.__file__), "_core.pyi")
ALLOWLIST = os.path.join(os.path.dirname(__file__), "stubtest_allowlist.txt")


def test_stubtest_finds_no_drift():
    pytest.importorskip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "memcomp._core", "--allowlist", ALLOWLIST],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def _stub_functions():
    with open(STUB) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node, None
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in sub.decorator_list
                ):
                    yield f"{node.name}.{sub.name}", sub, node.name


def _runtime_params(doc: str, name: str):
    """(name, default text or None) of the parameters in pybind11's signature line."""
    line = next(ln for ln in doc.splitlines() if ln.startswith(name + "("))
    inner = line[len(name) + 1 : line.rindex(") ->")]
    params, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            if cur.strip():
                params.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out = []
    for p in params:
        m = re.match(r"(\w+)(?::[^=]*)?(?:=\s*(.*))?$", p)
        out.append((m.group(1), m.group(2)))
    return out


FUNCTIONS = [n for n, _, _ in _stub_functions() if not n.split(".")[-1].startswith("__")]


@pytest.mark.parametrize("qualname", FUNCTIONS)
def test_stub_parameters_match_the_binding(qualname):
    node = {n: f for n, f, _ in _stub_functions()}[qualname]
    obj = _core
    for part in qualname.split("."):
        obj = getattr(obj, part)
    runtime = _runtime_params(obj.__doc__ or "", qualname.split(".")[-1])
    args = node.args.args
    defaults = [None] * (len(args) - len(node.args.defaults)) + [ast.unparse(d) for d in node.args.defaults]
    stub = [(a.arg, d) for a, d in zip(args, defaults)]
    assert [n for n, _ in stub] == [n for n, _ in runtime], qualname
    for (n, sd), (_, rd) in zip(stub, runtime):
        assert (sd is None) == (rd is None), f"{qualname}: default of {n}"
        if sd is not None and sd != "...":
            assert ast.literal_eval(sd) == ast.literal_eval(rd), f"{qualname}: default of {n}"


def test_every_runtime_function_is_checked():
    names = {
        n
        for n in dir(_core)
        if callable(getattr(_core, n)) and not n.startswith("_") and not isinstance(getattr(_core, n), type)
    }
    assert names <= set(FUNCTIONS)
