"""Bounds on Hare_Sched: the ratio Hare claims and the ratio proven, and
proven lower bounds that scale to the paper's 200 jobs x 160 GPUs (method
``lower-bound``, kind ``bound``).

**Ratios.**  Theorem 4 claims that Algorithm 1 is an
alpha(2 + alpha)-approximation, with
``alpha = max over tasks i of max(T^c_max_i / T^c_min_i, T^s_max_i / T^s_min_i)``
where max/min range over the GPUs of the cluster (the paper's Lemma 3).
A synchronisation ratio 0/0 counts as 1; x/0 with x > 0 makes alpha infinite.
See ``proofs/hare-theorem-4.md`` for the statement, the proof as checked, and
what the tests found (:func:`theorem4_ratio`, :func:`mended_ratio`).

**Lower bounds** (method ``lower-bound``).  Two bounds, both proven in
``models/hare-cp.md`` (section 5) and tested to be at most the optimum on
every small instance (``tests/hare/test_bounds.py``):

* ``critical-path`` -- ``sum_n w_n (a_n + R_n p_n^min)``: no job finishes
  before its rounds have run back to back on its fastest GPU type.
* ``fluid-lp`` -- the LP of an interval-indexed (time-indexed) relaxation at
  *job* level (tasks of a job are identical, so the LP needs no task index):
  how much training of each job runs on each GPU type in each of ``K`` time
  slots, with per-type capacity, per-job parallelism (at most ``D_n`` tasks
  of a job train at once), the mean-busy-time inequality tying completion to
  where the training mass lies, and the round-average critical path (a round
  lasts at least the mean ``p`` of its tasks).  Its size is ``jobs x types x
  K``, independent of the number of rounds and tasks.

The LP is solved by HiGHS's interior-point method without crossover and with
a deterministic iteration limit; the bound reported is not the solver's
objective but a *safe dual bound* (``models/hare-cp.md``, Lemma D): the
Lagrangian value of the solver's duals with every variable at its worse
bound, valid for any dual vector, so neither solver tolerances nor an early
stop can make it exceed the LP optimum.  It also gives a priority (the time
by which the LP has trained a job's round) that :func:`.box.list_incumbent`
turns into a schedule.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:  # scipy is imported where the LP is built (import dmlsched stays fast)
    import scipy.sparse as sp

from ...budget import Budget
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result, Status
from ...solvers import quiet_highs
from .box import chain_horizon, list_incumbent, type_tables
from .instance import HareInstance


def alpha(inst: HareInstance) -> float:
    """Heterogeneity ratio alpha of Lemma 3 (over the GPUs present in the cluster)."""
    tc, ts = inst.tc_type, inst.ts_type  # over the GPU types present (same max/min as over GPUs)
    a = float(np.max(tc.max(axis=1) / tc.min(axis=1)))
    for row in ts:
        lo, hi = float(row.min()), float(row.max())
        if hi == 0.0:
            continue
        a = max(a, math.inf if lo == 0.0 else hi / lo)
    return a


def theorem4_ratio(inst: HareInstance) -> float:
    """The claimed approximation ratio ``alpha * (2 + alpha)`` of Algorithm 1."""
    a = alpha(inst)
    return a * (2.0 + a)


def mended_ratio(inst: HareInstance) -> float:
    """The ratio proven for Algorithm 1 with the Queyranne relaxation.

    ``(3 alpha + 2 - 2/M) * max(1, alpha/2)`` with ``M`` GPUs (3 on one GPU of
    one type; ``5 - 2/M`` for identical GPUs).  Proof: ``proofs/hare-theorem-4.md``,
    section "A proven bound": the mended Lemma 2 (Queyranne inequalities on
    prefixes, relaxed assignment), Lemma 3 for every GPU at once (by induction
    over the list), averaging over the GPUs, and the final scaling step.
    Holds for both readings of line 12 (``placement``).  Requires the
    relaxation solved to optimality (its value at most OPT).
    """
    a = alpha(inst)
    return (3.0 * a + 2.0 - 2.0 / inst.num_gpus) * max(1.0, a / 2.0)

# ---------------------------------------------------------------------------
# lower bounds that scale (method ``lower-bound``; ``models/hare-cp.md`` section 5)

#: bounds the ``bound`` option of ``lower-bound`` chooses from (first: the default)
BOUNDS: tuple[str, ...] = ("best", "critical-path", "fluid-lp")


@dataclass
class Bound:
    """A proven lower bound and where it came from.

    Attributes
    ----------
    name
        ``"critical-path"`` or ``"fluid-lp"``.
    value
        The bound (a lower bound on the optimum of Hare_Sched).
    seconds
        Time spent on it.
    solved
        Whether the LP reached its optimum (the bound is valid either way).
    cut
        Whether the wall clock stopped the LP (then the value depends on load).
    priority
        Per task, the LP time by which its round is trained (``None`` without an LP).
    details
        Sizes, iterations, the LP's own objective, the other bounds' values.
    """

    name: str
    value: float
    seconds: float = 0.0
    solved: bool = True
    cut: bool = False
    priority: np.ndarray | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _job_data(inst: HareInstance) -> dict[str, np.ndarray]:
    types, gpus_of, tc, ts = type_tables(inst)
    p = tc + ts
    R = np.array([j.rounds for j in inst.jobs], dtype=float)
    D = np.array([j.tasks_per_round for j in inst.jobs], dtype=float)
    return {
        "tc": tc, "ts": ts, "p": p, "pmin": p.min(axis=1), "R": R, "D": D, "N": R * D,
        "cap": np.array([len(g) for g in gpus_of], dtype=float), "a": inst.arrival, "w": inst.weight,
    }


def critical_path_bound(inst: HareInstance) -> float:
    """``sum_n w_n (a_n + R_n p_n^min)`` with ``p_n^min = min_t (T^c + T^s)``
    (``models/hare-cp.md``, Lemma P)."""
    d = _job_data(inst)
    return float(np.dot(d["w"], d["a"] + d["R"] * d["pmin"]))


# ---------------------------------------------------------------------------
# the fluid LP


def slot_grid(inst: HareInstance, horizon: float, *, eps: float = 0.05, max_slots: int = 150) -> np.ndarray:
    """Slot boundaries ``tau_0 < tau_1 < ... < tau_{K-1}`` (the last slot is
    ``[tau_{K-1}, inf)``): from the first arrival, lengths
    ``max(delta, eps (tau - tau_0))`` up to ``horizon``; ``delta`` starts at
    half the median fastest round time and grows until at most ``max_slots``
    boundaries are needed.  Any grid gives a valid bound; finer is tighter."""
    d = _job_data(inst)
    t0 = float(d["a"].min())
    span = max(float(horizon) - t0, 1e-9)
    delta = max(float(np.median(d["pmin"])) / 2.0, span / max(1, max_slots - 1))
    while True:
        taus = [t0]
        while taus[-1] < t0 + span and len(taus) <= max_slots:
            taus.append(taus[-1] + max(delta, eps * (taus[-1] - t0)))
        if len(taus) <= max_slots:
            return np.array(taus)
        delta *= 1.25


@dataclass
class FluidLP:
    """The assembled LP ``min c x`` s.t. ``row_lo <= A x <= row_hi``,
    ``lo <= x <= hi`` and the index of its columns (see :func:`build_fluid_lp`)."""

    A: sp.csc_matrix
    c: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_job: np.ndarray
    col_type: np.ndarray
    col_slot: np.ndarray
    taus: np.ndarray


class FluidLpModel(ModelBuilder):
    """The job-level interval-indexed LP (``models/hare-cp.md``, section 5.2) as a sparse
    matrix (:class:`FluidLP`), one block of rows per constraint family.

    Columns: ``u[n,t,k] >= 0``, the training of job ``n`` on type ``t`` in slot
    ``k`` in task units (GPU-time / ``T^c_{n,t}``), for the slots that end
    after ``a_n``; then ``C_n`` in ``[a_n + R_n p_n^min, c_upper_n]``.  Rows (each
    proven in the spec), in the order of :attr:`CONSTRAINTS`.

    Parameters
    ----------
    inst
        The instance.
    taus
        Slot starts (:func:`slot_grid`).
    c_upper
        Upper bounds of the completion times ``C_n``.
    """

    CONSTRAINTS: ClassVar[tuple[str, ...]] = ("mass", "capacity", "parallelism", "mean_busy", "round_path")

    def __init__(self, inst: HareInstance, taus: np.ndarray, c_upper: np.ndarray) -> None:
        self.inst = inst
        self.taus = taus
        self.c_upper = c_upper

    def build(self) -> FluidLP:
        """Create :attr:`model`: the columns (:meth:`add_variables`), the row blocks of
        :attr:`CONSTRAINTS` in order, assembled into one CSC matrix."""
        import scipy.sparse as sp

        self.add_variables()
        self.add_constraints()
        A = sp.csc_matrix((np.concatenate(self._vals), (np.concatenate(self._rows), np.concatenate(self._cols))),
                          shape=(self._r0, len(self._c)))
        self.model = FluidLP(A, self._c, self._lo, self._hi, np.concatenate(self._rlo), np.concatenate(self._rhi),
                             self._cn, self._ct, self._ck, self.taus)
        return self.model

    def add_variables(self) -> None:
        """The columns ``u[n,t,k]`` (in ``[0, N_n]``) and ``C_n`` (in ``[a_n + R_n p_n^min,
        max(c_upper_n, a_n + R_n p_n^min)]``) and the objective ``min sum_n w_n C_n``."""
        d = self._d = _job_data(self.inst)
        taus, a, N = self.taus, d["a"], d["N"]
        J, T, K = self.inst.num_jobs, d["tc"].shape[1], len(taus)
        self._ends = np.append(taus[1:], np.inf)
        k0 = np.maximum(np.searchsorted(taus, a, side="right") - 1, 0)  # slot containing a_n
        cnt = (K - k0) * T
        cn = np.repeat(np.arange(J), cnt)
        local = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        ct = local % T
        ck = k0[cn] + local // T
        nu = len(cn)
        ncol = nu + J
        self._iC = nu + np.arange(J)
        self._t_from = np.maximum(taus[ck], a[cn])
        self._LC = a + d["R"] * d["pmin"]
        self._c = np.zeros(ncol)
        self._c[self._iC] = d["w"]
        self._lo = np.zeros(ncol)
        self._hi = np.empty(ncol)
        self._hi[:nu] = N[cn]
        self._lo[self._iC] = self._LC
        self._hi[self._iC] = np.maximum(self.c_upper, self._LC)
        self._cn, self._ct, self._ck, self._cu = cn, ct, ck, np.arange(nu)
        self._fin = np.flatnonzero(np.isfinite(self._ends[ck]))  # columns of the finite slots
        self._tcu = d["tc"][cn[self._fin], ct[self._fin]]
        self._rows: list[np.ndarray] = []
        self._cols: list[np.ndarray] = []
        self._vals: list[np.ndarray] = []
        self._rlo: list[np.ndarray] = []
        self._rhi: list[np.ndarray] = []
        self._r0 = 0

    def _add(self, rr: np.ndarray, cc: np.ndarray, vv: np.ndarray, lo_: np.ndarray, hi_: np.ndarray) -> None:
        """Append a block of rows (row indices ``rr`` local to the block) with bounds ``lo_ <= row <= hi_``."""
        self._rows.append(self._r0 + rr)
        self._cols.append(cc)
        self._vals.append(vv)
        self._rlo.append(lo_)
        self._rhi.append(hi_)
        self._r0 += len(lo_)

    def add_mass(self) -> None:
        """``mass`` (``models/hare-cp.md`` 5.2): ``sum_{t,k} u[n,t,k] = N_n`` per job."""
        N = self._d["N"]
        self._add(self._cn, self._cu, np.ones(len(self._cu)), N, N)

    def add_capacity(self) -> None:
        """``capacity`` (``models/hare-cp.md`` 5.2): ``sum_n T^c_{n,t} u[n,t,k] <= k_t |slot k|``
        per type and finite slot."""
        K, fin = len(self.taus), self._fin
        key, inv = np.unique(self._ct[fin] * K + self._ck[fin], return_inverse=True)
        kk = key % K
        self._add(inv, fin, self._tcu, np.full(len(key), -np.inf),
                  self._d["cap"][key // K] * (self._ends[kk] - self.taus[kk]))

    def add_parallelism(self) -> None:
        """``parallelism`` (``models/hare-cp.md`` 5.2): ``sum_t T^c_{n,t} u[n,t,k] <= D_n
        (tau_{k+1} - max(tau_k, a_n))`` per job and finite slot."""
        K, fin, taus = len(self.taus), self._fin, self.taus
        key, inv = np.unique(self._cn[fin] * K + self._ck[fin], return_inverse=True)
        nn, kk = key // K, key % K
        self._add(inv, fin, self._tcu, np.full(len(key), -np.inf),
                  self._d["D"][nn] * (self._ends[kk] - np.maximum(taus[kk], self._d["a"][nn])))

    def add_mean_busy(self) -> None:
        """``mean_busy`` (``models/hare-cp.md`` 5.2): ``sum u (theta + T^s + T^c/2) / N_n - C_n
        <= -p_n^min (R_n - 1) / 2`` per job."""
        d, cn, ct = self._d, self._cn, self._ct
        J = self.inst.num_jobs
        coef = (self._t_from + d["ts"][cn, ct] + d["tc"][cn, ct] / 2.0) / d["N"][cn]
        self._add(np.r_[cn, np.arange(J)], np.r_[self._cu, self._iC], np.r_[coef, -np.ones(J)],
                  np.full(J, -np.inf), -d["pmin"] * (d["R"] - 1) / 2.0)

    def add_round_path(self) -> None:
        """``round_path``, the round-average critical path (``models/hare-cp.md`` 5.2):
        ``sum u (p_{n,t} - p_n^min) / D_n - C_n <= -(a_n + R_n p_n^min)`` per job (only the
        columns with a positive coefficient)."""
        d, cn, ct = self._d, self._cn, self._ct
        J = self.inst.num_jobs
        coef = (d["p"][cn, ct] - d["pmin"][cn]) / d["D"][cn]
        keep = coef > 0
        self._add(np.r_[cn[keep], np.arange(J)], np.r_[self._cu[keep], self._iC], np.r_[coef[keep], -np.ones(J)],
                  np.full(J, -np.inf), -self._LC)

    def extract(self, values: np.ndarray) -> np.ndarray:
        """The priority of every task (:func:`lp_priority`) from the LP's primal values ``values``."""
        return lp_priority(self.inst, self.model, values)


