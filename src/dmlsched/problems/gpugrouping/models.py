"""The MILP of GPU_Grouping (HLAS paper, eqs. (4)-(6)).

* ``exact`` -- the MILP of (4)-(6) in Pyomo (HiGHS or Gurobi): binary
  ``z[m,u]`` per GPU (``formulation="binary"``, groups numbered by their
  smallest GPU) or integer counts ``y[k,u]`` of identical GPUs per group
  (``formulation="typed"``, the default).

The typed model on CP-SAT (``exact-cp``) is in :mod:`.cp`.
``models/gpu-grouping.md`` states both models and the type reduction and its
proof.  Pyomo is imported inside the builders only.
"""

from __future__ import annotations

import dataclasses
import math
from abc import abstractmethod
from typing import Any

import numpy as np

from ...kit import Option, Run, method
from ...modeling import ModelBuilder
from ...normalize import SOLVER_RESOLUTION, positive_min, pow2
from ...result import Result
from .bruteforce import grouping_from_counts
from .heuristics import greedy_grouping
from .instance import GroupingInstance
from .solution import Grouping

# ---------------------------------------------------------------------------
# the MILPs (Pyomo)


class _RangeModel(ModelBuilder):
    """What the binary and the typed MILP share: the linearised max/min of (5)-(6) and the
    epigraph of (4)'s objective, over the group speeds ``P[n,u]`` a subclass defines."""

    def __init__(self, inst: GroupingInstance, *, symmetry: bool = True) -> None:
        self.inst = inst
        self.symmetry = symmetry

    def add_pmax_def(self) -> None:
        """(5) ``pmax[n] >= P[n,u]`` for all ``u`` (linearised max)."""
        import pyomo.environ as pyo

        model = self.model
        model.pmax_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmax[n] >= m.P[n, u])

    def add_pmin_def(self) -> None:
        """(6) ``pmin[n] <= P[n,u]`` for all ``u`` (linearised min)."""
        import pyomo.environ as pyo

        model = self.model
        model.pmin_def = pyo.Constraint(model.N, model.U, rule=lambda m, n, u: m.pmin[n] <= m.P[n, u])

    def add_range_def(self) -> None:
        """(4) objective epigraph ``t >= pmax[n] - pmin[n]`` for every job ``n``."""
        import pyomo.environ as pyo

        model = self.model
        model.range_def = pyo.Constraint(model.N, rule=lambda m, n: m.t >= m.pmax[n] - m.pmin[n])

    def add_objective(self) -> None:
        """``obj``: minimise ``t``, the largest range (4)."""
        import pyomo.environ as pyo

        self.model.obj = pyo.Objective(expr=self.model.t, sense=pyo.minimize)

    def build(self) -> Any:
        """The model: variables, ``assign``, the group speeds ``P``, the other constraint families
        of :attr:`CONSTRAINTS` (the symmetry ones only with ``symmetry``), then the objective."""
        self.add_variables()
        self.add_assign()
        self.add_group_speed()
        self.add_constraints(tuple(c for c in self.CONSTRAINTS[1:] if self.symmetry or not c.startswith("sym_")))
        self.add_objective()
        return self.model

    @abstractmethod
    def add_variables(self) -> None:
        """Create :attr:`model` with its sets, data and variables."""

    @abstractmethod
    def add_assign(self) -> None:
        """(4): every GPU in one group."""

    @abstractmethod
    def add_group_speed(self) -> None:
        """The expression ``P[n,u]``: the speed of job ``n`` on group ``u`` (inside (5)-(6))."""


