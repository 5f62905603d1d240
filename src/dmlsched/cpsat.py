"""One wrapper around OR-Tools CP-SAT: deadline, deterministic work limit, seed,
workers, solver log, incumbent callback, and the status mapping (done once).

CP-SAT works on integers.  **One scaling rule** (:func:`grid_scale`) serves
every model of continuous data, applied to *every* number that enters the
model (times, memories, weights, speeds -- each kind with its own scale where
the model keeps them apart): each value is read as the simplest rational
within :data:`GRID_ULPS` units in the last place of it (the value a person
wrote: ``0.1`` is 1/10, ``0.3333333333333333`` is 1/3), and the scale is the
least common multiple of their denominators -- powers of ten, 3, 7, 12, 60,
anything -- as long as the largest scaled value stays below the model's
limit.  *Exactness condition*: that scale exists; then every value is an
integer multiple of ``1/scale`` (:func:`to_int` with ``"exact"``), the scaled
model is the original one and a proven optimum is the original optimum.
Otherwise :func:`grid_scale` returns the largest power of ten within the
limit, marked inexact, and the method rounds each number in the direction its
proof needs (:func:`to_int` with ``"down"`` or ``"up"``: each family documents
it, typically rounding durations *down* gives a valid lower bound and rounding
*up* a feasible schedule), and says what it proves (``details["exact_scale"]``
in every family).  Objective cuts are computed on the scaled integers (never
from float products).  A method solves through
:meth:`dmlsched.kit.Run.solve_cpsat` with a :class:`Scaling` that says how the
model's objective stands for the family's.

Reproducibility: with ``workers=1`` (the default) or ``interleave_search``,
and a ``work_limit`` in CP-SAT's deterministic time units, a run's result does
not depend on the machine's load; a run stopped by the wall-clock deadline has
``limit == "time"``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

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


#: a value within this many units in the last place of a rational is read as that rational
#: (the double nearest to a rational is within half a unit; a sum of a few doubles within a few)
GRID_ULPS = 4


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in ``[lo, hi]`` (``0 <= lo <= hi``),
    by continued fractions."""
    if lo <= 0:
        return Fraction(0)
    fl = lo.numerator // lo.denominator
    if fl == lo or fl + 1 <= hi:
        return Fraction(fl if fl == lo else fl + 1)
    return fl + 1 / _simplest_between(1 / (hi - fl), 1 / (lo - fl))


