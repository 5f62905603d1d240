"""The GPU_Grouping MILP (HLAS paper, eqs. (4)-(6)) in Pyomo.

Sets ``N`` (jobs), ``M`` (GPUs), ``U`` (groups).  Variables: ``z[m,u]``
binary, ``pmax[n]``, ``pmin[n]``, ``t`` continuous.  The max/min of (5)-(6)
are linearised by ``pmax[n] >= P[n,u]`` and ``pmin[n] <= P[n,u]`` for all
``u``: at an optimum ``t = max_n (pmax[n] - pmin[n])`` equals the true
objective, because raising ``pmax`` or lowering ``pmin`` beyond the true
extremes only increases ``t``.  See ``models/gpu-grouping.md``.
"""

from __future__ import annotations

import pyomo.environ as pyo

from ...registry import register_method
from ...result import Result, Status
from ...solvers import solve_model
from .instance import GroupingInstance
from .solution import Grouping


def _assign(model: pyo.ConcreteModel) -> None:
    """(4) ``sum_u z[m,u] = 1`` for every GPU ``m``."""
    model.assign = pyo.Constraint(model.M, rule=lambda m, g: sum(m.z[g, u] for u in m.U) == 1)


def _group_speed(model: pyo.ConcreteModel) -> None:
    """``P[n,u] = sum_m z[m,u] s[n,m]``: the speed of job ``n`` on group ``u`` (inside (5)-(6))."""
    model.P = pyo.Expression(
        model.N, model.U, rule=lambda m, n, u: sum(m.s[n, g] * m.z[g, u] for g in m.M)
    )


def _pmax_def(model: pyo.ConcreteModel) -> None:
    """(5) ``pmax[n] >= P[n,u]`` for all ``u`` (linearised max)."""
    model.pmax_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmax[n] >= m.P[n, u])


def _pmin_def(model: pyo.ConcreteModel) -> None:
    """(6) ``pmin[n] <= P[n,u]`` for all ``u`` (linearised min)."""
    model.pmin_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmin[n] <= m.P[n, u])


def _range_def(model: pyo.ConcreteModel) -> None:
    """(4) objective epigraph ``t >= pmax[n] - pmin[n]`` for every job ``n``."""
    model.range_def = pyo.Constraint(model.N, rule=lambda m, n: m.t >= m.pmax[n] - m.pmin[n])


def _nonempty(model: pyo.ConcreteModel) -> None:
    """Every group gets at least one GPU (our reading; the paper leaves it implicit)."""
    model.nonempty = pyo.Constraint(model.U, rule=lambda m, u: sum(m.z[g, u] for g in m.M) >= 1)


def _symmetry(model: pyo.ConcreteModel) -> None:
    """Symmetry breaking: groups are numbered by their smallest GPU.

    ``z[m,u] = 0`` for ``u > m`` (``sym_upper``) and
    ``z[m,u] <= sum_{m' < m} z[m',u-1]`` for ``u >= 1`` (``sym_order``): a GPU may
    join group ``u`` only if a smaller GPU is already in group ``u-1``.  Exactly
    one labelling of every partition satisfies both.
    """
    model.sym_upper = pyo.Constraint(
        [(g, u) for g in model.M for u in model.U if u > g], rule=lambda m, g, u: m.z[g, u] == 0
    )
    model.sym_order = pyo.Constraint(
        [(g, u) for g in model.M for u in model.U if 1 <= u <= g],
        rule=lambda m, g, u: m.z[g, u] <= sum(m.z[h, u - 1] for h in range(g)),
    )


def build_model(inst: GroupingInstance, *, symmetry: bool = True) -> pyo.ConcreteModel:
    """The MILP of (4)-(6) with linearised max/min and symmetry breaking."""
    s = inst.s
    model = pyo.ConcreteModel(name="gpu_grouping")
    model.N = pyo.RangeSet(0, inst.num_jobs - 1)
    model.M = pyo.RangeSet(0, inst.num_gpus - 1)
    model.U = pyo.RangeSet(0, inst.groups - 1)
    model.s = pyo.Param(model.N, model.M, initialize=lambda m, n, g: float(s[n, g]))
    model.z = pyo.Var(model.M, model.U, domain=pyo.Binary)
    upper = float(s.sum(axis=1).max())
    model.pmax = pyo.Var(model.N, bounds=(0, upper))
    model.pmin = pyo.Var(model.N, bounds=(0, upper))
    model.t = pyo.Var(bounds=(0, upper))
    _assign(model)
    _group_speed(model)
    _pmax_def(model)
    _pmin_def(model)
    _range_def(model)
    _nonempty(model)
    if symmetry:
        _symmetry(model)
    model.obj = pyo.Objective(expr=model.t, sense=pyo.minimize)
    return model


def extract(inst: GroupingInstance, model: pyo.ConcreteModel) -> Grouping:
    """The grouping encoded by the model's ``z`` (largest ``z[m,u]`` per GPU)."""
    group = []
    for g in range(inst.num_gpus):
        vals = [pyo.value(model.z[g, u]) or 0.0 for u in range(inst.groups)]
        group.append(max(range(inst.groups), key=lambda u: (vals[u], -u)))
    return Grouping(tuple(group))


@register_method(
    "gpu-grouping",
    "exact",
    kind="exact",
    description="MILP of (4)-(6): linearised max/min, groups numbered by their smallest GPU",
    uses_solver=True,
)
def solve_exact(
    inst: GroupingInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    symmetry: bool = True,
    **options,
) -> Result:
    """Solve the grouping MILP; ``lower_bound`` is the solver's proven bound.

    Identical job rows are merged first (the objective is unchanged).
    Options: ``symmetry`` (default True) turns the symmetry-breaking constraints on.
    """
    work = inst.deduplicated()
    model = build_model(work, symmetry=symmetry)
    out = solve_model(model, solver, time_limit=time_limit, seed=seed)
    details = {"solver_objective": out.objective, "solver_bound": out.bound, "message": out.message,
               "merged_job_rows": inst.num_jobs - work.num_jobs}
    if not out.has_solution:
        return Result("gpu-grouping", "exact", out.status, solver=solver, details=details)
    sol = extract(work, model)
    lb = out.bound if out.bound is not None else None
    if out.status == Status.OPTIMAL and out.objective is not None:
        lb = out.objective if lb is None else min(lb, out.objective)
    return Result("gpu-grouping", "exact", out.status, bound=max(lb, 0.0) if lb is not None else None,
                  solution=sol, solver=solver, details=details)
