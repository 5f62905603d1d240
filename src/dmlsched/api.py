"""``solve`` and ``check``: the library's public entry points."""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from .errors import InvalidSolutionError, NotApplicable
from .registry import get_method, problem_of
from .result import CheckReport, Result, Status
from .solvers import check_solver_name
from .tolerance import TOL, geq, leq, slack

log = logging.getLogger("dmlsched")


def solve(
    instance: Any,
    method: str,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options: Any,
) -> Result:
    """Run ``method`` on ``instance`` and return a checked :class:`Result`.

    Every returned solution has passed the family's validator, and
    ``Result.objective`` is recomputed by the family's evaluator from the
    solution (a method's own reported objective is only cross-checked).

    Parameters
    ----------
    instance
        An instance of any registered problem family (see :func:`dmlsched.load`).
    method
        A method name registered for that family (``dmlsched methods`` lists them).
    solver
        ``"highs"`` (default) or ``"gurobi"``; ignored by combinatorial methods.
    time_limit
        Seconds for solver-based methods, ``None`` for none.
    seed
        Seed of every random choice (same seed, same result).
    **options
        Method-specific options (documented on each method).

    Raises
    ------
    InvalidSolutionError
        If a method returns a solution that breaks the model's constraints,
        or reports an objective or bound inconsistent with its solution.
    """
    spec = problem_of(instance)
    m = get_method(spec.name, method)
    check_solver_name(solver)
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive number, got {time_limit!r}")
    t0 = time.perf_counter()
    try:
        res: Result = m.fn(instance, solver=solver, time_limit=time_limit, seed=seed, **options)
    except NotApplicable as e:
        res = Result(spec.name, method, Status.ERROR, details={"error": str(e), "not_applicable": True})
    wall = time.perf_counter() - t0
    res.problem, res.method = spec.name, method
    res.runtime_s = res.runtime_s or wall
    res.details.setdefault("wall_s", wall)
    _verify(spec, m.kind, instance, res)
    return res


def _verify(spec: Any, kind: str, instance: Any, res: Result) -> None:
    """Validate the solution, recompute the objective, cross-check claims."""
    if res.solution is not None:
        spec.validate(instance, res.solution)
        value = float(spec.evaluate(instance, res.solution))
        reported = res.objective
        if reported is not None and abs(reported - value) > slack(reported, value, 1e-5):
            raise InvalidSolutionError(
                f"{spec.name}/{res.method}: method reported objective {reported}, "
                f"evaluator computes {value}"
            )
        res.details.setdefault("reported_objective", reported)
        res.objective = value
        if res.status not in (Status.OPTIMAL, Status.FEASIBLE):
            res.status = Status.FEASIBLE
    elif kind != "bound" and res.status in (Status.OPTIMAL, Status.FEASIBLE):
        raise InvalidSolutionError(
            f"{spec.name}/{res.method}: status {res.status.value} without a solution"
        )
    if res.lower_bound is not None and res.objective is not None and res.solution is not None:
        ok = (
            leq(res.lower_bound, res.objective, 1e-5)
            if spec.sense == "min"
            else geq(res.lower_bound, res.objective, 1e-5)
        )
        if not ok:
            raise InvalidSolutionError(
                f"{spec.name}/{res.method}: bound {res.lower_bound} is on the wrong "
                f"side of the objective {res.objective}"
            )


def _ratio(sense: str, value: float, ref: float) -> float:
    """Ratio >= 1 when ``value`` is no better than ``ref``."""
    if sense == "min":
        num, den = value, ref
    else:
        num, den = ref, value
    if den <= 0:
        return 1.0 if abs(num - den) <= TOL else math.inf
    return num / den


