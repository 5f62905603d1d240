"""Harmony (Lee 2020, dissertation Chapter 4): grouping parameter-server jobs
with complementary CPU/network use and allocating machines to the groups, to
maximise cluster utilisation (4.1)-(4.4).

Methods: ``harmony`` (Algorithms 1-2), ``oracle`` (the dissertation's Oracle at
scale, Section 4.4.7), ``brute-force`` (every grouping, tiny instances),
``exact`` (MILP).  ``simulate=True`` runs the execution model
(``execution.py``) for average JCT, makespan and utilisation over the run.
Specification: ``models/harmony.md``; claims: ``claims.py``, ``proofs/harmony.md``."""

from ...registry import register_family
from . import instance, solution
from .bounds import FIG_4_17_RATIO, fig_4_17_ratio
from .instance import HarmonyInstance, HarmonyJob
from .solution import HarmonySolution, completion_times, group_stats, metrics

SPEC = register_family(
    "harmony",
    instance,
    solution,
    instance_type=HarmonyInstance,
    sense="max",
    objective_name="cluster utilisation U (4.4)",
    default_reference="brute-force",
)

from . import bruteforce, heuristics, models, oracle  # noqa: E402,F401  (register the methods)

__all__ = [
    "FIG_4_17_RATIO",
    "HarmonyInstance",
    "HarmonyJob",
    "HarmonySolution",
    "completion_times",
    "fig_4_17_ratio",
    "group_stats",
    "metrics",
]
