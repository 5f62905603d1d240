"""The paper's six online policies (Section IV and V-B) registered as methods
of kind ``"policy"``: each simulates the policy on the instance and returns the
recorded allocation timeline.
"""

from __future__ import annotations

from ...registry import register_method
from ...result import Result, Status
from .bounds import edmonds_ratio
from .instance import MoldableInstance
from .policies import rigid
from .simulator import simulate
from .solution import evaluate, metrics

EDMONDS = (
    "Edmonds [9] as quoted in Sec. VII-A: Equipartition 2-competitive for average flow time "
    "with strictly sublinear speedup (assumptions in proofs/equipartition.md)"
)


def _run(inst: MoldableInstance, rule: str, malleable: bool, options: dict) -> Result:
    allowed = {"max_events"} | ({"blocking"} if rule.startswith("rigid") else set())
    unknown = set(options) - allowed
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    fn = rigid("arrival" if rule == "rigid-fcfs" else "volume", blocking=True) if options.get("blocking") else rule
    sched, stats = simulate(inst, fn, malleable=malleable, max_events=options.get("max_events"))
    obj = evaluate(inst, sched)
    return Result(
        problem="moldable",
        method="",
        status=Status.FEASIBLE,
        objective=obj,
        solution=sched,
        runtime_s=stats.wall_s,
        details={
            "events": stats.events,
            "decisions": stats.decisions,
            "preemptions": stats.preemptions,
            "simulation_s": stats.wall_s,
            "metrics": metrics(inst, sched),
        },
    )


def _register(name: str, rule: str, malleable: bool, doc: str, bound=None, bound_name=None):
    def fn(instance: MoldableInstance, *, solver: str = "highs", time_limit=None, seed: int = 0, **options) -> Result:
        return _run(instance, rule, malleable, options)

    fn.__doc__ = doc
    fn.__name__ = name.replace("-", "_")
    register_method("moldable", name, kind="policy", description=doc, bound=bound, bound_name=bound_name,
                    space=None if malleable else "non-preemptive")(fn)
    return fn


rigid_fcfs = _register(
    "rigid-fcfs", "rigid-fcfs", False,
    "Rigid FCFS: p_max dedicated GPUs, arrival order (option blocking=True: strict FCFS)",
)
rigid_shortest = _register(
    "rigid-shortest", "rigid-shortest", False,
    "Rigid Shortest: p_max dedicated GPUs, increasing volume (option blocking=True: no overtaking)",
)
moldable_equi = _register(
    "moldable-equi", "equi", False,
    "Moldable Equipartition (D'Hondt for vacant GPUs, fractional sharing); running tasks intact",
    bound=edmonds_ratio, bound_name=EDMONDS,
)
malleable_equi = _register(
    "malleable-equi", "equi", True,
    "Malleable Equipartition: re-partition queued and running tasks at every event",
    bound=edmonds_ratio, bound_name=EDMONDS,
)
moldable_prop = _register(
    "moldable-prop", "prop", False, "Moldable Proportional: f(v_rem, p) closest to t_trg; clairvoyant"
)
malleable_prop = _register(
    "malleable-prop", "prop", True, "Malleable Proportional: re-allocate all tasks towards t_trg at every event"
)
