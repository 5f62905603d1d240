"""Non-clairvoyant Hare (HLAS paper, Sections IV-V): online HLAS / HLAS-P and
baselines simulated on the shared discrete-event engine."""

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

from . import heuristics  # noqa: E402,F401  (registers the policies)
from .heuristics import simulate, task_gpu_time  # noqa: E402

__all__ = ["HlasInstance", "HlasJob", "HlasRun", "completion_times", "jcts", "metrics", "simulate",
           "task_gpu_time"]
