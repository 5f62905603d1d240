"""The Pyomo formulation of Hare_Sched shared by the exact MIP and the
relaxations: variables, objective, (4)-(7) and symmetry breaking, built by a
:class:`HareFormulation` object that holds the model state (instance, box,
index arrays) -- nothing is stored on the Pyomo model itself.

Constraint rows are computed with NumPy and handed to Pyomo as
``LinearExpression`` objects (no operator overloading, no per-row rule
evaluation over Pyomo sets), which keeps construction and the solver
interface's translation linear in the number of nonzeros.  Pyomo is imported
only inside the builder (loading the registry never imports it).

Component names and their equations: ``models/hare.md`` sections 4-5.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .box import Horizon
from .instance import HareInstance


def round_groups(inst: HareInstance) -> list[tuple[int, int, list[int]]]:
    """``(n, r, tasks)`` for every round of every job."""
    groups = []
    for n, j in enumerate(inst.jobs):
        for r in range(j.rounds):
            first = inst.task_index(n, r, 0)
            groups.append((n, r, list(range(first, first + j.tasks_per_round))))
    return groups


def identical_gpu_pairs(inst: HareInstance) -> list[tuple[int, int]]:
    """``(m_prev, m)``: consecutive GPUs (in index order) of the same type."""
    last: dict[str, int] = {}
    pairs = []
    for m, g in enumerate(inst.gpus):
        if g in last:
            pairs.append((last[g], m))
        last[g] = m
    return pairs


def disjunctive_pairs(inst: HareInstance) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``i < j`` that (8) must separate when they share a GPU.

    Tasks of different rounds of the same job are already separated by (7)
    (``x_j >= x_i + T^c_i + T^s_i``), so they are left out.  Returns
    ``(free, fixed)``, each an ``(P, 2)`` integer array in lexicographic
    order: ``fixed`` pairs are tasks of the same (job, round), whose order is
    fixed to ``i`` first by ``sym_task_order``; ``free`` pairs (tasks of
    different jobs) get an order binary.
    """
    n = inst.num_tasks
    if n < 2:
        e = np.zeros((0, 2), dtype=np.int64)
        return e, e
    ii, jj = np.triu_indices(n, k=1)
    nj, rr = inst.task_job, inst.task_round
    same_job = nj[ii] == nj[jj]
    free = ~same_job
    fixed = same_job & (rr[ii] == rr[jj])
    return (np.stack([ii[free], jj[free]], axis=1).astype(np.int64),
            np.stack([ii[fixed], jj[fixed]], axis=1).astype(np.int64))


def no_overlap_index(inst: HareInstance, box: Horizon) -> tuple[np.ndarray, ...]:
    """Index arrays of the rows of (8) (:meth:`HareFormulation.add_no_overlap`).

    Returns ``(free, fixed, fwd_pair, fwd_gpu, fwd_M, rev_pair, rev_gpu, rev_M)``:
    the pairs of :func:`disjunctive_pairs`, then for the forward rows (pair
    index into ``free + fixed``, free first) and the reverse rows (free pairs
    only) the GPU and big-M value of every row with ``M > 0``.
    """
    free, fixed = disjunctive_pairs(inst)
    allp = np.concatenate([free, fixed]) if len(fixed) else free
    tc = inst.tc[inst.task_job]
    L, U = box.lower, box.upper
    I, J = allp[:, 0], allp[:, 1]
    bf = U[I][:, None] + tc[I] - L[J][:, None]
    fp, fg = np.nonzero(bf > 0)
    nf = len(free)
    br = U[J[:nf]][:, None] + tc[J[:nf]] - L[I[:nf]][:, None]
    rp, rg = np.nonzero(br > 0)
    return free, fixed, fp, fg, bf[fp, fg], rp, rg, br[rp, rg]


def _linear(coefs: Sequence[float], variables: Sequence[Any], constant: float = 0.0) -> Any:
    from pyomo.core.expr.numeric_expr import LinearExpression

    return LinearExpression(constant=constant, linear_coefs=list(coefs), linear_vars=list(variables))