def build_fluid_lp(inst: HareInstance, taus: np.ndarray, c_upper: np.ndarray) -> FluidLP:
    """The job-level interval-indexed LP (``models/hare-cp.md``, section 5.2), built by
    :class:`FluidLpModel`: mass ``sum_{t,k} u = R_n D_n``; type capacity
    ``sum_n T^c_{n,t} u[n,t,k] <= k_t |slot k|``; job parallelism
    ``sum_t T^c_{n,t} u[n,t,k] <= D_n |slot k after a_n|``; mean busy time
    ``C_n >= sum_{t,k} u (max(tau_k, a_n) + T^s_{n,t} + T^c_{n,t}/2) / N_n +
    p_n^min (R_n - 1)/2``; round-average critical path ``C_n >= a_n +
    R_n p_n^min + sum_{t,k} u (p_{n,t} - p_n^min) / D_n``.
    """
    return FluidLpModel(inst, taus, c_upper).build()


def safe_dual_bound(lp: FluidLP, y: np.ndarray) -> float:
    """A lower bound on ``min c x`` over ``{row_lo <= A x <= row_hi, lo <= x <= hi}``
    from any row multipliers ``y`` (``models/hare-cp.md``, Lemma D).

    Multipliers that point at an infinite side are set to zero; then
    ``c x = (c - A^T y) x + y A x >= sum_j min(d_j lo_j, d_j hi_j) + sum_r
    (y_r row_lo_r if y_r > 0 else y_r row_hi_r)``.  The sum is taken with
    :func:`math.fsum` and lowered by ``1e-9`` of its absolute terms for the
    floating-point rounding of the products.
    """
    y = np.asarray(y, dtype=float).copy()
    y[(y > 0) & ~np.isfinite(lp.row_lo)] = 0.0
    y[(y < 0) & ~np.isfinite(lp.row_hi)] = 0.0
    rterms = np.where(y > 0, y * np.where(np.isfinite(lp.row_lo), lp.row_lo, 0.0),
                      y * np.where(np.isfinite(lp.row_hi), lp.row_hi, 0.0))
    dcost = lp.c - lp.A.T @ y
    if np.any((dcost < 0) & ~np.isfinite(lp.hi)) or np.any((dcost > 0) & ~np.isfinite(lp.lo)):
        return -math.inf
    cterms = np.where(dcost >= 0, dcost * lp.lo, dcost * lp.hi)
    terms = np.concatenate([rterms, cterms])
    return math.fsum(terms.tolist()) - 1e-9 * float(np.abs(terms).sum())


