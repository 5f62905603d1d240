"""The MILP of GPU_Grouping (HLAS paper, eqs. (4)-(6)).

* ``exact`` -- the MILP of (4)-(6) in Pyomo (HiGHS or Gurobi): binary
  ``z[m,u]`` per GPU (``formulation="binary"``, groups numbered by their
  smallest GPU) or integer counts ``y[k,u]`` of identical GPUs per group
  (``formulation="typed"``, the default).

The typed model on CP-SAT (``exact-cp``) is in :mod:`.cp`.
``models/gpu-grouping.md`` states both models and the type reduction and its
proof.  Pyomo is imported inside the builders only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...kit import Option, Run, method
from ...result import Result
from .instance import GroupingInstance
from .solution import Grouping

# ---------------------------------------------------------------------------
# the MILP (Pyomo)


def _assign(model: Any) -> None:
    """(4) ``sum_u z[m,u] = 1`` for every GPU ``m``."""
    import pyomo.environ as pyo

    model.assign = pyo.Constraint(model.M, rule=lambda m, g: sum(m.z[g, u] for u in m.U) == 1)


def _group_speed(model: Any) -> None:
    """``P[n,u] = sum_m z[m,u] s[n,m]``: the speed of job ``n`` on group ``u`` (inside (5)-(6))."""
    import pyomo.environ as pyo

    model.P = pyo.Expression(
        model.N, model.U, rule=lambda m, n, u: sum(m.s[n, g] * m.z[g, u] for g in m.M)
    )


def _pmax_def(model: Any) -> None:
    """(5) ``pmax[n] >= P[n,u]`` for all ``u`` (linearised max)."""
    import pyomo.environ as pyo

    model.pmax_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmax[n] >= m.P[n, u])


def _pmin_def(model: Any) -> None:
    """(6) ``pmin[n] <= P[n,u]`` for all ``u`` (linearised min)."""
    import pyomo.environ as pyo

    model.pmin_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmin[n] <= m.P[n, u])


def _range_def(model: Any) -> None:
    """(4) objective epigraph ``t >= pmax[n] - pmin[n]`` for every job ``n``."""
    import pyomo.environ as pyo

    model.range_def = pyo.Constraint(model.N, rule=lambda m, n: m.t >= m.pmax[n] - m.pmin[n])


def _nonempty(model: Any) -> None:
    """Every group gets at least one GPU (our reading; the paper leaves it implicit)."""
    import pyomo.environ as pyo

    model.nonempty = pyo.Constraint(model.U, rule=lambda m, u: sum(m.z[g, u] for g in m.M) >= 1)


def _symmetry(model: Any) -> None:
    """Symmetry breaking: groups are numbered by their smallest GPU.

    ``z[m,u] = 0`` for ``u > m`` (``sym_upper``) and
    ``z[m,u] <= sum_{m' < m} z[m',u-1]`` for ``u >= 1`` (``sym_order``): a GPU may
    join group ``u`` only if a smaller GPU is already in group ``u-1``.  Exactly
    one labelling of every partition satisfies both.
    """
    import pyomo.environ as pyo

    model.sym_upper = pyo.Constraint(
        [(g, u) for g in model.M for u in model.U if u > g], rule=lambda m, g, u: m.z[g, u] == 0
    )
    model.sym_order = pyo.Constraint(
        [(g, u) for g in model.M for u in model.U if 1 <= u <= g],
        rule=lambda m, g, u: m.z[g, u] <= sum(m.z[h, u - 1] for h in range(g)),
    )


def build_model(inst: GroupingInstance, *, symmetry: bool = True) -> Any:
    """The binary MILP of (4)-(6) with linearised max/min and symmetry breaking."""
    import pyomo.environ as pyo

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


def extract(inst: GroupingInstance, model: Any) -> Grouping:
    """The grouping encoded by the binary model's ``z`` (largest ``z[m,u]`` per GPU)."""
    import pyomo.environ as pyo

    group = []
    for g in range(inst.num_gpus):
        vals = [pyo.value(model.z[g, u]) or 0.0 for u in range(inst.groups)]
        group.append(max(range(inst.groups), key=lambda u: (vals[u], -u)))
    return Grouping(tuple(group))


