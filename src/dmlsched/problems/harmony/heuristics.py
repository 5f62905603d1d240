"""Harmony's scheduling heuristic (Lee 2020, Section 4.3.2, Algorithms 1 and 2).

* :func:`best_num_groups` -- Algorithm 1, L6: ``n_G* = argmin_{n_G}
  sum_j |T_cpu_j(n_G) - T_net_j|`` with every group on ``M / n_G`` machines,
  i.e. ``T_cpu_j(n_G) = T_cpu_j * c * n_G / M`` (4.2).
* :func:`assign_jobs` -- Algorithm 2 (assignJobs): descending job iteration
  time, complementary pick, remaining jobs by resource imbalance with the
  job-bound check, then pairwise-swap fine-tuning.
* :func:`allocate_machines` -- one machine per group, then one at a time to
  the most computation-intensive group.
* :func:`schedule` -- Algorithm 1 (L4-13): the above on growing prefixes of
  the job list, stopping at the first prefix that does not improve ``U``
  (``admission="first-stop"``, the default: the printed L10-13 and the text's
  "Once it sees no more improvement with the increasing set of jobs, Harmony
  stops"), trying every prefix (``"best-prefix"``) or once on all jobs
  (``"all"``).

Every function takes the number of machines it may use (``machines``,
default the cluster's ``M``): the regrouping of the execution model
(``simulator.py``) schedules a subset of jobs on the machines of a subset of
groups.

Every reading of a vague step is listed in ``models/harmony.md``
("Readings of Algorithms 1 and 2").  Complexity: ``O(n log n)`` for the sort
and the first phase, ``O(r * n_G)`` (vectorised) for the ``r < n_G``
remaining jobs, ``O(M log n_G)`` for the allocation, plus the swaps.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ...errors import NotApplicable
from ...kit import Option, Run, method
from ...options import OptionError
from ...result import Result
from .bounds import FIG_4_17_RATIO, fig_4_17_ratio
from .instance import HarmonyInstance
from .simulator import Sim, simulate
from .solution import HarmonySolution, group_stats, metrics


# ---------------------------------------------------------------------------
# Algorithm 1, L6: number of groups
def imbalance_sum(inst: HarmonyInstance, jobs: list[int] | np.ndarray, n_groups: int,
                  machines: int | None = None) -> float:
    """``sum_j |T_cpu_j(n_G) - T_net_j|`` with ``T_cpu_j(n_G) = T_cpu_j c n_G / M``."""
    idx = np.asarray(jobs, dtype=np.int64)
    a = inst.t_cpu[idx] * inst.reference_dop / (machines or inst.machines)
    return float(np.abs(a * n_groups - inst.t_net[idx]).sum())


def best_num_groups(inst: HarmonyInstance, jobs: list[int] | np.ndarray, rule: str = "per-job",
                    machines: int | None = None) -> int:
    """Algorithm 1, L6: the integer ``n_G`` in ``[1, min(|J|, M)]`` minimising
    :func:`imbalance_sum` (smallest on ties).

    The sum is convex piecewise linear in ``n_G`` with breakpoints
    ``T_net_j / a_j`` (``a_j = T_cpu_j c / M``); its continuous minimiser is
    the ``a``-weighted median of the breakpoints, so the integer minimiser is
    its floor or ceiling (clamped to the range).

    ``rule="per-job"`` (the default) is the printed formula
    ``argmin sum_j |T_cpu_j(n_G) - T_net_j|``.  ``rule="aggregate"`` (a named
    reading, ``models/harmony.md``): ``argmin |sum_j (T_cpu_j(n_G) - T_net_j)|``,
    the balance of the sums a group's ``T_g`` depends on, whose continuous
    minimiser is ``sum_j T_net_j / sum_j a_j``.
    """
    big_m = machines or inst.machines
    idx = np.asarray(jobs, dtype=np.int64)
    hi = int(min(len(idx), big_m))
    a = inst.t_cpu[idx] * inst.reference_dop / big_m
    b = inst.t_net[idx]
    if rule == "per-job":
        r = b / a
        order = np.argsort(r, kind="stable")
        cw = np.cumsum(a[order])
        k = int(np.searchsorted(cw, cw[-1] / 2.0))
        x = float(r[order][min(k, len(idx) - 1)])
        f = lambda n: imbalance_sum(inst, idx, n, big_m)  # noqa: E731
    elif rule == "aggregate":
        x = float(b.sum() / a.sum())
        f = lambda n: abs(float(a.sum()) * n - float(b.sum()))  # noqa: E731
    else:
        raise OptionError("group_rule", f"must be 'per-job' or 'aggregate', got {rule!r}")
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


def _equal_dop_times(
    inst: HarmonyInstance, n_groups: int, machines: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``T_cpu_j`` and ``T_net_j`` with every group on ``M / n_G`` machines."""
    cpu = inst.t_cpu * inst.reference_dop * n_groups / (machines or inst.machines)
    return cpu, inst.t_net


