"""A time-indexed CP-SAT model of RAR-DDLS that is exact over every schedule
(method ``exact-cp``).  Specification and proofs: ``models/rar.md``, section
"exact-cp".

Decisions per job ``j``: a count vector ``v`` (``y_js`` GPUs on server ``s``,
Boolean ``z[j, v]``, exactly one), a start slot ``a_j`` and an end slot
``e_j``.  Capacity (2) is one cumulative constraint per server over the
interval ``[a_j, e_j)`` with demand ``y_js``.  A job placed on one server runs
at a fixed rate (no contention, (6)), so ``e_j - a_j >= d1_j`` suffices.  A
split job's progress is indexed by slot: ``act[j, t]`` (pulses ``s[j, t]`` =
start at ``t``, ``f[j, t]`` = end at ``t``), ``w[j, s, t]`` = split, on server
``s`` and active; ``cnt[s, t] = sum_j w[j, s, t]``; ``p[j, t] >= cnt[s, t]`` on
every server of ``j`` ((6): ``p`` may exceed the true value, which only slows
``j``); the rate ``r[j, t] <= R_j(n_j, p[j, t])`` (an element constraint over
(8)-(9)'s table) and ``sum_t r[j, t] >= F_j``.

Why the optimum is the true optimum (proof in ``models/rar.md``): every real
schedule is a solution of the model with ``e_j = T_j`` and the true ``p``;
every solution of the model gives a real schedule (same starts and count
vectors) whose completions are no later than the model's ``e_j``, because a
job's progress per slot never increases with more contention or more active
jobs (monotonicity), so its real active intervals lie inside the model's and
capacity holds.

Floor mode (the paper's (9)) has integer rates and is exact.  Fractional mode
scales progress by ``scale``: with rates rounded *up* (``ceil(scale / tau)``)
the model is a relaxation and its bound is a valid lower bound; its schedule
is re-simulated and used only if it is feasible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...budget import Budget
from ...cpsat import grid_scale, to_int
from ...kit import Option, ResourceLimit, Run, fmt_count, method
from ...modeling import ModelBuilder
from ...result import Result, Status
from .bounds import Pricer, best_lower_bound
from .counts import as_schedule, completion, count_vectors, count_vectors_size, counts_of
from .dp import dp_applies, dp_schedule, solve_dp
from .heuristics import best_heuristic_schedule
from .instance import RarInstance
from .solution import Engine


def rate_table(inst: RarInstance, j: int, n: int, P: int, scale: int) -> list[int]:
    """``R_j(n, p)`` for ``p = 0..P``: progress per slot on ``n >= 2`` servers with
    ``p`` split jobs on its most contended server (``p = 0`` is treated as 1, the job
    itself).  Floor mode: ``floor(1/tau)`` iterations.  Fractional mode: ``scale/tau``,
    exact on the grid of :func:`progress_scale`, else rounded up (a relaxation)."""
    out = []
    for p in range(P + 1):
        tau = inst.tau(j, n, max(1, p))
        if inst.progress == "floor":
            out.append(int(inst.rate(tau)))
        else:
            out.append(to_int(1.0 / tau, scale, "up"))
    return out


def one_server_rate(inst: RarInstance, j: int, scale: int) -> int:
    """Progress per slot of job ``j`` on one server (no contention), in model units."""
    tau = inst.tau(j, 1, 0)
    if inst.progress == "floor":
        return int(inst.rate(tau))
    return to_int(1.0 / tau, scale, "up")


#: fractional mode: scale used when the rates are on no grid that fits (rates rounded up)
INEXACT_PROGRESS_SCALE = 1000
#: fractional mode: largest scaled progress (iterations times the scale) given to CP-SAT
MAX_SCALED_PROGRESS = 2**40


def progress_scale(inst: RarInstance, scale: int | None = None) -> tuple[int, bool]:
    """``(scale, exact)`` of the fractional-mode rates ``1/tau`` (every job, number of
    servers and contention): the one scaling rule of :func:`dmlsched.cpsat.grid_scale`
    (exact rates when they are on a common grid that fits), else
    :data:`INEXACT_PROGRESS_SCALE` with the rates rounded up.  Floor mode: ``(1, True)``
    (integer rates)."""
    if inst.progress == "floor":
        return 1, True
    rates = []
    for j in range(inst.num_jobs):
        rates.append(1.0 / inst.tau(j, 1, 0))
        for n in range(2, min(int(inst.G[j]), inst.num_servers) + 1):
            rates.extend(1.0 / inst.tau(j, n, p) for p in range(1, int(inst.p_max) + 1))
    top = max(rates) * max(1.0, float(inst.F.max()) / max(min(rates), 1e-300))
    g = grid_scale(rates, max_scaled=MAX_SCALED_PROGRESS, scale=scale, max_inexact=INEXACT_PROGRESS_SCALE,
                   extra_factor=top / max(rates))
    return g.scale, g.exact


def single_duration(inst: RarInstance, j: int) -> int:
    """Slots job ``j`` takes on one server (no contention): exact in both modes."""
    return int(inst.slots_needed(float(inst.F[j]), inst.rate(inst.tau(j, 1, 0))))


def split_min_duration(inst: RarInstance, j: int, n: int) -> int:
    """Fewest slots job ``j`` takes on ``n >= 2`` servers (alone, ``p = 1``)."""
    return int(inst.slots_needed(float(inst.F[j]), inst.rate(inst.tau(j, n, 1))))


def model_size(inst: RarInstance, H: int) -> dict[str, int]:
    """Variables :func:`build_cp` creates, counted before it allocates (``run.require``).
    The number of count vectors depends on ``G_j`` only: counted once per distinct size
    (a few milliseconds at thousands of jobs, where counting per job took seconds)."""
    S = inst.num_servers
    timed = sum(1 for j in range(inst.num_jobs) if int(inst.G[j]) >= 2 and S >= 2)
    first = {int(g): j for j, g in reversed(list(enumerate(inst.G.tolist())))}
    per_size = {g: count_vectors_size(inst, j) for g, j in first.items()}
    nvec = sum(per_size[int(g)] for g in inst.G.tolist())
    return {"timed_jobs": timed, "vectors": nvec,
            "variables": timed * (6 + S) * H + 3 * inst.num_jobs + nvec}


#: share of the deadline (and work limit) of exact-cp's contention-free relaxation
RELAX_SHARE = 0.25

#: share of the time left after the relaxation that exact-cp gives its DP phase
DP_SHARE = 0.5

#: bytes per CP-SAT variable (model proto and solver copies, measured order of magnitude)
BYTES_PER_VAR = 1500


def _server_classes(inst: RarInstance) -> list[list[int]]:
    """Servers grouped by capacity, each group in index order (identical servers)."""
    by: dict[int, list[int]] = {}
    for s, c in enumerate(inst.servers):
        by.setdefault(int(c), []).append(s)
    return [g for g in by.values() if len(g) > 1]


def _identical_jobs(inst: RarInstance) -> list[list[int]]:
    """Jobs with identical parameters (interchangeable), each group in index order."""
    by: dict[tuple, list[int]] = {}
    for j, job in enumerate(inst.jobs):
        key = (job.gpus, job.iterations, job.grad_size, job.fp_time, job.batch, job.bp_time)
        by.setdefault(key, []).append(j)
    return [g for g in by.values() if len(g) > 1]


class BuildStopped(Exception):
    """The budget said stop while a model was built or hinted (:attr:`CpRar.budget`): what was
    built is dropped; ``exact-cp`` records a cut and returns its incumbent and bound."""


class CpRar(ModelBuilder):
    """The time-indexed CP-SAT model with makespan ``<= H`` and its variables (state lives
    here, not on the model); ``models/rar.md``, "exact-cp", and the module docstring.

    Parameters
    ----------
    inst
        The instance.
    H
        Horizon of the model (an incumbent's makespan or ``T``).
    lb
        A proven lower bound on the makespan (added as ``C >= lb``).
    scale
        Progress units per iteration in fractional mode.
    symmetry
        Order the columns ``(y_0s, ..., y_{J-1}s)`` of identical servers (equal
        capacity) lexicographically, and the starts of identical jobs.
    first_at_zero
        Some job starts at slot 0 (shifting a schedule earlier keeps it feasible).
    relax
        Leave out contention: every placement runs at its fastest rate (one server,
        or its servers with ``p = 1``).  A relaxation: its optimum is a lower bound.
    duals
        Dual vectors ``pi`` of the fluid LP: each adds, per slot, the valid cut
        ``sum_j c_j r[j, t] <= z_c`` with ``c_j = round(1000 pi_j / max pi)`` over the
        time-indexed jobs and ``z_c`` the exact maximum of ``sum_j c_j R_j`` over
        configurations of those jobs (``models/rar.md``).

    Attributes
    ----------
    model
        The ``cp_model.CpModel``.
    vecs, z, nservers
        ``vecs[j][k]``: the count vectors of job ``j`` that fit the horizon; ``z[j][k]`` their Booleans;
        ``nservers[j][k]`` the number of servers ``vecs[j][k]`` uses.
    a, e, C
        Start and end slots per job, the makespan.
    timed
        The jobs indexed by slot (those that may be split, unless ``relax``).
    act, s, f, w, p, r
        The time-indexed variables of the timed jobs (see the module docstring).
    exact_rates
        The rates are exact (floor mode, or set by the caller from :func:`progress_scale`).
    size
        Variables and constraints of the built model.
    budget
        When set (by :func:`build_cp`), asked before each job's (and each server's) share of
        the build and of :meth:`hint`, which raise :class:`BuildStopped` when it says stop: a
        model of millions of variables takes minutes to build, and must not pass the deadline
        by more than one job's part.
    """

    budget: Budget | None = None

    CONSTRAINTS = ("placement", "capacity", "total_capacity", "progress", "contention", "fluid_cuts",
                   "sym_servers", "sym_jobs", "first_at_zero", "makespan")

    def __init__(self, inst: RarInstance, H: int, *, lb: int = 0, scale: int = 1000, symmetry: bool = True,
                 first_at_zero: bool = True, relax: bool = False, duals: list | None = None) -> None:
        self.inst = inst
        self.H = H
        self.lb = lb
        self.scale = scale
        self.symmetry = symmetry
        self.at_zero = first_at_zero
        self.relax = relax
        self.duals = duals
        self.exact_rates = inst.progress == "floor"
        self.vecs: list[list[tuple[int, ...]]] = []
        self.nservers: list[list[int]] = []
        self.z: list[list[Any]] = []
        self.a: list[Any] = []
        self.e: list[Any] = []
        self.C: Any = None
        self.timed: list[int] = []
        self.act: dict[tuple[int, int], Any] = {}
        self.s: dict[tuple[int, int], Any] = {}
        self.f: dict[tuple[int, int], Any] = {}
        self.w: dict[tuple[int, int, int], Any] = {}
        self.p: dict[tuple[int, int], Any] = {}
        self.r: dict[tuple[int, int], Any] = {}
        self.size: dict[str, int] = {}
        self.unit: dict[int, int] = {}

    def _check(self) -> None:
        """Raise :class:`BuildStopped` when :attr:`budget` says stop."""
        if self.budget is not None and self.budget.stop():
            raise BuildStopped

    def build(self) -> Any:
        """The model: ``placement``, ``capacity``, ``total_capacity``, ``progress``, ``contention``,
        ``fluid_cuts`` with ``duals``, ``sym_servers`` and ``sym_jobs`` with ``symmetry``,
        ``first_at_zero`` with that option, then ``makespan`` (the objective)."""
        from ortools.sat.python import cp_model

        self.model = cp_model.CpModel()
        self.add_placement()
        self.add_capacity()
        self.add_total_capacity()
        self.add_progress()
        self.add_contention()
        if self.duals:
            self.add_fluid_cuts()
        if self.symmetry:
            self.add_sym_servers()
            self.add_sym_jobs()
        if self.at_zero:
            self.add_first_at_zero()
        self.add_makespan()
        m = self.model
        self.size = {"timed_jobs": len(self.timed), "horizon": self.H, "variables": len(m.proto.variables),
                     "constraints": len(m.proto.constraints)}
        return m

    def add_placement(self) -> None:
        """Per job: exactly one count vector ``z[j, v]`` among those that fit the horizon (11),
        the interval ``[a_j, e_j)`` and its least duration for the chosen vector
        (``models/rar.md``, "exact-cp")."""
        inst, m, H = self.inst, self.model, self.H
        J = inst.num_jobs
        self.intervals: list[Any] = []
        self.d1 = d1 = [single_duration(inst, j) for j in range(J)]
        for j in range(J):
            self._check()
            dmin = {1: d1[j]}  # least duration by number of servers, each computed once
            vs, ns = [], []
            for v in count_vectors(inst, j):
                n = sum(1 for y in v if y > 0)
                if n not in dmin:
                    dmin[n] = split_min_duration(inst, j, n)
                if dmin[n] <= H:
                    vs.append(v)
                    ns.append(n)
            self.vecs.append(vs)
            self.nservers.append(ns)
            zj = [m.new_bool_var(f"z[{j},{k}]") for k in range(len(vs))]
            self.z.append(zj)
            if zj:
                m.add_exactly_one(zj)
            else:
                m.add_bool_or([])  # no placement fits the horizon: infeasible
            dlo = min([dmin[n] for n in ns], default=H)
            aj = m.new_int_var(0, max(0, H - dlo), f"a[{j}]")
            ej = m.new_int_var(min(dlo, H), H, f"e[{j}]")
            dj = m.new_int_var(min(dlo, H), H, f"d[{j}]")
            self.a.append(aj)
            self.e.append(ej)
            self.intervals.append(m.new_interval_var(aj, dj, ej, f"I[{j}]"))
            single = [zj[k] for k, n in enumerate(ns) if n == 1]
            multi = [k for k, n in enumerate(ns) if n > 1]
            for lit in single:
                m.add(dj >= d1[j]).only_enforce_if(lit)
            for k in multi:
                m.add(dj >= dmin[ns[k]]).only_enforce_if(zj[k])
            if multi and not self.relax:
                self.timed.append(j)

    def add_capacity(self) -> None:
        """Capacity (2): one cumulative per server over the intervals, demand ``y_js`` of the
        chosen vector (``models/rar.md``, "exact-cp")."""
        inst, m = self.inst, self.model
        J, S = inst.num_jobs, inst.num_servers
        self.ys = ys = []
        for j, (vs, zj) in enumerate(zip(self.vecs, self.z)):
            row = []
            for s in range(S):
                vals = {v[s] for v in vs}
                if len(vals) <= 1:
                    row.append(vals.pop() if vals else 0)
                else:
                    y = m.new_int_var(min(vals), max(vals), f"y[{j},{s}]")
                    m.add(y == sum(v[s] * zj[k] for k, v in enumerate(vs)))
                    row.append(y)
            ys.append(row)
        for s in range(S):
            m.add_cumulative(self.intervals, [ys[j][s] for j in range(J)], int(inst.servers[s]))

    def add_total_capacity(self) -> None:
        """(2) summed over all servers: one cumulative with demand ``G_j`` and capacity the number of
        GPUs (redundant, strengthens propagation; ``models/rar.md``, "exact-cp")."""
        inst = self.inst
        self.model.add_cumulative(self.intervals, [int(g) for g in inst.G], int(inst.num_gpus))

    def add_progress(self) -> None:
        """Time-indexed activity and progress of the jobs that may be split: start and end pulses,
        ``act[j, t]``, ``w[j, s, t]`` (split, on ``s``, active), the rate ``r[j, t] <= R_j(n_j, p[j, t])``
        from (8)-(9)'s table and ``sum_t r[j, t] >= F_j`` (``models/rar.md``, "exact-cp")."""
        inst, m, H, scale = self.inst, self.model, self.H, self.scale
        S, P = inst.num_servers, int(inst.p_max)
        floor = inst.progress == "floor"
        ts = range(H)
        self.u: dict[tuple[int, int], Any] = {}
        for j in self.timed:
            self._check()
            vs, zj = self.vecs[j], self.z[j]
            for t in ts:
                self.s[j, t] = m.new_bool_var(f"s[{j},{t}]")
                self.f[j, t + 1] = m.new_bool_var(f"f[{j},{t + 1}]")
                self.act[j, t] = m.new_bool_var(f"act[{j},{t}]")
            m.add_exactly_one([self.s[j, t] for t in ts])
            m.add_exactly_one([self.f[j, t + 1] for t in ts])
            m.add_map_domain(self.a[j], [self.s[j, t] for t in ts], 0)
            m.add_map_domain(self.e[j], [self.f[j, t + 1] for t in ts], 1)
            for t in ts:
                prev = self.act[j, t - 1] if t > 0 else 0
                m.add(self.act[j, t] == prev + self.s[j, t] - self.f.get((j, t), 0))
            nv = self.nservers[j]
            for s in range(S):
                lits = [zj[k] for k, v in enumerate(vs) if nv[k] > 1 and v[s] > 0]
                if not lits:
                    continue
                us = m.new_bool_var(f"u[{j},{s}]")
                m.add(us == sum(lits))
                self.u[j, s] = us
                for t in ts:
                    w = m.new_bool_var(f"w[{j},{s},{t}]")
                    m.add_implication(w, us)
                    m.add_implication(w, self.act[j, t])
                    m.add_bool_or([w, us.negated(), self.act[j, t].negated()])
                    self.w[j, s, t] = w
            # which number of servers: index into the stacked rate table
            # rate table stacked by number of servers; row n = 1 is the one-server rate
            ns = sorted(set(nv))
            tables = {n: (rate_table(inst, j, n, P, scale) if n > 1 else [one_server_rate(inst, j, scale)] * (P + 1))
                      for n in ns}
            rmax = max(max(tb) for tb in tables.values())
            row = {n: i for i, n in enumerate(ns)}
            nidx: Any = 0
            if len(ns) > 1:  # one variable for the row: each element's index has two terms, not one per vector
                nidx = m.new_int_var(0, len(ns) - 1, f"nrow[{j}]")
                m.add(nidx == sum(row[nv[k]] * zj[k] for k in range(len(vs)) if row[nv[k]]))
            flat = [x for n in ns for x in tables[n]]
            for t in ts:
                p = m.new_int_var(0, P, f"p[{j},{t}]")
                r = m.new_int_var(0, rmax, f"r[{j},{t}]")
                cap = m.new_int_var(0, rmax, f"R[{j},{t}]")
                m.add_element(p + (P + 1) * nidx, flat, cap)
                m.add(r <= cap)
                m.add(r <= rmax * self.act[j, t])
                self.p[j, t], self.r[j, t] = p, r
            need = int(inst.F[j]) * (1 if floor else scale)
            m.add(sum(self.r[j, t] for t in ts) >= need)
            self.unit[j] = 1 if floor else scale

    def add_contention(self) -> None:
        """(6): ``p[j, t] >= cnt[s, t]`` on every server ``s`` of a split, active job."""
        m = self.model
        for s in range(self.inst.num_servers):
            on = [j for j in self.timed if (j, s) in self.u]
            if len(on) < 1:
                continue
            self._check()
            for t in range(self.H):
                cnt = sum(self.w[j, s, t] for j in on)
                for j in on:
                    m.add(self.p[j, t] >= cnt).only_enforce_if(self.w[j, s, t])

    def add_fluid_cuts(self) -> None:
        """Per-slot cuts ``sum_j c_j r[j, t] <= z_c`` from the fluid LP's duals
        (``models/rar.md``, "exact-cp")."""
        for pi in self.duals or []:
            _fluid_cuts(self, self.inst, pi, self.scale)

    def add_sym_servers(self) -> None:
        """Columns ``(y_0s, ..., y_{J-1}s)`` of identical servers in lexicographic order
        (``models/rar.md``, "exact-cp")."""
        inst, m, ys = self.inst, self.model, self.ys
        J = inst.num_jobs
        for group in _server_classes(inst):
            B = int(max(inst.servers)) + 1
            for s0, s1 in zip(group, group[1:]):
                k = J  # lex order on a prefix of the columns is implied by the full one
                while k > 1 and B ** k > 2 ** 50:
                    k -= 1
                key0 = sum(ys[j][s0] * B ** (k - 1 - j) for j in range(k))
                key1 = sum(ys[j][s1] * B ** (k - 1 - j) for j in range(k))
                m.add(key0 >= key1)

    def add_sym_jobs(self) -> None:
        """Identical jobs start in index order, ``a_j0 <= a_j1`` (``models/rar.md``, "exact-cp")."""
        for group in _identical_jobs(self.inst):
            for j0, j1 in zip(group, group[1:]):
                self.model.add(self.a[j0] <= self.a[j1])

    def add_first_at_zero(self) -> None:
        """Some job starts at slot 0, ``min_j a_j = 0`` (shifting a schedule earlier keeps it
        feasible; ``models/rar.md``, "exact-cp")."""
        self.model.add_min_equality(0, self.a)

    def add_makespan(self) -> None:
        """(10): ``C = max_j e_j`` with ``lb <= C <= H``, minimised."""
        m = self.model
        C = m.new_int_var(max(0, min(int(self.lb), self.H)), self.H, "C")
        m.add_max_equality(C, self.e)
        m.minimize(C)
        self.C = C

    def hint(self, starts, vecs, T) -> None:
        """Hint a schedule (starts, count vectors, real completions) to the model."""
        inst, m = self.inst, self.model
        m.clear_hints()
        for j in range(inst.num_jobs):
            v = tuple(int(x) for x in vecs[j])
            for k, vk in enumerate(self.vecs[j]):
                m.add_hint(self.z[j][k], int(vk == v))
            m.add_hint(self.a[j], int(starts[j]))
            m.add_hint(self.e[j], int(T[j]))
        m.add_hint(self.C, int(max(T)))
        if not self.timed:
            return
        eng = Engine(inst, record=True)
        for j in sorted(range(inst.num_jobs), key=lambda q: starts[q]):
            eng.start(j, tuple(s for s, y in enumerate(vecs[j]) if y > 0), int(starts[j]))
        eng.run()
        split = {j for j in range(inst.num_jobs) if sum(1 for y in vecs[j] if y > 0) > 1}
        for j in self.timed:
            self._check()
            a, e = int(starts[j]), int(T[j])
            for t in range(self.H):
                m.add_hint(self.s[j, t], int(t == a))
                m.add_hint(self.f[j, t + 1], int(t + 1 == e))
                on = a <= t < e
                m.add_hint(self.act[j, t], int(on))
                for s in range(inst.num_servers):
                    if (j, s, t) in self.w:
                        m.add_hint(self.w[j, s, t], int(on and j in split and vecs[j][s] > 0))
            tr = eng.trace.get(j, [])
            for t in range(self.H):
                on = a <= t < e and j in split
                p = 0
                for seg in tr:
                    if seg["t"] <= t:
                        p = int(seg["p"])
                m.add_hint(self.p[j, t], p if on else 0)

    def extract(self, values: Any) -> tuple[list[int], list[tuple[int, ...]]]:
        """Starts and count vectors of a CP-SAT solution (``values.value``)."""
        starts, vecs = [], []
        for j in range(len(self.a)):
            starts.append(int(values.value(self.a[j])))
            k = next(k for k, zk in enumerate(self.z[j]) if values.value(zk))
            vecs.append(self.vecs[j][k])
        return starts, vecs


