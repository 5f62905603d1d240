"""RAR's incremental contention engine (issue 23) gives exactly the results of the one it
replaced: ``reference_solution.py`` and ``reference_heuristics.py`` are verbatim copies of
the engine and the list-dispatch heuristics before the change."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import dmlsched
from dmlsched.generate.rar import generate, paper_instance
from dmlsched.problems.rar import heuristics, solution

from . import reference_heuristics as old_h
from . import reference_solution as old_s

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


def _instances():
    out = [dmlsched.load(p) for p in sorted((INSTANCES / "rar").glob("*.json"))]
    out += [dmlsched.load(p) for p in sorted((INSTANCES / "counterexamples").glob("rar-*.json"))]
    out += [paper_instance(seed=s) for s in range(3)]
    out += [generate(num_jobs=120, num_servers=12, horizon=1200, seed=s) for s in range(3)]
    return out


def _random_schedule(inst, rng):
    """Random start slots and placements (not necessarily capacity-feasible: the engine
    simulates contention whatever the placement)."""
    start = rng.integers(0, max(2, inst.horizon // 4), inst.num_jobs)
    gpus = [tuple(sorted(rng.choice(inst.num_gpus, size=int(g), replace=False).tolist())) for g in inst.G]
    return start, gpus


@pytest.mark.parametrize("idx", range(len(_instances())))
def test_engine_same_completions_and_traces(idx):
    inst = _instances()[idx]
    rng = np.random.default_rng(idx)
    for _ in range(5):
        start, gpus = _random_schedule(inst, rng)
        try:
            ref = old_s.simulate(inst, start, gpus, record=True)
        except dmlsched.InvalidSolutionError as e:
            with pytest.raises(dmlsched.InvalidSolutionError) as got:
                solution.simulate(inst, start, gpus, record=True)
            assert str(got.value) == str(e)
            continue
        new = solution.simulate(inst, start, gpus, record=True)
        assert new.finish == ref.finish
        assert new.trace == ref.trace


@pytest.mark.parametrize("idx", range(len(_instances())))
def test_heuristics_same_schedules(idx):
    """Every list-dispatch method: the same schedule, makespan, theta and number of runs."""
    inst = _instances()[idx]
    rhat = heuristics.rho_hat(inst)
    for ties in ("input", "longest"):
        a = heuristics.sjf_bco_search(inst, ties=ties)
        b = old_h.sjf_bco_search(inst, ties=ties)
        _same_best(a, b)
    for rule_new, rule_old in ((heuristics.first_fit, old_h.first_fit), (heuristics.least_loaded, old_h.least_loaded)):
        for order in ("sjf", "input"):
            a = heuristics.bisection(inst, lambda th, r=rule_new: [lambda j, c=r(th): c],
                                     heuristics.job_order(inst, order), rhat)
            b = old_h.bisection(inst, lambda th, r=rule_old: [lambda j, c=r(th): c], old_h.job_order(inst, order), rhat)
            _same_best(a, b)
    ga = heuristics.greedy_search(inst, heuristics.GREEDY_RULES, 3, 0)
    gb = old_h.greedy_search(inst, old_h.GREEDY_RULES, 3, 0)
    _same_best(ga, gb)


def _same_best(a: dict, b: dict) -> None:
    assert ((a["m"], a.get("theta"), a.get("runs"), a.get("rule"))
            == (b["m"], b.get("theta"), b.get("runs"), b.get("rule")))
    if b["sched"] is None:
        assert a["sched"] is None
        return
    assert a["sched"].start.tolist() == b["sched"].start.tolist()
    assert a["sched"].gpus == b["sched"].gpus
    assert np.array_equal(a["T"], b["T"])


def test_rand_same_results():
    for s in range(3):
        inst = generate(num_jobs=80, num_servers=10, horizon=1200, seed=s)
        for pick in ("gpus", "servers"):
            a = dmlsched.solve(inst, "rand", seed=s, pick=pick)
            # the old dispatcher with the same rule and seed
            rng = np.random.default_rng(s)
            rule = (old_h.random_rule if pick == "gpus" else old_h.random_server_rule)(rng, inst.horizon)
            d = old_h.Dispatch(inst, heuristics.rho_hat(inst))
            ok = all(d.place(int(j), rule, inst.horizon + 1) for j in old_h.job_order(inst, "sjf").tolist())
            if not ok or a.solution is None:
                assert a.solution is None or not ok
                continue
            T = d.finish()
            assert a.solution.start.tolist() == d.start.tolist()
            assert a.objective == float(T.max())


@pytest.mark.parametrize("idx", range(len(_instances())))
def test_checks_shared_and_unchanged(idx):
    """One simulation per schedule for validate/evaluate (``solution.check``): the old
    verdicts, messages and values, on schedules found by FF and on broken copies; a changed
    schedule is checked again."""
    inst = _instances()[idx]
    rhat = heuristics.rho_hat(inst)
    best = heuristics.bisection(inst, lambda th: [lambda j, c=heuristics.first_fit(th): c],
                                heuristics.job_order(inst, "sjf"), rhat)
    if best["sched"] is None:
        pytest.skip("FF finds no schedule")
    rng = np.random.default_rng(idx)
    base = best["sched"]
    cases = [base]
    for _ in range(8):
        start = base.start.copy()
        gpus = list(base.gpus)
        j = int(rng.integers(inst.num_jobs))
        if rng.random() < 0.5:
            start[j] = max(0, int(start[j]) + int(rng.integers(-50, 50)))
        else:
            gpus[j] = tuple(sorted(rng.choice(inst.num_gpus, size=len(gpus[j]), replace=False).tolist()))
        cases.append(solution.RarSchedule(start=start, gpus=tuple(gpus)))
    for s in cases:
        msgs = []
        for mod in (old_s, solution, solution):  # the second call from the kept outcome
            try:
                mod.validate(inst, s)
                msgs.append(None)
            except dmlsched.InvalidSolutionError as e:
                msgs.append(str(e))
        assert msgs[0] == msgs[1] == msgs[2]
        assert np.array_equal(solution.completion_times(inst, s), old_s.completion_times(inst, s))
        assert solution.evaluate(inst, s) == old_s.evaluate(inst, s)
    s = cases[0]
    solution.validate(inst, s)
    s.start[int(np.argmax(s.start))] = inst.horizon + 5  # in place: checked again
    with pytest.raises(dmlsched.InvalidSolutionError, match="horizon"):
        solution.validate(inst, s)


def test_pickled_schedule_leaves_the_kept_checks_behind():
    inst = paper_instance(seed=0)
    best = heuristics.sjf_bco_search(inst)
    s = best["sched"]
    solution.validate(inst, s)
    assert "_checked" in s.__dict__
    s2 = pickle.loads(pickle.dumps(s))
    assert "_checked" not in s2.__dict__ and s2.gpus == s.gpus
    assert solution.evaluate(inst, s2) == solution.evaluate(inst, s)
