"""Cruise (Lee, dissertation 2020, Chapter 3): choosing worker/server roles and
integer data/model partitions of a parameter-server job to minimise the epoch
time (3.1)-(3.4).

Methods: ``exact`` (the MIP of Figure 3.2, HiGHS/Gurobi), ``exact-typed``
(enumeration over machine types), ``brute-force`` (tiny instances),
``closed-form`` ((3.5), homogeneous clusters), ``proportional`` (Section
3.4.2's heuristic), ``relaxation`` (continuous relaxation, equal bandwidths)
and ``lower-bound``.  Specification: ``models/cruise.md``; claims:
``proofs/cruise.md``."""

from ...registry import register_family, register_method
from ...result import Result, Status
from . import instance, solution
from .bounds import continuous_lower_bound, lower_bound, lower_bound_for_workers
from .instance import CruiseInstance
from .solution import CruiseConfig, epoch_times, evaluate_continuous

SPEC = register_family(
    "cruise",
    instance,
    solution,
    instance_type=CruiseInstance,
    sense="min",
    objective_name="epoch time",
    default_reference="exact",
)

from . import brute, heuristics, models, typed  # noqa: E402,F401  (register methods)


@register_method(
    "cruise",
    "lower-bound",
    kind="bound",
    description="Proven lower bound: min over W of the per-worker capacity bound (bounds.py)",
)
def solve_lower_bound(inst, *, solver="highs", time_limit=None, seed=0, **options) -> Result:
    """:func:`.bounds.lower_bound` (exact optimum on homogeneous clusters)."""
    if options:
        raise TypeError(f"unknown option(s) for cruise/lower-bound: {', '.join(options)}")
    v = lower_bound(inst)
    return Result("cruise", "lower-bound", Status.OPTIMAL, objective=v, bound=v)


__all__ = [
    "CruiseConfig",
    "CruiseInstance",
    "continuous_lower_bound",
    "epoch_times",
    "evaluate_continuous",
    "lower_bound",
    "lower_bound_for_workers",
]
