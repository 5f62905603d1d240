"""Non-clairvoyant Hare (HLAS paper, Sections IV-V): online HLAS / HLAS-P and
baselines simulated on the shared discrete-event engine.

Files: ``instance.py``, ``solution.py`` (validator: a feasible Hare schedule;
evaluator: average JCT), ``policies.py`` (priority rules), ``simulator.py``
(the execution model), ``heuristics.py`` (the policies as methods: ``hlas``,
``hlas-p``, ``hlas-l`` and the clairvoyant ceiling ``srtf``),
``cp.py`` (the clairvoyant offline optimum on CP-SAT, ``offline-exact``),
``models.py`` (the same on Hare's MIP, ``offline-mip``), ``bruteforce.py``
(``brute-force``), ``baselines.py`` (the paper's baselines, ``Family.baselines``:
``fifo`` and ``2d-las`` on the execution model, Sched_Homo and Sched_Allo online
with a unit job size), ``prediction.py`` (HLAS-L's loss-fitting predictions), ``bounds.py``
(the contention-free ``lower-bound``: ours, the paper proves no bound for
HLAS), ``generate.py`` (the paper's setup, and its GPU_Grouping instance
``paper_grouping``), ``sample.py`` (the one random builder, ``FAMILY.sample``; no hunt space),
``strategies.py`` (hypothesis, through ``sample.py``), ``claims.py`` (the paper's claims).
"""

from ...family import Family, Ref
from ...registry import register_family
from . import generate, instance, sample, solution
from .instance import HlasInstance, HlasJob
from .solution import HlasRun, completion_times, jcts, metrics

FAMILY = register_family(Family(
    name="hlas", package=__name__, instance_type=HlasInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    no_solution_from_json="no reader of a run's JSON is written (above solution.JSON_MAX_TASKS tasks it omits "
                          "the task list, so a run cannot always be rebuilt); gantt --results draws the "
                          "recorded task bars as they are",
    sense="min", objective_name="average job completion time", default_reference="offline-exact",
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    sample=sample.random_instance, hunt=None,
    generators={"generate": generate.generate, "paper_grouping": generate.paper_grouping},
    baselines=("fifo", "sched-homo", "sched-allo", "2d-las"),  # Sec. VI-D: "four other algorithms"
    uses=("hare", "gpu-grouping"),
))
SPEC = FAMILY  # the former name, kept for one release

from . import baselines, bounds, bruteforce, cp, heuristics, models  # noqa: E402,F401  (register the methods)
from .heuristics import simulate, task_gpu_time  # noqa: E402

__all__ = ["HlasInstance", "HlasJob", "HlasRun", "completion_times", "jcts", "metrics", "simulate",
           "task_gpu_time"]
