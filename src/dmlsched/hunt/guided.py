"""Solver-guided search strategies, in the spirit of MetaOpt.

MetaOpt (Namyar et al., NSDI'24) finds where a heuristic is far from optimal by
encoding the heuristic and the optimum together for a solver, which then
chooses the *input* that maximises the gap.  A scheduling heuristic is not a
convex program, so we use the same idea locally: around the current best
instance, the heuristic's decisions are frozen, which makes everything linear,
and an LP chooses new instance data; the data is then re-evaluated for real.

This module is the generic part: :func:`guided_search` alternates a family's
LP steps (``lp_step(ctx, scored) -> LPStep``) with simulated annealing, and
:class:`LinearProgram`, :func:`lin` and :func:`lin_sub` write the small LPs.
A family's strategy (its LP step, and ``fn(ctx)`` calling :func:`guided_search`
with it) lives in its package's ``guided.py`` (Hare's:
:mod:`dmlsched.problems.hare.guided`, Algorithm 1's decision trace).  That
module imports this one, so it is a plug-in of the hunt kept in the family's
folder, at the hunt's layer (8) above the families (6): the search scores
every candidate through the hunt's evaluator (``dmlsched.solve``, the bench
engines), which cannot sit below the families.  The family names the strategy
in :attr:`Family.guided <dmlsched.family.Family.guided>` (method or ``"*"`` ->
a :class:`~dmlsched.family.Ref`); the ``guided`` strategy of
:mod:`dmlsched.hunt.search` finds it there
(:func:`~dmlsched.hunt.search.guided_strategy`), the only place that module
is imported.

The strategy alternates: an LP step on the best instance whenever it changed
(and every ``lp_period`` annealing batches on the chain's current state), and
simulated-annealing batches of structure-aware moves
(:meth:`~dmlsched.hunt.space.Space.mutate`) in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import DmlschedError
from ..solvers import quiet_highs
from .evaluate import Scored
from .search import Annealing, Context


@dataclass
class LPStep:
    """Outcome of one LP step of a guided strategy (e.g. :func:`dmlsched.problems.hare.guided.hare_lp_step`)."""

    status: str  # "ok", "trace_mismatch", "no_reference_schedule", "lp_infeasible", "no_gain", "skipped"
    predicted: float | None = None  # the LP's ratio (if the frozen decisions held at the new data)
    current: float | None = None
    proposals: list[dict] | None = None  # first stage of the line search (Hare: THETAS[0])
    later: list[list[dict]] | None = None  # further stages, tried only when no earlier one improves
    detail: str = ""


class LinearProgram:
    """A small LP collected row by row, solved by HiGHS (highspy)."""

    def __init__(self) -> None:
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.cost: list[float] = []
        self.rows: list[tuple[dict[int, float], float, float]] = []

    def var(self, lb: float = 0.0, ub: float = math.inf, cost: float = 0.0) -> int:
        self.lb.append(lb)
        self.ub.append(ub)
        self.cost.append(cost)
        return len(self.lb) - 1

    def row(self, expr: tuple[dict[int, float], float], lo: float = -math.inf, hi: float = math.inf) -> None:
        """``lo <= expr <= hi`` with ``expr = (coefficients, constant)``."""
        coef, const = expr
        coef = {k: v for k, v in coef.items() if v != 0.0}
        if not coef:
            if not (lo - 1e-12 <= const <= hi + 1e-12):
                self.rows.append(({}, lo - const, hi - const))  # infeasible constant row: keep it visible
            return
        self.rows.append((coef, lo - const, hi - const))

    def solve(self, maximise: bool = True) -> tuple[str, np.ndarray | None, float | None]:
        import highspy

        h = quiet_highs()
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        inf = highspy.kHighsInf
        n = len(self.lb)
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = len(self.rows)
        lp.col_cost_ = np.array(self.cost, dtype=float)
        lp.col_lower_ = np.array([max(v, -inf) for v in self.lb], dtype=float)
        lp.col_upper_ = np.array([min(v, inf) for v in self.ub], dtype=float)
        lp.row_lower_ = np.array([max(r[1], -inf) for r in self.rows], dtype=float)
        lp.row_upper_ = np.array([min(r[2], inf) for r in self.rows], dtype=float)
        if any(not r[0] for r in self.rows):
            return "infeasible", None, None
        starts, index, value = [0], [], []
        for coef, _, _ in self.rows:
            for k in sorted(coef):
                index.append(k)
                value.append(coef[k])
            starts.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value, dtype=float)
        lp.a_matrix_.num_col_ = n
        lp.a_matrix_.num_row_ = len(self.rows)
        lp.sense_ = highspy.ObjSense.kMaximize if maximise else highspy.ObjSense.kMinimize
        h.passModel(lp)
        h.run()
        st = h.getModelStatus()
        if st != highspy.HighsModelStatus.kOptimal:
            return h.modelStatusToString(st), None, None
        sol = np.array(h.getSolution().col_value, dtype=float)
        return "optimal", sol, float(h.getInfo().objective_function_value)


def lin(*terms: tuple[int, float], const: float = 0.0) -> tuple[dict[int, float], float]:
    """The affine expression ``sum coefficient * variable + const`` of ``(variable, coefficient)``
    terms, as ``(coefficients, constant)`` for :meth:`LinearProgram.row`."""
    coef: dict[int, float] = {}
    for k, v in terms:
        coef[k] = coef.get(k, 0.0) + v
    return coef, const


def lin_sub(a: tuple[dict[int, float], float], b: tuple[dict[int, float], float]) -> tuple[dict[int, float], float]:
    """``a - b`` of two expressions of :func:`lin`."""
    coef = dict(a[0])
    for k, v in b[0].items():
        coef[k] = coef.get(k, 0.0) - v
    return coef, a[1] - b[1]


def guided_search(ctx: Context, lp_step: Callable[[Context, Scored], LPStep], *, lp_period: int = 8,
                  t0: float = 0.05, cooling: float = 0.995, reheat: int = 150) -> None:
    """Alternate LP refinements (``lp_step(ctx, s)``, e.g.
    :func:`dmlsched.problems.hare.guided.hare_lp_step`) with annealing batches.

    An LP step runs on the best instance whenever it changed, and on the
    annealing chain's current state every ``lp_period`` batches (each
    instance at most once); an LP proposal that beats the instance it came
    from becomes the chain's state.  Annealing as
    :func:`~dmlsched.hunt.search.simulated_annealing` otherwise.
    """
    notes = ctx.notes.setdefault("guided", {"lp_steps": 0, "lp_improved": 0, "best_from_lp": 0})
    tried: set[str] = set()

    def lp_on(s: Scored) -> Scored | None:
        tried.add(s.hash)
        try:
            step = lp_step(ctx, s)
        except (DmlschedError, ValueError, RuntimeError) as e:  # a failing re-solve or LP: no step, counted
            step = LPStep("error", detail=f"{type(e).__name__}: {e}")
        notes["lp_steps"] += 1
        notes[step.status] = notes.get(step.status, 0) + 1
        if step.status != "ok":
            return None
        before = ctx.best
        for k, props in enumerate([step.proposals or [], *(step.later or [])]):
            if not props:
                continue
            scored = ctx.score_many(props)
            top = max(scored, key=ctx.value)
            if ctx.value(top) > ctx.value(s) * (1 + 1e-9):
                notes["lp_improved"] += 1
                notes[f"improved_at_stage{k + 1}"] = notes.get(f"improved_at_stage{k + 1}", 0) + 1
                if ctx.best is not before:
                    notes["best_from_lp"] += 1
                return top
        return None

    chain = Annealing(ctx, t0, cooling, reheat)
    batches = 0
    while True:
        b = ctx.best
        if b is not None and b.hash not in tried and math.isfinite(ctx.value(b)):
            got = lp_on(b)
            if got is not None:
                chain.cur, chain.since_best = got, 0
                chain.best_v = max(chain.best_v, ctx.value(ctx.best))
                continue
        cur = chain.cur
        if batches % lp_period == 0 and cur.hash not in tried and math.isfinite(ctx.value(cur)):
            got = lp_on(cur)
            if got is not None:
                chain.cur = got
        chain.batch()
        batches += 1