# -- the typed MILP ---------------------------------------------------------------

#: the typed MILP orders groups by a mixed-radix code of their count vectors when
#: the code stays below this (exact integers in double precision, well scaled)
MAX_LEX_CODE = 10**6


def _typed_counts(model: Any) -> None:
    """(4) by type: ``sum_u y[k,u] = c_k`` for every type ``k`` (each GPU in one group)."""
    import pyomo.environ as pyo

    model.assign = pyo.Constraint(model.K, rule=lambda m, k: sum(m.y[k, u] for u in m.U) == m.c[k])


def _typed_group_speed(model: Any) -> None:
    """``P[n,u] = sum_k y[k,u] s[n,k]`` (the speed of job ``n`` on group ``u``)."""
    import pyomo.environ as pyo

    model.P = pyo.Expression(model.N, model.U, rule=lambda m, n, u: sum(m.s[n, k] * m.y[k, u] for k in m.K))


def _typed_nonempty(model: Any) -> None:
    """Every group gets at least one GPU."""
    import pyomo.environ as pyo

    model.nonempty = pyo.Constraint(model.U, rule=lambda m, u: sum(m.y[k, u] for k in m.K) >= 1)


def _typed_symmetry(model: Any, counts: tuple[int, ...]) -> None:
    """Groups in non-increasing order of their count vectors.

    With ``W_k = prod_{k' > k} (c_{k'} + 1)`` the code ``sum_k W_k y[k,u]`` is
    the mixed-radix number of the vector ``y[.,u]``, so ``code(u) >= code(u+1)``
    (``sym_order``) is the lexicographic order; used while the largest code is
    below :data:`MAX_LEX_CODE`.  Otherwise only the count of the first type is
    ordered (``y[0,u] >= y[0,u+1]``), a weaker but valid rule: sorting the
    groups by it is always possible.
    """
    import pyomo.environ as pyo

    w = [math.prod(c + 1 for c in counts[k + 1:]) for k in range(len(counts))]
    pairs = [u for u in model.U if u + 1 < len(model.U)]
    if math.prod(c + 1 for c in counts) <= MAX_LEX_CODE:
        model.sym_order = pyo.Constraint(pairs, rule=lambda m, u: sum(w[k] * m.y[k, u] for k in m.K)
                                         >= sum(w[k] * m.y[k, u + 1] for k in m.K))
    else:
        model.sym_order = pyo.Constraint(pairs, rule=lambda m, u: m.y[0, u] >= m.y[0, u + 1])


def build_typed_model(inst: GroupingInstance, *, symmetry: bool = True) -> Any:
    """The MILP on GPU types: integer ``y[k,u]`` GPUs of type ``k`` in group ``u``."""
    import pyomo.environ as pyo

    types = inst.gpu_types
    s = np.array(types.speeds, dtype=float)
    counts = types.counts
    model = pyo.ConcreteModel(name="gpu_grouping_typed")
    model.N = pyo.RangeSet(0, inst.num_jobs - 1)
    model.K = pyo.RangeSet(0, types.num_types - 1)
    model.U = pyo.RangeSet(0, inst.groups - 1)
    model.s = pyo.Param(model.N, model.K, initialize=lambda m, n, k: float(s[n, k]))
    model.c = pyo.Param(model.K, initialize=lambda m, k: counts[k])
    model.y = pyo.Var(model.K, model.U, domain=pyo.NonNegativeIntegers,
                      bounds=lambda m, k, u: (0, counts[k]))
    upper = float((s * np.array(counts)).sum(axis=1).max())
    model.pmax = pyo.Var(model.N, bounds=(0, upper))
    model.pmin = pyo.Var(model.N, bounds=(0, upper))
    model.t = pyo.Var(bounds=(0, upper))
    _typed_counts(model)
    _typed_group_speed(model)
    _pmax_def(model)
    _pmin_def(model)
    _range_def(model)
    _typed_nonempty(model)
    if symmetry:
        _typed_symmetry(model, counts)
    model.obj = pyo.Objective(expr=model.t, sense=pyo.minimize)
    return model


