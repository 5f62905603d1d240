"""The dissertation's execution model (Lee 2020, Section 4.3.2): jobs run in
groups until convergence, and the scheduler regroups when a job finishes.

This turns a scheduler into job completion times, a makespan and the
utilisation over the run -- the three metrics of Fig. 4.17 -- so that Harmony
and the Oracle can be compared the way Section 4.4.7 compares them.  Every
modelling choice is quoted in ``models/harmony.md`` ("Execution model"):

* all jobs are submitted at time 0 (Section 4.4.3: "makespan is the time to
  complete all 80 jobs from the start of the first job"); profiling and
  migration take no time (the dissertation measures the regrouping overhead
  "below 2% of the overall makespan");
* a group ``g`` on ``m_g`` machines runs *group iterations* of length
  ``T_g`` (4.1) over its running jobs; every job of the group advances one
  iteration per group iteration ("a full iteration of the job group as a
  group iteration"); a job finishes after its ``iterations``;
* :class:`HarmonyPolicy`: Algorithm 1 decides at time 0; when a job finishes,
  its group is repaired by the "Dynamic Job Regrouping" rule (2): a similar
  waiting job, else a bunch of waiting jobs, else Algorithm 1 on the group,
  the waiting jobs and more groups, with the 5% thresholds;
* :class:`OraclePolicy`: at time 0 and whenever a job finishes, the
  utilisation-maximising decision of :func:`.oracle.oracle_search` over all
  unfinished jobs and all machines.

The result is an :class:`Execution` (phases of constant grouping and the
completion times), checked by :func:`validate_execution` from the phases
alone (iterations done per job recomputed with (4.1)-(4.2)) and evaluated by
:func:`execution_metrics`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ...errors import InvalidSolutionError
from .instance import HarmonyInstance
from .solution import group_stats

#: "We judge that jobs are similar when the difference of statistics is within 5%" (Section 4.3.2)
SIMILARITY = 0.05
#: "selects the grouping decision with smaller number of jobs, if the performance improvement of
#: decisions with more number of jobs is less than 5%"; "does not perform regrouping when the
#: expected benefit is less than 5% of U" (Section 4.3.2)
REGROUP_GAIN = 0.05
#: largest "bunch of jobs with equivalent characteristics" searched (our bound; the text gives none)
BUNCH_MAX = 3
#: most bunches examined per event (deterministic work limit)
BUNCH_LIMIT = 50_000
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


class Sim:
    """Mutable state of a simulation, handed to the policy at each event."""

    def __init__(self, inst: HarmonyInstance):
        self.inst = inst
        self.groups: list[list[int]] = []
        self.machines: list[int] = []
        self.profiled: list[int] = list(range(inst.num_jobs))  # never run yet, submission order
        self.paused: list[int] = []  # ran, then left out by a regrouping
        self.counters: dict[str, int] = {}

    # -- views ---------------------------------------------------------------
    @property
    def waiting(self) -> list[int]:
        return self.profiled + self.paused

    @property
    def idle(self) -> int:
        return self.inst.machines - sum(self.machines)

    def value(self, skip: set[int] | None = None) -> float:
        """``sum_g m_g U(g)`` of the current groups (without the group indices in ``skip``)."""
        return sum(m * group_stats(self.inst, g, m).u
                   for k, (g, m) in enumerate(zip(self.groups, self.machines)) if not (skip and k in skip) and g)

    def count(self, key: str, by: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + by

    # -- changes -------------------------------------------------------------
    def replace(self, drop: set[int], groups: list[list[int]], machines: list[int], considered: list[int]) -> None:
        """Replace the groups with indices ``drop`` by ``groups`` on ``machines``; the jobs of
        ``considered`` left out are paused (if they ran) or keep waiting."""
        running_before = {j for k in drop for j in self.groups[k]}
        keep = [k for k in range(len(self.groups)) if k not in drop]
        self.groups = [self.groups[k] for k in keep] + [list(g) for g in groups]
        self.machines = [self.machines[k] for k in keep] + [int(m) for m in machines]
        admitted = {j for g in groups for j in g}
        self.profiled = [j for j in self.profiled if j not in admitted]
        self.paused = [j for j in self.paused if j not in admitted]
        for j in considered:
            if j in running_before and j not in admitted:
                self.paused.append(j)
        if sum(self.machines) > self.inst.machines:  # pragma: no cover - guarded by the schedulers
            raise AssertionError("a decision used more machines than the cluster has")

    def _drop_empty(self) -> None:
        pairs = [(g, m) for g, m in zip(self.groups, self.machines) if g]
        self.groups = [g for g, _ in pairs]
        self.machines = [m for _, m in pairs]


class Policy(Protocol):
    name: str

    def start(self, sim: Sim) -> None: ...

    def on_finish(self, sim: Sim, finished: list[tuple[int, list[int], int]]) -> None: ...


# ---------------------------------------------------------------------------
# Harmony's rules
@dataclass
class HarmonyPolicy:
    """Algorithm 1 at time 0 and Section 4.3.2's "Dynamic Job Regrouping" (2) when a job finishes.

    Attributes
    ----------
    admission, group_rule, fine_tune
        Readings of Algorithm 1 and 2 (:func:`.heuristics.schedule`).
    """

    admission: str = "all"
    group_rule: str = "aggregate"
    fine_tune: bool = True
    name: str = "harmony"

    def decide(self, sim: Sim, jobs: list[int], machines: int):
        from .heuristics import schedule

        sim.count("scheduling_calls")
        return schedule(sim.inst, admission=self.admission, fine_tune=self.fine_tune,
                        group_rule=self.group_rule, jobs=jobs, machines=machines, place_rest=False)

    def start(self, sim: Sim) -> None:
        if not sim.waiting:
            return
        sch = self.decide(sim, sim.waiting, sim.inst.machines)
        sim.replace(set(), sch.groups, sch.machines, sim.waiting)

    def on_finish(self, sim: Sim, finished: list[tuple[int, list[int], int]]) -> None:
        for job, group, m in finished:
            k = next((i for i, g in enumerate(sim.groups) if g is group), None)
            if k is None:
                continue  # the group was regrouped by an earlier completion of this event
            self._repair(sim, job, k, m)

    # (2): "the scheduler searches for a similar job [...] to replace the finished job"
    def _repair(self, sim: Sim, job: int, k: int | None, m: int) -> None:
        inst = sim.inst
        if sim.waiting and k is not None:
            pick = _similar_job(inst, job, sim.waiting, m)
            if pick is not None:
                sim.groups[k].append(pick)
                sim.profiled = [j for j in sim.profiled if j != pick]
                sim.paused = [j for j in sim.paused if j != pick]
                sim.count("replaced_by_similar_job")
                return
            bunch = _similar_bunch(inst, job, sim.waiting, m)
            if bunch is not None:
                sim.groups[k].extend(bunch)
                sim.profiled = [j for j in sim.profiled if j not in bunch]
                sim.paused = [j for j in sim.paused if j not in bunch]
                sim.count("replaced_by_bunch")
                return
        self._regroup(sim, k)

    def _regroup(self, sim: Sim, k: int | None) -> None:
        """Algorithm 1 on the waiting jobs and the jobs of the finished job's group plus
        1, 2, ... more groups (fewest jobs first) on their machines and the idle ones; the
        decision with fewer jobs wins unless a larger one is >= 5% better; applied only when
        it beats the current utilisation by >= 5%."""
        n_groups = len(sim.groups)
        others = sorted((i for i in range(n_groups) if i != k), key=lambda i: (len(sim.groups[i]), i))
        base = [] if k is None else [k]
        sets = [base + others[:q] for q in range(1, len(others) + 1)] if others else [base]
        if k is None and not others:
            sets = [[]]
        current = sim.value()
        best = None
        for sel in sets:
            jobs = sim.waiting + [j for i in sel for j in sim.groups[i]]
            if not jobs:
                continue
            pool = sum(sim.machines[i] for i in sel) + sim.idle
            if pool < 1:
                continue
            sch = self.decide(sim, jobs, pool)
            value = sim.value(skip=set(sel)) + _value(sim.inst, sch.groups, sch.machines)
            cand = (len(jobs), value, sel, sch, jobs)
            if best is None or value >= best[1] * (1 + REGROUP_GAIN):
                best = cand
        if best is None:
            return
        _, value, sel, sch, jobs = best
        if current <= 0 or value >= current * (1 + REGROUP_GAIN):
            sim.replace(set(sel), sch.groups, sch.machines, jobs)
            sim.count("regroupings")
        else:
            sim.count("regroupings_skipped")


def _value(inst: HarmonyInstance, groups, machines) -> float:
    return sum(m * group_stats(inst, g, m).u for g, m in zip(groups, machines))


def _stats_at(inst: HarmonyInstance, jobs, m: int) -> tuple[float, float, float]:
    cpu = float(sum(inst.t_cpu[j] for j in jobs)) * inst.reference_dop / m
    net = float(sum(inst.t_net[j] for j in jobs))
    return cpu, net, cpu + net


def _close(a: float, b: float) -> float:
    """Relative difference of two statistics (0 when equal, inf when one is infinite alone)."""
    if a == b:
        return 0.0
    if math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(a - b) / max(abs(b), 1e-300)


def _ratio(cpu: float, net: float) -> float:
    return cpu / net if net > 0 else math.inf


def _similar_job(inst: HarmonyInstance, job: int, waiting: list[int], m: int) -> int | None:
    """The waiting job whose iteration time and computation/communication ratio (at the
    group's DoP ``m``) are both within 5% of the finished job's; the closest, first in order."""
    c0, n0, i0 = _stats_at(inst, [job], m)
    r0 = _ratio(c0, n0)
    best, best_d = None, math.inf
    for j in waiting:
        c, n, it = _stats_at(inst, [j], m)
        d = max(_close(it, i0), _close(_ratio(c, n), r0))
        if d <= SIMILARITY and d < best_d:
            best, best_d = j, d
    return best


def _similar_bunch(inst: HarmonyInstance, job: int, waiting: list[int], m: int) -> list[int] | None:
    """A bunch of 2..BUNCH_MAX waiting jobs whose summed iteration time and ratio of summed
    computation to summed communication are within 5% of the finished job's; the closest."""
    c0, n0, i0 = _stats_at(inst, [job], m)
    r0 = _ratio(c0, n0)
    best, best_d = None, math.inf
    seen = 0
    for size in range(2, BUNCH_MAX + 1):
        for combo in itertools.combinations(waiting, size):
            seen += 1
            if seen > BUNCH_LIMIT:
                return best
            c, n, it = _stats_at(inst, combo, m)
            if it > i0 * (1 + SIMILARITY):
                continue
            d = max(_close(it, i0), _close(_ratio(c, n), r0))
            if d <= SIMILARITY and d < best_d:
                best, best_d = list(combo), d
    return best


# ---------------------------------------------------------------------------
# the Oracle
@dataclass
class OraclePolicy:
    """At time 0 and after every completion, the utilisation-maximising decision of
    :func:`.oracle.oracle_search` over every unfinished job on all machines (applied when
    it does not lower the current utilisation)."""

    fine_tune: bool = True
    name: str = "oracle"

    def start(self, sim: Sim) -> None:
        self._decide(sim)

    def on_finish(self, sim: Sim, finished: list[tuple[int, list[int], int]]) -> None:
        self._decide(sim)

    def _decide(self, sim: Sim) -> None:
        from .oracle import oracle_search

        jobs = sim.waiting + [j for g in sim.groups for j in g]
        if not jobs:
            return
        sim.count("scheduling_calls")
        sch, value, _ = oracle_search(sim.inst, jobs, sim.inst.machines, fine_tune=self.fine_tune)
        if not sim.groups or value >= sim.value() * (1 - 1e-12):
            sim.replace(set(range(len(sim.groups))), sch.groups, sch.machines, jobs)
            sim.count("regroupings")


# ---------------------------------------------------------------------------
# the simulation
def simulate(inst: HarmonyInstance, policy: Any, run: Any = None) -> Execution:
    """Run the execution model with ``policy`` until every job has finished.

    Raises
    ------
    ValueError
        When a job has no ``iterations`` (nothing to run until).
    """
    if not inst.has_iterations:
        raise ValueError("the execution model needs every job's iterations")
    n = inst.num_jobs
    rem = np.array([float(j.iterations) for j in inst.jobs])
    done = np.full(n, np.nan)
    sim = Sim(inst)
    policy.start(sim)
    phases: list[Phase] = []
    t = 0.0
    events = 0
    while np.isnan(done).any():
        if not sim.groups:  # nothing runs: put the waiting jobs to work (not reached by these policies)
            sim.count("restarts")
            policy.start(sim)
            if not sim.groups:
                raise AssertionError("no job can run")
        tg = [group_stats(inst, g, m).t_group for g, m in zip(sim.groups, sim.machines)]
        finish = [(rem[j] * T, j) for g, T in zip(sim.groups, tg) for j in g]
        dt = min(f for f, _ in finish)
        t_next = float(t + dt)
        if dt > 0:
            phases.append(Phase(t, t_next, tuple(tuple(g) for g in sim.groups), tuple(sim.machines)))
        for g, T in zip(sim.groups, tg):
            for j in g:
                rem[j] -= dt / T
        t = t_next
        fin = sorted(j for f, j in finish if f <= dt * (1 + 1e-12) or rem[j] <= 1e-12 * inst.jobs[j].iterations)
        finished = []
        for j in fin:
            rem[j] = 0.0
            done[j] = t
            k = next(i for i, g in enumerate(sim.groups) if j in g)
            finished.append((j, sim.groups[k], sim.machines[k]))
            sim.groups[k].remove(j)
        # a group emptied by this event keeps its list object (for the policy) until replace()
        events += 1
        policy.on_finish(sim, finished)
        sim._drop_empty()
        if run is not None and events % 16 == 0 and run.expired():
            run.cut("the simulation of the execution model")
            raise TimeoutError("the deadline stopped the simulation")
    counters = dict(sim.counters, events=events)
    return Execution(phases=phases, completion=tuple(float(x) for x in done), policy=policy.name,
                     counters=counters)


# ---------------------------------------------------------------------------
# validator and evaluator
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
                    "groups": [{"jobs": [ids[j] for j in g], "machines": int(m)} for g, m in zip(ph.groups, ph.machines)]}
                   for ph in ex.phases],
        "completion": {ids[j]: float(c) for j, c in enumerate(ex.completion)},
        "counters": dict(ex.counters),
    }


def execution_from_json(inst: HarmonyInstance, data: Any) -> Execution:
    from ...io import Reader

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
    return Execution(phases=phases, completion=tuple(completion), policy=str(r.get("policy").value if r.has("policy") else ""))
