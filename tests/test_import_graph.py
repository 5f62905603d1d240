"""The import graph of ``dmlsched`` has no circle and follows the layer map (issue 22, strict).

The graph is read from the source with :mod:`ast` (nothing is imported):

* relative imports are resolved; ``from pkg import sub`` is an edge to
  ``pkg.sub`` when ``sub`` is a module, else to ``pkg``;
* module-level and function-level imports are edges; imports under
  ``if TYPE_CHECKING:`` count only for the "imports ``dmlsched.cli``" rule;
* importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` and ``a``: each
  import adds edges to the target's parent packages, except those the
  importing module already sits in (they are running or ran);
* a :class:`dmlsched.family.Ref` whose target is known from the source (a
  string constant ``Ref("pkg.mod:attr")``, or an f-string made only of
  ``__name__`` and constants, ``Ref(f"{__name__}.claims:CLAIMS")``) is an
  edge like an import (``where="ref"``: the import is deferred to its first
  use, which hides no circle and skips no layer), for the circle, layer and
  family rules; a ``Ref`` of a computed target (a user's suite reference)
  cannot be read and is not an edge.

The rules (PLAN-22 section 8.1; step A1 made them ratchets, step G1 strict):

1. no strongly connected component (a circle of imports);
2. no module imports ``dmlsched.cli`` except the CLI's own modules and
   entry points named ``__main__.py``;
3. no import of a ``dmlsched`` module inside a function (all at the top of
   the file; heavy third-party packages stay lazy inside the modules that use
   them, which ``tests/test_template.py`` checks);
4. the layer map of PLAN-22 section 2 (:data:`LAYERS`): a module imports only
   modules of its own or a lower layer, and a family imports another family
   only along :data:`CROSS_FAMILY`;
5. one dynamic loader: only :data:`DYNAMIC_LOADERS` (the registry's family
   loader and the lazy resolver :class:`dmlsched.family.Ref`) call
   ``importlib.import_module``, ``__import__``, ``importlib.util.find_spec``
   or load a module from a file; everything else goes through them.

The checker functions are also run on packages written to ``tmp_path`` with
a planted circle, a library module importing ``pkg.cli``, a function-level
import, an upward import, an undeclared cross-family import, a module with no
layer, a dynamic import, a circle, an upward import and an undeclared
cross-family import made through a ``Ref``, and a ``Ref`` of a computed
target, where each check must fail.
"""

from __future__ import annotations

import ast
import fnmatch
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: PLAN-22 section 2: the layer of each module (L0 lowest).  A key is a module name or an
#: :mod:`fnmatch` pattern over module names; a module takes the layer of its most specific match
#: (the longest key), so ``dmlsched.problems.*.guided`` (a family's hunt plug-in, loaded only by
#: the hunt) overrides ``dmlsched.problems.*``.  Every module must have a layer.
LAYERS: dict[str, int] = {
    # L0: primitives
    "dmlsched.errors": 0, "dmlsched.tolerance": 0, "dmlsched.result": 0, "dmlsched.version": 0,
    "dmlsched.interrupt": 0,
    # L1: options, budget, data-only helpers (``dmlsched.generate`` is the package: its ``__init__``
    # imports only ``_check``)
    "dmlsched.options": 1, "dmlsched.budget": 1, "dmlsched.gantt": 1, "dmlsched.fmt": 1,
    "dmlsched.progress": 1, "dmlsched.stdio": 1, "dmlsched.draws": 1, "dmlsched.fuzz": 1,
    "dmlsched.normalize": 1, "dmlsched.modeling": 1, "dmlsched.formats": 1,
    "dmlsched.generate": 1, "dmlsched.generate._check": 1,
    # L2: the registry, the family description and its one lazy resolver, the solver wrappers
    "dmlsched.registry": 2, "dmlsched.family": 2, "dmlsched.solvers": 2, "dmlsched.cpsat": 2,
    # L3: reading and checking
    "dmlsched.io": 3, "dmlsched.verify": 3,
    # L4: the method kit
    "dmlsched.kit": 4, "dmlsched.incumbents": 4,
    # L5: suites, claims, the event engine, trace readers
    "dmlsched.suites": 5, "dmlsched.claims": 5, "dmlsched.sim": 5, "dmlsched.sim.*": 5,
    "dmlsched.traces": 5, "dmlsched.traces.*": 5,
    # L6: the families
    "dmlsched.problems": 6, "dmlsched.problems.*": 6,
    # L7: the public API and what reads every family
    "dmlsched": 7, "dmlsched.api": 7, "dmlsched.generate.*": 7, "dmlsched.strategies": 7,
    # L8: benchmarks, the hunt (with the families' hunt plug-ins), plots, the instance tools
    "dmlsched.bench": 8, "dmlsched.bench.*": 8, "dmlsched.hunt": 8, "dmlsched.hunt.*": 8,
    "dmlsched.problems.*.guided": 8, "dmlsched.plot": 8, "dmlsched.tools": 8,
    # L9: the command line and the entry points
    "dmlsched.cli": 9, "dmlsched.cli.*": 9, "dmlsched.*.__main__": 9,
}

