"""Template family brute force: every job order (tiny instances), the reference
the models are tested against.

Exact because some optimal schedule has no idle time (shifting a job left
never delays a completion), so it is one of the ``n!`` orders.  The pattern to
copy: count the candidates first and refuse (``NotApplicable``, status
``n/a``) past ``max_candidates`` before enumerating; report the count with
:func:`dmlsched.kit.fmt_count`.
"""

from __future__ import annotations

import itertools
import math

from dmlsched.errors import NotApplicable
from dmlsched.kit import Option, Run, fmt_count, method
from dmlsched.result import Result, Status

from .instance import PROBLEM, TemplateInstance
from .solution import TemplateSchedule, evaluate, from_order


def brute_force(inst: TemplateInstance) -> tuple[TemplateSchedule, float, int]:
    """Enumerate every order; returns (best schedule, its value, orders tried)."""
    best, best_val, tried = None, math.inf, 0
    for order in itertools.permutations(range(inst.num_jobs)):
        tried += 1
        sol = from_order(inst, list(order))
        v = evaluate(inst, sol)
        if v < best_val:
            best, best_val = sol, v
    return best, best_val, tried


@method(PROBLEM, "brute-force", kind="exact", description="Enumerates every job order (n!)",
        options=[Option("max_candidates", int, 100_000, "refuse (n/a) when more orders would be enumerated",
                        minimum=1)])
def solve_brute(inst: TemplateInstance, run: Run) -> Result:
    """Exhaustive search over orders; exact by construction."""
    count = math.factorial(inst.num_jobs)
    if count > run.options["max_candidates"]:
        raise NotApplicable(f"brute force would enumerate {fmt_count(count)} orders, more than "
                            f"max_candidates = {fmt_count(run.options['max_candidates'])}")
    with run.stage("enumerate"):
        sol, val, tried = brute_force(inst)
    return run.result(solution=sol, bound=val, status=Status.OPTIMAL, candidates=tried)
