"""Status, Result and CheckReport: what every method and checker returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """Outcome of a method run.

    ``optimal``    the solver proved optimality (or the method is exact by construction);
    ``feasible``   a valid solution, optimality not proven (heuristics, or a limit hit
                   with an incumbent kept);
    ``infeasible`` the instance has no feasible solution (proven);
    ``time_limit`` the limit was hit with no incumbent;
    ``error``      the run failed (message in ``details["error"]``).
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    ERROR = "error"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


@dataclass
class Result:
    """What :func:`dmlsched.solve` returns.

    Attributes
    ----------
    problem, method
        Registry keys of the problem family and method.
    status
        A :class:`Status`.
    objective
        Objective recomputed by the family's evaluator from ``solution``
        (for bound methods, the proven bound value; ``None`` without one).
    lower_bound
        A proven bound on the optimum (lower for minimisation, upper for
        maximisation problems), or ``None``.
    solution
        The family's solution object (``None`` for pure bound methods).
    runtime_s
        Wall-clock seconds of the method.
    solver
        Solver used (``"highs"``, ``"gurobi"``) or ``None`` for combinatorial methods.
    details
        Free-form extra information (solver-reported objective, gaps, counters).
    """

    problem: str
    method: str
    status: Status
    objective: float | None = None
    lower_bound: float | None = None
    solution: Any = None
    runtime_s: float = 0.0
    solver: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def has_solution(self) -> bool:
        return self.solution is not None

    def to_json(self, solution_json: dict | None = None) -> dict[str, Any]:
        """The ``--json`` form of the CLI's ``solve``."""
        return {
            "problem": self.problem,
            "method": self.method,
            "status": self.status.value,
            "objective": finite_or_none(self.objective),
            "lower_bound": finite_or_none(self.lower_bound),
            "runtime_s": self.runtime_s,
            "solution": solution_json,
        }


@dataclass
class CheckReport:
    """Verdict of :func:`dmlsched.check` on one (instance, method).

    ``ratio`` is always >= 1 for a method no better than the reference:
    objective / reference for minimisation, reference / objective for maximisation.
    ``verdict`` is ``"holds"`` (ratio to a proven bound on the optimum is within the
    claimed bound), ``"violated"`` (even against a feasible, hence optimistic,
    reference value the claimed bound is exceeded) or ``"inconclusive"``.
    """

    problem: str
    method: str
    objective: float | None
    reference: str | None
    reference_objective: float | None
    ratio: float | None
    bound: float | None
    verdict: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "method": self.method,
            "objective": finite_or_none(self.objective),
            "reference": self.reference,
            "reference_objective": finite_or_none(self.reference_objective),
            "ratio": finite_or_none(self.ratio),
            "bound": finite_or_none(self.bound),
            "verdict": self.verdict,
            "details": self.details,
        }


def finite_or_none(x: float | None) -> float | None:
    """JSON has no inf/nan: map them to ``None``."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
