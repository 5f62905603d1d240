"""Hare_Sched instances (Hare, HPDC'22, Section 5.1).

A job ``n`` arrives at ``a_n`` with weight ``w_n`` and runs ``rounds`` training
rounds of ``tasks_per_round`` parallel tasks each; a task of job ``n`` takes
``T^c`` (training) and ``T^s`` (synchronisation) on a GPU of type ``g``:
``train_time[g]`` and ``sync_time[g]``.  GPU ``m`` has type ``gpus[m]``.

Tasks are numbered globally, job by job, round by round:
task ``(n, r, k)`` has index ``job_offset[n] + r * tasks_per_round[n] + k``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...io import MAX_INT, MAX_NUMBER, MIN_NONZERO, Reader


@dataclass(frozen=True)
class HareJob:
    """One DML job: ``rounds`` rounds of ``tasks_per_round`` tasks."""

    id: str
    arrival: float
    weight: float
    rounds: int
    tasks_per_round: int
    train_time: dict[str, float]
    sync_time: dict[str, float]

    @property
    def num_tasks(self) -> int:
        return self.rounds * self.tasks_per_round


@dataclass(frozen=True, eq=False)
class HareInstance:
    """A Hare_Sched instance: heterogeneous GPUs and round-synchronised jobs."""

    gpus: tuple[str, ...]
    jobs: tuple[HareJob, ...]
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    # -- sizes --------------------------------------------------------------
    @property
    def num_gpus(self) -> int:
        return len(self.gpus)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def num_tasks(self) -> int:
        return int(sum(j.num_tasks for j in self.jobs))

    @cached_property
    def gpu_types(self) -> tuple[str, ...]:
        """Distinct GPU types in order of first appearance."""
        return tuple(dict.fromkeys(self.gpus))

    # -- dense arrays -------------------------------------------------------
    @cached_property
    def gpu_type_index(self) -> np.ndarray:
        """``gpu_type_index[m]``: index of GPU ``m``'s type in :attr:`gpu_types`."""
        pos = {g: k for k, g in enumerate(self.gpu_types)}
        return np.array([pos[g] for g in self.gpus], dtype=np.int64)

    @cached_property
    def tc_type(self) -> np.ndarray:
        """``tc_type[n, k]``: training time of a task of job ``n`` on a GPU of type ``gpu_types[k]``."""
        return np.array([[j.train_time[g] for g in self.gpu_types] for j in self.jobs], dtype=float).reshape(
            self.num_jobs, len(self.gpu_types)
        )

    @cached_property
    def ts_type(self) -> np.ndarray:
        """``ts_type[n, k]``: synchronisation time of a task of job ``n`` on a GPU of type ``gpu_types[k]``."""
        return np.array([[j.sync_time[g] for g in self.gpu_types] for j in self.jobs], dtype=float).reshape(
            self.num_jobs, len(self.gpu_types)
        )

    @cached_property
    def tc(self) -> np.ndarray:
        """``tc[n, m]``: training time of a task of job ``n`` on GPU ``m`` (dense: jobs x GPUs;
        large instances should use :attr:`tc_type` with :attr:`gpu_type_index`)."""
        return self.tc_type[:, self.gpu_type_index]

    @cached_property
    def ts(self) -> np.ndarray:
        """``ts[n, m]``: synchronisation time of a task of job ``n`` on GPU ``m`` (dense, see :attr:`tc`)."""
        return self.ts_type[:, self.gpu_type_index]

    @cached_property
    def rounds_arr(self) -> np.ndarray:
        """Rounds per job (``int64``)."""
        return np.array([j.rounds for j in self.jobs], dtype=np.int64)

    @cached_property
    def tasks_per_round_arr(self) -> np.ndarray:
        """Tasks per round per job (``int64``)."""
        return np.array([j.tasks_per_round for j in self.jobs], dtype=np.int64)

    @cached_property
    def job_offset(self) -> np.ndarray:
        """Global index of each job's first task; ``job_offset[-1] == num_tasks``."""
        sizes = self.rounds_arr * self.tasks_per_round_arr
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    @cached_property
    def task_job(self) -> np.ndarray:
        sizes = self.rounds_arr * self.tasks_per_round_arr
        return np.repeat(np.arange(self.num_jobs, dtype=np.int64), sizes)

    @cached_property
    def _task_local(self) -> np.ndarray:
        return np.arange(self.num_tasks, dtype=np.int64) - self.job_offset[self.task_job]

    @cached_property
    def task_round(self) -> np.ndarray:
        local = self._task_local
        return local // self.tasks_per_round_arr[self.task_job] if self.num_tasks else local

    @cached_property
    def task_k(self) -> np.ndarray:
        local = self._task_local
        return local % self.tasks_per_round_arr[self.task_job] if self.num_tasks else local

    @cached_property
    def arrival(self) -> np.ndarray:
        return np.array([j.arrival for j in self.jobs], dtype=float)

    @cached_property
    def weight(self) -> np.ndarray:
        return np.array([j.weight for j in self.jobs], dtype=float)

    def task_index(self, n: int, r: int, k: int) -> int:
        """Global index of task ``(n, r, k)``."""
        return int(self.job_offset[n]) + r * self.jobs[n].tasks_per_round + k

    def tasks(self):
        """Iterate ``(index, n, r, k)`` over all tasks."""
        i = 0
        for n, j in enumerate(self.jobs):
            for r in range(j.rounds):
                for k in range(j.tasks_per_round):
                    yield i, n, r, k
                    i += 1


