"""One-way layering (DESIGN "Layout"; issue 36 item 4), read from the sources as text.

C++: a file under ``cpp/include/memcomp/<layer>/`` or ``cpp/src/<layer>/`` includes memcomp headers
of its own layer and of the layers it stands on only:

    core  <-  stats  <-  codecs, analysis (peers: neither includes the other)  <-  pipelines

(shared primitives such as symbol counts and report policies live in ``stats``; encode + Energy
Control, which joins a codec and an analysis, lives in ``pipelines``). The bindings and the tests
sit above them all. Python: the package's import graph has no cycle, counting imports deferred into
a function too (only ``if TYPE_CHECKING:`` blocks are left out).
"""

from __future__ import annotations

import ast
import pathlib
import re
from typing import Dict, List, Set, Tuple

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The memcomp layers each layer may include (itself included).
ALLOWED: Dict[str, Set[str]] = {
    "core": {"core"},
    "stats": {"core", "stats"},
    "codecs": {"core", "stats", "codecs"},
    "analysis": {"core", "stats", "analysis"},
    "pipelines": {"core", "stats", "codecs", "analysis", "pipelines"},
}

_INCLUDE = re.compile(r'^\s*#\s*include\s+"memcomp/([^/"]+)/[^"]*"', re.M)


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str:
    """The layer of a C++ file: its folder under cpp/include/memcomp or cpp/src."""
    rel = path.relative_to(root).parts
    if rel[:3] == ("cpp", "include", "memcomp"):
        return rel[3]
    assert rel[:2] == ("cpp", "src"), path
    return rel[2]


def cpp_files(root: pathlib.Path) -> List[pathlib.Path]:
    files = []
    for base in (root / "cpp" / "include" / "memcomp", root / "cpp" / "src"):
        files += [p for p in base.rglob("*") if p.suffix in (".hpp", ".cpp", ".h", ".cc")]
    return sorted(files)


def include_violations(root: pathlib.Path) -> List[Tuple[str, str]]:
    """(file, included layer) for every include of a layer the file's layer may not include; a
    file in a folder the table does not know is reported as including ``?``."""
    out = []
    for path in cpp_files(root):
        layer = layer_of(path, root)
        if layer not in ALLOWED:
            out.append((str(path.relative_to(root)), "?"))
            continue
        used = _INCLUDE.findall(path.read_text(encoding="utf-8"))
        out.extend((str(path.relative_to(root)), u) for u in used if u not in ALLOWED[layer])
    return out