#: the declared imports between families (package names under ``dmlsched/problems``): HLAS runs on
#: Hare's instances and schedules and groups its GPUs with gpu-grouping.  The AST checks read this
#: copy (nothing is imported); a test below checks it against each ``Family.uses``
CROSS_FAMILY: dict[str, frozenset[str]] = {"hlas": frozenset({"hare", "gpugrouping"})}

#: the functions that may import a module by name (``module``, ``qualified function name``): the
#: registry's family loader and the lazy resolver of family parts, user plugins and suite references
DYNAMIC_LOADERS: frozenset[tuple[str, str]] = frozenset({
    ("dmlsched.registry", "load_families"),
    ("dmlsched.family", "Ref.get"),
    ("dmlsched.family", "_load_file"),
})


#: the functions that may build a ``Ref`` of a computed target (no edge can be drawn for it): a
#: user's plugins and suite references, and the hunt's interim lookup of a family's ``guided.py``.
#: Not checked for stale entries (a family part found through ``Family`` leaves its entry unused)
COMPUTED_REFS: frozenset[tuple[str, str]] = frozenset({
    ("dmlsched.suites", "import_plugins"),
    ("dmlsched.suites", "resolve_callable"),
    ("dmlsched.hunt.search", "guided_strategies"),
})


@dataclass(frozen=True)
class Edge:
    """One (import statement, target module) pair."""

    source: str
    target: str
    path: str
    line: int
    where: str  # "module", "function", "type_checking" or "ref" (a Ref's constant target)
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


def _ref_text(node: ast.Call, module: str) -> str | None:
    """The target of a ``Ref(...)`` call when the source says it: a string constant, or an f-string of
    constants and ``__name__`` (``module``); ``None`` for anything else."""
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "target"), None)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        parts = []
        for v in arg.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            elif (isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id == "__name__"
                  and v.conversion == -1 and v.format_spec is None):
                parts.append(module)
            else:
                return None
        return "".join(parts)
    return None