class GroupingModel(_RangeModel):
    """The binary MILP of (4)-(6): ``z[m,u] = 1`` when GPU ``m`` is in group ``u``, with
    linearised max/min and symmetry breaking (``models/gpu-grouping.md``, "The binary MILP").

    Parameters
    ----------
    inst
        The instance.
    symmetry
        Add ``sym_upper`` and ``sym_order`` (groups numbered by their smallest GPU).
    """

    CONSTRAINTS = ("assign", "pmax_def", "pmin_def", "range_def", "nonempty", "sym_upper", "sym_order")

    def add_variables(self) -> None:
        """Sets ``N``, ``M``, ``U``, speeds ``s``, binaries ``z[m,u]``, ``pmax``, ``pmin``, ``t``."""
        import pyomo.environ as pyo

        inst = self.inst
        s = inst.s
        model = self.model = pyo.ConcreteModel(name="gpu_grouping")
        model.N = pyo.RangeSet(0, inst.num_jobs - 1)
        model.M = pyo.RangeSet(0, inst.num_gpus - 1)
        model.U = pyo.RangeSet(0, inst.groups - 1)
        model.s = pyo.Param(model.N, model.M, initialize=lambda m, n, g: float(s[n, g]))
        model.z = pyo.Var(model.M, model.U, domain=pyo.Binary)
        upper = float(s.sum(axis=1).max())
        model.pmax = pyo.Var(model.N, bounds=(0, upper))
        model.pmin = pyo.Var(model.N, bounds=(0, upper))
        model.t = pyo.Var(bounds=(0, upper))

    def add_assign(self) -> None:
        """(4) ``sum_u z[m,u] = 1`` for every GPU ``m``."""
        import pyomo.environ as pyo

        model = self.model
        model.assign = pyo.Constraint(model.M, rule=lambda m, g: sum(m.z[g, u] for u in m.U) == 1)

    def add_group_speed(self) -> None:
        """``P[n,u] = sum_m z[m,u] s[n,m]``: the speed of job ``n`` on group ``u`` (inside (5)-(6))."""
        import pyomo.environ as pyo

        model = self.model
        model.P = pyo.Expression(
            model.N, model.U, rule=lambda m, n, u: sum(m.s[n, g] * m.z[g, u] for g in m.M)
        )

    def add_nonempty(self) -> None:
        """Every group gets at least one GPU (our reading; ``models/gpu-grouping.md``, "Readings")."""
        import pyomo.environ as pyo

        model = self.model
        model.nonempty = pyo.Constraint(model.U, rule=lambda m, u: sum(m.z[g, u] for g in m.M) >= 1)

    def add_sym_upper(self) -> None:
        """``z[m,u] = 0`` for ``u > m``: group ``u`` holds no GPU below ``u``
        (``models/gpu-grouping.md``, "The binary MILP", symmetry breaking)."""
        import pyomo.environ as pyo

        model = self.model
        model.sym_upper = pyo.Constraint(
            [(g, u) for g in model.M for u in model.U if u > g], rule=lambda m, g, u: m.z[g, u] == 0
        )

    def add_sym_order(self) -> None:
        """``z[m,u] <= sum_{m' < m} z[m',u-1]`` for ``u >= 1``: a GPU may join group ``u`` only if
        a smaller GPU is already in group ``u-1``; with ``sym_upper``, exactly one labelling of
        every partition remains (``models/gpu-grouping.md``, "The binary MILP")."""
        import pyomo.environ as pyo

        model = self.model
        model.sym_order = pyo.Constraint(
            [(g, u) for g in model.M for u in model.U if 1 <= u <= g],
            rule=lambda m, g, u: m.z[g, u] <= sum(m.z[h, u - 1] for h in range(g)),
        )

    def extract(self, values: Any) -> Grouping:
        """The grouping encoded by the solved model's ``z`` (largest ``z[m,u]`` per GPU)."""
        import pyomo.environ as pyo

        inst = self.inst
        group = []
        for g in range(inst.num_gpus):
            vals = [pyo.value(values.z[g, u]) or 0.0 for u in range(inst.groups)]
            group.append(max(range(inst.groups), key=lambda u: (vals[u], -u)))
        return Grouping(tuple(group))


def build_model(inst: GroupingInstance, *, symmetry: bool = True) -> Any:
    """The binary MILP of (4)-(6) with linearised max/min and symmetry breaking (:class:`GroupingModel`)."""
    return GroupingModel(inst, symmetry=symmetry).build()


def extract(inst: GroupingInstance, model: Any) -> Grouping:
    """The grouping encoded by the binary model's ``z`` (:meth:`GroupingModel.extract`)."""
    return GroupingModel(inst).extract(model)


# -- the typed MILP ---------------------------------------------------------------

#: the typed MILP orders groups by a mixed-radix code of their count vectors when
#: the code stays below this (exact integers in double precision, well scaled)
MAX_LEX_CODE = 10**6


