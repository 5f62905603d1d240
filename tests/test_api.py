"""solve() trusts no method: it validates, recomputes and cross-checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dmlsched
from dmlsched import InvalidSolutionError, Result, Status, registry
from dmlsched.api import compare
from dmlsched.problems.hare.heuristics import list_schedule, priority_order


@pytest.fixture
def inst(tiny_hare_dict):
    return dmlsched.from_dict(tiny_hare_dict)


def _register(monkeypatch, name, fn, kind="heuristic", bound=None):
    spec = registry.MethodSpec(problem="hare", name=name, fn=fn, kind=kind, bound=bound)
    monkeypatch.setitem(registry._METHODS, ("hare", name), spec)


def _greedy(inst):
    return list_schedule(inst, priority_order(inst, np.zeros(inst.num_tasks)))


def test_invalid_solution_is_caught(monkeypatch, inst):
    def broken(inst, **kw):
        s = _greedy(inst)
        s.start[-1] = 0.0  # a round-1 task at time 0 breaks the barrier (7)
        return Result("hare", "broken", Status.FEASIBLE, solution=s)

    _register(monkeypatch, "broken", broken)
    with pytest.raises(InvalidSolutionError, match=r"\(7\)"):
        dmlsched.solve(inst, "broken")


def test_objective_recomputed_and_cross_checked(monkeypatch, inst):
    def liar(inst, **kw):
        return Result("hare", "liar", Status.FEASIBLE, objective=1.0, solution=_greedy(inst))

    def honest(inst, **kw):
        return Result("hare", "honest", Status.FEASIBLE, solution=_greedy(inst))

    _register(monkeypatch, "liar", liar)
    _register(monkeypatch, "honest", honest)
    with pytest.raises(InvalidSolutionError, match="reported objective"):
        dmlsched.solve(inst, "liar")
    res = dmlsched.solve(inst, "honest")
    assert res.objective == pytest.approx(dmlsched.evaluate(inst, res.solution))
    assert res.status == Status.FEASIBLE


def test_bound_on_wrong_side_is_caught(monkeypatch, inst):
    def bad_bound(inst, **kw):
        s = _greedy(inst)
        return Result("hare", "bb", Status.FEASIBLE, bound=1e9, solution=s)

    _register(monkeypatch, "bb", bad_bound)
    with pytest.raises(InvalidSolutionError, match="wrong side"):
        dmlsched.solve(inst, "bb")


def test_status_without_solution_is_caught(monkeypatch, inst):
    _register(monkeypatch, "empty", lambda inst, **kw: Result("hare", "empty", Status.OPTIMAL))
    with pytest.raises(InvalidSolutionError, match="without a solution"):
        dmlsched.solve(inst, "empty")


def test_unknown_method(inst):
    with pytest.raises(dmlsched.UnknownMethodError, match="known:"):
        dmlsched.solve(inst, "nope")


def _res(method, status, objective=None, lower_bound=None, solution=None):
    return Result("hare", method, status, objective=objective, bound=lower_bound, solution=solution)


@pytest.mark.parametrize(
    "ref, expected",
    [
        # proven optimum 10: ratio 15/10 = 1.5 <= 2 holds
        (("exact", Status.OPTIMAL, 10.0, 10.0, True), ("holds", 1.5, 1.5)),
        # proven optimum 5: ratio 3 > 2 violated
        (("exact", Status.OPTIMAL, 5.0, 5.0, True), ("violated", 3.0, 3.0)),
        # only a lower bound 7 (no incumbent): 15/7 > 2 but not proven -> inconclusive
        (("exact", Status.TIME_LIMIT, None, 7.0, False), ("inconclusive", None, 15 / 7)),
        # lower bound 4 and incumbent 6: 15/6 > 2 -> violated against the optimistic reference
        (("exact", Status.FEASIBLE, 6.0, 4.0, True), ("violated", 15 / 6, 15 / 4)),
        # incumbent 6 and no proven bound: 15/6 > 2 is still a proven violation
        (("exact", Status.FEASIBLE, 6.0, None, True), ("violated", 15 / 6, None)),
        # "optimal" within the solver's gap: the proven bound 9.99, not the incumbent, is used
        (("exact", Status.OPTIMAL, 10.0, 9.99, True), ("holds", 1.5, 15 / 9.99)),
        # bound method (relaxation) value 8: 15/8 <= 2 holds
        (("relaxation", Status.OPTIMAL, 8.0, 8.0, False), ("holds", None, 15 / 8)),
    ],
)
def test_compare_verdicts(monkeypatch, inst, ref, expected):
    _register(monkeypatch, "h", lambda *a, **k: None, bound=lambda inst: 2.0)
    _register(monkeypatch, "exact", lambda *a, **k: None, kind="exact")
    _register(monkeypatch, "relaxation", lambda *a, **k: None, kind="bound")
    sol = _greedy(inst)
    res = _res("h", Status.FEASIBLE, objective=15.0, solution=sol)
    name, status, obj, lb, has_sol = ref
    r = _res(name, status, objective=obj, lower_bound=lb, solution=sol if has_sol else None)
    rep = compare(inst, res, r)
    verdict, ratio, ratio_to_bound = expected
    assert rep.verdict == verdict and isinstance(rep.verdict, dmlsched.Verdict)
    assert rep.ratio == (None if ratio is None else pytest.approx(ratio))
    assert rep.ratio_to_bound == (None if ratio_to_bound is None else pytest.approx(ratio_to_bound))
    assert rep.reference_optimal == (status == Status.OPTIMAL and name == "exact")
    assert rep.bound == 2.0
    assert set(rep.to_json()) == {
        "problem", "method", "objective", "reference", "reference_status", "reference_objective",
        "reference_bound", "reference_optimal", "ratio", "ratio_to_bound", "bound", "verdict", "details",
    }


def test_compare_without_bound_says_no_bound(monkeypatch, inst):
    _register(monkeypatch, "nb", lambda *a, **k: None)
    _register(monkeypatch, "inf", lambda *a, **k: None, bound=lambda inst: math.inf)
    _register(monkeypatch, "exact", lambda *a, **k: None, kind="exact")
    sol = _greedy(inst)
    for name in ("nb", "inf"):
        rep = compare(inst, _res(name, Status.FEASIBLE, 3.0, solution=sol),
                      _res("exact", Status.OPTIMAL, 3.0, 3.0, sol))
        assert rep.verdict == "no_bound" and rep.ratio == pytest.approx(1.0)
        assert rep.to_json()["verdict"] == "no_bound"


def test_not_applicable_becomes_an_n_a_result(monkeypatch, inst):
    def refuses(inst, **kw):
        raise dmlsched.NotApplicable("only for homogeneous clusters")

    _register(monkeypatch, "refuses", refuses)
    res = dmlsched.solve(inst, "refuses")
    assert res.status == Status.NOT_APPLICABLE and res.solution is None
    assert res.details["not_applicable"] is True
    assert "homogeneous" in res.details["error"]
