"""Exact pricing of one job for the decomposition of Hare_Sched_RL
(``models/hare-decomposition.md``, sections 2-4).

Dualising the type-level tangent rows ``F_k >= theta S_k - c_k theta^2 / 2``
of (9) with multipliers ``lambda >= 0`` leaves one problem per job: choose a
GPU type for every task and a start for every task, subject to (4), (6), (7)
and the start-time box ``C_n <= c_up_n``, minimising

    w_n C_n + sum_k (alpha_k S_nk - mu_k F_nk),

with ``alpha_k = sum_theta lambda_{k,theta} theta``, ``mu_k = sum_theta lambda_{k,theta}``,
``S_nk`` the job's training time on type ``k`` and ``F_nk = sum_i T_i (x_i + T_i/2)``
over its tasks on type ``k``.  Three facts (proven in the spec) make it a
small enumeration:

1. *Right-justification*: for a fixed ``C_n`` and assignment, every task
   starts as late as its round allows (``x_i = B_{r+1} - p_i``, ``B_R = C_n``,
   the rounds packed against ``C_n``);
2. *One type per round*: all tasks of a round on the same type, the round as
   long as that type's ``p = T^c + T^s``;
3. *Order and endpoints*: for a multiset of round types, the rounds in
   non-decreasing ``mu_k T_k / p_k``; ``C_n`` at ``a_n + sum p`` or at ``c_up_n``.

So the job's minimum is a minimum over the multisets of ``R_n`` round types
(``C(R_n + K - 1, K - 1)`` of them, enumerated with NumPy) and two endpoints;
beyond :data:`MAX_MULTISETS` a dynamic program over the rounds with Pareto
pruning gives the same minimum (:func:`price_job_dp`).

A *segment* is one job schedule shape (the type counts of every round) with
``C_n`` free in ``[c_min, c_max]``: its ``S`` is constant and its ``F`` is
affine in ``C_n`` (``F = F0 + Fs C``), so one segment stands for every
right-justified schedule of that shape.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .instance import HareInstance

#: beyond this many multisets of round types per job, :func:`price_job_dp` prices the job
MAX_MULTISETS = 20_000


@dataclass(frozen=True)
class JobTable:
    """Type-level data of an instance (``[job, type]`` arrays).

    Attributes
    ----------
    cap
        GPUs of each type (``c_k``).
    T, p
        Training time and training + synchronisation time of a task of job
        ``n`` on a GPU of type ``k``.
    a, w
        Arrival and weight of each job.
    D, R
        Tasks per round and rounds of each job.
    c_up
        Upper end of ``C_n`` (the start-time box).
    """

    cap: np.ndarray
    T: np.ndarray
    p: np.ndarray
    a: np.ndarray
    w: np.ndarray
    D: np.ndarray
    R: np.ndarray
    c_up: np.ndarray

    @property
    def num_jobs(self) -> int:
        return len(self.a)

    @property
    def num_types(self) -> int:
        return len(self.cap)

    @classmethod
    def of(cls, inst: HareInstance, c_up: np.ndarray) -> "JobTable":
        cap = np.bincount(inst.gpu_type_index, minlength=len(inst.gpu_types)).astype(float)
        return cls(cap=cap, T=inst.tc_type.copy(), p=inst.tc_type + inst.ts_type, a=inst.arrival.copy(),
                   w=inst.weight.copy(), D=inst.tasks_per_round_arr.astype(float),
                   R=inst.rounds_arr.copy(), c_up=np.asarray(c_up, dtype=float).copy())


@lru_cache(maxsize=64)
def multisets(R: int, K: int) -> np.ndarray:
    """Every vector of ``K`` non-negative integers summing to ``R`` (rows, in lexicographic order)."""
    rows = []
    for combo in itertools.combinations_with_replacement(range(K), R):
        rows.append(np.bincount(np.asarray(combo, dtype=np.int64), minlength=K))
    out = np.array(rows, dtype=np.int64).reshape(-1, K)
    out.setflags(write=False)
    return out


def num_multisets(R: int, K: int) -> int:
    """``C(R + K - 1, K - 1)``."""
    return math.comb(int(R) + K - 1, K - 1)


# ---------------------------------------------------------------------------
# segments


@dataclass
class Segment:
    """One right-justified job schedule shape with ``C_n`` in ``[c_min, c_max]``.

    Attributes
    ----------
    job
        Job index.
    counts
        ``(R_n, K)`` integers: tasks of each round on each type.
    c_min, c_max
        ``a_n + sum_r P_r`` (the rounds packed from the arrival, ``P_r`` the
        slowest ``p`` of round ``r``) and the box's ``c_up_n``.
    S, F0, Fs
        Per type: training time ``S_k``; ``F_k = F0_k + Fs_k C_n``.
    """

    job: int
    counts: np.ndarray
    c_min: float
    c_max: float
    S: np.ndarray
    F0: np.ndarray
    Fs: np.ndarray

    def key(self) -> tuple[int, bytes]:
        return self.job, self.counts.tobytes()

    def F(self, C: float) -> np.ndarray:
        return self.F0 + self.Fs * C

    def round_lengths(self, tab: JobTable) -> np.ndarray:
        """``P_r``: the slowest ``p`` among the types round ``r`` uses."""
        used = self.counts > 0
        return np.where(used, tab.p[self.job][None, :], -np.inf).max(axis=1)

    def starts(self, tab: JobTable, C: float) -> tuple[np.ndarray, np.ndarray]:
        """Right-justified starts ``x`` and types of the job's tasks (round by
        round, within a round by type index), for completion ``C``."""
        P = self.round_lengths(tab)
        Q = np.concatenate([np.cumsum(P[::-1])[::-1][1:], [0.0]])  # sum of later rounds
        p = tab.p[self.job]
        types = []
        xs = []
        for r in range(self.counts.shape[0]):
            for k in np.flatnonzero(self.counts[r]).tolist():
                c = int(self.counts[r, k])
                types += [k] * c
                xs += [C - Q[r] - p[k]] * c
        return np.asarray(xs, dtype=float), np.asarray(types, dtype=np.int64)


def segment(tab: JobTable, n: int, counts: np.ndarray) -> Segment:
    """The :class:`Segment` of job ``n`` whose round ``r`` puts ``counts[r, k]`` tasks on type ``k``.

    ``x_i = C - Q_r - p_k`` for a task of round ``r`` on type ``k``, with
    ``Q_r`` the length of the rounds after ``r``; so
    ``F_k = sum_r counts[r, k] T_k (C - Q_r - p_k + T_k / 2)``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    T, p = tab.T[n], tab.p[n]
    used = counts > 0
    P = np.where(used, p[None, :], -np.inf).max(axis=1)
    Q = np.concatenate([np.cumsum(P[::-1])[::-1][1:], [0.0]])
    ct = counts * T[None, :]
    S = ct.sum(axis=0)
    F0 = (ct * (-Q[:, None] - p[None, :] + T[None, :] / 2.0)).sum(axis=0)
    return Segment(job=n, counts=counts, c_min=float(tab.a[n] + P.sum()), c_max=float(tab.c_up[n]),
                   S=S.astype(float), F0=F0, Fs=S.astype(float).copy())


