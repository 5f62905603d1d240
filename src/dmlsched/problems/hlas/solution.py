"""Simulated HLAS runs: validator (a feasible Hare schedule) and evaluator (average JCT).

A run records the GPU and start time of every task (Hare's global task
numbering) plus the groups used and each job's reported finish time.  The
validator converts the instance to a :class:`~dmlsched.problems.hare.HareInstance`
and the run to a :class:`~dmlsched.problems.hare.HareSchedule` and calls Hare's
validator (arrival (4), one GPU per task (5), round barriers (7), no overlap of
training on a GPU (8)); it then checks that the reported finish times are the
schedule's completion times (6).  The evaluator recomputes the average job
completion time ``mean_n (C_n - a_n)`` from the schedule alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...gantt import GanttChart, gpu_labels, gpu_types
from ...tolerance import time_tolerance
from ..hare.solution import HareSchedule
from ..hare.solution import completion_times as hare_ct
from ..hare.solution import to_json as hare_to_json
from ..hare.solution import validate as hare_validate
from .instance import HlasInstance

#: above this many tasks the JSON form of a run omits the per-task list
JSON_MAX_TASKS = 50_000


@dataclass(eq=False)
class HlasRun:
    """A simulated schedule.

    Attributes
    ----------
    gpu, start
        GPU index and start time of every task (Hare's global task index).
    finish
        Finish time of every job as the simulator reported it.
    policy
        Name of the policy that produced the run.
    groups
        The GPU groups used (lists of GPU indices).
    log
        Assignments ``(time, job, round, group, gpus)`` when traced, else empty.
    """

    gpu: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    policy: str = ""
    groups: list[list[int]] = field(default_factory=list)
    log: list[tuple] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.gpu = np.asarray(self.gpu, dtype=np.int64)
        self.start = np.asarray(self.start, dtype=float)
        self.finish = np.asarray(self.finish, dtype=float)

    def hare_schedule(self):
        return HareSchedule(gpu=self.gpu, start=self.start)


def completion_times(inst: HlasInstance, run: HlasRun) -> np.ndarray:
    """``C_n`` recomputed from the schedule (Hare's (6))."""
    return hare_ct(inst.hare, run.hare_schedule())


def validate(inst: HlasInstance, run: HlasRun) -> None:
    """Raise :class:`InvalidSolutionError` unless ``run`` is a feasible Hare schedule."""
    hare_validate(inst.hare, run.hare_schedule())
    if run.finish.shape != (inst.num_jobs,):
        raise InvalidSolutionError(f"run reports {run.finish.shape} finish times for {inst.num_jobs} jobs")
    ct = completion_times(inst, run)
    hare = inst.hare
    eps = time_tolerance(float(max(hare.tc.max(), hare.ts.max())), float(np.max(np.abs(ct))) if ct.size else 0.0)
    for n in range(inst.num_jobs):
        if not abs(float(run.finish[n]) - float(ct[n])) <= eps:
            raise InvalidSolutionError(
                f"(6) job {inst.jobs[n].id!r}: reported finish {run.finish[n]} but its last task "
                f"ends at {ct[n]}")


def jcts(inst: HlasInstance, run: HlasRun) -> np.ndarray:
    """Per-job completion time ``C_n - a_n``."""
    return completion_times(inst, run) - np.array([j.arrival for j in inst.jobs])


def evaluate(inst: HlasInstance, run: HlasRun) -> float:
    """Average JCT ``mean_n (C_n - a_n)`` recomputed from the schedule."""
    return float(jcts(inst, run).mean())


def metrics(inst: HlasInstance, run: HlasRun) -> dict[str, float]:
    """Average and total weighted JCT, makespan and GPU utilisation from the schedule."""
    ct = completion_times(inst, run)
    arr = np.array([j.arrival for j in inst.jobs])
    w = np.array([j.weight for j in inst.jobs])
    tc = inst.hare.tc[inst.hare.task_job, run.gpu] if inst.num_tasks else np.zeros(0)
    makespan = float(ct.max())
    span = makespan - float(arr.min())
    return {
        "avg_jct": float((ct - arr).mean()),
        "total_weighted_jct": float(np.dot(w, ct - arr)),
        "max_jct": float((ct - arr).max()),
        "makespan": makespan,
        "utilisation": float(tc.sum() / (inst.num_gpus * span)) if span > 0 else float("nan"),
    }


def to_json(inst: HlasInstance, run: HlasRun) -> dict:
    """Per-job records, metrics, groups and (up to :data:`JSON_MAX_TASKS`) the tasks."""
    ct = completion_times(inst, run)
    out: dict[str, Any] = {
        "policy": run.policy,
        "groups": [list(map(int, g)) for g in run.groups],
        "metrics": metrics(inst, run),
        "jobs": [
            {"job": j.id, "arrival": j.arrival, "finish": float(c), "jct": float(c - j.arrival),
             "weight": j.weight, "rounds": j.rounds}
            for j, c in zip(inst.jobs, ct)
        ],
    }
    if inst.num_tasks <= JSON_MAX_TASKS:
        out["tasks"] = hare_to_json(inst.hare, run.hare_schedule())["tasks"]
    else:
        out["tasks_omitted"] = f"{inst.num_tasks} tasks > {JSON_MAX_TASKS}"
    return out


def gantt_bars(inst: HlasInstance, run: HlasRun) -> GanttChart:
    """The Gantt chart of a run: Hare's task bars, rows grouped by the run's GPU groups."""
    tasks = hare_to_json(inst.hare, run.hare_schedule())["tasks"]
    groups = [list(map(int, g)) for g in (run.groups or inst.grouping or [])]
    return GanttChart(
        tasks, row_labels=gpu_labels(inst),
        groups=[(f"group {u}", g) for u, g in enumerate(groups)] if groups else None,
        aggregate=None if groups else gpu_types(inst),
    )
