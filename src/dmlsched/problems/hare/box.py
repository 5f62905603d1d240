"""The start-time box of Hare_Sched: per-task bounds on start times that
contain some optimal schedule (Lemma B of ``models/hare.md``) or some optimum
of the relaxations (section 5.1, "The box in RL").

Used for the big-M values of the exact MIP (:mod:`.models`) and the McCormick
bounds of the relaxations (:mod:`.relaxation`).  Plain NumPy; the incumbent
comes from the list phase (:mod:`.listsched`), below this module.

Also the solver-free data that the CP-SAT model (:mod:`.cp`) and the fluid LP
bound (:mod:`.bounds`) share: the per-type time tables
(:func:`type_tables`), the chain horizon (:func:`chain_horizon`) and the best
of a few list schedules (:func:`list_incumbent`, a near relative of
:func:`heuristic_incumbent` with more priorities and the earliest-finish rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .instance import HareInstance
from .listsched import PLACEMENTS, list_schedule, list_schedule_eft, priority_order
from .solution import HareSchedule, evaluate


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
        The feasible schedule the box was computed from
        (:func:`heuristic_incumbent`).
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
    """The best of six runs of Algorithm 1's list phase (O(n log n) each).

    Priorities: all zero (jobs, rounds, tasks in index order); earliest
    possible start ``a_n + r p_n^min``; Smith's ratio of the job
    (``R_n D_n p_n^min / w_n``, zero weights last); each with both readings
    of line 12 (:data:`~.listsched.PLACEMENTS`).  Any feasible schedule
    serves (Lemma B needs only a feasible ``UB``); the best gives the
    tightest box.  Ties between equal values go to the first run.
    """
    nj, r = inst.task_job, inst.task_round
    pmin = (inst.tc_type + inst.ts_type).min(axis=1)
    work = (inst.rounds_arr * inst.tasks_per_round_arr).astype(float) * pmin
    w = inst.weight
    with np.errstate(divide="ignore", invalid="ignore"):
        smith = np.where(w > 0, work / np.where(w > 0, w, 1.0), np.inf)
    finite = np.isfinite(smith)
    smith = np.where(finite, smith, (smith[finite].max() + 1.0) if finite.any() else 0.0)
    best = None
    best_val = math.inf
    for pr in (np.zeros(inst.num_tasks), inst.arrival[nj] + r * pmin[nj], smith[nj]):
        order = priority_order(inst, pr)
        for placement in PLACEMENTS:
            s = list_schedule(inst, order, placement)
            v = evaluate(inst, s)
            if v < best_val:
                best, best_val = s, v
    assert best is not None
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
    p = inst.tc_type + inst.ts_type
    pmin = p.min(axis=1)
    pmax = p.max(axis=1)
    rounds = inst.rounds_arr.astype(float)
    a = inst.arrival
    w = inst.weight
    c_lower = a + rounds * pmin
    chain = float(a.max() + pmax[inst.task_job].sum())
    base = float(np.dot(w, c_lower))
    if relaxation:
        s_all = float(inst.tc_type.max(axis=1)[inst.task_job].sum())
        c_upper = chain + s_all**2 / inst.tc_type.min(axis=1) + rounds * pmax
    else:
        c_upper = np.full(inst.num_jobs, chain)
    pos = w > 0
    bound = (ub - (base - w * c_lower)) / np.where(pos, w, 1.0)
    if relaxation:
        c_upper = np.where(pos, bound, c_upper)
    else:
        c_upper = np.where(pos, np.minimum(c_upper, bound), c_upper)
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
# type tables and list incumbents (shared by the CP model and the fluid LP bound)


def type_tables(inst: HareInstance) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], np.ndarray, np.ndarray]:
    """``(types, gpus_of, tc, ts)``: distinct types, the GPUs of each, and the
    ``[job, type]`` training and synchronisation times."""
    types = inst.gpu_types
    gpus_of = tuple(tuple(m for m, g in enumerate(inst.gpus) if g == t) for t in types)
    tc = np.array([[j.train_time[t] for t in types] for j in inst.jobs], dtype=float).reshape(inst.num_jobs, len(types))
    ts = np.array([[j.sync_time[t] for t in types] for j in inst.jobs], dtype=float).reshape(inst.num_jobs, len(types))
    return types, gpus_of, tc, ts


def chain_horizon(inst: HareInstance) -> float:
    """``a_max + sum_i p_i^max``: every completion of a semi-active schedule is
    below it (``models/hare.md``, Lemma B)."""
    _, _, tc, ts = type_tables(inst)
    sizes = np.array([j.num_tasks for j in inst.jobs], dtype=float)
    return float(inst.arrival.max() + ((tc + ts).max(axis=1) * sizes).sum())


def _finite(a: np.ndarray) -> np.ndarray:
    ok = np.isfinite(a)
    return np.where(ok, a, (a[ok].max() + 1.0) if ok.any() else 0.0)


def list_incumbent(inst: HareInstance, extra: dict[str, np.ndarray] | None = None, *,
                   base: bool = True) -> tuple[HareSchedule, float, str]:
    """The best of a few list schedules: Algorithm 1's list phase and its
    earliest-finish variant (:mod:`.listsched`) over solver-free priorities
    (task index; earliest start ``a_n + r p_n^min``; the job's Smith ratio
    ``R_n D_n p_n^min / w_n``; round by round ``a_n + (r+1) p_n^min / w_n``)
    and any ``extra`` priorities (only those when ``base`` is false).  ``O(n M)`` per run.

    Returns the schedule, its objective and the name of the rule.
    """
    nj, r = inst.task_job, inst.task_round
    _, _, tc, ts = type_tables(inst)
    pmin = (tc + ts).min(axis=1)
    sizes = np.array([j.num_tasks for j in inst.jobs], dtype=float)
    w = inst.weight
    with np.errstate(divide="ignore", invalid="ignore"):
        smith = _finite(np.where(w > 0, sizes * pmin / np.where(w > 0, w, 1.0), np.inf))
        rsmith = _finite(np.where(w[nj] > 0, inst.arrival[nj] + (r + 1.0) * pmin[nj] / np.where(w > 0, w, 1.0)[nj],
                                  np.inf))
    priorities = {
        "index": np.zeros(inst.num_tasks),
        "earliest": inst.arrival[nj] + r * pmin[nj],
        "smith": smith[nj],
        "round-smith": rsmith,
    } if base else {}
    priorities.update(extra or {})
    best: tuple[HareSchedule, float, str] | None = None
    for pname, pr in priorities.items():
        order = priority_order(inst, pr)
        for rule, fn in (("earliest-start", list_schedule), ("earliest-finish", list_schedule_eft)):
            s = fn(inst, order)
            v = evaluate(inst, s)
            if best is None or v < best[1]:
                best = (s, v, f"{pname}/{rule}")
    assert best is not None
    return best
