"""The method kit: declared options, one deadline, stages, and one step from a
solver outcome to a :class:`~dmlsched.result.Result`.

Every method of every family is written the same way::

    from dmlsched.kit import Option, Run, method

    @method(
        "hare", "exact", kind="exact", uses_solver=True,
        options=[Option("symmetry", bool, True, "order identical GPUs by their first task")],
    )
    def solve_exact(inst: HareInstance, run: Run) -> Result:
        with run.stage("build"):
            mdl = build(inst, symmetry=run.options["symmetry"])
        out = run.solve_model(mdl)                 # the deadline, seed, display, solver options
        with run.stage("extract"):
            sched = extract(mdl) if out.has_solution else None
        return run.result(solution=sched, bound=out.bound, outcome=out)

The decorator registers a function with the one signature every method has,
``fn(instance, *, solver, time_limit, seed, **options) -> Result``; it checks
the options against their declarations (an unknown or ill-typed option is an
:class:`OptionError` naming it), starts the :class:`Deadline`, and hands the
body a :class:`Run`.

**Deadline.** ``time_limit`` is a deadline for the whole method, measured from
the call: building, enumeration, every solver call.  ``run.remaining()`` is
what is left; :meth:`Run.solve_model` and :meth:`Run.solve_cpsat` pass it to
the solver.  A method that cannot hold an instance in the memory it has says so
before it allocates (:meth:`Run.require`), with status ``n/a``.

**Reproducibility.** The same instance, method, options and seed give the same
result whatever the machine's load, *unless* a wall-clock limit cut a
computation whose result it changes: then ``details["reproducible"]`` is
``False`` and ``details["deadline_cut"]`` names what was cut.  Heuristics that
solve a model internally bound it by a deterministic work limit (iterations,
nodes, CP-SAT deterministic time) so that the wall clock is only a safety net.

**Incumbents.** :meth:`Run.incumbent` records a feasible solution as soon as a
method has one (checked by the family's validator); the best is returned if
the method is interrupted, and the benchmark engine records it if the run has
to be killed (it listens through :func:`dmlsched.incumbents.incumbent_sink`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from . import cpsat, interrupt, solvers
from .budget import Budget, Deadline  # noqa: F401  (Deadline: the former name, re-exported)
from .cpsat import Scaling
from .errors import NotApplicable
from .fmt import fmt_bytes, fmt_count  # noqa: F401  (fmt_count re-exported)
from .incumbents import IncumbentSink, current_sink, incumbent_sink
from .options import (  # noqa: F401  (re-exported: the kit's public names before the split)
    COMMON_OPTIONS,
    DEFAULT_MEMORY_LIMIT_GIB,
    MAX_THREADS,
    SOLVER_OPTIONS,
    Option,
    OptionError,
    check_options,
    options_from_signature,
)
from .progress import set_stage
from .registry import get_method, get_problem, problem_of, register_method
from .result import Result, Status
from .solvers import DEFAULT_ABS_GAP, DEFAULT_REL_GAP, SolveOutcome
from .verify import finish

log = logging.getLogger("dmlsched")

#: the one optimality rule of every exact method: ``optimal`` only when the value of the
#: returned solution and the proven bound differ by at most this share of the larger of the
#: two (relative at every magnitude; see :func:`meets`)
OPTIMALITY_GAP = 1e-6
#: Pyomo's translation of a model for the solver takes about this many times its build
#: (measured 1.2-2.1 on Hare's MIP, benchmarks/deadlines.md): a solve is not started when less
#: time than that is left, since the translation cannot be interrupted
HANDOFF_PER_BUILD = 1.5


class DeadlineReached(BaseException):
    """Raised in a simulation that runs past its deadline (the kit's watchdog,
    :func:`_watchdog`); a ``BaseException`` so that no ``except Exception``
    in the method swallows it."""


#: an online policy (kind ``policy``: a simulation that keeps no incumbent) still running
#: this long after its deadline -- this share of its limit, at least WATCHDOG_MIN_S -- is stopped
WATCHDOG_SHARE = 0.05
WATCHDOG_MIN_S = 0.2


class _Alarm:
    armed = False


@contextlib.contextmanager
def _watchdog(deadline: "Deadline") -> Iterator[None]:
    """Stop the block with :class:`DeadlineReached` shortly after ``deadline``
    (a ``SIGALRM`` timer).  Pure-Python simulations check no clock in their
    event loops; this honours ``time_limit`` for them without a check per event.
    Only in the main thread, only when no one else uses ``SIGALRM``, and
    never nested (an inner method runs under the outer one's alarm)."""
    if (deadline.at is None or _Alarm.armed or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None)
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        if _Alarm.armed:
            _Alarm.armed = False
            raise DeadlineReached

    grace = max(WATCHDOG_MIN_S, WATCHDOG_SHARE * (deadline.limit or 0.0))
    old = signal.signal(signal.SIGALRM, fire)
    _Alarm.armed = True
    signal.setitimer(signal.ITIMER_REAL, max(deadline.at + grace - time.monotonic(), 0.001))
    try:
        yield
    finally:
        _Alarm.armed = False  # first: an alarm firing from here on does nothing
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class ResourceLimit(NotApplicable):
    """The method cannot hold the instance in the time or memory it was given.

    Raised *before* allocating (see :meth:`Run.require`); the result has status
    ``n/a`` with ``details["refused"]`` = ``"memory"`` or ``"time"``.
    """

    def __init__(self, what: str, message: str):
        self.what = what
        super().__init__(message)


# ---------------------------------------------------------------------------
# the run context


@dataclass
class Run:
    """What a method body receives: its settings, deadline and bookkeeping.

    Attributes
    ----------
    problem, method, kind, sense
        Registry keys and the family's sense (``"min"``/``"max"``).
    solver, seed
        As given to :func:`dmlsched.solve`.
    budget
        The method's :class:`~dmlsched.budget.Budget` (started when the method
        was called; ``deadline`` is its former name).  The run owns it: a cut
        recorded on it (or on a budget shared from it) is the run's :meth:`cut`.
    options
        The method's declared options, checked, defaults filled in.
    display
        Stream the solver's log.
    memory_limit
        Bytes the method may plan to allocate.
    details
        Collected ``details`` of the result (stages, solver figures, cuts).
    objective_floor
        Absolute floor of the optimality rule (:func:`meets`) in the family's
        units: a method whose numbers have a known resolution sets it (a MIP
        solved on a normalised instance: the solver's absolute gap in the
        original units), so that an optimum of 0 can be proven; 0 otherwise
        (the rule is then purely relative).
    """

    problem: str
    method: str
    kind: str
    sense: str
    solver: str | None
    seed: int
    budget: Budget
    options: dict[str, Any]
    display: bool = False
    memory_limit: float = DEFAULT_MEMORY_LIMIT_GIB * 2**30
    details: dict[str, Any] = field(default_factory=dict)
    best: Any = None
    best_value: float | None = None
    best_bound: float | None = None
    objective_floor: float = 0.0
    _spec: Any = None
    _instance: Any = None
    _last_emit: float = 0.0

    def __post_init__(self) -> None:
        self.budget.on_cut = self.cut

    # -- time ----------------------------------------------------------------
    @property
    def deadline(self) -> Budget:
        """The run's budget under its former name."""
        return self.budget

    @property
    def time_limit(self) -> float | None:
        return self.budget.limit

    def remaining(self) -> float | None:
        """Seconds left before the deadline (``None``: no deadline)."""
        return self.budget.remaining()

    def expired(self) -> bool:
        """Whether the wall-clock deadline has passed (work left is :meth:`Budget.stop`'s)."""
        return self.budget.expired()

    def cut(self, what: str) -> None:
        """Record that the wall-clock deadline cut ``what`` (the result then
        depends on the machine's speed and load: not reproducible)."""
        cuts = self.details.setdefault("deadline_cut", [])
        if what not in cuts:
            cuts.append(what)
        self.details["reproducible"] = False

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage (``load``, ``build``, ``solve``, ``extract``, ...):
        ``details["stages"][name]`` in seconds, and one INFO log line."""
        t0 = time.perf_counter()
        set_stage(f"{self.problem}/{self.method}: {name}")  # the progress line of the command, if any
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            stages = self.details.setdefault("stages", {})
            stages[name] = stages.get(name, 0.0) + dt
            log.info("%s/%s: %s %.3f s", self.problem, self.method, name, dt)

    # -- resources -------------------------------------------------------------
    def require(self, *, memory_bytes: float | None = None, what: str = "the model",
                seconds: float | None = None) -> None:
        """Refuse (status ``n/a``) before allocating when ``what`` would need
        more than the memory limit, or an estimated ``seconds`` of work that
        exceeds the remaining time."""
        if memory_bytes is not None and memory_bytes > self.memory_limit:
            raise ResourceLimit(
                "memory",
                f"{what} would need about {fmt_bytes(memory_bytes)}, more than the memory limit of "
                f"{fmt_bytes(self.memory_limit)} (option memory_limit, in GiB)",
            )
        rem = self.remaining()
        if seconds is not None and rem is not None and seconds > rem:
            raise ResourceLimit(
                "time", f"{what} would take about {seconds:.3g} s, more than the {rem:.3g} s left"
            )

    # -- incumbents ------------------------------------------------------------
    def better(self, value: float, than: float | None) -> bool:
        if than is None:
            return True
        return value < than if self.sense == "min" else value > than

    def incumbent(self, solution: Any, *, bound: float | None = None) -> bool:
        """Offer a feasible solution; keep it if it improves on the best.

        The family's evaluator values it; when a benchmark worker listens, the
        validator checks it first and the sink receives its objective and
        ``bound`` (a proven bound on the optimum, if the method has one).
        Returns whether it improved.
        """
        if solution is None:
            return False
        value = float(self._spec.evaluate(self._instance, solution))
        if bound is not None:
            self.best_bound = bound
        if not self.better(value, self.best_value):
            return False
        self.best, self.best_value = solution, value
        sink = current_sink()
        if sink is not None:
            now = time.monotonic()
            if now - self._last_emit >= 0.2 or self._last_emit == 0.0:
                self._emit(sink)
        return True

    def _emit(self, sink: IncumbentSink) -> None:
        try:
            self._spec.validate(self._instance, self.best)
        except Exception:  # an invalid incumbent is never recorded
            return
        self._last_emit = time.monotonic()
        sink({"problem": self.problem, "method": self.method, "objective": self.best_value,
              "bound": self.best_bound, "elapsed_s": self.deadline.elapsed()})

    # -- solvers ---------------------------------------------------------------
    def solver_settings(self) -> tuple[dict[str, Any] | None, int]:
        return self.options.get("solver_options"), int(self.options.get("threads") or 1)

    def solve_model(self, model: Any, *, work_limit: dict[str, Any] | None = None,
                    rel_gap: float | None = None, abs_gap: float | None = None,
                    what: str = "the solver", budget: Budget | None = None,
                    guard_handoff: bool = False, defaults: dict[str, dict[str, Any]] | None = None) -> Any:
        """Solve a Pyomo model within the run's budget (or ``budget``, e.g. a share of it);
        see :func:`dmlsched.solvers.solve_model`.  A time limit that stops the
        solver is recorded with :meth:`cut`.  With ``guard_handoff`` (for a
        method that builds one large model, timed as the stage ``build``), the
        solve is not started when less time is left than Pyomo's translation
        is expected to take (:data:`HANDOFF_PER_BUILD` x the build's time):
        status ``time_limit``, recorded as a cut.  ``defaults``: the method's own
        solver options by solver name (``{"highs": {...}, "gurobi": {...}}``),
        under the user's ``solver_options``."""
        extra, threads = self.solver_settings()
        mine = (defaults or {}).get(self.solver or "highs")
        if mine:
            extra = {**mine, **(extra or {})}
        dl = budget or self.budget
        rem = dl.remaining()
        built = self.details.get("stages", {}).get("build") if guard_handoff else None
        if rem is not None and built is not None and rem < HANDOFF_PER_BUILD * built:
            # Pyomo's translation for the solver takes about as long as the build again and cannot
            # be interrupted: with less time left than that, starting it would overrun the deadline
            self.cut(f"{what} (not started: {rem:.1f} s left, the hand-off takes about "
                     f"{HANDOFF_PER_BUILD * built:.1f} s after a {built:.1f} s build)")
            return SolveOutcome(status=Status.TIME_LIMIT, objective=None, bound=None, solver=self.solver or "highs",
                                runtime_s=0.0, message="not started: no time left for the hand-off", limit="time")
        with self.stage("solve"):
            out = solvers.solve_model(  # looked up at the call (a spy may replace it)
                model, self.solver or "highs", time_limit=dl.remaining(), seed=self.seed,
                rel_gap=DEFAULT_REL_GAP if rel_gap is None else rel_gap,
                abs_gap=DEFAULT_ABS_GAP if abs_gap is None else abs_gap,
                threads=threads, tee=sys.stderr if self.display else False, options=extra,
                work_limit=work_limit, deadline_at=dl.at,
            )
        if out.handoff_s is not None:
            # Pyomo's translation of the model is part of building it, not of solving it
            st = self.details["stages"]
            st["handoff"] = st.get("handoff", 0.0) + out.handoff_s
            st["solve"] = max(0.0, st["solve"] - out.handoff_s)
        if out.limit == "time":
            self.cut(what)
        return out

    def solve_cpsat(self, model: Any, *, scaling: Any = None,
                    on_solution: Callable[[Any], Any] | None = None, what: str = "CP-SAT",
                    budget: Budget | None = None, defaults: Mapping[str, Any] | None = None) -> Any:
        """Solve a CP-SAT model by the remaining budget: the one CP-SAT path of every
        method (:func:`dmlsched.cpsat.solve_cpsat` does the solver's part).

        ``scaling`` (a :class:`dmlsched.cpsat.Scaling`; ``None``: the model's
        objective is the family's) says how the model's integer objective stands
        for the family's: every bound CP-SAT reports goes through it, and
        CP-SAT's ``OPTIMAL`` is a proof only when the scaling is exact.
        ``on_solution(values)`` turns each improving CP-SAT solution into a
        family solution that is offered as an incumbent, with CP-SAT's bound so
        far.  ``budget``: a share of the run's (default: the run's own): its
        remaining seconds are CP-SAT's wall-clock limit and its
        :meth:`~dmlsched.budget.Budget.work_left` CP-SAT's deterministic time
        limit (a method's ``work_limit`` option is the run's work, see
        :func:`method`; the deterministic time CP-SAT uses is not charged back);
        ``defaults``: the method's CP-SAT parameters, under the user's
        ``solver_options``.  A wall-clock stop is recorded as a cut of ``what``.
        Returns the outcome in the family's terms.
        """
        sc = scaling if scaling is not None else Scaling()
        extra, threads = self.solver_settings()
        if defaults:
            extra = {**defaults, **(extra or {})}
        dl = budget or self.budget
        cb = None
        if on_solution is not None:
            def cb(values: Any, bound: float | None) -> None:
                self.incumbent(on_solution(values), bound=sc.bound(bound))
        with self.stage("solve"):
            out = cpsat.solve_cpsat(model, time_limit=dl.remaining(), seed=self.seed, workers=threads,
                                    work_limit=dl.work_left(), display=self.display, options=extra, callback=cb,
                                    objective_scale=sc.objective_scale)
        if out.limit == "time":
            self.cut(what)
        return sc.outcome(out)

    # -- runs outside the decorator ---------------------------------------------
    @classmethod
    def _make(cls, spec: Any, method: str, kind: str, declared: Sequence[Option], given: Mapping[str, Any], *,
              solver: str | None, seed: int, instance: Any, budget: Budget | None = None,
              time_limit: float | None = None, start: float | None = None, work_option: bool = False,
              unchecked: Mapping[str, Any] | None = None) -> Run:
        """The one constructor of a run from the options a caller gave (the :func:`method`
        wrapper, :meth:`standalone` and :meth:`delegate` all build theirs here).

        ``given`` is checked against ``declared`` (:func:`~dmlsched.options.check_options`:
        defaults filled in, an unknown option is an :class:`OptionError`); the common
        options become the run's ``display`` and ``memory_limit``.  The run's budget is
        ``budget`` if given, else one of ``time_limit`` seconds from ``start`` (default:
        now); when ``work_option``, the checked ``work_limit`` option (if set) is its work,
        or caps the work of the given ``budget`` (which must then be the run's own).
        ``unchecked``: options kept as given after the checked ones (a library call
        without a method).
        """
        opts, common = check_options(spec.name, method, declared, dict(given))
        if unchecked:
            opts.update(unchecked)
        if budget is None:
            budget = Budget(time_limit, start, work=opts.get("work_limit") if work_option else None)
        elif work_option and opts.get("work_limit") is not None:  # a fresh child budget: its own cap too
            cap = float(opts["work_limit"])
            budget.work = cap if budget.work is None else min(budget.work, cap)
        run = cls(problem=spec.name, method=method, kind=kind, sense=spec.sense, solver=solver, seed=int(seed),
                  budget=budget, options=opts, display=bool(common["display"]),
                  memory_limit=float(common["memory_limit"]) * 2**30, _spec=spec, _instance=instance)
        if common["renamed_options"]:  # old option names the caller gave (dmlsched.options.RENAMED)
            run.details["renamed_options"] = dict(common["renamed_options"])
        return run

    @classmethod
    def standalone(cls, problem: str, method: str | None = None, *, instance: Any = None,
                   solver: str | None = "highs", seed: int = 0, time_limit: float | None = None,
                   budget: Budget | None = None, options: Mapping[str, Any] | None = None) -> "Run":
        """A run for library code called outside a method (tests, hunt, notebooks, a helper
        such as :func:`dmlsched.problems.hlas.heuristics.simulate` called directly).

        Parameters
        ----------
        problem, method
            Registry keys; with ``method``, ``options`` are checked against its
            declarations (defaults filled in, an unknown option is an
            :class:`OptionError`) and the run has its kind; without, ``options``
            are kept as given (the common ones, ``display`` and
            ``memory_limit``, are checked).
        instance
            The instance whose incumbents :meth:`incumbent` would value.
        solver, seed
            As for :func:`dmlsched.solve`.
        time_limit, budget
            The run's deadline: ``budget`` if given, else one of ``time_limit``
            seconds starting now.

        The run streams no incumbents of its own (no method is running).
        """
        spec = get_problem(problem)
        given = dict(options or {})
        if method is not None:
            m = get_method(problem, method)
            run = cls._make(spec, method, m.kind, m.options, given, solver=solver, seed=seed, instance=instance,
                            budget=budget, time_limit=time_limit)
        else:
            names = {o.name for o in COMMON_OPTIONS}
            run = cls._make(spec, "(library call)", "heuristic", (), {k: v for k, v in given.items() if k in names},
                            solver=solver, seed=seed, instance=instance, budget=budget, time_limit=time_limit,
                            unchecked={k: v for k, v in given.items() if k not in names})
        run.details["reproducible"] = True
        return run

    def delegate(self, method: str, instance: Any, *, problem: str | None = None, share: float = 1.0,
                 options: Mapping[str, Any] | None = None,
                 incumbents: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
                 cut_as: str | None = None) -> Result:
        """Run another registered method as part of this one, and return its checked result.

        Parameters
        ----------
        method, instance
            The method to run and its instance.
        problem
            The instance's family (default: this run's); an instance of another
            family is an error naming both.
        share
            The child's budget is this share of this run's remaining time and
            work (:meth:`Budget.share <dmlsched.budget.Budget.share>`); without
            a deadline here, the child gets the default time limit of its kind,
            as :func:`dmlsched.solve` gives it, and still this share of the work
            left (its work charged here).  A ``work_limit`` option given to a
            child that declares one caps the child's work.
        options
            The child's options.  Its solver (this run's, HiGHS when this run
            has none), seed, ``display``, ``memory_limit``, ``threads`` and
            ``solver_options`` (where the child declares them) are inherited
            unless ``options`` sets them.
        incumbents
            What a listening benchmark receives of the child's incumbents:
            ``None`` (default) drops them; a function maps each incumbent
            (``{"problem", "method", "objective", "bound", "elapsed_s"}``) to
            this run's (``None``: not passed on), then labelled with this run's
            problem and method.
        cut_as
            How a wall-clock cut of the child is recorded here (:meth:`cut`;
            default ``"<problem>/<method>"``): a child that is not reproducible
            makes this run not reproducible.

        Returns
        -------
        Result
            Verified exactly as :func:`dmlsched.solve` verifies a result
            (:func:`dmlsched.verify.finish`); a raised
            :class:`~dmlsched.errors.InvalidSolutionError` is not caught.
        """
        spec = problem_of(instance)
        if problem is not None and problem != spec.name:
            raise ValueError(f"{self.problem}/{self.method}: delegate to {problem}/{method} got "
                             f"an instance of {spec.name}")
        m = get_method(spec.name, method)
        declared = {o.name for o in m.options}
        given: dict[str, Any] = {"display": self.display, "memory_limit": self.memory_limit / 2**30}
        for key in ("threads", "solver_options"):
            if key in declared and key in self.options:
                given[key] = self.options[key]
        given.update(options or {})
        solver = self.solver or "highs"
        default = default_time_limit(m.kind, m.uses_solver)
        if self.budget.at is None and default is not None:
            # as solve() gives the child when no time limit is set; the work, as share() would
            # give it, is this run's: linked, so the child's work is charged here
            left = self.budget.work_left()
            deadline = Budget(default, work=None if left is None else left * share, parent=self.budget)
        else:
            deadline = self.budget.share(share)
        outer = current_sink()
        sink: IncumbentSink | None = None
        if incumbents is not None and outer is not None:
            def sink(inc: dict[str, Any]) -> None:
                mapped = incumbents(inc)
                if mapped is not None:
                    outer({**mapped, "problem": self.problem, "method": self.method})
        t0 = time.perf_counter()
        with incumbent_sink(sink):
            if m.uses_kit:
                child = Run._make(spec, method, m.kind, m.options, given, solver=solver if m.uses_solver else None,
                                  seed=self.seed, instance=instance, budget=deadline,
                                  work_option=any(o.name == "work_limit" for o in m.options))
                res = _call(spec, m.kind, m.fn.body, instance, child)
            else:  # a method registered without the kit: called as solve() calls it
                opts, common = check_options(spec.name, method, m.options, given)
                try:
                    res = m.fn(instance, solver=solver, time_limit=deadline.remaining(), seed=self.seed, **opts)
                except NotApplicable as e:
                    res = Result(spec.name, method, Status.NOT_APPLICABLE,
                                 details={"error": str(e), "not_applicable": True})
                record_renamed(res, common)
        res = finish(spec, m.kind, method, instance, res, time.perf_counter() - t0)
        if res.details.get("deadline_cut") or res.details.get("reproducible") is False:
            self.cut(cut_as or f"{spec.name}/{method}")
        return res

    # -- the one step from an outcome to a Result --------------------------------
    def result(
        self,
        *,
        solution: Any = None,
        bound: float | Sequence[float | None] | None = None,
        outcome: Any = None,
        status: Status | None = None,
        objective: float | None = None,
        **details: Any,
    ) -> Result:
        """The method's :class:`Result` from what it found.

        Parameters
        ----------
        solution
            The best feasible solution found (the run's best incumbent is used
            when it is better or when ``solution`` is ``None``).
        bound
            A proven bound on the optimum (family sense), or several: the
            tightest is kept.  Non-finite values are ignored.
        outcome
            The last :class:`~dmlsched.solvers.SolveOutcome` (its status,
            message and bound are folded in; ``details["solver_status"]``).
        status
            Forces the status (otherwise derived, see below).
        objective
            The method's own value of ``solution`` (cross-checked by
            :func:`dmlsched.solve`), or the value of a bound method.
        details
            Extra ``details`` entries.

        Notes
        -----
        Status: with a solution, ``optimal`` only when the method is exact and
        the solution's value meets the proven bound by the one rule
        (:func:`meets`, :data:`OPTIMALITY_GAP` relative), whatever the solver
        or the method says (a forced ``optimal`` that does not meet it becomes
        ``feasible``, with ``details["unproven"]``), else ``feasible``.
        Without one: ``infeasible`` when proven, ``time_limit`` when a limit
        stopped the search, else ``error``.  A bound method's value is its
        ``bound`` and its status ``bound`` (``details["bound_complete"]``:
        whether it ran to its end).
        """
        self.details.update(details)
        bounds = list(bound) if isinstance(bound, (list, tuple)) else [bound]
        if outcome is not None:
            self.details["solver_status"] = outcome.message
            self.details.setdefault("solver_objective", outcome.objective)
            self.details.setdefault("solver_bound", outcome.bound)
            if self.kind != "heuristic":
                bounds.append(outcome.bound)
        best_bound = tightest(self.sense, bounds + [self.best_bound])
        value = None
        if solution is not None:
            value = float(self._spec.evaluate(self._instance, solution))
        if self.best is not None and (solution is None or self.better(self.best_value, value)):
            solution, value = self.best, self.best_value
            self.details["source"] = self.details.get("incumbent_source", "incumbent")
        if status is None:
            status = self._derive_status(solution, value, best_bound, outcome)
        if self.kind == "bound":
            status = self._bound_status(status, best_bound, objective)
        elif status == Status.OPTIMAL and solution is not None and value is not None:
            status = self._proven(value, best_bound)
        if status == Status.ERROR and not self.details.get("error"):
            # an error always says why (a bench table's "error" line is a real failure to read)
            why = f"solver status: {outcome.message}" if outcome is not None and outcome.message else "no reason given"
            self.details["error"] = f"the method ended without a solution ({why})"
        if solution is not None and best_bound is not None and value is not None:
            # a solver's bound may pass the re-evaluated optimum by its tolerances (by the one rule)
            over = best_bound > value if self.sense == "min" else best_bound < value
            if over and meets(self.sense, best_bound, value, floor=self.objective_floor):
                best_bound = value
        if self.kind == "bound" and objective is None and solution is None:
            objective = best_bound
        return Result(
            self.problem, self.method, status,
            objective=objective if objective is not None else value,
            bound=best_bound, solution=solution, solver=self.solver,
            details=self.details, sense=self.sense,
        )

    def _proven(self, value: float, bound: float | None) -> Status:
        """``optimal`` when ``value`` meets the proven ``bound`` by the one rule, else
        ``feasible`` with the reason in ``details["unproven"]``."""
        if bound is not None and meets(self.sense, value, bound, floor=self.objective_floor):
            return Status.OPTIMAL
        self.details["unproven"] = (
            f"value {value!r} and proven bound {bound!r} differ by more than the relative gap "
            f"{OPTIMALITY_GAP:g}" if bound is not None else "no proven bound")
        return Status.FEASIBLE

    def _bound_status(self, status: Status, bound: float | None, objective: float | None) -> Status:
        """A bound method's status: ``bound`` whenever it has a proven bound (its own
        ``optimal``/``feasible`` -- computed to its end or stopped early -- goes to
        ``details["bound_complete"]``)."""
        if status in (Status.OPTIMAL, Status.FEASIBLE, Status.BOUND) and (bound is not None or objective is not None):
            self.details.setdefault("bound_complete", status != Status.FEASIBLE)
            return Status.BOUND
        return status

    def _derive_status(self, solution: Any, value: float | None, bound: float | None, outcome: Any) -> Status:
        if solution is None:
            if self.kind == "bound":
                if bound is None:
                    return Status.TIME_LIMIT if (outcome is not None and outcome.limit) else Status.ERROR
                proven = outcome is None or outcome.status == Status.OPTIMAL
                return Status.OPTIMAL if proven else Status.FEASIBLE
            if outcome is not None and outcome.status == Status.INFEASIBLE:
                return Status.INFEASIBLE
            if (outcome is not None and outcome.limit) or self.details.get("deadline_cut"):
                return Status.TIME_LIMIT
            return Status.ERROR
        if self.kind != "exact":
            return Status.FEASIBLE
        if bound is not None and value is not None and meets(self.sense, value, bound, floor=self.objective_floor):
            if outcome is None or outcome.status != Status.OPTIMAL or self.details.get("source") == "incumbent":
                self.details.setdefault("closed_by", "bound")
            return Status.OPTIMAL
        if outcome is not None and outcome.status == Status.OPTIMAL:
            # the solver stopped on its own criterion, but its bound does not meet the value
            # by the one rule (absolute tolerances below 1, or a re-evaluated value)
            self.details["unproven"] = (
                f"the solver reports {outcome.message or 'optimal'}, but the value {value!r} and the proven "
                f"bound {bound!r} differ by more than the relative gap {OPTIMALITY_GAP:g}")
        return Status.FEASIBLE


def tightest(sense: str, bounds: Sequence[float | None]) -> float | None:
    """The tightest finite bound on the optimum (max for min problems)."""
    vals = [float(b) for b in bounds if b is not None and math.isfinite(float(b))]
    if not vals:
        return None
    return max(vals) if sense == "min" else min(vals)


def meets(sense: str, value: float, bound: float, gap: float = OPTIMALITY_GAP, floor: float = 0.0) -> bool:
    """Whether ``value`` is within relative ``gap`` of the proven ``bound``: the one
    optimality rule of every exact method.

    ``value - bound <= max(gap * max(|value|, |bound|), floor)`` for minimisation
    (``bound - value`` for maximisation): relative at every magnitude, so that an
    objective of 1e-5 is not "optimal" at an absolute distance of 1e-6.  ``floor``
    (default 0: purely relative) is an absolute resolution a method may know of
    its numbers, far below any objective a user can write (``Run.objective_floor``).
    """
    diff = value - bound if sense == "min" else bound - value
    return diff <= max(gap * max(abs(value), abs(bound)), floor)


# ---------------------------------------------------------------------------
# the decorator


#: seconds a heuristic that calls a solver inside (``kind="heuristic"``,
#: ``uses_solver=True``, e.g. Hare's ``list`` and its relaxation) may take when
#: no time limit is given (``dmlsched methods`` states it); a run cut by it is
#: marked not reproducible
DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT = 120.0


def default_time_limit(kind: str, uses_solver: bool) -> float | None:
    """The time limit a method of this kind gets when none is given."""
    return DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT if kind == "heuristic" and uses_solver else None


def method(
    problem: str,
    name: str,
    *,
    kind: str,
    options: Sequence[Option] = (),
    description: str = "",
    bound: Callable[[Any], float | None] | None = None,
    bound_name: str | None = None,
    uses_solver: bool = False,
    space: str | None = None,
    replace: bool = False,
) -> Callable[[Callable[[Any, Run], Result]], Callable[..., Result]]:
    """Register ``body(instance, run) -> Result`` as method ``name`` of ``problem``.

    The registered function has the one method signature
    ``fn(instance, *, solver="highs", time_limit=None, seed=0, **options)``;
    ``options`` are checked against the declarations (and :data:`COMMON_OPTIONS`,
    plus :data:`SOLVER_OPTIONS` when ``uses_solver``).  ``NotApplicable`` raised
    by the body (or by :meth:`Run.require`) becomes status ``n/a``; a
    ``KeyboardInterrupt`` returns the best incumbent if there is one.  The
    run's :class:`~dmlsched.budget.Budget` has ``time_limit`` seconds and, when
    the method declares a ``work_limit`` option, that much work.
    """
    declared = tuple(options) + (SOLVER_OPTIONS if uses_solver else ())
    names = [o.name for o in declared]
    if len(set(names)) != len(names):
        raise ValueError(f"{problem}/{name}: duplicate option names in {names}")
    with_work = "work_limit" in names

    def deco(body: Callable[[Any, Run], Result]) -> Callable[..., Result]:
        @functools.wraps(body)
        def fn(instance: Any, *, solver: str = "highs", time_limit: float | None = None, seed: int = 0,
               **given: Any) -> Result:
            if time_limit is None and kind == "heuristic" and uses_solver:
                time_limit = DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT  # a solver inside a heuristic: bounded
            start = time.monotonic()
            # a method with a work_limit option starts with that work in its budget
            # (CP-SAT's deterministic seconds: Run.solve_cpsat reads work_left())
            spec = get_problem(problem)
            run = Run._make(spec, name, kind, declared, given, solver=solver if uses_solver else None, seed=seed,
                            instance=instance, time_limit=time_limit, start=start, work_option=with_work)
            return _call(spec, kind, body, instance, run)

        fn.body = body  # type: ignore[attr-defined]
        register_method(
            problem, name, kind=kind, description=description or _first_line(body.__doc__),
            bound=bound, bound_name=bound_name, uses_solver=uses_solver, space=space,
            options=declared, replace=replace,
        )(fn)
        return fn

    return deco


def record_renamed(res: Result, common: Mapping[str, Any]) -> Result:
    """``res`` with ``details["renamed_options"]`` (``{old: new}``) when the caller
    gave old option names (:data:`~dmlsched.options.RENAMED`), as they were mapped
    by :func:`check_options`."""
    if common.get("renamed_options"):
        res.details["renamed_options"] = dict(common["renamed_options"])
    return res


def _call(spec: Any, kind: str, body: Callable[[Any, Run], Result], instance: Any, run: Run) -> Result:
    """Run a method's ``body`` with its ``run``: the one place where a body's outcome
    becomes the method's raw result (shared by the :func:`method` wrapper and
    :meth:`Run.delegate`).

    A proven infeasibility of the family returns before the body; the
    simulation watchdog keeps a policy's deadline; ``NotApplicable`` (and
    :class:`ResourceLimit`) become status ``n/a``; a ``KeyboardInterrupt``
    returns the best incumbent if there is one (a stop request is recorded);
    ``runtime_s`` is the time since the run's deadline started.
    """
    problem, name, deadline = run.problem, run.method, run.budget
    run.details["reproducible"] = True
    why = spec.infeasible(instance) if spec.infeasible is not None else None
    if why:  # proven before any work: the same outcome in every method of the family
        return Result(problem, name, Status.INFEASIBLE, details={**run.details, "infeasible": why},
                      sense=spec.sense)
    try:
        if kind == "policy":  # a simulation: the watchdog keeps its deadline
            with _watchdog(deadline):
                res = body(instance, run)
        else:
            res = body(instance, run)
    except DeadlineReached:
        run.cut("the simulation (stopped by the deadline)")
        res = run.result(solution=run.best) if run.best is not None else Result(
            problem, name, Status.TIME_LIMIT, details=run.details, sense=spec.sense)
    except NotApplicable as e:
        d = {"error": str(e), "not_applicable": True}
        if isinstance(e, ResourceLimit):
            d["refused"] = e.what
        return Result(problem, name, Status.NOT_APPLICABLE, details={**run.details, **d}, sense=spec.sense)
    except KeyboardInterrupt:
        if not deadline.interrupted():  # Ctrl-C with Python's own handler: a stop request too
            interrupt.request()
        if run.best is None:
            raise
        run.details["interrupted"] = True
        run.details["reproducible"] = False
        res = run.result(solution=run.best)
    if deadline.interrupted():  # stopped early by Ctrl-C or SIGTERM (its best kept)
        res.details["interrupted"] = True
        res.details["interrupted_by"] = interrupt.signal_name()
        res.details["reproducible"] = False
    res.problem, res.method, res.sense = problem, name, spec.sense
    res.details.setdefault("reproducible", run.details.get("reproducible", True))
    record_renamed(res, run.details)
    res.runtime_s = res.runtime_s or deadline.elapsed()
    return res


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0].strip() if lines else ""
