"""GPU_Grouping (HLAS paper, Section IV-C, eqs. (4)-(6)): partition GPUs into
groups so that every job sees groups of similar speed.

Files: ``instance.py`` (speeds, GPU types), ``solution.py`` (validator,
evaluator), ``models.py`` (the MILP ``exact``), ``cp.py`` (the typed CP-SAT
model ``exact-cp``), ``heuristics.py`` (``greedy``), ``bruteforce.py``
(``brute-force``), ``strategies.py`` (hypothesis).  The paper claims no bound
and no number for the grouping, so the family has no ``bounds.py`` and no
``claims.py`` (Fig. 24, the number of groups, is an HLAS claim).
"""

from ...registry import register_family
from . import instance, solution
from .instance import GpuTypes, GroupingInstance, from_hlas, speeds_from_times
from .solution import Grouping, evaluate, group_speeds, ranges

SPEC = register_family(
    "gpu-grouping",
    instance,
    solution,
    instance_type=GroupingInstance,
    sense="min",
    objective_name="max over jobs of p_max - p_min",
    default_reference="exact-cp",
)

from . import bruteforce, cp, heuristics, models  # noqa: E402,F401  (register the methods)
from .bruteforce import brute_force_grouping, brute_force_typed  # noqa: E402
from .heuristics import greedy_grouping  # noqa: E402

__all__ = [
    "GpuTypes", "Grouping", "GroupingInstance", "brute_force_grouping", "brute_force_typed", "evaluate",
    "from_hlas", "greedy_grouping", "group_speeds", "ranges", "speeds_from_times",
]
