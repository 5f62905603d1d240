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
    default_reference="exact",
)

from . import heuristics  # noqa: E402,F401  (registers methods)
from . import baselines  # noqa: E402,F401  (registers fifo, srtf, homo, allox)

from . import models  # noqa: E402,F401  (registers exact, relaxation)

__all__ = ["HareInstance", "HareJob", "HareSchedule", "alpha", "theorem4_ratio", "completion_times"]
