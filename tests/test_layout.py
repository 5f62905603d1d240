"""The layout of the tests and packages (issue 22, build 5).

* Tests mirror the modules: every ``tests/<family>/test_X.py`` of a family (a
  package under ``src/dmlsched/problems``) names a module ``X`` of that family,
  or is ``test_X_<aspect>.py``, unless it is on :data:`CROSS_CUTTING`, a short
  list of files that test no single module, each with its reason.  Entries of
  the list must match a file (no stale entries).

  Not required: that every module has a test file.  Many modules are tested
  through the modules that use them (a family's ``strategies.py`` and
  ``sample.py`` by every property test, ``formulation.py`` through
  ``models.py``, a simulator through the policies it runs); a file per module
  would be an empty shell or a renamed copy.  The modules without one are
  listed by :func:`modules_without_tests` (45 of 102 on 2026-11-27, e.g. ``rar/horizon.py``,
  tested in ``tests/rar/test_bounds.py``, and the new ``baselines.py`` of cruise and
  moldable, tested with the heuristics they came from).
* ``__init__.py`` files register and re-export only: no package ``__init__.py``
  under ``src/dmlsched`` defines a function or a class (read with :mod:`ast`),
  except those on :data:`INIT_DEFINES`, each with its reason.

The checks run on the repository and on trees written to ``tmp_path`` with a
planted test file that names no module and a planted ``__init__.py`` that
defines a function and a class, where they must fail.
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "src" / "dmlsched" / "problems"
TESTS = ROOT / "tests"
SRC = ROOT / "src"

#: test files of a family that test no single module of it (a pattern over
#: ``<family dir>/<file>`` under ``tests/``) -> why
CROSS_CUTTING: dict[str, str] = {
    "*/test_cli.py": "the family's instance files through `dmlsched solve/check/methods`: the command line, "
                     "not a module of the family",
    "*/test_engine_equivalence.py": "issue 23: the current engine against a verbatim copy of the one it "
                                    "replaced (the reference_*.py files beside it), through the simulator, "
                                    "the policies and the replay together",
    "harmony/test_counterexample_search.py": "the proofs script proofs/harmony_cex_search.py and the counts "
                                             "proofs/harmony.md gives",
    "moldable/test_bench_verdicts.py": "the bench engine's verdict for a malleable policy, with exact-cp's "
                                       "whole-space bound carried in its record (bench and the family together)",
    "moldable/test_reference_scope.py": "api.compare's reference-space rule, shown on the family whose exact "
                                        "MIP is optimal over non-preemptive schedules only",
}

#: package ``__init__.py`` files (relative to ``src/``) allowed to define functions or classes -> why
INIT_DEFINES: dict[str, str] = {}


def family_modules(problems: Path) -> dict[str, set[str]]:
    """Family package name -> the names of its modules (without ``__init__``)."""
    return {
        pkg.name: {p.stem for p in pkg.glob("*.py") if p.stem != "__init__"}
        for pkg in sorted(problems.iterdir())
        if (pkg / "__init__.py").is_file()
    }


def _names_module(stem: str, modules: set[str]) -> bool:
    name = stem.removeprefix("test_")
    return any(name == m or name.startswith(m + "_") for m in modules)


def unnamed_test_files(problems: Path, tests: Path, allow: dict[str, str]) -> list[str]:
    """``<family>/<file>`` of every family test file that names no module and is not allowed."""
    out = []
    for family, modules in family_modules(problems).items():
        for path in sorted((tests / family).glob("test_*.py")):
            rel = f"{family}/{path.name}"
            if not _names_module(path.stem, modules) and not any(fnmatch.fnmatchcase(rel, p) for p in allow):
                out.append(rel)
    return out


def stale_entries(tests: Path, allow: dict[str, str]) -> list[str]:
    """Patterns of ``allow`` that match no test file."""
    files = [p.relative_to(tests).as_posix() for p in tests.glob("*/test_*.py")]
    return [p for p in allow if not any(fnmatch.fnmatchcase(f, p) for f in files)]


def modules_without_tests(problems: Path, tests: Path) -> list[str]:
    """``<family>.<module>`` of every module with no ``tests/<family>/test_<module>[_*].py``."""
    out = []
    for family, modules in family_modules(problems).items():
        stems = [p.stem for p in (tests / family).glob("test_*.py")]
        out += [f"{family}.{m}" for m in sorted(modules) if not any(_names_module(s, {m}) for s in stems)]
    return out


def init_definitions(src: Path, package: str) -> list[str]:
    """``<file>:<line> <name>`` of every function or class defined in an ``__init__.py`` of
    ``package`` under ``src`` (at any depth of the file)."""
    out = []
    for path in sorted((src / package).rglob("__init__.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append(f"{path.relative_to(src).as_posix()}:{node.lineno} {node.name}")
    return out


def init_violations(src: Path, package: str, allow: dict[str, str]) -> list[str]:
    """:func:`init_definitions` outside the files of ``allow``."""
    return [d for d in init_definitions(src, package) if d.split(":", 1)[0] not in allow]


def test_family_test_files_name_a_module():
    assert unnamed_test_files(PROBLEMS, TESTS, CROSS_CUTTING) == []


def test_cross_cutting_entries_are_not_stale():
    assert stale_entries(TESTS, CROSS_CUTTING) == []
    assert all(len(reason) > 20 for reason in CROSS_CUTTING.values())


def _write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_planted_test_file_that_names_no_module_fails(tmp_path):
    problems, tests = tmp_path / "src" / "problems", tmp_path / "tests"
    for module in ("__init__", "models", "cp"):
        _write(problems / "fam" / f"{module}.py")
    _write(problems / "notes.txt")  # not a package
    for name in ("test_models.py", "test_models_large.py", "test_cp.py", "test_cli.py", "test_mixed.py",
                 "test_cpx.py", "helper.py"):
        _write(tests / "fam" / name)
    _write(tests / "other" / "test_anything.py")  # not a family's folder
    allow = {"*/test_cli.py": "the command line"}
    assert unnamed_test_files(problems, tests, allow) == ["fam/test_cpx.py", "fam/test_mixed.py"]
    assert unnamed_test_files(problems, tests, {**allow, "fam/test_mixed.py": "r", "fam/test_cpx.py": "r"}) == []
    assert stale_entries(tests, {**allow, "fam/test_gone.py": "r"}) == ["fam/test_gone.py"]
    assert modules_without_tests(problems, tests) == []
    (tests / "fam" / "test_cp.py").unlink()
    assert modules_without_tests(problems, tests) == ["fam.cp"]


def test_package_inits_register_and_re_export_only():
    assert init_violations(SRC, "dmlsched", INIT_DEFINES) == []


def test_init_allowlist_is_not_stale():
    defining = {d.split(":", 1)[0] for d in init_definitions(SRC, "dmlsched")}
    assert sorted(set(INIT_DEFINES) - defining) == []


def test_planted_init_that_defines_things_fails(tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "from .a import f\n\n\ndef helper():\n    return f()\n")
    _write(tmp_path / "pkg" / "a.py", "def f():\n    return 1\n\n\nclass A:\n    pass\n")
    _write(tmp_path / "pkg" / "sub" / "__init__.py", "if True:\n    class Hidden:\n        pass\n")
    _write(tmp_path / "pkg" / "ok" / "__init__.py", "from ..a import A\n\n__all__ = ['A']\n")
    assert init_violations(tmp_path, "pkg", {}) == ["pkg/__init__.py:4 helper", "pkg/sub/__init__.py:2 Hidden"]
    assert init_violations(tmp_path, "pkg", {"pkg/__init__.py": "r", "pkg/sub/__init__.py": "r"}) == []
