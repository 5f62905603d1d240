"""Every exact method and bound of every family, run on referee cases and judged
against the referee's optimum with the one relative tolerance (:mod:`.common`).

A *run* is (family, method, options, role):

* ``exact``: must prove the optimum (status ``optimal``), its objective and its
  bound within the tolerance of the referee's optimum;
* ``exact-if``: the same when ``applies(case)`` holds (a documented condition
  of the method, e.g. integer data for moldable ``exact``), otherwise any
  feasible answer no better than the optimum;
* ``upper``: optimal over a restricted space only: a feasible value no better
  than the optimum (rar ``exact-nd``);
* ``bound``: status ``bound``, a value on the right side of the optimum;
* ``bound-if``: the same when ``applies(case)`` holds, else ``n/a``.

A run marked ``may_refuse`` may say ``n/a`` before running, by its documented
size rule (moldable ``exact``'s one-slot-per-time-unit grid, with a time limit).

Whatever the role, a value better than the referee's optimum, or a bound past
it, by more than the tolerance is a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import dmlsched

from . import cruise, gpugrouping, hare, harmony, moldable, rar
from .common import Case

#: family -> (case builder, module with MAGNITUDES and SKIPPED)
FAMILIES: dict[str, tuple[Callable[[int, str], Case], Any]] = {
    "cruise": (cruise.case, cruise),
    "gpu-grouping": (gpugrouping.case, gpugrouping),
    "hare": (hare.hare_case, hare),
    "harmony": (harmony.case, harmony),
    "hlas": (hare.hlas_case, hare),
    "moldable": (moldable.case, moldable),
    "rar": (rar.case, rar),
}


def _equal_bandwidths(case: Case) -> bool:
    """Cruise's continuous relaxation is solved exactly when every link ``min(beta_i, beta_j)``
    has one bandwidth (``models/cruise.md``)."""
    bw = [b for _, b in case.exact["machines"]]
    return len({min(a, b) for i, a in enumerate(bw) for j, b in enumerate(bw) if i != j}) == 1


def _integer_data(case: Case) -> bool:
    """Moldable ``exact`` (integer start times) is exact when every arrival and every
    runtime is an integer (``models/moldable.md`` 4.2)."""
    inst = case.exact
    for k, t in enumerate(inst["tasks"]):
        if t["arrival"].denominator != 1:
            return False
        for _, d, _ in moldable.modes(inst, k):
            if d.denominator != 1:
                return False
    return True


@dataclass(frozen=True)
class Run:
    family: str
    method: str
    role: str
    options: dict[str, Any] = field(default_factory=dict)
    applies: Callable[[Case], bool] | None = None
    label: str = ""
    mip: bool = False  # solves a Pyomo model (HiGHS by default): cross-checked with Gurobi by the benchmark
    may_refuse: bool = False  # may say n/a before running (a documented size rule, e.g. a time grid)

    @property
    def name(self) -> str:
        return self.label or self.method


RUNS: tuple[Run, ...] = (
    Run("cruise", "exact", "exact", {"formulation": "machines"}, label="exact[machines]", mip=True),
    Run("cruise", "exact", "exact", {"formulation": "types"}, label="exact[types]", mip=True),
    Run("cruise", "brute-force", "exact", {"space": "machines"}, label="brute-force[machines]"),
    Run("cruise", "brute-force", "exact", {"space": "types"}, label="brute-force[types]"),
    Run("cruise", "lower-bound", "bound"),
    Run("cruise", "relaxation", "bound-if", applies=_equal_bandwidths, mip=True),
    Run("gpu-grouping", "exact", "exact", {"formulation": "typed"}, label="exact[typed]", mip=True),
    Run("gpu-grouping", "exact", "exact", {"formulation": "binary"}, label="exact[binary]", mip=True),
    Run("gpu-grouping", "exact-cp", "exact"),
    Run("gpu-grouping", "brute-force", "exact"),
    Run("hare", "exact", "exact", mip=True),
    Run("hare", "exact-cp", "exact"),
    Run("hare", "lower-bound", "bound"),
    Run("hare", "relaxation", "bound", {"relaxation": "rl"}, label="relaxation[rl]", mip=True),
    Run("hare", "relaxation", "bound", {"relaxation": "queyranne"}, label="relaxation[queyranne]", mip=True),
    Run("harmony", "exact", "exact", mip=True),
    Run("harmony", "brute-force", "exact"),
    Run("hlas", "offline-exact", "exact"),
    Run("hlas", "offline-mip", "exact", mip=True),
    Run("hlas", "brute-force", "exact"),
    Run("hlas", "lower-bound", "bound"),
    Run("moldable", "exact-cp", "exact"),
    Run("moldable", "exact", "exact-if", applies=_integer_data, mip=True, may_refuse=True),
    Run("moldable", "preemptive-lb", "bound"),
    Run("rar", "exact-cp", "exact"),
    Run("rar", "exact-dp", "exact"),
    Run("rar", "exact", "exact", mip=True),
    Run("rar", "exact-nd", "upper", mip=True),
    Run("rar", "lower-bound", "bound"),
    Run("rar", "ilp-bound", "bound", mip=True),
)


def runs_of(family: str) -> list[Run]:
    return [r for r in RUNS if r.family == family]


def judge(case: Case, run: Run, res: Any) -> list[str]:
    """What is wrong with ``res`` (a :class:`dmlsched.Result`) against the referee; empty if nothing."""
    status = res.status.value
    where = f"{case.family}/{run.name} on {case.magnitude} #{case.seed} (optimum {float(case.optimum)!r})"
    if status == "n/a" and run.may_refuse and res.details.get("refused"):
        return []  # refused before running, by its documented size rule (the time-indexed grid)
    bad: list[str] = []
    obj = res.objective
    bnd = res.bound
    role = run.role
    if role in ("exact-if", "bound-if"):
        active = run.applies(case) if run.applies else True
        if role == "bound-if" and not active:
            return [] if status == "n/a" else [f"{where}: expected n/a, got {status}"]
        role = role[:-3] if active else "upper"
    if role == "bound":
        if status != "bound":
            bad.append(f"{where}: status {status}, expected bound")
        value = bnd if bnd is not None else obj
        if value is None or not math.isfinite(value):
            bad.append(f"{where}: no bound")
        elif not case.bound_valid(value):
            bad.append(f"{where}: bound {value!r} passes the optimum")
        return bad
    if obj is None or res.solution is None:
        return [f"{where}: status {status}, no solution"]
    if case.better_than_optimum(obj):
        bad.append(f"{where}: objective {obj!r} beats the proven optimum (status {status})")
    if role == "exact":
        if status != "optimal":
            bad.append(f"{where}: status {status} (objective {obj!r}, bound {bnd!r}), expected optimal")
        elif not case.matches(obj):
            bad.append(f"{where}: says optimal {obj!r}")
    elif status not in ("optimal", "feasible"):
        bad.append(f"{where}: status {status}")
    if role != "upper" and bnd is not None and not case.bound_valid(bnd):
        bad.append(f"{where}: bound {bnd!r} passes the optimum")
    return bad


def run_case(case: Case, *, solver: str = "highs", runs: list[Run] | None = None) -> tuple[list[str], dict]:
    """Run every method of the case's family; return the failures and ``{run: status}``."""
    inst = dmlsched.from_dict(case.data)
    bad: list[str] = []
    seen: dict[str, str] = {}
    for run in runs if runs is not None else runs_of(case.family):
        opts = dict(run.options)
        try:
            res = dmlsched.solve(inst, run.method, solver=solver, **opts)
        except dmlsched.InvalidSolutionError as e:  # the method's answer fails the project's own checks
            seen[run.name] = "invalid"
            bad.append(f"{case.family}/{run.name} on {case.magnitude} #{case.seed}: {e}")
            continue
        seen[run.name] = res.status.value
        bad.extend(judge(case, run, res))
    return bad, seen
