"""Algorithm 1's list phase (Hare, HPDC'22, Section 5.2, lines 4-17).

Given a priority ``H_i`` per task (the paper: ``H_i = max_m x̂_i + T^c_{i,m}/2``
from the relaxation), tasks are taken in non-decreasing ``H`` and each is put
on the GPU with the earliest available time ``phi_m`` (ties: lowest GPU index),
starting at ``max(t_i, phi_m)`` where ``t_i`` is the job's arrival for round 0
and the end of training plus synchronisation of the job's previous round
otherwise; the GPU is free again after training (``phi_m = x̃_i + T^c``).

Complexity: one sort, then one heap operation per task: ``O(n log n + n log M)``
(``benchmarks/hare_list.md``: 10^6 tasks on 160 GPUs in about 0.9 s of CPU).

Methods: ``list`` (the paper's Algorithm 1, bound claimed by Theorem 4 -- false
for the paper's relaxation, see ``proofs/hare-theorem-4.md``) and
``list-queyranne`` (the same with the Queyranne relaxation, registered with the
bound proven there, :func:`mended_ratio`).

Variants (not Algorithm 1, no bound claimed; ``models/hare-baselines.md``,
``benchmarks/hare_evaluation.md``): ``list-eft`` (the same order, each task on
the GPU where it finishes earliest) and ``smith-eft`` (a solver-free round-Smith
order, same placement); :func:`list_schedule_fixed` places tasks on a given
assignment (benchmark only).
"""

from __future__ import annotations

import heapq

import numpy as np

from .instance import HareInstance
from .solution import HareSchedule


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
    # max priority per (job, round), then the running max over earlier rounds of the job
    tpr = np.array([j.tasks_per_round for j in inst.jobs], dtype=np.int64)
    sizes = np.array([j.num_tasks for j in inst.jobs], dtype=np.int64)
    rounds = np.array([j.rounds for j in inst.jobs], dtype=np.int64)
    rounds = rounds * (sizes > 0)  # a job without tasks has no round
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


def list_schedule(inst: HareInstance, order: np.ndarray) -> HareSchedule:
    """Lines 5-17 of Algorithm 1 over the task sequence ``order``.

    ``order`` must list every task once, each job's rounds in order (as
    :func:`priority_order` guarantees).  One heap operation per task on
    ``(phi_m, m)``: the earliest available GPU, ties to the lowest index.

    Raises
    ------
    ValueError
        If ``order`` is not a permutation of the tasks or takes a task of
        round ``r+1`` before every task of round ``r`` of its job.
    """
    n_tasks = inst.num_tasks
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n_tasks,) or (n_tasks and (order.min() < 0 or order.max() >= n_tasks)):
        raise ValueError(f"order must list every task once ({n_tasks})")
    tc = inst.tc.tolist()
    ts = inst.ts.tolist()
    arrival = [j.arrival for j in inst.jobs]
    n_jobs = inst.num_jobs
    cur_round = [0] * n_jobs
    barrier = arrival[:]  # t_i for the job's current round (line 8 or line 10)
    cur_max = [float("-inf")] * n_jobs  # max x + T^c + T^s within the job's current round
    heap = [(0.0, m) for m in range(inst.num_gpus)]  # (phi_m, m): line 12 with ties to lowest m
    heapq.heapify(heap)
    out_gpu: list[int] = []
    out_start: list[float] = []
    put_gpu = out_gpu.append
    put_start = out_start.append
    replace = heapq.heapreplace
    inf = float("-inf")
    for n, r in zip(inst.task_job[order].tolist(), inst.task_round[order].tolist()):
        if r != cur_round[n]:
            if r != cur_round[n] + 1:
                raise ValueError("order must take each job's rounds in sequence")
            barrier[n] = cur_max[n]
            cur_round[n] = r
            cur_max[n] = inf
        phi, m = heap[0]
        t = barrier[n]
        x = t if t > phi else phi  # line 13
        e = x + tc[n][m]
        d = e + ts[n][m]
        if d > cur_max[n]:
            cur_max[n] = d
        replace(heap, (e, m))  # line 16: the GPU is free after training
        put_gpu(m)
        put_start(x)
    gpu = np.empty(n_tasks, dtype=np.int64)
    start = np.empty(n_tasks, dtype=float)
    gpu[order] = out_gpu
    start[order] = out_start
    if n_tasks and np.bincount(order, minlength=n_tasks).max() != 1:
        raise ValueError("order must list every task once")
    return HareSchedule(gpu=gpu, start=start)


