"""Hare schedules: validator (constraints (4)-(8)) and evaluator (sum_n w_n C_n).

A schedule gives, for every task (global index, see :mod:`.instance`), the
GPU it runs on and its start time.  Semantics (the paper's (4)-(8)):

* (4) a task starts no earlier than its job's arrival;
* (5) every task runs on exactly one GPU (an index in ``range(num_gpus)``);
* (7) every task of round ``r+1`` starts no earlier than every task of round
  ``r`` has finished training and synchronisation: ``x_j >= x_i + T^c_i + T^s_i``;
* (8) tasks on the same GPU do not overlap in their training intervals
  ``[x, x + T^c)`` (synchronisation may overlap the GPU's next task);
* (6) ``C_n = max`` over the job's tasks of ``x_i + T^c_i + T^s_i``.

All comparisons use one absolute tolerance per schedule,
:func:`dmlsched.tolerance.time_tolerance` (``TOL`` relative to the longest task,
not to the absolute time, so large time stamps do not hide overlaps).
Nothing here trusts a solver: the objective is recomputed from the schedule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...gantt import GanttChart, tasks_chart
from ...io import Reader
from ...tolerance import time_tolerance
from .instance import HareInstance


@dataclass(eq=False)
class HareSchedule:
    """GPU index and start time of every task, by global task index."""

    gpu: np.ndarray
    start: np.ndarray

    def __post_init__(self) -> None:
        self.gpu = np.asarray(self.gpu, dtype=np.int64)
        self.start = np.asarray(self.start, dtype=float)


def _shape_check(inst: HareInstance, s: HareSchedule) -> None:
    n = inst.num_tasks
    if s.gpu.shape != (n,) or s.start.shape != (n,):
        raise InvalidSolutionError(
            f"schedule has {s.gpu.shape}/{s.start.shape} entries, instance has {n} tasks"
        )
    if n and (s.gpu.min() < 0 or s.gpu.max() >= inst.num_gpus):
        i = int(np.flatnonzero((s.gpu < 0) | (s.gpu >= inst.num_gpus))[0])
        raise InvalidSolutionError(f"(5) task {_name(inst, i)}: GPU index {s.gpu[i]} out of range")
    if not np.all(np.isfinite(s.start)):
        i = int(np.flatnonzero(~np.isfinite(s.start))[0])
        raise InvalidSolutionError(f"task {_name(inst, i)}: start time is not finite")


def _name(inst: HareInstance, i: int) -> str:
    n = int(inst.task_job[i])
    return f"(job {inst.jobs[n].id!r}, round {int(inst.task_round[i])}, task {int(inst.task_k[i])})"


def task_times(inst: HareInstance, s: HareSchedule) -> tuple[np.ndarray, np.ndarray]:
    """Per-task training and synchronisation times on the assigned GPUs."""
    k = inst.gpu_type_index[s.gpu]
    return inst.tc_type[inst.task_job, k], inst.ts_type[inst.task_job, k]


def _eps(inst: HareInstance, s: HareSchedule, tc: np.ndarray, ts: np.ndarray) -> float:
    """The schedule's absolute time tolerance (:func:`dmlsched.tolerance.time_tolerance`)."""
    t_max = float(np.max(np.abs(s.start))) + float(np.max(tc + ts))
    return time_tolerance(float(max(inst.tc_type.max(), inst.ts_type.max())), t_max)


