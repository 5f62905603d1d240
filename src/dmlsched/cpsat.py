"""One wrapper around OR-Tools CP-SAT: deadline, deterministic work limit, seed,
workers, solver log, incumbent callback, and the status mapping (done once).

CP-SAT works on integers.  Models of continuous data scale times by an integer
``scale`` (:func:`scale_times`): a time ``t`` becomes ``round(t * scale)``.
*Exactness condition*: when every duration and release time is a multiple of
``1/scale`` the scaled model is the original one and a proven optimum is the
original optimum; otherwise the method must say what it proves (each family
documents it: typically rounding durations *down* gives a valid lower bound and
rounding *up* gives a feasible schedule).

Reproducibility: with ``workers=1`` (the default) or ``interleave_search``,
and a ``work_limit`` in CP-SAT's deterministic time units, a run's result does
not depend on the machine's load; a run stopped by the wall-clock deadline has
``limit == "time"``.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any, Callable, Sequence

from . import interrupt
from .errors import SolverError
from .result import Status
from .solvers import SolveOutcome

log = logging.getLogger("dmlsched")


def _ortools():
    try:
        from ortools.sat.python import cp_model
    except ImportError as e:  # pragma: no cover - ortools is a dependency
        raise SolverError("CP-SAT needs the package ortools (pip install ortools)") from e
    return cp_model


def new_model() -> Any:
    """A fresh ``cp_model.CpModel``."""
    return _ortools().CpModel()


def scale_times(values: Sequence[float], scale: int, *, up: bool = False) -> list[int]:
    """``round(v * scale)`` (``ceil`` when ``up``), exact when ``v`` is a multiple of ``1/scale``."""
    out = []
    for v in values:
        x = float(v) * scale
        r = round(x)
        if abs(x - r) <= 1e-9 * max(1.0, abs(x)):
            out.append(int(r))
        else:
            out.append(int(math.ceil(x)) if up else int(math.floor(x)))
    return out


def is_exact_scale(values: Sequence[float], scale: int) -> bool:
    """Whether every value is a multiple of ``1/scale`` (to 1e-9 relative)."""
    for v in values:
        x = float(v) * scale
        if abs(x - round(x)) > 1e-9 * max(1.0, abs(x)):
            return False
    return True


def solve_cpsat(
    model: Any,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 1,
    work_limit: float | None = None,
    display: bool = False,
    options: dict[str, Any] | None = None,
    callback: Callable[[Any, float | None], None] | None = None,
    objective_scale: float = 1.0,
) -> SolveOutcome:
    """Solve a CP-SAT model.

    Parameters
    ----------
    model
        A ``cp_model.CpModel`` (minimising or maximising).
    time_limit
        Wall-clock seconds (``None``: none).
    seed
        ``random_seed``.
    workers
        ``num_workers`` (1: one deterministic search thread).
    work_limit
        ``max_deterministic_time`` (CP-SAT's deterministic time units,
        roughly seconds on a fast machine, independent of load).
    display
        Stream CP-SAT's search log (``log_search_progress``) to standard error.
    options
        Extra ``CpSolverParameters`` fields, set by name.
    callback
        ``callback(solver_view, bound)`` for every improving solution: the
        view answers ``Value(var)``; ``bound`` is the best bound so far
        (divided by ``objective_scale``).
    objective_scale
        The model's objective is ``objective_scale`` times the family's
        (reported ``objective`` and ``bound`` are divided by it).

    Returns
    -------
    SolveOutcome
        ``status`` optimal (proven), feasible, infeasible, time_limit (no
        solution); ``limit`` is ``"time"`` or ``"work"`` when one stopped the
        search; ``solver`` is the ``CpSolver`` under ``outcome.engine``.
    """
    cp_model = _ortools()
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.random_seed = int(seed) % 2147483647
    p.num_workers = max(1, int(workers))
    p.log_search_progress = bool(display)
    if display:
        p.log_to_stdout = False
        solver.log_callback = lambda line: print(line, file=__import__("sys").stderr)
    if time_limit is not None:
        p.max_time_in_seconds = max(float(time_limit), 0.01)
    if work_limit is not None:
        p.max_deterministic_time = float(work_limit)
    for k, v in (options or {}).items():
        if not hasattr(p, k):
            raise SolverError(f"unknown CP-SAT parameter {k!r}")
        setattr(p, k, v)

    cb_obj = None
    if callback is not None:

        class _CB(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()

            def on_solution_callback(self) -> None:
                try:
                    callback(self, self.BestObjectiveBound() / objective_scale)
                except Exception:  # a callback must never kill the search
                    log.exception("CP-SAT solution callback failed")

        cb_obj = _CB()
    t0 = time.perf_counter()
    gen = interrupt.generation()
    with interrupt.solver_call(solver.stop_search) as watched:
        if watched:  # a stop request stops the search through stop_search, and is counted
            p.catch_sigint_signal = False
        if interrupt.since(gen):  # asked to stop already: no search
            p.max_time_in_seconds = 0.0
        code = solver.Solve(model, cb_obj) if cb_obj is not None else solver.Solve(model)
    runtime = time.perf_counter() - t0
    name = solver.StatusName(code)
    has_sol = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    limit = None
    if code == cp_model.OPTIMAL:
        status = Status.OPTIMAL
    elif code == cp_model.INFEASIBLE:
        status = Status.INFEASIBLE
    elif code == cp_model.MODEL_INVALID:
        raise SolverError(f"CP-SAT: invalid model: {model.Validate()}")
    else:  # FEASIBLE or UNKNOWN: a limit stopped the search
        status = Status.FEASIBLE if has_sol else Status.TIME_LIMIT
        if interrupt.since(gen):
            limit = "interrupt"
        elif work_limit is not None and solver.deterministic_time >= float(work_limit) * 0.999:
            limit = "work"
        else:
            limit = "time"
    obj = solver.ObjectiveValue() / objective_scale if has_sol else None
    # CP-SAT's best bound is meaningful only once the search has a solution (UNKNOWN reports 0)
    bound = solver.BestObjectiveBound() / objective_scale if has_sol else None
    log.debug("cpsat: %s obj=%s bound=%s in %.3fs", name, obj, bound, runtime)
    return SolveOutcome(status=status, objective=obj, bound=bound, solver="cpsat", runtime_s=runtime,
                        message=name, limit=limit, engine=solver)
