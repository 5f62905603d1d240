"""The clairvoyant offline optimum of an HLAS instance by MIP: the best schedule
with full knowledge of arrivals and sizes, a proven reference for every online
policy.

Every policy run is a feasible Hare schedule (``models/hlas.md``), so the
offline optimum of the Hare problem with unit weights -- minimise
``sum_n C_n``, i.e. the average JCT ``(sum_n C_n - sum_n a_n) / |N|`` -- bounds
every policy from below.  Two exact methods:

* ``offline-exact`` -- CP-SAT (:mod:`.cp`);
* ``offline-mip`` -- Hare's ``exact`` MIP on the instance with unit weights
  (HiGHS or Gurobi), the cross-check (here).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ...errors import NotApplicable
from ...kit import Option, Run, method
from ...result import Result, Status
from ..hare.solution import completion_times as hare_ct
from .instance import HlasInstance
from .solution import HlasRun


def unit_weight_hare(inst: HlasInstance):
    """The Hare instance of ``inst`` with every weight 1 (so ``sum C_n`` is the objective)."""
    hare = inst.to_hare()
    return dataclasses.replace(hare, jobs=tuple(dataclasses.replace(j, weight=1.0) for j in hare.jobs))


def trivial_bound(inst: HlasInstance) -> float:
    """A proven lower bound on every schedule's average JCT: each round of job ``n``
    takes at least ``min_m (T^c_{n,m} + T^s_{n,m})``, rounds run one after another."""
    return float(np.mean([j.rounds * min(j.train_time[g] + j.sync_time[g] for g in inst.gpu_types)
                          for j in inst.jobs]))


def _sum_arrivals(inst: HlasInstance) -> float:
    return float(sum(j.arrival for j in inst.jobs))



@method(
    "hlas",
    "offline-mip",
    kind="exact",
    uses_solver=True,
    options=[Option("symmetry", bool, True, "order identical GPUs (Hare exact's option)")],
    description="Clairvoyant offline optimum: Hare_Sched's MIP with unit weights (the cross-check of offline-exact)",
)
def solve_offline_mip(inst: HlasInstance, run: Run) -> Result:
    """Hare's ``exact`` MIP on the instance with unit weights, by the remaining deadline.

    Hare's MIP minimises the flow time ``sum_n (C_n - a_n)`` on a normalised
    copy of the instance (``models/hlas.md``): its proven bound on it, divided
    by ``|N|``, is this method's bound, and the status is derived here from the
    average JCT of the schedule and that bound by the kit's relative rule
    (never forwarded from the Hare run, whose objective has the arrivals'
    offset).
    """
    hare = unit_weight_hare(inst)
    opts: dict[str, Any] = {}
    if not run.options["symmetry"]:
        opts["symmetry"] = False
    n = inst.num_jobs
    arr = _sum_arrivals(inst)

    def average_jct(inc: dict) -> dict:
        # the Hare MIP's incumbents are Hare values (sum of completion times): a listening
        # benchmark receives them as this method's values (average JCT), never as they are
        return {**inc, **{k: (None if inc.get(k) is None else (inc[k] - arr) / n) for k in ("objective", "bound")}}

    # the run's solver, seed, threads and solver options; a wall-clock cut is recorded as "Hare MIP"
    res = run.delegate("exact", hare, problem="hare", options=opts, incumbents=average_jct, cut_as="Hare MIP")
    if res.status == Status.NOT_APPLICABLE:
        # Hare's MIP refused the instance before allocating (size or time): so does this method
        raise NotApplicable(f"Hare's MIP: {res.details.get('error', 'refused')}")
    if res.solution is None and res.details.get("error"):
        run.details["error"] = f"Hare's MIP: {res.details['error']}"
    sol = None
    if res.solution is not None:
        ct = hare_ct(hare, res.solution)
        sol = HlasRun(gpu=res.solution.gpu, start=res.solution.start, finish=ct, policy="offline-mip")
    # the MIP was solved and proven on the flow time sum_n (C_n - a_n) (Hare's exact minimises
    # it on a normalised copy): its bound is this method's bound times |N|, with no subtraction
    # of the arrivals that a relative gap on sum_n C_n could not resolve
    flow = res.details.get("flow_bound")
    lb = None if flow is None else float(flow) / n
    # never forward the Hare status: optimality is decided here, on the average JCT, by the kit's rule
    status = res.status if res.status in (Status.INFEASIBLE, Status.TIME_LIMIT) and res.solution is None else None
    return run.result(solution=sol, bound=[lb, trivial_bound(inst)], status=status,
                      hare_status=res.status.value, solver_status=res.details.get("solver_status"),
                      hare_objective=res.objective)


__all__ = ["solve_offline_mip", "trivial_bound", "unit_weight_hare"]
