"""Pyomo formulations of RAR-DDLS (MobiHoc'22, Section 5) and the schedule
sets they range over.  Specification: ``models/rar.md``.

* :class:`IlpBoundModel` (:func:`build_ilp_bound`) -- ILP (14)-(16) over GPU sets with ``rho_hat_j/u``
  at its smallest possible value (``rho_min_j``, ``u = 1``), minimising
  ``theta``: ``theta*`` is a lower bound on the optimal makespan (method
  ``ilp-bound``).
* :class:`ScheduleIlp` (:func:`build_schedule_ilp`) -- ILP (10)-(13) over an explicit schedule set
  ``Y`` (methods ``exact`` and ``exact-nd``).
* :func:`nondelay_schedules` -- ``Y_nd``: every joint schedule obtained by
  dispatching the jobs in some order, each with some count vector
  ``(y_js)_s``, at the earliest completion event (or 0) not before the
  previous job's start at which its servers have enough idle GPUs.
* :func:`all_schedules` -- ``Y_all(UB)``: every joint schedule (count
  vectors x start slots in ``0..UB-1``) that respects the per-slot capacity
  and has makespan ``<= UB``; it contains every schedule at least as good as
  one of makespan ``UB``, so its optimum is the global optimum.

Placements are enumerated as count vectors: contention (6) depends only on
``y_js``, and GPUs of a server are identical, so concrete GPU indices are
assigned afterwards by :func:`assign_gpus` (per-slot capacity suffices: assign
at each start any idle GPUs of the server).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...budget import Budget
from ...errors import InvalidSolutionError, NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...modeling import ModelBuilder
from ...result import Result, Status
from .bounds import load_lower_bound, rho_hat
from .counts import assign_gpus, capacity_ok, count_vectors, count_vectors_size, servers_of, simulate_counts
from .instance import RarInstance
from .solution import Engine


# ---------------------------------------------------------------------------
# ILP (14)-(16): the lower bound
class IlpBoundModel(ModelBuilder):
    """ILP (14)-(16) with ``rho_hat_j / u = rho_min_j`` (``u = 1``), minimising ``theta``
    (``models/rar.md``, "ILP (14)-(16) as a lower bound").

    Parameters
    ----------
    inst
        The instance.
    """

    CONSTRAINTS = ("gang_size", "gpu_load")

    def __init__(self, inst: RarInstance) -> None:
        self.inst = inst

    def build(self):
        """The model: sets ``J``, ``N``, parameter ``rho``, variables ``x``, ``theta``, the
        constraint families of :attr:`CONSTRAINTS`, then the objective ``min_theta``."""
        import pyomo.environ as pyo

        inst = self.inst
        m = self.model = pyo.ConcreteModel(name="rar_ilp_bound")
        m.J = pyo.RangeSet(0, inst.num_jobs - 1)
        m.N = pyo.RangeSet(0, inst.num_gpus - 1)
        rh = rho_hat(inst)
        m.rho = pyo.Param(m.J, initialize={j: int(rh[j]) for j in range(inst.num_jobs)})
        m.x = pyo.Var(m.J, m.N, domain=pyo.Binary)
        m.theta = pyo.Var(domain=pyo.NonNegativeReals)
        self.add_constraints()
        self.add_min_theta()
        return m

    def add_gang_size(self) -> None:
        """(11) restated over GPU sets: job ``j`` takes exactly ``G_j`` GPUs, ``sum_g x_jg = G_j``."""
        import pyomo.environ as pyo

        G = self.inst.G
        self.model.gang_size = pyo.Constraint(self.model.J, rule=lambda m, j: sum(m.x[j, g] for g in m.N) == int(G[j]))

    def add_gpu_load(self) -> None:
        """(15)-(16): ``sum_j W_jg = sum_j x_jg rho_hat_j / u <= theta`` for every GPU ``g``."""
        import pyomo.environ as pyo

        self.model.gpu_load = pyo.Constraint(self.model.N, rule=lambda m, g: sum(m.rho[j] * m.x[j, g] for j in m.J)
                                             <= m.theta)

    def add_min_theta(self) -> None:
        """(14) with ``theta_u`` as the variable: ``min theta`` (the tightest feasible limit ``theta*_u``)."""
        import pyomo.environ as pyo

        self.model.min_theta = pyo.Objective(expr=self.model.theta, sense=pyo.minimize)

    def extract(self, values) -> tuple[tuple[int, ...], ...]:
        """The GPU set of every job in a solved model (``x[j, g] = 1``), in GPU order."""
        import pyomo.environ as pyo

        inst = self.inst
        return tuple(tuple(g for g in range(inst.num_gpus) if (pyo.value(values.x[j, g]) or 0.0) > 0.5)
                     for j in range(inst.num_jobs))


def build_ilp_bound(inst: RarInstance):
    """ILP (14)-(16) with ``rho_hat_j / u = rho_min_j`` (``u = 1``): :class:`IlpBoundModel`'s ``build()``."""
    return IlpBoundModel(inst).build()


