"""The clairvoyant offline optimum of an HLAS instance on CP-SAT: method ``offline-exact``.

One cumulative resource per GPU type (capacity = number of GPUs of the type),
tasks of a round in a canonical order, times scaled to integers
(:class:`OfflineCpModel`; ``models/hlas.md``, "Offline optimum on CP-SAT",
proves the reduction and states the exactness condition of the scaling).
Why it bounds every policy: :mod:`.models`.  OR-Tools is imported only inside
the model builders.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ...cpsat import Grid, Scaling, grid_scale, new_model, to_int
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result, Status
from .heuristics import Readings, simulate
from .instance import HlasInstance
from .models import trivial_bound
from .solution import HlasRun, completion_times

# ---------------------------------------------------------------------------
# integer times


#: integer times ``t * scale`` of an instance: :class:`dmlsched.cpsat.Grid`.  ``exact``: every
#: arrival, training and synchronisation time is a multiple of ``1/scale``; then the integer
#: model is the original one.  Otherwise the ``up`` model rounds every time up (an integer
#: schedule is feasible for the original times) and the ``down`` model rounds every time down
#: (its optimum is a lower bound)
TimeScale = Grid


#: largest scaled time CP-SAT is given (the horizon times the scale)
MAX_SCALED_TIME = 2**40
#: scale used when no exact one keeps within MAX_SCALED_TIME (the rounded-up and rounded-down
#: models are solved at it: coarse enough for CP-SAT, fine enough for a bound of 1e-3 s)
DEFAULT_INEXACT_SCALE = 1000


def all_times(inst: HlasInstance) -> list[float]:
    out = [j.arrival for j in inst.jobs]
    for j in inst.jobs:
        out.extend(j.train_time[g] for g in inst.gpu_types)
        out.extend(j.sync_time[g] for g in inst.gpu_types)
    return out


def horizon_of(inst: HlasInstance) -> float:
    """``max_n a_n + sum_tasks max_g (T^c + T^s)``: no start of a semi-active schedule exceeds it."""
    longest = sum(j.rounds * j.tasks_per_round * max(j.train_time[g] + j.sync_time[g] for g in inst.gpu_types)
                  for j in inst.jobs)
    return max(j.arrival for j in inst.jobs) + longest


def choose_time_scale(inst: HlasInstance, scale: int | None = None) -> TimeScale:
    """The one scaling rule of :func:`dmlsched.cpsat.grid_scale` on every arrival,
    training and synchronisation time (any denominators, not only powers of ten),
    keeping the scaled horizon below :data:`MAX_SCALED_TIME`; else
    :data:`DEFAULT_INEXACT_SCALE`, inexact.  ``scale`` forces one."""
    times = all_times(inst)
    top = max(times, default=0.0)
    g = grid_scale(times, max_scaled=MAX_SCALED_TIME, scale=scale, max_inexact=DEFAULT_INEXACT_SCALE,
                   extra_factor=horizon_of(inst) / top if top > 0 else 1.0)
    return g


# ---------------------------------------------------------------------------
# the CP-SAT model


class OfflineCpModel(ModelBuilder):
    """Hare's offline problem with unit weights on CP-SAT, GPUs of a type pooled.

    Tasks ``(n, r, i)``: job ``n``, round ``r``, ``i``-th task of the round.
    For every task a start ``S`` and, per GPU type ``g``, a presence literal
    ``x[g]`` with an optional interval ``[S, S + Tc[n,g])`` (the GPU is busy
    while training, Hare's (8)); exactly one type per task.  Constraints, each
    in its own method with Hare's equation:

    * arrival (4): ``S >= a_n`` for the tasks of round 0;
    * round barrier (7): ``R[n,r] >= S + sum_g x[g] (Tc[n,g] + Ts[n,g])`` for
      every task of round ``r``, and ``S >= R[n,r-1]`` for round ``r``;
    * completion (6): ``C_n = R[n, last]``;
    * capacity per type, (5) and (8) pooled: ``Cumulative`` of the intervals
      on type ``g`` with capacity ``|M_g|`` (``NoOverlap`` when ``|M_g| = 1``);
      the GPU of each task is recovered by colouring (:meth:`extract`);
    * canonical task order within a round: ``(type, S)`` lexicographically
      non-decreasing in ``i`` (the tasks of a round are identical).

    :attr:`CONSTRAINTS` names them (``models/hlas.md``, "Offline optimum"); :meth:`build` adds
    them in that order, ``canonical_order`` with ``symmetry`` and ``objective_cut`` with ``upper``.

    Objective: ``min sum_n C_n``.  ``rounding`` is ``"exact"``, ``"up"`` or
    ``"down"`` (:class:`TimeScale`).  ``upper``: an integer upper bound on the
    scaled ``sum_n C_n`` (:meth:`scaled_upper_of` a feasible run).
    """

    CONSTRAINTS = ("one_type", "round_barriers", "capacity", "canonical_order", "objective_cut")

    def __init__(self, inst: HlasInstance, scale: int, *, rounding: str = "exact", symmetry: bool = True,
                 upper: int | None = None) -> None:
        self.inst = inst
        self.scale = scale
        self.rounding = rounding

        def sc(values: list[float]) -> list[int]:
            return [to_int(v, scale, rounding) for v in values]

        self.types = list(inst.gpu_types)
        self.cap = [sum(1 for g in inst.gpus if g == t) for t in self.types]
        self.a = sc([j.arrival for j in inst.jobs])
        self.tc = [sc([j.train_time[g] for g in self.types]) for j in inst.jobs]
        self.ts = [sc([j.sync_time[g] for g in self.types]) for j in inst.jobs]
        self.symmetry = symmetry
        self.upper = upper
        # horizon: a semi-active schedule's makespan is at most the last arrival plus every
        # task's longest train+sync time (a chain of distinct tasks determines each start)
        longest = sum(j.rounds * j.tasks_per_round * max(self.tc[n][k] + self.ts[n][k] for k in range(len(self.types)))
                      for n, j in enumerate(inst.jobs))
        self.horizon = max(self.a) + longest

    def build(self) -> Any:
        """The model: variables, ``one_type``, ``round_barriers``, ``capacity``,
        ``canonical_order`` with ``symmetry``, the completions ``C`` (6), ``objective_cut``
        with ``upper``, then the objective ``min sum_n C_n``."""
        self.model = new_model()
        self.add_variables()
        self.add_one_type()
        self.add_round_barriers()
        self.add_capacity()
        if self.symmetry:
            self.add_canonical_order()
        self.C = [Rn[-1] for Rn in self.R]  # (6)
        if self.upper is not None:
            self.add_objective_cut()
        self.model.Minimize(sum(self.C))
        return self.model

    def add_variables(self) -> None:
        """Per task a start ``S[n,r,i]`` (from ``a_n``, (4)), per type a literal ``x[n,r,i,k]`` and an
        optional interval of length ``Tc[n,k]``; per round its end ``R[n,r]``."""
        inst, m = self.inst, self.model
        self.S: list[list[list[Any]]] = []
        self.x: list[list[list[list[Any]]]] = []
        self.R: list[list[Any]] = []
        self.intervals: list[list[Any]] = [[] for _ in self.types]
        for n, j in enumerate(inst.jobs):
            Sn, xn, Rn = [], [], []
            for r in range(j.rounds):
                Sr, xr = [], []
                for i in range(j.tasks_per_round):
                    s = m.NewIntVar(self.a[n], self.horizon, f"S[{n},{r},{i}]")
                    lits = []
                    for k in range(len(self.types)):
                        lit = m.NewBoolVar(f"x[{n},{r},{i},{k}]")
                        self.intervals[k].append(m.NewOptionalFixedSizeIntervalVar(s, self.tc[n][k], lit,
                                                                                    f"I[{n},{r},{i},{k}]"))
                        lits.append(lit)
                    Sr.append(s)
                    xr.append(lits)
                Sn.append(Sr)
                xn.append(xr)
                Rn.append(m.NewIntVar(self.a[n], self.horizon, f"R[{n},{r}]"))
            self.S.append(Sn)
            self.x.append(xn)
            self.R.append(Rn)

    # -- constraint families -------------------------------------------------
    def add_one_type(self) -> None:
        """(5) by type: every task runs on exactly one GPU type."""
        for xn in self.x:
            for xr in xn:
                for lits in xr:
                    self.model.AddExactlyOne(lits)

    def _done(self, n: int, r: int, i: int) -> Any:
        """End of training plus synchronisation of task ``(n, r, i)``."""
        return self.S[n][r][i] + sum(lit * (self.tc[n][k] + self.ts[n][k])
                                     for k, lit in enumerate(self.x[n][r][i]))

    def add_round_barriers(self) -> None:
        """(7): a round starts when every task of the previous round has trained and
        synchronised; ``R[n,r]`` bounds the end of round ``r`` from above (minimising
        ``sum C`` makes the last one tight; the others need only be valid)."""
        m = self.model
        for n, j in enumerate(self.inst.jobs):
            for r in range(j.rounds):
                for i in range(j.tasks_per_round):
                    m.Add(self.R[n][r] >= self._done(n, r, i))
                    if r > 0:
                        m.Add(self.S[n][r][i] >= self.R[n][r - 1])

    def add_capacity(self) -> None:
        """(5)+(8) pooled per type: at most ``|M_g|`` tasks train at once on type ``g``
        (interval graphs are perfect: such intervals colour onto ``|M_g|`` GPUs)."""
        for k, ivs in enumerate(self.intervals):
            if not ivs:
                continue
            if self.cap[k] == 1:
                self.model.AddNoOverlap(ivs)
            else:
                self.model.AddCumulative(ivs, [1] * len(ivs), self.cap[k])

    def add_canonical_order(self) -> None:
        """Tasks of a round are interchangeable: ``(type(i), S_i) <= (type(i+1), S_{i+1})``
        lexicographically (any schedule can be renumbered into this order; ``models/hlas.md``,
        "Offline optimum")."""
        m = self.model
        for n, j in enumerate(self.inst.jobs):
            for r in range(j.rounds):
                for i in range(j.tasks_per_round - 1):
                    a = sum(k * lit for k, lit in enumerate(self.x[n][r][i]))
                    b = sum(k * lit for k, lit in enumerate(self.x[n][r][i + 1]))
                    m.Add(a <= b)
                    same = m.NewBoolVar(f"same[{n},{r},{i}]")
                    m.Add(a == b).OnlyEnforceIf(same)
                    m.Add(a != b).OnlyEnforceIf(same.Not())
                    m.Add(self.S[n][r][i] <= self.S[n][r][i + 1]).OnlyEnforceIf(same)

    def add_objective_cut(self) -> None:
        """``sum_n C_n <= upper`` (the scaled value of a feasible run, an integer) and, with
        ``lb_m`` a lower bound on ``C_m``, ``C_n <= upper - sum_{m != n} lb_m`` -- all in the
        model's integers, so that the run itself always satisfies the cut (``models/hlas.md``,
        "Offline optimum")."""
        m = self.model
        ub = int(self.upper)
        lbs = [self.a[n] + j.rounds * min(self.tc[n][k] + self.ts[n][k] for k in range(len(self.types)))
               for n, j in enumerate(self.inst.jobs)]
        m.Add(sum(self.C) <= ub)
        for n in range(len(self.C)):
            m.Add(self.C[n] <= ub - (sum(lbs) - lbs[n]))

    @staticmethod
    def scaled_upper_of(scale: int, run: HlasRun) -> int:
        """An integer upper bound on the scaled ``sum_n C_n`` of the model's optimum from a
        feasible run: ``ceil(scale * sum_n C_n)`` of the run, computed on the exact value
        of the doubles (so floating-point error never puts it below the run's own value;
        at an exact scale the run's scaled value is an integer and this is it)."""
        return math.ceil(sum(Fraction(float(c)) for c in run.finish) * scale)

    # -- hint and extraction -----------------------------------------------------
    def hint(self, run: HlasRun) -> None:
        """Start CP-SAT from a feasible run: types and starts per task, renumbered into the
        canonical order.  Starts are scaled like the model's times (rounded down in the
        ``down`` model, where the floored run stays feasible: ``floor(x + y) >= floor(x) +
        floor(y)``; rounded to nearest otherwise, exact at an exact scale)."""
        inst = self.inst
        conv = (lambda v: to_int(v, self.scale, "down")) if self.rounding == "down" else (
            lambda v: int(round(v * self.scale)))
        tix = {t: k for k, t in enumerate(self.types)}
        base = 0
        for n, j in enumerate(inst.jobs):
            for r in range(j.rounds):
                idx = range(base + r * j.tasks_per_round, base + (r + 1) * j.tasks_per_round)
                tasks = sorted((tix[inst.gpus[int(run.gpu[t])]], conv(float(run.start[t]))) for t in idx)
                for i, (k, s) in enumerate(tasks):
                    self.model.AddHint(self.S[n][r][i], s)
                    for kk, lit in enumerate(self.x[n][r][i]):
                        self.model.AddHint(lit, 1 if kk == k else 0)
            base += j.num_tasks

    def extract(self, values: Any) -> HlasRun:
        """The run of a CP-SAT solution: times divided by the scale, each type's tasks
        coloured onto its GPUs greedily by start (a task takes a GPU of its type that is
        free at its start; the capacity constraint guarantees one)."""
        inst = self.inst
        members = [[m for m, g in enumerate(inst.gpus) if g == t] for t in self.types]
        tasks = []  # (start, type, duration, global index)
        gidx = 0
        for n, j in enumerate(inst.jobs):
            for r in range(j.rounds):
                for i in range(j.tasks_per_round):
                    k = next(kk for kk, lit in enumerate(self.x[n][r][i]) if values.Value(lit))
                    tasks.append((values.Value(self.S[n][r][i]), k, self.tc[n][k], gidx))
                    gidx += 1
        gpu = np.zeros(gidx, dtype=np.int64)
        start = np.zeros(gidx, dtype=float)
        free: list[list[tuple[int, int]]] = [[(0, mm) for mm in members[k]] for k in range(len(self.types))]
        for f in free:
            heapq.heapify(f)
        for s, k, d, t in sorted(tasks):
            busy_until, mm = heapq.heappop(free[k])
            if busy_until > s:  # pragma: no cover - excluded by the cumulative constraint
                raise RuntimeError("CP-SAT schedule exceeds a type's capacity")
            gpu[t] = mm
            start[t] = s / self.scale
            heapq.heappush(free[k], (s + d, mm))
        run = HlasRun(gpu=gpu, start=start, finish=np.zeros(inst.num_jobs), policy="offline-exact")
        run.finish = completion_times(inst, run)
        return run


def _best_policy_run(inst: HlasInstance) -> HlasRun | None:
    """The better of the clairvoyant ``srtf`` and ``fifo`` runs (cheap; a hint and an upper bound)."""
    best = None
    for policy in ("srtf", "fifo"):
        sim, d = simulate(inst, policy, readings=Readings(grouped=False))
        if best is None or d["avg_jct"] < best[1]:
            best = (sim, d["avg_jct"])
    return best[0] if best else None


@method(
    "hlas",
    "offline-exact",
    kind="exact",
    uses_solver=True,
    options=[
        Option("scale", int, None, "integer time scale (default: the lcm of the times' denominators when the "
               "scaled horizon fits, else 1000 with rounded-up and rounded-down models)", minimum=1),
        Option("symmetry", bool, True, "tasks of a round in canonical (type, start) order"),
        Option("hint", bool, True, "start from the better of the srtf and fifo runs"),
        Option("incumbent_cut", bool, False, "also cut by the hint's value (in the model's integers): measured "
               "no faster on the testbed and a stall on tiny instances with seven-decimal times"),
        Option("work_limit", float, None, "CP-SAT deterministic time per model (reproducible at any load)",
               minimum=0.0),
    ],
    description="Clairvoyant offline optimum on CP-SAT: one cumulative per GPU type, integer time scaling",
)
def solve_offline_exact(inst: HlasInstance, run: Run) -> Result:
    """The best schedule with full knowledge of arrivals and sizes (ignores ``solver``).

    Exact over every Hare schedule (any GPU, any start, tasks non-preemptive)
    when the times are multiples of ``1/scale``.  Otherwise the rounded-up
    model gives a feasible schedule and the rounded-down model a proven bound
    (``models/hlas.md``); each gets half of the time left.  The bound is an
    average JCT: ``(bound on sum C_n - sum_n a_n) / |N|``.
    """
    ts = choose_time_scale(inst, run.options["scale"])
    n_tasks = inst.num_tasks
    run.require(memory_bytes=20_000.0 * n_tasks * max(1, len(inst.gpu_types)) + 1e6, what="the CP-SAT model")
    n = inst.num_jobs
    hint_run = None
    if run.options["hint"]:
        with run.stage("hint"):
            hint_run = _best_policy_run(inst)
        run.incumbent(hint_run)
    def avg_bound(b: float | None, scale: int) -> float | None:
        # (b / scale - sum_n a_n) / |N| in exact arithmetic: b is an integer bound on the scaled
        # sum of completions, the arrivals' sum is large beside the JCTs when releases are late
        if b is None or not math.isfinite(b):
            return None
        return float((Fraction(b) / scale - sum(Fraction(j.arrival) for j in inst.jobs)) / n)

    bounds: list[float | None] = [trivial_bound(inst)]
    wl = run.budget.work  # the original work allowance (the work_limit option)
    if ts.exact:
        with run.stage("build"):
            upper = (OfflineCpModel.scaled_upper_of(ts.scale, hint_run)
                     if hint_run is not None and run.options["incumbent_cut"] else None)
            cp = OfflineCpModel(inst, ts.scale, symmetry=run.options["symmetry"], upper=upper)
            cp.build()
            if hint_run is not None:
                cp.hint(hint_run)
        out = run.solve_cpsat(cp.model, scaling=Scaling(to_bound=lambda b: avg_bound(b, ts.scale), objective=False),
                              on_solution=cp.extract)
        sol = cp.extract(out.engine) if out.has_solution else None
        return run.result(solution=sol, bound=bounds + [out.bound], outcome=out, scale=ts.scale,
                          exact_scale=True, tasks=n_tasks)
    # inexact times: a feasible schedule from the rounded-up model, a bound from the rounded-down one
    with run.stage("build"):
        up = OfflineCpModel(inst, ts.scale, rounding="up", symmetry=run.options["symmetry"])
        up.build()
        if hint_run is not None:
            up.hint(hint_run)
    out_up = run.solve_cpsat(up.model, scaling=Scaling(exact=False, to_bound=lambda b: None, objective=False),
                             on_solution=up.extract, budget=run.budget.share(0.5, work=wl))
    sol = up.extract(out_up.engine) if out_up.has_solution else None
    if sol is not None:
        run.incumbent(sol)
    with run.stage("build"):
        down = OfflineCpModel(inst, ts.scale, rounding="down", symmetry=run.options["symmetry"])
        down.build()
        best = run.best if run.best is not None else hint_run
        if best is not None:
            down.hint(best)
    # no schedule from the rounded-down model (it may not be feasible): its callback offers none
    out_down = run.solve_cpsat(down.model, on_solution=lambda v: None,
                               scaling=Scaling(exact=False, to_bound=lambda b: avg_bound(b, ts.scale), objective=False))
    status = out_up.status if out_up.has_solution else out_down.status
    out = dataclasses.replace(out_down, status=Status.FEASIBLE if out_up.has_solution else status,
                              message=f"up: {out_up.message}; down: {out_down.message}")
    return run.result(solution=sol, bound=bounds + [out_down.bound], outcome=out, scale=ts.scale,
                      exact_scale=False, tasks=n_tasks)


__all__ = ["OfflineCpModel", "TimeScale", "choose_time_scale", "solve_offline_exact"]
