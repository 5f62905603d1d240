"""Cruise exact MIP: against brute force, Gurobi, the spec's component names,
the lower bounds, and the recorded optima of the instance files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import SolverLimitError, Status
from dmlsched.problems.cruise.bounds import lower_bound, lower_bound_for_workers
from dmlsched.problems.cruise.brute import brute_force, compositions, count_configurations
from dmlsched.problems.cruise.models import CONSTRAINT_NAMES, VARIABLE_NAMES, build_model, solve_exact
from dmlsched.problems.cruise.strategies import cruise_instances
from dmlsched.tolerance import close, leq

SPEC = Path(__file__).resolve().parents[2] / "models" / "cruise.md"


def test_compositions_count():
    assert sorted(compositions(3, 2)) == [(0, 3), (1, 2), (2, 1), (3, 0)]
    assert sum(1 for _ in compositions(5, 3)) == 21


def test_spec_names_exist_in_model():
    text = SPEC.read_text()
    names = set(re.findall(r"`([A-Za-z_]+)(?:\[[^`]*\])?`", text))
    listed = [n for n in names if n in CONSTRAINT_NAMES or n in VARIABLE_NAMES]
    assert set(CONSTRAINT_NAMES) <= names, set(CONSTRAINT_NAMES) - names
    assert set(VARIABLE_NAMES) <= names
    inst = dmlsched.load(Path(__file__).resolve().parents[2] / "instances/cruise/heterogeneous-4.json")
    mdl = build_model(inst, 2)
    for n in listed:
        assert hasattr(mdl, n), n
    # every constraint family of the spec is listed, and the relaxation LPs' names too
    for n in ("relax_model_total", "relax_comm_server", "relax_comm_worker",
              "relax_data_total", "relax_epoch_time"):
        assert n in names


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(cruise_instances(max_machines=4, max_dataset=8, max_model=4, max_batch=3))
def test_exact_matches_brute_force(inst):
    if count_configurations(inst) > 20000:
        return
    _, opt = brute_force(inst)
    for opts in (dict(prune=False, cuts=False, symmetry=False), dict(prune=False, use_upper=False),
                 dict(prune=False), dict()):
        res = dmlsched.solve(inst, "exact", **opts)
        assert res.status == Status.OPTIMAL
        assert close(res.objective, opt), (opts, res.objective, opt)
        assert leq(res.lower_bound, res.objective)
    typed = dmlsched.solve(inst, "exact-typed")
    assert typed.status == Status.OPTIMAL and close(typed.objective, opt)
    assert leq(lower_bound(inst), opt)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(cruise_instances(min_machines=3, max_machines=5, max_dataset=30, max_model=8, max_batch=5))
def test_exact_against_gurobi(inst):
    from dmlsched.solvers import solver_available

    if not solver_available("gurobi"):
        pytest.skip("gurobi not available")
    h = solve_exact(inst, solver="highs", prune=False, use_upper=False)
    try:
        g = solve_exact(inst, solver="gurobi", prune=False, use_upper=False)
    except SolverLimitError:
        pytest.skip("model too large for Gurobi's size-limited licence")
    assert h.status == g.status == Status.OPTIMAL
    assert close(h.objective, g.objective, 1e-5)
    for W, e in h.per_w.items():  # per number of workers too (infeasible: W > D with cuts)
        assert e["status"] == g.per_w[W]["status"], W
        if "objective" in e:
            assert close(e["objective"], g.per_w[W]["objective"], 1e-5), W


def test_gurobi_licence_limit_is_reported(gurobi):
    from dmlsched.generate.cruise import homogeneous_cluster

    big = homogeneous_cluster("NMF", 32)
    mdl = build_model(big, 16)
    with pytest.raises(SolverLimitError):
        dmlsched.solvers.solve_model(mdl, "gurobi", time_limit=5)


@pytest.mark.slow
def test_instance_files_optima(instances_dir):
    files = sorted((instances_dir / "cruise").glob("*.json")) + sorted(
        (instances_dir / "counterexamples").glob("cruise-*.json"))
    for f in files:
        inst = dmlsched.load(f)
        methods = ["exact"] + ([] if inst.num_machines <= 8 or inst.is_homogeneous else ["exact-typed"])
        for method in methods:
            res = dmlsched.solve(inst, method, time_limit=60)
            assert res.status == Status.OPTIMAL, (f, method)
            assert close(res.objective, inst.expected["optimum"]), (f, method)


def test_time_limit_keeps_incumbent():
    from dmlsched.generate.cruise import heterogeneous_cluster

    inst = heterogeneous_cluster("NMF", 12, 4, jitter=0.2, scale=0.05, seed=1)
    res = dmlsched.solve(inst, "exact", time_limit=1.0)
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert res.solution is not None and leq(res.lower_bound, res.objective)


def test_lower_bound_per_workers_is_valid_on_brute_force():
    inst = dmlsched.load(Path(__file__).resolve().parents[2] / "instances/cruise/heterogeneous-4.json")
    for W in range(1, 4):
        best = min(
            dmlsched.evaluate(inst, c)
            for c in _configs_with_workers(inst, W)
        )
        assert leq(lower_bound_for_workers(inst, W), best)


def _configs_with_workers(inst, W):
    from itertools import combinations

    from dmlsched.problems.cruise.solution import CruiseConfig

    n = inst.num_machines
    for ws in combinations(range(n), W):
        ss = [j for j in range(n) if j not in ws]
        for dd in compositions(inst.dataset_size, W):
            for mm in compositions(inst.model_size, n - W):
                d = [0] * n
                m = [0] * n
                for i, x in zip(ws, dd):
                    d[i] = x
                for j, x in zip(ss, mm):
                    m[j] = x
                w = tuple(1 if i in ws else 0 for i in range(n))
                yield CruiseConfig(w=w, s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


@pytest.mark.slow
def test_typed_matches_mip_on_typed_cluster():
    from dmlsched.generate.cruise import heterogeneous_cluster

    inst = heterogeneous_cluster("LDA", 5, 2, scale=0.002)
    ty = dmlsched.solve(inst, "exact-typed")
    ex = dmlsched.solve(inst, "exact", time_limit=60)
    assert ex.status == Status.OPTIMAL
    assert close(ty.objective, ex.objective)


def test_typed_refuses_beyond_limit():
    from dmlsched.generate.cruise import random_instance

    res = dmlsched.solve(random_instance(12, seed=0), "exact-typed", limit=1000)
    assert res.status == Status.NOT_APPLICABLE and "limit" in res.details["error"]
