"""Algorithm 1 of Hare (HPDC'22, Section 5.2) and its variants as methods.

``list``
    Algorithm 1: solve a relaxation (``relaxation="rl"``, the paper's
    Hare_Sched_RL, or ``"queyranne"``), order the tasks by
    ``H_i = max_m x̂_i + T^c_{i,m}/2``, list-schedule them
    (:func:`~.listsched.list_schedule`) with the reading of line 12 chosen by
    ``placement`` (``"earliest-start"``, the proof's step (21), default;
    ``"earliest-available"``, line 12 as printed).  Registered with the bound
    Theorem 4 claims, ``alpha(2+alpha)``, which is false for the paper's
    relaxation (``proofs/hare-theorem-4.md``).
``list-queyranne``
    The same with the Queyranne relaxation, registered with the bound proven
    in ``proofs/hare-theorem-4.md`` (:func:`~.bounds.mended_ratio`).

Variants (NOT Algorithm 1, no bound claimed; ``models/hare-baselines.md``,
``benchmarks/hare_evaluation.md``): ``list-eft`` (the same order, each task on
the GPU where it finishes earliest) and ``smith-eft`` (a solver-free
round-Smith order, same placement).

The relaxation is bounded by deterministic work limits (:mod:`.relaxation`),
so these methods give the same schedule at any machine load; the deadline is
a safety net that marks the result not reproducible when it cuts.

The list phase itself (:func:`list_schedule`, :func:`priority_order`, ...)
lives in :mod:`.listsched` and is re-exported here.
"""

from __future__ import annotations

import numpy as np

from ...kit import Option, Run, method
from ...result import Result, Status
from .baselines import best_round_times
from .bounds import mended_ratio, theorem4_ratio
from .instance import HareInstance
from .listsched import (
    PLACEMENTS,
    list_schedule,
    list_schedule_eft,
    list_schedule_fixed,
    middle_completion_priority,
    priority_order,
)
from .relaxation import RELAXATION_OPTIONS, RelaxationResult, solve_relaxation
from .solution import weighted_flow

__all__ = [
    "PLACEMENTS", "list_schedule", "list_schedule_eft", "list_schedule_fixed", "middle_completion_priority",
    "priority_order", "round_smith_priority", "mended_ratio", "solve_list", "solve_list_queyranne",
    "solve_list_eft", "solve_smith_eft",
]

PLACEMENT_OPTION = Option(
    "placement", str, PLACEMENTS[0],
    "reading of line 12: earliest-start (argmin max(t_i, phi_m), the proof's step (21)) or "
    "earliest-available (argmin phi_m, line 12 as printed)", choices=PLACEMENTS,
)
RELAXATION_KIND_OPTION = Option(
    "relaxation", str, "rl", "relaxation giving x^: rl (Hare_Sched_RL, the paper's) or queyranne",
    choices=("rl", "queyranne"),
)


def _relax(inst: HareInstance, run: Run, kind: str) -> RelaxationResult:
    with run.stage("relaxation"):
        return solve_relaxation(inst, run, kind=kind)


def _no_point(run: Run, rel: RelaxationResult) -> Result:
    status = Status.TIME_LIMIT if rel.status == Status.TIME_LIMIT else Status.ERROR
    return run.result(status=status, relaxation_status=rel.status.value, error="relaxation has no solution")


def _rel_details(kind: str, rel: RelaxationResult) -> dict:
    return {"relaxation": kind, "relaxation_status": rel.status.value, "relaxation_value": rel.value,
            "relaxation_iterations": rel.details.get("iterations"),
            "relaxation_work_limit": bool(rel.details.get("work_limit")),
            "x_hat_source": rel.details.get("x_hat_source"), "x_hat": rel.details.get("x_hat")}


def _algorithm1(inst: HareInstance, run: Run, kind: str) -> Result:
    rel = _relax(inst, run, kind)
    if rel.x_hat is None:
        return _no_point(run, rel)
    with run.stage("list"):
        order = priority_order(inst, middle_completion_priority(inst, rel.x_hat))
        sched = list_schedule(inst, order, run.options["placement"])
    return run.result(solution=sched, bound=rel.lower_bound, placement=run.options["placement"],
                      weighted_flow=weighted_flow(inst, sched), **_rel_details(kind, rel))


