"""One wrapper around Pyomo's solver interfaces: solver choice, time limit,
gap, seed, status mapping, and Gurobi's size-limited licence.

``solve_model(model, solver="highs")`` solves a Pyomo model, loads the
incumbent (if any) into the model's variables and returns a
:class:`SolveOutcome` whose ``status`` is a :class:`~dmlsched.result.Status`.

Optimality: ``Status.OPTIMAL`` is reported only when the solver terminated on
its convergence criterion, i.e. proved the incumbent optimal within the gaps
passed here (relative ``rel_gap=1e-6``, :data:`DEFAULT_REL_GAP`; no absolute
gap by default, :data:`DEFAULT_ABS_GAP`).  A method's status is not this one:
the kit calls a result optimal only when the solution's value meets the proven
bound by its relative rule (:func:`dmlsched.kit.meets`), and the library's
models are built on normalised instances (:mod:`dmlsched.normalize`) so that
the solvers' remaining absolute tolerances (``1e-6`` for rows and for pruning
against the incumbent) are relative ones.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import interrupt
from .errors import SolverError, SolverLimitError, SolverUnavailableError, UnknownSolverError
from .result import Status

log = logging.getLogger("dmlsched")

#: solver names accepted everywhere, mapped to Pyomo's (contrib) solver names
SOLVERS = {"highs": "highs", "gurobi": "gurobi_direct"}

#: solver names a method may be given (CP-SAT models are built by the methods themselves)
ALL_SOLVERS = ("highs", "gurobi", "cpsat")

DEFAULT_REL_GAP = 1e-6
#: no absolute gap: an absolute 1e-6 is 10% of an objective of 1e-5 (issue 24)
DEFAULT_ABS_GAP = 0.0

#: Gurobi pip licence limits (variables, linear constraints, vars in quadratic constraints)
GUROBI_LIMITS = {"variables": 2000, "constraints": 2000, "quadratic_variables": 200}


@dataclass
class SolveOutcome:
    """What a solver run produced.

    ``objective`` is the incumbent's objective as the solver reports it (only
    cross-checked by callers, never trusted); ``bound`` the solver's proven
    bound on the optimum.
    """

    status: Status
    objective: float | None
    bound: float | None
    solver: str
    runtime_s: float
    message: str = ""
    limit: str | None = None  # "time" (wall clock: not reproducible), "work" (deterministic), "interrupt"
    engine: Any = None  # the solver object, where a caller reads values from it (CP-SAT)
    handoff_s: float | None = None  # Pyomo's translation: from the call to the hand-off to the solver

    @property
    def has_solution(self) -> bool:
        return self.status in (Status.OPTIMAL, Status.FEASIBLE)


def check_solver_name(solver: str) -> str:
    if solver not in ALL_SOLVERS:
        raise UnknownSolverError(f"unknown solver {solver!r}; choose one of {', '.join(ALL_SOLVERS)}")
    return solver


@lru_cache(maxsize=None)
def solver_available(solver: str) -> bool:
    """Whether ``solver`` can run here (Gurobi: package and a licence)."""
    check_solver_name(solver)
    if solver == "cpsat":
        try:
            import ortools  # noqa: F401
        except ImportError:
            return False
        return True
    if solver == "highs":
        try:
            import highspy  # noqa: F401
        except ImportError:
            return False
        return True
    try:
        import gurobipy as gp

        with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
            m.addVar()
            m.optimize()
        return True
    except Exception:  # no package, no licence
        return False


def model_size(model: Any) -> dict[str, int]:
    """Counts of active variables and constraints of a Pyomo model."""
    import pyomo.environ as pyo
    from pyomo.core.expr.visitor import identify_variables

    n_vars = sum(1 for _ in model.component_data_objects(pyo.Var, active=True))
    n_cons = 0
    quad_vars: set[int] = set()
    for c in model.component_data_objects(pyo.Constraint, active=True):
        n_cons += 1
        if c.body.polynomial_degree() not in (0, 1):
            quad_vars.update(id(v) for v in identify_variables(c.body))
    return {"variables": n_vars, "constraints": n_cons, "quadratic_variables": len(quad_vars)}


def _is_nonlinear(model: Any) -> bool:
    """Whether an active constraint or objective of ``model`` is not linear."""
    import pyomo.environ as pyo

    for c in model.component_data_objects((pyo.Constraint, pyo.Objective), active=True):
        body = c.body if hasattr(c, "body") else c.expr
        if body.polynomial_degree() not in (0, 1):
            return True
    return False


def fits_gurobi_licence(model: Any) -> bool:
    """Whether ``model`` is within Gurobi's size-limited pip licence."""
    size = model_size(model)
    return all(size[k] <= GUROBI_LIMITS[k] for k in GUROBI_LIMITS)


