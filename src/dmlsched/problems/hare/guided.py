"""Hare's solver-guided hunt strategy (the ``guided`` strategy of ``dmlsched hunt`` for
``list`` and ``list-queyranne``), by the generic search of :mod:`dmlsched.hunt.guided`.

Hare, ``list`` and ``list-queyranne`` (Algorithm 1)
---------------------------------------------------

Given an instance ``I`` (the current best, or the annealing chain's current
state), its structure is fixed: jobs, rounds, tasks per round, GPUs and their
types, weights.  The LP's variables are the *data*: ``P[n,k]`` = ``T^c`` of
job ``n`` on GPU type ``k``, ``Q[n,k]`` = ``T^s``, ``A[n]`` = arrival, plus
start times.  It encodes:

1. **Algorithm 1's decision trace on I.**  The relaxation's task order ``pi``
   (the priorities ``H_i = x̂_i + max_m T^c/2`` of the method's relaxation,
   solved with the method's options), and, replaying lines 5-17 in ``pi``
   order with the placement reading in use (:func:`trace_list`):

   * the GPU ``g_i`` chosen for each task, and the state of every GPU at that
     moment (the last task placed on it, so ``phi_m`` is ``0`` or
     ``x_l + P[n_l, type(m)]``: line 16);
   * which term attains line 13's ``max(t_i, phi_{g_i})``: the task's
     availability ``t_i`` (then ``x_i = t_i`` and ``phi_{g_i} <= t_i``) or the
     GPU (then ``x_i = phi_{g_i}`` and ``t_i <= phi_{g_i}``);
   * which term sets ``t_i``: the arrival ``A[n]`` (round 0, line 8) or the
     task ``j*`` of the previous round with the latest end of training plus
     synchronisation (line 10): ``t_i = x_{j*} + P + Q`` and every other task
     ``j`` of that round has ``x_j + P + Q <= t_i``;
   * the comparisons of line 12 that made ``g_i`` the choice, with a margin
     ``delta`` where the choice was strict (a lower-indexed GPU lost):
     *earliest start* (default reading): if ``x_i = t_i``, every GPU
     ``m < g_i`` has ``phi_m >= t_i + delta``; if ``x_i = phi_{g_i}``, every
     ``m < g_i`` has ``phi_m >= phi_{g_i} + delta`` and every ``m > g_i``
     ``phi_m >= phi_{g_i}``; *earliest available*: ``phi_m >= phi_{g_i} +
     delta`` for ``m < g_i`` and ``phi_m >= phi_{g_i}`` for ``m > g_i``;
   * the task ``c(n)`` attaining each job's completion ``C_n`` (6).

   Under a fixed trace, every start time of the list schedule is a linear
   function of the data, and the objective ``sum_n w_n (x_{c(n)} + P + Q)``
   is linear.

2. **The optimal schedule S* of I** (the exact reference's solution): its
   assignment and per-GPU order, with *left-shifted* start times ``y`` as an
   LP epigraph: ``y_i >= A[n]``, ``y_i >= y_prev + P[n_prev, type]`` on its
   GPU, ``y_i >= E[n, r-1]`` and ``E[n, r] >= y_j + P + Q`` for the rounds.
   For *any* data this is a feasible schedule, so ``sum_n w_n E[n, last] <= 1``
   makes the optimum of the new data at most 1.

3. **The claimed bound held fixed**: ``P[n,k] <= alpha0 P[n,k']`` and
   ``Q[n,k] <= alpha0 Q[n,k']`` for every pair of GPU types present, with
   ``alpha0`` the current ``alpha`` (so ``alpha(2+alpha)``, and the mended
   bound, can only decrease); ``P >= floor > 0`` (a thousandth of the
   longest current training time, or the shortest if it is shorter),
   ``Q, A >= 0``, every datum below a cap (100 times the largest current one).

4. **The order pi kept to first order** (``order_proxy``): the relaxation's
   point ``x̂`` is frozen, except that a relaxed start at its job's release
   (``x̂_i = a_n``) moves with the release (and a frozen one stays after it:
   ``A[n] <= x̂_i``); each consecutive pair ``(a, b)`` of ``pi`` keeps
   ``x̂_a + P[n_a, k*]/2 <= x̂_b + P[n_b, k*]/2`` (``k*`` the job's slowest
   type, kept slowest), strict by ``delta`` where ``pi``'s tie-break by task
   index would flip; pairs ordered by a job's running maximum
   (:func:`~dmlsched.problems.hare.listsched.priority_order`) are skipped.
   This is not the relaxation (``x̂`` moves with the data), only a proxy
   that keeps the LP from the cheapest way to "win": measured on the planted
   instance below, without it the LP delays the light job's release (the
   frozen trace then idles the GPU until it arrives) and every proposal
   falls to ratio 1 once the relaxation reorders; with it the first stage
   gives 3.87.
5. **Data the objective does not need stays put**: a penalty
   ``stay * sum |v - v0|`` (L1, ``stay = 1e-3``) picks, among the LP's
   optimal (degenerate) vertices, one that moves few data.

The LP maximises the list schedule's weighted completion: its value is the
ratio the new data *would* have if the relaxation kept the same order (a
certified lower bound on the ratio then, since OPT <= 1).  The data is only a
*proposal*: the relaxation may reorder the tasks under the new data, so each
proposal is scored for real through :func:`dmlsched.solve` (the method and the
exact reference), at ``theta = 1, 1/2, 1/4`` along the segment from the old
data to the LP's (the trace constraints are linear, so every point of the
segment satisfies them; smaller steps are less likely to change ``pi``) and,
only when none of these improves, at ``theta = 1/8, 1/16, 1/32, 1/64``
(:data:`THETAS`, a backtracking line search: the LP's optimum is a vertex,
possibly far away, where the relaxation's order has changed).  Measured on
the one-GPU SPT trap of ``proofs/hare-theorem-4.md`` with the light tasks
shortened to 0.5 (ratio 2.15 against the claimed 3): the LP predicts 5.6;
theta = 1 gives 1.0 (the relaxation reorders), 1/2 gives 3.87 (a violation),
1/4 gives 3.01 (``tests/hare/test_guided.py``).  Improvements are accepted
like any candidate.

Before an LP is built, the replica's schedule (GPU and start of every task)
must equal the real method's schedule on ``I``; otherwise (a relaxation cut by
the wall clock, a family change) the LP step is skipped and counted
(``notes["guided"]["trace_mismatch"]``).

:func:`hare_guided` alternates these LP steps with annealing
(:func:`dmlsched.hunt.guided.guided_search`).  Hare's ``FAMILY.guided`` names
it for ``list`` and ``list-queyranne`` (``Ref("dmlsched.problems.hare.guided:hare_guided")``);
the hunt imports this module when a guided hunt of either starts
(:func:`dmlsched.hunt.search.guided_strategy`).  Importing it registers
nothing.  It is a plug-in of the hunt kept in Hare's folder: it builds on the
hunt's generic search, which scores through the hunt's evaluator, so it sits
at the hunt's layer (8), above the families (6), and no module of the family
imports it (``tests/test_import_graph.py``).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...hunt.evaluate import Scored
from ...hunt.guided import LinearProgram, LPStep, guided_search, lin, lin_sub
from ...hunt.search import Context
from ...io import from_dict
from ...kit import OptionError, Run
from .bounds import alpha as alpha_of
from .listsched import middle_completion_priority, priority_order
from .relaxation import solve_relaxation
from .solution import HareSchedule

# ---------------------------------------------------------------------------
# the list phase replayed with its decision trace


@dataclass
class ListTrace:
    """Algorithm 1's list phase on one instance with every decision recorded.

    Arrays are indexed by global task index (:mod:`dmlsched.problems.hare.instance`).

    Attributes
    ----------
    order
        The sequence ``pi``.
    gpu, start
        The schedule.
    by_gpu
        ``True`` where line 13's max is attained by the GPU alone
        (``t < phi``, ``x = phi``), ``False`` where by the task's availability
        (``t >= phi``, ``x = t``; for the earliest-start reading this is
        exactly the case ``t >= min_m phi_m``, where line 12 takes the
        lowest-indexed GPU free by ``t``).
    barrier
        The task of the previous round setting ``t_i`` (line 10), ``-1`` for
        round 0 (the arrival, line 8).
    last
        ``last[i, m]``: the task last placed on GPU ``m`` when task ``i`` was
        placed (``-1``: none, ``phi_m = 0``).
    completion
        Per job, the task attaining ``C_n``.
    placement
        The reading of line 12.
    x_hat
        The relaxation's start times the order came from (``None`` when the
        order was given directly).
    """

    order: np.ndarray
    gpu: np.ndarray
    start: np.ndarray
    by_gpu: np.ndarray
    barrier: np.ndarray
    last: np.ndarray
    completion: np.ndarray
    placement: str
    x_hat: np.ndarray | None = None


def trace_list(inst: Any, order: np.ndarray, placement: str = "earliest-start") -> ListTrace:
    """Lines 5-17 of Algorithm 1 over ``order``, recording the decision trace.

    The same rules as :func:`dmlsched.problems.hare.listsched.list_schedule`
    (ties to the lowest GPU index; ``phi`` free after training), written as a
    plain loop so that every comparison is visible; callers check that the
    schedule equals the real one before using the trace.
    """
    if placement not in ("earliest-start", "earliest-available"):
        raise OptionError("placement", f"must be earliest-start or earliest-available, got {placement!r}")
    order = np.asarray(order, dtype=np.int64)
    N, M, T = inst.num_jobs, inst.num_gpus, inst.num_tasks
    tc, ts = inst.tc_type.tolist(), inst.ts_type.tolist()
    gt = inst.gpu_type_index.tolist()
    tj, tr = inst.task_job.tolist(), inst.task_round.tolist()
    phi = [0.0] * M
    lastm = [-1] * M
    cur_round = [0] * N
    bval = inst.arrival.tolist()
    bsrc = [-1] * N
    cmax = [-math.inf] * N
    carg = [-1] * N
    gpu = np.zeros(T, dtype=np.int64)
    start = np.zeros(T)
    by_gpu = np.zeros(T, dtype=bool)
    barrier = np.full(T, -1, dtype=np.int64)
    last = np.full((T, M), -1, dtype=np.int64)
    done = np.zeros(T)
    for i in order.tolist():
        n, r = tj[i], tr[i]
        if r != cur_round[n]:
            if r != cur_round[n] + 1:
                raise ValueError("order must take each job's rounds in sequence")
            bval[n], bsrc[n] = cmax[n], carg[n]
            cur_round[n], cmax[n], carg[n] = r, -math.inf, -1
        t = bval[n]
        if placement == "earliest-start":
            lo = min(phi)
            thr = t if t > lo else lo
            m = next(q for q in range(M) if phi[q] <= thr)
        else:
            m = min(range(M), key=lambda q: (phi[q], q))
        x = t if t > phi[m] else phi[m]  # line 13
        k = gt[m]
        e = x + tc[n][k]
        d = e + ts[n][k]
        if d > cmax[n]:
            cmax[n], carg[n] = d, i
        gpu[i], start[i], by_gpu[i], barrier[i] = m, x, t < phi[m], bsrc[n]
        last[i] = lastm
        done[i] = d
        phi[m], lastm[m] = e, i
    completion = np.array([int(inst.job_offset[n]) + int(np.argmax(done[inst.job_offset[n]:inst.job_offset[n + 1]]))
                           for n in range(N)], dtype=np.int64)
    return ListTrace(order, gpu, start, by_gpu, barrier, last, completion, placement)


def same_schedule(inst: Any, trace: ListTrace, sched: Any) -> bool:
    """Whether the replica's schedule is the method's: same GPU and start (to
    rounding) for every task."""
    if not np.array_equal(np.asarray(sched.gpu), trace.gpu):
        return False
    scale = max(1.0, float(np.max(np.abs(trace.start))) if trace.start.size else 1.0)
    return bool(np.allclose(np.asarray(sched.start, dtype=float), trace.start, rtol=0.0, atol=1e-9 * scale))


def hare_trace(inst: Any, method: str, options: dict, *, solver: str = "highs", seed: int = 0,
               time_limit: float | None = None) -> ListTrace | None:
    """The decision trace of Algorithm 1 (``method`` with ``options``) on ``inst``:
    the relaxation solved as the method solves it, ``pi`` from its ``x̂``, the
    list phase replayed (``None`` when the relaxation gives no point).

    ``options`` are checked against ``method``'s declarations
    (:meth:`~dmlsched.kit.Run.standalone`, whose run also carries ``solver``,
    ``seed`` and a budget of ``time_limit`` seconds)."""
    run = Run.standalone("hare", method, options=options, solver=solver, seed=seed, time_limit=time_limit)
    kind = "queyranne" if method == "list-queyranne" else run.options.get("relaxation", "rl")
    rel = solve_relaxation(inst, run, kind=kind)
    if rel.x_hat is None:
        return None
    order = priority_order(inst, middle_completion_priority(inst, rel.x_hat))
    tr = trace_list(inst, order, run.options.get("placement", "earliest-start"))
    tr.x_hat = np.asarray(rel.x_hat, dtype=float).copy()
    return tr


#: points of the segment old -> LP data proposed, in stages: the second stage
#: (a backtracking line search) only when no point of the first improves
THETAS: tuple[tuple[float, ...], ...] = ((1.0, 0.5, 0.25), (1 / 8, 1 / 16, 1 / 32, 1 / 64))


def hare_lp(inst: Any, trace: ListTrace, opt_sched: Any, opt_value: float, *,
            thetas: tuple[float, ...] = THETAS[0], margin: float = 1e-5, floor: float = 0.001,
            cap: float = 100.0, trust: float | None = None,
            order_proxy: bool = True, stay: float = 1e-3) -> tuple[str, float | None, list[dict] | None]:
    """Build and solve the LP of the module docstring.

    Parameters
    ----------
    inst
        The current instance (a :class:`~dmlsched.problems.hare.HareInstance`).
    trace
        Algorithm 1's decision trace on ``inst`` (already checked).
    opt_sched, opt_value
        The reference's schedule S* and its objective (data is normalised by
        ``opt_value``, so the current data is feasible with S* at value 1).
    thetas
        Points on the segment old -> LP data proposed.
    margin
        ``delta`` of the strict comparisons, relative to the median training time.
    trust
        If given, every datum stays within ``trust * (|v0| + median P0)`` of
        its current value (a trust region; default none).
    order_proxy, stay
        Items 4 and 5 of the module docstring.
    floor, cap
        ``P >= min(floor * max P, min P)`` and every datum ``<= cap * max datum``
        (of the current data): the LP cannot widen the range of training
        times beyond ``1/floor`` unless the instance already has it.

    Returns
    -------
    (status, predicted ratio, proposals)
        ``proposals`` are ``{"train_time": [[...]], "sync_time": [[...]], "arrival": [...]}``
        arrays (jobs x GPU types, in real units) per theta.
    """
    N, K, M = inst.num_jobs, len(inst.gpu_types), inst.num_gpus
    z = float(opt_value)
    if not (z > 0 and math.isfinite(z)):
        return "bad_reference", None, None
    P0, Q0, A0 = inst.tc_type / z, inst.ts_type / z, inst.arrival / z
    big = cap * max(float(P0.max()), float(Q0.max()) if Q0.size else 0.0, float(A0.max()), 1e-12)
    delta = margin * float(np.median(P0))
    lp = LinearProgram()
    lowP = min(floor * float(P0.max()), float(P0.min()))  # the current data stays feasible
    unit = float(np.median(P0))

    def box(v0: float, lo: float) -> tuple[float, float]:
        if trust is None:
            return lo, big
        r = trust * (abs(v0) + unit)
        return max(lo, v0 - r), min(big, v0 + r)

    P = [[lp.var(*box(float(P0[n, k]), lowP)) for k in range(K)] for n in range(N)]
    Q = [[lp.var(*box(float(Q0[n, k]), 0.0)) for k in range(K)] for n in range(N)]
    A = [lp.var(*box(float(A0[n]), 0.0)) for n in range(N)]
    tj = inst.task_job.tolist()
    tr = inst.task_round.tolist()
    gt = inst.gpu_type_index.tolist()
    T = inst.num_tasks
    w = inst.weight.tolist()
    x = [lp.var(0.0) for _ in range(T)]
    gpu = trace.gpu.tolist()

    def done(i: int) -> tuple[dict[int, float], float]:
        n, k = tj[i], gt[gpu[i]]
        return lin((x[i], 1.0), (P[n][k], 1.0), (Q[n][k], 1.0))

    def phi(i: int, m: int) -> tuple[dict[int, float], float]:
        la = int(trace.last[i, m])
        if la < 0:
            return lin()
        return lin((x[la], 1.0), (P[tj[la]][gt[m]], 1.0))

    def avail(i: int) -> tuple[dict[int, float], float]:
        j = int(trace.barrier[i])
        return lin((A[tj[i]], 1.0)) if j < 0 else done(j)

    # (1) the list schedule under the trace
    rounds_seen: set[tuple[int, int]] = set()
    for i in range(T):
        g = gpu[i]
        t_i, f_g = avail(i), phi(i, g)
        xi = lin((x[i], 1.0))
        if trace.by_gpu[i]:
            lp.row(lin_sub(xi, f_g), 0.0, 0.0)
            lp.row(lin_sub(t_i, f_g), hi=0.0)
            ref = f_g
        else:
            lp.row(lin_sub(xi, t_i), 0.0, 0.0)
            lp.row(lin_sub(f_g, t_i), hi=0.0)
            ref = t_i
        for m in range(M):
            if m == g:
                continue
            if m < g:
                lp.row(lin_sub(phi(i, m), ref if (trace.placement == "earliest-start") else f_g), lo=delta)
            elif trace.placement == "earliest-available" or trace.by_gpu[i]:
                lp.row(lin_sub(phi(i, m), f_g), lo=0.0)
        n, r = tj[i], tr[i]
        if r > 0 and (n, r) not in rounds_seen:
            rounds_seen.add((n, r))
            js = int(trace.barrier[i])
            lo_ = int(inst.job_offset[n]) + (r - 1) * int(inst.tasks_per_round_arr[n])
            for j in range(lo_, lo_ + int(inst.tasks_per_round_arr[n])):
                if j != js:
                    lp.row(lin_sub(done(j), done(js)), hi=0.0)
    objective: dict[int, float] = {}
    for n in range(N):
        c = int(trace.completion[n])
        for j in range(int(inst.job_offset[n]), int(inst.job_offset[n + 1])):
            if j != c:
                lp.row(lin_sub(done(j), done(c)), hi=0.0)
        for k, v in done(c)[0].items():
            objective[k] = objective.get(k, 0.0) + w[n] * v
    for k, v in objective.items():
        lp.cost[k] += v
    # (2) S*: left-shifted timing of the optimal schedule's assignment and per-GPU order
    sg = np.asarray(opt_sched.gpu, dtype=np.int64)
    ss = np.asarray(opt_sched.start, dtype=float)
    y = [lp.var(0.0) for _ in range(T)]
    for i in range(T):
        lp.row(lin((y[i], 1.0), (A[tj[i]], -1.0)), lo=0.0)
    for m in range(M):
        on = sorted(np.flatnonzero(sg == m).tolist(), key=lambda i: (ss[i], i))
        for a, b in zip(on, on[1:]):
            lp.row(lin((y[b], 1.0), (y[a], -1.0), (P[tj[a]][gt[m]], -1.0)), lo=0.0)
    ends: list[int] = []
    for n in range(N):
        R, Kn, off = int(inst.rounds_arr[n]), int(inst.tasks_per_round_arr[n]), int(inst.job_offset[n])
        prev = None
        for r in range(R):
            E = lp.var(0.0)
            for j in range(off + r * Kn, off + (r + 1) * Kn):
                k = gt[int(sg[j])]
                lp.row(lin((E, 1.0), (y[j], -1.0), (P[n][k], -1.0), (Q[n][k], -1.0)), lo=0.0)
                if prev is not None:
                    lp.row(lin((y[j], 1.0), (prev, -1.0)), lo=0.0)
            prev = E
        ends.append(prev)
    lp.row(lin(*[(ends[n], w[n]) for n in range(N)]), hi=1.0)
    # (5) data the list schedule's value does not need stays put: -stay * |v - v0| (L1, split variables)
    if stay > 0:
        for col, v0 in ([(P[n][k], float(P0[n, k])) for n in range(N) for k in range(K)]
                        + [(Q[n][k], float(Q0[n, k])) for n in range(N) for k in range(K)]
                        + [(A[n], float(A0[n])) for n in range(N)]):
            dev = lp.var(0.0, math.inf, -stay)
            lp.row(lin((dev, 1.0), (col, -1.0)), lo=-v0)
            lp.row(lin((dev, 1.0), (col, 1.0)), lo=v0)
    # (4) the order pi kept to first order: H_i = x̂_i + max_k P[n_i, k] / 2 with x̂ frozen
    if order_proxy and trace.x_hat is not None:
        xh = np.asarray(trace.x_hat, dtype=float) / z
        kmax = inst.tc_type.argmax(axis=1).tolist()
        for n in range(N):
            for k in range(K):
                if k != kmax[n]:
                    lp.row(lin((P[n][kmax[n]], 1.0), (P[n][k], -1.0)), lo=0.0)
        pr = xh + np.array([P0[n, kmax[n]] for n in tj]) / 2.0
        tight = [abs(xh[i] - A0[tj[i]]) <= 1e-9 * max(1.0, abs(A0[tj[i]])) for i in range(T)]

        def start_hat(i: int) -> tuple[dict[int, float], float]:
            # a relaxed start at its job's release moves with the release; any other stays frozen
            return lin((A[tj[i]], 1.0)) if tight[i] else lin(const=float(xh[i]))

        for i in range(T):
            if not tight[i]:
                lp.row(lin((A[tj[i]], 1.0)), hi=float(xh[i]))  # the frozen start stays after the release
        od = trace.order.tolist()
        for a, b in zip(od, od[1:]):
            if pr[a] > pr[b] + 1e-12:
                continue  # b's key is its job's running maximum (priority_order): no proxy
            lhs = lin_sub(start_hat(a), lin((P[tj[a]][kmax[tj[a]]], -0.5)))
            rhs = lin_sub(start_hat(b), lin((P[tj[b]][kmax[tj[b]]], -0.5)))
            lp.row(lin_sub(rhs, lhs), lo=0.0 if a < b else delta)
    # (3) alpha held: the claimed bound cannot grow
    a0 = alpha_of(inst)
    if math.isfinite(a0) and K > 1:
        for n in range(N):
            for k in range(K):
                for k2 in range(K):
                    if k != k2:
                        lp.row(lin((P[n][k], 1.0), (P[n][k2], -a0)), hi=0.0)
                        lp.row(lin((Q[n][k], 1.0), (Q[n][k2], -a0)), hi=0.0)
    status, sol, _ = lp.solve(maximise=True)
    if sol is None:
        return status, None, None
    value = float(sum(c * sol[k] for k, c in objective.items()))  # the list schedule's value (no penalty)
    newP = np.array([[sol[P[n][k]] for k in range(K)] for n in range(N)])
    newQ = np.array([[max(0.0, sol[Q[n][k]]) for k in range(K)] for n in range(N)])
    newA = np.array([max(0.0, sol[A[n]]) for n in range(N)])
    props = []
    for th in thetas:
        props.append({
            "train_time": ((1 - th) * P0 + th * newP) * z,
            "sync_time": ((1 - th) * Q0 + th * newQ) * z,
            "arrival": ((1 - th) * A0 + th * newA) * z,
        })
    return "optimal", value, props


def _num(v: float) -> float:
    """A proposal's number: 9 significant digits, exact zeros kept."""
    v = float(v)
    return 0.0 if v == 0.0 else float(f"{v:.9g}")