# ---------------------------------------------------------------------------
# schedule sets
@dataclass
class ScheduleSet:
    """An explicit schedule set ``Y``: ``starts[k]``, ``vecs[k]``, ``T[k]`` per schedule."""

    starts: list[tuple[int, ...]]
    vecs: list[tuple[tuple[int, ...], ...]]
    T: list[np.ndarray]
    enumerated: int

    def __len__(self) -> int:
        return len(self.starts)

    def makespans(self) -> np.ndarray:
        return np.array([int(t.max()) for t in self.T], dtype=np.int64)


class EnumerationTooLarge(Exception):
    """The schedule set exceeds ``max_candidates``."""


class EnumerationCut(Exception):
    """The deadline stopped an enumeration; ``partial`` holds what it had."""

    def __init__(self, partial: "ScheduleSet"):
        super().__init__("enumeration stopped at the deadline")
        self.partial = partial


def placement_combos_count(inst: RarInstance) -> int:
    """``prod_j |count vectors of j|`` (exact integer)."""
    out = 1
    for j in range(inst.num_jobs):
        out *= count_vectors_size(inst, j)
    return out


def nondelay_count(inst: RarInstance) -> int:
    """Combinations ``Y_nd`` enumerates: ``J! * prod_j |vectors_j|``."""
    return math.factorial(inst.num_jobs) * placement_combos_count(inst)


def all_count(inst: RarInstance, ub: int) -> int:
    """Combinations ``Y_all(ub)`` enumerates: start vectors x count vectors."""
    ub = min(int(ub), inst.horizon)
    rmin = inst.rho_range[0]
    starts = 1
    for j in range(inst.num_jobs):
        starts *= max(0, ub - int(rmin[j])) + 1
    return starts * placement_combos_count(inst)


def nondelay_schedules(inst: RarInstance, max_candidates: int = 200_000,
                       budget: Budget | None = None) -> ScheduleSet:
    """``Y_nd``: in-order non-delay dispatch over all job orders x count vectors.

    Only schedules finishing by the horizon are kept; duplicates are removed.
    """
    count = nondelay_count(inst)
    if count > max_candidates:
        raise EnumerationTooLarge(f"{fmt_count(count)} (job order, count vectors) combinations exceed "
                                  f"max_candidates = {fmt_count(max_candidates)}")
    per_job = [count_vectors(inst, j) for j in range(inst.num_jobs)]
    seen: dict[tuple, int] = {}
    out = ScheduleSet([], [], [], 0)
    for vecs in itertools.product(*per_job):
        for order in itertools.permutations(range(inst.num_jobs)):
            out.enumerated += 1
            if budget is not None and out.enumerated % 1024 == 0 and budget.stop():
                raise EnumerationCut(out)
            res = _dispatch_counts(inst, order, vecs)
            if res is None:
                continue
            starts, T = res
            if T.max() > inst.horizon:
                continue
            key = (starts, vecs)
            if key in seen:
                continue
            seen[key] = len(out)
            out.starts.append(starts)
            out.vecs.append(vecs)
            out.T.append(T)
    return out


