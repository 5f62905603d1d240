"""The Pyomo solve wrapper: status mapping, limits, Gurobi's licence."""

from __future__ import annotations

import pyomo.environ as pyo
import pytest

from dmlsched import SolverError, SolverLimitError, Status
from dmlsched.solvers import fits_gurobi_licence, model_size, solve_model


def knapsack(n: int) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(n)
    m.x = pyo.Var(m.I, within=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum((i % 7 + 1) * m.x[i] for i in m.I) <= n)
    m.obj = pyo.Objective(expr=sum((i % 5 + 1) * m.x[i] for i in m.I), sense=pyo.maximize)
    return m


def test_optimal_and_loaded(solver):
    m = knapsack(10)
    out = solve_model(m, solver)
    assert out.status == Status.OPTIMAL
    assert out.objective == pytest.approx(pyo.value(m.obj))
    assert out.bound == pytest.approx(out.objective)
    # brute force over 2^10
    items = [(i % 7 + 1, i % 5 + 1) for i in range(1, 11)]
    best = max(
        sum(v for k, (w, v) in enumerate(items) if mask >> k & 1)
        for mask in range(1 << 10)
        if sum(w for k, (w, v) in enumerate(items) if mask >> k & 1) <= 10
    )
    assert out.objective == pytest.approx(best)


def test_infeasible(solver):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x >= 2)
    m.o = pyo.Objective(expr=m.x)
    assert solve_model(m, solver).status == Status.INFEASIBLE


def test_unknown_solver():
    with pytest.raises(SolverError, match="unknown solver"):
        solve_model(knapsack(3), "cplex")


def test_gurobi_too_large_is_clear_error(gurobi):
    m = knapsack(2500)
    assert not fits_gurobi_licence(m)
    assert model_size(m)["variables"] == 2500
    with pytest.raises(SolverLimitError, match="too large"):
        solve_model(m, "gurobi")


def test_handoff_is_measured_inside_the_solver_call(solver):
    """The moment Pyomo hands the translated model to the solver is recorded, so a
    method's stages split Pyomo's translation ('handoff') from the solve."""
    out = solve_model(knapsack(200), solver)
    assert out.handoff_s is not None
    assert 0.0 <= out.handoff_s <= out.runtime_s