def middle_completion_priority(inst: HareInstance, x_hat: np.ndarray) -> np.ndarray:
    """``H_i = max_m (x̂_i + T^c_{i,m} / 2)`` (Step 2 of Algorithm 1)."""
    return np.asarray(x_hat, dtype=float) + inst.tc.max(axis=1)[inst.task_job] / 2.0


# ---------------------------------------------------------------------------
# registration of Algorithm 1 as the ``list`` method
from ...registry import register_method  # noqa: E402
from ...result import Result, Status  # noqa: E402
from .bounds import theorem4_ratio  # noqa: E402


@register_method(
    "hare",
    "list",
    kind="heuristic",
    description="Algorithm 1: relaxation, then list scheduling by middle completion time",
    bound=theorem4_ratio,
    bound_name="Hare Theorem 4: alpha(2+alpha)",
    uses_solver=True,
)
def solve_list(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    relaxation: str = "rl",
    **options,
) -> Result:
    """Algorithm 1 (Hare): solve a relaxation, sort by ``H_i``, list-schedule.

    Options
    -------
    relaxation
        Which relaxation gives ``x̂``: ``"rl"`` (Hare_Sched_RL, the paper's (9)
        with (4)-(7)) or ``"queyranne"`` (all subset inequalities, by separation).
        The relaxation's proven value is reported as ``lower_bound``.
    """
    from .models import solve_relaxation

    rel = solve_relaxation(
        inst, kind=relaxation, solver=solver, time_limit=time_limit, seed=seed, **options
    )
    if rel.x_hat is None:
        return Result(
            "hare", "list", Status.TIME_LIMIT if rel.status == Status.TIME_LIMIT else Status.ERROR,
            solver=solver, details={"relaxation_status": rel.status.value, "error": "relaxation has no solution"},
        )
    order = priority_order(inst, middle_completion_priority(inst, rel.x_hat))
    sched = list_schedule(inst, order)
    return Result(
        "hare",
        "list",
        Status.FEASIBLE,
        bound=rel.lower_bound,
        solution=sched,
        solver=solver,
        details={
            "relaxation": relaxation,
            "relaxation_status": rel.status.value,
            "relaxation_value": rel.value,
        },
    )


def mended_ratio(inst: HareInstance) -> float:
    """The ratio proven for Algorithm 1 with the Queyranne relaxation.

    ``(3 alpha + 2 - 2/M) * max(1, alpha/2)`` with ``M`` GPUs (3 on one GPU of
    one type; ``5 - 2/M`` for identical GPUs).  Proof: ``proofs/hare-theorem-4.md``,
    section "A proven bound": the mended Lemma 2 (Queyranne inequalities on
    prefixes, relaxed assignment), Lemma 3 for every GPU at once (by induction
    over the list), averaging over the GPUs, and the final scaling step.
    Requires the relaxation solved to optimality (its value at most OPT).
    """
    from .bounds import alpha

    a = alpha(inst)
    return (3.0 * a + 2.0 - 2.0 / inst.num_gpus) * max(1.0, a / 2.0)


@register_method(
    "hare",
    "list-queyranne",
    kind="heuristic",
    description="Algorithm 1 with x^ from the full Queyranne relaxation (the variant with a proven bound)",
    bound=mended_ratio,
    bound_name="(3a+2-2/M)max(1,a/2), proofs/hare-theorem-4.md (Theorem 4 mended)",
    uses_solver=True,
)
def solve_list_queyranne(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options,
) -> Result:
    """Algorithm 1 with the Queyranne relaxation: ``list`` with ``relaxation="queyranne"``.

    Registered separately because its proven bound differs from the paper's
    claim: :func:`mended_ratio` instead of ``alpha(2+alpha)`` (which is false
    for the paper's relaxation, see ``instances/counterexamples/hare-theorem4-rl-spt-trap.json``).
    """
    options.pop("relaxation", None)
    return solve_list(
        inst, solver=solver, time_limit=time_limit, seed=seed, relaxation="queyranne", **options
    )


