"""Cruise exact methods: both MIP formulations against brute force (by machines
and by types), HiGHS against Gurobi, the spec's component names, the proven
bounds, the deadline, and refusals that read as a person expects."""

from __future__ import annotations

import re
from itertools import combinations, product
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

import dmlsched
from dmlsched import SolverLimitError, Status
from dmlsched.budget import Budget
from dmlsched.generate.cruise import heterogeneous_cluster, homogeneous_cluster, random_instance
from dmlsched.problems.cruise.bounds import lower_bound, lower_bound_for_workers
from dmlsched.problems.cruise.bruteforce import brute_force, compositions, count_configurations, solve_by_types
from dmlsched.problems.cruise.models import (
    CONSTRAINT_NAMES,
    COUNT_CONSTRAINT_NAMES,
    COUNT_VARIABLE_NAMES,
    VARIABLE_NAMES,
    TypeData,
    build_count_model,
    build_model,
    count_vector_bound,
)
from dmlsched.problems.cruise.solution import CruiseConfig, evaluate
from dmlsched.problems.cruise.strategies import cruise_instances, cruise_typed_instances
from dmlsched.solvers import solver_available
from dmlsched.tolerance import close, leq

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "models" / "cruise.md"
HETERO4 = ROOT / "instances" / "cruise" / "heterogeneous-4.json"


def test_compositions_count():
    assert sorted(compositions(3, 2)) == [(0, 3), (1, 2), (2, 1), (3, 0)]
    assert sum(1 for _ in compositions(5, 3)) == 21


def test_spec_names_exist_in_models():
    text = SPEC.read_text()
    names = set(re.findall(r"`([A-Za-z_]+)(?:\[[^`]*\])?`", text))
    for group in (CONSTRAINT_NAMES, VARIABLE_NAMES, COUNT_CONSTRAINT_NAMES, COUNT_VARIABLE_NAMES):
        assert set(group) <= names, set(group) - names
    inst = dmlsched.load(HETERO4)
    mdl = build_model(inst, 2)
    for n in CONSTRAINT_NAMES + VARIABLE_NAMES:
        assert hasattr(mdl, n), n
    typed = dmlsched.load(ROOT / "instances" / "cruise" / "nmf-28+4-scale0.1.json")
    cm = build_count_model(typed, (19, 4), upper=9.0)
    for n in COUNT_CONSTRAINT_NAMES + COUNT_VARIABLE_NAMES:
        assert hasattr(cm, n), n
    for n in ("relax_model_total", "relax_comm_server", "relax_comm_worker", "relax_data_total", "relax_epoch_time"):
        assert n in names


