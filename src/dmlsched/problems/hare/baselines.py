"""The baselines of Hare's evaluation (HPDC'22, Section 7.1) as Hare_Sched schedules.

Four schedulers the paper compares Algorithm 1 with, each a method of problem
``"hare"`` (kind ``"heuristic"``) returning a :class:`~.solution.HareSchedule`
that the Hare validator accepts ((4) arrival, (7) round barriers including
synchronisation, (8) no training overlap on a GPU):

``fifo``  (Gavel-FIFO)  jobs in arrival order; a job's round waits until
          ``tasks_per_round`` GPUs are free at once and takes the job's fastest
          free GPUs.
``srtf``  shortest remaining time first, decided round by round;
          remaining time = remaining rounds x best round time.
``homo``  (Sched_Homo, Zhang et al. [47]) heterogeneity-oblivious gang
          scheduling with intra- and inter-job parallelism and job-level
          non-preemption; decisions use the cluster's mean times.
``allox`` (Sched_Allox, AlloX [24]) job-level min-cost bipartite matching of
          jobs to (GPU, position) slots, one GPU per job, no intra-job parallelism.

Every reading the paper leaves open is written down in ``models/hare-baselines.md``.
All four are deterministic (ties broken by index); ``seed`` is accepted and unused.

Timing conventions shared with Algorithm 1: a task occupies its GPU during
training ``[x, x + T^c)``; its synchronisation ``T^s`` overlaps whatever runs
next on the GPU; the job's next round may start once every task of the round
has finished ``x + T^c + T^s``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...registry import register_method
from ...result import Result, Status
from .instance import HareInstance
from .solution import HareSchedule


class _Builder:
    """Collects start times and GPUs by global task index, and ``C_n``."""

    def __init__(self, inst: HareInstance):
        self.inst = inst
        self.gpu = np.full(inst.num_tasks, -1, dtype=np.int64)
        self.start = np.full(inst.num_tasks, np.nan)
        self.completion = np.zeros(inst.num_jobs)

    def place(self, n: int, r: int, k: int, m: int, x: float) -> float:
        """Put task ``(n, r, k)`` on GPU ``m`` at ``x``; return its done time (train + sync)."""
        i = self.inst.task_index(n, r, k)
        self.gpu[i] = m
        self.start[i] = x
        done = x + float(self.inst.tc[n, m]) + float(self.inst.ts[n, m])
        if done > self.completion[n]:
            self.completion[n] = done
        return done

    def result(self, method: str, **details) -> Result:
        if (self.gpu < 0).any():  # pragma: no cover - a bug, never a silent partial schedule
            raise RuntimeError(f"hare/{method}: some tasks were not scheduled")
        obj = float(np.dot(self.inst.weight, self.completion))
        return Result(
            "hare",
            method,
            Status.FEASIBLE,
            objective=obj,
            solution=HareSchedule(gpu=self.gpu, start=self.start),
            details=details,
        )


def _next_event(t: float, *candidates: list[float]) -> float:
    nxt = math.inf
    for seq in candidates:
        for v in seq:
            if t < v < nxt:
                nxt = v
    return nxt


# ---------------------------------------------------------------------------
# round-level gang scheduling: the engine of fifo and srtf
def _fastest(inst: HareInstance, n: int, free: list[int], count: int) -> list[int]:
    """The ``count`` fastest free GPUs for job ``n``: by (T^c, T^s, index)."""
    tc, ts = inst.tc[n], inst.ts[n]
    return sorted(free, key=lambda m: (tc[m], ts[m], m))[:count]


def _round_gang(
    inst: HareInstance, key: Callable[[int, int], tuple], backfill: bool, method: str
) -> Result:
    """Event-driven round-level scheduler.

    At every event time ``t`` (a GPU finishes training, a round finishes its
    synchronisation, or a job arrives) the *ready* jobs (arrived, previous
    round finished, rounds left) are taken by ``key(n, next_round)``.  A job
    needs ``g = min(tasks_per_round, M)`` GPUs free at once; it gets its ``g``
    fastest free GPUs and its round's tasks are dealt to them in turn (task
    ``k`` on the ``k mod g``-th GPU, back to back when ``K > M``).  A ready job
    that does not fit blocks every later one unless ``backfill``.
    """
    b = _Builder(inst)
    M, N = inst.num_gpus, inst.num_jobs
    phi = [0.0] * M  # GPU free again (training ended)
    ready = [j.arrival for j in inst.jobs]  # next round may start
    nxt_round = [0] * N
    left = {n for n in range(N)}
    t = min(ready) if N else 0.0
    events = 0
    while left:
        events += 1
        free = [m for m in range(M) if phi[m] <= t]
        cand = sorted((n for n in left if ready[n] <= t), key=lambda n: key(n, nxt_round[n]))
        for n in cand:
            job = inst.jobs[n]
            g = min(job.tasks_per_round, M)
            if len(free) < g:
                if backfill:
                    continue
                break
            chosen = _fastest(inst, n, free, g)
            r = nxt_round[n]
            done = t
            pos = [t] * g
            for k in range(job.tasks_per_round):
                q = k % g
                m = chosen[q]
                done = max(done, b.place(n, r, k, m, pos[q]))
                pos[q] += float(inst.tc[n, m])
            for q, m in enumerate(chosen):
                phi[m] = pos[q]
            free = [m for m in free if m not in set(chosen)]
            ready[n] = done
            nxt_round[n] = r + 1
            if r + 1 == job.rounds:
                left.discard(n)
        if not left:
            break
        t = _next_event(t, phi, [ready[n] for n in left])
        if not math.isfinite(t):  # pragma: no cover - cannot happen: g <= M
            raise RuntimeError(f"hare/{method}: no next event")
    return b.result(method, events=events, backfill=backfill)


def best_round_time(inst: HareInstance, n: int) -> float:
    """Fastest possible duration of one round of job ``n`` on this cluster.

    ``min_m ceil(K / g) T^c_{n,m} + T^s_{n,m}`` with ``g = min(K, M)``: every
    task of the round on the job's best GPU type, in ``ceil(K/g)`` waves.
    """
    job = inst.jobs[n]
    waves = -(-job.tasks_per_round // min(job.tasks_per_round, inst.num_gpus))
    return float(np.min(waves * inst.tc[n] + inst.ts[n]))


@register_method(
    "hare",
    "fifo",
    kind="heuristic",
    description="Gavel-FIFO: arrival order, fastest free GPUs, a round waits for all its GPUs",
)
def solve_fifo(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    backfill: bool = False,
    **options,
) -> Result:
    """Gavel-FIFO (Hare Section 7.1, after Gavel [29]).

    Jobs are served in arrival order (ties: file order).  Each round of a job
    waits until ``tasks_per_round`` GPUs are free at the same time and runs on
    the job's fastest free GPUs (by its ``train_time``, then ``sync_time``,
    then index).  Strict FIFO: a ready job that cannot get its GPUs blocks
    every later job (``backfill=True`` lets later jobs that fit go first).
    Jobs between rounds (synchronising) or not yet arrived do not block.
    """
    return _round_gang(inst, lambda n, r: (inst.jobs[n].arrival, n), backfill, "fifo")


@register_method(
    "hare",
    "srtf",
    kind="heuristic",
    description="Shortest remaining time first, decided at every round (remaining rounds x best round time)",
)
def solve_srtf(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    backfill: bool = True,
    **options,
) -> Result:
    """Shortest Remaining Time First (Hare Section 7.1), with round-level decisions.

    A job's remaining time before its round ``r`` is
    ``(rounds - r) * best_round_time`` (see :func:`best_round_time`).  At every
    event the ready jobs are served by remaining time (ties: arrival, index);
    each round takes the job's fastest free GPUs once ``tasks_per_round`` are
    free at once.  A job may lose the GPUs between its rounds to a shorter job
    (preemption at round boundaries).  By default a job that does not fit is
    skipped (``backfill=True``); ``backfill=False`` makes it block.
    """
    brt = [best_round_time(inst, n) for n in range(inst.num_jobs)]
    return _round_gang(
        inst,
        lambda n, r: ((inst.jobs[n].rounds - r) * brt[n], inst.jobs[n].arrival, n),
        backfill,
        "srtf",
    )


# ---------------------------------------------------------------------------
# Sched_Homo
def homo_estimate(inst: HareInstance, n: int) -> tuple[int, float]:
    """Sched_Homo's view of job ``n``: GPUs ``g`` and duration on identical GPUs.

    ``g = min(K, M)``; the duration uses the cluster's mean times
    ``p = mean_m T^c_{n,m}``, ``s = mean_m T^s_{n,m}``:
    ``rounds * (ceil(K / g) * p + s)``.
    """
    job = inst.jobs[n]
    g = min(job.tasks_per_round, inst.num_gpus)
    p = float(inst.tc[n].mean())
    s = float(inst.ts[n].mean())
    return g, job.rounds * (-(-job.tasks_per_round // g) * p + s)


@register_method(
    "hare",
    "homo",
    kind="heuristic",
    description="Sched_Homo: heterogeneity-oblivious gang scheduling, job-level non-preemption",
)
def solve_homo(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options,
) -> Result:
    """Sched_Homo (Hare Section 7.1, after Zhang et al. [47]).

    Heterogeneity-oblivious: every decision treats the GPUs as identical,
    using the mean times of :func:`homo_estimate`.  Job ``n`` runs on a gang of
    ``g = min(K, M)`` GPUs (intra-job parallelism) which it keeps from its
    first round to its last (job-level non-preemption); jobs run side by side
    on disjoint gangs (inter-job parallelism).  At every event (arrival, gang
    released) the arrived, unstarted jobs are taken by Smith's ratio
    ``estimated duration / weight`` (ties: arrival, index; zero weight last) and
    each one that fits starts on the lowest-indexed free GPUs.  The schedule
    itself uses the real times: each round's tasks are dealt to the gang in
    turn, back to back, and the next round starts at the round's barrier.
    A GPU returns to the pool when the job's last task on it ends training.
    """
    b = _Builder(inst)
    M, N = inst.num_gpus, inst.num_jobs
    est = [homo_estimate(inst, n) for n in range(N)]

    def key(n: int) -> tuple:
        w = inst.jobs[n].weight
        return (est[n][1] / w if w > 0 else math.inf, inst.jobs[n].arrival, n)

    phi = [0.0] * M
    waiting = set(range(N))
    arrivals = [j.arrival for j in inst.jobs]
    t = min(arrivals) if N else 0.0
    while waiting:
        free = [m for m in range(M) if phi[m] <= t]
        for n in sorted((n for n in waiting if arrivals[n] <= t), key=key):
            g = est[n][0]
            if len(free) < g:
                continue
            gang, free = free[:g], free[g:]
            job = inst.jobs[n]
            barrier = t
            last_end = [t] * g
            for r in range(job.rounds):
                pos = [barrier] * g
                done = barrier
                for k in range(job.tasks_per_round):
                    q = k % g
                    m = gang[q]
                    done = max(done, b.place(n, r, k, m, pos[q]))
                    pos[q] += float(inst.tc[n, m])
                    last_end[q] = pos[q]
                barrier = done
            for q, m in enumerate(gang):
                phi[m] = last_end[q]
            waiting.discard(n)
        if not waiting:
            break
        t = _next_event(t, phi, [arrivals[n] for n in waiting])
        if not math.isfinite(t):  # pragma: no cover - cannot happen: g <= M
            raise RuntimeError("hare/homo: no next event")
    return b.result("homo")


# ---------------------------------------------------------------------------
# Sched_Allox
def allox_processing_time(inst: HareInstance, n: int, m: int) -> float:
    """Time job ``n`` occupies the schedule alone on GPU ``m``: ``R (K T^c + T^s)``."""
    job = inst.jobs[n]
    return job.rounds * (job.tasks_per_round * float(inst.tc[n, m]) + float(inst.ts[n, m]))


def allox_matching(
    proc: np.ndarray, busy: np.ndarray
) -> list[list[int]]:
    """AlloX's min-cost bipartite matching of jobs to (GPU, position) slots.

    Parameters
    ----------
    proc
        ``proc[j, m]``: processing time of pool job ``j`` on GPU ``m``.
    busy
        ``busy[m]``: time until GPU ``m`` is free.

    Returns
    -------
    list of list of int
        Per GPU, the pool jobs matched to it in run order.  The job in the
        ``k``-th position from the end of GPU ``m`` delays ``k`` completions by
        its processing time, so its cost is ``k * proc[j, m] + busy[m]``; the
        assignment minimises the total (unweighted) completion time of the pool
        (exact without arrivals, Bruno-Coffman-Sethi).
    """
    from scipy.optimize import linear_sum_assignment

    J, M = proc.shape
    k = np.arange(1, J + 1, dtype=float)
    # column c = m * J + (k - 1)
    cost = (proc[:, :, None] * k[None, None, :] + busy[None, :, None]).reshape(J, M * J)
    rows, cols = linear_sum_assignment(cost)
    queues: list[list[tuple[int, int]]] = [[] for _ in range(M)]
    for j, c in zip(rows.tolist(), cols.tolist()):
        queues[c // J].append((c % J, j))
    # largest position-from-the-end runs first
    return [[j for _, j in sorted(q, key=lambda p: -p[0])] for q in queues]


@register_method(
    "hare",
    "allox",
    kind="heuristic",
    description="Sched_Allox: job-level min-cost matching of jobs to GPU slots, no intra-job parallelism",
)
def solve_allox(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options,
) -> Result:
    """Sched_Allox (Hare Section 7.1, after AlloX [24]).

    Every job runs on one GPU, all its tasks one after another (no intra-job
    parallelism): on GPU ``m`` starting at ``s`` its task ``(r, k)`` starts at
    ``s + r (K T^c + T^s) + k T^c``, so the job takes
    ``R (K T^c + T^s)`` (:func:`allox_processing_time`).  At each distinct
    arrival time ``t`` the arrived, unstarted jobs are matched to GPU slots by
    :func:`allox_matching` (``scipy.optimize.linear_sum_assignment``) with the
    GPUs' remaining busy times; each GPU then runs its queue, and the jobs that
    start before the next arrival are committed (the others are re-matched
    then).  Like AlloX it minimises unweighted completion time.
    """
    b = _Builder(inst)
    M, N = inst.num_gpus, inst.num_jobs
    proc = np.array([[allox_processing_time(inst, n, m) for m in range(M)] for n in range(N)])
    phi = np.zeros(M)
    times = sorted({j.arrival for j in inst.jobs})
    pool: list[int] = []
    arrived = 0
    by_arrival = sorted(range(N), key=lambda n: (inst.jobs[n].arrival, n))
    matchings = 0
    for e, t in enumerate(times):
        while arrived < N and inst.jobs[by_arrival[arrived]].arrival <= t:
            pool.append(by_arrival[arrived])
            arrived += 1
        horizon = times[e + 1] if e + 1 < len(times) else math.inf
        queues = allox_matching(proc[pool], np.maximum(phi - t, 0.0))
        matchings += 1
        started: set[int] = set()
        for m, q in enumerate(queues):
            for j in q:
                n = pool[j]
                s = max(float(phi[m]), t)
                if s >= horizon:
                    break
                job = inst.jobs[n]
                tc, ts = float(inst.tc[n, m]), float(inst.ts[n, m])
                for r in range(job.rounds):
                    base = s + r * (job.tasks_per_round * tc + ts)
                    for k in range(job.tasks_per_round):
                        b.place(n, r, k, m, base + k * tc)
                phi[m] = s + job.rounds * job.tasks_per_round * tc + (job.rounds - 1) * ts
                started.add(n)
        pool = [n for n in pool if n not in started]
    return b.result("allox", matchings=matchings)
