"""Exhaustive search (method ``brute-force``): the utilisation-maximising grouping
of a small instance, the reference the MILP is tested against.

This is an exhaustive Oracle in the literal sense of Section 4.4.7 ("an
exhaustive search that finds the ground truth that maximizes resource
utilization"), possible only for a few jobs (Bell(n) groupings); the
dissertation's Oracle ran on 80 jobs, so it searched a smaller space
(``baselines.py``, models/harmony.md "The Oracle").

Every set partition of the jobs into ``k <= min(n, M)`` groups is enumerated
(restricted-growth strings, Bell(n) of them); for each, the best machine
allocation (``m_g >= 1``, ``sum_g m_g <= M``) is found exactly by a dynamic
programme over the groups (``best[t]`` = largest ``sum m_g U(g)`` of the groups
so far on ``t`` machines), which is equivalent to enumerating every
allocation.  The values ``m U_S(m)`` of every subset ``S`` and machine count
``m`` are computed once (vectorised over ``m``) with the evaluator's
formulas (4.1)-(4.3), checked against :func:`~.solution.group_stats` by the
tests; the returned solution is re-evaluated by :func:`dmlsched.solve`.  Ties keep the
first optimum found (partitions in restricted-growth-string order, smallest ``m`` first).

Cost: ``O(Bell(n) * k * M^2)``; meant for ``n <= 9``.
"""

from __future__ import annotations

import numpy as np

from ...budget import Budget
from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...options import bell_number
from ...result import Result, Status
from .instance import HarmonyInstance
from .solution import HarmonySolution, metrics

#: largest job count accepted by default (Bell(9) = 21147 partitions)
MAX_JOBS = 9


def set_partitions(n: int):
    """Yield every partition of ``range(n)`` as a list of blocks (lists), once each.

    Restricted growth strings ``a`` with ``a[0] = 0`` and
    ``a[i] <= 1 + max(a[:i])``.
    """
    if n == 0:
        yield []
        return
    a = [0] * n

    def rec(i: int, k: int):
        if i == n:
            blocks: list[list[int]] = [[] for _ in range(k)]
            for j, b in enumerate(a):
                blocks[b].append(j)
            yield blocks
            return
        for b in range(k + 1):
            a[i] = b
            yield from rec(i + 1, max(k, b + 1))

    yield from rec(1, 1)


def subset_values(inst: HarmonyInstance) -> dict[int, np.ndarray]:
    """``vals[mask][m] = m * U_S(m)`` for every non-empty subset ``S`` (bitmask) and
    ``m = 1..M`` (index 0 unused, ``-inf``).

    Vectorised over ``m``; the same formulas as :func:`~.solution.group_stats`
    ((4.1)-(4.3)), cross-checked against it by the tests.
    """
    n, big_m = inst.num_jobs, inst.machines
    c = inst.reference_dop
    wc, wn = inst.weights
    m = np.arange(1, big_m + 1, dtype=float)
    vals: dict[int, np.ndarray] = {}
    for mask in range(1, 1 << n):
        jobs = [j for j in range(n) if mask >> j & 1]
        cpu = inst.t_cpu[jobs] * c  # T_cpu_j(m) = cpu_j / m
        net = inst.t_net[jobs]
        s_cpu = cpu.sum() / m
        s_net = float(net.sum())
        max_itr = (cpu[:, None] / m[None, :] + net[:, None]).max(axis=0)
        t_g = np.maximum(np.maximum(s_cpu, s_net), max_itr)
        v = np.full(big_m + 1, -np.inf)
        v[1:] = m * (wc * (s_cpu / t_g) + wn * (s_net / t_g))
        vals[mask] = v
    return vals


def best_allocation(values: list[np.ndarray], machines: int) -> tuple[float, list[int]] | None:
    """Max of ``sum_g values[g][m_g]`` over ``m_g >= 1``, ``sum m_g <= machines``.

    A max-plus dynamic programme over the groups (``best[t]``: best value of
    the groups so far on exactly ``t`` machines); ties take the smallest
    ``m_g`` and then the fewest machines.  Returns ``(value, [m_g])`` or
    ``None`` if there are more groups than machines.
    """
    k = len(values)
    if k > machines:
        return None
    size = machines + 1
    t_idx = np.arange(size)[:, None]
    m_idx = np.arange(1, size)[None, :]
    prev = t_idx - m_idx  # machines used by the earlier groups
    valid = prev >= 0
    prev_c = np.where(valid, prev, 0)
    best = np.full(size, -np.inf)
    best[0] = 0.0
    choice = []
    for v in values:
        cand = np.where(valid, best[prev_c] + v[1:][None, :], -np.inf)
        arg = cand.argmax(axis=1)  # first maximum: smallest m
        best = cand[np.arange(size), arg]
        choice.append(arg + 1)
    t = int(np.argmax(best))  # first (fewest machines) among equal maxima
    value = float(best[t])
    alloc = []
    for arg in reversed(choice):
        m = int(arg[t])
        alloc.append(m)
        t -= m
    return value, alloc[::-1]


