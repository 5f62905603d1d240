"""GPU_Grouping (HLAS paper, Section IV-C, eqs. (4)-(6)): partition GPUs into
groups so that every job sees groups of similar speed."""

from ...registry import ProblemSpec, register_problem
from . import instance, solution
from .instance import GroupingInstance, from_hlas, speeds_from_times
from .solution import Grouping, evaluate, group_speeds, ranges

SPEC = register_problem(
    ProblemSpec(
        name="gpu-grouping",
        instance_type=GroupingInstance,
        from_dict=instance.from_dict,
        to_dict=instance.to_dict,
        validate=solution.validate,
        evaluate=solution.evaluate,
        solution_to_json=solution.to_json,
        sense="min",
        objective_name="max over jobs of p_max - p_min",
        size=instance.size,
        default_reference="exact",
    )
)

from . import heuristics  # noqa: E402,F401  (registers greedy, brute-force)
from . import models  # noqa: E402,F401  (registers exact)
from .heuristics import brute_force_grouping, greedy_grouping  # noqa: E402

__all__ = [
    "Grouping", "GroupingInstance", "brute_force_grouping", "evaluate", "from_hlas",
    "greedy_grouping", "group_speeds", "ranges", "speeds_from_times",
]
