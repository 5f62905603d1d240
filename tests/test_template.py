"""The template family (``templates/family/``) works, and every family has its shape.

* The template is loaded as ``--plugin templates/family/__init__.py`` loads it
  (into a copy of the registry, removed afterwards) and every method of it
  passes the checks of ``tests/test_conformance.py`` -- the same functions,
  run on the template's bundled instance: the solution validates and its
  objective is the evaluator's, same seed gives the same result, an unknown
  option is an error, no method beats the proven optimum (exact <= every
  heuristic) and no bound passes it, the recorded ``expected`` values and the
  verdict ``holds`` of Smith's rule are met.  Property tests on the template's
  own strategy: Smith's rule equals brute force (its claimed ratio 1 holds),
  the MIP agrees, the lower bound is below, the loader names bad fields.
* Every registered family (:data:`dmlsched.problems.FAMILIES`) and the
  template have the core files (:data:`dmlsched.problems.CORE_MODULES`), the
  names the registry takes from them, one ``FAMILY`` (a
  :class:`~dmlsched.family.Family`; ``SPEC`` is it) that the registry finds
  by the family's name and its package's name, declared by its own package
  and wired to the functions of its own modules, methods defined in their own modules, a strategy
  ``*_instances``; every other module of a family is named (as ``name.py``) in
  the family's ``__init__`` docstring, and optional modules beyond
  :data:`dmlsched.problems.OPTIONAL_MODULES` are flagged there too.
* Every method is registered in the module of its role; the paper's baselines
  (``Family.baselines``) in ``baselines.py`` or a module the ``__init__``
  docstring names as a baseline module, every method of those modules listed,
  every other heuristic or policy in ``heuristics.py``.
* The registry finds a family in one way (``registry.family``, by its name or
  its package's name); ``ProblemSpec`` is ``Family`` and the older keyword
  registration of plugins builds one; a ``Ref`` imports its target on use.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlsched
import dmlsched.strategies as public
from dmlsched import fuzz, plot, registry, tools
from dmlsched.claims import Claim, all_claims
from dmlsched.cli import load_plugins, main
from dmlsched.draws import RngDraws
from dmlsched.errors import InstanceError, InvalidSolutionError, UnknownMethodError
from dmlsched.family import Family, Ref
from dmlsched.hunt import HuntError, get_space
from dmlsched.modeling import ModelBuilder
from dmlsched.options import RENAMED, RENAMES, Option, OptionError
from dmlsched.problems import CORE_MODULES, FAMILIES, OPTIONAL_MODULES, gpugrouping, hare
from dmlsched.problems.cruise.formulation import CruiseModel
from dmlsched.problems.cruise.typemodel import CountModel
from dmlsched.problems.gpugrouping.models import GroupingModel, TypedGroupingModel
from dmlsched.problems.hare.box import horizon
from dmlsched.problems.hare.formulation import HareFormulation
from dmlsched.problems.hare.models import HareExactMip
from dmlsched.problems.hare.relaxation import HareRelaxationMaster, HareRlMiqcp
from dmlsched.problems.harmony.models import HarmonyMilp
from dmlsched.problems.moldable.models import MoldableMip
from dmlsched.problems.rar.models import IlpBoundModel, ScheduleIlp, nondelay_schedules
from dmlsched.registry import ProblemSpec, RegistryError
from dmlsched.suites import resolve_callable
from dmlsched.traces import TracesNotFound

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "templates" / "family"
TEMPLATE_FILES = sorted(TEMPLATE.glob("*.json"))
TEMPLATE_METHODS = ("brute-force", "exact", "lower-bound", "random", "wspt")

#: what the registry takes from a family's modules (``register_family``)
INSTANCE_NAMES = ("from_dict", "to_dict", "size")
SOLUTION_NAMES = ("validate", "evaluate", "to_json")


def _load_conformance() -> ModuleType:
    """``tests/test_conformance.py`` as a module (its checks, run on other instances)."""
    spec = importlib.util.spec_from_file_location("_conformance_checks", ROOT / "tests" / "test_conformance.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def template():
    """The template package, loaded the way ``--plugin FILE.py`` loads it, into a
    copy of the registry; the registry and ``sys.modules`` are restored afterwards."""
    registry.load_families()
    saved = dict(registry._PROBLEMS), dict(registry._METHODS)

    def _ours() -> list[str]:
        return [m for m, mod in list(sys.modules.items()) if m.startswith("dmlsched_plugin_")
                and str(getattr(mod, "__file__", "") or "").startswith(str(TEMPLATE))]

    for m in _ours():  # loaded before (never by this file): load afresh into the copy
        del sys.modules[m]
    load_plugins([str(TEMPLATE / "__init__.py")])
    pkg = next(sys.modules[m] for m in _ours() if "." not in m)
    try:
        yield pkg
    finally:
        registry._PROBLEMS.clear()
        registry._PROBLEMS.update(saved[0])
        registry._METHODS.clear()
        registry._METHODS.update(saved[1])
        for m in _ours():
            del sys.modules[m]


@pytest.fixture(scope="module")
def conformance(template):
    """The conformance checks, walking the template's bundled instances."""
    mod = _load_conformance()
    files = {"template": list(TEMPLATE_FILES)}
    mod._by_family = lambda: files
    return mod


def _strategies(pkg: ModuleType) -> ModuleType:
    return pkg.FAMILY.strategies.get()


# ---------------------------------------------------------------------------
# (a) the template works


def test_template_registers_as_a_plugin(template):
    spec = dmlsched.get_problem("template")
    assert spec is template.SPEC and spec.sense == "min" and spec.default_reference == "exact"
    assert {m.name for m in dmlsched.methods("template")} == set(TEMPLATE_METHODS)
    assert TEMPLATE_FILES, "the template has a bundled instance"
    inst = dmlsched.load(TEMPLATE_FILES[0])
    assert isinstance(inst, template.TemplateInstance) and dmlsched.problem_of(inst) is spec


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=[p.name for p in TEMPLATE_FILES])
def test_template_declares_its_instance_schema(template, path, capsys):
    """The template declares its format (``Family.schema``, the pattern for plugins) and its
    worked example; ``dmlsched schema`` finds them through the registry, and the schema and
    the template's reader refuse the same mutated files (the checks of ``tests/test_formats.py``)."""
    pytest.importorskip("jsonschema")
    spec = importlib.util.spec_from_file_location("_format_checks", ROOT / "tests" / "test_formats.py")
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    assert template.FAMILY.schema is template.instance.schema
    assert tools.example_path("template") == TEMPLATE / "example.json"
    assert "template" in tools.schema_families()
    checks.test_bundled_instances_validate_against_their_schema(path)
    checks.test_schema_and_reader_agree_on_mutations(path)
    assert main(["schema", "template"]) == 0
    assert json.loads(capsys.readouterr().out) == template.instance.schema()


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=[p.name for p in TEMPLATE_FILES])
def test_template_expected_follows_the_schema(conformance, path):
    conformance.test_expected_follows_the_schema(path)
    exp = json.loads(path.read_text())["expected"]
    assert set(exp["objective"]) == set(TEMPLATE_METHODS) - {"lower-bound"}  # every method recorded
    assert "wspt" in exp["verdict"] and "lower-bound" in exp["bound"]


@pytest.mark.parametrize("name", TEMPLATE_METHODS)
def test_template_method_conforms(conformance, name):
    conformance.test_method_conforms("template", name)


def test_template_exact_never_loses_and_no_nan(conformance):
    conformance.test_exact_never_loses_to_a_method_of_its_space()
    conformance.test_no_bound_is_nan()