def _configs_with_counts(inst, counts):
    """Every configuration whose number of workers per machine type is ``counts``."""
    types = inst.machine_types
    n = inst.num_machines
    pools = [list(combinations(g, c)) for g, c in zip(types, counts)]
    for pick in product(*pools):
        ws = sorted(i for grp in pick for i in grp)
        ss = [j for j in range(n) if j not in ws]
        for dd in compositions(inst.dataset_size, len(ws)):
            for mm in compositions(inst.model_size, len(ss)):
                d, m = [0] * n, [0] * n
                for i, x in zip(ws, dd):
                    d[i] = x
                for j, x in zip(ss, mm):
                    m[j] = x
                w = tuple(1 if i in ws else 0 for i in range(n))
                yield CruiseConfig(w=w, s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(cruise_instances(max_machines=4, max_dataset=8, max_model=4, max_batch=3))
def test_exact_matches_brute_force(inst):
    assume(count_configurations(inst) <= 20000)
    cfg, opt, complete = brute_force(inst)
    assert complete and cfg is not None
    for opts in (dict(prune=False, cuts=False, symmetry=False), dict(prune=False, incumbent_cut=False),
                 dict(prune=False), dict()):
        for formulation in ("machines", "types"):
            res = dmlsched.solve(inst, "exact", formulation=formulation, **opts)
            assert res.status == Status.OPTIMAL, (formulation, opts)
            assert close(res.objective, opt), (formulation, opts, res.objective, opt)
            assert leq(res.lower_bound, res.objective)
    typed = dmlsched.solve(inst, "brute-force", space="types")
    assert typed.status == Status.OPTIMAL and close(typed.objective, opt)
    assert leq(lower_bound(inst), opt)


def test_a_spent_budget_stops_both_enumerations_and_records_the_cut():
    """Both enumerations ask ``budget.stop()`` (every 4,096 configurations; before each role
    split), return the best configuration so far as incomplete, and record the cut on the budget."""
    inst = dmlsched.load(ROOT / "instances" / "cruise" / "random-6.json")
    cuts: list[str] = []
    cfg, val, complete = brute_force(inst, max_candidates=10**8, budget=Budget(0.0, on_cut=cuts.append))
    assert not complete and cfg is not None and close(val, evaluate(inst, cfg))
    cfg, val, complete = solve_by_types(inst, budget=Budget(0.0, on_cut=cuts.append))
    assert not complete and close(val, evaluate(inst, cfg))
    assert cuts == ["the enumeration of configurations", "the enumeration of type splits"]
    _, opt, complete = solve_by_types(inst, budget=Budget(None, on_cut=cuts.append))
    assert complete and leq(opt, val) and len(cuts) == 2


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(cruise_typed_instances(max_types=3, max_per_type=3, max_dataset=10, max_model=5, max_batch=3))
def test_types_formulation_matches_brute_force_on_typed_clusters(inst):
    assume(count_configurations(inst) <= 60000)
    _, opt, complete = brute_force(inst)
    assert complete
    for opts in (dict(), dict(prune=False, incumbent_cut=False), dict(prune=False, cuts=False, incumbent_cut=False)):
        ty = dmlsched.solve(inst, "exact", formulation="types", **opts)
        assert ty.status == Status.OPTIMAL and close(ty.objective, opt), (opts, ty.objective, opt)
    ma = dmlsched.solve(inst, "exact", formulation="machines")
    assert ma.status == Status.OPTIMAL and close(ma.objective, opt)


@settings(max_examples=25, deadline=None)
@given(cruise_typed_instances(max_types=3, max_per_type=2, max_dataset=6, max_model=4, max_batch=3))
def test_count_vector_bound_is_valid(inst):
    """The bound of every worker-count vector is <= every configuration with those counts."""
    assume(count_configurations(inst) <= 5000)
    td = TypeData.of(inst)
    checked = 0
    for x in product(*(range(k + 1) for k in td.n)):
        if not 1 <= sum(x) <= inst.num_machines - 1:
            continue
        best = min(dmlsched.evaluate(inst, c) for c in _configs_with_counts(inst, x))
        assert leq(count_vector_bound(inst, td, x), best), x
        checked += 1
    assert checked >= 1


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(cruise_instances(min_machines=3, max_machines=5, max_dataset=30, max_model=8, max_batch=5))
def test_exact_highs_and_gurobi_agree(inst):
    if not solver_available("gurobi"):
        pytest.skip("gurobi not available")
    for formulation in ("machines", "types"):
        h = dmlsched.solve(inst, "exact", formulation=formulation, prune=False, incumbent_cut=False)
        try:
            g = dmlsched.solve(inst, "exact", solver="gurobi", formulation=formulation, prune=False,
                               incumbent_cut=False)
        except SolverLimitError:
            continue
        assert h.status == g.status == Status.OPTIMAL
        assert close(h.objective, g.objective, 1e-5), formulation


@pytest.mark.slow
def test_types_model_agrees_across_solvers_on_the_28_plus_4_cluster(gurobi):
    inst = dmlsched.load(ROOT / "instances" / "cruise" / "nmf-28+4-scale0.1.json")
    h = dmlsched.solve(inst, "exact", formulation="types")
    g = dmlsched.solve(inst, "exact", formulation="types", solver="gurobi")
    assert h.status == g.status == Status.OPTIMAL
    assert close(h.objective, inst.expected["optimum"]) and close(g.objective, inst.expected["optimum"])


def test_gurobi_licence_limit_is_reported(gurobi):
    big = homogeneous_cluster(app="NMF", num_machines=32)
    mdl = build_model(big, 16)
    with pytest.raises(SolverLimitError):
        dmlsched.solvers.solve_model(mdl, "gurobi")  # refused at the hand-over


def test_deadline_holds_for_the_whole_method_and_keeps_the_incumbent():
    """Distinct machines (the machines formulation), a limit far below what the
    MIPs need: the method returns by the deadline with a valid incumbent."""
    inst = heterogeneous_cluster(app="NMF", num_slow=12, num_fast=4, jitter=0.2, scale=0.05, seed=1)
    # how far past the deadline it returns is measured by benchmarks/deadlines.py (cruise/exact rows of
    # benchmarks/deadlines.md), never asserted here: a busy machine can stretch any wall-clock bound
    res = dmlsched.solve(inst, "exact", time_limit=1.0)
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert res.solution is not None and leq(res.lower_bound, res.objective)
    if res.status == Status.FEASIBLE:
        assert not res.reproducible and res.details["deadline_cut"]


def test_lower_bound_per_workers_is_valid_on_brute_force():
    inst = dmlsched.load(HETERO4)
    for W in range(1, 4):
        best = min(dmlsched.evaluate(inst, c) for c in _configs_with_workers(inst, W))
        assert leq(lower_bound_for_workers(inst, W), best)


def _configs_with_workers(inst, W):
    n = inst.num_machines
    for ws in combinations(range(n), W):
        ss = [j for j in range(n) if j not in ws]
        for dd in compositions(inst.dataset_size, W):
            for mm in compositions(inst.model_size, n - W):
                d, m = [0] * n, [0] * n
                for i, x in zip(ws, dd):
                    d[i] = x
                for j, x in zip(ss, mm):
                    m[j] = x
                w = tuple(1 if i in ws else 0 for i in range(n))
                yield CruiseConfig(w=w, s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


def test_brute_force_refusal_reads_as_a_person_expects():
    res = dmlsched.solve(random_instance(num_machines=12, seed=0), "brute-force", space="machines")
    assert res.status == Status.NOT_APPLICABLE
    msg = res.details["error"]
    assert "x 10^" in msg and not re.search(r"\d{9,}", msg), msg
    typed = dmlsched.solve(random_instance(num_machines=12, seed=0), "brute-force", space="types", max_candidates=1000)
    assert typed.status == Status.NOT_APPLICABLE and "max_candidates = 1,000" in typed.details["error"]


def test_types_formulation_refuses_too_many_count_vectors():
    inst = random_instance(num_machines=24, seed=0)  # 24 distinct machines: 2^24 count vectors
    res = dmlsched.solve(inst, "exact", formulation="types")
    assert res.status == Status.NOT_APPLICABLE and "count vectors" in res.details["error"]
    assert dmlsched.get_method("cruise", "exact").options  # auto then picks the machines formulation
    auto = dmlsched.solve(inst, "exact", time_limit=0.5)
    assert auto.details["formulation"] == "machines"


def test_auto_formulation_follows_the_machine_types():
    assert dmlsched.solve(dmlsched.load(HETERO4), "exact").details["formulation"] == "machines"
    typed = dmlsched.load(ROOT / "instances" / "cruise" / "nmf-28+4-scale0.1.json")
    res = dmlsched.solve(typed, "exact")
    assert res.details["formulation"] == "types" and res.status == Status.OPTIMAL
    assert res.details["count_vectors"] == 29 * 5 - 2
