"""The baselines of Hare's evaluation (HPDC'22, Section 7.1) as Hare_Sched schedules.

Each is a method of problem ``"hare"`` (kind ``"heuristic"``) returning a
:class:`~.solution.HareSchedule` that the Hare validator accepts ((4) arrival,
(7) round barriers including synchronisation, (8) no training overlap on a
GPU).  Every reading is written down, with the sentences it comes from, in
``models/hare-baselines.md``.

Job-level (the paper's reading of the existing schedulers: "They treat each
DML job as a unsplittable unit when making scheduling decisions", Section 1;
a job keeps its GPUs from its first round to its last):

``fifo``  (Gavel-FIFO) jobs in arrival order; a job waits until
          ``g = min(K, M)`` GPUs are free at once, takes the fastest free ones
          and keeps them; strict FIFO (``backfill=True``: later jobs that fit go first).
``srtf``  shortest remaining (= total, estimated on the job's fastest GPUs)
          time first among the waiting jobs; non-preemptive; backfilling.
``homo``  (Sched_Homo, Zhang et al. [47]) heterogeneity-oblivious: Smith's ratio
          on the cluster's mean times, GPUs drawn at random among the free ones
          (seeded; the result depends only on the multiset of GPU types and the seed).
``allox`` (Sched_Allox, AlloX [24]) min-cost bipartite matching of jobs to
          (GPU, position) slots, one GPU per job, no intra-job parallelism.

Round-level (our earlier reading, Hare's own execution model; kept under
their own names): ``fifo-round``, ``srtf-round`` decide at every round and give
the GPUs back between rounds.

**Complexity.**  Event-driven with heaps: GPU releases and job arrivals in
heaps, free GPUs in one heap per GPU type (``fastest``) or a canonical free
list (``homo``), waiting jobs in one heap per gang size (so backfilling finds
the best job that fits in ``O(#gang sizes + log n)``).  A job's whole
timeline on its gang is closed-form (every round of a job lasts the same on
the same gang), so the task start times are filled in at the end with NumPy:
``O(n log n + T)`` for ``n`` jobs and ``T`` tasks.  ``allox`` solves one
assignment problem per distinct arrival time on the pool of ``J`` waiting
jobs, over the slots some job may use in an optimum (:func:`allox_columns`,
about ``J + 70`` on Hare's 160 GPUs at load 0.9, instead of ``~ 4 J ln M``),
unless an exact shortcut applies; ties are broken by a fixed rule
(:func:`_allox_arrange`), not by the solver.

Timing conventions shared with Algorithm 1: a task occupies its GPU during
training ``[x, x + T^c)``; its synchronisation ``T^s`` overlaps whatever runs
next on the GPU; the job's next round may start once every task of the round
has finished ``x + T^c + T^s``.
"""

from __future__ import annotations

import functools
import heapq
import math
from typing import Callable

import numpy as np

from ...kit import Option, Run, method
from ...result import Result
from .instance import HareInstance
from .solution import HareSchedule


# ---------------------------------------------------------------------------
# shared estimates


