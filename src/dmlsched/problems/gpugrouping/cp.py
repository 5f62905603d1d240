"""The typed GPU_Grouping model on CP-SAT (HLAS paper, eqs. (4)-(6)): method ``exact-cp``.

Integer counts per GPU type, groups in lexicographically non-increasing order
of their count vectors (every symmetry of identical GPUs and of group labels
removed), integer speeds by scaling with a proven correction when the scaling
is inexact.  ``models/gpu-grouping.md`` states the model and the exactness
condition of the scaling.  OR-Tools is imported inside the builders only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import cpsat
from ...cpsat import grid_scale, new_model, rational
from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...result import Result
from .bruteforce import grouping_from_counts
from .heuristics import greedy_grouping
from .instance import GroupingInstance
from .solution import Grouping

# ---------------------------------------------------------------------------
# the typed model on CP-SAT


@dataclass(frozen=True)
class Scaling:
    """Integer speeds ``round(s * scale)`` and what they prove.

    ``exact`` when every speed is a multiple of ``1/scale``; otherwise
    ``error`` bounds, for every grouping, the difference between its true
    objective and its scaled objective divided by ``scale``.
    """

    scale: int
    speeds: tuple[tuple[int, ...], ...]
    exact: bool
    error: float


#: largest scaled group speed CP-SAT is given (integers well inside int64)
MAX_SCALED = 10**12


def choose_scaling(speeds: np.ndarray, counts: tuple[int, ...], scale: int | None = None) -> Scaling:
    """Scale of the integer speeds (``models/gpu-grouping.md``, "Integer speeds").

    ``scale=None``: the one scaling rule of :func:`dmlsched.cpsat.grid_scale`
    on the speeds (the least common multiple of their denominators, any
    denominator), provided the largest scaled total speed stays below
    :data:`MAX_SCALED`; otherwise the largest power of ten that keeps below
    it.  Speeds on the grid become exact integers; the others are rounded to
    the nearest integer, and the correction is
    ``error = max_n sum_k c_k |s[n,k] scale - round(s[n,k] scale)| / scale``.
    """
    flat = speeds.ravel().tolist()
    total = float((speeds * np.asarray(counts, dtype=float)).sum(axis=1).max())
    top = max(flat, default=1.0)
    grid = grid_scale(flat, max_scaled=MAX_SCALED, scale=scale, extra_factor=total / top if top > 0 else 1.0)
    s = grid.scale
    exact_rows = [[rational(v) * s for v in row] for row in speeds.tolist()]
    r = np.array([[round(v) for v in row] for row in exact_rows], dtype=float).reshape(speeds.shape)
    if grid.exact:
        err = 0.0
    else:
        x = speeds * s
        err = float((np.abs(x - r) * np.asarray(counts, dtype=float)).sum(axis=1).max()) / s
    return Scaling(scale=int(s), speeds=tuple(tuple(int(v) for v in row) for row in r), exact=grid.exact,
                   error=err)


class TypedCpModel(ModelBuilder):
    """The typed grouping model on CP-SAT, with its variables (for extraction)
    (``models/gpu-grouping.md``, "The typed CP-SAT model").

    Parameters
    ----------
    inst
        The instance.
    scaling
        The integer speeds (:func:`choose_scaling`).
    symmetry
        Add ``lex_order`` (groups in lexicographic order of their count vectors).
    hint
        A grouping to start CP-SAT from (:meth:`hint`).

    Attributes
    ----------
    model
        The ``cp_model.CpModel`` (built by :meth:`build`, or on first use).
    y
        ``y[k][u]``: GPUs of type ``k`` in group ``u`` (integer variables).
    t
        The scaled objective variable.
    """

    CONSTRAINTS = ("counts", "nonempty", "speeds", "lex_order")

    def __init__(self, inst: GroupingInstance, scaling: Scaling, *, symmetry: bool = True,
                 hint: Grouping | None = None) -> None:
        self.inst = inst
        self.types = inst.gpu_types
        self.scaling = scaling
        self.symmetry = symmetry
        self.start = hint
        self.K, self.U = self.types.num_types, inst.groups
        self.c = self.types.counts

    def build(self) -> Any:
        """The model: variables ``y``, ``counts``, ``nonempty``, ``speeds`` (with the objective),
        ``lex_order`` with ``symmetry``, the search strategy, and the hint if one was given."""
        self.model = new_model()
        self.add_variables()
        self.add_constraints(self.CONSTRAINTS if self.symmetry else self.CONSTRAINTS[:-1])
        self.add_strategy()
        if self.start is not None:
            self.hint(self.start)
        return self.model

    def add_variables(self) -> None:
        """``y[k][u]`` in ``0..c_k``: GPUs of type ``k`` in group ``u``."""
        self.y = [[self.model.NewIntVar(0, self.c[k], f"y[{k},{u}]") for u in range(self.U)]
                  for k in range(self.K)]

    def add_counts(self) -> None:
        """(4) by type: ``sum_u y[k,u] = c_k``."""
        for k in range(self.K):
            self.model.Add(sum(self.y[k]) == self.c[k])

    def add_nonempty(self) -> None:
        """Every group gets at least one GPU: ``sum_k y[k,u] >= 1`` (``models/gpu-grouping.md``, "Readings")."""
        for u in range(self.U):
            self.model.Add(sum(self.y[k][u] for k in range(self.K)) >= 1)

    def add_speeds(self) -> None:
        """(5)-(6): ``P[n,u] = sum_k S[n,k] y[k,u]``, ``pmax[n] = max_u P``, ``pmin[n] = min_u P``,
        objective ``t >= pmax[n] - pmin[n]`` (4); redundant bounds
        ``pmin[n] <= floor(T_n/|U|)`` and ``pmax[n] >= ceil(T_n/|U|)`` (``T_n`` = total speed)."""
        m = self.model
        S = self.scaling.speeds
        totals = [sum(row[k] * self.c[k] for k in range(self.K)) for row in S]
        self.t = m.NewIntVar(0, max(totals), "t")
        for n, row in enumerate(S):
            total = totals[n]
            P = []
            for u in range(self.U):
                p = m.NewIntVar(0, total, f"P[{n},{u}]")
                m.Add(p == sum(row[k] * self.y[k][u] for k in range(self.K)))
                P.append(p)
            hi = m.NewIntVar(-(-total // self.U), total, f"pmax[{n}]")
            lo = m.NewIntVar(0, total // self.U, f"pmin[{n}]")
            m.AddMaxEquality(hi, P)
            m.AddMinEquality(lo, P)
            m.Add(self.t >= hi - lo)
        m.Minimize(self.t)

    def add_lex_order(self) -> None:
        """Groups in lexicographically non-increasing order of ``(y[0,u], ..., y[K-1,u])``
        (``models/gpu-grouping.md``, "The typed CP-SAT model").

        For consecutive groups ``u, u+1``: ``e_0 = true``; ``e_k => y[k,u] >= y[k,u+1]``;
        ``e_{k+1} = e_k and (y[k,u] = y[k,u+1])``.  Any grouping can be relabelled into
        this order (sort the groups), so the optimum is kept.
        """
        m = self.model
        for u in range(self.U - 1):
            prefix = None  # None stands for "true"
            for k in range(self.K):
                a, b = self.y[k][u], self.y[k][u + 1]
                if prefix is None:
                    m.Add(a >= b)
                else:
                    m.Add(a >= b).OnlyEnforceIf(prefix)
                if k + 1 == self.K:
                    break
                eq = m.NewBoolVar(f"eq[{k},{u}]")
                m.Add(a == b).OnlyEnforceIf(eq)
                m.Add(a != b).OnlyEnforceIf(eq.Not())
                if prefix is None:
                    prefix = eq
                else:
                    nxt = m.NewBoolVar(f"pre[{k + 1},{u}]")
                    m.AddBoolAnd([prefix, eq]).OnlyEnforceIf(nxt)
                    m.AddBoolOr([prefix.Not(), eq.Not()]).OnlyEnforceIf(nxt.Not())
                    prefix = nxt

    def add_strategy(self) -> None:
        """Branch first on the types that weigh most (largest normalised speed summed over
        jobs, the order in which ``greedy`` deals GPUs), largest count first."""
        from ortools.sat.python import cp_model

        s = np.array(self.types.speeds, dtype=float)
        w = (s / s.max(axis=1, keepdims=True)).sum(axis=0) * np.array(self.c)
        order = sorted(range(self.K), key=lambda k: (-w[k], k))
        self.model.AddDecisionStrategy([self.y[k][u] for k in order for u in range(self.U)],
                                       cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)

    def counts_of(self, grouping: Grouping) -> list[list[int]]:
        """``rows[u][k]`` of a grouping, rows sorted lexicographically non-increasing."""
        rows = [[0] * self.K for _ in range(self.U)]
        for gpu, u in enumerate(grouping.group):
            rows[u][self.types.type_of[gpu]] += 1
        return sorted(rows, reverse=True)

    def hint(self, grouping: Grouping) -> None:
        """Start CP-SAT from ``grouping`` (its counts, rows sorted as ``lex_order`` wants)."""
        rows = self.counts_of(grouping)
        for u in range(self.U):
            for k in range(self.K):
                self.model.AddHint(self.y[k][u], rows[u][k])

    def extract(self, values: Any) -> Grouping:
        """The grouping of a CP-SAT solution (``values.Value(var)``)."""
        rows = tuple(tuple(int(values.Value(self.y[k][u])) for k in range(self.K)) for u in range(self.U))
        return grouping_from_counts(self.inst, rows)


@method(
    "gpu-grouping",
    "exact-cp",
    kind="exact",
    uses_solver=True,
    options=[
        Option("scale", int, None, "integer speed scale (default: the lcm of the speeds' denominators, else the "
               "largest power of ten that keeps speeds well inside 64-bit integers)", minimum=1),
        Option("symmetry", bool, True, "groups in lexicographic order of their type counts"),
        Option("hint", bool, True, "start CP-SAT from the greedy grouping"),
        Option("work_limit", float, None, "CP-SAT deterministic time limit (reproducible at any load)",
               minimum=0.0),
    ],
    description="CP-SAT on GPU types: counts of identical GPUs per group, lexicographic group order, "
                "scaled integer speeds with a proven correction",
)
def solve_exact_cp(inst: GroupingInstance, run: Run) -> Result:
    """The typed model on CP-SAT (ignores ``solver``).

    The bound is CP-SAT's proven bound on the scaled objective divided by the
    scale, minus the scaling error (zero when every speed is a multiple of
    ``1/scale``): a proven lower bound on the true optimum.  The solution is
    valued by the evaluator in floating point.
    """
    work = inst.deduplicated()
    types = work.gpu_types
    run.require(memory_bytes=4_000.0 * types.num_types * work.groups * max(1, work.num_jobs),
                what="the CP-SAT model")
    hint = None
    if run.options["hint"]:
        with run.stage("hint"):
            hint = greedy_grouping(work, seed=run.seed, restarts=2, max_passes=20)
        run.incumbent(hint)
    with run.stage("build"):
        sc = choose_scaling(np.array(types.speeds, dtype=float), types.counts, run.options["scale"])
        cp = TypedCpModel(work, sc, symmetry=run.options["symmetry"], hint=hint)
        cp.build()

    def true_bound(b: float | None) -> float | None:
        return None if b is None else max(0.0, b / sc.scale - sc.error)

    # the evaluator sums speeds in floating point: an optimum of 0 may come back as a
    # rounding error of the group speeds, far below any range a user can write
    total = float((np.array(types.speeds, dtype=float) * np.array(types.counts)).sum(axis=1).max())
    run.objective_floor = 1e-12 * total

    out = run.solve_cpsat(cp.model, scaling=cpsat.Scaling(exact=sc.exact, to_bound=true_bound, objective=False),
                          on_solution=cp.extract, defaults=CP_PARAMETERS)
    sol = None
    if out.has_solution:
        with run.stage("extract"):
            sol = cp.extract(out.engine)
    return run.result(solution=sol, bound=[out.bound, 0.0], outcome=out, scale=sc.scale, exact_scale=sc.exact,
                      scale_error=sc.error, merged_job_rows=inst.num_jobs - work.num_jobs,
                      gpu_types=types.num_types)


#: CP-SAT parameters of ``exact-cp`` (``solver_options`` overrides them): without the LP
#: relaxation (``linearization_level`` 0) the min-max range is proven several times faster
#: (benchmarks/hlas.md, "GPU grouping: exact reach"); its LP bound is weak anyway
CP_PARAMETERS = {"linearization_level": 0}


__all__ = ["CP_PARAMETERS", "Scaling", "TypedCpModel", "choose_scaling", "solve_exact_cp"]
