"""preemptive-lb: a lower bound on the total flow time of every schedule
(proofs/equipartition.md section 6), tested against every policy (malleable
ones included), the non-preemptive optimum, and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings

import dmlsched
from dmlsched.problems.moldable.bounds import preemptive_lower_bound, srpt_completions, trivial_lower_bound
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.solution import MoldableSchedule
from dmlsched.problems.moldable.strategies import moldable_instances

POLICIES = ("rigid-fcfs", "rigid-shortest", "moldable-equi", "malleable-equi", "moldable-prop", "malleable-prop")


def test_srpt_by_hand():
    # sizes 4 (at 0), 1 (at 1), 1 (at 1): SRPT runs A 0-1, B 1-2, C 2-3, A 3-6
    assert srpt_completions(np.array([0.0, 1.0, 1.0]), np.array([4.0, 1.0, 1.0])).tolist() == [2.0, 3.0, 6.0]
    # idle gap: B released after A completes
    assert srpt_completions(np.array([0.0, 10.0]), np.array([2.0, 3.0])).tolist() == [2.0, 13.0]


def test_bound_by_hand_is_the_preemptive_optimum():
    """One GPU, A (10) at 0, B and C (1) at 1: the preemptive schedule A, B, C, A
    has total flow 15, below the non-preemptive optimum 16; the bound is 15."""
    inst = dmlsched.from_dict({
        "problem": "moldable", "gpus": 1, "gpu_memory": 1, "speedup": [[1, 1]],
        "preemption_overhead": 0, "preemption_min_remaining": 0,
        "tasks": [{"id": "A", "arrival": 0, "volume": 10}, {"id": "B", "arrival": 1, "volume": 1},
                  {"id": "C", "arrival": 1, "volume": 1}]})
    assert preemptive_lower_bound(inst) == pytest.approx(15.0)
    pre = MoldableSchedule.from_segments([(0, 0.0, 1.0, (0,), 1), (1, 1.0, 2.0, (0,), 1),
                                          (2, 2.0, 3.0, (0,), 1), (0, 3.0, 12.0, (0,), 1)])
    assert dmlsched.evaluate(inst, pre) == pytest.approx(15.0)
    assert dmlsched.solve(inst, "exact-cp").objective == pytest.approx(16.0)
    res = dmlsched.solve(inst, "preemptive-lb")
    assert res.status == dmlsched.Status.BOUND and res.objective == pytest.approx(15.0)


def test_area_uses_the_most_efficient_amount():
    """Two tasks of volume 4 on one GPU with s(1/2) = 3/4: sharing processes 1.5
    per unit of processor time, so the area is 4/1.5 each, SRPT completions
    8/3 and 16/3; the speed part alone (4 and 4) is weaker at the second."""
    curve = SpeedupCurve(((0.5, 0.75), (1.0, 1.0)))
    tasks = (MoldableTask("a", "u", 0.0, 4.0, 2, 1), MoldableTask("b", "u", 0.0, 4.0, 2, 1))
    inst = MoldableInstance(gpus=1, gpu_memory=1.0, speedup=curve, tasks=tasks)
    assert preemptive_lower_bound(inst) == pytest.approx(4.0 + 16 / 3)
    # sharing from the start reaches 16/3 for both: 32/3 > bound; serial: 4 + 8 = 12
    assert trivial_lower_bound(inst) == pytest.approx(8.0)


@settings(max_examples=60, deadline=None)
@given(moldable_instances(max_gpus=4, max_tasks=8))
def test_below_every_policy(inst):
    lb = preemptive_lower_bound(inst)
    assert lb >= trivial_lower_bound(inst) - 1e-9
    for m in POLICIES:
        assert dmlsched.solve(inst, m).objective >= lb * (1 - 1e-9) - 1e-9, m


@settings(max_examples=40, deadline=None)
@given(moldable_instances(max_gpus=3, max_tasks=4, max_volume=50))
def test_below_the_non_preemptive_optimum(inst):
    res = dmlsched.solve(inst, "exact-cp", work_limit=20.0)  # CP-SAT deterministic s
    assume(res.status == dmlsched.Status.OPTIMAL)
    assert preemptive_lower_bound(inst) <= res.objective * (1 + 1e-9) + 1e-9
    assert res.details["whole_space_bound"] == pytest.approx(preemptive_lower_bound(inst))


def test_malleable_policies_get_verdicts():
    """Issue 17 item 4: with exact-cp as reference, a malleable policy is judged
    against the bound over every schedule (the non-preemptive optimum is no bound for it)."""
    inst = dmlsched.load(__import__("pathlib").Path(__file__).resolve().parents[2]
                         / "instances" / "counterexamples" / "moldable-equi-nonpreemptive.json")
    rep = dmlsched.check(inst, "malleable-equi")
    assert rep.reference == "exact-cp" and rep.verdict == "holds"
    assert rep.reference_bound == pytest.approx(15.0) and "bound over every solution" in rep.details["reference_scope"]
    assert dmlsched.check(inst, "malleable-equi", reference="preemptive-lb").verdict == "holds"