def best_round_times(inst: HareInstance) -> np.ndarray:
    """Fastest possible duration of one round of every job on this cluster.

    ``min_m ceil(K / g) T^c_{n,m} + T^s_{n,m}`` with ``g = min(K, M)``: every
    task of the round on the job's best GPU type, in ``ceil(K/g)`` waves.
    """
    K = inst.tasks_per_round_arr
    g = np.minimum(K, inst.num_gpus)
    waves = -(-K // g)
    return np.min(waves[:, None] * inst.tc_type + inst.ts_type, axis=1)


def best_round_time(inst: HareInstance, n: int) -> float:
    """:func:`best_round_times` of job ``n``."""
    job = inst.jobs[n]
    waves = -(-job.tasks_per_round // min(job.tasks_per_round, inst.num_gpus))
    return float(np.min(waves * inst.tc_type[n] + inst.ts_type[n]))


def homo_estimate(inst: HareInstance, n: int) -> tuple[int, float]:
    """Sched_Homo's view of job ``n``: GPUs ``g`` and duration on identical GPUs.

    ``g = min(K, M)``; the duration uses the cluster's mean times
    ``p = mean_m T^c_{n,m}``, ``s = mean_m T^s_{n,m}``:
    ``rounds * (ceil(K / g) * p + s)``.
    """
    g, d = _homo_estimates(inst)
    return int(g[n]), float(d[n])


def _homo_estimates(inst: HareInstance, sizes: str = "known") -> tuple[np.ndarray, np.ndarray]:
    counts = np.bincount(inst.gpu_type_index, minlength=len(inst.gpu_types)).astype(float)
    p = inst.tc_type @ counts / inst.num_gpus
    s = inst.ts_type @ counts / inst.num_gpus
    K = inst.tasks_per_round_arr
    g = np.minimum(K, inst.num_gpus)
    rounds = inst.rounds_arr if sizes == "known" else np.ones_like(inst.rounds_arr)
    return g, rounds * (-(-K // g) * p + s)


#: option ``sizes`` of ``homo`` and ``allox``: what the scheduler knows of a job's size
SIZES_OPTION = Option(
    "sizes", str, "known", "'known': the job's rounds (Hare's offline setting); 'unit': every job looks one round "
    "long, the HLAS paper's online baselines ('we use a unit job size to disable the job size information', "
    "Section VI-D)", choices=("known", "unit"))


# ---------------------------------------------------------------------------
# the gang engine (job-level and round-level)


class _Alloc:
    """Allocations: a job ``n`` runs rounds ``r0 .. r0 + count - 1`` on ``gang``
    from ``start``, every round lasting ``D``."""

    def __init__(self) -> None:
        self.job: list[int] = []
        self.r0: list[int] = []
        self.count: list[int] = []
        self.start: list[float] = []
        self.D: list[float] = []
        self.gang_off: list[int] = [0]
        self.gangs: list[int] = []

    def add(self, n: int, r0: int, count: int, start: float, D: float, gang: list[int]) -> None:
        self.job.append(n)
        self.r0.append(r0)
        self.count.append(count)
        self.start.append(start)
        self.D.append(D)
        self.gangs.extend(gang)
        self.gang_off.append(len(self.gangs))

    def schedule(self, inst: HareInstance, sequential: bool = False) -> HareSchedule:
        """Every task's GPU and start time (vectorised).

        Gang mode: task ``k`` of a round goes to gang slot ``k mod g``, in
        position ``k // g`` there; it starts at ``start + (r - r0) D + (k // g) T^c``.
        ``sequential`` (AlloX, gang of one): task ``(r, k)`` starts at
        ``start + r D + k T^c`` with ``D = K T^c + T^s``.
        """
        N = inst.num_tasks
        job = np.asarray(self.job, dtype=np.int64)
        r0 = np.asarray(self.r0, dtype=np.int64)
        cnt = np.asarray(self.count, dtype=np.int64)
        K = inst.tasks_per_round_arr[job]
        lo = inst.job_offset[job] + r0 * K
        size = cnt * K
        if int(size.sum()) != N:  # pragma: no cover - a bug, never a silent partial schedule
            raise RuntimeError("hare baselines: some tasks were not scheduled")
        order = np.argsort(lo, kind="stable")
        a = np.repeat(order, size[order])  # allocation of every task, in task order
        task = np.arange(N, dtype=np.int64)
        if N and not np.array_equal(np.repeat(lo[order], size[order]) + (task - np.repeat(
                np.cumsum(size[order]) - size[order], size[order])), task):  # pragma: no cover
            raise RuntimeError("hare baselines: allocations do not tile the tasks")
        local = task - lo[a]
        Ka = K[a]
        rr = local // Ka
        k = local % Ka
        goff = np.asarray(self.gang_off, dtype=np.int64)
        g = (goff[1:] - goff[:-1])[a]
        gangs = np.asarray(self.gangs, dtype=np.int64)
        n = job[a]
        start = np.asarray(self.start, dtype=float)[a]
        D = np.asarray(self.D, dtype=float)[a]
        if sequential:
            gpu = gangs[goff[:-1][a]]
            tcv = inst.tc_type[n, inst.gpu_type_index[gpu]]
            x = start + rr * D + k * tcv
        else:
            gpu = gangs[goff[:-1][a] + k % g]
            tcv = inst.tc_type[n, inst.gpu_type_index[gpu]]
            x = start + rr * D + (k // g) * tcv
        return HareSchedule(gpu=gpu, start=x)


def _gang_timeline(inst: HareInstance, n: int, gang: list[int], tc: list[list[float]],
                   ts: list[list[float]], gtype: list[int]) -> tuple[float, list[float]]:
    """``(D, busy)``: the round duration of job ``n`` on ``gang`` (tasks dealt in
    turn, back to back) and the training time of one round on each gang GPU."""
    K = inst.jobs[n].tasks_per_round
    g = len(gang)
    D = 0.0
    busy = []
    tcn, tsn = tc[n], ts[n]
    for q, m in enumerate(gang):
        c = (K - q + g - 1) // g
        t = gtype[m]
        b = c * tcn[t]
        busy.append(b)
        d = b + tsn[t]
        if c and d > D:
            D = d
    return D, busy


class _FreeFastest:
    """Free GPUs, one heap of indices per type; a job takes its fastest types first
    (by ``T^c``, then ``T^s``, then type order), lowest indices within a type."""

    def __init__(self, inst: HareInstance):
        self.gtype = inst.gpu_type_index.tolist()
        T = len(inst.gpu_types)
        self.heaps: list[list[int]] = [[] for _ in range(T)]
        for m, t in enumerate(self.gtype):
            self.heaps[t].append(m)
        for h in self.heaps:
            heapq.heapify(h)
        self.count = inst.num_gpus
        tc, ts = inst.tc_type, inst.ts_type
        tix = np.arange(T)
        # per job: types in preference order
        self.pref = np.lexsort((np.broadcast_to(tix, tc.shape), ts, tc), axis=1).tolist() if inst.num_jobs else []

    def take(self, n: int, g: int) -> list[int]:
        out: list[int] = []
        for t in self.pref[n]:
            h = self.heaps[t]
            while h and len(out) < g:
                out.append(heapq.heappop(h))
            if len(out) == g:
                break
        self.count -= g
        return out

    def give(self, m: int) -> None:
        heapq.heappush(self.heaps[self.gtype[m]], m)
        self.count += 1


class _FreeRandom:
    """Free GPUs for a heterogeneity-oblivious scheduler: each GPU taken is
    drawn uniformly at random among the free ones (seeded).

    GPUs are handled by their *canonical* rank (sorted by type name, then by
    position within the type), and every draw and release is a function of
    canonical ranks only, so the schedule, up to relabelling GPUs of the same
    type, depends on the multiset of GPU types and the seed, never on the
    order in which the instance lists its GPUs."""

    def __init__(self, inst: HareInstance, seed: int):
        gt = list(inst.gpus)
        self.canon = sorted(range(len(gt)), key=lambda m: (gt[m], m))  # rank -> GPU index
        self.rank = [0] * len(gt)
        for r, m in enumerate(self.canon):
            self.rank[m] = r
        self.free = list(range(len(gt)))  # canonical ranks
        self.count = len(gt)
        self.rng = np.random.default_rng(seed)

    def take(self, n: int, g: int) -> list[int]:
        out = []
        draws = self.rng.random(g).tolist()
        for u in draws:
            i = int(u * len(self.free))
            self.free[i], self.free[-1] = self.free[-1], self.free[i]
            out.append(self.canon[self.free.pop()])
        self.count -= g
        return out

    def give(self, m: int) -> None:
        self.free.append(self.rank[m])
        self.count += 1

    def release_key(self, m: int) -> int:
        return self.rank[m]


def _gang_engine(
    inst: HareInstance,
    *,
    level: str,
    key: Callable[[int, int], tuple],
    backfill: bool,
    free: _FreeFastest | _FreeRandom,
) -> tuple[HareSchedule, np.ndarray, dict]:
    """Event-driven gang scheduler.

    At every event time ``t`` (a job arrives or finishes a round, GPUs are
    released), the ready jobs are served by ``key(n, next_round)``.  A job
    needs ``g = min(K, M)`` GPUs free at once and gets them from ``free``.
    ``level="job"``: it keeps them for all its rounds (each GPU returns to the
    pool when the job's last task on it ends training).  ``level="round"``:
    it gets them for one round; its next round is ready when every task of
    the round has synchronised.  A ready job that does not fit blocks every
    later one unless ``backfill``.
    """
    N, M = inst.num_jobs, inst.num_gpus
    tc = inst.tc_type.tolist()
    ts = inst.ts_type.tolist()
    gtype = inst.gpu_type_index.tolist()
    R = inst.rounds_arr.tolist()
    G = np.minimum(inst.tasks_per_round_arr, M).tolist()
    rel_key = getattr(free, "release_key", lambda m: m)
    alloc = _Alloc()
    C = np.zeros(N)
    releases: list[tuple[float, int, int]] = []  # (time, key, m)
    ready: list[tuple[float, int]] = sorted((float(a), n) for n, a in enumerate(inst.arrival.tolist()))
    heapq.heapify(ready)
    nxt = [0] * N
    waiting: dict[int, list[tuple]] = {}  # gang size -> heap of (key, n)
    n_wait = 0
    left = N
    events = 0
    t = ready[0][0] if ready else 0.0
    while left:
        events += 1
        while releases and releases[0][0] <= t:
            _, _, m = heapq.heappop(releases)
            free.give(m)
        while ready and ready[0][0] <= t:
            _, n = heapq.heappop(ready)
            heapq.heappush(waiting.setdefault(G[n], []), (key(n, nxt[n]), n))
            n_wait += 1
        while n_wait:
            best = None
            if backfill:
                for g, h in waiting.items():
                    if h and g <= free.count and (best is None or h[0] < waiting[best][0]):
                        best = g
            else:
                head = None
                for g, h in waiting.items():
                    if h and (head is None or h[0] < waiting[head][0]):
                        head = g
                if head is not None and head <= free.count:
                    best = head
            if best is None:
                break
            _, n = heapq.heappop(waiting[best])
            n_wait -= 1
            gang = free.take(n, best)
            D, busy = _gang_timeline(inst, n, gang, tc, ts, gtype)
            r = nxt[n]
            count = R[n] - r if level == "job" else 1
            alloc.add(n, r, count, t, D, gang)
            end = t + (count - 1) * D
            for m, b in zip(gang, busy):
                heapq.heappush(releases, (end + b, rel_key(m), m))
            nxt[n] = r + count
            if nxt[n] == R[n]:
                C[n] = t + count * D
                left -= 1
            else:
                heapq.heappush(ready, (t + D, n))
        if not left:
            break
        cand = [releases[0][0]] if releases else []
        if ready:
            cand.append(ready[0][0])
        t = min(cand) if cand else math.inf
        if not math.isfinite(t):  # pragma: no cover - cannot happen: g <= M
            raise RuntimeError("hare baselines: no next event")
    return alloc.schedule(inst), C, {"events": events}


def _result(run: Run, inst: HareInstance, sched: HareSchedule, C: np.ndarray, **details) -> Result:
    """The method's own bookkeeping of ``sum_n w_n C_n`` is reported as the
    objective, so that :func:`dmlsched.solve` cross-checks it against the evaluator."""
    flow = float(np.dot(inst.weight, C - inst.arrival))
    return run.result(solution=sched, objective=float(np.dot(inst.weight, C)), weighted_flow=flow, **details)


BACKFILL_DOC = "let a later job that fits go first when the first waiting job does not fit"


# ---------------------------------------------------------------------------
# job-level FIFO and SRTF (the paper's reading)


@method(
    "hare", "fifo", kind="heuristic",
    description="Gavel-FIFO: arrival order, a job takes its fastest free GPUs and keeps them (job-level)",
    options=[Option("backfill", bool, False, BACKFILL_DOC)],
)
def solve_fifo(inst: HareInstance, run: Run) -> Result:
    """Gavel-FIFO (Hare Section 7.1, after Gavel [29]), job-level.

    Jobs are served in arrival order (ties: file order).  A job waits until
    ``g = min(tasks_per_round, M)`` GPUs are free at the same time, takes its
    fastest free GPUs (by its ``train_time``, then ``sync_time``) and keeps
    them until its last round ends (an unsplittable unit, Section 1).  Strict
    FIFO: a waiting job that cannot get its GPUs blocks every later job
    (``backfill=True`` lets later jobs that fit go first).
    """
    arr = inst.arrival.tolist()
    sched, C, d = _gang_engine(inst, level="job", key=lambda n, r: (arr[n], n),
                               backfill=run.options["backfill"], free=_FreeFastest(inst))
    return _result(run, inst, sched, C, level="job", backfill=run.options["backfill"], **d)


@method(
    "hare", "srtf", kind="heuristic",
    description="Shortest remaining time first, job-level non-preemptive (a job keeps its fastest free GPUs)",
    options=[Option("backfill", bool, True, BACKFILL_DOC)],
)
def solve_srtf(inst: HareInstance, run: Run) -> Result:
    """Shortest Remaining Time First (Hare Section 7.1), job-level.

    Whenever GPUs are free, the waiting jobs are served by remaining time =
    total time ``rounds * best_round_time`` (:func:`best_round_times`: the
    job alone on its fastest GPUs; ties: arrival, index); a job takes its
    fastest free GPUs and keeps them to the end (no preemption: jobs are
    unsplittable units, Section 1).  Backfilling by default.
    """
    brt = best_round_times(inst).tolist()
    R = inst.rounds_arr.tolist()
    arr = inst.arrival.tolist()
    sched, C, d = _gang_engine(inst, level="job", key=lambda n, r: ((R[n] - r) * brt[n], arr[n], n),
                               backfill=run.options["backfill"], free=_FreeFastest(inst))
    return _result(run, inst, sched, C, level="job", backfill=run.options["backfill"], **d)


# ---------------------------------------------------------------------------
# round-level FIFO and SRTF (Hare's execution model for the baselines)


@method(
    "hare", "fifo-round", kind="heuristic",
    description="FIFO decided at every round: arrival order, fastest free GPUs, a round waits for all its GPUs",
    options=[Option("backfill", bool, False, BACKFILL_DOC)],
)
def solve_fifo_round(inst: HareInstance, run: Run) -> Result:
    """FIFO with round-level decisions (not the paper's reading of Gavel-FIFO).

    Each round of a job waits until ``min(tasks_per_round, M)`` GPUs are free
    at once and runs on the job's fastest free GPUs; between rounds the GPUs
    go back to the pool.  Strict FIFO among ready jobs (jobs synchronising
    between rounds or not yet arrived do not block); ``backfill=True`` lets
    later jobs that fit go first.
    """
    arr = inst.arrival.tolist()
    sched, C, d = _gang_engine(inst, level="round", key=lambda n, r: (arr[n], n),
                               backfill=run.options["backfill"], free=_FreeFastest(inst))
    return _result(run, inst, sched, C, level="round", backfill=run.options["backfill"], **d)


@method(
    "hare", "srtf-round", kind="heuristic",
    description="SRTF decided at every round (remaining rounds x best round time); preemption between rounds",
    options=[Option("backfill", bool, True, BACKFILL_DOC)],
)
def solve_srtf_round(inst: HareInstance, run: Run) -> Result:
    """SRTF with round-level decisions (not the paper's reading).

    A job's remaining time before its round ``r`` is
    ``(rounds - r) * best_round_time``; at every event the ready jobs are
    served by it; each round takes the job's fastest free GPUs once enough
    are free at once.  A job may lose the GPUs between its rounds to a
    shorter job (preemption at round boundaries).
    """
    brt = best_round_times(inst).tolist()
    R = inst.rounds_arr.tolist()
    arr = inst.arrival.tolist()
    sched, C, d = _gang_engine(inst, level="round", key=lambda n, r: ((R[n] - r) * brt[n], arr[n], n),
                               backfill=run.options["backfill"], free=_FreeFastest(inst))
    return _result(run, inst, sched, C, level="round", backfill=run.options["backfill"], **d)


# ---------------------------------------------------------------------------
# Sched_Homo


@method(
    "hare", "homo", kind="heuristic",
    description="Sched_Homo: heterogeneity-oblivious gang scheduling (random free GPUs), job-level non-preemption",
    options=[SIZES_OPTION],
)
def solve_homo(inst: HareInstance, run: Run) -> Result:
    """Sched_Homo (Hare Section 7.1, after Zhang et al. [47]).

    Heterogeneity-oblivious: every decision treats the GPUs as identical,
    using the mean times of :func:`homo_estimate`.  Job ``n`` runs on a gang of
    ``g = min(K, M)`` GPUs (intra-job parallelism) which it keeps from its
    first round to its last (job-level non-preemption); jobs run side by side
    on disjoint gangs (inter-job parallelism).  At every event (arrival, GPUs
    released) the arrived, unstarted jobs are taken by Smith's ratio
    ``estimated duration / weight`` (ties: arrival, index; zero weight last)
    and each one that fits starts on ``g`` GPUs drawn uniformly at random
    among the free ones (:class:`_FreeRandom`, seeded by ``seed``): speed
    plays no part in the choice, and the result depends only on the multiset
    of GPU types and the seed.  The schedule itself uses the real times.
    With ``sizes="unit"`` the estimates take every job as one round long.
    """
    _, est = _homo_estimates(inst, run.options["sizes"])
    w = inst.weight.tolist()
    arr = inst.arrival.tolist()
    e = est.tolist()

    def key(n: int, r: int) -> tuple:
        return (e[n] / w[n] if w[n] > 0 else math.inf, arr[n], n)

    sched, C, d = _gang_engine(inst, level="job", key=key, backfill=True, free=_FreeRandom(inst, run.seed))
    return _result(run, inst, sched, C, **d)


# ---------------------------------------------------------------------------
# Sched_Allox


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