def _dispatch_counts(inst: RarInstance, order, vecs):
    free = list(inst.servers)
    eng = Engine(inst)
    starts = [0] * inst.num_jobs
    t = 0
    for j in order:
        vec = vecs[j]
        while not all(free[s] >= y for s, y in enumerate(vec)):
            te = eng.next_exit()
            if te is None:
                return None
            for e in eng.advance(te):
                for s, y in enumerate(vecs[e]):
                    free[s] += y
            t = te
        for s, y in enumerate(vec):
            free[s] -= y
        starts[j] = t
        eng.start(j, servers_of(vec), t)
    eng.run()
    return tuple(starts), np.array([eng.finish[j] for j in range(inst.num_jobs)], dtype=np.int64)


def all_schedules(inst: RarInstance, ub: int, max_candidates: int = 200_000,
                  budget: Budget | None = None) -> ScheduleSet:
    """``Y_all(ub)``: every capacity-feasible schedule with starts in ``0..ub-1`` and makespan ``<= ub``."""
    ub = min(int(ub), inst.horizon)
    count = all_count(inst, ub)
    if count > max_candidates:
        raise EnumerationTooLarge(f"{fmt_count(count)} (start vector, count vectors) combinations exceed "
                                  f"max_candidates = {fmt_count(max_candidates)}")
    per_job = [count_vectors(inst, j) for j in range(inst.num_jobs)]
    rmin = inst.rho_range[0]
    out = ScheduleSet([], [], [], 0)
    ranges = [range(0, max(0, ub - int(rmin[j])) + 1) for j in range(inst.num_jobs)]
    for vecs in itertools.product(*per_job):
        for starts in itertools.product(*ranges):
            out.enumerated += 1
            if budget is not None and out.enumerated % 1024 == 0 and budget.stop():
                raise EnumerationCut(out)
            try:
                T = simulate_counts(inst, starts, vecs)
            except InvalidSolutionError:  # zero progress: only when capacity is broken
                continue
            if T.max() > ub or not capacity_ok(inst, starts, vecs, T):
                continue
            out.starts.append(tuple(starts))
            out.vecs.append(vecs)
            out.T.append(T)
    return out


# ---------------------------------------------------------------------------
# ILP (10)-(13)
class ScheduleIlp(ModelBuilder):
    """ILP (10)-(13) over an explicit schedule set ``Y``; ``x`` (13) is binary
    (``models/rar.md``, "ILP (10)-(13) over an explicit schedule set").

    Parameters
    ----------
    inst
        The instance.
    Y
        The schedule set (:func:`nondelay_schedules`, :func:`all_schedules`).
    """

    CONSTRAINTS = ("makespan_link", "one_schedule", "same_schedule")

    def __init__(self, inst: RarInstance, Y: ScheduleSet) -> None:
        self.inst = inst
        self.Y = Y

    def build(self):
        """The model: sets ``J``, ``K``, parameter ``done``, variables ``x``, ``C``, the
        constraint families of :attr:`CONSTRAINTS`, then the objective ``min_makespan``."""
        import pyomo.environ as pyo

        inst, Y = self.inst, self.Y
        m = self.model = pyo.ConcreteModel(name="rar_schedule_ilp")
        m.J = pyo.RangeSet(0, inst.num_jobs - 1)
        m.K = pyo.RangeSet(0, len(Y) - 1)
        m.done = pyo.Param(m.J, m.K, initialize={(j, k): int(Y.T[k][j]) for j in range(inst.num_jobs)
                                                 for k in range(len(Y))})
        m.x = pyo.Var(m.J, m.K, domain=pyo.Binary)
        m.C = pyo.Var(domain=pyo.NonNegativeReals)
        self.add_constraints()
        self.add_min_makespan()
        return m

    def add_makespan_link(self) -> None:
        """(10) linearised: ``C >= sum_k x_j^k (a_j(y^k) + rho_j(y^k))`` for every job ``j``."""
        import pyomo.environ as pyo

        self.model.makespan_link = pyo.Constraint(
            self.model.J, rule=lambda m, j: m.C >= sum(m.done[j, k] * m.x[j, k] for k in m.K))

    def add_one_schedule(self) -> None:
        """(11): ``sum_k x_j^k = 1`` for every job ``j``."""
        import pyomo.environ as pyo

        self.model.one_schedule = pyo.Constraint(self.model.J, rule=lambda m, j: sum(m.x[j, k] for k in m.K) == 1)

    def add_same_schedule(self) -> None:
        """(12): ``x_j^k = x_{j'}^k``; stated against the first job, ``x_j^k = x_0^k`` (equivalent)."""
        import pyomo.environ as pyo

        self.model.same_schedule = pyo.Constraint(
            self.model.J, self.model.K,
            rule=lambda m, j, k: pyo.Constraint.Skip if j == 0 else m.x[j, k] == m.x[0, k]
        )

    def add_min_makespan(self) -> None:
        """(10): ``min max_j ...`` as ``min C``."""
        import pyomo.environ as pyo

        self.model.min_makespan = pyo.Objective(expr=self.model.C, sense=pyo.minimize)

    def chosen(self, values) -> int:
        """The index ``k`` of the schedule a solved model picks (the largest ``x[0, k]``)."""
        import pyomo.environ as pyo

        return int(max(values.K, key=lambda k: pyo.value(values.x[0, k])))

    def schedule(self, k: int):
        """Schedule ``k`` of ``Y`` with GPU indices (:func:`~.counts.assign_gpus`)."""
        Y = self.Y
        return assign_gpus(self.inst, Y.starts[k], Y.vecs[k], Y.T[k])

    def extract(self, values):
        """The schedule a solved model picks, with GPU indices."""
        return self.schedule(self.chosen(values))


