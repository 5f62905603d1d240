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
* the policies live with their methods: :class:`.heuristics.HarmonyPolicy`
  (Algorithm 1 at time 0; when a job finishes, its group is repaired by the
  "Dynamic Job Regrouping" rule (2): a similar waiting job, else a bunch of
  waiting jobs, else Algorithm 1 on the group, the waiting jobs and more
  groups, with the 5% thresholds) and :class:`.baselines.OraclePolicy` (at time
  0 and whenever a job finishes, the utilisation-maximising decision of
  :func:`.baselines.oracle_search` over all unfinished jobs and all machines).

This module holds the simulation (:class:`Sim`, :class:`Policy`,
:func:`simulate`).  The result is an :class:`~.solution.Execution` (phases of
constant grouping and the completion times), checked by
:func:`~.solution.validate_execution` from the phases alone (iterations done
per job recomputed with (4.1)-(4.2)) and evaluated by
:func:`~.solution.execution_metrics`; both live in :mod:`.solution`, below
this module and the policies.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ...budget import Budget
from .instance import HarmonyInstance
from .solution import Execution, Phase, group_stats


class Sim:
    """Mutable state of a simulation, handed to the policy at each event."""

    def __init__(self, inst: HarmonyInstance, budget: Budget | None = None):
        self.inst = inst
        self.budget = budget  # what the run may spend: a policy's own searches ask it too
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
# the simulation
def simulate(inst: HarmonyInstance, policy: Any, budget: Budget | None = None) -> Execution:
    """Run the execution model with ``policy`` until every job has finished.

    ``budget`` is asked after every event (and by a policy's own searches, through
    ``Sim.budget``); when it stops the run, the cut is recorded on it
    (:meth:`~dmlsched.budget.Budget.cut`) and :class:`TimeoutError` is raised.

    Raises
    ------
    ValueError
        When a job has no ``iterations`` (nothing to run until).
    TimeoutError
        When the budget stopped the simulation.
    """
    if not inst.has_iterations:
        raise ValueError("the execution model needs every job's iterations")
    n = inst.num_jobs
    rem = np.array([float(j.iterations) for j in inst.jobs])
    done = np.full(n, np.nan)
    sim = Sim(inst, budget)
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
        if budget is not None and budget.stop():
            budget.cut("the simulation of the execution model")
            raise TimeoutError("the deadline stopped the simulation")
    counters = dict(sim.counters, events=events)
    return Execution(phases=phases, completion=tuple(float(x) for x in done), policy=policy.name,
                     counters=counters)
