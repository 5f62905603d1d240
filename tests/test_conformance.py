"""Conformance of every registered (problem, method) on every bundled instance.

One parametrised test per registered method walks the bundled instances of its
family (``instances/<family>/`` and ``instances/counterexamples/``) and checks:

* the run ends in a known status; every solution passed the validator
  (``solve`` validates) and its objective is the evaluator's;
* same input, seed and options give the same result (whenever the first run
  says it is reproducible, i.e. no wall-clock limit cut it; the runs have work limits only);
* an unknown option is an :class:`~dmlsched.kit.OptionError`;
* no method beats a proven optimum (exact methods of a restricted solution
  space only bound methods of the same space), and no bound method passes it;
* the values recorded in the instance's ``expected`` are met.

The ``expected`` schema of instance files (one for every family)::

    "expected": {
      "optimum":   12.5,                  # proven optimum of the family's model
      "objective": {"list": 14.0},        # value of a method (seed 0, default options)
      "bound":     {"relaxation": 10.0},  # value of a bound method
      "verdict":   {"list": "violated"},  # verdict of check(method) against the family's reference
      "facts":     {...}                  # anything else, read by the family's own tests
    }
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import pytest

import dmlsched
from dmlsched import OptionError, Status
from dmlsched.kit import default_time_limit
from dmlsched.registry import families, get_problem, methods

ROOT = Path(__file__).resolve().parents[1] / "instances"
FILES = sorted(ROOT.rglob("*.json"))

#: CP-SAT deterministic seconds of the methods that declare ``work_limit``: the conformance runs
#: end at the same point at any load (no wall-clock limit that a busy machine can reach); every
#: bundled instance is proven well within it (behaviour digest: 10 units suffice)
WORK = 20.0
#: the wall-clock net of a method that always has a deadline (a heuristic that calls a solver,
#: default 120 s, which a busy machine can reach): no load reaches this one; the method's own work
#: limits end its runs
NET = 3600.0
#: deterministic caps of the pairs that would run for minutes without one (offline-mip: Hare's
#: HiGHS MIP on the figure's instance, no work_limit option): a node limit ends it at the same point
#: at any load
CAPS: dict[tuple[str, str, str], dict] = {
    ("hlas", "offline-mip", "fig9_10.json"): {"solver_options": {"mip_max_nodes": 1}},
}
EXPECTED_KEYS = {"optimum", "objective", "bound", "verdict", "facts"}
REL = 1e-6


@lru_cache(maxsize=None)
def _by_family() -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for f in FILES:
        out.setdefault(json.loads(f.read_text())["problem"], []).append(f)
    return out


@lru_cache(maxsize=None)
def _load(path: Path):
    return dmlsched.load(path)


def _limits(path: Path, method: str) -> dict:
    """The work limits of ``method``'s runs on ``path`` (never a wall clock a busy machine can reach)."""
    problem = json.loads(path.read_text())["problem"]
    m = dmlsched.get_method(problem, method)
    kw: dict = {"work_limit": WORK} if any(o.name == "work_limit" for o in m.options) else {}
    if m.uses_kit and default_time_limit(m.kind, m.uses_solver) is not None:
        kw.update(time_limit=NET)  # wall-clock: the method always has one; NET is beyond any load
    kw.update(CAPS.get((problem, method, path.name), {}))
    return kw


@lru_cache(maxsize=None)
def _run(path: Path, method: str):
    return dmlsched.solve(_load(path), method, seed=0, **_limits(path, method))


def _expected(path: Path) -> dict:
    return getattr(_load(path), "expected", None) or {}


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


METHODS = [(m.problem, m.name) for m in methods()]


def test_every_family_has_bundled_instances_and_methods():
    fams = {f.name for f in families()}
    assert fams <= set(_by_family()), f"families without instances: {fams - set(_by_family())}"
    assert all(any(p == f for p, _ in METHODS) for f in fams)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_expected_follows_the_schema(path):
    exp = _expected(path)
    assert set(exp) <= EXPECTED_KEYS, f"{path.name}: unknown expected keys {set(exp) - EXPECTED_KEYS}"
    problem = json.loads(path.read_text())["problem"]
    known = {m.name for m in methods(problem)}
    for key in ("objective", "bound", "verdict"):
        assert set(exp.get(key, {})) <= known, f"{path.name}: {key} names unknown methods"
    assert all(v in {x.value for x in dmlsched.Verdict} for v in exp.get("verdict", {}).values())


