"""Time-indexed MIP of offline moldable scheduling minimising total flow time.

Specification with every component name: ``models/moldable.md``.  A task
``k`` chooses one admissible amount ``c`` (``1/n`` of one GPU or ``n``
dedicated GPUs, ``p_min <= p <= p_max``), an integer start time ``t >=
a_k`` and a set of GPUs; it then runs without preemption for
``d_kc = f(v_k, p_c)``.  Time is discretised in unit slots ``[u, u+1)``; a
task occupies the slots its interval ``[t, t + d_kc)`` meets.

Exactness: the optimum over schedules with integer start times.  When all
arrivals and all durations ``d_kc`` are integers, some optimal moldable
schedule has integer starts (left-shift argument, ``models/moldable.md``), so
the MIP optimum is the moldable optimum and the method reports ``optimal``;
otherwise it reports ``feasible`` (and no lower bound).

Size: the grid has one slot per second of the horizon, so data in seconds
(``generate.moldable.paper_like``: hour-long tasks) give millions of
variables.  :func:`estimate_size` counts them *before* anything is built and
the method refuses (status ``n/a``, with the estimate) what would not fit in
its memory limit; ``exact-cp`` (:mod:`.cp`) has no grid.  Pyomo is imported
only inside the model builders.  The admissible amounts (:func:`choices`) and
the memory scaling (:func:`memory_scale`) are shared with :mod:`.cp`, which
imports them from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...cpsat import grid_scale, to_int
from ...errors import InvalidSolutionError
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result
from .instance import MoldableInstance
from .solution import MoldableSchedule, validate

GRID_TOL = 1e-9


@dataclass
class Choice:
    """An admissible amount: ``den > 1`` means ``1/den`` of one GPU; else ``n`` GPUs."""

    den: int
    n: int

    @property
    def p(self) -> float:
        return 1.0 / self.den if self.den > 1 else float(self.n)

    @property
    def share(self) -> float:
        return 1.0 / self.den

    @property
    def ngpus(self) -> int:
        return 1 if self.den > 1 else self.n


def choices(inst: MoldableInstance, k: int) -> list[Choice]:
    t = inst.tasks[k]
    return [Choice(d, 1) for d in range(t.pmin_den, 1, -1)] + [Choice(1, n) for n in range(1, t.p_max + 1)]


def grid_exact(inst: MoldableInstance) -> bool:
    """Whether arrivals and all durations ``f(v_k, p)`` are integers and, where memory can
    bind, the memories are on their grid (:func:`memory_units`)."""
    if inst.memory.sum() > inst.gpu_memory and not memory_units(inst)[2]:
        return False
    for k, t in enumerate(inst.tasks):
        if abs(t.arrival - round(t.arrival)) > GRID_TOL:
            return False
        for c in choices(inst, k):
            d = inst.runtime(k, c.p)
            if abs(d - round(d)) > GRID_TOL * max(1.0, d):
                return False
    return True


def _dur(inst: MoldableInstance, k: int, c: Choice) -> float:
    d = inst.runtime(k, c.p)
    r = round(d)
    return float(r) if abs(d - r) <= GRID_TOL * max(1.0, d) else d


def serial_upper_bound(inst: MoldableInstance) -> float:
    """Total flow time of a feasible integer-start schedule: tasks in arrival
    order, each on one dedicated GPU, started at the first integer time when
    its arrival has passed and a GPU is free (list scheduling)."""
    free = [0.0] * inst.gpus
    total = 0.0
    for k in inst.arrival_order:
        k = int(k)
        d = _dur(inst, k, Choice(1, 1))
        g = min(range(inst.gpus), key=lambda i: free[i])
        s = max(math.ceil(inst.tasks[k].arrival - GRID_TOL), math.ceil(free[g] - GRID_TOL))
        free[g] = s + d
        total += s + d - inst.tasks[k].arrival
    return total


def _latest(inst: MoldableInstance, ub: float, dur: dict, ch: dict) -> dict[int, float]:
    """Latest completion of each task in an optimal schedule: ``a_k + UB - sum_{j != k} min_c d_jc``."""
    K = range(inst.num_tasks)
    minflow = {k: min(dur[k, c] for c in range(len(ch[k]))) for k in K}
    sum_min = sum(minflow.values())
    return {k: inst.tasks[k].arrival + ub - (sum_min - minflow[k]) + 1e-9 for k in K}


@dataclass
class GridSize:
    """Counts of the time-indexed model, computed without building it."""

    starts: int
    cover: int
    slots: int
    task_slots: int
    gpus: int
    memory: bool

    @property
    def variables(self) -> int:
        return self.starts + self.task_slots * self.gpus * (2 if self.memory else 1)

    @property
    def constraints(self) -> int:
        return self.task_slots * self.gpus * (2 if self.memory else 1) + self.slots * self.gpus * 2

    def bytes(self) -> int:
        """Pyomo and solver memory: about 6 KiB per variable or constraint and
        300 B per coverage entry, plus 40 MiB (fitted on this machine,
        ``benchmarks/moldable_exact.md``)."""
        return int(6144 * (self.variables + self.constraints) + 300 * self.cover + 40 * 2**20)

    def seconds(self) -> float:
        """Time to build the Pyomo model and hand it to the solver, before the
        solver's own time limit applies: about 0.5 ms per variable or constraint."""
        return 5e-4 * (self.variables + self.constraints) + 2e-6 * self.cover