class HareFormulation:
    """Builder of one Pyomo model of Hare_Sched or a relaxation.

    Parameters
    ----------
    inst
        The instance.
    box
        Start-time box (:class:`~.box.Horizon`) giving variable bounds and big-M values.
    gpu_symmetry
        Add ``sym_gpu_order`` (identical GPUs ordered by their first task).
    flow
        Minimise the weighted flow time ``sum_n w_n (C_n - a_n)`` instead of
        ``sum_n w_n C_n`` (a constant apart: the same optimal schedules).

    Attributes
    ----------
    model
        The Pyomo ``ConcreteModel`` (components named as in ``models/hare.md``).
    x, C
        Lists of the start and completion variables (by task, by job).
    y
        ``y[i][m]``: assignment variables.
    groups
        :func:`round_groups` of the instance.
    pairs
        ``(free, fixed)`` from :func:`disjunctive_pairs` once (8) is added.
    """

    def __init__(self, inst: HareInstance, box: Horizon, *, gpu_symmetry: bool = True, flow: bool = False):
        import pyomo.environ as pyo

        self.pyo = pyo
        self.inst = inst
        self.box = box
        self.gpu_symmetry = gpu_symmetry
        self.flow = flow
        self.groups = round_groups(inst)
        self.pairs: tuple[np.ndarray, np.ndarray] | None = None
        self.z: list[list[Any]] | None = None
        self.cut_keys: set[tuple] = set()
        self.initial_cuts = 0
        self.model = pyo.ConcreteModel(name=f"hare:{inst.name or 'instance'}")
        self._variables()
        self._objective()
        self._arrival()
        self._assign()
        self._completion()
        self._round_barrier()
        self._symmetry_tasks()
        if gpu_symmetry:
            self._symmetry_gpus()

    # -- helpers --------------------------------------------------------------
    def _rows(self, name: str, rows: list[tuple[float | None, Any, float | None]]) -> None:
        """Add indexed constraint ``name`` (index ``0..len(rows)-1``) from ``(lb, body, ub)`` rows."""
        pyo = self.pyo
        comp = pyo.Constraint(range(len(rows)), rule=lambda m, k: rows[k])
        setattr(self.model, name, comp)

    @property
    def task_tc(self) -> np.ndarray:
        """``T^c`` of every task on every GPU (tasks x GPUs)."""
        return self.inst.tc[self.inst.task_job]

    @property
    def task_ts(self) -> np.ndarray:
        return self.inst.ts[self.inst.task_job]

    # -- variables and objective ------------------------------------------------
    def _variables(self) -> None:
        """Variables ``x`` (box bounds), ``y`` (binary), ``C`` (box bounds), ``round_end``."""
        pyo = self.pyo
        inst, hz, mdl = self.inst, self.box, self.model
        N, M, J = inst.num_tasks, inst.num_gpus, inst.num_jobs
        mdl.TASKS = pyo.RangeSet(0, N - 1)
        mdl.GPUS = pyo.RangeSet(0, M - 1)
        mdl.JOBS = pyo.RangeSet(0, J - 1)
        rounds = [(n, r) for n, r, _ in self.groups if r < inst.jobs[n].rounds - 1]
        mdl.ROUNDS = pyo.Set(initialize=rounds, dimen=2, ordered=True)
        lo, up = hz.lower.tolist(), hz.upper.tolist()
        clo, cup = hz.c_lower.tolist(), hz.c_upper.tolist()
        mdl.x = pyo.Var(mdl.TASKS, bounds=lambda m, i: (lo[i], up[i]))
        mdl.y = pyo.Var(mdl.TASKS, mdl.GPUS, domain=pyo.Binary)
        mdl.C = pyo.Var(mdl.JOBS, bounds=lambda m, n: (clo[n], cup[n]))
        mdl.round_end = pyo.Var(mdl.ROUNDS, within=pyo.NonNegativeReals)
        self.x = [mdl.x[i] for i in range(N)]
        self.y = [[mdl.y[i, g] for g in range(M)] for i in range(N)]
        self.C = [mdl.C[n] for n in range(J)]
        self.E = {key: mdl.round_end[key] for key in rounds}
        # per-task processing (training + synchronisation) on the chosen GPU
        p = (self.task_tc + self.task_ts).tolist()
        mdl.proc = pyo.Expression(mdl.TASKS, rule=lambda m, i: _linear(p[i], self.y[i]))

    def _objective(self) -> None:
        """``obj``: minimise ``sum_n w_n C_n`` (with ``flow``: ``sum_n w_n (C_n - a_n)``, the
        same minimisers, so that a solver's relative gap is one of the offset-free quantity)."""
        pyo = self.pyo
        w = self.inst.weight
        offset = -float(np.dot(w, self.inst.arrival)) if self.flow else 0.0
        self.model.obj = pyo.Objective(expr=_linear(w.tolist(), self.C, offset), sense=pyo.minimize)

    # -- (4)-(7) ------------------------------------------------------------------
    def _arrival(self) -> None:
        """(4) ``x_i >= a_n``: a task starts no earlier than its job's arrival."""
        a = self.inst.arrival[self.inst.task_job].tolist()
        self._rows("arrival", [(a[i], _linear([1.0], [self.x[i]]), None) for i in range(self.inst.num_tasks)])

    def _assign(self) -> None:
        """(5) ``sum_m y_{i,m} = 1``: every task runs on exactly one GPU."""
        ones = [1.0] * self.inst.num_gpus
        self._rows("assign", [(1.0, _linear(ones, self.y[i]), 1.0) for i in range(self.inst.num_tasks)])

    def _completion(self) -> None:
        """(6) ``C_n >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})`` for every task of job ``n``."""
        nj = self.inst.task_job.tolist()
        p = (-(self.task_tc + self.task_ts)).tolist()
        rows = [(0.0, _linear([1.0, -1.0] + p[i], [self.C[nj[i]], self.x[i]] + self.y[i]), None)
                for i in range(self.inst.num_tasks)]
        self._rows("completion", rows)

    def _round_barrier(self) -> None:
        """(7) ``x_j >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})`` for ``i`` in round
        ``r`` and ``j`` in round ``r+1`` of the same job, through the round's end
        ``round_end[n, r]``: ``round_done`` (``round_end >= x_i + proc_i``) and
        ``round_start`` (``x_j >= round_end``) -- equivalent to the pairwise form
        with ``2 D`` instead of ``D^2`` rows per round of ``D`` tasks."""
        inst = self.inst
        p = (-(self.task_tc + self.task_ts)).tolist()
        done, start = [], []
        for n, r, tasks in self.groups:
            if r < inst.jobs[n].rounds - 1:
                e = self.E[(n, r)]
                done += [(0.0, _linear([1.0, -1.0] + p[i], [e, self.x[i]] + self.y[i]), None) for i in tasks]
            if r > 0:
                e = self.E[(n, r - 1)]
                start += [(0.0, _linear([1.0, -1.0], [self.x[j], e]), None) for j in tasks]
        self._rows("round_done", done)
        self._rows("round_start", start)

    # -- symmetry breaking ------------------------------------------------------
    def _symmetry_tasks(self) -> None:
        """Symmetry breaking (no paper equation): tasks ``k`` and ``k+1`` of the same
        (job, round) are identical, so some optimal schedule has ``x_k <= x_{k+1}``
        (relabel the round's tasks by start time): ``sym_task_order``."""
        idx = [i for _, _, tasks in self.groups for i in tasks[:-1]]
        self._rows("sym_task_order", [(None, _linear([1.0, -1.0], [self.x[i], self.x[i + 1]]), 0.0) for i in idx])

    def _symmetry_gpus(self) -> None:
        """Symmetry breaking (no paper equation): for consecutive GPUs ``m' < m`` of
        the same type, ``y_{i,m} <= sum_{i' < i} y_{i',m'}`` (``sym_gpu_order``):
        identical GPUs sorted by the smallest task index they run, empty ones last.
        Compatible with ``sym_task_order`` because permuting GPUs changes no start
        time and no task label."""
        rows = []
        N = self.inst.num_tasks
        for mp, g in identical_gpu_pairs(self.inst):
            col = [self.y[k][mp] for k in range(N)]
            for i in range(N):
                rows.append((None, _linear([1.0] + [-1.0] * i, [self.y[i][g]] + col[:i]), 0.0))
        self._rows("sym_gpu_order", rows)

    # -- (8): the exact model ------------------------------------------------------
    def add_no_overlap(self) -> None:
        """(8) ``|x_i - x_j| >= y_{k,m} T^c_{k,m}`` for tasks ``i, j`` on GPU ``m``, ``k`` the earlier.

        Linearised with the order binary ``order[p]`` (1: the pair's first task
        ``i`` before ``j``) per free pair ``p = (i, j)`` and, per GPU ``m``:

        * ``no_overlap``:     ``x_j >= x_i + T^c_{i,m} - M_{ijm} (3 - order_p - y_im - y_jm)``
        * ``no_overlap_rev``: ``x_i >= x_j + T^c_{j,m} - M_{jim} (2 + order_p - y_im - y_jm)``

        For a fixed pair (same round, order 1 by symmetry) only the first, with
        ``(2 - y_im - y_jm)``.  ``M_{ijm} = U_i + T^c_{i,m} - L_j`` (the box of
        :func:`~.box.horizon`); a row with ``M <= 0`` always holds in the box
        and is skipped.
        """
        pyo = self.pyo
        mdl = self.model
        free, fixed, fp, fg, fM, rp, rg, rM = no_overlap_index(self.inst, self.box)
        self.pairs = (free, fixed)
        nf = len(free)
        mdl.PAIRS = pyo.RangeSet(0, nf - 1) if nf else pyo.Set(initialize=[])
        mdl.order = pyo.Var(mdl.PAIRS, domain=pyo.Binary)
        order = [mdl.order[p] for p in range(nf)]
        allp = np.concatenate([free, fixed]) if len(fixed) else free
        tc = self.task_tc
        x, y = self.x, self.y
        fwd = []
        for p, g, big in zip(fp.tolist(), fg.tolist(), fM.tolist()):
            i, j = int(allp[p, 0]), int(allp[p, 1])
            t = float(tc[i, g])
            if p < nf:  # x_j - x_i - M o - M y_i - M y_j >= T - 3M
                fwd.append((t - 3 * big, _linear([1.0, -1.0, -big, -big, -big],
                                                 [x[j], x[i], order[p], y[i][g], y[j][g]]), None))
            else:  # x_j - x_i - M y_i - M y_j >= T - 2M
                fwd.append((t - 2 * big, _linear([1.0, -1.0, -big, -big], [x[j], x[i], y[i][g], y[j][g]]), None))
        rev = []
        for p, g, big in zip(rp.tolist(), rg.tolist(), rM.tolist()):
            i, j = int(free[p, 0]), int(free[p, 1])
            t = float(tc[j, g])  # x_i - x_j + M o - M y_i - M y_j >= T - 2M
            rev.append((t - 2 * big, _linear([1.0, -1.0, big, -big, -big],
                                             [x[i], x[j], order[p], y[i][g], y[j][g]]), None))
        self._rows("no_overlap", fwd)
        self._rows("no_overlap_rev", rev)

    # -- relaxations -------------------------------------------------------------
    def add_mccormick(self) -> None:
        """Linearisation of the products ``y_{i,m} x_i`` of (9): ``z[i,m] = y_{i,m} x_i``
        exactly for binary ``y`` and ``L_i <= x_i <= U_i`` (McCormick; exact because
        ``y`` is binary):

        * ``mc_lo_y``: ``z >= L_i y``;  ``mc_up_y``: ``z <= U_i y``;
        * ``mc_lo_x``: ``z >= x_i - U_i (1 - y)``;  ``mc_up_x``: ``z <= x_i - L_i (1 - y)``.
        """
        pyo = self.pyo
        mdl = self.model
        N, M = self.inst.num_tasks, self.inst.num_gpus
        mdl.z = pyo.Var(mdl.TASKS, mdl.GPUS, within=pyo.NonNegativeReals)
        self.z = [[mdl.z[i, g] for g in range(M)] for i in range(N)]
        L, U = self.box.lower.tolist(), self.box.upper.tolist()
        x, y, z = self.x, self.y, self.z
        lo_y, up_y, lo_x, up_x = [], [], [], []
        for i in range(N):
            for g in range(M):
                lo_y.append((0.0, _linear([1.0, -L[i]], [z[i][g], y[i][g]]), None))
                up_y.append((None, _linear([1.0, -U[i]], [z[i][g], y[i][g]]), 0.0))
                lo_x.append((-U[i], _linear([1.0, -1.0, -U[i]], [z[i][g], x[i], y[i][g]]), None))
                up_x.append((None, _linear([1.0, -1.0, -L[i]], [z[i][g], x[i], y[i][g]]), -L[i]))
        self._rows("mc_lo_y", lo_y)
        self._rows("mc_up_y", up_y)
        self._rows("mc_lo_x", lo_x)
        self._rows("mc_up_x", up_x)

    def add_cut_list(self, initial_cuts: int = 8) -> None:
        """``oa_cuts``: tangent cuts of (9) per GPU at ``initial_cuts`` evenly
        spaced loads and at the box incumbent's load (see :meth:`tangent_cut`)."""
        pyo = self.pyo
        self.model.oa_cuts = pyo.ConstraintList()
        all_tasks = list(range(self.inst.num_tasks))
        for g, s0 in initial_cut_loads(self.inst, self.box, initial_cuts):
            self.tangent_cut(g, all_tasks, s0)
        self.initial_cuts = len(self.model.oa_cuts)

    def tangent_cut(self, g: int, subset: list[int], s0: float) -> bool:
        """Tangent cut of the subset inequality on GPU ``g`` at load ``s0`` ((9) when
        ``subset`` is every task):

        ``sum_{i in S} T_ig z_ig + 1/2 sum_{i in S} T_ig^2 y_ig >= s0 sum_{i in S} T_ig y_ig - s0^2 / 2``

        valid because ``(sum_S T y)^2 >= 2 s0 sum_S T y - s0^2`` and the subset
        inequality reads ``sum_S T z + 1/2 sum_S T^2 y >= 1/2 (sum_S T y)^2`` (with
        ``y^2 = y``); exact at ``sum_S T y = s0``.  Returns False if already present.
        """
        key = (g, tuple(subset), round(s0, 12))
        if key in self.cut_keys:
            return False
        self.cut_keys.add(key)
        t = self.task_tc[:, g]
        coefs, vs = [], []
        for i in subset:
            ti = float(t[i])
            coefs += [ti, 0.5 * ti * ti - s0 * ti]
            vs += [self.z[i][g], self.y[i][g]]
        self.model.oa_cuts.add((-0.5 * s0 * s0, _linear(coefs, vs), None))
        return True

    def add_rl_quadratic(self) -> None:
        """(9) ``sum_i y_im T^c_im (x_i + T^c_im) >= 1/2 [(sum_i y_im T^c_im)^2 + sum_i (y_im T^c_im)^2]``
        per GPU ``m``, verbatim (quadratic; for Gurobi)."""
        pyo = self.pyo
        t = self.task_tc
        N = self.inst.num_tasks
        x, y = self.x, self.y

        def rule(m, g):
            load = sum(float(t[i, g]) * y[i][g] for i in range(N))
            lhs = sum(float(t[i, g]) * y[i][g] * (x[i] + float(t[i, g])) for i in range(N))
            sq = sum(float(t[i, g]) ** 2 * y[i][g] * y[i][g] for i in range(N))
            return lhs >= 0.5 * (load * load + sq)

        self.model.rl_quadratic = pyo.Constraint(self.model.GPUS, rule=rule)

    # -- values -----------------------------------------------------------------------
    def starts(self) -> np.ndarray:
        """Start times ``x`` of the loaded solution."""
        return np.array([v.value if v.value is not None else np.nan for v in self.x], dtype=float)

    def assignment(self) -> np.ndarray:
        """GPU of every task: ``argmax_m y_{i,m}`` of the loaded solution."""
        if not self.x:
            return np.zeros(0, dtype=np.int64)
        y = np.array([[v.value or 0.0 for v in row] for row in self.y])
        return y.argmax(axis=1).astype(np.int64)

    def fix_assignment(self, gpu: np.ndarray) -> None:
        """Fix ``y`` to ``gpu`` and drop the symmetry rows (not part of the relaxation)."""
        for i, row in enumerate(self.y):
            for g, v in enumerate(row):
                v.fix(1.0 if gpu[i] == g else 0.0)
        self.model.sym_task_order.deactivate()
        if self.gpu_symmetry:
            self.model.sym_gpu_order.deactivate()

    def unfix_assignment(self) -> None:
        for row in self.y:
            for v in row:
                v.unfix()
        self.model.sym_task_order.activate()
        if self.gpu_symmetry:
            self.model.sym_gpu_order.activate()


