"""The import graph of ``dmlsched`` may only get simpler (issue 22, ratchet mode).

The graph is read from the source with :mod:`ast` (nothing is imported):

* relative imports are resolved; ``from pkg import sub`` is an edge to
  ``pkg.sub`` when ``sub`` is a module, else to ``pkg``;
* module-level and function-level imports are edges; imports under
  ``if TYPE_CHECKING:`` count only for the "imports ``dmlsched.cli``" rule;
* importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` and ``a``: each
  import adds edges to the target's parent packages, except those the
  importing module already sits in (they are running or ran).

Three ratchets, each an allowlist measured on the code when the test was
written (PLAN-22, step A1).  Growth fails; shrinking passes silently, and the
allowlist is shrunk by hand in the commit that removes a circle or an import
(step G1 makes the test strict: no circle, no function-level import):

1. every strongly connected component (a circle of imports) must lie inside
   one of :data:`KNOWN_SCCS` (a new circle, or a module joining one, fails);
2. only the modules in :data:`KNOWN_CLI_IMPORTERS` import ``dmlsched.cli``
   (entry points named ``__main__.py`` may), at most that many statements;
3. a file has at most :data:`FUNCTION_LEVEL_IMPORTS` import statements of
   ``dmlsched`` modules inside functions.

The checker functions are also run on a package written to ``tmp_path`` with
a planted circle, a library module importing ``pkg.cli`` and a function-level
import, where each check must fail.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: the circles measured at 341f5d7 were PLAN-22's seven (1.1) and two that came with issues 23-26;
#: steps B1, B2, B5, B6, the Harmony step and C2 (branch i22b) removed RAR's two, Hare's cp/lowerbounds,
#: kit/registry, hunt guided/search, Harmony's four-file circle, and took ``bench.reproduce``,
#: ``hunt.evaluate``, ``hunt.guided``, ``hunt.search`` and Hare's claims out of the CLI circle (with
#: package edges); step C3 (branch i22c: the ``cli/`` package) removed the CLI circle; branch i22e removed
#: the last two: Hare's decomposition/relaxation (``check_relaxed`` to ``hare/relaxcheck.py``) and moldable
#: cp/models (``memory_scale`` to ``moldable/models.py``).  Empty: every circle fails
#: (``test_planted_problems_are_caught`` shows the check failing with an empty allowlist)
KNOWN_SCCS: tuple[frozenset[str], ...] = ()

#: modules (other than ``dmlsched.cli`` itself and ``__main__`` entry points) importing ``dmlsched.cli``
#: or a module of it, with their number of import statements
#: (none since step C3: ``plot``, ``bench.cli`` and ``hunt.cli`` imported it before)
KNOWN_CLI_IMPORTERS: dict[str, int] = {}

#: import statements of dmlsched modules inside functions, per file under ``src/`` (261 in 64 files
#: at 341f5d7; PLAN-22 1.2 counted 200 in 55 before issues 21 and 23-26 merged; 220 in 48 after
#: steps B1, B2, B5, B6, the Harmony step and C2; 204 after C3, with cli.py split over the cli/ package;
#: 198 in 48 after C4; 197 in 47 after i22e's Hare decomposition/relaxation step, 195 in 47 after its
#: moldable cp/models step; 185 in 46 after i22f's B3, the split of cruise/models.py; 180 in 45 after
#: i22h's E1, the registry's one family loader imported at the top of io, cli/paths and bench/child;
#: 177 in 44 after its E6, claims read from the registry by claims.all_claims and bench/reproduce;
#: 175 in 42 after its E7, json_values in dmlsched/fuzz.py; 172 in 42 after its E2, the families'
#: Gantt bars in their solution.py; 164 in 44 with main at 97cce9f merged, i22j's module-role steps;
#: 154 in 44 on main after the merges of i22i and i22h and Harmony's bars and sampler moved; 152 with
#: bench/runner's registry and options imports at the top; 139 in 39 after i22l's E5, the paper setups in
#: problems/<f>/generate.py and the trace converters in problems/moldable/traces.py, all imported at the top;
#: 102 in 20 after G1's first step (s4-imports): none left in the families; none after its second)
FUNCTION_LEVEL_IMPORTS: dict[str, int] = {}


@dataclass(frozen=True)
class Edge:
    """One (import statement, target module) pair."""

    source: str
    target: str
    path: str
    line: int
    where: str  # "module", "function" or "type_checking"
    implicit: bool = False  # an edge to a parent package of the named target


def module_names(src: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every ``*.py`` of ``package`` under ``src``."""
    out = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with where it sits."""
    found: list[tuple[ast.Import | ast.ImportFrom, str]] = []

    def walk(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, where))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                walk(child, "function" if where != "type_checking" else where)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    walk(ast.Module(body=[stmt], type_ignores=[]), "type_checking")
                for stmt in child.orelse:
                    walk(ast.Module(body=[stmt], type_ignores=[]), where)
            else:
                walk(child, where)

    walk(tree, "module")
    return found


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module ``from ... import`` names, relative levels resolved."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        cand = ".".join(parts[:k])
        if cand in modules:
            return cand
    return None


def _parents(target: str, source: str) -> list[str]:
    """Parent packages of ``target`` that importing it runs, except those ``source`` sits in."""
    parts = target.split(".")
    out = []
    for k in range(1, len(parts)):
        pkg = ".".join(parts[:k])
        if source != pkg and not source.startswith(pkg + "."):
            out.append(pkg)
    return out


def import_edges(src: Path, package: str) -> list[Edge]:
    """Every import edge between modules of ``package`` (a folder under ``src``)."""
    modules = module_names(src, package)
    edges: list[Edge] = []
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), filename=str(path))
        rel = path.relative_to(src).as_posix()
        for node, where in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [t for a in node.names if (t := _known(a.name, modules))]
            else:
                base = _base(module, is_package, node)
                for a in node.names:
                    t = _known(f"{base}.{a.name}", modules) if f"{base}.{a.name}" in modules else _known(base, modules)
                    if t:
                        targets.append(t)
            for t in dict.fromkeys(targets):
                if t == module:
                    continue
                edges.append(Edge(module, t, rel, node.lineno, where))
                for p in _parents(t, module):
                    edges.append(Edge(module, p, rel, node.lineno, where, implicit=True))
    return edges


def strongly_connected(edges: list[Edge]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components of size > 1 over runtime edges (not ``TYPE_CHECKING``);
    recursive, as deep as the longest import chain (far below Python's default limit)."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        if e.where != "type_checking":
            graph.setdefault(e.source, set()).add(e.target)
            graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: sorted(c))


def cli_importers(edges: list[Edge], cli: str) -> dict[str, int]:
    """Modules outside ``cli`` (and not ``__main__``) importing it or a module of it: number of statements each."""
    seen = {
        (e.source, e.path, e.line)
        for e in edges
        if (e.target == cli or e.target.startswith(cli + ".")) and not e.implicit
        and e.source != cli and not e.source.startswith(cli + ".") and not e.source.endswith("__main__")
    }
    return dict(Counter(src for src, _, _ in seen))


def function_level_imports(edges: list[Edge]) -> dict[str, int]:
    """Import statements of package modules inside functions, per file."""
    seen = {(e.path, e.line) for e in edges if e.where == "function" and not e.implicit}
    return dict(Counter(path for path, _ in seen))


def describe(comp: frozenset[str], edges: list[Edge]) -> str:
    """A circle with the file:line of each edge inside it."""
    inside = sorted({f"  {e.source} -> {e.target} ({e.path}:{e.line}, {e.where}{', package' if e.implicit else ''})"
                     for e in edges if e.source in comp and e.target in comp and e.where != "type_checking"})
    return f"{{{', '.join(sorted(comp))}}}\n" + "\n".join(inside)


def new_circles(sccs: list[frozenset[str]], known: tuple[frozenset[str], ...]) -> list[frozenset[str]]:
    """Components not inside one known component (a new circle, or a circle that grew)."""
    return [c for c in sccs if not any(c <= k for k in known)]


def grown(counts: dict[str, int], allowed: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Keys whose count exceeds the allowance (0 when not listed): ``key -> (count, allowed)``."""
    return {k: (v, allowed.get(k, 0)) for k, v in sorted(counts.items()) if v > allowed.get(k, 0)}


