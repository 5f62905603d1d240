"""The dissertation's baselines: the Oracle at the paper's scale (Section 4.4.7), method
``oracle``, and the isolated baseline (Section 4.4.1), method ``isolated``.

The dissertation compares Harmony's scheduling algorithm with "an exhaustive
search that finds the ground truth that maximizes resource utilization by
measuring all possible search spaces", run on 80 jobs and 100 machines in
13.8 minutes per scheduling run (Harmony: 1.2 s), and explains the difference
by "the fact that our scheduling algorithm finds its solution in a greedy
way with a preference of running smaller number of jobs together. This
prevents us from exploring the problem space further."  An exhaustive search
over every grouping of 80 jobs (Bell(80) ~ 10^87) cannot run in 13.8 minutes,
so the Oracle searched the space Harmony's greedy choices cut short: the
number of jobs to run and the number of groups (models/harmony.md, "The
Oracle", with the timing argument).

:func:`oracle_search` is that search: for every prefix ``J[:k]`` of the job
list (``k = 1..|J|``, no early stop) and every number of groups
``n_G = 1..min(k, M)`` (not only L6's ``n_G*``), Algorithm 2 and the machine
allocation; the decision with the highest ``U`` is kept (ties: fewer jobs,
then fewer groups).  Cost ``O(|J|^2)`` runs of Algorithm 2.

In the static problem (every job grouped) the method ``oracle`` searches every
(prefix, ``n_G``) with the jobs after the prefix placed by the arrival rule, as
``harmony`` places the jobs its admission leaves out, and keeps the highest
``U`` of the whole grouping (``space="prefixes"``, default): its space holds
Harmony's decision under every ``admission`` and ``group_rule``, so its ``U``
is never below Harmony's.  ``space="groups"`` searches every ``n_G`` on all
jobs only (Harmony's space with ``admission="all"``).  With ``simulate=True``
it also runs the execution model with the Oracle deciding at every event
(:class:`OraclePolicy`; there the jobs left out wait, and a decision is worth
its admitted groups).

The isolated baseline (Section 4.4.1), method ``isolated``:
"The isolated baseline allocates disjoint sets of resources for each distinct
job. In the isolated approach, we try to maximize the CPU utilization rates, as
it determines the actual training progress of each job, while reducing the
network overheads that occur with lower DoP and higher CPU utilization."

Every job runs alone in its own group (no co-location).  A decision takes the
running jobs, then the waiting ones in submission order, and keeps the prefix
of ``k`` jobs (``k = 1 .. min(|J|, M)``), one group each, whose machine
allocation (Harmony's: machines to CPU-heavy groups) gives the highest
cluster utilisation (4.4) -- the scalarised ``U``, CPU weighted above network
as everywhere in the family; ties: fewer jobs.  On the static problem every
job must be grouped, so all jobs are singleton groups when ``M >= |J|`` (else
the method is not applicable).  With ``simulate=True`` the execution model
runs with this decision at time 0 and whenever a job finishes
(:class:`IsolatedPolicy`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...budget import Budget
from ...errors import NotApplicable
from ...kit import Option, Run, method
from ...result import Result
from .heuristics import FINE_TUNE, SIMULATE, Schedule, _place_rest, allocate_machines, group_prefix, group_value
from .instance import HarmonyInstance
from .simulator import Sim, simulate
from .solution import HarmonySolution, metrics


def oracle_search(inst: HarmonyInstance, jobs: list[int], machines: int | None = None, *,
                  fine_tune: bool = True, prefixes: bool = True, place_rest: bool = False,
                  budget: Budget | None = None) -> tuple[Schedule, float, int]:
    """The best decision over every prefix of ``jobs`` (or only all of them, ``prefixes=False``)
    and every number of groups.  Returns ``(schedule, sum_g m_g U(g), decisions examined)``.

    Without ``place_rest`` (the execution model, where the jobs left out wait) a decision is
    worth its admitted groups' ``sum_g m_g U(g)``.  With it (the static problem, every job
    grouped) the jobs after the prefix are first added by the arrival rule, as
    :func:`~.heuristics.schedule` does with ``place_rest``, and the decision is worth the
    whole grouping's value: the search then contains Harmony's static decision under every
    ``admission`` and ``group_rule``.

    Stops early (best so far) when ``budget`` stops it (asked every 64 decisions; the cut is
    recorded with :meth:`~dmlsched.budget.Budget.cut`).
    """
    big_m = machines or inst.machines
    order = [int(j) for j in jobs]
    best: Schedule | None = None
    best_val = -1.0
    count = 0
    sizes = range(1, len(order) + 1) if prefixes else [len(order)]
    for k in sizes:
        for n_g in range(1, min(k, big_m) + 1):
            if budget is not None and count % 64 == 0 and best is not None and budget.stop():
                budget.cut("the Oracle's search")
                return best, best_val, count
            cand = group_prefix(inst, order[:k], fine_tune=fine_tune, n_groups=n_g, machines=big_m)
            if place_rest:
                _place_rest(inst, cand, order[k:])
            val = group_value(inst, cand.groups, cand.machines)
            count += 1
            if val > best_val * (1 + 1e-12):
                best, best_val = cand, val
    assert best is not None
    return best, best_val, count


# ---------------------------------------------------------------------------
# the Oracle in the execution model (Section 4.4.7, :mod:`.simulator`)
@dataclass
class OraclePolicy:
    """At time 0 and after every completion, the utilisation-maximising decision of
    :func:`oracle_search` over every unfinished job on all machines (applied when
    it does not lower the current utilisation)."""

    fine_tune: bool = True
    name: str = "oracle"

    def start(self, sim: Sim) -> None:
        self._decide(sim)

    def on_finish(self, sim: Sim, finished: list[tuple[int, list[int], int]]) -> None:
        self._decide(sim)

    def _decide(self, sim: Sim) -> None:
        jobs = sim.waiting + [j for g in sim.groups for j in g]
        if not jobs:
            return
        sim.count("scheduling_calls")
        sch, value, _ = oracle_search(sim.inst, jobs, sim.inst.machines, fine_tune=self.fine_tune,
                                      budget=sim.budget)
        if not sim.groups or value >= sim.value() * (1 - 1e-12):
            sim.replace(set(range(len(sim.groups))), sch.groups, sch.machines, jobs)
            sim.count("regroupings")


# ---------------------------------------------------------------------------


@method(
    "harmony",
    "oracle",
    kind="heuristic",
    description="The dissertation's Oracle at scale (Sec. 4.4.7): every number of jobs x every number of "
                "groups, the U-maximising decision",
    options=[
        Option("space", str, "prefixes",
               "static decision: 'prefixes' (every prefix of the job list x every n_G, the rest placed by the "
               "arrival rule, the U of the whole grouping: contains Harmony's decision under every admission) or "
               "'groups' (all jobs, every n_G: contains Harmony's with admission='all')",
               choices=("prefixes", "groups")),
        FINE_TUNE, SIMULATE,
    ],
)
def solve_oracle(inst: HarmonyInstance, run: Run) -> Result:
    """The Oracle's decision on the static problem (and, with ``simulate``, its run)."""
    o = run.options
    prefixes = o["space"] == "prefixes"
    n = inst.num_jobs
    runs = sum(min(k, inst.machines) for k in range(1, n + 1)) if prefixes else min(n, inst.machines)
    with run.stage("search"):
        sch, _, count = oracle_search(inst, list(range(n)), fine_tune=o["fine_tune"], prefixes=prefixes,
                                      place_rest=True, budget=run.budget)
    sol = HarmonySolution(groups=tuple(tuple(g) for g in sch.groups), machines=tuple(sch.machines))
    details = {"decisions": count, "decisions_planned": runs, "n_groups": sch.n_groups, "admitted": sch.admitted,
               "space": o["space"]}
    if o["simulate"]:
        if not inst.has_iterations:
            raise NotApplicable("simulate: the execution model needs every job's iterations")
        with run.stage("simulate"):
            try:
                sol.execution = simulate(inst, OraclePolicy(fine_tune=o["fine_tune"]), budget=run.budget)
            except TimeoutError:
                details["simulation"] = "stopped by the deadline"
    details.update({k: v for k, v in metrics(inst, sol).items() if k != "utilisation"})
    return run.result(solution=sol, **details)


