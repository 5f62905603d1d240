"""Every reading option of the family changes the behaviour it claims to
change, shown on hand-made instances (issue 15: readings are named options)."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.solution import replay

LIN = SpeedupCurve(((1.0, 1.0), (2.0, 2.0)))


def _completions(inst, method, **opts):
    return replay(inst, dmlsched.solve(inst, method, **opts).solution).completion.tolist()


def test_rigid_queue_readings():
    """2 GPUs, all at 0: A (1 GPU, 10 s), B (2 GPUs, 1 s), C (1 GPU, 1 s), D (1 GPU, 20 s).
    first-fit: C and then D pass the blocked B; strict: nobody passes B;
    easy: C passes B (it ends before B's reservation at 10), D does not (it would delay B)."""
    tasks = (MoldableTask("A", "u", 0.0, 10.0, 1, 1), MoldableTask("B", "u", 0.0, 2.0, 1, 2),
             MoldableTask("C", "u", 0.0, 1.0, 1, 1), MoldableTask("D", "u", 0.0, 20.0, 1, 1))
    inst = MoldableInstance(gpus=2, gpu_memory=1.0, speedup=LIN, tasks=tasks)
    assert _completions(inst, "rigid-fcfs") == [10.0, 22.0, 1.0, 21.0]
    assert _completions(inst, "rigid-fcfs", queue="strict") == [10.0, 11.0, 12.0, 31.0]
    assert _completions(inst, "rigid-fcfs", queue="easy") == [10.0, 11.0, 1.0, 31.0]


def test_easy_backfills_into_the_reservation_leftover():
    """3 GPUs: A (1 GPU, 10 s) and B (1 GPU, 4 s) run; C needs 3 GPUs and
    reserves t = 10 with nothing left over; D (1 GPU, 20 s) arriving at 1 fits
    now but would delay C, so EASY keeps it waiting; E (1 GPU, 3 s) ends by
    10 and starts."""
    lin3 = SpeedupCurve(((1.0, 1.0), (3.0, 3.0)))
    tasks = (MoldableTask("A", "u", 0.0, 10.0, 1, 1), MoldableTask("B", "u", 0.0, 4.0, 1, 1),
             MoldableTask("C", "u", 0.5, 3.0, 1, 3), MoldableTask("D", "u", 1.0, 20.0, 1, 1),
             MoldableTask("E", "u", 1.0, 3.0, 1, 1))
    inst = MoldableInstance(gpus=3, gpu_memory=1.0, speedup=lin3, tasks=tasks)
    easy = _completions(inst, "rigid-fcfs", queue="easy")
    assert easy == [10.0, 4.0, 11.0, 31.0, 4.0]
    ff = _completions(inst, "rigid-fcfs")
    assert ff[3] == 21.0 and ff[2] > 11.0  # first-fit lets D delay C


def test_rigid_policies_allocate_the_request_not_p_max():
    tasks = (MoldableTask("a", "u", 0.0, 8.0, 1, 4, 0.0, p_req=2), MoldableTask("b", "u", 0.0, 8.0, 1, 4, 0.0))
    inst = MoldableInstance(gpus=4, gpu_memory=1.0, speedup=SpeedupCurve.linear(4), tasks=tasks)
    s = dmlsched.solve(inst, "rigid-fcfs").solution
    assert [len(s.gpus_of(j)) for j in range(s.num_segments)] == [2, 4]  # b has no p_req: p_max
    assert dmlsched.to_dict(inst)["tasks"][0]["p_req"] == 2 and "p_req" not in dmlsched.to_dict(inst)["tasks"][1]
    with pytest.raises(dmlsched.InstanceError, match=r"tasks\[0\]\.p_req"):
        MoldableInstance(gpus=4, gpu_memory=1.0, speedup=SpeedupCurve.linear(4),
                         tasks=(MoldableTask("a", "u", 0.0, 8.0, 1, 2, 0.0, p_req=3),))


def test_first_found_gpu_readings_differ_without_preemption_cost():
    """2 GPUs of memory 10, no preemption overhead.  t1 (mem 6) and t2 (mem 3),
    p_min = 1/2, arrive at 2 and get a GPU each; t0 (one whole GPU, mem 3)
    arrives at 4 and case 1 re-allocates p_min in arrival order.  The paper's
    lowest-index rule puts t1 and t2 on GPU 0 (6 + 3 <= 10) and t0 runs on
    GPU 1; searching current GPUs first keeps t2 on GPU 1 and t0 waits."""
    curve = SpeedupCurve(((0.25, 0.4), (0.5, 0.65), (1.0, 1.0), (2.0, 1.8), (3.0, 2.5)))
    tasks = (MoldableTask("t0", "u", 4.0, 5.0, 1, 1, 3.0), MoldableTask("t1", "u", 2.0, 4.0, 2, 1, 6.0),
             MoldableTask("t2", "u", 2.0, 4.0, 2, 1, 3.0))
    inst = MoldableInstance(gpus=2, gpu_memory=10.0, speedup=curve, tasks=tasks, preemption_min_remaining=0.0)
    paper = dmlsched.solve(inst, "malleable-equi")
    current = dmlsched.solve(inst, "malleable-equi", first_found="current-first")
    assert paper.objective == pytest.approx(15.153846, abs=1e-5)
    assert current.objective == pytest.approx(18.230769, abs=1e-5)
    assert _completions(inst, "malleable-equi", first_found="current-first")[0] > 12.0
    # the moldable policies never re-allocate: the option is not theirs
    with pytest.raises(ValueError, match="unknown option"):
        dmlsched.solve(inst, "moldable-equi", first_found="current-first")
