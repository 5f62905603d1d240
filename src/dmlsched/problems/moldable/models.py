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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyomo.environ as pyo

from ...registry import register_method
from ...result import Result, Status
from ...solvers import solve_model
from .instance import MoldableInstance
from .solution import MoldableSchedule

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
    """Whether arrivals and all durations ``f(v_k, p)`` are integers."""
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


def build_model(inst: MoldableInstance, *, upper_bound: float | None = None) -> pyo.ConcreteModel:
    """The time-indexed MIP (see ``models/moldable.md``).

    ``upper_bound`` (the total flow of any feasible integer-start schedule,
    default :func:`serial_upper_bound`) limits every task's completion to
    ``a_k + UB - sum_{j != k} min_c d_jc``.
    """
    K = range(inst.num_tasks)
    ub = serial_upper_bound(inst) if upper_bound is None else upper_bound
    ch = {k: choices(inst, k) for k in K}
    dur = {(k, c): _dur(inst, k, ch[k][c]) for k in K for c in range(len(ch[k]))}
    minflow = {k: min(dur[k, c] for c in range(len(ch[k]))) for k in K}
    sum_min = sum(minflow.values())
    starts = []  # (k, c, t)
    for k in K:
        a = inst.tasks[k].arrival
        latest_completion = a + ub - (sum_min - minflow[k]) + 1e-9
        t0 = math.ceil(a - GRID_TOL)
        for c in range(len(ch[k])):
            d = dur[k, c]
            t = t0
            while t + d <= latest_completion:
                starts.append((k, c, t))
                t += 1
    horizon = max((t + math.ceil(dur[k, c] - GRID_TOL) for k, c, t in starts), default=0)
    m = pyo.ConcreteModel(name="moldable_time_indexed")
    m.K = pyo.Set(initialize=list(K), ordered=True)
    m.G = pyo.Set(initialize=list(range(inst.gpus)), ordered=True)
    m.U = pyo.Set(initialize=list(range(horizon)), ordered=True)
    m.X = pyo.Set(initialize=starts, dimen=3, ordered=True)
    m.x = pyo.Var(m.X, domain=pyo.Binary)
    m.a = pyo.Var(m.K, m.G, domain=pyo.Binary)
    m._inst, m._choices, m._dur = inst, ch, dur
    # slot coverage: (k, u) -> list of (k, c, t) whose interval meets slot u
    cover: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for k, c, t in starts:
        for u in range(t, math.ceil(t + dur[k, c] - GRID_TOL)):
            cover.setdefault((k, u), []).append((k, c, t))
    m._cover = cover
    m.KU = pyo.Set(initialize=sorted(cover), dimen=2, ordered=True)
    _assign_once(m)
    _gpu_count(m)
    _share_capacity(m)
    _memory_capacity(m)
    _objective(m)
    return m


def _assign_once(m) -> None:
    """(M1) every task starts exactly once with exactly one amount:
    ``sum_{c,t} x[k,c,t] = 1``."""
    by_k: dict[int, list] = {}
    for key in m.X:
        by_k.setdefault(key[0], []).append(key)
    m.assign_once = pyo.Constraint(m.K, rule=lambda m, k: sum(m.x[i] for i in by_k.get(k, [])) == 1)


def _gpu_count(m) -> None:
    """(M2) a task uses as many GPUs as its amount needs (one for a share
    ``1/n``, ``n`` for ``n`` dedicated GPUs): ``sum_g a[k,g] = sum_{c,t} ng_c x[k,c,t]``."""
    ch = m._choices
    by_k: dict[int, list] = {}
    for key in m.X:
        by_k.setdefault(key[0], []).append(key)
    m.gpu_count = pyo.Constraint(
        m.K,
        rule=lambda m, k: sum(m.a[k, g] for g in m.G)
        == sum(ch[k][c].ngpus * m.x[k, c, t] for (_, c, t) in by_k.get(k, [])),
    )


def _share_capacity(m) -> None:
    """(M3) Section IV-A: the shares on a GPU sum to at most 1 in every slot.

    ``q[k,g,u] >= sum_{c,t covering u} share_c x[k,c,t] + a[k,g] - 1``
    (``share_link``; ``share_occ[k,u]`` is the sum, an Expression built once;
    linearising the product of the task's share in slot
    ``u`` and its use of GPU ``g``), ``sum_k q[k,g,u] <= 1``
    (``gpu_share_capacity``).  A dedicated GPU has share 1.
    """
    ch, cover = m._choices, m._cover
    m.share_occ = pyo.Expression(
        m.KU, rule=lambda m, k, u: pyo.quicksum(ch[k][c].share * m.x[k, c, t] for (_, c, t) in cover[k, u])
    )
    m.q = pyo.Var(m.KU, m.G, domain=pyo.NonNegativeReals)
    m.share_link = pyo.Constraint(
        m.KU,
        m.G,
        rule=lambda m, k, u, g: m.q[k, u, g] >= m.share_occ[k, u] + m.a[k, g] - 1,
    )
    by_u: dict[int, list[int]] = {}
    for k, u in cover:
        by_u.setdefault(u, []).append(k)
    m.UC = pyo.Set(initialize=sorted(u for u in by_u if len(by_u[u]) > 1), ordered=True)
    m.gpu_share_capacity = pyo.Constraint(
        m.UC, m.G, rule=lambda m, u, g: sum(m.q[k, u, g] for k in by_u[u]) <= 1
    )