# ---------------------------------------------------------------------------
# the isolated baseline (Section 4.4.1)


def isolated_search(inst: HarmonyInstance, jobs: list[int], machines: int | None = None) -> tuple[Schedule, float]:
    """The best prefix of ``jobs`` run as singleton groups, and its ``sum_g m_g U(g)``."""
    big_m = machines or inst.machines
    best: Schedule | None = None
    best_val = -1.0
    for k in range(1, min(len(jobs), big_m) + 1):
        groups = [[j] for j in jobs[:k]]
        alloc = allocate_machines(inst, groups, big_m)
        val = group_value(inst, groups, alloc)
        if val > best_val * (1 + 1e-12):
            best, best_val = Schedule(groups, alloc, k, 0, 0, k), val
    assert best is not None
    return best, best_val


class IsolatedPolicy:
    """At time 0 and after every completion: :func:`isolated_search` over the running jobs
    (first, so they keep running when they fit) and the waiting ones."""

    name: str = "isolated"

    def start(self, sim) -> None:
        self._decide(sim)

    def on_finish(self, sim, finished) -> None:
        self._decide(sim)

    def _decide(self, sim) -> None:
        running = [j for g in sim.groups for j in g]
        jobs = running + sim.waiting
        if not jobs:
            return
        sim.count("scheduling_calls")
        sch, _ = isolated_search(sim.inst, jobs, sim.inst.machines)
        sim.replace(set(range(len(sim.groups))), sch.groups, sch.machines, jobs)


@method("harmony", "isolated", kind="heuristic",
        description="the dissertation's isolated baseline (Sec. 4.4.1): one job per group, the prefix of jobs and "
                    "machine split with the highest utilisation",
        options=[SIMULATE])
def solve_isolated(inst: HarmonyInstance, run: Run) -> Result:
    """Every job alone in its group (module docstring)."""
    n = inst.num_jobs
    if n > inst.machines:
        raise NotApplicable(f"isolated: {n} jobs need {n} singleton groups, the cluster has {inst.machines} machines")
    groups = [[j] for j in range(n)]
    sol = HarmonySolution(groups=tuple(tuple(g) for g in groups), machines=tuple(allocate_machines(inst, groups)))
    details: dict = {}
    if run.options["simulate"]:
        if not inst.has_iterations:
            raise NotApplicable("simulate: the execution model needs every job's iterations")
        with run.stage("simulate"):
            try:
                sol.execution = simulate(inst, IsolatedPolicy(), budget=run.budget)
            except TimeoutError:
                details["simulation"] = "stopped by the deadline"
    details.update({k: v for k, v in metrics(inst, sol).items() if k != "utilisation"})
    return run.result(solution=sol, **details)
