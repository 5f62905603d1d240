"""Sched_Allox (Hare, HPDC'22, Section 7.1, after AlloX [24]) as a Hare_Sched schedule.

Method ``allox`` of problem ``"hare"`` (kind ``"heuristic"``): min-cost
bipartite matching of jobs to (GPU, position) slots, one GPU per job, no
intra-job parallelism.  The reading, with the sentences it comes from, is in
``models/hare-baselines.md``; the allocation record, the ``sizes`` option and
the result bookkeeping are shared with the other baselines (:mod:`.baselines`).

**Complexity.**  One assignment problem per distinct arrival time on the pool
of ``J`` waiting jobs, over the slots some job may use in an optimum
(:func:`allox_columns`, about ``J + 70`` on Hare's 160 GPUs at load 0.9,
instead of ``~ 4 J ln M``), unless an exact shortcut applies; ties are broken
by a fixed rule (:func:`_allox_arrange`), not by the solver.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...kit import Run, method
from ...result import Result
from .baselines import SIZES_OPTION, _Alloc, _result
from .instance import HareInstance


def allox_processing_time(inst: HareInstance, n: int, m: int) -> float:
    """Time job ``n`` occupies the schedule alone on GPU ``m``: ``R (K T^c + T^s)``."""
    job = inst.jobs[n]
    t = inst.gpu_type_index[m]
    return job.rounds * (job.tasks_per_round * float(inst.tc_type[n, t]) + float(inst.ts_type[n, t]))


def allox_slots(busy: np.ndarray, types: np.ndarray, J: int) -> tuple[np.ndarray, np.ndarray]:
    """The (GPU, position) slots an optimal matching of ``J`` jobs may need.

    Slot ``(m, k)`` (``k``-th job from the end of GPU ``m``) costs
    ``k p_{j,type(m)} + busy[m]``.  Within a GPU type, sort the GPUs by
    ``(busy, index)``; the GPU at rank ``r`` (0-based) has ``(r+1) k - 1``
    other slots of its type that cost no more for *every* job (ranks
    ``<= r``, positions ``<= k``).  Keeping only the slots with
    ``(r+1) k <= J`` keeps an optimal matching: an optimal matching that uses
    a dropped slot has a free kept slot among those cheaper ones (at least
    ``J`` of them are kept, at most ``J - 1`` are taken by other jobs), so
    moving the job there costs nothing more (``models/hare-baselines.md``).
    Returns ``(gpu, k)`` of the kept slots, about ``J ln(M)`` per type.
    """
    gpus, ks = [], []
    for t in np.unique(types):
        idx = np.flatnonzero(types == t)
        idx = idx[np.lexsort((idx, busy[idx]))]
        for r, m in enumerate(idx.tolist()):
            kmax = J // (r + 1)
            if kmax == 0:
                break
            gpus.extend([m] * kmax)
            ks.extend(range(1, kmax + 1))
    return np.asarray(gpus, dtype=np.int64), np.asarray(ks, dtype=float)


def allox_matching(proc: np.ndarray, busy: np.ndarray, types: np.ndarray | None = None) -> list[list[int]]:
    """AlloX's min-cost bipartite matching of jobs to (GPU, position) slots
    (see :func:`_allox_queues`): per GPU, the pool jobs matched to it in run order."""
    out: list[list[int]] = [[] for _ in range(proc.shape[1])]
    for m, q in _allox_queues(proc, busy, types):
        out[m] = q
    return out


def _type_orders(busy: np.ndarray, types: np.ndarray) -> dict[int, np.ndarray]:
    """The GPUs of every type present, sorted by ``(busy, index)``."""
    o = np.lexsort((busy, types))  # stable: equal busy times stay in index order
    cnt = np.bincount(types).tolist()
    out, s = {}, 0
    for t, c in enumerate(cnt):
        if c:
            out[t] = o[s:s + c]
            s += c
    return out


@functools.lru_cache(maxsize=4096)
def _staircase_ranks(R: int, L: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rank, k)`` with ``(rank + 1) k <= L``, ``rank < R``."""
    kmax = L // np.arange(1, min(R, L) + 1)
    kmax = kmax[kmax > 0]
    off = np.repeat(np.cumsum(kmax) - kmax, kmax)
    ks = np.arange(int(kmax.sum())) - off + 1
    return np.repeat(np.arange(len(kmax)), kmax), ks


