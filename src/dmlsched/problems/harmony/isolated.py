"""The dissertation's *isolated* baseline (Section 4.4.1), method ``isolated``:
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

from ...errors import NotApplicable
from ...kit import Run, method
from ...result import Result
from .heuristics import SIMULATE, Schedule, allocate_machines, group_value
from .instance import HarmonyInstance
from .simulator import simulate
from .solution import HarmonySolution, metrics


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


__all__ = ["IsolatedPolicy", "isolated_search", "solve_isolated"]
