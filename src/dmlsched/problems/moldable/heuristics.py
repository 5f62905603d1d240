"""The paper's six online policies (Section IV and V-B) registered as methods
of kind ``"policy"``: each simulates the policy on the instance and returns the
recorded allocation timeline.
"""

from __future__ import annotations

from ...kit import Option, Run, method
from ...result import Result
from .bounds import edmonds_ratio
from .instance import MoldableInstance
from .policies import QUEUES, rigid
from .simulator import simulate
from .solution import metrics

EDMONDS = (
    "Edmonds [9] as quoted in Sec. VII-A: Equipartition 2-competitive for average flow time "
    "with strictly sublinear speedup (assumptions in proofs/equipartition.md)"
)


def _run(inst: MoldableInstance, run: Run, rule: str, malleable: bool) -> Result:
    fn = rule
    if rule.startswith("rigid"):
        fn = rigid("arrival" if rule == "rigid-fcfs" else "volume", run.options["queue"])
    with run.stage("simulate"):
        sched, stats = simulate(inst, fn, malleable=malleable, max_events=run.options["max_events"],
                                current_first=run.options.get("first_found") == "current-first")
    return run.result(
        solution=sched,
        events=stats.events,
        decisions=stats.decisions,
        preemptions=stats.preemptions,
        simulation_s=stats.wall_s,
        metrics=metrics(inst, sched),
    )


MAX_EVENTS = Option("max_events", int, None, "stop with an error after this many simulation events", minimum=1)
QUEUE = Option(
    "queue", str, "first-fit",
    "after a task that does not fit: first-fit (later tasks that fit start), strict (none overtakes), "
    "easy (EASY backfilling with a reservation for the first blocked task)",
    choices=QUEUES,
)
FIRST_FOUND = Option(
    "first_found", str, "lowest-index",
    "GPU a re-allocated task gets: lowest-index (the paper's first-found GPU) or current-first "
    "(its current GPUs searched first)",
    choices=("lowest-index", "current-first"),
)


def _register(name: str, rule: str, malleable: bool, doc: str, bound=None, bound_name=None):
    options = [MAX_EVENTS] + ([QUEUE] if rule.startswith("rigid") else []) + ([FIRST_FOUND] if malleable else [])

    def body(instance: MoldableInstance, run: Run) -> Result:
        return _run(instance, run, rule, malleable)

    body.__doc__ = doc
    body.__name__ = body.__qualname__ = name.replace("-", "_")
    return method("moldable", name, kind="policy", description=doc, bound=bound, bound_name=bound_name,
                  space=None if malleable else "non-preemptive", options=options)(body)


rigid_fcfs = _register(
    "rigid-fcfs", "rigid-fcfs", False,
    "Rigid FCFS: p_req dedicated GPUs, arrival order (option queue: first-fit, strict, easy)",
)
rigid_shortest = _register(
    "rigid-shortest", "rigid-shortest", False,
    "Rigid Shortest: p_req dedicated GPUs, increasing volume (option queue: first-fit, strict, easy)",
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