def model_size(inst: HareInstance, box: Horizon, *, exact: bool, gpu_symmetry: bool = True,
               max_pairs: int = 4_000_000) -> dict[str, float]:
    """Rows, nonzeros, variables and binaries of a model before building it.

    Exact counts of what :class:`HareFormulation` builds (tested): the exact
    model (``exact=True``) or the relaxation master with its initial cuts.
    (8) is counted with the box's big-M filter when ``pairs x GPUs <=
    max_pairs``, else bounded by ``2 pairs x GPUs`` rows.
    """
    N, M, J = inst.num_tasks, inst.num_gpus, inst.num_jobs
    R, K = inst.rounds_arr, inst.tasks_per_round_arr
    inner = float(np.sum((R - 1) * K))  # tasks followed by another round of their job
    n_sym = len(identical_gpu_pairs(inst)) if gpu_symmetry else 0
    task_sym = float(np.sum(R * (K - 1)))
    rows = 3 * N + 2 * inner + task_sym + n_sym * N
    nnz = (N + N * M + N * (M + 2) + inner * (M + 2) + 2 * inner + 2 * task_sym
           + n_sym * (N + N * (N - 1) / 2))
    vars_ = N + N * M + J + float(np.sum(R - 1))
    binaries = float(N * M)
    if exact:
        tasks_per_job = (R * K).astype(float)
        free = (N * N - float(np.sum(tasks_per_job**2))) / 2
        fixed = float(np.sum(R * K * (K - 1))) / 2
        if (free + fixed) * M <= max_pairs:
            free_p, _, fp, _, _, rp, _, _ = no_overlap_index(inst, box)
            n_rows = len(fp) + len(rp)
            n_free_fwd = int(np.sum(fp < len(free_p)))
            n_nnz = 5 * n_free_fwd + 4 * (len(fp) - n_free_fwd) + 5 * len(rp)
        else:
            n_rows = (2 * free + fixed) * M
            n_nnz = 5 * n_rows
        rows += n_rows
        nnz += n_nnz
        vars_ += free
        binaries += free
    else:  # McCormick, and the initial tangent cuts of (9) over every task
        rows += 4 * N * M
        nnz += 10 * N * M
        vars_ += N * M
        n_cuts = len(initial_cut_loads(inst, box))
        rows += n_cuts
        nnz += n_cuts * 2 * N
    return {"rows": float(rows), "nonzeros": float(nnz), "variables": float(vars_), "binaries": binaries}