def assign_jobs(
    inst: HarmonyInstance, jobs: list[int], n_groups: int, *, fine_tune: bool = True,
    machines: int | None = None,
) -> Assignment:
    """Algorithm 2 (assignJobs) on the jobs ``jobs`` into ``n_groups`` groups.

    Times are taken at the equal DoP ``M / n_G`` that Algorithm 1 assumes
    when it chooses ``n_G``.
    """
    if not 1 <= n_groups <= len(jobs):
        raise ValueError(f"need 1 <= n_groups <= {len(jobs)}, got {n_groups}")
    cpu_all, net_all = _equal_dop_times(inst, n_groups, machines)
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
    extra = total - n_g
    if extra <= 0:
        return m
    unbounded = [i for i in range(n_g) if not nt[i] > 0]
    if unbounded:  # intensity inf: the lowest such index takes every machine, one at a time
        m[unbounded[0]] += extra
        return m
    if extra > 4 * n_g:
        m = _allocate_above_threshold(np.array(a), np.array(nt), extra)

    def key(i: int) -> float:
        return -(a[i] / (m[i] * nt[i]))

    heap = [(key(i), i) for i in range(n_g)]
    heapq.heapify(heap)
    for _ in range(total - sum(m)):
        _, i = heapq.heappop(heap)
        m[i] += 1
        heapq.heappush(heap, (key(i), i))
    return m


def _allocate_above_threshold(a: np.ndarray, nt: np.ndarray, extra: int) -> list[int]:
    """The state of :func:`allocate_machines`' one-at-a-time loop after it has handed out
    every machine whose intensity is above a threshold ``t``, without the loop.

    The ``g``-th machine of group ``i`` is given at intensity ``q(i, g) = a_i / (g nt_i)``
    (computed as the loop computes it), non-increasing in ``g``; the loop always gives the
    next machine to the largest current ``q``, so while some group still has a machine with
    ``q > t`` to receive, it receives before any ``q <= t``: the first ``sum_i c_i``
    machines the loop gives are exactly ``c_i = #{g >= 1 : q(i, g) > t}`` to each group
    ``i``, and the loop continues from ``m_i = 1 + c_i`` as it would have (D'Hondt's
    apportionment).  ``t`` starts at ``sum_i a_i / nt_i / extra``, where
    ``sum_i c_i <= extra`` up to rounding (raised until it holds), leaving fewer than about
    ``len(a)`` machines to the loop.
    """
    t = float((a / nt).sum()) / extra
    while True:
        c = np.floor(a / nt / t).astype(np.int64)
        while True:  # c_i = the largest g >= 0 with q(i, g) > t (q as the loop computes it)
            down = (c > 0) & ~(a / (np.maximum(c, 1) * nt) > t)
            up = a / ((c + 1) * nt) > t
            if not (down.any() or up.any()):
                break
            c = c - down + (up & ~down)
        if int(c.sum()) <= extra:
            return [int(x) + 1 for x in c]
        t *= 1 + 1e-9


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
    machines: int | None = None,
) -> Schedule:
    """Algorithm 1, L6-9 on the jobs ``jobs`` and ``machines`` machines: ``n_G*`` (or the
    given ``n_groups``), assignJobs, allocateMachines."""
    big_m = machines or inst.machines
    if n_groups is None:
        n_g = best_num_groups(inst, jobs, group_rule, big_m)
    else:
        n_g = min(int(n_groups), len(jobs), big_m)
    asg = assign_jobs(inst, jobs, n_g, fine_tune=fine_tune, machines=big_m)
    alloc = allocate_machines(inst, asg.groups, big_m)
    return Schedule(asg.groups, alloc, n_g, asg.swaps, asg.fallback_job_bound, len(jobs))


def group_value(inst: HarmonyInstance, groups: list[list[int]], machines: list[int]) -> float:
    """``sum_g m_g U(g)``: the groups' share of (4.4)'s numerator."""
    return sum(m * group_stats(inst, g, m).u for g, m in zip(groups, machines))