def build_cp(inst: RarInstance, H: int, *, lb: int = 0, scale: int = 1000, symmetry: bool = True,
             first_at_zero: bool = True, relax: bool = False, duals: list | None = None,
             budget: Budget | None = None) -> CpRar:
    """The CP-SAT model with makespan ``<= H``: a built :class:`CpRar` (its parameters); with
    ``budget``, its build and hint stop when the budget says stop (:class:`BuildStopped`)."""
    cp = CpRar(inst, H, lb=lb, scale=scale, symmetry=symmetry, first_at_zero=first_at_zero, relax=relax,
               duals=duals)
    cp.budget = budget
    cp.build()
    return cp


def _fluid_cuts(cp: CpRar, inst: RarInstance, pi, scale: int) -> None:
    """Per-slot cuts ``sum_j c_j r[j, t] <= z_c`` (see :func:`build_cp`)."""
    pi = np.asarray(pi, dtype=float)
    mask = np.zeros(inst.num_jobs)
    mask[cp.timed] = 1.0
    pi = pi * mask
    if not cp.timed or pi.max() <= 0:
        return
    c = np.floor(1000.0 * pi / pi.max()).astype(np.int64)
    if c.max() <= 0:
        return
    pricer = Pricer(inst, max_nodes=200_000, rates=lambda j, n, p: _model_rate(inst, j, n, p, scale))
    z, _, complete = pricer.price(c.astype(float))
    if not complete:
        return
    zc = int(math.floor(z + 1e-6))
    for t in range(cp.H):
        cp.model.add(sum(int(c[j]) * cp.r[j, t] for j in cp.timed if c[j] > 0) <= zc)


