"""The exact MIP of Hare_Sched (Hare, HPDC'22, Section 5.1, (4)-(8)): method ``exact``.

Per pair of tasks of different jobs an order binary and, per GPU, a big-M
disjunction whose M comes from a box valid for some optimal schedule
(:func:`~.box.horizon`); symmetry breaking between identical tasks of a round
and between identical GPUs.  The MIP gives the assignment and the per-GPU
orders; the schedule returned is re-timed by left shifting
(:func:`.bruteforce.left_shift`).  Specification: ``models/hare.md`` section 4.

``time_limit`` is a deadline for the whole method: the box, building the
model, Pyomo's translation for the solver and the solve.  Before building,
the model's size is counted (:func:`~.formulation.model_size`) and the method
refuses (status ``n/a``) when building it would need more memory than the
method may use or more time than is left, with the estimate.

For compatibility this module also re-exports the box (:func:`horizon`,
:func:`heuristic_incumbent`) and the relaxations' interface
(:func:`solve_relaxation`, :func:`check_relaxed`, ...), which live in
:mod:`.box` and :mod:`.relaxation`.
"""

from __future__ import annotations

from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from .box import Horizon, heuristic_incumbent, horizon
from .bruteforce import left_shift, sequences_from_starts
from .formulation import (
    HareFormulation,
    build_estimate,
    disjunctive_pairs,
    identical_gpu_pairs,
    model_size,
    round_groups,
)
from .instance import HareInstance
from .relaxation import (
    RelaxationResult,
    build_relaxation_master,
    build_rl_miqcp,
    check_relaxed,
    fixed_assignment_point,
    queyranne_violation,
    separate,
    solve_relaxation,
)
from .solution import HareSchedule, evaluate, weighted_flow

__all__ = [
    "Horizon", "heuristic_incumbent", "horizon", "build_exact", "schedule_from_model", "solve_exact",
    "RelaxationResult", "build_relaxation_master", "build_rl_miqcp", "check_relaxed", "queyranne_violation",
    "solve_relaxation", "fixed_assignment_point", "separate", "disjunctive_pairs", "identical_gpu_pairs",
    "round_groups", "model_size",
]


def build_exact(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True) -> HareFormulation:
    """The exact MIP of Hare_Sched (4)-(8); returns the builder (``.model`` is the Pyomo model)."""
    hz = hz or horizon(inst)
    f = HareFormulation(inst, hz, gpu_symmetry=gpu_symmetry)
    f.add_no_overlap()
    return f


def schedule_from_model(f: HareFormulation) -> HareSchedule | None:
    """The exact MIP's incumbent re-timed by left shifting.

    GPU assignment from ``y``, per-GPU order from the MIP's start times ``x``
    (ties by task index); then :func:`.bruteforce.left_shift` gives every task
    its earliest start by plain arithmetic.  ``None`` if those orders contradict
    (7) (only possible through solver tolerances).
    """
    inst = f.inst
    gpu = f.assignment()
    x = f.starts()
    start = left_shift(inst, gpu, sequences_from_starts(inst, gpu, x))
    return None if start is None else HareSchedule(gpu=gpu, start=start)


@method(
    "hare", "exact", kind="exact", uses_solver=True,
    description="Hare_Sched (4)-(8) as a MIP (order binaries, big-M from a heuristic horizon)",
    options=[Option("gpu_symmetry", bool, True, "order identical GPUs by their first task (sym_gpu_order)")],
)
def solve_exact(inst: HareInstance, run: Run) -> Result:
    """Hare_Sched solved by a MIP; ``optimal`` only when the solver proves it
    (or the incumbent meets the proven bound).

    The returned schedule is the MIP's assignment and per-GPU orders, re-timed
    by left shifting (never worse than the MIP's own timing).  If the solver
    stops without a proof, the better of its incumbent and the box's
    heuristic incumbent is returned with status ``feasible``
    (``details["source"]``).  ``bound`` is the solver's bound or the trivial
    bound ``sum_n w_n (a_n + R_n p_n^min)``, whichever is larger.
    """
    gpu_symmetry = run.options["gpu_symmetry"]
    with run.stage("box"):
        hz = horizon(inst)
    run.details["incumbent_source"] = "heuristic"
    run.details["heuristic_objective"] = hz.incumbent_value
    run.incumbent(hz.incumbent, bound=hz.trivial_bound)
    size = model_size(inst, hz, exact=True, gpu_symmetry=gpu_symmetry)
    mem, sec = build_estimate(size)
    run.details["model_size"] = size
    run.require(memory_bytes=mem, seconds=sec,
                what=f"the MIP ({fmt_count(size['rows'])} rows, {fmt_count(size['nonzeros'])} nonzeros, "
                     f"{fmt_count(size['binaries'])} binaries)")
    with run.stage("build"):
        f = build_exact(inst, hz, gpu_symmetry=gpu_symmetry)
    if run.expired():  # the build took the whole deadline: no time left for the solver
        run.cut("the MIP (its build used the whole deadline)")
        return run.result(bound=hz.trivial_bound, binaries=int(size["binaries"]))
    # Pyomo translates the model inside the solve call, before the solver's clock starts: the
    # kit sets the solver's limit to what is left at the hand-off, and does not start the
    # translation when less time is left than it takes (kit.HANDOFF_PER_BUILD x the build)
    out = run.solve_model(f.model, what="the MIP", guard_handoff=True)
    if out.status == Status.INFEASIBLE:  # cannot happen: the heuristic schedule is feasible
        return run.result(status=Status.ERROR, outcome=out,
                          error="solver reports the MIP infeasible although a feasible schedule exists")
    with run.stage("extract"):
        sched = schedule_from_model(f) if out.has_solution else None
    value = evaluate(inst, sched) if sched is not None else None
    if sched is not None:
        run.details["source"] = "mip"
    res = run.result(solution=sched, bound=hz.trivial_bound, outcome=out,
                     binaries=int(size["binaries"]), retimed_objective=value)
    if res.solution is not None:
        res.details["weighted_flow"] = weighted_flow(inst, res.solution)
    return res

