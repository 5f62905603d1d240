"""Harmony groupings: validator, evaluator (cluster utilisation, (4.1)-(4.4))
and the secondary metrics (average JCT, makespan).

A solution is a list of job groups (job indices) and the number of machines
``m_g`` of each group.  Constraints (models/harmony.md, "Feasibility"):

* (P) every job is in exactly one group, and no group is empty;
* (M1) every group has an integer ``m_g >= 1`` machines;
* (M2) ``sum_g m_g <= machines``.

Performance model of a group ``g`` on ``m_g`` machines (Section 4.3.2):

* (4.2) ``T_cpu_j(m_g) = T_cpu_j * c / m_g`` (``c`` the reference DoP);
* job iteration time ``T_itr_j = T_cpu_j(m_g) + T_net_j``;
* (4.1) ``T_g = max(sum_j T_cpu_j(m_g), sum_j T_net_j, max_j T_itr_j)``;
* (4.3) ``U(g) = [sum_j T_cpu_j(m_g) / T_g, sum_j T_net_j / T_g]``, scalarised as
  ``w_cpu * U_cpu + w_net * U_net`` with normalised weights;
* (4.4) ``U = sum_g m_g U(g) / M`` where ``M`` is the cluster's machine count:
  unallocated machines count as idle.  This equals the dissertation's
  ``sum_g m_g U(g) / sum_g m_g`` whenever every machine is allocated, which
  every method here does and which is optimal (``proofs/harmony.md``, Lemma 1);
  the dissertation's ratio is reported as ``utilisation_allocated``.

Nothing here trusts a solver: the objective is recomputed from the grouping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...io import Reader
from .instance import HarmonyInstance


@dataclass(eq=False)
class HarmonySolution:
    """Job groups (tuples of job indices) and machines per group: the static decision
    of (4.4).  ``execution`` (optional) is a run of the execution model
    (:class:`.execution.Execution`): the phases and job completion times that the
    secondary metrics (average JCT, makespan, utilisation over the run) come from."""

    groups: tuple[tuple[int, ...], ...]
    machines: tuple[int, ...]
    execution: Any = None

    def __post_init__(self) -> None:
        self.groups = tuple(tuple(int(j) for j in g) for g in self.groups)
        self.machines = tuple(self.machines)

    @property
    def num_groups(self) -> int:
        return len(self.groups)


@dataclass(frozen=True)
class GroupStats:
    """The performance model of one group on ``m`` machines."""

    m: int
    sum_cpu: float  # sum_j T_cpu_j(m)
    sum_net: float  # sum_j T_net_j
    max_itr: float  # max_j T_itr_j
    t_group: float  # T_g (4.1)
    u_cpu: float
    u_net: float
    u: float  # scalarised U(g)

    @property
    def bound(self) -> str:
        """Which term of (4.1) attains ``T_g``: ``"cpu"``, ``"net"`` or ``"job"``."""
        if self.t_group == self.sum_cpu:
            return "cpu"
        if self.t_group == self.sum_net:
            return "net"
        return "job"


def group_stats(inst: HarmonyInstance, jobs: tuple[int, ...] | list[int], m: int) -> GroupStats:
    """(4.1)-(4.3) for the jobs ``jobs`` co-located on ``m`` machines."""
    c = inst.reference_dop
    cpu = [inst.jobs[j].t_cpu * c / m for j in jobs]
    net = [inst.jobs[j].t_net for j in jobs]
    s_cpu = float(sum(cpu))
    s_net = float(sum(net))
    max_itr = max(a + b for a, b in zip(cpu, net))
    t_g = max(s_cpu, s_net, max_itr)
    wc, wn = inst.weights
    u_cpu, u_net = s_cpu / t_g, s_net / t_g
    return GroupStats(m, s_cpu, s_net, max_itr, t_g, u_cpu, u_net, wc * u_cpu + wn * u_net)


def validate(inst: HarmonyInstance, s: HarmonySolution) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint."""
    n = inst.num_jobs
    if len(s.machines) != len(s.groups):
        raise InvalidSolutionError(
            f"{len(s.groups)} groups but {len(s.machines)} machine counts"
        )
    owner: dict[int, int] = {}
    for g, jobs in enumerate(s.groups):
        if not jobs:
            raise InvalidSolutionError(f"(P) group {g} is empty")
        for j in jobs:
            if not 0 <= j < n:
                raise InvalidSolutionError(f"(P) group {g}: job index {j} out of range (0..{n - 1})")
            if j in owner:
                raise InvalidSolutionError(
                    f"(P) job {inst.jobs[j].id!r} is in group {owner[j]} and in group {g}"
                )
            owner[j] = g
    if len(owner) != n:
        missing = next(j for j in range(n) if j not in owner)
        raise InvalidSolutionError(f"(P) job {inst.jobs[missing].id!r} is in no group")
    for g, m in enumerate(s.machines):
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise InvalidSolutionError(f"(M1) group {g}: machine count must be an integer >= 1, got {m!r}")
    total = int(sum(int(m) for m in s.machines))
    if total > inst.machines:
        raise InvalidSolutionError(
            f"(M2) groups use {total} machines, the cluster has {inst.machines}"
        )
    if s.execution is not None:
        from .execution import validate_execution

        validate_execution(inst, s.execution)