def _model_rate(inst: RarInstance, j: int, n: int, p: int, scale: int) -> float:
    """A job's progress per slot in model units (as in the rate tables)."""
    if n <= 1:
        return float(one_server_rate(inst, j, scale))
    return float(rate_table(inst, j, n, max(1, p), scale)[max(1, p)])


def hint(cp: CpRar, inst: RarInstance, starts, vecs, T) -> None:
    """Hint a schedule (starts, count vectors, real completions) to the model (:meth:`CpRar.hint`)."""
    cp.hint(starts, vecs, T)


def extract(cp: CpRar, values: Any) -> tuple[list[int], list[tuple[int, ...]]]:
    """Starts and count vectors of a CP-SAT solution (:meth:`CpRar.extract`)."""
    return cp.extract(values)


# ---------------------------------------------------------------------------
# registration (the method kit)


@method(
    "rar", "exact-cp", kind="exact", uses_solver=True,
    description="exact over every schedule (any integer start slots, any placement): bounds, heuristics, the "
                "contention-free CP-SAT relaxation, the slot DP on small instances, then the time-indexed CP-SAT "
                "model; ignores the solver argument",
    options=[
        Option("symmetry", bool, True, "order identical servers' columns and identical jobs' starts"),
        Option("fluid_cuts", bool, True, "per-slot cuts from the fluid LP's duals"),
        Option("dp", bool, True, "on small instances, run exact-dp's slot dynamic program before the full model"),
        Option("max_states", int, 2_000_000, "work limit of the DP phase (states kept)", minimum=1),
        Option("work_limit", float, None, "CP-SAT deterministic time limit (same result at any load)",
               minimum=0.0),
        Option("progress_scale", int, None, "fractional mode: progress units per iteration; None: the exact grid "
               "of the rates if one fits, else 1000 (rates rounded up: a relaxation, its bound is valid)",
               minimum=1),
    ],
)
def solve_exact_cp(inst: RarInstance, run: Run) -> Result:
    """Optimal makespan over every schedule (integer start slots, any GPU sets).

    Phases (``models/rar.md``, "exact-cp"): the best lower bound and the best
    heuristic schedule (closed if they meet); the contention-free CP-SAT
    relaxation (25% of the deadline); on small instances exact-dp's slot dynamic
    program (half of the rest); the time-indexed CP-SAT model, hinted, with the
    rest.  In floor mode (the paper's (9)) the model is exact; in fractional mode
    it is a relaxation (rates rounded up) whose bound is valid and whose schedules
    are used only if they are feasible (the DP is exact in both)."""
    run.solver = "cpsat"
    with run.stage("bound"):
        lb, lb_name, lb_all = best_lower_bound(inst, budget=run.budget)
        if lb_all.pop("stopped", False):
            run.cut("the lower bounds")
        duals = lb_all.pop("_duals", None)
        pairs = lb_all.pop("_dual_pairs", [])
    with run.stage("incumbent"):
        inc, stopped = best_heuristic_schedule(inst, budget=run.budget)
    if stopped:
        run.cut("the incumbent heuristics")
    if inc is not None:
        run.incumbent(inc[1], bound=lb)
    H = int(min(inc[0], inst.horizon)) if inc is not None else int(inst.horizon)
    details = {"lower_bound_name": lb_name, "lower_bounds": lb_all, "model_horizon": H,
               "incumbent_heuristic": inc[0] if inc is not None else None}
    if inc is not None and inc[0] <= lb:
        return run.result(bound=lb, closed="heuristic meets the lower bound", **details)
    if run.budget.stop():  # nothing left for a model: the incumbent and the bound stand
        run.cut("the CP-SAT phases (not started)")
        return run.result(bound=lb, model="not built: the deadline passed before the CP-SAT phases", **details)
    size = model_size(inst, H)
    try:
        run.require(memory_bytes=BYTES_PER_VAR * size["variables"],
                    what=f"the CP-SAT model ({fmt_count(size['variables'])} variables, horizon {H})")
    except ResourceLimit as e:  # refused before allocating: the incumbent and the bound stand
        return run.result(bound=lb, model=f"not built: {e}", **details)
    wl = run.budget.work  # the original work allowance (the work_limit option)
    # phase 1: the contention-free relaxation (every placement at its fastest rate)
    try:
        with run.stage("build"):
            rx = build_cp(inst, H, lb=lb, symmetry=run.options["symmetry"], relax=True, budget=run.budget)
            if inc is not None:
                hint(rx, inst, inc[1].start.tolist(), counts_of(inst, inc[1]), completion(inst, inc[1]))
    except BuildStopped:  # the deadline passed while it was built: the incumbent and the bound stand
        run.cut("the CP-SAT relaxation's build")
        return run.result(bound=lb, model="not built: the deadline passed during the relaxation's build", **details)
    relax_work = None if wl is None else wl * RELAX_SHARE
    rout = run.solve_cpsat(rx.model, budget=run.budget.share(RELAX_SHARE, work=relax_work), what="CP-SAT relaxation")
    details["relaxation"] = {"status": rout.message, "objective": rout.objective, "bound": rout.bound}
    relax_lb = int(math.ceil(rout.bound - 1e-9)) if rout.bound is not None else 0
    lb = max(lb, relax_lb)
    if rout.has_solution:
        starts, vecs = extract(rx, rout.engine)
        run.incumbent(as_schedule(inst, starts, vecs), bound=lb)
    if run.best_value is not None and run.best_value <= lb:
        return run.result(bound=lb, closed="a schedule meets the relaxation's bound", **details)
    H = int(min(H, run.best_value)) if run.best_value is not None else H
    if run.budget.stop():  # the relaxation used the time: no exact model (cut recorded by CP-SAT)
        return run.result(bound=lb, model="not built: the deadline passed after the relaxation", **details)
    # phase 2 (small instances): the slot dynamic program of exact-dp
    # the DP prunes with the fluid bound: it pays where that bound is as strong as the relaxation's,
    # i.e. where contention, not packing, separates the bound from the schedules (measured)
    fluid_lb = lb_all.get("fluid")
    if (run.options["dp"] and dp_applies(inst)[0] and run.best_value is not None and fluid_lb is not None
            and fluid_lb >= relax_lb):
        with run.stage("dp"):
            dl = run.budget.share(DP_SHARE)
            dout = solve_dp(inst, int(run.best_value), pairs, max_states=run.options["max_states"],
                            budget=dl)
        details["dp"] = {"states": dout["states"], "complete": dout["complete"]}
        if dout["sched"] is not None:
            run.incumbent(dp_schedule(inst, dout["sched"]))
        if dout["complete"]:
            return run.result(bound=[lb, run.best_value], status=Status.OPTIMAL,
                              closed="the dynamic program exhausted the space", **details)
        if dout["stopped"]:
            run.cut("dynamic program phase")
        H = int(min(H, run.best_value))
    # phase 3: the exact model, hinted with the best schedule so far
    try:
        with run.stage("build"):
            scale, exact_rates = progress_scale(inst, run.options["progress_scale"])
            cp = build_cp(inst, H, lb=lb, scale=scale, symmetry=run.options["symmetry"],
                          duals=[duals] if (duals is not None and run.options["fluid_cuts"]) else None,
                          budget=run.budget)
            cp.exact_rates = exact_rates
            if run.best is not None:
                hint(cp, inst, run.best.start.tolist(), counts_of(inst, run.best), completion(inst, run.best))
    except BuildStopped:  # as after the relaxation's build
        run.cut("the CP-SAT model's build")
        return run.result(bound=lb, model="not built: the deadline passed during its build", **details)
    details.update(model=cp.size, exact_rates=cp.exact_rates)

    def on_solution(values: Any):
        starts, vecs = extract(cp, values)
        return as_schedule(inst, starts, vecs)

    # the rest of the original work allowance (the DP phase spends none)
    rest = None if wl is None else wl * (1 - RELAX_SHARE)
    out = run.solve_cpsat(cp.model, budget=run.budget.share(1.0, work=rest), on_solution=on_solution,
                          what="CP-SAT exact-cp")
    if out.has_solution:
        with run.stage("extract"):
            starts, vecs = extract(cp, out.engine)
            run.incumbent(as_schedule(inst, starts, vecs))
    if out.status == Status.INFEASIBLE:
        if inc is not None:  # pragma: no cover - the incumbent is a solution of the model
            raise RuntimeError("exact-cp: the model rejects the incumbent")
        return run.result(outcome=out, status=Status.INFEASIBLE, **details)
    bound = [lb]
    if out.bound is not None:
        bound.append(math.ceil(out.bound - 1e-9))
    return run.result(bound=bound, outcome=out, **details)