def solve_model(
    model: Any,
    solver: str = "highs",
    *,
    time_limit: float | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    abs_gap: float = DEFAULT_ABS_GAP,
    seed: int = 0,
    threads: int | None = None,
    tee: Any = False,
    options: dict[str, Any] | None = None,
    work_limit: dict[str, Any] | None = None,
    deadline_at: float | None = None,
) -> SolveOutcome:
    """Solve a Pyomo model and load its incumbent.

    Parameters
    ----------
    model
        A Pyomo ``ConcreteModel`` with one active objective.
    solver
        ``"highs"`` (default) or ``"gurobi"``.
    time_limit
        Seconds, or ``None`` for no limit.
    rel_gap, abs_gap
        Optimality tolerances: ``Status.OPTIMAL`` means proven within them.
    seed
        Solver random seed (HiGHS ``random_seed``, Gurobi ``Seed``).
    options
        Extra solver-specific options.
    work_limit
        Deterministic limits (same result at any machine load):
        ``{"nodes": n}`` (branch-and-bound nodes: HiGHS ``mip_max_nodes``,
        Gurobi ``NodeLimit``) and/or ``{"iterations": n}`` (simplex
        iterations: HiGHS ``simplex_iteration_limit``, Gurobi
        ``IterationLimit``).  A run stopped by one has ``limit == "work"``;
        one stopped by ``time_limit`` has ``limit == "time"``.
    deadline_at
        An absolute deadline (``time.monotonic()`` seconds).  The solver's own
        time limit is then set *after* Pyomo has handed the model over, to
        what is left of it, so that the translation of a large model does not
        push the solver past the caller's deadline.

    Raises
    ------
    SolverLimitError
        When Gurobi refuses the model as too large for its licence.
    SolverError
        When the solver is unknown, unavailable or fails.
    """
    from pyomo.contrib.solver.common.factory import SolverFactory
    from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

    check_solver_name(solver)
    if solver not in SOLVERS:
        raise SolverError(
            f"this method solves a Pyomo model: use solver highs or gurobi ({solver!r} solves the "
            "methods built for it, e.g. exact-cp)"
        )
    if not solver_available(solver):
        raise SolverUnavailableError(f"solver {solver!r} is not available on this machine")
    name = SOLVERS[solver]
    if solver == "gurobi" and _is_nonlinear(model):
        name = "gurobi_direct_minlp"  # gurobi_direct compiles linear models only (MIQCP, e.g. Hare (9))
    opt = SolverFactory(name)
    handed: list[float] = []
    gen = interrupt.generation()
    _limit_at_handoff(opt, deadline_at, handed, gen)
    sopts = dict(options or {})
    if solver == "highs":
        sopts.setdefault("random_seed", int(seed) % 2147483647)
    else:
        sopts.setdefault("Seed", int(seed) % 2000000000)
    for key, value in (work_limit or {}).items():
        names = _WORK_LIMIT_NAMES.get(key)
        if names is None:
            raise SolverError(f"unknown work limit {key!r}; known: {', '.join(_WORK_LIMIT_NAMES)}")
        sopts.setdefault(names[solver], int(value))
    kwargs: dict[str, Any] = dict(
        tee=tee,
        load_solutions=False,
        raise_exception_on_nonoptimal_result=False,
        rel_gap=rel_gap,
        abs_gap=abs_gap,
        solver_options=sopts,
    )
    if time_limit is not None:
        kwargs["time_limit"] = max(float(time_limit), 0.01)
    if threads is not None:
        kwargs["threads"] = threads
    t0 = time.perf_counter()
    try:
        res = opt.solve(model, **kwargs)
    except Exception as e:  # map licence errors to a clear, catchable error
        msg = str(e)
        if "too large" in msg.lower() or "size-limited" in msg.lower():
            size = model_size(model)
            raise SolverLimitError(
                f"model too large for Gurobi's size-limited licence "
                f"({size['variables']} variables, {size['constraints']} constraints, "
                f"{size['quadratic_variables']} in quadratic constraints; limits "
                f"{GUROBI_LIMITS['variables']}/{GUROBI_LIMITS['constraints']}/"
                f"{GUROBI_LIMITS['quadratic_variables']}): use solver='highs'"
            ) from None
        raise SolverError(f"{solver} failed: {msg}") from e
    runtime = time.perf_counter() - t0
    tc = res.termination_condition
    has_sol = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    if tc == TerminationCondition.convergenceCriteriaSatisfied and has_sol:
        status = Status.OPTIMAL
    elif tc in (
        TerminationCondition.provenInfeasible,
        TerminationCondition.locallyInfeasible,
        TerminationCondition.infeasibleOrUnbounded,
    ):
        status = Status.INFEASIBLE
    elif tc in (
        TerminationCondition.maxTimeLimit,
        TerminationCondition.iterationLimit,
        TerminationCondition.objectiveLimit,
        TerminationCondition.minStepLength,
        TerminationCondition.interrupted,
    ):
        status = Status.FEASIBLE if has_sol else Status.TIME_LIMIT
    elif has_sol:
        status = Status.FEASIBLE
    else:
        status = Status.ERROR
    if has_sol:
        res.solution_loader.load_vars()
    obj = res.incumbent_objective if has_sol else None
    bound = res.objective_bound
    limit = None
    if tc == TerminationCondition.interrupted or interrupt.since(gen):
        if not interrupt.since(gen):  # Gurobi catches Ctrl-C itself and says so
            interrupt.request()
        limit = "interrupt"
    elif tc == TerminationCondition.maxTimeLimit:
        limit = "time"
    elif tc == TerminationCondition.iterationLimit:
        limit = "work"
    log.debug("%s: %s obj=%s bound=%s in %.3fs", solver, tc, obj, bound, runtime)
    return SolveOutcome(
        status=status,
        objective=None if obj is None else float(obj),
        bound=None if bound is None else float(bound),
        solver=solver,
        runtime_s=runtime,
        handoff_s=(handed[0] - t0) if handed else None,
        message=_tc_name(tc),
        limit=limit,
    )