def validate(inst: HareInstance, s: HareSchedule) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint."""
    _shape_check(inst, s)
    if inst.num_tasks == 0:
        return
    tc, ts = task_times(inst, s)
    eps = _eps(inst, s, tc, ts)
    # (4) arrival
    arr = inst.arrival[inst.task_job]
    bad = s.start < arr - eps
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidSolutionError(
            f"(4) task {_name(inst, i)} starts at {s.start[i]} before its job arrives at {arr[i]}"
        )
    # (7) round barriers: per (job, round) the min start of round r+1 >= max done of round r
    done = s.start + tc + ts
    tpr = inst.tasks_per_round_arr
    group = inst.job_offset[inst.task_job] + inst.task_round * tpr[inst.task_job]  # round's first task
    # tasks are numbered job by job, round by round: group is non-decreasing
    starts_of_group = group[np.concatenate([[True], group[1:] != group[:-1]])]
    gmax_done = np.maximum.reduceat(done, starts_of_group)
    gmin_start = np.minimum.reduceat(s.start, starts_of_group)
    gjob = inst.task_job[starts_of_group]
    same_job_next = gjob[1:] == gjob[:-1]
    viol = same_job_next & (gmin_start[1:] < gmax_done[:-1] - eps)
    if viol.any():
        g = int(np.flatnonzero(viol)[0])
        lo, hi = int(starts_of_group[g]), int(starts_of_group[g + 1])
        end = int(starts_of_group[g + 2]) if g + 2 < len(starts_of_group) else inst.num_tasks
        i = lo + int(np.argmax(done[lo:hi]))
        j = hi + int(np.argmin(s.start[hi:end]))
        raise InvalidSolutionError(
            f"(7) task {_name(inst, j)} starts at {s.start[j]} before task {_name(inst, i)} "
            f"of the previous round finishes training and synchronisation at {done[i]}"
        )
    # (8) no overlap of training intervals on a GPU
    order = np.lexsort((s.start, s.gpu))
    g_sorted = s.gpu[order]
    st = s.start[order]
    en = st + tc[order]
    same = g_sorted[1:] == g_sorted[:-1]
    overlap = same & (st[1:] < en[:-1] - eps)
    if overlap.any():
        q = int(np.flatnonzero(overlap)[0])
        a, b = int(order[q]), int(order[q + 1])
        raise InvalidSolutionError(
            f"(8) on GPU {int(g_sorted[q])}: task {_name(inst, b)} starts at {st[q + 1]} while task "
            f"{_name(inst, a)} trains until {en[q]}"
        )


def completion_times(inst: HareInstance, s: HareSchedule) -> np.ndarray:
    """``C_n`` (6): latest training + synchronisation end over job ``n``'s tasks."""
    tc, ts = task_times(inst, s)
    done = s.start + tc + ts
    return np.maximum.reduceat(done, inst.job_offset[:-1]) if inst.num_tasks else np.zeros(0)


def weighted_flow(inst: HareInstance, s: HareSchedule) -> float:
    """Total weighted job completion time measured from arrival, ``sum_n w_n (C_n - a_n)``
    (the evaluation's "weighted JCT" under the flow reading; the objective (4)-(8)
    counts ``C_n`` from time 0: they differ by the constant ``sum_n w_n a_n``)."""
    return float(np.dot(inst.weight, completion_times(inst, s) - inst.arrival))


def evaluate(inst: HareInstance, s: HareSchedule) -> float:
    """Total weighted completion time ``sum_n w_n C_n`` recomputed from the schedule."""
    return float(np.dot(inst.weight, completion_times(inst, s)))


def to_json(inst: HareInstance, s: HareSchedule) -> dict:
    """``{"tasks": [{job, round, task, gpu, start, end, sync_end}], "completion": {id: C_n}}``.

    ``end`` is the end of training (the GPU is free again); ``sync_end`` adds
    the synchronisation time.
    """
    tc, ts = task_times(inst, s)
    tasks = [
        {
            "job": inst.jobs[n].id,
            "round": r,
            "task": k,
            "gpu": int(s.gpu[i]),
            "start": float(s.start[i]),
            "end": float(s.start[i] + tc[i]),
            "sync_end": float(s.start[i] + tc[i] + ts[i]),
        }
        for i, n, r, k in inst.tasks()
    ]
    comp = completion_times(inst, s)
    return {"tasks": tasks, "completion": {j.id: float(c) for j, c in zip(inst.jobs, comp)}}


def from_json(inst: HareInstance, data: Any) -> HareSchedule:
    """Rebuild a schedule from :func:`to_json` output (every task exactly once)."""
    r = Reader(data)
    ids = {j.id: n for n, j in enumerate(inst.jobs)}
    gpu = np.full(inst.num_tasks, -1, dtype=np.int64)
    start = np.full(inst.num_tasks, np.nan)
    for t in r.items("tasks"):
        jid = t.string("job")
        if jid not in ids:
            raise t.error(f"unknown job {jid!r}", "job")
        n = ids[jid]
        job = inst.jobs[n]
        rr = t.integer("round", ge=0, lt=job.rounds)
        k = t.integer("task", ge=0, lt=job.tasks_per_round)
        i = inst.task_index(n, rr, k)
        if gpu[i] != -1:
            raise t.error("task listed twice")
        gpu[i] = t.integer("gpu", ge=0, lt=inst.num_gpus)
        start[i] = t.number("start")
    if (gpu < 0).any():
        i = int(np.flatnonzero(gpu < 0)[0])
        raise r.error(f"task {_name(inst, i)} missing", "tasks")
    return HareSchedule(gpu=gpu, start=start)


def gantt_bars(inst: HareInstance, s: HareSchedule) -> GanttChart:
    """The Gantt chart of a schedule: its :func:`to_json` tasks as bars (job, GPU, start,
    end, round, synchronisation end), one row per GPU, aggregated by GPU type at scale."""
    return tasks_chart(inst, to_json(inst, s)["tasks"])