def evaluate(inst: HarmonyInstance, s: HarmonySolution) -> float:
    """Cluster utilisation ``U = sum_g m_g U(g) / M`` (4.4), in ``[0, 1]``."""
    total = 0.0
    for jobs, m in zip(s.groups, s.machines):
        total += m * group_stats(inst, jobs, int(m)).u
    return total / inst.machines


def completion_times(inst: HarmonyInstance, s: HarmonySolution) -> np.ndarray | None:
    """Job completion times when every job has ``iterations``; else ``None``.

    Reading (models/harmony.md, "Secondary metrics"): all jobs start at time 0
    and each group runs its jobs in lock-step group iterations of length
    ``T_g`` (4.1) over the jobs still running; when a job has done its
    iterations it leaves and ``T_g`` is recomputed for the rest (no regrouping,
    the group keeps its machines).
    """
    if not inst.has_iterations:
        return None
    done = np.zeros(inst.num_jobs)
    for jobs, m in zip(s.groups, s.machines):
        order = sorted(jobs, key=lambda j: (inst.jobs[j].iterations, j))
        t = 0.0
        prev_it = 0
        k = 0
        while k < len(order):
            running = order[k:]
            it = inst.jobs[order[k]].iterations
            t += (it - prev_it) * group_stats(inst, running, int(m)).t_group
            prev_it = it
            while k < len(order) and inst.jobs[order[k]].iterations == it:
                done[order[k]] = t
                k += 1
    return done


def metrics(inst: HarmonyInstance, s: HarmonySolution) -> dict[str, Any]:
    """Objective and secondary metrics of a (valid) solution.

    With an execution attached, ``avg_jct`` and ``makespan`` come from it (and the
    time averages over the run: ``run_utilisation``, ``run_utilisation_cpu``,
    ``run_utilisation_net``, ``mean_running_jobs``, ``mean_groups``); otherwise from
    the static lock-step reading of :func:`completion_times`."""
    stats = [group_stats(inst, jobs, int(m)) for jobs, m in zip(s.groups, s.machines)]
    used = sum(int(m) for m in s.machines)
    wsum = sum(st.m * st.u for st in stats)
    out: dict[str, Any] = {
        "utilisation": wsum / inst.machines,
        "utilisation_allocated": wsum / used,
        "utilisation_cpu": sum(st.m * st.u_cpu for st in stats) / inst.machines,
        "utilisation_net": sum(st.m * st.u_net for st in stats) / inst.machines,
        "num_groups": len(stats),
        "machines_used": used,
        "avg_jct": None,
        "makespan": None,
    }
    if s.execution is not None:
        from .execution import execution_metrics

        out.update(execution_metrics(inst, s.execution))
        out["execution_policy"] = s.execution.policy
        out["execution_counters"] = dict(s.execution.counters)
        return out
    ct = completion_times(inst, s)
    if ct is not None:
        out["avg_jct"] = float(ct.mean())
        out["makespan"] = float(ct.max())
    return out


def to_json(inst: HarmonyInstance, s: HarmonySolution) -> dict:
    """``{"groups": [{"jobs": [ids], "machines": m, "T_g", "U_cpu", "U_net", "U"}], ...metrics}``."""
    groups = []
    for jobs, m in zip(s.groups, s.machines):
        st = group_stats(inst, jobs, int(m))
        groups.append(
            {
                "jobs": [inst.jobs[j].id for j in jobs],
                "machines": int(m),
                "T_g": st.t_group,
                "bound": st.bound,
                "U_cpu": st.u_cpu,
                "U_net": st.u_net,
                "U": st.u,
            }
        )
    out = {"groups": groups, **metrics(inst, s)}
    if s.execution is not None:
        from .execution import execution_to_json

        ex = execution_to_json(inst, s.execution)
        out["execution"] = ex
        out["completion"] = ex["completion"]  # job id -> completion time (all jobs submitted at 0)
    return out


def from_json(inst: HarmonyInstance, data: Any) -> HarmonySolution:
    """Rebuild a solution from :func:`to_json` output (groups by job id).

    Unknown ids raise :class:`~dmlsched.errors.InstanceError`; coverage and
    machine constraints are left to :func:`validate`.
    """
    r = Reader(data)
    ids = {j.id: n for n, j in enumerate(inst.jobs)}
    groups, machines = [], []
    for gr in r.items("groups"):
        jobs = []
        for k, jr in enumerate(gr.items("jobs")):
            jid = jr.as_str() if isinstance(jr.value, str) else str(jr.as_int())
            if jid not in ids:
                raise gr.error(f"unknown job {jid!r}", "jobs")
            jobs.append(ids[jid])
        groups.append(tuple(jobs))
        machines.append(gr.integer("machines"))
    execution = None
    if r.has("execution") and r["execution"].value is not None:
        from .execution import execution_from_json

        execution = execution_from_json(inst, r["execution"].value)
    return HarmonySolution(groups=tuple(groups), machines=tuple(machines), execution=execution)
