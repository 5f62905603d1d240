"""The Cruise configuration MIP of Figure 3.2, one variable per machine, with every
nonlinearity handled exactly (the builder class :class:`CruiseModel`; :func:`build_model` and
:func:`extract_config` are its thin functions).

Specification with the component names: ``models/cruise.md``.

The objective of Figure 3.2 has three nonlinearities:

1. ``m_j * ||w||`` -- removed by **enumerating** ``W = ||w||`` in ``1..N-1``
   (:mod:`.models`): one MIP per ``W`` with ``sum_i w_i = W`` (``worker_count``),
   ``W`` a constant;
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
models without changing the optimum (``models/cruise.md``).  Pyomo is imported
only inside the builders.
"""

from __future__ import annotations

import numpy as np

from ...modeling import ModelBuilder
from .bounds import comm_floor, lower_bound_for_workers
from .instance import CruiseInstance
from .solution import CruiseConfig


def comm_upper_bound(inst: CruiseInstance, W: int) -> np.ndarray:
    """``Tmax_i = M W / min_{j != i} b_ij``: an upper bound on the per-mini-batch
    communication time of worker ``i`` when there are ``W`` workers."""
    n = inst.num_machines
    out = np.empty(n)
    for i in range(n):
        bmin = min(inst.b[i, j] for j in range(n) if j != i)
        out[i] = inst.model_size * max(W, 1) / bmin
    return out