def python_import_graph(package: pathlib.Path) -> Dict[str, Set[str]]:
    """module -> the package's modules it imports (anywhere in the file but under TYPE_CHECKING)."""
    top = package.name
    modules: Dict[str, pathlib.Path] = {}
    for p in package.rglob("*.py"):
        parts = p.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = p
    graph: Dict[str, Set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for n in ast.walk(node))
        package_of = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: List[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package_of.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
            graph[name].update(t for t in targets if t in modules and t != name and t.split(".")[0] == top)
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


needs_checkout = pytest.mark.skipif(not (ROOT / "cpp" / "src").is_dir(), reason="needs the source checkout")


@needs_checkout
def test_cpp_layers_include_downward_only():
    assert include_violations(ROOT) == []


@needs_checkout
def test_every_cpp_folder_is_a_known_layer():
    folders = {p.name for p in (ROOT / "cpp" / "include" / "memcomp").iterdir() if p.is_dir()}
    folders |= {p.name for p in (ROOT / "cpp" / "src").iterdir() if p.is_dir()}
    assert folders == set(ALLOWED)


@needs_checkout
def test_python_package_imports_have_no_cycle():
    assert cycles(python_import_graph(ROOT / "python" / "memcomp")) == []


def _tree(tmp_path: pathlib.Path, files: Dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_a_codec_including_an_analysis_is_reported(tmp_path):
    root = _tree(
        tmp_path,
        {
            "cpp/include/memcomp/stats/counts.hpp": '#include "memcomp/core/bits.hpp"\n',
            "cpp/src/codecs/fvc.cpp": '#include "memcomp/stats/counts.hpp"\n#include "memcomp/analysis/toggles.hpp"\n',
            "cpp/src/analysis/bus.cpp": '#include "memcomp/codecs/codec.hpp"\n',
            "cpp/src/pipelines/ec.cpp": '#include "memcomp/codecs/codec.hpp"\n#include "memcomp/analysis/bus.hpp"\n',
            "cpp/include/memcomp/core/bits.hpp": '#include "memcomp/stats/counts.hpp"  // core stands on nothing\n',
            "cpp/src/extra/x.cpp": "",
        },
    )
    assert sorted(include_violations(root)) == [
        ("cpp/include/memcomp/core/bits.hpp", "stats"),
        ("cpp/src/analysis/bus.cpp", "codecs"),
        ("cpp/src/codecs/fvc.cpp", "analysis"),
        ("cpp/src/extra/x.cpp", "?"),
    ]


def test_an_import_cycle_is_reported_even_when_deferred(tmp_path):
    pkg = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": "def f():\n    from .c import g\n",  # deferred into a function: still an edge
            "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import x\nfrom .a import y\n",
            "pkg/d.py": "from .c import z\n",  # c -> d only under TYPE_CHECKING: no cycle through d
            "pkg/sub/__init__.py": "",
            "pkg/sub/e.py": "from .. import a\nfrom ..sub import f\n",
            "pkg/sub/f.py": "import pkg.sub.e\n",
        },
    )
    graph = python_import_graph(pkg / "pkg")
    assert graph["pkg.c"] == {"pkg.a"} and graph["pkg.sub.e"] == {"pkg.a", "pkg.sub.f"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.sub.e", "pkg.sub.f"]]


def test_mpc_split_keeps_the_public_api():
    """MPC's training sits below the codecs (memcomp._mpc_train); memcomp.mpc re-exports it and
    every model it hands out is its MPCModel, which builds a codec."""
    import numpy as np

    import memcomp
    from memcomp import codec_list, mpc, report
    from memcomp.analysis import run

    for name in mpc.__all__ + ["TrainMPC", "TrainScans", "TrainStats", "train_stats", "train_from_stats"]:
        assert hasattr(mpc, name), name
    for name in ("resolve_codecs", "fit_missing", "CodecList", "SkippedCodecWarning", "CodecsArg"):
        assert getattr(report, name) is getattr(codec_list, name), name
    rng = np.random.default_rng(0)
    blocks = rng.integers(0, 256, (200, 32), dtype=np.uint8)
    blocks[::4, 16:] = 0  # a mix of groups and zero bytes
    trained = mpc.train(blocks)
    stats = mpc.train_stats(blocks)
    preds = mpc.train_predictors(stats)
    models = {
        "train": trained,
        "runner": run(mpc.TrainMPC(sha256=True), blocks),
        "from_stats": mpc.train_from_stats(stats, preds, mpc.train_scans(blocks, preds)),
        "sampled": mpc.train(blocks, max_blocks=50),
        "runner_sampled": run(mpc.TrainMPC(max_blocks=50), blocks),  # one pass: TrainMPC.finish
        "default": mpc.default_model(),
        "with_source": trained.with_source(blocks, "given"),
    }
    for how, m in models.items():
        assert type(m) is mpc.MPCModel, how
    assert models["runner"] == trained and models["from_stats"].model.data == trained.model.data
    if mpc.mpc_codec_available():
        assert memcomp.get_codec("mpc").fit(blocks) == trained.codec()  # Codec.fit trains below the codecs


#: What marks ISA code in a C++ source: intrinsics, the tiers' target attributes, a tier query.
_ISA = re.compile(r"#\s*include\s+<immintrin\.h>|\bMEMCOMP_AVX(?:2|512)(?:_INLINE)?\b|\bsimd_avx(?:2|512)\s*\(")


def test_isa_code_lives_in_kernel_files():
    """Item 4: each codec's and analysis's ISA kernels live in files of their own (a ``kernels/``
    folder) behind one table chosen by pick_kernels; no other source under cpp/src uses an
    intrinsic, a target attribute or asks for the tier itself (core/simd.cpp, the switch, aside)."""
    src = ROOT / "cpp" / "src"
    offenders = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.[ch]pp")
        if "kernels" not in p.parts and p.relative_to(src).as_posix() != "core/simd.cpp" and _ISA.search(p.read_text())
    )
    assert offenders == []
    # the rule is live: a kernel file matches it
    assert _ISA.search((src / "codecs" / "kernels" / "bpc_avx2.cpp").read_text())
