"""check never certifies a malleable policy against the non-preemptive optimum."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.problems.moldable.solution import MoldableSchedule

INST = {
    "problem": "moldable", "gpus": 1, "gpu_memory": 1, "speedup": [[1, 1]],
    "preemption_overhead": 0, "preemption_min_remaining": 0,
    "tasks": [{"id": "A", "user": "u", "arrival": 0, "volume": 10, "p_min": 1, "p_max": 1, "memory": 0},
              {"id": "B", "user": "v", "arrival": 1, "volume": 1, "p_min": 1, "p_max": 1, "memory": 0},
              {"id": "C", "user": "w", "arrival": 1, "volume": 1, "p_min": 1, "p_max": 1, "memory": 0}],
}


def test_preemptive_schedule_beats_non_preemptive_optimum():
    inst = dmlsched.from_dict(INST)
    ref = dmlsched.solve(inst, "exact")
    assert ref.status == dmlsched.Status.OPTIMAL and ref.objective == pytest.approx(16.0)
    pre = MoldableSchedule.from_segments([(0, 0.0, 1.0, (0,), 1), (1, 1.0, 2.0, (0,), 1),
                                          (2, 2.0, 3.0, (0,), 1), (0, 3.0, 12.0, (0,), 1)])
    dmlsched.validate(inst, pre)
    assert dmlsched.evaluate(inst, pre) == pytest.approx(15.0)


def test_malleable_policy_is_never_certified_by_the_moldable_optimum():
    inst = dmlsched.from_dict(INST)
    rep = dmlsched.check(inst, "malleable-equi", reference="exact")
    assert rep.objective / 15.0 > 2.0  # the true ratio exceeds the claimed 2
    assert rep.verdict == "inconclusive" and "reference_scope" in rep.details
    # the moldable policy lives in the reference's space: certified
    assert dmlsched.check(inst, "moldable-equi", reference="exact").verdict == "holds"


def test_whole_space_bound_is_used_but_violation_needs_a_feasible_value():
    inst = dmlsched.from_dict(INST)
    rep = dmlsched.check(inst, "malleable-equi")  # the family's reference: exact-cp
    assert rep.reference == "exact-cp"
    assert rep.reference_bound == pytest.approx(15.0)  # the preemptive optimum, from preemptive-lb
    assert rep.ratio_to_bound > 2.0 and rep.ratio < 2.0  # 31/15 fails holds, 31/16 shows no violation
    assert rep.verdict == "inconclusive"
