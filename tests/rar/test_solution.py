"""Simulator, evaluator and validator of RAR-DDLS schedules."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.rar import RarSchedule, average_jct, completion_times
from dmlsched.problems.rar.solution import counts_of, from_json, simulate, simulate_slots, to_json
from dmlsched.strategies import rar_instances

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


@pytest.fixture
def two():
    return dmlsched.load(INSTANCES / "rar" / "two-job-contention.json")


def hand_schedule():
    # servers [2, 2]: GPUs 0,1 on server 0 and 2,3 on server 1.
    # A starts at 0 on (s0 g0, s1 g0); B starts at 1 on (s0 g1, s1 g1): both split over both servers.
    return RarSchedule(start=np.array([0, 1]), gpus=((0, 2), (1, 3)))


def test_two_job_contention_by_hand(two):
    """Hand computation (models/rar.md, "Worked example").

    A: m=2, w=2: exchange 2*(2/2)*1 = 2, reduction (2/2)*1/100 = 0.01, BP 0.04, gamma = 0.05*2 = 0.1.
       alone (p=1, k=1, f=1, B=10):    tau = 0.2 + 0.01 + 0.04 + 0.1 = 0.35 -> phi = floor(2.857) = 2
       with B (p=2, k=2, f=2+1=3):     tau = 0.6 + 0.05 + 0.1 = 0.75 -> phi = 1
    B: m=1: exchange 1, reduction 0.005, BP 0.045.
       alone: tau = 0.1 + 0.05 + 0.1 = 0.25 -> phi = 4;  with A: tau = 0.3 + 0.05 + 0.1 = 0.45 -> phi = 2
    Slot 0: A alone, 2 done.  Slots 1-4: both, A +1 per slot -> 6 = F_A at the end of slot 4: T_A = 5.
    B: slots 1-4 at 2 -> 8, slot 5 alone at 4 -> 12 >= 10: T_B = 6.  Makespan 6, average JCT 5.5.
    """
    s = hand_schedule()
    eng = simulate(two, s.start, s.gpus, record=True)
    assert [tr["tau"] for tr in eng.trace[0]] == pytest.approx([0.35, 0.75])
    assert [tr["phi"] for tr in eng.trace[0]] == [2.0, 1.0]
    assert [tr["p"] for tr in eng.trace[0]] == [1, 2]
    assert [tr["tau"] for tr in eng.trace[1]] == pytest.approx([0.45, 0.25])
    assert [tr["phi"] for tr in eng.trace[1]] == [2.0, 4.0]
    assert completion_times(two, s).tolist() == [5, 6]
    dmlsched.validate(two, s)
    assert dmlsched.evaluate(two, s) == 6.0
    assert average_jct(two, s) == 5.5
    # the literal slot-by-slot reference agrees
    counts = [counts_of(two, g) for g in s.gpus]
    assert simulate_slots(two, s.start, counts, 50).tolist() == [5, 6]


def test_json_round_trip_and_trace(two):
    s = hand_schedule()
    js = to_json(two, s)
    assert js["makespan"] == 6 and js["jobs"][0]["placement"] == {"0": [0], "1": [0]}
    back = from_json(two, json.loads(json.dumps(js)))
    assert back.start.tolist() == [0, 1] and back.gpus == s.gpus


@pytest.mark.parametrize(
    "start, gpus, pattern",
    [
        ([0, 1], ((0, 2), (1,)), r"\(1\) gang: job 'B' holds 1 GPUs"),
        ([0, 1], ((0, 2), (1, 1)), r"\(1\) gang: job 'B' lists a GPU twice"),
        ([0, 1], ((0, 2), (1, 4)), r"\(2\) capacity: job 'B' uses GPU 4"),
        ([0, 1], ((0, 2), (0, 3)), r"\(2\) capacity: GPU 0 .* held by job 'B' from slot 1 while job 'A' runs until"),
        ([0, 19], ((0, 2), (1, 3)), r"horizon: job 'B' completes at slot 22 > T = 20"),
        ([-1, 1], ((0, 2), (1, 3)), r"start slot -1 < 0"),
    ],
)
def test_validator_rejects_each_violated_constraint(two, start, gpus, pattern):
    s = RarSchedule(start=np.array(start), gpus=gpus)
    with pytest.raises(InvalidSolutionError, match=pattern):
        dmlsched.validate(two, s)


def test_validator_accepts_back_to_back_on_same_gpus(two):
    # B waits for A on the same GPUs: A alone ends at 3 (6 iterations at 2 per slot)
    s = RarSchedule(start=np.array([0, 3]), gpus=((0, 2), (0, 2)))
    dmlsched.validate(two, s)
    assert completion_times(two, s).tolist() == [3, 6]
    with pytest.raises(InvalidSolutionError, match=r"\(2\) capacity"):
        dmlsched.validate(two, RarSchedule(start=np.array([0, 2]), gpus=((0, 2), (0, 2))))


def test_no_preemption_or_migration_in_json(two):
    js = to_json(two, hand_schedule())
    js["jobs"].append({"id": "A", "start": 3, "placement": {"0": [1]}})  # A resumed elsewhere
    with pytest.raises(dmlsched.InstanceError, match=r"\(3\) no preemption or migration"):
        from_json(two, js)


@settings(max_examples=60, deadline=None)
@given(inst=rar_instances(max_jobs=4), data=st.data())
def test_engine_matches_slot_by_slot_reference(inst, data):
    """The event-driven simulator equals the literal slot-by-slot one on random schedules."""
    J = inst.num_jobs
    starts = [data.draw(st.integers(0, 6)) for _ in range(J)]
    gpus = []
    for j in range(J):
        gpus.append(tuple(data.draw(st.permutations(range(inst.num_gpus)))[: int(inst.G[j])]))
    counts = [counts_of(inst, g) for g in gpus]
    try:
        eng = simulate(inst, starts, gpus)
    except InvalidSolutionError:
        # overlapping random placements can exceed the contention any feasible schedule has;
        # in floor mode a job then gets floor(1/tau) = 0: the reference never finishes it
        assert inst.progress == "floor"
        assert (simulate_slots(inst, starts, counts, 3000) < 0).any()
    else:
        T = [eng.finish[j] for j in range(J)]
        ref = simulate_slots(inst, starts, counts, max(T) + 2)
        assert ref.tolist() == T
