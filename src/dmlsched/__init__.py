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
from .io import dumps, from_dict, load, loads, save, solution_to_json, to_dict
from .kit import Option, OptionError
from .registry import families, get_method, get_problem, methods, problem_of
from .result import CheckReport, Result, Status, Verdict
from .verify import evaluate, validate
from .version import __version__

logging.getLogger("dmlsched").addHandler(logging.NullHandler())


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
