"""Template family heuristics: the paper's algorithm, Smith's rule ``wspt`` (its
baseline, ``random``, is in ``baselines.py``).

The pattern to copy: the algorithm is a plain function of the instance (usable
and testable without the registry); the method wraps it with
:func:`dmlsched.kit.method`, declaring every option (name, type, default,
one-line doc, choices/minimum: an unknown or ill-typed option is an error) and
the paper's claimed ratio (``bound=``, ``bound_name=``).  Anything random draws
from ``numpy.random.default_rng(run.seed)``, so the same seed gives the same
schedule.
"""

from __future__ import annotations

from dmlsched.kit import Option, Run, method
from dmlsched.result import Result

from .bounds import smith_ratio
from .instance import PROBLEM, TemplateInstance
from .solution import from_order


def wspt_order(inst: TemplateInstance, *, ties: str = "index") -> list[int]:
    """Jobs by non-decreasing ``p_j / w_j``; equal ratios by index or heaviest first."""
    second = (lambda j: j) if ties == "index" else (lambda j: (-inst.w[j], j))
    return sorted(range(inst.num_jobs), key=lambda j: (inst.p[j] / inst.w[j], second(j)))


@method(PROBLEM, "wspt", kind="heuristic", bound=smith_ratio, bound_name="Smith (1956): WSPT is optimal",
        options=[Option("ties", str, "index", "order of jobs with equal p/w: by index or heaviest first",
                        choices=("index", "weight"))])
def solve_wspt(inst: TemplateInstance, run: Run) -> Result:
    """Weighted shortest processing time first (Smith's rule), no idle time."""
    with run.stage("sort"):
        sol = from_order(inst, wspt_order(inst, ties=run.options["ties"]))
    return run.result(solution=sol)
