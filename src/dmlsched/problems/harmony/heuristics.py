"""Harmony's scheduling heuristic (Lee 2020, Section 4.3.2, Algorithms 1 and 2).

* :func:`best_num_groups` -- Algorithm 1, L6: ``n_G* = argmin_{n_G}
  sum_j |T_cpu_j(n_G) - T_net_j|`` with every group on ``M / n_G`` machines,
  i.e. ``T_cpu_j(n_G) = T_cpu_j * c * n_G / M`` (4.2).
* :func:`assign_jobs` -- Algorithm 2 (assignJobs): descending job iteration
  time, complementary pick, remaining jobs by resource imbalance with the
  job-bound check, then pairwise-swap fine-tuning.
* :func:`allocate_machines` -- one machine per group, then one at a time to
  the most computation-intensive group.
* :func:`schedule` -- Algorithm 1 (L4-13): the above on all jobs
  (``admission="all"``, the static problem) or on growing prefixes of the job
  list with the paper's stop rule (``admission="incremental"``).

Every reading of a vague step is listed in ``models/harmony.md``
("Readings of Algorithms 1 and 2").  Complexity: ``O(n log n)`` for the sort
and the first phase, ``O(r * n_G)`` (vectorised) for the ``r < n_G``
remaining jobs, ``O(M log n_G)`` for the allocation, plus the swaps.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .instance import HarmonyInstance
from .solution import HarmonySolution, evaluate, group_stats


# ---------------------------------------------------------------------------
# Algorithm 1, L6: number of groups
def imbalance_sum(inst: HarmonyInstance, jobs: list[int] | np.ndarray, n_groups: int) -> float:
    """``sum_j |T_cpu_j(n_G) - T_net_j|`` with ``T_cpu_j(n_G) = T_cpu_j c n_G / M``."""
    idx = np.asarray(jobs, dtype=np.int64)
    a = inst.t_cpu[idx] * inst.reference_dop / inst.machines
    return float(np.abs(a * n_groups - inst.t_net[idx]).sum())


def best_num_groups(inst: HarmonyInstance, jobs: list[int] | np.ndarray, rule: str = "per-job") -> int:
    """Algorithm 1, L6: the integer ``n_G`` in ``[1, min(|J|, M)]`` minimising
    :func:`imbalance_sum` (smallest on ties).

    The sum is convex piecewise linear in ``n_G`` with breakpoints
    ``T_net_j / a_j`` (``a_j = T_cpu_j c / M``); its continuous minimiser is
    the ``a``-weighted median of the breakpoints, so the integer minimiser is
    its floor or ceiling (clamped to the range).

    ``rule="aggregate"`` is an alternative reading (not the printed formula):
    ``argmin |sum_j (T_cpu_j(n_G) - T_net_j)|``, whose continuous minimiser is
    ``sum_j T_net_j / sum_j a_j``.
    """
    idx = np.asarray(jobs, dtype=np.int64)
    hi = int(min(len(idx), inst.machines))
    a = inst.t_cpu[idx] * inst.reference_dop / inst.machines
    b = inst.t_net[idx]
    if rule == "per-job":
        r = b / a
        order = np.argsort(r, kind="stable")
        cw = np.cumsum(a[order])
        k = int(np.searchsorted(cw, cw[-1] / 2.0))
        x = float(r[order][min(k, len(idx) - 1)])
        f = lambda n: imbalance_sum(inst, idx, n)  # noqa: E731
    elif rule == "aggregate":
        x = float(b.sum() / a.sum())
        f = lambda n: abs(float(a.sum()) * n - float(b.sum()))  # noqa: E731
    else:
        raise ValueError(f"rule must be 'per-job' or 'aggregate', got {rule!r}")
    cands = {1, hi}
    for v in (math.floor(x), math.ceil(x)):
        cands.add(min(max(int(v), 1), hi))
    return min(sorted(cands), key=lambda n: (f(n), n))


# ---------------------------------------------------------------------------
# Algorithm 2
@dataclass
class Assignment:
    """Output of :func:`assign_jobs` with counters for ``details``."""

    groups: list[list[int]]
    swaps: int = 0
    fallback_job_bound: int = 0
    job_bound_checks: int = 0  # entries into L16's loop (provably 0, proofs/harmony.md)
    trace: dict = field(default_factory=dict)


def _equal_dop_times(inst: HarmonyInstance, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """``T_cpu_j`` and ``T_net_j`` with every group on ``M / n_G`` machines."""
    cpu = inst.t_cpu * inst.reference_dop * n_groups / inst.machines
    return cpu, inst.t_net


def assign_jobs(
    inst: HarmonyInstance, jobs: list[int], n_groups: int, *, fine_tune: bool = True
) -> Assignment:
    """Algorithm 2 (assignJobs) on the jobs ``jobs`` into ``n_groups`` groups.

    Times are taken at the equal DoP ``M / n_G`` that Algorithm 1 assumes
    when it chooses ``n_G``.
    """
    if not 1 <= n_groups <= len(jobs):
        raise ValueError(f"need 1 <= n_groups <= {len(jobs)}, got {n_groups}")
    cpu_all, net_all = _equal_dop_times(inst, n_groups)
    jobs = [int(j) for j in jobs]
    cpu = {j: float(cpu_all[j]) for j in jobs}
    net = {j: float(net_all[j]) for j in jobs}
    itr = {j: cpu[j] + net[j] for j in jobs}
    diff = {j: cpu[j] - net[j] for j in jobs}
    # L2: sort by T_itr descending (ties: input order)
    pos = {j: p for p, j in enumerate(jobs)}
    j_sort = sorted(jobs, key=lambda j: (-itr[j], pos[j]))
    # popFirst(pred) with pred = T_diff_j * S_diff_g <= 0 in O(1): three queues
    # (diff > 0, diff < 0, diff == 0), each in J_sort order.
    rank = {j: p for p, j in enumerate(j_sort)}
    q_pos = deque(j for j in j_sort if diff[j] > 0)
    q_neg = deque(j for j in j_sort if diff[j] < 0)
    q_zero = deque(j for j in j_sort if diff[j] == 0)

    def pop_first(queues: list[deque]) -> int | None:
        best = None
        for q in queues:
            if q and (best is None or rank[q[0]] < rank[best[0]]):
                best = q
        return best.popleft() if best is not None else None

    quota = len(jobs) // n_groups
    groups: list[list[int]] = []
    s_diff = np.zeros(n_groups)
    s_cpu = np.zeros(n_groups)
    s_net = np.zeros(n_groups)
    max_itr = np.zeros(n_groups)
    # L4-11: fill each group with floor(|J| / n_G) jobs
    for i in range(n_groups):
        g: list[int] = []
        while len(g) < quota:
            s = s_diff[i]
            if s > 0:
                j = pop_first([q_neg, q_zero])
            elif s < 0:
                j = pop_first([q_pos, q_zero])
            else:
                j = pop_first([q_pos, q_neg, q_zero])
            if j is None:  # L8-9: no complementary job: take the largest left
                j = pop_first([q_pos, q_neg, q_zero])
            g.append(j)
            s_diff[i] += diff[j]
            s_cpu[i] += cpu[j]
            s_net[i] += net[j]
            max_itr[i] = max(max_itr[i], itr[j])
        groups.append(g)
    # L12-22: remaining jobs by |T_diff| descending, to the most balancing group
    rest = sorted(list(q_pos) + list(q_neg) + list(q_zero), key=lambda j: (-abs(diff[j]), rank[j]))
    fallbacks = 0
    checks = 0
    for j in rest:
        score = np.abs(diff[j] + s_diff)
        g_star = int(np.argmin(score))
        first = g_star
        excluded = np.zeros(n_groups, dtype=bool)
        while itr[j] > max_itr[g_star]:
            checks += 1
            if itr[j] >= max(s_cpu[g_star] + cpu[j], s_net[g_star] + net[j]):  # isJobBound
                excluded[g_star] = True
                if excluded.all():  # every group would be job-bound: keep the best balance
                    g_star = first
                    fallbacks += 1
                    break
                g_star = int(np.argmin(np.where(excluded, np.inf, score)))
            else:
                break
        groups[g_star].append(j)
        s_diff[g_star] += diff[j]
        s_cpu[g_star] += cpu[j]
        s_net[g_star] += net[j]
        max_itr[g_star] = max(max_itr[g_star], itr[j])
    swaps = _fine_tune(groups, diff, s_diff) if fine_tune else 0
    return Assignment(groups=groups, swaps=swaps, fallback_job_bound=fallbacks, job_bound_checks=checks)


def _fine_tune(groups: list[list[int]], diff: dict[int, float], s_diff: np.ndarray) -> int:
    """Swap fine-tuning (text after Algorithm 2): take the most imbalanced group
    ``g_u = argmax |S_diff_g|`` and its most complementary partner
    ``g_v = argmax_{g != g_u} |S_diff_u - S_diff_g|``, swap the pair of jobs
    minimising ``|S_diff_u'| + |S_diff_v'|`` if that strictly decreases the
    pair's imbalance; stop when it does not.  Returns the number of swaps.

    Termination: every swap strictly decreases ``sum_g |S_diff_g|`` (the other
    groups are unchanged), so no grouping repeats.
    """
    n_g = len(groups)
    if n_g < 2:
        return 0
    arrs = [np.array([diff[j] for j in g]) for g in groups]
    scale = max(1.0, float(np.abs(s_diff).max()))
    swaps = 0
    while True:
        u = int(np.argmax(np.abs(s_diff)))
        other = np.abs(s_diff[u] - s_diff)
        other[u] = -np.inf
        v = int(np.argmax(other))
        du, dv = arrs[u], arrs[v]
        x = du[:, None] - dv[None, :]  # moving a out of u and b into u changes S_u by -(d_a - d_b)
        cost = np.abs(s_diff[u] - x) + np.abs(s_diff[v] + x)
        k = int(np.argmin(cost))
        a, b = divmod(k, len(dv))
        if not cost[a, b] < abs(s_diff[u]) + abs(s_diff[v]) - 1e-12 * scale:
            return swaps
        ja, jb = groups[u][a], groups[v][b]
        groups[u][a], groups[v][b] = jb, ja
        du[a], dv[b] = diff[jb], diff[ja]
        s_diff[u] -= x[a, b]
        s_diff[v] += x[a, b]
        swaps += 1


# ---------------------------------------------------------------------------
def allocate_machines(inst: HarmonyInstance, groups: list[list[int]], machines: int | None = None) -> list[int]:
    """One machine per group, then one at a time to the group with the largest
    computation intensity ``sum_j T_cpu_j(m_g) / sum_j T_net_j`` (``inf``
    without network time; ties: lowest group index) until the machines run out.
    """
    total = inst.machines if machines is None else machines
    n_g = len(groups)
    if n_g > total:
        raise ValueError(f"{n_g} groups need at least {n_g} machines, have {total}")
    m = [1] * n_g
    a = [float(inst.t_cpu[g].sum()) * inst.reference_dop for g in groups]
    nt = [float(inst.t_net[g].sum()) for g in groups]

    def key(i: int) -> float:
        return -(a[i] / (m[i] * nt[i])) if nt[i] > 0 else -math.inf

    heap = [(key(i), i) for i in range(n_g)]
    heapq.heapify(heap)
    for _ in range(total - n_g):
        _, i = heapq.heappop(heap)
        m[i] += 1
        heapq.heappush(heap, (key(i), i))
    return m


# ---------------------------------------------------------------------------
@dataclass
class Schedule:
    """A grouping with its machines, and how Algorithm 1 reached it."""

    groups: list[list[int]]
    machines: list[int]
    n_groups: int
    swaps: int
    fallback_job_bound: int
    admitted: int
    utilisation_admitted: float | None = None


def group_prefix(
    inst: HarmonyInstance,
    jobs: list[int],
    *,
    fine_tune: bool = True,
    n_groups: int | None = None,
    group_rule: str = "per-job",
) -> Schedule:
    """Algorithm 1, L6-9 on the jobs ``jobs``: ``n_G*`` (or the given ``n_groups``),
    assignJobs, allocateMachines."""
    n_g = best_num_groups(inst, jobs, group_rule) if n_groups is None else min(int(n_groups), len(jobs), inst.machines)
    asg = assign_jobs(inst, jobs, n_g, fine_tune=fine_tune)
    machines = allocate_machines(inst, asg.groups)
    return Schedule(asg.groups, machines, n_g, asg.swaps, asg.fallback_job_bound, len(jobs))


def _utilisation(inst: HarmonyInstance, groups: list[list[int]], machines: list[int]) -> float:
    return sum(m * group_stats(inst, g, m).u for g, m in zip(groups, machines)) / inst.machines


def schedule(
    inst: HarmonyInstance,
    *,
    admission: str = "all",
    fine_tune: bool = True,
    n_groups: int | None = None,
    group_rule: str = "per-job",
) -> Schedule:
    """Algorithm 1.

    ``admission="all"``: every job must run (the static problem), so L6-9 run
    once on all jobs.  ``admission="incremental"``: L4-13 on the prefixes
    ``J[:1], J[:2], ...`` of the job list (submission order), stopping at the
    first prefix that does not improve ``U``; the best prefix's grouping is
    kept (the pseudo-code returns the last, non-improving ``G``: see
    models/harmony.md) and, since the static problem has no waiting queue,
    the jobs not admitted are then added one by one (in list order) to the
    group whose ``U`` after the addition is highest -- the arrival rule of
    "Dynamic Job Regrouping" (1) without its option to wait.

    ``n_groups`` overrides L6's ``n_G*`` (clamped to ``min(|J|, M)``): a
    diagnostic to separate the loss due to ``n_G*`` from the rest;
    ``group_rule`` selects the reading of L6 (:func:`best_num_groups`).
    """
    kw = dict(fine_tune=fine_tune, n_groups=n_groups, group_rule=group_rule)
    n = inst.num_jobs
    if admission == "all":
        return group_prefix(inst, list(range(n)), **kw)
    if admission != "incremental":
        raise ValueError(f"admission must be 'all' or 'incremental', got {admission!r}")
    best: Schedule | None = None
    u_max = 0.0
    for k in range(1, n + 1):
        cand = group_prefix(inst, list(range(k)), **kw)
        u = _utilisation(inst, cand.groups, cand.machines)
        if u > u_max:
            u_max, best = u, cand
            best.utilisation_admitted = u
        else:
            break
    assert best is not None  # k = 1 always improves on U_max = 0
    _place_rest(inst, best, list(range(best.admitted, n)))
    return best


def _place_rest(inst: HarmonyInstance, sch: Schedule, rest: list[int]) -> None:
    """Add each job of ``rest`` to the group maximising that group's ``m_g U(g)``
    after the addition (equivalently the cluster's ``U``; ties: lowest index)."""
    if not rest:
        return
    c = inst.reference_dop
    wc, wn = inst.weights
    m = np.array(sch.machines, dtype=float)
    s_cpu = np.array([inst.t_cpu[g].sum() for g in sch.groups]) * c / m
    s_net = np.array([inst.t_net[g].sum() for g in sch.groups])
    mx = np.array([max(inst.t_cpu[j] * c / mm + inst.t_net[j] for j in g) for g, mm in zip(sch.groups, m)])

    def contrib(sc, sn, mi):
        t = np.maximum(np.maximum(sc, sn), mi)
        return m * (wc * sc + wn * sn) / t

    for j in rest:
        cj = inst.t_cpu[j] * c / m
        nj = inst.t_net[j]
        gain = contrib(s_cpu + cj, s_net + nj, np.maximum(mx, cj + nj)) - contrib(s_cpu, s_net, mx)
        g = int(np.argmax(gain))
        sch.groups[g].append(j)
        s_cpu[g] += cj[g]
        s_net[g] += nj
        mx[g] = max(mx[g], cj[g] + nj)


# ---------------------------------------------------------------------------
# registration
from ...registry import register_method  # noqa: E402
from ...result import Result, Status  # noqa: E402
from .bounds import FIG_4_17_RATIO, fig_4_17_ratio  # noqa: E402
from .solution import metrics  # noqa: E402


@register_method(
    "harmony",
    "harmony",
    kind="heuristic",
    description="Harmony Algorithms 1+2: n_G* by balance, assignJobs with swaps, machines to CPU-heavy groups",
    bound=fig_4_17_ratio,
    bound_name=f"Lee 2020 Sec. 4.4.7 / Fig. 4.17: within about 2% of the Oracle's U (ratio {FIG_4_17_RATIO})",
)
def solve_harmony(
    inst: HarmonyInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    admission: str = "all",
    fine_tune: bool = True,
    n_groups: int | None = None,
    group_rule: str = "per-job",
    **options,
) -> Result:
    """Harmony's heuristic (Algorithms 1 and 2 and the machine allocation).

    Deterministic: ``seed``, ``solver`` and ``time_limit`` are not used.

    Options
    -------
    admission
        ``"all"`` (default: every job is grouped, the static problem) or
        ``"incremental"`` (Algorithm 1's loop over job prefixes; see :func:`schedule`;
        quadratic in the number of jobs when ``U`` keeps improving).
    fine_tune
        Run the pairwise-swap fine-tuning of Algorithm 2 (default ``True``).
    n_groups
        Use this number of groups instead of L6's ``n_G*`` (a diagnostic, not
        part of the paper's algorithm; clamped to ``[1, min(|J|, M)]``).
    group_rule
        Reading of L6: ``"per-job"`` (default, the printed formula
        ``sum_j |T_cpu_j(n_G) - T_net_j|``) or ``"aggregate"``
        (``|sum_j (T_cpu_j(n_G) - T_net_j)|``, an alternative we measure).
    """
    if n_groups is not None and (isinstance(n_groups, bool) or not isinstance(n_groups, int) or n_groups < 1):
        raise ValueError(f"n_groups must be a positive integer, got {n_groups!r}")
    if options:
        raise TypeError(f"unknown option(s) for harmony: {', '.join(sorted(options))}")
    sch = schedule(inst, admission=admission, fine_tune=fine_tune, n_groups=n_groups, group_rule=group_rule)
    sol = HarmonySolution(groups=tuple(tuple(g) for g in sch.groups), machines=tuple(sch.machines))
    details = {
        "n_groups": sch.n_groups,
        "swaps": sch.swaps,
        "job_bound_fallbacks": sch.fallback_job_bound,
        "admission": admission,
        "group_rule": group_rule,
        "admitted": sch.admitted,
    }
    if sch.utilisation_admitted is not None:
        details["utilisation_admitted"] = sch.utilisation_admitted
    details.update({k: v for k, v in metrics(inst, sol).items() if k != "utilisation"})
    return Result("harmony", "harmony", Status.FEASIBLE, objective=evaluate(inst, sol), solution=sol, details=details)
