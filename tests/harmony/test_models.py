"""Exhaustive search (brute-force) against plain enumeration, the MILP against it (HiGHS and
Gurobi), the paper's Oracle at scale, instance files."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings

import dmlsched
import dmlsched.strategies as s
from dmlsched import SolverLimitError
from dmlsched.generate.harmony import evaluation_workload, sample_workload
from dmlsched.problems.harmony.bruteforce import bell, set_partitions, subset_values
from dmlsched.problems.harmony.bruteforce import brute_force as exhaustive
from dmlsched.problems.harmony.heuristics import _place_rest, group_prefix, schedule
from dmlsched.problems.harmony.models import build_model
from dmlsched.problems.harmony.solution import HarmonySolution, evaluate, group_stats
from dmlsched.problems.harmony.strategies import harmony_instances
from dmlsched.solvers import solver_available

from .conftest import ROOT, harmony_files

BELL = [1, 1, 2, 5, 15, 52, 203, 877]


@pytest.mark.parametrize("n", range(8))
def test_set_partitions_counts_and_distinct(n):
    parts = list(set_partitions(n))
    assert len(parts) == BELL[n]
    canon = {tuple(sorted(tuple(b) for b in p)) for p in parts}
    assert len(canon) == len(parts)
    for p in parts:
        assert sorted(j for b in p for j in b) == list(range(n))


def test_bell_numbers():
    assert [bell(n) for n in range(8)] == BELL
    assert bell(80) > 10**85


def plain_enumeration(inst) -> float:
    """Every labelling of jobs with groups x every machine vector with sum <= M."""
    n, big_m = inst.num_jobs, inst.machines
    best = 0.0
    for labels in itertools.product(range(n), repeat=n):
        blocks: dict[int, list[int]] = {}
        for j, b in enumerate(labels):
            blocks.setdefault(b, []).append(j)
        groups = tuple(tuple(v) for v in blocks.values())
        for ms in itertools.product(range(1, big_m + 1), repeat=len(groups)):
            if sum(ms) <= big_m:
                best = max(best, evaluate(inst, HarmonySolution(groups, ms)))
    return best


@settings(max_examples=40, deadline=None)
@given(harmony_instances(max_jobs=4, max_machines=4))
def test_brute_force_equals_plain_enumeration(inst):
    sol, u, _, complete = exhaustive(inst)
    assert complete
    dmlsched.validate(inst, sol)
    assert evaluate(inst, sol) == pytest.approx(u, rel=1e-12)
    assert u == pytest.approx(plain_enumeration(inst), rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(harmony_instances(max_jobs=6, max_machines=8))
def test_brute_force_dominates_oracle_and_harmony(inst):
    """The exhaustive optimum >= the paper's Oracle (every prefix x every n_G, the rest placed by
    the arrival rule) >= Harmony under every admission and L6 reading: Harmony's decision (its
    prefix, its n_G*, then the same arrival rule) is one of the Oracle's candidates (same
    Algorithm 2 and allocation).  space='groups' (all jobs x every n_G) contains admission='all'."""
    b = dmlsched.solve(inst, "brute-force")
    o = dmlsched.solve(inst, "oracle")
    g = dmlsched.solve(inst, "oracle", space="groups")
    assert b.status == dmlsched.Status.OPTIMAL
    assert b.objective >= o.objective - 1e-12 and o.objective >= g.objective - 1e-12
    for rule in ("aggregate", "per-job"):
        for admission in ("first-stop", "best-prefix", "all"):
            h = dmlsched.solve(inst, "harmony", group_rule=rule, admission=admission)
            assert o.objective >= h.objective - 1e-12, (rule, admission)
        assert g.objective >= dmlsched.solve(inst, "harmony", group_rule=rule, admission="all").objective - 1e-12
    assert sum(b.solution.machines) == inst.machines  # Lemma 1: all machines are used at an optimum found first


@settings(max_examples=40, deadline=None)
@given(harmony_instances(min_jobs=2, max_jobs=12, max_machines=16))
def test_oracle_contains_harmonys_default_decision(inst):
    """Beyond brute force's reach: the Oracle's static U >= Harmony's default (first-stop) on
    instances up to 12 jobs, and its candidate with Harmony's prefix and n_G* is Harmony's grouping."""
    o = dmlsched.solve(inst, "oracle")
    h = dmlsched.solve(inst, "harmony")
    assert o.objective >= h.objective - 1e-12
    sch = schedule(inst)
    cand = group_prefix(inst, list(range(sch.admitted)), n_groups=sch.n_groups)
    _place_rest(inst, cand, list(range(sch.admitted, inst.num_jobs)))
    assert cand.groups == sch.groups and cand.machines == sch.machines


def test_brute_force_refusal_reads_as_a_person_expects(two_jobs):
    res = dmlsched.solve(two_jobs, "brute-force", max_candidates=1)
    assert res.status == dmlsched.Status.NOT_APPLICABLE and "max_candidates = 1" in res.details["error"]
    big = dmlsched.solve(evaluation_workload(seed=0), "brute-force")
    assert big.status == dmlsched.Status.NOT_APPLICABLE
    assert "x 10^" in big.details["error"] and not re.search(r"\d{9,}", big.details["error"])


@pytest.mark.parametrize("path", harmony_files(), ids=lambda p: p.name)
def test_files_expected_values(path):
    inst = dmlsched.load(path)
    b = dmlsched.solve(inst, "brute-force")
    h = dmlsched.solve(inst, "harmony")
    assert b.objective == pytest.approx(inst.expected["optimum"], abs=1e-9)
    assert h.objective == pytest.approx(inst.expected["objective"]["harmony"], abs=1e-9)


def _milp_equals_brute_force(inst, solver):
    try:
        res = dmlsched.solve(inst, "exact", solver=solver)  # small: no limit
    except SolverLimitError:
        pytest.skip("model exceeds Gurobi's size-limited licence")
    assert res.status == dmlsched.Status.OPTIMAL
    _, u, _, _ = exhaustive(inst)
    assert res.objective == pytest.approx(u, abs=1e-6)
    assert res.upper_bound >= u - 1e-6  # the solver's bound on the maximum
    assert res.details["solver_objective"] == pytest.approx(res.objective, abs=1e-6)


@pytest.mark.parametrize(
    "name", ["two-jobs-hand.json", "network-heavy-split.json"]
)
def test_milp_matches_brute_force_on_files(solver, name):
    _milp_equals_brute_force(dmlsched.load(ROOT / "instances" / "harmony" / name), solver)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["five-jobs.json", "eval-sample-5j-6m.json"])
def test_milp_matches_brute_force_on_larger_files(solver, name):
    _milp_equals_brute_force(dmlsched.load(ROOT / "instances" / "harmony" / name), solver)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(harmony_instances(max_jobs=4, max_machines=4))
def test_milp_matches_brute_force_property(inst):
    _milp_equals_brute_force(inst, "highs")


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(harmony_instances(max_jobs=4, max_machines=4))
def test_gurobi_agrees_with_highs(inst):
    if not solver_available("gurobi"):
        pytest.skip("gurobi not available")
    try:
        g = dmlsched.solve(inst, "exact", solver="gurobi")
    except SolverLimitError:
        pytest.skip("model exceeds Gurobi's size-limited licence")
    h = dmlsched.solve(inst, "exact", solver="highs")
    assert g.objective == pytest.approx(h.objective, abs=1e-6)


def test_spec_names_exist_in_model(two_jobs):
    """Every component named in models/harmony.md's tables exists in the model."""
    text = (ROOT / "models" / "harmony.md").read_text(encoding="utf-8")
    text = text[text.index("## Exact MILP"):]
    names = set(re.findall(r"^\|\s*`([A-Za-z_][A-Za-z0-9_]*)`\s*\|", text, flags=re.M))
    assert {"x", "y", "assign_once", "cpu_term", "utilisation"} <= names
    mdl = build_model(two_jobs)
    for name in sorted(names):
        assert mdl.find_component(name) is not None, name