class _KnownInterrupt(logging.Filter):
    """Drop Pyomo's warning about HiGHS's status ``kInterrupt``: a stop request
    that :mod:`dmlsched.interrupt` made and the command reports itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "HighsModelStatus.kInterrupt" not in record.getMessage()


logging.getLogger("pyomo.contrib.solver.solvers.highs").addFilter(_KnownInterrupt())


def _limit_at_handoff(opt: Any, deadline_at: float | None, handed: list[float] | None = None,
                      gen: int | None = None) -> None:
    """Set the solver's time limit to what is left of ``deadline_at`` at the
    moment Pyomo hands the translated model to it (HiGHS: before ``run``;
    Gurobi: after the model is created), and append that moment
    (``time.perf_counter()``) to ``handed``.  Falls back to the limit given at
    the call when this Pyomo has no such hook.  A stop request since
    ``gen`` (:mod:`dmlsched.interrupt`) leaves the solver no time, and one
    during HiGHS's run cancels it."""

    def left() -> float | None:
        if handed is not None and not handed:
            handed.append(time.perf_counter())
        if gen is not None and interrupt.since(gen):  # asked to stop during the translation
            return 0.01
        return None if deadline_at is None else max(deadline_at - time.monotonic(), 0.01)

    if hasattr(opt, "_solve") and hasattr(opt, "set_instance"):  # persistent HiGHS interface
        orig_solve = opt._solve

        def _cancel() -> None:
            highs = getattr(opt, "_solver_model", None)
            if highs is not None:
                highs.cancelSolve()  # read by the interrupt callback Pyomo enables

        def _solve(*a: Any, **k: Any) -> Any:
            cfg = getattr(opt, "_active_config", None)
            lim = left()
            if cfg is not None and lim is not None:
                cfg.time_limit = lim
            with interrupt.solver_call(_cancel):
                return orig_solve(*a, **k)

        opt._solve = _solve
    elif hasattr(opt, "_create_solver_model"):  # Gurobi direct
        orig_create = opt._create_solver_model

        def _create(pyomo_model: Any, config: Any) -> Any:
            out = orig_create(pyomo_model, config)
            lim = left()
            if lim is not None:
                config.time_limit = lim
            return out

        opt._create_solver_model = _create


def _tc_name(tc: Any) -> str:
    """``TerminationCondition.maxTimeLimit`` -> ``"maxTimeLimit"``."""
    return getattr(tc, "name", None) or str(tc).rsplit(".", 1)[-1]


#: deterministic work limits by generic name, per solver
_WORK_LIMIT_NAMES = {
    "nodes": {"highs": "mip_max_nodes", "gurobi": "NodeLimit"},
    "iterations": {"highs": "simplex_iteration_limit", "gurobi": "IterationLimit"},
}


def quiet_highs() -> Any:
    """A ``highspy.Highs`` with its output off, without the banner HiGHS prints
    on standard output when the first one of a process is made (it would
    corrupt ``--json`` output)."""
    import highspy

    sys.stdout.flush()
    try:
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    except OSError:  # no descriptor 1 to silence
        h = highspy.Highs()
    else:
        try:
            os.dup2(null, 1)
            h = highspy.Highs()
            try:  # flush the C library's buffer while it still goes to /dev/null
                ctypes.CDLL(None).fflush(None)
            except (OSError, AttributeError):  # pragma: no cover - no libc symbol table
                pass
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)
    h.setOptionValue("output_flag", False)
    return h
