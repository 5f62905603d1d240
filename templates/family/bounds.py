"""Template family bounds: the claimed ratio and a proven lower bound.

The pattern to copy: the paper's claimed approximation ratio is a function of
the instance (:func:`smith_ratio`), handed to the heuristic's registration as
``bound=`` (then ``dmlsched check`` answers ``holds``/``violated``); a proven
bound on the optimum is a function too (:func:`lower_bound`), used by the exact
method and registered on its own as a ``kind="bound"`` method.  A real family
proves its bounds in ``proofs/<family>.md``.
"""

from __future__ import annotations

from dmlsched.kit import Run, method
from dmlsched.result import Result

from .instance import PROBLEM, TemplateInstance


def smith_ratio(inst: TemplateInstance) -> float:
    """Smith (1956): WSPT order is optimal for ``1 || sum w_j C_j``, ratio 1 on every instance."""
    return 1.0


def lower_bound(inst: TemplateInstance) -> float:
    """``sum_j w_j p_j <= OPT``: no job completes before its own processing time."""
    return float(sum(w * p for w, p in zip(inst.w, inst.p)))


@method(PROBLEM, "lower-bound", kind="bound", description="Proven lower bound sum_j w_j p_j (C_j >= p_j)")
def solve_lower_bound(inst: TemplateInstance, run: Run) -> Result:
    """:func:`lower_bound` as a method (its value is the result's bound and objective)."""
    return run.result(bound=lower_bound(inst))