def estimate_size(inst: MoldableInstance, *, upper_bound: float | None = None) -> GridSize:
    """The size of :func:`build_model`'s model, counted in O(tasks x amounts)."""
    K = range(inst.num_tasks)
    ub = serial_upper_bound(inst) if upper_bound is None else upper_bound
    ch = {k: choices(inst, k) for k in K}
    dur = {(k, c): _dur(inst, k, ch[k][c]) for k in K for c in range(len(ch[k]))}
    latest = _latest(inst, ub, dur, ch)
    starts = cover = 0
    horizon = 0
    task_slots = 0
    for k in K:
        t0 = math.ceil(inst.tasks[k].arrival - GRID_TOL)
        span = 0
        for c in range(len(ch[k])):
            d = dur[k, c]
            n = max(0, math.floor(latest[k] - d - t0) + 1)
            starts += n
            cover += n * math.ceil(d - GRID_TOL)
            if n:
                end = t0 + n - 1 + math.ceil(d - GRID_TOL)
                horizon = max(horizon, end)
                span = max(span, end - t0)
        task_slots += span
    mem = float(inst.memory.sum()) > inst.gpu_memory
    return GridSize(starts=starts, cover=cover, slots=horizon, task_slots=task_slots, gpus=inst.gpus, memory=mem)


