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
A run of the execution model attached to a solution (:class:`Execution`) is
checked by :func:`validate_execution` from its phases alone and measured by
:func:`execution_metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...gantt import GanttChart
from ...io import Reader
from .instance import HarmonyInstance


@dataclass(eq=False)
class HarmonySolution:
    """Job groups (tuples of job indices) and machines per group: the static decision
    of (4.4).  ``execution`` (optional) is a run of the execution model
    (:class:`Execution`, run by :func:`.execution.simulate`): the phases and job completion times that the
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
        execution = execution_from_json(inst, r["execution"].value)
    return HarmonySolution(groups=tuple(groups), machines=tuple(machines), execution=execution)


# ---------------------------------------------------------------------------
# runs of the execution model (Section 4.3.2; simulated by :mod:`.execution`):
# the run, its validator, its metrics and its JSON
#: relative tolerance of the checks
REL_TOL = 1e-6


@dataclass(frozen=True)
class Phase:
    """A stretch of time with one grouping: ``groups[g]`` (job indices) runs on ``machines[g]``."""

    start: float
    end: float
    groups: tuple[tuple[int, ...], ...]
    machines: tuple[int, ...]


@dataclass
class Execution:
    """A run of the execution model: phases of constant grouping and job completion times."""

    phases: list[Phase]
    completion: tuple[float, ...]
    policy: str = ""
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def makespan(self) -> float:
        return max(self.completion) if self.completion else 0.0


def validate_execution(inst: HarmonyInstance, ex: Execution) -> None:
    """Raise :class:`InvalidSolutionError` unless ``ex`` is a valid run of the execution model.

    Checked from the phases alone: phases are contiguous from time 0, each a valid
    grouping (non-empty disjoint groups, integer ``m_g >= 1``, ``sum m_g <= M``); no job
    runs after its completion; every job's completion is the end of its last phase and the
    iterations it did, ``sum over its phases of (end - start) / T_g`` with ``T_g`` from
    (4.1)-(4.2), equal its ``iterations``.
    """
    n = inst.num_jobs
    if len(ex.completion) != n:
        raise InvalidSolutionError(f"execution: {len(ex.completion)} completion times for {n} jobs")
    if not ex.phases:
        raise InvalidSolutionError("execution: no phase")
    t = 0.0
    it_done = np.zeros(n)
    last_end = np.full(n, -1.0)
    scale = max(1.0, ex.makespan)
    for q, ph in enumerate(ex.phases):
        if abs(ph.start - t) > REL_TOL * scale:
            raise InvalidSolutionError(f"execution: phase {q} starts at {ph.start}, the previous ended at {t}")
        if not ph.end > ph.start:
            raise InvalidSolutionError(f"execution: phase {q} has no duration ({ph.start} .. {ph.end})")
        if len(ph.groups) != len(ph.machines) or not ph.groups:
            raise InvalidSolutionError(f"execution: phase {q} has {len(ph.groups)} groups, {len(ph.machines)} counts")
        seen: set[int] = set()
        for g, m in zip(ph.groups, ph.machines):
            if not g:
                raise InvalidSolutionError(f"execution: phase {q} has an empty group")
            if isinstance(m, bool) or int(m) != m or m < 1:
                raise InvalidSolutionError(f"execution: phase {q}: machine count {m!r} is not an integer >= 1")
            for j in g:
                if not 0 <= j < n or j in seen:
                    raise InvalidSolutionError(f"execution: phase {q}: job {j} is out of range or in two groups")
                seen.add(j)
                # a job may finish at the end of a phase shorter than the tolerance (a sliver of
                # its last iteration); it runs after finishing only if the phase ends later
                if ph.end > ex.completion[j] + REL_TOL * scale:
                    raise InvalidSolutionError(
                        f"execution: job {inst.jobs[j].id!r} runs until {ph.end} after finishing at "
                        f"{ex.completion[j]}")
            T = group_stats(inst, g, int(m)).t_group
            for j in g:
                it_done[j] += (ph.end - ph.start) / T
                last_end[j] = ph.end
        if sum(int(m) for m in ph.machines) > inst.machines:
            raise InvalidSolutionError(f"execution: phase {q} uses {sum(ph.machines)} machines of {inst.machines}")
        t = ph.end
    for j, job in enumerate(inst.jobs):
        if abs(it_done[j] - job.iterations) > REL_TOL * job.iterations:
            raise InvalidSolutionError(
                f"execution: job {job.id!r} did {it_done[j]:.6g} iterations, needs {job.iterations}")
        if abs(last_end[j] - ex.completion[j]) > REL_TOL * scale:
            raise InvalidSolutionError(
                f"execution: job {job.id!r} completes at {ex.completion[j]}, its last phase ends at {last_end[j]}")


def execution_metrics(inst: HarmonyInstance, ex: Execution) -> dict[str, float]:
    """Average JCT (all jobs submitted at 0), makespan, and the time averages over
    ``[0, makespan]`` of the cluster utilisation (4.4) (scalarised, CPU and network), of
    the number of running jobs and of the number of groups; and the CPU and network
    utilisation over ``[0, t90]``, ``t90`` the time by which 90% of the jobs finished
    (the run before its tail of a few long jobs)."""
    span = ex.makespan
    t90 = float(np.quantile(np.asarray(ex.completion), 0.9, method="higher")) if ex.completion else 0.0
    acc = {"u": 0.0, "cpu": 0.0, "net": 0.0, "jobs": 0.0, "groups": 0.0, "cpu90": 0.0, "net90": 0.0}
    for ph in ex.phases:
        dur = ph.end - ph.start
        dur90 = max(0.0, min(ph.end, t90) - ph.start)
        for g, m in zip(ph.groups, ph.machines):
            st = group_stats(inst, g, int(m))
            acc["u"] += dur * m * st.u
            acc["cpu"] += dur * m * st.u_cpu
            acc["net"] += dur * m * st.u_net
            acc["cpu90"] += dur90 * m * st.u_cpu
            acc["net90"] += dur90 * m * st.u_net
        acc["jobs"] += dur * sum(len(g) for g in ph.groups)
        acc["groups"] += dur * len(ph.groups)
    big_m = inst.machines
    jct_lb, span_lb = contention_free_bounds(inst)
    return {
        "avg_jct_bound": jct_lb,
        "makespan_bound": span_lb,
        "t90": t90,
        "run_utilisation_cpu_t90": acc["cpu90"] / (big_m * t90) if t90 > 0 else 0.0,
        "run_utilisation_net_t90": acc["net90"] / (big_m * t90) if t90 > 0 else 0.0,
        "avg_jct": float(np.mean(ex.completion)),
        "makespan": float(span),
        "run_utilisation": acc["u"] / (big_m * span) if span > 0 else 0.0,
        "run_utilisation_cpu": acc["cpu"] / (big_m * span) if span > 0 else 0.0,
        "run_utilisation_net": acc["net"] / (big_m * span) if span > 0 else 0.0,
        "mean_running_jobs": acc["jobs"] / span if span > 0 else 0.0,
        "mean_groups": acc["groups"] / span if span > 0 else 0.0,
    }


def contention_free_bounds(inst: HarmonyInstance) -> tuple[float, float]:
    """Lower bounds on the average JCT and the makespan of every run of the execution model.

    A group on ``m <= M`` machines has ``T_g >= T_itr_j(m) >= T_itr_j(M)`` for each of its jobs
    (4.1)-(4.2), so job ``j`` needs at least ``iterations_j * T_itr_j(M)`` (alone on the whole
    cluster); and ``m T_g >= sum_j T_cpu_j c``, so the machine time of all iterations is at
    least ``sum_j iterations_j T_cpu_j c`` and the makespan at least that over ``M``.
    """
    c = inst.reference_dop
    big_m = inst.machines
    alone = [j.iterations * (j.t_cpu * c / big_m + j.t_net) for j in inst.jobs]
    work = sum(j.iterations * j.t_cpu * c for j in inst.jobs) / big_m
    return float(np.mean(alone)), float(max(max(alone), work))


def execution_to_json(inst: HarmonyInstance, ex: Execution) -> dict:
    ids = [j.id for j in inst.jobs]
    return {
        "policy": ex.policy,
        "phases": [{"start": ph.start, "end": ph.end,
                    "groups": [{"jobs": [ids[j] for j in g], "machines": int(m)}
                               for g, m in zip(ph.groups, ph.machines)]}
                   for ph in ex.phases],
        "completion": {ids[j]: float(c) for j, c in enumerate(ex.completion)},
        "counters": dict(ex.counters),
    }


def execution_from_json(inst: HarmonyInstance, data: Any) -> Execution:
    r = Reader(data)
    ids = {j.id: n for n, j in enumerate(inst.jobs)}
    phases = []
    for pr in r.items("phases"):
        groups, machines = [], []
        for gr in pr.items("groups"):
            jobs = []
            for jr in gr.items("jobs"):
                jid = jr.as_str() if isinstance(jr.value, str) else str(jr.as_int())
                if jid not in ids:
                    raise gr.error(f"unknown job {jid!r}", "jobs")
                jobs.append(ids[jid])
            groups.append(tuple(jobs))
            machines.append(gr.integer("machines"))
        phases.append(Phase(pr.number("start"), pr.number("end"), tuple(groups), tuple(machines)))
    comp_r = r["completion"]
    comp = comp_r.obj()
    completion = []
    for j in inst.jobs:
        if j.id not in comp:
            raise comp_r.error(f"no completion time for job {j.id!r}")
        completion.append(float(comp[j.id]))
    return Execution(phases=phases, completion=tuple(completion),
                     policy=str(r.get("policy").value if r.has("policy") else ""))

def gantt_bars(instance: Any, solution: Any) -> GanttChart:
    """The Gantt bars of a Harmony solution (``Family.gantt``): one row per
    machine; a group's machines are consecutive rows, and each of its jobs a
    slice of them.  With an execution (the run of the
    dissertation's execution model) over its phases, in time; without, the
    static grouping over one group iteration ``T_g`` (4.1) of each group."""
    ids = [j.id for j in instance.jobs]
    ex = getattr(solution, "execution", None)
    phases = ([(float(ph.start), float(ph.end), ph.groups, ph.machines) for ph in ex.phases] if ex is not None
              else [(0.0, None, solution.groups, solution.machines)])
    tasks: list[dict] = []
    for start, end, groups, machines in phases:
        row = 0
        for jobs, m in zip(groups, machines):
            m = int(m)
            stop = end if end is not None else float(group_stats(instance, jobs, m).t_group)
            n = max(len(jobs), 1)
            for k, j in enumerate(jobs):
                for r in range(row, row + m):
                    tasks.append({"job": ids[j], "gpu": r, "start": start, "end": stop,
                                  "offset": k / n, "height": 1.0 / n})
            row += m
    labels = [f"machine {i}" for i in range(int(instance.machines))]
    return GanttChart(tasks, row_labels=labels, ylabel="machine",
                      xlabel="time" if ex is not None else "time (one group iteration T_g per group)")