def initial_cut_loads(inst: HareInstance, box: Horizon, initial_cuts: int = 8) -> list[tuple[int, float]]:
    """``(gpu, load)`` of the initial tangent cuts of (9): ``initial_cuts`` evenly
    spaced loads per GPU and the box incumbent's load, without repeats."""
    tc = inst.tc_type[inst.task_job][:, inst.gpu_type_index] if inst.num_tasks else np.zeros((0, inst.num_gpus))
    inc = box.incumbent.gpu
    out = []
    for g in range(inst.num_gpus):
        total = float(tc[:, g].sum())
        points = {total * k / initial_cuts for k in range(1, initial_cuts + 1)}
        points.add(float(tc[inc == g, g].sum()))
        seen = set()
        for s0 in sorted(points):
            key = round(s0, 12)
            if key not in seen:
                seen.add(key)
                out.append((g, s0))
    return out


#: calibration of :func:`build_estimate` (measured with Pyomo 6.10 / HiGHS 1.15 on
#: the reference machine, ``benchmarks/hare_exact.md``): bytes and seconds per row
#: and per nonzero, for building the model and translating it for the solver
BYTES_PER_ROW = 1400.0
BYTES_PER_NONZERO = 120.0
SECONDS_PER_ROW = 4.0e-5
SECONDS_PER_NONZERO = 3.0e-6


def build_estimate(size: dict[str, float]) -> tuple[float, float]:
    """``(bytes, seconds)`` to build a model of ``size`` (:func:`model_size`)
    and hand it to the solver (Pyomo translation included)."""
    mem = BYTES_PER_ROW * (size["rows"] + size["variables"]) + BYTES_PER_NONZERO * size["nonzeros"]
    sec = SECONDS_PER_ROW * (size["rows"] + size["variables"]) + SECONDS_PER_NONZERO * size["nonzeros"]
    return mem, sec
