"""``solve`` and ``check``: the library's public entry points."""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

from .errors import NotApplicable
from .kit import check_options, record_renamed
from .registry import get_method, problem_of
from .result import CheckReport, Result, Status, Verdict
from .solvers import check_solver_name
from .tolerance import TOL
from .verify import finish


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
        ``"highs"`` (default) or ``"gurobi"`` for methods that solve a Pyomo
        model; CP-SAT methods (``exact-cp``) and combinatorial methods ignore it.
    time_limit
        A deadline in seconds for the whole method (building, enumeration,
        every solver call), ``None`` for none.  The method returns by it with
        its best incumbent and its best proven bound.
    seed
        Seed of every random choice (same seed, same result).
    **options
        The method's declared options (``dmlsched methods PROBLEM`` lists
        them) and the common ones: ``display=True`` streams the solver's log,
        ``memory_limit`` (GiB) bounds what the method may plan to allocate.

    Raises
    ------
    OptionError
        An unknown or ill-typed option (named in the message).
    InvalidSolutionError
        If a method returns a solution that breaks the model's constraints,
        or reports an objective or bound inconsistent with its solution.
    """
    spec = problem_of(instance)
    m = get_method(spec.name, method)
    check_solver_name(solver)
    _check_limit_and_seed(time_limit, seed)
    common: dict[str, Any] = {}
    if not m.uses_kit:
        options, common = check_options(spec.name, method, m.options, options)
    t0 = time.perf_counter()
    try:
        res: Result = m.fn(instance, solver=solver, time_limit=time_limit, seed=seed, **options)
    except NotApplicable as e:
        res = Result(spec.name, method, Status.NOT_APPLICABLE,
                     details={"error": str(e), "not_applicable": True})
    return record_renamed(finish(spec, m.kind, method, instance, res, time.perf_counter() - t0), common)


def _check_limit_and_seed(time_limit: Any, seed: Any) -> None:
    """``time_limit`` a positive finite number or ``None``; ``seed`` an integer in
    ``[0, 2^63)`` (numpy integers too): else an error naming the argument."""
    if time_limit is not None and not (
        isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool)
        and time_limit > 0 and math.isfinite(time_limit)
    ):
        raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer in [0, 2^63), got {seed!r}")
    if not 0 <= int(seed) < 2**63:
        raise ValueError(f"seed must be an integer in [0, 2^63), got {seed!r}")


def _ratio(sense: str, value: float, ref: float) -> float:
    """Ratio >= 1 when ``value`` is no better than ``ref``."""
    if sense == "min":
        num, den = value, ref
    else:
        num, den = ref, value
    if den <= 0:
        return 1.0 if abs(num - den) <= TOL else math.inf
    return num / den


#: share of ``check``'s time limit the method under test may use when a reference runs too
METHOD_SHARE = 0.5


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

    ``time_limit`` is the budget of the whole check: the method runs first
    with at most :data:`METHOD_SHARE` of it (all of it without a reference),
    the reference gets whatever the method left, so the two together never
    exceed ``time_limit`` (plus each method's small stated overhead).

    The reference (default: the family's, usually ``"exact"``) gives a proven
    bound ``LB`` on the optimum (its ``bound``; for a ``bound`` method, its
    value) and possibly a feasible value ``UB`` (its solution's objective).
    With ``ratio(v, r) = v / r`` (minimisation; ``r / v`` for maximisation)
    and the claimed bound ``b``:

    * ``holds``        if ``ratio(objective, LB) <= b``;
    * ``violated``     if ``ratio(objective, UB) > b`` (even the optimistic
      feasible reference exceeds the claim, so the optimum does too);
    * ``inconclusive`` otherwise;
    * ``no_bound``     when the method claims no finite bound on the instance;
    * ``n/a``          when the method produced no objective.

    ``CheckReport.ratio`` is ``ratio(objective, UB)`` and
    ``CheckReport.ratio_to_bound`` is ``ratio(objective, LB)``.
    """
    spec = problem_of(instance)
    _check_limit_and_seed(time_limit, seed)
    reference = reference or spec.default_reference
    with_ref = reference is not None and reference != method
    t0 = time.monotonic()
    mlimit = time_limit * METHOD_SHARE if (time_limit is not None and with_ref) else time_limit
    res = solve(instance, method, solver=solver, time_limit=mlimit, seed=seed, **options)
    ref = None
    if with_ref and not res.details.get("interrupted"):  # after Ctrl-C, no new run starts
        rlimit = None
        if time_limit is not None:
            rlimit = max(time_limit - (time.monotonic() - t0), 0.01)
        ref = solve(instance, reference, solver=solver, time_limit=rlimit, seed=seed)
    rep = compare(instance, res, ref)
    cut = [r.method for r in (res, ref) if r is not None and r.details.get("interrupted")]
    if cut:
        rep.details["interrupted"] = (f"{' and '.join(cut)} stopped by a stop request"
                                      + ("; the reference did not run" if with_ref and ref is None else ""))
    return rep