class MoldableMip(ModelBuilder):
    """The time-indexed MIP (``models/moldable.md``, section 4.2), a Pyomo ``ConcreteModel``.

    Parameters
    ----------
    inst
        The instance.
    upper_bound
        The total flow of any feasible integer-start schedule (default
        :func:`serial_upper_bound`): limits every task's completion to
        ``a_k + UB - sum_{j != k} min_c d_jc``.
    """

    CONSTRAINTS = ("assign_once", "gpu_count", "share_link", "gpu_share_capacity", "memory_link",
                   "gpu_memory_capacity")

    def __init__(self, inst: MoldableInstance, *, upper_bound: float | None = None) -> None:
        self.inst = inst
        self.upper_bound = upper_bound
        K = range(inst.num_tasks)
        self.ch = {k: choices(inst, k) for k in K}
        self.dur = {(k, c): _dur(inst, k, self.ch[k][c]) for k in K for c in range(len(self.ch[k]))}

    def build(self) -> Any:
        """The model: the grid of start triples ``(k, c, t)``, sets and variables, the constraint
        families of :attr:`CONSTRAINTS`, then the objective ``total_flow``."""
        self.add_variables()
        self.add_constraints()
        self.add_total_flow()
        return self.model

    def add_variables(self) -> None:
        """Sets ``K``, ``G``, ``U``, ``X`` (the start triples), ``KU`` (slot coverage); binaries
        ``x[k,c,t]`` and ``a[k,g]`` (``models/moldable.md``, section 4.2)."""
        import pyomo.environ as pyo

        inst, ch, dur = self.inst, self.ch, self.dur
        K = range(inst.num_tasks)
        ub = serial_upper_bound(inst) if self.upper_bound is None else self.upper_bound
        latest = _latest(inst, ub, dur, ch)
        starts = []  # (k, c, t)
        for k in K:
            a = inst.tasks[k].arrival
            latest_completion = latest[k]
            t0 = math.ceil(a - GRID_TOL)
            for c in range(len(ch[k])):
                d = dur[k, c]
                t = t0
                while t + d <= latest_completion:
                    starts.append((k, c, t))
                    t += 1
        horizon = max((t + math.ceil(dur[k, c] - GRID_TOL) for k, c, t in starts), default=0)
        m = self.model = pyo.ConcreteModel(name="moldable_time_indexed")
        m.K = pyo.Set(initialize=list(K), ordered=True)
        m.G = pyo.Set(initialize=list(range(inst.gpus)), ordered=True)
        m.U = pyo.Set(initialize=list(range(horizon)), ordered=True)
        m.X = pyo.Set(initialize=starts, dimen=3, ordered=True)
        m.x = pyo.Var(m.X, domain=pyo.Binary)
        m.a = pyo.Var(m.K, m.G, domain=pyo.Binary)
        # slot coverage: (k, u) -> list of (k, c, t) whose interval meets slot u
        cover: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        for k, c, t in starts:
            for u in range(t, math.ceil(t + dur[k, c] - GRID_TOL)):
                cover.setdefault((k, u), []).append((k, c, t))
        self.cover = cover
        self.by_u: dict[int, list[int]] = {}
        for k, u in cover:
            self.by_u.setdefault(u, []).append(k)
        m.KU = pyo.Set(initialize=sorted(cover), dimen=2, ordered=True)

    def _starts_of(self) -> dict[int, list]:
        by_k: dict[int, list] = {}
        for key in self.model.X:
            by_k.setdefault(key[0], []).append(key)
        return by_k

    def add_assign_once(self) -> None:
        """(M1) every task starts exactly once with exactly one amount:
        ``sum_{c,t} x[k,c,t] = 1``."""
        import pyomo.environ as pyo

        by_k = self._starts_of()
        self.model.assign_once = pyo.Constraint(self.model.K,
                                                rule=lambda m, k: sum(m.x[i] for i in by_k.get(k, [])) == 1)

    def add_gpu_count(self) -> None:
        """(M2) a task uses as many GPUs as its amount needs (one for a share
        ``1/n``, ``n`` for ``n`` dedicated GPUs): ``sum_g a[k,g] = sum_{c,t} ng_c x[k,c,t]``."""
        import pyomo.environ as pyo

        ch = self.ch
        by_k = self._starts_of()
        self.model.gpu_count = pyo.Constraint(
            self.model.K,
            rule=lambda m, k: sum(m.a[k, g] for g in m.G)
            == sum(ch[k][c].ngpus * m.x[k, c, t] for (_, c, t) in by_k.get(k, [])),
        )

    def add_share_link(self) -> None:
        """(M3) ``q[k,g,u] >= sum_{c,t covering u} share_c x[k,c,t] + a[k,g] - 1``
        (``share_occ[k,u]`` is the sum, an Expression built once; linearising the product
        of the task's share in slot ``u`` and its use of GPU ``g``).  A dedicated GPU has share 1."""
        import pyomo.environ as pyo

        ch, cover, m = self.ch, self.cover, self.model
        m.share_occ = pyo.Expression(
            m.KU, rule=lambda m, k, u: pyo.quicksum(ch[k][c].share * m.x[k, c, t] for (_, c, t) in cover[k, u])
        )
        m.q = pyo.Var(m.KU, m.G, domain=pyo.NonNegativeReals)
        m.share_link = pyo.Constraint(
            m.KU,
            m.G,
            rule=lambda m, k, u, g: m.q[k, u, g] >= m.share_occ[k, u] + m.a[k, g] - 1,
        )

    def add_gpu_share_capacity(self) -> None:
        """(M3) Section IV-A: the shares on a GPU sum to at most 1 in every slot,
        ``sum_k q[k,g,u] <= 1`` (slots where two or more tasks may run)."""
        import pyomo.environ as pyo

        by_u, m = self.by_u, self.model
        m.UC = pyo.Set(initialize=sorted(u for u in by_u if len(by_u[u]) > 1), ordered=True)
        m.gpu_share_capacity = pyo.Constraint(
            m.UC, m.G, rule=lambda m, u, g: sum(m.q[k, u, g] for k in by_u[u]) <= 1
        )

    def add_memory_link(self) -> None:
        """(M4) ``r[k,g,u] >= m_k (sum_{c,t covering u} x[k,c,t] + a[k,g] - 1)`` (``occ[k,u]`` is
        the sum, an Expression), in the integer units of :func:`memory_units`.  Empty when all
        tasks together fit in one GPU's memory."""
        import pyomo.environ as pyo

        inst, cover, m = self.inst, self.cover, self.model
        mem, self.memory_cap, _ = memory_units(inst)
        need = inst.memory.sum() > inst.gpu_memory
        keys = [(k, u) for (k, u) in cover if need and inst.tasks[k].memory > 0]
        self.memory_keys = keys
        m.KUM = pyo.Set(initialize=keys, dimen=2, ordered=True)
        m.occ = pyo.Expression(m.KUM, rule=lambda m, k, u: pyo.quicksum(m.x[i] for i in cover[k, u]))
        m.r = pyo.Var(m.KUM, m.G, domain=pyo.NonNegativeReals)
        m.memory_link = pyo.Constraint(
            m.KUM,
            m.G,
            rule=lambda m, k, u, g: m.r[k, u, g] >= mem[k] * (m.occ[k, u] + m.a[k, g] - 1),
        )

    def add_gpu_memory_capacity(self) -> None:
        """(M4) Section III-A: the memory of the tasks on a GPU fits in every slot,
        ``sum_k r[k,g,u] <= gpu_memory`` (integer units; empty when all tasks fit one GPU)."""
        import pyomo.environ as pyo

        by_u, m, cap, keys = self.by_u, self.model, self.memory_cap, self.memory_keys
        keyset = set(keys)
        us = sorted({u for (_, u) in keys})
        m.UM = pyo.Set(initialize=us, ordered=True)
        m.gpu_memory_capacity = pyo.Constraint(
            m.UM,
            m.G,
            rule=lambda m, u, g: sum(m.r[k, u, g] for k in by_u[u] if (k, u) in keyset) <= cap,
        )

    def add_total_flow(self) -> None:
        """(M5) minimise total flow time ``sum_{k,c,t} (t + d_kc - a_k) x[k,c,t]``."""
        import pyomo.environ as pyo

        inst, dur, m = self.inst, self.dur, self.model
        m.total_flow = pyo.Objective(
            expr=sum((t + dur[k, c] - inst.tasks[k].arrival) * m.x[k, c, t] for (k, c, t) in m.X),
            sense=pyo.minimize,
        )

    def extract(self, values) -> MoldableSchedule:
        """The schedule encoded by a solved model's (loaded) variable values."""
        import pyomo.environ as pyo

        ch, dur = self.ch, self.dur
        segs = []
        for k, c, t in values.X:
            if pyo.value(values.x[k, c, t]) > 0.5:
                gpus = tuple(g for g in values.G if pyo.value(values.a[k, g]) > 0.5)
                cc = ch[k][c]
                segs.append((k, float(t), float(t + dur[k, c]), gpus, cc.den if cc.den > 1 else 1))
        return MoldableSchedule.from_segments(segs)