def _ref_target(node: ast.AST, module: str) -> str | None:
    """The module a ``Ref(...)`` call names (``None``: not a ``Ref``, a target the source does not
    give, or a Python file outside the package)."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Ref"):
        return None
    text = _ref_text(node, module)
    target = text.partition(":")[0] if text else None
    return None if target is None or target.endswith(".py") else target


def ref_edges(tree: ast.AST, module: str, modules: dict[str, Path], rel: str) -> list[Edge]:
    """The edges of the ``Ref`` s of one module whose target the source gives (and its parent packages)."""
    edges = []
    for node in ast.walk(tree):
        name = _ref_target(node, module)
        t = _known(name, modules) if name else None
        if t and t != module:
            edges.append(Edge(module, t, rel, node.lineno, "ref"))
            edges += [Edge(module, p, rel, node.lineno, "ref", implicit=True) for p in _parents(t, module)]
    return edges


def import_edges(src: Path, package: str) -> list[Edge]:
    """Every import edge between modules of ``package`` (a folder under ``src``), the targets of its
    ``Ref`` s included (:func:`ref_edges`)."""
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
        edges += ref_edges(tree, module, modules, rel)
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


def function_level_imports(edges: list[Edge]) -> list[str]:
    """``path:line`` of every import statement of a package module inside a function."""
    return sorted({f"{e.path}:{e.line}" for e in edges if e.where == "function" and not e.implicit})


def describe(comp: frozenset[str], edges: list[Edge]) -> str:
    """A circle with the file:line of each edge inside it."""
    inside = sorted({f"  {e.source} -> {e.target} ({e.path}:{e.line}, {e.where}{', package' if e.implicit else ''})"
                     for e in edges if e.source in comp and e.target in comp and e.where != "type_checking"})
    return f"{{{', '.join(sorted(comp))}}}\n" + "\n".join(inside)


def layer_of(module: str, layers: dict[str, int]) -> int | None:
    """The layer of ``module``: that of its most specific (longest) matching key, ``None`` if none matches."""
    keys = [k for k in layers if fnmatch.fnmatchcase(module, k)]
    return layers[max(keys, key=len)] if keys else None


def unmapped(modules: list[str], layers: dict[str, int]) -> list[str]:
    """Modules no key of ``layers`` matches."""
    return [m for m in modules if layer_of(m, layers) is None]


def upward_imports(edges: list[Edge], layers: dict[str, int]) -> list[str]:
    """Runtime edges from a module to a module of a higher layer (each with its file:line)."""
    out = set()
    for e in edges:
        if e.where == "type_checking":
            continue
        s, t = layer_of(e.source, layers), layer_of(e.target, layers)
        if s is not None and t is not None and t > s:
            out.add(f"{e.source} (L{s}) -> {e.target} (L{t}) at {e.path}:{e.line}{' (package)' if e.implicit else ''}")
    return sorted(out)


def _family(module: str, problems: str) -> str | None:
    rest = module[len(problems) + 1:].split(".") if module.startswith(problems + ".") else []
    return rest[0] if rest else None


def cross_family_imports(edges: list[Edge], problems: str, allowed: dict[str, frozenset[str]]) -> list[str]:
    """Edges from one family (a package under ``problems``) to another that ``allowed`` does not declare."""
    out = set()
    for e in edges:
        if e.where == "type_checking":
            continue
        f, g = _family(e.source, problems), _family(e.target, problems)
        if f and g and f != g and g not in allowed.get(f, frozenset()):
            out.add(f"{e.source} -> {e.target} at {e.path}:{e.line} (family {f} does not declare {g})")
    return sorted(out)


#: what imports a module by name, and the modules that provide it
LOADING_CALLS = frozenset({"import_module", "__import__", "find_spec", "spec_from_file_location",
                           "module_from_spec", "exec_module", "load_module", "reload"})
LOADING_MODULES = ("importlib", "imp")


def dynamic_imports(src: Path, package: str) -> list[tuple[str, str, str]]:
    """``(module, qualified function or "<module>", path:line)`` of every call that imports a module
    by name (``importlib.import_module``, ``__import__``, ``importlib.util.find_spec``, a module
    loaded from a file, ...), also through an alias (``from importlib import import_module as im``)."""
    found = []
    for module, path in module_names(src, package).items():
        tree = ast.parse(path.read_text(), filename=str(path))
        rel = path.relative_to(src).as_posix()
        aliases = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   and (node.module or "").split(".")[0] in LOADING_MODULES
                   for a in node.names if a.name in LOADING_CALLS}

        def visit(node: ast.AST, qual: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(child, f"{qual}.{child.name}" if qual else child.name)
                    continue
                if isinstance(child, ast.Call):
                    f = child.func
                    if ((isinstance(f, ast.Attribute) and f.attr in LOADING_CALLS)
                            or (isinstance(f, ast.Name) and (f.id == "__import__" or f.id in aliases))):
                        found.append((module, qual or "<module>", f"{rel}:{child.lineno}"))
                visit(child, qual)

        visit(tree, "")
    return sorted(found)


def stray_loaders(calls: list[tuple[str, str, str]], allowed: frozenset[tuple[str, str]]) -> list[str]:
    """The dynamic imports outside the allowed functions."""
    return [f"{qual} in {module} ({where})" for module, qual, where in calls if (module, qual) not in allowed]


def computed_refs(src: Path, package: str) -> list[tuple[str, str, str]]:
    """``(module, qualified function or "<module>", path:line)`` of every ``Ref(...)`` whose target
    the source does not give (:func:`_ref_text`), so that no edge can be drawn for it."""
    found = []
    for module, path in module_names(src, package).items():
        tree = ast.parse(path.read_text(), filename=str(path))
        rel = path.relative_to(src).as_posix()

        def visit(node: ast.AST, qual: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(child, f"{qual}.{child.name}" if qual else child.name)
                    continue
                name = getattr(child, "func", None)
                if (isinstance(child, ast.Call) and getattr(name, "id", getattr(name, "attr", None)) == "Ref"
                        and _ref_text(child, module) is None):
                    found.append((module, qual or "<module>", f"{rel}:{child.lineno}"))
                visit(child, qual)

        visit(tree, "")
    return sorted(found)


# --------------------------------------------------------------------------- the rules on dmlsched

EDGES = import_edges(SRC, "dmlsched")
MODULES = list(module_names(SRC, "dmlsched"))


def test_no_import_circle():
    bad = strongly_connected(EDGES)
    assert not bad, "import circles (move the shared piece to a lower module):\n" + "\n".join(
        describe(c, EDGES) for c in bad
    )


def test_nothing_imports_the_cli():
    bad = cli_importers(EDGES, "dmlsched.cli")
    assert not bad, f"library modules importing dmlsched.cli (statements): {bad}"


def test_no_function_level_import():
    bad = function_level_imports(EDGES)
    assert not bad, ("imports of dmlsched modules inside functions (move them to the top of the file; "
                     f"a circle means a shared piece belongs in a lower module): {bad}")


def test_every_module_has_a_layer():
    bad = unmapped(MODULES, LAYERS)
    assert not bad, f"modules with no layer (add them to LAYERS, PLAN-22 section 2): {bad}"


def test_no_import_goes_up_a_layer():
    bad = upward_imports(EDGES, LAYERS)
    assert not bad, "imports of a higher layer (LAYERS):\n" + "\n".join(bad)


def test_families_import_each_other_only_as_declared():
    bad = cross_family_imports(EDGES, "dmlsched.problems", CROSS_FAMILY)
    assert not bad, "imports between families not in CROSS_FAMILY:\n" + "\n".join(bad)


def test_cross_family_table_is_what_the_families_declare():
    """CROSS_FAMILY (package names, read by the AST checks above) allows no import that the
    family's own ``Family.uses`` does not declare (registry names; tests/test_template.py checks
    the converse: every import of another family is declared)."""
    import dmlsched.registry as registry  # noqa: PLC0415 - the graph above is read without importing

    families = registry.families()
    package = {f.name: f.package.rsplit(".", 1)[-1] for f in families}
    for f in families:
        allowed = CROSS_FAMILY.get(package[f.name], frozenset())
        assert allowed <= {package[u] for u in f.uses}, (f.name, sorted(allowed), f.uses)


def test_one_dynamic_loader():
    calls = dynamic_imports(SRC, "dmlsched")
    bad = stray_loaders(calls, DYNAMIC_LOADERS)
    assert not bad, ("modules imported by name outside the registry's loader and dmlsched.family.Ref "
                     f"(use registry.load_families or Ref(...).get()): {bad}")
    assert {(m, q) for m, q, _ in calls} == DYNAMIC_LOADERS  # each allowed loader exists (no stale entry)


def test_every_ref_target_is_read_from_the_source():
    """A ``Ref`` names its target in the source (an edge of the graph above), except where a
    user's or a family's name is only known at run time (:data:`COMPUTED_REFS`)."""
    bad = stray_loaders(computed_refs(SRC, "dmlsched"), COMPUTED_REFS)
    assert not bad, f"Refs whose target is computed (write it as a constant, the graph cannot see it): {bad}"


def test_the_graph_is_read():
    """The reader sees the package: a known module-level edge and every module."""
    assert {"dmlsched", "dmlsched.api", "dmlsched.cli", "dmlsched.kit"} <= set(MODULES)
    assert any(e.source == "dmlsched.api" and e.target == "dmlsched.kit" and e.where == "module" for e in EDGES)
    assert layer_of("dmlsched.problems.hare.guided", LAYERS) == 8 and layer_of("dmlsched.problems.hare", LAYERS) == 6
    assert layer_of("dmlsched.generate", LAYERS) == 1 and layer_of("dmlsched.generate.hare", LAYERS) == 7
    assert layer_of("dmlsched.bench.__main__", LAYERS) == 9
    # a Ref with a constant target, and one built from __name__, are edges
    assert any(e.source == "dmlsched.problems.hare" and e.target == "dmlsched.problems.hare.claims"
               and e.where == "ref" for e in EDGES)


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
    assert "pkg/lib/b.py:5" in describe(sccs[0], edges)
    # ok.py importing pkg.lib.b runs pkg/lib/__init__ (a package edge); __main__ may import the cli
    assert any(e.source == "pkg.ok" and e.target == "pkg.lib" and e.implicit for e in edges)
    assert cli_importers(edges, "pkg.cli") == {"pkg.plot": 2, "pkg.lib.b": 1}
    assert function_level_imports(edges) == ["pkg/lib/b.py:5", "pkg/plot.py:2", "pkg/plot.py:3"]


def test_planted_layer_problems_are_caught(tmp_path):
    """An import of a higher layer (also through a package ``__init__``), an undeclared import
    between families, and a module with no layer."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/errors.py": "",
        "pkg/registry.py": "from . import errors\n",
        "pkg/api.py": "from . import registry\n",
        "pkg/low.py": "from .api import solve\n",  # L1 -> L7
        "pkg/fams/__init__.py": "",
        "pkg/fams/a/__init__.py": "from . import m\n",
        "pkg/fams/a/m.py": "from ..b.n import x\nfrom ..c import y\nfrom ... import registry\n",
        "pkg/fams/b/__init__.py": "",
        "pkg/fams/b/n.py": "x = 1\n",
        "pkg/fams/c/__init__.py": "y = 1\n",
        "pkg/fams/c/plug.py": "from ...api import solve\n",  # L8 by its own key: allowed
        "pkg/stray.py": "",
    })
    layers = {"pkg.errors": 0, "pkg.low": 1, "pkg.registry": 2, "pkg.fams": 6, "pkg.fams.*": 6,
              "pkg.api": 7, "pkg.fams.*.plug": 8, "pkg": 7}
    edges = import_edges(tmp_path, "pkg")
    assert unmapped(list(module_names(tmp_path, "pkg")), layers) == ["pkg.stray"]
    assert upward_imports(edges, layers) == ["pkg.low (L1) -> pkg.api (L7) at pkg/low.py:1"]
    # the family's module imports pkg.fams.b.n, which runs pkg/fams/b/__init__ too
    assert cross_family_imports(edges, "pkg.fams", {}) == [
        "pkg.fams.a.m -> pkg.fams.b at pkg/fams/a/m.py:1 (family a does not declare b)",
        "pkg.fams.a.m -> pkg.fams.b.n at pkg/fams/a/m.py:1 (family a does not declare b)",
        "pkg.fams.a.m -> pkg.fams.c at pkg/fams/a/m.py:2 (family a does not declare c)",
    ]
    assert cross_family_imports(edges, "pkg.fams", {"a": frozenset({"b", "c"})}) == []
    only_b = cross_family_imports(edges, "pkg.fams", {"a": frozenset({"b"})})
    assert only_b == ["pkg.fams.a.m -> pkg.fams.c at pkg/fams/a/m.py:2 (family a does not declare c)"]
    # one layer lower for the API is an upward import from the families
    assert upward_imports(edges, {**layers, "pkg.fams.*.plug": 6}) == [
        "pkg.fams.c.plug (L6) -> pkg.api (L7) at pkg/fams/c/plug.py:1", "pkg.low (L1) -> pkg.api (L7) at pkg/low.py:1"]


