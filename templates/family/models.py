r"""Template family exact model: the disjunctive MIP of ``1 || sum_j w_j C_j``.

With ``P = sum_j p_j`` and a binary ``x[i,k]`` per pair ``i < k`` (1: ``i``
before ``k``)::

    (1) minimise  sum_j w_j (S_j + p_j)
    (2) 0 <= S_j <= P - p_j                      (some optimal schedule has no idle time)
    (3) S_k >= S_i + p_i - P (1 - x[i,k])        (i before k)
    (4) S_i >= S_k + p_k - P x[i,k]              (k before i)

The pattern to copy: Pyomo is imported inside the functions only (``import
dmlsched`` stays fast); each constraint family is its own small function whose
docstring names its equation; :func:`build_model` assembles them and
:func:`extract` reads the solution; the method asks ``run.require`` before
building and solves through ``run.solve_model`` (HiGHS or Gurobi, by the
remaining deadline, with the seed).  A real family states its model in
``models/<family>.md``.
"""

from __future__ import annotations

from typing import Any

from dmlsched.kit import Run, method
from dmlsched.result import Result

from .bounds import lower_bound
from .instance import PROBLEM, TemplateInstance
from .solution import TemplateSchedule

#: rough memory of one model component (variable or constraint) in Pyomo
BYTES_PER_COMPONENT = 2_000.0


def _before(model: Any) -> None:
    """(3) ``S_k >= S_i + p_i - P (1 - x[i,k])``: ``i`` first when ``x[i,k] = 1``."""
    import pyomo.environ as pyo

    model.before = pyo.Constraint(
        model.PAIRS, rule=lambda m, i, k: m.S[k] >= m.S[i] + m.p[i] - m.P * (1 - m.x[i, k]))


def _after(model: Any) -> None:
    """(4) ``S_i >= S_k + p_k - P x[i,k]``: ``k`` first when ``x[i,k] = 0``."""
    import pyomo.environ as pyo

    model.after = pyo.Constraint(model.PAIRS, rule=lambda m, i, k: m.S[i] >= m.S[k] + m.p[k] - m.P * m.x[i, k])


def build_model(inst: TemplateInstance) -> Any:
    """The MIP (1)-(4)."""
    import pyomo.environ as pyo

    n, p, w = inst.num_jobs, inst.p, inst.w
    big = float(sum(p))
    model = pyo.ConcreteModel(name=PROBLEM)
    model.J = pyo.RangeSet(0, n - 1)
    model.PAIRS = pyo.Set(initialize=[(i, k) for i in range(n) for k in range(i + 1, n)], dimen=2)
    model.p = pyo.Param(model.J, initialize=lambda m, j: float(p[j]))
    model.P = pyo.Param(initialize=big)
    model.S = pyo.Var(model.J, bounds=lambda m, j: (0.0, big - p[j]))  # (2)
    model.x = pyo.Var(model.PAIRS, domain=pyo.Binary)
    _before(model)
    _after(model)
    model.obj = pyo.Objective(expr=sum(w[j] * (model.S[j] + p[j]) for j in range(n)), sense=pyo.minimize)  # (1)
    return model


def extract(inst: TemplateInstance, model: Any) -> TemplateSchedule:
    """The schedule of the model's start times (the validator judges it)."""
    import pyomo.environ as pyo

    return TemplateSchedule(tuple(float(pyo.value(model.S[j])) for j in range(inst.num_jobs)))


@method(PROBLEM, "exact", kind="exact", uses_solver=True,
        description="Disjunctive MIP (1)-(4), HiGHS or Gurobi")
def solve_exact(inst: TemplateInstance, run: Run) -> Result:
    """The MIP's optimum; its bound is the tightest of the solver's and :func:`~.bounds.lower_bound`."""
    n = inst.num_jobs
    pairs = n * (n - 1) // 2
    run.require(memory_bytes=BYTES_PER_COMPONENT * (n + 3 * pairs), what="the disjunctive MIP")  # before allocating
    with run.stage("build"):
        model = build_model(inst)
    out = run.solve_model(model, what="the disjunctive MIP")
    sol = None
    if out.has_solution:
        with run.stage("extract"):
            sol = extract(inst, model)
    return run.result(solution=sol, bound=[out.bound, lower_bound(inst)], outcome=out, binaries=pairs)