def _solve_ipm(lp: FluidLP, iteration_limit: int,
               budget: Budget | None = None) -> tuple[np.ndarray | None, np.ndarray | None, dict]:
    """HiGHS's interior point on ``lp`` (no crossover, ``iteration_limit`` iterations;
    HiGHS's ``time_limit`` is ``budget.remaining()``, at least 0.01 s):
    ``(duals, primal, info)``."""
    import highspy

    h = quiet_highs()  # output off, and no banner on descriptor 1 (standard output)
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    h.setOptionValue("ipm_iteration_limit", int(iteration_limit))
    h.setOptionValue("random_seed", 0)
    rem = budget.remaining() if budget is not None else None
    if rem is not None:
        h.setOptionValue("time_limit", max(float(rem), 0.01))
    m = highspy.HighsLp()
    m.num_col_, m.num_row_ = lp.A.shape[1], lp.A.shape[0]
    inf = highspy.kHighsInf
    m.col_cost_ = lp.c
    m.col_lower_ = lp.lo
    m.col_upper_ = np.where(np.isfinite(lp.hi), lp.hi, inf)
    m.row_lower_ = np.where(np.isfinite(lp.row_lo), lp.row_lo, -inf)
    m.row_upper_ = np.where(np.isfinite(lp.row_hi), lp.row_hi, inf)
    m.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    m.a_matrix_.start_ = lp.A.indptr
    m.a_matrix_.index_ = lp.A.indices
    m.a_matrix_.value_ = lp.A.data
    m.a_matrix_.num_col_, m.a_matrix_.num_row_ = lp.A.shape[1], lp.A.shape[0]
    h.passModel(m)
    h.run()
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    sol = h.getSolution()
    out = {"lp_status": status, "ipm_iterations": int(info.ipm_iteration_count),
           "lp_objective": float(info.objective_function_value)}
    y = np.array(sol.row_dual, dtype=float) if sol.dual_valid else None
    x = np.array(sol.col_value, dtype=float) if sol.value_valid else None
    return y, x, out