# ---------------------------------------------------------------------------
# Variants of Algorithm 1 (NOT Algorithm 1): controlled changes used to find out
# why Algorithm 1 loses to the baselines (benchmarks/hare_evaluation.md,
# models/hare-baselines.md, section "Variants of Algorithm 1").


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
    n_tasks = inst.num_tasks
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n_tasks,) or (n_tasks and (order.min() < 0 or order.max() >= n_tasks)):
        raise ValueError(f"order must list every task once ({n_tasks})")
    if n_tasks and np.bincount(order, minlength=n_tasks).max() != 1:
        raise ValueError("order must list every task once")
    tc = inst.tc
    done_time = inst.tc + inst.ts
    n_jobs = inst.num_jobs
    cur_round = [0] * n_jobs
    barrier = [j.arrival for j in inst.jobs]
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


def round_smith_priority(inst: HareInstance) -> np.ndarray:
    """A trivial priority without any relaxation: ``H_i = a_n + (r + 1) R_n / w_n``.

    ``R_n`` is the job's fastest possible round time
    (:func:`~.baselines.best_round_time`), ``r`` the task's round: the time
    round ``r`` would end if the job ran alone at full speed, stretched by
    ``1/w_n`` -- Smith's ratio applied round by round, so that jobs interleave
    (a whole-job Smith order would run jobs one after the other, since the
    list phase never fills a GPU's earlier idle time).
    """
    from .baselines import best_round_time

    R = np.array([best_round_time(inst, n) for n in range(inst.num_jobs)], dtype=float)
    w = inst.weight
    a = inst.arrival
    n = inst.task_job
    with np.errstate(divide="ignore"):  # weight 0: priority +inf, such jobs go last
        return a[n] + (inst.task_round + 1.0) * R[n] / w[n]


@register_method(
    "hare",
    "list-eft",
    kind="heuristic",
    description="VARIANT of Algorithm 1: relaxation's H order, but each task on the GPU where it finishes earliest",
    uses_solver=True,
)
def solve_list_eft(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    relaxation: str = "rl",
    **options,
) -> Result:
    """Algorithm 1 with line 12 replaced by earliest finish (not the paper's algorithm).

    Same relaxation and order ``H_i = max_m x̂_i + T^c_{i,m}/2`` as ``list``;
    placement by :func:`list_schedule_eft`.  No approximation bound is claimed.

    Options
    -------
    relaxation
        ``"rl"`` (default) or ``"queyranne"``, as for ``list``.
    """
    from .models import solve_relaxation

    rel = solve_relaxation(inst, kind=relaxation, solver=solver, time_limit=time_limit, seed=seed, **options)
    if rel.x_hat is None:
        return Result(
            "hare", "list-eft", Status.TIME_LIMIT if rel.status == Status.TIME_LIMIT else Status.ERROR,
            solver=solver, details={"relaxation_status": rel.status.value, "error": "relaxation has no solution"},
        )
    sched = list_schedule_eft(inst, priority_order(inst, middle_completion_priority(inst, rel.x_hat)))
    return Result(
        "hare", "list-eft", Status.FEASIBLE, bound=rel.lower_bound, solution=sched, solver=solver,
        details={"relaxation": relaxation, "relaxation_status": rel.status.value,
                 "relaxation_value": rel.value, "variant": "earliest-finish GPU choice"},
    )


@register_method(
    "hare",
    "smith-eft",
    kind="heuristic",
    description="VARIANT: no relaxation; order by a_n+(r+1)R_n/w_n, each task on the GPU where it finishes earliest",
    uses_solver=False,
)
def solve_smith_eft(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options,
) -> Result:
    """List scheduling by :func:`round_smith_priority` with earliest-finish placement.

    Deterministic and solver-free (``O(n log n + n M)``); ``solver``,
    ``time_limit`` and ``seed`` are accepted and unused.  Not Algorithm 1.
    """
    if options:
        raise ValueError(f"smith-eft: unknown option(s) {', '.join(sorted(options))}")
    sched = list_schedule_eft(inst, priority_order(inst, round_smith_priority(inst)))
    return Result("hare", "smith-eft", Status.FEASIBLE, solution=sched,
                  details={"variant": "round-Smith priority, earliest-finish GPU choice"})
