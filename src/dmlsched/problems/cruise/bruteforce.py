"""Exhaustive enumeration for Cruise (method ``brute-force``): the references the
MIPs are tested against.

Two enumerations, both exact (``models/cruise.md``, "Brute force"):

* **machines** (``space="machines"``): every role split (``2^N - 2``), every
  composition of ``D`` over the workers and of ``M`` over the servers, each
  evaluated by the family's evaluator.  Independent of every model: it uses
  nothing but the evaluator.
* **types** (``space="types"``, the default when machines repeat): machines of
  one type (:attr:`CruiseInstance.machine_types`: same ``C_proc``, and swapping
  two of them leaves the bandwidth matrix unchanged) are interchangeable, so
  it suffices to enumerate the worker count of every type
  (``prod_t (n_t + 1)``) and the compositions of ``M`` over the server types
  present, and to give each worker type the data caps ``f_t(C)`` of the least
  feasible epoch time ``C`` (Lemma T of ``proofs/cruise.md``).  The least ``C``
  is found for all compositions at once by vectorised bisection, then every
  composition whose bracket could hold the optimum is re-solved exactly (the
  jump point of :func:`.bounds.max_samples`) and its configuration evaluated
  by the family's evaluator.

Both refuse (status ``n/a``) before enumerating when the count exceeds
``max_candidates``, and stop at the deadline with the best configuration so far
(status ``feasible``, the cut recorded).
"""

from __future__ import annotations

import math
from itertools import product
from typing import Iterator

import numpy as np

from ...budget import Budget
from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from .baselines import proportional
from .bounds import lower_bound_for_workers, max_samples
from .heuristics import apportion
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate

#: default largest count per space (configurations / (role split, model composition) pairs)
DEFAULT_LIMITS = {"machines": 200_000, "types": 5_000_000}


# ---------------------------------------------------------------------------
# every configuration
def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts`` non-negative integers summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first,) + rest


def count_configurations(inst: CruiseInstance) -> int:
    """How many configurations :func:`brute_force` evaluates."""
    n, D, M = inst.num_machines, inst.dataset_size, inst.model_size
    return sum(
        math.comb(n, W) * math.comb(D + W - 1, W - 1) * math.comb(M + n - W - 1, n - W - 1)
        for W in range(1, n)
    )


def brute_force(inst: CruiseInstance, max_candidates: int = DEFAULT_LIMITS["machines"],
                budget: Budget | None = None) -> tuple[CruiseConfig | None, float, bool]:
    """The optimum by exhaustive enumeration (first best in enumeration order).

    Returns ``(config, value, complete)``; ``complete`` is ``False`` when
    ``budget.stop()`` (asked every 4,096 configurations) stopped the
    enumeration (the best so far is returned; the cut is recorded with
    ``budget.cut``).

    Raises
    ------
    NotApplicable
        If more than ``max_candidates`` configurations would be evaluated.
    """
    count = count_configurations(inst)
    if count > max_candidates:
        raise NotApplicable(
            f"brute force would evaluate {fmt_count(count)} configurations, more than max_candidates = "
            f"{fmt_count(max_candidates)}"
        )
    n = inst.num_machines
    best, best_val = None, math.inf
    seen = 0
    for w in product((1, 0), repeat=n):
        W = sum(w)
        if W == 0 or W == n:
            continue
        workers = [i for i in range(n) if w[i]]
        servers = [j for j in range(n) if not w[j]]
        s = tuple(1 - x for x in w)
        for dd in compositions(inst.dataset_size, W):
            d = [0] * n
            for i, x in zip(workers, dd):
                d[i] = x
            for mm in compositions(inst.model_size, len(servers)):
                m = [0] * n
                for j, x in zip(servers, mm):
                    m[j] = x
                cfg = CruiseConfig(w=w, s=s, d=tuple(d), m=tuple(m))
                val = evaluate(inst, cfg)
                if val < best_val:
                    best, best_val = cfg, val
                seen += 1
                if budget is not None and seen % 4096 == 0 and budget.stop():
                    budget.cut("the enumeration of configurations")
                    return best, best_val, False
    return best, best_val, True


# ---------------------------------------------------------------------------
# machine types (Lemma T)
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


