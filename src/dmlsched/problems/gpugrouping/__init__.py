"""GPU_Grouping (HLAS paper, Section IV-C, eqs. (4)-(6)): partition GPUs into
groups so that every job sees groups of similar speed."""

from ...registry import register_family
from . import instance, solution
from .instance import GroupingInstance, from_hlas, speeds_from_times
from .solution import Grouping, evaluate, group_speeds, ranges

SPEC = register_family(
    "gpu-grouping",
    instance,
    solution,
    instance_type=GroupingInstance,
    sense="min",
    objective_name="max over jobs of p_max - p_min",
    default_reference="exact",
)

from . import heuristics  # noqa: E402,F401  (registers greedy, brute-force)
from . import models  # noqa: E402,F401  (registers exact)
from .heuristics import brute_force_grouping, greedy_grouping  # noqa: E402

__all__ = [
    "Grouping", "GroupingInstance", "brute_force_grouping", "evaluate", "from_hlas",
    "greedy_grouping", "group_speeds", "ranges", "speeds_from_times",
]