def _staircase(order: np.ndarray, L: int) -> tuple[np.ndarray, np.ndarray]:
    """Slots ``(order[r], k)`` with ``(r + 1) k <= L`` (rank ``r`` in ``order``)."""
    r, ks = _staircase_ranks(len(order), L)
    return order[r], ks


def allox_columns(ptype: np.ndarray, busy: np.ndarray, types: np.ndarray,
                  orders: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The slots of :func:`allox_slots` that some job may use in an optimum.

    Parameters
    ----------
    ptype
        ``ptype[j, t]``: processing time of pool job ``j`` on a GPU of type ``t``
        (``t`` indexes ``types``' values).
    busy, types
        Per GPU: time until it is free, and its type.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``(gpu, k)`` of the kept slots, a subset of :func:`allox_slots`'s.

    Notes
    -----
    *Every* optimal matching puts each job ``j`` on a slot that costs at most
    ``theta_j``, the ``J``-th smallest of its slot costs: a job on a dearer
    slot has ``J`` cheaper ones, at most ``J - 1`` of them taken by the other
    jobs, and moving it to a free one costs strictly less.  Any ``J`` slots
    bound ``theta_j`` from above; we take the ``J``-th smallest cost of ``j``
    over the staircase ``(r + 1) k <= ceil(2 J / types)`` of every type
    (at least ``J`` slots).  A slot ``(m, k)`` of type ``t`` is kept iff
    ``k p_{j,t} + b_m <= theta_j`` for some ``j``, i.e. ``b_m <=
    max_j (theta_j - k p_{j,t})`` (with a relative margin of ``1e-9`` for
    rounding, which only keeps more): the kept slots hold every optimal
    matching of :func:`allox_slots`'s problem, so the assignment restricted to
    them has the same optimal cost.  About ``J + 70`` slots instead of
    ``~ 4 J ln(M)`` on Hare's 160 GPUs.
    """
    J = ptype.shape[0]
    if orders is None:
        orders = _type_orders(busy, types)
    L = -(-2 * J // len(orders))
    parts = [_staircase(o, L) for o in orders.values()]
    g0 = np.concatenate([p[0] for p in parts])
    k0 = np.concatenate([p[1] for p in parts]).astype(float)
    c0 = ptype[:, types[g0]] * k0[None, :] + busy[g0][None, :]
    theta = np.partition(c0, J - 1, axis=1)[:, J - 1] if c0.shape[1] > J else c0.max(axis=1)
    theta = theta + 1e-9 * max(1.0, float(np.abs(theta).max()))
    ks = np.arange(1, J + 1)
    tl = list(orders)
    G = np.max(theta[:, None, None] - ptype[:, tl, None] * ks[None, None, :], axis=0)  # types x J
    gpus, kk = [], []
    for i, (t, o) in enumerate(orders.items()):
        cnt = np.minimum(np.searchsorted(busy[o], G[i], side="right"), np.minimum(len(o), J // ks))
        tot = int(cnt.sum())
        if tot:
            off = np.repeat(np.cumsum(cnt) - cnt, cnt)
            gpus.append(o[np.arange(tot) - off])
            kk.append(np.repeat(ks, cnt))
    return np.concatenate(gpus), np.concatenate(kk).astype(float)


#: pools of at most this many jobs are matched over every slot of :func:`allox_slots`
#: (the filter of :func:`allox_columns` costs more than it saves)
SMALL_POOL = 16


def _allox_labels(ptype: np.ndarray, busy: np.ndarray, types: np.ndarray,
                  orders: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """An optimal matching as ``(type, k)`` per pool job (:func:`_allox_queues`)."""
    J = ptype.shape[0]
    # Shortcut (exact): every job costs at least min_t (p_{j,t} + min busy of type t).
    # If no type is the best of more jobs than it has GPUs at its minimum busy time,
    # each of them alone on one of those GPUs attains every job's bound.
    tlist = list(orders)
    bmin = np.array([busy[orders[t][0]] for t in tlist])
    nmin = np.array([int(np.count_nonzero(busy[orders[t]] == busy[orders[t][0]])) for t in tlist])
    best = np.argmin(ptype[:, tlist] + bmin[None, :], axis=1)
    if np.all(np.bincount(best, minlength=len(tlist)) <= nmin):
        return np.asarray(tlist)[best], np.ones(J)
    from scipy.optimize import linear_sum_assignment

    if J <= SMALL_POOL:  # few slots anyway: the staircase of allox_slots, without the filter
        parts = [_staircase(o, J) for o in orders.values()]
        sg = np.concatenate([q[0] for q in parts])
        sk = np.concatenate([q[1] for q in parts]).astype(float)
    else:
        sg, sk = allox_columns(ptype, busy, types, orders)
    tg = types[sg]
    cost = ptype[:, tg] * sk[None, :] + busy[sg][None, :]
    rows, cols = linear_sum_assignment(cost)
    lt = np.empty(J, dtype=np.int64)
    lk = np.empty(J)
    lt[rows] = tg[cols]
    lk[rows] = sk[cols]
    return lt, lk


def _allox_arrange(lt: np.ndarray, lk: np.ndarray, busy: np.ndarray, orders: dict[int, np.ndarray],
                   gap: np.ndarray, cls: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The canonical placement of a matching given as ``(type, k)`` per job.

    A matching's cost ``sum_j (k_j p_{j,t_j} + b_{m_j})`` depends only on
    which jobs take position ``k`` (from the end) on type ``t`` and on the
    busy times of the GPUs holding those positions; so every optimal
    matching has the same cost in the canonical form built here, and ties
    of the assignment (jobs of one position swapped between GPUs of one type,
    GPUs of equal busy time, jobs with equal times on every type) are broken
    by this rule, whatever the assignment solver returned:

    * position ``k`` of type ``t`` is held by the type's first ``f_{t,k}``
      GPUs by ``(busy, index)`` (``f_{t,k}`` jobs have that position; the
      cheapest busy times, as in every optimum);
    * positions are filled from the largest ``k`` (runs first) down; at each,
      the jobs go in arrival order to the GPUs by ready time (then index), a
      job of a class of jobs with equal times on every type taking its
      class's earliest arrival as its place in that order;
    * within such a class, the earliest-arrived job takes the earliest start.

    Parameters
    ----------
    lt, lk
        Type and position of every pool job (the pool is in arrival order).
    busy, orders
        Per GPU the time until it is free; the GPUs of every type by ``(busy, index)``.
    gap
        ``gap[j, t]``: time from job ``j``'s start on a type-``t`` GPU to the
        next start there.
    cls
        Class of every pool job (equal ids = equal times); default: from ``gap``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Every job's GPU and start time relative to now.
    """
    J = len(lt)
    ar = np.arange(J)
    if cls is None:
        cls = np.unique(gap, axis=0, return_inverse=True)[1].reshape(-1)
    _, inv, cnt = np.unique(cls, return_inverse=True, return_counts=True)
    first = np.full(len(cnt), J)
    np.minimum.at(first, inv, ar)
    ck = first[inv]
    o = np.lexsort((ar, ck, -lk, lt))
    lto, lko = lt[o], lk[o]
    cut = np.flatnonzero((lto[1:] != lto[:-1]) | (lko[1:] != lko[:-1])) + 1
    bounds = [0, *cut.tolist(), J]
    ready = np.asarray(busy, dtype=float).copy()
    gpu = np.empty(J, dtype=np.int64)
    st = np.empty(J)
    for a, b in zip(bounds[:-1], bounds[1:]):
        js = o[a:b]
        t = int(lto[a])
        ms = orders[t][:b - a]
        ms = ms[np.lexsort((ms, ready[ms]))]
        gpu[js] = ms
        st[js] = ready[ms]
        ready[ms] += gap[js, t]
    if len(cnt) < J:  # equal jobs: the i-th to arrive takes the class's i-th slot by (start, GPU)
        members = np.lexsort((ar, inv))
        slots = np.lexsort((gpu, st, inv))
        gpu[members], st[members] = gpu[slots], st[slots]
    return gpu, st


def _queues_of(gpu: np.ndarray, st: np.ndarray) -> list[tuple[int, list[int]]]:
    """``[(m, jobs of m by start)]`` for the GPUs that get jobs, by index."""
    o = np.lexsort((st, gpu))
    g = gpu[o]
    cut = np.flatnonzero(g[1:] != g[:-1]) + 1
    if not len(o):
        return []
    return [(int(gpu[q[0]]), q.tolist()) for q in np.split(o, cut)]


def _allox_queues(proc: np.ndarray, busy: np.ndarray, types: np.ndarray | None = None,
                  gap: np.ndarray | None = None) -> list[tuple[int, list[int]]]:
    """AlloX's min-cost bipartite matching of jobs to (GPU, position) slots.

    Parameters
    ----------
    proc
        ``proc[j, m]``: processing time of pool job ``j`` on GPU ``m``.
    busy
        ``busy[m]``: time until GPU ``m`` is free.
    types
        GPU types (``proc`` is equal on GPUs of one type); default: every GPU
        its own type.
    gap
        ``gap[j, m]``: time from job ``j``'s start on GPU ``m`` until the GPU
        can start the next job (default ``proc``); used only to order ties.

    Returns
    -------
    list of (int, list of int)
        The GPUs that get jobs, each with the pool jobs matched to it in run
        order (GPUs in index order).  The job in the
        ``k``-th position from the end of GPU ``m`` delays ``k`` completions by
        its processing time, so its cost is ``k * proc[j, m] + busy[m]``; the
        assignment minimises the total (unweighted) completion time of the pool
        (exact without arrivals, Bruno-Coffman-Sethi), solved by
        ``scipy.optimize.linear_sum_assignment`` over the slots of
        :func:`allox_columns` (a subset of :func:`allox_slots` that holds every
        optimum); ties are broken by :func:`_allox_arrange`.
    """
    J, M = proc.shape
    busy = np.asarray(busy, dtype=float)
    if J == 0:
        return []
    types = np.arange(M) if types is None else np.asarray(types)
    T = int(types.max()) + 1
    rep = np.zeros(T, dtype=np.int64)
    rep[types[::-1]] = np.arange(M)[::-1]  # first GPU of every type
    ptype = proc[:, rep]
    gtype = ptype if gap is None else np.asarray(gap, dtype=float)[:, rep]
    return _allox_plan(ptype, gtype, busy, types)


def _allox_plan(ptype: np.ndarray, gap: np.ndarray, busy: np.ndarray,
                types: np.ndarray) -> list[tuple[int, list[int]]]:
    """:func:`_allox_queues` from per-type times ``ptype[j, t]``, ``gap[j, t]``."""
    if ptype.shape[0] == 0:
        return []
    return _queues_of(*_allox_place(ptype, gap, busy, types))


def _allox_place(ptype: np.ndarray, gap: np.ndarray, busy: np.ndarray, types: np.ndarray,
                 cls: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every pool job's GPU and start (relative) in AlloX's canonical optimal matching."""
    if ptype.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    if ptype.shape[0] == 1:
        # one job: the shortcut (its best type by p + least busy time, first type on
        # ties) and the placement (that type's GPU by (busy, index)), without the set-up
        tl = np.flatnonzero(np.bincount(types))
        bt = np.full(len(tl), np.inf)
        np.minimum.at(bt, np.searchsorted(tl, types), busy)
        i = int(np.argmin(ptype[0, tl] + bt))
        g = np.flatnonzero(types == tl[i])
        m = int(g[np.argmin(busy[g])])
        return np.array([m], dtype=np.int64), np.array([float(busy[m])])
    orders = _type_orders(busy, types)
    lt, lk = _allox_labels(ptype, busy, types, orders)
    return _allox_arrange(lt, lk, busy, orders, gap, cls)


@method(
    "hare", "allox", kind="heuristic",
    description="Sched_Allox: job-level min-cost matching of jobs to GPU slots, no intra-job parallelism",
    options=[SIZES_OPTION],
)
def solve_allox(inst: HareInstance, run: Run) -> Result:
    """Sched_Allox (Hare Section 7.1, after AlloX [24]).

    Every job runs on one GPU, all its tasks one after another (no intra-job
    parallelism): on GPU ``m`` starting at ``s`` its task ``(r, k)`` starts at
    ``s + r (K T^c + T^s) + k T^c``, so the job takes
    ``R (K T^c + T^s)`` (:func:`allox_processing_time`).  At each distinct
    arrival time ``t`` the arrived, unstarted jobs are matched to GPU slots by
    :func:`allox_matching` with the GPUs' remaining busy times; each GPU then
    runs its queue, and the jobs that start before the next arrival are
    committed (the others are re-matched then).  Like AlloX it minimises
    unweighted completion time.  Among optimal matchings (they tie, e.g.,
    whenever two jobs of one position swap GPUs of one type) the placement of
    :func:`_allox_arrange` is taken: earlier arrivals start first.

    With ``sizes="unit"`` the matching takes every waiting job as one round
    long (processing times ``K T^c + T^s``); the GPUs' remaining busy times it
    sees and the schedule itself use the real sizes.
    """
    N, M = inst.num_jobs, inst.num_gpus
    K = inst.tasks_per_round_arr.astype(float)
    Rr = inst.rounds_arr.astype(float)
    types = inst.gpu_type_index
    # processing time per job and GPU type, and the round period D = K T^c + T^s
    D_type = K[:, None] * inst.tc_type + inst.ts_type
    P_type = Rr[:, None] * D_type
    G_type = P_type - inst.ts_type  # start to the next start on the GPU (the last sync overlaps)
    if run.options["sizes"] == "unit":  # what the matching sees: every job one round long
        P_type, G_type = D_type, D_type - inst.ts_type
    cls = (np.unique(np.concatenate([P_type, G_type], axis=1), axis=0, return_inverse=True)[1].reshape(-1)
           if N else np.zeros(0, dtype=np.int64))  # jobs with equal times on every type
    phi = np.zeros(M)
    arrivals = inst.arrival
    by_arrival = np.lexsort((np.arange(N), arrivals))
    times = np.unique(arrivals)
    alloc = _Alloc()
    C = np.zeros(N)
    pool: list[int] = []
    ptr = 0
    matchings = 0
    skipped = 0
    largest = 0
    for e, t in enumerate(times.tolist()):
        while ptr < N and arrivals[by_arrival[ptr]] <= t:
            pool.append(int(by_arrival[ptr]))
            ptr += 1
        nxt = times[e + 1] if e + 1 < len(times) else math.inf
        if float(phi.min()) >= nxt:
            # no GPU is free before the next arrival: no job of this matching could
            # start, so none would be committed; the next arrival re-matches the pool
            skipped += 1
            continue
        pool_arr = np.asarray(pool, dtype=np.int64)
        J = len(pool)
        run.require(memory_bytes=8.0 * J * J * len(inst.gpu_types) * (1.0 + math.log(M)) * 3,
                    what=f"AlloX's matching of {J} waiting jobs at t={t:g}")
        gpu, st = _allox_place(P_type[pool_arr], G_type[pool_arr], np.maximum(phi - t, 0.0), types,
                               cls[pool_arr])
        matchings += 1
        largest = max(largest, len(pool))
        started = set()
        # only GPUs free before the next arrival can start a job now
        sel = np.flatnonzero(phi[gpu] < nxt)
        queues: dict[int, list[int]] = {}
        for j in sel[np.lexsort((st[sel], gpu[sel]))].tolist():
            queues.setdefault(int(gpu[j]), []).append(j)
        for m, q in sorted(queues.items()):
            tm = int(types[m])
            for j in q:
                n = pool[j]
                s = max(float(phi[m]), t)
                if s >= nxt:
                    break
                d = float(D_type[n, tm])
                alloc.add(n, 0, int(Rr[n]), s, d, [m])
                C[n] = s + Rr[n] * d
                phi[m] = s + Rr[n] * d - float(inst.ts_type[n, tm])  # free after the last training
                started.add(n)
        pool = [n for n in pool if n not in started]
    sched = alloc.schedule(inst, sequential=True)
    return _result(run, inst, sched, C, matchings=matchings, matchings_skipped=skipped, largest_pool=largest)