def count_type_pairs(inst: CruiseInstance) -> int:
    """Number of (role split, model composition) pairs :func:`solve_by_types` examines."""
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
    """Vectorised :func:`.bounds.max_samples` (may be 1 too small at float ties;
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


def least_epoch_exact(ps, Ts, counts, B: int, D: int) -> tuple[float, list[int]]:
    """Exact least ``C`` with ``sum_t counts_t f_t(C) >= D`` and the per-worker caps ``f_t(C)``."""
    lo, hi = 0.0, max(p * D + math.ceil(D / B) * T for p, T in zip(ps, Ts))

    def enough(C: float) -> bool:
        return sum(c * max_samples(p, T, B, C, D) for p, T, c in zip(ps, Ts, counts)) >= D

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
        q = max_samples(p, T, B, lo, D) + 1
        if q <= D:
            cands.append(p * q + math.ceil(q / B) * T)
    c1 = min((c for c in cands if c > lo), default=math.inf)
    C = c1 if (c1 <= hi and enough(c1)) else hi
    return C, [max_samples(p, T, B, C, D) for p, T in zip(ps, Ts)]


def solve_by_types(inst: CruiseInstance, max_candidates: int = DEFAULT_LIMITS["types"],
                   budget: Budget | None = None) -> tuple[CruiseConfig, float, bool]:
    """The optimum by type enumeration.  Returns ``(config, value, complete)``;
    ``complete`` is ``False`` when ``budget.stop()`` (asked before each role
    split) stopped it (the cut is recorded with ``budget.cut``).

    Raises
    ------
    NotApplicable
        When more than ``max_candidates`` (role split, model composition) pairs would be examined.
    """
    work = count_type_pairs(inst)
    if work > max_candidates:
        raise NotApplicable(
            f"type enumeration would examine {fmt_count(work)} (role split, model split) pairs, more than "
            f"max_candidates = {fmt_count(max_candidates)} ({len(inst.machine_types)} machine types)"
        )
    types = inst.machine_types
    n, D, M, B = inst.num_machines, inst.dataset_size, inst.model_size, inst.batch_size
    # incumbent from the effective-rate heuristic; splits whose proven per-W bound
    # cannot beat it are skipped (bounds.lower_bound_for_workers)
    best_cfg = proportional(inst, data="effective")
    best_val = evaluate(inst, best_cfg)
    lbw: dict[int, float] = {}
    for counts in product(*(range(len(g) + 1) for g in types)):
        if budget is not None and budget.stop():
            budget.cut("the enumeration of type splits")
            return best_cfg, best_val, False
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
            C, caps = least_epoch_exact(ps, [float(T[r]) for T in Tw], cs, B, D)
            if C > best_val:
                continue
            cfg = _build(inst, types, counts, wt, st, comps[r], caps)
            val = evaluate(inst, cfg)
            if val < best_val:
                best_cfg, best_val = cfg, val
    return best_cfg, best_val, True


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


def has_repeated_types(inst: CruiseInstance) -> bool:
    """Whether some machine type has two or more machines."""
    return len(inst.machine_types) < inst.num_machines


@method(
    "cruise",
    "brute-force",
    kind="exact",
    options=[
        Option("space", str, "auto",
               "what to enumerate: 'machines' (every role split and integer partition; independent of "
               "every model), 'types' (worker counts per machine type and model totals per server "
               "type, Lemma T), 'auto' (types when machines repeat)",
               choices=("auto", "machines", "types")),
        Option("max_candidates", int, None,
               "largest number of configurations ('machines', default 200,000) or (role split, model "
               "composition) pairs ('types', default 5,000,000) enumerated; refuse (n/a) beyond it", minimum=1),
    ],
)
def solve_brute_force(inst: CruiseInstance, run: Run) -> Result:
    """Exhaustive enumeration of roles and integer partitions (by machine or by machine type)."""
    space = run.options["space"]
    if space == "auto":
        space = "types" if has_repeated_types(inst) else "machines"
    cap = run.options["max_candidates"] or DEFAULT_LIMITS[space]
    with run.stage("enumerate"):
        if space == "machines":
            cfg, val, complete = brute_force(inst, max_candidates=cap, budget=run.budget)
            count = count_configurations(inst)
        else:
            cfg, val, complete = solve_by_types(inst, max_candidates=cap, budget=run.budget)
            count = count_type_pairs(inst)
    details = {"space": space, "enumerated": count, "types": len(inst.machine_types)}
    if not complete:
        return run.result(solution=cfg, **details)
    return run.result(solution=cfg, bound=val, status=Status.OPTIMAL if cfg is not None else Status.ERROR,
                      **details)
