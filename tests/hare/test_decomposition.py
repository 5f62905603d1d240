"""Hare_Sched_RL by decomposition (models/hare-decomposition.md): the exact pricing
against an independent LP brute force over every task-level assignment, the
Lagrangian bound against RL's optimum found by brute force (every GPU
assignment, an LP in the start times each) at every pricing round and at
random multipliers, the fixed-assignment LP (both kinds; Queyranne: every subset
inequality written out, free and inside the relaxation's box) against retime
and the Pyomo repair LP, the
checked points, determinism, the deadline and x^'s provenance field."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

import dmlsched
from dmlsched import SolverLimitError, Status
from dmlsched.generate import hare as gen
from dmlsched.kit import Run
from dmlsched.problems.hare import decomposition as dec
from dmlsched.problems.hare import gpupoint, pricing, relaxation
from dmlsched.problems.hare.box import Horizon, horizon
from dmlsched.problems.hare.formulation import round_groups
from dmlsched.problems.hare.instance import HareInstance, HareJob
from dmlsched.problems.hare.pricing import (
    JobTable,
    multisets,
    price,
    price_job_dp,
    segment,
    sequence_counts,
)
from dmlsched.problems.hare.relaxation import build_relaxation_master, check_relaxed, fixed_assignment_point

from .bruteforce import random_instance
from .relax import relax

REL = 1e-7


def _le(a: float, b: float, rel: float = REL) -> bool:
    return a <= b + rel * max(1.0, abs(a), abs(b))


def _random_table(rng: np.random.Generator, J: int, K: int, max_rounds: int = 4, max_d: int = 3) -> JobTable:
    T = rng.uniform(0.5, 3.0, (J, K))
    p = T + rng.uniform(0.0, 1.0, (J, K))
    a = rng.uniform(0.0, 5.0, J)
    R = rng.integers(1, max_rounds + 1, J)
    c_up = a + R * p.max(axis=1) * rng.uniform(1.0, 4.0, J)
    return JobTable(cap=np.ones(K), T=T, p=p, a=a, w=rng.uniform(0.0, 3.0, J),
                    D=rng.integers(1, max_d + 1, J).astype(float), R=R, c_up=c_up)


# ---------------------------------------------------------------------------
# pricing


def test_multisets_are_every_composition():
    for R, K in ((1, 1), (3, 2), (4, 3), (2, 4)):
        ms = multisets(R, K)
        assert len(ms) == math.comb(R + K - 1, K - 1)
        assert np.all(ms.sum(axis=1) == R) and len({tuple(r) for r in ms}) == len(ms)


def test_pricing_enumeration_equals_dp_and_every_sequence():
    """The multiset enumeration (rounds ordered by mu T / p, C at an end) and the
    Pareto DP give the minimum over every one-type-per-round sequence and both
    ends of C."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        K = int(rng.integers(1, 4))
        tab = _random_table(rng, 3, K)
        alpha = rng.uniform(0.0, 5.0, K)
        mu = rng.uniform(0.0, 1.0, K) * (rng.random(K) < 0.8)
        pr = price(tab, alpha, mu)
        for n in range(3):
            best = math.inf
            for seq in itertools.product(range(K), repeat=int(tab.R[n])):
                s = segment(tab, n, sequence_counts(tab, n, np.array(seq)))
                for C in (s.c_min, tab.c_up[n]):
                    if s.c_min <= tab.c_up[n]:
                        best = min(best, tab.w[n] * C + s.S @ alpha - s.F(C) @ mu)
            v, types, C = price_job_dp(tab, n, alpha, mu)
            assert abs(pr.value[n] - best) <= 1e-9 * max(1.0, abs(best))
            assert abs(v - best) <= 1e-9 * max(1.0, abs(best))
            s = segment(tab, n, sequence_counts(tab, n, pr.types[n]))  # the reported schedule has that cost
            assert abs(tab.w[n] * pr.C[n] + s.S @ alpha - s.F(pr.C[n]) @ mu - best) <= 1e-9 * max(1.0, abs(best))