# --------------------------------------------------------------------------- the ratchets on dmlsched

EDGES = import_edges(SRC, "dmlsched")


def test_no_new_import_circle():
    bad = new_circles(strongly_connected(EDGES), KNOWN_SCCS)
    assert not bad, "new or grown import circles (move the shared piece to a lower module):\n" + "\n".join(
        describe(c, EDGES) for c in bad
    )


def test_no_new_import_of_the_cli():
    bad = grown(cli_importers(EDGES, "dmlsched.cli"), KNOWN_CLI_IMPORTERS)
    assert not bad, f"library modules importing dmlsched.cli beyond the allowlist (count, allowed): {bad}"


def test_no_new_function_level_import():
    bad = grown(function_level_imports(EDGES), FUNCTION_LEVEL_IMPORTS)
    assert not bad, f"function-level imports of dmlsched modules beyond the allowlist (count, allowed): {bad}"


def test_the_graph_is_read():
    """The reader sees the package: a known module-level edge and every module."""
    mods = module_names(SRC, "dmlsched")
    assert {"dmlsched", "dmlsched.api", "dmlsched.cli", "dmlsched.kit"} <= set(mods)
    assert any(e.source == "dmlsched.api" and e.target == "dmlsched.kit" and e.where == "module" for e in EDGES)