def _utilisation(inst: HarmonyInstance, groups: list[list[int]], machines: list[int]) -> float:
    return group_value(inst, groups, machines) / inst.machines


#: readings of Algorithm 1's loop over the number of jobs (models/harmony.md)
ADMISSIONS = ("first-stop", "best-prefix", "all")


def schedule(
    inst: HarmonyInstance,
    *,
    admission: str = "first-stop",
    fine_tune: bool = True,
    n_groups: int | None = None,
    group_rule: str = "per-job",
    jobs: list[int] | None = None,
    machines: int | None = None,
    place_rest: bool = True,
) -> Schedule:
    """Algorithm 1 on ``jobs`` (default: all, in instance order) and ``machines`` machines.

    ``admission="first-stop"`` (the default, the text's reading: "While
    incrementing the number of jobs to consider, starting from a single job,
    Harmony tries to find the set of job groups G with better resource
    utilization [...] Once it sees no more improvement with the increasing set
    of jobs, Harmony stops", Section 4.3.2): L4-13 as printed, on the prefixes
    ``J[:1], J[:2], ...``, stopping at the first prefix that does not improve
    ``U``; the best prefix's grouping is kept (the pseudo-code returns the last,
    non-improving ``G``: see models/harmony.md).  ``"best-prefix"``: every
    prefix, the best ``U`` kept (ties: fewer jobs).  ``"all"``: L6-9 once on
    all the jobs.

    With ``place_rest`` (the static problem, where every job must be grouped),
    the jobs not admitted are then added one by one (in list order) to the
    group whose ``U`` after the addition is highest -- the arrival rule of
    "Dynamic Job Regrouping" (1) without its option to wait.  Without it (the
    execution model) they wait; ``Schedule.admitted`` counts the jobs in groups.

    ``n_groups`` overrides L6's ``n_G*`` (clamped to ``min(|J|, M)``): a
    diagnostic to separate the loss due to ``n_G*`` from the rest;
    ``group_rule`` selects the reading of L6 (:func:`best_num_groups`).
    """
    kw = dict(fine_tune=fine_tune, n_groups=n_groups, group_rule=group_rule, machines=machines)
    order = list(range(inst.num_jobs)) if jobs is None else [int(j) for j in jobs]
    n = len(order)
    if admission == "all":
        return group_prefix(inst, order, **kw)
    if admission not in ADMISSIONS:
        raise OptionError("admission", f"must be one of {', '.join(ADMISSIONS)}, got {admission!r}")
    best: Schedule | None = None
    u_max = 0.0
    for k in range(1, n + 1):
        cand = group_prefix(inst, order[:k], **kw)
        u = group_value(inst, cand.groups, cand.machines)
        if u > u_max * (1 + 1e-12) or best is None:
            u_max, best = u, cand
        elif admission == "first-stop":
            break
    assert best is not None  # k = 1 always improves on U_max = 0
    best.utilisation_admitted = u_max / inst.machines
    if place_rest:
        _place_rest(inst, best, order[best.admitted:])
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


#: "We judge that jobs are similar when the difference of statistics is within 5%" (Section 4.3.2)
SIMILARITY = 0.05
#: "selects the grouping decision with smaller number of jobs, if the performance improvement of
#: decisions with more number of jobs is less than 5%"; "does not perform regrouping when the
#: expected benefit is less than 5% of U" (Section 4.3.2)
REGROUP_GAIN = 0.05
#: largest "bunch of jobs with equivalent characteristics" searched (our bound; the text gives none)
BUNCH_MAX = 3
#: most bunches examined per event (deterministic work limit)
BUNCH_LIMIT = 50_000