def test_planted_dynamic_imports_are_caught(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/registry.py": "import importlib\ndef load_families():\n    importlib.import_module('pkg.x')\n",
        "pkg/search.py": (
            "import importlib, importlib.util\n"
            "from importlib import import_module as im\n"
            "class Finder:\n    def find(self, p):\n        return importlib.util.find_spec(p)\n"
            "def load(p):\n    return im(p)\n"
            "mod = __import__('json')\n"
        ),
        "pkg/ok.py": "def import_module(x):\n    return x\nimport_module(1)\n",  # a local function of that name
    })
    calls = dynamic_imports(tmp_path, "pkg")
    assert [(m, q) for m, q, _ in calls] == [("pkg.registry", "load_families"), ("pkg.search", "<module>"),
                                             ("pkg.search", "Finder.find"), ("pkg.search", "load")]
    assert stray_loaders(calls, frozenset({("pkg.registry", "load_families")})) == [
        "<module> in pkg.search (pkg/search.py:8)", "Finder.find in pkg.search (pkg/search.py:5)",
        "load in pkg.search (pkg/search.py:7)"]


def test_planted_ref_problems_are_caught(tmp_path):
    """A circle closed by a ``Ref`` (constant, keyword, or ``__name__`` f-string), a ``Ref`` up a
    layer, a ``Ref`` to an undeclared family, and a ``Ref`` of a computed target."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/family.py": "class Ref:\n    def __init__(self, target):\n        self.target = target\n",
        "pkg/api.py": "from . import low\n",
        "pkg/low.py": "from .family import Ref\nSOLVE = Ref('pkg.api:solve')\n",  # L1 -> L7, and a circle
        "pkg/fams/__init__.py": "",
        "pkg/fams/a/__init__.py": (
            "from pkg.family import Ref\nfrom . import gen\nC = Ref(target=f'{__name__}.claims:CLAIMS')\n"),
        "pkg/fams/a/gen.py": "from pkg import family\nB = family.Ref('pkg.fams.b.gen:make')\n",
        "pkg/fams/a/claims.py": "CLAIMS = []\n",
        "pkg/fams/b/__init__.py": "from . import gen\n",
        "pkg/fams/b/gen.py": "from ..a import gen\n",  # b uses a; a reaches b through a Ref
        "pkg/user.py": (
            "from .family import Ref\ndef load(p):\n    return Ref(p)\n"
            "X = Ref(f'pkg.{1}')\nY = Ref('plugin.py:f')\n"),
    })
    layers = {"pkg": 7, "pkg.family": 0, "pkg.low": 1, "pkg.api": 7, "pkg.fams": 6, "pkg.fams.*": 6,
              "pkg.user": 8}
    edges = import_edges(tmp_path, "pkg")
    refs = {(e.source, e.target) for e in edges if e.where == "ref" and not e.implicit}
    assert refs == {("pkg.low", "pkg.api"), ("pkg.fams.a", "pkg.fams.a.claims"),
                    ("pkg.fams.a.gen", "pkg.fams.b.gen")}
    assert strongly_connected(edges) == [frozenset({"pkg.api", "pkg.low"}),
                                         frozenset({"pkg.fams.a", "pkg.fams.a.gen", "pkg.fams.b", "pkg.fams.b.gen"})]
    assert upward_imports(edges, layers) == ["pkg.low (L1) -> pkg.api (L7) at pkg/low.py:2"]
    assert cross_family_imports(edges, "pkg.fams", {"b": frozenset({"a"})}) == [
        "pkg.fams.a.gen -> pkg.fams.b at pkg/fams/a/gen.py:2 (family a does not declare b)",
        "pkg.fams.a.gen -> pkg.fams.b.gen at pkg/fams/a/gen.py:2 (family a does not declare b)"]
    assert function_level_imports(edges) == []  # a Ref is not an import statement
    assert [(m, q) for m, q, _ in computed_refs(tmp_path, "pkg")] == [("pkg.user", "<module>"), ("pkg.user", "load")]
    assert stray_loaders(computed_refs(tmp_path, "pkg"), frozenset({("pkg.user", "load")})) == [
        "<module> in pkg.user (pkg/user.py:4)"]


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
