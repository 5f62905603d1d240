"""Cruise (Lee, dissertation 2020, Chapter 3): choosing worker/server roles and
integer data/model partitions of a parameter-server job to minimise the epoch
time (3.1)-(3.4).

Files: ``instance.py`` (machines, bandwidths, the job), ``solution.py``
(validator, evaluator: the epoch time), ``formulation.py`` (the MIP of
Figure 3.2, one variable per machine) and ``typemodel.py`` (its reformulation
over machine types with counts) <- ``models.py`` (``exact``: either model over
every number of workers, HiGHS/Gurobi), ``relaxation.py`` (``relaxation``: the
continuous relaxation, equal bandwidths), ``heuristics.py`` (``closed-form``: (3.5), homogeneous clusters),
``baselines.py`` (the dissertation's baselines, ``Family.baselines``: ``proportional``,
Section 3.4.2's rule of the grid-search ground truth; ``static``, the static starting
configurations of Sections 3.4.3 and 3.4.5),
``bruteforce.py`` (``brute-force``: enumeration over machines or machine
types), ``bounds.py`` (``lower-bound``), ``sample.py`` (random small instances and the hunt's caps),
``generate.py`` (the dissertation's setups),
``strategies.py`` (hypothesis),
``claims.py`` (the dissertation's claims).  Specification:
``models/cruise.md``; claims: ``proofs/cruise.md``.
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .instance import CruiseInstance
from .solution import CruiseConfig, epoch_times, evaluate_continuous

FAMILY = register_family(Family(
    name="cruise", package=__name__, instance_type=CruiseInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="epoch time", default_reference="exact",
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={
        "homogeneous_cluster": generate.homogeneous_cluster,
        "heterogeneous_cluster": generate.heterogeneous_cluster,
        "random_instance": generate.random_instance,
        "typed_cluster": generate.typed_cluster,
        "random_homogeneous": generate.random_homogeneous,
    },
    baselines=("proportional", "static"),  # Sec. 3.4.2 (the grid-search ground truth), Secs. 3.4.3, 3.4.5
))
SPEC = FAMILY  # the former name, kept for one release

from . import baselines, bounds, bruteforce, heuristics, models, relaxation  # noqa: E402,F401  (register methods)
from .bounds import continuous_lower_bound, lower_bound, lower_bound_for_workers  # noqa: E402

__all__ = [
    "CruiseConfig",
    "CruiseInstance",
    "continuous_lower_bound",
    "epoch_times",
    "evaluate_continuous",
    "lower_bound",
    "lower_bound_for_workers",
]
