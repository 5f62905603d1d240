"""The paper's baselines FF, LS and RAND (MobiHoc'22, Section 7) as methods.

They dispatch on SJF-BCO's clock-driven list dispatcher with their own
placement rules (:func:`~.heuristics.first_fit`, :func:`~.heuristics.least_loaded`,
:func:`~.heuristics.random_rule`, :func:`~.heuristics.random_server_rule`); FF
and LS search ``theta_u`` by the same bisection, RAND runs once with
``theta_u = T``.  Readings: ``models/rar.md``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...kit import Option, Run, method
from ...result import Result
from .bounds import rho_hat
from .heuristics import (
    Chooser,
    Dispatch,
    bisection,
    first_fit,
    job_order,
    least_loaded,
    random_rule,
    random_server_rule,
    search_result,
)
from .instance import RarInstance
from .solution import RarSchedule

#: the job order of the baselines (the paper does not say; ``models/rar.md``, "Readings")
ORDER_OPTION = Option(
    "order", str, "sjf",
    "job order: 'sjf' (non-decreasing G_j, Algorithm 1 line 4) or 'input' (as listed); the paper "
    "does not say which order FF, LS and RAND use", choices=("sjf", "input"),
)


def _baseline(run: Run, rule: Callable[[float], Chooser], inst: RarInstance) -> Result:
    rhat = rho_hat(inst)
    order = run.options["order"]
    with run.stage("search"):
        best = bisection(inst, lambda theta: [lambda j, c=rule(theta): c], job_order(inst, order), rhat,
                         budget=run.budget)
    return search_result(run, inst, best, order=order)


@method("rar", "ff", kind="heuristic", options=[ORDER_OPTION],
        description="First-Fit baseline: first G_j eligible GPUs server by server, bisection on theta")
def solve_ff(inst: RarInstance, run: Run) -> Result:
    """FF baseline (Section 7): the first ``G_j`` eligible idle GPUs, server by server."""
    return _baseline(run, first_fit, inst)


@method("rar", "ls", kind="heuristic", options=[ORDER_OPTION],
        description="List-Scheduling baseline: least-loaded G_j GPUs, bisection on theta")
def solve_ls(inst: RarInstance, run: Run) -> Result:
    """LS baseline (Section 7): the ``G_j`` eligible idle GPUs with least ``U_g`` cluster-wide."""
    return _baseline(run, least_loaded, inst)


@method("rar", "rand", kind="heuristic",
        description="RAND baseline: random eligible GPUs, theta = T, seeded",
        options=[ORDER_OPTION,
                 Option("pick", str, "gpus",
                        "'gpus': G_j eligible idle GPUs uniformly at random; 'servers': servers in a "
                        "random order, random GPUs of each in turn", choices=("gpus", "servers"))])
def solve_rand(inst: RarInstance, run: Run) -> Result:
    """RAND baseline (Section 7): random eligible GPUs, ``theta_u = T``; one run, seeded.

    "we allocate GPUs to a job as long as it does not exceed T, i.e., we set
    theta_u^RAND = T, to avoid the long running time in order to find a
    feasible schedule": one run, no search.  When that run has no schedule
    within the horizon (its makespan exceeds ``T``: random GPUs spread a job
    over many servers, so contention slows it; or a job cannot start before
    ``T``), the result is status ``error`` whose message says which, with the
    makespan the run reached in ``details["makespan_reached"]``.
    """
    rng = np.random.default_rng(run.seed)
    rhat = rho_hat(inst)
    rule = random_rule if run.options["pick"] == "gpus" else random_server_rule
    c = rule(rng, inst.horizon)
    T = inst.horizon
    best = {"m": None, "sched": None, "theta": T, "T": None, "runs": 1}
    reached = None
    with run.stage("search"):
        d = Dispatch(inst, rhat)
        for j in job_order(inst, run.options["order"]).tolist():
            if not d.place(int(j), c, T + 1):
                if np.count_nonzero(d.U + rhat[j] <= T) < inst.G[j]:
                    best["why"] = (f"job {inst.jobs[j].id} (G_j = {int(inst.G[j])}) finds fewer than G_j GPUs "
                                   f"with U_g + rho_hat_j <= T")
                else:
                    best["why"] = f"job {inst.jobs[j].id} (G_j = {int(inst.G[j])}) cannot start before T"
                break
        else:
            Tj = d.finish()
            reached = int(Tj.max())
            if reached <= T:
                best.update(m=reached, sched=RarSchedule(start=d.start.copy(), gpus=tuple(d.gpus)), T=Tj)
            else:
                best["why"] = (f"RAND's run (pick={run.options['pick']}, seed {run.seed}) places every job but "
                               f"ends at slot {reached} > T")
    return search_result(run, inst, best, order=run.options["order"], pick=run.options["pick"], seed=run.seed,
                   makespan_reached=reached)


__all__ = ["ORDER_OPTION", "solve_ff", "solve_ls", "solve_rand"]
