"""CP-SAT model of offline moldable scheduling (non-preemptive): method ``exact-cp``.

Schedule space: every task runs once, without interruption, from a real start
``S_k >= a_k`` to ``S_k + f(v_k, p)`` on one admissible amount ``p`` (a share
``1/n`` of one GPU, ``p_min <= 1/n``, or ``n <= p_max`` dedicated GPUs) on
fixed GPUs, with the shares and the device memory of every GPU within
capacity at every instant (Section III-A, IV-A).  This is the space of the
moldable policies and of the time-indexed MIP ``exact``, but with real (not
integer) start times.

Model (``models/moldable.md`` section 5, each constraint family its own
function below): one choice literal per (task, amount); one interval per task
whose size is the chosen duration; one optional copy of it per (task, GPU),
present iff the task uses the GPU; per GPU a cumulative of the shares
(capacity ``L`` = the lcm of the share denominators, a dedicated GPU counts
``L``) and, where memory can bind, one of the memories; GPU symmetry broken by
numbering GPUs in order of first use.

**Time scaling.**  CP-SAT works on integers: arrivals and durations are
multiplied by ``scale`` (option) and *rounded down*.  The rounded-down model is a
relaxation: a real schedule with starts ``s_k`` maps to integer starts
``floor(s_k scale)``, which keep every arrival, GPU capacity and memory
constraint because ``floor(x) + floor(y) <= floor(x + y)`` (proof in
``models/moldable.md``), so CP-SAT's proven bound on ``sum_k E_k`` gives the
lower bound ``bound / scale - sum_k a_k`` on the optimum over the space above.
Every CP-SAT solution (amounts, GPUs, order of starts) is re-timed with the
real durations by the serial schedule-generation scheme :func:`left_shift`,
which is feasible by construction.  *Exactness condition*: when every arrival
and every duration ``f(v_k, p)`` is a multiple of ``1/scale``, the model
is the problem itself, the re-timed schedule of an optimal solution is no
worse than it, and a CP-SAT optimum is the optimum (status ``optimal``).
Otherwise the method returns the re-timed schedule and the bound and reports
``optimal`` only when the two meet within the kit's relative gap ``1e-6``;
``details["exact_scale"]`` says which case applies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from ...cpsat import Scaling, grid_scale, new_model, to_int
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result
from .bounds import preemptive_lower_bound
from .instance import MoldableInstance
from .models import Choice, choices, memory_scale
from .simulator import simulate
from .solution import MoldableSchedule

#: largest scaled time CP-SAT is given (keeps every sum far from 2^63)
MAX_SCALED_TIME = 2**40
#: largest share capacity (lcm of the share denominators)
MAX_SHARE_LCM = 2**40
#: estimated CP-SAT memory (model and search) per (task, GPU) pair, per pair of
#: tasks (the dominance literals) and per choice literal, fitted on this machine
#: (``benchmarks/moldable_exact.md``) with a margin
BYTES_PER_TASK_GPU = 12_000
BYTES_PER_TASK_PAIR = 4_000
BYTES_PER_CHOICE = 2_000
BASE_BYTES = 100 * 2**20


@dataclass
class CpData:
    """The scaled data of the model."""

    scale: int
    exact: bool
    arrival: list[int]
    choice: list[list[Choice]]
    dur: list[list[int]]
    share_cap: int
    share: list[list[int]]
    memory: list[int] | None
    memory_cap: int
    horizon: list[int]


def _times(inst: MoldableInstance) -> list[float]:
    out = [t.arrival for t in inst.tasks]
    for k in range(inst.num_tasks):
        out.extend(inst.runtime(k, c.p) for c in choices(inst, k))
    return out


def choose_scale(inst: MoldableInstance, scale: int | None = None) -> tuple[int, bool]:
    """``(scale, exact)`` of the times (arrivals and every duration): the given scale,
    else the one scaling rule of :func:`dmlsched.cpsat.grid_scale` (the least common
    multiple of the times' denominators, any denominators) while the scaled horizon
    (latest arrival plus every task's slowest run, times the number of tasks) stays
    below :data:`MAX_SCALED_TIME`, else the largest power of ten that keeps below it,
    inexact (the finer, the closer the rounded-down bound: at 10^6 two referee
    instances with seven-decimal data stayed 1.07e-6 apart, at 10^10 they are proven).
    A fine scale costs little: with the dominance (C6) the search is over
    predecessors, not start values.  The memories have their own
    scale (:func:`memory_scale`); the model is exact only when both are."""
    times = _times(inst)
    top = (max(times, default=1.0) + sum(max(inst.runtime(k, c.p) for c in choices(inst, k))
                                        for k in range(inst.num_tasks))) * max(1, inst.num_tasks)
    tmax = max(times, default=0.0)
    g = grid_scale(times, max_scaled=MAX_SCALED_TIME, scale=scale,
                   extra_factor=top / tmax if tmax > 0 else 1.0)
    return g.scale, g.exact


def _floor(x: float, scale: int) -> int:
    return to_int(x, scale, "down")


def _ceil(x: float, scale: int) -> int:
    return to_int(x, scale, "up")


def share_capacity(inst: MoldableInstance) -> int:
    """``L``: lcm of every share denominator ``2..n_k`` (1 without shares)."""
    L = 1
    for t in inst.tasks:
        for n in range(2, t.pmin_den + 1):
            L = L * n // math.gcd(L, n)
    return L


def memory_binds(inst: MoldableInstance) -> bool:
    """Whether device memory can bind: the tasks' memories sum past one GPU's."""
    return float(inst.memory.sum()) > inst.gpu_memory * (1 + 1e-12)


def scaled_data(inst: MoldableInstance, scale: int, exact: bool, upper_bound: float) -> CpData:
    """Arrivals and durations rounded down to the grid ``1/scale``; each task's
    end limited by ``a_k + UB - sum_{j != k} min_c d_jc`` (no optimal schedule
    ends later, since every other flow is at least its fastest run)."""
    K = range(inst.num_tasks)
    ch = [choices(inst, k) for k in K]
    real = [[inst.runtime(k, c.p) for c in ch[k]] for k in K]
    L = share_capacity(inst)
    minflow = [min(r) for r in real]
    total_min = sum(minflow)
    horizon = []
    for k in K:
        latest = inst.tasks[k].arrival + upper_bound - (total_min - minflow[k])
        horizon.append(_ceil(latest, scale) + 1)
    mem = None
    mcap = 0
    if memory_binds(inst):
        ms, mexact = memory_scale(inst)
        # exact on the grid; otherwise floors of demands and capacity: a relaxation
        mem = [_floor(t.memory, ms) for t in inst.tasks]
        mcap = _floor(inst.gpu_memory, ms)
        exact = exact and mexact
    return CpData(
        scale=scale, exact=exact,
        arrival=[_floor(t.arrival, scale) for t in inst.tasks],
        choice=ch,
        dur=[[_floor(d, scale) for d in real[k]] for k in K],
        share_cap=L,
        share=[[L // c.den if c.den > 1 else L for c in ch[k]] for k in K],
        memory=mem, memory_cap=mcap, horizon=horizon,
    )


class MoldableCp(ModelBuilder):
    """The CP-SAT model and its variables (state on the builder, not on the model);
    ``models/moldable.md``, section 4.1.

    Parameters
    ----------
    inst
        The instance.
    data
        Its scaled data (:func:`scaled_data`).
    symmetry
        Add ``gpu_order`` (C5).
    left_shifted
        Add ``semi_active`` (C6).
    """

    CONSTRAINTS = ("one_amount", "gpu_count", "share_capacity", "pooled_capacity", "memory_capacity",
                   "gpu_order", "semi_active")

    def __init__(self, inst: MoldableInstance, data: CpData, *, symmetry: bool = True, left_shifted: bool = True):
        self.inst, self.data = inst, data
        self.symmetry = symmetry
        self.left_shifted = left_shifted

    def build(self) -> Any:
        """The model: variables, (C1)-(C4), (C5) with ``symmetry``, (C6) with ``left_shifted``,
        then the objective (C7)."""
        self.model = new_model()
        self.add_variables()
        self.add_one_amount()
        self.add_gpu_count()
        self.add_share_capacity()
        self.add_pooled_capacity()
        self.add_memory_capacity()
        if self.symmetry:
            self.add_gpu_order()
        if self.left_shifted:
            self.add_semi_active()
        self.add_objective()
        return self.model

    def add_variables(self) -> None:
        """Choice literals ``y[k,c]``, start ``S``, size ``D``, end ``E`` per task, literals
        ``a[k,g]`` and optional intervals ``I[k,g]`` (``models/moldable.md``, section 4.1)."""
        inst, data, m = self.inst, self.data, self.model
        K, G = inst.num_tasks, inst.gpus
        self.y = [[m.NewBoolVar(f"y[{k},{c}]") for c in range(len(data.choice[k]))] for k in range(K)]
        self.start = [m.NewIntVar(data.arrival[k], max(data.arrival[k], data.horizon[k]), f"S[{k}]")
                      for k in range(K)]
        self.size = [m.NewIntVar(min(data.dur[k]), max(data.dur[k]), f"D[{k}]") for k in range(K)]
        self.end = [m.NewIntVar(data.arrival[k] + min(data.dur[k]),
                                max(data.arrival[k] + max(data.dur[k]), data.horizon[k]), f"E[{k}]")
                    for k in range(K)]
        self.a = [[m.NewBoolVar(f"a[{k},{g}]") for g in range(G)] for k in range(K)]
        self.iv = [[m.NewOptionalIntervalVar(self.start[k], self.size[k], self.end[k], self.a[k][g],
                                             f"I[{k},{g}]") for g in range(G)] for k in range(K)]

    def add_one_amount(self) -> None:
        """(C1) Section III-A: exactly one admissible amount per task, and the
        interval's size is its (scaled) duration ``f(v_k, p)``."""
        m = self.model
        for k in range(self.inst.num_tasks):
            m.AddExactlyOne(self.y[k])
            m.Add(self.size[k] == sum(d * y for d, y in zip(self.data.dur[k], self.y[k])))

    def add_gpu_count(self) -> None:
        """(C2) a share ``1/n`` uses one GPU, ``n`` dedicated GPUs use ``n``:
        ``sum_g a[k,g] = sum_c ng_c y[k,c]``."""
        m = self.model
        for k in range(self.inst.num_tasks):
            m.Add(sum(self.a[k]) == sum(c.ngpus * y for c, y in zip(self.data.choice[k], self.y[k])))

    def add_share_capacity(self) -> None:
        """(C3) Section IV-A: on every GPU the shares of the tasks running at any
        instant sum to at most 1 (scaled: at most ``L``; a dedicated GPU takes
        ``L``).  Without shares this is a no-overlap per GPU."""
        m, d = self.model, self.data
        K, G = self.inst.num_tasks, self.inst.gpus
        if d.share_cap == 1:
            for g in range(G):
                m.AddNoOverlap([self.iv[k][g] for k in range(K)])
            return
        demand = []
        for k in range(K):
            if len(set(d.share[k])) == 1:
                demand.append(d.share[k][0])
            else:
                v = m.NewIntVar(min(d.share[k]), max(d.share[k]), f"share[{k}]")
                m.Add(v == sum(s * y for s, y in zip(d.share[k], self.y[k])))
                demand.append(v)
        for g in range(G):
            m.AddCumulative([self.iv[k][g] for k in range(K)], demand, d.share_cap)

    def add_pooled_capacity(self) -> None:
        """(C3') redundant: the amounts of the tasks running at any instant sum to at
        most ``|G|`` (scaled by ``L``: a share takes ``L/n``, ``n`` dedicated GPUs
        ``n L``).  Implied by (C2)-(C3); one cumulative over the task intervals
        lets CP-SAT reason on the whole cluster's energy."""
        m, d = self.model, self.data
        K, G = self.inst.num_tasks, self.inst.gpus
        demand = []
        for k in range(K):
            amt = [(d.share[k][c] if ch.den > 1 else ch.n * d.share_cap) for c, ch in enumerate(d.choice[k])]
            if len(set(amt)) == 1:
                demand.append(amt[0])
            else:
                v = m.NewIntVar(min(amt), max(amt), f"amount[{k}]")
                m.Add(v == sum(x * y for x, y in zip(amt, self.y[k])))
                demand.append(v)
        self.task_iv = [m.NewIntervalVar(self.start[k], self.size[k], self.end[k], f"T[{k}]") for k in range(K)]
        m.AddCumulative(self.task_iv, demand, G * d.share_cap)

    def add_memory_capacity(self) -> None:
        """(C4) Section III-A: on every GPU the device memory of the tasks running
        at any instant fits (a task on ``n`` dedicated GPUs needs ``m_k`` on each).
        Omitted when all tasks together fit one GPU's memory."""
        d = self.data
        if d.memory is None:
            return
        K, G = self.inst.num_tasks, self.inst.gpus
        for g in range(G):
            ks = [k for k in range(K) if d.memory[k] > 0]
            if ks:
                self.model.AddCumulative([self.iv[k][g] for k in ks], [d.memory[k] for k in ks], d.memory_cap)

    def add_gpu_order(self) -> None:
        """(C5) symmetry of identical GPUs: GPUs are numbered in order of first use
        by tasks 0, 1, ...: ``u[i,g]`` (GPU ``g`` used by a task ``<= i``) is
        non-increasing in ``g``.  Valid: renumbering the GPUs of any schedule in
        order of first use gives a schedule of the same value that meets it."""
        m = self.model
        K, G = self.inst.num_tasks, self.inst.gpus
        if G < 2:
            return
        prev = None
        for i in range(K):
            u = [m.NewBoolVar(f"u[{i},{g}]") for g in range(G)]
            for g in range(G):
                if prev is None:
                    m.Add(u[g] == self.a[i][g])
                else:
                    m.AddBoolOr([self.a[i][g], prev[g]]).OnlyEnforceIf(u[g])
                    m.AddImplication(self.a[i][g], u[g])
                    m.AddImplication(prev[g], u[g])
                if g:
                    m.AddImplication(u[g], u[g - 1])
            prev = u

    def add_semi_active(self) -> None:
        """(C6) dominance: every task starts at its arrival or at the end of another
        task.  Valid: in a schedule where task ``k`` starts later than both, moving
        it earlier until the last such time keeps every capacity (the tasks running
        in between all run at its old start too) and lowers the objective, so every
        optimal schedule (of the problem and of the rounded-down model) has it.
        Turns the search over start values into a search over predecessors."""
        m = self.model
        K = self.inst.num_tasks
        self.after = []
        for k in range(K):
            z0 = m.NewBoolVar(f"z[{k},arr]")
            zs = [z0]
            m.Add(self.start[k] == self.data.arrival[k]).OnlyEnforceIf(z0)
            for j in range(K):
                if j == k:
                    continue
                z = m.NewBoolVar(f"z[{k},{j}]")
                m.Add(self.start[k] == self.end[j]).OnlyEnforceIf(z)
                zs.append(z)
            m.AddExactlyOne(zs)
            self.after.append(zs)

    def add_objective(self) -> None:
        """(C7) minimise ``sum_k E_k`` (total flow time plus the constant
        ``sum_k a_k``, scaled)."""
        self.model.Minimize(sum(self.end))

    # -- solutions ---------------------------------------------------------
    def decode(self, values: Any) -> tuple[list[int], dict[int, tuple[int, tuple[int, ...]]]]:
        """``(order, alloc)`` of a CP-SAT solution: tasks by scaled start, and
        each task's ``(share_den, gpus)``."""
        K, G = self.inst.num_tasks, self.inst.gpus
        alloc = {}
        for k in range(K):
            c = next(i for i, v in enumerate(self.y[k]) if values.Value(v))
            ch = self.data.choice[k][c]
            gpus = tuple(g for g in range(G) if values.Value(self.a[k][g]))
            alloc[k] = (ch.den if ch.den > 1 else 1, gpus)
        starts = [values.Value(self.start[k]) for k in range(K)]
        order = sorted(range(K), key=lambda k: (starts[k], k))
        return order, alloc

    def extract(self, values: Any) -> MoldableSchedule:
        """The schedule of a CP-SAT solution: its order and allocations (:meth:`decode`) re-timed
        with the real durations (:func:`left_shift`)."""
        order, alloc = self.decode(values)
        return left_shift(self.inst, order, alloc)

    def hint(self, sched: MoldableSchedule) -> None:
        """Hint a non-preemptive schedule (one segment per task), GPUs renumbered by first use."""
        inst, data = self.inst, self.data
        seg = {int(sched.task[j]): j for j in range(sched.num_segments)}
        if len(seg) != inst.num_tasks or sched.num_segments != inst.num_tasks:
            return
        relabel: dict[int, int] = {}
        for k in range(inst.num_tasks):
            for g in sorted(sched.gpus_of(seg[k])):
                relabel.setdefault(g, len(relabel))
        for g in range(inst.gpus):
            relabel.setdefault(g, len(relabel))
        m = self.model
        for k in range(inst.num_tasks):
            j = seg[k]
            den = int(sched.share_den[j])
            gl = {relabel[g] for g in sched.gpus_of(j)}
            p = 1.0 / den if den > 1 else float(len(gl))
            for c, ch in enumerate(data.choice[k]):
                m.AddHint(self.y[k][c], int(abs(ch.p - p) < 1e-12))
            m.AddHint(self.start[k], max(data.arrival[k], _floor(float(sched.start[j]), data.scale)))
            for g in range(inst.gpus):
                m.AddHint(self.a[k][g], int(g in gl))


# ---------------------------------------------------------------------------
# re-timing with the real durations


def left_shift(
    inst: MoldableInstance, order: Sequence[int], alloc: dict[int, tuple[int, tuple[int, ...]]],
) -> MoldableSchedule:
    """Serial schedule-generation scheme: tasks in ``order``, each with its
    allocation ``(share_den, gpus)``, started at the earliest real time ``>=``
    its arrival at which its GPUs have room for its share and memory during
    its whole run.  Feasible by construction; applied to the order of starts
    of a feasible schedule it starts no task later than that schedule."""
    G = inst.gpus
    busy: list[list[tuple[float, float, float, float]]] = [[] for _ in range(G)]  # (start, end, share, memory)
    mem_cap = inst.gpu_memory
    segs = []
    for k in order:
        den, gpus = alloc[k]
        share = 1.0 / den
        p = share if den > 1 else float(len(gpus))
        d = inst.runtime(k, p)
        mk = float(inst.tasks[k].memory)
        a = inst.tasks[k].arrival
        cands = sorted({a} | {e for g in gpus for (_, e, _, _) in busy[g] if e > a})
        for t in cands:
            if all(_fits(busy[g], t, t + d, share, mk, mem_cap) for g in gpus):
                break
        for g in gpus:
            busy[g].append((t, t + d, share, mk))
        segs.append((int(k), float(t), float(t + d), tuple(int(g) for g in gpus), int(den)))
    return MoldableSchedule.from_segments(segs)


def _fits(ivs: list[tuple[float, float, float, float]], t0: float, t1: float, share: float, mem: float,
          mem_cap: float) -> bool:
    eps = 1e-9 * max(1.0, abs(t1))
    live = [iv for iv in ivs if iv[0] < t1 - eps and iv[1] > t0 + eps]
    if not live:
        return True
    points = [t0] + [s for s, _, _, _ in live if s > t0]
    for x in points:
        load = share + sum(sh for s, e, sh, _ in live if s <= x + eps and e > x + eps)
        if load > 1.0 + 1e-9:
            return False
        if mem > 0 or mem_cap < math.inf:
            used = mem + sum(m for s, e, _, m in live if s <= x + eps and e > x + eps)
            if used > mem_cap * (1 + 1e-12) + 1e-12:
                return False
    return True


# ---------------------------------------------------------------------------
# the method


def estimate_bytes(inst: MoldableInstance) -> int:
    """Rough memory of the CP-SAT model and search: per (task, GPU) pair
    (optional interval, presence literal, symmetry literal, cumulative terms),
    per pair of tasks (dominance literals) and per choice literal."""
    K = inst.num_tasks
    nch = sum(t.pmin_den - 1 + t.p_max for t in inst.tasks)
    return int(BASE_BYTES + BYTES_PER_TASK_GPU * K * inst.gpus + BYTES_PER_TASK_PAIR * K * K
               + BYTES_PER_CHOICE * nch)


def _start_schedules(inst: MoldableInstance) -> list[MoldableSchedule]:
    """Feasible non-preemptive schedules to start from: the moldable policies' runs."""
    out = []
    for rule in ("equi", "rigid-fcfs", "prop"):
        try:
            out.append(simulate(inst, rule, malleable=False)[0])
        except RuntimeError:  # pragma: no cover - a policy always finishes
            continue
    return out


@method(
    "moldable",
    "exact-cp",
    kind="exact",
    uses_solver=True,
    space="non-preemptive",
    description="CP-SAT: optimal total flow time over non-preemptive moldable schedules with real start times",
    options=[
        Option("scale", int, None, "times become floor(t*scale); None: the lcm of the times' "
               "denominators when the scaled horizon fits, else the largest power of ten that does", minimum=1),
        Option("work_limit", float, None, "CP-SAT deterministic time limit (same result at any load)", minimum=0.0),
        Option("symmetry", bool, True, "number identical GPUs in order of first use"),
        Option("left_shift", bool, True, "every task starts at its arrival or at another task's end (dominance)"),
    ],
)
def exact_cp(inst: MoldableInstance, run: Run) -> Result:
    """Optimal non-preemptive moldable schedule by CP-SAT (module docstring):
    exact when the data are multiples of ``1/scale``, else a re-timed
    schedule and a proven lower bound."""
    if inst.num_tasks == 0:
        return run.result(solution=MoldableSchedule.from_segments([]), bound=0.0)
    est = estimate_bytes(inst)
    run.require(memory_bytes=est, what=f"the CP-SAT model ({inst.num_tasks} tasks x {inst.gpus} GPUs)")
    L = share_capacity(inst)
    if L > MAX_SHARE_LCM:
        run.require(memory_bytes=math.inf, what=f"share capacity lcm = {L} (shares down to 1/{max(inst.pmin_den)})")
    scale, exact = choose_scale(inst, run.options["scale"])
    with run.stage("start"):
        starts = _start_schedules(inst)
        for s in starts:
            run.incumbent(s)
        ub = run.best_value if run.best_value is not None else math.inf
    lb_pre = preemptive_lower_bound(inst)
    with run.stage("build"):
        data = scaled_data(inst, scale, exact, ub)
        top = max(max(data.horizon), 1) * max(1, inst.num_tasks)
        if top >= 2**62:
            run.require(memory_bytes=math.inf, what=f"the scaled horizon {top:.3g} (scale {scale})")
        cp = MoldableCp(inst, data, symmetry=run.options["symmetry"], left_shifted=run.options["left_shift"])
        cp.build()
        if run.best is not None:
            cp.hint(run.best)
    sum_a = sum(Fraction(float(a)) for a in inst.arrival)

    def to_bound(scaled: float | None) -> float | None:
        # B / scale - sum_k a_k in exact arithmetic (late arrivals would swamp the flow times),
        # and never below the preemptive bound (the method's proven bound)
        if scaled is None or not math.isfinite(scaled):
            return lb_pre
        return max(lb_pre, float(Fraction(scaled) / scale - sum_a))

    # the CP-SAT status is not the method's (below): only the bound is converted
    out = run.solve_cpsat(cp.model, scaling=Scaling(exact=data.exact, to_bound=to_bound), on_solution=cp.extract)
    sched = None
    if out.has_solution:
        with run.stage("extract"):
            sched = cp.extract(out.engine)
    # the CP-SAT status is not the method's: optimality is proven by the re-timed
    # schedule meeting the bound (always the case for an optimum under the exactness condition)
    return run.result(
        solution=sched, bound=[out.bound, lb_pre],
        solver_status=out.message, scale=scale, exact_scale=data.exact,
        model="non-preemptive moldable schedules, real start times",
        memory_estimate=est, tasks_x_gpus=inst.num_tasks * inst.gpus, whole_space_bound=lb_pre,
    )


__all__ = ["MoldableCp", "choose_scale", "estimate_bytes", "exact_cp", "left_shift", "scaled_data", "share_capacity"]
