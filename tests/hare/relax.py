"""The relaxation as a library caller solves it: through a standalone run (issue 22)."""

from __future__ import annotations

from typing import Any

from dmlsched.kit import Run
from dmlsched.problems.hare.relaxation import RelaxationResult, solve_relaxation


def relax(inst: Any, kind: str = "rl", *, solver: str = "highs", seed: int = 0, time_limit: float | None = None,
          **options: Any) -> RelaxationResult:
    """:func:`solve_relaxation` of ``kind`` on ``inst`` through ``Run.standalone`` of the method
    ``relaxation`` with ``options`` (checked against its declarations, defaults filled in)."""
    run = Run.standalone("hare", "relaxation", solver=solver, seed=seed, time_limit=time_limit, options=options)
    return solve_relaxation(inst, run, kind=kind)
