"""Cruise's ``exact`` method: the MIP of Figure 3.2 (:mod:`.formulation`) or its
reformulation over machine types (:mod:`.typemodel`), solved over every number of workers.

Specification with the component names: ``models/cruise.md``.

The term ``m_j * ||w||`` of Figure 3.2 is removed by **enumerating**
``W = ||w||`` in ``1..N-1``: one MIP per ``W`` (:func:`solve_exact`), or one
MIP over types per worker-count vector (:func:`solve_by_counts`).

The optimum over ``W`` is the best of the per-``W`` optima; ``Status.OPTIMAL``
only when every per-``W`` MIP was proven optimal, proven unable to beat the
incumbent (infeasible under ``epoch_upper``), or skipped because a proven lower
bound already exceeds the incumbent.  ``time_limit`` is the deadline of the
whole enumeration (shared among the ``W`` still to solve).

The builders and the names of their components stay importable from here
(``__all__``).  The continuous relaxation (``relaxation``) is in :mod:`.relaxation`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...normalize import SOLVER_RESOLUTION, pow2
from ...result import Result, Status
from .baselines import proportional
from .bounds import lower_bound_for_workers
from .bruteforce import has_repeated_types
from .formulation import CONSTRAINT_NAMES, VARIABLE_NAMES, build_model, comm_upper_bound, extract_config
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate
from .typemodel import (
    COUNT_CONSTRAINT_NAMES,
    COUNT_VARIABLE_NAMES,
    TypeData,
    build_count_model,
    count_vector_bound,
    count_vectors,
    extract_count_config,
    type_comm_floor,
)

__all__ = [
    "BYTES_PER_COMPONENT",
    "CONSTRAINT_NAMES",
    "COUNT_CONSTRAINT_NAMES",
    "COUNT_VARIABLE_NAMES",
    "INCUMBENT_SPLITS",
    "MAX_COUNT_VECTORS",
    "VARIABLE_NAMES",
    "WELL_SCALED_MAX",
    "ExactOutcome",
    "TypeData",
    "build_count_model",
    "build_model",
    "comm_upper_bound",
    "count_vector_bound",
    "count_vectors",
    "extract_config",
    "extract_count_config",
    "model_size_estimate",
    "normalised",
    "solve_by_counts",
    "solve_exact",
    "solve_exact_method",
    "type_comm_floor",
]


#: largest number of count vectors the ``types`` formulation enumerates
MAX_COUNT_VECTORS = 2_000_000
#: role splits the incumbent heuristic searches before ranking machines by speed
INCUMBENT_SPLITS = 500


def solve_by_counts(inst: CruiseInstance, run: Run, *, prune: bool = True, cuts: bool = True,
                    use_upper: bool = True) -> "ExactOutcome":
    """Exact optimum over machine types: every worker-count vector ``x`` is either pruned by
    its proven bound (:func:`count_vector_bound` ``>=`` the incumbent) or settled by the MIP
    :func:`build_count_model` (optimal, or proven unable to beat the incumbent); vectors are
    solved in order of their bounds (best first)."""
    td = TypeData.of(inst)
    nvec = count_vectors(inst)
    if nvec > MAX_COUNT_VECTORS:
        raise NotApplicable(
            f"the types formulation would enumerate {fmt_count(nvec)} worker-count vectors, more than "
            f"{fmt_count(MAX_COUNT_VECTORS)} ({len(td.n)} machine types); use formulation='machines'")
    best_cfg: CruiseConfig | None = None
    best_val = math.inf
    with run.stage("incumbent"):
        for rule in ("compute", "effective"):
            cfg = proportional(inst, max_configs=INCUMBENT_SPLITS, data=rule)
            val = evaluate(inst, cfg)
            if val < best_val:
                best_cfg, best_val = cfg, val
    run.incumbent(best_cfg)
    cut_at = best_val if prune else None
    vecs: list[tuple[float, int, tuple[int, ...]]] = []
    pruned = 0
    complete_bounds = True
    with run.stage("bounds"):
        for q, x in enumerate(product(*(range(k + 1) for k in td.n))):
            W = sum(x)
            if W == 0 or W == inst.num_machines:
                continue
            if q % 256 == 0 and run.expired():
                complete_bounds = False
                run.cut("the bounds of the worker-count vectors")
                break
            lb = count_vector_bound(inst, td, x, cutoff=cut_at)
            if prune and lb >= best_val:
                pruned += 1
                continue
            vecs.append((lb, W, x))
    vecs.sort()
    lbs = {x: lb for lb, _, x in vecs}
    settled = {x: False for _, _, x in vecs}
    per_vec: dict[str, dict] = {}
    max_passes = 1 if run.time_limit is None else 3
    for pass_no in range(max_passes):
        todo = [x for _, _, x in vecs if not settled[x] and not (prune and lbs[x] >= best_val)]
        if not todo or run.expired():
            break
        for q, x in enumerate(todo):
            if prune and lbs[x] >= best_val:
                continue
            if run.expired():
                run.cut("the enumeration of worker-count vectors")
                break
            share = run.budget.share(1.0 / (len(todo) - q))
            ub = best_val if (use_upper and cuts and math.isfinite(best_val)) else None
            with run.stage("build"):
                mdl = build_count_model(inst, x, cuts=cuts, upper=ub)
            out = run.solve_model(mdl, budget=share, what=f"the MIP of counts {x}")
            entry: dict = {"status": out.status.value, "solver_bound": out.bound, "runtime_s": out.runtime_s,
                           "pass": pass_no, "lower_bound": lbs[x]}
            if out.has_solution:
                with run.stage("extract"):
                    cfg = extract_count_config(mdl, inst, x)
                val = evaluate(inst, cfg)
                entry["objective"] = val
                if val < best_val:
                    best_cfg, best_val = cfg, val
                    run.incumbent(cfg)
            if out.status == Status.INFEASIBLE:
                # proven (unless badly scaled): no configuration with these counts beats ub
                if _well_scaled(inst):
                    settled[x] = True
                    lbs[x] = math.inf if ub is None else max(lbs[x], ub)
                else:
                    entry["status"] = "infeasible (not trusted: badly scaled model)"
            else:
                if out.bound is not None and math.isfinite(out.bound):
                    lbs[x] = max(lbs[x], out.bound)
                if out.status == Status.OPTIMAL and "objective" in entry:
                    settled[x] = True
            per_vec[",".join(map(str, x))] = entry
    open_lbs = [lbs[x] for x in lbs if not settled[x] and not (prune and lbs[x] >= best_val)]
    all_proven = complete_bounds and not open_lbs
    details = {"count_vectors": nvec, "pruned_by_bound": pruned, "solved": len(per_vec),
               "per_counts": per_vec}
    run.details.update(details)
    if best_cfg is None:
        return ExactOutcome(None, None, min(open_lbs) if open_lbs else None, False, {})
    if all_proven:
        return ExactOutcome(best_cfg, best_val, best_val, True, {})
    bound = None
    if complete_bounds:
        bound = min(open_lbs + [best_val])
    return ExactOutcome(best_cfg, best_val, bound, False, {})

# ---------------------------------------------------------------------------
# the enumeration over W (both formulations)

#: above this many samples or model units the MIP's coefficients span too many
#: orders of magnitude for HiGHS's infeasibility proofs to be trusted
WELL_SCALED_MAX = 10**7


def _well_scaled(inst: CruiseInstance) -> bool:
    return max(inst.dataset_size, inst.model_size) <= WELL_SCALED_MAX


def _infeasibility_witness(inst: CruiseInstance, W: int, ub: float | None):
    """A configuration with ``W`` workers (better than ``ub``) contradicting a claim
    that none exists, or ``None``."""
    limit = math.inf if ub is None else ub
    for rule in ("compute", "effective"):
        try:
            cfg = proportional(inst, allowed_workers=[W], data=rule)
        except (ValueError, NotApplicable):
            continue
        if any(cfg.d[i] == 0 for i in cfg.workers):
            continue  # an idle worker: excluded by the cuts (dominated by W - 1 workers)
        if evaluate(inst, cfg) < limit * (1 - 1e-9):
            return cfg
    return None


def model_size_estimate(inst: CruiseInstance, formulation: str) -> tuple[int, int]:
    """``(variables, constraints)`` of one model (per ``W`` or per count vector), before building it."""
    n = inst.num_machines
    L = max(1, inst.num_batches_max.bit_length())
    if formulation == "machines":
        return n * (6 + 2 * L) + 1, n * n + 3 * n * L + 9 * n + 8
    k = len(inst.machine_types)
    return k * (8 + 2 * L) + 1, k * k + k * (10 + 4 * L) + 4


#: bytes a Pyomo model takes per variable or constraint (a generous estimate)
BYTES_PER_COMPONENT = 4096


@dataclass
class ExactOutcome:
    """What :func:`solve_exact` found (before it becomes a :class:`~dmlsched.Result`)."""

    config: CruiseConfig | None
    objective: float | None
    bound: float | None
    all_proven: bool
    per_w: dict[int, dict] = field(default_factory=dict)


def solve_exact(inst: CruiseInstance, run: Run, *, symmetry: bool = True,
                prune: bool = True, cuts: bool = True, use_upper: bool = True,
                workers: list[int] | None = None) -> ExactOutcome:
    """Solve the per-``W`` MIPs of Figure 3.2 and keep the best (see the module docstring).

    Parameters
    ----------
    run
        The method's :class:`~dmlsched.kit.Run` (deadline, solver, seed).
    symmetry
        Symmetry-breaking rows among interchangeable machines.
    cuts, use_upper, prune
        See :func:`solve_exact_method`.
    workers
        Restrict the enumeration to these values of ``W`` (default ``1..N-1``).
    """
    n = inst.num_machines
    Ws = list(workers) if workers is not None else list(range(1, n))
    with run.stage("bounds"):
        lbs = {W: lower_bound_for_workers(inst, W) for W in Ws}
    Ws.sort(key=lambda W: (lbs[W], W))
    best_cfg: CruiseConfig | None = None
    best_val = math.inf
    if prune:
        with run.stage("incumbent"):
            for rule in ("compute", "effective"):
                cfg = proportional(inst, allowed_workers=Ws, max_configs=INCUMBENT_SPLITS, data=rule)
                val = evaluate(inst, cfg)
                if val < best_val:
                    best_cfg, best_val = cfg, val
        run.incumbent(best_cfg)
    # per W: proven lower bound on its optimum (inf once infeasible) and whether it is settled
    wbound = {W: lbs[W] for W in Ws}
    settled = {W: False for W in Ws}
    per_w: dict[int, dict] = {}
    max_passes = 1 if run.time_limit is None else 3
    for pass_no in range(max_passes):
        todo = [W for W in Ws if not settled[W] and not (prune and wbound[W] >= best_val)]
        if not todo or run.expired():
            break
        for q, W in enumerate(todo):
            if prune and wbound[W] >= best_val:
                continue
            if run.expired():
                run.cut("the enumeration of worker counts")
                break
            share = run.budget.share(1.0 / (len(todo) - q))  # the rest, evenly among the W left
            ub = best_val if (use_upper and cuts and math.isfinite(best_val)) else None
            with run.stage("build"):
                mdl = build_model(inst, W, symmetry=symmetry, cuts=cuts, upper=ub)
            out = run.solve_model(mdl, budget=share, what=f"the MIP with W = {W}")
            entry: dict = {"status": out.status.value, "solver_objective": out.objective,
                           "solver_bound": out.bound, "runtime_s": out.runtime_s, "pass": pass_no}
            if out.has_solution:
                with run.stage("extract"):
                    cfg = extract_config(mdl, inst)
                val = evaluate(inst, cfg)
                entry["objective"] = val
                if val < best_val:
                    best_cfg, best_val = cfg, val
                    run.incumbent(cfg)
            if out.status == Status.INFEASIBLE:
                # proven: no configuration with W workers (with cuts: none without idle
                # workers, which are dominated by W - 1 workers; with upper: none <= ub) --
                # unless the model is badly scaled (HiGHS then reports false
                # infeasibility) or a heuristic configuration with W workers contradicts it
                witness = _infeasibility_witness(inst, W, ub)
                if witness is not None:
                    entry["status"] = "infeasible (contradicted by a heuristic configuration)"
                    if evaluate(inst, witness) < best_val:
                        best_cfg, best_val = witness, evaluate(inst, witness)
                        run.incumbent(witness)
                elif not _well_scaled(inst):
                    entry["status"] = "infeasible (not trusted: badly scaled model)"
                else:
                    settled[W] = True
                    wbound[W] = math.inf if ub is None else max(wbound[W], ub)
            else:
                if out.bound is not None and math.isfinite(out.bound):
                    wbound[W] = max(wbound[W], out.bound)  # the solver's proven bound only
                if out.status == Status.OPTIMAL and "objective" in entry:
                    settled[W] = True
            per_w[W] = entry
    all_proven = True
    for W in Ws:
        if not settled[W]:
            if prune and wbound[W] >= best_val:
                per_w.setdefault(W, {"status": "pruned", "lower_bound": wbound[W]})
            else:
                all_proven = False
                per_w.setdefault(W, {"status": "not_run", "lower_bound": wbound[W]})
    bound = min(wbound.values()) if wbound else None
    if bound is not None and not math.isfinite(bound):
        bound = None
    if best_cfg is None:
        return ExactOutcome(None, None, bound, False, per_w)
    lb = best_val if all_proven else (min(bound, best_val) if bound is not None else None)
    return ExactOutcome(best_cfg, best_val, lb, all_proven, per_w)


@method(
    "cruise",
    "exact",
    kind="exact",
    uses_solver=True,
    description="Figure 3.2 MIP (per machine or over machine types with counts): enumerate ||w||, "
                "integer mini-batches, binary-expansion linearisation",
    options=[
        Option("formulation", str, "auto",
               "'machines' (Figure 3.2 per number of workers, one variable per machine), 'types' (worker "
               "counts per machine type enumerated with proven bounds, one MIP over types per count "
               "vector: no machine symmetry), 'auto' (types when machines repeat)",
               choices=("auto", "machines", "types")),
        Option("symmetry", bool, True, "symmetry breaking among interchangeable machines (machines formulation)"),
        Option("prune", bool, True,
               "skip numbers of workers whose proven lower bound cannot beat the proportional incumbent"),
        Option("cuts", bool, True, "valid strengthening rows (no idle worker, communication and epoch floors)"),
        Option("incumbent_cut", bool, True,
               "restrict each per-W model to epoch times no worse than the incumbent (epoch_upper)"),
    ],
)
def solve_exact_method(inst: CruiseInstance, run: Run) -> Result:
    """The exact optimum of Figure 3.2 (one MIP per number of workers)."""
    o = run.options
    formulation = o["formulation"]
    if formulation == "auto":
        use_types = has_repeated_types(inst) and count_vectors(inst) <= MAX_COUNT_VECTORS
        formulation = "types" if use_types else "machines"
    nv, nc = model_size_estimate(inst, formulation)
    run.require(memory_bytes=(nv + nc) * BYTES_PER_COMPONENT,
                what=f"one model ({nv:,} variables, {nc:,} constraints)")
    # every model is built on a copy in units where the epoch time is of order one (exact:
    # the configurations are the same, every epoch time is multiplied by the factor)
    work, factor = normalised(inst)
    run.objective_floor = SOLVER_RESOLUTION / factor
    if formulation == "machines":
        out = solve_exact(work, run, symmetry=o["symmetry"], prune=o["prune"], cuts=o["cuts"],
                          use_upper=o["incumbent_cut"])
    else:
        out = solve_by_counts(work, run, prune=o["prune"], cuts=o["cuts"], use_upper=o["incumbent_cut"])
    bound = None if out.bound is None else out.bound / factor
    details = {"formulation": formulation, "variables_per_model": nv, "constraints_per_model": nc,
               "time_factor": factor}
    if out.per_w:
        details["per_workers"] = {str(k): _unscaled(v, factor) for k, v in sorted(out.per_w.items())}
    if out.config is None:
        return run.result(bound=bound, **details)
    return run.result(solution=out.config, bound=bound, status=Status.OPTIMAL if out.all_proven else None,
                      **details)


def normalised(inst: CruiseInstance) -> tuple[CruiseInstance, float]:
    """The instance in units where its largest time coefficient (a ``proc_time``, or the
    inverse of a bandwidth: seconds per sample and per model unit) is in ``[1, 2)``:
    every ``proc_time`` times a power of two ``f`` and every bandwidth divided by it
    (exact), so every epoch time is multiplied by ``f`` and the optimal configurations
    are the same (:mod:`dmlsched.normalize`).  The coefficients, not the epoch time,
    set the units: with ``D`` near 1e9 the epoch time is large whatever the units."""
    n = inst.num_machines
    inv_b = (1.0 / inst.b[~np.eye(n, dtype=bool)]).tolist()
    f = pow2(max([*inst.proc_time, *inv_b]))
    if f == 1.0:
        return inst, 1.0
    mb = None if inst.machine_bandwidth is None else tuple(b / f for b in inst.machine_bandwidth)
    mat = None if inst.bandwidth_matrix is None else tuple(
        tuple(None if b is None else b / f for b in row) for row in inst.bandwidth_matrix)
    return dataclasses.replace(inst, proc_time=tuple(p * f for p in inst.proc_time), machine_bandwidth=mb,
                               bandwidth_matrix=mat), f


def _unscaled(entry: dict, factor: float) -> dict:
    """A per-W (or per-count) record of the normalised run in the instance's units."""
    out = dict(entry)
    for k in ("solver_bound", "lower_bound", "objective"):
        v = out.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out[k] = v / factor
    return out