@settings(max_examples=40, deadline=None)
@given(harmony_instances(max_jobs=4, max_machines=7))
def test_subset_values_match_the_evaluator(inst):
    vals = subset_values(inst)
    for mask, v in vals.items():
        jobs = [j for j in range(inst.num_jobs) if mask >> j & 1]
        for m in range(1, inst.machines + 1):
            assert v[m] == pytest.approx(m * group_stats(inst, jobs, m).u, rel=1e-12)


def test_strategies_reexported():
    assert {"harmony_instances", "harmony_instance_dicts", "harmony_dicts_mutated"} <= set(s.__all__)


@pytest.mark.slow
def test_milp_time_limit_keeps_incumbent_and_bound():
    inst = sample_workload(seed=1, num_jobs=7, num_machines=9)
    res = dmlsched.solve(inst, "exact", time_limit=1)
    assert res.status in (dmlsched.Status.FEASIBLE, dmlsched.Status.OPTIMAL, dmlsched.Status.TIME_LIMIT)
    u_opt = exhaustive(inst)[1]
    if res.solution is not None:
        assert res.objective <= u_opt + 1e-9
    if res.bound is not None:  # a proven upper bound on the maximum
        assert res.upper_bound == res.bound >= u_opt - 1e-6


def test_oracle_space_option_changes_what_it_searches():
    """space='prefixes' (default) searches every number of jobs x every n_G, the rest placed by the
    arrival rule, so it examines more decisions than 'groups' (every n_G on all jobs) and never
    finds less; it contains Harmony's decision under every admission, 'groups' the one of
    admission='all'."""
    inst = evaluation_workload(seed=0, num_jobs=20, num_machines=12)
    p = dmlsched.solve(inst, "oracle")
    g = dmlsched.solve(inst, "oracle", space="groups")
    assert g.details["decisions"] == g.details["decisions_planned"] == 12 and g.details["admitted"] == 20
    assert p.details["decisions"] == p.details["decisions_planned"] == sum(min(k, 12) for k in range(1, 21))
    assert p.details["space"] == "prefixes" and p.objective >= g.objective - 1e-12
    for admission in ("first-stop", "best-prefix", "all"):
        for rule in ("aggregate", "per-job"):
            assert p.objective >= dmlsched.solve(inst, "harmony", admission=admission,
                                                 group_rule=rule).objective - 1e-12
    assert g.objective >= dmlsched.solve(inst, "harmony", admission="all").objective - 1e-12
