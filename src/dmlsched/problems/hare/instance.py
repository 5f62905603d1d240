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
from ...formats import array, family_schema, ident, integer, number, number_map, obj, string
from ...io import MAX_INT, MAX_NUMBER, MIN_NONZERO, Reader, count_keys


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
    """The checks of a built instance (also for one made in Python, not read)."""
    if getattr(inst, "_checked", False):  # built by from_dict, whose single pass checked all of it
        object.__delattr__(inst, "_checked")
        return
    if not inst.gpus:
        raise InstanceError("gpus", "must list at least one GPU")
    types = frozenset(inst.gpu_types)
    seen: set[str] = set()
    total = 0
    for n, j in enumerate(inst.jobs):
        p = f"jobs[{n}]"
        if not j.id:
            raise InstanceError(f"{p}.id", "must be a non-empty string")
        total += j.rounds * j.tasks_per_round
        if total > MAX_TASKS:
            raise InstanceError(f"{p}.rounds", f"the instance exceeds {MAX_TASKS:.0e} tasks (rounds x tasks_per_round)")
        if j.id in seen:
            raise InstanceError(f"{p}.id", f"duplicate job id {j.id!r}")
        seen.add(j.id)
        check_type_keys(p, j.train_time, j.sync_time, inst.gpu_types, types)


def check_type_keys(p: str, train: dict, sync: dict, gpu_types: tuple[str, ...], types: frozenset) -> None:
    """``train_time`` and ``sync_time`` of job path ``p`` name exactly the GPU types of
    the cluster: a missing type, or one the cluster does not have (a typo such as
    ``K8O`` for ``K80``), is an :class:`InstanceError` naming the field."""
    for key, table in (("train_time", train), ("sync_time", sync)):
        if table.keys() == types:
            continue
        for g in gpu_types:
            if g not in table:
                raise InstanceError(f"{p}.{key}.{g}", "missing time for a GPU type of the cluster")
        for g in table:
            if g not in types:
                raise InstanceError(f"{p}.{key}.{g}", "not a GPU type of the cluster "
                                    f"(gpus has {', '.join(sorted(types))}); a typo?")


_JOB_KEYS = ("id", "arrival", "weight", "rounds", "tasks_per_round", "train_time", "sync_time")
_JOB_KEY_SET = frozenset(_JOB_KEYS)
_JOB_REQUIRED = frozenset(("id", "rounds", "tasks_per_round", "train_time", "sync_time"))


def _fast_table(t: Any, types: frozenset, lo: float, _float: type = float) -> dict[str, float] | None:
    """``t`` as a ``{GPU type: float}`` dict (a copy) when it is a plain map of
    exactly the cluster's ``types`` to numbers in ``[lo, MAX_NUMBER]``; ``None``
    otherwise (then the :class:`Reader` names what is wrong)."""
    if type(t) is not dict or t.keys() != types:
        return None
    for v in t.values():
        if type(v) is not _float or not lo <= v <= MAX_NUMBER:  # NaN fails too
            break
    else:
        return t.copy()
    out = {}
    for g, v in t.items():  # integers among the times
        tv = type(v)
        if (tv is _float or tv is int) and lo <= v <= MAX_NUMBER:
            out[g] = _float(v)
        else:
            return None
    return out


_new_job = object.__new__


def _fast_job(d: Any, types: frozenset, _dict: type = dict, _str: type = str, _int: type = int,
              _float: type = float) -> HareJob | None:
    """The job of a plain, valid job object over a cluster of GPU ``types``, with
    every check the :class:`Reader` makes but none of its bookkeeping (the
    loader's single pass); ``None`` for anything else, which then goes through
    the Reader and gets its precise error message."""
    if type(d) is not _dict:
        return None
    keys = d.keys()
    if not (keys <= _JOB_KEY_SET and keys >= _JOB_REQUIRED):
        return None
    jid = d["id"]
    if type(jid) is not _str:
        if type(jid) is not _int:
            return None
        jid = _str(jid)
    elif not jid.strip():
        return None
    rounds, k = d["rounds"], d["tasks_per_round"]
    if type(rounds) is not _int or type(k) is not _int or not (1 <= rounds <= MAX_INT and 1 <= k <= MAX_INT):
        return None
    a, w = d.get("arrival", 0.0), d.get("weight", 1.0)
    ta, tw = type(a), type(w)
    if not ((ta is _float or ta is _int) and 0 <= a <= MAX_NUMBER
            and (tw is _float or tw is _int) and 0 <= w <= MAX_NUMBER):
        return None
    train = _fast_table(d["train_time"], types, MIN_NONZERO)
    if train is None:
        return None
    sync = _fast_table(d["sync_time"], types, 0.0)
    if sync is None:
        return None
    job = _new_job(HareJob)  # a frozen dataclass, filled as its __init__ would, without per-field setattr
    job.__dict__.update(id=jid, arrival=_float(a), weight=_float(w), rounds=rounds, tasks_per_round=k,
                        train_time=train, sync_time=sync)
    return job


