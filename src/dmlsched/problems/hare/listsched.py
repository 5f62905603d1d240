"""Algorithm 1's list phase (Hare, HPDC'22, Section 5.2, lines 4-17) and its
placement rules.

Given a priority ``H_i`` per task (the paper: ``H_i = max_m x̂_i + T^c_{i,m}/2``
from the relaxation), tasks are taken in non-decreasing ``H``; task ``i`` of
job ``n`` becomes available at ``t_i`` (the job's arrival for round 0, line 8;
the end of training plus synchronisation of the job's previous round
otherwise, line 10); it goes to a GPU ``m*`` chosen by the *placement* rule
and starts at ``max(t_i, phi_{m*})`` (line 13); the GPU is free again after
training, ``phi_{m*} = x̃_i + T^c`` (line 16: synchronisation overlaps the
GPU's next task).

Placement rules (the readings of line 12, ``models/hare.md`` section 2):

``"earliest-start"`` (default)
    ``m* = argmin_m max(t_i, phi_m)``, the first (lowest-index) minimum: the
    proof of Theorem 4, step (21), "our algorithm always schedules tasks on
    machines with the earliest start time".
``"earliest-available"``
    ``m* = argmin_m phi_m``, the first minimum: line 12 as printed, "Find
    m* = argmin_{m in M} phi_m".

Since ``max(t_i, phi_m)`` is non-decreasing in ``phi_m``, every
earliest-available GPU also gives the earliest start: the two rules differ
only when several GPUs are idle at ``t_i`` (``phi_m <= t_i``): then line 12
takes the one idle the longest (smallest ``phi_m``), the proof's rule the
lowest-indexed one.  Start times of the task chosen are the same under both
rules; later tasks see different GPUs.

This module is the bottom of the family's import graph: it needs only the
instance and schedule types (the box, the relaxations and the methods import
it, never the converse).

Complexity: one sort, then per task one heap operation (earliest-available)
or one descent of a segment tree over the GPUs (earliest-start):
``O(n log n + n log M)``.
"""

from __future__ import annotations

import heapq

import numpy as np

from ...options import OptionError
from .instance import HareInstance
from .solution import HareSchedule

#: the readings of Algorithm 1's line 12 (first: the default)
PLACEMENTS: tuple[str, ...] = ("earliest-start", "earliest-available")


def priority_order(inst: HareInstance, priority: np.ndarray) -> np.ndarray:
    """The sequence ``pi``: tasks by non-decreasing priority.

    So that line 10's barrier is always defined, a task never precedes a task
    of an earlier round of its own job: each task's key is the running maximum
    of its job's priorities up to its round (a no-op for the relaxation's ``H``,
    where (7) already makes later rounds strictly later).  Ties break by job,
    round and task index.
    """
    pr = np.asarray(priority, dtype=float)
    if pr.shape != (inst.num_tasks,):
        raise ValueError(f"priority must have one entry per task ({inst.num_tasks})")
    if inst.num_tasks == 0:
        return np.zeros(0, dtype=np.int64)
    tpr = inst.tasks_per_round_arr
    rounds = inst.rounds_arr
    # first task of every (job, round), in global order
    g_job = np.repeat(np.arange(inst.num_jobs, dtype=np.int64), rounds)
    g_round = np.arange(len(g_job), dtype=np.int64) - np.repeat(np.cumsum(rounds) - rounds, rounds)
    g_first = inst.job_offset[g_job] + g_round * tpr[g_job]
    rmax = np.maximum.reduceat(pr, g_first)
    # segmented running max without a Python loop: replace values by their ranks
    # (exact, no float offsets), offset each job's ranks above every earlier job's
    G = len(rmax)
    rank = np.empty(G, dtype=np.int64)
    srt = np.argsort(rmax, kind="stable")
    rank[srt] = np.arange(G, dtype=np.int64)
    run = np.maximum.accumulate(g_job * G + rank) - g_job * G
    cm = rmax[srt[run]]
    # prev[q]: running max of the job's rounds before round q (-inf for round 0)
    prev = np.empty(G)
    prev[0] = -np.inf
    prev[1:] = cm[:-1]
    prev[np.concatenate([[True], g_job[1:] != g_job[:-1]])] = -np.inf
    round_id = np.repeat(np.arange(G, dtype=np.int64), tpr[g_job])
    key = np.maximum(pr, prev[round_id])
    # global task index order is (job, round, task) order: a stable sort breaks ties by it
    return np.argsort(key, kind="stable")


