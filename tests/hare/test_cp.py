"""exact-cp (CP-SAT, one cumulative per GPU type; models/hare-cp.md): the
colouring lemma, the rounding lemma, the box, and the optimum against brute
force and the MIP (HiGHS and Gurobi), also as a property over generated
instances; inexact data are never called optimal unless the bound meets the
schedule; deterministic work limits, incumbents under a tiny deadline,
refusal before building."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import Status
from dmlsched.cpsat import on_grid, scale_times
from dmlsched.generate.hare import TESTBED, generate
from dmlsched.problems.hare import cp
from dmlsched.problems.hare.instance import HareInstance, HareJob
from dmlsched.problems.hare.solution import HareSchedule, evaluate, validate
from dmlsched.problems.hare.strategies import hare_instances

from .bruteforce import brute_force, count_candidates, random_instance

REL = 1e-6
#: CP-SAT deterministic seconds (exact-cp's work_limit): a net that stops a run gone wrong at the
#: same point at any load, where a wall-clock limit would cut a busy machine's run short
WORK = 20.0


def _close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def _le(a: float, b: float, rel: float = REL) -> bool:
    return a <= b + rel * max(1.0, abs(a), abs(b))


# ---------------------------------------------------------------------------
# Lemma C: interval colouring


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8)), min_size=1, max_size=25))
@settings(max_examples=150)
def test_greedy_colouring_uses_exactly_the_largest_overlap(ivs):
    start = np.array([s for s, _ in ivs])
    end = start + np.array([d for _, d in ivs])
    # k: most intervals containing one point (integer endpoints: the starts suffice)
    k = max(int(((start <= t) & (t < end)).sum()) for t in start.tolist())
    # k intervals share one point, so at least k colours are needed; the colouring must use no more
    gpus = list(range(100, 100 + max(k, 1)))
    col = cp.colour_intervals(start, end, gpus)
    assert set(col.tolist()) <= set(gpus)
    for gpu in gpus:
        idx = np.flatnonzero((col == gpu) & (end > start))
        o = idx[np.argsort(start[idx], kind="stable")]
        assert (start[o][1:] >= end[o][:-1]).all(), "two intervals overlap on one GPU"
    if k >= 2:
        with pytest.raises(ValueError, match="cannot hold"):
            cp.colour_intervals(start, end, gpus[:-1])


# ---------------------------------------------------------------------------
# scaling: on the grid is exact, off the grid rounds down at every scale


def test_scale_times_rounds_down_even_at_large_scales():
    v = 0.912 / 2.2  # 0.41454545..., on no decimal grid
    for s in (10, 10**6, 10**11):
        (x,) = scale_times([v], s)
        assert x <= v * s and x >= v * s - 1
    assert scale_times([0.152, 0.1 + 0.2], 1000) == [152, 300]  # decimal data snap to their grid
    assert on_grid([0.5, 1.5, 2.0], 2) and not on_grid([0.5, 1 / 3], 2)
    assert not on_grid([v], 10**11)


def test_choose_scaling_exact_on_a_grid_and_inexact_otherwise():
    inst = random_instance(3)
    sc = cp.choose_scaling(inst)
    assert sc.exact and sc.scale == 2  # times on the 0.5 grid
    # sevenths and thirds are grids too (any denominator, not only powers of ten)
    assert cp.choose_scaling(_instance([1 / 7, 1.0], [0.0, 0.0])).scale == 14
    assert cp.choose_scaling(_instance([1 / 3, 1.0], [0.0, 0.0])).scale == 6
    # two times on no short grid: the least common multiple of their denominators passes the limit
    odd = _instance([math.pi / 10, math.e / 10], [0.0, 0.0], gpus=("V100", "K80"))
    sc = cp.choose_scaling(odd)
    assert not sc.exact and sc.scale >= 10**6
    assert sc.train[0, 0] <= sc.scale * math.pi / 10 < sc.train[0, 0] + 1


def _instance(train: list[float], sync: list[float], gpus=("V100", "K80"), jobs: int = 2, rounds: int = 2,
              tasks: int = 2, arrivals=(0.0, 0.5), weights=(1.0, 2.0)) -> HareInstance:
    types = list(dict.fromkeys(gpus))
    js = []
    for n in range(jobs):
        js.append(HareJob(f"J{n}", arrivals[n % len(arrivals)], weights[n % len(weights)], rounds, tasks,
                          {t: train[k] * (1 + 0.5 * n) for k, t in enumerate(types)},
                          {t: sync[k] for k, t in enumerate(types)}))
    return HareInstance(gpus=tuple(gpus), jobs=tuple(js), name="cp-test")


# ---------------------------------------------------------------------------
# Lemma S: the rounded-down image of a real schedule is a solution, no worse


def _check_scaled(inst: HareInstance, sc: cp.Scaling, xs: np.ndarray, typ: np.ndarray) -> None:
    """(4)-(8) of the rounded-down model in integer arithmetic."""
    nj = inst.task_job
    assert (xs >= sc.arrival[nj]).all()
    done = xs + sc.done[nj, typ]
    for n, job in enumerate(inst.jobs):
        for r in range(job.rounds - 1):
            a = inst.task_index(n, r, 0)
            b = inst.task_index(n, r + 1, 0)
            assert done[a:a + job.tasks_per_round].max() <= xs[b:b + job.tasks_per_round].min()
    for t, gl in enumerate(sc.gpus_of):
        idx = np.flatnonzero(typ == t)
        s, e = xs[idx], xs[idx] + sc.train[nj[idx], t]
        for p in np.unique(s):
            assert int(((s <= p) & (p < e)).sum()) <= len(gl)


@pytest.mark.parametrize("seed", range(12))
def test_rounded_down_image_of_a_schedule_is_a_solution_no_worse(seed):
    inst = random_instance(seed, max_tasks=8, gpus=(1, 4))
    rng = np.random.default_rng(seed)
    # perturb to off-grid data so that rounding bites
    jobs = tuple(HareJob(j.id, j.arrival + float(rng.random()) / 7, j.weight + float(rng.random()) / 3, j.rounds,
                         j.tasks_per_round, {g: v + float(rng.random()) / 3 for g, v in j.train_time.items()},
                         {g: v + float(rng.random()) / 5 for g, v in j.sync_time.items()}) for j in inst.jobs)
    inst = HareInstance(gpus=inst.gpus, jobs=jobs, name="off-grid")
    sched, val, _ = cp.list_incumbent(inst)
    for scale in (1, 3, 10, 1000):
        sc = cp.choose_scaling(inst, scale)
        assert not sc.exact
        xs = np.array(scale_times(sched.start.tolist(), scale), dtype=np.int64)
        typ = cp._type_of_gpu(inst, sc)[sched.gpu]
        _check_scaled(inst, sc, xs, typ)
        assert cp.scaled_objective(inst, sc, sched) <= val * sc.objective_scale * (1 + 1e-12)


# ---------------------------------------------------------------------------
# the optimum


@pytest.mark.parametrize("seed", range(40))
def test_exact_cp_equals_brute_force(seed):
    inst = random_instance(seed, max_tasks=5)
    if count_candidates(inst) > 200_000:
        pytest.skip("too many candidates for brute force")
    opt, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert res.status == Status.OPTIMAL, res.details
    assert _close(res.objective, opt), (res.objective, opt)
    assert _le(res.bound, opt)


@given(hare_instances(max_jobs=3, max_gpus=3, max_rounds=2, max_tasks_per_round=2, max_tasks=5))
@settings(max_examples=40)
def test_exact_cp_property_equals_brute_force(inst):
    assume(count_candidates(inst) <= 60_000)
    opt, _ = brute_force(inst, max_candidates=60_000)
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert res.status == Status.OPTIMAL
    assert _close(res.objective, opt)
    validate(inst, res.solution)


@pytest.mark.parametrize("seed", range(8))
def test_exact_cp_equals_the_mip_highs(seed):
    inst = random_instance(100 + seed, max_tasks=8, gpus=(2, 4), jobs=(2, 3))
    mip = dmlsched.solve(inst, "exact", solver="highs")  # tiny: no limit
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert mip.status == Status.OPTIMAL and res.status == Status.OPTIMAL
    assert _close(res.objective, mip.objective)


@pytest.mark.parametrize("seed", range(4))
def test_exact_cp_equals_the_mip_gurobi(seed, gurobi):
    inst = random_instance(200 + seed, max_tasks=6, gpus=(2, 3), jobs=(2, 3))
    mip = dmlsched.solve(inst, "exact", solver="gurobi")  # tiny: no limit
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert mip.status == Status.OPTIMAL and res.status == Status.OPTIMAL
    assert _close(res.objective, mip.objective)


def test_one_gpu_type_and_capacity_one_types():
    """Single type (no type literals) and capacity-1 types (NoOverlap) against brute force."""
    for gpus in (("V100",), ("V100", "V100"), ("V100", "K80"), ("V100", "V100", "K80")):
        inst = _instance([1.0, 2.5], [0.5, 0.0], gpus=gpus, jobs=2, rounds=2, tasks=1)
        opt, _ = brute_force(inst)
        res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
        assert res.status == Status.OPTIMAL and _close(res.objective, opt), gpus


# ---------------------------------------------------------------------------
# inexact data: bounds and schedules are right, optimal only when they meet


@pytest.mark.parametrize("scale", [1, 2, 10])
def test_coarse_scale_gives_a_valid_bound_and_a_feasible_schedule(scale):
    inst = _instance([0.7, 1.3], [0.15, 0.35], gpus=("V100", "K80"), jobs=2, rounds=2, tasks=1,
                     arrivals=(0.0, 0.35))
    opt, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK, scale=scale, lower_bound=False)
    assert res.details["exact_scale"] is False
    assert res.solution is not None and _le(opt, res.objective)
    assert _le(res.bound, opt)
    assert res.details["scaled_bound"] is None or _le(res.details["scaled_bound"], opt)
    if res.status == Status.OPTIMAL:
        assert _close(res.objective, res.bound)
    if scale == 1:
        assert res.status == Status.FEASIBLE  # one-second rounding cannot meet the schedule


def test_any_denominator_is_a_grid():
    """Thirds, sevenths, elevenths and thirteenths: the scale is the lcm of the denominators, exact."""
    inst = _instance([0.7 / 3, 1.3 / 7], [0.15 / 3, 0.35 / 11], gpus=("V100", "K80"), jobs=2, rounds=2, tasks=1,
                     arrivals=(0.0, 1 / 13))
    opt, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert res.details["exact_scale"] is True and res.details["scale"] % (3 * 7 * 11 * 13) == 0
    assert res.status == Status.OPTIMAL and _close(res.objective, opt)


def test_fine_default_scale_proves_off_grid_data():
    inst = _instance([math.pi / 10, math.e / 10], [math.sqrt(2) / 20, math.sqrt(3) / 30], gpus=("V100", "K80"),
                     jobs=2, rounds=2, tasks=1, arrivals=(0.0, math.log(2) / 10))
    opt, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert res.details["exact_scale"] is False and res.details["scale"] >= 10**6
    assert res.status == Status.OPTIMAL and _close(res.objective, opt)
    assert res.details["solver_status"].endswith("(rounded-down model)")


# ---------------------------------------------------------------------------
# kit behaviour: work limit, deadline, refusal, bounds folded in


def test_work_limit_is_reproducible_and_deadline_keeps_an_incumbent():
    inst = generate(seed=3, num_jobs=8, gpus=list(TESTBED))
    a = dmlsched.solve(inst, "exact-cp", work_limit=0.3)
    b = dmlsched.solve(inst, "exact-cp", work_limit=0.3)
    assert a.reproducible and b.reproducible
    assert (a.status, a.objective, a.bound) == (b.status, b.objective, b.bound)
    quick = dmlsched.solve(inst, "exact-cp", time_limit=0.05)
    assert quick.solution is not None and quick.status in (Status.FEASIBLE, Status.OPTIMAL)
    validate(inst, quick.solution)


def test_refuses_before_building_when_memory_is_short():
    inst = random_instance(1)
    res = dmlsched.solve(inst, "exact-cp", memory_limit=0.001)
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "memory"


def test_lower_bound_is_folded_into_the_bound():
    inst = generate(seed=5, num_jobs=8, gpus=list(TESTBED), load=100)
    lb = dmlsched.solve(inst, "lower-bound")
    res = dmlsched.solve(inst, "exact-cp", work_limit=0.2)
    assert res.bound >= lb.objective - 1e-9
    assert res.details["lower_bound_value"] == pytest.approx(lb.objective)
    off = dmlsched.solve(inst, "exact-cp", work_limit=0.2, lower_bound=False)
    assert "lower_bound_value" not in off.details


def test_schedule_from_types_recovers_gpus_that_pass_the_validator():
    inst = random_instance(7, max_tasks=8, gpus=(3, 4))
    sc = cp.choose_scaling(inst)
    sched, val, _ = cp.list_incumbent(inst)
    xs = np.array(scale_times(sched.start.tolist(), sc.scale), dtype=np.int64)
    typ = cp._type_of_gpu(inst, sc)[sched.gpu]
    back = cp.schedule_from_types(inst, sc, xs, typ)
    validate(inst, back)
    assert _le(evaluate(inst, back), val)  # exact data: re-timing never loses (Lemma R)
    assert math.isfinite(evaluate(inst, back))
    assert isinstance(back, HareSchedule)


def test_huge_model_with_little_time_returns_the_incumbent_and_the_bound():
    inst = generate(seed=1, num_jobs=200, num_gpus=160, load=100)
    res = dmlsched.solve(inst, "exact-cp", time_limit=0.6)
    assert res.status == Status.FEASIBLE and res.solution is not None
    assert res.details["cpsat"].startswith("skipped")
    assert res.bound >= dmlsched.solve(inst, "lower-bound", bound="critical-path").objective - 1e-9
