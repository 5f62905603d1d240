"""The method kit: declared options, the deadline, the outcome-to-Result step,
refusals before allocation, incumbents, and registry strictness."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

import dmlsched
from dmlsched import Status, cpsat, registry
from dmlsched.cpsat import Scaling, new_model, on_grid, scale_times, solve_cpsat
from dmlsched.incumbents import incumbent_sink
from dmlsched.kit import (
    Deadline,
    Option,
    OptionError,
    Run,
    fmt_count,
    method,
)
from dmlsched.problems.hare.heuristics import list_schedule, priority_order
from dmlsched.registry import RegistryError
from dmlsched.solvers import SolveOutcome


@pytest.fixture
def inst(tiny_hare_dict):
    return dmlsched.from_dict(tiny_hare_dict)


@pytest.fixture
def scratch(monkeypatch):
    """Methods registered in a test are removed afterwards."""
    registry.load_families()  # copy the loaded registry, never an empty one
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    yield


def _greedy(inst):
    return list_schedule(inst, priority_order(inst, np.zeros(inst.num_tasks)))


def test_option_coercion_and_errors():
    o = Option("k", int, 3, "a count", minimum=1)
    assert o.coerce(np.int64(4)) == 4 and o.coerce(5.0) == 5
    with pytest.raises(OptionError, match="'k'.*integer"):
        o.coerce("x")
    with pytest.raises(OptionError, match=">= 1"):
        o.coerce(0)
    with pytest.raises(OptionError, match="integer"):
        o.coerce(True)
    f = Option("x", float, 1.0, "")
    assert f.coerce(2) == 2.0 and isinstance(f.coerce(np.float32(1.5)), float)
    with pytest.raises(OptionError, match="finite"):
        f.coerce(float("nan"))
    c = Option("mode", str, "a", "", choices=("a", "b"))
    with pytest.raises(OptionError, match="one of 'a', 'b'"):
        c.coerce("c")
    assert Option("l", list, None, "").coerce((1, 2)) == [1, 2]
    assert Option("l", list, None, "").coerce(None) is None
    with pytest.raises(OptionError, match="None"):
        Option("b", bool, False, "").coerce(None)


def test_method_checks_options_and_fills_defaults(scratch, inst):
    seen = {}

    @method("hare", "kit-probe", kind="heuristic", options=[Option("k", int, 2, "k", minimum=0)])
    def probe(instance, run: Run):
        seen.update(run.options, display=run.display, memory=run.memory_limit)
        return run.result(solution=_greedy(instance))

    res = dmlsched.solve(inst, "kit-probe")
    assert res.status == Status.FEASIBLE and seen["k"] == 2 and seen["display"] is False
    assert seen["memory"] == pytest.approx(4 * 2**30)
    dmlsched.solve(inst, "kit-probe", k=np.int64(5), display=True, memory_limit=1)
    assert seen["k"] == 5 and seen["display"] is True and seen["memory"] == 2**30
    with pytest.raises(OptionError, match="'bogus'.*known: display, k, memory_limit"):
        dmlsched.solve(inst, "kit-probe", bogus=1)
    with pytest.raises(OptionError, match="'k'"):
        dmlsched.solve(inst, "kit-probe", k="many")
    spec = dmlsched.get_method("hare", "kit-probe")
    assert [o.name for o in spec.options] == ["k"] and spec.uses_kit


def test_plain_methods_get_their_options_checked_too(scratch, inst):
    def plain(instance, *, solver, time_limit, seed, width: int = 3, **options):
        return dmlsched.Result("hare", "plain", Status.FEASIBLE, solution=_greedy(instance))

    registry.register_method("hare", "plain", kind="heuristic")(plain)
    assert dmlsched.solve(inst, "plain", width=4).status == Status.FEASIBLE
    with pytest.raises(OptionError, match="'depth'"):
        dmlsched.solve(inst, "plain", depth=1)
    with pytest.raises(OptionError, match="'width'"):
        dmlsched.solve(inst, "plain", width="wide")


def test_refusal_before_allocation_is_n_a(scratch, inst):
    @method("hare", "kit-big", kind="exact")
    def big(instance, run: Run):
        run.require(memory_bytes=10 * 2**40, what="a grid of 1e12 cells")
        raise AssertionError("must not get here")

    res = dmlsched.solve(inst, "kit-big")
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "memory"
    assert "10 TiB" in res.details["error"] and "memory_limit" in res.details["error"]

    @method("hare", "kit-slow", kind="exact")
    def slow(instance, run: Run):
        run.require(seconds=1e6, what="the enumeration")
        raise AssertionError("must not get here")

    res = dmlsched.solve(inst, "kit-slow", time_limit=5)
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "time"


def _outcome(status, obj=None, bound=None, limit=None):
    return SolveOutcome(status=status, objective=obj, bound=bound, solver="highs", runtime_s=0.0,
                        message=str(status.value), limit=limit)


def test_result_status_rules(scratch, inst):
    sol = _greedy(inst)
    value = dmlsched.evaluate(inst, sol)
    cases = {
        # exact, solver proved optimality
        "a": (dict(solution=sol, outcome=_outcome(Status.OPTIMAL, value, value)), Status.OPTIMAL),
        # exact, a time limit, the incumbent meets a proven bound: optimal, closed by the bound
        "b": (dict(solution=sol, bound=value, outcome=_outcome(Status.FEASIBLE, value, 0.0, "time")), Status.OPTIMAL),
        # exact, a time limit and a gap: feasible
        "c": (dict(solution=sol, outcome=_outcome(Status.FEASIBLE, value, value / 2, "time")), Status.FEASIBLE),
        # no solution, a limit: time_limit
        "d": (dict(outcome=_outcome(Status.TIME_LIMIT, None, 1.0, "time")), Status.TIME_LIMIT),
        # proven infeasible
        "e": (dict(outcome=_outcome(Status.INFEASIBLE)), Status.INFEASIBLE),
    }
    for key, (kw, want) in cases.items():
        @method("hare", f"kit-{key}", kind="exact", uses_solver=True)
        def body(instance, run: Run, kw=kw):
            return run.result(**kw)

        res = dmlsched.solve(inst, f"kit-{key}")
        assert res.status == want, key
        assert res.details["solver_status"] == kw["outcome"].message
    # the bound method's value is its bound; a solver's bound just above the value is clamped
    res = dmlsched.solve(inst, "kit-b")
    assert res.bound == pytest.approx(value) and res.details["closed_by"] == "bound"


def test_deadline_is_for_the_whole_method(scratch, inst):
    @method("hare", "kit-sleepy", kind="exact")
    def sleepy(instance, run: Run):
        run.incumbent(_greedy(instance))
        while not run.expired():
            time.sleep(0.01)
        run.cut("the search")
        return run.result()

    t0 = time.monotonic()
    res = dmlsched.solve(inst, "kit-sleepy", time_limit=0.3)
    assert time.monotonic() - t0 >= 0.3  # no upper bound here: a loaded machine may be slow (benchmarks/deadlines.md)
    assert res.status == Status.FEASIBLE and res.solution is not None
    assert res.details["reproducible"] is False and res.details["deadline_cut"] == ["the search"]
    assert not res.reproducible
    d = Deadline(None)
    assert d.remaining() is None and not d.expired() and d.share(0.5).remaining() is None
    d = Deadline(10)
    assert 9 < d.remaining() <= 10 and 4 < d.share(0.5).remaining() <= 5


def test_incumbents_reach_the_sink_and_survive_an_interrupt(scratch, inst):
    sol = _greedy(inst)

    @method("hare", "kit-interrupted", kind="exact")
    def interrupted(instance, run: Run):
        run.incumbent(sol, bound=1.0)
        raise KeyboardInterrupt

    got = []
    with incumbent_sink(got.append):
        res = dmlsched.solve(inst, "kit-interrupted")
    assert res.status == Status.FEASIBLE and res.details["interrupted"] is True
    assert res.objective == pytest.approx(dmlsched.evaluate(inst, sol))
    assert got and got[0]["objective"] == pytest.approx(res.objective) and got[0]["bound"] == 1.0

    @method("hare", "kit-nothing", kind="exact")
    def nothing(instance, run: Run):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dmlsched.solve(inst, "kit-nothing")


def test_registry_refuses_silent_replacement_and_bad_names(scratch):
    def fn(instance, *, solver, time_limit, seed):
        return None

    with pytest.raises(RegistryError, match="already registered.*replace=True"):
        registry.register_method("hare", "list", kind="heuristic")(fn)
    registry.register_method("hare", "list", kind="heuristic", replace=True)(fn)
    assert dmlsched.get_method("hare", "list").fn is fn
    with pytest.raises(RegistryError, match="unknown family 'harey'"):
        registry.register_method("harey", "x", kind="heuristic")
    with pytest.raises(RegistryError, match="kind must be one of"):
        registry.register_method("hare", "x", kind="heuristics")


def test_counts_read_as_a_person_expects():
    assert fmt_count(12345) == "12,345"
    assert fmt_count(2826106120 * 10**90) == "about 2.8 x 10^99"


def test_cpsat_wrapper_maps_statuses_and_work_limit():
    m = new_model()
    x = [m.NewBoolVar(f"x{i}") for i in range(40)]
    w = [(7 * i) % 23 + 1 for i in range(40)]
    m.Add(sum(wi * xi for wi, xi in zip(w, x)) <= 97)
    m.Maximize(sum(((5 * i) % 17 + 1) * xi for i, xi in enumerate(x)))
    out = solve_cpsat(m, work_limit=30)  # deterministic seconds: a net no load reaches
    assert out.status == Status.OPTIMAL and out.limit is None and out.objective == out.bound
    # a multi-dimensional knapsack that presolve does not close
    r = random.Random(1)
    hard = new_model()
    z = [hard.NewBoolVar(f"z{i}") for i in range(120)]
    for _ in range(5):
        wk = [r.randint(10, 100) for _ in z]
        hard.Add(sum(a * b for a, b in zip(wk, z)) <= sum(wk) // 3)
    hard.Maximize(sum(r.randint(10, 100) * zi for zi in z))
    out = solve_cpsat(hard, work_limit=1e-7)
    assert out.limit == "work" and out.status == Status.TIME_LIMIT and out.bound is None
    seen = []
    a = solve_cpsat(hard, work_limit=0.05, seed=3, callback=lambda v, bd: seen.append(bd))
    b = solve_cpsat(hard, work_limit=0.05, seed=3)
    assert a.status == Status.FEASIBLE and a.limit == "work" and seen
    assert (a.status, a.objective, a.bound) == (b.status, b.objective, b.bound)
    infeasible = new_model()
    y = infeasible.NewIntVar(0, 1, "y")
    infeasible.Add(y >= 2)
    assert solve_cpsat(infeasible).status == Status.INFEASIBLE
    assert scale_times([0.5, 1.25], 4) == [2, 5] and on_grid([0.5, 1.25], 4)
    assert scale_times([0.3], 4) == [1] and scale_times([0.3], 4, up=True) == [2]
    assert not on_grid([0.3], 4)


def test_work_limit_is_the_budgets_work_and_cpsat_reads_it(scratch, inst, monkeypatch):
    """A method declaring ``work_limit`` starts with that work in its budget; Run.solve_cpsat
    gives CP-SAT the budget's work_left (a share's work when given one) and converts the
    scaled bound; OPTIMAL of an inexact scaling is not a proof."""
    calls = []
    original = cpsat.solve_cpsat
    monkeypatch.setattr(cpsat, "solve_cpsat", lambda model, **kw: calls.append(kw) or original(model, **kw))
    seen = {}

    @method("hare", "kit-work", kind="exact",
            options=[Option("work_limit", float, None, "CP-SAT deterministic time", minimum=0.0)])
    def work(instance, run: Run):
        m = cpsat.new_model()
        x = m.NewIntVar(0, 10, "x")
        m.Add(x >= 3)
        m.Minimize(2 * x)  # twice the family's objective, whose bound is then 3
        seen["work"] = run.budget.work
        out = run.solve_cpsat(m, scaling=cpsat.Scaling(objective_scale=2.0, exact=False), what="probe")
        seen["outcome"] = out
        run.solve_cpsat(m, budget=run.budget.share(0.5, work=0.25))
        return run.result(solution=_greedy(instance))

    dmlsched.solve(inst, "kit-work", work_limit=1.5)
    assert seen["work"] == 1.5 and [c["work_limit"] for c in calls] == [1.5, 0.25]
    assert calls[0]["objective_scale"] == 2.0
    out = seen["outcome"]
    assert out.bound == 3.0 and out.objective == 3.0 and out.status == Status.FEASIBLE  # exact=False
    calls.clear()
    dmlsched.solve(inst, "kit-work")
    assert seen["work"] is None and [c["work_limit"] for c in calls] == [None, 0.25]  # the share's own work


def test_scaling_converts_bounds_and_drops_the_objective():
    out = SolveOutcome(status=Status.OPTIMAL, objective=12.0, bound=12.0, solver="cpsat", runtime_s=0.0,
                       message="OPTIMAL")
    assert Scaling().outcome(out) == out
    conv = Scaling(exact=False, to_bound=lambda b: None if b is None else b / 4 - 1, objective=False,
                   relaxed_as="rounded-down model").outcome(out)
    assert (conv.status, conv.objective, conv.bound) == (Status.FEASIBLE, None, 2.0)
    assert conv.message == "OPTIMAL (rounded-down model)"
    assert Scaling(to_bound=lambda b: 7.0).bound(None) == 7.0 and Scaling().bound(None) is None
