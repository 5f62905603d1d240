"""The Cruise MIP over machine types (``formulation="types"``, the default when machines repeat).

Interchangeable machines (same ``C_proc`` and bandwidths) are one *type* with a
count ``n_t``.  Every vector ``x`` of worker counts per type is either pruned by
a proven bound (:func:`count_vector_bound`) or solved by a small MIP over types
(:class:`CountModel`, :func:`build_count_model`: per type the data total, the most samples on one
worker, the model total and the most units on one server); no machine is
named, so the symmetry among machines of a type is gone.  Exact:
``models/cruise.md``, "The model over machine types".  The enumeration over
the count vectors is :func:`.models.solve_by_counts`.  Pyomo is imported only
inside the builders.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...modeling import ModelBuilder
from .bounds import max_samples
from .bruteforce import least_epoch_exact
from .heuristics import apportion
from .instance import CruiseInstance
from .solution import CruiseConfig

# ---------------------------------------------------------------------------
# the MIP over machine types (machines of a type are interchangeable)


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
    D, M, B = inst.dataset_size, inst.model_size, inst.batch_size
    tau = type_comm_floor(td, counts, M)
    ps, Ts, cs = _count_caps(inst, td, counts, tau)
    if cutoff is not None and math.isfinite(cutoff):
        if sum(c * max_samples(p, T, B, cutoff, D) for p, T, c in zip(ps, Ts, cs)) < D:
            return math.inf
    C, _ = least_epoch_exact(ps, Ts, cs, B, D)
    return C


class CountModel(ModelBuilder):
    """The MIP over machine types for fixed worker counts ``counts[t]`` per type
    (``models/cruise.md``, "The model over machine types").

    Parameters
    ----------
    inst
        The instance.
    counts
        ``x_t``: the number of workers of each type (:attr:`CruiseInstance.machine_types`).
    cuts
        Add ``cnt_data_nonidle``, ``cnt_comm_floor``, ``cnt_prod_floor``, ``cnt_epoch_floor``
        (else present and empty).
    upper
        Only configurations with epoch time ``<= upper`` are wanted (requires ``cuts``); it
        also tightens the bounds of ``qmax``, ``kb`` (fewer bits) and ``Tt``.

    Attributes
    ----------
    model
        The Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``).
    """

    #: the constraint families in the order :meth:`build` adds them (asserted against models/cruise.md)
    CONSTRAINTS = (
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
    #: the valid cuts (present and empty without ``cuts``)
    CUTS = ("cnt_data_nonidle", "cnt_comm_floor", "cnt_prod_floor", "cnt_epoch_floor")

    def __init__(self, inst: CruiseInstance, counts: tuple[int, ...], *, cuts: bool = True,
                 upper: float | None = None) -> None:
        self.inst = inst
        self.counts = counts
        self.cuts = cuts
        self.upper = upper
        self.td = TypeData.of(inst)

    def build(self):
        """The model: the bounds of its variables, the variables, the constraint families of
        :attr:`CONSTRAINTS` (the cuts empty when switched off), then the objective ``epoch``.

        Raises
        ------
        ValueError
            ``counts`` not ``0..n_t`` per type, no worker or no server, or ``upper`` without ``cuts``.
        """
        import pyomo.environ as pyo

        self._check()
        self._bounds()
        self.model = pyo.ConcreteModel(name=f"cruise_counts_{'_'.join(map(str, self.counts))}")
        self.add_variables()
        for name in self.CONSTRAINTS:
            if name in self.CUTS and not self.cuts:
                setattr(self.model, name, pyo.Constraint(pyo.Any))
            else:
                getattr(self, f"add_{name}")()
        self.add_objective()
        return self.model

    def _check(self) -> None:
        td, counts = self.td, self.counts
        if len(counts) != len(td.n) or any(not 0 <= x <= n for x, n in zip(counts, td.n)):
            raise ValueError(f"counts must give 0..n_t workers for each of the {len(td.n)} types, got {counts}")
        if not 1 <= sum(counts) <= self.inst.num_machines - 1:
            raise ValueError(f"need at least one worker and one server, got counts {counts}")
        if self.upper is not None and not self.cuts:
            raise ValueError("upper requires cuts=True (no idle workers)")

    def _bounds(self) -> None:
        """Worker count ``W``, server counts ``S``, worker and server types ``WT``, ``ST``, the floor
        ``tau`` (:func:`type_comm_floor`) and the bounds ``qhi``, ``khi``, ``tmax``, ``nbits`` per worker type."""
        inst, td, counts, upper = self.inst, self.td, self.counts, self.upper
        D, M, B = inst.dataset_size, inst.model_size, inst.batch_size
        self.W = W = sum(counts)
        self.S = S = [n - x for n, x in zip(td.n, counts)]
        self.WT = WT = [t for t, x in enumerate(counts) if x > 0]
        self.ST = [u for u, s in enumerate(S) if s > 0]
        self.tau = tau = type_comm_floor(td, counts, M)
        self.qhi, self.khi, self.tmax, self.nbits = qhi, khi, tmax, nbits = {}, {}, {}, {}
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

    # -- variables and objective --------------------------------------------------
    def add_variables(self) -> None:
        """Sets ``WT``, ``ST``, ``TL``; variables ``data_t``, ``qmax``, ``model_t``, ``lmax``, ``kb``,
        ``zb``, ``Tt``, ``ub``, ``C`` (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        mdl, inst = self.model, self.inst
        D, M = inst.dataset_size, inst.model_size
        qhi, khi, tmax, nbits = self.qhi, self.khi, self.tmax, self.nbits
        mdl.WT = pyo.Set(initialize=self.WT)
        mdl.ST = pyo.Set(initialize=self.ST)
        mdl.TL = pyo.Set(initialize=[(t, l) for t in self.WT for l in range(nbits[t])], dimen=2)
        mdl.data_t = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=(0, D))
        mdl.qmax = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=lambda _m, t: (0, qhi[t]))
        mdl.model_t = pyo.Var(mdl.ST, domain=pyo.NonNegativeIntegers, bounds=(0, M))
        mdl.lmax = pyo.Var(mdl.ST, domain=pyo.NonNegativeIntegers, bounds=(0, M))
        mdl.kb = pyo.Var(mdl.WT, domain=pyo.NonNegativeIntegers, bounds=lambda _m, t: (0, khi[t]))
        mdl.zb = pyo.Var(mdl.TL, domain=pyo.Binary)
        mdl.Tt = pyo.Var(mdl.WT, domain=pyo.NonNegativeReals, bounds=lambda _m, t: (0, tmax[t]))
        mdl.ub = pyo.Var(mdl.TL, domain=pyo.NonNegativeReals, bounds=lambda _m, t, l: (0, tmax[t]))
        mdl.C = pyo.Var(domain=pyo.NonNegativeReals)

    def add_objective(self) -> None:
        """``epoch``: minimise the epoch time ``C`` (3.1)."""
        import pyomo.environ as pyo

        self.model.epoch = pyo.Objective(expr=self.model.C, sense=pyo.minimize)

    # -- Figure 3.2 lines 18-19 by type -------------------------------------------------
    def add_cnt_data_total(self) -> None:
        """Figure 3.2 line 18 by type: ``sum_t data_t = D`` (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cnt_data_total = pyo.Constraint(expr=sum(mdl.data_t[t] for t in mdl.WT) == self.inst.dataset_size)

    def add_cnt_data_capacity(self) -> None:
        """The fullest of the ``x_t`` workers of type ``t`` holds ``qmax_t >= data_t / x_t``
        (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        counts = self.counts
        mdl = self.model
        mdl.cnt_data_capacity = pyo.Constraint(mdl.WT, rule=lambda m, t: m.data_t[t] <= counts[t] * m.qmax[t])

    def add_cnt_model_total(self) -> None:
        """Figure 3.2 line 19 by type: ``sum_u model_u = M`` (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cnt_model_total = pyo.Constraint(expr=sum(mdl.model_t[u] for u in mdl.ST) == self.inst.model_size)

    def add_cnt_model_capacity(self) -> None:
        """The fullest of the ``S_u`` servers of type ``u`` holds ``lmax_u >= model_u / S_u``
        (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        S = self.S
        mdl = self.model
        mdl.cnt_model_capacity = pyo.Constraint(mdl.ST, rule=lambda m, u: m.model_t[u] <= S[u] * m.lmax[u])

    # -- (3.4)'s ceil(d_i / B) for the fullest worker of a type ------------------------------
    def add_cnt_batches_cover(self) -> None:
        """(3.4)'s ``ceil(qmax_t / B)`` from below: ``B kb_t >= qmax_t``."""
        import pyomo.environ as pyo

        B = self.inst.batch_size
        mdl = self.model
        mdl.cnt_batches_cover = pyo.Constraint(mdl.WT, rule=lambda m, t: B * m.kb[t] >= m.qmax[t])

    def add_cnt_batches_ceil(self) -> None:
        """(3.4)'s ``ceil(qmax_t / B)`` from above: ``B kb_t <= qmax_t + B - 1``."""
        import pyomo.environ as pyo

        B = self.inst.batch_size
        mdl = self.model
        mdl.cnt_batches_ceil = pyo.Constraint(mdl.WT, rule=lambda m, t: B * m.kb[t] <= m.qmax[t] + B - 1)

    def add_cnt_batches_binary(self) -> None:
        """(3.4)'s ``kb_t`` in binary: ``kb_t = sum_l 2^l zb[t,l]``."""
        import pyomo.environ as pyo

        nbits = self.nbits
        mdl = self.model
        mdl.cnt_batches_binary = pyo.Constraint(
            mdl.WT, rule=lambda m, t: m.kb[t] == sum((2**l) * m.zb[t, l] for l in range(nbits[t])))

    # -- (3.4) for a worker of type t --------------------------------------------------------
    def add_cnt_comm_server(self) -> None:
        """(3.4) case 1: ``Tt_t >= W lmax_u / b_tu`` for every server type ``u``."""
        import pyomo.environ as pyo

        td, W = self.td, self.W
        pairs = [(t, u) for t in self.WT for u in self.ST]
        self.model.cnt_comm_server = pyo.Constraint(
            pairs, rule=lambda m, t, u: m.Tt[t] >= (W / td.bw[t][u]) * m.lmax[u])

    def add_cnt_comm_worker(self) -> None:
        """(3.4) case 2: ``Tt_t >= sum_u model_u / b_tu``."""
        import pyomo.environ as pyo

        td = self.td
        mdl = self.model
        mdl.cnt_comm_worker = pyo.Constraint(
            mdl.WT, rule=lambda m, t: m.Tt[t] >= sum(m.model_t[u] / td.bw[t][u] for u in m.ST))

    # -- exact linearisation of zb[t,l] * Tt_t, so kb_t Tt_t = sum_l 2^l ub[t,l] -------------
    def add_cnt_prod_on(self) -> None:
        """``ub >= Tt - Tmax (1 - zb)`` (the linearisation of ``kb_t Tt_t`` in (3.4))."""
        import pyomo.environ as pyo

        tmax = self.tmax
        mdl = self.model
        mdl.cnt_prod_on = pyo.Constraint(
            mdl.TL, rule=lambda m, t, l: m.ub[t, l] >= m.Tt[t] - tmax[t] * (1 - m.zb[t, l]))

    def add_cnt_prod_off(self) -> None:
        """``ub <= Tmax zb`` (the linearisation of ``kb_t Tt_t`` in (3.4))."""
        import pyomo.environ as pyo

        tmax = self.tmax
        mdl = self.model
        mdl.cnt_prod_off = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] <= tmax[t] * m.zb[t, l])

    def add_cnt_prod_le_comm(self) -> None:
        """``ub <= Tt`` (the linearisation of ``kb_t Tt_t`` in (3.4))."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cnt_prod_le_comm = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] <= m.Tt[t])

    def add_cnt_epoch_time(self) -> None:
        """(3.1)-(3.3) for the fullest worker of every type: ``C >= p_t qmax_t + sum_l 2^l ub[t,l]``."""
        import pyomo.environ as pyo

        td, nbits = self.td, self.nbits
        mdl = self.model
        mdl.cnt_epoch_time = pyo.Constraint(
            mdl.WT, rule=lambda m, t: m.C >= td.p[t] * m.qmax[t] + sum((2**l) * m.ub[t, l] for l in range(nbits[t])))

    # -- valid strengthening ----------------------------------------------------------------
    def add_cnt_data_nonidle(self) -> None:
        """No idle worker: ``data_t >= x_t`` (a configuration with one is dominated by the count
        vector with one worker fewer; ``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        counts = self.counts
        mdl = self.model
        mdl.cnt_data_nonidle = pyo.Constraint(mdl.WT, rule=lambda m, t: m.data_t[t] >= counts[t])

    def add_cnt_comm_floor(self) -> None:
        """``Tt_t >= tau_t(x)`` (:func:`type_comm_floor`; ``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        tau = self.tau
        mdl = self.model
        mdl.cnt_comm_floor = pyo.Constraint(mdl.WT, rule=lambda m, t: m.Tt[t] >= tau[t])

    def add_cnt_prod_floor(self) -> None:
        """``ub[t,l] >= tau_t zb[t,l]`` (``models/cruise.md``, "The model over machine types")."""
        import pyomo.environ as pyo

        tau = self.tau
        mdl = self.model
        mdl.cnt_prod_floor = pyo.Constraint(mdl.TL, rule=lambda m, t, l: m.ub[t, l] >= tau[t] * m.zb[t, l])

    def add_cnt_epoch_floor(self) -> None:
        """``C >= count_vector_bound(x)`` (:func:`count_vector_bound`; ``models/cruise.md``,
        "The model over machine types")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cnt_epoch_floor = pyo.Constraint(expr=mdl.C >= count_vector_bound(self.inst, self.td, self.counts))

    def add_cnt_epoch_upper(self) -> None:
        """``C <= upper`` with ``upper`` (else present and empty; ``models/cruise.md``,
        "The model over machine types")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cnt_epoch_upper = (pyo.Constraint(expr=mdl.C <= self.upper) if self.upper is not None
                               else pyo.Constraint(pyo.Any))

    def extract(self, values) -> CruiseConfig:
        """The configuration of a solved count model: the first ``x_t`` machines of each type work;
        each type's data and model totals are split evenly (largest remainder), so no worker
        holds more than ``qmax_t`` and no server more than ``lmax_u``."""
        import pyomo.environ as pyo

        inst, td, counts = self.inst, self.td, self.counts
        n = inst.num_machines
        w, d, m = [0] * n, [0] * n, [0] * n
        for t, g in enumerate(td.members):
            workers, servers = g[: counts[t]], g[counts[t]:]
            for i in workers:
                w[i] = 1
            if workers:
                dt = int(round(pyo.value(values.data_t[t])))
                for i, x in zip(workers, apportion(dt, [1.0] * len(workers))):
                    d[i] = x
            if servers:
                mt = int(round(pyo.value(values.model_t[t])))
                for j, x in zip(servers, apportion(mt, [1.0] * len(servers))):
                    m[j] = x
        # a solver's integer values are rounded within its tolerance; should the totals then
        # be off by a unit, repair them (the validator would reject the configuration)
        _fix_total(d, [i for i in range(n) if w[i]], inst.dataset_size)
        _fix_total(m, [j for j in range(n) if not w[j]], inst.model_size)
        return CruiseConfig(w=tuple(w), s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


#: names of the constraint families of :func:`build_count_model`, in insertion order
#: (asserted against models/cruise.md)
COUNT_CONSTRAINT_NAMES = CountModel.CONSTRAINTS
COUNT_VARIABLE_NAMES = ("data_t", "qmax", "model_t", "lmax", "kb", "zb", "Tt", "ub", "C")


def build_count_model(inst: CruiseInstance, counts: tuple[int, ...], *, cuts: bool = True,
                      upper: float | None = None):
    """The MIP over machine types for fixed worker counts ``counts[t]`` per type:
    :class:`CountModel`'s ``build()``.

    Returns a Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``).
    """
    return CountModel(inst, counts, cuts=cuts, upper=upper).build()


def extract_count_config(mdl, inst: CruiseInstance, counts: tuple[int, ...]) -> CruiseConfig:
    """The configuration of a solved count model (:meth:`CountModel.extract`)."""
    return CountModel(inst, counts).extract(mdl)


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