def build_model(inst: MoldableInstance, *, upper_bound: float | None = None) -> Any:
    """The time-indexed MIP (:class:`MoldableMip`'s ``build()``).

    ``upper_bound`` (the total flow of any feasible integer-start schedule,
    default :func:`serial_upper_bound`) limits every task's completion to
    ``a_k + UB - sum_{j != k} min_c d_jc``.  The model keeps its builder
    (``model._builder``) for :func:`extract`.
    """
    builder = MoldableMip(inst, upper_bound=upper_bound)
    m = builder.build()
    m._builder = builder
    return m


#: largest scaled memory capacity (the CP-SAT model of :mod:`.cp` and the memory units of the MIP)
MAX_SCALED_MEMORY = 2**40


def memory_scale(inst: MoldableInstance) -> tuple[int, bool]:
    """``(scale, exact)`` of the memories and the GPU's capacity by the one scaling rule
    (:func:`dmlsched.cpsat.grid_scale`): exact when every memory and the capacity are
    multiples of ``1/scale`` (``0.3333334`` has its seven decimals: 3 tasks of it do not fit
    in 1); otherwise memories and capacity are rounded down, a relaxation (an integer sum
    of floors below a real capacity is below its floor)."""
    vals = [inst.gpu_memory] + [t.memory for t in inst.tasks]
    g = grid_scale(vals, max_scaled=MAX_SCALED_MEMORY, extra_factor=max(1, inst.num_tasks))
    return g.scale, g.exact


