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
``allox`` (Sched_Allox, AlloX [24]) lives in :mod:`.allox`; it shares
          :class:`_Alloc`, :data:`SIZES_OPTION` and :func:`_result` with these.

Round-level (our earlier reading, Hare's own execution model; kept under
their own names): ``fifo-round``, ``srtf-round`` decide at every round and give
the GPUs back between rounds.

**Complexity.**  Event-driven with heaps: GPU releases and job arrivals in
heaps, free GPUs in one heap per GPU type (``fastest``) or a canonical free
list (``homo``), waiting jobs in one heap per gang size (so backfilling finds
the best job that fits in ``O(#gang sizes + log n)``).  A job's whole
timeline on its gang is closed-form (every round of a job lasts the same on
the same gang), so the task start times are filled in at the end with NumPy:
``O(n log n + T)`` for ``n`` jobs and ``T`` tasks.

Timing conventions shared with Algorithm 1: a task occupies its GPU during
training ``[x, x + T^c)``; its synchronisation ``T^s`` overlaps whatever runs
next on the GPU; the job's next round may start once every task of the round
has finished ``x + T^c + T^s``.
"""

from __future__ import annotations

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