def bell(n: int) -> int:
    """The number of set partitions of ``n`` items (:func:`dmlsched.options.bell_number`)."""
    return bell_number(n)


def bell_within(n: int, cap: int) -> bool:
    """Whether Bell(n) <= ``cap``, computed only as far as needed (Bell is
    non-decreasing, so the triangle stops at the first row beyond ``cap``)."""
    row = [1]
    for _ in range(n):
        if row[0] > cap:
            return False
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0] <= cap


#: groupings enumerated at most by default: Bell(MAX_JOBS) = 21,147, so the default
#: refuses exactly the instances of more than MAX_JOBS jobs (Bell is increasing)
MAX_CANDIDATES = bell(MAX_JOBS)


def brute_force(inst: HarmonyInstance, *, max_candidates: int | None = None,
                budget: Budget | None = None) -> tuple[HarmonySolution, float, int, bool]:
    """The utilisation-maximising grouping and allocation by exhaustive search.

    Returns ``(solution, U, partitions examined, complete)``; ``complete`` is
    ``False`` when the budget stopped the enumeration (asked every 2,048 groupings).

    Raises
    ------
    NotApplicable
        When the instance has more than ``max_candidates`` groupings (Bell(n) of
        ``n`` jobs; default :data:`MAX_CANDIDATES` = Bell(:data:`MAX_JOBS`)).
    """
    n, big_m = inst.num_jobs, inst.machines
    cap = MAX_CANDIDATES if max_candidates is None else max_candidates
    if not bell_within(n, cap):
        raise NotApplicable(
            f"brute force would enumerate Bell({n}) = {fmt_count(bell(n))} groupings, more than "
            f"max_candidates = {fmt_count(cap)}")
    vals = subset_values(inst)
    best_val = -np.inf
    best: tuple[list[list[int]], list[int]] | None = None
    count = 0
    complete = True
    for blocks in set_partitions(n):
        count += 1
        if budget is not None and count % 2048 == 0 and budget.stop():
            budget.cut("the enumeration of groupings")
            complete = False
            break
        if len(blocks) > big_m:
            continue
        masks = [sum(1 << j for j in b) for b in blocks]
        res = best_allocation([vals[mk] for mk in masks], big_m)
        if res is None:
            continue
        val, alloc = res
        if val > best_val:
            best_val = val
            best = ([list(b) for b in blocks], alloc)
    assert best is not None  # the single group on all machines is always feasible
    sol = HarmonySolution(groups=tuple(tuple(b) for b in best[0]), machines=tuple(best[1]))
    return sol, best_val / big_m, count, complete


@method(
    "harmony",
    "brute-force",
    kind="exact",
    description="Exhaustive search: every grouping x every machine allocation (n <= 9)",
    options=[Option("max_candidates", int, MAX_CANDIDATES, "refuse (n/a) when more groupings (Bell(n) of n jobs) "
                    f"would be enumerated (default Bell({MAX_JOBS}))", minimum=1)],
)
def solve_brute_force(inst: HarmonyInstance, run: Run) -> Result:
    """Exhaustive search; optimal by construction (``solver``/``seed`` unused)."""
    if bell_within(inst.num_jobs, run.options["max_candidates"]):
        run.require(memory_bytes=2.0 ** inst.num_jobs * (inst.machines + 1) * 8 * 2,
                    what="the table of every subset's value on every machine count")
    with run.stage("enumerate"):
        sol, u, count, complete = brute_force(inst, max_candidates=run.options["max_candidates"],
                                              budget=run.budget)
    details = {"partitions": count}
    details.update({k: v for k, v in metrics(inst, sol).items() if k != "utilisation"})
    if not complete:
        return run.result(solution=sol, **details)
    return run.result(solution=sol, bound=u, status=Status.OPTIMAL, **details)