def _memory_capacity(m) -> None:
    """(M4) Section III-A: the memory of the tasks on a GPU fits in every slot.

    ``r[k,g,u] >= m_k (sum_{c,t covering u} x[k,c,t] + a[k,g] - 1)``
    (``memory_link``; ``occ[k,u]`` is the sum, an Expression), ``sum_k r[k,g,u]
    <= gpu_memory`` (``gpu_memory_capacity``).
    Omitted (empty) when all tasks together fit in one GPU's memory.
    """
    inst, cover = m._inst, m._cover
    by_u: dict[int, list[int]] = {}
    for k, u in cover:
        by_u.setdefault(u, []).append(k)
    need = inst.memory.sum() > inst.gpu_memory
    keys = [(k, u) for (k, u) in cover if need and inst.tasks[k].memory > 0]
    m.KUM = pyo.Set(initialize=keys, dimen=2, ordered=True)
    m.occ = pyo.Expression(m.KUM, rule=lambda m, k, u: pyo.quicksum(m.x[i] for i in cover[k, u]))
    m.r = pyo.Var(m.KUM, m.G, domain=pyo.NonNegativeReals)
    m.memory_link = pyo.Constraint(
        m.KUM,
        m.G,
        rule=lambda m, k, u, g: m.r[k, u, g] >= inst.tasks[k].memory * (m.occ[k, u] + m.a[k, g] - 1),
    )
    keyset = set(keys)
    us = sorted({u for (_, u) in keys})
    m.UM = pyo.Set(initialize=us, ordered=True)
    m.gpu_memory_capacity = pyo.Constraint(
        m.UM,
        m.G,
        rule=lambda m, u, g: sum(m.r[k, u, g] for k in by_u[u] if (k, u) in keyset) <= inst.gpu_memory,
    )


def _objective(m) -> None:
    """(M5) minimise total flow time ``sum_{k,c,t} (t + d_kc - a_k) x[k,c,t]``."""
    inst, dur = m._inst, m._dur
    m.total_flow = pyo.Objective(
        expr=sum((t + dur[k, c] - inst.tasks[k].arrival) * m.x[k, c, t] for (k, c, t) in m.X),
        sense=pyo.minimize,
    )


def extract(m) -> MoldableSchedule:
    """The schedule encoded by the model's (loaded) variable values."""
    inst, ch, dur = m._inst, m._choices, m._dur
    segs = []
    for k, c, t in m.X:
        if pyo.value(m.x[k, c, t]) > 0.5:
            gpus = tuple(g for g in m.G if pyo.value(m.a[k, g]) > 0.5)
            cc = ch[k][c]
            segs.append((k, float(t), float(t + dur[k, c]), gpus, cc.den if cc.den > 1 else 1))
    return MoldableSchedule.from_segments(segs)


@register_method(
    "moldable",
    "exact",
    kind="exact",
    description="time-indexed MIP: optimal total flow time over moldable (non-preemptive) schedules",
    uses_solver=True,
    space="non-preemptive",
)
def exact(inst: MoldableInstance, *, solver: str = "highs", time_limit=None, seed: int = 0, **options) -> Result:
    """Solve the time-indexed MIP; ``optimal`` only when proven and :func:`grid_exact`.

    Options: ``upper_bound`` (a known feasible integer-start total flow time).
    ``time_limit`` bounds the solver run only, not the model construction
    (seconds for a few thousand variables): the MIP is meant for small instances.
    """
    m = build_model(inst, upper_bound=options.get("upper_bound"))
    out = solve_model(m, solver, time_limit=time_limit, seed=seed)
    exact_grid = grid_exact(inst)
    details = {
        "solver_objective": out.objective,
        "solver_bound": out.bound,
        "grid_exact": exact_grid,
        "model": "moldable (non-preemptive), integer start times",
        "message": out.message,
    }
    if not out.has_solution:
        return Result(problem="moldable", method="exact", status=out.status, solver=solver,
                      runtime_s=out.runtime_s, details=details)
    sched = extract(m)
    status = out.status if exact_grid else Status.FEASIBLE
    lb = None
    if exact_grid and out.bound is not None and math.isfinite(out.bound):
        lb = out.objective if out.status == Status.OPTIMAL else out.bound
    return Result(
        problem="moldable",
        method="exact",
        status=status,
        objective=out.objective,
        bound=lb,
        solution=sched,
        solver=solver,
        runtime_s=out.runtime_s,
        details=details,
    )


__all__ = ["build_model", "exact", "extract", "grid_exact", "serial_upper_bound", "choices"]
