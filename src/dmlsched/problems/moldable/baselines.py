"""The paper's baselines (Section V-B): "As a baseline for comparison, the
scheduler also implements two rigid scheduling algorithms that allocate the
exact number of GPUs as requested."

* ``rigid-fcfs`` -- "*Rigid FCFS*: A first-come-first-serve algorithm that
  allocates p_k^{max} to each task k in Q in the arrival order."
* ``rigid-shortest`` -- "*Rigid Shortest*: A shortest-task-first algorithm that
  allocates p_k^{max} to each task k in Q sorted by v_k in an ascending order."

Both are allocation rules of the shared execution model (:func:`.policies.rigid`,
:mod:`.simulator`), run by :func:`.heuristics.run_policy` as the paper's own
policies are, non-preemptive; option ``queue`` is the reading of what follows a
task that does not fit (``models/moldable.md``).
"""

from __future__ import annotations

from ...kit import Option, Run, method
from ...result import Result
from .heuristics import MAX_EVENTS, run_policy
from .instance import MoldableInstance
from .policies import QUEUES, rigid

QUEUE = Option(
    "queue", str, "first-fit",
    "after a task that does not fit: first-fit (later tasks that fit start), strict (none overtakes), "
    "easy (EASY backfilling with a reservation for the first blocked task)",
    choices=QUEUES,
)
RIGID_FCFS = "Rigid FCFS: p_req dedicated GPUs, arrival order (option queue: first-fit, strict, easy)"
RIGID_SHORTEST = "Rigid Shortest: p_req dedicated GPUs, increasing volume (option queue: first-fit, strict, easy)"


@method("moldable", "rigid-fcfs", kind="policy", description=RIGID_FCFS, space="non-preemptive",
        options=[MAX_EVENTS, QUEUE])
def rigid_fcfs(instance: MoldableInstance, run: Run) -> Result:
    """Rigid FCFS: p_req dedicated GPUs, arrival order (option queue: first-fit, strict, easy)"""
    return run_policy(instance, run, rigid("arrival", run.options["queue"]), malleable=False)


@method("moldable", "rigid-shortest", kind="policy", description=RIGID_SHORTEST, space="non-preemptive",
        options=[MAX_EVENTS, QUEUE])
def rigid_shortest(instance: MoldableInstance, run: Run) -> Result:
    """Rigid Shortest: p_req dedicated GPUs, increasing volume (option queue: first-fit, strict, easy)"""
    return run_policy(instance, run, rigid("volume", run.options["queue"]), malleable=False)


__all__ = ["QUEUE", "rigid_fcfs", "rigid_shortest"]
