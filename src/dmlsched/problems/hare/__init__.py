"""Hare_Sched (Hare, HPDC'22): weighted completion time of round-synchronised
tasks on heterogeneous GPUs; its relaxations, Algorithm 1 and baselines."""

from ...registry import register_family
from . import instance, solution
from .bounds import alpha, theorem4_ratio
from .instance import HareInstance, HareJob
from .solution import HareSchedule, completion_times

SPEC = register_family(
    "hare",
    instance,
    solution,
    instance_type=HareInstance,
    sense="min",
    objective_name="total weighted completion time",
    default_reference="exact-cp",
)

# Module layout (no import cycle; pyomo is imported only inside model builders):
#   listsched (Algorithm 1's list phase) <- box (start-time box) <- formulation (Pyomo builder)
#   <- relaxation (RL / Queyranne, method relaxation) <- models (exact MIP, method exact)
#   heuristics (list, list-queyranne, list-eft, smith-eft) <- relaxation, listsched
#   baselines (fifo, srtf, fifo-round, srtf-round, homo, allox)
from . import models  # noqa: E402,F401  (registers exact, relaxation)
from . import heuristics  # noqa: E402,F401  (registers list, list-queyranne, list-eft, smith-eft)
from . import baselines  # noqa: E402,F401  (registers fifo, srtf, fifo-round, srtf-round, homo, allox)
from . import cp, lowerbounds  # noqa: E402,F401  (registers exact-cp, lower-bound; models/hare-cp.md)

__all__ = ["HareInstance", "HareJob", "HareSchedule", "alpha", "theorem4_ratio", "completion_times"]
