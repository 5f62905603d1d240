"""Runs made outside the decorator: ``Run.standalone`` (library code called
directly) and ``Run.delegate`` (a method running another method through the
kit, verified as ``solve`` verifies, without re-entering ``dmlsched.api``)."""

from __future__ import annotations

import numpy as np
import pytest
from ortools.sat.python import cp_model

import dmlsched
import dmlsched.api
import dmlsched.cpsat
from dmlsched import InvalidSolutionError, registry
from dmlsched.generate.hlas import generate
from dmlsched.incumbents import incumbent_sink
from dmlsched.kit import Option, OptionError, Run, method
from dmlsched.problems.hare.heuristics import list_schedule, priority_order


@pytest.fixture
def inst(tiny_hare_dict):
    return dmlsched.from_dict(tiny_hare_dict)


@pytest.fixture
def scratch(monkeypatch):
    """Methods registered in a test are removed afterwards."""
    registry.load_families()
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    yield


def _greedy(inst):
    return list_schedule(inst, priority_order(inst, np.zeros(inst.num_tasks)))


def test_standalone_checks_options_against_the_method_and_starts_its_budget(inst):
    run = Run.standalone("hare", "exact", instance=inst, time_limit=30, seed=3,
                         options={"symmetry": False, "display": True})
    assert run.options["symmetry"] is False and run.options["threads"] == 1  # defaults filled
    assert run.kind == "exact" and run.seed == 3 and run.display is True and run.solver == "highs"
    assert run.time_limit == 30 and 0 < run.remaining() <= 30
    assert run.details["reproducible"] is True
    with pytest.raises(OptionError, match="'bogus'"):
        Run.standalone("hare", "exact", options={"bogus": 1})
    free = Run.standalone("hare", options={"anything": 1, "memory_limit": 1})
    assert free.options == {"anything": 1} and free.memory_limit == 2**30 and free.remaining() is None


def test_delegate_equals_solve_and_inherits_the_run_settings(scratch, inst):
    seen = {}

    @method("hare", "kit-child", kind="heuristic", uses_solver=True, options=[Option("k", int, 2, "k")])
    def child(instance, run: Run):
        seen.update(run.options, display=run.display, memory=run.memory_limit, solver=run.solver,
                    seed=run.seed, limit=run.time_limit)
        return run.result(solution=_greedy(instance), objective=None)

    parent = Run.standalone("hare", "exact", instance=inst, solver="highs", seed=7, time_limit=50,
                            options={"threads": 2, "display": True, "memory_limit": 1})
    ref = dmlsched.solve(inst, "kit-child", seed=7, k=5)
    res = parent.delegate("kit-child", inst, options={"k": 5})
    assert (res.status, res.objective, res.problem, res.method) == (ref.status, ref.objective, "hare", "kit-child")
    assert "validate" in res.details["stages"] and res.details["reproducible"] is True
    assert seen["k"] == 5 and seen["threads"] == 2 and seen["display"] is True and seen["memory"] == 2**30
    assert seen["solver"] == "highs" and seen["seed"] == 7 and 0 < seen["limit"] <= 50
    # no deadline above: the child gets the default limit of its kind, as solve() gives it
    Run.standalone("hare", seed=7).delegate("kit-child", inst)
    assert seen["limit"] == dmlsched.kit.DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT
    with pytest.raises(ValueError, match="instance of hare"):
        parent.delegate("kit-child", inst, problem="hlas")


def test_the_three_ways_of_making_a_run_agree(scratch, inst):
    """The decorator's wrapper, Run.standalone and Run.delegate build a run in one place
    (Run._make): the same options give the same settings."""
    seen: list[tuple] = []

    @method("hare", "kit-probe", kind="heuristic", uses_solver=True,
            options=[Option("k", int, 2, "k"), Option("work_limit", float, 4.0, "work")])
    def probe(instance, run: Run):
        seen.append((run.problem, run.method, run.kind, run.sense, run.solver, run.seed, run.options,
                     run.display, run.memory_limit))
        return run.result(solution=_greedy(instance))

    given = {"k": 5, "display": True, "memory_limit": 1, "threads": 2}
    dmlsched.solve(inst, "kit-probe", seed=4, time_limit=60, **given)
    alone = Run.standalone("hare", "kit-probe", instance=inst, seed=4, time_limit=60, options=given)
    seen.append((alone.problem, alone.method, alone.kind, alone.sense, alone.solver, alone.seed, alone.options,
                 alone.display, alone.memory_limit))
    parent = Run.standalone("hare", "kit-probe", instance=inst, seed=4, time_limit=60,
                            options={"display": True, "memory_limit": 1, "threads": 2})
    parent.delegate("kit-probe", inst, options={"k": 5})
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][6] == {"k": 5, "work_limit": 4.0, "threads": 2, "solver_options": None}


def test_a_delegated_child_keeps_the_parent_s_work_limit_without_a_deadline(scratch, inst):
    """A parent with a work limit and no deadline: the child (whose kind has a default time
    limit, as solve() gives it) gets that default and the parent's share of the work left,
    charged to the parent; a work_limit option given to the child caps its share."""
    seen: dict = {}

    @method("hare", "kit-worker", kind="heuristic", uses_solver=True,
            options=[Option("work_limit", float, None, "work")])
    def worker(instance, run: Run):
        seen.update(limit=run.time_limit, work=run.budget.work_left())
        run.budget.spend(1.5)
        return run.result(solution=_greedy(instance))

    @method("hare", "kit-boss", kind="exact", options=[Option("work_limit", float, None, "work"),
                                                       Option("child_work", float, None, "")])
    def boss(instance, run: Run):
        child = {} if run.options["child_work"] is None else {"work_limit": run.options["child_work"]}
        run.delegate("kit-worker", instance, share=0.5, options=child)
        seen["parent_left"] = run.budget.work_left()
        return run.result(solution=_greedy(instance))

    dmlsched.solve(inst, "kit-boss", work_limit=8.0)  # no time limit: no deadline in the parent
    assert seen == {"limit": dmlsched.kit.DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT, "work": 4.0, "parent_left": 6.5}
    dmlsched.solve(inst, "kit-boss", work_limit=8.0, child_work=1.0)
    assert seen["work"] == 1.0 and seen["parent_left"] == 6.5
    dmlsched.solve(inst, "kit-boss")  # no work limit above: the child's own option, or none
    assert seen["work"] is None and seen["parent_left"] is None
    dmlsched.solve(inst, "kit-boss", child_work=2.0)
    assert seen["work"] == 2.0