def lp_priority(inst: HareInstance, lp: FluidLP, x: np.ndarray) -> np.ndarray:
    """Per task ``(n, r, k)``: the time by which the LP solution ``x`` has
    trained ``(r + 1/2) D_n`` tasks of job ``n`` (training spread evenly over
    each slot).  A heuristic order only; the bound does not depend on it."""
    J = inst.num_jobs
    K = len(lp.taus)
    nu = len(lp.col_job)
    mass = np.zeros((J, K))
    np.add.at(mass, (lp.col_job, lp.col_slot), np.maximum(x[:nu], 0.0))
    cum = np.cumsum(mass, axis=1)
    starts = lp.taus
    lens = np.append(np.diff(lp.taus), np.median(np.diff(lp.taus)) if K > 1 else 1.0)
    D = np.array([j.tasks_per_round for j in inst.jobs], dtype=float)
    nj, rr = inst.task_job, inst.task_round
    target = (rr + 0.5) * D[nj]
    pr = np.empty(inst.num_tasks)
    for n in range(J):
        idx = np.flatnonzero(nj == n)
        k = np.minimum(np.searchsorted(cum[n], target[idx] - 1e-9), K - 1)
        before = np.where(k > 0, cum[n][np.maximum(k - 1, 0)], 0.0)
        frac = np.clip((target[idx] - before) / np.maximum(mass[n][k], 1e-12), 0.0, 1.0)
        pr[idx] = np.maximum(starts[k] + frac * lens[k], inst.arrival[n])
    return pr


