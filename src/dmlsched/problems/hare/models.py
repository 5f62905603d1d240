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
:mod:`.box`, :mod:`.relaxation` and :mod:`.relaxcheck`.
"""

from __future__ import annotations

import dataclasses
import dataclasses as dc
from dataclasses import dataclass

import numpy as np

from ...kit import Option, Run, fmt_count, method
from ...normalize import SOLVER_RESOLUTION, exact_shift, positive_min, pow2
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
    fixed_assignment_point,
    separate,
    solve_relaxation,
)
from .relaxcheck import check_relaxed, queyranne_violation
from .solution import HareSchedule, evaluate, weighted_flow

__all__ = [
    "Horizon", "heuristic_incumbent", "horizon", "build_exact", "schedule_from_model", "solve_exact",
    "RelaxationResult", "build_relaxation_master", "build_rl_miqcp", "check_relaxed", "queyranne_violation",
    "solve_relaxation", "fixed_assignment_point", "separate", "disjunctive_pairs", "identical_gpu_pairs",
    "round_groups", "model_size",
]


def build_exact(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True,
                flow: bool = False) -> HareFormulation:
    """The exact MIP of Hare_Sched (4)-(8); returns the builder (``.model`` is the Pyomo model).
    ``flow``: minimise the weighted flow time (the same schedules, an offset-free objective)."""
    hz = hz or horizon(inst)
    f = HareFormulation(inst, hz, gpu_symmetry=gpu_symmetry, flow=flow)
    f.add_no_overlap()
    return f


#: the normalised instance's largest time (durations and release spread) is kept below this
MAX_NORMALISED_TIME = 2.0**30


@dataclass(frozen=True)
class Normalised:
    """A copy of an instance in units where the solver's tolerances are small
    (:mod:`dmlsched.normalize`): releases shifted by ``shift`` (exactly),
    every time multiplied by ``time_factor`` and every weight by
    ``weight_factor`` (powers of two, exact).  The copy has the same optimal
    schedules; its weighted flow time is the original's times
    :attr:`objective_factor`."""

    inst: HareInstance
    shift: float
    time_factor: float
    weight_factor: float

    @property
    def objective_factor(self) -> float:
        return self.time_factor * self.weight_factor


def normalised(inst: HareInstance) -> Normalised:
    """Units in which the solver's absolute tolerances are small beside the data: times
    multiplied by a power of two when the shortest training time is below 1 (it then lies
    in ``[1, 2)``) or the longest time or the releases' spread passes
    :data:`MAX_NORMALISED_TIME`; weights when the largest is below 1 (it then lies in
    ``[1, 2)``); releases shifted to start near 0.  Data already in such units (times
    of seconds, weights of at least 1) are left as they are."""
    arr = inst.arrival.tolist()
    shift = exact_shift(arr)
    times = [*inst.tc_type.ravel().tolist(), *inst.ts_type.ravel().tolist()]
    shortest = positive_min(inst.tc_type.ravel().tolist())
    ft = pow2(shortest) if 0 < shortest < 1 else 1.0
    top = max([*times, *(a - shift for a in arr)], default=0.0)
    while top * ft > MAX_NORMALISED_TIME and ft > 2.0**-200:
        ft /= 2
    wmax = float(inst.weight.max()) if inst.num_jobs else 0.0
    fw = pow2(wmax) if 0 < wmax < 1 else 1.0
    jobs = tuple(
        dc.replace(j, arrival=(j.arrival - shift) * ft, weight=j.weight * fw,
                   train_time={g: v * ft for g, v in j.train_time.items()},
                   sync_time={g: v * ft for g, v in j.sync_time.items()})
        for j in inst.jobs
    )
    return Normalised(dc.replace(inst, jobs=jobs), shift, ft, fw)


def retime(inst: HareInstance, gpu: np.ndarray, start: np.ndarray) -> HareSchedule | None:
    """The schedule of ``inst`` with this assignment and these per-GPU orders (by
    ``start``, in any units), every task at its earliest start (left shifting)."""
    st = left_shift(inst, gpu, sequences_from_starts(inst, gpu, start))
    return None if st is None else HareSchedule(gpu=np.asarray(gpu, dtype=np.int64), start=st)


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
    options=[Option("symmetry", bool, True, "order identical GPUs by their first task (sym_gpu_order)")],
)
def solve_exact(inst: HareInstance, run: Run) -> Result:
    """Hare_Sched solved by a MIP; ``optimal`` only when the schedule meets the
    proven bound by the kit's relative rule.

    The MIP is built on a normalised copy of the instance (shortest training
    time and largest weight of order one, releases shifted: :func:`normalised`)
    and minimises the weighted flow time, so that the solver's absolute
    tolerances and its relative gap apply to the quantity the user reads at any
    magnitude; its bound is converted back exactly (``details["flow_bound"]``:
    the bound on ``sum_n w_n (C_n - a_n)``).  The returned schedule is the MIP's
    assignment and per-GPU orders, re-timed on the original instance by left
    shifting (never worse than the MIP's own timing).  If the solver stops
    without a proof, the better of its incumbent and the box's heuristic
    incumbent is returned with status ``feasible`` (``details["source"]``).
    ``bound`` is the solver's bound or the trivial bound ``sum_n w_n (a_n + R_n
    p_n^min)``, whichever is larger.
    """
    gpu_symmetry = run.options["symmetry"]
    norm = normalised(inst)
    work = norm.inst
    with run.stage("box"):
        hz = horizon(work)
    run.details["incumbent_source"] = "heuristic"
    heur = retime(inst, hz.incumbent.gpu, hz.incumbent.start)
    run.details["heuristic_objective"] = evaluate(inst, heur) if heur is not None else None
    trivial = trivial_bound(inst)
    run.incumbent(heur, bound=trivial)
    size = model_size(work, hz, exact=True, gpu_symmetry=gpu_symmetry)
    mem, sec = build_estimate(size)
    run.details["model_size"] = size
    run.require(memory_bytes=mem, seconds=sec,
                what=f"the MIP ({fmt_count(size['rows'])} rows, {fmt_count(size['nonzeros'])} nonzeros, "
                     f"{fmt_count(size['binaries'])} binaries)")
    with run.stage("build"):
        f = build_exact(work, hz, gpu_symmetry=gpu_symmetry, flow=True)
    if run.expired():  # the build took the whole deadline: no time left for the solver
        run.cut("the MIP (its build used the whole deadline)")
        return run.result(bound=trivial, binaries=int(size["binaries"]))
    # Pyomo translates the model inside the solve call, before the solver's clock starts: the
    # kit sets the solver's limit to what is left at the hand-off, and does not start the
    # translation when less time is left than it takes (kit.HANDOFF_PER_BUILD x the build)
    out = run.solve_model(f.model, what="the MIP", guard_handoff=True)
    if out.status == Status.INFEASIBLE:  # cannot happen: the heuristic schedule is feasible
        return run.result(status=Status.ERROR, outcome=out,
                          error="solver reports the MIP infeasible although a feasible schedule exists")
    # the solver's figures are weighted flow times of the normalised copy: back to sum_n w_n C_n
    offset = float(np.dot(inst.weight, inst.arrival))
    flow_bound = None if out.bound is None else out.bound / norm.objective_factor
    out = dataclasses.replace(
        out, bound=None if flow_bound is None else flow_bound + offset,
        objective=None if out.objective is None else out.objective / norm.objective_factor + offset)
    run.objective_floor = SOLVER_RESOLUTION / norm.objective_factor
    with run.stage("extract"):
        sched = retime(inst, f.assignment(), f.starts()) if out.has_solution else None
    value = evaluate(inst, sched) if sched is not None else None
    if sched is not None:
        run.details["source"] = "mip"
    res = run.result(solution=sched, bound=trivial, outcome=out, binaries=int(size["binaries"]),
                     retimed_objective=value, flow_bound=flow_bound,
                     normalised={"shift": norm.shift, "time_factor": norm.time_factor,
                                 "weight_factor": norm.weight_factor})
    if res.solution is not None:
        res.details["weighted_flow"] = weighted_flow(inst, res.solution)
    return res


def trivial_bound(inst: HareInstance) -> float:
    """``sum_n w_n (a_n + R_n p_n^min)``: no job completes earlier."""
    pmin = (inst.tc_type + inst.ts_type).min(axis=1)
    return float(np.dot(inst.weight, inst.arrival + inst.rounds_arr * pmin))