def build_schedule_ilp(inst: RarInstance, Y: ScheduleSet):
    """ILP (10)-(13) over the explicit set ``Y``: :class:`ScheduleIlp`'s ``build()``."""
    return ScheduleIlp(inst, Y).build()


# ---------------------------------------------------------------------------
# registration (the method kit)

#: seconds per schedule the enumerations take (measured; used to refuse before starting)
SECONDS_PER_SCHEDULE = 4e-5
#: seconds per model variable Pyomo spends around a solver call (writing, reading back; measured)
PYOMO_SECONDS_PER_VAR = 4e-5
#: bytes per schedule kept in a schedule set (starts, vectors, completions)
BYTES_PER_SCHEDULE = 600


def ilp_bound_memory(inst: RarInstance) -> float:
    """Bytes the Pyomo model of ILP (14)-(16) needs: about 2 KiB per binary ``x[j, g]``."""
    return 2048.0 * inst.num_jobs * inst.num_gpus


@method(
    "rar", "ilp-bound", kind="bound", uses_solver=True,
    description="ILP (14)-(16) with rho_hat = rho_min (u = 1), min theta: a lower bound on the makespan",
    options=[Option("max_binaries", int, 5000,
                    "solve the ILP only up to this many binaries x[j, g]; beyond, the value is the load "
                    "bound (the ILP's LP relaxation)", minimum=0)],
)
def solve_ilp_bound(inst: RarInstance, run: Run) -> Result:
    """theta* of ILP (14)-(16): every GPU's total busy time is at most the makespan and
    every job runs at least ``rho_min_j`` slots, so ``theta* <= OPT``.  The value is the
    larger of the solver's proven bound and the load bound (which the ILP's LP relaxation
    equals, so a cut run never returns less).  Beyond ``max_binaries`` the ILP is not
    built (a deterministic size rule: at the paper's 160 jobs x 264 GPUs HiGHS ends 5 s
    with bound 285 below the load bound 287 and overruns its limit by seconds)."""
    load = float(load_lower_bound(inst))
    nbin = inst.num_jobs * inst.num_gpus
    if nbin > run.options["max_binaries"]:
        return run.result(bound=load, objective=load, status=Status.FEASIBLE, load_bound=load,
                          ilp=f"not built: {fmt_count(nbin)} binaries > max_binaries; value = load bound")
    run.require(memory_bytes=ilp_bound_memory(inst), what="the ILP (14)-(16)")
    with run.stage("build"):
        m = IlpBoundModel(inst).build()
    overhead = PYOMO_SECONDS_PER_VAR * inst.num_jobs * inst.num_gpus
    rem = run.remaining()
    if rem is not None and rem <= 2 * overhead:
        run.cut("ILP (14)-(16) before the solver started")
        return run.result(bound=load, objective=load, status=Status.FEASIBLE, load_bound=load)
    # Pyomo hands the model over and reads it back after the solver's own limit: keep that time
    out = run.solve_model(m, what="ILP (14)-(16)", budget=run.budget.less(overhead))
    bound = max(load, float(out.bound)) if out.bound is not None and math.isfinite(out.bound) else load
    status = Status.OPTIMAL if out.status == Status.OPTIMAL else Status.FEASIBLE
    extra = {"load_bound": load}
    if out.status == Status.OPTIMAL and out.objective is not None:
        extra["ceil"] = math.ceil(float(out.objective) - 1e-6)
    return run.result(bound=bound, objective=bound, outcome=out, status=status, **extra)


