"""GPU grouping heuristics: ``greedy`` (deal + swaps) and ``brute-force`` (tiny instances).

The paper gives no algorithm for GPU_Grouping; ``greedy`` is ours:

1. *Deal.*  Normalise each job's speeds by that job's fastest GPU
   (``ŝ_{n,m} = s_{n,m} / max_m s_{n,m}``) and give each GPU the weight
   ``w_m = sum_n ŝ_{n,m}``.  Take GPUs by decreasing ``w_m`` (ties: lower
   index) and deal each to the group with the smallest total weight (ties:
   fewer GPUs, then lower index): longest-processing-time-first on the
   normalised speeds, which makes every group non-empty after ``|U|`` GPUs.
2. *Improve.*  Repeatedly take the first improving move among: swapping two
   GPUs of different groups, or moving a GPU out of a group of >= 2 GPUs,
   where a move improves if it lowers the objective ``max_n range_n`` or keeps
   it and lowers ``sum_n range_n`` (by more than 1e-12 relative).  Candidates
   touching the worst job's fastest or slowest group are tried first; the
   search stops at a local optimum or after ``max_passes`` full passes.
3. *Restart.*  ``restarts`` times (default 10), improve a seeded random
   balanced assignment and keep the best; stop early at objective 0.

Complexity per pass: ``O(M^2)`` candidates, each evaluated in ``O(N)`` with
incremental group speeds.
"""

from __future__ import annotations


import time

import numpy as np

from ...errors import NotApplicable
from ...registry import register_method
from ...result import Result, Status
from .instance import GroupingInstance
from .solution import Grouping, evaluate


def deal(inst: GroupingInstance) -> list[int]:
    """Step 1: LPT dealing on normalised speeds; returns ``group[m]``."""
    s = inst.s
    w = (s / s.max(axis=1, keepdims=True)).sum(axis=0)
    order = sorted(range(inst.num_gpus), key=lambda m: (-w[m], m))
    load = [0.0] * inst.groups
    count = [0] * inst.groups
    group = [0] * inst.num_gpus
    for m in order:
        u = min(range(inst.groups), key=lambda v: (load[v], count[v], v))
        group[m] = u
        load[u] += float(w[m])
        count[u] += 1
    return group


def _score(p: np.ndarray) -> tuple[float, float]:
    r = p.max(axis=1) - p.min(axis=1)
    return float(r.max()), float(r.sum())


def improve(inst: GroupingInstance, group: list[int], *, max_passes: int = 50,
            deadline: float | None = None) -> tuple[list[int], int]:
    """Step 2: first-improvement local search by swaps and moves; returns (group, moves)."""
    s = inst.s
    U = inst.groups
    group = list(group)
    count = np.bincount(group, minlength=U)
    z = np.zeros((inst.num_gpus, U))
    z[np.arange(inst.num_gpus), group] = 1
    p = s @ z  # N x U
    best = _score(p)
    moves = 0

    def better(a: tuple[float, float], b: tuple[float, float]) -> bool:
        eps = 1e-12 * max(1.0, abs(b[0]))
        return a[0] < b[0] - eps or (a[0] <= b[0] + eps and a[1] < b[1] - 1e-12 * max(1.0, abs(b[1])))

    for _ in range(max_passes):
        improved = False
        # candidates touching the worst job's extreme groups first
        r = p.max(axis=1) - p.min(axis=1)
        nstar = int(np.argmax(r))
        hot = {int(np.argmax(p[nstar])), int(np.argmin(p[nstar]))}
        gpus = sorted(range(inst.num_gpus), key=lambda m: (group[m] not in hot, m))
        for a_i, a in enumerate(gpus):
            if deadline is not None and time.perf_counter() > deadline:
                return group, moves
            ga = group[a]
            # moves of a to another group
            if count[ga] >= 2:
                for v in range(U):
                    if v == ga:
                        continue
                    p[:, ga] -= s[:, a]
                    p[:, v] += s[:, a]
                    sc = _score(p)
                    if better(sc, best):
                        best = sc
                        group[a] = v
                        count[ga] -= 1
                        count[v] += 1
                        moves += 1
                        improved = True
                        break
                    p[:, ga] += s[:, a]
                    p[:, v] -= s[:, a]
                if improved:
                    break
            # swaps of a with b in another group
            for b in gpus[a_i + 1:]:
                gb = group[b]
                if gb == ga:
                    continue
                d = s[:, b] - s[:, a]
                p[:, ga] += d
                p[:, gb] -= d
                sc = _score(p)
                if better(sc, best):
                    best = sc
                    group[a], group[b] = gb, ga
                    moves += 1
                    improved = True
                    break
                p[:, ga] -= d
                p[:, gb] += d
            if improved:
                break
        if not improved:
            break
    return group, moves


