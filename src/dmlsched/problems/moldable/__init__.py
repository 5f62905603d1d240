"""Moldable and malleable GPU scheduling (Fujiwara, Tanaka, Taura, Torisawa:
"Effectiveness of Moldable and Malleable Scheduling in Deep Learning Tasks"):
Equipartition with D'Hondt apportionment, Proportional, Rigid, exact methods
(a CP-SAT model with real start times and a time-indexed MIP), a lower bound
valid for preemptive schedules, and readers of real traces
(:mod:`dmlsched.traces`; the converters in ``traces.py``).

Files: ``instance.py`` (tasks, speedup curves), ``solution.py`` (validator,
evaluator: total flow time), ``heuristics.py`` (the paper's four policies as
methods: Equipartition and Proportional, moldable and malleable), ``baselines.py``
(the paper's baselines, ``Family.baselines``: ``rigid-fcfs``, ``rigid-shortest``),
``policies.py`` (their allocation rules), ``simulator.py`` (the
discrete-event execution model), ``incremental.py`` (malleable
Equipartition re-divided incrementally on whole-GPU instances, the same
segments as the simulator's general path), ``dhondt.py`` (D'Hondt apportionment),
``models.py`` (``exact``: time-indexed MIP), ``cp.py`` (``exact-cp``),
``bounds.py`` (``preemptive-lb``, the quoted ratio), ``sample.py`` (random small
instances and the hunt's caps), ``generate.py`` (the paper's setups), ``traces.py``
(the converters of SWF and openb traces), ``strategies.py``
(hypothesis), ``claims.py`` (the paper's claims).
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .dhondt import dhondt
from .instance import MoldableInstance, MoldableTask, SpeedupCurve
from .solution import MoldableSchedule, gantt_tasks, metrics

FAMILY = register_family(Family(
    name="moldable", package=__name__, instance_type=MoldableInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="total flow time", default_reference="exact-cp",
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=sample.HUNT,
    generators={
        "paper_like": generate.paper_like,
        "swf": generate.swf,
        "gpu_workload": generate.gpu_workload,
        "openb": generate.openb,
        "batch": generate.batch,
    },
    baselines=("rigid-fcfs", "rigid-shortest"),  # Sec. V-B: "As a baseline for comparison"
))
SPEC = FAMILY  # the former name, kept for one release

from . import (  # noqa: E402  (each module registers its methods on import)
    baselines,  # noqa: F401  (registers "rigid-fcfs", "rigid-shortest")
    bounds,  # noqa: F401  (registers "preemptive-lb")
    cp,  # noqa: F401  (registers "exact-cp")
    heuristics,  # noqa: F401  (registers the policies)
    models,  # noqa: F401  (registers "exact")
)

__all__ = [
    "MoldableInstance",
    "MoldableSchedule",
    "MoldableTask",
    "SpeedupCurve",
    "dhondt",
    "gantt_tasks",
    "metrics",
]

