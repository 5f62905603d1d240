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

**Machine types** (``formulation="types"``, the default when machines
repeat).  Interchangeable machines (same ``C_proc`` and bandwidths) are one
*type* with a count ``n_t``.  Every vector ``x`` of worker counts per type is
either pruned by a proven bound (:func:`count_vector_bound`) or solved by a
small MIP over types (:func:`build_count_model`: per type the data total, the
most samples on one worker, the model total and the most units on one
server); no machine is named, so the symmetry among machines of a type is
gone.  Exact: ``models/cruise.md``, "The model over machine types".

The optimum over ``W`` is the best of the per-``W`` optima; ``Status.OPTIMAL``
only when every per-``W`` MIP was proven optimal, proven unable to beat the
incumbent (infeasible under ``epoch_upper``), or skipped because a proven lower
bound already exceeds the incumbent.  ``time_limit`` is the deadline of the
whole enumeration (shared among the ``W`` still to solve).

The continuous relaxation (``relaxation``) on clusters with one bandwidth is
solved by two LPs per role split (:func:`solve_continuous_relaxation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from .bounds import _max_samples, lower_bound_for_workers
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


# ---------------------------------------------------------------------------
# the MIP over machine types (machines of a type are interchangeable)

#: names of the constraint families of :func:`build_count_model` (asserted against models/cruise.md)
COUNT_CONSTRAINT_NAMES = (
    "cnt_data_total",
    "cnt_data_capacity",
    "cnt_model_total",
    "cnt_model_capacity",
    "cnt_batches_cover",
    "cnt_batches_ceil",
    "cnt_batches_binary",
    "cnt_comm_server",
    "cnt_comm_worker",
    "cnt_prod_on",
    "cnt_prod_off",
    "cnt_prod_le_comm",
    "cnt_epoch_time",
    "cnt_data_nonidle",
    "cnt_comm_floor",
    "cnt_prod_floor",
    "cnt_epoch_floor",
    "cnt_epoch_upper",
)
COUNT_VARIABLE_NAMES = ("data_t", "qmax", "model_t", "lmax", "kb", "zb", "Tt", "ub", "C")


@dataclass(frozen=True)
class TypeData:
    """The type structure of an instance: counts, compute times and type-to-type bandwidths.

    ``bw[t][u]`` is the bandwidth from a worker of type ``t`` to a server of
    type ``u`` (``None`` for ``t == u`` when the type has one machine: no such
    pair exists).
    """

    members: tuple[tuple[int, ...], ...]
    n: tuple[int, ...]
    p: tuple[float, ...]
    bw: tuple[tuple[float | None, ...], ...]

    @classmethod
    def of(cls, inst: CruiseInstance) -> "TypeData":
        types = inst.machine_types
        bw = []
        for t, gt in enumerate(types):
            row: list[float | None] = []
            for u, gu in enumerate(types):
                if t != u:
                    row.append(float(inst.b[gt[0], gu[0]]))
                elif len(gt) >= 2:
                    row.append(float(inst.b[gt[0], gt[1]]))
                else:
                    row.append(None)
            bw.append(tuple(row))
        return cls(members=types, n=tuple(len(g) for g in types),
                   p=tuple(float(inst.p[g[0]]) for g in types), bw=tuple(bw))

    def links(self, t: int) -> list[tuple[int, float]]:
        """``(u, b_tu)`` for every server type ``u`` a worker of type ``t`` can talk to."""
        return [(u, b) for u, b in enumerate(self.bw[t]) if b is not None]


def type_comm_floor(td: TypeData, counts: tuple[int, ...], M: int) -> dict[int, float]:
    """``tau_t(x)``: a lower bound on the per-mini-batch communication time of every worker
    of type ``t`` in any configuration with ``x_t = counts[t]`` workers of each type.

    With ``S_u = n_u - x_u`` servers of type ``u`` holding ``M_u`` units (at most
    ``L_u`` on one server): ``sum_u M_u / b_tu >= M / max_u b_tu`` (over the server
    types present), and ``max_u L_u / b_tu >= max_u M_u / (S_u b_tu) >= M / sum_u S_u b_tu``
    (if every ratio were smaller, the ``M_u`` would not sum to ``M``).  So
    ``T_t >= max(M / max_u b_tu, W M / sum_u S_u b_tu)`` ((3.4) cases 2 and 1).
    """
    W = sum(counts)
    out = {}
    for t, x in enumerate(counts):
        if x == 0:
            continue
        links = [(u, b) for u, b in td.links(t) if td.n[u] - counts[u] > 0]
        bmax = max(b for _, b in links)
        cap = sum((td.n[u] - counts[u]) * b for u, b in links)
        out[t] = max(M / bmax, W * M / cap)
    return out


def _count_caps(inst: CruiseInstance, td: TypeData, counts: tuple[int, ...], tau: dict[int, float]):
    ps = [td.p[t] for t in tau]
    Ts = [tau[t] for t in tau]
    cs = [counts[t] for t in tau]
    return ps, Ts, cs


def count_vector_bound(inst: CruiseInstance, td: TypeData, counts: tuple[int, ...],
                       cutoff: float | None = None) -> float:
    """A proven lower bound on the epoch time of every configuration with the worker counts
    ``counts`` per type: the least ``C`` with ``sum_t x_t f_t(C) >= D``, where ``f_t(C)``
    is the most samples a worker of type ``t`` can process within ``C`` when its
    communication time is ``tau_t(x)`` (:func:`type_comm_floor`; ``f_t`` only grows when
    the communication time shrinks).

    With ``cutoff``: returns ``math.inf`` as soon as the bound is shown to be ``> cutoff``
    (one evaluation instead of a bisection).
    """
    from .bruteforce import _least_epoch_exact

    D, M, B = inst.dataset_size, inst.model_size, inst.batch_size
    tau = type_comm_floor(td, counts, M)
    ps, Ts, cs = _count_caps(inst, td, counts, tau)
    if cutoff is not None and math.isfinite(cutoff):
        if sum(c * _max_samples(p, T, B, cutoff, D) for p, T, c in zip(ps, Ts, cs)) < D:
            return math.inf
    C, _ = _least_epoch_exact(ps, Ts, cs, B, D)
    return C


def build_count_model(inst: CruiseInstance, counts: tuple[int, ...], *, cuts: bool = True,
                      upper: float | None = None):
    """The MIP over machine types for fixed worker counts ``counts[t]`` per type
    (``models/cruise.md``, "The model over machine types").

    ``upper``: only configurations with epoch time ``<= upper`` are wanted (requires
    ``cuts``); it also tightens the bounds of ``qmax``, ``kb`` (fewer bits) and ``Tt``.
    Returns a Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``).
    """
    import pyomo.environ as pyo

    td = TypeData.of(inst)
    if len(counts) != len(td.n) or any(not 0 <= x <= n for x, n in zip(counts, td.n)):
        raise ValueError(f"counts must give 0..n_t workers for each of the {len(td.n)} types, got {counts}")
    W = sum(counts)
    if not 1 <= W <= inst.num_machines - 1:
        raise ValueError(f"need at least one worker and one server, got counts {counts}")
    if upper is not None and not cuts:
        raise ValueError("upper requires cuts=True (no idle workers)")
    D, M, B = inst.dataset_size, inst.model_size, inst.batch_size
    S = [n - x for n, x in zip(td.n, counts)]
    WT = [t for t, x in enumerate(counts) if x > 0]
    ST = [u for u, s in enumerate(S) if s > 0]
    tau = type_comm_floor(td, counts, M)
    qhi, khi, tmax, nbits = {}, {}, {}, {}
    for t in WT:
        links = [b for u, b in td.links(t) if S[u] > 0]
        tmax[t] = W * M / min(links)
        qhi[t] = D
        khi[t] = inst.num_batches_max
        if upper is not None:
            tmax[t] = min(tmax[t], upper)  # every worker runs >= 1 mini-batch (no idle worker)
            qhi[t] = min(D, math.floor(upper / td.p[t] * (1 + 1e-9)))
            khi[t] = min(khi[t], math.floor(upper / tau[t] * (1 + 1e-9)))
        khi[t] = max(1, min(khi[t], -(-qhi[t] // B)))
        nbits[t] = max(1, int(khi[t]).bit_length())
    mdl = pyo.ConcreteModel(name=f"cruise_counts_{'_'.join(map(str, counts))}")
    mdl.WT = pyo.Set(initialize=WT)
    mdl.ST = pyo.Set(initialize=ST)
    mdl.TL = pyo.Set(initialize=[(t, l) for t in WT for l in range(nbits[t])], dimen=2)
    pairs = [(t, u) for t in WT for u in ST]
    mdl.data_t = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=(0, D))
    mdl.qmax = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=lambda _m, t: (0, qhi[t]))
    mdl.model_t = pyo.Var(mdl.ST, domain=pyo.NonNegativeIntegers, bounds=(0, M))
    mdl.lmax = pyo.Var(mdl.ST, domain=pyo.NonNegativeIntegers, bounds=(0, M))
    mdl.kb = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=lambda _m, t: (0, khi[t]))
    mdl.zb = pyo.Var(mdl.TL, domain=pyo.Binary)
    mdl.Tt = pyo.Var(mdl.WT, domain=pyo.NonNegativeReals, bounds=lambda _m, t: (0, tmax[t]))
    mdl.ub = pyo.Var(mdl.TL, domain=pyo.NonNegativeReals, bounds=lambda _m, t, l: (0, tmax[t]))
    mdl.C = pyo.Var(domain=pyo.NonNegativeReals)
    _count_data(mdl, counts, D)
    _count_model(mdl, S, M)
    _count_batches(mdl, B, nbits)
    _count_comm(mdl, td, W, pairs)
    _count_product(mdl, tmax)
    _count_epoch(mdl, td, nbits)
    if cuts:
        _count_cuts(mdl, inst, td, counts, tau)
    else:
        for name in ("cnt_data_nonidle", "cnt_comm_floor", "cnt_prod_floor", "cnt_epoch_floor"):
            setattr(mdl, name, pyo.Constraint(pyo.Any))
    mdl.cnt_epoch_upper = pyo.Constraint(expr=mdl.C <= upper) if upper is not None else pyo.Constraint(pyo.Any)
    mdl.epoch = pyo.Objective(expr=mdl.C, sense=pyo.minimize)
    return mdl


def _count_data(mdl, counts: tuple[int, ...], D: int) -> None:
    """Figure 3.2 line 18 by type: ``sum_t data_t = D`` (``cnt_data_total``); the fullest of the
    ``x_t`` workers of type ``t`` holds ``qmax_t >= data_t / x_t`` (``cnt_data_capacity``)."""
    import pyomo.environ as pyo

    mdl.cnt_data_total = pyo.Constraint(expr=sum(mdl.data_t[t] for t in mdl.WT) == D)
    mdl.cnt_data_capacity = pyo.Constraint(mdl.WT, rule=lambda m, t: m.data_t[t] <= counts[t] * m.qmax[t])


def _count_model(mdl, S: list[int], M: int) -> None:
    """Figure 3.2 line 19 by type: ``sum_u model_u = M`` (``cnt_model_total``); the fullest of the
    ``S_u`` servers of type ``u`` holds ``lmax_u >= model_u / S_u`` (``cnt_model_capacity``)."""
    import pyomo.environ as pyo

    mdl.cnt_model_total = pyo.Constraint(expr=sum(mdl.model_t[u] for u in mdl.ST) == M)
    mdl.cnt_model_capacity = pyo.Constraint(mdl.ST, rule=lambda m, u: m.model_t[u] <= S[u] * m.lmax[u])


def _count_batches(mdl, B: int, nbits: dict[int, int]) -> None:
    """(3.4)'s ``ceil(d_i / B)`` for the fullest worker of a type:
    ``qmax_t <= B kb_t <= qmax_t + B - 1``, ``kb_t = sum_l 2^l zb[t,l]``."""
    import pyomo.environ as pyo

    mdl.cnt_batches_cover = pyo.Constraint(mdl.WT, rule=lambda m, t: B * m.kb[t] >= m.qmax[t])
    mdl.cnt_batches_ceil = pyo.Constraint(mdl.WT, rule=lambda m, t: B * m.kb[t] <= m.qmax[t] + B - 1)
    mdl.cnt_batches_binary = pyo.Constraint(
        mdl.WT, rule=lambda m, t: m.kb[t] == sum((2**l) * m.zb[t, l] for l in range(nbits[t])))


def _count_comm(mdl, td: TypeData, W: int, pairs: list[tuple[int, int]]) -> None:
    """(3.4) for a worker of type ``t``: ``Tt_t >= W lmax_u / b_tu`` for every server type ``u``
    (case 1, ``cnt_comm_server``) and ``Tt_t >= sum_u model_u / b_tu`` (case 2, ``cnt_comm_worker``)."""
    import pyomo.environ as pyo

    mdl.cnt_comm_server = pyo.Constraint(pairs, rule=lambda m, t, u: m.Tt[t] >= (W / td.bw[t][u]) * m.lmax[u])
    mdl.cnt_comm_worker = pyo.Constraint(
        mdl.WT, rule=lambda m, t: m.Tt[t] >= sum(m.model_t[u] / td.bw[t][u] for u in m.ST))


def _count_product(mdl, tmax: dict[int, float]) -> None:
    """Exact linearisation of ``zb[t,l] * Tt_t``: ``ub >= Tt - Tmax (1 - zb)``, ``ub <= Tmax zb``,
    ``ub <= Tt``, so ``kb_t Tt_t = sum_l 2^l ub[t,l]``."""
    import pyomo.environ as pyo

    mdl.cnt_prod_on = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] >= m.Tt[t] - tmax[t] * (1 - m.zb[t, l]))
    mdl.cnt_prod_off = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] <= tmax[t] * m.zb[t, l])
    mdl.cnt_prod_le_comm = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] <= m.Tt[t])


def _count_epoch(mdl, td: TypeData, nbits: dict[int, int]) -> None:
    """(3.1)-(3.3) for the fullest worker of every type: ``C >= p_t qmax_t + sum_l 2^l ub[t,l]``."""
    import pyomo.environ as pyo

    mdl.cnt_epoch_time = pyo.Constraint(
        mdl.WT, rule=lambda m, t: m.C >= td.p[t] * m.qmax[t] + sum((2**l) * m.ub[t, l] for l in range(nbits[t])))


def _count_cuts(mdl, inst: CruiseInstance, td: TypeData, counts: tuple[int, ...], tau: dict[int, float]) -> None:
    """Valid strengthening: no idle worker (``data_t >= x_t``; a configuration with one is
    dominated by the count vector with one worker fewer), the communication floor
    ``Tt_t >= tau_t(x)`` and ``ub[t,l] >= tau_t zb[t,l]`` (:func:`type_comm_floor`), and
    ``C >= count_vector_bound(x)``."""
    import pyomo.environ as pyo

    mdl.cnt_data_nonidle = pyo.Constraint(mdl.WT, rule=lambda m, t: m.data_t[t] >= counts[t])
    mdl.cnt_comm_floor = pyo.Constraint(mdl.WT, rule=lambda m, t: m.Tt[t] >= tau[t])
    mdl.cnt_prod_floor = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] >= tau[t] * m.zb[t, l])
    mdl.cnt_epoch_floor = pyo.Constraint(expr=mdl.C >= count_vector_bound(inst, td, counts))


def extract_count_config(mdl, inst: CruiseInstance, counts: tuple[int, ...]) -> CruiseConfig:
    """The configuration of a solved count model: the first ``x_t`` machines of each type work;
    each type's data and model totals are split evenly (largest remainder), so no worker
    holds more than ``qmax_t`` and no server more than ``lmax_u``."""
    import pyomo.environ as pyo

    from .heuristics import apportion

    td = TypeData.of(inst)
    n = inst.num_machines
    w, d, m = [0] * n, [0] * n, [0] * n
    for t, g in enumerate(td.members):
        workers, servers = g[: counts[t]], g[counts[t]:]
        for i in workers:
            w[i] = 1
        if workers:
            dt = int(round(pyo.value(mdl.data_t[t])))
            for i, x in zip(workers, apportion(dt, [1.0] * len(workers))):
                d[i] = x
        if servers:
            mt = int(round(pyo.value(mdl.model_t[t])))
            for j, x in zip(servers, apportion(mt, [1.0] * len(servers))):
                m[j] = x
    # a solver's integer values are rounded within its tolerance; should the totals then
    # be off by a unit, repair them (the validator would reject the configuration)
    _fix_total(d, [i for i in range(n) if w[i]], inst.dataset_size)
    _fix_total(m, [j for j in range(n) if not w[j]], inst.model_size)
    return CruiseConfig(w=tuple(w), s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


def _fix_total(vec: list[int], owners: list[int], total: int) -> None:
    diff = total - sum(vec)
    if diff == 0 or not owners:
        return
    order = sorted(owners, key=lambda i: vec[i]) if diff > 0 else sorted(owners, key=lambda i: -vec[i])
    q = 0
    while diff != 0:
        i = order[q % len(order)]
        if diff > 0:
            vec[i] += 1
            diff -= 1
        elif vec[i] > 0:
            vec[i] -= 1
            diff += 1
        q += 1


def count_vectors(inst: CruiseInstance) -> int:
    """How many worker-count vectors (one count per machine type, ``1 <= W <= N - 1``) there are."""
    total = 1
    for g in inst.machine_types:
        total *= len(g) + 1
    return total - 2


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
    from .heuristics import proportional

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
            share = run.deadline.share(1.0 / (len(todo) - q))
            ub = best_val if (use_upper and cuts and math.isfinite(best_val)) else None
            with run.stage("build"):
                mdl = build_count_model(inst, x, cuts=cuts, upper=ub)
            out = run.solve_model(mdl, deadline=share, what=f"the MIP of counts {x}")
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
    from .heuristics import proportional

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
            share = run.deadline.share(1.0 / (len(todo) - q))  # the rest, evenly among the W left
            ub = best_val if (use_upper and cuts and math.isfinite(best_val)) else None
            with run.stage("build"):
                mdl = build_model(inst, W, symmetry=symmetry, cuts=cuts, upper=ub)
            out = run.solve_model(mdl, deadline=share, what=f"the MIP with W = {W}")
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
        Option("use_upper", bool, True,
               "restrict each per-W model to epoch times no worse than the incumbent (epoch_upper)"),
    ],
)
def solve_exact_method(inst: CruiseInstance, run: Run) -> Result:
    """The exact optimum of Figure 3.2 (one MIP per number of workers)."""
    from .bruteforce import has_repeated_types

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
    from ...normalize import SOLVER_RESOLUTION

    work, factor = normalised(inst)
    run.objective_floor = SOLVER_RESOLUTION / factor
    if formulation == "machines":
        out = solve_exact(work, run, symmetry=o["symmetry"], prune=o["prune"], cuts=o["cuts"],
                          use_upper=o["use_upper"])
    else:
        out = solve_by_counts(work, run, prune=o["prune"], cuts=o["cuts"], use_upper=o["use_upper"])
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
    import dataclasses

    from ...normalize import pow2

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


def solve_continuous_relaxation(inst: CruiseInstance, run: Run) -> dict:
    """Optimum of the continuous relaxation (real ``d``, ``m``; ``d_i / B`` mini-batches)
    on a cluster whose bandwidths are all equal (``proc_time`` may differ).

    With one bandwidth every worker has the same communication time ``T(m)``,
    and the epoch time ``max_i d_i (p_i + T(m) / B)`` is non-decreasing in ``T``
    for every ``d``; so the minimum over ``(d, m)`` is reached by first minimising
    ``T`` over ``m`` (an LP) and then the epoch time over ``d`` (an LP).  Roles are
    enumerated per machine type.  Returns ``{"proven", "value", "workers", "d", "m"}``;
    ``proven`` is ``False`` when an LP was not solved to optimality or the deadline
    stopped the enumeration (the value is then not a bound).

    Raises
    ------
    NotApplicable
        If the bandwidths differ (the decomposition is then not exact).
    """
    import pyomo.environ as pyo

    from .heuristics import role_candidates

    if not has_uniform_bandwidth(inst):
        raise NotApplicable("the continuous relaxation is solved exactly only when all bandwidths are equal")
    n = inst.num_machines
    best: dict = {"proven": True, "value": math.inf}
    for workers in role_candidates(inst, max_configs=10**9):
        if run.expired():
            run.cut("the enumeration of role splits")
            best["proven"] = False
            break
        servers = [j for j in range(n) if j not in set(workers)]
        with run.stage("build"):
            lp1 = _min_comm_lp(inst, workers, servers)
        o1 = run.solve_model(lp1, what="the communication LP")
        if o1.status != Status.OPTIMAL:
            best["proven"] = False
            continue
        T = float(pyo.value(lp1.T))
        with run.stage("build"):
            lp2 = _min_epoch_lp(inst, workers, T)
        o2 = run.solve_model(lp2, what="the epoch LP")
        if o2.status != Status.OPTIMAL:
            best["proven"] = False
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


@method(
    "cruise",
    "relaxation",
    kind="bound",
    uses_solver=True,
    description="Continuous relaxation (real d, m; d/B mini-batches) by two LPs; equal bandwidths only",
)
def solve_relaxation_method(inst: CruiseInstance, run: Run) -> Result:
    """The continuous relaxation's optimum, a proven lower bound on the epoch time
    (``n/a`` when bandwidths differ)."""
    out = solve_continuous_relaxation(inst, run)
    if not out["proven"] or not math.isfinite(out["value"]):
        # a relaxation value is a valid bound only when every LP was solved to optimality
        if run.details.get("deadline_cut"):
            return run.result(status=Status.TIME_LIMIT)
        return run.result(status=Status.ERROR, error="an LP of the relaxation was not solved to optimality")
    return run.result(
        bound=out["value"],
        workers=out["workers"], d={str(k): v for k, v in out["d"].items()},
        m={str(k): v for k, v in out["m"].items()},
    )