def sequence_counts(tab: JobTable, n: int, types: np.ndarray) -> np.ndarray:
    """``(R_n, K)`` counts of a one-type-per-round schedule whose round ``r`` runs on ``types[r]``."""
    R = int(tab.R[n])
    counts = np.zeros((R, tab.num_types), dtype=np.int64)
    counts[np.arange(R), np.asarray(types, dtype=np.int64)] = int(tab.D[n])
    return counts


# ---------------------------------------------------------------------------
# pricing


@dataclass
class Priced:
    """The cheapest schedule of each job for given ``(alpha, mu)``.

    Attributes
    ----------
    value
        ``psi_n``: the job's minimum Lagrangian cost.
    types
        Per job, the type of each round (in round order).
    C
        Per job, the completion time of the cheapest schedule.
    """

    value: np.ndarray
    types: list[np.ndarray]
    C: np.ndarray


def price(tab: JobTable, alpha: np.ndarray, mu: np.ndarray, jobs: np.ndarray | None = None) -> Priced:
    """Exact minimum of every job's Lagrangian cost (facts 1-3 of the module docstring).

    Jobs are grouped by their number of rounds; each group's multisets of
    round types are evaluated at once.  Jobs with more than
    :data:`MAX_MULTISETS` multisets go to :func:`price_job_dp`.
    """
    alpha = np.asarray(alpha, dtype=float)
    mu = np.asarray(mu, dtype=float)
    J, K = tab.num_jobs, tab.num_types
    jobs = np.arange(J) if jobs is None else np.asarray(jobs, dtype=np.int64)
    value = np.full(J, np.nan)
    C = np.full(J, np.nan)
    types: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * J
    for R in np.unique(tab.R[jobs]).tolist():
        grp = jobs[tab.R[jobs] == R]
        if num_multisets(R, K) > MAX_MULTISETS:
            for n in grp.tolist():
                value[n], types[n], C[n] = price_job_dp(tab, n, alpha, mu)
            continue
        _price_group(tab, grp, int(R), alpha, mu, value, types, C)
    return Priced(value=value, types=types, C=C)