def fluid_lp_bound(inst: HareInstance, *, horizon: float | None = None, c_upper: np.ndarray | None = None,
                   eps: float = 0.05, max_slots: int = 150, iteration_limit: int = 200,
                   budget: Budget | None = None) -> Bound:
    """The fluid LP bound (``models/hare-cp.md``, Theorem F), with a safe dual bound.

    ``horizon`` (default: the makespan of :func:`.box.list_incumbent`'s
    schedule) ends the finite slots; ``c_upper`` caps ``C_n`` (default: the
    chain bound of Lemma B, valid for semi-active schedules); ``budget``: the
    wall clock of the LP solve (a safety net; ``Bound.cut`` when it stops it).
    """
    t0 = time.perf_counter()
    if horizon is None:
        inc, _, _ = list_incumbent(inst)
        horizon = float((inc.start + inst.tc[inst.task_job, inc.gpu]).max())
    if c_upper is None:
        c_upper = np.full(inst.num_jobs, chain_horizon(inst))
    taus = slot_grid(inst, horizon, eps=eps, max_slots=max_slots)
    lp = build_fluid_lp(inst, taus, c_upper)
    t_build = time.perf_counter() - t0
    y, x, info = _solve_ipm(lp, iteration_limit, budget)
    cp_val = critical_path_bound(inst)
    value = safe_dual_bound(lp, y) if y is not None else -math.inf
    solved = info["lp_status"] == "Optimal"
    cut = info["lp_status"] == "Time limit reached"
    pr = lp_priority(inst, lp, x) if x is not None else None
    details = {"slots": len(taus), "columns": lp.A.shape[1], "rows": lp.A.shape[0], "nonzeros": lp.A.nnz,
               "build_s": t_build, "safe_bound": value, **info}
    return Bound("fluid-lp", max(value, cp_val), time.perf_counter() - t0, solved=solved, cut=cut,
                 priority=pr, details=details)


