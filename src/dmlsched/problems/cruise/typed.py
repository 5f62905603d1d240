"""Exact optimum by enumeration over machine *types* (clusters with few types).

Machines of one type (:attr:`CruiseInstance.machine_types`: same ``C_proc``,
and swapping two of them leaves the bandwidth matrix unchanged) are
interchangeable.  Two facts make the search small (proofs/cruise.md, Lemma T):

1. for a fixed role split and model partition, all workers of a type have the
   same per-mini-batch communication time ``T_t`` and the same non-decreasing
   cost ``c_t(q) = p_t q + ceil(q / B) T_t``, so giving each at most
   ``f_t(C) = max{q : c_t(q) <= C}`` samples is optimal: the least epoch time is
   the least ``C`` with ``sum_t n^w_t f_t(C) >= D``;
2. for a fixed role split and fixed model totals ``M_t`` per server type, an
   even split inside the type minimises every worker's ``T_i`` (the sum term
   depends only on the totals, the max term on ``max_j m_j = ceil(M_t / S_t)``).

So it suffices to enumerate worker counts per type (``prod_t (n_t + 1)``) and
compositions of ``M`` over the server types present, then solve 1. exactly.
1. is solved for all compositions at once by vectorised bisection on ``C``,
then every composition whose bracket could hold the optimum is re-solved
exactly (the jump point of :func:`.bounds._max_samples`) and its configuration
evaluated by the family's evaluator.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from ...errors import NotApplicable
from ...registry import register_method
from ...result import Result, Status
from .bounds import _max_samples
from .heuristics import apportion
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate


def _compositions_array(total: int, parts: int) -> np.ndarray:
    """All compositions of ``total`` into ``parts`` non-negative parts, shape ``(count, parts)``."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    if parts == 2:
        a = np.arange(total + 1, dtype=np.int64)
        return np.stack([a, total - a], axis=1)
    rows = []
    for first in range(total + 1):
        rest = _compositions_array(total - first, parts - 1)
        rows.append(np.concatenate([np.full((len(rest), 1), first, dtype=np.int64), rest], axis=1))
    return np.concatenate(rows, axis=0)


def count_work(inst: CruiseInstance) -> int:
    """Number of (role split, model composition) pairs :func:`solve_typed` examines."""
    types = inst.machine_types
    M = inst.model_size
    total = 0
    for counts in product(*(range(len(g) + 1) for g in types)):
        W = sum(counts)
        if W == 0 or W == inst.num_machines:
            continue
        k = sum(1 for g, c in zip(types, counts) if len(g) - c > 0)
        total += math.comb(M + k - 1, k - 1)
    return total


def _f_vec(p: float, T: np.ndarray, B: int, C: np.ndarray, D: int) -> np.ndarray:
    """Vectorised :func:`.bounds._max_samples` (may be 1 too small at float ties;
    only used to bracket, never to decide)."""
    x = np.floor(C / (p * B + T))
    best = np.zeros_like(C)
    for k in (x, x + 1):
        rest = C - k * T
        d = np.minimum(np.minimum(k * B, np.floor(rest / p)), D)
        d = np.where((k > 0) & (rest >= 0), d, 0.0)
        d = np.maximum(d, 0.0)
        over = p * d + np.ceil(d / B) * T > C
        d = np.where(over, d - 1, d)
        best = np.maximum(best, d)
    return best


def _least_epoch_exact(ps, Ts, counts, B: int, D: int) -> tuple[float, list[int]]:
    """Exact least ``C`` with ``sum_t counts_t f_t(C) >= D`` and the per-worker caps ``f_t(C)``."""
    lo, hi = 0.0, max(p * D + math.ceil(D / B) * T for p, T in zip(ps, Ts))

    def enough(C: float) -> bool:
        return sum(c * _max_samples(p, T, B, C, D) for p, T, c in zip(ps, Ts, counts)) >= D

    for _ in range(200):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        if enough(mid):
            hi = mid
        else:
            lo = mid
    cands = []
    for p, T in zip(ps, Ts):
        q = _max_samples(p, T, B, lo, D) + 1
        if q <= D:
            cands.append(p * q + math.ceil(q / B) * T)
    c1 = min((c for c in cands if c > lo), default=math.inf)
    C = c1 if (c1 <= hi and enough(c1)) else hi
    return C, [_max_samples(p, T, B, C, D) for p, T in zip(ps, Ts)]


