"""The Cruise configuration MIP (Figure 3.2) with every nonlinearity handled exactly.

Specification with the component names: ``models/cruise.md``.

The objective of Figure 3.2 has three nonlinearities:

1. ``m_j * ||w||`` -- removed by **enumerating** ``W = ||w||`` in ``1..N-1``:
   one MIP per ``W`` with ``sum_i w_i = W`` (``worker_count``), ``W`` a constant;
2. ``ceil(d_i / B)`` -- an **integer number of mini-batches** ``k_i`` with
   ``B k_i >= d_i`` and ``B k_i <= d_i + B - 1`` (``batches_cover``,
   ``batches_ceil``), so ``k_i = ceil(d_i / B)`` exactly;
3. ``k_i * T_i`` (mini-batches times the per-mini-batch communication time
   ``T_i``) -- ``k_i`` in **binary expansion** ``k_i = sum_l 2^l z_il``
   (``batches_binary``) and each ``u_il = z_il * T_i`` by the exact
   linearisation of a binary times a bounded continuous variable
   (``prod_on``, ``prod_off``, ``prod_le_comm``), so ``k_i T_i = sum_l 2^l u_il``.

Valid cuts (``data_nonidle``, ``comm_floor``, ``prod_floor``, ``epoch_floor``),
the restriction to configurations no worse than the incumbent (``epoch_upper``)
and symmetry breaking among interchangeable machines (``sym_*``) strengthen the
models without changing the optimum (``models/cruise.md``).

The optimum over ``W`` is the best of the per-``W`` optima; ``Status.OPTIMAL``
only when every per-``W`` MIP was proven optimal, proven unable to beat the
incumbent (infeasible under ``epoch_upper``), or skipped because a proven lower
bound already exceeds the incumbent.

The continuous relaxation (``relaxation``) on clusters with one bandwidth is
solved by two LPs per role split (:func:`solve_continuous_relaxation`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ...errors import NotApplicable
from ...registry import register_method
from ...result import Result, Status
from ...solvers import solve_model
from .bounds import lower_bound_for_workers
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate

#: names of the constraint families of :func:`build_model` (asserted against models/cruise.md)
CONSTRAINT_NAMES = (
    "role_partition",
    "worker_count",
    "data_total",
    "data_on_workers",
    "model_total",
    "model_on_servers",
    "batches_cover",
    "batches_ceil",
    "batches_binary",
    "comm_server",
    "comm_worker",
    "prod_on",
    "prod_off",
    "prod_le_comm",
    "epoch_time",
    "data_nonidle",
    "comm_floor",
    "prod_floor",
    "epoch_floor",
    "epoch_upper",
    "sym_roles",
    "sym_data",
    "sym_model",
)
VARIABLE_NAMES = ("w", "s", "d", "m", "k", "z", "T", "u", "C")


def comm_upper_bound(inst: CruiseInstance, W: int) -> np.ndarray:
    """``Tmax_i = M W / min_{j != i} b_ij``: an upper bound on the per-mini-batch
    communication time of worker ``i`` when there are ``W`` workers."""
    n = inst.num_machines
    out = np.empty(n)
    for i in range(n):
        bmin = min(inst.b[i, j] for j in range(n) if j != i)
        out[i] = inst.model_size * max(W, 1) / bmin
    return out


# ---------------------------------------------------------------------------
# variables
def _add_variables(mdl, inst: CruiseInstance, W: int, upper: float | None = None) -> None:
    import pyomo.environ as pyo

    n = inst.num_machines
    K = inst.num_batches_max
    L = max(1, K.bit_length())
    tmax = comm_upper_bound(inst, W)
    if upper is not None:  # every worker runs >= 1 mini-batch, so T_i <= C <= upper
        tmax = np.minimum(tmax, upper)
    mdl.I = pyo.RangeSet(0, n - 1)
    mdl.L = pyo.RangeSet(0, L - 1)
    mdl.w = pyo.Var(mdl.I, domain=pyo.Binary)
    mdl.s = pyo.Var(mdl.I, domain=pyo.Binary)
    mdl.d = pyo.Var(mdl.I, domain=pyo.NonNegativeIntegers, bounds=(0, inst.dataset_size))
    mdl.m = pyo.Var(mdl.I, domain=pyo.NonNegativeIntegers, bounds=(0, inst.model_size))
    mdl.k = pyo.Var(mdl.I, domain=pyo.NonNegativeIntegers, bounds=(0, K))
    mdl.z = pyo.Var(mdl.I, mdl.L, domain=pyo.Binary)
    mdl.T = pyo.Var(mdl.I, domain=pyo.NonNegativeReals, bounds=lambda _m, i: (0, float(tmax[i])))
    mdl.u = pyo.Var(mdl.I, mdl.L, domain=pyo.NonNegativeReals, bounds=lambda _m, i, l: (0, float(tmax[i])))
    mdl.C = pyo.Var(domain=pyo.NonNegativeReals)
    mdl.Tmax = {i: float(tmax[i]) for i in range(n)}


# ---------------------------------------------------------------------------
# constraint families, one function each
def _role_partition(mdl, inst: CruiseInstance) -> None:
    """Figure 3.2 line 17: ``w_i + s_i = 1`` -- roles disjoint and covering, so ``||w|| + ||s|| = N``."""
    import pyomo.environ as pyo

    mdl.role_partition = pyo.Constraint(mdl.I, rule=lambda m, i: m.w[i] + m.s[i] == 1)


def _worker_count(mdl, inst: CruiseInstance, W: int) -> None:
    """Enumeration of ``||w||`` (makes ``m_j ||w||`` in (3.4) linear): ``sum_i w_i = W``,
    ``1 <= W <= N-1`` (at least one worker and one server)."""
    import pyomo.environ as pyo

    mdl.worker_count = pyo.Constraint(expr=sum(mdl.w[i] for i in mdl.I) == W)


def _data(mdl, inst: CruiseInstance) -> None:
    """Figure 3.2 line 18: ``sum_i d_i = D``; data only on workers: ``d_i <= D w_i``."""
    import pyomo.environ as pyo

    D = inst.dataset_size
    mdl.data_total = pyo.Constraint(expr=sum(mdl.d[i] for i in mdl.I) == D)
    mdl.data_on_workers = pyo.Constraint(mdl.I, rule=lambda m, i: m.d[i] <= D * m.w[i])


def _model(mdl, inst: CruiseInstance) -> None:
    """Figure 3.2 line 19: ``sum_j m_j = M``; model only on servers: ``m_j <= M s_j``."""
    import pyomo.environ as pyo

    M = inst.model_size
    mdl.model_total = pyo.Constraint(expr=sum(mdl.m[j] for j in mdl.I) == M)
    mdl.model_on_servers = pyo.Constraint(mdl.I, rule=lambda m, j: m.m[j] <= M * m.s[j])


def _batches(mdl, inst: CruiseInstance) -> None:
    """(3.4)'s ``ceil(d_i / B)``: integer ``k_i`` with ``d_i <= B k_i <= d_i + B - 1``
    (so ``k_i = ceil(d_i / B)``), written in binary ``k_i = sum_l 2^l z_il``."""
    import pyomo.environ as pyo

    B = inst.batch_size
    mdl.batches_cover = pyo.Constraint(mdl.I, rule=lambda m, i: B * m.k[i] >= m.d[i])
    mdl.batches_ceil = pyo.Constraint(mdl.I, rule=lambda m, i: B * m.k[i] <= m.d[i] + B - 1)
    mdl.batches_binary = pyo.Constraint(
        mdl.I, rule=lambda m, i: m.k[i] == sum((2**l) * m.z[i, l] for l in m.L)
    )


def _comm(mdl, inst: CruiseInstance, W: int, relax_servers: bool = False) -> None:
    """(3.4): per-mini-batch communication ``T_i >= m_j W / b_ij`` (server bottleneck,
    case 1) and ``T_i >= sum_j m_j / b_ij`` (worker bottleneck, case 2).

    With ``relax_servers`` (used with an upper bound on ``C``) both rows are
    switched off on servers, whose ``T_i`` is unused: the right-hand sides lose
    ``(W M / b_ij)(1 - w_i)`` and ``(M / min_j b_ij)(1 - w_i)``.
    """
    import pyomo.environ as pyo

    n = inst.num_machines
    b = inst.b
    M = inst.model_size
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]

    def server_row(m, i, j):
        rhs = (W / float(b[i, j])) * m.m[j]
        if relax_servers:
            rhs = rhs - (W * M / float(b[i, j])) * (1 - m.w[i])
        return m.T[i] >= rhs

    def worker_row(m, i):
        rhs = sum((1.0 / float(b[i, j])) * m.m[j] for j in range(n) if j != i)
        if relax_servers:
            bmin = min(float(b[i, j]) for j in range(n) if j != i)
            rhs = rhs - (M / bmin) * (1 - m.w[i])
        return m.T[i] >= rhs

    mdl.comm_server = pyo.Constraint(pairs, rule=server_row)
    mdl.comm_worker = pyo.Constraint(mdl.I, rule=worker_row)


def _product(mdl, inst: CruiseInstance) -> None:
    """Exact linearisation of ``z_il * T_i`` (binary times ``0 <= T_i <= Tmax_i``):
    ``u_il >= T_i - Tmax_i (1 - z_il)``, ``u_il <= Tmax_i z_il``, ``u_il <= T_i``, ``u_il >= 0``,
    so ``k_i T_i = sum_l 2^l u_il`` (the dissertation's binary encoding, Section 3.2.3)."""
    import pyomo.environ as pyo

    tm = mdl.Tmax
    mdl.prod_on = pyo.Constraint(
        mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] >= m.T[i] - tm[i] * (1 - m.z[i, l])
    )
    mdl.prod_off = pyo.Constraint(mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] <= tm[i] * m.z[i, l])
    mdl.prod_le_comm = pyo.Constraint(mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] <= m.T[i])


