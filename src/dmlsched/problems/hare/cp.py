"""CP-SAT model of Hare_Sched (Hare, HPDC'22, (4)-(8)) with one cumulative
resource per GPU type: method ``exact-cp``.

GPUs of one type are identical, so the model does not choose a GPU but a
*type* for every task: an optional training interval per (task, type), exactly
one present (5), and per type a cumulative resource whose capacity is the
number of GPUs of the type (8).  Interval graphs are perfect, so training
intervals of a type that never overlap more than ``k`` at a time colour onto
the type's ``k`` GPUs greedily by start time (:func:`colour_intervals`); the
GPU of every task is recovered that way and the schedule then passes the
ordinary validator.  Round barriers (7) go through a round-end variable; the
objective is ``sum_n w_n C_n`` with ``C_n`` the end of the last round (6).

The formulation, the proofs (colouring, rounding, box) and what the method
proves are in ``models/hare-cp.md``.

**Time scaling and what is proven.**  CP-SAT works on integers.  Times are
multiplied by an integer ``scale`` and *rounded down*: training
``floor(s T^c)``, training plus synchronisation ``floor(s (T^c + T^s))``,
arrival ``floor(s a_n)``; weights by ``weight_scale``, also rounded down
(:func:`dmlsched.cpsat.scale_times`).  The rounded-down model is a relaxation: every real
schedule maps to one of its solutions with no larger objective
(``models/hare-cp.md``, Lemma S), so CP-SAT's proven bound divided by
``scale * weight_scale`` is a lower bound on the optimum.  Every CP-SAT
solution gives a type per task and, by the colouring, a GPU and an order per
GPU; re-timed with the *real* times by left shifting
(:func:`.bruteforce.left_shift`) this is a feasible schedule (the rounded-up
model's solutions would be too, and none is better than the re-timed one of
the same orders, so it is not solved separately).  When every time is a
multiple of ``1/scale`` and every weight of ``1/weight_scale`` (the
*exactness condition*, :func:`dmlsched.cpsat.on_grid`) the model is Hare_Sched itself on
that grid, the re-timed schedule is no worse than CP-SAT's, and a CP-SAT
optimum is the optimum.  Otherwise the method returns the re-timed schedule
and the bound, ``optimal`` only when the two meet within the kit's relative
gap ``1e-6``; ``details["exact_scale"]`` says which case applies and
``details["scaled_bound"]`` gives the rounded-down model's bound.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ... import cpsat
from ...cpsat import grid_scale, new_model, rational, scale_times
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result
from .bounds import best_lower_bound
from .box import chain_horizon, list_incumbent, type_tables
from .bruteforce import left_shift
from .instance import HareInstance
from .solution import HareSchedule

#: largest scaled time (horizon x scale) given to CP-SAT
MAX_SCALED_TIME = 2**40
#: largest scaled objective (scaled weights x scaled horizon), far below 2^63
MAX_SCALED_OBJECTIVE = 2**52
#: largest weight scale
MAX_WEIGHT_SCALE = 10**6
#: (task, type) pairs beyond which exact-cp gives the lower bound the larger share of the deadline
LARGE_MODEL = 4000


# ---------------------------------------------------------------------------
# scaling


@dataclass(frozen=True)
class Scaling:
    """Integer data of the rounded-down model.

    Attributes
    ----------
    scale, weight_scale
        Time ``t`` becomes ``floor(t * scale)``, weight ``w`` becomes
        ``floor(w * weight_scale)`` (exact when on the grid).
    exact
        Whether every time is a multiple of ``1/scale`` and every weight of
        ``1/weight_scale`` (then the model is Hare_Sched itself).
    types
        Distinct GPU types, in order of first appearance; ``gpus_of[t]`` the
        GPU indices of type ``types[t]``.
    arrival
        ``floor(s a_n)`` per job.
    train, done
        ``[n, t]``: ``floor(s T^c)`` and ``floor(s (T^c + T^s))`` of a task of
        job ``n`` on a GPU of type ``t``.
    weight
        Scaled weights per job.
    """

    scale: int
    weight_scale: int
    exact: bool
    types: tuple[str, ...]
    gpus_of: tuple[tuple[int, ...], ...]
    arrival: np.ndarray
    train: np.ndarray
    done: np.ndarray
    weight: np.ndarray

    @property
    def objective_scale(self) -> float:
        return float(self.scale) * float(self.weight_scale)


def choose_scaling(inst: HareInstance, scale: int | None = None) -> Scaling:
    """The integer data of the model.

    Weights and times each get a scale by the one rule of
    :func:`dmlsched.cpsat.grid_scale` (any denominators, not only powers of
    ten): weights one of at most :data:`MAX_WEIGHT_SCALE`; times (arrivals,
    training and synchronisation) one that keeps scaled times below
    :data:`MAX_SCALED_TIME` and the scaled objective below
    :data:`MAX_SCALED_OBJECTIVE`.  Exact when both are (then the model is
    Hare_Sched on that grid); otherwise a power of ten and the model is a
    relaxation (times and weights rounded down, see the module docstring).
    """
    types, gpus_of, tc, ts = type_tables(inst)
    times = [*inst.arrival.tolist(), *tc.ravel().tolist(), *ts.ravel().tolist()]
    w = inst.weight
    horizon = max(chain_horizon(inst), 1e-9)
    wmax = max(float(w.max()), 1e-300) if len(w) else 1.0
    wgrid = grid_scale(w.tolist(), max_scaled=MAX_WEIGHT_SCALE * wmax)
    ws = wgrid.scale
    wsum = max(float(w.sum()) * ws, 1.0)
    tmax = max(max(times, default=0.0), 1e-300)
    cap = max(1.0, min(MAX_SCALED_TIME / horizon, MAX_SCALED_OBJECTIVE / (horizon * wsum)))
    tgrid = grid_scale(times, max_scaled=cap * tmax, scale=scale)
    s = tgrid.scale
    exact = wgrid.exact and tgrid.exact
    arrival = np.array(scale_times(inst.arrival.tolist(), s), dtype=np.int64)
    train = np.array(scale_times(tc.ravel().tolist(), s), dtype=np.int64).reshape(tc.shape)
    # floor(s (T^c + T^s)) of the two numbers as written (exact integers on the grid)
    done = np.array([math.floor((rational(a) + rational(b)) * s)
                     for a, b in zip(tc.ravel().tolist(), ts.ravel().tolist())],
                    dtype=np.int64).reshape(tc.shape)
    weight = np.array(scale_times(w.tolist(), ws), dtype=np.int64)
    return Scaling(s, ws, exact, types, gpus_of, arrival, train, done, weight)


# ---------------------------------------------------------------------------
# the box of the rounded-down model


@dataclass
class IntBox:
    """Integer box of the rounded-down model containing one of its optimal
    solutions (``models/hare-cp.md``, Lemma B'): starts ``x_lo <= x <= x_hi``,
    completions ``c_lo <= C <= c_hi``."""

    x_lo: np.ndarray
    x_hi: np.ndarray
    c_lo: np.ndarray
    c_hi: np.ndarray


def scaled_objective(inst: HareInstance, sc: Scaling, sched: HareSchedule) -> int:
    """Objective of the rounded-down image of a real schedule (Lemma S):
    ``sum_n W_n max_i (floor(s x_i) + D_{n,t_i})``."""
    t_of = _type_of_gpu(inst, sc)
    xs = np.array(scale_times(sched.start.tolist(), sc.scale), dtype=np.int64)
    done = xs + sc.done[inst.task_job, t_of[sched.gpu]]
    c = np.maximum.reduceat(done, inst.job_offset[:-1])
    return int(np.dot(sc.weight, c))


def _type_of_gpu(inst: HareInstance, sc: Scaling) -> np.ndarray:
    pos = {g: t for t, g in enumerate(sc.types)}
    return np.array([pos[g] for g in inst.gpus], dtype=np.int64)


def int_box(inst: HareInstance, sc: Scaling, ub: int) -> IntBox:
    """Lemma B' of ``models/hare-cp.md`` for the rounded-down data and an upper
    bound ``ub`` on its optimum (e.g. :func:`scaled_objective` of a feasible
    schedule): ``LC_n = A_n + R_n d_n^min``; ``C_n <= min(A_max + sum_i
    d_i^max, (ub - sum_{n' != n} W_{n'} LC_{n'}) / W_n)``; starts between
    ``A_n + r d_n^min`` and ``C_n^max - (R_n - r) d_n^min``.  Integer arithmetic."""
    dmin, dmax = sc.done.min(axis=1), sc.done.max(axis=1)
    rounds = np.array([j.rounds for j in inst.jobs], dtype=np.int64)
    sizes = np.array([j.num_tasks for j in inst.jobs], dtype=np.int64)
    c_lo = sc.arrival + rounds * dmin
    chain = int(sc.arrival.max()) + int((dmax * sizes).sum())
    base = int(np.dot(sc.weight, c_lo))
    c_hi = np.full(inst.num_jobs, chain, dtype=np.int64)
    for n in range(inst.num_jobs):
        wn = int(sc.weight[n])
        if wn > 0:
            c_hi[n] = min(chain, (int(ub) - (base - wn * int(c_lo[n]))) // wn)
    c_hi = np.maximum(c_hi, c_lo)
    nj, r = inst.task_job, inst.task_round
    x_lo = sc.arrival[nj] + r * dmin[nj]
    x_hi = np.maximum(c_hi[nj] - (rounds[nj] - r) * dmin[nj], x_lo)
    return IntBox(x_lo, x_hi, c_lo, c_hi)


# ---------------------------------------------------------------------------
# the model


class HareCp(ModelBuilder):
    """The CP-SAT model of Hare_Sched on the rounded-down data ``sc`` restricted to ``box``
    (``models/hare-cp.md``, section 3): one ``add_<name>`` per constraint family of
    :attr:`CONSTRAINTS`, added in that order by :meth:`build` (``symmetry`` only with the
    option), then the objective.

    Parameters
    ----------
    inst
        The instance.
    sc, box
        Its :class:`Scaling` and :class:`IntBox`.
    symmetry
        Add ``symmetry`` (identical tasks of a round ordered by start).

    Attributes
    ----------
    model
        The ``cp_model.CpModel`` (after :meth:`build`).
    x
        Start variable per task.
    lit
        ``lit[i][t]``: literal "task ``i`` on a GPU of type ``t``" (``None``
        where the type is fixed, see ``fixed_type``).
    fixed_type
        Type index of tasks whose type is forced (one type in the cluster), else -1.
    C
        Completion variable per job (the end of its last round).
    round_end
        ``E[n, r]``: end of training plus synchronisation of round ``r``.
    """

    CONSTRAINTS = ("starts", "assignment", "round_barriers", "completion", "no_overlap", "symmetry")

    def __init__(self, inst: HareInstance, sc: Scaling, box: IntBox, *, symmetry: bool = True) -> None:
        self.inst, self.sc, self.box = inst, sc, box
        self.symmetry = symmetry
        self.T = len(sc.types)
        self.fixed_type = np.full(inst.num_tasks, 0 if self.T == 1 else -1, dtype=np.int64)

    def build(self) -> Any:
        """The model: the constraint families of :attr:`CONSTRAINTS` in order (``symmetry`` only
        with the option), then the objective."""
        self.model = new_model()
        self.x: list[Any] = []
        self.lit: list[list[Any]] = []
        self.C: list[Any] = []
        self.round_end: dict[tuple[int, int], Any] = {}
        self.intervals: list[list[Any]] = [[] for _ in self.sc.types]
        self.add_constraints(tuple(c for c in self.CONSTRAINTS if self.symmetry or c != "symmetry"))
        self.add_objective()
        return self.model

    def add_starts(self) -> None:
        """``x_i`` in the box ``[A_n + r d_n^min, x_hi]`` -- this is (4)
        ``x_i >= a_n`` (rounded down: ``A_n = floor(s a_n)``) and Lemma B'."""
        lo, hi = self.box.x_lo.tolist(), self.box.x_hi.tolist()
        self.x = [self.model.NewIntVar(lo[i], hi[i], f"x[{i}]") for i in range(self.inst.num_tasks)]

    def add_assignment(self) -> None:
        """(5) every task on exactly one GPU -- here on exactly one *type*
        (the GPU inside the type is recovered by colouring, Lemma C): per
        (task, type) a literal and an optional training interval of length
        ``floor(s T^c)``; exactly one literal per task."""
        m, sc, inst = self.model, self.sc, self.inst
        nj = inst.task_job.tolist()
        for i in range(inst.num_tasks):
            n = nj[i]
            if self.T == 1:
                self.lit.append([None])
                self.intervals[0].append(m.NewFixedSizeIntervalVar(self.x[i], int(sc.train[n, 0]), f"iv[{i},0]"))
                continue
            row = [m.NewBoolVar(f"on[{i},{t}]") for t in range(self.T)]
            for t, b in enumerate(row):
                self.intervals[t].append(
                    m.NewOptionalFixedSizeIntervalVar(self.x[i], int(sc.train[n, t]), b, f"iv[{i},{t}]")
                )
            m.AddExactlyOne(row)
            self.lit.append(row)

    def _done(self, i: int, n: int) -> Any:
        """``x_i + floor(s (T^c + T^s))`` on the chosen type (linear)."""
        if self.fixed_type[i] >= 0:
            return self.x[i] + int(self.sc.done[n, self.fixed_type[i]])
        return self.x[i] + sum(int(self.sc.done[n, t]) * b for t, b in enumerate(self.lit[i]))

    def add_round_barriers(self) -> None:
        """(7) ``x_j >= x_i + T^c_i + T^s_i`` for ``i`` in round ``r`` and ``j``
        in round ``r+1`` of a job, through the round's end:
        ``E_{n,r} >= done_i`` for ``i`` in round ``r`` and ``x_j >= E_{n,r-1}``."""
        m, inst, sc, bx = self.model, self.inst, self.sc, self.box
        dmin = sc.done.min(axis=1)
        for n, job in enumerate(inst.jobs):
            for r in range(job.rounds):
                first = inst.task_index(n, r, 0)
                tasks = range(first, first + job.tasks_per_round)
                lo = int(sc.arrival[n] + (r + 1) * dmin[n])
                hi = int(bx.c_hi[n] - (job.rounds - 1 - r) * dmin[n])
                e = m.NewIntVar(lo, max(lo, hi), f"E[{n},{r}]")
                for i in tasks:
                    m.Add(e >= self._done(i, n))
                if r > 0:
                    prev = self.round_end[(n, r - 1)]
                    for j in tasks:
                        m.Add(self.x[j] >= prev)
                self.round_end[(n, r)] = e

    def add_completion(self) -> None:
        """(6) ``C_n >= x_i + T^c_i + T^s_i`` for every task of job ``n``:
        ``C_n = E_{n,R_n-1}``, since earlier rounds end before the last
        starts (7); its domain is ``[c_lo, c_hi]`` of Lemma B'."""
        for n, job in enumerate(self.inst.jobs):
            self.C.append(self.round_end[(n, job.rounds - 1)])

    def add_no_overlap(self) -> None:
        """(8) training intervals on one GPU do not overlap -- here: at most
        ``k_t`` training intervals of type ``t`` overlap at any time
        (cumulative, capacity ``k_t`` = number of GPUs of the type; a
        disjunctive ``NoOverlap`` when ``k_t = 1``; nothing when the type has
        at least as many GPUs as tasks).  Exact by Lemma C."""
        for t, ivs in enumerate(self.intervals):
            cap = len(self.sc.gpus_of[t])
            if cap == 1:
                self.model.AddNoOverlap(ivs)
            elif cap < len(ivs):
                self.model.AddCumulative(ivs, [1] * len(ivs), cap)

    def add_symmetry(self) -> None:
        """Symmetry breaking (no paper equation): tasks ``k < k'`` of one (job,
        round) are identical, so some optimal solution has ``x_k <= x_{k+1}``
        (``models/hare-cp.md``, Lemma B')."""
        inst = self.inst
        for n, job in enumerate(inst.jobs):
            for r in range(job.rounds):
                first = inst.task_index(n, r, 0)
                for i in range(first, first + job.tasks_per_round - 1):
                    self.model.Add(self.x[i] <= self.x[i + 1])

    def add_objective(self) -> None:
        """``min sum_n W_n C_n`` (scaled, rounded-down weights)."""
        self.model.Minimize(sum(int(self.sc.weight[n]) * c for n, c in enumerate(self.C) if self.sc.weight[n] != 0))

    # -- extraction and hint ---------------------------------------------------
    def _schedule(self, value: Callable[[Any], int]) -> HareSchedule | None:
        xs = np.array([value(v) for v in self.x], dtype=np.int64)
        types = self.fixed_type.copy()
        for i, row in enumerate(self.lit):
            if types[i] < 0:
                types[i] = next(t for t, b in enumerate(row) if value(b))
        return schedule_from_types(self.inst, self.sc, xs, types)

    def extract(self, values: Any) -> HareSchedule | None:
        """The schedule of a CP-SAT solution (``values.Value(var)`` reads it: the solver or a
        solution callback): a type per task, the GPUs by colouring and the real times by
        re-timing (:func:`schedule_from_types`)."""
        return self._schedule(values.Value)

    def hint(self, sched: HareSchedule) -> None:
        """Hint CP-SAT with a feasible schedule: its rounded-down image (Lemma S:
        scaled starts ``floor(s x)``, a solution of the model), tasks of a round
        relabelled by start so that the symmetry breaking holds."""
        inst = self.inst
        typ = _type_of_gpu(inst, self.sc)[sched.gpu]
        xs = np.array(scale_times(sched.start.tolist(), self.sc.scale), dtype=np.int64)
        for n, job in enumerate(inst.jobs):
            for r in range(job.rounds):
                first = inst.task_index(n, r, 0)
                sl = slice(first, first + job.tasks_per_round)
                o = np.lexsort((typ[sl], xs[sl]))
                xs[sl], typ[sl] = xs[sl][o], typ[sl][o]
        m = self.model
        for i in range(inst.num_tasks):
            m.AddHint(self.x[i], int(xs[i]))
            if self.fixed_type[i] < 0:
                for t, b in enumerate(self.lit[i]):
                    m.AddHint(b, int(typ[i] == t))


def build_cp(inst: HareInstance, sc: Scaling, box: IntBox, *, symmetry: bool = True) -> HareCp:
    """The CP-SAT model of Hare_Sched on the rounded-down data ``sc`` restricted
    to ``box`` (``models/hare-cp.md``, section 3), built (:class:`HareCp`)."""
    hc = HareCp(inst, sc, box, symmetry=symmetry)
    hc.build()
    return hc


# ---------------------------------------------------------------------------
# from CP-SAT values to a schedule


def colour_intervals(start: np.ndarray, end: np.ndarray, gpus: Sequence[int]) -> np.ndarray:
    """Interval partitioning: the GPU of every interval, greedily by start time.

    Intervals ``[start, end)`` are taken by ``(start, end, index)``; each goes to
    the GPU of ``gpus`` that has been free the longest (a heap of
    ``(free, GPU)``); an empty interval (``end <= start``) goes to that GPU
    without occupying it.  When at most ``len(gpus)`` intervals contain any point,
    a free GPU always exists (``models/hare-cp.md``, Lemma C); otherwise
    :class:`ValueError`.

    Plain code, ``O(n log n)``: networkx's interval-graph colouring would first
    build the graph, which can have ``n^2/2`` edges.
    """
    n = len(start)
    out = np.empty(n, dtype=np.int64)
    heap = [(-math.inf, g) for g in gpus]
    heapq.heapify(heap)
    for q in np.lexsort((np.arange(n), end, start)).tolist():
        free, g = heap[0]
        if end[q] <= start[q]:  # empty (a training rounded down to 0): occupies no GPU time
            out[q] = g
            continue
        if free > start[q]:
            raise ValueError(
                f"{len(gpus)} GPUs cannot hold the intervals: interval {q} starts at {start[q]} "
                "while every GPU is busy"
            )
        heapq.heapreplace(heap, (max(free, end[q]), g))
        out[q] = g
    return out


def schedule_from_types(inst: HareInstance, sc: Scaling, xs: np.ndarray, types: np.ndarray) -> HareSchedule | None:
    """Recover a schedule from scaled starts and a type per task.

    Per type, the scaled training intervals ``[x_i, x_i + floor(s T^c))`` are
    coloured onto the type's GPUs (:func:`colour_intervals`); the per-GPU
    orders (by scaled start, ties by task index) are re-timed with the real
    data by left shifting.  ``None`` only if those orders contradict (7),
    which a solution of the model never does (``models/hare-cp.md``, Lemma R).
    """
    gpu = np.empty(inst.num_tasks, dtype=np.int64)
    dur = sc.train[inst.task_job, types]
    for t, gl in enumerate(sc.gpus_of):
        idx = np.flatnonzero(types == t)
        if len(idx):
            gpu[idx] = colour_intervals(xs[idx], xs[idx] + dur[idx], gl)
    seqs: list[list[int]] = [[] for _ in range(inst.num_gpus)]
    for i in np.lexsort((np.arange(inst.num_tasks), xs)).tolist():
        seqs[int(gpu[i])].append(i)
    start = left_shift(inst, gpu, seqs)
    return None if start is None else HareSchedule(gpu=gpu, start=start)


def values_to_schedule(inst: HareInstance, hc: HareCp, value: Callable[[Any], int]) -> HareSchedule | None:
    """The schedule of a CP-SAT solution (``value(var)`` reads it; :meth:`HareCp.extract`)."""
    return hc._schedule(value)


def add_hint(inst: HareInstance, hc: HareCp, sched: HareSchedule) -> None:
    """Hint CP-SAT with a feasible schedule (:meth:`HareCp.hint`)."""
    hc.hint(sched)


# ---------------------------------------------------------------------------
# the method


def memory_estimate(inst: HareInstance) -> float:
    """Bytes CP-SAT needs for the model, about (measured: ~8 KiB per optional
    interval and ~2 KiB per task, twice for presolve's copy, plus 64 MiB)."""
    n, T = inst.num_tasks, len(inst.gpu_types)
    return 2.0 * (n * T * 8192 + n * 2048) + 64 * 2**20


def build_seconds(inst: HareInstance) -> float:
    """Seconds to build and hint the model, about (measured: 1.7 s for 7,000
    (task, type) pairs on a loaded 2-core machine; 2.5e-4 s per pair)."""
    return 2.5e-4 * inst.num_tasks * len(inst.gpu_types)


@method(
    "hare",
    "exact-cp",
    kind="exact",
    uses_solver=True,
    description="Hare_Sched (4)-(8) in CP-SAT: one cumulative per GPU type, GPUs recovered by interval colouring",
    options=[
        Option("scale", int, None, "time scale (times become floor(t*scale)); None: the smallest exact one, "
               "else a large power of ten", minimum=1),
        Option("work_limit", float, None, "CP-SAT deterministic time limit (reproducible at any load)", minimum=0.0),
        Option("hint", bool, True, "seed CP-SAT with the best list-scheduling incumbent"),
        Option("symmetry", bool, True, "order the identical tasks of a round by start"),
        Option("lower_bound", bool, True, "fold the lower-bound method's bound (models/hare-cp.md) into the bound"),
        Option("lower_bound_share", float, None, "share of the time limit the lower bound may use; None: 0.25, "
               f"or 0.6 beyond {LARGE_MODEL} (task, type) pairs, where CP-SAT proves little", minimum=0.0),
    ],
)
def solve_exact_cp(inst: HareInstance, run: Run) -> Result:
    """Hare_Sched by CP-SAT (``models/hare-cp.md``); ignores ``solver``.

    ``optimal`` only when proven: CP-SAT's optimum on exactly scaled data, or
    a schedule meeting the proven bound (the CP-SAT bound of the rounded-down
    model, the ``lower-bound`` method's, the trivial one) within ``1e-6``.
    """
    run.require(memory_bytes=memory_estimate(inst), what="the CP-SAT model")
    opts = run.options
    bounds: list[float | None] = []
    lb_info: dict[str, Any] = {}
    with run.stage("incumbent"):
        inc, inc_val, inc_rule = list_incumbent(inst)
        run.incumbent(inc)
    if opts["lower_bound"]:
        with run.stage("lower_bound"):
            share = opts["lower_bound_share"]
            if share is None:
                share = 0.6 if inst.num_tasks * len(inst.gpu_types) > LARGE_MODEL else 0.25
            horizon = float((inc.start + inst.tc[inst.task_job, inc.gpu]).max())
            lb = best_lower_bound(inst, budget=run.budget.share(min(share, 1.0)), horizon=horizon)
        bounds.append(lb.value)
        lb_info = {"lower_bound_method": lb.name, "lower_bound_value": lb.value}
        if lb.cut:
            run.cut("lower bound")
        if lb.priority is not None:
            with run.stage("incumbent"):
                s2, v2, r2 = list_incumbent(inst, {"fluid-lp": lb.priority}, base=False)
                if v2 < inc_val:
                    inc, inc_val, inc_rule = s2, v2, r2
                run.incumbent(inc, bound=lb.value)
    rem = run.remaining()
    est = build_seconds(inst)
    if rem is not None and est > 0.5 * rem:
        # CP-SAT could not even start: return the incumbent with the proven bound
        return run.result(
            solution=inc, bound=bounds, heuristic_objective=inc_val, heuristic_rule=inc_rule, **lb_info,
            cpsat=f"skipped: building the model would take about {est:.3g} s of the {rem:.3g} s left",
        )
    with run.stage("load_solver"):
        new_model()  # imports OR-Tools (about 1-2 s the first time in a process), not part of building
    with run.stage("build"):
        sc = choose_scaling(inst, opts["scale"])
        bx = int_box(inst, sc, scaled_objective(inst, sc, inc))
        bounds.append(float(np.dot(sc.weight, bx.c_lo)) / sc.objective_scale)
        hc = HareCp(inst, sc, bx, symmetry=opts["symmetry"])
        hc.build()
        if opts["hint"]:
            hc.hint(inc)
    # inexact: CP-SAT's optimum is the rounded-down relaxation's only, a proven bound, not a
    # proof for the schedule (the outcome is then feasible)
    out = run.solve_cpsat(
        hc.model,
        scaling=cpsat.Scaling(objective_scale=sc.objective_scale, exact=sc.exact, relaxed_as="rounded-down model"),
        on_solution=hc.extract,
    )
    scaled_bound = out.bound
    sched = None
    with run.stage("extract"):
        if out.has_solution:
            sched = hc.extract(out.engine)
    return run.result(
        solution=sched, bound=bounds, outcome=out,
        scale=sc.scale, weight_scale=sc.weight_scale, exact_scale=sc.exact, scaled_bound=scaled_bound,
        heuristic_objective=inc_val, heuristic_rule=inc_rule, **lb_info,
    )
