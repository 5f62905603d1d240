"""The Pyomo formulation of Hare_Sched shared by the exact MIP and the
relaxations: variables, objective, (4)-(7) and symmetry breaking, built by a
:class:`HareFormulation` object (a :class:`~dmlsched.modeling.ModelBuilder`) that
holds the model state (instance, box, index arrays) -- nothing is stored on the
Pyomo model itself.  The exact MIP (:class:`~.models.HareExactMip`, (8)) and the
relaxations (:mod:`.relaxation`, (9)) are its subclasses.

Constraint rows are computed with NumPy and handed to Pyomo as
``LinearExpression`` objects (no operator overloading, no per-row rule
evaluation over Pyomo sets), which keeps construction and the solver
interface's translation linear in the number of nonzeros.  Pyomo is imported
only inside the builder (loading the registry never imports it).

Component names and their equations: ``models/hare.md`` sections 4-5.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from ...modeling import ModelBuilder
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


def linear_expression(coefs: Sequence[float], variables: Sequence[Any], constant: float = 0.0) -> Any:
    """The Pyomo ``LinearExpression`` ``constant + sum_k coefs[k] variables[k]`` (no operator overloading)."""
    from pyomo.core.expr.numeric_expr import LinearExpression

    return LinearExpression(constant=constant, linear_coefs=list(coefs), linear_vars=list(variables))


class HareFormulation(ModelBuilder):
    """Builder of the Pyomo model shared by Hare_Sched's exact MIP and its relaxations:
    the variables, the objective, (4)-(7) and symmetry breaking (``models/hare.md`` sections 4-5).

    The exact MIP (:class:`~.models.HareExactMip`) adds (8); the relaxation master
    (:class:`~.relaxation.HareRelaxationMaster`) and the MIQCP
    (:class:`~.relaxation.HareRlMiqcp`) add (9).  Built alone, it is the model of
    (4)-(7) with no disjunction (every task may overlap every other).

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
        Lists of the start and completion variables (by task, by job), once built.
    y
        ``y[i][m]``: assignment variables, once built.
    groups
        :func:`round_groups` of the instance.
    """

    CONSTRAINTS: ClassVar[tuple[str, ...]] = (
        "arrival", "assign", "completion", "round_done", "round_start", "sym_task_order", "sym_gpu_order",
    )

    def __init__(self, inst: HareInstance, box: Horizon, *, gpu_symmetry: bool = True, flow: bool = False):
        self.inst = inst
        self.box = box
        self.gpu_symmetry = gpu_symmetry
        self.flow = flow
        self.groups = round_groups(inst)

    def build(self) -> Any:
        """Create :attr:`model` (:meth:`build_shared`) and return it."""
        self.build_shared()
        return self.model

    def build_shared(self) -> None:
        """Create :attr:`model` with the variables, the objective, then the shared constraint
        families (this class's :attr:`CONSTRAINTS`, in order; ``sym_gpu_order`` only with
        ``gpu_symmetry``).  Subclasses add theirs after it."""
        import pyomo.environ as pyo

        self.pyo = pyo
        self.model = pyo.ConcreteModel(name=f"hare:{self.inst.name or 'instance'}")
        self.add_variables()
        self.add_objective()
        self.add_constraints(tuple(c for c in HareFormulation.CONSTRAINTS
                                   if self.gpu_symmetry or c != "sym_gpu_order"))

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
    def add_variables(self) -> None:
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
        mdl.proc = pyo.Expression(mdl.TASKS, rule=lambda m, i: linear_expression(p[i], self.y[i]))

    def add_objective(self) -> None:
        """``obj``: minimise ``sum_n w_n C_n`` (with ``flow``: ``sum_n w_n (C_n - a_n)``, the
        same minimisers, so that a solver's relative gap is one of the offset-free quantity)."""
        pyo = self.pyo
        w = self.inst.weight
        offset = -float(np.dot(w, self.inst.arrival)) if self.flow else 0.0
        self.model.obj = pyo.Objective(expr=linear_expression(w.tolist(), self.C, offset), sense=pyo.minimize)

    # -- (4)-(7) ------------------------------------------------------------------
    def add_arrival(self) -> None:
        """(4) ``x_i >= a_n``: a task starts no earlier than its job's arrival."""
        a = self.inst.arrival[self.inst.task_job].tolist()
        self._rows("arrival", [(a[i], linear_expression([1.0], [self.x[i]]), None) for i in range(self.inst.num_tasks)])

    def add_assign(self) -> None:
        """(5) ``sum_m y_{i,m} = 1``: every task runs on exactly one GPU."""
        ones = [1.0] * self.inst.num_gpus
        self._rows("assign", [(1.0, linear_expression(ones, self.y[i]), 1.0) for i in range(self.inst.num_tasks)])

    def add_completion(self) -> None:
        """(6) ``C_n >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})`` for every task of job ``n``."""
        nj = self.inst.task_job.tolist()
        p = (-(self.task_tc + self.task_ts)).tolist()
        rows = [(0.0, linear_expression([1.0, -1.0] + p[i], [self.C[nj[i]], self.x[i]] + self.y[i]), None)
                for i in range(self.inst.num_tasks)]
        self._rows("completion", rows)

    def add_round_done(self) -> None:
        """(7), first half: ``round_end[n, r] >= x_i + sum_m y_{i,m} (T^c_{i,m} + T^s_{i,m})``
        for every task ``i`` of round ``r < R_n - 1`` of job ``n``.  With ``round_start``
        equivalent to (7)'s pairwise ``x_j >= x_i + proc_i`` (``i`` in round ``r``, ``j``
        in round ``r+1``), with ``2 D`` instead of ``D^2`` rows per round of ``D`` tasks."""
        inst = self.inst
        p = (-(self.task_tc + self.task_ts)).tolist()
        done = []
        for n, r, tasks in self.groups:
            if r < inst.jobs[n].rounds - 1:
                e = self.E[(n, r)]
                done += [(0.0, linear_expression([1.0, -1.0] + p[i], [e, self.x[i]] + self.y[i]), None) for i in tasks]
        self._rows("round_done", done)

    def add_round_start(self) -> None:
        """(7), second half: ``x_j >= round_end[n, r - 1]`` for every task ``j`` of round
        ``r > 0`` of job ``n`` (see :meth:`add_round_done`)."""
        start = []
        for n, r, tasks in self.groups:
            if r > 0:
                e = self.E[(n, r - 1)]
                start += [(0.0, linear_expression([1.0, -1.0], [self.x[j], e]), None) for j in tasks]
        self._rows("round_start", start)

    # -- symmetry breaking ------------------------------------------------------
    def add_sym_task_order(self) -> None:
        """Symmetry breaking (no paper equation; ``models/hare.md`` section 4): tasks ``k`` and
        ``k+1`` of the same (job, round) are identical, so some optimal schedule has
        ``x_k <= x_{k+1}`` (relabel the round's tasks by start time): ``sym_task_order``."""
        idx = [i for _, _, tasks in self.groups for i in tasks[:-1]]
        rows = [(None, linear_expression([1.0, -1.0], [self.x[i], self.x[i + 1]]), 0.0) for i in idx]
        self._rows("sym_task_order", rows)

    def add_sym_gpu_order(self) -> None:
        """Symmetry breaking (no paper equation; ``models/hare.md`` section 4): for consecutive
        GPUs ``m' < m`` of the same type, ``y_{i,m} <= sum_{i' < i} y_{i',m'}`` (``sym_gpu_order``):
        identical GPUs sorted by the smallest task index they run, empty ones last.
        Compatible with ``sym_task_order`` because permuting GPUs changes no start
        time and no task label."""
        rows = []
        N = self.inst.num_tasks
        for mp, g in identical_gpu_pairs(self.inst):
            col = [self.y[k][mp] for k in range(N)]
            for i in range(N):
                rows.append((None, linear_expression([1.0] + [-1.0] * i, [self.y[i][g]] + col[:i]), 0.0))
        self._rows("sym_gpu_order", rows)
    # -- values -----------------------------------------------------------------------
    def extract(self, values: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, gpu)`` of the solution loaded into the solved model ``values`` (this
        builder's :attr:`model`): :meth:`starts` and :meth:`assignment` (the relaxations' point)."""
        if values is not self.model:
            raise ValueError("extract reads the solution loaded into this builder's own model")
        return self.starts(), self.assignment()

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