# ---------------------------------------------------------------------------
# Harmony's rules in the execution model (Section 4.3.2, :mod:`.simulator`)
@dataclass
class HarmonyPolicy:
    """Algorithm 1 at time 0 and Section 4.3.2's "Dynamic Job Regrouping" (2) when a job finishes.

    Attributes
    ----------
    admission, group_rule, fine_tune
        Readings of Algorithm 1 and 2 (:func:`schedule`).
    """

    admission: str = "first-stop"
    group_rule: str = "per-job"
    fine_tune: bool = True
    name: str = "harmony"

    def decide(self, sim: Sim, jobs: list[int], machines: int):
        sim.count("scheduling_calls")
        return schedule(sim.inst, admission=self.admission, fine_tune=self.fine_tune,
                        group_rule=self.group_rule, jobs=jobs, machines=machines, place_rest=False)

    def start(self, sim: Sim) -> None:
        if not sim.waiting:
            return
        sch = self.decide(sim, sim.waiting, sim.inst.machines)
        sim.replace(set(), sch.groups, sch.machines, sim.waiting)

    def on_finish(self, sim: Sim, finished: list[tuple[int, list[int], int]]) -> None:
        for job, group, m in finished:
            k = next((i for i, g in enumerate(sim.groups) if g is group), None)
            if k is None:
                continue  # the group was regrouped by an earlier completion of this event
            self._repair(sim, job, k, m)

    # (2): "the scheduler searches for a similar job [...] to replace the finished job"
    def _repair(self, sim: Sim, job: int, k: int | None, m: int) -> None:
        inst = sim.inst
        if sim.waiting and k is not None:
            pick = _similar_job(inst, job, sim.waiting, m)
            if pick is not None:
                sim.groups[k].append(pick)
                sim.profiled = [j for j in sim.profiled if j != pick]
                sim.paused = [j for j in sim.paused if j != pick]
                sim.count("replaced_by_similar_job")
                return
            bunch = _similar_bunch(inst, job, sim.waiting, m)
            if bunch is not None:
                sim.groups[k].extend(bunch)
                sim.profiled = [j for j in sim.profiled if j not in bunch]
                sim.paused = [j for j in sim.paused if j not in bunch]
                sim.count("replaced_by_bunch")
                return
        self._regroup(sim, k)

    def _regroup(self, sim: Sim, k: int | None) -> None:
        """Algorithm 1 on the waiting jobs and the jobs of the finished job's group plus
        1, 2, ... more groups (fewest jobs first) on their machines and the idle ones; the
        decision with fewer jobs wins unless a larger one is >= 5% better; applied only when
        it beats the current utilisation by >= 5%."""
        n_groups = len(sim.groups)
        others = sorted((i for i in range(n_groups) if i != k), key=lambda i: (len(sim.groups[i]), i))
        base = [] if k is None else [k]
        sets = [base + others[:q] for q in range(1, len(others) + 1)] if others else [base]
        if k is None and not others:
            sets = [[]]
        current = sim.value()
        best = None
        for sel in sets:
            jobs = sim.waiting + [j for i in sel for j in sim.groups[i]]
            if not jobs:
                continue
            pool = sum(sim.machines[i] for i in sel) + sim.idle
            if pool < 1:
                continue
            sch = self.decide(sim, jobs, pool)
            value = sim.value(skip=set(sel)) + _value(sim.inst, sch.groups, sch.machines)
            cand = (len(jobs), value, sel, sch, jobs)
            if best is None or value >= best[1] * (1 + REGROUP_GAIN):
                best = cand
        if best is None:
            return
        _, value, sel, sch, jobs = best
        if current <= 0 or value >= current * (1 + REGROUP_GAIN):
            sim.replace(set(sel), sch.groups, sch.machines, jobs)
            sim.count("regroupings")
        else:
            sim.count("regroupings_skipped")


def _value(inst: HarmonyInstance, groups, machines) -> float:
    return sum(m * group_stats(inst, g, m).u for g, m in zip(groups, machines))


def _stats_at(inst: HarmonyInstance, jobs, m: int) -> tuple[float, float, float]:
    cpu = float(sum(inst.t_cpu[j] for j in jobs)) * inst.reference_dop / m
    net = float(sum(inst.t_net[j] for j in jobs))
    return cpu, net, cpu + net


def _close(a: float, b: float) -> float:
    """Relative difference of two statistics (0 when equal, inf when one is infinite alone)."""
    if a == b:
        return 0.0
    if math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(a - b) / max(abs(b), 1e-300)


def _ratio(cpu: float, net: float) -> float:
    return cpu / net if net > 0 else math.inf


def _similar_job(inst: HarmonyInstance, job: int, waiting: list[int], m: int) -> int | None:
    """The waiting job whose iteration time and computation/communication ratio (at the
    group's DoP ``m``) are both within 5% of the finished job's; the closest, first in order."""
    c0, n0, i0 = _stats_at(inst, [job], m)
    r0 = _ratio(c0, n0)
    best, best_d = None, math.inf
    for j in waiting:
        c, n, it = _stats_at(inst, [j], m)
        d = max(_close(it, i0), _close(_ratio(c, n), r0))
        if d <= SIMILARITY and d < best_d:
            best, best_d = j, d
    return best


