"""The Hare validator (constraints (4), (5), (7), (8), shape, finiteness) and evaluator.

Every test builds its schedule by hand on a two-job instance whose numbers are
worked out in the comments, so each rejection is caused by exactly one
violated constraint.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.hare.solution import (
    HareSchedule,
    completion_times,
    evaluate,
    from_json,
    to_json,
    validate,
)
from dmlsched.registry import _METHODS, register_method
from dmlsched.result import Result, Status

# GPU 0 is a V100, GPU 1 a K80.
# Job A: arrives at 1, weight 2, 2 rounds x 2 tasks, T^c = 1 (V100) / 3 (K80),
#        T^s = 0.5 (V100) / 0.25 (K80).   Tasks 0..3 = (r0,k0), (r0,k1), (r1,k0), (r1,k1).
# Job B: arrives at 0, weight 1, 1 round x 1 task, T^c = 2 / 4, T^s = 0.  Task 4.
DATA = {
    "problem": "hare",
    "name": "validator",
    "gpus": ["V100", "K80"],
    "jobs": [
        {"id": "A", "arrival": 1.0, "weight": 2.0, "rounds": 2, "tasks_per_round": 2,
         "train_time": {"V100": 1.0, "K80": 3.0}, "sync_time": {"V100": 0.5, "K80": 0.25}},
        {"id": "B", "arrival": 0.0, "weight": 1.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"V100": 2.0, "K80": 4.0}, "sync_time": {"V100": 0.0, "K80": 0.0}},
    ],
}

# The valid schedule:
#   GPU 0: A(r0,k0) trains [1, 2) and syncs until 2.5; B trains [2, 4) -- it touches
#          A's training interval and overlaps A's synchronisation (allowed);
#          A(r1,k0) trains [4.25, 5.25), syncs until 5.75.
#   GPU 1: A(r0,k1) trains [1, 4), syncs until 4.25 (round 0 of A done at 4.25);
#          A(r1,k1) trains [4.25, 7.25), syncs until 7.5.
#   C_A = 7.5, C_B = 4, objective 2 * 7.5 + 1 * 4 = 19.
GPU = [0, 1, 0, 1, 0]
START = [1.0, 1.0, 4.25, 4.25, 2.0]


@pytest.fixture
def inst():
    return dmlsched.from_dict(DATA)


def sched(gpu=GPU, start=START) -> HareSchedule:
    return HareSchedule(gpu=np.array(gpu), start=np.array(start, dtype=float))


def with_start(i: int, value: float) -> HareSchedule:
    s = list(START)
    s[i] = value
    return sched(start=s)


def test_accepts_valid_schedule_with_touching_intervals_and_sync_overlap(inst):
    validate(inst, sched())
    dmlsched.validate(inst, sched())


def test_evaluator_matches_hand_computed_values(inst):
    assert completion_times(inst, sched()).tolist() == [7.5, 4.0]
    assert evaluate(inst, sched()) == pytest.approx(19.0)
    assert dmlsched.evaluate(inst, sched()) == pytest.approx(19.0)


def test_round_may_start_exactly_at_barrier_and_task_at_arrival(inst):
    # A(r1,k0) at exactly 4.25 and A(r0,*) at exactly the arrival 1 are in the valid schedule;
    # tiny float noise below TOL is accepted too
    validate(inst, with_start(2, 4.25 - 1e-9))
    validate(inst, with_start(0, 1.0 - 1e-9))


def test_rejects_start_before_arrival_4(inst):
    with pytest.raises(InvalidSolutionError, match=r"^\(4\).*'A'.*round 0, task 0.*before its job arrives"):
        validate(inst, with_start(0, 0.5))


@pytest.mark.parametrize("bad_gpu", [-1, 2, 10**6])
def test_rejects_gpu_index_out_of_range_5(inst, bad_gpu):
    g = list(GPU)
    g[4] = bad_gpu
    with pytest.raises(InvalidSolutionError, match=r"^\(5\).*'B'.*out of range"):
        validate(inst, sched(gpu=g))


def test_rejects_round_started_after_training_but_before_sync_7(inst):
    # A(r0,k1) trains until 4 and syncs until 4.25: A(r1,k0) at 4.0 breaks (7) only
    # (GPU 0 is free from 4, when B's training ends)
    with pytest.raises(InvalidSolutionError, match=r"^\(7\).*round 1, task 0.*round 0, task 1.*4\.25"):
        validate(inst, with_start(2, 4.0))


def test_rejects_round_started_before_previous_round_starts_7(inst):
    # round 1 entirely before round 0: far from the barrier
    s = list(START)
    s[2] = 1.0
    s[0] = 5.25
    with pytest.raises(InvalidSolutionError, match=r"^\(7\)"):
        validate(inst, sched(start=s))


def test_rejects_overlapping_training_on_a_gpu_8(inst):
    # B at 1.5 on GPU 0 overlaps A(r0,k0)'s training [1, 2)
    with pytest.raises(InvalidSolutionError, match=r"^\(8\) on GPU 0.*'B'.*trains until 2"):
        validate(inst, with_start(4, 1.5))


def test_rejects_same_start_on_same_gpu_8(inst):
    g = list(GPU)
    g[1] = 0  # both round-0 tasks of A on GPU 0 at time 1
    with pytest.raises(InvalidSolutionError, match=r"^\(8\) on GPU 0"):
        validate(inst, sched(gpu=g))


@pytest.mark.parametrize("n", [0, 4, 6])
def test_rejects_wrong_length(inst, n):
    with pytest.raises(InvalidSolutionError, match="entries, instance has 5 tasks"):
        validate(inst, sched(gpu=(GPU * 2)[:n], start=(START * 2)[:n]))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_rejects_non_finite_start(inst, bad):
    with pytest.raises(InvalidSolutionError, match="start time is not finite"):
        validate(inst, with_start(3, bad))


def test_solve_refuses_a_method_returning_an_invalid_schedule(inst):
    """``dmlsched.solve`` runs the validator on every method's output."""
    @register_method("hare", "_test_broken", kind="heuristic")
    def broken(instance, *, solver, time_limit, seed, **options):
        return Result("hare", "_test_broken", Status.FEASIBLE, solution=with_start(4, 1.5))

    try:
        with pytest.raises(InvalidSolutionError, match=r"\(8\)"):
            dmlsched.solve(inst, "_test_broken")
    finally:
        _METHODS.pop(("hare", "_test_broken"), None)


def test_json_round_trip_of_a_schedule(inst):
    js = to_json(inst, sched())
    assert js["completion"] == {"A": 7.5, "B": 4.0}
    b = next(t for t in js["tasks"] if t["job"] == "B")
    assert (b["gpu"], b["start"], b["end"], b["sync_end"]) == (0, 2.0, 4.0, 4.0)
    back = from_json(inst, js)
    assert back.gpu.tolist() == GPU and back.start.tolist() == START
