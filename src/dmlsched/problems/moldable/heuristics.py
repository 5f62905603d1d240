"""The paper's own online policies (Section IV), Equipartition and
Proportional, moldable and malleable, registered as methods of kind
``"policy"``: each simulates the policy on the instance and returns the
recorded allocation timeline.  The paper's baselines, Rigid FCFS and Rigid
Shortest, are registered in ``baselines.py`` and run by :func:`run_policy` too.
"""

from __future__ import annotations

from typing import Callable

from ...kit import Option, Run, method
from ...result import Result
from .bounds import edmonds_ratio
from .instance import MoldableInstance
from .simulator import simulate
from .solution import metrics

EDMONDS = (
    "Edmonds [9] as quoted in Sec. VII-A: Equipartition 2-competitive for average flow time "
    "with strictly sublinear speedup (assumptions in proofs/equipartition.md)"
)


def run_policy(inst: MoldableInstance, run: Run, rule: str | Callable, malleable: bool) -> Result:
    """The body of every policy method: :func:`~.simulator.simulate` the allocation ``rule``
    (a name of :mod:`.policies` or a rule object) and return the timeline with the run's counters."""
    with run.stage("simulate"):
        sched, stats = simulate(inst, rule, malleable=malleable, max_events=run.options["max_events"],
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
FIRST_FOUND = Option(
    "first_found", str, "lowest-index",
    "GPU a re-allocated task gets: lowest-index (the paper's first-found GPU) or current-first "
    "(its current GPUs searched first)",
    choices=("lowest-index", "current-first"),
)


def _register(name: str, rule: str, malleable: bool, doc: str, bound=None, bound_name=None):
    options = [MAX_EVENTS] + ([FIRST_FOUND] if malleable else [])

    def body(instance: MoldableInstance, run: Run) -> Result:
        return run_policy(instance, run, rule, malleable)

    body.__doc__ = doc
    body.__name__ = body.__qualname__ = name.replace("-", "_")
    return method("moldable", name, kind="policy", description=doc, bound=bound, bound_name=bound_name,
                  space=None if malleable else "non-preemptive", options=options)(body)


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
