"""Harmony job-grouping instances (Lee 2020, dissertation Chapter 4, Section 4.3.2).

A homogeneous cluster of ``machines`` machines runs parameter-server jobs.
Each job ``j`` was profiled at the reference degree of parallelism (DoP)
``reference_dop`` ``c``: ``t_cpu`` is the time of its COMP subtask per
iteration at DoP ``c`` and ``t_net`` the time of its COMM (PULL + PUSH)
subtasks per iteration, which does not depend on the DoP (Section 4.3.2,
"Performance Modeling").  ``iterations`` (optional) is the number of
iterations the job runs until convergence; it only feeds the secondary
metrics (average JCT, makespan).

``weights`` is the scalarisation of the two-dimensional utilisation vector
(4.3): ``U(g) = (w_cpu * U_cpu + w_net * U_net) / (w_cpu + w_net)``.  The
dissertation only says CPU is "treated more importantly" than network; the
default ``{"cpu": 2, "net": 1}`` is our choice (see ``models/harmony.md``).

JSON form::

    {"problem": "harmony", "machines": 4, "reference_dop": 16,
     "weights": {"cpu": 2, "net": 1},
     "jobs": [{"id": "A", "t_cpu": 3.0, "t_net": 1.0, "iterations": 100}, ...]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, ident, integer, number, obj
from ...io import Reader

#: default scalarisation weights (CPU weighted above network, Section 4.3.2)
DEFAULT_WEIGHTS = {"cpu": 2.0, "net": 1.0}


#: largest cluster accepted (machine allocation is linear in the number of machines)
MAX_MACHINES = 10**6


@dataclass(frozen=True)
class HarmonyJob:
    """One profiled parameter-server job.

    Attributes
    ----------
    id
        Job name (unique within the instance).
    t_cpu
        COMP subtask time per iteration at the reference DoP (> 0).
    t_net
        COMM subtask time per iteration (>= 0), independent of the DoP.
    iterations
        Iterations until convergence, or ``None`` when unknown.
    """

    id: str
    t_cpu: float
    t_net: float
    iterations: int | None = None


@dataclass(frozen=True, eq=False)
class HarmonyInstance:
    """A Harmony grouping instance: homogeneous machines and profiled jobs."""

    machines: int
    reference_dop: float
    jobs: tuple[HarmonyJob, ...]
    w_cpu: float = DEFAULT_WEIGHTS["cpu"]
    w_net: float = DEFAULT_WEIGHTS["net"]
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def t_cpu(self) -> np.ndarray:
        """``t_cpu[j]`` at the reference DoP."""
        return np.array([j.t_cpu for j in self.jobs], dtype=float)

    @cached_property
    def t_net(self) -> np.ndarray:
        return np.array([j.t_net for j in self.jobs], dtype=float)

    @property
    def has_iterations(self) -> bool:
        return all(j.iterations is not None for j in self.jobs)

    @cached_property
    def iterations(self) -> np.ndarray | None:
        if not self.has_iterations:
            return None
        return np.array([j.iterations for j in self.jobs], dtype=float)

    @property
    def weights(self) -> tuple[float, float]:
        """Normalised ``(cpu, net)`` weights, summing to 1."""
        s = self.w_cpu + self.w_net
        return self.w_cpu / s, self.w_net / s

    def cpu_time(self, j: int, m: float) -> float:
        """(4.2): ``T_cpu_j(m) = T_cpu_j * c / m`` on ``m`` machines."""
        return self.jobs[j].t_cpu * self.reference_dop / m


def _validate(inst: HarmonyInstance) -> None:
    if isinstance(inst.machines, bool) or int(inst.machines) != inst.machines or inst.machines < 1:
        raise InstanceError("machines", f"must be an integer >= 1, got {inst.machines!r}")
    if inst.machines > MAX_MACHINES:
        raise InstanceError("machines", f"must be at most {MAX_MACHINES:,}, got {inst.machines!r}")
    if not inst.reference_dop > 0:
        raise InstanceError("reference_dop", f"must be > 0, got {inst.reference_dop!r}")
    if not inst.jobs:
        raise InstanceError("jobs", "must have at least 1 element(s), got 0")
    if inst.w_cpu < 0 or inst.w_net < 0 or not inst.w_cpu + inst.w_net > 0:
        raise InstanceError("weights", "must be >= 0 with a positive sum")
    seen: set[str] = set()
    for n, j in enumerate(inst.jobs):
        p = f"jobs[{n}]"
        if j.id in seen:
            raise InstanceError(f"{p}.id", f"duplicate job id {j.id!r}")
        seen.add(j.id)
        if not j.t_cpu > 0:
            raise InstanceError(f"{p}.t_cpu", f"must be > 0, got {j.t_cpu!r}")
        if not j.t_net >= 0:
            raise InstanceError(f"{p}.t_net", f"must be >= 0, got {j.t_net!r}")
        if j.iterations is not None and j.iterations < 1:
            raise InstanceError(f"{p}.iterations", f"must be >= 1, got {j.iterations!r}")


def from_dict(data: Any) -> HarmonyInstance:
    """Parse and validate a ``"problem": "harmony"`` instance.

    Raises
    ------
    InstanceError
        Naming the offending field, for any malformed input.
    """
    r = Reader(data)
    r.check_keys(("machines", "reference_dop", "weights", "jobs"), common=True)
    machines = r.integer("machines", ge=1)
    dop = r.number("reference_dop", gt=0)
    w_cpu, w_net = DEFAULT_WEIGHTS["cpu"], DEFAULT_WEIGHTS["net"]
    wr = r.get("weights")
    if wr is not None:
        wr.check_keys(("cpu", "net"))
        w_cpu = wr.number("cpu", DEFAULT_WEIGHTS["cpu"], ge=0)
        w_net = wr.number("net", DEFAULT_WEIGHTS["net"], ge=0)
        if not w_cpu + w_net > 0:
            raise wr.error("cpu + net must be > 0")
    jobs = []
    for jr in r.items("jobs", min_len=1):
        jr.check_keys(("id", "t_cpu", "t_net", "iterations"))
        jid = jr["id"].as_id()
        it = jr.get("iterations")
        jobs.append(
            HarmonyJob(
                id=jid,
                t_cpu=jr.number("t_cpu", gt=0),
                t_net=jr.number("t_net", ge=0),
                iterations=None if it is None or it.value is None else it.as_int(ge=1),
            )
        )
    expected = r["expected"].obj() if r.has("expected") else {}
    name = r.string("name", "", nonempty=False)
    return HarmonyInstance(
        machines=machines,
        reference_dop=dop,
        jobs=tuple(jobs),
        w_cpu=w_cpu,
        w_net=w_net,
        name=name,
        expected=dict(expected),
    )


def to_dict(inst: HarmonyInstance) -> dict:
    d: dict[str, Any] = {"problem": "harmony"}
    if inst.name:
        d["name"] = inst.name
    d["machines"] = int(inst.machines)
    d["reference_dop"] = inst.reference_dop
    d["weights"] = {"cpu": inst.w_cpu, "net": inst.w_net}
    jobs = []
    for j in inst.jobs:
        jd: dict[str, Any] = {"id": j.id, "t_cpu": j.t_cpu, "t_net": j.t_net}
        if j.iterations is not None:
            jd["iterations"] = int(j.iterations)
        jobs.append(jd)
    d["jobs"] = jobs
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: HarmonyInstance) -> dict:
    return {"jobs": inst.num_jobs, "machines": int(inst.machines)}


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "harmony"`` instance files (``Family.schema``)."""
    job = obj({"id": ident("job id, unique"),
               "t_cpu": number("computation time per iteration T_cpu at the reference DoP", gt=0),
               "t_net": number("communication time per iteration T_net", ge=0),
               "iterations": {"type": ["integer", "null"], "minimum": 1,
                              "description": "iterations to convergence (the execution model; null: none)"}},
              ("id", "t_cpu", "t_net"), "one parameter-server job")
    return family_schema(
        "harmony", "Harmony instance (Lee, dissertation, Chapter 4)",
        {"machines": integer("machines M of the homogeneous cluster", ge=1),
         "reference_dop": number("reference degree of parallelism c of the profiles", gt=0),
         "weights": obj({"cpu": number("weight of CPU utilisation", ge=0, default=0.5),
                         "net": number("weight of network utilisation", ge=0, default=0.5)}, (),
                        "utilisation weights (cpu + net > 0)"),
         "jobs": array(job, "the jobs", min_items=1)},
        ("machines", "reference_dop", "jobs"),
        "Jobs grouped on machines; objective: cluster utilisation (maximised).",
        ("job ids are unique", "weights.cpu + weights.net > 0"))