class TypedGroupingModel(_RangeModel):
    """The MILP on GPU types: integer ``y[k,u]`` GPUs of type ``k`` in group ``u``
    (``models/gpu-grouping.md``, "The typed MILP").

    Parameters
    ----------
    inst
        The instance.
    symmetry
        Add ``sym_order`` (groups in non-increasing order of their count vectors).
    """

    CONSTRAINTS = ("assign", "pmax_def", "pmin_def", "range_def", "nonempty", "sym_order")

    def __init__(self, inst: GroupingInstance, *, symmetry: bool = True) -> None:
        super().__init__(inst, symmetry=symmetry)
        self.types = inst.gpu_types
        self.counts = self.types.counts

    def add_variables(self) -> None:
        """Sets ``N``, ``K``, ``U``, speeds ``s``, counts ``c``, integers ``y[k,u]``, ``pmax``, ``pmin``, ``t``."""
        import pyomo.environ as pyo

        inst, types, counts = self.inst, self.types, self.counts
        s = np.array(types.speeds, dtype=float)
        model = self.model = pyo.ConcreteModel(name="gpu_grouping_typed")
        model.N = pyo.RangeSet(0, inst.num_jobs - 1)
        model.K = pyo.RangeSet(0, types.num_types - 1)
        model.U = pyo.RangeSet(0, inst.groups - 1)
        model.s = pyo.Param(model.N, model.K, initialize=lambda m, n, k: float(s[n, k]))
        model.c = pyo.Param(model.K, initialize=lambda m, k: counts[k])
        model.y = pyo.Var(model.K, model.U, domain=pyo.NonNegativeIntegers,
                          bounds=lambda m, k, u: (0, counts[k]))
        upper = float((s * np.array(counts)).sum(axis=1).max())
        model.pmax = pyo.Var(model.N, bounds=(0, upper))
        model.pmin = pyo.Var(model.N, bounds=(0, upper))
        model.t = pyo.Var(bounds=(0, upper))

    def add_assign(self) -> None:
        """(4) by type: ``sum_u y[k,u] = c_k`` for every type ``k`` (each GPU in one group)."""
        import pyomo.environ as pyo

        model = self.model
        model.assign = pyo.Constraint(model.K, rule=lambda m, k: sum(m.y[k, u] for u in m.U) == m.c[k])

    def add_group_speed(self) -> None:
        """``P[n,u] = sum_k y[k,u] s[n,k]`` (the speed of job ``n`` on group ``u``, inside (5)-(6))."""
        import pyomo.environ as pyo

        model = self.model
        model.P = pyo.Expression(model.N, model.U, rule=lambda m, n, u: sum(m.s[n, k] * m.y[k, u] for k in m.K))

    def add_nonempty(self) -> None:
        """Every group gets at least one GPU (``models/gpu-grouping.md``, "Readings")."""
        import pyomo.environ as pyo

        model = self.model
        model.nonempty = pyo.Constraint(model.U, rule=lambda m, u: sum(m.y[k, u] for k in m.K) >= 1)

    def add_sym_order(self) -> None:
        """Groups in non-increasing order of their count vectors (``models/gpu-grouping.md``,
        "The typed MILP").

        With ``W_k = prod_{k' > k} (c_{k'} + 1)`` the code ``sum_k W_k y[k,u]`` is
        the mixed-radix number of the vector ``y[.,u]``, so ``code(u) >= code(u+1)``
        (``sym_order``) is the lexicographic order; used while the largest code is
        below :data:`MAX_LEX_CODE`.  Otherwise only the count of the first type is
        ordered (``y[0,u] >= y[0,u+1]``), a weaker but valid rule: sorting the
        groups by it is always possible.
        """
        import pyomo.environ as pyo

        model, counts = self.model, self.counts
        w = [math.prod(c + 1 for c in counts[k + 1:]) for k in range(len(counts))]
        pairs = [u for u in model.U if u + 1 < len(model.U)]
        if math.prod(c + 1 for c in counts) <= MAX_LEX_CODE:
            model.sym_order = pyo.Constraint(pairs, rule=lambda m, u: sum(w[k] * m.y[k, u] for k in m.K)
                                             >= sum(w[k] * m.y[k, u + 1] for k in m.K))
        else:
            model.sym_order = pyo.Constraint(pairs, rule=lambda m, u: m.y[0, u] >= m.y[0, u + 1])

    def extract(self, values: Any) -> Grouping:
        """The grouping of the solved model's counts (GPUs of a type dealt lowest index first)."""
        import pyomo.environ as pyo

        rows = tuple(tuple(int(round(pyo.value(values.y[k, u]) or 0.0)) for k in range(self.types.num_types))
                     for u in range(self.inst.groups))
        return grouping_from_counts(self.inst, rows)


