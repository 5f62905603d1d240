"""The run budget of a method: :class:`Budget`, what an algorithm may spend --
wall seconds to a deadline (a stop request ends it at once) and, optionally,
deterministic work.

The idea is PyVRP's stopping criterion: inner loops ask ``budget.stop()`` (or
call the budget itself) at their check points.  A budget is shared with a
sub-computation by :meth:`Budget.share` (a fraction of what is left) or
:meth:`Budget.less` (what is left minus a reserve); work spent by a child is
charged to every ancestor, and a cut recorded on a child reaches the run that
owns the root (:meth:`Budget.cut`).

``Deadline`` is the former name, kept as an alias (``expired()`` is
``stop()``); with no work set the two behave identically.

Below :mod:`dmlsched.kit`, which starts one per method call and re-exports it.
"""

from __future__ import annotations

import time
from typing import Callable

from . import interrupt


class Budget:
    """What an algorithm may spend: wall seconds to a deadline, and optionally work.

    Parameters
    ----------
    seconds
        Wall seconds from ``start`` to the deadline; ``None``: no deadline.
    work
        Deterministic work units the algorithm may spend (CP-SAT deterministic
        seconds, Gurobi work units, ...); ``None``: no work limit.
    start
        Monotonic time the deadline counts from (default: now).
    on_cut
        Called with ``what`` by :meth:`cut` (a :class:`~dmlsched.kit.Run`
        records it as a wall-clock cut).

    Attributes
    ----------
    limit, start, at
        The seconds, the start and the monotonic time of the deadline
        (``limit`` and ``at`` are ``None`` without one).
    work, spent
        The work allowance (``None``: unlimited) and the work spent so far.

    Notes
    -----
    A stop request (Ctrl-C, ``SIGTERM``: :mod:`dmlsched.interrupt`) made after
    the budget ends it at once: :meth:`remaining` is 0 and :meth:`stop` true.
    """

    __slots__ = ("limit", "start", "at", "gen", "work", "spent", "parent", "on_cut")

    def __init__(self, seconds: float | None = None, start: float | None = None, *, work: float | None = None,
                 on_cut: Callable[[str], None] | None = None, parent: Budget | None = None):
        self.start = time.monotonic() if start is None else start
        self.limit = None if seconds is None else float(seconds)
        self.at = None if seconds is None else self.start + float(seconds)
        self.gen = interrupt.generation()
        if work is not None and not work >= 0:
            raise ValueError(f"work must be a non-negative number of units or None, got {work!r}")
        self.work = None if work is None else float(work)
        self.spent = 0.0
        self.parent = parent
        self.on_cut = on_cut

    # -- wall clock -------------------------------------------------------------
    def interrupted(self) -> bool:
        """Whether a stop request came since the budget was made."""
        return interrupt.since(self.gen)

    def remaining(self) -> float | None:
        """Seconds left (never negative), ``None`` without a deadline."""
        if interrupt.since(self.gen):
            return 0.0
        if self.at is None:
            return None
        return max(0.0, self.at - time.monotonic())

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.start

    # -- deterministic work -------------------------------------------------------
    def work_left(self) -> float | None:
        """Work units left (never negative), ``None`` without a work limit."""
        if self.work is None:
            return None
        return max(0.0, self.work - self.spent)

    def spend(self, units: float) -> None:
        """Charge ``units`` of work here and to every ancestor."""
        b: Budget | None = self
        while b is not None:
            b.spent += float(units)
            b = b.parent

    # -- the stopping criterion ---------------------------------------------------
    def stop(self) -> bool:
        """Whether to stop: a stop request came, the deadline passed, or the work is spent."""
        return (interrupt.since(self.gen) or (self.at is not None and time.monotonic() >= self.at)
                or (self.work is not None and self.spent >= self.work))

    __call__ = stop
    expired = stop  # the name of Deadline

    # -- sharing ------------------------------------------------------------------
    def share(self, fraction: float, *, work: float | None = None) -> Budget:
        """A child budget with ``fraction`` of the remaining time from now (none
        without a deadline here) and ``work`` units (default: ``fraction`` of
        :meth:`work_left`, none without a work limit); its work is charged here
        and its cuts forwarded here."""
        rem = self.remaining()
        if work is None:
            left = self.work_left()
            work = None if left is None else left * fraction
        return Budget(None if rem is None else rem * fraction, work=work, on_cut=self.cut, parent=self)

    def less(self, seconds: float) -> Budget:
        """A child budget with the remaining time minus a reserve of ``seconds``
        (a reserve larger than what is left gives a deadline already passed;
        none without a deadline here) and all the work left; linked as by
        :meth:`share`."""
        rem = self.remaining()
        return Budget(None if rem is None else rem - seconds, work=self.work_left(), on_cut=self.cut, parent=self)

    # -- bookkeeping --------------------------------------------------------------
    def cut(self, what: str) -> None:
        """Record that the wall clock cut ``what``: passed to ``on_cut`` (a child
        passes it to its parent; a root without ``on_cut`` drops it)."""
        if self.on_cut is not None:
            self.on_cut(what)

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        rem = self.remaining()
        wall = "no deadline" if rem is None else f"{rem:.3f} s left"
        left = self.work_left()
        return f"Budget({wall})" if left is None else f"Budget({wall}, {left:g} work left)"


#: the former name (kept for one release; the library's own code says :class:`Budget`)
Deadline = Budget

__all__ = ["Budget", "Deadline"]
