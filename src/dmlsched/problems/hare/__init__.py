"""Hare_Sched (Hare, HPDC'22): weighted completion time of round-synchronised
tasks on heterogeneous GPUs; its relaxations, Algorithm 1 and baselines."""

from ...registry import ProblemSpec, register_problem
from . import instance, solution
from .bounds import alpha, theorem4_ratio
from .instance import HareInstance, HareJob
from .solution import HareSchedule, completion_times

SPEC = register_problem(
    ProblemSpec(
        name="hare",
        instance_type=HareInstance,
        from_dict=instance.from_dict,
        to_dict=instance.to_dict,
        validate=solution.validate,
        evaluate=solution.evaluate,
        solution_to_json=solution.to_json,
        sense="min",
        objective_name="total weighted completion time",
        size=instance.size,
        default_reference="exact",
    )
)

from . import heuristics  # noqa: E402,F401  (registers methods)
from . import baselines  # noqa: E402,F401  (registers fifo, srtf, homo, allox)

from . import models  # noqa: E402,F401  (registers exact, relaxation)

__all__ = ["HareInstance", "HareJob", "HareSchedule", "alpha", "theorem4_ratio", "completion_times"]