def key_count(data: dict) -> int:
    """The keys of every object of a Hare instance's JSON that :func:`from_dict`
    accepted, from its shape: the top level, each job, each job's two time
    tables (one key per GPU type of the cluster) and ``expected``
    (see :func:`dmlsched.io._check_keys_once`)."""
    jobs = data["jobs"]
    n = len(data) + sum(map(len, jobs)) + 2 * len(dict.fromkeys(data["gpus"])) * len(jobs)
    return n + (count_keys(data["expected"]) if "expected" in data else 0)


def read_job_fields(jr: Reader, gpu_types: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The checked fields of a job object that HARE and HLAS jobs share
    (``id`` .. ``sync_time``, in :data:`_JOB_KEYS` order); the caller checks
    the object's keys first.  With ``gpu_types`` (the cluster's), the time
    tables must name exactly those types."""
    out = dict(
        id=jr["id"].as_id(),
        arrival=jr.number("arrival", 0.0, ge=0),
        weight=jr.number("weight", 1.0, ge=0),
        rounds=jr.integer("rounds", ge=1),
        tasks_per_round=jr.integer("tasks_per_round", ge=1),
        train_time=jr.number_map("train_time", gt=0),
        sync_time=jr.number_map("sync_time", ge=0),
    )
    if gpu_types is not None:
        check_type_keys(jr.path, out["train_time"], out["sync_time"], gpu_types, frozenset(gpu_types))
    return out


def _read_job(jr: Reader, gpu_types: tuple[str, ...]) -> HareJob:
    jr.check_keys(_JOB_KEYS)
    return HareJob(**read_job_fields(jr, gpu_types))


def _read_jobs(raw: list, gpu_types: tuple[str, ...], path: str) -> list[HareJob]:
    """Every job of ``raw`` (the ``jobs`` array at ``path``) checked and built in
    one pass, with the instance-wide checks (unique ids, the task budget).

    A job object of float times over exactly the cluster's types takes the
    inlined path below (every check of the :class:`~dmlsched.io.Reader`,
    none of its bookkeeping; its time tables are kept, not copied: the
    loader's data is its own); other plain ones :func:`_fast_job`; anything
    else the Reader, which names the offending field.
    """
    types = frozenset(gpu_types)
    jobs: list[HareJob] = []
    append = jobs.append
    seen: set[str] = set()
    total = 0
    _float, _int, _str, _dict, keyset, required = float, int, str, dict, _JOB_KEY_SET, _JOB_REQUIRED
    for i, d in enumerate(raw):
        job = None
        if type(d) is _dict:
            keys = d.keys()
            if keys <= keyset and keys >= required:
                jid, rounds, k = d["id"], d["rounds"], d["tasks_per_round"]
                a, w = d.get("arrival", 0.0), d.get("weight", 1.0)
                train, sync = d["train_time"], d["sync_time"]
                ta, tw = type(a), type(w)
                if (type(jid) is _str and jid.strip() and type(rounds) is _int and type(k) is _int
                        and 1 <= rounds <= MAX_INT and 1 <= k <= MAX_INT
                        and (ta is _float or ta is _int) and 0 <= a <= MAX_NUMBER
                        and (tw is _float or tw is _int) and 0 <= w <= MAX_NUMBER
                        and type(train) is _dict and type(sync) is _dict
                        and train.keys() == types and sync.keys() == types):
                    for v in train.values():
                        if type(v) is not _float or not MIN_NONZERO <= v <= MAX_NUMBER:  # NaN fails too
                            break
                    else:
                        for v in sync.values():
                            if type(v) is not _float or not 0.0 <= v <= MAX_NUMBER:
                                break
                        else:
                            job = _new_job(HareJob)  # a frozen dataclass, filled as its __init__ would
                            object.__setattr__(job, "__dict__", {
                                "id": jid, "arrival": _float(a), "weight": _float(w), "rounds": rounds,
                                "tasks_per_round": k, "train_time": train, "sync_time": sync})
        if job is None:  # the slower paths (their checks are the same, their messages precise)
            job = _fast_job(d, types) or _read_job(Reader(d, f"{path}[{i}]"), gpu_types)
            jid, rounds, k = job.id, job.rounds, job.tasks_per_round
        if jid in seen:
            raise InstanceError(f"{path}[{i}].id", f"duplicate job id {jid!r}")
        seen.add(jid)
        total += rounds * k
        if total > MAX_TASKS:
            raise InstanceError(f"{path}[{i}].rounds",
                                f"the instance exceeds {MAX_TASKS:.0e} tasks (rounds x tasks_per_round)")
        append(job)
    return jobs


def from_dict(data: Any) -> HareInstance:
    """Parse and validate a ``"problem": "hare"`` instance in one pass
    (:func:`_read_jobs`); the built instance is not checked again.

    The instance may keep objects of ``data`` (the jobs' time tables):
    ``dmlsched.from_dict`` and the loader pass data of their own.
    """
    r = Reader(data)
    r.check_keys(("gpus", "jobs"), common=True)
    gpus = tuple(c.as_str() for c in r.items("gpus", min_len=1))
    jobs_r = r["jobs"]
    jobs = _read_jobs(jobs_r.arr(min_len=1), tuple(dict.fromkeys(gpus)), jobs_r.path)
    expected = r["expected"].obj() if r.has("expected") else {}
    name = r.string("name", "", nonempty=False)
    inst = HareInstance.__new__(HareInstance)
    object.__setattr__(inst, "_checked", True)  # _read_jobs made every check of _validate
    HareInstance.__init__(inst, gpus=gpus, jobs=tuple(jobs), name=name, expected=dict(expected))
    return inst


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


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def job_schema(extra: dict[str, dict] | None = None) -> dict:
    """The JSON Schema of one job (``extra``: more fields, HLAS's ``predicted_rounds``)."""
    props = {
        "id": ident("job id, unique in the instance"),
        "arrival": number("release time a_n", ge=0, default=0.0),
        "weight": number("weight w_n of the job's completion time", ge=0, default=1.0),
        "rounds": integer("training rounds R_n", ge=1),
        "tasks_per_round": integer("parallel tasks per round K_n", ge=1),
        "train_time": number_map(number("seconds", gt=0),
                                 "training time T^c of one task on each GPU type (> 0)"),
        "sync_time": number_map(number("seconds", ge=0),
                                "synchronisation time T^s of one task on each GPU type (>= 0)"),
    }
    props.update(extra or {})
    return obj(props, ("id", "rounds", "tasks_per_round", "train_time", "sync_time"), "one job")


#: the schema of ``gpus`` (shared with HLAS)
GPUS_SCHEMA = array(string("GPU type"), "one GPU type per GPU (GPU m has type gpus[m])", min_items=1)
#: the checks across fields of the jobs' times (shared with HLAS)
TIME_CHECKS = ("jobs[n].train_time and jobs[n].sync_time name every GPU type of gpus",
               "job ids are unique")


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "hare"`` instance files (``Family.schema``)."""
    return family_schema(
        "hare", "Hare_Sched instance (Hare, HPDC'22, Section 5.1)",
        {"gpus": GPUS_SCHEMA, "jobs": array(job_schema(), "the jobs", min_items=1)},
        ("gpus", "jobs"),
        "Heterogeneous GPUs and jobs of rounds of parallel tasks; objective: total weighted completion time.",
        TIME_CHECKS + ("at most 1e8 tasks (rounds x tasks_per_round summed over jobs)",))