def _enumerate_checked(run: Run, count: int, what: str) -> None:
    """Refuse (n/a) an enumeration of ``count`` schedules that cannot fit the time or memory."""
    run.require(memory_bytes=BYTES_PER_SCHEDULE * count, seconds=SECONDS_PER_SCHEDULE * count,
                what=f"enumerating {fmt_count(count)} schedules ({what})")


def _cut(run: Run, inst: RarInstance, partial: ScheduleSet, what: str) -> Result:
    """The deadline stopped an enumeration: the best schedule it had, the load bound."""
    run.cut(what)
    if len(partial):
        k = int(np.argmin(partial.makespans()))
        run.incumbent(assign_gpus(inst, partial.starts[k], partial.vecs[k], partial.T[k]))
    return run.result(bound=float(load_lower_bound(inst)), enumerated=int(partial.enumerated))


def _from_set(run: Run, inst: RarInstance, Y: ScheduleSet, *, complete: bool = False, **details) -> Result:
    """Solve ILP (10)-(13) over ``Y`` and cross-check its optimum with the enumeration.

    ``complete``: ``Y`` holds every schedule within the horizon, so an empty
    ``Y`` proves the instance infeasible."""
    if len(Y) == 0:
        if complete:
            return run.result(status=Status.INFEASIBLE, infeasible=f"no schedule within the horizon "
                              f"T = {inst.horizon}: Y_all(T) is empty", **details)
        return run.result(status=Status.ERROR, error="schedule set Y is empty within the horizon (not a proof "
                          "that no schedule exists: Y_nd holds only non-delay in-order schedules)", **details)
    spans = Y.makespans()
    details.update(Y_size=len(Y), enumerated=int(Y.enumerated), enumeration_min=int(spans.min()))
    kbest = int(np.argmin(spans))
    run.incumbent(assign_gpus(inst, Y.starts[kbest], Y.vecs[kbest], Y.T[kbest]))
    with run.stage("build"):
        ilp = ScheduleIlp(inst, Y)
        m = ilp.build()
    rem = run.remaining()
    overhead = PYOMO_SECONDS_PER_VAR * inst.num_jobs * len(Y)
    if rem is not None and rem <= 2 * overhead:  # no time to hand the model over: the enumeration's answer
        run.cut("ILP (10)-(13) before the solver started")
        return run.result(bound=[float(spans.min()), float(load_lower_bound(inst))],
                          ilp="not solved: no time left; the enumeration's minimum is the optimum over Y", **details)
    out = run.solve_model(m, what="ILP (10)-(13)", budget=run.budget.less(overhead))
    sched = None
    if out.has_solution:
        with run.stage("extract"):
            k = ilp.chosen(m)
        if out.status == Status.OPTIMAL and abs(out.objective - spans.min()) > 1e-6:
            raise RuntimeError(f"{run.method}: ILP optimum {out.objective} != enumeration minimum {spans.min()}")
        sched = ilp.schedule(k)
        details["average_jct"] = float(np.mean(Y.T[k]))
    # the enumeration's minimum is the optimum over Y whatever the solver says
    return run.result(solution=sched, bound=[float(spans.min()), float(load_lower_bound(inst))], outcome=out,
                      **details)