def fluid_lp_memory(inst: HareInstance, max_slots: int = 150) -> float:
    """Bytes the fluid LP needs, about: ~6 nonzeros per column at ~200 bytes
    each in the sparse matrix, HiGHS's copy and the IPM's factor."""
    return 6 * 200.0 * inst.num_jobs * len(inst.gpu_types) * max_slots + 32 * 2**20


def best_lower_bound(inst: HareInstance, *, budget: Budget | None = None, eps: float = 0.05,
                     max_slots: int = 150, iteration_limit: int = 200, which: str = "best",
                     horizon: float | None = None) -> Bound:
    """The best of the bounds of this module that fit the budget (always at
    least the critical path); ``which`` restricts to one (:data:`BOUNDS`);
    ``horizon`` as for :func:`fluid_lp_bound`."""
    t0 = time.perf_counter()
    cpv = critical_path_bound(inst)
    best = Bound("critical-path", cpv, time.perf_counter() - t0, details={"critical-path": cpv})
    if which == "critical-path":
        return best
    if budget is not None and budget.stop():
        best.cut = True
        return best
    f = fluid_lp_bound(inst, horizon=horizon, eps=eps, max_slots=max_slots, iteration_limit=iteration_limit,
                       budget=budget)
    f.details["critical-path"] = cpv
    if which == "fluid-lp" or f.value >= best.value:
        return f
    best.priority, best.cut = f.priority, f.cut
    best.details.update({"fluid-lp": f.value, **{f"lp_{k}": v for k, v in f.details.items()}})
    return best


@method(
    "hare",
    "lower-bound",
    kind="bound",
    description="proven lower bounds that scale: critical path and a job-level interval-indexed LP (models/hare-cp.md)",
    options=[
        Option("bound", str, "best", "which bound: the best of them, or one", choices=BOUNDS),
        Option("eps", float, 0.05, "relative growth of the LP's time slots (smaller: tighter, slower)", minimum=0.0),
        Option("max_slots", int, 150, "most time slots of the LP", minimum=2),
        Option("iteration_limit", int, 200, "interior-point iterations (deterministic work limit)", minimum=1),
    ],
)
def solve_lower_bound(inst: HareInstance, run: Run) -> Result:
    """A proven lower bound on the optimum (``models/hare-cp.md``, section 5).

    Status ``optimal`` when the chosen bound was computed to its end (the LP
    solved), ``feasible`` when the LP stopped early (the bound is valid either
    way, only weaker).
    """
    o = run.options
    if o["bound"] != "critical-path":
        run.require(memory_bytes=fluid_lp_memory(inst, o["max_slots"]), what="the fluid LP")
    with run.stage("bound"):
        b = best_lower_bound(inst, budget=run.budget, eps=o["eps"], max_slots=o["max_slots"],
                             iteration_limit=o["iteration_limit"], which=o["bound"])
    if b.cut:
        run.cut("fluid LP")
    status = Status.OPTIMAL if (b.solved and not b.cut) else Status.FEASIBLE
    return run.result(bound=b.value, objective=b.value, status=status, bound_name=b.name,
                      bound_seconds=b.seconds, **{k: v for k, v in b.details.items() if k not in ("build_s",)})
