"""The exact MIP against brute-force enumeration (all assignments x all per-GPU
orders, left-shifted) on tiny instances, and the lemmas the MIP relies on
(semi-active optimum, horizon box).  See models/hare.md, Section 3."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import dmlsched
from dmlsched import Status
from dmlsched.problems.hare.heuristics import list_schedule, priority_order
from dmlsched.problems.hare.instance import HareInstance, HareJob
from dmlsched.problems.hare.models import horizon
from dmlsched.problems.hare.solution import HareSchedule, evaluate, validate

from .bruteforce import brute_force, count_candidates, left_shift, random_instance, semi_active
from .relax import relax

REL = 1e-6


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


def _two_job_instance() -> HareInstance:
    return HareInstance(
        gpus=("V100", "K80"),
        jobs=(
            HareJob("A", 0.0, 1.0, 2, 1, {"V100": 1.0, "K80": 2.0}, {"V100": 0.5, "K80": 0.25}),
            HareJob("B", 1.0, 2.0, 1, 1, {"V100": 3.0, "K80": 4.0}, {"V100": 0.0, "K80": 0.0}),
        ),
    )


def test_left_shift_by_hand():
    # tasks: 0 = (A, r0), 1 = (A, r1), 2 = (B, r0)
    inst = _two_job_instance()
    # GPU 0 (V100): A0 then B0; GPU 1 (K80): A1
    x = left_shift(inst, [0, 1, 0], [[0, 2], [1]])
    # A0 at its arrival 0 on V100 (train 1, sync 0.5); B0 waits for its arrival 1
    # and for the V100 free at 1 -> 1; A1 waits for A0 done at 1.5
    assert x.tolist() == [0.0, 1.5, 1.0]
    s = HareSchedule(gpu=[0, 1, 0], start=x)
    validate(inst, s)
    # C_A = 1.5 + 2 + 0.25 = 3.75, C_B = 1 + 3 = 4
    assert evaluate(inst, s) == pytest.approx(1.0 * 3.75 + 2.0 * 4.0)


def test_left_shift_rejects_orders_contradicting_round_barrier():
    inst = _two_job_instance()
    # A1 before A0 on the same GPU: A1 needs A0 done, A0 needs A1 off the GPU
    assert left_shift(inst, [0, 0, 1], [[1, 0], [2]]) is None


def test_left_shift_rejects_inconsistent_assignment():
    inst = _two_job_instance()
    with pytest.raises(ValueError):
        left_shift(inst, [0, 0, 0], [[0, 2], [1]])


@pytest.mark.parametrize("seed", range(6))
def test_semi_active_never_worse(seed):
    """Lemma A: left shifting a feasible schedule keeps it feasible and never
    increases any start (so never the objective)."""
    inst = random_instance(seed, jobs=(2, 4), gpus=(1, 3), max_rounds=3, max_tasks_per_round=3, max_tasks=12)
    rng = np.random.default_rng(seed)
    order = priority_order(inst, rng.random(inst.num_tasks))
    s = list_schedule(inst, order)
    # delay everything by a random amount per task, respecting constraints: add a
    # per-task shift that grows along each GPU's sequence and each job's rounds
    delay = np.cumsum(rng.random(inst.num_tasks))[np.argsort(np.argsort(s.start, kind="stable"))]
    late = HareSchedule(gpu=s.gpu, start=s.start + delay)
    validate(inst, late)
    t = semi_active(inst, late)
    validate(inst, t)
    assert np.all(t.start <= late.start + 1e-9)
    assert evaluate(inst, t) <= evaluate(inst, late) + 1e-9


def test_count_candidates_matches_enumeration():
    inst = random_instance(3, jobs=(2, 2), gpus=(3, 3), max_tasks=4)
    n, M = inst.num_tasks, inst.num_gpus
    seen = 0
    for assign in itertools.product(range(M), repeat=n):
        sizes = [assign.count(m) for m in range(M)]
        seen += math.prod(math.factorial(k) for k in sizes)
    assert seen == count_candidates(inst)


TINY_SEEDS = list(range(14))


@pytest.mark.parametrize("seed", TINY_SEEDS)
def test_exact_equals_brute_force(seed):
    inst = random_instance(seed, max_tasks=5, zero_weight=(seed % 4 == 0))
    assert count_candidates(inst) <= 50_000
    bf, best = brute_force(inst)
    validate(inst, best)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL
    assert _close(res.objective, bf), (res.objective, bf)
    assert res.lower_bound <= res.objective + REL * max(1.0, bf)
    assert _close(res.lower_bound, bf)


@pytest.mark.parametrize("seed", [0, 5, 7])
def test_exact_without_symmetry_equals_brute_force(seed):
    inst = random_instance(seed + 100, jobs=(2, 3), gpus=(3, 3), max_tasks=5)
    bf, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact", symmetry=False)
    assert res.status == Status.OPTIMAL
    assert _close(res.objective, bf)


def test_exact_equals_brute_force_identical_gpus():
    """Symmetry breaking of tasks and identical GPUs both active."""
    inst = HareInstance(
        gpus=("T4", "T4", "T4"),
        jobs=(
            HareJob("A", 0.0, 1.0, 2, 2, {"T4": 2.0}, {"T4": 0.5}),
            HareJob("B", 0.5, 3.0, 1, 2, {"T4": 1.5}, {"T4": 0.0}),
        ),
    )
    bf, _ = brute_force(inst)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL and _close(res.objective, bf)


@pytest.mark.parametrize("seed", range(10))
def test_bruteforce_optimum_lies_in_box(seed):
    """Lemma B: a brute-force optimum (semi-active by construction) lies in the
    start-time box the MIP uses for its big-M values and bounds."""
    inst = random_instance(seed + 50, max_tasks=5, zero_weight=(seed % 3 == 0))
    bf, best = brute_force(inst)
    hz = horizon(inst)
    assert np.all(best.start >= hz.lower - 1e-9)
    assert np.all(best.start <= hz.upper + 1e-9)
    assert hz.trivial_bound <= bf + 1e-9 <= hz.incumbent_value + 2e-9


@pytest.mark.parametrize("seed", range(4))
def test_relaxations_below_brute_force(seed):

    inst = random_instance(seed + 200, max_tasks=5)
    bf, _ = brute_force(inst)
    for kind in ("rl", "queyranne"):
        rel = relax(inst, kind=kind)
        assert rel.status == Status.OPTIMAL
        assert rel.lower_bound <= bf + REL * max(1.0, bf)
        assert rel.value <= bf + REL * max(1.0, bf)