@method(
    "hare", "list", kind="heuristic", uses_solver=True,
    description="Algorithm 1: relaxation, then list scheduling by middle completion time",
    bound=theorem4_ratio, bound_name="Hare Theorem 4: alpha(2+alpha)",
    options=[RELAXATION_KIND_OPTION, PLACEMENT_OPTION, *RELAXATION_OPTIONS],
)
def solve_list(inst: HareInstance, run: Run) -> Result:
    """Algorithm 1 (Hare): solve a relaxation, sort by ``H_i``, list-schedule.

    The relaxation's proven lower bound is reported as ``bound``; its status
    and value in ``details``.
    """
    return _algorithm1(inst, run, run.options["relaxation"])


@method(
    "hare", "list-queyranne", kind="heuristic", uses_solver=True,
    description="Algorithm 1 with x^ from the full Queyranne relaxation (the variant with a proven bound)",
    bound=mended_ratio, bound_name="(3a+2-2/M)max(1,a/2), proofs/hare-theorem-4.md (Theorem 4 mended)",
    options=[PLACEMENT_OPTION, *RELAXATION_OPTIONS],
)
def solve_list_queyranne(inst: HareInstance, run: Run) -> Result:
    """Algorithm 1 with the Queyranne relaxation (``list`` with ``relaxation="queyranne"``).

    Registered separately because its proven bound differs from the paper's
    claim: :func:`~.bounds.mended_ratio` instead of ``alpha(2+alpha)`` (which
    is false for the paper's relaxation).  The proof holds for both
    placements.
    """
    return _algorithm1(inst, run, "queyranne")


# ---------------------------------------------------------------------------
# Variants of Algorithm 1 (NOT Algorithm 1): controlled changes used to find out
# why Algorithm 1 loses to the baselines (benchmarks/hare_evaluation.md,
# models/hare-baselines.md, section "Variants of Algorithm 1").


def round_smith_priority(inst: HareInstance) -> np.ndarray:
    """A trivial priority without any relaxation: ``H_i = a_n + (r + 1) R_n / w_n``.

    ``R_n`` is the job's fastest possible round time
    (:func:`~.baselines.best_round_times`), ``r`` the task's round: the time
    round ``r`` would end if the job ran alone at full speed, stretched by
    ``1/w_n`` -- Smith's ratio applied round by round, so that jobs interleave
    (a whole-job Smith order would run jobs one after the other, since the
    list phase never fills a GPU's earlier idle time).
    """
    R = best_round_times(inst)
    w = inst.weight
    a = inst.arrival
    n = inst.task_job
    with np.errstate(divide="ignore"):  # weight 0: priority +inf, such jobs go last
        return a[n] + (inst.task_round + 1.0) * R[n] / w[n]


@method(
    "hare", "list-eft", kind="heuristic", uses_solver=True,
    description="VARIANT of Algorithm 1: relaxation's H order, but each task on the GPU where it finishes earliest",
    options=[RELAXATION_KIND_OPTION, *RELAXATION_OPTIONS],
)
def solve_list_eft(inst: HareInstance, run: Run) -> Result:
    """Algorithm 1 with line 12 replaced by earliest finish (not the paper's algorithm).

    Same relaxation and order ``H_i = max_m x̂_i + T^c_{i,m}/2`` as ``list``;
    placement by :func:`~.listsched.list_schedule_eft`.  No approximation
    bound is claimed.
    """
    kind = run.options["relaxation"]
    rel = _relax(inst, run, kind)
    if rel.x_hat is None:
        return _no_point(run, rel)
    with run.stage("list"):
        sched = list_schedule_eft(inst, priority_order(inst, middle_completion_priority(inst, rel.x_hat)))
    return run.result(solution=sched, bound=rel.lower_bound, variant="earliest-finish GPU choice",
                      weighted_flow=weighted_flow(inst, sched), **_rel_details(kind, rel))


@method(
    "hare", "smith-eft", kind="heuristic",
    description="VARIANT: no relaxation; order by a_n+(r+1)R_n/w_n, each task on the GPU where it finishes earliest",
)
def solve_smith_eft(inst: HareInstance, run: Run) -> Result:
    """List scheduling by :func:`round_smith_priority` with earliest-finish placement.

    Deterministic and solver-free (``O(n log n + n M)``).  Not Algorithm 1.
    """
    sched = list_schedule_eft(inst, priority_order(inst, round_smith_priority(inst)))
    return run.result(solution=sched, variant="round-Smith priority, earliest-finish GPU choice",
                      weighted_flow=weighted_flow(inst, sched))