@lru_cache(maxsize=65536)
def rational(x: float) -> Fraction:
    """The simplest rational within :data:`GRID_ULPS` units in the last place of ``x``:
    the number a person wrote (``0.1`` -> 1/10, ``1/3`` as a double -> 1/3, ``1e-6`` ->
    1/10^6); for a value on no short grid, a rational of large denominator."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    if x == 0:
        return Fraction(0)
    if x < 0:
        return -rational(-x)
    if x == int(x):
        return Fraction(int(x))
    e = Fraction(math.ulp(x)) * GRID_ULPS
    f = Fraction(x)
    return _simplest_between(f - e, f + e)


@dataclass(frozen=True)
class Grid:
    """The integer scale of a set of numbers (:func:`grid_scale`).

    ``exact``: every number is an integer multiple of ``1/scale`` (read as
    :func:`rational`); otherwise ``scale`` is a power of ten and the numbers
    must be rounded by :func:`to_int` in the direction a method's proof needs.
    """

    scale: int
    exact: bool


def grid_scale(values: Iterable[float], *, max_scaled: float, scale: int | None = None,
               extra_factor: float = 1.0, max_inexact: int | None = None) -> Grid:
    """The one scaling rule of every CP-SAT model (module docstring).

    Parameters
    ----------
    values
        Every number of one kind that enters the model.
    max_scaled
        Largest scaled magnitude the model accepts: ``extra_factor * max|v| *
        scale <= max_scaled`` (``extra_factor`` covers sums the model forms,
        e.g. a horizon of many durations).
    scale
        A scale the caller fixes (its exactness is still checked).
    max_inexact
        Largest scale returned when no exact one fits (a model whose inexact
        case solves rounded models may want them coarse).

    Returns
    -------
    Grid
        The least common multiple of the denominators of :func:`rational` of
        the values, exact, when it keeps within ``max_scaled``; otherwise the
        largest power of ten that does (at least 1, at most ``max_inexact``),
        inexact.
    """
    vals = [float(v) for v in values]
    top = max((abs(v) for v in vals), default=0.0) * max(float(extra_factor), 1.0)
    if scale is not None:
        s = int(scale)
        if s < 1:
            raise ValueError("scale must be a positive integer")
        return Grid(s, on_grid(vals, s))
    limit = max_scaled / top if top > 0 else max_scaled
    lcm = 1
    for v in vals:
        q = rational(v).denominator
        lcm = lcm * q // math.gcd(lcm, q)
        if lcm > limit:
            break
    else:
        return Grid(lcm, True)
    fallback = max(1, 10 ** int(math.floor(math.log10(max(limit, 1.0)))))
    if max_inexact is not None:
        fallback = max(1, min(fallback, int(max_inexact)))
    return Grid(fallback, False)  # an exact scale would be a multiple of the lcm, past the limit


def on_grid(values: Iterable[float], scale: int) -> bool:
    """Whether every value (read as :func:`rational`) is an integer multiple of ``1/scale``."""
    return all(int(scale) % rational(float(v)).denominator == 0 for v in values)


def to_int(x: float, scale: int, rounding: str = "exact") -> int:
    """``x * scale`` as an integer.

    ``"exact"``: ``x`` (read as :func:`rational`) must be a multiple of
    ``1/scale`` (``ValueError`` otherwise); ``"down"``/``"up"``: the floor/ceiling
    of ``rational(x) * scale`` when ``x`` is on the grid, else of the double's
    exact value times ``scale`` -- a rounding in the stated direction, never by
    floating-point error the other way.
    """
    r = rational(float(x)) * int(scale)
    if r.denominator == 1:
        return int(r)
    if rounding == "exact":
        raise ValueError(f"{x!r} is not a multiple of 1/{scale}")
    f = Fraction(float(x)) * int(scale)
    if rounding == "down":
        return math.floor(f)
    if rounding == "up":
        return math.ceil(f)
    raise ValueError(f"unknown rounding {rounding!r}")


def scale_times(values: Sequence[float], scale: int, *, up: bool = False) -> list[int]:
    """Every value times ``scale`` as an integer: exact on the grid, else rounded
    down (``up``: up) -- :func:`to_int`."""
    return [to_int(v, scale, "up" if up else "down") for v in values]


@dataclass(frozen=True)
class Scaling:
    """How a CP-SAT model's integer objective stands for the family's objective
    (:meth:`dmlsched.kit.Run.solve_cpsat`, the one CP-SAT path of every method).

    Attributes
    ----------
    objective_scale
        The model's objective is this multiple of the family's: CP-SAT's
        objective and bound are divided by it (:func:`solve_cpsat`).
    exact
        Whether the scaled model is the family's problem (the exactness
        condition of :func:`grid_scale`).  Otherwise CP-SAT's ``OPTIMAL``
        proves only the scaled model's optimum, and the outcome's status is
        ``feasible`` (the method proves optimality by its bound).
    to_bound
        The family's proven bound from CP-SAT's bound (after the division;
        ``None`` in, typically ``None`` out), applied to every bound CP-SAT
        reports, in the solution callback and at the end; ``None``: as it is.
    objective
        Whether CP-SAT's objective (after the division) is the family's value;
        ``False``: the outcome carries none, the method values its solutions.
    relaxed_as
        What the scaled model is when it is not exact (``"rounded-down
        model"``): appended to the solver message when ``OPTIMAL`` is demoted.
    """

    objective_scale: float = 1.0
    exact: bool = True
    to_bound: Callable[[float | None], float | None] | None = None
    objective: bool = True
    relaxed_as: str | None = None

    def bound(self, scaled: float | None) -> float | None:
        """The family's proven bound from CP-SAT's (already divided by :attr:`objective_scale`)."""
        return scaled if self.to_bound is None else self.to_bound(scaled)

    def outcome(self, out: SolveOutcome) -> SolveOutcome:
        """CP-SAT's outcome in the family's terms: bound converted, objective kept or
        dropped, ``OPTIMAL`` a proof only when :attr:`exact`."""
        changes: dict[str, Any] = {}
        if self.to_bound is not None:
            changes["bound"] = self.to_bound(out.bound)
        if not self.objective:
            changes["objective"] = None
        if out.status == Status.OPTIMAL and not self.exact:
            changes["status"] = Status.FEASIBLE
            if self.relaxed_as:
                changes["message"] = f"{out.message} ({self.relaxed_as})"
        return dataclasses.replace(out, **changes) if changes else out


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
        solver.log_callback = lambda line: print(line, file=sys.stderr)
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