#: largest number of tasks (rounds x tasks per round, summed over jobs) an instance may have
MAX_TASKS = 10**8


def _validate(inst: HareInstance) -> None:
    if not inst.gpus:
        raise InstanceError("gpus", "must list at least one GPU")
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
        for key, table in (("train_time", j.train_time), ("sync_time", j.sync_time)):
            for g in inst.gpu_types:
                if g not in table:
                    raise InstanceError(f"{p}.{key}.{g}", "missing time for a GPU type of the cluster")


_JOB_KEYS = ("id", "arrival", "weight", "rounds", "tasks_per_round", "train_time", "sync_time")
_JOB_KEY_SET = frozenset(_JOB_KEYS)


def _fast_number(v: Any, positive: bool) -> bool:
    """Whether ``v`` is a plain number that :meth:`Reader.as_number` accepts with
    ``gt=0`` (``positive``) or ``ge=0``."""
    t = type(v)
    if t is float:
        if not (v == v and -MAX_NUMBER <= v <= MAX_NUMBER):  # NaN, inf, too large
            return False
    elif t is not int or not -MAX_NUMBER <= v <= MAX_NUMBER:
        return False
    return v >= MIN_NONZERO if positive else v >= 0


def _fast_map(d: Any, positive: bool) -> dict[str, float] | None:
    if type(d) is not dict:
        return None
    out = {}
    for k, v in d.items():
        if not _fast_number(v, positive):
            return None
        out[k] = float(v)
    return out


def _fast_job(d: Any) -> HareJob | None:
    """The job of a plain, valid job object, without the :class:`Reader`'s
    bookkeeping (the loader's fast path); ``None`` for anything else, which
    then goes through the Reader and gets its precise error message."""
    if type(d) is not dict or not _JOB_KEY_SET.issuperset(d):
        return None
    try:
        jid, rounds, k = d["id"], d["rounds"], d["tasks_per_round"]
        train, sync = _fast_map(d["train_time"], True), _fast_map(d["sync_time"], False)
    except KeyError:
        return None
    if train is None or sync is None or not (type(jid) is str or type(jid) is int):
        return None
    if type(rounds) is not int or type(k) is not int or not (1 <= rounds <= MAX_INT and 1 <= k <= MAX_INT):
        return None
    a, w = d.get("arrival", 0.0), d.get("weight", 1.0)
    if not (_fast_number(a, False) and _fast_number(w, False)):
        return None
    return HareJob(id=str(jid), arrival=float(a), weight=float(w), rounds=rounds, tasks_per_round=k,
                   train_time=train, sync_time=sync)


def read_job_fields(jr: Reader) -> dict[str, Any]:
    """The checked fields of a job object that HARE and HLAS jobs share
    (``id`` .. ``sync_time``, in :data:`_JOB_KEYS` order); the caller checks
    the object's keys first."""
    jid = jr["id"].value
    if isinstance(jid, bool) or not isinstance(jid, (str, int)):
        raise jr.error("must be a string or an integer", "id")
    return dict(
        id=str(jid),
        arrival=jr.number("arrival", 0.0, ge=0),
        weight=jr.number("weight", 1.0, ge=0),
        rounds=jr.integer("rounds", ge=1),
        tasks_per_round=jr.integer("tasks_per_round", ge=1),
        train_time=jr.number_map("train_time", gt=0),
        sync_time=jr.number_map("sync_time", ge=0),
    )


def _read_job(jr: Reader) -> HareJob:
    jr.check_keys(_JOB_KEYS)
    return HareJob(**read_job_fields(jr))


def from_dict(data: Any) -> HareInstance:
    """Parse and validate a ``"problem": "hare"`` instance.

    Plain job objects take a fast path (:func:`_fast_job`, the same checks as
    the :class:`~dmlsched.io.Reader` without its per-field bookkeeping); any
    other goes through the Reader, which names the offending field.
    """
    r = Reader(data)
    r.check_keys(("gpus", "jobs"), common=True)
    gpus = tuple(c.as_str() for c in r.items("gpus", min_len=1))
    jobs_r = r["jobs"]
    raw = jobs_r.arr(min_len=1)
    jobs = []
    for i, d in enumerate(raw):
        job = _fast_job(d)
        jobs.append(job if job is not None else _read_job(Reader(d, f"{jobs_r.path}[{i}]")))
    expected = r["expected"].obj() if r.has("expected") else {}
    name = r.string("name", "", nonempty=False)
    return HareInstance(gpus=gpus, jobs=tuple(jobs), name=name, expected=dict(expected))


def to_dict(inst: HareInstance) -> dict:
    d: dict[str, Any] = {"problem": "hare"}
    if inst.name:
        d["name"] = inst.name
    d["gpus"] = list(inst.gpus)
    d["jobs"] = [
        {
            "id": j.id,
            "arrival": j.arrival,
            "weight": j.weight,
            "rounds": j.rounds,
            "tasks_per_round": j.tasks_per_round,
            "train_time": dict(j.train_time),
            "sync_time": dict(j.sync_time),
        }
        for j in inst.jobs
    ]
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: HareInstance) -> dict:
    return {"jobs": inst.num_jobs, "tasks": inst.num_tasks, "gpus": inst.num_gpus}
