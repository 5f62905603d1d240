"""Per-job records and aggregate metrics of a simulated run."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["Recorder", "JobRecord"]


@dataclass(frozen=True)
class JobRecord:
    """What happened to one job: arrival, first start, finish, weight, and extras."""

    job: int
    arrival: float
    weight: float
    start: float | None
    finish: float | None
    extra: dict[str, Any]

    @property
    def jct(self) -> float | None:
        """Job completion time ``finish - arrival`` (``None`` if unfinished)."""
        return None if self.finish is None else self.finish - self.arrival

    def to_json(self, name: str | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "job": name if name is not None else self.job,
            "arrival": self.arrival,
            "weight": self.weight,
            "start": self.start,
            "finish": self.finish,
            "jct": self.jct,
        }
        d.update(self.extra)
        return d


class Recorder:
    """Collects per-job times and per-resource busy time; computes the metrics.

    Jobs and resources are dense integer indices ``0..n-1`` (the caller keeps
    its own names).  All methods are O(1); the hot path of a simulator calls
    only :meth:`start` / :meth:`finish` / :meth:`busy` (plain list writes).

    Parameters
    ----------
    arrival, weight
        Per-job arrival times and weights (weights default to 1).
    num_resources
        Number of resources (e.g. GPUs) whose busy time is accumulated.

    Examples
    --------
    >>> r = Recorder([0.0, 1.0], num_resources=1)
    >>> r.start(0, 0.0); r.busy(0, 2.0); r.finish(0, 2.0)
    >>> r.start(1, 2.0); r.busy(0, 1.0); r.finish(1, 3.0)
    >>> m = r.metrics()
    >>> m["avg_jct"], m["makespan"], m["utilisation"]
    (2.0, 3.0, 1.0)
    """

    __slots__ = ("arrival", "weight", "first_start", "finish_time", "busy_time", "extra")

    def __init__(
        self,
        arrival: Sequence[float],
        weight: Sequence[float] | None = None,
        *,
        num_resources: int = 0,
    ) -> None:
        n = len(arrival)
        self.arrival = [float(a) for a in arrival]
        self.weight = [1.0] * n if weight is None else [float(w) for w in weight]
        if len(self.weight) != n:
            raise ValueError("weight must have one entry per job")
        self.first_start: list[float | None] = [None] * n
        self.finish_time: list[float | None] = [None] * n
        self.busy_time = [0.0] * num_resources
        self.extra: list[dict[str, Any] | None] = [None] * n

    # -- hot path -------------------------------------------------------
    def start(self, job: int, time: float) -> None:
        """Record that ``job`` got service at ``time`` (only the first call counts)."""
        if self.first_start[job] is None:
            self.first_start[job] = time

    def finish(self, job: int, time: float) -> None:
        """Record ``job``'s completion time."""
        self.finish_time[job] = time

    def busy(self, resource: int, duration: float) -> None:
        """Add ``duration`` of busy time to ``resource``."""
        self.busy_time[resource] += duration

    def note(self, job: int, key: str, value: Any) -> None:
        """Attach an extra field to ``job``'s record (e.g. rounds run)."""
        d = self.extra[job]
        if d is None:
            d = self.extra[job] = {}
        d[key] = value

    # -- results --------------------------------------------------------
    @property
    def num_jobs(self) -> int:
        return len(self.arrival)

    def record(self, job: int) -> JobRecord:
        return JobRecord(
            job=job,
            arrival=self.arrival[job],
            weight=self.weight[job],
            start=self.first_start[job],
            finish=self.finish_time[job],
            extra=dict(self.extra[job] or {}),
        )

    def records(self) -> list[JobRecord]:
        return [self.record(j) for j in range(self.num_jobs)]

    def unfinished(self) -> list[int]:
        return [j for j, f in enumerate(self.finish_time) if f is None]

    def metrics(self, horizon_start: float | None = None) -> dict[str, float]:
        """Aggregate metrics over finished jobs.

        ``avg_jct`` (mean of finish - arrival), ``total_jct``,
        ``total_weighted_jct`` (sum of w (finish - arrival)), ``makespan``
        (last finish), ``utilisation`` (total busy time / (resources x
        (makespan - horizon_start)); ``horizon_start`` defaults to the first
        arrival), ``finished`` and ``unfinished`` job counts, and
        ``max_jct``.
        """
        jcts = []
        wj = 0.0
        for j, f in enumerate(self.finish_time):
            if f is not None:
                c = f - self.arrival[j]
                jcts.append(c)
                wj += self.weight[j] * c
        done = [f for f in self.finish_time if f is not None]
        makespan = max(done) if done else 0.0
        t0 = (min(self.arrival) if self.arrival else 0.0) if horizon_start is None else horizon_start
        span = makespan - t0
        nres = len(self.busy_time)
        util = sum(self.busy_time) / (nres * span) if nres and span > 0 else math.nan
        return {
            "avg_jct": sum(jcts) / len(jcts) if jcts else math.nan,
            "total_jct": float(sum(jcts)),
            "total_weighted_jct": wj,
            "max_jct": max(jcts) if jcts else math.nan,
            "makespan": makespan,
            "utilisation": util,
            "finished": len(jcts),
            "unfinished": self.num_jobs - len(jcts),
        }
