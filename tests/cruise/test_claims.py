"""The dissertation's claims about (3.5), checked (see proofs/cruise.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import Status
from dmlsched.problems.cruise.bounds import continuous_lower_bound, lower_bound
from dmlsched.problems.cruise.heuristics import closed_form, paper_value
from dmlsched.problems.cruise.instance import CruiseInstance
from dmlsched.problems.cruise.solution import evaluate, evaluate_continuous
from dmlsched.problems.cruise.strategies import cruise_homogeneous_instances, cruise_instances
from dmlsched.tolerance import close, leq

CE = Path(__file__).resolve().parents[2] / "instances" / "counterexamples"


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(cruise_homogeneous_instances(max_machines=6, max_dataset=40, max_model=10, max_batch=6))
def test_integer_claim_mended_rule_is_optimal(inst):
    """Even split with W chosen by the true epoch time equals the exact optimum
    (the MIP without pruning, so the bound is not used as the reference)."""
    cfg, _ = closed_form(inst, "exact")
    ex = dmlsched.solve(inst, "exact", prune=False)
    assert ex.status == Status.OPTIMAL
    assert close(evaluate(inst, cfg), ex.objective)
    assert close(lower_bound(inst), ex.objective)  # the bound is tight on homogeneous clusters
    # and (3.5) as printed is never better than the optimum (it may be worse)
    assert leq(ex.objective, dmlsched.solve(inst, "closed-form").objective)


@settings(max_examples=40, deadline=None)
@given(cruise_homogeneous_instances(max_machines=8, max_dataset=50, max_model=12, max_batch=6))
def test_continuous_claim_holds(inst):
    """(3.5) is the optimum of the continuous relaxation (exact by two LPs per role split)."""
    rel = dmlsched.solve(inst, "relaxation")
    assert rel.status == Status.BOUND and rel.details["bound_complete"]
    best = min(paper_value(inst, W) for W in range(1, inst.num_machines))
    assert close(best, rel.objective)
    assert close(best, continuous_lower_bound(inst))
    _, info = closed_form(inst, "paper")
    W, n = info["workers"], inst.num_machines
    w = [1] * W + [0] * (n - W)
    d = [inst.dataset_size / W] * W + [0.0] * (n - W)
    m = [0.0] * W + [inst.model_size / (n - W)] * (n - W)
    assert close(evaluate_continuous(inst, w, d, m), best)


@settings(max_examples=25, deadline=None)
@given(cruise_instances(max_machines=4, max_dataset=30, max_model=8, max_batch=5, matrix=False),
       st.sampled_from([0.5, 1.0, 4.0]))
def test_relaxation_bounds_the_integer_optimum(inst, bw):
    """One bandwidth for every machine (compute times may differ): the relaxation is a
    proven lower bound on the integer optimum."""
    one_bw = CruiseInstance(inst.proc_time, inst.dataset_size, inst.model_size, inst.batch_size,
                            machine_bandwidth=(bw,) * inst.num_machines)
    rel = dmlsched.solve(one_bw, "relaxation")
    assert rel.status == Status.BOUND
    ex = dmlsched.solve(one_bw, "exact")
    assert leq(rel.objective, ex.objective)


def test_relaxation_refuses_unequal_bandwidths():
    inst = dmlsched.load(Path(__file__).resolve().parents[2] / "instances/cruise/heterogeneous-4.json")
    rel = dmlsched.solve(inst, "relaxation")
    assert rel.status == Status.NOT_APPLICABLE and "bandwidths" in rel.details["error"]


@pytest.mark.parametrize("name", ["cruise-closed-form-fractional-data.json", "cruise-closed-form-ceil.json",
                                  "cruise-closed-form-LDA-32.json"])
def test_counterexamples_to_integer_claim(name):
    inst = dmlsched.load(CE / name)
    assert inst.is_homogeneous
    cf = dmlsched.solve(inst, "closed-form")
    ex = dmlsched.solve(inst, "exact")
    assert ex.status == Status.OPTIMAL
    assert close(cf.objective, inst.expected["objective"]["closed-form"])
    assert close(ex.objective, inst.expected["optimum"])
    assert cf.objective > ex.objective * (1 + 1e-6)
    rep = dmlsched.compare(inst, cf, ex)
    assert rep.verdict == "violated" and rep.bound == 1.0
    # the mended rule fixes it
    assert close(dmlsched.solve(inst, "closed-form", select="exact").objective, ex.objective)


def test_closed_form_refuses_heterogeneous():
    inst = dmlsched.load(Path(__file__).resolve().parents[2] / "instances/cruise/heterogeneous-4.json")
    res = dmlsched.solve(inst, "closed-form")
    assert res.status == Status.NOT_APPLICABLE and res.solution is None
    assert "homogeneous" in res.details["error"]
    rep = dmlsched.check(inst, "closed-form")
    assert rep.verdict == "n/a"
