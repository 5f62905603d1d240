"""An independent brute force for tiny RAR-DDLS instances (tests only).

It enumerates every GPU subset of every job and every start vector, and uses
nothing but the family's validator and evaluator: no count vectors, no
schedule sets, no model.
"""

from __future__ import annotations

import itertools

import numpy as np

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.rar import RarSchedule


def brute_force(inst, horizon: int) -> float | None:
    """Minimum makespan over start slots ``0..horizon-1`` and all GPU subsets
    (``None`` if no such schedule is valid).  A schedule starting a job at or after
    the optimum cannot be optimal, so ``horizon = OPT`` suffices."""
    best = None
    subsets = [list(itertools.combinations(range(inst.num_gpus), int(g))) for g in inst.G]
    for gpus in itertools.product(*subsets):
        for starts in itertools.product(range(horizon), repeat=inst.num_jobs):
            if min(starts) > 0:  # a shifted copy of a schedule starting at 0
                continue
            s = RarSchedule(start=np.array(starts), gpus=gpus)
            try:
                dmlsched.validate(inst, s)
            except InvalidSolutionError:
                continue
            v = dmlsched.evaluate(inst, s)
            best = v if best is None else min(best, v)
    return best