def _job_lp_min(tab: JobTable, n: int, types: tuple[int, ...], alpha, mu) -> float:
    """Independent: min over (x, C) of w C + sum_i (alpha_k T_k - mu_k T_k (x_i + T_k/2)) for a
    fixed type of every task, subject to (4), (6), (7) and C <= c_up (scipy's LP, no
    right-justification assumed)."""
    D, R = int(tab.D[n]), int(tab.R[n])
    N = D * R
    T = tab.T[n][list(types)]
    p = tab.p[n][list(types)]
    k = np.array(types)
    c = np.zeros(N + 1)
    c[:N] = -mu[k] * T
    c[N] = tab.w[n]
    const = float(np.sum(alpha[k] * T - mu[k] * T * T / 2))
    A, b = [], []
    for i in range(N):  # x_i + p_i <= C
        row = np.zeros(N + 1)
        row[i], row[N] = 1.0, -1.0
        A.append(row)
        b.append(-p[i])
    for r in range(1, R):
        for j in range(r * D, (r + 1) * D):
            for i in range((r - 1) * D, r * D):  # x_i + p_i <= x_j
                row = np.zeros(N + 1)
                row[i], row[j] = 1.0, -1.0
                A.append(row)
                b.append(-p[i])
    bounds = [(tab.a[n], None)] * N + [(None, tab.c_up[n])]
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    assert res.status == 0
    return float(res.fun) + const


def test_pricing_is_exact_over_every_task_level_schedule():
    """Facts 1-3 of the spec checked independently: the pricing's minimum equals
    the minimum over every assignment of every task to a type (mixed rounds
    included) of an LP in the start times (no right-justification assumed)."""
    rng = np.random.default_rng(7)
    for _ in range(25):
        K = int(rng.integers(1, 3))
        tab = _random_table(rng, 1, K, max_rounds=2, max_d=2)
        alpha = rng.uniform(0.0, 4.0, K)
        mu = rng.uniform(0.0, 1.0, K)
        N = int(tab.D[0] * tab.R[0])
        brute = min(_job_lp_min(tab, 0, types, alpha, mu) for types in itertools.product(range(K), repeat=N))
        got = price(tab, alpha, mu).value[0]
        assert abs(got - brute) <= 1e-7 * max(1.0, abs(brute)), (got, brute)


# ---------------------------------------------------------------------------
# RL's optimum by brute force (independent of the decomposition)


def _rl_lp(inst: HareInstance, gpu: tuple[int, ...]) -> float:
    """RL with the assignment fixed: min sum w C over x, C with (4), (6), (7) and
    (9) linear in x (scipy's LP)."""
    N, J = inst.num_tasks, inst.num_jobs
    nj = inst.task_job
    g = np.array(gpu)
    tc = inst.tc[nj, g]
    p = tc + inst.ts[nj, g]
    c = np.concatenate([np.zeros(N), inst.weight])
    A, b = [], []
    for i in range(N):
        row = np.zeros(N + J)
        row[i], row[N + nj[i]] = 1.0, -1.0
        A.append(row)
        b.append(-p[i])
    for n, r, tasks in round_groups(inst):
        if r == 0:
            continue
        prev = [t - inst.jobs[n].tasks_per_round for t in tasks]
        for j in tasks:
            for i in prev:
                row = np.zeros(N + J)
                row[i], row[j] = 1.0, -1.0
                A.append(row)
                b.append(-p[i])
    for m in range(inst.num_gpus):
        on = np.flatnonzero(g == m)
        if len(on) == 0:
            continue
        row = np.zeros(N + J)
        row[on] = -tc[on]  # sum T x >= (sum T)^2/2 - sum T^2/2
        A.append(row)
        b.append(-(0.5 * tc[on].sum() ** 2 - 0.5 * np.sum(tc[on] ** 2)))
    bounds = [(inst.arrival[nj[i]], None) for i in range(N)] + [(0, None)] * J
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    assert res.status == 0
    return float(res.fun)


def _rl_brute(inst: HareInstance) -> float:
    return min(_rl_lp(inst, g) for g in itertools.product(range(inst.num_gpus), repeat=inst.num_tasks))


TINY = [random_instance(s, max_tasks=4, gpus=(1, 3)) for s in range(12)]


@pytest.fixture(scope="module")
def rl_optima() -> list[float]:
    return [_rl_brute(inst) for inst in TINY]


def test_bound_below_rl_optimum_at_every_round_and_point_above(rl_optima):
    """Every pricing round's Lagrangian value is a lower bound on RL's optimum
    (brute force); the decomposition's point passes the checker and is not
    below the optimum; when its gap is closed it is the optimum."""
    for inst, opt in zip(TINY, rl_optima):
        hz = horizon(inst, relaxation=True)
        tab = JobTable.of(inst, hz.c_upper)
        cg = dec.column_generation(tab, dec.incumbent_segments(tab, inst, hz.incumbent.gpu))
        assert cg.history
        for _, _, lb in cg.history:
            assert _le(lb, opt), (inst.name, lb, opt)
        r = dec.solve_decomposition(inst, hz.c_upper, hz.incumbent.gpu)
        v = check_relaxed(inst, r.x, r.gpu, "rl")
        assert abs(v - r.value) <= 1e-9 * max(1.0, v)
        assert _le(opt, v) and _le(r.lower_bound, opt)
        if r.details["gap"] <= 1e-9:
            assert abs(v - opt) <= 1e-6 * max(1.0, opt)


