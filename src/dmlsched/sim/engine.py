"""Event queue, clock and run loop of the discrete-event engine.

Design for speed: the queue is a ``heapq`` of small lists
``[time, priority, seq, kind, payload]``; nothing else is allocated per
event.  Cancelling an event marks its entry dead (lazy deletion); dead entries
are dropped when they reach the top of the heap, and the heap is compacted
(rebuilt from its live entries) once the dead outnumber the live ones by
:data:`COMPACT_FACTOR`, so a policy that cancels most of what it pushes (a
malleable policy re-planning every completion) keeps a heap of its live size.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import math
from typing import Any, Iterator, Protocol, runtime_checkable

__all__ = ["EventQueue", "Simulation", "Policy", "CANCELLED", "gc_paused"]

#: ``kind`` of an entry that was cancelled
CANCELLED: Any = object()
#: the heap is rebuilt from its live entries when dead entries exceed this many times the live
#: ones (plus a constant); the order of events does not change (it is a total order)
COMPACT_FACTOR = 2

_push = heapq.heappush
_pop = heapq.heappop


class EventQueue:
    """A priority queue of events ordered by ``(time, priority, seq)``.

    ``seq`` is a counter incremented on every push, so two events with the
    same time and priority come out in the order they were pushed: the order
    of events is a deterministic function of the pushes alone.

    Examples
    --------
    >>> q = EventQueue()
    >>> a = q.push(2.0, "b")
    >>> _ = q.push(1.0, "a")
    >>> _ = q.push(2.0, "c", priority=-1)   # lower priority value first at equal times
    >>> q.cancel(a)
    True
    >>> [q.pop()[1] for _ in range(len(q))]
    ['a', 'c']
    """

    __slots__ = ("_heap", "_seq", "_live", "_dead")

    def __init__(self) -> None:
        self._heap: list[list[Any]] = []
        self._seq = 0
        self._live = 0
        self._dead = 0  # cancelled entries still in the heap

    def push(self, time: float, kind: Any, payload: Any = None, priority: int = 0) -> list[Any]:
        """Add an event; returns its handle (for :meth:`cancel`)."""
        entry = [time, priority, self._seq, kind, payload]
        self._seq += 1
        self._live += 1
        _push(self._heap, entry)
        return entry

    def cancel(self, handle: list[Any]) -> bool:
        """Cancel an event; returns whether it was still pending."""
        if handle[3] is CANCELLED:
            return False
        handle[3] = CANCELLED
        handle[4] = None
        self._live -= 1
        self._dead += 1
        if self._dead > COMPACT_FACTOR * self._live + 1024:
            self.compact()
        return True

    def compact(self) -> None:
        """Rebuild the heap from its live entries, in place (the list object is kept)."""
        heap = self._heap
        heap[:] = [e for e in heap if e[3] is not CANCELLED]
        heapq.heapify(heap)
        self._dead = 0

    def _drop_dead(self) -> None:
        heap = self._heap
        while heap and heap[0][3] is CANCELLED:
            _pop(heap)
            self._dead -= 1

    def peek_time(self) -> float:
        """Time of the next live event (``math.inf`` when empty)."""
        self._drop_dead()
        return self._heap[0][0] if self._heap else math.inf

    def pop(self) -> tuple[float, Any, Any, int]:
        """Remove and return the next live event as ``(time, kind, payload, priority)``.

        Raises ``IndexError`` when no live event is left.
        """
        heap = self._heap
        while True:
            e = _pop(heap)
            if e[3] is not CANCELLED:
                self._live -= 1
                e[3], kind = CANCELLED, e[3]  # a popped event can no longer be cancelled
                return e[0], kind, e[4], e[1]
            self._dead -= 1

    def __len__(self) -> int:
        """Number of live (not cancelled, not yet popped) events."""
        return self._live

    def __bool__(self) -> bool:
        return self._live > 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector within the block (restored after).

    A simulation allocates millions of small objects that stay alive (schedule
    entries, event tuples) and makes no reference cycles; the collector's
    passes over them cost 20-40% of a large run (``benchmarks/hlas_perf.py``,
    ``benchmarks/moldable_perf.py``).  Reference counting still frees
    everything that is not in a cycle.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@runtime_checkable
class Policy(Protocol):
    """What :meth:`Simulation.run` drives.

    The engine calls ``start`` once, then, for every distinct event time ``t``
    in increasing order: ``handle`` for each event at ``t`` (in
    ``(priority, seq)`` order), then ``decide`` once.  ``decide`` is where an
    online policy makes its decisions, having seen every event of the instant
    (all arrivals and completions at ``t``).  Events that ``handle`` or
    ``decide`` push at the current time are processed in the same instant,
    followed by another ``decide``.
    """

    def start(self, sim: "Simulation") -> None:  # pragma: no cover - protocol
        ...

    def handle(self, sim: "Simulation", kind: Any, payload: Any) -> None:  # pragma: no cover
        ...

    def decide(self, sim: "Simulation") -> None:  # pragma: no cover - protocol
        ...


class Simulation:
    """A clock, an :class:`EventQueue` and the run loop.

    Attributes
    ----------
    now
        Current simulated time (starts at 0, never decreases).
    queue
        The event queue (use :meth:`at` / :meth:`after` / :meth:`cancel`).
    events
        Number of events handled so far.
    decisions
        Number of ``decide`` calls so far.
    """

    __slots__ = ("now", "queue", "events", "decisions", "_stopped")

    def __init__(self, start_time: float = 0.0) -> None:
        self.now = float(start_time)
        self.queue = EventQueue()
        self.events = 0
        self.decisions = 0
        self._stopped = False

    def at(self, time: float, kind: Any, payload: Any = None, priority: int = 0) -> list[Any]:
        """Schedule an event at absolute ``time`` (``>= now``); returns its handle."""
        if not time >= self.now:  # also rejects NaN
            raise ValueError(f"cannot schedule an event at {time} before now={self.now}")
        q = self.queue  # EventQueue.push inlined: this is the hot path of every simulator
        entry = [time, priority, q._seq, kind, payload]
        q._seq += 1
        q._live += 1
        _push(q._heap, entry)
        return entry

    def after(self, delay: float, kind: Any, payload: Any = None, priority: int = 0) -> list[Any]:
        """Schedule an event ``delay >= 0`` after now."""
        return self.at(self.now + delay, kind, payload, priority)

    def cancel(self, handle: list[Any]) -> bool:
        """Cancel a scheduled event; returns whether it was still pending."""
        return self.queue.cancel(handle)

    def stop(self) -> None:
        """Ask :meth:`run` to return after the current instant."""
        self._stopped = True

    def run(
        self,
        policy: Policy,
        *,
        until: float = math.inf,
        max_events: int | None = None,
    ) -> "Simulation":
        """Drive ``policy`` until no event is left (or ``until`` / ``max_events``).

        Parameters
        ----------
        policy
            Any object with ``start``, ``handle`` and ``decide`` (:class:`Policy`).
        until
            Events later than ``until`` are left in the queue and the clock
            stops at the last handled instant.
        max_events
            Safety valve: raise ``RuntimeError`` when more events are handled
            (catches policies that loop forever).
        """
        handle = policy.handle
        decide = policy.decide
        cap = math.inf if max_events is None else max_events
        with gc_paused():
            self._loop(policy, handle, decide, until, cap, max_events)
        return self

    def _loop(self, policy: Policy, handle: Any, decide: Any, until: float, cap: float,
              max_events: int | None) -> None:
        q = self.queue
        heap = q._heap
        pop = _pop
        policy.start(self)
        self._stopped = False
        while q._live and not self._stopped:
            while heap[0][3] is CANCELLED:
                pop(heap)
                q._dead -= 1
            t = heap[0][0]
            if t > until:
                break
            self.now = t
            # every event of this instant, then one decision
            while heap and heap[0][0] == t:
                e = pop(heap)
                kind = e[3]
                if kind is CANCELLED:
                    q._dead -= 1
                    continue
                q._live -= 1
                e[3] = CANCELLED
                self.events += 1
                handle(self, kind, e[4])
            if self.events > cap:
                raise RuntimeError(f"more than {max_events} events: policy does not terminate?")
            self.decisions += 1
            decide(self)