def _price_group(tab: JobTable, grp: np.ndarray, R: int, alpha: np.ndarray, mu: np.ndarray,
                 value: np.ndarray, types: list[np.ndarray], C: np.ndarray, chunk: int = 2_000_000) -> None:
    K = tab.num_types
    Nu = multisets(R, K).astype(float)  # (M, K)
    M = Nu.shape[0]
    step = max(1, chunk // max(1, M * K))
    for s in range(0, len(grp), step):
        g = grp[s:s + step]
        T, p = tab.T[g], tab.p[g]  # (G, K)
        D, a, w, cup = tab.D[g], tab.a[g], tab.w[g], tab.c_up[g]
        # position of each type in the job's round order
        key = mu[None, :] * T / p
        order = np.lexsort((np.broadcast_to(np.arange(K), key.shape), key), axis=1)
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.arange(K)[None, :].repeat(len(g), 0), axis=1)
        before = (pos[:, :, None] < pos[:, None, :]).astype(float)  # [n, l, k]: l runs before k
        prior = np.einsum("ml,nl,nlk->nmk", Nu, p, before)  # time of the rounds before type k's block
        P = Nu @ p.T  # (M, G)
        P = P.T  # (G, M)
        DT = D[:, None] * T  # (G, K)
        S = Nu[None, :, :] * DT[:, None, :]  # (G, M, K)
        F0 = DT[:, None, :] * (Nu[None] * (prior - P[:, :, None] + T[:, None, :] / 2.0)
                               + p[:, None, :] * Nu[None] * (Nu[None] - 1.0) / 2.0)
        base = S @ alpha - F0 @ mu  # (G, M)
        slope = w[:, None] - S @ mu  # (G, M): d cost / d C
        cmin = a[:, None] + P
        feasible = cmin <= cup[:, None] * (1 + 1e-12) + 1e-12
        lo = np.where(feasible, base + slope * cmin, np.inf)
        hi = np.where(feasible, base + slope * cup[:, None], np.inf)
        at_hi = hi < lo
        best = np.where(at_hi, hi, lo)
        m = np.argmin(best, axis=1)
        rows = np.arange(len(g))
        value[g] = best[rows, m]
        C[g] = np.where(at_hi[rows, m], cup, cmin[rows, m])
        for q, n in enumerate(g.tolist()):
            nu = Nu[m[q]].astype(np.int64)
            types[n] = np.repeat(order[q], nu[order[q]])


