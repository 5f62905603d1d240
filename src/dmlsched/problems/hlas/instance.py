"""HLAS instances (HLAS paper, Sections IV-V): online, non-clairvoyant Hare jobs.

A job ``n`` arrives at ``arrival`` and runs ``rounds`` rounds of
``tasks_per_round`` tasks; a task takes ``train_time[g]`` + ``sync_time[g]``
on a GPU of type ``g`` (Hare's model).  ``rounds`` is hidden from
non-clairvoyant policies: they learn after each round whether another follows.
``predicted_rounds`` (optional) is the conservative prediction HLAS-P may see:
"the job runs at least this many rounds".

Cluster: ``gpus`` (type per GPU), either ``groups`` (number of GPU groups, the
grouping being computed by a GPU-grouping method) or an explicit ``grouping``
(list of groups, each a list of GPU indices; every GPU exactly once).  Without
either, every GPU is its own group.  ``queues`` lists the thresholds
``[E_k^L, E_k^H]`` of ``Q_1..Q_K`` (seconds of job size ``H_n``); they must
tile ``[0, inf)``: ``E_1^L = 0``, ``E_k^H = E_{k+1}^L``, the last ``E_K^H`` is
``null`` (infinity).  Default: a single queue ``[[0, null]]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, integer, number
from ...io import Reader
from ..hare.instance import (
    GPUS_SCHEMA,
    MAX_TASKS,
    TIME_CHECKS,
    HareInstance,
    HareJob,
    check_type_keys,
    job_schema,
    read_job_fields,
)


@dataclass(frozen=True)
class HlasJob:
    """One online DML job."""

    id: str
    arrival: float
    rounds: int
    tasks_per_round: int
    train_time: dict[str, float]
    sync_time: dict[str, float]
    weight: float = 1.0
    predicted_rounds: int | None = None

    @property
    def num_tasks(self) -> int:
        return self.rounds * self.tasks_per_round


@dataclass(frozen=True, eq=False)
class HlasInstance:
    """Cluster, queues and jobs of an HLAS simulation."""

    gpus: tuple[str, ...]
    jobs: tuple[HlasJob, ...]
    queues: tuple[tuple[float, float], ...] = ((0.0, math.inf),)
    groups: int | None = None
    grouping: tuple[tuple[int, ...], ...] | None = None
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def num_gpus(self) -> int:
        return len(self.gpus)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def num_tasks(self) -> int:
        return int(sum(j.num_tasks for j in self.jobs))

    @property
    def num_groups(self) -> int:
        """Number of GPU groups (explicit grouping, ``groups``, or one per GPU)."""
        if self.grouping is not None:
            return len(self.grouping)
        return self.groups if self.groups is not None else self.num_gpus

    @cached_property
    def gpu_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.gpus))

    @property
    def tc(self) -> np.ndarray:
        """``tc[n, m]``: training time of a task of job ``n`` on GPU ``m`` (the Hare instance's)."""
        return self.hare.tc

    @property
    def ts(self) -> np.ndarray:
        """``ts[n, m]``: synchronisation time of a task of job ``n`` on GPU ``m``."""
        return self.hare.ts

    def to_hare(self):
        """The offline Hare instance with the same jobs (sizes revealed)."""
        return _to_hare(self)

    @cached_property
    def hare(self):
        """Cached :meth:`to_hare` (used by the validator)."""
        return _to_hare(self)


def _to_hare(inst: HlasInstance):
    return HareInstance(
        gpus=inst.gpus,
        jobs=tuple(
            HareJob(id=j.id, arrival=j.arrival, weight=j.weight, rounds=j.rounds,
                    tasks_per_round=j.tasks_per_round, train_time=dict(j.train_time),
                    sync_time=dict(j.sync_time))
            for j in inst.jobs
        ),
        name=inst.name,
    )


def _validate(inst: HlasInstance) -> None:
    if not inst.gpus:
        raise InstanceError("gpus", "must list at least one GPU")
    if not inst.jobs:
        raise InstanceError("jobs", "must list at least one job")
    types = frozenset(inst.gpu_types)
    seen: set[str] = set()
    total = 0
    for n, j in enumerate(inst.jobs):
        p = f"jobs[{n}]"
        total += j.rounds * j.tasks_per_round
        if total > MAX_TASKS:
            raise InstanceError(f"{p}.rounds", f"the instance exceeds {MAX_TASKS:.0e} tasks (rounds x tasks_per_round)")
        if j.id in seen:
            raise InstanceError(f"{p}.id", f"duplicate job id {j.id!r}")
        seen.add(j.id)
        if not j.id:
            raise InstanceError(f"{p}.id", "must be a non-empty string")
        check_type_keys(p, j.train_time, j.sync_time, inst.gpu_types, types)
    q = inst.queues
    if not q:
        raise InstanceError("queues", "must list at least one queue")
    if q[0][0] != 0:
        raise InstanceError("queues[0][0]", f"the first queue must start at 0, got {q[0][0]}")
    for k, (lo, hi) in enumerate(q):
        if not hi > lo:
            raise InstanceError(f"queues[{k}][1]", f"must be > queues[{k}][0] ({lo}), got {hi}")
        if k + 1 < len(q) and q[k + 1][0] != hi:
            raise InstanceError(f"queues[{k + 1}][0]", f"must equal queues[{k}][1] ({hi}): queues tile [0, inf)")
    if q[-1][1] != math.inf:
        raise InstanceError(f"queues[{len(q) - 1}][1]", "the last queue must be unbounded (null)")
    m = inst.num_gpus
    if inst.groups is not None and not 1 <= inst.groups <= m:
        raise InstanceError("groups", f"must be between 1 and the number of GPUs ({m}), got {inst.groups}")
    if inst.grouping is not None:
        where = [-1] * m
        for u, g in enumerate(inst.grouping):
            if not g:
                raise InstanceError(f"grouping[{u}]", "a group must have at least one GPU")
            for i, gpu in enumerate(g):
                if not 0 <= gpu < m:
                    raise InstanceError(f"grouping[{u}][{i}]", f"GPU index must be in 0..{m - 1}, got {gpu}")
                if where[gpu] != -1:
                    raise InstanceError(f"grouping[{u}][{i}]", f"GPU {gpu} is already in group {where[gpu]}")
                where[gpu] = u
        if -1 in where:
            raise InstanceError("grouping", f"GPU {where.index(-1)} is in no group")
        if inst.groups is not None and inst.groups != len(inst.grouping):
            raise InstanceError("groups", f"must equal the number of groups in grouping ({len(inst.grouping)})")


def from_dict(data: Any) -> HlasInstance:
    """Parse and validate a ``"problem": "hlas"`` instance."""
    r = Reader(data)
    r.check_keys(("gpus", "jobs", "queues", "groups", "grouping"), common=True)
    gpus = tuple(c.as_str() for c in r.items("gpus", min_len=1))
    jobs = []
    for jr in r.items("jobs", min_len=1):
        jr.check_keys(("id", "arrival", "weight", "rounds", "tasks_per_round", "train_time",
                       "sync_time", "predicted_rounds"))
        shared = read_job_fields(jr, tuple(dict.fromkeys(gpus)))
        pred = jr.get("predicted_rounds")
        jobs.append(
            HlasJob(**shared, predicted_rounds=None if pred is None or pred.value is None else pred.as_int(ge=0))
        )
    queues: tuple[tuple[float, float], ...] = ((0.0, math.inf),)
    if r.has("queues"):
        qs = []
        for qr in r.items("queues", min_len=1):
            pair = qr.arr()
            if len(pair) != 2:
                raise qr.error(f"must be a pair [low, high], got {len(pair)} element(s)")
            lo = qr[0].as_number(ge=0)
            hi = math.inf if pair[1] is None else qr[1].as_number(gt=0)
            qs.append((lo, hi))
        queues = tuple(qs)
    groups = r.integer("groups", None, ge=1) if r.has("groups") else None
    grouping = None
    if r.has("grouping"):
        grouping = tuple(tuple(c.as_int(ge=0) for c in g.items(min_len=1)) for g in r.items("grouping", min_len=1))
    expected = r["expected"].obj() if r.has("expected") else {}
    name = r.string("name", "", nonempty=False)
    return HlasInstance(gpus=gpus, jobs=tuple(jobs), queues=queues, groups=groups, grouping=grouping,
                        name=name, expected=dict(expected))


def to_dict(inst: HlasInstance) -> dict:
    d: dict[str, Any] = {"problem": "hlas"}
    if inst.name:
        d["name"] = inst.name
    d["gpus"] = list(inst.gpus)
    if inst.groups is not None:
        d["groups"] = inst.groups
    if inst.grouping is not None:
        d["grouping"] = [list(g) for g in inst.grouping]
    d["queues"] = [[lo, None if hi == math.inf else hi] for lo, hi in inst.queues]
    jobs = []
    for j in inst.jobs:
        jd: dict[str, Any] = {
            "id": j.id, "arrival": j.arrival, "weight": j.weight, "rounds": j.rounds,
            "tasks_per_round": j.tasks_per_round, "train_time": dict(j.train_time),
            "sync_time": dict(j.sync_time),
        }
        if j.predicted_rounds is not None:
            jd["predicted_rounds"] = j.predicted_rounds
        jobs.append(jd)
    d["jobs"] = jobs
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: HlasInstance) -> dict:
    return {"jobs": inst.num_jobs, "tasks": inst.num_tasks, "gpus": inst.num_gpus, "groups": inst.num_groups,
            "queues": len(inst.queues)}


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "hlas"`` instance files (``Family.schema``)."""
    job = job_schema({"predicted_rounds": {"type": ["integer", "null"], "minimum": 0,
                                            "description": "conservative prediction HLAS-P may see: the job runs "
                                                           "at least this many rounds (null: none)"}})
    queue = {"type": "array", "minItems": 2, "maxItems": 2,
             "prefixItems": [number("E_k^L, seconds of job size", ge=0),
                             {"type": ["number", "null"], "exclusiveMinimum": 0,
                              "description": "E_k^H (null: infinity)"}],
             "description": "a queue's thresholds [low, high]"}
    return family_schema(
        "hlas", "HLAS instance (non-clairvoyant Hare, IEEE TCC 2024, Sections IV-V)",
        {"gpus": GPUS_SCHEMA, "jobs": array(job, "the jobs (rounds hidden from non-clairvoyant policies)", min_items=1),
         "queues": array(queue, "thresholds of Q_1..Q_K tiling [0, inf) (default [[0, null]])", min_items=1),
         "groups": integer("number of GPU groups (the grouping computed by a GPU-grouping method)", ge=1),
         "grouping": array(array(integer("GPU index", ge=0), "a group", min_items=1),
                           "explicit GPU groups, every GPU exactly once", min_items=1)},
        ("gpus", "jobs"),
        "Online jobs on GPU groups; objective: average job completion time.",
        TIME_CHECKS + ("queues tile [0, inf): the first low is 0, each high is the next low, the last high "
                       "is null", "grouping names every GPU exactly once; groups <= number of GPUs",
                       "groups and grouping are exclusive"))
