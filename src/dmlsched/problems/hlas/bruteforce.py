"""Exhaustive offline optimum of tiny HLAS instances: Hare's brute force
(every GPU assignment and per-GPU task order, left-shifted) on the instance
with unit weights.  Shares no argument with the CP-SAT model or the MIP; the
reference both are tested against.
"""

from __future__ import annotations

from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from ..hare.bruteforce import brute_force, count_candidates
from .instance import HlasInstance
from .models import unit_weight_hare
from .solution import HlasRun, completion_times


@method(
    "hlas",
    "brute-force",
    kind="exact",
    options=[Option("max_candidates", int, 200_000, "refuse (n/a) when more (assignment, order) pairs would be "
                    "enumerated", minimum=1)],
    description="Offline optimum by enumerating every GPU assignment and per-GPU order (tiny instances)",
)
def solve_brute_force(inst: HlasInstance, run: Run) -> Result:
    """Enumerates ``|M|^T`` assignments and every per-GPU order of ``T`` tasks; refuses
    (status ``n/a``) before enumerating when the count exceeds ``max_candidates``."""
    hare = unit_weight_hare(inst)
    count = count_candidates(hare)
    if count > run.options["max_candidates"]:
        raise NotApplicable(f"brute force would visit {fmt_count(count)} candidates, more than "
                            f"max_candidates = {fmt_count(run.options['max_candidates'])}")
    with run.stage("enumerate"):
        _, sched = brute_force(hare, max_candidates=run.options["max_candidates"])
    sol = HlasRun(gpu=sched.gpu, start=sched.start, finish=[0.0] * inst.num_jobs, policy="brute-force")
    sol.finish = completion_times(inst, sol)
    value = float(sol.finish.mean() - sum(j.arrival for j in inst.jobs) / inst.num_jobs)
    return run.result(solution=sol, bound=value, status=Status.OPTIMAL, candidates=count)


__all__ = ["solve_brute_force"]