def greedy_grouping(inst: GroupingInstance, *, max_passes: int = 50, restarts: int = 10, seed: int = 0,
                    time_limit: float | None = None) -> Grouping:
    """Deal then improve, then ``restarts`` seeded restarts; deterministic for a seed.

    Each restart improves a random balanced assignment (a permutation of
    ``m mod |U|``, so every group is non-empty) drawn from
    ``numpy.random.default_rng(seed)``; the best grouping found wins (ties:
    the earlier one).  Restarts stop early at objective 0 or at ``time_limit``.
    """
    work = inst.deduplicated()
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    group, _ = improve(work, deal(work), max_passes=max_passes, deadline=deadline)
    best = evaluate(work, Grouping(tuple(group)))
    rng = np.random.default_rng(seed)
    for _ in range(restarts):
        if best <= 0.0 or (deadline is not None and time.perf_counter() > deadline):
            break
        start = [int(x) for x in rng.permutation(np.arange(work.num_gpus) % work.groups)]
        cand, _ = improve(work, start, max_passes=max_passes, deadline=deadline)
        v = evaluate(work, Grouping(tuple(cand)))
        if v < best - 1e-12 * max(1.0, best):
            group, best = cand, v
    return Grouping(tuple(group)).canonical()


def partitions(m: int, k: int):
    """All partitions of ``range(m)`` into exactly ``k`` non-empty labelled-canonical groups.

    Restricted growth strings: ``a[0] = 0`` and ``a[i] <= 1 + max(a[:i])``.
    """
    a = [0] * m

    def rec(i: int, mx: int):
        if i == m:
            if mx + 1 == k:
                yield tuple(a)
            return
        if mx + 1 + (m - i) < k:  # not enough GPUs left to open the missing groups
            return
        for v in range(min(mx + 2, k)):
            a[i] = v
            yield from rec(i + 1, max(mx, v))

    if m == 0:
        return
    yield from rec(1, 0)


def brute_force_grouping(inst: GroupingInstance) -> tuple[Grouping, float, int]:
    """Enumerate every partition; returns (best grouping, value, partitions tried)."""
    best, best_val, count = None, np.inf, 0
    for g in partitions(inst.num_gpus, inst.groups):
        count += 1
        v = evaluate(inst, Grouping(g))
        if v < best_val - 1e-15:
            best, best_val = g, v
    return Grouping(best), float(best_val), count


@register_method(
    "gpu-grouping",
    "greedy",
    kind="heuristic",
    description="Ours: LPT dealing on normalised speeds, swap/move local search, seeded restarts",
)
def solve_greedy(inst: GroupingInstance, *, solver: str = "highs", time_limit: float | None = None,
                 seed: int = 0, max_passes: int = 50, restarts: int = 10, **options) -> Result:
    """The greedy grouping.  Options ``max_passes`` (local-search passes per start)
    and ``restarts`` (seeded random restarts, default 10)."""
    sol = greedy_grouping(inst, max_passes=max_passes, restarts=restarts, seed=seed, time_limit=time_limit)
    return Result("gpu-grouping", "greedy", Status.FEASIBLE, solution=sol)


#: enumeration guard of ``brute-force`` (number of GPUs)
BRUTE_MAX_GPUS = 10


@register_method(
    "gpu-grouping",
    "brute-force",
    kind="exact",
    description="Enumerates every partition (at most 10 GPUs)",
)
def solve_brute(inst: GroupingInstance, *, solver: str = "highs", time_limit: float | None = None,
                seed: int = 0, **options) -> Result:
    """Exhaustive search over canonical partitions; exact by construction."""
    if inst.num_gpus > BRUTE_MAX_GPUS:
        raise NotApplicable(f"brute force handles at most {BRUTE_MAX_GPUS} GPUs, the instance has {inst.num_gpus}")
    sol, val, count = brute_force_grouping(inst)
    return Result("gpu-grouping", "brute-force", Status.OPTIMAL, objective=val, bound=val,
                  solution=sol, details={"partitions": count})


__all__ = ["brute_force_grouping", "deal", "greedy_grouping", "improve", "partitions"]

