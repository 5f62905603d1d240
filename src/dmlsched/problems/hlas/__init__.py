"""Non-clairvoyant Hare (HLAS paper, Sections IV-V): online HLAS / HLAS-P and
baselines simulated on the shared discrete-event engine.

Files: ``instance.py``, ``solution.py`` (validator: a feasible Hare schedule;
evaluator: average JCT), ``policies.py`` (priority rules), ``simulator.py``
(the execution model), ``heuristics.py`` (the policies as methods),
``cp.py`` (the clairvoyant offline optimum on CP-SAT, ``offline-exact``),
``models.py`` (the same on Hare's MIP, ``offline-mip``), ``bruteforce.py``
(``brute-force``), ``baselines.py`` (the paper's Sched_Homo and Sched_Allo
online, with a unit job size), ``prediction.py`` (HLAS-L's loss-fitting predictions), ``bounds.py``
(the contention-free ``lower-bound``: ours, the paper proves no bound for
HLAS), ``strategies.py`` (hypothesis), ``claims.py`` (the paper's claims).
"""

from ...registry import register_family
from . import instance, solution
from .instance import HlasInstance, HlasJob
from .solution import HlasRun, completion_times, jcts, metrics

SPEC = register_family(
    "hlas",
    instance,
    solution,
    instance_type=HlasInstance,
    sense="min",
    objective_name="average job completion time",
    default_reference="offline-exact",
)

from . import baselines, bounds, bruteforce, cp, heuristics, models  # noqa: E402,F401  (register the methods)
from .heuristics import simulate, task_gpu_time  # noqa: E402

__all__ = ["HlasInstance", "HlasJob", "HlasRun", "completion_times", "jcts", "metrics", "simulate",
           "task_gpu_time"]