def _epoch_time(mdl, inst: CruiseInstance) -> None:
    """(3.1)-(3.3): ``C >= C^i_proc d_i + sum_l 2^l u_il`` for every machine ``i``
    (for a server ``d_i = k_i = 0`` so the right-hand side is 0)."""
    import pyomo.environ as pyo

    p = inst.p
    mdl.epoch_time = pyo.Constraint(
        mdl.I,
        rule=lambda m, i: m.C >= float(p[i]) * m.d[i] + sum((2**l) * m.u[i, l] for l in m.L),
    )


def _cuts(mdl, inst: CruiseInstance, W: int) -> None:
    """Valid strengthening (not in the dissertation; see models/cruise.md):

    * ``data_nonidle``: ``d_i >= w_i`` -- a worker without data is dominated (make it
      a server with ``m = 0``: ``||w||`` drops by one and no ``T_i`` grows), so the
      optimum over all ``W`` is kept;
    * ``comm_floor``: ``T_i >= tau_i(W) w_i`` with :func:`.bounds.comm_floor`;
    * ``prod_floor``: ``u_il >= tau_i z_il`` (McCormick with the floor of ``T_i``);
    * ``epoch_floor``: ``C >= lower_bound_for_workers(W)``.
    """
    import pyomo.environ as pyo

    from .bounds import comm_floor

    tau = comm_floor(inst, W)
    mdl.data_nonidle = pyo.Constraint(mdl.I, rule=lambda m, i: m.d[i] >= m.w[i])
    mdl.comm_floor = pyo.Constraint(mdl.I, rule=lambda m, i: m.T[i] >= float(tau[i]) * m.w[i])
    mdl.prod_floor = pyo.Constraint(
        mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] >= float(tau[i]) * m.z[i, l]
    )
    mdl.epoch_floor = pyo.Constraint(expr=mdl.C >= lower_bound_for_workers(inst, W))


