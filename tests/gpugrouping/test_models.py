"""The binary and typed MILPs (models.py, HLAS paper eqs. (4)-(6)), checked with the
typed CP-SAT model against both brute forces and the recorded optima."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

import dmlsched
from dmlsched import SolverLimitError, Status
from dmlsched.generate.hlas import paper_grouping
from dmlsched.problems.gpugrouping import brute_force_grouping, brute_force_typed
from dmlsched.problems.gpugrouping.models import build_model, build_typed_model
from dmlsched.problems.gpugrouping.strategies import grouping_instances

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "instances" / "gpu-grouping").glob("*.json"))
EXACT = [("exact", {}), ("exact", {"formulation": "binary"}), ("exact-cp", {}), ("exact-cp", {"hint": False}),
         ("brute-force", {}), ("brute-force", {"space": "gpus"})]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_instance_files_reach_their_recorded_optimum(path):
    inst = dmlsched.load(path)
    opt = inst.expected["optimum"]
    _, v, _ = brute_force_grouping(inst)
    assert v == pytest.approx(opt, abs=1e-9)
    for name, opts in EXACT:
        res = dmlsched.solve(inst, name, **opts)
        assert res.status == Status.OPTIMAL, (name, opts)
        assert res.objective == pytest.approx(opt, abs=1e-6) and res.bound <= opt + 1e-9, (name, opts)
    g = dmlsched.solve(inst, "greedy")
    assert g.objective >= opt - 1e-9
    if "group" in inst.expected.get("facts", {}):
        res = dmlsched.solve(inst, "exact", formulation="binary")
        assert res.solution.canonical().group == tuple(inst.expected["facts"]["group"])


@settings(max_examples=25, deadline=None)
@given(grouping_instances(max_jobs=3, max_gpus=6, max_groups=3))
def test_exact_matches_brute_force(inst):
    _, v, _ = brute_force_grouping(inst)
    for name, opts in EXACT:
        res = dmlsched.solve(inst, name, **opts)
        assert res.status == Status.OPTIMAL, (name, opts)
        assert res.objective == pytest.approx(v, abs=1e-6), (name, opts)
        assert res.bound <= v + 1e-6
    g = dmlsched.solve(inst, "greedy")
    assert g.objective >= v - 1e-9  # no heuristic beats the optimum


@settings(max_examples=30, deadline=None)
@given(grouping_instances(max_jobs=3, max_gpus=8, max_groups=4, max_types=3))
def test_typed_models_match_set_partition_brute_force_with_identical_gpus(inst):
    """The reduction to type counts (models/gpu-grouping.md, "Grouping by type") keeps the
    optimum: every typed method equals the brute force over set partitions of the GPUs."""
    assume(inst.gpu_types.num_types < inst.num_gpus)  # some GPUs are identical
    _, v, _ = brute_force_grouping(inst)
    sol, vt, _ = brute_force_typed(inst)
    assert vt == pytest.approx(v, abs=1e-12)
    assert dmlsched.get_problem("gpu-grouping").evaluate(inst, sol) == pytest.approx(v, abs=1e-12)
    for name, opts in [("exact", {}), ("exact-cp", {}), ("exact-cp", {"symmetry": False})]:
        res = dmlsched.solve(inst, name, **opts)
        assert res.status == Status.OPTIMAL and res.objective == pytest.approx(v, abs=1e-6), (name, opts)


def test_symmetry_breaking_keeps_the_optimum():
    inst = dmlsched.load(ROOT / "instances" / "gpu-grouping" / "small_3x7_g3.json")
    opt = inst.expected["optimum"]
    for name, form in [("exact", "binary"), ("exact", "typed")]:
        a = dmlsched.solve(inst, name, formulation=form, symmetry=True)
        b = dmlsched.solve(inst, name, formulation=form, symmetry=False)
        assert a.objective == pytest.approx(b.objective, abs=1e-6) == pytest.approx(opt)
    a = dmlsched.solve(inst, "exact-cp", symmetry=False)
    assert a.objective == pytest.approx(opt)
    m = build_model(inst)
    assert len(m.sym_upper) + len(m.sym_order) > 0


def test_highs_and_gurobi_agree(solver):
    for path in FILES:
        inst = dmlsched.load(path)
        for form in ("binary", "typed"):
            try:
                res = dmlsched.solve(inst, "exact", solver=solver, formulation=form)
            except SolverLimitError:
                pytest.skip("model exceeds Gurobi's size-limited licence")
            assert res.status == Status.OPTIMAL
            assert res.objective == pytest.approx(inst.expected["optimum"], abs=1e-6)


def test_typed_model_proves_a_paper_setup_instance():
    """30 GPUs of 4 types (8/4/1/2 mix), 5 groups: the typed MILP (HiGHS) and the typed
    CP-SAT model prove the same optimum; the binary MILP only bounds it."""
    inst = paper_grouping(num_gpus=30, num_groups=5, gpu_mix={"V100": 8, "T4": 4, "K80": 1, "M60": 2})
    assert inst.gpu_types.counts == (16, 8, 2, 4)
    cp = dmlsched.solve(inst, "exact-cp", work_limit=20.0)  # CP-SAT deterministic seconds
    mip = dmlsched.solve(inst, "exact")
    assert cp.status == mip.status == Status.OPTIMAL
    assert cp.objective == pytest.approx(mip.objective, abs=1e-6)
    assert dmlsched.solve(inst, "greedy").objective >= cp.objective - 1e-9


def test_model_spec_names_exist_in_the_model():
    spec = (ROOT / "models" / "gpu-grouping.md").read_text()
    names = set(re.findall(r"`model\.(\w+)`", spec))
    assert {"assign", "pmax_def", "pmin_def", "range_def", "nonempty", "sym_upper", "sym_order"} <= names
    inst = dmlsched.load(FILES[0])
    binary = build_model(inst)
    typed = build_typed_model(inst)
    for name in names:
        assert hasattr(binary, name) or hasattr(typed, name), name
