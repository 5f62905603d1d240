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
from typing import Any, ClassVar

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
    linear_expression,
    model_size,
    no_overlap_index,
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
    "Horizon", "heuristic_incumbent", "horizon", "HareExactMip", "build_exact", "schedule_from_model", "solve_exact",
    "RelaxationResult", "build_relaxation_master", "build_rl_miqcp", "check_relaxed", "queyranne_violation",
    "solve_relaxation", "fixed_assignment_point", "separate", "disjunctive_pairs", "identical_gpu_pairs",
    "round_groups", "model_size",
]


class HareExactMip(HareFormulation):
    """The exact MIP of Hare_Sched (4)-(8) (``models/hare.md`` section 4): the shared
    formulation (:class:`~.formulation.HareFormulation`) with the order binaries and the
    big-M disjunctions of (8).  Parameters as :class:`~.formulation.HareFormulation`.

    Attributes
    ----------
    pairs
        ``(free, fixed)`` from :func:`~.formulation.disjunctive_pairs`, once built.
    """

    #: the constraint families of (8), added after the shared ones
    OWN: ClassVar[tuple[str, ...]] = ("no_overlap", "no_overlap_rev")
    CONSTRAINTS: ClassVar[tuple[str, ...]] = HareFormulation.CONSTRAINTS + OWN

    def __init__(self, inst: HareInstance, box: Horizon, *, gpu_symmetry: bool = True, flow: bool = False):
        super().__init__(inst, box, gpu_symmetry=gpu_symmetry, flow=flow)
        self.pairs: tuple[np.ndarray, np.ndarray] | None = None
        self._rows_of_8: tuple[np.ndarray, ...] = ()

    def build(self) -> Any:
        """Create :attr:`model`: the shared part (:meth:`~.formulation.HareFormulation.build_shared`:
        variables, objective, (4)-(7), symmetry breaking), then the order binaries and (8)."""
        self.build_shared()
        self.add_order_variables()
        self.add_constraints(self.OWN)
        return self.model

    def add_order_variables(self) -> None:
        """``order[p]`` (binary; 1: the pair's first task ``i`` before ``j``) per free pair
        ``p = (i, j)`` of :func:`~.formulation.disjunctive_pairs` (tasks of different jobs),
        and the index arrays of the rows of (8) (:func:`~.formulation.no_overlap_index`)."""
        pyo = self.pyo
        mdl = self.model
        self._rows_of_8 = no_overlap_index(self.inst, self.box)
        free, fixed = self._rows_of_8[:2]
        self.pairs = (free, fixed)
        nf = len(free)
        mdl.PAIRS = pyo.RangeSet(0, nf - 1) if nf else pyo.Set(initialize=[])
        mdl.order = pyo.Var(mdl.PAIRS, domain=pyo.Binary)

    def add_no_overlap(self) -> None:
        """(8) ``|x_i - x_j| >= y_{k,m} T^c_{k,m}`` for tasks ``i, j`` on GPU ``m``, ``k`` the earlier,
        forward side (``no_overlap``): per pair ``p = (i, j)`` and GPU ``m``

        ``x_j >= x_i + T^c_{i,m} - M_{ijm} (3 - order_p - y_im - y_jm)``

        for a free pair; for a fixed pair (same round, order 1 by ``sym_task_order``)
        with ``(2 - y_im - y_jm)``.  ``M_{ijm} = U_i + T^c_{i,m} - L_j`` (the box of
        :func:`~.box.horizon`); a row with ``M <= 0`` always holds in the box and is skipped.
        """
        mdl = self.model
        free, fixed, fp, fg, fM = self._rows_of_8[:5]
        nf = len(free)
        order = [mdl.order[p] for p in range(nf)]
        allp = np.concatenate([free, fixed]) if len(fixed) else free
        tc = self.task_tc
        x, y = self.x, self.y
        fwd = []
        for p, g, big in zip(fp.tolist(), fg.tolist(), fM.tolist()):
            i, j = int(allp[p, 0]), int(allp[p, 1])
            t = float(tc[i, g])
            if p < nf:  # x_j - x_i - M o - M y_i - M y_j >= T - 3M
                fwd.append((t - 3 * big, linear_expression([1.0, -1.0, -big, -big, -big],
                                                           [x[j], x[i], order[p], y[i][g], y[j][g]]), None))
            else:  # x_j - x_i - M y_i - M y_j >= T - 2M
                fwd.append((t - 2 * big, linear_expression([1.0, -1.0, -big, -big],
                                                           [x[j], x[i], y[i][g], y[j][g]]), None))
        self._rows("no_overlap", fwd)

    def add_no_overlap_rev(self) -> None:
        """(8), reverse side of a free pair ``p = (i, j)`` (``no_overlap_rev``): per GPU ``m``

        ``x_i >= x_j + T^c_{j,m} - M_{jim} (2 + order_p - y_im - y_jm)``

        with ``M_{jim} = U_j + T^c_{j,m} - L_i``; rows with ``M <= 0`` skipped (see
        :meth:`add_no_overlap`)."""
        mdl = self.model
        free = self._rows_of_8[0]
        rp, rg, rM = self._rows_of_8[5:]
        order = [mdl.order[p] for p in range(len(free))]
        tc = self.task_tc
        x, y = self.x, self.y
        rev = []
        for p, g, big in zip(rp.tolist(), rg.tolist(), rM.tolist()):
            i, j = int(free[p, 0]), int(free[p, 1])
            t = float(tc[j, g])  # x_i - x_j + M o - M y_i - M y_j >= T - 2M
            rev.append((t - 2 * big, linear_expression([1.0, -1.0, big, -big, -big],
                                                       [x[i], x[j], order[p], y[i][g], y[j][g]]), None))
        self._rows("no_overlap_rev", rev)

    def extract(self, values: Any) -> HareSchedule | None:
        """The incumbent loaded into the solved model ``values`` (this builder's :attr:`model`),
        re-timed by left shifting (:func:`schedule_from_model`)."""
        if values is not self.model:
            raise ValueError("extract reads the solution loaded into this builder's own model")
        return schedule_from_model(self)


def build_exact(inst: HareInstance, hz: Horizon | None = None, *, gpu_symmetry: bool = True,
                flow: bool = False) -> HareExactMip:
    """The exact MIP of Hare_Sched (4)-(8) built (:class:`HareExactMip`); returns the builder
    (``.model`` is the Pyomo model).  ``flow``: minimise the weighted flow time (the same
    schedules, an offset-free objective)."""
    f = HareExactMip(inst, hz or horizon(inst), gpu_symmetry=gpu_symmetry, flow=flow)
    f.build()
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
