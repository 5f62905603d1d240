"""RAR-DDLS (Yu, Ji, Rajan, Liu, MobiHoc'22): ring-all-reduce jobs with
communication contention; SJF-BCO, its baselines, the ILP (14)-(16) lower
bound and the ILP (10)-(13) over enumerated schedule sets.

Files: ``instance.py``, ``solution.py`` (validator, evaluator: makespan in
slots), ``heuristics.py`` (``sjf-bco``, ``greedy``; the list dispatcher and
the placement rules), ``baselines.py`` (the paper's baselines, ``Family.baselines``: ``ff``, ``ls``,
``rand``), ``models.py`` (``exact``, ``exact-nd``: ILP (10)-(13);
``ilp-bound``: ILP (14)-(16)), ``cp.py`` (``exact-cp``), ``dp.py``
(``exact-dp``), ``counts.py`` (count-vector schedules shared by the
formulations, bounds, heuristics, exact-cp and exact-dp), ``bounds.py``
(Theorem 5's ratio, the solver-free lower bounds, ``lower-bound``),
``horizon.py`` (the load bound, energetic reasoning and the family's
``infeasible`` check: no schedule within the horizon),
``sample.py`` (random small instances and the hunt's caps),
``generate.py`` (the paper's setups),
``strategies.py`` (hypothesis), ``claims.py`` (the paper's claims).
Specification: ``models/rar.md``.
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .horizon import horizon_infeasible
from .instance import RarInstance, RarJob
from .solution import RarSchedule, average_jct, completion_times

FAMILY = register_family(Family(
    name="rar", package=__name__, instance_type=RarInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="makespan (slots)", default_reference="exact-cp",
    infeasible=horizon_infeasible,
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={
        "generate": generate.generate,
        "small": generate.small,
        "paper_instance": generate.paper_instance,
        "servers_sweep": generate.servers_sweep,
    },
    baselines=("ff", "ls", "rand"),  # Sec. 7, "Baselines for Comparison"
))
SPEC = FAMILY  # the former name, kept for one release

from . import (  # noqa: E402  (each module registers its methods on import)
    baselines,  # noqa: F401  (registers ff, ls, rand)
    bounds,  # noqa: F401  (registers lower-bound)
    cp,  # noqa: F401  (registers exact-cp)
    dp,  # noqa: F401  (registers exact-dp)
    heuristics,  # noqa: F401  (registers methods)
    models,  # noqa: F401  (registers methods)
)
from .bounds import l_u, phi, rho_hat, theorem5_ratio  # noqa: E402,F401

__all__ = ["RarInstance", "RarJob", "RarSchedule", "average_jct", "completion_times", "l_u", "phi",
           "rho_hat", "theorem5_ratio"]