def _symmetry(mdl, inst: CruiseInstance) -> None:
    """Symmetry breaking within groups of interchangeable machines (same ``C_proc``
    and same bandwidths): for consecutive ``a < b`` of a group, workers first
    (``w_a >= w_b``), workers by non-increasing data (``d_a >= d_b``), servers by
    non-decreasing model share (``m_a <= m_b``).  Valid because permuting
    interchangeable machines preserves the objective."""
    import pyomo.environ as pyo

    pairs = [(g[q], g[q + 1]) for g in inst.machine_types for q in range(len(g) - 1)]
    mdl.sym_roles = pyo.Constraint(pairs, rule=lambda m, a, b: m.w[a] >= m.w[b])
    mdl.sym_data = pyo.Constraint(pairs, rule=lambda m, a, b: m.d[a] >= m.d[b])
    mdl.sym_model = pyo.Constraint(pairs, rule=lambda m, a, b: m.m[a] <= m.m[b])


def build_model(inst: CruiseInstance, W: int, *, symmetry: bool = True, cuts: bool = True,
                upper: float | None = None):
    """The MIP of Figure 3.2 for a fixed number of workers ``W`` (``1 <= W <= N-1``).

    ``upper``: only configurations with epoch time ``<= upper`` are wanted (an
    incumbent's value; requires ``cuts``).  Then ``C <= upper`` (``epoch_upper``),
    ``T_i <= min(Tmax_i, upper)`` (every worker runs at least one mini-batch, so
    ``T_i <= C``) and the communication rows are switched off on servers; the
    model is infeasible when no such configuration exists.

    Returns a Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``).
    """
    import pyomo.environ as pyo

    n = inst.num_machines
    if not 1 <= W <= n - 1:
        raise ValueError(f"W must be in 1..{n - 1}, got {W}")
    if upper is not None and not cuts:
        raise ValueError("upper requires cuts=True (no idle workers)")
    mdl = pyo.ConcreteModel(name=f"cruise_W{W}")
    _add_variables(mdl, inst, W, upper)
    _role_partition(mdl, inst)
    _worker_count(mdl, inst, W)
    _data(mdl, inst)
    _model(mdl, inst)
    _batches(mdl, inst)
    _comm(mdl, inst, W, relax_servers=upper is not None)
    _product(mdl, inst)
    _epoch_time(mdl, inst)
    if cuts:
        _cuts(mdl, inst, W)
    else:
        for name in ("data_nonidle", "comm_floor", "prod_floor", "epoch_floor"):
            setattr(mdl, name, pyo.Constraint(pyo.Any))
    if symmetry:
        _symmetry(mdl, inst)
    else:  # keep the component names present (empty) so the spec test holds either way
        mdl.sym_roles = pyo.Constraint(pyo.Any)
        mdl.sym_data = pyo.Constraint(pyo.Any)
        mdl.sym_model = pyo.Constraint(pyo.Any)
    mdl.epoch_upper = pyo.Constraint(expr=mdl.C <= upper) if upper is not None else pyo.Constraint(pyo.Any)
    mdl.epoch = pyo.Objective(expr=mdl.C, sense=pyo.minimize)
    return mdl


