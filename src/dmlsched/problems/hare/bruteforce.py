"""Semi-active (left-shifted) timing and brute-force enumeration for Hare_Sched.

A schedule is fixed, up to timing, by its GPU assignment and the order of the
tasks on each GPU.  :func:`left_shift` gives every task the earliest start
respecting, in this order, (4) its job's arrival, (7) the end of training plus
synchronisation of every task of its job's previous round, and (8) the end of
training of its predecessor on its GPU.  Some optimal schedule is left-shifted
(see ``models/hare.md``, "Semi-active schedules"), so enumerating every
assignment and every per-GPU order finds the optimum: :func:`brute_force`.

Plain arithmetic only, no solver: these functions are the reference that the
MIP (:mod:`.models`) is tested against.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .instance import HareInstance
from .solution import HareSchedule, evaluate


def left_shift(
    inst: HareInstance, gpu: Sequence[int] | np.ndarray, sequences: Sequence[Sequence[int]]
) -> np.ndarray | None:
    """Earliest start times for a GPU assignment and per-GPU task orders.

    Parameters
    ----------
    inst
        The instance.
    gpu
        GPU index of every task (global task index).
    sequences
        ``sequences[m]`` lists the tasks on GPU ``m`` in processing order; every
        task appears exactly once, on the GPU ``gpu`` gives it.

    Returns
    -------
    numpy.ndarray or None
        Start time of every task, or ``None`` when the orders contradict the
        round barriers (7) (a task ordered before an earlier-round task of its
        own job on some GPU chain), i.e. no schedule has these orders.
    """
    n = inst.num_tasks
    gpu = [int(g) for g in gpu]
    tc = inst.tc
    ts = inst.ts
    task_job = inst.task_job.tolist()
    task_round = inst.task_round.tolist()
    tpr = [j.tasks_per_round for j in inst.jobs]
    arrival = [j.arrival for j in inst.jobs]
    # per (job, round): tasks not yet timed, and max(training + sync end) so far
    remaining = [[t] * j.rounds for t, j in zip(tpr, inst.jobs)]
    round_done = [[-math.inf] * j.rounds for j in inst.jobs]
    start = np.empty(n, dtype=float)
    pos = [0] * len(sequences)
    free = [0.0] * len(sequences)
    timed = 0
    progress = True
    while timed < n and progress:
        progress = False
        for m, seq in enumerate(sequences):
            while pos[m] < len(seq):
                i = seq[pos[m]]
                nj, r = task_job[i], task_round[i]
                if r > 0 and remaining[nj][r - 1] > 0:
                    break  # waits for the previous round (7)
                ready = arrival[nj] if r == 0 else round_done[nj][r - 1]  # (4) then (7)
                x = ready if ready > free[m] else free[m]  # then (8)
                start[i] = x
                free[m] = x + tc[nj, m]
                done = x + tc[nj, m] + ts[nj, m]
                if done > round_done[nj][r]:
                    round_done[nj][r] = done
                remaining[nj][r] -= 1
                pos[m] += 1
                timed += 1
                progress = True
    if timed < n:
        return None
    for m, seq in enumerate(sequences):
        for i in seq:
            if gpu[i] != m:
                raise ValueError(f"task {i} listed on GPU {m} but assigned to GPU {gpu[i]}")
    return start


def sequences_from_starts(
    inst: HareInstance, gpu: Sequence[int] | np.ndarray, start: Sequence[float] | np.ndarray
) -> list[list[int]]:
    """Per-GPU task orders of a timed schedule (by start time, ties by task index)."""
    gpu = np.asarray(gpu, dtype=np.int64)
    start = np.asarray(start, dtype=float)
    seqs: list[list[int]] = [[] for _ in range(inst.num_gpus)]
    for i in np.lexsort((np.arange(inst.num_tasks), start)).tolist():
        seqs[int(gpu[i])].append(i)
    return seqs


def semi_active(inst: HareInstance, sched: HareSchedule) -> HareSchedule:
    """The left-shifted schedule with the same assignment and per-GPU orders.

    Each start is no later than in ``sched`` when ``sched`` is feasible, so the
    objective does not increase.

    Raises
    ------
    ValueError
        If the per-GPU orders of ``sched`` (by start time) contradict (7).
    """
    seqs = sequences_from_starts(inst, sched.gpu, sched.start)
    x = left_shift(inst, sched.gpu, seqs)
    if x is None:
        raise ValueError("the schedule's per-GPU orders contradict the round barriers (7)")
    return HareSchedule(gpu=np.array(sched.gpu, dtype=np.int64), start=x)


def count_candidates(inst: HareInstance) -> int:
    """Number of (assignment, per-GPU order) pairs :func:`brute_force` visits:
    ``n! * C(n + M - 1, M - 1)`` for ``n`` tasks and ``M`` GPUs."""
    n, m = inst.num_tasks, inst.num_gpus
    return math.factorial(n) * math.comb(n + m - 1, m - 1)


def brute_force(inst: HareInstance, *, max_candidates: int = 200_000) -> tuple[float, HareSchedule]:
    """Optimal value and schedule by enumerating every assignment and per-GPU order.

    Every GPU assignment (``M^n``) and, for each, every order of the tasks on
    each GPU is left-shifted (:func:`left_shift`) and evaluated with the
    evaluator; orders contradicting (7) are skipped.  No symmetry is exploited,
    so the enumeration does not share any argument with the MIP.

    Raises
    ------
    ValueError
        If the enumeration would visit more than ``max_candidates`` pairs.
    """
    if count_candidates(inst) > max_candidates:
        raise ValueError(
            f"brute force would visit {count_candidates(inst)} candidates (> {max_candidates})"
        )
    n, M = inst.num_tasks, inst.num_gpus
    best_val = math.inf
    best: HareSchedule | None = None
    for assign in itertools.product(range(M), repeat=n):
        per_gpu = [[i for i in range(n) if assign[i] == m] for m in range(M)]
        for orders in itertools.product(*(itertools.permutations(p) for p in per_gpu)):
            x = left_shift(inst, assign, orders)
            if x is None:
                continue
            s = HareSchedule(gpu=np.array(assign, dtype=np.int64), start=x)
            v = evaluate(inst, s)
            if v < best_val:
                best_val, best = v, s
    assert best is not None  # the canonical order (job, round, task) is always feasible
    return best_val, best