# --------------------------------------------------------------------------- the checks can fail


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_planted_problems_are_caught(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/cli.py": "from .lib import a\n",
        "pkg/lib/__init__.py": "from . import a\n",
        "pkg/lib/a.py": "from .b import thing\n",
        "pkg/lib/b.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..cli import main\n"
            "def thing():\n    from . import a\n    return a\n"
        ),
        "pkg/plot.py": "def draw():\n    from pkg.cli import main\n    from .cli import main as m2\n",
        "pkg/__main__.py": "from .cli import main\n",
        "pkg/ok.py": "from .lib import b\n",
    })
    edges = import_edges(tmp_path, "pkg")
    sccs = strongly_connected(edges)
    assert sccs == [frozenset({"pkg.lib.a", "pkg.lib.b"})]
    assert new_circles(sccs, ()) == sccs  # an empty allowlist (KNOWN_SCCS today) rejects every circle
    assert new_circles(sccs, KNOWN_SCCS) == sccs
    assert new_circles(sccs, (frozenset({"pkg.lib.a", "pkg.lib.b", "pkg.x"}),)) == []
    assert new_circles(sccs, (frozenset({"pkg.lib.a", "pkg.x"}),)) == sccs  # the circle grew
    assert "pkg/lib/b.py:5" in describe(sccs[0], edges)
    # ok.py importing pkg.lib.b runs pkg/lib/__init__ (a package edge); __main__ may import the cli
    assert any(e.source == "pkg.ok" and e.target == "pkg.lib" and e.implicit for e in edges)
    cli = cli_importers(edges, "pkg.cli")
    assert cli == {"pkg.plot": 2, "pkg.lib.b": 1}
    assert grown(cli, {"pkg.plot": 2}) == {"pkg.lib.b": (1, 0)}
    assert grown(cli, {"pkg.plot": 1, "pkg.lib.b": 1}) == {"pkg.plot": (2, 1)}
    assert grown(cli, {"pkg.plot": 3, "pkg.lib.b": 1}) == {}  # shrinking passes
    fl = function_level_imports(edges)
    assert fl == {"pkg/lib/b.py": 1, "pkg/plot.py": 2}
    assert grown(fl, {}) == {"pkg/lib/b.py": (1, 0), "pkg/plot.py": (2, 0)}


def test_a_package_init_circle_is_caught(tmp_path):
    """A module importing its package's sibling through the package runs no new ``__init__``,
    but a package importing a module that imports the package back is a circle."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "from .m import f\n",
        "pkg/sub/m.py": "def f():\n    pass\n",
        "pkg/other.py": "from .sub import m\n",
        "pkg/sub/n.py": "import pkg.other\n",
    })
    edges = import_edges(tmp_path, "pkg")
    assert strongly_connected(edges) == []  # sub.m's own package is not re-run
    _write(tmp_path, {"pkg/sub/__init__.py": "from .m import f\nfrom .n import *\n"})
    edges = import_edges(tmp_path, "pkg")
    # pkg.sub -> pkg.sub.n -> pkg.other -> pkg.sub (package edge of pkg.sub.m)
    assert strongly_connected(edges) == [frozenset({"pkg.sub", "pkg.sub.n", "pkg.other"})]


def test_importing_a_module_of_a_cli_package_counts(tmp_path):
    """With ``cli`` a package, importing one of its modules is importing the CLI; its own
    modules and ``__main__`` may import each other."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/cli/__init__.py": "from .args import seed\n",
        "pkg/cli/args.py": "from ..lib import x\ndef seed():\n    pass\n",
        "pkg/cli/__main__.py": "from . import seed\n",
        "pkg/lib.py": "x = 1\ndef f():\n    from .cli.args import seed\n",
        "pkg/__main__.py": "from .cli.args import seed\n",
    })
    edges = import_edges(tmp_path, "pkg")
    assert cli_importers(edges, "pkg.cli") == {"pkg.lib": 1}
    assert strongly_connected(edges) == [frozenset({"pkg.cli", "pkg.cli.args", "pkg.lib"})]