def build_typed_model(inst: GroupingInstance, *, symmetry: bool = True) -> Any:
    """The MILP on GPU types (:class:`TypedGroupingModel`)."""
    return TypedGroupingModel(inst, symmetry=symmetry).build()


def extract_typed(inst: GroupingInstance, model: Any) -> Grouping:
    """The grouping of the typed model's counts (:meth:`TypedGroupingModel.extract`)."""
    return TypedGroupingModel(inst).extract(model)


@method(
    "gpu-grouping",
    "exact",
    kind="exact",
    uses_solver=True,
    options=[
        Option("formulation", str, "typed", "binary z[m,u] per GPU, or integer counts y[k,u] per GPU type",
               choices=("typed", "binary")),
        Option("symmetry", bool, True, "order the groups (remove the symmetry of group labels)"),
    ],
    description="MILP of (4)-(6): counts of identical GPUs per group (or binaries per GPU), linearised max/min",
)
def solve_exact(inst: GroupingInstance, run: Run) -> Result:
    """Solve the grouping MILP; its bound is the solver's proven bound.

    Identical job rows are merged first (the objective is unchanged).  The MILP
    is solved on speeds multiplied by a power of two that puts the greedy
    grouping's value near 1 (:func:`normalised`), so that the solver's absolute
    tolerances are relative ones at any magnitude of the speeds.
    """
    work = inst.deduplicated()
    typed = run.options["formulation"] == "typed"
    nv = (work.gpu_types.num_types if typed else work.num_gpus) * work.groups
    run.require(memory_bytes=2_000.0 * nv * max(1, work.num_jobs), what="the grouping MILP")
    with run.stage("hint"):
        run.incumbent(greedy_grouping(work, seed=run.seed, restarts=2, max_passes=20))
    norm, factor = normalised(work, run.best_value or 0.0)
    with run.stage("build"):
        builder = (TypedGroupingModel if typed else GroupingModel)(norm, symmetry=run.options["symmetry"])
        model = builder.build()
    out = run.solve_model(model, what="the grouping MILP", defaults=MILP_TOLERANCES)
    # the solver's figures are in the normalised units: back to the instance's speeds (exact)
    out = dataclasses.replace(out, bound=None if out.bound is None else out.bound / factor,
                              objective=None if out.objective is None else out.objective / factor)
    run.objective_floor = SOLVER_RESOLUTION / factor
    sol = None
    if out.has_solution:
        with run.stage("extract"):
            sol = (TypedGroupingModel if typed else GroupingModel)(work).extract(model)
    return run.result(solution=sol, bound=0.0, outcome=out, merged_job_rows=inst.num_jobs - work.num_jobs,
                      gpu_types=work.gpu_types.num_types, speed_factor=factor)


#: the normalised instance's largest group speed is kept below this
MAX_NORMALISED_SPEED = 2.0**30
#: solver tolerances of the grouping MILP (its models are small): with the default 1e-6 HiGHS
#: let t sit 1e-6 below max - min, then flagged its own optimum as infeasible ("Solve error")
#: on seven identical GPUs of speeds 2/3 and 2/5 in three groups (the referees' plain #42)
MILP_TOLERANCES = {"highs": {"mip_feasibility_tolerance": 1e-9},
                   "gurobi": {"IntFeasTol": 1e-9, "FeasibilityTol": 1e-9}}


def normalised(inst: GroupingInstance, incumbent: float) -> tuple[GroupingInstance, float]:
    """The instance with every speed times a power of two (exact: the same groupings are
    optimal, the objective is multiplied by the factor), chosen so that the incumbent's
    value (else the smallest speed) is of order one, where the solver's absolute
    tolerances (``1e-6``) are relative ones (:mod:`dmlsched.normalize`)."""
    s = inst.s
    f = pow2(incumbent if incumbent > 0 else positive_min(s.ravel().tolist()))
    while float(s.sum(axis=1).max()) * f > MAX_NORMALISED_SPEED and f > 2.0**-200:
        f /= 2
    return GroupingInstance(speeds=tuple(tuple(v * f for v in row) for row in inst.speeds), groups=inst.groups,
                            name=inst.name), f


__all__ = ["GroupingModel", "TypedGroupingModel", "build_model", "build_typed_model", "extract", "extract_typed",
           "solve_exact"]