def test_delegate_verifies_the_child_and_records_its_cut(scratch, inst):
    @method("hare", "kit-liar", kind="heuristic")
    def liar(instance, run: Run):
        return run.result(solution=_greedy(instance), objective=-1.0)

    @method("hare", "kit-cut", kind="heuristic")
    def cut(instance, run: Run):
        run.cut("its search")
        return run.result(solution=_greedy(instance))

    parent = Run.standalone("hare")
    with pytest.raises(InvalidSolutionError, match="reported objective -1.0"):
        parent.delegate("kit-liar", inst)
    assert parent.details["reproducible"] is True
    parent.delegate("kit-cut", inst)
    parent.delegate("kit-cut", inst, cut_as="the helper")
    assert parent.details["reproducible"] is False
    assert parent.details["deadline_cut"] == ["hare/kit-cut", "the helper"]


def test_delegated_incumbents_are_dropped_or_mapped_and_labelled(scratch, inst):
    sol = _greedy(inst)

    @method("hare", "kit-streamer", kind="heuristic")
    def streamer(instance, run: Run):
        run.incumbent(sol, bound=1.0)
        return run.result(solution=sol)

    @method("hare", "kit-outer", kind="heuristic", options=[Option("mapped", bool, False, "")])
    def outer(instance, run: Run):
        m = (lambda inc: {**inc, "objective": inc["objective"] + 100}) if run.options["mapped"] else None
        res = run.delegate("kit-streamer", instance, incumbents=m)
        return run.result(solution=res.solution)

    got: list[dict] = []
    with incumbent_sink(got.append):
        dmlsched.solve(inst, "kit-outer")
    assert got == []  # the child's incumbents are not the parent's
    with incumbent_sink(got.append):
        res = dmlsched.solve(inst, "kit-outer", mapped=True)
    assert len(got) == 1 and got[0]["problem"] == "hare" and got[0]["method"] == "kit-outer"
    assert got[0]["objective"] == pytest.approx(res.objective + 100) and got[0]["bound"] == 1.0


def test_hlas_no_longer_reenters_the_public_api(monkeypatch):
    """The grouping of a policy, offline-mip's Hare MIP and the Sched baselines run through
    Run.delegate: with dmlsched.api.solve broken, the hlas methods still run."""
    def broken(*a, **k):
        raise AssertionError("re-entered dmlsched.api.solve")

    g = generate(num_jobs=4, num_gpus=4, seed=1, num_groups=2, rounds=(1, 2), tasks_per_round=(1, 2))
    expected = {m: dmlsched.solve(g, m).objective for m in ("hlas", "sched-homo", "offline-mip")}
    monkeypatch.setattr(dmlsched.api, "solve", broken)
    for m, value in expected.items():
        assert dmlsched.get_method("hlas", m).fn(g).objective == pytest.approx(value)


def test_standalone_puts_the_work_limit_option_in_its_budget_as_the_decorator_does(scratch, inst, monkeypatch):
    """A method that declares ``work_limit``: its value is the run's work whether the run is made
    by the decorator or by Run.standalone, so an inner algorithm that asks the budget (here
    Run.solve_cpsat, which gives CP-SAT ``work_left()`` as its deterministic limit) obeys it."""
    given: list = []
    real = dmlsched.cpsat.solve_cpsat

    def spy(model, **kw):
        given.append(kw["work_limit"])
        return real(model, **kw)

    monkeypatch.setattr(dmlsched.cpsat, "solve_cpsat", spy)
    mdl = cp_model.CpModel()
    x = mdl.new_int_var(0, 3, "x")
    mdl.minimize(x)

    @method("hare", "kit-work", kind="exact", options=[Option("work_limit", float, None, "work")])
    def work(instance, run: Run):
        run.solve_cpsat(mdl)
        return run.result(solution=_greedy(instance))

    dmlsched.solve(inst, "kit-work", work_limit=2.5)
    alone = Run.standalone("hare", "kit-work", instance=inst, options={"work_limit": 2.5})
    assert alone.budget.work == 2.5 and alone.budget.work_left() == 2.5
    alone.solve_cpsat(mdl)
    assert given == [2.5, 2.5]
    # a given budget (the run's own, e.g. a share of an outer one): the option caps its work
    outer = Run.standalone("hare", "kit-work", options={"work_limit": 8.0}).budget
    capped = Run.standalone("hare", "kit-work", budget=outer.share(0.5), options={"work_limit": 1.0})
    assert capped.budget.work_left() == 1.0
    capped.budget.spend(0.25)
    assert outer.work_left() == 7.75  # the share's work is charged to the outer budget
    assert Run.standalone("hare", "kit-work", budget=outer.share(0.5)).budget.work_left() == 3.875
    # no option, no work limit; a library call without a method keeps work_limit as a plain option
    assert Run.standalone("hare", "kit-work").budget.work_left() is None
    assert Run.standalone("hare", options={"work_limit": 1.0}).budget.work_left() is None
