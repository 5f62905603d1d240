"""The run budget of a method: :class:`Deadline`, a point in time by which it
must return (a stop request expires it at once).

Below :mod:`dmlsched.kit`, which starts one per method call and re-exports it.
"""

from __future__ import annotations

import time

from . import interrupt


class Deadline:
    """A point in time by which a method must return.

    ``Deadline(None)`` never expires by itself.  Times are monotonic seconds.
    A stop request (Ctrl-C, ``SIGTERM``: :mod:`dmlsched.interrupt`) after the
    deadline was made expires it at once.
    """

    __slots__ = ("limit", "start", "at", "gen")

    def __init__(self, limit: float | None, start: float | None = None):
        self.start = time.monotonic() if start is None else start
        self.limit = None if limit is None else float(limit)
        self.at = None if limit is None else self.start + float(limit)
        self.gen = interrupt.generation()

    def interrupted(self) -> bool:
        """Whether a stop request came since the deadline was made."""
        return interrupt.since(self.gen)

    def remaining(self) -> float | None:
        """Seconds left (never negative), ``None`` without a deadline."""
        if interrupt.since(self.gen):
            return 0.0
        if self.at is None:
            return None
        return max(0.0, self.at - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def expired(self) -> bool:
        return interrupt.since(self.gen) or (self.at is not None and time.monotonic() >= self.at)

    def share(self, fraction: float) -> "Deadline":
        """A deadline ``fraction`` of the remaining time from now (itself without one)."""
        rem = self.remaining()
        if rem is None:
            return Deadline(None)
        return Deadline(rem * fraction)

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        rem = self.remaining()
        return "Deadline(none)" if rem is None else f"Deadline({rem:.3f} s left)"
