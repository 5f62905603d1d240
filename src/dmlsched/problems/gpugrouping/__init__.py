"""GPU_Grouping (HLAS paper, Section IV-C, eqs. (4)-(6)): partition GPUs into
groups so that every job sees groups of similar speed.

Files: ``instance.py`` (speeds, GPU types), ``solution.py`` (validator,
evaluator), ``models.py`` (the MILP ``exact``), ``cp.py`` (the typed CP-SAT
model ``exact-cp``), ``heuristics.py`` (``greedy``), ``bruteforce.py``
(``brute-force``), ``sample.py`` (random small instances and the hunt's
caps), ``generate.py`` (random instances, ``grouping``; the paper's instance
is HLAS's setup ``paper_grouping``), ``strategies.py``
(hypothesis).  The paper claims no bound
and no number for the grouping, so the family has no ``bounds.py`` and no
``claims.py`` (Fig. 24, the number of groups, is an HLAS claim).
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .instance import GpuTypes, GroupingInstance, from_hlas, speeds_from_times
from .solution import Grouping, evaluate, group_speeds, ranges

FAMILY = register_family(Family(
    name="gpu-grouping", package=__name__, instance_type=GroupingInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="max over jobs of p_max - p_min", default_reference="exact-cp",
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={"grouping": generate.grouping},
    baselines=(),  # the paper compares the grouping with nothing
))
SPEC = FAMILY  # the former name, kept for one release

from . import bruteforce, cp, heuristics, models  # noqa: E402,F401  (register the methods)
from .bruteforce import brute_force_grouping, brute_force_typed  # noqa: E402
from .heuristics import greedy_grouping  # noqa: E402

__all__ = [
    "GpuTypes", "Grouping", "GroupingInstance", "brute_force_grouping", "brute_force_typed", "evaluate",
    "from_hlas", "greedy_grouping", "group_speeds", "ranges", "speeds_from_times",
]
