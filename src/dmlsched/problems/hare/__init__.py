"""Hare_Sched (Hare, HPDC'22): weighted completion time of round-synchronised
tasks on heterogeneous GPUs; its relaxations, Algorithm 1 and baselines.

Files (no import cycle; pyomo is imported only inside model builders):
``instance.py``, ``solution.py`` (validator, evaluator), ``listsched.py``
(Algorithm 1's list phase) <- ``box.py`` (start-time box; the type tables and
list incumbents of ``cp.py`` and ``bounds.py``) <- ``formulation.py``
(the Pyomo builder) <- ``relaxcheck.py`` (the plain check of a relaxed
solution) <- ``relaxation.py`` (Hare_Sched_RL (9) or the Queyranne
relaxation, method ``relaxation``; by default by ``decomposition.py`` with
``pricing.py`` and ``gpupoint.py``, ``models/hare-decomposition.md``) <- ``models.py`` (the exact MIP,
``exact``); ``heuristics.py`` (``list``, ``list-queyranne``, ``list-eft``,
``smith-eft``); ``baselines.py`` (the paper's baselines, ``Family.baselines``:
``fifo``, ``srtf``, ``homo``, and the round-level readings ``fifo-round``,
``srtf-round``) <- ``allox.py`` (baseline ``allox``, Sched_Allox: AlloX's matching); ``cp.py`` (``exact-cp``,
``models/hare-cp.md``); ``bounds.py`` (Theorem 4's ratio, the mended
ratio, and ``lower-bound``); ``bruteforce.py`` (left-shifted timing
and enumeration, the tests' reference); ``strategies.py`` (hypothesis);
``sample.py`` (random small instances and the hunt's caps);
``generate.py`` (the paper's setups: ``generate``, ``testbed``, ``simulation``, and the
Table 2 job types HLAS's setups share);
``claims.py`` (the paper's claims); ``guided.py`` (the solver-guided hunt
strategy of ``list`` and ``list-queyranne``, loaded by ``dmlsched.hunt``).
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .instance import HareInstance, HareJob
from .solution import HareSchedule, completion_times

FAMILY = register_family(Family(
    name="hare", package=__name__, instance_type=HareInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="total weighted completion time", default_reference="exact-cp",
    key_count=instance.key_count,
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={
        "generate": generate.generate,
        "testbed": generate.testbed,
        "simulation": generate.simulation,
    },
    baselines=("fifo", "srtf", "homo", "allox", "fifo-round", "srtf-round"),  # Sec. 7.1; models/hare-baselines.md
))
SPEC = FAMILY  # the former name, kept for one release

# the module layout is in the docstring above
from . import (  # noqa: E402  (each module registers its methods on import)
    allox,  # noqa: F401  (registers allox)
    baselines,  # noqa: F401  (registers fifo, srtf, fifo-round, srtf-round, homo)
    bounds,  # noqa: F401  (registers lower-bound)
    cp,  # noqa: F401  (registers exact-cp; models/hare-cp.md)
    heuristics,  # noqa: F401  (registers list, list-queyranne, list-eft, smith-eft)
    models,  # noqa: F401  (registers exact, relaxation)
)
from .bounds import alpha, theorem4_ratio  # noqa: E402

__all__ = ["HareInstance", "HareJob", "HareSchedule", "alpha", "theorem4_ratio", "completion_times"]
