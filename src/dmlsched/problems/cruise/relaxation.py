"""Cruise's ``relaxation`` method: the continuous relaxation of Figure 3.2 on clusters
with one bandwidth, solved exactly by two LPs per role split
(:func:`solve_continuous_relaxation`; ``models/cruise.md``).  Pyomo is imported
only inside the LP builders.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import NotApplicable
from ...kit import Run, method
from ...result import Result, Status
from .baselines import role_candidates
from .instance import CruiseInstance


# ---------------------------------------------------------------------------
# the continuous relaxation on clusters with one bandwidth
def _min_comm_lp(inst: CruiseInstance, workers: list[int], servers: list[int]):
    """LP: the least per-mini-batch communication time ``T`` over real ``m >= 0``
    with ``sum_j m_j = M`` (``relax_model_total``), ``T >= W m_j / b``
    (``relax_comm_server``, (3.4) case 1), ``T >= sum_j m_j / b``
    (``relax_comm_worker``, (3.4) case 2), for a cluster with one bandwidth ``b``."""
    import pyomo.environ as pyo

    b = float(inst.b[workers[0], servers[0]])
    W = len(workers)
    mdl = pyo.ConcreteModel(name="cruise_relax_comm")
    mdl.J = pyo.Set(initialize=servers)
    mdl.m = pyo.Var(mdl.J, domain=pyo.NonNegativeReals)
    mdl.T = pyo.Var(domain=pyo.NonNegativeReals)
    mdl.relax_model_total = pyo.Constraint(expr=sum(mdl.m[j] for j in mdl.J) == inst.model_size)
    mdl.relax_comm_server = pyo.Constraint(mdl.J, rule=lambda m, j: m.T >= W * m.m[j] / b)
    mdl.relax_comm_worker = pyo.Constraint(expr=mdl.T >= sum(mdl.m[j] for j in mdl.J) / b)
    mdl.obj = pyo.Objective(expr=mdl.T, sense=pyo.minimize)
    return mdl


def _min_epoch_lp(inst: CruiseInstance, workers: list[int], T: float):
    """LP: ``min C`` over real ``d >= 0`` with ``sum_i d_i = D`` (``relax_data_total``) and
    ``C >= d_i (C^i_proc + T / B)`` (``relax_epoch_time``, (3.1)-(3.4) with ``d_i / B``
    mini-batches and the communication time ``T`` fixed)."""
    import pyomo.environ as pyo

    B = inst.batch_size
    mdl = pyo.ConcreteModel(name="cruise_relax_epoch")
    mdl.I = pyo.Set(initialize=workers)
    mdl.d = pyo.Var(mdl.I, domain=pyo.NonNegativeReals)
    mdl.C = pyo.Var(domain=pyo.NonNegativeReals)
    mdl.relax_data_total = pyo.Constraint(expr=sum(mdl.d[i] for i in mdl.I) == inst.dataset_size)
    mdl.relax_epoch_time = pyo.Constraint(
        mdl.I, rule=lambda m, i: m.C >= (float(inst.p[i]) + T / B) * m.d[i]
    )
    mdl.obj = pyo.Objective(expr=mdl.C, sense=pyo.minimize)
    return mdl


def has_uniform_bandwidth(inst: CruiseInstance) -> bool:
    n = inst.num_machines
    off = inst.b[~np.eye(n, dtype=bool)]
    return bool(np.all(off == off[0]))


def solve_continuous_relaxation(inst: CruiseInstance, run: Run) -> dict:
    """Optimum of the continuous relaxation (real ``d``, ``m``; ``d_i / B`` mini-batches)
    on a cluster whose bandwidths are all equal (``proc_time`` may differ).

    With one bandwidth every worker has the same communication time ``T(m)``,
    and the epoch time ``max_i d_i (p_i + T(m) / B)`` is non-decreasing in ``T``
    for every ``d``; so the minimum over ``(d, m)`` is reached by first minimising
    ``T`` over ``m`` (an LP) and then the epoch time over ``d`` (an LP).  Roles are
    enumerated per machine type.  Returns ``{"proven", "value", "workers", "d", "m"}``;
    ``proven`` is ``False`` when an LP was not solved to optimality or the deadline
    stopped the enumeration (the value is then not a bound).

    Raises
    ------
    NotApplicable
        If the bandwidths differ (the decomposition is then not exact).
    """
    import pyomo.environ as pyo

    if not has_uniform_bandwidth(inst):
        raise NotApplicable("the continuous relaxation is solved exactly only when all bandwidths are equal")
    n = inst.num_machines
    best: dict = {"proven": True, "value": math.inf}
    for workers in role_candidates(inst, max_configs=10**9):
        if run.expired():
            run.cut("the enumeration of role splits")
            best["proven"] = False
            break
        servers = [j for j in range(n) if j not in set(workers)]
        with run.stage("build"):
            lp1 = _min_comm_lp(inst, workers, servers)
        o1 = run.solve_model(lp1, what="the communication LP")
        if o1.status != Status.OPTIMAL:
            best["proven"] = False
            continue
        T = float(pyo.value(lp1.T))
        with run.stage("build"):
            lp2 = _min_epoch_lp(inst, workers, T)
        o2 = run.solve_model(lp2, what="the epoch LP")
        if o2.status != Status.OPTIMAL:
            best["proven"] = False
            continue
        val = float(pyo.value(lp2.C))
        if val < best["value"]:
            best.update(
                value=val,
                workers=list(workers),
                d={i: float(pyo.value(lp2.d[i])) for i in workers},
                m={j: float(pyo.value(lp1.m[j])) for j in servers},
            )
    return best


@method(
    "cruise",
    "relaxation",
    kind="bound",
    uses_solver=True,
    description="Continuous relaxation (real d, m; d/B mini-batches) by two LPs; equal bandwidths only",
)
def solve_relaxation_method(inst: CruiseInstance, run: Run) -> Result:
    """The continuous relaxation's optimum, a proven lower bound on the epoch time
    (``n/a`` when bandwidths differ)."""
    out = solve_continuous_relaxation(inst, run)
    if not out["proven"] or not math.isfinite(out["value"]):
        # a relaxation value is a valid bound only when every LP was solved to optimality
        if run.details.get("deadline_cut"):
            return run.result(status=Status.TIME_LIMIT)
        return run.result(status=Status.ERROR, error="an LP of the relaxation was not solved to optimality")
    return run.result(
        bound=out["value"],
        workers=out["workers"], d={str(k): v for k, v in out["d"].items()},
        m={str(k): v for k, v in out["m"].items()},
    )