def _similar_bunch(inst: HarmonyInstance, job: int, waiting: list[int], m: int) -> list[int] | None:
    """A bunch of 2..BUNCH_MAX waiting jobs whose summed iteration time and ratio of summed
    computation to summed communication are within 5% of the finished job's; the closest."""
    c0, n0, i0 = _stats_at(inst, [job], m)
    r0 = _ratio(c0, n0)
    best, best_d = None, math.inf
    seen = 0
    for size in range(2, BUNCH_MAX + 1):
        for combo in itertools.combinations(waiting, size):
            seen += 1
            if seen > BUNCH_LIMIT:
                return best
            c, n, it = _stats_at(inst, combo, m)
            if it > i0 * (1 + SIMILARITY):
                continue
            d = max(_close(it, i0), _close(_ratio(c, n), r0))
            if d <= SIMILARITY and d < best_d:
                best, best_d = list(combo), d
    return best


# ---------------------------------------------------------------------------
# registration

#: the options every scheduler of the family shares (readings of the dissertation)
GROUP_RULE = Option(
    "group_rule", str, "per-job",
    "reading of Algorithm 1, L6: 'per-job' (the printed argmin sum_j |T_cpu_j(n_G) - T_net_j|) or 'aggregate' "
    "(argmin |sum_j (T_cpu_j(n_G) - T_net_j)|, the balance of the sums a group's T_g depends on)",
    choices=("per-job", "aggregate"))
ADMISSION = Option(
    "admission", str, "first-stop",
    "reading of Algorithm 1's loop over the number of jobs: 'first-stop' (the text and printed L10-13: "
    "prefixes of the job list from a single job, stop at the first that does not improve U), 'best-prefix' "
    "(every prefix, the best U), 'all' (L6-9 once on every job)", choices=ADMISSIONS)
SIMULATE = Option(
    "simulate", bool, False,
    "also run the dissertation's execution model (lock-step group iterations, Section 4.3.2's "
    "regrouping when a job finishes) and attach it: average JCT, makespan and utilisation over the run")
FINE_TUNE = Option("fine_tune", bool, True, "run the pairwise-swap fine-tuning of Algorithm 2")


@method(
    "harmony",
    "harmony",
    kind="heuristic",
    description="Harmony Algorithms 1+2: n_G* by balance, assignJobs with swaps, machines to CPU-heavy groups",
    bound=fig_4_17_ratio,
    bound_name=(f"Lee 2020 Sec. 4.4.7 / Fig. 4.17: within about 2% of the Oracle's U (ratio {FIG_4_17_RATIO}); "
                "check's default reference is the exhaustive optimum (brute-force), --reference oracle is the "
                "paper's Oracle at scale"),
    options=[
        ADMISSION, GROUP_RULE, FINE_TUNE,
        Option("num_groups", int, None,
               "use this number of groups instead of L6's n_G* (a diagnostic, not the paper's algorithm)",
               minimum=1),
        SIMULATE,
    ],
)
def solve_harmony(inst: HarmonyInstance, run: Run) -> Result:
    """Harmony's heuristic (Algorithms 1 and 2 and the machine allocation); deterministic."""
    o = run.options
    with run.stage("schedule"):
        sch = schedule(inst, admission=o["admission"], fine_tune=o["fine_tune"], n_groups=o["num_groups"],
                       group_rule=o["group_rule"])
    sol = HarmonySolution(groups=tuple(tuple(g) for g in sch.groups), machines=tuple(sch.machines))
    details = {
        "n_groups": sch.n_groups,
        "swaps": sch.swaps,
        "job_bound_fallbacks": sch.fallback_job_bound,
        "admission": o["admission"],
        "group_rule": o["group_rule"],
        "admitted": sch.admitted,
    }
    if sch.utilisation_admitted is not None:
        details["utilisation_admitted"] = sch.utilisation_admitted
    if o["simulate"]:
        if not inst.has_iterations:
            raise NotApplicable("simulate: the execution model needs every job's iterations")
        with run.stage("simulate"):
            try:
                sol.execution = simulate(inst, HarmonyPolicy(admission=o["admission"], group_rule=o["group_rule"],
                                                         fine_tune=o["fine_tune"]), budget=run.budget)
            except TimeoutError:
                details["simulation"] = "stopped by the deadline"
    details.update({k: v for k, v in metrics(inst, sol).items() if k != "utilisation"})
    return run.result(solution=sol, **details)
