"""The exact Pyomo MILP of the Harmony grouping problem (``models/harmony.md``).

Maximise the cluster utilisation ``U = (1/M) sum_g m_g U(g)`` (4.4) over job
groupings and machine allocations.  ``U(g)`` is a ratio (4.3) whose
denominator ``T_g`` (4.1) is a max of linear terms, and the objective is a
*sum* of ratios, so Dinkelbach's single-ratio scheme does not apply.  The
formulation is instead linearised exactly:

* ``y[g,m]`` enumerates the machine count of group slot ``g``, so (4.2)'s
  ``1/m_g`` becomes a constant per ``m`` and ``w[j,g,m] = x[j,g] y[g,m]``
  (binary AND) carries the per-job times;
* ``u[g]`` is a lower estimate of ``U(g)``: ``U(g) >= u`` iff
  ``u * tau <= num_g`` for every term ``tau`` of the max in (4.1), where
  ``num_g = w_cpu sum T_cpu(m) + w_net sum T_net``;
* the products ``u * w``, ``u * x`` (continuous times binary) are
  ``p``, ``q`` with the McCormick lower bounds, exact for binary factors; only
  lower bounds are needed because they appear on the small side of ``<=``;
* the objective's ``m_g u[g] = sum_m m * v[g,m]`` with ``v = u * y`` by the
  McCormick upper bounds (exact for binary ``y``; ``v`` is maximised).

The model is :class:`HarmonyMilp` (a :class:`~dmlsched.modeling.ModelBuilder`):
one ``add_<name>`` method per constraint family, named as the components of
``models/harmony.md``; :func:`build_model` and :func:`extract_solution` are its
former function names.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...kit import Run, method
from ...modeling import ModelBuilder
from ...normalize import SOLVER_RESOLUTION, pow2
from ...result import Result
from .heuristics import schedule
from .instance import HarmonyInstance
from .solution import HarmonySolution, metrics

if TYPE_CHECKING:  # annotations only: pyomo stays lazy (imported in the functions that build)
    import pyomo.environ as pyo


# ---------------------------------------------------------------------------
# the MILP (Pyomo)


def _jobs_of(mdl: pyo.ConcreteModel, g: int):
    return [j for j in mdl.J if (j, g) in mdl.JG]


def _num(mdl: pyo.ConcreteModel, g: int):
    """``num_g = w_cpu sum_j T_cpu_j(m_g) + w_net sum_j T_net_j`` (numerator of (4.3))."""
    jobs = _jobs_of(mdl, g)
    return mdl.w_cpu * sum(mdl.cpu[j, m] * mdl.w[j, g, m] for j in jobs for m in mdl.Mc) + mdl.w_net * sum(
        mdl.net[j] * mdl.x[j, g] for j in jobs
    )


def _solution_of(mdl: pyo.ConcreteModel) -> HarmonySolution:
    """Groups and machine counts from the incumbent loaded into ``mdl`` (read from the model alone)."""
    import pyomo.environ as pyo

    groups, machines = [], []
    for g in mdl.G:
        jobs = tuple(j for j in _jobs_of(mdl, g) if pyo.value(mdl.x[j, g]) > 0.5)
        m = sum(k for k in mdl.Mc if pyo.value(mdl.y[g, k]) > 0.5)
        if jobs or m:
            groups.append(jobs)
            machines.append(int(m))
    return HarmonySolution(groups=tuple(groups), machines=tuple(machines))


class HarmonyMilp(ModelBuilder):
    """The exact MILP of the grouping problem (module docstring; ``models/harmony.md``, "Exact MILP"):
    maximise (4.4) over job groupings and machine counts, the ratios (4.3) linearised exactly.

    Parameters
    ----------
    inst
        The instance (:func:`solve_exact` passes its :func:`normalised` copy).
    """

    CONSTRAINTS = ("assign_once", "one_count", "group_has_machines", "no_empty_group", "machine_budget",
                   "and_le_x", "and_le_y", "and_ge", "cpu_term", "net_term", "job_term",
                   "p_ge", "q_ge", "v_le_u", "v_le_y")

    def __init__(self, inst: HarmonyInstance) -> None:
        self.inst = inst

    def build(self) -> pyo.ConcreteModel:
        """The model: sets and parameters, variables, the constraint families of
        :attr:`CONSTRAINTS` in order, then the objective."""
        self.add_sets_and_params()
        self.add_variables()
        self.add_constraints()
        self.add_objective()
        return self.model

    # -- sets, parameters, variables, objective ------------------------------
    def add_sets_and_params(self) -> None:
        """Create :attr:`model` with the sets ``J``, ``G`` (``K = min(n, M)`` group slots), ``Mc``,
        ``JG`` (slot ``g`` holds only jobs ``j >= g``: groups ordered by their smallest job),
        ``JGM`` and the parameters ``cpu[j,m] = T_cpu_j c / m`` (4.2), ``net``, ``w_cpu``,
        ``w_net``, ``M_total`` (``models/harmony.md``, "Sets and parameters")."""
        import pyomo.environ as pyo

        inst = self.inst
        mdl = self.model = pyo.ConcreteModel(name=f"harmony:{inst.name or 'instance'}")
        n, big_m = inst.num_jobs, inst.machines
        k = min(n, big_m)
        mdl.J = pyo.RangeSet(0, n - 1)
        mdl.G = pyo.RangeSet(0, k - 1)
        mdl.Mc = pyo.RangeSet(1, big_m)
        # symmetry breaking: slot g only holds jobs j >= g (order groups by their smallest job)
        mdl.JG = pyo.Set(initialize=[(j, g) for j in range(n) for g in range(k) if g <= j], dimen=2)
        mdl.JGM = pyo.Set(initialize=[(j, g, m) for (j, g) in mdl.JG for m in range(1, big_m + 1)], dimen=3)
        c = inst.reference_dop
        mdl.cpu = pyo.Param(mdl.J, mdl.Mc, initialize={(j, m): inst.jobs[j].t_cpu * c / m
                                                       for j in range(n) for m in range(1, big_m + 1)})
        mdl.net = pyo.Param(mdl.J, initialize={j: inst.jobs[j].t_net for j in range(n)})
        wc, wn = inst.weights
        mdl.w_cpu = pyo.Param(initialize=wc)
        mdl.w_net = pyo.Param(initialize=wn)
        mdl.M_total = pyo.Param(initialize=big_m)

    def add_variables(self) -> None:
        """``x``, ``y`` (binary), ``w``, ``u``, ``p``, ``q``, ``v`` in ``[0, 1]``
        (``models/harmony.md``, "Variables")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.x = pyo.Var(mdl.JG, domain=pyo.Binary)  # job j in group slot g
        mdl.y = pyo.Var(mdl.G, mdl.Mc, domain=pyo.Binary)  # slot g has m machines
        mdl.w = pyo.Var(mdl.JGM, bounds=(0, 1))  # = x[j,g] * y[g,m]
        mdl.u = pyo.Var(mdl.G, bounds=(0, 1))  # <= U(g)
        mdl.p = pyo.Var(mdl.JGM, bounds=(0, 1))  # >= u[g] * w[j,g,m]
        mdl.q = pyo.Var(mdl.JG, bounds=(0, 1))  # >= u[g] * x[j,g]
        mdl.v = pyo.Var(mdl.G, mdl.Mc, bounds=(0, 1))  # <= u[g] * y[g,m]

    def add_objective(self) -> None:
        """(4.4) ``utilisation``: ``max U = (1/M) sum_g m_g u[g] = (1/M) sum_{g,m} m v[g,m]``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.utilisation = pyo.Objective(
            expr=sum(k * mdl.v[g, k] for g in mdl.G for k in mdl.Mc) / mdl.M_total, sense=pyo.maximize
        )

    # -- constraint families (models/harmony.md, "Constraints") ---------------
    def add_assign_once(self) -> None:
        """(P) every job in exactly one group: ``sum_g x[j,g] = 1`` (``models/harmony.md``, "Constraints")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.assign_once = pyo.Constraint(mdl.J, rule=lambda m, j: sum(m.x[j, g] for g in m.G if (j, g) in m.JG) == 1)

    def add_one_count(self) -> None:
        """(M1) a group slot has one machine count: ``sum_m y[g,m] <= 1``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.one_count = pyo.Constraint(mdl.G, rule=lambda m, g: sum(m.y[g, k] for k in m.Mc) <= 1)

    def add_group_has_machines(self) -> None:
        """(M1) a job's slot has machines: ``x[j,g] <= sum_m y[g,m]``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.group_has_machines = pyo.Constraint(mdl.JG, rule=lambda m, j, g: m.x[j, g] <= sum(m.y[g, k] for k in m.Mc))

    def add_no_empty_group(self) -> None:
        """(P) a slot with machines has a job: ``sum_m y[g,m] <= sum_j x[j,g]`` (no empty groups;
        ``models/harmony.md``, "Constraints")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.no_empty_group = pyo.Constraint(
            mdl.G, rule=lambda m, g: sum(m.y[g, k] for k in m.Mc) <= sum(m.x[j, g] for j in _jobs_of(m, g))
        )

    def add_machine_budget(self) -> None:
        """(M2) ``sum_g m_g <= M`` with ``m_g = sum_m m y[g,m]``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.machine_budget = pyo.Constraint(expr=sum(k * mdl.y[g, k] for g in mdl.G for k in mdl.Mc) <= mdl.M_total)

    def add_and_le_x(self) -> None:
        """``w = x AND y``, first side: ``w <= x`` (exact for binaries; carries (4.2)'s
        ``T_cpu_j(m) = T_cpu_j c / m`` for the chosen ``m``)."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.and_le_x = pyo.Constraint(mdl.JGM, rule=lambda m, j, g, k: m.w[j, g, k] <= m.x[j, g])

    def add_and_le_y(self) -> None:
        """``w = x AND y``, second side: ``w <= y`` (the linearisation of ``x y`` behind (4.2))."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.and_le_y = pyo.Constraint(mdl.JGM, rule=lambda m, j, g, k: m.w[j, g, k] <= m.y[g, k])

    def add_and_ge(self) -> None:
        """``w = x AND y``, lower side: ``w >= x + y - 1`` (the linearisation of ``x y`` behind (4.2))."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.and_ge = pyo.Constraint(mdl.JGM, rule=lambda m, j, g, k: m.w[j, g, k] >= m.x[j, g] + m.y[g, k] - 1)

    def add_cpu_term(self) -> None:
        """(4.1)/(4.3), CPU term: ``u[g] * sum_j T_cpu_j(m_g) <= num_g``, i.e.
        ``sum_{j,m} T_cpu_j(m) p[j,g,m] <= num_g``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.cpu_term = pyo.Constraint(
            mdl.G,
            rule=lambda m, g: sum(m.cpu[j, k] * m.p[j, g, k] for j in _jobs_of(m, g) for k in m.Mc) <= _num(m, g),
        )

    def add_net_term(self) -> None:
        """(4.1)/(4.3), network term: ``u[g] * sum_j T_net_j <= num_g``, i.e.
        ``sum_j T_net_j q[j,g] <= num_g``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.net_term = pyo.Constraint(
            mdl.G, rule=lambda m, g: sum(m.net[j] * m.q[j, g] for j in _jobs_of(m, g)) <= _num(m, g)
        )

    def add_job_term(self) -> None:
        """(4.1)/(4.3), job-bound term: ``u[g] * T_itr_j <= num_g`` for each job of the
        group, i.e. ``sum_m (T_cpu_j(m) + T_net_j) p[j,g,m] <= num_g``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.job_term = pyo.Constraint(
            mdl.JG,
            rule=lambda m, j, g: sum((m.cpu[j, k] + m.net[j]) * m.p[j, g, k] for k in m.Mc) <= _num(m, g),
        )

    def add_p_ge(self) -> None:
        """McCormick lower side of ``p = u w`` (binary ``w``): ``p >= u + w - 1`` (``p >= 0`` by bounds;
        ``models/harmony.md``, "Why it is exact")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.p_ge = pyo.Constraint(mdl.JGM, rule=lambda m, j, g, k: m.p[j, g, k] >= m.u[g] + m.w[j, g, k] - 1)

    def add_q_ge(self) -> None:
        """McCormick lower side of ``q = u x`` (binary ``x``): ``q >= u + x - 1`` (``q >= 0`` by bounds;
        ``models/harmony.md``, "Why it is exact")."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.q_ge = pyo.Constraint(mdl.JG, rule=lambda m, j, g: m.q[j, g] >= m.u[g] + m.x[j, g] - 1)

    def add_v_le_u(self) -> None:
        """McCormick upper side of ``v = u y`` (binary ``y``; ``v`` is maximised in (4.4)): ``v <= u``."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.v_le_u = pyo.Constraint(mdl.G, mdl.Mc, rule=lambda m, g, k: m.v[g, k] <= m.u[g])

    def add_v_le_y(self) -> None:
        """McCormick upper side of ``v = u y`` (binary ``y``; ``v`` is maximised in (4.4)): ``v <= y``
        (``v >= 0`` by bounds)."""
        import pyomo.environ as pyo

        mdl = self.model
        mdl.v_le_y = pyo.Constraint(mdl.G, mdl.Mc, rule=lambda m, g, k: m.v[g, k] <= m.y[g, k])

    def extract(self, values: pyo.ConcreteModel) -> HarmonySolution:
        """Groups and machine counts of the solved model ``values`` (slots with jobs or machines)."""
        return _solution_of(values)


def build_model(inst: HarmonyInstance) -> pyo.ConcreteModel:
    """The exact MILP (:class:`HarmonyMilp`; the module docstring and ``models/harmony.md``)."""
    return HarmonyMilp(inst).build()


def extract_solution(mdl: pyo.ConcreteModel) -> HarmonySolution:
    """Groups and machine counts from the incumbent loaded into ``mdl`` (:meth:`HarmonyMilp.extract`)."""
    return _solution_of(mdl)


# ---------------------------------------------------------------------------

#: bytes a Pyomo model takes per variable or constraint (a generous estimate)
BYTES_PER_COMPONENT = 4096


def model_size_estimate(inst: HarmonyInstance) -> int:
    """Variables plus constraints of :class:`HarmonyMilp`, before building it."""
    n, big_m = inst.num_jobs, inst.machines
    k = min(n, big_m)
    jg = sum(min(j + 1, k) for j in range(n))
    return 2 * jg * big_m + 2 * jg + (2 * big_m + 1) * k + 5 * jg * big_m + 4 * k * big_m


def normalised(inst: HarmonyInstance) -> HarmonyInstance:
    """The instance with every job time multiplied by a power of two that puts the longest in
    ``[1, 2)`` (exact: the utilisation (4.4) of every grouping is unchanged), so that the
    MILP's coefficients are of order one at any magnitude of the times
    (:mod:`dmlsched.normalize`)."""
    f = pow2(max(max(j.t_cpu, j.t_net) for j in inst.jobs))
    if f == 1.0:
        return inst
    return dataclasses.replace(inst, jobs=tuple(dataclasses.replace(j, t_cpu=j.t_cpu * f, t_net=j.t_net * f)
                                                for j in inst.jobs))


@method(
    "harmony",
    "exact",
    kind="exact",
    uses_solver=True,
    description="Exact MILP (assignment x machine-count enumeration, McCormick-exact ratio linearisation)",
)
def solve_exact(inst: HarmonyInstance, run: Run) -> Result:
    """Solve :class:`HarmonyMilp` on :func:`normalised` times; the solver's proven upper
    bound is ``Result.bound``."""
    size = model_size_estimate(inst)
    run.require(memory_bytes=size * BYTES_PER_COMPONENT, what=f"the MILP (about {size:,} variables and constraints)")
    with run.stage("incumbent"):  # Harmony's own grouping: an incumbent if the solver finds none in time
        sch = schedule(inst)
        run.incumbent(HarmonySolution(groups=tuple(tuple(g) for g in sch.groups), machines=tuple(sch.machines)))
    with run.stage("build"):
        milp = HarmonyMilp(normalised(inst))
        mdl = milp.build()
    out = run.solve_model(mdl)
    run.objective_floor = SOLVER_RESOLUTION
    sol = None
    if out.has_solution:
        with run.stage("extract"):
            sol = milp.extract(mdl)
    details = {}
    if sol is not None:
        details = {k: v for k, v in metrics(inst, sol).items() if k != "utilisation"}
    return run.result(solution=sol, bound=out.bound, outcome=out, **details)
