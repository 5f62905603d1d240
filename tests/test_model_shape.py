"""Issue 22, "one model shape": every Pyomo and CP-SAT model of a family is made by a
builder class (:class:`dmlsched.modeling.ModelBuilder`: one ``add_<family>`` per
constraint family, one ``build``, one ``extract``).  Checked by AST over
``src/dmlsched/problems``: a ``ConcreteModel(...)`` or ``CpModel(...)`` call outside a
method of a ``ModelBuilder`` subclass (found by name through the classes' bases) fails."""

from __future__ import annotations

import ast
from pathlib import Path

PROBLEMS = Path(__file__).resolve().parents[1] / "src" / "dmlsched" / "problems"
MAKERS = ("ConcreteModel", "CpModel")


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def builder_classes(trees: dict[str, ast.AST]) -> set[str]:
    """Names of ``ModelBuilder`` and of every class deriving from it, transitively."""
    found = {"ModelBuilder"}
    grew = True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if (isinstance(node, ast.ClassDef) and node.name not in found
                        and any(_name(b) in found for b in node.bases)):
                    found.add(node.name)
                    grew = True
    return found


def models_outside_builders(trees: dict[str, ast.AST]) -> list[str]:
    """``path:line maker`` of every model made outside a builder class."""
    builders = builder_classes(trees)
    out: list[str] = []

    def visit(node: ast.AST, cls: str | None, path: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.ClassDef) else cls
            if isinstance(child, ast.Call) and _name(child.func) in MAKERS and cls not in builders:
                out.append(f"{path}:{child.lineno} {_name(child.func)}")
            visit(child, inner, path)

    for path, tree in trees.items():
        visit(tree, None, path)
    return sorted(out)


def _trees() -> dict[str, ast.AST]:
    return {str(p.relative_to(PROBLEMS)): ast.parse(p.read_text()) for p in sorted(PROBLEMS.rglob("*.py"))}


def test_every_model_is_made_by_a_builder_class():
    trees = _trees()
    assert len(trees) > 50
    assert models_outside_builders(trees) == []


def test_the_check_finds_a_model_made_in_a_plain_function():
    planted = {
        "x/plain.py": ast.parse("import pyomo.environ as pyo\ndef lp():\n    return pyo.ConcreteModel()\n"),
        "x/cp.py": ast.parse("from ortools.sat.python import cp_model\nm = cp_model.CpModel()\n"),
        "x/ok.py": ast.parse("class B(ModelBuilder):\n    def build(self):\n        self.model = pyo.ConcreteModel()\n"
                             "class C(B):\n    def build(self):\n        return CpModel()\n"),
    }
    assert models_outside_builders(planted) == ["x/cp.py:2 CpModel", "x/plain.py:3 ConcreteModel"]
