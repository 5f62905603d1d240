"""Pyomo formulations of Hare_Sched (Hare, HPDC'22, Section 5): the exact MIP
(4)-(8) and the relaxations Hare_Sched_RL ((4)-(7) + (9)) and Queyranne's.

The specification, with the paper's equation numbers, every Pyomo component
name, the linearisations and the big-M argument, is ``models/hare.md``.

Methods registered here:

* ``exact`` -- (4)-(8) as a MIP: per pair of tasks an order binary and, per
  GPU, a big-M disjunction whose M comes from a horizon valid for some optimal
  schedule (:func:`horizon`); symmetry breaking between identical tasks of a
  round and between identical GPUs.  The MIP gives the assignment and the
  per-GPU orders; the schedule returned is re-timed by left shifting
  (:func:`.bruteforce.left_shift`).
* ``relaxation`` -- a proven lower bound: Hare_Sched_RL (``kind="rl"``) or the
  full Queyranne relaxation (``kind="queyranne"``), solved exactly with HiGHS
  by outer approximation (exact McCormick linearisation of ``y * x`` with
  binary ``y``, tangent cuts for the convex ``(sum_i y T)^2``), or with Gurobi's
  MIQCP (``kind="rl"``, ``solver="gurobi"``).

:func:`solve_relaxation` is the interface Algorithm 1 (``list``) uses.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError, SolverError
from ...registry import register_method
from ...result import Result, Status
from ...solvers import solve_model
from ...tolerance import TOL
from .bruteforce import left_shift, sequences_from_starts
from .instance import HareInstance
from .solution import HareSchedule, evaluate

# ---------------------------------------------------------------------------
# horizon: per-task start-time box valid for some optimal schedule


@dataclass
class Horizon:
    """Start-time box ``lower[i] <= x_i <= upper[i]`` and completion box
    ``c_lower[n] <= C_n <= c_upper[n]`` containing some optimal schedule.

    Attributes
    ----------
    lower, upper
        Per task (global index).
    c_lower, c_upper
        Per job.
    incumbent
        The feasible schedule the box was computed from (Algorithm 1's list
        phase with all priorities zero).
    incumbent_value
        Its objective ``UB``.
    trivial_bound
        ``sum_n w_n c_lower[n]``, a lower bound on the optimum.
    """

    lower: np.ndarray
    upper: np.ndarray
    c_lower: np.ndarray
    c_upper: np.ndarray
    incumbent: HareSchedule
    incumbent_value: float
    trivial_bound: float


def heuristic_incumbent(inst: HareInstance) -> HareSchedule:
    """The best of three runs of Algorithm 1's list phase (O(n log n) each).

    Priorities: all zero (jobs, rounds, tasks in index order); earliest
    possible start ``a_n + r p_n^min``; Smith's ratio of the job
    (``R_n D_n p_n^min / w_n``, zero weights last).  Any feasible schedule
    serves (Lemma B needs only a feasible ``UB``); the best gives the tightest box.
    """
    from .heuristics import list_schedule, priority_order

    nj, r = inst.task_job, inst.task_round
    pmin = (inst.tc + inst.ts).min(axis=1)
    work = np.array([j.num_tasks for j in inst.jobs], dtype=float) * pmin
    with np.errstate(divide="ignore"):
        smith = np.where(inst.weight > 0, work / np.where(inst.weight > 0, inst.weight, 1.0), np.inf)
    smith = np.where(np.isfinite(smith), smith, (smith[np.isfinite(smith)].max() + 1.0) if np.isfinite(smith).any() else 0.0)
    best = None
    best_val = math.inf
    for pr in (np.zeros(inst.num_tasks), inst.arrival[nj] + r * pmin[nj], smith[nj]):
        s = list_schedule(inst, priority_order(inst, pr))
        v = evaluate(inst, s)
        if v < best_val:
            best, best_val = s, v
    return best


def horizon(
    inst: HareInstance,
    incumbent: HareSchedule | None = None,
    *,
    scale: float = 1.0,
    relaxation: bool = False,
) -> Horizon:
    """The start-time box used for big-M values and McCormick bounds.

    With ``p_n^min = min_m (T^c_{n,m} + T^s_{n,m})``, ``p_n^max`` likewise,
    ``R_n`` rounds and ``UB`` the incumbent's objective:

    * ``L_i = a_n + r * p_n^min`` (any feasible schedule);
    * ``C_n <= min(a_max + sum_i p^max_i,
      (UB - sum_{n' != n} w_{n'} (a_{n'} + R_{n'} p^min_{n'})) / w_n)`` (second
      term only when ``w_n > 0``): the first holds for every semi-active
      schedule, the second for every optimal one, and some optimal schedule
      is semi-active (``models/hare.md``);
    * ``U_i = Cmax_n - (R_n - r) * p_n^min``.

    ``scale > 1`` widens the upper ends (``Cmax_n`` grows by the factor
    ``scale`` relative to ``c_lower``); used to test that the box does not bind.

    ``relaxation=True`` gives instead a box containing an optimum *of the
    relaxations themselves* (Hare_Sched_RL and Queyranne's), so that their
    ``x̂`` is an optimum of the paper's relaxation as written, with no box:
    the chain bound (valid for semi-active schedules only) is dropped; for
    ``w_n > 0`` the ``UB`` bound holds for every relaxation optimum (its value
    is at most OPT <= UB); for ``w_n = 0`` the tasks of job ``n`` can be moved
    to start at ``a_max + sum_i p^max_i + S^2 / T^c_min_n`` (``S`` = sum over
    all tasks of the largest training time) without changing the objective:
    at such a start the task's own term in (9), or in any Queyranne subset
    containing it, already exceeds the right-hand side, so every inequality
    still holds (``models/hare.md``).
    """
    if incumbent is None:
        incumbent = heuristic_incumbent(inst)
    ub = evaluate(inst, incumbent)
    p = inst.tc + inst.ts
    pmin = p.min(axis=1)
    pmax = p.max(axis=1)
    rounds = np.array([j.rounds for j in inst.jobs], dtype=float)
    a = inst.arrival
    w = inst.weight
    c_lower = a + rounds * pmin
    chain = float(a.max() + pmax[inst.task_job].sum())
    base = float(np.dot(w, c_lower))
    if relaxation:
        s_all = float(inst.tc.max(axis=1)[inst.task_job].sum())
        c_upper = chain + s_all**2 / inst.tc.min(axis=1) + rounds * pmax
    else:
        c_upper = np.full(inst.num_jobs, chain)
    for n in range(inst.num_jobs):
        if w[n] > 0:
            bound = (ub - (base - w[n] * c_lower[n])) / w[n]
            c_upper[n] = bound if relaxation else min(c_upper[n], bound)
    # numerical margin: a box that is a hair too tight could cut off the optimum
    c_upper = np.maximum(c_upper, c_lower) * (1 + 1e-9) + 1e-9
    if scale != 1.0:
        c_upper = c_lower + (c_upper - c_lower) * scale
    r = inst.task_round.astype(float)
    nj = inst.task_job
    lower = a[nj] + r * pmin[nj]
    upper = c_upper[nj] - (rounds[nj] - r) * pmin[nj]
    upper = np.maximum(upper, lower)
    return Horizon(lower, upper, c_lower, c_upper, incumbent, ub, base)


# ---------------------------------------------------------------------------
# shared structure of every formulation


def _round_groups(inst: HareInstance) -> list[tuple[int, int, list[int]]]:
    """``(n, r, tasks)`` for every round of every job."""
    groups = []
    for n, j in enumerate(inst.jobs):
        for r in range(j.rounds):
            first = inst.task_index(n, r, 0)
            groups.append((n, r, list(range(first, first + j.tasks_per_round))))
    return groups


def _identical_gpu_pairs(inst: HareInstance) -> list[tuple[int, int]]:
    """``(m_prev, m)``: consecutive GPUs (in index order) of the same type."""
    last: dict[str, int] = {}
    pairs = []
    for m, g in enumerate(inst.gpus):
        if g in last:
            pairs.append((last[g], m))
        last[g] = m
    return pairs


def _base_model(inst: HareInstance, hz: Horizon, *, gpu_symmetry: bool = True):
    """Variables, objective, (4)-(7) and symmetry breaking, shared by every model."""
    import pyomo.environ as pyo

    mdl = pyo.ConcreteModel(name=f"hare:{inst.name or 'instance'}")
    N, M, J = inst.num_tasks, inst.num_gpus, inst.num_jobs
    mdl.TASKS = pyo.RangeSet(0, N - 1)
    mdl.GPUS = pyo.RangeSet(0, M - 1)
    mdl.JOBS = pyo.RangeSet(0, J - 1)
    groups = _round_groups(inst)
    mdl.ROUNDS = pyo.Set(initialize=[(n, r) for n, r, _ in groups if r < inst.jobs[n].rounds - 1], dimen=2)
    mdl._inst = inst
    mdl._hz = hz
    mdl._groups = groups
    tc, ts = inst.tc, inst.ts
    nj = inst.task_job.tolist()
    mdl.x = pyo.Var(mdl.TASKS, bounds=lambda m, i: (float(hz.lower[i]), float(hz.upper[i])))
    mdl.y = pyo.Var(mdl.TASKS, mdl.GPUS, domain=pyo.Binary)
    mdl.C = pyo.Var(mdl.JOBS, bounds=lambda m, n: (float(hz.c_lower[n]), float(hz.c_upper[n])))
    mdl.round_end = pyo.Var(mdl.ROUNDS, within=pyo.NonNegativeReals)
    # per-task processing (training + synchronisation) on the chosen GPU
    mdl.proc = pyo.Expression(
        mdl.TASKS, rule=lambda m, i: sum(float(tc[nj[i], g] + ts[nj[i], g]) * m.y[i, g] for g in m.GPUS)
    )
    mdl.obj = pyo.Objective(expr=sum(float(inst.weight[n]) * mdl.C[n] for n in mdl.JOBS), sense=pyo.minimize)
    _arrival(mdl)
    _assign(mdl)
    _completion(mdl)
    _round_barrier(mdl)
    _symmetry_tasks(mdl)
    if gpu_symmetry:
        _symmetry_gpus(mdl)
    return mdl


def _arrival(mdl) -> None:
    """(4) ``x_i >= a_n``: a task starts no earlier than its job's arrival."""
    import pyomo.environ as pyo

    inst = mdl._inst
    a = inst.arrival[inst.task_job]
    mdl.arrival = pyo.Constraint(mdl.TASKS, rule=lambda m, i: m.x[i] >= float(a[i]))


def _assign(mdl) -> None:
    """(5) ``sum_m y_{i,m} = 1``: every task runs on exactly one GPU."""
    import pyomo.environ as pyo

    mdl.assign = pyo.Constraint(mdl.TASKS, rule=lambda m, i: sum(m.y[i, g] for g in m.GPUS) == 1)


def _completion(mdl) -> None:
    """(6) ``C_n >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})`` for every task of job ``n``."""
    import pyomo.environ as pyo

    nj = mdl._inst.task_job.tolist()
    mdl.completion = pyo.Constraint(mdl.TASKS, rule=lambda m, i: m.C[nj[i]] >= m.x[i] + m.proc[i])


def _round_barrier(mdl) -> None:
    """(7) ``x_j >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})`` for ``i`` in round
    ``r`` and ``j`` in round ``r+1`` of the same job, through the round's end
    ``round_end[n, r]``: ``round_done`` (``round_end >= x_i + proc_i``) and
    ``round_start`` (``x_j >= round_end``) -- equivalent to the pairwise form
    with ``2 D`` instead of ``D^2`` rows per round of ``D`` tasks."""
    import pyomo.environ as pyo

    inst = mdl._inst
    done_idx = []
    start_idx = []
    for n, r, tasks in mdl._groups:
        if r < inst.jobs[n].rounds - 1:
            done_idx += tasks
        if r > 0:
            start_idx += tasks
    nj = inst.task_job.tolist()
    rr = inst.task_round.tolist()
    mdl.round_done = pyo.Constraint(
        done_idx, rule=lambda m, i: m.round_end[nj[i], rr[i]] >= m.x[i] + m.proc[i]
    )
    mdl.round_start = pyo.Constraint(
        start_idx, rule=lambda m, j: m.x[j] >= m.round_end[nj[j], rr[j] - 1]
    )


def _symmetry_tasks(mdl) -> None:
    """Symmetry breaking (no paper equation): tasks ``k`` and ``k+1`` of the same
    (job, round) are identical, so some optimal schedule has ``x_k <= x_{k+1}``
    (relabel the round's tasks by start time): ``sym_task_order``."""
    import pyomo.environ as pyo

    idx = [i for _, _, tasks in mdl._groups for i in tasks[:-1]]
    mdl.sym_task_order = pyo.Constraint(idx, rule=lambda m, i: m.x[i] <= m.x[i + 1])


def _symmetry_gpus(mdl) -> None:
    """Symmetry breaking (no paper equation): for consecutive GPUs ``m' < m`` of
    the same type, ``y_{i,m} <= sum_{i' < i} y_{i',m'}`` (``sym_gpu_order``):
    identical GPUs sorted by the smallest task index they run, empty ones last.
    Compatible with ``sym_task_order`` because permuting GPUs changes no start
    time and no task label."""
    import pyomo.environ as pyo

    pairs = _identical_gpu_pairs(mdl._inst)
    idx = [(i, mp, m) for mp, m in pairs for i in mdl.TASKS]

    def rule(m, i, mp, g):
        if i == 0:
            return m.y[0, g] == 0
        return m.y[i, g] <= sum(m.y[k, mp] for k in range(i))

    mdl.sym_gpu_order = pyo.Constraint(pyo.Set(initialize=idx, dimen=3), rule=rule)


# ---------------------------------------------------------------------------
# exact model


def disjunctive_pairs(inst: HareInstance) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Pairs ``i < j`` that (8) must separate when they share a GPU.

    Tasks of different rounds of the same job are already separated by (7)
    (``x_j >= x_i + T^c_i + T^s_i``), so they are left out.  Returns
    ``(free, fixed)``: ``fixed`` pairs are tasks of the same (job, round), whose
    order is fixed to ``i`` first by ``sym_task_order``; ``free`` pairs get an
    order binary.
    """
    nj, rr = inst.task_job, inst.task_round
    free, fixed = [], []
    for i in range(inst.num_tasks):
        for j in range(i + 1, inst.num_tasks):
            if nj[i] == nj[j]:
                if rr[i] == rr[j]:
                    fixed.append((i, j))
            else:
                free.append((i, j))
    return free, fixed


def _no_overlap(mdl) -> None:
    """(8) ``|x_i - x_j| >= y_{k,m} T^c_{k,m}`` for tasks ``i, j`` on GPU ``m``, ``k`` the earlier.

    Linearised with the order binary ``order[i,j]`` (1: ``i`` before ``j``) per
    free pair and, per GPU ``m``:

    * ``no_overlap[i,j,m]``:     ``x_j >= x_i + T^c_{i,m} - M_{ijm} (3 - order_ij - y_im - y_jm)``
    * ``no_overlap_rev[i,j,m]``: ``x_i >= x_j + T^c_{j,m} - M_{jim} (2 + order_ij - y_im - y_jm)``

    For a fixed pair (same round, ``order`` = 1 by symmetry) only the first,
    with ``(2 - y_im - y_jm)``.  ``M_{ijm} = U_i + T^c_{i,m} - L_j`` (the box of
    :func:`horizon`); a row with ``M <= 0`` always holds in the box and is skipped.
    """
    import pyomo.environ as pyo

    inst, hz = mdl._inst, mdl._hz
    free, fixed = disjunctive_pairs(inst)
    mdl.PAIRS = pyo.Set(initialize=free, dimen=2)
    mdl.order = pyo.Var(mdl.PAIRS, domain=pyo.Binary)
    tc = inst.tc
    nj = inst.task_job
    L, U = hz.lower, hz.upper
    fwd, rev = [], []
    for i, j in free + fixed:
        for g in range(inst.num_gpus):
            if U[i] + tc[nj[i], g] - L[j] > 0:
                fwd.append((i, j, g))
            if (i, j) not in mdl.PAIRS:
                continue
            if U[j] + tc[nj[j], g] - L[i] > 0:
                rev.append((i, j, g))
    fixed_set = set(fixed)

    def fwd_rule(m, i, j, g):
        big = float(U[i] + tc[nj[i], g] - L[j])
        off = (2 - m.y[i, g] - m.y[j, g]) + (0 if (i, j) in fixed_set else 1 - m.order[i, j])
        return m.x[j] >= m.x[i] + float(tc[nj[i], g]) - big * off

    def rev_rule(m, i, j, g):
        big = float(U[j] + tc[nj[j], g] - L[i])
        return m.x[i] >= m.x[j] + float(tc[nj[j], g]) - big * (2 - m.y[i, g] - m.y[j, g] + m.order[i, j])

    mdl.no_overlap = pyo.Constraint(pyo.Set(initialize=fwd, dimen=3), rule=fwd_rule)
    mdl.no_overlap_rev = pyo.Constraint(pyo.Set(initialize=rev, dimen=3), rule=rev_rule)


def build_exact(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True):
    """The exact MIP of Hare_Sched (4)-(8) as a Pyomo ``ConcreteModel``."""
    hz = hz or horizon(inst)
    mdl = _base_model(inst, hz, gpu_symmetry=gpu_symmetry)
    _no_overlap(mdl)
    return mdl


def _assignment(mdl) -> np.ndarray:
    inst = mdl._inst
    y = np.array([[mdl.y[i, g].value or 0.0 for g in range(inst.num_gpus)] for i in range(inst.num_tasks)])
    return y.argmax(axis=1).astype(np.int64) if inst.num_tasks else np.zeros(0, dtype=np.int64)


def _starts(mdl) -> np.ndarray:
    return np.array([mdl.x[i].value for i in range(mdl._inst.num_tasks)], dtype=float)


def schedule_from_model(mdl) -> HareSchedule | None:
    """The exact MIP's incumbent re-timed by left shifting.

    GPU assignment from ``y``, per-GPU order from the MIP's start times ``x``
    (ties by task index); then :func:`.bruteforce.left_shift` gives every task
    its earliest start by plain arithmetic.  ``None`` if those orders contradict
    (7) (only possible through solver tolerances).
    """
    inst = mdl._inst
    gpu = _assignment(mdl)
    x = _starts(mdl)
    start = left_shift(inst, gpu, sequences_from_starts(inst, gpu, x))
    return None if start is None else HareSchedule(gpu=gpu, start=start)


@register_method(
    "hare",
    "exact",
    kind="exact",
    description="Hare_Sched (4)-(8) as a MIP (order binaries, big-M from a heuristic horizon)",
    uses_solver=True,
)
def solve_exact(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    gpu_symmetry: bool = True,
    **options: Any,
) -> Result:
    """Hare_Sched solved by a MIP; ``optimal`` only when the solver proves it.

    Options
    -------
    gpu_symmetry
        Add ``sym_gpu_order`` (identical GPUs sorted by their first task); default True.
    solver_options
        Dict passed to the solver.

    The returned schedule is the MIP's assignment and per-GPU orders, re-timed
    by left shifting (never worse than the MIP's own timing).  If the solver
    stops without a proof, the better of its incumbent and the heuristic
    incumbent used for the horizon is returned with status ``feasible``.
    ``lower_bound`` is the solver's bound (at least the trivial bound
    ``sum_n w_n (a_n + R_n p_n^min)``).
    """
    solver_options = options.pop("solver_options", None)
    if options:
        raise ValueError(f"exact: unknown option(s) {', '.join(sorted(options))}")
    t0 = time.perf_counter()
    hz = horizon(inst)
    mdl = build_exact(inst, hz, gpu_symmetry=gpu_symmetry)
    out = solve_model(mdl, solver, time_limit=time_limit, seed=seed, options=solver_options)
    details: dict[str, Any] = {
        "solver_status": out.message,
        "solver_objective": out.objective,
        "solver_bound": out.bound,
        "solver_runtime_s": out.runtime_s,
        "heuristic_objective": hz.incumbent_value,
        "binaries": inst.num_tasks * inst.num_gpus + len(mdl.PAIRS),
    }
    if out.status == Status.INFEASIBLE:  # cannot happen: the heuristic schedule is feasible
        details["error"] = "solver reports the MIP infeasible although a feasible schedule exists"
        return Result("hare", "exact", Status.ERROR, solver=solver, details=details,
                      runtime_s=time.perf_counter() - t0)
    sched = schedule_from_model(mdl) if out.has_solution else None
    value = evaluate(inst, sched) if sched is not None else None
    details["retimed_objective"] = value
    lb = hz.trivial_bound
    if out.bound is not None and math.isfinite(out.bound):
        lb = max(lb, out.bound)
    if out.status == Status.OPTIMAL and sched is not None:
        status = Status.OPTIMAL
        details["source"] = "mip"
    else:
        status = Status.FEASIBLE
        if sched is None or value > hz.incumbent_value:
            sched, value = hz.incumbent, hz.incumbent_value
            details["source"] = "heuristic"
        else:
            details["source"] = "mip"
    if status == Status.FEASIBLE and value <= lb + 1e-6 * max(1.0, abs(value)):
        status = Status.OPTIMAL  # the incumbent meets a proven bound (gap 1e-6)
        details["closed_by"] = "bound"
    # the solver's bound may exceed the (re-timed) optimum by its own tolerances
    if lb > value and lb - value <= 1e-6 * max(1.0, abs(value)):
        lb = value
    return Result(
        "hare", "exact", status, objective=value, bound=lb, solution=sched, solver=solver,
        runtime_s=time.perf_counter() - t0, details=details,
    )


# ---------------------------------------------------------------------------
# relaxations


@dataclass
class RelaxationResult:
    """Outcome of :func:`solve_relaxation`.

    Attributes
    ----------
    status
        ``optimal``: the relaxation was solved to proven optimality and its
        solution satisfies every constraint of the relaxation (checked by
        :func:`check_relaxed`).  ``feasible``: a limit stopped the solver;
        ``x_hat``/``y_hat`` is the best checked relaxed point found (the last
        master's solution if it passes the check, the same assignment re-timed
        by an LP that enforces the relaxation exactly, or the heuristic
        incumbent, which satisfies every relaxation constraint), not proven
        optimal; ``details["x_hat_source"]`` says which.  ``time_limit``: no
        checked point.
    value
        ``sum_n w_n C_n`` recomputed from ``x_hat``, ``y_hat`` (``None`` without them).
    lower_bound
        A proven lower bound on Hare_Sched's optimum (``None`` if none was proven).
    x_hat, y_hat
        Start time and GPU index of every task in the relaxed solution.
    details
        Solver figures: iterations, cuts, masters' bounds, runtime.
    """

    status: Status
    value: float | None
    lower_bound: float | None
    x_hat: np.ndarray | None
    y_hat: np.ndarray | None
    details: dict[str, Any] = field(default_factory=dict)


def queyranne_violation(p: np.ndarray, x: np.ndarray) -> tuple[float, int]:
    """Most violated Queyranne subset inequality on one GPU.

    For tasks with processing times ``p > 0`` and starts ``x`` on one machine,
    ``sum_{i in S} p_i x_i >= 1/2 [(sum_S p_i)^2 - sum_S p_i^2]`` for every
    subset ``S``.  The most violated ``S`` is a prefix of the tasks sorted by
    start (``models/hare.md``, "Separation").  Returns ``(violation, k)``:
    ``violation = max(0, max_k rhs_k - lhs_k)`` and ``k`` the prefix length
    attaining it (0 if none is violated).
    """
    if len(p) == 0:
        return 0.0, 0
    order = np.lexsort((np.arange(len(x)), x))
    ps, xs = p[order], x[order]
    lhs = np.cumsum(ps * xs)
    rhs = 0.5 * (np.cumsum(ps) ** 2 - np.cumsum(ps * ps))
    v = rhs - lhs
    k = int(np.argmax(v))
    return (float(v[k]), k + 1) if v[k] > 0 else (0.0, 0)


def check_relaxed(inst: HareInstance, x_hat: np.ndarray, y_hat: np.ndarray, kind: str = "rl") -> float:
    """Check a relaxed solution and return its value ``sum_n w_n C_n``.

    Plain code, trusting no solver: (4) arrivals, (5) one GPU per task, (7)
    round barriers, and (9) per GPU (``kind="rl"``) or every Queyranne subset
    inequality per GPU (``kind="queyranne"``, checked on prefixes in start
    order, which covers every subset).  ``C_n`` (6) is the latest
    ``x_i + T^c + T^s`` of the job.  Tolerance: :data:`dmlsched.tolerance.TOL`
    relative to the magnitudes of the two sides.

    Raises
    ------
    InvalidSolutionError
        Naming the violated constraint.
    """
    x = np.asarray(x_hat, dtype=float)
    g = np.asarray(y_hat)
    n = inst.num_tasks
    if x.shape != (n,) or g.shape != (n,):
        raise InvalidSolutionError(f"relaxed solution has {x.shape}/{g.shape} entries, instance has {n} tasks")
    if not np.all(np.isfinite(x)):
        raise InvalidSolutionError("relaxed solution: a start time is not finite")
    if n and (g.min() < 0 or g.max() >= inst.num_gpus or not np.all(g == np.round(g))):
        raise InvalidSolutionError("(5) relaxed solution: a GPU index is out of range")
    g = g.astype(np.int64)
    sched = HareSchedule(gpu=g, start=x)
    nj = inst.task_job
    tc = inst.tc[nj, g]
    ts = inst.ts[nj, g]
    a = inst.arrival[nj]
    bad = x < a - TOL * np.maximum(1.0, np.abs(a))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidSolutionError(f"(4) relaxed solution: task {i} starts at {x[i]} before arrival {a[i]}")
    done = x + tc + ts
    for nn, r, tasks in _round_groups(inst):
        if r == 0:
            continue
        prev = [t - inst.jobs[nn].tasks_per_round for t in tasks]
        lo, hi = float(x[tasks].min()), float(done[prev].max())
        if lo < hi - TOL * max(1.0, abs(hi)):
            raise InvalidSolutionError(
                f"(7) relaxed solution: job {inst.jobs[nn].id!r} round {r} starts at {lo} before "
                f"round {r - 1} ends at {hi}"
            )
    for m in range(inst.num_gpus):
        on = np.flatnonzero(g == m)
        p = inst.tc[nj[on], m]
        if kind == "rl":
            lhs = float(np.sum(p * (x[on] + p)))
            rhs = 0.5 * (float(p.sum()) ** 2 + float(np.sum(p * p)))
            viol = rhs - lhs
            scale = max(1.0, abs(lhs), abs(rhs))
            if viol > TOL * scale:
                raise InvalidSolutionError(f"(9) relaxed solution: GPU {m}: {lhs} < {rhs}")
        elif kind == "queyranne":
            viol, k = queyranne_violation(p, x[on])
            scale = max(1.0, float(np.sum(p * np.abs(x[on]))), 0.5 * float(p.sum()) ** 2)
            if viol > TOL * scale:
                raise InvalidSolutionError(
                    f"(Queyranne) relaxed solution: GPU {m}: the first {k} tasks by start time "
                    f"violate the subset inequality by {viol}"
                )
        else:
            raise ValueError(f"unknown relaxation kind {kind!r}")
    return evaluate(inst, sched)


def _add_mccormick(mdl) -> None:
    """Linearisation of the products ``y_{i,m} x_i`` of (9): ``z[i,m] = y_{i,m} x_i`` exactly for binary ``y`` and ``L_i <= x_i <= U_i``
    (McCormick; exact because ``y`` is binary):

    * ``mc_lo_y``: ``z >= L_i y``;  ``mc_up_y``: ``z <= U_i y``;
    * ``mc_lo_x``: ``z >= x_i - U_i (1 - y)``;  ``mc_up_x``: ``z <= x_i - L_i (1 - y)``.
    """
    import pyomo.environ as pyo

    hz = mdl._hz
    L, U = hz.lower, hz.upper
    mdl.z = pyo.Var(mdl.TASKS, mdl.GPUS, within=pyo.NonNegativeReals)
    mdl.mc_lo_y = pyo.Constraint(mdl.TASKS, mdl.GPUS, rule=lambda m, i, g: m.z[i, g] >= float(L[i]) * m.y[i, g])
    mdl.mc_up_y = pyo.Constraint(mdl.TASKS, mdl.GPUS, rule=lambda m, i, g: m.z[i, g] <= float(U[i]) * m.y[i, g])
    mdl.mc_lo_x = pyo.Constraint(
        mdl.TASKS, mdl.GPUS, rule=lambda m, i, g: m.z[i, g] >= m.x[i] - float(U[i]) * (1 - m.y[i, g])
    )
    mdl.mc_up_x = pyo.Constraint(
        mdl.TASKS, mdl.GPUS, rule=lambda m, i, g: m.z[i, g] <= m.x[i] - float(L[i]) * (1 - m.y[i, g])
    )


def build_relaxation_master(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True,
                            initial_cuts: int = 8):
    """Outer-approximation master of Hare_Sched_RL / Queyranne (a MILP).

    Base model ((4)-(7), symmetry breaking), McCormick ``z = y x``, and the
    ``oa_cuts`` list of tangent cuts of (9)/(Queyranne) (``_tangent_cut``),
    initialised with ``initial_cuts`` tangents of (9) per GPU at evenly spaced
    loads and at the heuristic incumbent's load.
    """
    import pyomo.environ as pyo

    hz = hz or horizon(inst)
    mdl = _base_model(inst, hz, gpu_symmetry=gpu_symmetry)
    _add_mccormick(mdl)
    mdl.oa_cuts = pyo.ConstraintList()
    mdl._cut_keys = set()
    nj = inst.task_job
    all_tasks = list(range(inst.num_tasks))
    for g in range(inst.num_gpus):
        total = float(inst.tc[nj, g].sum())
        points = {total * k / initial_cuts for k in range(1, initial_cuts + 1)}
        on = np.flatnonzero(hz.incumbent.gpu == g)
        points.add(float(inst.tc[nj[on], g].sum()))
        for s0 in sorted(points):
            _tangent_cut(mdl, g, all_tasks, s0)
    mdl._initial_cuts = len(mdl.oa_cuts)
    return mdl


def _tangent_cut(mdl, g: int, subset: list[int], s0: float) -> bool:
    """Tangent cut of the subset inequality on GPU ``g`` at load ``s0`` ((9) when
    ``subset`` is every task):

    ``sum_{i in S} T_ig z_ig + 1/2 sum_{i in S} T_ig^2 y_ig >= s0 sum_{i in S} T_ig y_ig - s0^2 / 2``

    valid because ``(sum_S T y)^2 >= 2 s0 sum_S T y - s0^2`` and the subset
    inequality reads ``sum_S T z + 1/2 sum_S T^2 y >= 1/2 (sum_S T y)^2`` (with
    ``y^2 = y``); exact at ``sum_S T y = s0``.  Returns False if already present.
    """
    key = (g, tuple(subset), round(s0, 12))
    if key in mdl._cut_keys:
        return False
    mdl._cut_keys.add(key)
    inst = mdl._inst
    t = inst.tc[inst.task_job, g]
    lhs = sum(float(t[i]) * mdl.z[i, g] + 0.5 * float(t[i] ** 2) * mdl.y[i, g] for i in subset)
    load = sum(float(t[i]) * mdl.y[i, g] for i in subset)
    mdl.oa_cuts.add(lhs >= s0 * load - 0.5 * s0 * s0)
    return True


def build_rl_miqcp(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True):
    """Hare_Sched_RL with (9) as the paper writes it (``rl_quadratic[m]``, a
    non-convex quadratic constraint: bilinear ``y x``), for Gurobi's MIQCP."""
    hz = hz or horizon(inst)
    mdl = _base_model(inst, hz, gpu_symmetry=gpu_symmetry)
    _rl_quadratic(mdl)
    return mdl


def _rl_quadratic(mdl) -> None:
    """(9) ``sum_i y_im T^c_im (x_i + T^c_im) >= 1/2 [(sum_i y_im T^c_im)^2 + sum_i (y_im T^c_im)^2]``
    per GPU ``m``, verbatim (quadratic; for Gurobi)."""
    import pyomo.environ as pyo

    t = mdl._inst.tc[mdl._inst.task_job]

    def rule(m, g):
        load = sum(float(t[i, g]) * m.y[i, g] for i in m.TASKS)
        lhs = sum(float(t[i, g]) * m.y[i, g] * (m.x[i] + float(t[i, g])) for i in m.TASKS)
        sq = sum(float(t[i, g]) ** 2 * m.y[i, g] * m.y[i, g] for i in m.TASKS)
        return lhs >= 0.5 * (load * load + sq)

    mdl.rl_quadratic = pyo.Constraint(mdl.GPUS, rule=rule)


def _relaxed_point(mdl) -> tuple[np.ndarray, np.ndarray]:
    return _starts(mdl), _assignment(mdl)


def _separate(mdl, kind: str, x: np.ndarray, gpu: np.ndarray, tol: float) -> tuple[int, int, float]:
    """Add violated cuts at the master's point; returns (cuts added, duplicates, max rel. violation)."""
    inst = mdl._inst
    nj = inst.task_job
    added = dup = 0
    worst = 0.0
    for g in range(inst.num_gpus):
        on = np.flatnonzero(gpu == g)
        if len(on) == 0:
            continue
        p = inst.tc[nj[on], g]
        if kind == "rl":
            lhs = float(np.sum(p * (x[on] + p)))
            s = float(p.sum())
            rhs = 0.5 * (s * s + float(np.sum(p * p)))
            rel = (rhs - lhs) / max(1.0, abs(lhs), abs(rhs))
            worst = max(worst, rel)
            if rel > tol:
                if _tangent_cut(mdl, g, list(range(inst.num_tasks)), s):
                    added += 1
                else:
                    dup += 1
        else:
            order = on[np.lexsort((on, x[on]))]
            ps = inst.tc[nj[order], g]
            lhs = np.cumsum(ps * x[order])
            cs = np.cumsum(ps)
            rhs = 0.5 * (cs**2 - np.cumsum(ps * ps))
            scale = np.maximum(1.0, np.maximum(np.abs(lhs), np.abs(rhs)))
            rel = (rhs - lhs) / scale
            worst = max(worst, float(rel.max()))
            for k in np.flatnonzero(rel > tol).tolist():
                subset = sorted(order[: k + 1].tolist())
                if _tangent_cut(mdl, g, subset, float(cs[k])):
                    added += 1
                else:
                    dup += 1
    return added, dup, worst


def solve_relaxation(
    inst: HareInstance,
    *,
    kind: str = "rl",
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    formulation: str | None = None,
    gpu_symmetry: bool = True,
    max_iterations: int = 500,
    horizon_scale: float = 1.0,
    box: str = "relaxation",
    solver_options: dict | None = None,
    **options: Any,
) -> RelaxationResult:
    """Solve Hare_Sched_RL (``kind="rl"``) or the Queyranne relaxation (``kind="queyranne"``).

    Parameters
    ----------
    kind
        ``"rl"``: (4)-(7) and (9) per GPU (the paper's Hare_Sched_RL);
        ``"queyranne"``: (4)-(7) and Queyranne's inequality for every subset of
        tasks on every GPU (tighter: (9) is the subset of all tasks).
    solver
        ``"highs"`` or ``"gurobi"``.
    formulation
        ``"oa"`` (outer approximation: a sequence of MILP masters with tangent
        cuts, the default with HiGHS and for ``"queyranne"``) or ``"miqcp"``
        ((9) handed to Gurobi as a quadratic constraint; default for
        ``kind="rl"`` with Gurobi).
    max_iterations
        Cap on OA masters.
    horizon_scale
        Widening factor of the start-time box (:func:`horizon`); for tests.
    box
        ``"relaxation"`` (default): a box containing an optimum of the
        relaxation as the paper writes it (no box), so ``x̂`` and the value are
        those of the literal relaxation and Algorithm 1 is run exactly as
        written; ``"schedule"``: the tighter box containing an optimal
        *schedule* (the exact model's), which gives a valid and often larger
        lower bound but may change ``x̂``.

    Returns
    -------
    RelaxationResult
        ``lower_bound`` is the best proven bound of any master (every master
        relaxes the relaxation, which relaxes Hare_Sched restricted to a box
        containing an optimum).
    """
    if options:
        raise ValueError(f"relaxation: unknown option(s) {', '.join(sorted(options))}")
    if kind not in ("rl", "queyranne"):
        raise ValueError(f"relaxation kind must be 'rl' or 'queyranne', got {kind!r}")
    if formulation is None:
        formulation = "miqcp" if (solver == "gurobi" and kind == "rl") else "oa"
    if formulation not in ("oa", "miqcp"):
        raise ValueError(f"formulation must be 'oa' or 'miqcp', got {formulation!r}")
    if formulation == "miqcp" and (solver != "gurobi" or kind != "rl"):
        raise SolverError("formulation 'miqcp' needs solver='gurobi' and kind='rl'")
    t0 = time.perf_counter()
    # masters get 85% of the limit; the rest is for a feasible relaxed point
    deadline = None if time_limit is None else t0 + 0.85 * float(time_limit)
    if box not in ("relaxation", "schedule"):
        raise ValueError(f"box must be 'relaxation' or 'schedule', got {box!r}")
    hz = horizon(inst, scale=horizon_scale, relaxation=box == "relaxation")
    details: dict[str, Any] = {"kind": kind, "formulation": formulation, "solver": solver, "box": box}
    if formulation == "miqcp":
        mdl = build_rl_miqcp(inst, hz, gpu_symmetry=gpu_symmetry)
        sopts = {"NonConvex": 2, **(solver_options or {})}
        out = solve_model(mdl, solver, time_limit=time_limit, seed=seed, options=sopts)
        details.update(solver_status=out.message, solver_objective=out.objective, solver_bound=out.bound,
                       iterations=1)
        lb = out.bound if out.bound is not None and math.isfinite(out.bound) else None
        point = _relaxed_point(mdl) if out.has_solution else None
        candidates = [("solver", point)]
        if out.status != Status.OPTIMAL:
            candidates.append(("heuristic", (hz.incumbent.start.copy(), hz.incumbent.gpu.copy())))
        return _finish(inst, kind, out.status, candidates, lb, details, t0)
    mdl = build_relaxation_master(inst, hz, gpu_symmetry=gpu_symmetry)
    best_lb: float | None = None
    status = Status.TIME_LIMIT
    point = fixed_point = None
    point_source = "master"
    tol = 0.1 * TOL
    it = 0
    cuts = 0
    worst = math.inf
    while it < max_iterations:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            break
        it += 1
        out = solve_model(mdl, solver, time_limit=remaining, seed=seed, options=solver_options)
        if out.bound is not None and math.isfinite(out.bound):
            best_lb = out.bound if best_lb is None else max(best_lb, out.bound)
        if out.status == Status.INFEASIBLE:
            status, point = Status.INFEASIBLE, None
            break
        if not out.has_solution:
            status = out.status
            break
        point = _relaxed_point(mdl)
        added, dup, worst = _separate(mdl, kind, point[0], point[1], tol)
        cuts += added
        if out.status != Status.OPTIMAL:
            status = Status.FEASIBLE  # limit hit inside this master
            break
        if added == 0:  # no violated cut left (or only numerical repeats)
            status = Status.OPTIMAL
            break
        status = Status.FEASIBLE
        # the master's assignment re-timed by the fixed-assignment LP is feasible
        # for the relaxation; if its value meets the proven bound, it is optimal
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            break
        xf = _fixed_assignment_point(mdl, kind, point[1], solver, seed, solver_options, remaining)
        if xf is not None:
            fixed_point = (xf, point[1])
            v = _checked_value(inst, xf, point[1], kind)
            if v is not None and best_lb is not None and v <= best_lb + 1e-6 * max(1.0, abs(v)):
                point, point_source, status = fixed_point, "fixed_assignment", Status.OPTIMAL
                break
    details.update(iterations=it, cuts=cuts, max_relative_violation=worst,
                   initial_cuts=mdl._initial_cuts, total_cuts=len(mdl.oa_cuts))
    if status == Status.FEASIBLE and it >= max_iterations:
        details["note"] = f"stopped after max_iterations={max_iterations}"
    candidates = [(point_source, point)]
    if status not in (Status.OPTIMAL, Status.INFEASIBLE):
        # not solved: offer feasible relaxed points (not optimal) for Algorithm 1
        if fixed_point is not None:
            candidates.append(("fixed_assignment", fixed_point))
        if point is not None:
            budget = None if time_limit is None else max(0.2, t0 + float(time_limit) - time.perf_counter())
            x = _fixed_assignment_point(mdl, kind, point[1], solver, seed, solver_options, budget)
            if x is not None:
                candidates.append(("fixed_assignment", (x, point[1])))
        candidates.append(("heuristic", (hz.incumbent.start.copy(), hz.incumbent.gpu.copy())))
    return _finish(inst, kind, status, candidates, best_lb, details, t0)


def _checked_value(inst, x, gpu, kind) -> float | None:
    try:
        return check_relaxed(inst, x, gpu, kind)
    except InvalidSolutionError:
        return None


def _fixed_assignment_point(mdl, kind, gpu, solver, seed, solver_options, time_limit) -> np.ndarray | None:
    """Start times feasible for the relaxation with the assignment fixed to ``gpu``.

    With ``y`` fixed, (9) and every subset inequality are linear in ``x`` and the
    tangent cut at the fixed load is the inequality itself, so a few LPs with
    separation give a point satisfying the relaxation exactly (symmetry rows are
    dropped: they are not part of the relaxation).  ``None`` if none is found.
    """
    inst = mdl._inst
    t0 = time.perf_counter()
    for i in range(inst.num_tasks):
        for g in range(inst.num_gpus):
            mdl.y[i, g].fix(1.0 if gpu[i] == g else 0.0)
    mdl.sym_task_order.deactivate()
    mdl.sym_gpu_order.deactivate()
    try:
        for _ in range(50):
            left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
            if left is not None and left <= 0:
                return None
            out = solve_model(mdl, solver, time_limit=left, seed=seed, options=solver_options)
            if not out.has_solution:
                return None
            x, _ = _relaxed_point(mdl)
            added, _, _ = _separate(mdl, kind, x, gpu, 0.1 * TOL)
            if added == 0:
                return x
        return None
    finally:
        for i in range(inst.num_tasks):
            for g in range(inst.num_gpus):
                mdl.y[i, g].unfix()
        mdl.sym_task_order.activate()
        mdl.sym_gpu_order.activate()


def _finish(inst, kind, status, candidates, lb, details, t0) -> RelaxationResult:
    """Pick the best candidate point that passes :func:`check_relaxed`.

    The first candidate is the solver's solution; when the run is ``optimal``
    only it counts (a failing check downgrades to ``feasible``).
    """
    x_hat = y_hat = value = None
    for source, pt in candidates:
        if pt is None:
            continue
        try:
            v = check_relaxed(inst, pt[0], pt[1], kind)
        except InvalidSolutionError as e:
            details[f"check_error_{source}"] = str(e)
            if source == candidates[0][0] and status == Status.OPTIMAL:
                status = Status.FEASIBLE
            continue
        if value is None or v < value:
            x_hat, y_hat, value = pt[0], pt[1], v
            details["x_hat_source"] = source
        if status == Status.OPTIMAL:
            break
    if x_hat is None and status in (Status.OPTIMAL, Status.FEASIBLE):
        status = Status.TIME_LIMIT
    if status == Status.OPTIMAL and details.get("x_hat_source") != candidates[0][0]:
        status = Status.FEASIBLE
    if x_hat is not None and status == Status.TIME_LIMIT:
        status = Status.FEASIBLE
    if (status == Status.FEASIBLE and lb is not None and value is not None
            and value <= lb + 1e-6 * max(1.0, abs(value))):
        # a checked relaxed point whose value meets a proven bound: optimal (gap 1e-6)
        status = Status.OPTIMAL
        details["closed_by"] = "bound"
    if lb is not None and value is not None and lb > value and lb - value <= 1e-6 * max(1.0, abs(value)):
        lb = value
    details["runtime_s"] = time.perf_counter() - t0
    return RelaxationResult(status, value, lb, x_hat, y_hat, details)


@register_method(
    "hare",
    "relaxation",
    kind="bound",
    description="lower bound: Hare_Sched_RL (9) or the Queyranne relaxation, by outer approximation",
    uses_solver=True,
)
def solve_relaxation_method(
    inst: HareInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    kind: str = "rl",
    **options: Any,
) -> Result:
    """A proven lower bound on Hare_Sched's optimum from a relaxation.

    Options
    -------
    kind
        ``"rl"`` (Hare_Sched_RL, the paper's (9) with (4)-(7)) or
        ``"queyranne"`` (every subset inequality, by separation).
    formulation, max_iterations, gpu_symmetry
        See :func:`solve_relaxation`.

    ``objective`` is the relaxation's value when proven optimal (else the
    proven bound); ``lower_bound`` the proven bound.
    """
    t0 = time.perf_counter()
    rel = solve_relaxation(inst, kind=kind, solver=solver, time_limit=time_limit, seed=seed, **options)
    details = dict(rel.details)
    details["value"] = rel.value
    if rel.status == Status.OPTIMAL:
        obj = rel.value
    else:
        obj = rel.lower_bound
    return Result(
        "hare", "relaxation", rel.status, objective=obj, bound=rel.lower_bound, solution=None,
        solver=solver, runtime_s=time.perf_counter() - t0, details=details,
    )
