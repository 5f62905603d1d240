"""Status, Verdict, Result and CheckReport: what every method and checker returns."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """Outcome of a method run.

    ============== ==============================================================
    ``optimal``    a proven optimum of the problem: the method's value and its proven
                   bound agree to the relative tolerance (:data:`dmlsched.kit.OPTIMALITY_GAP`);
    ``feasible``   a valid solution, optimality not proven (heuristics, or a limit hit
                   with an incumbent kept);
    ``bound``      a bound method's value: a proven bound on the optimum (lower for
                   minimisation, upper for maximisation), never a solution's value
                   (``details["bound_complete"]`` says whether its computation ran to
                   its end or a limit stopped it with a weaker, still valid, bound);
    ``infeasible`` the instance has no feasible solution (proven);
    ``time_limit`` the limit was hit with no incumbent;
    ``n/a``        the method refused the instance before running: outside its
                   domain, or more than it can hold in the time or memory it was
                   given (the reason in ``details["error"]``);
    ``error``      the run failed (message in ``details["error"]``).
    ============== ==============================================================
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    BOUND = "bound"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    NOT_APPLICABLE = "n/a"
    ERROR = "error"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value

    @property
    def has_solution(self) -> bool:
        return self in (Status.OPTIMAL, Status.FEASIBLE)


class Verdict(str, Enum):
    """What :func:`dmlsched.check` concludes about a claimed approximation bound.

    ================ ============================================================
    ``holds``        the method's objective over a *proven* bound on the optimum
                     is within the claimed ratio;
    ``violated``     even against a *feasible* reference value (optimistic for
                     the optimum) the claimed ratio is exceeded;
    ``inconclusive`` neither could be shown (reference not proven, gap too wide);
    ``no_bound``     the method claims no bound, or its claimed bound is infinite
                     on this instance (nothing can hold or fail);
    ``n/a``          the method did not produce an objective (refused, failed).
    ================ ============================================================
    """

    HOLDS = "holds"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"
    NO_BOUND = "no_bound"
    NOT_APPLICABLE = "n/a"

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
    bound
        A proven bound on the optimum, in the direction of the family's
        ``sense``: a lower bound for minimisation, an upper bound for
        maximisation; ``None`` without one.  :attr:`lower_bound` and
        :attr:`upper_bound` name the two sides explicitly.
    solution
        The family's solution object (``None`` for pure bound methods).
    runtime_s
        Wall-clock seconds of the method.
    solver
        Solver used (``"highs"``, ``"gurobi"``, ``"cpsat"``) or ``None`` for
        combinatorial methods.
    details
        Extra information under documented keys (``solver_status``,
        ``stages`` with the seconds of each stage, ``reproducible``,
        ``deadline_cut``, solver figures, counters).
    sense
        ``"min"`` or ``"max"`` (copied from the family by :func:`dmlsched.solve`).
    """

    problem: str
    method: str
    status: Status
    objective: float | None = None
    bound: float | None = None
    solution: Any = None
    runtime_s: float = 0.0
    solver: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    sense: str = "min"

    @property
    def has_solution(self) -> bool:
        return self.solution is not None

    @property
    def lower_bound(self) -> float | None:
        """A proven lower bound on the optimum: ``bound`` (minimisation), or
        the objective of the feasible solution (maximisation)."""
        if self.sense == "min":
            return self.bound
        return self.objective if self.solution is not None else None

    @property
    def upper_bound(self) -> float | None:
        """A proven upper bound on the optimum: the objective of the feasible
        solution (minimisation), or ``bound`` (maximisation)."""
        if self.sense == "max":
            return self.bound
        return self.objective if self.solution is not None else None

    @property
    def gap(self) -> float | None:
        """Relative gap ``|objective - bound| / |objective|`` (``None`` without both)."""
        if self.objective is None or self.bound is None or self.solution is None:
            return None
        o, b = float(self.objective), float(self.bound)
        if not (math.isfinite(o) and math.isfinite(b)):
            return None
        if o == b:
            return 0.0
        return abs(o - b) / max(abs(o), 1e-12)

    @property
    def reproducible(self) -> bool:
        """False when a wall-clock limit cut a computation whose result it changes."""
        return bool(self.details.get("reproducible", True))

    def to_json(self, solution_json: dict | None = None) -> dict[str, Any]:
        """The ``--json`` form of the CLI's ``solve``."""
        return {
            "problem": self.problem,
            "method": self.method,
            "status": self.status.value,
            "sense": self.sense,
            "objective": finite_or_none(self.objective),
            "bound": finite_or_none(self.bound),
            "lower_bound": finite_or_none(self.lower_bound),
            "upper_bound": finite_or_none(self.upper_bound),
            "runtime_s": self.runtime_s,
            "reproducible": self.reproducible,
            "details": json_details(self.details),
            "solution": solution_json,
        }


@dataclass
class CheckReport:
    """Verdict of :func:`dmlsched.check` on one (instance, method).

    Ratios are >= 1 for a method no better than the reference: value / reference
    for minimisation, reference / value for maximisation.

    Attributes
    ----------
    objective
        The method's objective.
    reference, reference_status
        The reference method and how it ended.
    reference_objective
        The objective of the reference's feasible solution (``None`` without one).
    reference_bound
        The reference's proven bound on the optimum (its proven optimum when it
        is optimal); ``None`` when it proved none.
    reference_optimal
        Whether the reference proved optimality.
    ratio
        objective against ``reference_objective`` (what the method loses to the
        reference's solution).
    ratio_to_bound
        objective against ``reference_bound``: an upper bound on the method's
        true approximation ratio on this instance.
    bound
        The paper's claimed ratio for the method (``None``: none claimed).
    verdict
        A :class:`Verdict`: ``holds`` when ``ratio_to_bound <= bound``,
        ``violated`` when ``ratio > bound``, else ``inconclusive``;
        ``no_bound`` without a finite claim; ``n/a`` without an objective.
    """

    problem: str
    method: str
    objective: float | None
    reference: str | None
    reference_objective: float | None
    ratio: float | None
    bound: float | None
    verdict: Verdict
    reference_bound: float | None = None
    reference_optimal: bool = False
    reference_status: str | None = None
    ratio_to_bound: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "method": self.method,
            "objective": finite_or_none(self.objective),
            "reference": self.reference,
            "reference_status": self.reference_status,
            "reference_objective": finite_or_none(self.reference_objective),
            "reference_bound": finite_or_none(self.reference_bound),
            "reference_optimal": self.reference_optimal,
            "ratio": finite_or_none(self.ratio),
            "ratio_to_bound": finite_or_none(self.ratio_to_bound),
            "bound": finite_or_none(self.bound),
            "verdict": Verdict(self.verdict).value,
            "details": json_details(self.details),
        }


def finite_or_none(x: float | None) -> float | None:
    """JSON has no inf/nan: map them to ``None``."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def json_details(details: dict[str, Any]) -> dict[str, Any]:
    """``details`` with every value JSON-able (non-finite floats become ``None``,
    enums their value, other objects their ``str``)."""

    def conv(v: Any) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, Enum):
            return v.value
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return finite_or_none(v)
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        try:  # numpy scalars
            if isinstance(v, numbers.Integral):
                return int(v)
            if isinstance(v, numbers.Real):
                return finite_or_none(float(v))
        except Exception:  # pragma: no cover
            pass
        return str(v)

    return {str(k): conv(v) for k, v in (details or {}).items()}