def extract_typed(inst: GroupingInstance, model: Any) -> Grouping:
    """The grouping of the typed model's counts (GPUs of a type dealt lowest index first)."""
    import pyomo.environ as pyo

    from .bruteforce import grouping_from_counts

    types = inst.gpu_types
    rows = tuple(tuple(int(round(pyo.value(model.y[k, u]) or 0.0)) for k in range(types.num_types))
                 for u in range(inst.groups))
    return grouping_from_counts(inst, rows)


@method(
    "gpu-grouping",
    "exact",
    kind="exact",
    uses_solver=True,
    options=[
        Option("formulation", str, "typed", "binary z[m,u] per GPU, or integer counts y[k,u] per GPU type",
               choices=("typed", "binary")),
        Option("symmetry", bool, True, "order the groups (remove the symmetry of group labels)"),
    ],
    description="MILP of (4)-(6): counts of identical GPUs per group (or binaries per GPU), linearised max/min",
)
def solve_exact(inst: GroupingInstance, run: Run) -> Result:
    """Solve the grouping MILP; its bound is the solver's proven bound.

    Identical job rows are merged first (the objective is unchanged).  The MILP
    is solved on speeds multiplied by a power of two that puts the greedy
    grouping's value near 1 (:func:`normalised`), so that the solver's absolute
    tolerances are relative ones at any magnitude of the speeds.
    """
    import dataclasses

    from ...normalize import SOLVER_RESOLUTION

    work = inst.deduplicated()
    typed = run.options["formulation"] == "typed"
    nv = (work.gpu_types.num_types if typed else work.num_gpus) * work.groups
    run.require(memory_bytes=2_000.0 * nv * max(1, work.num_jobs), what="the grouping MILP")
    with run.stage("hint"):
        from .heuristics import greedy_grouping

        run.incumbent(greedy_grouping(work, seed=run.seed, restarts=2, max_passes=20))
    norm, factor = normalised(work, run.best_value or 0.0)
    with run.stage("build"):
        build = build_typed_model if typed else build_model
        model = build(norm, symmetry=run.options["symmetry"])
    out = run.solve_model(model, what="the grouping MILP", defaults=MILP_TOLERANCES)
    # the solver's figures are in the normalised units: back to the instance's speeds (exact)
    out = dataclasses.replace(out, bound=None if out.bound is None else out.bound / factor,
                              objective=None if out.objective is None else out.objective / factor)
    run.objective_floor = SOLVER_RESOLUTION / factor
    sol = None
    if out.has_solution:
        with run.stage("extract"):
            sol = (extract_typed if typed else extract)(work, model)
    return run.result(solution=sol, bound=0.0, outcome=out, merged_job_rows=inst.num_jobs - work.num_jobs,
                      gpu_types=work.gpu_types.num_types, speed_factor=factor)


#: the normalised instance's largest group speed is kept below this
MAX_NORMALISED_SPEED = 2.0**30
#: solver tolerances of the grouping MILP (its models are small): with the default 1e-6 HiGHS
#: let t sit 1e-6 below max - min, then flagged its own optimum as infeasible ("Solve error")
#: on seven identical GPUs of speeds 2/3 and 2/5 in three groups (the referees' plain #42)
MILP_TOLERANCES = {"highs": {"mip_feasibility_tolerance": 1e-9},
                   "gurobi": {"IntFeasTol": 1e-9, "FeasibilityTol": 1e-9}}


def normalised(inst: GroupingInstance, incumbent: float) -> tuple[GroupingInstance, float]:
    """The instance with every speed times a power of two (exact: the same groupings are
    optimal, the objective is multiplied by the factor), chosen so that the incumbent's
    value (else the smallest speed) is of order one, where the solver's absolute
    tolerances (``1e-6``) are relative ones (:mod:`dmlsched.normalize`)."""
    from ...normalize import pow2, positive_min

    s = inst.s
    f = pow2(incumbent if incumbent > 0 else positive_min(s.ravel().tolist()))
    while float(s.sum(axis=1).max()) * f > MAX_NORMALISED_SPEED and f > 2.0**-200:
        f /= 2
    return GroupingInstance(speeds=tuple(tuple(v * f for v in row) for row in inst.speeds), groups=inst.groups,
                            name=inst.name), f


__all__ = ["build_model", "build_typed_model", "extract", "extract_typed", "solve_exact"]
