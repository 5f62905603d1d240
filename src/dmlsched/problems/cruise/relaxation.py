"""Cruise's ``relaxation`` method: the continuous relaxation of Figure 3.2 on clusters
with one bandwidth, solved exactly by two LPs per role split
(:func:`solve_continuous_relaxation`, with the builders :class:`CommLp` and
:class:`EpochLp`; ``models/cruise.md``).  Pyomo is imported only inside the builders.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotApplicable
from ...kit import Run, method
from ...modeling import ModelBuilder
from ...result import Result, Status
from .baselines import role_candidates
from .instance import CruiseInstance


# ---------------------------------------------------------------------------
# the continuous relaxation on clusters with one bandwidth: two LP builders
class CommLp(ModelBuilder):
    """LP: the least per-mini-batch communication time ``T`` over real ``m >= 0``, for a
    cluster with one bandwidth ``b`` and the role split (``workers``, ``servers``)
    (``models/cruise.md``, the continuous relaxation)."""

    CONSTRAINTS = ("model_total", "comm_server", "comm_worker")

    def __init__(self, inst: CruiseInstance, workers: list[int], servers: list[int]) -> None:
        self.inst = inst
        self.workers = workers
        self.servers = servers
        self.b = float(inst.b[workers[0], servers[0]])

    def build(self):
        """Variables ``m[j]`` (servers), ``T``; the constraint families; ``min T``."""
        import pyomo.environ as pyo

        self.model = mdl = pyo.ConcreteModel(name="cruise_relax_comm")
        mdl.J = pyo.Set(initialize=self.servers)
        mdl.m = pyo.Var(mdl.J, domain=pyo.NonNegativeReals)
        mdl.T = pyo.Var(domain=pyo.NonNegativeReals)
        self.add_constraints()
        mdl.obj = pyo.Objective(expr=mdl.T, sense=pyo.minimize)
        return mdl

    def add_model_total(self) -> None:
        """``sum_j m_j = M`` (``relax_model_total``: the whole model on the servers;
        models/cruise.md, "Continuous relaxation")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.relax_model_total = pyo.Constraint(expr=sum(mdl.m[j] for j in mdl.J) == self.inst.model_size)

    def add_comm_server(self) -> None:
        """``T >= W m_j / b`` (``relax_comm_server``, (3.4) case 1)."""
        import pyomo.environ as pyo

        W, b = len(self.workers), self.b
        self.model.relax_comm_server = pyo.Constraint(self.model.J, rule=lambda m, j: m.T >= W * m.m[j] / b)

    def add_comm_worker(self) -> None:
        """``T >= sum_j m_j / b`` (``relax_comm_worker``, (3.4) case 2)."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.relax_comm_worker = pyo.Constraint(expr=mdl.T >= sum(mdl.m[j] for j in mdl.J) / self.b)

    def extract(self, values: Any) -> tuple[float, dict[int, float]]:
        """``(T, {server: m_j})`` of the solved model ``values``."""
        import pyomo.environ as pyo

        return float(pyo.value(values.T)), {j: float(pyo.value(values.m[j])) for j in self.servers}


class EpochLp(ModelBuilder):
    """LP: ``min C`` over real ``d >= 0`` with the communication time ``T`` fixed, for the
    workers of a role split (``models/cruise.md``, the continuous relaxation)."""

    CONSTRAINTS = ("data_total", "epoch_time")

    def __init__(self, inst: CruiseInstance, workers: list[int], T: float) -> None:
        self.inst = inst
        self.workers = workers
        self.T = T

    def build(self):
        """Variables ``d[i]`` (workers), ``C``; the constraint families; ``min C``."""
        import pyomo.environ as pyo

        self.model = mdl = pyo.ConcreteModel(name="cruise_relax_epoch")
        mdl.I = pyo.Set(initialize=self.workers)
        mdl.d = pyo.Var(mdl.I, domain=pyo.NonNegativeReals)
        mdl.C = pyo.Var(domain=pyo.NonNegativeReals)
        self.add_constraints()
        mdl.obj = pyo.Objective(expr=mdl.C, sense=pyo.minimize)
        return mdl

    def add_data_total(self) -> None:
        """``sum_i d_i = D`` (``relax_data_total``; models/cruise.md, "Continuous relaxation")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.relax_data_total = pyo.Constraint(expr=sum(mdl.d[i] for i in mdl.I) == self.inst.dataset_size)

    def add_epoch_time(self) -> None:
        """``C >= d_i (C^i_proc + T / B)`` (``relax_epoch_time``, (3.1)-(3.4) with ``d_i / B``
        mini-batches and ``T`` fixed)."""
        import pyomo.environ as pyo

        inst, T, B = self.inst, self.T, self.inst.batch_size
        self.model.relax_epoch_time = pyo.Constraint(
            self.model.I, rule=lambda m, i: m.C >= (float(inst.p[i]) + T / B) * m.d[i]
        )

    def extract(self, values: Any) -> tuple[float, dict[int, float]]:
        """``(C, {worker: d_i})`` of the solved model ``values``."""
        import pyomo.environ as pyo

        return float(pyo.value(values.C)), {i: float(pyo.value(values.d[i])) for i in self.workers}


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
            lp1 = CommLp(inst, workers, servers)
            lp1.build()
        o1 = run.solve_model(lp1.model, what="the communication LP")
        if o1.status != Status.OPTIMAL:
            best["proven"] = False
            continue
        T, m = lp1.extract(lp1.model)
        with run.stage("build"):
            lp2 = EpochLp(inst, workers, T)
            lp2.build()
        o2 = run.solve_model(lp2.model, what="the epoch LP")
        if o2.status != Status.OPTIMAL:
            best["proven"] = False
            continue
        val, d = lp2.extract(lp2.model)
        if val < best["value"]:
            best.update(value=val, workers=list(workers), d=d, m=m)
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
