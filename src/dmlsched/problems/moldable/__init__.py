"""Moldable and malleable GPU scheduling (Fujiwara, Tanaka, Taura, Torisawa:
"Effectiveness of Moldable and Malleable Scheduling in Deep Learning Tasks"):
Equipartition with D'Hondt apportionment, Proportional, Rigid, an exact
time-indexed MIP, and readers of real traces (:mod:`dmlsched.traces`)."""

from ...registry import ProblemSpec, register_problem
from . import instance, solution
from .dhondt import dhondt
from .instance import MoldableInstance, MoldableTask, SpeedupCurve
from .solution import MoldableSchedule, metrics

SPEC = register_problem(
    ProblemSpec(
        name="moldable",
        instance_type=MoldableInstance,
        from_dict=instance.from_dict,
        to_dict=instance.to_dict,
        validate=solution.validate,
        evaluate=solution.evaluate,
        solution_to_json=solution.to_json,
        sense="min",
        objective_name="total flow time",
        size=instance.size,
        default_reference="exact",
    )
)

from . import heuristics  # noqa: E402,F401  (registers the policies)

from . import models  # noqa: E402,F401  (registers "exact")

__all__ = [
    "MoldableInstance",
    "MoldableSchedule",
    "MoldableTask",
    "SpeedupCurve",
    "dhondt",
    "metrics",
]