class CruiseModel(ModelBuilder):
    """The MIP of Figure 3.2 for a fixed number of workers ``W`` (``1 <= W <= N-1``)
    (``models/cruise.md``, "The exact MIP").

    Parameters
    ----------
    inst
        The instance.
    W
        The number of workers ``||w||`` (enumerated by :mod:`.models`).
    symmetry
        Add ``sym_roles``, ``sym_data``, ``sym_model`` (else they are present and empty).
    cuts
        Add ``data_nonidle``, ``comm_floor``, ``prod_floor``, ``epoch_floor`` (else present and empty).
    upper
        Only configurations with epoch time ``<= upper`` are wanted (an incumbent's
        value; requires ``cuts``).  Then ``C <= upper`` (``epoch_upper``),
        ``T_i <= min(Tmax_i, upper)`` (every worker runs at least one mini-batch, so
        ``T_i <= C``) and the communication rows are switched off on servers; the
        model is infeasible when no such configuration exists.

    Attributes
    ----------
    model
        The Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``); every name of
        :attr:`CONSTRAINTS` is a component, empty when its option is off.
    """

    #: the constraint families in the order :meth:`build` adds them (asserted against models/cruise.md)
    CONSTRAINTS = (
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
        "sym_roles",
        "sym_data",
        "sym_model",
        "epoch_upper",
    )
    #: the valid cuts (present and empty without ``cuts``)
    CUTS = ("data_nonidle", "comm_floor", "prod_floor", "epoch_floor")
    #: the symmetry breaking (present and empty without ``symmetry``)
    SYMMETRY = ("sym_roles", "sym_data", "sym_model")

    def __init__(self, inst: CruiseInstance, W: int, *, symmetry: bool = True, cuts: bool = True,
                 upper: float | None = None) -> None:
        self.inst = inst
        self.W = W
        self.symmetry = symmetry
        self.cuts = cuts
        self.upper = upper
        self._tau_w: np.ndarray | None = None

    def build(self):
        """The model: variables, the constraint families of :attr:`CONSTRAINTS` (the cuts and the
        symmetry breaking empty when switched off), then the objective ``epoch``.

        Raises
        ------
        ValueError
            ``W`` outside ``1..N-1``, or ``upper`` without ``cuts``.
        """
        import pyomo.environ as pyo

        n = self.inst.num_machines
        if not 1 <= self.W <= n - 1:
            raise ValueError(f"W must be in 1..{n - 1}, got {self.W}")
        if self.upper is not None and not self.cuts:
            raise ValueError("upper requires cuts=True (no idle workers)")
        self.model = pyo.ConcreteModel(name=f"cruise_W{self.W}")
        self.add_variables()
        off = (() if self.cuts else self.CUTS) + (() if self.symmetry else self.SYMMETRY)
        for name in self.CONSTRAINTS:
            if name in off:  # keep the component names present (empty) so the spec test holds either way
                setattr(self.model, name, pyo.Constraint(pyo.Any))
            else:
                getattr(self, f"add_{name}")()
        self.add_objective()
        return self.model

    # -- variables and objective --------------------------------------------------
    def add_variables(self) -> None:
        """Sets ``I``, ``L``; variables ``w``, ``s``, ``d``, ``m``, ``k``, ``z``, ``T``, ``u``, ``C``
        (``models/cruise.md``, "The exact MIP"); ``Tmax`` (:func:`comm_upper_bound`, capped by ``upper``)."""
        import pyomo.environ as pyo

        inst, mdl, W = self.inst, self.model, self.W
        n = inst.num_machines
        K = inst.num_batches_max
        L = max(1, K.bit_length())
        tmax = comm_upper_bound(inst, W)
        if self.upper is not None:  # every worker runs >= 1 mini-batch, so T_i <= C <= upper
            tmax = np.minimum(tmax, self.upper)
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

    def add_objective(self) -> None:
        """``epoch``: minimise the epoch time ``C`` (3.1)."""
        import pyomo.environ as pyo

        self.model.epoch = pyo.Objective(expr=self.model.C, sense=pyo.minimize)

    # -- Figure 3.2 -----------------------------------------------------------------
    def add_role_partition(self) -> None:
        """Figure 3.2 line 17: ``w_i + s_i = 1`` -- roles disjoint and covering, so ``||w|| + ||s|| = N``
        (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.role_partition = pyo.Constraint(mdl.I, rule=lambda m, i: m.w[i] + m.s[i] == 1)

    def add_worker_count(self) -> None:
        """Enumeration of ``||w||`` (makes ``m_j ||w||`` in (3.4) linear): ``sum_i w_i = W``,
        ``1 <= W <= N-1`` (at least one worker and one server)."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.worker_count = pyo.Constraint(expr=sum(mdl.w[i] for i in mdl.I) == self.W)

    def add_data_total(self) -> None:
        """Figure 3.2 line 18: ``sum_i d_i = D`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.data_total = pyo.Constraint(expr=sum(mdl.d[i] for i in mdl.I) == self.inst.dataset_size)

    def add_data_on_workers(self) -> None:
        """Figure 3.2 line 18: data only on workers, ``d_i <= D w_i`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        D = self.inst.dataset_size
        mdl = self.model
        mdl.data_on_workers = pyo.Constraint(mdl.I, rule=lambda m, i: m.d[i] <= D * m.w[i])

    def add_model_total(self) -> None:
        """Figure 3.2 line 19: ``sum_j m_j = M`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.model_total = pyo.Constraint(expr=sum(mdl.m[j] for j in mdl.I) == self.inst.model_size)

    def add_model_on_servers(self) -> None:
        """Figure 3.2 line 19: model only on servers, ``m_j <= M s_j`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        M = self.inst.model_size
        mdl = self.model
        mdl.model_on_servers = pyo.Constraint(mdl.I, rule=lambda m, j: m.m[j] <= M * m.s[j])

    # -- (3.4)'s ceil(d_i / B): d_i <= B k_i <= d_i + B - 1, so k_i = ceil(d_i / B) --------
    def add_batches_cover(self) -> None:
        """(3.4)'s ``ceil(d_i / B)``, from below: ``B k_i >= d_i``."""
        import pyomo.environ as pyo

        B = self.inst.batch_size
        mdl = self.model
        mdl.batches_cover = pyo.Constraint(mdl.I, rule=lambda m, i: B * m.k[i] >= m.d[i])

    def add_batches_ceil(self) -> None:
        """(3.4)'s ``ceil(d_i / B)``, from above: ``B k_i <= d_i + B - 1``."""
        import pyomo.environ as pyo

        B = self.inst.batch_size
        mdl = self.model
        mdl.batches_ceil = pyo.Constraint(mdl.I, rule=lambda m, i: B * m.k[i] <= m.d[i] + B - 1)

    def add_batches_binary(self) -> None:
        """(3.4)'s ``k_i`` written in binary: ``k_i = sum_l 2^l z_il``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.batches_binary = pyo.Constraint(
            mdl.I, rule=lambda m, i: m.k[i] == sum((2**l) * m.z[i, l] for l in m.L)
        )

    # -- (3.4): per-mini-batch communication --------------------------------------------
    def add_comm_server(self) -> None:
        """(3.4) case 1 (server bottleneck): ``T_i >= m_j W / b_ij``.

        With ``upper`` the row is switched off on servers, whose ``T_i`` is unused: the
        right-hand side loses ``(W M / b_ij)(1 - w_i)``.
        """
        import pyomo.environ as pyo

        inst, W, relax_servers = self.inst, self.W, self.upper is not None
        n, b, M = inst.num_machines, inst.b, inst.model_size
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]

        def server_row(m, i, j):
            rhs = (W / float(b[i, j])) * m.m[j]
            if relax_servers:
                rhs = rhs - (W * M / float(b[i, j])) * (1 - m.w[i])
            return m.T[i] >= rhs

        self.model.comm_server = pyo.Constraint(pairs, rule=server_row)

    def add_comm_worker(self) -> None:
        """(3.4) case 2 (worker bottleneck): ``T_i >= sum_j m_j / b_ij``.

        With ``upper`` the row is switched off on servers: the right-hand side loses
        ``(M / min_j b_ij)(1 - w_i)``.
        """
        import pyomo.environ as pyo

        inst, relax_servers = self.inst, self.upper is not None
        n, b, M = inst.num_machines, inst.b, inst.model_size

        def worker_row(m, i):
            rhs = sum((1.0 / float(b[i, j])) * m.m[j] for j in range(n) if j != i)
            if relax_servers:
                bmin = min(float(b[i, j]) for j in range(n) if j != i)
                rhs = rhs - (M / bmin) * (1 - m.w[i])
            return m.T[i] >= rhs

        self.model.comm_worker = pyo.Constraint(self.model.I, rule=worker_row)

    # -- exact linearisation of z_il * T_i (binary times 0 <= T_i <= Tmax_i) --------------
    def add_prod_on(self) -> None:
        """``u_il >= T_i - Tmax_i (1 - z_il)``: with ``prod_off`` and ``prod_le_comm``,
        ``k_i T_i = sum_l 2^l u_il`` in (3.4) (the dissertation's binary encoding, Section 3.2.3)."""
        import pyomo.environ as pyo

        mdl = self.model
        tm = mdl.Tmax
        mdl.prod_on = pyo.Constraint(
            mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] >= m.T[i] - tm[i] * (1 - m.z[i, l])
        )

    def add_prod_off(self) -> None:
        """``u_il <= Tmax_i z_il`` (the linearisation of ``z_il T_i`` in (3.4))."""
        import pyomo.environ as pyo

        mdl = self.model
        tm = mdl.Tmax
        mdl.prod_off = pyo.Constraint(mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] <= tm[i] * m.z[i, l])

    def add_prod_le_comm(self) -> None:
        """``u_il <= T_i`` (the linearisation of ``z_il T_i`` in (3.4))."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.prod_le_comm = pyo.Constraint(mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] <= m.T[i])

    def add_epoch_time(self) -> None:
        """(3.1)-(3.3): ``C >= C^i_proc d_i + sum_l 2^l u_il`` for every machine ``i``
        (for a server ``d_i = k_i = 0`` so the right-hand side is 0)."""
        import pyomo.environ as pyo

        p = self.inst.p
        mdl = self.model
        mdl.epoch_time = pyo.Constraint(
            mdl.I,
            rule=lambda m, i: m.C >= float(p[i]) * m.d[i] + sum((2**l) * m.u[i, l] for l in m.L),
        )

    # -- valid strengthening (not in the dissertation; models/cruise.md) ------------------
    def add_data_nonidle(self) -> None:
        """``d_i >= w_i``: a worker without data is dominated (make it a server with ``m = 0``:
        ``||w||`` drops by one and no ``T_i`` grows), so the optimum over all ``W`` is kept
        (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.data_nonidle = pyo.Constraint(mdl.I, rule=lambda m, i: m.d[i] >= m.w[i])

    def _tau(self) -> np.ndarray:
        """:func:`.bounds.comm_floor` at ``W`` (computed once)."""
        if self._tau_w is None:
            self._tau_w = comm_floor(self.inst, self.W)
        return self._tau_w

    def add_comm_floor(self) -> None:
        """``T_i >= tau_i(W) w_i`` with :func:`.bounds.comm_floor` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        tau = self._tau()
        mdl = self.model
        mdl.comm_floor = pyo.Constraint(mdl.I, rule=lambda m, i: m.T[i] >= float(tau[i]) * m.w[i])

    def add_prod_floor(self) -> None:
        """``u_il >= tau_i z_il`` (McCormick with the floor of ``T_i``; ``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        tau = self._tau()
        mdl = self.model
        mdl.prod_floor = pyo.Constraint(
            mdl.I, mdl.L, rule=lambda m, i, l: m.u[i, l] >= float(tau[i]) * m.z[i, l]
        )

    def add_epoch_floor(self) -> None:
        """``C >= lower_bound_for_workers(W)`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.epoch_floor = pyo.Constraint(expr=mdl.C >= lower_bound_for_workers(self.inst, self.W))

    # -- symmetry breaking within groups of interchangeable machines ------------------------
    def _type_pairs(self) -> list[tuple[int, int]]:
        """Consecutive ``a < b`` of every group of interchangeable machines (same ``C_proc`` and
        same bandwidths): permuting them preserves the objective."""
        return [(g[q], g[q + 1]) for g in self.inst.machine_types for q in range(len(g) - 1)]

    def add_sym_roles(self) -> None:
        """Workers first among interchangeable machines: ``w_a >= w_b`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        self.model.sym_roles = pyo.Constraint(self._type_pairs(), rule=lambda m, a, b: m.w[a] >= m.w[b])

    def add_sym_data(self) -> None:
        """Workers by non-increasing data: ``d_a >= d_b`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        self.model.sym_data = pyo.Constraint(self._type_pairs(), rule=lambda m, a, b: m.d[a] >= m.d[b])

    def add_sym_model(self) -> None:
        """Servers by non-decreasing model share: ``m_a <= m_b`` (``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        self.model.sym_model = pyo.Constraint(self._type_pairs(), rule=lambda m, a, b: m.m[a] <= m.m[b])

    def add_epoch_upper(self) -> None:
        """``C <= upper`` with ``upper`` (else present and empty; ``models/cruise.md``, "The exact MIP")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.epoch_upper = (pyo.Constraint(expr=mdl.C <= self.upper) if self.upper is not None
                           else pyo.Constraint(pyo.Any))

    def extract(self, values) -> CruiseConfig:
        """Read ``(w, s, d, m)`` from a solved model (integers rounded to the nearest value)."""
        import pyomo.environ as pyo

        n = self.inst.num_machines
        w = [int(round(pyo.value(values.w[i]))) for i in range(n)]
        d = [int(round(pyo.value(values.d[i]))) for i in range(n)]
        m = [int(round(pyo.value(values.m[i]))) for i in range(n)]
        return CruiseConfig(w=tuple(w), s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


#: names of the constraint families of :func:`build_model`, in insertion order (asserted against models/cruise.md)
CONSTRAINT_NAMES = CruiseModel.CONSTRAINTS
VARIABLE_NAMES = ("w", "s", "d", "m", "k", "z", "T", "u", "C")


def build_model(inst: CruiseInstance, W: int, *, symmetry: bool = True, cuts: bool = True,
                upper: float | None = None):
    """The MIP of Figure 3.2 for a fixed number of workers ``W``: :class:`CruiseModel`'s ``build()``.

    Returns a Pyomo ``ConcreteModel`` minimising ``C`` (objective ``epoch``).
    """
    return CruiseModel(inst, W, symmetry=symmetry, cuts=cuts, upper=upper).build()


def extract_config(mdl, inst: CruiseInstance) -> CruiseConfig:
    """Read ``(w, s, d, m)`` from a solved model (:meth:`CruiseModel.extract`)."""
    return CruiseModel(inst, 1).extract(mdl)