def test_lagrangian_bound_is_valid_at_any_multipliers(rl_optima):
    """The bound holds for every mu >= 0, alpha >= 0 (not only the master's duals)."""
    rng = np.random.default_rng(3)
    for inst, opt in zip(TINY, rl_optima):
        hz = horizon(inst, relaxation=True)
        tab = JobTable.of(inst, hz.c_upper)
        K = tab.num_types
        for _ in range(20):
            mu = rng.uniform(0.0, 2.0, K) * (rng.random(K) < 0.8)
            alpha = mu * rng.uniform(0.0, 10.0, K)
            lb, _ = dec.lagrangian_bound(tab, alpha, mu)
            assert _le(lb, opt), (inst.name, lb, opt)


@pytest.mark.slow
def test_relaxation_default_solves_tiny_instances(rl_optima):
    """``relaxation`` (decomposition, then the outer approximation when the gap
    is open on a small master) reaches RL's optimum on the tiny instances."""
    for inst, opt in zip(TINY, rl_optima):
        relaxation.clear_relaxation_cache()
        rel = relax(inst, kind="rl")
        assert rel.status == Status.OPTIMAL, inst.name
        assert abs(rel.value - opt) <= 1e-6 * max(1.0, opt)
        assert rel.details["x_hat"]["gap"] is not None and rel.details["x_hat"]["gap"] <= 1e-6
        assert rel.details["formulation"] == "decomposition"


@pytest.mark.gurobi
def test_decomposition_bound_below_gurobi_miqcp(gurobi):
    """Cross-check with Gurobi's MIQCP ((9) as written) where the licence allows."""
    for inst in TINY[:6]:
        try:
            g = relax(inst, kind="rl", solver="gurobi", formulation="miqcp")
        except SolverLimitError:
            continue
        if g.status != Status.OPTIMAL:
            continue
        hz = horizon(inst, relaxation=True)
        r = dec.solve_decomposition(inst, hz.c_upper, hz.incumbent.gpu)
        assert _le(r.lower_bound, g.value) and _le(g.value, r.value)


# ---------------------------------------------------------------------------
# the fixed-assignment LP