def extract_config(mdl, inst: CruiseInstance) -> CruiseConfig:
    """Read ``(w, s, d, m)`` from a solved model (integers rounded to the nearest value)."""
    import pyomo.environ as pyo

    n = inst.num_machines
    w = [int(round(pyo.value(mdl.w[i]))) for i in range(n)]
    d = [int(round(pyo.value(mdl.d[i]))) for i in range(n)]
    m = [int(round(pyo.value(mdl.m[i]))) for i in range(n)]
    return CruiseConfig(w=tuple(w), s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


@dataclass
class ExactOutcome:
    """Result of :func:`solve_exact` before it becomes a :class:`~dmlsched.Result`."""

    status: Status
    config: CruiseConfig | None
    objective: float | None
    lower_bound: float | None
    per_w: dict[int, dict] = field(default_factory=dict)


#: above this many samples or model units the MIP's coefficients span too many
#: orders of magnitude for HiGHS's infeasibility proofs to be trusted
WELL_SCALED_MAX = 10**7


def _well_scaled(inst: CruiseInstance) -> bool:
    return max(inst.dataset_size, inst.model_size) <= WELL_SCALED_MAX


def _infeasibility_witness(inst: CruiseInstance, W: int, ub: float | None):
    """A configuration with ``W`` workers (better than ``ub``) contradicting a claim
    that none exists, or ``None``."""
    from .heuristics import proportional

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



def solve_exact(
    inst: CruiseInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    symmetry: bool = True,
    prune: bool = True,
    cuts: bool = True,
    use_upper: bool = True,
    workers: list[int] | None = None,
) -> ExactOutcome:
    """Solve the MIP for every ``W`` and keep the best.

    Parameters
    ----------
    symmetry
        Add the symmetry-breaking constraints ``sym_*``.
    cuts
        Add the valid strengthening rows of :func:`_cuts` (``data_nonidle`` etc.).
    use_upper
        Build each per-``W`` model with the incumbent's value as ``upper`` (see
        :func:`build_model`); an infeasible model then proves that ``W`` cannot beat it.
    prune
        Seed the incumbent with the ``proportional`` heuristic (both data rules) and skip every
        ``W`` whose proven lower bound (:func:`.bounds.lower_bound_for_workers`)
        is no better than the incumbent.
    workers
        Restrict the enumeration to these values of ``W`` (default ``1..N-1``);
        the result is then optimal only over those ``W``.
    """
    t0 = time.perf_counter()
    n = inst.num_machines
    Ws = list(workers) if workers is not None else list(range(1, n))
    lbs = {W: lower_bound_for_workers(inst, W) for W in Ws}
    Ws.sort(key=lambda W: (lbs[W], W))
    best_cfg: CruiseConfig | None = None
    best_val = math.inf
    if prune:
        from .heuristics import proportional

        for rule in ("compute", "effective"):
            cfg = proportional(inst, allowed_workers=Ws, data=rule)
            val = evaluate(inst, cfg)
            if val < best_val:
                best_cfg, best_val = cfg, val
    # per W: proven lower bound on its optimum (inf once infeasible) and whether it is settled
    wbound = {W: lbs[W] for W in Ws}
    settled = {W: False for W in Ws}
    per_w: dict[int, dict] = {}
    max_passes = 1 if time_limit is None else 3
    for pass_no in range(max_passes):
        todo = [W for W in Ws if not settled[W] and not (prune and wbound[W] >= best_val)]
        if not todo:
            break
        for q, W in enumerate(todo):
            if prune and wbound[W] >= best_val:
                continue
            tl = None
            if time_limit is not None:
                left = time_limit - (time.perf_counter() - t0)
                if left <= 0.01:
                    break
                tl = left / (len(todo) - q)  # share the rest evenly among the W still to solve
            ub = best_val if (use_upper and cuts and math.isfinite(best_val)) else None
            mdl = build_model(inst, W, symmetry=symmetry, cuts=cuts, upper=ub)
            out = solve_model(mdl, solver, time_limit=tl, seed=seed)
            entry: dict = {"status": out.status.value, "solver_objective": out.objective,
                           "solver_bound": out.bound, "runtime_s": out.runtime_s, "pass": pass_no}
            if out.has_solution:
                cfg = extract_config(mdl, inst)
                val = evaluate(inst, cfg)
                entry["objective"] = val
                if val < best_val:
                    best_cfg, best_val = cfg, val
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
        if time_limit is not None and time.perf_counter() - t0 >= time_limit - 0.01:
            break
    all_proven = True
    for W in Ws:
        if not settled[W]:
            if prune and wbound[W] >= best_val:
                per_w.setdefault(W, {"status": "pruned", "lower_bound": wbound[W]})
            else:
                all_proven = False
                per_w.setdefault(W, {"status": "not_run", "lower_bound": wbound[W]})
    bound = min(wbound.values())
    if best_cfg is None:
        return ExactOutcome(Status.TIME_LIMIT, None, None,
                            None if not math.isfinite(bound) else bound, per_w)
    lb = min(bound, best_val)
    status = Status.OPTIMAL if all_proven else Status.FEASIBLE
    return ExactOutcome(status, best_cfg, best_val, lb, per_w)


@register_method(
    "cruise",
    "exact",
    kind="exact",
    description="Figure 3.2 MIP: enumerate ||w||, integer mini-batches, binary-expansion linearisation",
    uses_solver=True,
)
def solve_exact_method(
    inst: CruiseInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    symmetry: bool = True,
    prune: bool = True,
    cuts: bool = True,
    use_upper: bool = True,
    **options,
) -> Result:
    """The exact optimum of Figure 3.2 (one MIP per number of workers).

    Options
    -------
    symmetry
        Symmetry-breaking constraints among interchangeable machines (default on).
    prune
        Skip numbers of workers whose proven lower bound cannot beat the
        ``proportional`` incumbent (default on).
    cuts
        Valid strengthening rows (``data_nonidle``, ``comm_floor``, ``prod_floor``,
        ``epoch_floor``; default on).
    use_upper
        Build each per-``W`` model restricted to epoch times no worse than the
        incumbent (``epoch_upper``, tighter ``T`` bounds; default on).
    """
    if options:
        raise TypeError(f"unknown option(s) for cruise/exact: {', '.join(options)}")
    out = solve_exact(inst, solver=solver, time_limit=time_limit, seed=seed,
                      symmetry=symmetry, prune=prune, cuts=cuts, use_upper=use_upper)
    details = {"per_workers": {str(k): v for k, v in sorted(out.per_w.items())}}
    return Result(
        "cruise",
        "exact",
        out.status,
        objective=out.objective,
        bound=out.lower_bound,
        solution=out.config,
        solver=solver,
        details=details,
    )


# ---------------------------------------------------------------------------
# the continuous relaxation on clusters with one bandwidth
def _min_comm_lp(inst: CruiseInstance, workers: list[int], servers: list[int]):
    """LP: the least per-mini-batch communication time ``T`` over real ``m >= 0``
    with ``sum_j m_j = M`` (``relax_model_total``), ``T >= W m_j / b``
    (``relax_comm_server``, (3.4) case 1), ``T >= sum_j m_j / b``
    (``relax_comm_worker``, (3.4) case 2), for a cluster with one bandwidth ``b``."""
    import pyomo.environ as pyo

    b = float(inst.b[workers[0], servers[0]])
    W = len(workers)
    mdl = pyo.ConcreteModel(name="cruise_relax_comm")
    mdl.J = pyo.Set(initialize=servers)
    mdl.m = pyo.Var(mdl.J, domain=pyo.NonNegativeReals)
    mdl.T = pyo.Var(domain=pyo.NonNegativeReals)
    mdl.relax_model_total = pyo.Constraint(expr=sum(mdl.m[j] for j in mdl.J) == inst.model_size)
    mdl.relax_comm_server = pyo.Constraint(mdl.J, rule=lambda m, j: m.T >= W * m.m[j] / b)
    mdl.relax_comm_worker = pyo.Constraint(expr=mdl.T >= sum(mdl.m[j] for j in mdl.J) / b)
    mdl.obj = pyo.Objective(expr=mdl.T, sense=pyo.minimize)
    return mdl


def _min_epoch_lp(inst: CruiseInstance, workers: list[int], T: float):
    """LP: ``min C`` over real ``d >= 0`` with ``sum_i d_i = D`` (``relax_data_total``) and
    ``C >= d_i (C^i_proc + T / B)`` (``relax_epoch_time``, (3.1)-(3.4) with ``d_i / B``
    mini-batches and the communication time ``T`` fixed)."""
    import pyomo.environ as pyo

    B = inst.batch_size
    mdl = pyo.ConcreteModel(name="cruise_relax_epoch")
    mdl.I = pyo.Set(initialize=workers)
    mdl.d = pyo.Var(mdl.I, domain=pyo.NonNegativeReals)
    mdl.C = pyo.Var(domain=pyo.NonNegativeReals)
    mdl.relax_data_total = pyo.Constraint(expr=sum(mdl.d[i] for i in mdl.I) == inst.dataset_size)
    mdl.relax_epoch_time = pyo.Constraint(
        mdl.I, rule=lambda m, i: m.C >= (float(inst.p[i]) + T / B) * m.d[i]
    )
    mdl.obj = pyo.Objective(expr=mdl.C, sense=pyo.minimize)
    return mdl


def has_uniform_bandwidth(inst: CruiseInstance) -> bool:
    n = inst.num_machines
    off = inst.b[~np.eye(n, dtype=bool)]
    return bool(np.all(off == off[0]))


def solve_continuous_relaxation(
    inst: CruiseInstance, *, solver: str = "highs", time_limit: float | None = None, seed: int = 0
) -> dict:
    """Optimum of the continuous relaxation (real ``d``, ``m``; ``d_i / B`` mini-batches)
    on a cluster whose bandwidths are all equal (``proc_time`` may differ).

    With one bandwidth every worker has the same communication time ``T(m)``,
    and the epoch time ``max_i d_i (p_i + T(m) / B)`` is non-decreasing in ``T``
    for every ``d``; so the minimum over ``(d, m)`` is reached by first minimising
    ``T`` over ``m`` (an LP) and then the epoch time over ``d`` (an LP).  Roles are
    enumerated per machine type.  Returns ``{"status", "value", "workers", "d", "m"}``.

    Raises
    ------
    ValueError
        If the bandwidths differ (the decomposition is then not exact).
    """
    import pyomo.environ as pyo

    from .heuristics import role_candidates

    if not has_uniform_bandwidth(inst):
        raise ValueError("the continuous relaxation is solved exactly only when all bandwidths are equal")
    n = inst.num_machines
    best: dict = {"status": Status.OPTIMAL, "value": math.inf}
    for workers in role_candidates(inst, max_configs=10**9):
        servers = [j for j in range(n) if j not in set(workers)]
        lp1 = _min_comm_lp(inst, workers, servers)
        o1 = solve_model(lp1, solver, time_limit=time_limit, seed=seed)
        if o1.status != Status.OPTIMAL:
            best["status"] = Status.FEASIBLE if o1.has_solution else o1.status
            if not o1.has_solution:
                continue
        T = float(pyo.value(lp1.T))
        lp2 = _min_epoch_lp(inst, workers, T)
        o2 = solve_model(lp2, solver, time_limit=time_limit, seed=seed)
        if o2.status != Status.OPTIMAL:
            best["status"] = Status.FEASIBLE if o2.has_solution else o2.status
            if not o2.has_solution:
                continue
        val = float(pyo.value(lp2.C))
        if val < best["value"]:
            best.update(
                value=val,
                workers=list(workers),
                d={i: float(pyo.value(lp2.d[i])) for i in workers},
                m={j: float(pyo.value(lp1.m[j])) for j in servers},
            )
    return best


@register_method(
    "cruise",
    "relaxation",
    kind="bound",
    description="Continuous relaxation (real d, m; d/B mini-batches) by two LPs; equal bandwidths only",
    uses_solver=True,
)
def solve_relaxation_method(
    inst: CruiseInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    **options,
) -> Result:
    """The continuous relaxation's optimum, a proven lower bound on the epoch time
    (``Status.ERROR`` when bandwidths differ)."""
    if options:
        raise TypeError(f"unknown option(s) for cruise/relaxation: {', '.join(options)}")
    try:
        out = solve_continuous_relaxation(inst, solver=solver, time_limit=time_limit, seed=seed)
    except ValueError as e:
        raise NotApplicable(str(e)) from None
    if not math.isfinite(out["value"]):
        return Result("cruise", "relaxation", Status.TIME_LIMIT, solver=solver)
    # a relaxation value is a valid bound only when every LP was solved to optimality
    proven = out["status"] == Status.OPTIMAL
    return Result(
        "cruise", "relaxation", Status.OPTIMAL if proven else Status.FEASIBLE,
        objective=out["value"] if proven else None,
        bound=out["value"] if proven else None,
        solver=solver,
        details={"workers": out["workers"], "d": {str(k): v for k, v in out["d"].items()},
                 "m": {str(k): v for k, v in out["m"].items()}},
    )