def solve_typed(inst: CruiseInstance, limit: int = 5_000_000) -> tuple[CruiseConfig, float, int]:
    """The optimum by type enumeration.  Returns ``(config, value, pairs examined)``.

    Raises
    ------
    ValueError
        When more than ``limit`` (role split, model composition) pairs would be examined.
    """
    work = count_work(inst)
    if work > limit:
        raise ValueError(
            f"type enumeration would examine {work} (role split, model split) pairs (limit {limit}); "
            f"{len(inst.machine_types)} machine types"
        )
    types = inst.machine_types
    n, D, M, B = inst.num_machines, inst.dataset_size, inst.model_size, inst.batch_size
    # incumbent from the effective-rate heuristic; splits whose proven per-W bound
    # cannot beat it are skipped (bounds.lower_bound_for_workers)
    from .bounds import lower_bound_for_workers
    from .heuristics import proportional

    best_cfg = proportional(inst, data="effective")
    best_val = evaluate(inst, best_cfg)
    lbw: dict[int, float] = {}
    for counts in product(*(range(len(g) + 1) for g in types)):
        W = sum(counts)
        if W == 0 or W == n:
            continue
        if W not in lbw:
            lbw[W] = lower_bound_for_workers(inst, W)
        if lbw[W] >= best_val:
            continue
        wt = [t for t, c in enumerate(counts) if c > 0]
        st = [t for t, g in enumerate(types) if len(g) - counts[t] > 0]
        rep_w = {t: types[t][0] for t in wt}
        rep_s = {t: types[t][counts[t]] for t in st}
        S = {t: len(types[t]) - counts[t] for t in st}
        comps = _compositions_array(M, len(st)).astype(float)  # (R, k)
        loads = np.ceil(comps / np.array([S[t] for t in st], dtype=float))  # max per server
        Tw = []
        for tw in wt:
            beta = np.array([inst.b[rep_w[tw], rep_s[ts]] for ts in st], dtype=float)
            Tw.append(np.maximum(W * (loads / beta).max(axis=1), (comps / beta).sum(axis=1)))
        ps = [float(inst.p[rep_w[t]]) for t in wt]
        cs = [counts[t] for t in wt]
        R = comps.shape[0]
        lo = np.zeros(R)
        hi = np.max([p * D + math.ceil(D / B) * T for p, T in zip(ps, Tw)], axis=0)
        for _ in range(80):
            mid = (lo + hi) / 2
            tot = sum(c * _f_vec(p, T, B, mid, D) for p, T, c in zip(ps, Tw, cs))
            ok = tot >= D
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
        # rows whose bracket may hold something better than the best exact value so far
        cutoff = min(best_val, float(hi.min()) * (1 + 1e-9))
        for r in np.flatnonzero(lo <= cutoff * (1 + 1e-12)):
            C, caps = _least_epoch_exact(ps, [float(T[r]) for T in Tw], cs, B, D)
            if C > best_val:
                continue
            cfg = _build(inst, types, counts, wt, st, comps[r], caps)
            val = evaluate(inst, cfg)
            if val < best_val:
                best_cfg, best_val = cfg, val
    return best_cfg, best_val, work


def _build(inst, types, counts, wt, st, comp, caps) -> CruiseConfig:
    n = inst.num_machines
    w = [0] * n
    d = [0] * n
    m = [0] * n
    left = inst.dataset_size
    for t, cap in zip(wt, caps):
        for i in types[t][: counts[t]]:
            w[i] = 1
            give = min(cap, left)
            d[i] = give
            left -= give
    if left:
        raise AssertionError("caps do not cover D")  # cannot happen: C satisfies enough(C)
    for t, total in zip(st, comp):
        servers = types[t][counts[t]:]
        for j, x in zip(servers, apportion(int(round(total)), [1.0] * len(servers))):
            m[j] = x
    return CruiseConfig(w=tuple(w), s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


@register_method(
    "cruise",
    "exact-typed",
    kind="exact",
    description="Exact optimum by enumerating worker counts per machine type and model totals per server type",
)
def solve_typed_method(
    inst: CruiseInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    limit: int = 5_000_000,
    **options,
) -> Result:
    """Exact on clusters with few machine types (the dissertation's 28 + 4 cluster);
    ``Status.ERROR`` when the enumeration exceeds ``limit`` pairs.

    Options
    -------
    limit
        Largest number of (role split, model composition) pairs examined.
    """
    if options:
        raise TypeError(f"unknown option(s) for cruise/exact-typed: {', '.join(options)}")
    try:
        cfg, val, work = solve_typed(inst, limit=limit)
    except ValueError as e:
        raise NotApplicable(str(e)) from None
    return Result("cruise", "exact-typed", Status.OPTIMAL, objective=val, bound=val,
                  solution=cfg, details={"pairs": work, "types": len(inst.machine_types)})
