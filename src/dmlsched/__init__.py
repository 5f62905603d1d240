"""dmlsched: exact formulations, approximation algorithms and bound checkers for
scheduling distributed machine-learning jobs on GPU clusters.

>>> import dmlsched
>>> inst = dmlsched.load("instances/hare/tiny.json")       # doctest: +SKIP
>>> res = dmlsched.solve(inst, method="list")              # doctest: +SKIP
>>> rep = dmlsched.check(inst, method="list", reference="exact")  # doctest: +SKIP
"""

from __future__ import annotations

import logging

from .api import check, compare, solve
from .errors import (
    DmlschedError,
    InstanceError,
    InvalidSolutionError,
    NotApplicable,
    SolverError,
    SolverLimitError,
    UnknownMethodError,
)
from .io import dumps, from_dict, load, loads, save, to_dict
from .kit import Option, OptionError
from .registry import families, get_method, get_problem, methods, problem_of
from .result import CheckReport, Result, Status, Verdict
from .version import __version__

logging.getLogger("dmlsched").addHandler(logging.NullHandler())


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


def solution_to_json(instance, solution) -> dict:
    """The JSON form of ``solution`` (as printed by ``dmlsched solve --json``)."""
    return problem_of(instance).solution_to_json(instance, solution)


__all__ = [
    "__version__",
    "CheckReport",
    "DmlschedError",
    "InstanceError",
    "InvalidSolutionError",
    "NotApplicable",
    "Option",
    "OptionError",
    "Result",
    "SolverError",
    "SolverLimitError",
    "Status",
    "UnknownMethodError",
    "Verdict",
    "check",
    "compare",
    "dumps",
    "evaluate",
    "families",
    "from_dict",
    "get_method",
    "get_problem",
    "load",
    "loads",
    "methods",
    "problem_of",
    "save",
    "solution_to_json",
    "solve",
    "to_dict",
    "validate",
]
