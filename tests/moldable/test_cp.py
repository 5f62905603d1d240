"""exact-cp (CP-SAT, real start times): against the time-indexed MIP on the
bundled and grid instances, against an independent brute force over real
start times, the scaling's exactness condition, the paper-like instance of
issue 17, and refusals before allocating."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

import dmlsched
from dmlsched import InvalidSolutionError, Status
from dmlsched.generate.moldable import paper_like
from dmlsched.problems.moldable.cp import choose_scale, estimate_bytes, left_shift
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.models import choices, grid_exact
from dmlsched.problems.moldable.solution import MoldableSchedule, evaluate, validate
from dmlsched.problems.moldable.strategies import moldable_instances

ROOT = Path(__file__).resolve().parents[2] / "instances"
#: CP-SAT deterministic seconds (exact-cp's work_limit): a net that stops a run gone wrong at the
#: same point at any load, where a wall-clock limit would cut a busy machine's run short
WORK = 20.0
BUNDLED = sorted(ROOT.glob("moldable/*.json")) + sorted(ROOT.glob("counterexamples/moldable-*.json"))


def brute_force_real(inst: MoldableInstance) -> float:
    """Optimum over non-preemptive schedules with real start times, independent
    of exact-cp: for every order of the tasks and every allocation (amount and
    GPU set), each task in turn starts at the earliest of its arrival and the
    placed tasks' ends at which the family's validator accepts the partial
    schedule.  Some optimal schedule is of this form (place its tasks in the
    order of their starts: none starts later than in it)."""
    K = inst.num_tasks
    allocs = []
    for k in range(K):
        opts = []
        for c in choices(inst, k):
            for gs in itertools.combinations(range(inst.gpus), c.ngpus):
                opts.append((c.den if c.den > 1 else 1, gs, inst.runtime(k, c.p)))
        allocs.append(opts)
    best = math.inf
    for order in itertools.permutations(range(K)):
        for combo in itertools.product(*allocs):
            segs: list = []
            flow = 0.0
            for k in order:
                den, gs, d = combo[k]
                a = inst.tasks[k].arrival
                for t in sorted({a} | {s[2] for s in segs if s[2] > a}):
                    trial = segs + [(k, t, t + d, gs, den)]
                    sub = _sub(inst, [s[0] for s in trial])
                    try:
                        validate(sub, MoldableSchedule.from_segments([(i, *s[1:]) for i, s in enumerate(trial)]))
                    except InvalidSolutionError:
                        continue
                    segs = trial
                    flow += t + d - a
                    break
                if flow >= best:
                    break
            best = min(best, flow)
    return best


def _sub(inst: MoldableInstance, ks: list[int]) -> MoldableInstance:
    return inst.with_tasks([inst.tasks[k] for k in ks])


def test_bundled_instances_agree_with_the_mip():
    for path in BUNDLED:
        inst = dmlsched.load(path)
        if not grid_exact(inst):
            continue
        mip = dmlsched.solve(inst, "exact")
        cp = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
        assert mip.status == cp.status == Status.OPTIMAL, path.name
        assert cp.objective == pytest.approx(mip.objective), path.name
        assert cp.details["exact_scale"] and cp.bound == pytest.approx(cp.objective)


@settings(max_examples=25, deadline=None)
@given(moldable_instances(grid=True, max_gpus=3, max_tasks=4, max_volume=8))
def test_agrees_with_the_mip_on_grid_instances(inst):
    """On integer data the integer-start MIP is exact, so both prove the same optimum."""
    assume(inst.num_tasks >= 2)
    cp = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    mip = dmlsched.solve(inst, "exact")
    assert cp.status == Status.OPTIMAL and cp.details["exact_scale"]
    assume(mip.status == Status.OPTIMAL)
    assert cp.objective == pytest.approx(mip.objective, rel=1e-9, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(moldable_instances(grid=False, max_gpus=2, max_tasks=3, max_volume=20))
def test_agrees_with_brute_force_on_real_data(inst):
    """Off the grid (real arrivals, irrational-looking runtimes) the re-timed
    optimum of the rounded-down model meets its bound and equals the brute force."""
    assume(inst.num_tasks >= 2)
    assume(max(t.pmin_den for t in inst.tasks) <= 3 and inst.gpus <= 2)
    cp = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    bf = brute_force_real(inst)
    assert cp.status == Status.OPTIMAL
    assert cp.objective == pytest.approx(bf, rel=1e-6)
    assert cp.bound <= bf * (1 + 1e-9) + 1e-9


def test_brute_force_detects_a_better_schedule():
    """The brute force is not vacuous: on two tasks that must not share memory
    it finds the serial optimum, and exact-cp agrees off the grid."""
    curve = SpeedupCurve(((0.5, 0.7), (1.0, 1.0), (2.0, 1.5)))
    tasks = (MoldableTask("A", "u", 0.3, 3.7, 2, 2, 6.0), MoldableTask("B", "u", 0.1, 1.9, 2, 1, 6.0),
             MoldableTask("C", "v", 1.45, 2.2, 1, 2, 2.0))
    inst = MoldableInstance(gpus=2, gpu_memory=10.0, speedup=curve, tasks=tasks, preemption_min_remaining=0.0)
    assert not grid_exact(inst)
    bf = brute_force_real(inst)
    cp = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert cp.status == Status.OPTIMAL and cp.objective == pytest.approx(bf, rel=1e-6)
    for m in ("rigid-fcfs", "moldable-equi", "moldable-prop"):
        assert dmlsched.solve(inst, m).objective >= bf - 1e-9


def test_scale_exactness_condition():
    tasks = (MoldableTask("a", "u", 0.5, 3.0, 1, 2, 0.0), MoldableTask("b", "u", 0.0, 1.0, 1, 1, 0.0))
    inst = MoldableInstance(gpus=2, gpu_memory=1.0, speedup=SpeedupCurve(((1.0, 1.0), (2.0, 1.5))), tasks=tasks)
    assert choose_scale(inst) == (2, True)  # arrivals 0.5, durations 3, 2, 1
    assert choose_scale(inst, 1) == (1, False)
    coarse = dmlsched.solve(inst, "exact-cp", scale=1)
    fine = dmlsched.solve(inst, "exact-cp")
    assert fine.status == Status.OPTIMAL and fine.details["scale"] == 2
    # the rounded-down model is a relaxation: its bound never passes the optimum
    assert coarse.bound <= fine.objective + 1e-9 and coarse.details["exact_scale"] is False
    assert coarse.objective >= fine.objective - 1e-9


def test_left_shift_never_starts_later_than_a_feasible_schedule():
    inst = paper_like(num_gpus=4, num_users=2, num_bags=2, tasks_per_bag=(2, 3), seed=5)
    res = dmlsched.solve(inst, "moldable-equi")
    s = res.solution
    order = sorted(range(inst.num_tasks), key=lambda k: (float(s.start[list(s.task).index(k)]), k))
    alloc = {int(s.task[j]): (int(s.share_den[j]), s.gpus_of(j)) for j in range(s.num_segments)}
    shifted = left_shift(inst, order, alloc)
    validate(inst, shifted)
    start = {int(s.task[j]): float(s.start[j]) for j in range(s.num_segments)}
    for j in range(shifted.num_segments):
        assert float(shifted.start[j]) <= start[int(shifted.task[j])] + 1e-9
    assert evaluate(inst, shifted) <= res.objective + 1e-9


def test_issue17_paper_like_seven_tasks_proven():
    """Issue 17 item 5: the 7-task paper-like instance, on which the time-indexed
    MIP grew past 24 GiB, is proven by exact-cp (about 2 s here)."""
    inst = paper_like(num_gpus=8, num_users=2, num_bags=3, tasks_per_bag=(2, 4), seed=3)
    assert inst.num_tasks == 7
    mip = dmlsched.solve(inst, "exact")  # refused by memory, before any build
    assert mip.status == Status.NOT_APPLICABLE and "GiB" in mip.details["error"]
    res = dmlsched.solve(inst, "exact-cp", work_limit=3 * WORK)
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(5361.2917, abs=1e-3)
    assert res.objective <= min(dmlsched.solve(inst, m).objective
                                for m in ("rigid-fcfs", "moldable-equi", "moldable-prop")) + 1e-9


def test_refuses_what_it_cannot_hold_before_allocating():
    tasks = tuple(MoldableTask(f"t{k}", "u", float(k), 100.0, 1, 4, 0.0) for k in range(3000))
    inst = MoldableInstance(gpus=64, gpu_memory=1.0, speedup=SpeedupCurve.linear(64), tasks=tasks)
    assert estimate_bytes(inst) > 4 * 2**30
    res = dmlsched.solve(inst, "exact-cp")
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "memory"
    assert "would need about" in res.details["error"] and "3000 tasks x 64 GPUs" in res.details["error"]
    mip = dmlsched.solve(inst, "exact")
    assert mip.status == Status.NOT_APPLICABLE and mip.details["refused"] == "memory"
    assert "time-indexed MIP" in mip.details["error"]


def test_mip_refuses_when_building_would_eat_the_deadline():
    inst = dmlsched.load(ROOT / "moldable" / "sharing-memory.json")
    big = inst.with_tasks([MoldableTask(t.id, t.user, t.arrival, t.volume * 400, t.pmin_den, t.p_max, t.memory)
                           for t in inst.tasks])
    res = dmlsched.solve(big, "exact", time_limit=0.5, memory_limit=64)
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "time"


def test_bundled_expected_values_are_recorded():
    for path in BUNDLED:
        exp = json.loads(path.read_text())["expected"]
        assert "exact-cp" in exp["objective"] and "preemptive-lb" in exp["bound"], path.name
