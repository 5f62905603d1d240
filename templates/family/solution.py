"""Template family solutions: an independent validator and evaluator.

A schedule gives the start time ``S_j`` of every job.  The pattern to copy:
:func:`validate` checks every constraint of the model in plain code, with no
call into a method (it is the referee of every method's answer);
:func:`evaluate` recomputes the objective ``sum_j w_j (S_j + p_j)`` from the
solution alone; :func:`to_json` is what ``dmlsched solve --json`` prints, and
:func:`from_json` reads it back (``dmlsched gantt --results``).
``dmlsched.solve`` calls the first two on every solution a method returns.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from dmlsched.errors import InvalidSolutionError
from dmlsched.gantt import GanttChart
from dmlsched.io import Reader
from dmlsched.tolerance import time_tolerance  # the one tolerance of every family's validator

from .instance import TemplateInstance


@dataclass(frozen=True)
class TemplateSchedule:
    """Start time of every job, in job order."""

    start: tuple[float, ...]

    def order(self) -> list[int]:
        """Jobs by start time (ties: lower index first)."""
        return sorted(range(len(self.start)), key=lambda j: (self.start[j], j))


def completion_times(inst: TemplateInstance, sol: TemplateSchedule) -> list[float]:
    """``C_j = S_j + p_j``."""
    return [s + p for s, p in zip(sol.start, inst.p)]


def validate(inst: TemplateInstance, sol: TemplateSchedule) -> None:
    """Raise :class:`InvalidSolutionError` naming the violated constraint."""
    if len(sol.start) != inst.num_jobs:
        raise InvalidSolutionError(f"schedule has {len(sol.start)} start times, instance has {inst.num_jobs} jobs")
    for j, s in enumerate(sol.start):
        if isinstance(s, bool) or not (isinstance(s, numbers.Real) and math.isfinite(s) and s >= 0):
            raise InvalidSolutionError(f"(2) job {inst.jobs[j].id}: start {s!r} is not a finite time >= 0")
    order = sol.order()
    tol = time_tolerance(max(inst.p), max(sol.start) + max(inst.p))
    for a, b in zip(order, order[1:]):  # (3)-(4): one job at a time
        end = sol.start[a] + inst.p[a]
        if sol.start[b] < end - tol:
            raise InvalidSolutionError(
                f"(3)-(4) jobs {inst.jobs[a].id} and {inst.jobs[b].id} overlap: "
                f"{inst.jobs[b].id} starts at {sol.start[b]:g} before {inst.jobs[a].id} ends at {end:g}")


def evaluate(inst: TemplateInstance, sol: TemplateSchedule) -> float:
    """``sum_j w_j C_j`` recomputed from the start times."""
    return float(sum(w * c for w, c in zip(inst.w, completion_times(inst, sol))))


def to_json(inst: TemplateInstance, sol: TemplateSchedule) -> dict:
    """The schedule as JSON: starts, completions and the order, by job id."""
    return {
        "start": {j.id: float(s) for j, s in zip(inst.jobs, sol.start)},
        "completion": {j.id: float(c) for j, c in zip(inst.jobs, completion_times(inst, sol))},
        "order": [inst.jobs[j].id for j in sol.order()],
    }


def from_json(inst: TemplateInstance, data: Any) -> TemplateSchedule:
    """Rebuild a schedule from :func:`to_json` output: the start time of every job, by id
    (an :class:`~dmlsched.errors.InstanceError` names a missing or unknown job)."""
    start = Reader(data)["start"]
    ids = {j.id for j in inst.jobs}
    for jid, _ in start.entries():
        if jid not in ids:
            raise start.error(f"unknown job {jid!r}", jid)
    return TemplateSchedule(tuple(start.number(j.id) for j in inst.jobs))


def gantt_bars(inst: TemplateInstance, sol: TemplateSchedule) -> GanttChart:
    """The Gantt chart of a schedule (``Family.gantt``): one bar per job on the one machine."""
    tasks = [{"job": j.id, "gpu": 0, "start": float(s), "end": float(c)}
             for j, s, c in zip(inst.jobs, sol.start, completion_times(inst, sol))]
    return GanttChart(tasks, row_labels=["machine"], ylabel="machine")


def from_order(inst: TemplateInstance, order: list[int]) -> TemplateSchedule:
    """The schedule processing the jobs in ``order`` without idle time."""
    start = [0.0] * inst.num_jobs
    t = 0.0
    for j in order:
        start[j] = t
        t += inst.p[j]
    return TemplateSchedule(tuple(start))