def compare(instance: Any, res: Result, ref: Result | None) -> CheckReport:
    """The verdict of :func:`check` from two results already computed.

    ``res`` is the method's result and ``ref`` the reference's (or ``None``).
    """
    spec = problem_of(instance)
    m = get_method(spec.name, res.method)
    bound = m.bound(instance) if m.bound is not None else None
    if bound is not None and not math.isfinite(bound):
        bound = math.inf
    details: dict[str, Any] = {"status": res.status.value, "runtime_s": res.runtime_s}
    if m.bound_name:
        details["bound_name"] = m.bound_name
    lb = ub = None
    reference = ref.method if ref is not None else None
    ref_status = None
    ref_optimal = False
    if ref is not None:
        rspec = get_method(spec.name, ref.method)
        ref_status = ref.status.value
        details["reference_runtime_s"] = ref.runtime_s
        ref_optimal = ref.status == Status.OPTIMAL and rspec.kind != "bound"
        lb = ref.bound
        if lb is None and ref.status == Status.OPTIMAL:
            lb = ref.objective  # exact by construction (enumeration)
        if rspec.kind != "bound" and ref.solution is not None:
            ub = ref.objective
        if rspec.space is not None and rspec.space != m.space and lb is not None:
            # optimal over a restricted space only: not a bound for a method that may leave it;
            # a reference may also prove a bound over every solution (details["whole_space_bound"])
            wide = (ref.details or {}).get("whole_space_bound")
            lb = float(wide) if wide is not None and math.isfinite(float(wide)) else None
            ref_optimal = False
            details["reference_scope"] = (
                f"{ref.method} is optimal over {rspec.space} solutions only; {res.method} may leave that space"
                + (f"; its bound over every solution ({lb:g}) is used" if lb is not None else "")
            )
        if not ref_optimal and ub is not None:
            details["reference_note"] = f"{ref.method} did not prove optimality: its objective is a feasible value"
    value = res.objective
    ratio_lb = _ratio(spec.sense, value, lb) if value is not None and lb is not None else None
    ratio_ub = _ratio(spec.sense, value, ub) if value is not None and ub is not None else None
    if value is None or res.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.BOUND):
        verdict = Verdict.NOT_APPLICABLE
    elif bound is None or math.isinf(bound):
        verdict = Verdict.NO_BOUND
        details["note"] = (
            "the method claims no bound" if bound is None else "the claimed bound is infinite on this instance"
        )
    elif ratio_lb is not None and ratio_lb <= bound * (1 + 1e-9) + 1e-9:
        verdict = Verdict.HOLDS
    elif ratio_ub is not None and ratio_ub > bound * (1 + 1e-6):
        verdict = Verdict.VIOLATED
    else:
        verdict = Verdict.INCONCLUSIVE
        if lb is None:
            details["note"] = "no proven bound on the optimum"
    return CheckReport(
        problem=spec.name,
        method=res.method,
        objective=value,
        reference=reference,
        reference_objective=ub,
        ratio=ratio_ub,
        bound=bound,
        verdict=verdict,
        reference_bound=lb,
        reference_optimal=ref_optimal,
        reference_status=ref_status,
        ratio_to_bound=ratio_lb,
        details=details,
    )