def apply_hare_data(data: dict, inst: Any, prop: dict) -> dict:
    """``data`` (JSON form) with the train/sync times of the cluster's GPU types
    and the arrivals of ``prop``; structure, weights and ids unchanged."""
    d = copy.deepcopy(data)
    for n, job in enumerate(d["jobs"]):
        for k, g in enumerate(inst.gpu_types):
            job["train_time"][g] = max(_num(prop["train_time"][n][k]), 1e-9)
            job["sync_time"][g] = max(_num(prop["sync_time"][n][k]), 0.0)
        job["arrival"] = max(_num(prop["arrival"][n]), 0.0)
    for k in ("expected", "name", "description"):
        d.pop(k, None)
    return d


def hare_lp_step(ctx: Context, s: Scored) -> LPStep:
    """One LP refinement of the scored Hare instance ``s`` (module docstring):
    trace, check, LP, proposals (not yet scored)."""
    ev = ctx.evaluator
    if s.ratio is None or not math.isfinite(s.ratio) or s.error:
        return LPStep("skipped", detail="no finite ratio")
    # an LP step re-solves, replays and solves an LP: none of it starts once the budget
    # is spent (a step is not a scored candidate, so Context.score_many would not stop it)
    ctx.check()
    inst = from_dict(s.data)
    res, ref = ev.results(s.data)
    if not isinstance(ref.solution, HareSchedule) or ref.objective is None:
        return LPStep("no_reference_schedule", detail=f"reference {ev.reference} gives no schedule")
    if not isinstance(res.solution, HareSchedule) or res.objective is None:
        return LPStep("skipped", detail="the method gives no schedule")
    if (abs(res.objective - (s.objective or 0.0)) > 1e-9 * max(1.0, abs(res.objective))
            or abs(ref.objective - (s.reference or 0.0)) > 1e-9 * max(1.0, abs(ref.objective))):
        return LPStep("trace_mismatch", detail="re-solving gave other objectives than the score")
    ctx.check()
    trace = hare_trace(inst, ev.method, ev.options, solver=ev.solver, seed=ev.seed, time_limit=ev.time_limit)
    if trace is None or not same_schedule(inst, trace, res.solution):
        return LPStep("trace_mismatch", detail="the replica does not reproduce the method's schedule")
    ctx.check()
    all_thetas = tuple(t for stage in THETAS for t in stage)
    status, value, props = hare_lp(inst, trace, ref.solution, ref.objective, thetas=all_thetas)
    if props is None:
        return LPStep("lp_infeasible" if status != "bad_reference" else "skipped", detail=status)
    cur = s.ratio
    if value is None or value <= cur * (1 + 1e-6):
        return LPStep("no_gain", predicted=value, current=cur)
    by_theta = dict(zip(all_thetas, props))
    stages = []
    for stage in THETAS:
        out = []
        for th in stage:
            d = apply_hare_data(s.data, inst, by_theta[th])
            if ctx.space.valid(d) and ctx.space.fits(d, ctx.size) and d not in out:
                out.append(d)
        stages.append(out)
    return LPStep("ok", predicted=value, current=cur, proposals=stages[0], later=stages[1:])


def hare_guided(ctx: Context, lp_period: int = 8, t0: float = 0.05, cooling: float = 0.995,
                reheat: int = 150) -> None:
    """Alternate LP refinements (:func:`hare_lp_step`) with annealing batches
    (:func:`~dmlsched.hunt.guided.guided_search`)."""
    guided_search(ctx, hare_lp_step, lp_period=lp_period, t0=t0, cooling=cooling, reheat=reheat)
