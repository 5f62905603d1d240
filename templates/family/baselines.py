"""Template family baselines: the methods the paper compares its algorithm with,
here a seeded ``random`` order.

Every method registered here is listed in ``Family.baselines`` (``__init__.py``),
and every listed method is registered here (``tests/test_template.py`` checks
both).  A baseline behaves as the paper, or the system it names, describes it;
the family's ``models/<family>.md`` quotes the sentence.
"""

from __future__ import annotations

import numpy as np

from dmlsched.kit import Run, method
from dmlsched.result import Result

from .instance import PROBLEM, TemplateInstance
from .solution import TemplateSchedule, from_order


@method(PROBLEM, "random", kind="heuristic", description="Baseline: a seeded random order, no idle time")
def solve_random(inst: TemplateInstance, run: Run) -> Result:
    """A uniformly random order drawn from the seed (a baseline without a claim)."""
    rng = np.random.default_rng(run.seed)
    sol: TemplateSchedule = from_order(inst, [int(j) for j in rng.permutation(inst.num_jobs)])
    return run.result(solution=sol)