@method(
    "rar", "exact-nd", kind="exact", uses_solver=True, space="non-delay in-order",
    description="ILP (10)-(13) over Y_nd (non-delay in-order schedules): optimal over Y_nd only, "
                "NOT a proven global optimum",
    options=[Option("max_candidates", int, 200_000, "refuse (n/a) when Y_nd would hold more schedules", minimum=1)],
)
def solve_exact_nd(inst: RarInstance, run: Run) -> Result:
    """Best schedule of ``Y_nd`` by ILP (10)-(13), cross-checked by enumeration.

    Optimal over ``Y_nd`` only (``space``): a delayed start can beat every schedule of
    ``Y_nd`` (``models/rar.md``), so ``check`` uses it as a feasible value, never as a
    proven optimum, for methods outside that space."""
    cap = run.options["max_candidates"]
    count = nondelay_count(inst)
    if count > cap:
        raise NotApplicable(f"Y_nd would enumerate {fmt_count(count)} (job order, count vectors) "
                            f"combinations, more than max_candidates = {fmt_count(cap)}")
    _enumerate_checked(run, count, "Y_nd")
    try:
        with run.stage("enumerate"):
            Y = nondelay_schedules(inst, cap, budget=run.budget)
    except EnumerationCut as e:
        return _cut(run, inst, e.partial, "enumeration of Y_nd")
    return _from_set(run, inst, Y, space_note="non-delay in-order (optimal over Y_nd only)")


@method(
    "rar", "exact", kind="exact", uses_solver=True,
    description="ILP (10)-(13) over Y_all(UB), every schedule with makespan <= UB (UB from Y_nd): "
                "global optimum for tiny instances",
    options=[Option("max_candidates", int, 200_000, "refuse (n/a) when the enumeration would exceed this many "
                    "schedules", minimum=1)],
)
def solve_exact(inst: RarInstance, run: Run) -> Result:
    """Global optimum of tiny instances: ILP (10)-(13) over ``Y_all(UB)``.

    ``UB`` is the best makespan of ``Y_nd`` (or ``T`` if ``Y_nd`` is empty);
    ``Y_all(UB)`` holds every capacity-feasible (start, count-vector) schedule with
    makespan ``<= UB``, so it contains an optimal schedule.  ``exact-cp`` answers
    far larger instances; this method is the paper's ILP over an explicit set."""
    cap = run.options["max_candidates"]
    count = nondelay_count(inst)
    if count > cap:
        raise NotApplicable(f"Y_nd (for UB) would enumerate {fmt_count(count)} combinations, more than "
                            f"max_candidates = {fmt_count(cap)}; use exact-cp")
    _enumerate_checked(run, count, "Y_nd, for UB")
    try:
        with run.stage("enumerate"):
            Ynd = nondelay_schedules(inst, cap, budget=run.budget)
    except EnumerationCut as e:
        return _cut(run, inst, e.partial, "enumeration of Y_nd")
    if len(Ynd):
        k = int(np.argmin(Ynd.makespans()))
        run.incumbent(assign_gpus(inst, Ynd.starts[k], Ynd.vecs[k], Ynd.T[k]))
    ub = int(Ynd.makespans().min()) if len(Ynd) else inst.horizon
    count = all_count(inst, ub)
    if count > cap:
        raise NotApplicable(f"Y_all(UB = {ub}) would enumerate {fmt_count(count)} schedules, more than "
                            f"max_candidates = {fmt_count(cap)}; use exact-cp")
    _enumerate_checked(run, count, f"Y_all(UB = {ub})")
    try:
        with run.stage("enumerate"):
            Y = all_schedules(inst, ub, cap, budget=run.budget)
    except EnumerationCut as e:
        return _cut(run, inst, e.partial, "enumeration of Y_all(UB)")
    return _from_set(run, inst, Y, complete=not len(Ynd), space_note="all schedules with makespan <= UB",
                     UB_nondelay=ub if len(Ynd) else None)