def memory_units(inst: MoldableInstance) -> tuple[list[int], int, bool]:
    """Memories and capacity in integer units by the one scaling rule
    (:func:`memory_scale`): exact on their grid (``0.5000001`` is 5000001 units of
    1e-7: two such tasks do not fit in 1), otherwise demands rounded up and the capacity
    down (every schedule of the model fits the real memory: a restriction, and the method
    then never says optimal).  A solver's absolute tolerance (1e-6) is then far below one
    unit: it let two tasks of 0.5000001 share a GPU of memory 1."""
    ms, exact = memory_scale(inst)
    return ([to_int(t.memory, ms, "up") for t in inst.tasks], to_int(inst.gpu_memory, ms, "down"), exact)


def integrality_options(inst: MoldableInstance) -> dict[str, dict[str, float]]:
    """Solver tolerances under which no memory row slips by a unit (:func:`memory_units`).

    ``r >= m_k (occ + a - 1)`` with binaries accepted ``1e-6`` away from 0 or 1 slips by
    ``2e-6 m_k`` units: with memories of seven decimals (``m_k`` about 5e6 units) two tasks
    of 0.5000001 fitted in 1.  A tolerance below ``1 / (4 max m_k)`` keeps every slip
    under a quarter unit (HiGHS ``mip_feasibility_tolerance``; Gurobi ``IntFeasTol`` and
    ``FeasibilityTol``, both at least 1e-9); the method also validates what it extracts."""
    if not inst.memory.sum() > inst.gpu_memory:
        return {}
    mem, _, _ = memory_units(inst)
    tol = max(1e-9, min(1e-6, 0.25 / max(max(mem), 1)))
    return {"highs": {"mip_feasibility_tolerance": tol}, "gurobi": {"IntFeasTol": tol, "FeasibilityTol": tol}}


def extract(m) -> MoldableSchedule:
    """The schedule encoded by a model of :func:`build_model` (:meth:`MoldableMip.extract`)."""
    return m._builder.extract(m)


@method(
    "moldable",
    "exact",
    kind="exact",
    uses_solver=True,
    space="non-preemptive",
    description="time-indexed MIP: optimal total flow time over moldable (non-preemptive) schedules "
    "with integer start times",
    options=[Option("upper_bound", float, None,
                    "total flow time of a known feasible integer-start schedule (limits the grid)")],
)
def exact(inst: MoldableInstance, run: Run) -> Result:
    """Solve the time-indexed MIP; ``optimal`` only when proven and :func:`grid_exact`.

    The grid's size is counted first (:func:`estimate_size`) and an instance
    whose model would pass the memory limit is refused (status ``n/a``).
    """
    ub = run.options["upper_bound"]
    size = estimate_size(inst, upper_bound=ub)
    what = (f"the time-indexed MIP ({size.variables:,} variables, {size.constraints:,} constraints over "
            f"{size.slots:,} one-second slots; exact-cp has no grid)")
    rem = run.remaining()
    # building and handing the model over must leave the solver at least half of the time
    run.require(memory_bytes=size.bytes(), what=what,
                seconds=None if rem is None else 2 * size.seconds())
    with run.stage("build"):
        mip = MoldableMip(inst, upper_bound=ub)
        m = mip.build()
    exact_grid = grid_exact(inst)
    out = run.solve_model(m, defaults=integrality_options(inst))
    sched = None
    if out.has_solution:
        with run.stage("extract"):
            sched = mip.extract(m)
        try:  # a solver's tolerances must never hand back a schedule the model does not allow
            validate(inst, sched)
        except InvalidSolutionError as e:
            run.details["rejected"] = run.details["error"] = f"the solver's schedule breaks the model: {e}"
            sched = None
    # off the grid the MIP's optimum is only an integer-start optimum: no bound, never optimal
    return run.result(
        solution=sched,
        outcome=out if exact_grid else None,
        grid_exact=exact_grid,
        model="moldable (non-preemptive), integer start times",
        estimated_variables=size.variables,
        solver_status=out.message,
    )


__all__ = ["GridSize", "MoldableMip", "build_model", "choices", "estimate_size", "exact", "extract", "grid_exact",
           "serial_upper_bound"]