def _queyranne_lp(inst: HareInstance, gpu: np.ndarray,
                  box: Horizon | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The Queyranne relaxation with the assignment fixed, written out (no separation):
    ``(c, A, b, bounds)`` of ``min c v`` s.t. ``A v <= b`` over ``v = (x, C)``: (4) as
    bounds, (6), (7), and ``sum_S T x >= 1/2 [(sum_S T)^2 - sum_S T^2]`` for *every*
    non-empty subset ``S`` of every GPU's tasks (``models/hare.md`` section 6, (Q)).
    With ``box`` (a :class:`Horizon`): also ``x <= upper`` and ``C <= c_upper``, the
    bounds of the Pyomo model's variables."""
    N, J = inst.num_tasks, inst.num_jobs
    nj = inst.task_job
    tc = inst.tc[nj, gpu]
    p = tc + inst.ts[nj, gpu]
    A, b = [], []

    def at_least(coef: dict[int, float], rhs: float) -> None:
        row = np.zeros(N + J)
        for k, v in coef.items():
            row[k] += v
        A.append(-row)
        b.append(-rhs)

    for i in range(N):
        at_least({N + int(nj[i]): 1.0, i: -1.0}, p[i])  # (6)
    for n, r, tasks in round_groups(inst):
        if r > 0:
            for j in tasks:
                for i in (t - inst.jobs[n].tasks_per_round for t in tasks):
                    at_least({j: 1.0, i: -1.0}, p[i])  # (7)
    for m in range(inst.num_gpus):
        on = np.flatnonzero(gpu == m).tolist()
        for k in range(1, len(on) + 1):
            for S in itertools.combinations(on, k):
                t = tc[list(S)]
                at_least({i: tc[i] for i in S}, 0.5 * (t.sum() ** 2 - np.sum(t * t)))  # (Q)
    bounds = [(float(inst.arrival[nj[i]]), None if box is None else float(box.upper[i])) for i in range(N)]
    bounds += [(None, None if box is None else float(box.c_upper[n])) for n in range(J)]
    return np.concatenate([np.zeros(N), inst.weight]), np.array(A), np.array(b), bounds


def _queyranne_opt(inst: HareInstance, gpu: np.ndarray, box: Horizon | None = None) -> float | None:
    """Optimum of :func:`_queyranne_lp` (scipy), ``None`` if infeasible."""
    c, A, b, bounds = _queyranne_lp(inst, gpu, box)
    res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    assert res.status in (0, 2)
    return float(res.fun) if res.status == 0 else None


def _satisfies_every_subset(inst: HareInstance, x: np.ndarray, gpu: np.ndarray) -> float:
    """Check ``x`` against every row of :func:`_queyranne_lp` (its ``C`` the latest
    ``x + T^c + T^s`` of the job); returns ``sum w C``."""
    nj = inst.task_job
    c, A, b, bounds = _queyranne_lp(inst, gpu)
    done = x + inst.tc[nj, gpu] + inst.ts[nj, gpu]
    v = np.concatenate([x, [done[nj == n].max() for n in range(inst.num_jobs)]])
    assert np.all(A @ v - b <= 1e-9 * np.maximum(1.0, np.abs(A) @ np.abs(v)))
    assert all(v[i] >= lo - 1e-12 for i, (lo, _) in enumerate(bounds[: inst.num_tasks]))
    return float(c @ v)


def test_retime_is_rl_optimal_for_the_assignment():
    """Lemma R: the right-justified LP in C equals RL with the assignment fixed
    (an LP over all start times, scipy), and its point passes the checker, for
    both kinds (Queyranne: against the LP with every subset inequality written
    out).  The Pyomo repair LP (``fixed_assignment_point``) solves that LP inside
    the relaxation's box (``horizon(relaxation=True)``: ``x <= U``, ``C <= c_upper``),
    as does ``retime`` with ``c_cap`` (the ``queyranne-repair`` candidate): both
    equal the boxed LP, which equals the free one whenever that is at most the
    box's incumbent value (the box holds every relaxed point of value <= UB).
    random-1 with (1, 0, 1, 1) is a case where the box binds: 31.244 free, 33.744 boxed."""
    rng = np.random.default_rng(5)
    binding = []
    for inst in TINY:
        hz = horizon(inst, relaxation=True, scale=4.0)
        for _ in range(3):
            gpu = rng.integers(0, inst.num_gpus, inst.num_tasks)
            r = gpupoint.retime(inst, gpu)
            v = check_relaxed(inst, r.x, gpu, "rl")
            assert abs(v - _rl_lp(inst, tuple(gpu))) <= 1e-7 * max(1.0, v)
            free = _queyranne_opt(inst, gpu)
            q = gpupoint.retime(inst, gpu, kind="queyranne", rounds=100)
            vq = check_relaxed(inst, q.x, gpu, "queyranne")
            assert _satisfies_every_subset(inst, q.x, gpu) == pytest.approx(vq, rel=1e-12)
            assert abs(vq - free) <= 1e-7 * max(1.0, free), (inst.name, gpu, vq, free)
            boxed = _queyranne_opt(inst, gpu, hz)
            f = build_relaxation_master(inst, hz)
            xq = fixed_assignment_point(f, "queyranne", gpu, Run.standalone("hare", "relaxation"), rounds=200)
            if boxed is None:
                assert xq is None
                continue
            assert xq is not None and np.all(xq <= hz.upper * (1 + 1e-9) + 1e-9)
            vp = check_relaxed(inst, xq, gpu, "queyranne")
            assert _satisfies_every_subset(inst, xq, gpu) == pytest.approx(vp, rel=1e-12)
            assert abs(vp - boxed) <= 1e-7 * max(1.0, boxed), (inst.name, gpu, vp, boxed)
            qc = gpupoint.retime(inst, gpu, c_cap=hz.c_upper, kind="queyranne", rounds=100)
            vc = check_relaxed(inst, qc.x, gpu, "queyranne")
            assert abs(vc - boxed) <= 1e-7 * max(1.0, boxed), (inst.name, gpu, vc, boxed)
            if free <= hz.incumbent_value:
                assert abs(boxed - free) <= 1e-7 * max(1.0, free)
            elif boxed > free + 1e-7 * max(1.0, free):
                binding.append((inst.name, tuple(gpu.tolist()), free, boxed))
    assert ("random-1", (1, 0, 1, 1), pytest.approx(31.24431818181818, rel=1e-9),
            pytest.approx(33.744318120909085, rel=1e-7)) in binding


# ---------------------------------------------------------------------------
# the method


@pytest.fixture(scope="module")
def sim_small() -> HareInstance:
    return gen.simulation(seed=1, num_jobs=60, num_gpus=40)


def test_relaxation_point_bound_and_provenance(sim_small):
    relaxation.clear_relaxation_cache()
    res = dmlsched.solve(sim_small, "relaxation")
    d = res.details
    assert d["formulation"] == "decomposition" and d["x_hat"]["source"] == "rl-decomposition"
    assert res.bound <= d["value"] and d["x_hat"]["gap"] == pytest.approx((d["value"] - res.bound) / d["value"])
    assert d["decomposition"]["pricing_rounds"] >= 1
    lst = dmlsched.solve(sim_small, "list")
    assert lst.details["x_hat"] == d["x_hat"] and lst.details["x_hat_source"] == "decomposition"
    dmlsched.validate(sim_small, lst.solution)


def test_decomposition_is_deterministic(sim_small):
    relaxation.clear_relaxation_cache()
    a = relax(sim_small, kind="rl")
    relaxation.clear_relaxation_cache()
    b = relax(sim_small, kind="rl")
    assert a.value == b.value and a.lower_bound == b.lower_bound
    assert np.array_equal(a.x_hat, b.x_hat) and np.array_equal(a.y_hat, b.y_hat)


def test_work_limits_change_the_result_not_its_validity(sim_small):
    relaxation.clear_relaxation_cache()
    r = relax(sim_small, kind="rl", pricing_rounds=1, search_lps=0, search_moves=0)
    assert r.details["work_limit"] and r.x_hat is not None
    assert check_relaxed(sim_small, r.x_hat, r.y_hat) == pytest.approx(r.value)
    assert r.lower_bound <= r.value


def test_deadline_still_gives_a_checked_point():
    inst = gen.testbed(seed=2, num_jobs=20)
    relaxation.clear_relaxation_cache()
    r = relax(inst, kind="rl", time_limit=1e-3)
    assert r.x_hat is not None and r.lower_bound is not None
    assert check_relaxed(inst, r.x_hat, r.y_hat) == pytest.approx(r.value)
    assert not r.reproducible


def test_list_queyranne_uses_the_repaired_decomposition_at_scale():
    inst = gen.generate(seed=4, num_jobs=40, num_gpus=16)
    relaxation.clear_relaxation_cache()
    res = dmlsched.solve(inst, "list-queyranne", max_master_nonzeros=10)
    assert res.details["x_hat"]["source"] == "queyranne-repair"
    assert res.details["x_hat_source"] == "queyranne-repair"
    rel = relax(inst, kind="queyranne", max_master_nonzeros=10)
    check_relaxed(inst, rel.x_hat, rel.y_hat, "queyranne")
    assert 0.0 <= rel.details["x_hat"]["gap"] < 1.0


def test_x_hat_provenance_formula():
    assert relaxation.x_hat_provenance("rl", "decomposition", 10.0, 9.0) == {"source": "rl-decomposition",
                                                                           "gap": pytest.approx(0.1)}
    assert relaxation.x_hat_provenance("rl", "heuristic", 10.0, None) == {"source": "box-heuristic", "gap": None}
    assert relaxation.x_hat_provenance("queyranne", "master", 0.0, 0.0)["gap"] == 0.0


def test_a_job_with_many_rounds_is_priced_by_the_dp():
    """A job beyond :data:`~.pricing.MAX_MULTISETS` goes to the DP; the result is
    the same as enumerating (checked on a table small enough for both)."""
    rng = np.random.default_rng(11)
    tab = _random_table(rng, 4, 3, max_rounds=9)
    alpha, mu = rng.uniform(0, 3, 3), rng.uniform(0, 1, 3)
    full = price(tab, alpha, mu)
    old = pricing.MAX_MULTISETS
    try:
        pricing.MAX_MULTISETS = 1
        viadp = price(tab, alpha, mu)
    finally:
        pricing.MAX_MULTISETS = old
    assert np.allclose(full.value, viadp.value, rtol=1e-9, atol=1e-9)


def test_zero_weight_and_single_gpu_instances():
    inst = HareInstance(gpus=("V100",), jobs=(
        HareJob("A", 0.0, 0.0, 2, 1, {"V100": 1.0}, {"V100": 0.0}),
        HareJob("B", 0.0, 1.0, 1, 2, {"V100": 2.0}, {"V100": 0.5}),
    ))
    relaxation.clear_relaxation_cache()
    rel = relax(inst, kind="rl")
    assert rel.status == Status.OPTIMAL
    assert abs(rel.value - _rl_brute(inst)) <= 1e-6 * max(1.0, rel.value)