def test_template_checks_can_fail(conformance, tmp_path):
    """The checks above are not vacuous: a recorded optimum that a method beats,
    or a wrong recorded objective, fails them."""
    for key, value, match in (("optimum", 39.0, "beats the optimum"), ("objective", {"wspt": 37.0}, "recorded 37")):
        bad = json.loads(TEMPLATE_FILES[0].read_text())
        bad["expected"][key] = value
        path = tmp_path / f"bad-{key}.json"
        path.write_text(json.dumps(bad))
        conformance._by_family = lambda: {"template": [path]}
        try:
            with pytest.raises(AssertionError, match=match):
                conformance.test_method_conforms("template", "wspt")
        finally:
            conformance._by_family = lambda: {"template": list(TEMPLATE_FILES)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_smith_rule_is_optimal_and_the_bound_holds(template, data):
    inst = data.draw(_strategies(template).template_instances(max_jobs=6))
    ref = dmlsched.solve(inst, "brute-force")
    assert ref.status == dmlsched.Status.OPTIMAL
    for ties in ("index", "weight"):
        res = dmlsched.solve(inst, "wspt", ties=ties)
        assert res.objective == pytest.approx(ref.objective, rel=1e-9)  # Smith (1956): ratio 1
    rnd = dmlsched.solve(inst, "random", seed=data.draw(st.integers(0, 2**31 - 1)))
    assert rnd.objective >= ref.objective * (1 - 1e-9)
    lb = dmlsched.solve(inst, "lower-bound")
    assert lb.objective <= ref.objective * (1 + 1e-9)
    rep = dmlsched.check(inst, "wspt", reference="brute-force")
    assert rep.verdict == dmlsched.Verdict.HOLDS


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_template_mip_agrees_with_brute_force(template, data):
    inst = data.draw(_strategies(template).template_instances(min_jobs=2, max_jobs=5))
    mip = dmlsched.solve(inst, "exact")  # at most 5 jobs: no limit, so no load can cut it
    assert mip.reproducible
    ref = dmlsched.solve(inst, "brute-force")
    assert mip.status == dmlsched.Status.OPTIMAL
    assert mip.objective == pytest.approx(ref.objective, rel=1e-6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_template_loader_answers_every_mutation(template, data):
    d = data.draw(_strategies(template).template_dicts_mutated(max_jobs=3))
    try:
        inst = dmlsched.from_dict(d)
    except InstanceError as e:
        assert e.field, f"an InstanceError names the field: {e}"
    else:
        assert dmlsched.to_dict(inst)["jobs"] == d["jobs"]


def test_template_errors_name_the_field_and_the_constraint(template):
    d = json.loads(TEMPLATE_FILES[0].read_text())
    d["jobs"][1]["weight"] = -1
    with pytest.raises(InstanceError, match=r"^jobs\[1\]\.weight: must be > 0"):
        dmlsched.from_dict(d)
    d["jobs"][1]["weight"] = 1
    d["jobs"][2]["id"] = "a"
    with pytest.raises(InstanceError, match=r"jobs\[2\]\.id: duplicate id 'a'"):
        dmlsched.from_dict(d)
    inst = dmlsched.load(TEMPLATE_FILES[0])
    sched = template.TemplateSchedule
    with pytest.raises(InvalidSolutionError, match=r"\(3\)-\(4\) jobs a and b overlap"):
        dmlsched.validate(inst, sched((0.0, 2.0, 8.0, 9.0)))
    with pytest.raises(InvalidSolutionError, match=r"\(2\)"):
        dmlsched.validate(inst, sched((-1.0, 3.0, 8.0, 9.0)))
    dmlsched.validate(inst, sched((1.0, 8.0, 0.0, 4.0)))  # c, a, d, b: Smith's order
    assert dmlsched.evaluate(inst, sched((1.0, 8.0, 0.0, 4.0))) == 38.0
    data = json.loads(json.dumps(template.solution.to_json(inst, sched((1.0, 8.0, 0.0, 4.0)))))
    assert template.FAMILY.solution_from_json(inst, data) == sched((1.0, 8.0, 0.0, 4.0))
    del data["start"]["a"]
    with pytest.raises(InstanceError, match=r"start\.a: missing"):
        template.FAMILY.solution_from_json(inst, data)


# ---------------------------------------------------------------------------
# (b) every family has the template's shape


def _check_layout(pkg: ModuleType, folder: Path) -> None:
    where = pkg.__name__
    assert not [d.name for d in folder.iterdir() if d.is_dir() and d.name != "__pycache__"], (
        f"{where}: sub-packages are not part of the layout")
    modules = {p.stem for p in folder.glob("*.py")}
    missing = set(CORE_MODULES) - modules
    assert not missing, f"{where}: missing core modules {sorted(missing)}"
    doc = pkg.__doc__ or ""
    unnamed = sorted(m for m in modules - {"__init__"} if f"``{m}.py``" not in doc)
    assert not unnamed, f"{where}: the __init__ docstring does not name {[m + '.py' for m in unnamed]}"
    # (the rule for modules outside both lists is the one above: named in the docstring)
    extra = modules - set(CORE_MODULES) - set(OPTIONAL_MODULES)
    assert all(f"``{m}.py``" in doc for m in extra)
    inst_mod = importlib.import_module(f"{where}.instance")
    sol_mod = importlib.import_module(f"{where}.solution")
    for mod, names in ((inst_mod, INSTANCE_NAMES), (sol_mod, SOLUTION_NAMES)):
        for n in names:
            assert callable(getattr(mod, n, None)), f"{mod.__name__} has no {n}"
    spec = pkg.FAMILY
    assert isinstance(spec, Family), f"{where}: FAMILY is not a dmlsched.family.Family"
    assert pkg.SPEC is spec, f"{where}: SPEC is not FAMILY"
    assert registry.family(spec.name) is spec, f"{where}: FAMILY is not the registered family"
    assert spec.package == where, f"{where}: FAMILY.package is {spec.package!r}, not the package declaring it"
    assert registry.family(spec.package_name) is spec, f"{where}: the package name does not find FAMILY"
    wired = {"from_dict": inst_mod.from_dict, "to_dict": inst_mod.to_dict, "size": inst_mod.size,
             "validate": sol_mod.validate, "evaluate": sol_mod.evaluate, "solution_to_json": sol_mod.to_json,
             "key_count": getattr(inst_mod, "key_count", None),
             "solution_from_json": getattr(sol_mod, "from_json", None)}
    for field, fn in wired.items():
        assert getattr(spec, field) is fn, (
            f"{where}: FAMILY.{field} is not {getattr(fn, '__module__', '')}.{getattr(fn, '__name__', fn)}")
    assert (spec.solution_from_json is None) == bool(spec.no_solution_from_json), (
        f"{where}: FAMILY.solution_from_json is None without a no_solution_from_json reason (or both given)")
    has_claims = (folder / "claims.py").is_file()
    assert (spec.claims is not None) == has_claims, (
        f"{where}: FAMILY.claims is {spec.claims}, and the family {'has' if has_claims else 'has no'} claims.py")
    if spec.claims is not None:
        assert spec.claims == Ref(f"{where}.claims:CLAIMS"), f"{where}: FAMILY.claims is {spec.claims}"
    if spec.sample is not None or spec.hunt is not None:
        smp = importlib.import_module(f"{where}.sample")
        assert spec.sample is smp.random_instance and spec.hunt is getattr(smp, "HUNT", None), (
            f"{where}: FAMILY.sample/hunt are not sample.random_instance/sample.HUNT")
    if spec.gantt is not None:
        assert spec.gantt is getattr(sol_mod, "gantt_bars", None), (
            f"{where}: FAMILY.gantt is not {sol_mod.__name__}.gantt_bars")
    if spec.infeasible is not None:  # a cheap infeasibility proof: the family's own code
        assert spec.infeasible.__module__ == where or spec.infeasible.__module__.startswith(where + "."), (
            f"{where}: FAMILY.infeasible is {spec.infeasible.__module__}.{spec.infeasible.__name__}")
    ms = registry.methods(spec.name)
    assert ms, f"{spec.name}: no methods"
    for m in ms:
        mod = m.fn.__module__
        assert mod.rsplit(".", 1)[0] == where and mod.rsplit(".", 1)[1] in modules, (
            f"{spec.name}/{m.name} is defined in {mod}, outside the family's modules")
    has_generate = (folder / "generate.py").is_file()
    assert bool(spec.generators) == has_generate, (
        f"{where}: FAMILY.generators is {dict(spec.generators)}, and the family "
        f"{'has' if has_generate else 'has no'} generate.py")
    if spec.generators:
        gen = importlib.import_module(f"{where}.generate")
        for setup, fn in spec.generators.items():
            assert callable(fn) and getattr(gen, setup, None) is fn, (
                f"{where}: FAMILY.generators[{setup!r}] is not generate.{setup}")
            params = inspect.signature(fn).parameters
            assert "seed" in params and all(q.kind in (q.KEYWORD_ONLY, q.VAR_KEYWORD) for q in params.values()), (
                f"{where}.generate.{setup}: a setup takes keyword-only arguments, seed among them")
    assert spec.strategies == Ref(f"{where}.strategies"), f"{where}: FAMILY.strategies is {spec.strategies}"
    strat = spec.strategies.get()
    public = getattr(strat, "__all__", None)
    assert public and any(n.endswith("_instances") for n in public), (
        f"{where}.strategies: no __all__ with a *_instances strategy")


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_the_template_shape(family):
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    _check_layout(pkg, Path(pkg.__file__).parent)


def test_template_has_its_own_shape(template):
    _check_layout(template, TEMPLATE)
    # the template uses only core and optional names (it is the pattern)
    modules = {p.stem for p in TEMPLATE.glob("*.py")}
    assert modules <= set(CORE_MODULES) | set(OPTIONAL_MODULES)


def test_every_registered_family_is_a_listed_package():
    """Every family of the registry comes from a package in FAMILIES (so the
    layout test above covers all of them)."""
    covered = set()
    for spec in dmlsched.families():
        if not spec.instance_type.__module__.startswith("dmlsched.problems."):
            continue  # a plugin's family (the template, while loaded above)
        pkg = importlib.import_module(spec.package)
        assert pkg.FAMILY is spec
        covered.add(pkg.__name__.rsplit(".", 1)[1])
    assert covered == set(FAMILIES)


def test_layout_check_can_fail(tmp_path, template):
    """A family missing a core file or naming a module nowhere fails the check."""
    folder = tmp_path / "fam"
    folder.mkdir()
    for p in TEMPLATE.glob("*.py"):
        (folder / p.name).write_text(p.read_text())
    (folder / "extra.py").write_text('"""An unnamed module."""\n')
    with pytest.raises(AssertionError, match=r"does not name \['extra.py'\]"):
        _check_layout(template, folder)
    (folder / "extra.py").unlink()
    (folder / "strategies.py").unlink()
    with pytest.raises(AssertionError, match="missing core modules"):
        _check_layout(template, folder)


def _fake_package(template: ModuleType, **family_changes) -> ModuleType:
    """A package that looks like the template but declares a changed ``FAMILY``."""
    fake = ModuleType(template.__name__, template.__doc__)
    fake.FAMILY = fake.SPEC = dataclasses.replace(template.FAMILY, **family_changes)
    return fake


def test_family_check_can_fail(template):
    """A FAMILY that is not the registered one, names another package, is
    wired to a function outside its modules, or a SPEC that is not FAMILY,
    fails the check."""
    fake = _fake_package(template)
    with pytest.raises(AssertionError, match="FAMILY is not the registered family"):
        _check_layout(fake, TEMPLATE)
    registry.register_problem(fake.FAMILY)
    try:
        bad = _fake_package(template, package="elsewhere")
        registry.register_problem(bad.FAMILY)
        with pytest.raises(AssertionError, match="FAMILY.package is 'elsewhere'"):
            _check_layout(bad, TEMPLATE)
        bad = _fake_package(template, evaluate=template.instance.size)
        registry.register_problem(bad.FAMILY)
        with pytest.raises(AssertionError, match=r"FAMILY.evaluate is not .*solution.evaluate"):
            _check_layout(bad, TEMPLATE)
        bad.SPEC = template.FAMILY
        with pytest.raises(AssertionError, match="SPEC is not FAMILY"):
            _check_layout(bad, TEMPLATE)
    finally:
        registry.register_problem(template.FAMILY)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_claims_are_its_own(family):
    """``FAMILY.claims`` gives the family's claims: :class:`~dmlsched.claims.Claim` s
    of this family, each key once, the same that ``all_claims`` collects."""
    spec = registry.family(family)
    if spec.claims is None:
        assert all_claims([family]) == []
        return
    claims = spec.claims.get()
    assert claims and all(isinstance(c, Claim) and c.family == spec.name for c in claims)
    keys = [c.key for c in claims]
    assert len(set(keys)) == len(keys)
    assert all_claims([spec.name]) == claims


def test_all_claims_reads_every_family_in_the_bundled_order():
    order = [f.name for f in registry.bundled_families()]
    assert [registry.family(p).name for p in FAMILIES] == order
    fams = [c.family for c in all_claims()]
    assert fams == sorted(fams, key=order.index)  # grouped by family, in FAMILIES order
    assert {f for f in fams} == {f.name for f in registry.bundled_families() if f.claims is not None}


def _guided_problems(spec: Family, folder: Path) -> list[str]:
    """What is wrong with ``spec.guided`` (issue 22): every key is a registered method of
    the family or ``"*"``; every value is a :class:`Ref` into the family's ``guided.py`` (the
    module role of a solver-guided hunt strategy) that resolves to a callable; and a
    ``guided.py`` is named there (nothing else loads it: importing it registers nothing)."""
    where = spec.package
    out = []
    has_module = (folder / "guided.py").is_file()
    if bool(spec.guided) != has_module:
        out.append(f"{where}: FAMILY.guided is {dict(spec.guided)}, and the family "
                   f"{'has' if has_module else 'has no'} guided.py")
    names = {m.name for m in registry.methods(spec.name)}
    for key, ref in spec.guided.items():
        if key != "*" and key not in names:
            out.append(f"{where}: FAMILY.guided key {key!r} is not a method of {spec.name} (nor '*')")
        if not isinstance(ref, Ref):
            out.append(f"{where}: FAMILY.guided[{key!r}] is {ref!r}, not a Ref")
            continue
        if ref.target.partition(":")[0] != f"{where}.guided":
            out.append(f"{where}: FAMILY.guided[{key!r}] is {ref.target}, outside {where}.guided")
            continue
        try:
            fn = ref.get()
        except ImportError as e:
            out.append(f"{where}: FAMILY.guided[{key!r}] does not resolve: {e}")
            continue
        if not callable(fn):
            out.append(f"{where}: FAMILY.guided[{key!r}] = {ref.target} is not callable")
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_family_guided_strategies_are_in_its_guided_module(family):
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    assert _guided_problems(pkg.FAMILY, Path(pkg.__file__).parent) == []


def test_template_guided_strategies(template):
    assert _guided_problems(template.FAMILY, TEMPLATE) == []


def test_hare_declares_its_guided_strategies():
    """Hare's ``list`` and ``list-queyranne`` (Algorithm 1) have the solver-guided strategy."""
    ref = Ref("dmlsched.problems.hare.guided:hare_guided")
    assert dict(hare.FAMILY.guided) == {"list": ref, "list-queyranne": ref}


def test_guided_check_can_fail():
    """A key that is no method, a Ref outside ``guided.py``, one naming a module (not callable)
    or a missing name, a value that is no Ref, and a ``guided.py`` no declaration names: each
    is reported."""
    folder = Path(hare.__file__).parent
    mod = "dmlsched.problems.hare.guided"
    bad = dataclasses.replace(hare.FAMILY, guided={
        "nope": Ref(f"{mod}:hare_guided"),
        "list": Ref("dmlsched.hunt.guided:guided_search"),
        "list-eft": Ref(mod),
        "smith-eft": Ref(f"{mod}:nothing"),
        "*": hare.FAMILY.guided["list"].get(),
    })
    found = _guided_problems(bad, folder)
    assert len(found) == 5, found
    for needle in ("key 'nope' is not a method of hare", "['list'] is dmlsched.hunt.guided:guided_search, outside",
                   f"['list-eft'] = {mod} is not callable", "['smith-eft'] does not resolve",
                   "['*'] is <function hare_guided"):
        assert any(needle in f for f in found), (needle, found)
    assert _guided_problems(dataclasses.replace(hare.FAMILY, guided={}), folder) == [
        "dmlsched.problems.hare: FAMILY.guided is {}, and the family has guided.py"]


def _smallest_instance(name: str) -> Path:
    files = sorted((ROOT / "instances" / name).glob("*.json"), key=lambda p: (p.stat().st_size, p.name))
    assert files, f"{name}: no bundled instance"
    return files[0]


@pytest.mark.parametrize("family", [*FAMILIES, "template"])
def test_family_gantt_bars_are_in_the_rows_and_in_time(family, request):
    """``Family.gantt`` (``solution.gantt_bars``) on the default reference's solution of
    the family's smallest bundled instance: bars in the chart's rows, ``0 <= start <= end``;
    a family without it says why (``no_gantt``).  Drawn through :func:`dmlsched.plot.gantt_chart`."""
    if family == "template":
        request.getfixturevalue("template")
        path = TEMPLATE_FILES[0]
    else:
        path = _smallest_instance(registry.family(family).name)
    spec = registry.family(family)
    if spec.gantt is None:
        assert spec.no_gantt, f"{family}: no gantt and no no_gantt sentence"
    inst = dmlsched.load(path)
    res = dmlsched.solve(inst, spec.default_reference, seed=0)
    assert res.solution is not None, f"{family}/{spec.default_reference} on {path.name}: {res.status}"
    chart = plot.gantt_chart(inst, res.solution)
    assert chart.tasks, f"{family}: no bars"
    rows = len(chart.row_labels) if chart.row_labels is not None else None
    for t in chart.tasks:
        assert 0 <= t["start"] <= t["end"], t
        assert 0 <= t["gpu"] and (rows is None or t["gpu"] < rows), (t, rows)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_sample_loads_and_keeps_within_the_caps(family):
    """``Family.sample`` (the family's one random builder, drawing through
    ``RngDraws``) at the hunt's default size gives instances the loader reads and
    ``Family.hunt.within`` accepts (20 seeds); the hunt's space samples with it."""
    spec = registry.family(family)
    if spec.hunt is None:
        with pytest.raises(HuntError, match=f"no hunt space for {spec.name!r}"):
            get_space(spec.name)
        return
    size = dict(spec.hunt.default_size)
    space = get_space(spec.name)
    for seed in range(20):
        d = spec.sample(RngDraws(np.random.default_rng(seed)), **size)
        assert isinstance(dmlsched.from_dict(d), spec.instance_type)
        assert spec.hunt.within(d, size), (seed, d)
        assert space.sample(np.random.default_rng(seed), size) == d  # the hunt draws with the builder
    assert space.within is spec.hunt.within
    assert space.default_size == dict(spec.hunt.default_size)


#: the smallest documented arguments of the setups whose defaults are not small (the others run
#: with their defaults); the setups reading a real trace need the shared traces folder
SETUP_ARGS = {("moldable", "gpu_workload"): {"num_tasks": 20, "num_jobs": 4}}
TRACE_SETUPS = {("moldable", "swf"), ("moldable", "openb")}
SETUPS = [(f, s) for f in FAMILIES for s in registry.family(f).generators]


def test_every_family_but_the_template_has_setups():
    assert {f for f, _ in SETUPS} == set(FAMILIES) and len(SETUPS) >= 20


@pytest.mark.parametrize("family, setup", SETUPS, ids=[f"{f}.{s}" for f, s in SETUPS])
def test_family_generators_give_the_familys_instances(family, setup):
    """``Family.generators[setup](seed=0, ...)`` builds an instance of the family (or
    of a family it uses: HLAS's ``paper_grouping`` is gpu-grouping's), the same one for
    the same seed (the public path ``dmlsched.generate.<f>:<setup>`` is the same function)."""
    spec = registry.family(family)
    fn = spec.generators[setup]
    public = "hlas" if family == "gpugrouping" else family  # the grouping setups' public module (generate/hlas.py)
    kw = SETUP_ARGS.get((family, setup), {})
    try:
        inst = fn(seed=0, **kw)
    except TracesNotFound as e:
        assert (family, setup) in TRACE_SETUPS
        pytest.skip(f"needs the shared traces: {e}")
    assert dmlsched.problem_of(inst).name in (spec.name, *spec.uses), type(inst)
    assert dmlsched.to_dict(fn(seed=0, **kw)) == dmlsched.to_dict(inst)
    assert resolve_callable(f"dmlsched.generate.{public}:{setup}") is fn


def _reached_families(package: str, files: dict[str, str]) -> dict[str, list[str]]:
    """The bundled families (registry names) that a family package's modules import
    (at the top or inside a function, absolute or relative) or name in a
    ``Ref("dmlsched.problems.<pkg>...")``: family -> where (``module:line``).

    ``files`` maps a module's name inside the package (``"generate"``) to its source.
    """
    by_package = {f.package_name: f.name for f in registry.bundled_families()}
    own = package.rsplit(".", 1)[-1]
    found: dict[str, list[str]] = {}

    def note(target: str, where: str) -> None:
        parts = target.split(".")
        if parts[:2] == ["dmlsched", "problems"] and len(parts) > 2 and parts[2] != own and parts[2] in by_package:
            seen = found.setdefault(by_package[parts[2]], [])
            if where not in seen:
                seen.append(where)

    for name, src in sorted(files.items()):
        here = f"{package}.{name}" if name != "__init__" else package
        parent = here.split(".") if name == "__init__" else here.split(".")[:-1]
        for node in ast.walk(ast.parse(src)):
            where = f"{name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    note(alias.name, where)
            elif isinstance(node, ast.ImportFrom):
                base = parent[: len(parent) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                note(mod, where)
                for alias in node.names:  # from .. import hare
                    note(f"{mod}.{alias.name}", where)
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Ref"
                  and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                note(node.args[0].value.partition(":")[0], where)
    return found


def _package_sources(spec: Family) -> dict[str, str]:
    folder = Path(importlib.import_module(spec.package).__file__).parent
    return {p.stem: p.read_text() for p in sorted(folder.glob("*.py"))}


@pytest.mark.parametrize("family", FAMILIES)
def test_family_imports_only_the_families_it_uses(family):
    """A family's modules import another family (or name one in a ``Ref``) only if
    ``Family.uses`` declares it, and every declared use is real."""
    spec = registry.family(family)
    reached = _reached_families(spec.package, _package_sources(spec))
    undeclared = {f: where for f, where in reached.items() if f not in spec.uses}
    assert not undeclared, f"{spec.name} imports families it does not declare in Family.uses: {undeclared}"
    assert set(spec.uses) == set(reached), f"{spec.name}: declared uses never imported: {set(spec.uses) - set(reached)}"
    assert all(registry.family(u).name == u for u in spec.uses)


def test_family_uses_are_declared_where_measured():
    """The dependencies between the bundled families, as declared (HLAS's instances
    are Hare's, it groups GPUs with gpu-grouping, whose paper instance is an HLAS
    setup); every other family stands alone."""
    uses = {f.name: set(f.uses) for f in registry.bundled_families()}
    assert uses["hlas"] == {"hare", "gpu-grouping"}
    assert not any(uses[f] for f in uses if f != "hlas")


def test_uses_check_can_fail():
    """An import of another family that ``uses`` does not declare is found, in
    every form (relative, absolute, inside a function, through a ``Ref``)."""
    sources = {
        "a": "from ..hare.instance import HareInstance\n",
        "b": "def f():\n    from dmlsched.problems.rar import counts\n",
        "c": "import dmlsched.problems.cruise.models\n",
        "d": "from .. import harmony\n",
        "e": "from ...family import Ref\nX = Ref('dmlsched.problems.moldable.generate:paper_like')\n",
        "f": "from . import instance\nfrom .instance import x\nY = Ref(f'{__name__}.claims:CLAIMS')\n",
    }
    reached = _reached_families("dmlsched.problems.hlas", sources)
    assert set(reached) == {"hare", "rar", "cruise", "harmony", "moldable"}
    assert reached["rar"] == ["b:2"]
    spec = dataclasses.replace(registry.family("hlas"), uses=("hare",))
    assert set(_reached_families(spec.package, _package_sources(spec))) - set(spec.uses) == {"gpu-grouping"}


def test_public_strategies_are_every_familys_own():
    """:mod:`dmlsched.strategies` re-exports each family's ``Family.strategies``;
    no family's strategies import another family's (hostile JSON comes from
    :mod:`dmlsched.fuzz`)."""
    for spec in registry.bundled_families():
        mod = spec.strategies.get()
        for name in mod.__all__:
            assert getattr(public, name) is getattr(mod, name), name
        src = Path(mod.__file__).read_text()
        others = [f.package_name for f in registry.bundled_families() if f is not spec]
        assert not [o for o in others if f"{o}.strategies" in src], f"{spec.name}: imports another family's strategies"
        if hasattr(mod, "json_values"):
            assert mod.json_values is fuzz.json_values
    assert public.json_values is fuzz.json_values


@pytest.mark.parametrize("family", FAMILIES)
def test_mutated_dicts_get_an_instance_or_an_instance_error(family):
    """Each family's ``*_dicts_mutated`` (valid dicts with hostile JSON from
    :mod:`dmlsched.fuzz` in one field) reaches the loader, which answers with an
    instance or an :class:`InstanceError`, never another exception."""
    mod = registry.family(family).strategies.get()
    names = [n for n in mod.__all__ if n.endswith("_dicts_mutated")]
    for name in names:
        @settings(max_examples=25, deadline=None, database=None)
        @given(getattr(mod, name)())
        def loads(d):
            try:
                dmlsched.from_dict(d)
            except InstanceError:
                pass

        loads()


# ---------------------------------------------------------------------------
# (c) the registry finds a family in one way


def test_family_lookup_takes_the_registry_and_the_package_name():
    assert registry.family("gpu-grouping") is registry.family("gpugrouping") is gpugrouping.FAMILY
    assert registry.get_problem("gpu-grouping") is gpugrouping.FAMILY
    with pytest.raises(UnknownMethodError, match="unknown problem 'gpugrouping'"):
        registry.get_problem("gpugrouping")  # the strict lookup: registry names only
    with pytest.raises(UnknownMethodError, match=r"unknown problem 'nope'; known: .*gpu-grouping"):
        registry.family("nope")
    assert [f.name for f in dmlsched.families()] == sorted(f.name for f in dmlsched.families())


def test_problem_spec_is_family_and_the_older_registration_works(template, capsys):
    """``ProblemSpec`` is :class:`Family`, and a plugin's
    ``register_family(name, instance_module, solution_module, instance_type=...)``
    still builds one, with the instance module's package."""
    assert ProblemSpec is Family
    name = "template-older-form"
    try:
        fam = registry.register_family(name, template.instance, template.solution,
                                       instance_type=template.TemplateInstance, sense="min")
        assert isinstance(fam, Family) and registry.family(name) is fam
        assert fam.package == template.__name__
        assert fam.from_dict is template.instance.from_dict and fam.size is template.instance.size
        assert fam.validate is template.solution.validate
        assert fam.solution_to_json is template.solution.to_json and fam.key_count is None
        assert fam.schema is None and fam.example is None  # a plugin without a declared format:
        assert main(["schema"]) == 0  # ``dmlsched schema`` names it
        assert capsys.readouterr().out.splitlines()[-1] == (
            f"families without an instance schema (Family.schema): {name}")
        assert main(["schema", name]) == 2
        assert f"family {name!r} declares no instance format" in capsys.readouterr().err
        with pytest.raises(RegistryError, match="needs a Family"):
            registry.register_family(name, template.instance, template.solution)
        with pytest.raises(RegistryError, match="takes no other arguments"):
            registry.register_family(fam, template.instance)
    finally:
        registry._PROBLEMS.pop(name, None)


def test_ref_imports_its_target_on_use():
    assert Ref("dmlsched.problems.hare").get() is hare
    assert Ref("dmlsched.problems.hare:FAMILY").get() is registry.family("hare")
    with pytest.raises(ImportError, match="has no attribute 'NOPE'"):
        Ref("dmlsched.problems.hare:NOPE").get()
    with pytest.raises(ImportError):
        Ref("dmlsched.problems.nope").get()
    for bad in ("", "a:", ":b", "a..b", "a.:b"):
        with pytest.raises(ValueError, match="expected 'package.module'"):
            Ref(bad)


def test_loading_every_family_imports_nothing_heavy():
    """Families import solvers, Pyomo and scipy inside the functions that use
    them (the template's pattern), so ``import dmlsched`` and loading the whole
    registry stay fast; checked by what is imported, not by a timing."""
    heavy = ("pyomo", "scipy", "ortools", "highspy", "gurobipy", "matplotlib", "hypothesis", "dask")
    code = ("import sys, dmlsched; dmlsched.families(); "
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "", f"loading the registry imports {r.stdout.strip()}"


# ---------------------------------------------------------------------------
# (c) module roles (docs/architecture.rst, "A family's folder"): a method is registered in the module of the
# technique that computes it

#: the module of each canonical method role (a method named so has that role)
ROLE_MODULE = {"exact": "models", "exact-cp": "cp", "exact-dp": "dp", "brute-force": "bruteforce",
               "relaxation": "relaxation", "lower-bound": "bounds"}
#: the role of an exact method whose name is not canonical
ROLES = {("hlas", "offline-exact"): "exact-cp", ("hlas", "offline-mip"): "exact", ("rar", "exact-nd"): "exact"}
#: the kinds a role module may register; a baseline may also live in a module the family's
#: ``__init__`` docstring names as a baseline module (hare's ``allox.py``; section (d))
MODULE_KINDS = {
    "models": {"exact", "bound"}, "cp": {"exact", "bound"}, "dp": {"exact", "bound"},
    "bruteforce": {"exact", "bound"}, "relaxation": {"bound"}, "bounds": {"bound"},
    "heuristics": {"heuristic", "policy"}, "baselines": {"heuristic", "policy"},
    "instance": set(), "solution": set(), "strategies": set(), "claims": set(), "policies": set(),
    "simulator": set(), "guided": set(), "__init__": set(),
}
#: methods another step of issue 22 is moving (name -> the module it is in until then);
#: this table may only shrink
PENDING_MOVES: dict[tuple[str, str], str] = {}


def _role_problems(problem: str) -> list[str]:
    """What breaks the module roles among the registered methods of ``problem``."""
    bad = []
    for m in registry.methods(problem):
        mod = m.fn.__module__.rsplit(".", 1)[1]
        if PENDING_MOVES.get((problem, m.name)) == mod:
            continue
        role = ROLES.get((problem, m.name), m.name)
        if role in ROLE_MODULE and mod != ROLE_MODULE[role]:
            bad.append(f"{problem}/{m.name} ({role}) is registered in {mod}.py, not {ROLE_MODULE[role]}.py")
        elif role not in ROLE_MODULE and m.kind == "exact":
            bad.append(f"{problem}/{m.name}: an exact method with no role (name it canonically or add it to ROLES)")
        if mod in MODULE_KINDS and m.kind not in MODULE_KINDS[mod]:
            bad.append(f"{problem}/{m.name}: {mod}.py registers kind {m.kind!r} "
                       f"(its role allows {sorted(MODULE_KINDS[mod]) or 'no method'})")
    return bad


@pytest.mark.parametrize("family", FAMILIES)
def test_methods_live_in_the_module_of_their_role(family):
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    assert _role_problems(pkg.SPEC.name) == []


def test_template_methods_live_in_the_module_of_their_role(template):
    assert _role_problems(template.SPEC.name) == []
    modules = {p.stem for p in TEMPLATE.glob("*.py")}
    assert modules <= set(MODULE_KINDS)


def test_every_role_module_is_a_listed_module():
    """The role modules are the template's names: core or optional, one job each."""
    assert set(ROLE_MODULE.values()) | {"baselines"} <= set(CORE_MODULES) | set(OPTIONAL_MODULES)
    assert set(MODULE_KINDS) <= set(CORE_MODULES) | set(OPTIONAL_MODULES)


@contextlib.contextmanager
def _planted_copy(folder: Path, problem: str, edits: dict[str, Callable[[str], str]]) -> Iterator[ModuleType]:
    """A copy of the template in ``folder``, registered as ``problem`` with ``edits``
    (file name -> text change) applied, loaded as a plugin into a copy of the registry;
    the registry and ``sys.modules`` are restored afterwards.  Yields the package."""
    folder.mkdir()
    for p in TEMPLATE.glob("*.py"):
        text = p.read_text()
        if p.name == "instance.py":
            text = text.replace('PROBLEM = "template"', f'PROBLEM = "{problem}"')
        (folder / p.name).write_text(edits.get(p.name, lambda t: t)(text))
    registry.load_families()
    saved = dict(registry._PROBLEMS), dict(registry._METHODS)
    try:
        load_plugins([str(folder / "__init__.py")])
        yield next(mod for mod in list(sys.modules.values())
                   if str(getattr(mod, "__file__", "") or "") == str(folder / "__init__.py"))
    finally:
        registry._PROBLEMS.clear()
        registry._PROBLEMS.update(saved[0])
        registry._METHODS.clear()
        registry._METHODS.update(saved[1])
        for m in [m for m, mod in list(sys.modules.items())
                  if str(getattr(mod, "__file__", "") or "").startswith(str(folder))]:
            del sys.modules[m]


def test_role_check_can_fail(tmp_path):
    """A copy of the template with ``exact-cp`` registered in ``models.py`` (and a
    heuristic registered in ``bounds.py``) fails the role check."""
    edits = {
        "models.py": lambda t: t.replace('@method(PROBLEM, "exact", kind="exact"',
                                         '@method(PROBLEM, "exact-cp", kind="exact"'),
        "bounds.py": lambda t: t.replace('"lower-bound", kind="bound"', '"lower-bound", kind="heuristic"'),
    }
    with _planted_copy(tmp_path / "rolecopy", "template-roles", edits):
        assert {m.name for m in registry.methods("template-roles")} >= {"exact-cp", "lower-bound"}
        bad = _role_problems("template-roles")
        assert "template-roles/exact-cp (exact-cp) is registered in models.py, not cp.py" in bad
        assert any("bounds.py registers kind 'heuristic'" in b for b in bad)


# ---------------------------------------------------------------------------
# (d) the paper's baselines (issue 22: "Names in Family.baselines live in baselines"):
# a method listed in ``Family.baselines`` is registered in ``baselines.py``, or in a module whose
# entry in the family's ``__init__`` docstring opens with "(baseline" (hare's ``allox.py``); every
# method such a module registers is listed; every other heuristic or policy is in ``heuristics.py``

#: a baseline module other than ``baselines.py``, as the family's ``__init__`` docstring names it
BASELINE_MODULE = re.compile(r"``(\w+)\.py``\s+\(baseline\b")


def _baseline_modules(doc: str) -> set[str]:
    """``baselines`` and the modules the ``__init__`` docstring ``doc`` names as baseline modules."""
    return {"baselines"} | set(BASELINE_MODULE.findall(doc))


def _baseline_problems(spec: Family, doc: str) -> list[str]:
    """What breaks the baseline rule among the registered methods of ``spec`` (whose
    package's ``__init__`` docstring is ``doc``)."""
    where = {m.name: (m.fn.__module__.rsplit(".", 1)[1], m.kind) for m in registry.methods(spec.name)}
    modules = _baseline_modules(doc)
    bad = [f"{spec.name}: Family.baselines lists {n!r} twice" for n in sorted(set(spec.baselines))
           if spec.baselines.count(n) > 1]
    for name in spec.baselines:
        if name not in where:
            bad.append(f"{spec.name}: Family.baselines lists {name!r}, which is not a registered method")
        elif where[name][0] not in modules:
            bad.append(f"{spec.name}/{name} is listed in Family.baselines but registered in {where[name][0]}.py, "
                       f"not in baselines.py nor in a baseline module of the __init__ docstring")
    for name, (mod, kind) in sorted(where.items()):
        if mod in modules and name not in spec.baselines:
            bad.append(f"{spec.name}/{name} is registered in {mod}.py but not listed in Family.baselines")
        elif name not in spec.baselines and kind in ("heuristic", "policy") and mod != "heuristics":
            bad.append(f"{spec.name}/{name}: a {kind} that is not a baseline is registered in {mod}.py, "
                       f"not heuristics.py")
    return bad


@pytest.mark.parametrize("family", FAMILIES)
def test_baselines_live_in_baseline_modules(family):
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    assert _baseline_problems(pkg.FAMILY, pkg.__doc__ or "") == []
    folder = Path(pkg.__file__).parent
    assert all((folder / f"{m}.py").is_file() for m in _baseline_modules(pkg.__doc__ or "") - {"baselines"})
    assert bool(pkg.FAMILY.baselines) == (folder / "baselines.py").is_file()


def test_template_baselines_live_in_baselines(template):
    assert template.FAMILY.baselines == ("random",)
    assert _baseline_problems(template.FAMILY, template.__doc__ or "") == []


def test_family_baselines_are_the_papers():
    """Each family's baselines, decided from its paper (the sentence is in models/<family>.md):
    Hare Sec. 7.1 (Gavel_FIFO, SRTF, Sched_Homo, Sched_Allox; the round-level readings of the
    first two), HLAS Sec. VI-D (FIFO, Sched_Homo, Sched_Allo, 2D-LAS; not ``srtf``, our clairvoyant
    ceiling, nor ``hlas-l``, HLAS-P with another predictor), RAR Sec. 7 (FF, LS, RAND), Harmony
    Secs. 4.4.1 and 4.4.7 (isolated, Oracle), Cruise Sec. 3.4.2 (the grid-search ground truth's
    proportional rule) and 3.4.5 (the static configuration), moldable V-B (Rigid FCFS, Rigid
    Shortest); the GPU grouping is compared with nothing."""
    declared = {f.name: set(f.baselines) for f in registry.bundled_families()}
    assert declared == {
        "hare": {"fifo", "srtf", "homo", "allox", "fifo-round", "srtf-round"},
        "hlas": {"fifo", "sched-homo", "sched-allo", "2d-las"},
        "rar": {"ff", "ls", "rand"},
        "harmony": {"isolated", "oracle"},
        "cruise": {"proportional", "static"},
        "moldable": {"rigid-fcfs", "rigid-shortest"},
        "gpu-grouping": set(),
    }


def test_baseline_check_can_fail(tmp_path, template):
    """A copy of the template with its baseline registered in ``heuristics.py`` fails the check,
    naming the method and the module; so do a baseline registered in ``baselines.py`` but not
    listed, a listed name no method has, and hare's AlloX once the docstring no longer names
    ``allox.py`` a baseline module."""
    planted = (
        '\n\n@method(PROBLEM, "random", kind="heuristic", description="Baseline: jobs in reverse order")\n'
        "def solve_random(inst: TemplateInstance, run: Run) -> Result:\n"
        "    return run.result(solution=from_order(inst, list(range(inst.num_jobs))[::-1]))\n"
    )
    edits = {"heuristics.py": lambda t: t + planted,
             "baselines.py": lambda t: '"""Planted: the baseline is registered in heuristics.py."""\n'}
    with _planted_copy(tmp_path / "basecopy", "template-baselines", edits) as pkg:
        assert registry.get_method("template-baselines", "random").fn.__module__.endswith(".heuristics")
        assert _baseline_problems(pkg.FAMILY, pkg.__doc__) == [
            "template-baselines/random is listed in Family.baselines but registered in heuristics.py, "
            "not in baselines.py nor in a baseline module of the __init__ docstring"]
    bad = _baseline_problems(dataclasses.replace(template.FAMILY, baselines=("nope",)), template.__doc__)
    assert bad == ["template: Family.baselines lists 'nope', which is not a registered method",
                   "template/random is registered in baselines.py but not listed in Family.baselines"]
    assert _baseline_problems(dataclasses.replace(template.FAMILY, baselines=("random", "random")),
                              template.__doc__) == ["template: Family.baselines lists 'random' twice"]
    doc = hare.__doc__.replace("``allox.py`` (baseline ``allox``", "``allox.py`` (``allox``")
    assert doc != hare.__doc__
    assert _baseline_problems(hare.FAMILY, doc) == [
        "hare/allox is listed in Family.baselines but registered in allox.py, "
        "not in baselines.py nor in a baseline module of the __init__ docstring"]
    unlisted = dataclasses.replace(hare.FAMILY, baselines=tuple(b for b in hare.FAMILY.baselines if b != "allox"))
    assert _baseline_problems(unlisted, hare.__doc__) == [
        "hare/allox is registered in allox.py but not listed in Family.baselines"]


# ---------------------------------------------------------------------------
# (e) one model shape (issue 22; docs/architecture.rst, "Models")

#: families whose Pyomo and CP-SAT models are all ModelBuilder classes (issue 22, step F3)
BUILDER_FAMILIES = ("gpu-grouping", "cruise", "rar", "moldable", "hlas", "harmony", "hare")
#: families with only some of their models ModelBuilder classes, checked for the shape of those.
#: This table may only shrink (into BUILDER_FAMILIES)
PARTLY_BUILT: tuple[str, ...] = ()
#: a docstring cites an equation "(4)", "(5)-(6)", "(3.6)", a label of models/<family>.md ("(C3')", "(M1)")
#: or a section of models/<family>.md
CITES = re.compile(r"\([A-Z]?\d+(?:\.\d+)*[a-z']?\)|models/[a-z-]+\.md")


def _model_builders(family: str) -> list[type]:
    """The concrete :class:`~dmlsched.modeling.ModelBuilder` classes defined in a family's modules."""
    spec = registry.family(family)
    pkg = importlib.import_module(spec.package)
    found = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{spec.package}.{info.name}")
        found += [c for _, c in sorted(vars(mod).items()) if isinstance(c, type) and issubclass(c, ModelBuilder)
                  and c.__module__ == mod.__name__ and not inspect.isabstract(c)]
    return found


def _check_builder(cls: type, spec_text: str) -> list[str]:
    """What ``cls`` lacks of the model shape: ``build``, ``extract``, an ``add_<c>`` with a docstring
    citing an equation or a models/ section for every ``c`` of ``CONSTRAINTS``, each ``c`` named
    (in backticks) in the family's ``models/<f>.md`` text ``spec_text``."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    problems = [f"{where} has no {n}()" for n in ("build", "extract") if not callable(getattr(cls, n, None))]
    if not cls.CONSTRAINTS:
        problems.append(f"{where}: CONSTRAINTS is empty")
    named = set(re.findall(r"`(?:[A-Za-z_.]+\.)?([A-Za-z_]+)(?:\[[^`]*\])?`", spec_text))
    for c in cls.CONSTRAINTS:
        fn = getattr(cls, f"add_{c}", None)
        if not callable(fn):
            problems.append(f"{where} has no add_{c}()")
        elif not CITES.search(inspect.getdoc(fn) or ""):
            problems.append(f"{where}.add_{c}: the docstring cites no equation (n) nor a models/ section")
        if c not in named:
            problems.append(f"{where}: constraint family {c!r} is not named in models/")
    return problems


def _spec_text(family: str) -> str:
    """``models/<family>.md`` and the family's other specification files ``models/<family>-*.md``."""
    return "\n".join(p.read_text() for p in [ROOT / "models" / f"{family}.md",
                                              *sorted((ROOT / "models").glob(f"{family}-*.md"))])


@pytest.mark.parametrize("family", BUILDER_FAMILIES + PARTLY_BUILT)
def test_model_builders_have_the_shape(family):
    builders = _model_builders(family)
    assert builders, f"{family}: no ModelBuilder class"
    text = _spec_text(family)
    problems = [p for cls in builders for p in _check_builder(cls, text)]
    assert not problems, problems


def _pyomo_builders(family: str, inst) -> list:
    """The family's Pyomo model builders with their default options on ``inst``."""
    if family == "gpu-grouping":
        return [GroupingModel(inst), TypedGroupingModel(inst)]
    if family == "cruise":
        counts = (1,) + (0,) * (len(inst.machine_types) - 1)  # one worker of the first type
        return [CruiseModel(inst, 1), CountModel(inst, counts)]
    if family == "rar":
        return [IlpBoundModel(inst), ScheduleIlp(inst, nondelay_schedules(inst))]
    if family == "moldable":
        return [MoldableMip(inst)]
    if family == "harmony":
        return [HarmonyMilp(inst)]
    if family == "hare":
        box = horizon(inst)
        return [HareFormulation(inst, box), HareExactMip(inst, box), HareRelaxationMaster(inst, box),
                HareRlMiqcp(inst, box)]
    return []  # hlas: CP-SAT only (its components are not named in the proto)


@pytest.mark.parametrize("family", BUILDER_FAMILIES)
def test_pyomo_builders_make_exactly_their_constraints(family):
    """Built with their defaults on the family's smallest bundled instance, the Pyomo builders'
    models hold exactly the constraint components their CONSTRAINTS name."""
    inst = dmlsched.load(_smallest_instance(family))
    for builder in _pyomo_builders(family, inst):
        model = builder.build()
        names = {c.local_name for c in model.component_objects(pyo.Constraint, descend_into=False)}
        assert names == set(type(builder).CONSTRAINTS), (type(builder).__name__, names)


def test_model_shape_check_can_fail():
    """A builder whose constraint family has no add_ method, an add_ method citing nothing,
    or a name the specification never mentions, fails the check."""
    class Bad(ModelBuilder):
        CONSTRAINTS = ("assign", "loose", "absent")

        def build(self):
            self.model = object()
            self.add_constraints()
            return self.model

        def extract(self, values):
            return values

        def add_assign(self):
            """(4) every GPU in one group."""

        def add_loose(self):
            """Something, said nowhere."""

    text = "`model.assign` and `loose`"
    problems = _check_builder(Bad, text)
    assert any("has no add_absent()" in p for p in problems), problems
    assert any("add_loose: the docstring cites no equation" in p for p in problems), problems
    assert any("'absent' is not named in models/" in p for p in problems), problems
    assert not any("assign" in p for p in problems), problems
    assert _check_builder(Bad, text + " `absent`") != []
    with pytest.raises(AttributeError, match="add_absent"):
        Bad().build()


# ---------------------------------------------------------------------------
# (f) one option name per concept (issue 22; docs/architecture.rst, "Methods, runs and budgets")

#: no method declares an old name (the aliases of dmlsched.options.RENAMED map them)
FORBIDDEN = frozenset(RENAMED)
#: one concept, one name, one type
CONCEPTS = {"symmetry": bool, "scale": int, "max_candidates": int, "work_limit": float, "hint": bool,
            "incumbent_cut": bool, "progress_scale": int}


def _option_name_problems(methods: list[tuple[str, tuple[Option, ...]]]) -> list[str]:
    """What breaks the option names among ``(problem/method, declared options)``."""
    refused = {(key, r.old) for r in RENAMES if not r.alias for key in r.methods}
    bad = []
    for key, options in methods:
        for o in options:
            if o.name in FORBIDDEN:
                bad.append(f"{key}: option {o.name!r} is an old name; call it {RENAMED[o.name]!r}")
            if (key, o.name) in refused:
                bad.append(f"{key}: option {o.name!r} was renamed here (another concept elsewhere)")
            if o.name in CONCEPTS and o.type is not CONCEPTS[o.name]:
                bad.append(f"{key}: option {o.name!r} is a {o.type.__name__}, not a {CONCEPTS[o.name].__name__}")
            if "refuse (n/a)" in o.doc and o.name != "max_candidates":
                bad.append(f"{key}: option {o.name!r} is an enumeration cap (refuse (n/a)): call it 'max_candidates'")
    return bad


def _declared(problem: str) -> list[tuple[str, tuple[Option, ...]]]:
    return [(f"{problem}/{m.name}", tuple(m.options)) for m in registry.methods(problem)]


@pytest.mark.parametrize("family", FAMILIES)
def test_option_names_are_one_per_concept(family):
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    assert _option_name_problems(_declared(pkg.SPEC.name)) == []


def test_template_option_names_are_one_per_concept(template):
    assert _option_name_problems(_declared(template.SPEC.name)) == []


def test_every_rename_names_methods_that_declare_the_new_name():
    registry.load_families()
    for r in RENAMES:
        assert r.methods, r
        for key in r.methods:
            names = {o.name for o in registry.get_method(*key.split("/")).options}
            assert r.new in names and r.old not in names, (key, r)


def test_option_name_check_can_fail():
    """An old name, a name renamed on its method, a concept of another type and an
    enumeration cap under another name are each reported."""
    methods = [
        ("x/exact", (Option("gpu_symmetry", bool, True, "order identical GPUs"),)),
        ("rar/exact-cp", (Option("scale", int, None, "progress units"),)),
        ("x/exact-cp", (Option("scale", float, None, "time scale"),)),
        ("x/brute-force", (Option("limit", int, 10, "refuse (n/a) beyond it"),
                           Option("cap", int, 10, "refuse (n/a) when more would be enumerated"))),
        ("x/fine", (Option("symmetry", bool, True, ""), Option("max_candidates", int, 5, "refuse (n/a) beyond"))),
    ]
    bad = _option_name_problems(methods)
    assert "x/exact: option 'gpu_symmetry' is an old name; call it 'symmetry'" in bad
    assert "rar/exact-cp: option 'scale' was renamed here (another concept elsewhere)" in bad
    assert "x/exact-cp: option 'scale' is a float, not a int" in bad
    assert any(b.startswith("x/brute-force: option 'limit' is an old name") for b in bad)
    assert "x/brute-force: option 'cap' is an enumeration cap (refuse (n/a)): call it 'max_candidates'" in bad
    assert not any(b.startswith("x/fine") for b in bad)



def _choice_refusals(problem: str) -> list[str]:
    """Each kit method called with a value outside an option's ``choices`` (and no
    instance: a body that ran would fail otherwise): what is not an
    :class:`OptionError` naming that option, raised before the body runs."""
    bad = []
    for m in registry.methods(problem):
        if not m.uses_kit:
            continue
        for o in m.options:
            if o.choices is None or o.type is not str:
                continue
            try:
                m.fn(None, **{o.name: "not-one-of-the-choices"})
                bad.append(f"{problem}/{m.name}: {o.name} outside its choices ran")
            except OptionError as e:
                if e.option != o.name:
                    bad.append(f"{problem}/{m.name}: {o.name} outside its choices: an error naming {e.option!r}")
            except Exception as e:  # noqa: BLE001 - any other error means the body was entered
                bad.append(f"{problem}/{m.name}: {o.name} outside its choices entered the body ({type(e).__name__})")
    return bad


@pytest.mark.parametrize("family", FAMILIES)
def test_a_value_outside_the_choices_is_refused_before_the_body(family):
    """The kit refuses it, so no method re-checks ``choices`` inside (issue 22)."""
    pkg = importlib.import_module(f"dmlsched.problems.{family}")
    assert _choice_refusals(pkg.SPEC.name) == []
    assert any(o.choices for m in registry.methods(pkg.SPEC.name) for o in m.options) or family == "gpu-grouping"


def test_choice_check_can_fail(monkeypatch):
    """A method whose wrapper does not check its options enters its body with the bad value."""
    registry.load_families()
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    entered = []

    def unchecked(instance, **given):
        entered.append(given)

    unchecked.body = unchecked  # counts as a kit method
    real = registry.get_method("rar", "ff")
    monkeypatch.setitem(registry._METHODS, ("rar", "ff"), dataclasses.replace(real, fn=unchecked))
    assert _choice_refusals("rar") == ["rar/ff: order outside its choices ran"]
    assert entered == [{"order": "not-one-of-the-choices"}]
