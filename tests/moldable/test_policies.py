"""The six online policies: the paper's worked example, the four Equipartition
cases and Proportional's choice on hand-checked instances, capacity/memory at
every event, unit-fraction allocations, deterministic replay, and the
validator rejecting broken timelines."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.moldable import MoldableSchedule, dhondt
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.policies import Cluster, equipartition, proportional
from dmlsched.problems.moldable.solution import from_json, jobs_of, metrics, replay, validate
from dmlsched.problems.moldable.strategies import moldable_instances

POLICIES = ["rigid-fcfs", "rigid-shortest", "moldable-equi", "malleable-equi", "moldable-prop", "malleable-prop"]
LIN4 = SpeedupCurve(((1.0, 1.0), (4.0, 4.0)))


def _inst(tasks, gpus=2, mem=12.0, curve=LIN4, tp=0.0, thr=0.0):
    return MoldableInstance(gpus=gpus, gpu_memory=mem, speedup=curve, tasks=tuple(tasks),
                            preemption_overhead=tp, preemption_min_remaining=thr)


def T(i, v, arr=0.0, den=1, pmax=1, mem=0.0, user="u"):
    return MoldableTask(id=str(i), user=user, arrival=arr, volume=v, pmin_den=den, p_max=pmax, memory=mem)


def test_paper_worked_example(instances_dir):
    inst = dmlsched.load(instances_dir / "moldable" / "paper-hpc2n-example.json")
    exp = inst.expected["facts"]["avg_flow"]
    for method, value in exp.items():
        res = dmlsched.solve(inst, method)
        assert res.details["metrics"]["avg_flow"] == pytest.approx(value), method
        assert res.objective == pytest.approx(value * inst.num_tasks)


# -- Equipartition cases (Section IV-A) ----------------------------------------
def test_equi_case1_pmin_in_arrival_order():
    # sum p_min = 3 * 1/2 >= 1 available: p_min to each in arrival order; the third does not fit
    inst = _inst([T(0, 4, den=2), T(1, 4, den=2), T(2, 4, den=2)], gpus=1)
    out = equipartition(inst, Cluster.empty(1, 12.0), [0, 1, 2], inst.volume, None)
    assert out == {0: (2, (0,)), 1: (2, (0,))}


def test_equi_case2_pmax_each():
    inst = _inst([T(0, 4, pmax=2), T(1, 4, pmax=1)], gpus=4)
    out = equipartition(inst, Cluster.empty(4, 12.0), [0, 1], inst.volume, None)
    assert out == {0: (1, (0, 1)), 1: (1, (2,))}


def test_equi_case3_dhondt():
    # 9 vacant GPUs, p_max votes 8, 4, 2: one GPU each, 6 seats left by D'Hondt with caps p_max - 1:
    # quotients 8,4,4(A/2),2(B/2? no: B=4 -> 4/2=2) ... -> A gets 4, B 2, C 0 extra? check with dhondt
    inst = _inst([T(0, 4, pmax=8), T(1, 4, pmax=4), T(2, 4, pmax=2)], gpus=9,
                 curve=SpeedupCurve(((1.0, 1.0), (9.0, 9.0))))
    out = equipartition(inst, Cluster.empty(9, 12.0), [0, 1, 2], inst.volume, None)
    extra = dhondt([8, 4, 2], 6, caps=[7, 3, 1])
    assert extra == [4, 2, 0]
    assert [len(out[k][1]) for k in range(3)] == [5, 3, 1]
    used = sorted(g for a in out.values() for g in a[1])
    assert used == list(range(9))


def test_equi_case4_fractions_on_least_loaded():
    # 2 GPUs, GPU 0 busy with a 1/2 share (count 1), GPU 1 vacant; 3 queued tasks with p_min 1/4:
    # |Q| = 3 > |A| = 1, sum p_min = 3/4 < 1.5 available -> case 4.
    inst = _inst([T(k, 4, den=4, pmax=2) for k in range(3)], gpus=2)
    c = Cluster.empty(2, 12.0)
    c.take((2, (0,)), 0.0)
    out = equipartition(inst, c, [0, 1, 2], inst.volume, None)
    # pre-assign: t0 -> GPU1 (0 tasks), t1 -> GPU0 (tie 1 vs 1 -> lowest index), t2 -> GPU1 (1 vs 2)
    # GPU0: p_avl 1/2, |R'| = 1 -> 1/2 ; GPU1: p_avl 1, |R'| = 2 -> 1/2 each
    assert out == {1: (2, (0,)), 0: (2, (1,)), 2: (2, (1,))}


def test_equi_case4_respects_memory_and_pmin():
    # memory 8 of 12: two such tasks cannot share a GPU; p_min = 1 tasks cannot take 1/2
    inst = _inst([T(0, 4, den=2, mem=8), T(1, 4, den=2, mem=8), T(2, 4, den=2, mem=8)], gpus=2)
    c = Cluster.empty(2, 12.0)
    c.take((2, (0,)), 0.0)  # GPU0 count 1 -> case 4 (|Q| = 3 > |A| = 1, sum p_min 1.5 = avl 1.5? -> case 1)
    out = equipartition(inst, c, [0, 1, 2], inst.volume, None)
    mem = {}
    for k, (den, gpus) in out.items():
        for g in gpus:
            mem[g] = mem.get(g, 0) + 8
    assert all(v <= 12 for v in mem.values())


# -- Proportional (Section IV-B) -----------------------------------------------
def test_proportional_target_makespan():
    # 4 vacant GPUs, tasks with volumes 8 and 2 (p in {1/2, 1, 2, 3, 4}):
    # t_trg = 10 / 4 = 2.5; task 0 (v 8): f(8, 3) = 2.67 closest; task 1 (v 2): f(2, 1) = 2 (|0.5|) vs
    # f(2, 1/2) = 4 -> 1 GPU.
    inst = _inst([T(0, 8, den=2, pmax=4), T(1, 2, den=2, pmax=4)], gpus=4)
    out = proportional(inst, Cluster.empty(4, 12.0), [0, 1], inst.volume, None)
    assert out == {0: (1, (0, 1, 2)), 1: (1, (3,))}


# -- properties over random instances -----------------------------------------
def _independent_capacity_check(inst, s: MoldableSchedule):
    """Shares and memory per GPU at every event time, by brute force."""
    times = sorted(set(s.start.tolist()))
    for t in times:
        load = np.zeros(inst.gpus)
        mem = np.zeros(inst.gpus)
        for j in range(s.num_segments):
            if s.start[j] <= t < s.end[j]:
                for g in s.gpus_of(j):
                    load[g] += 1.0 / s.share_den[j]
                    mem[g] += inst.tasks[int(s.task[j])].memory
        assert (load <= 1 + 1e-9).all(), (t, load)
        assert (mem <= inst.gpu_memory + 1e-9).all(), (t, mem)


def _unit_allocations(inst, s):
    for j in range(s.num_segments):
        k = int(s.task[j])
        den, gpus = int(s.share_den[j]), s.gpus_of(j)
        if den > 1:
            assert len(gpus) == 1 and den <= inst.tasks[k].pmin_den
        else:
            assert 1 <= len(gpus) <= inst.tasks[k].p_max


@settings(max_examples=60, deadline=None)
@given(moldable_instances(max_gpus=4, max_tasks=7))
def test_policies_valid_capacity_unit_fractions(inst):
    for m in POLICIES:
        res = dmlsched.solve(inst, m)  # validates (S1)-(S6)
        s = res.solution
        _independent_capacity_check(inst, s)
        _unit_allocations(inst, s)
        if m.startswith(("rigid", "moldable")):
            # no preemption: one segment per task, rigid ones on their p_req whole GPUs
            assert s.num_segments == inst.num_tasks
            if m.startswith("rigid"):
                assert all(int(s.share_den[j]) == 1 and len(s.gpus_of(j)) == inst.tasks[int(s.task[j])].request
                           for j in range(s.num_segments))


@settings(max_examples=30, deadline=None)
@given(moldable_instances(max_gpus=3, max_tasks=6))
def test_deterministic_replay(inst):
    for m in POLICIES:
        a = dmlsched.solve(inst, m, seed=0)
        b = dmlsched.solve(inst, m, seed=1)
        ja = dmlsched.solution_to_json(inst, a.solution)
        assert ja == dmlsched.solution_to_json(inst, b.solution)
        # the JSON timeline replays to the same schedule and objective
        back = from_json(inst, json.loads(json.dumps(ja)))
        validate(inst, back)
        assert dmlsched.evaluate(inst, back) == pytest.approx(a.objective)


def test_preemption_overhead_and_threshold():
    # 1 GPU, linear; long task A (v 1000) alone, B (v 100) arrives at 100:
    # malleable EQUI (p_min 1/2): at 100 both get 1/2; A is preempted (v_rem 900 > 300) and pays 50 s.
    inst = _inst([T("A", 1000, den=2), T("B", 100, arr=100, den=2)], gpus=1, tp=50.0, thr=300.0)
    res = dmlsched.solve(inst, "malleable-equi")
    s = res.solution
    comp = replay(inst, s).completion
    # B: 100 volume at 1/2 -> done at 300. A: 100 done by t=100, then 50 s overhead, then 1/2 until 300
    # (75 more), then alone: 1000-100-75 = 825 remaining, resumed: the re-allocation to 1 at 300 is a
    # preemption too (v_rem 825 > 300): +50 s -> 300 + 50 + 825 = 1175.
    assert comp[1] == pytest.approx(300.0)
    assert comp[0] == pytest.approx(1175.0)
    assert res.details["preemptions"] == 2
    # above the threshold nothing moves: with thr = 1000 A is pinned, B waits for the free half
    inst2 = _inst([T("A", 1000, den=2), T("B", 100, arr=100, den=2)], gpus=1, tp=50.0, thr=1000.0)
    s2 = dmlsched.solve(inst2, "malleable-equi").solution
    assert replay(inst2, s2).preemptions.sum() == 0


# -- the validator catches broken timelines -------------------------------------
def _sched(segs):
    return MoldableSchedule.from_segments(segs)


@pytest.mark.parametrize(
    "segs,match",
    [
        ([(0, 0.0, 4.0, (0,), 1), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)], r"\(S3\) GPU 0 .* processor share"),
        ([(0, 0.0, 8.0, (0,), 2), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)], r"\(S3\) GPU 0 .* memory"),
        ([(0, 0.0, 12.0, (0,), 3), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)],
         r"\(S2\) task '0': share 1/3 below p_min"),
        ([(0, 0.0, 2.0, (0, 1), 1), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)],
         r"\(S2\) task '0': 2 GPUs above p_max"),
        ([(0, 0.0, 4.0, (1, 1), 1), (1, 0.0, 8.0, (0,), 2), (2, 4.0, 8.0, (1,), 1)],
         r"\(S2\) task '0': GPU listed twice"),
        ([(0, 0.0, 8.0, (0, 1), 2), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)], r"\(S2\) .* exactly one GPU"),
        ([(0, 0.0, 5.0, (1,), 1), (1, 0.0, 8.0, (0,), 2), (2, 0.0, 4.0, (1,), 1)], r"\(S6\)"),
        ([(0, 0.0, 8.0, (0,), 2), (1, 0.0, 8.0, (1,), 2), (2, -1.0, 3.0, (1,), 1)], r"\(S1\) task '2' starts"),
        ([(0, 0.0, 8.0, (0,), 2), (1, 0.0, 8.0, (1,), 2)], r"task '2' is never scheduled"),
        ([(0, 0.0, 2.0, (0,), 2), (0, 2.0, 5.0, (0,), 1), (1, 0.0, 8.0, (1,), 2), (2, 8.0, 12.0, (1,), 1)],
         r"\(S5\) task '0' preempted"),
    ],
)
def test_validator_rejects(segs, match):
    # tasks: 0 (v 4, p_min 1/2, mem 6), 1 (v 4, p_min 1/2, mem 6), 2 (v 4, p_min 1, mem 6)
    inst = _inst([T(0, 4, den=2, mem=6), T(1, 4, den=2, mem=7), T(2, 4, mem=6)], gpus=2, thr=3.5)
    with pytest.raises(InvalidSolutionError, match=match):
        validate(inst, _sched(segs))


def test_validator_accepts_and_counts_overhead():
    inst = _inst([T(0, 4, den=2)], gpus=2, tp=1.0, thr=0.0)
    # 1/2 on GPU 0 for 2 s (1 unit), then 2 GPUs: 1 s overhead + 3/2 s -> completion 4.5
    s = _sched([(0, 0.0, 2.0, (0,), 2), (0, 2.0, 4.5, (0, 1), 1)])
    with pytest.raises(InvalidSolutionError):  # p_max is 1
        validate(inst, s)
    inst = _inst([T(0, 4, den=2, pmax=2)], gpus=2, tp=1.0, thr=0.0)
    validate(inst, s)
    assert dmlsched.evaluate(inst, s) == pytest.approx(4.5)
    # a contiguous continuation with the same allocation is no preemption
    s2 = _sched([(0, 0.0, 2.0, (0,), 2), (0, 2.0, 8.0, (0,), 2)])
    validate(inst, s2)
    assert replay(inst, s2).preemptions.sum() == 0


def test_jobs_and_metrics():
    # user u: tasks start 0 (ends 10), 75 (> 10 + 60: new job), 80 (while 75's task runs)
    inst = _inst([T(0, 10, user="u"), T(1, 10, arr=75, user="u"), T(2, 10, arr=80, user="u"),
                  T(3, 10, user="w")], gpus=4)
    s = dmlsched.solve(inst, "rigid-fcfs").solution
    pr = replay(inst, s)
    job = jobs_of(inst, pr.first_start, pr.completion)
    assert job[1] == job[2] != job[0] and job[3] not in (job[0], job[1])
    m = metrics(inst, s)
    assert m["jobs"] == 3 and m["avg_flow"] == 10 and m["max_stretch"] == 1
    assert m["max_job_flow"] == pytest.approx(90 - 75)  # arrival 75, last completion 90
    assert m["utilisation"] == pytest.approx(40 / (4 * 90))
    assert m["makespan"] == 90


def test_instance_files_expected_values(instances_dir):
    """Every instances/moldable/*.json reproduces the total flow times under "expected"."""
    files = sorted((instances_dir / "moldable").glob("*.json"))
    assert len(files) >= 2
    for f in files:
        inst = dmlsched.load(f)
        for method, value in inst.expected.get("objective", {}).items():
            res = dmlsched.solve(inst, method)
            assert res.objective == pytest.approx(value), (f.name, method)
            if method == "exact":
                assert res.status.value == "optimal"


def test_rigid_queue_option_and_unknown_options():
    # 2 GPUs: A (p_max 1, v 10), B (p_max 2, v 1), C (p_max 1, v 1), all at 0.
    # first-fit scan: A on GPU 0, B does not fit, C on GPU 1; strict FCFS: C waits behind B.
    inst = _inst([T("A", 10), T("B", 1, pmax=2), T("C", 1)], gpus=2)
    greedy = replay(inst, dmlsched.solve(inst, "rigid-fcfs").solution).completion
    strict = replay(inst, dmlsched.solve(inst, "rigid-fcfs", queue="strict").solution).completion
    assert greedy.tolist() == [10.0, 10.5, 1.0]
    assert strict.tolist() == [10.0, 10.5, 11.5]
    with pytest.raises(ValueError, match="unknown option"):
        dmlsched.solve(inst, "moldable-equi", queue="strict")
    with pytest.raises(ValueError, match="unknown option"):
        dmlsched.solve(inst, "rigid-fcfs", blocking=True)
    with pytest.raises(ValueError, match="must be one of"):
        dmlsched.solve(inst, "rigid-fcfs", queue="fifo")


def test_a_short_suspension_is_a_preemption_for_the_validator_too():
    """A task suspended and resumed a moment later on the same GPU pays the
    overhead in the simulator; the validator must charge it as well (a gap
    shorter than the schedule's time tolerance is still a gap)."""
    # p_min = 1/1000 makes the schedule's time tolerance 1e-6 * 1000 / (1/1000) = 1 s, above the gap
    inst = _inst([T("A", 1000.0, den=1000)], gpus=1, tp=150.0, thr=0.0)
    gap = 0.05
    segs = [(0, 0.0, 100.0, (0,), 1), (0, 100.0 + gap, 100.0 + gap + 150.0 + 900.0, (0,), 1)]
    s = MoldableSchedule.from_segments(segs)
    validate(inst, s)  # resume pays 150 s: completion at 100.05 + 150 + 900
    assert replay(inst, s).preemptions.tolist() == [1]
    bad = MoldableSchedule.from_segments([(0, 0.0, 100.0, (0,), 1), (0, 100.0 + gap, 100.0 + gap + 900.0, (0,), 1)])
    with pytest.raises(dmlsched.InvalidSolutionError, match="S6"):
        validate(inst, bad)