def check(
    instance: Any,
    method: str,
    reference: str | None = None,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options: Any,
) -> CheckReport:
    """Compare ``method`` with a reference and with the paper's proven bound.

    The reference (default: the family's, usually ``"exact"``) gives a proven
    bound ``LB`` on the optimum (its ``lower_bound``, or its objective when
    proven optimal; for a ``bound`` method, its value) and possibly a feasible
    value ``UB``.  With ``ratio(v) = v / ref`` (minimisation; ``ref / v`` for
    maximisation) and the claimed bound ``b``:

    * ``holds``       if ``ratio(objective, LB) <= b``;
    * ``violated``    if ``ratio(objective, UB) > b`` (even the optimistic
      feasible reference exceeds the claim, so the optimum does too);
    * ``inconclusive`` otherwise, or when no bound or no proven reference exists.

    The reported ``ratio`` is taken against ``LB`` (the proven optimum when
    known), else against ``UB`` (``details["ratio_basis"]`` then says so).
    """
    spec = problem_of(instance)
    reference = reference or spec.default_reference
    res = solve(instance, method, solver=solver, time_limit=time_limit, seed=seed, **options)
    ref = None
    if reference is not None and reference != method:
        ref = solve(instance, reference, solver=solver, time_limit=time_limit, seed=seed)
    return compare(instance, res, ref)


def compare(instance: Any, res: Result, ref: Result | None) -> CheckReport:
    """The verdict of :func:`check` from two results already computed.

    ``res`` is the method's result and ``ref`` the reference's (or ``None``).
    """
    spec = problem_of(instance)
    m = get_method(spec.name, res.method)
    bound = m.bound(instance) if m.bound is not None else None
    details: dict[str, Any] = {"status": res.status.value, "runtime_s": res.runtime_s}
    if m.bound_name:
        details["bound_name"] = m.bound_name
    ref_obj = lb = ub = None
    reference = ref.method if ref is not None else None
    if ref is not None:
        rkind = get_method(spec.name, ref.method).kind
        details["reference_status"] = ref.status.value
        details["reference_runtime_s"] = ref.runtime_s
        if rkind == "bound":
            if ref.status == Status.OPTIMAL:
                lb = ref.lower_bound if ref.lower_bound is not None else ref.objective
            else:
                lb = ref.lower_bound
        else:
            if ref.status == Status.OPTIMAL:
                # "optimal" is within the solver's gap: the proven bound is the safe side
                lb = ref.lower_bound if ref.lower_bound is not None else ref.objective
            else:
                lb = ref.lower_bound
            ub = ref.objective if ref.solution is not None else None
        rspace = get_method(spec.name, ref.method).space
        if rspace is not None and rspace != m.space and lb is not None:
            # optimal over a restricted space only: not a bound for a method that may leave it
            lb = None
            details["reference_scope"] = (
                f"{ref.method} is optimal over {rspace} solutions only; {res.method} may leave that space"
            )
        ref_obj = ub if ub is not None else lb
        details["reference_bound"] = lb
    value = res.objective
    ratio = None
    verdict = "inconclusive"
    ratio_lb = _ratio(spec.sense, value, lb) if value is not None and lb is not None else None
    ratio_ub = _ratio(spec.sense, value, ub) if value is not None and ub is not None else None
    if ratio_ub is not None:
        details["ratio_to_feasible_reference"] = ratio_ub
    ratio = ratio_lb if ratio_lb is not None else ratio_ub
    if ratio_lb is None and ratio_ub is not None:
        details["ratio_basis"] = "feasible reference (no proven bound on the optimum)"
    if bound is not None:
        if ratio_lb is not None and ratio_lb <= bound * (1 + 1e-9) + 1e-9:
            verdict = "holds"
        elif ratio_ub is not None and ratio_ub > bound * (1 + 1e-6):
            verdict = "violated"
        elif lb is None:
            details["note"] = "no proven reference value"
    else:
        details["note"] = "the method has no proven bound"
    return CheckReport(
        problem=spec.name,
        method=res.method,
        objective=value,
        reference=reference,
        reference_objective=ref_obj,
        ratio=ratio,
        bound=bound,
        verdict=verdict,
        details=details,
    )
