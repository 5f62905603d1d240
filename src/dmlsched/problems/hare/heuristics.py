"""Algorithm 1's list phase (Hare, HPDC'22, Section 5.2, lines 4-17).

Given a priority ``H_i`` per task (the paper: ``H_i = max_m x̂_i + T^c_{i,m}/2``
from the relaxation), tasks are taken in non-decreasing ``H`` and each is put
on the GPU with the earliest available time ``phi_m`` (ties: lowest GPU index),
starting at ``max(t_i, phi_m)`` where ``t_i`` is the job's arrival for round 0
and the end of training plus synchronisation of the job's previous round
otherwise; the GPU is free again after training (``phi_m = x̃_i + T^c``).

Complexity: one sort, then one heap operation per task: ``O(n log n + n log M)``.
"""

from __future__ import annotations

import heapq

import numpy as np

from .instance import HareInstance
from .solution import HareSchedule


def priority_order(inst: HareInstance, priority: np.ndarray) -> np.ndarray:
    """The sequence ``pi``: tasks by non-decreasing priority.

    So that line 10's barrier is always defined, a task never precedes a task
    of an earlier round of its own job: each task's key is the running maximum
    of its job's priorities up to its round (a no-op for the relaxation's ``H``,
    where (7) already makes later rounds strictly later).  Ties break by job,
    round and task index.
    """
    pr = np.asarray(priority, dtype=float)
    if pr.shape != (inst.num_tasks,):
        raise ValueError(f"priority must have one entry per task ({inst.num_tasks})")
    if inst.num_tasks == 0:
        return np.zeros(0, dtype=np.int64)
    # max priority per (job, round), then cumulative max over rounds within each job
    tpr = np.array([j.tasks_per_round for j in inst.jobs], dtype=np.int64)
    round_start = inst.job_offset[inst.task_job] + inst.task_round * tpr[inst.task_job]
    firsts = np.unique(round_start)
    rmax = np.maximum.reduceat(pr, firsts)
    rjob = inst.task_job[firsts]
    # cumulative max within each job: segment-wise accumulate
    cm = rmax.copy()
    for q in range(1, len(cm)):  # rounds count is small relative to tasks
        if rjob[q] == rjob[q - 1] and cm[q - 1] > cm[q]:
            cm[q] = cm[q - 1]
    prev = np.concatenate([[-np.inf], cm[:-1]])
    prev[np.concatenate([[True], rjob[1:] != rjob[:-1]])] = -np.inf
    round_id = np.searchsorted(firsts, round_start)
    key = np.maximum(pr, prev[round_id])
    return np.lexsort((inst.task_k, inst.task_round, inst.task_job, key))


def list_schedule(inst: HareInstance, order: np.ndarray) -> HareSchedule:
    """Lines 5-17 of Algorithm 1 over the task sequence ``order``.

    ``order`` must list every task once, each job's rounds in order (as
    :func:`priority_order` guarantees).
    """
    n_tasks = inst.num_tasks
    gpu = np.empty(n_tasks, dtype=np.int64)
    start = np.empty(n_tasks, dtype=float)
    tc = inst.tc.tolist()
    ts = inst.ts.tolist()
    task_job = inst.task_job.tolist()
    task_round = inst.task_round.tolist()
    arrival = [j.arrival for j in inst.jobs]
    n_jobs = inst.num_jobs
    cur_round = [0] * n_jobs
    barrier = arrival[:]  # t_i for the job's current round
    cur_max = [float("-inf")] * n_jobs  # max done time within the current round
    heap = [(0.0, m) for m in range(inst.num_gpus)]  # (phi_m, m)
    heapq.heapify(heap)
    out_gpu = [0] * n_tasks
    out_start = [0.0] * n_tasks
    replace = heapq.heapreplace
    for i in order.tolist():
        n = task_job[i]
        r = task_round[i]
        if r != cur_round[n]:
            if r != cur_round[n] + 1:
                raise ValueError("order must take each job's rounds in sequence")
            barrier[n] = cur_max[n]
            cur_round[n] = r
            cur_max[n] = float("-inf")
        phi, m = heap[0]
        t = barrier[n]
        x = t if t > phi else phi
        tcm = tc[n][m]
        d = x + tcm + ts[n][m]
        if d > cur_max[n]:
            cur_max[n] = d
        replace(heap, (x + tcm, m))
        out_gpu[i] = m
        out_start[i] = x
    gpu[:] = out_gpu
    start[:] = out_start
    return HareSchedule(gpu=gpu, start=start)


def middle_completion_priority(inst: HareInstance, x_hat: np.ndarray) -> np.ndarray:
    """``H_i = max_m (x̂_i + T^c_{i,m} / 2)`` (Step 2 of Algorithm 1)."""
    return np.asarray(x_hat, dtype=float) + inst.tc.max(axis=1)[inst.task_job] / 2.0


# ---------------------------------------------------------------------------
# registration of Algorithm 1 as the ``list`` method
from ...registry import register_method  # noqa: E402
from ...result import Result, Status  # noqa: E402
from .bounds import theorem4_ratio  # noqa: E402


@register_method(
    "hare",
    "list",
    kind="heuristic",
    description="Algorithm 1: relaxation, then list scheduling by middle completion time",
    bound=theorem4_ratio,
    bound_name="Hare Theorem 4: alpha(2+alpha)",
    uses_solver=True,
)
def solve_list(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    relaxation: str = "rl",
    **options,
) -> Result:
    """Algorithm 1 (Hare): solve a relaxation, sort by ``H_i``, list-schedule.

    Options
    -------
    relaxation
        Which relaxation gives ``x̂``: ``"rl"`` (Hare_Sched_RL, the paper's (9)
        with (4)-(7)) or ``"queyranne"`` (all subset inequalities, by separation).
        The relaxation's proven value is reported as ``lower_bound``.
    """
    from .models import solve_relaxation

    rel = solve_relaxation(
        inst, kind=relaxation, solver=solver, time_limit=time_limit, seed=seed, **options
    )
    if rel.x_hat is None:
        return Result(
            "hare", "list", Status.TIME_LIMIT if rel.status == Status.TIME_LIMIT else Status.ERROR,
            solver=solver, details={"relaxation_status": rel.status.value, "error": "relaxation has no solution"},
        )
    order = priority_order(inst, middle_completion_priority(inst, rel.x_hat))
    sched = list_schedule(inst, order)
    return Result(
        "hare",
        "list",
        Status.FEASIBLE,
        lower_bound=rel.lower_bound,
        solution=sched,
        solver=solver,
        details={
            "relaxation": relaxation,
            "relaxation_status": rel.status.value,
            "relaxation_value": rel.value,
        },
    )
