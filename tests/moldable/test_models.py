"""The exact time-indexed MIP: the paper's example, HiGHS vs Gurobi, brute force
on tiny instances, the grid-exactness rule, and the specification's names."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pyomo.environ as pyo
import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InvalidSolutionError, SolverLimitError, Status
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.models import build_model, choices, grid_exact
from dmlsched.problems.moldable.solution import MoldableSchedule, evaluate, validate
from dmlsched.problems.moldable.strategies import moldable_instances
from dmlsched.solvers import fits_gurobi_licence, solver_available

ROOT = Path(__file__).resolve().parents[2]


def test_paper_example_optimum(solver, instances_dir):
    inst = dmlsched.load(instances_dir / "moldable" / "paper-hpc2n-example.json")
    res = dmlsched.solve(inst, "exact", solver=solver)
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(inst.expected["objective"]["exact"])
    rep = dmlsched.check(inst, "moldable-equi", solver=solver)
    assert rep.ratio == pytest.approx(8 / 6) and rep.verdict == "holds"


def brute_force(inst: MoldableInstance) -> float:
    """Minimum total flow over integer-start moldable schedules, by enumerating
    (amount, start, GPU set) per task and keeping what the validator accepts."""
    per_task = []
    dmax = {k: max(inst.runtime(k, c.p) for c in choices(inst, k)) for k in range(inst.num_tasks)}
    amax = max(t.arrival for t in inst.tasks)
    for k, t in enumerate(inst.tasks):
        opts = []
        last = math.ceil(amax + sum(dmax[j] for j in range(inst.num_tasks) if j != k))
        for c in choices(inst, k):
            d = inst.runtime(k, c.p)
            for s in range(math.ceil(t.arrival), last + 1):
                for gs in itertools.combinations(range(inst.gpus), c.ngpus):
                    opts.append((k, float(s), float(s + d), gs, c.den if c.den > 1 else 1))
        per_task.append(opts)
    best = math.inf
    for combo in itertools.product(*per_task):
        flow = sum(seg[2] - inst.tasks[seg[0]].arrival for seg in combo)
        if flow >= best:
            continue
        try:
            validate(inst, MoldableSchedule.from_segments(list(combo)))
        except InvalidSolutionError:
            continue
        best = flow
    return best


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(moldable_instances(grid=True, max_gpus=2, max_tasks=2, max_volume=4))
def test_exact_matches_brute_force(inst):
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(brute_force(inst))


def test_brute_force_three_tasks_with_memory():
    # 1 GPU of memory 10; A (v 2, 1/2 share ok, mem 6), B (v 2, 1/2, mem 6) cannot share; C (v 2, mem 3)
    # s(1/2) = 2/3: sharing A with C gives both 3 s
    curve = SpeedupCurve(((0.5, 2 / 3), (1.0, 1.0)))
    tasks = (
        MoldableTask("A", "u", 0.0, 2.0, 2, 1, 6.0),
        MoldableTask("B", "u", 0.0, 2.0, 2, 1, 6.0),
        MoldableTask("C", "u", 1.0, 2.0, 2, 1, 3.0),
    )
    inst = MoldableInstance(gpus=1, gpu_memory=10.0, speedup=curve, tasks=tasks, preemption_min_remaining=0.0)
    assert grid_exact(inst)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(brute_force(inst))


@settings(max_examples=15, deadline=None)
@given(moldable_instances(grid=True, max_gpus=2, max_tasks=3, max_volume=8))
def test_highs_gurobi_agree_and_policies_not_better(inst):
    if not solver_available("gurobi"):
        pytest.skip("gurobi not available")
    m = build_model(inst)
    if not fits_gurobi_licence(m):
        pytest.skip("model too large for Gurobi's size-limited licence")
    try:
        g = dmlsched.solve(inst, "exact", solver="gurobi")
    except SolverLimitError:
        pytest.skip("model too large for Gurobi's size-limited licence")
    h = dmlsched.solve(inst, "exact", solver="highs")
    assert h.status == g.status == Status.OPTIMAL
    assert h.objective == pytest.approx(g.objective, rel=1e-6)
    for method in ("rigid-fcfs", "rigid-shortest", "moldable-equi", "moldable-prop"):
        # moldable policies produce integer-start moldable schedules here: never better than the optimum
        assert dmlsched.solve(inst, method).objective >= h.objective - 1e-6


def test_non_grid_instance_is_feasible_not_optimal():
    tasks = (MoldableTask("a", "u", 0.5, 3.0, 1, 2, 0.0), MoldableTask("b", "u", 0.0, 1.0, 1, 1, 0.0))
    inst = MoldableInstance(gpus=2, gpu_memory=1.0, speedup=SpeedupCurve(((1.0, 1.0), (2.0, 1.5))), tasks=tasks)
    assert not grid_exact(inst)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.FEASIBLE and res.lower_bound is None
    assert res.objective == pytest.approx(evaluate(inst, res.solution))


def test_spec_lists_every_component():
    text = (ROOT / "models" / "moldable.md").read_text()
    text = text[text.index("### 4.2"):text.index("### 4.3")]  # the MIP's component table
    names = set(re.findall(r"`([a-z_]+)`\s*\|", text))
    inst = dmlsched.load(ROOT / "instances" / "moldable" / "paper-hpc2n-example.json")
    m = build_model(inst)
    for n in ("assign_once", "gpu_count", "share_link", "gpu_share_capacity", "memory_link",
              "gpu_memory_capacity", "total_flow", "x", "a", "q", "r", "share_occ", "occ"):
        assert n in names, f"{n} missing from models/moldable.md"
    for n in names:
        assert hasattr(m, n), f"models/moldable.md lists {n!r}, the model has no such component"
        assert isinstance(getattr(m, n), (pyo.Constraint, pyo.Var, pyo.Objective, pyo.Expression))