@pytest.mark.parametrize("problem, name", METHODS, ids=[f"{p}/{m}" for p, m in METHODS])
def test_method_conforms(problem, name):
    spec = get_problem(problem)
    m = dmlsched.get_method(problem, name)
    files = _by_family().get(problem, [])
    assert files, f"no bundled instance of {problem}"
    with pytest.raises(OptionError, match="no_such_option"):
        dmlsched.solve(_load(files[0]), name, no_such_option=1)
    sign = 1.0 if spec.sense == "min" else -1.0
    for path in files:
        res = _run(path, name)
        assert res.status in set(Status), path.name
        # a bound method's value is a bound, never an optimum or a schedule's value (issue 24)
        if m.kind == "bound":
            assert res.status not in (Status.OPTIMAL, Status.FEASIBLE), f"{path.name}: {name} says {res.status}"
            assert res.status != Status.BOUND or res.bound is not None, path.name
        else:
            assert res.status != Status.BOUND, f"{path.name}: {name} is no bound method"
        assert res.problem == problem and res.method == name and res.sense == spec.sense
        if res.status == Status.ERROR:
            pytest.fail(f"{path.name}: {name} failed: {res.details.get('error')}")
        if res.solution is not None:
            assert res.objective == pytest.approx(spec.evaluate(_load(path), res.solution))
        if res.reproducible and res.status in (Status.OPTIMAL, Status.FEASIBLE, Status.BOUND):
            again = dmlsched.solve(_load(path), name, seed=0, **_limits(path, name))
            if again.reproducible:
                assert (again.status, again.objective) == (res.status, res.objective), (
                    f"{path.name}: same input and seed gave {again.objective} then {res.objective}"
                )
        exp = _expected(path)
        # the recorded values
        if name in exp.get("objective", {}):
            assert res.objective is not None and _close(res.objective, exp["objective"][name]), (
                f"{path.name}: {name} gives {res.objective}, recorded {exp['objective'][name]}"
            )
        if name in exp.get("bound", {}):
            assert res.objective is not None and _close(res.objective, exp["bound"][name]), path.name
        opt = exp.get("optimum")
        if opt is not None:
            if m.kind == "exact" and res.status == Status.OPTIMAL and m.space is None:
                assert _close(res.objective, opt), f"{path.name}: {name} proves {res.objective}, optimum {opt}"
            if res.solution is not None and m.space is None:
                assert sign * res.objective >= sign * opt - REL * max(1.0, abs(opt)), (
                    f"{path.name}: {name} ({res.objective}) beats the optimum {opt}"
                )
            if m.kind == "bound" and res.objective is not None:
                assert sign * res.objective <= sign * opt + REL * max(1.0, abs(opt)), path.name
        if res.bound is not None and opt is not None and m.space is None:
            assert sign * res.bound <= sign * opt + REL * max(1.0, abs(opt)), (
                f"{path.name}: {name} claims the bound {res.bound} past the optimum {opt}"
            )
        if name in exp.get("verdict", {}):
            rep = dmlsched.check(_load(path), name, **_limits(path, name))
            assert rep.verdict == exp["verdict"][name], f"{path.name}: {name} verdict {rep.verdict}"


def test_exact_never_loses_to_a_method_of_its_space():
    """On every bundled instance, a proven optimum is <= every method's objective
    in the same solution space (minimisation; >= for maximisation)."""
    for problem, files in _by_family().items():
        spec = get_problem(problem)
        sign = 1.0 if spec.sense == "min" else -1.0
        ms = methods(problem)
        for path in files:
            for ex in (m for m in ms if m.kind == "exact"):
                r = _run(path, ex.name)
                if r.status != Status.OPTIMAL:
                    continue
                for other in ms:
                    if other.kind == "bound" or (ex.space is not None and other.space != ex.space):
                        continue
                    o = _run(path, other.name)
                    if o.solution is None:
                        continue
                    assert sign * o.objective >= sign * r.objective - REL * max(1.0, abs(r.objective)), (
                        f"{path.name}: {other.name} {o.objective} beats {ex.name}'s optimum {r.objective}"
                    )


def test_no_bound_is_nan():
    for problem, files in _by_family().items():
        for m in methods(problem):
            for path in files:
                r = _run(path, m.name)
                for v in (r.objective, r.bound):
                    assert v is None or not math.isnan(v)