def price_job_dp(tab: JobTable, n: int, alpha: np.ndarray, mu: np.ndarray) -> tuple[float, np.ndarray, float]:
    """The minimum of job ``n``'s Lagrangian cost by a dynamic program over its rounds.

    The same minimum as the enumeration of :func:`price` (tested); used when
    the job has too many multisets of round types.  A round on type ``k``
    ending at ``B`` costs ``D (g_k - h_k B)`` with
    ``g_k = T_k (alpha_k + mu_k (p_k - T_k/2))``, ``h_k = mu_k T_k``.  Two
    programs, one per endpoint of ``C_n`` (fact 3):

    * ``C = c_up`` -- backwards from the last round, state ``Q`` (length of the
      later rounds): a round costs ``D (g_k - h_k (c_up - Q))``; states with
      larger ``Q`` and larger cost are dominated (later costs grow with ``Q``,
      feasibility needs ``Q <= c_up - a``);
    * ``C = a + sum p`` -- forwards, state ``E`` (time since the arrival): a
      round costs ``D (g_k - h_k (a + E'))``, the end adds ``w (a + E)``; the
      rest costs ``(w - D sum h) E`` + terms free of ``E``, with slope at least
      ``beta = w - D max_k h_k * (rounds left)``, so ``(E1, V1)`` dominates
      ``(E2, V2)`` when ``E1 <= E2`` and ``V1 + beta E1 <= V2 + beta E2``.

    Returns ``(value, types of the rounds, C)``.
    """
    T, p = tab.T[n], tab.p[n]
    D, a, w, cup = float(tab.D[n]), float(tab.a[n]), float(tab.w[n]), float(tab.c_up[n])
    R, K = int(tab.R[n]), tab.num_types
    g = T * (alpha + mu * (p - T / 2.0))
    h = mu * T
    room = cup - a + 1e-12 * max(1.0, abs(cup)) + 1e-12
    best = (math.inf, np.zeros(0, dtype=np.int64), math.nan)
    # C = c_up: backwards
    states = [(0.0, 0.0, ())]  # (Q, V, types from the end)
    for _ in range(R):
        cand = [(Q + p[k], V + D * (g[k] - h[k] * (cup - Q)), tl + (k,)) for Q, V, tl in states for k in range(K)
                if Q + p[k] <= room]
        states = _pareto(cand, 0.0)
    for Q, V, tl in states:
        v = V + w * cup
        if v < best[0]:
            best = (v, np.array(tl[::-1], dtype=np.int64), cup)
    # C = a + sum p: forwards
    hmax = float(D * h.max()) if K else 0.0
    fstates = [(0.0, 0.0, ())]
    for r in range(R):
        beta = w - hmax * (R - r - 1)
        cand = [(E + p[k], V + D * (g[k] - h[k] * (a + E + p[k])), tl + (k,)) for E, V, tl in fstates
                for k in range(K) if E + p[k] <= room]
        fstates = _pareto(cand, beta)
    for E, V, tl in fstates:
        v = V + w * (a + E)
        if v < best[0]:
            best = (v, np.array(tl, dtype=np.int64), a + E)
    return best


def _pareto(cand: list[tuple[float, float, tuple]], beta: float) -> list[tuple[float, float, tuple]]:
    """States not dominated: ``(E1, V1)`` dominates ``(E2, V2)`` when ``E1 <= E2``
    and ``V1 + beta E1 <= V2 + beta E2`` (ties: the first kept)."""
    cand.sort(key=lambda s: (s[0], s[1] + beta * s[0]))
    out = []
    low = math.inf
    for s in cand:
        key = s[1] + beta * s[0]
        if key < low:
            out.append(s)
            low = key
    return out


def job_cost(tab: JobTable, seg: Segment, C: float, alpha: np.ndarray, mu: np.ndarray) -> float:
    """``w_n C + sum_k (alpha_k S_k - mu_k F_k)`` of a segment at completion ``C``."""
    return float(tab.w[seg.job] * C + seg.S @ alpha - seg.F(C) @ mu)
