"""Harmony (Lee 2020, dissertation Chapter 4): grouping parameter-server jobs
with complementary CPU/network use and allocating machines to the groups, to
maximise cluster utilisation (4.1)-(4.4).

Files: ``instance.py``, ``solution.py`` (validator, evaluator: utilisation
(4.4)), ``heuristics.py`` (``harmony``: Algorithms 1-2), ``baselines.py``
(the dissertation's baselines, ``Family.baselines``; ``oracle``: the
dissertation's Oracle at scale, Section 4.4.7; ``isolated``: the
dissertation's isolated baseline, Section 4.4.1),
``bruteforce.py`` (``brute-force``: every grouping, tiny instances),
``models.py`` (``exact``: MILP), ``bounds.py`` (the Fig. 4.17 claim as a
ratio), ``simulator.py`` (the execution model's simulation: with
``simulate=True``, average JCT, makespan and utilisation over the run; the
run's validator and metrics are in ``solution.py``, the policies beside their
methods in ``heuristics.py`` and ``baselines.py``; Gantt bars:
``solution.gantt_bars``),
``sample.py`` (random small instances and the hunt's caps), ``generate.py`` (the
evaluation workloads), ``strategies.py`` (hypothesis),
``claims.py`` (the dissertation's claims).  Specification:
``models/harmony.md``; claims: ``proofs/harmony.md``.
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .bounds import FIG_4_17_RATIO, fig_4_17_ratio
from .instance import HarmonyInstance, HarmonyJob
from .solution import HarmonySolution, completion_times, group_stats, metrics

FAMILY = register_family(Family(
    name="harmony", package=__name__, instance_type=HarmonyInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="max", objective_name="cluster utilisation U (4.4)", default_reference="brute-force",
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={
        "evaluation_workload": generate.evaluation_workload,
        "sample_workload": generate.sample_workload,
    },
    baselines=("isolated", "oracle"),  # Sec. 4.4.1 (isolated; naively co-located is not implemented), Sec. 4.4.7
))
SPEC = FAMILY  # the former name, kept for one release

from . import baselines, bruteforce, heuristics, models  # noqa: E402,F401  (register the methods)

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
