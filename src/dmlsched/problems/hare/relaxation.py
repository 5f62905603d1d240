"""The relaxations of Hare_Sched (Hare, HPDC'22, Section 5.2, Step 1):
Hare_Sched_RL ((4)-(7) + (9)) and the full Queyranne relaxation.  RL is
solved by default by decomposition by job (:mod:`.decomposition`, a proven
bound and a checked point with the gap between them); both by outer
approximation (a sequence of MILP masters with tangent cuts: the exact
per-GPU model, also the cross-check on small instances); (9) as a non-convex
MIQCP for Gurobi.

Specification with proofs: ``models/hare.md`` sections 5-7,
``models/hare-decomposition.md``.

**Deterministic work limits.**  Algorithm 1 (``list``) and its variants
solve a relaxation and their schedule depends on where that solve stops.  So
that the same instance, options and seed give the same schedule at any
machine load, the solve is bounded by work, not time: the decomposition's
pricing rounds, MILP nodes, search moves and LPs; the outer approximation's
at most ``oa_iterations`` masters, each with at most ``master_nodes``
branch-and-bound nodes (HiGHS ``mip_max_nodes``, Gurobi ``NodeLimit``), and at
most ``repair_rounds`` LPs for the fixed-assignment repair.  The wall-clock
deadline stays as a safety net; when it cuts a solve, the result says so
(``details["deadline_cut"]``, and ``run.cut`` marks the method's result not
reproducible).

Method registered here: ``relaxation`` (kind ``bound``).
:func:`solve_relaxation` is the interface Algorithm 1 (:mod:`.heuristics`)
uses.  The plain check of a relaxed solution, :func:`check_relaxed`, lives in
:mod:`.relaxcheck` (the decomposition uses it too) and is re-exported here.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...budget import Budget
from ...errors import InvalidSolutionError, SolverError
from ...kit import Option, OptionError, Run, method
from ...result import Result, Status
from ...tolerance import TOL
from . import decomposition as dec
from . import gpupoint
from .box import Horizon, horizon
from .formulation import HareFormulation, initial_cut_loads, linear_expression, model_size
from .instance import HareInstance, to_dict
from .relaxcheck import check_relaxed

#: default deterministic work limits of the relaxation solve (see the module docstring)
DEFAULT_OA_ITERATIONS = 20
#: default branch-and-bound nodes per master: ``max(1, MASTER_WORK // nonzeros of the master)``
#: (a deterministic budget that lets small masters be solved to optimality and
#: keeps large ones, whose nodes are expensive, to a few nodes)
MASTER_WORK = 5_000_000
DEFAULT_MASTER_NODES: int | None = None
DEFAULT_REPAIR_ROUNDS = 50
#: masters larger than this (nonzeros, :func:`~.formulation.model_size`) are not built
DEFAULT_MAX_MASTER_NONZEROS = 500_000
#: the decomposition hands an open gap to the outer approximation up to this master size (nonzeros)
DEFAULT_OA_CHECK_NONZEROS = 20_000

#: options shared by ``relaxation`` and every method that solves one
RELAXATION_OPTIONS: tuple[Option, ...] = (
    Option("box", str, "relaxation",
           "start-time box: one containing an optimum of the relaxation as written (relaxation) "
           "or of the schedule (schedule, tighter)", choices=("relaxation", "schedule")),
    Option("formulation", str, None, "decomposition (by job, with a certified gap; rl only), oa (outer "
           "approximation) or miqcp ((9) as written, Gurobi only); default: decomposition for rl with highs, "
           "miqcp for rl with gurobi, oa for queyranne", choices=(None, "decomposition", "oa", "miqcp")),
    Option("symmetry", bool, True, "order identical GPUs by their first task"),
    Option("oa_iterations", int, DEFAULT_OA_ITERATIONS,
           "deterministic limit: at most this many outer-approximation masters", minimum=1),
    Option("master_nodes", int, DEFAULT_MASTER_NODES,
           f"deterministic limit: branch-and-bound nodes per master (default: {MASTER_WORK:.0e} / nonzeros "
           "of the master, at least 1)", minimum=1),
    Option("repair_rounds", int, DEFAULT_REPAIR_ROUNDS,
           "deterministic limit: LPs of the fixed-assignment repair", minimum=1),
    Option("max_master_nonzeros", int, DEFAULT_MAX_MASTER_NONZEROS,
           "deterministic limit: a larger outer-approximation master is not built (x^ then comes from the "
           "decomposition, repaired for queyranne, or the box's heuristic schedule)", minimum=0),
    Option("pricing_rounds", int, dec.DEFAULT_PRICING_ROUNDS,
           "deterministic limit: column-generation rounds of the decomposition", minimum=1),
    Option("milp_nodes", int, dec.DEFAULT_MILP_NODES,
           "deterministic limit: branch-and-bound nodes of the decomposition's segment MILP", minimum=1),
    Option("search_moves", int, gpupoint.DEFAULT_SEARCH_MOVES,
           "deterministic limit: balancing moves per round of the decomposition's GPU-level search", minimum=0),
    Option("search_lps", int, gpupoint.DEFAULT_SEARCH_LPS,
           "deterministic limit: fixed-assignment LPs of the decomposition's GPU-level search", minimum=0),
    Option("oa_check_nonzeros", int, DEFAULT_OA_CHECK_NONZEROS,
           "with the decomposition: when its gap is open, the outer approximation (the exact per-GPU model) "
           "also runs if its master has at most this many nonzeros (0: never)", minimum=0),
)

#: the deterministic work limits of the decomposition (options of the same names)
DECOMPOSITION_LIMITS = ("pricing_rounds", "milp_nodes", "search_moves", "search_lps", "oa_check_nonzeros")

#: provenance of x^ (``details["x_hat"]["source"]``) by candidate and relaxation kind
X_HAT_SOURCES = {
    ("decomposition", "rl"): "rl-decomposition",
    ("queyranne-repair", "queyranne"): "queyranne-repair",
    ("master", "rl"): "rl-outer-approximation",
    ("fixed_assignment", "rl"): "rl-outer-approximation",
    ("master", "queyranne"): "queyranne-outer-approximation",
    ("fixed_assignment", "queyranne"): "queyranne-outer-approximation",
    ("solver", "rl"): "rl-miqcp",
    ("heuristic", "rl"): "box-heuristic",
    ("heuristic", "queyranne"): "box-heuristic",
}


@dataclass
class RelaxationResult:
    """Outcome of :func:`solve_relaxation`.

    Attributes
    ----------
    status
        ``optimal``: the relaxation was solved to proven optimality and its
        solution satisfies every constraint of the relaxation (checked by
        :func:`check_relaxed`).  ``feasible``: a limit (work or time) stopped
        the solve; ``x_hat``/``y_hat`` is the best checked relaxed point found
        (the last master's solution if it passes the check, the same
        assignment re-timed by an LP that enforces the relaxation exactly, or
        the box's heuristic incumbent, which satisfies every relaxation
        constraint), not proven optimal; ``details["x_hat_source"]`` says
        which.  ``time_limit``: no checked point.
    value
        ``sum_n w_n C_n`` recomputed from ``x_hat``, ``y_hat`` (``None`` without them).
    lower_bound
        A proven lower bound on Hare_Sched's optimum (``None`` if none was proven).
    x_hat, y_hat
        Start time and GPU index of every task in the relaxed solution.
    details
        Iterations, cuts, limits hit (``work_limit``: a deterministic limit
        stopped the solve; ``deadline_cut``: the wall clock did).
    """

    status: Status
    value: float | None
    lower_bound: float | None
    x_hat: np.ndarray | None
    y_hat: np.ndarray | None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def reproducible(self) -> bool:
        """Whether no wall-clock limit cut the solve."""
        return not self.details.get("deadline_cut")


# ---------------------------------------------------------------------------
# models


class HareRelaxationMaster(HareFormulation):
    """Outer-approximation master of Hare_Sched_RL / Queyranne (a MILP; ``models/hare.md`` section 5):
    the shared formulation (:class:`~.formulation.HareFormulation`), the McCormick products
    ``z = y x`` and the ``oa_cuts`` list of tangent cuts of (9)/(Queyranne).

    Parameters
    ----------
    inst, box, gpu_symmetry
        As :class:`~.formulation.HareFormulation`.
    initial_cuts
        Tangents of (9) per GPU at evenly spaced loads (plus the box incumbent's load)
        that ``oa_cuts`` starts with.

    Attributes
    ----------
    z
        ``z[i][m]``: the product variables, once built.
    cut_keys
        ``(gpu, subset, load)`` of every cut in ``oa_cuts`` (:meth:`tangent_cut` adds none twice).
    initial_cuts
        Number of cuts ``oa_cuts`` held when built.
    """

    #: the constraint families of the master, added after the shared ones
    OWN: ClassVar[tuple[str, ...]] = ("mc_lo_y", "mc_up_y", "mc_lo_x", "mc_up_x", "oa_cuts")
    CONSTRAINTS: ClassVar[tuple[str, ...]] = HareFormulation.CONSTRAINTS + OWN

    def __init__(self, inst: HareInstance, box: Horizon, *, gpu_symmetry: bool = True, initial_cuts: int = 8):
        super().__init__(inst, box, gpu_symmetry=gpu_symmetry)
        self.cuts_per_gpu = initial_cuts
        self.z: list[list[Any]] = []
        self.cut_keys: set[tuple] = set()
        self.initial_cuts = 0

    def build(self) -> Any:
        """Create :attr:`model`: the shared part (:meth:`~.formulation.HareFormulation.build_shared`),
        the product variables ``z``, then the McCormick rows and ``oa_cuts``."""
        self.build_shared()
        self.add_product_variables()
        self.add_constraints(self.OWN)
        return self.model

    def add_product_variables(self) -> None:
        """``z[i,m] >= 0``, the product ``y_{i,m} x_i`` of (9) (made exact by the McCormick rows)."""
        pyo = self.pyo
        mdl = self.model
        N, M = self.inst.num_tasks, self.inst.num_gpus
        mdl.z = pyo.Var(mdl.TASKS, mdl.GPUS, within=pyo.NonNegativeReals)
        self.z = [[mdl.z[i, g] for g in range(M)] for i in range(N)]

    def _mccormick(self, name: str, row: Any) -> None:
        """Constraint ``name`` with ``row(i, m)`` for every task ``i`` and GPU ``m`` (task-major)."""
        N, M = self.inst.num_tasks, self.inst.num_gpus
        self._rows(name, [row(i, g) for i in range(N) for g in range(M)])

    def add_mc_lo_y(self) -> None:
        """McCormick row of the products ``y_{i,m} x_i`` of (9) (``models/hare.md`` section 5):
        ``mc_lo_y``: ``z >= L_i y`` (with the other three, ``z = y x`` exactly for binary ``y``
        and ``L_i <= x_i <= U_i``)."""
        L = self.box.lower.tolist()
        y, z = self.y, self.z
        self._mccormick("mc_lo_y", lambda i, g: (0.0, linear_expression([1.0, -L[i]], [z[i][g], y[i][g]]), None))

    def add_mc_up_y(self) -> None:
        """McCormick row of the products of (9): ``mc_up_y``: ``z <= U_i y``."""
        U = self.box.upper.tolist()
        y, z = self.y, self.z
        self._mccormick("mc_up_y", lambda i, g: (None, linear_expression([1.0, -U[i]], [z[i][g], y[i][g]]), 0.0))

    def add_mc_lo_x(self) -> None:
        """McCormick row of the products of (9): ``mc_lo_x``: ``z >= x_i - U_i (1 - y)``."""
        U = self.box.upper.tolist()
        x, y, z = self.x, self.y, self.z
        self._mccormick("mc_lo_x", lambda i, g: (
            -U[i], linear_expression([1.0, -1.0, -U[i]], [z[i][g], x[i], y[i][g]]), None))

    def add_mc_up_x(self) -> None:
        """McCormick row of the products of (9): ``mc_up_x``: ``z <= x_i - L_i (1 - y)``."""
        L = self.box.lower.tolist()
        x, y, z = self.x, self.y, self.z
        self._mccormick("mc_up_x", lambda i, g: (
            None, linear_expression([1.0, -1.0, -L[i]], [z[i][g], x[i], y[i][g]]), -L[i]))

    def add_oa_cuts(self) -> None:
        """``oa_cuts``: tangent cuts of (9) per GPU at ``initial_cuts`` evenly spaced loads and
        at the box incumbent's load (see :meth:`tangent_cut`); separation adds more."""
        pyo = self.pyo
        self.model.oa_cuts = pyo.ConstraintList()
        all_tasks = list(range(self.inst.num_tasks))
        for g, s0 in initial_cut_loads(self.inst, self.box, self.cuts_per_gpu):
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
        self.model.oa_cuts.add((-0.5 * s0 * s0, linear_expression(coefs, vs), None))
        return True


class HareRlMiqcp(HareFormulation):
    """Hare_Sched_RL with (9) as the paper writes it (``models/hare.md`` section 5): the shared
    formulation (:class:`~.formulation.HareFormulation`) and ``rl_quadratic[m]``, a non-convex
    quadratic constraint (bilinear ``y x``) for Gurobi's MIQCP.  Parameters as the base class."""

    #: the constraint family of (9), added after the shared ones
    OWN: ClassVar[tuple[str, ...]] = ("rl_quadratic",)
    CONSTRAINTS: ClassVar[tuple[str, ...]] = HareFormulation.CONSTRAINTS + OWN

    def build(self) -> Any:
        """Create :attr:`model`: the shared part, then ``rl_quadratic``."""
        self.build_shared()
        self.add_constraints(self.OWN)
        return self.model

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


def build_relaxation_master(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True,
                            initial_cuts: int = 8) -> HareRelaxationMaster:
    """Outer-approximation master of Hare_Sched_RL / Queyranne (a MILP), built
    (:class:`HareRelaxationMaster`): base model ((4)-(7), symmetry breaking), McCormick
    ``z = y x``, and the ``oa_cuts`` list of tangent cuts of (9)/(Queyranne)
    (:meth:`HareRelaxationMaster.tangent_cut`), initialised with ``initial_cuts``
    tangents of (9) per GPU at evenly spaced loads and at the box incumbent's load.
    Returns the builder (``.model`` is the Pyomo model).
    """
    f = HareRelaxationMaster(inst, hz or horizon(inst), gpu_symmetry=gpu_symmetry, initial_cuts=initial_cuts)
    f.build()
    return f


def build_rl_miqcp(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True) -> HareRlMiqcp:
    """Hare_Sched_RL with (9) as the paper writes it, built (:class:`HareRlMiqcp`);
    returns the builder."""
    f = HareRlMiqcp(inst, hz or horizon(inst), gpu_symmetry=gpu_symmetry)
    f.build()
    return f


def separate(f: HareRelaxationMaster, kind: str, x: np.ndarray, gpu: np.ndarray, tol: float) -> tuple[int, int, float]:
    """Add violated cuts at the master's point; returns (cuts added, duplicates, max rel. violation)."""
    inst = f.inst
    nj = inst.task_job
    added = dup = 0
    worst = 0.0
    for g in range(inst.num_gpus):
        on = np.flatnonzero(gpu == g)
        if len(on) == 0:
            continue
        p = inst.tc[nj[on], g]
        if kind == "rl":
            lhs = float(np.sum(p * (x[on] + p)))
            s = float(p.sum())
            rhs = 0.5 * (s * s + float(np.sum(p * p)))
            rel = (rhs - lhs) / max(1.0, abs(lhs), abs(rhs))
            worst = max(worst, rel)
            if rel > tol:
                if f.tangent_cut(g, list(range(inst.num_tasks)), s):
                    added += 1
                else:
                    dup += 1
        else:
            order = on[np.lexsort((on, x[on]))]
            ps = inst.tc[nj[order], g]
            lhs = np.cumsum(ps * x[order])
            cs = np.cumsum(ps)
            rhs = 0.5 * (cs**2 - np.cumsum(ps * ps))
            scale = np.maximum(1.0, np.maximum(np.abs(lhs), np.abs(rhs)))
            rel = (rhs - lhs) / scale
            worst = max(worst, float(rel.max()))
            for k in np.flatnonzero(rel > tol).tolist():
                subset = sorted(order[: k + 1].tolist())
                if f.tangent_cut(g, subset, float(cs[k])):
                    added += 1
                else:
                    dup += 1
    return added, dup, worst


# ---------------------------------------------------------------------------
# solving


def _cut(run: Run, details: dict[str, Any], what: str) -> None:
    """Record that the wall clock cut ``what``: in ``details["deadline_cut"]`` (the result is not
    cached) and on the run (its result is not reproducible)."""
    cuts = details.setdefault("deadline_cut", [])
    if what not in cuts:
        cuts.append(what)
    run.cut(what)


def _solve(run: Run, details: dict[str, Any], model: Any, *, work_limit: dict | None, what: str,
           budget: Budget | None = None) -> Any:
    """One solver call of a relaxation solve, through :meth:`Run.solve_model` (the run's solver,
    seed, threads, solver options and display; ``budget``, default the run's, as the deadline);
    a time or work limit that stops it is recorded in ``details``."""
    out = run.solve_model(model, work_limit=work_limit, budget=budget or run.budget, what=what)
    if out.limit == "time":
        _cut(run, details, what)
    elif out.limit == "work":
        details["work_limit"] = True
    return out


def solve_relaxation(inst: HareInstance, run: Run, *, kind: str = "rl") -> RelaxationResult:
    """Solve Hare_Sched_RL (``kind="rl"``) or the Queyranne relaxation (``kind="queyranne"``).

    Parameters
    ----------
    inst
        The instance.
    run
        The calling method's :class:`~dmlsched.kit.Run` (``relaxation``,
        ``list``, ``list-queyranne``, ``list-eft``), or a library caller's
        :meth:`~dmlsched.kit.Run.standalone` run of one of them.  Its solver
        (``"highs"`` or ``"gurobi"``), seed, budget (a wall-clock safety net;
        a cut is recorded in ``details["deadline_cut"]`` and on the run) and
        the relaxation options (:data:`RELAXATION_OPTIONS`, and
        ``horizon_scale`` where declared) say how the relaxation is solved;
        every solver call goes through :meth:`Run.solve_model`.
    kind
        ``"rl"``: (4)-(7) and (9) per GPU (the paper's Hare_Sched_RL);
        ``"queyranne"``: (4)-(7) and Queyranne's inequality for every subset of
        tasks on every GPU (tighter: (9) is the subset of all tasks).

    Notes
    -----
    The options read from ``run.options``:

    ``formulation``
        ``"decomposition"`` (by job, :mod:`.decomposition`: a certified
        lower bound and a checked point, the default for ``kind="rl"`` with
        HiGHS), ``"oa"`` (outer approximation: a sequence of MILP masters
        with tangent cuts, the default for ``"queyranne"``, the cross-check on
        small instances) or ``"miqcp"`` ((9) handed to Gurobi as a quadratic
        constraint; default for ``kind="rl"`` with Gurobi).
    ``oa_iterations``, ``master_nodes``, ``repair_rounds``, ``max_master_nonzeros``
        Deterministic work limits of the outer approximation (module
        docstring).  A master with more nonzeros than
        ``max_master_nonzeros`` is not built (``details["skipped"]`` says
        why).  For ``"queyranne"`` the decomposition's RL point re-timed to
        satisfy every subset inequality (:func:`~.decomposition.retime`,
        ``queyranne-repair``) is always a candidate too, and the
        decomposition's bound counts (RL is weaker than Queyranne's
        relaxation).
    ``pricing_rounds``, ``milp_nodes``, ``search_moves``, ``search_lps``, ``oa_check_nonzeros``
        Deterministic work limits of the decomposition
        (:func:`~.decomposition.solve_decomposition`).
    ``symmetry``
        Order identical GPUs by their first task.
    ``horizon_scale``
        Widening factor of the start-time box (:func:`~.box.horizon`; an
        option of ``relaxation`` only, for tests; 1 otherwise).
    ``box``
        ``"relaxation"`` (default): a box containing an optimum of the
        relaxation as the paper writes it (no box), so ``x̂`` and the value are
        those of the literal relaxation and Algorithm 1 is run exactly as
        written; ``"schedule"``: the tighter box containing an optimal
        *schedule* (the exact model's), which gives a valid and often larger
        lower bound but may change ``x̂``.
    ``solver_options``
        Passed to the solver (``NonConvex=2`` is added for ``miqcp``).

    Returns
    -------
    RelaxationResult
        ``lower_bound`` is the best proven bound of any master (every master
        relaxes the relaxation, which relaxes Hare_Sched restricted to a box
        containing an optimum).
    """
    o = run.options
    solver = run.solver or "highs"
    formulation, box, gpu_symmetry = o["formulation"], o["box"], o["symmetry"]
    horizon_scale = o.get("horizon_scale", 1.0)
    if kind not in ("rl", "queyranne"):  # a parameter here: the methods pass their checked option
        raise OptionError("relaxation", f"must be 'rl' or 'queyranne', got {kind!r}")
    if formulation is None:
        formulation = "oa" if kind == "queyranne" else ("miqcp" if solver == "gurobi" else "decomposition")
    if formulation == "miqcp" and (solver != "gurobi" or kind != "rl"):
        raise SolverError("formulation 'miqcp' needs solver='gurobi' and kind='rl'")
    if formulation == "decomposition" and kind != "rl":
        raise SolverError("formulation 'decomposition' solves kind='rl' (queyranne: its repair is a candidate of 'oa')")
    limits = {k: o[k] for k in ("oa_iterations", "master_nodes", "repair_rounds", "max_master_nonzeros",
                                "pricing_rounds", "milp_nodes", "search_moves", "search_lps", "oa_check_nonzeros")}
    solver_options = o.get("solver_options")
    key = _cache_key(inst, kind, solver, run.seed, formulation, gpu_symmetry, horizon_scale, box, solver_options,
                     limits)
    hit = _CACHE.get(key) if key is not None else None
    if hit is not None:
        details = dict(hit.details, cached=True)
        return RelaxationResult(hit.status, hit.value, hit.lower_bound, hit.x_hat.copy() if hit.x_hat is not None
                                else None, hit.y_hat.copy() if hit.y_hat is not None else None, details)
    rel = _solve_relaxation(inst, run, kind, formulation, gpu_symmetry, horizon_scale, box, limits)
    if key is not None and rel.reproducible:
        _CACHE[key] = rel
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
    return rel


#: reproducible relaxation results by (instance, options): Algorithm 1's readings and
#: variants on one instance share one solve (the solve is deterministic)
_CACHE: dict[tuple, RelaxationResult] = {}
_CACHE_SIZE = 16


def clear_relaxation_cache() -> None:
    """Forget the cached relaxation results (tests of determinism call it)."""
    _CACHE.clear()


def _cache_key(inst: HareInstance, *args: Any) -> tuple | None:
    try:
        d = to_dict(inst)
        d.pop("name", None)
        d.pop("expected", None)
        blob = json.dumps([d, [repr(a) for a in args]], sort_keys=True, default=repr).encode()
    except (TypeError, ValueError):  # pragma: no cover - unhashable options: no caching
        return None
    return (hashlib.sha256(blob).hexdigest(),)


def _solve_relaxation(inst: HareInstance, run: Run, kind: str, formulation: str, gpu_symmetry: bool,
                      horizon_scale: float, box: str, limits: dict[str, int]) -> RelaxationResult:
    oa_iterations, master_nodes = limits["oa_iterations"], limits["master_nodes"]
    repair_rounds = limits["repair_rounds"]
    dl = run.budget
    details: dict[str, Any] = {"kind": kind, "formulation": formulation, "solver": run.solver or "highs",
                               "box": box, "work_limits": dict(limits)}
    hz = horizon(inst, scale=horizon_scale, relaxation=box == "relaxation")
    heuristic_point = (hz.incumbent.start.copy(), hz.incumbent.gpu.copy())
    size = model_size(inst, hz, exact=False, gpu_symmetry=gpu_symmetry)
    extra: list[tuple[str, Any]] = []
    rl_bound = -math.inf
    if formulation == "decomposition" or kind == "queyranne":
        run.require(memory_bytes=dec.memory_estimate(inst, limits["pricing_rounds"]), what="the decomposition")
        d = _decomposition(inst, hz, limits, run, details)
        rl_bound = d.lower_bound
        if kind == "queyranne":
            extra = [("queyranne-repair", _queyranne_repair(inst, d, hz, limits))]
        else:
            extra = [("decomposition", d.point)]
            gap = d.details.get("gap")
            closed = gap is not None and gap <= 1e-6
            if closed or size["nonzeros"] > limits["oa_check_nonzeros"] or dl.stop():
                return _finish(inst, kind, Status.FEASIBLE, extra + [("heuristic", heuristic_point)],
                               max(rl_bound, hz.trivial_bound), details)
            # small instance, gap open: the exact per-GPU model (the outer approximation) as well
            details["oa_check"] = True
    details["master_size"] = size
    if master_nodes is None:
        master_nodes = max(1, int(MASTER_WORK // max(1.0, size["nonzeros"])))
    details["work_limits"]["master_nodes"] = master_nodes
    if size["nonzeros"] > limits["max_master_nonzeros"]:
        details["skipped"] = (f"the master would have {size['nonzeros']:.3g} nonzeros > max_master_nonzeros="
                              f"{limits['max_master_nonzeros']}")
        details["work_limit"] = True
        return _finish(inst, kind, Status.FEASIBLE, extra + [("heuristic", heuristic_point)],
                       max(hz.trivial_bound, rl_bound), details)
    if formulation == "miqcp":
        f = build_rl_miqcp(inst, hz, gpu_symmetry=gpu_symmetry)
        run.options["solver_options"] = {"NonConvex": 2, **(run.options.get("solver_options") or {})}
        out = _solve(run, details, f.model, work_limit={"nodes": master_nodes * oa_iterations},
                     what="relaxation (MIQCP)")
        details.update(solver_status=out.message, solver_objective=out.objective, solver_bound=out.bound,
                       iterations=1)
        lb = out.bound if out.bound is not None and math.isfinite(out.bound) else None
        point = (f.starts(), f.assignment()) if out.has_solution else None
        candidates = [("solver", point)]
        if out.status != Status.OPTIMAL:
            candidates.append(("heuristic", heuristic_point))
        return _finish(inst, kind, out.status, candidates, lb, details)
    f = build_relaxation_master(inst, hz, gpu_symmetry=gpu_symmetry)
    best_lb: float | None = None
    status = Status.TIME_LIMIT
    point = fixed_point = None
    point_source = "master"
    tol = 0.1 * TOL
    it = 0
    cuts = 0
    worst = math.inf
    masters_dl = dl.share(0.85)  # the rest of the safety net is for a feasible relaxed point
    work = {"nodes": master_nodes}
    while True:
        if it >= oa_iterations:
            details["work_limit"] = True
            break
        if masters_dl.stop():
            _cut(run, details, "relaxation masters")
            break
        it += 1
        out = _solve(run, details, f.model, work_limit=work, what="relaxation master", budget=masters_dl)
        if out.bound is not None and math.isfinite(out.bound):
            best_lb = out.bound if best_lb is None else max(best_lb, out.bound)
        if out.status == Status.INFEASIBLE:
            status, point = Status.INFEASIBLE, None
            break
        if not out.has_solution:
            status = out.status
            break
        point = (f.starts(), f.assignment())
        added, dup, worst = separate(f, kind, point[0], point[1], tol)
        cuts += added
        if out.status != Status.OPTIMAL:
            status = Status.FEASIBLE  # a limit stopped this master
            break
        if added == 0:  # no violated cut left (or only numerical repeats)
            status = Status.OPTIMAL
            break
        status = Status.FEASIBLE
        # the master's assignment re-timed by the fixed-assignment LP is feasible
        # for the relaxation; if its value meets the proven bound, it is optimal
        if masters_dl.stop():
            _cut(run, details, "relaxation masters")
            break
        xf = fixed_assignment_point(f, kind, point[1], run, repair_rounds, budget=masters_dl, details=details)
        if xf is not None:
            fixed_point = (xf, point[1])
            v = _checked_value(inst, xf, point[1], kind)
            if v is not None and best_lb is not None and v <= best_lb + 1e-6 * max(1.0, abs(v)):
                point, point_source, status = fixed_point, "fixed_assignment", Status.OPTIMAL
                break
    details.update(iterations=it, cuts=cuts, max_relative_violation=worst,
                   initial_cuts=f.initial_cuts, total_cuts=len(f.model.oa_cuts))
    candidates = [(point_source, point)]
    if status not in (Status.OPTIMAL, Status.INFEASIBLE):
        # not solved: offer feasible relaxed points (not optimal) for Algorithm 1
        if fixed_point is not None:
            candidates.append(("fixed_assignment", fixed_point))
        if point is not None and (fixed_point is None or not np.array_equal(fixed_point[1], point[1])):
            x = fixed_assignment_point(f, kind, point[1], run, repair_rounds, budget=dl, details=details)
            if x is not None:
                candidates.append(("fixed_assignment", (x, point[1])))
        candidates += extra
        candidates.append(("heuristic", heuristic_point))
    if math.isfinite(rl_bound):
        best_lb = rl_bound if best_lb is None else max(best_lb, rl_bound)
    return _finish(inst, kind, status, candidates, best_lb, details)


@dataclass
class _Decomposed:
    lower_bound: float
    point: tuple[np.ndarray, np.ndarray] | None
    details: dict[str, Any]


def _decomposition(inst: HareInstance, hz: Horizon, limits: dict[str, Any], run: Run,
                   details: dict[str, Any]) -> _Decomposed:
    """Run :func:`~.decomposition.solve_decomposition` on the run's budget and record it in ``details``."""
    d = dec.solve_decomposition(inst, hz.c_upper, hz.incumbent.gpu, pricing_rounds=limits["pricing_rounds"],
                                milp_nodes=limits["milp_nodes"], search_moves=limits["search_moves"],
                                search_lps=limits["search_lps"], budget=run.budget)
    details["decomposition"] = {k: v for k, v in d.details.items() if k != "deadline_cut"}
    details["iterations"] = d.details.get("pricing_rounds")
    if d.details.get("cg_stopped") == "pricing_rounds":
        details["work_limit"] = True
    if d.details.get("deadline_cut"):
        _cut(run, details, "decomposition")
    point = (d.x, d.gpu) if d.x is not None else None
    return _Decomposed(d.lower_bound, point, d.details)


def _queyranne_repair(inst: HareInstance, d: _Decomposed, hz: Horizon,
                      limits: dict[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """The decomposition's RL assignment re-timed to satisfy every Queyranne subset inequality."""
    if d.point is None:
        return None
    gpu = d.point[1]
    rt = gpupoint.retime(inst, gpu, c_cap=hz.c_upper, kind="queyranne", rounds=limits["repair_rounds"])
    return rt.x, gpu


def _checked_value(inst: HareInstance, x: np.ndarray, gpu: np.ndarray, kind: str) -> float | None:
    try:
        return check_relaxed(inst, x, gpu, kind)
    except InvalidSolutionError:
        return None


def fixed_assignment_point(f: HareFormulation, kind: str, gpu: np.ndarray, run: Run,
                           rounds: int = DEFAULT_REPAIR_ROUNDS, *, budget: Budget | None = None,
                           details: dict[str, Any] | None = None) -> np.ndarray | None:
    """Start times feasible for the relaxation with the assignment fixed to ``gpu``.

    With ``y`` fixed, (9) and every subset inequality are linear in ``x`` and the
    tangent cut at the fixed load is the inequality itself, so a few LPs with
    separation give a point satisfying the relaxation exactly (symmetry rows are
    dropped: they are not part of the relaxation).  At most ``rounds`` LPs, each
    solved through ``run`` (:meth:`Run.solve_model`) within ``budget`` (default:
    the run's); ``None`` if none is found.  Limits that stop it are recorded in
    ``details`` (``work_limit``, ``deadline_cut``) when given.
    """
    details = {} if details is None else details
    budget = run.budget if budget is None else budget
    f.fix_assignment(gpu)
    try:
        for _ in range(rounds):
            if budget.stop():
                _cut(run, details, "fixed-assignment repair")
                return None
            out = _solve(run, details, f.model, work_limit=None, what="fixed-assignment repair", budget=budget)
            if not out.has_solution:
                return None
            x = f.starts()
            added, _, _ = separate(f, kind, x, gpu, 0.1 * TOL)
            if added == 0:
                return x
        details["work_limit"] = True
        return None
    finally:
        f.unfix_assignment()


def _finish(inst: HareInstance, kind: str, status: Status, candidates: list, lb: float | None,
            details: dict[str, Any]) -> RelaxationResult:
    """Pick the best candidate point that passes :func:`check_relaxed`.

    The first candidate is the solver's solution; when the run is ``optimal``
    only it counts (a failing check downgrades to ``feasible``).
    """
    x_hat = y_hat = value = None
    for source, pt in candidates:
        if pt is None:
            continue
        try:
            v = check_relaxed(inst, pt[0], pt[1], kind)
        except InvalidSolutionError as e:
            details[f"check_error_{source}"] = str(e)
            if source == candidates[0][0] and status == Status.OPTIMAL:
                status = Status.FEASIBLE
            continue
        if value is None or v < value:
            x_hat, y_hat, value = pt[0], pt[1], v
            details["x_hat_source"] = source
        if status == Status.OPTIMAL:
            break
    if x_hat is None and status in (Status.OPTIMAL, Status.FEASIBLE):
        status = Status.TIME_LIMIT
    if status == Status.OPTIMAL and details.get("x_hat_source") != candidates[0][0]:
        status = Status.FEASIBLE
    if x_hat is not None and status == Status.TIME_LIMIT:
        status = Status.FEASIBLE
    if (status == Status.FEASIBLE and lb is not None and value is not None
            and value <= lb + 1e-6 * max(1.0, abs(value))):
        # a checked relaxed point whose value meets a proven bound: optimal (gap 1e-6)
        status = Status.OPTIMAL
        details["closed_by"] = "bound"
    if lb is not None and value is not None and lb > value and lb - value <= 1e-6 * max(1.0, abs(value)):
        lb = value
    if x_hat is not None:
        details["x_hat"] = x_hat_provenance(kind, details.get("x_hat_source"), value, lb)
    return RelaxationResult(status, value, lb, x_hat, y_hat, details)


def x_hat_provenance(kind: str, source: str | None, value: float | None, lb: float | None) -> dict[str, Any]:
    """``{"source", "gap"}``: where x^ came from (:data:`X_HAT_SOURCES`) and the relative
    gap ``(value - bound) / value`` that the proven bound certifies for it (``None``
    without a bound; 0 when both are 0)."""
    name = X_HAT_SOURCES.get((str(source), kind), f"{kind}-{source}")
    gap = None
    if value is not None and lb is not None and math.isfinite(lb):
        gap = max(0.0, (value - lb) / abs(value)) if value != 0 else (0.0 if lb >= 0 else None)
    return {"source": name, "gap": gap}


@method(
    "hare", "relaxation", kind="bound", uses_solver=True,
    description="lower bound: Hare_Sched_RL (9) by decomposition with a certified gap, or the Queyranne "
                "relaxation by outer approximation",
    options=[Option("relaxation", str, "rl", "rl (Hare_Sched_RL, the paper's (9)) or queyranne (every subset "
                    "inequality, by separation)", choices=("rl", "queyranne")),
             *RELAXATION_OPTIONS,
             Option("horizon_scale", float, 1.0, "widen the start-time box by this factor (tests)", minimum=1.0)],
)
def solve_relaxation_method(inst: HareInstance, run: Run) -> Result:
    """A proven lower bound on Hare_Sched's optimum from a relaxation.

    ``objective`` is the relaxation's value when proven optimal (else the
    proven bound); ``bound`` the proven bound; ``details["value"]`` the value
    of the checked relaxed point and ``details["x_hat"]["gap"]`` the gap the
    bound certifies for it.  Deterministic work limits (the decomposition's
    ``pricing_rounds``, ``milp_nodes``, ``search_moves``, ``search_lps``; the
    outer approximation's ``oa_iterations``, ``master_nodes``,
    ``repair_rounds``); the deadline is a safety net.
    """
    rel = solve_relaxation(inst, run, kind=run.options["relaxation"])
    details = {k: v for k, v in rel.details.items() if k not in ("deadline_cut",)}
    details["value"] = rel.value
    details["relaxation_status"] = rel.status.value
    obj = rel.value if rel.status == Status.OPTIMAL else rel.lower_bound
    status = Status.OPTIMAL if rel.status == Status.OPTIMAL else (
        Status.FEASIBLE if rel.lower_bound is not None else rel.status)
    return run.result(bound=rel.lower_bound, objective=obj, status=status, **details)