def middle_completion_priority(inst: HareInstance, x_hat: np.ndarray) -> np.ndarray:
    """``H_i = max_m (x̂_i + T^c_{i,m} / 2)`` (Step 2 of Algorithm 1)."""
    return np.asarray(x_hat, dtype=float) + inst.tc_type.max(axis=1)[inst.task_job] / 2.0


def _check_order(inst: HareInstance, order: np.ndarray) -> np.ndarray:
    n_tasks = inst.num_tasks
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n_tasks,) or (n_tasks and (order.min() < 0 or order.max() >= n_tasks)):
        raise ValueError(f"order must list every task once ({n_tasks})")
    if n_tasks and np.bincount(order, minlength=n_tasks).max() != 1:
        raise ValueError("order must list every task once")
    return order


def list_schedule(inst: HareInstance, order: np.ndarray, placement: str = "earliest-start") -> HareSchedule:
    """Lines 5-17 of Algorithm 1 over the task sequence ``order``.

    Parameters
    ----------
    inst
        The instance.
    order
        Every task once, each job's rounds in order (as :func:`priority_order`
        guarantees).
    placement
        The reading of line 12 (:data:`PLACEMENTS`): ``"earliest-start"``
        (``argmin_m max(t_i, phi_m)``, the proof's step (21); default) or
        ``"earliest-available"`` (``argmin_m phi_m``, line 12 as printed).
        Ties go to the lowest GPU index.

    Raises
    ------
    ValueError
        If ``order`` is not a permutation of the tasks, takes a task of round
        ``r+1`` before every task of round ``r`` of its job, or ``placement``
        is unknown (an :class:`~dmlsched.options.OptionError`).
    """
    if placement not in PLACEMENTS:
        raise OptionError("placement", f"must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    order = _check_order(inst, order)
    n_tasks = inst.num_tasks
    tc = inst.tc_type.tolist()
    ts = inst.ts_type.tolist()
    gtype = inst.gpu_type_index.tolist()
    n_jobs = inst.num_jobs
    cur_round = [0] * n_jobs
    barrier = inst.arrival.tolist()  # t_i for the job's current round (line 8 or line 10)
    cur_max = [float("-inf")] * n_jobs  # max x + T^c + T^s within the job's current round
    out_gpu: list[int] = []
    out_start: list[float] = []
    put_gpu = out_gpu.append
    put_start = out_start.append
    inf = float("-inf")
    jobs = inst.task_job[order].tolist()
    rounds = inst.task_round[order].tolist()
    if placement == "earliest-available":
        heap = [(0.0, m) for m in range(inst.num_gpus)]  # (phi_m, m): ties to the lowest m
        heapq.heapify(heap)
        replace = heapq.heapreplace
        for n, r in zip(jobs, rounds):
            if r != cur_round[n]:
                if r != cur_round[n] + 1:
                    raise ValueError("order must take each job's rounds in sequence")
                barrier[n] = cur_max[n]
                cur_round[n] = r
                cur_max[n] = inf
            phi, m = heap[0]
            t = barrier[n]
            x = t if t > phi else phi  # line 13
            k = gtype[m]
            e = x + tc[n][k]
            d = e + ts[n][k]
            if d > cur_max[n]:
                cur_max[n] = d
            replace(heap, (e, m))  # line 16: the GPU is free after training
            put_gpu(m)
            put_start(x)
    else:
        # segment tree of phi over the GPUs: m* = leftmost m with phi_m <= max(t, min phi)
        M = inst.num_gpus
        P = 1
        while P < M:
            P *= 2
        big = float("inf")
        tree = [big] * (2 * P)
        for m in range(M):
            tree[P + m] = 0.0
        for q in range(P - 1, 0, -1):
            a, b = tree[2 * q], tree[2 * q + 1]
            tree[q] = a if a < b else b
        for n, r in zip(jobs, rounds):
            if r != cur_round[n]:
                if r != cur_round[n] + 1:
                    raise ValueError("order must take each job's rounds in sequence")
                barrier[n] = cur_max[n]
                cur_round[n] = r
                cur_max[n] = inf
            t = barrier[n]
            root = tree[1]
            thr = t if t > root else root
            q = 1
            while q < P:
                q += q
                if tree[q] > thr:
                    q += 1
            m = q - P
            phi = tree[q]
            x = t if t > phi else phi  # line 13
            k = gtype[m]
            e = x + tc[n][k]
            d = e + ts[n][k]
            if d > cur_max[n]:
                cur_max[n] = d
            tree[q] = e  # line 16
            q >>= 1
            while q:
                a, b = tree[2 * q], tree[2 * q + 1]
                v = a if a < b else b
                if tree[q] == v:
                    break
                tree[q] = v
                q >>= 1
            put_gpu(m)
            put_start(x)
    gpu = np.empty(n_tasks, dtype=np.int64)
    start = np.empty(n_tasks, dtype=float)
    gpu[order] = out_gpu
    start[order] = out_start
    return HareSchedule(gpu=gpu, start=start)


def list_schedule_eft(inst: HareInstance, order: np.ndarray) -> HareSchedule:
    """Lines 5-17 of Algorithm 1 with line 12 replaced by *earliest finish*.

    Tasks are taken in ``order`` exactly as in :func:`list_schedule`, with the
    same availability ``t_i`` (arrival, or the end of training plus
    synchronisation of the job's previous round) and the same GPU state
    ``phi_m`` (free after training), but task ``i`` of job ``n`` goes to

        ``m* = argmin_m  max(t_i, phi_m) + T^c_{n,m} + T^s_{n,m}``

    (the GPU on which it is done earliest; ties to the lowest index) instead of
    ``argmin_m phi_m``, which ignores the GPUs' speeds.  ``O(n M)``.

    Raises
    ------
    ValueError
        As :func:`list_schedule`.
    """
    return _list_schedule_rule(inst, order, "eft", None)


def list_schedule_fixed(inst: HareInstance, order: np.ndarray, gpu: np.ndarray) -> HareSchedule:
    """Lines 5-17 of Algorithm 1 with line 12 replaced by a given assignment.

    Task ``i`` goes to GPU ``gpu[i]`` (e.g. the relaxation's ``ŷ``), starting
    at ``max(t_i, phi_{gpu[i]})``; the order and every other rule as in
    :func:`list_schedule`.
    """
    gpu = np.asarray(gpu, dtype=np.int64)
    if gpu.shape != (inst.num_tasks,) or (inst.num_tasks and (gpu.min() < 0 or gpu.max() >= inst.num_gpus)):
        raise ValueError("gpu must give a GPU index in range for every task")
    return _list_schedule_rule(inst, order, "fixed", gpu)


def _list_schedule_rule(inst: HareInstance, order: np.ndarray, rule: str, fixed: np.ndarray | None) -> HareSchedule:
    order = _check_order(inst, order)
    n_tasks = inst.num_tasks
    gt = inst.gpu_type_index
    tc = inst.tc_type[:, gt]
    done_time = tc + inst.ts_type[:, gt]
    n_jobs = inst.num_jobs
    cur_round = [0] * n_jobs
    barrier = inst.arrival.tolist()
    cur_max = [float("-inf")] * n_jobs
    phi = np.zeros(inst.num_gpus)
    gpu = np.empty(n_tasks, dtype=np.int64)
    start = np.empty(n_tasks, dtype=float)
    for i, n, r in zip(order.tolist(), inst.task_job[order].tolist(), inst.task_round[order].tolist()):
        if r != cur_round[n]:
            if r != cur_round[n] + 1:
                raise ValueError("order must take each job's rounds in sequence")
            barrier[n] = cur_max[n]
            cur_round[n] = r
            cur_max[n] = float("-inf")
        t = barrier[n]
        if rule == "eft":
            m = int(np.argmin(np.maximum(phi, t) + done_time[n]))  # first minimum: lowest index
        else:
            m = int(fixed[i])
        x = max(t, float(phi[m]))
        d = x + float(done_time[n, m])
        if d > cur_max[n]:
            cur_max[n] = d
        phi[m] = x + float(tc[n, m])
        gpu[i] = m
        start[i] = x
    return HareSchedule(gpu=gpu, start=start)
