"""lower-bound (models/hare-cp.md, section 5): every bound is at most the
optimum (brute force on tiny instances, exact-cp's proven optimum on larger
ones, and as a property over generated instances), on any slot grid; the
safe dual bound never exceeds the LP optimum whatever the duals; the LP beats
the critical path where jobs compete; the LP's order gives a valid schedule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from scipy.optimize import linprog

import dmlsched
from dmlsched import Status
from dmlsched.generate.hare import TESTBED, generate
from dmlsched.problems.hare import bounds as lb
from dmlsched.problems.hare import cp
from dmlsched.problems.hare.instance import HareInstance, HareJob
from dmlsched.problems.hare.solution import validate
from dmlsched.problems.hare.strategies import hare_instances

from .bruteforce import brute_force, count_candidates, random_instance

REL = 1e-6


def _le(a: float, b: float, rel: float = REL) -> bool:
    return a <= b + rel * max(1.0, abs(a), abs(b))


def _bounds(inst: HareInstance, **kw) -> dict[str, float]:
    return {
        "critical-path": lb.critical_path_bound(inst),
        "fluid-lp": lb.fluid_lp_bound(inst, **kw).value,
        "method": dmlsched.solve(inst, "lower-bound").objective,
    }


@pytest.mark.parametrize("seed", range(40))
def test_every_bound_is_at_most_the_brute_force_optimum(seed):
    inst = random_instance(seed, max_tasks=5, zero_weight=seed % 5 == 0)
    if count_candidates(inst) > 200_000:
        pytest.skip("too many candidates for brute force")
    opt, _ = brute_force(inst)
    for name, v in _bounds(inst).items():
        assert _le(v, opt), (name, v, opt)
    # any grid is valid, even a crude one
    for eps, slots in ((0.0, 2), (0.5, 3), (0.01, 400)):
        assert _le(lb.fluid_lp_bound(inst, eps=eps, max_slots=slots).value, opt)


@given(hare_instances(max_jobs=3, max_gpus=3, max_rounds=2, max_tasks_per_round=2, max_tasks=5))
@settings(max_examples=60)
def test_property_bounds_at_most_optimum(inst):
    assume(count_candidates(inst) <= 60_000)
    opt, _ = brute_force(inst, max_candidates=60_000)
    for name, v in _bounds(inst).items():
        assert _le(v, opt), (name, v, opt)


@pytest.mark.parametrize("seed, load", [(1, 0.9), (3, 0.9), (4, 0.9), (2, 100.0), (5, 100.0)])
def test_bounds_at_most_proven_optimum_on_the_testbed(seed, load):
    inst = generate(seed=seed, num_jobs=5, gpus=list(TESTBED), load=load)
    res = dmlsched.solve(inst, "exact-cp", work_limit=20.0, lower_bound=False)  # CP-SAT deterministic s
    assert res.status == Status.OPTIMAL
    for name, v in _bounds(inst).items():
        assert _le(v, res.objective), (name, v, res.objective)


def test_fluid_lp_beats_the_critical_path_when_jobs_compete():
    # four identical jobs arriving together on one V100 and one slow K80
    jobs = tuple(HareJob(f"J{n}", 0.0, 1.0, 3, 1, {"V100": 1.0, "K80": 4.0}, {"V100": 0.1, "K80": 0.1})
                 for n in range(4))
    inst = HareInstance(gpus=("V100", "K80"), jobs=jobs, name="compete")
    opt, _ = brute_force(inst, max_candidates=10**7) if count_candidates(inst) <= 10**7 else (None, None)
    c = lb.critical_path_bound(inst)
    f = lb.fluid_lp_bound(inst, eps=0.02, max_slots=300)
    assert f.solved and f.value > 1.3 * c
    res = dmlsched.solve(inst, "exact-cp", work_limit=20.0)  # CP-SAT deterministic s
    assert res.status == Status.OPTIMAL and _le(f.value, res.objective)
    if opt is not None:
        assert _le(f.value, opt)


def test_safe_dual_bound_never_exceeds_the_lp_optimum():
    inst = generate(seed=4, num_jobs=6, gpus=list(TESTBED), load=100)
    sched, _, _ = cp.list_incumbent(inst)
    horizon = float((sched.start + inst.tc[inst.task_job, sched.gpu]).max())
    lp = lb.build_fluid_lp(inst, lb.slot_grid(inst, horizon), np.full(inst.num_jobs, cp.chain_horizon(inst)))
    # the LP optimum by an independent solve (scipy's HiGHS dual simplex)
    A = lp.A.tocsr()
    le = np.isfinite(lp.row_hi) & ~np.isfinite(lp.row_lo)
    eq = np.isfinite(lp.row_hi) & np.isfinite(lp.row_lo)
    ref = linprog(lp.c, A_ub=A[le], b_ub=lp.row_hi[le], A_eq=A[eq], b_eq=lp.row_hi[eq],
                  bounds=np.c_[lp.lo, lp.hi], method="highs-ds")
    assert ref.status == 0
    y, _, info = lb._solve_ipm(lp, 200, None)
    best = lb.safe_dual_bound(lp, y)
    assert _le(best, ref.fun, 1e-9) and best >= ref.fun * (1 - 1e-6)
    rng = np.random.default_rng(0)
    for scale in (0.0, 1e-3, 0.1, 1.0):
        v = lb.safe_dual_bound(lp, y * (1 + scale * rng.standard_normal(len(y))))
        assert v <= ref.fun * (1 + 1e-12)
    assert lb.safe_dual_bound(lp, np.zeros(len(y))) == pytest.approx(float(np.dot(lp.c, lp.lo)), rel=1e-9)


def test_lower_bound_method_and_its_options():
    inst = generate(seed=2, num_jobs=6, gpus=list(TESTBED), load=100)
    best = dmlsched.solve(inst, "lower-bound")
    assert best.status == Status.BOUND and best.objective == best.bound and best.details["bound_complete"]
    assert best.solution is None and best.details["bound_name"] in ("fluid-lp", "critical-path")
    only_cp = dmlsched.solve(inst, "lower-bound", bound="critical-path")
    assert only_cp.objective == pytest.approx(lb.critical_path_bound(inst))
    assert best.objective >= only_cp.objective
    refused = dmlsched.solve(inst, "lower-bound", memory_limit=1e-6)
    assert refused.status == Status.NOT_APPLICABLE
    assert dmlsched.solve(inst, "lower-bound", bound="critical-path", memory_limit=1e-6).status == Status.BOUND


def test_lp_priority_orders_a_valid_schedule():
    inst = generate(seed=1, num_jobs=12, num_gpus=8, load=100)
    b = lb.fluid_lp_bound(inst)
    assert b.priority is not None and b.priority.shape == (inst.num_tasks,) and np.isfinite(b.priority).all()
    sched, val, rule = cp.list_incumbent(inst, {"fluid-lp": b.priority})
    validate(inst, sched)
    assert val >= b.value
