"""The dissertation's Oracle at the paper's scale (Section 4.4.7), method ``oracle``.

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
"""

from __future__ import annotations

from dataclasses import dataclass

from ...budget import Budget
from .heuristics import Schedule, _place_rest, group_prefix, group_value
from .instance import HarmonyInstance
from .simulator import Sim, simulate


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
from ...errors import NotApplicable  # noqa: E402
from ...kit import Option, Run, method  # noqa: E402
from ...result import Result  # noqa: E402
from .heuristics import FINE_TUNE, SIMULATE  # noqa: E402
from .solution import HarmonySolution, metrics  # noqa: E402


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
