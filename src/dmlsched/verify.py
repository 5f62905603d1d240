"""The checks every method's result passes: the solution validated against the
family's model, the objective recomputed by the family's evaluator, the
method's own claims cross-checked.

Shared by :func:`dmlsched.solve` and :meth:`dmlsched.kit.Run.delegate` (a
method that runs another method gets a result checked exactly as ``solve``
checks it).

``validate`` and ``evaluate`` (re-exported as :func:`dmlsched.validate` and
:func:`dmlsched.evaluate`) are the same two checks for a solution a user holds.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from .errors import InvalidSolutionError
from .registry import problem_of
from .result import Result, Status
from .tolerance import geq, leq, slack

log = logging.getLogger("dmlsched")


def check_result(spec: Any, kind: str, instance: Any, res: Result) -> None:
    """Validate the solution, recompute the objective, cross-check claims.

    Parameters
    ----------
    spec
        The family's :class:`~dmlsched.registry.ProblemSpec` (validator, evaluator, sense).
    kind
        The method's kind (a ``bound`` method may have a value without a solution).
    instance, res
        The instance and the method's result; ``res.objective`` becomes the
        evaluator's value of ``res.solution`` (the method's own value goes to
        ``details["reported_objective"]``).

    Raises
    ------
    InvalidSolutionError
        The solution breaks the model, the reported objective differs from the
        evaluator's, a solution status comes without a solution, or the bound is
        on the wrong side of the objective.
    """
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
        if res.status not in (Status.OPTIMAL, Status.FEASIBLE) and kind != "bound":
            res.status = Status.FEASIBLE
    elif kind != "bound" and res.status in (Status.OPTIMAL, Status.FEASIBLE):
        raise InvalidSolutionError(
            f"{spec.name}/{res.method}: status {res.status.value} without a solution"
        )
    if res.bound is not None and res.objective is not None and res.solution is not None:
        ok = (
            leq(res.bound, res.objective, 1e-5)
            if spec.sense == "min"
            else geq(res.bound, res.objective, 1e-5)
        )
        if not ok:
            raise InvalidSolutionError(
                f"{spec.name}/{res.method}: bound {res.bound} is on the wrong "
                f"side of the objective {res.objective}"
            )


def finish(spec: Any, kind: str, method: str, instance: Any, res: Result, wall: float) -> Result:
    """A method's raw result made the checked result :func:`dmlsched.solve` returns.

    Names the result (problem, method, sense), fills ``runtime_s`` and
    ``details["wall_s"]`` with ``wall`` (seconds of the call) where the method
    left them empty, defaults ``details["reproducible"]`` to true, runs
    :func:`check_result` and times it as the stage ``validate``.
    """
    res.problem, res.method, res.sense = spec.name, method, spec.sense
    res.runtime_s = res.runtime_s or wall
    res.details.setdefault("wall_s", wall)
    res.details.setdefault("reproducible", True)
    t1 = time.perf_counter()
    check_result(spec, kind, instance, res)
    if res.solution is not None:
        dt = time.perf_counter() - t1
        res.details.setdefault("stages", {})["validate"] = dt
        log.info("%s/%s: validate %.3f s", spec.name, method, dt)
    return res


def validate(instance, solution) -> None:
    """Check ``solution`` against every constraint of ``instance``'s model.

    Raises :class:`InvalidSolutionError` naming the violated constraint.
    """
    problem_of(instance).validate(instance, solution)


def evaluate(instance, solution) -> float:
    """The objective of ``solution``, recomputed from the solution itself.

    The solution is validated first: one that breaks the model (an index out
    of range, arrays of the wrong length, a violated constraint) raises
    :class:`InvalidSolutionError` naming what breaks, as :func:`validate`
    does, rather than a value computed from nonsense.
    """
    spec = problem_of(instance)
    spec.validate(instance, solution)
    try:
        return float(spec.evaluate(instance, solution))
    except (IndexError, KeyError, ValueError, TypeError) as e:  # defensive: the validator let it through
        raise InvalidSolutionError(f"the solution does not fit the instance: {type(e).__name__}: {e}") from None


__all__ = ["check_result", "evaluate", "finish", "validate"]
