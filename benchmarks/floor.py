"""The floor of plain Python for a discrete-event simulation: a bare ``heapq`` event loop.

The goals of issue 23 are ratios: a simulator's time over the time this loop takes for
the same number of events (or the same heap traffic), measured in the same process run,
so that the ratio does not depend on how loaded the shared machine is.

The loop is what any event-driven simulator in Python must do at the least: per event
one ``heappop`` of a ``(time, seq, payload)`` tuple and one call of a handler, which
pushes the next event.  It starts with ``pending`` events queued (a simulator queues
every arrival at the start), pushes follow-ups until ``events`` events were pushed in
all, and pops every one of them.  Nothing else: no decision, no state, no output.

Usage from a benchmark (the floor is measured before and after the measured run and
the mean is taken; see :func:`ratio`)::

    from floor import event_loop
    f = event_loop(events=2_356_885, pending=10_000)
"""

from __future__ import annotations

import heapq
import os
import random
import time


def event_loop(events: int, pending: int = 1, seed: int = 0) -> float:
    """Seconds a bare heapq event loop takes for ``events`` events (``pending`` queued at the start)."""
    events = max(int(events), 1)
    pending = max(1, min(int(pending), events))
    rng = random.Random(seed)
    delays = [rng.random() for _ in range(4096)]
    heap = [(delays[i & 4095] * pending, i, i) for i in range(pending)]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    state = [pending]  # events pushed so far

    def handle(t: float, x: int) -> None:
        s = state[0]
        if s < events:
            push(heap, (t + delays[s & 4095], s, x))
            state[0] = s + 1

    t0 = time.perf_counter()
    while heap:
        t, _, x = pop(heap)
        handle(t, x)
    dt = time.perf_counter() - t0
    assert state[0] == events
    return dt


def load() -> float:
    """The 1-minute load average (recorded beside every time)."""
    return os.getloadavg()[0]


def ratio(measure, events: int, pending: int = 1) -> tuple[float, float, float]:
    """Run ``measure()`` (returns its seconds) between two floor measurements.

    Returns ``(seconds, floor_seconds, ratio)`` with the floor the mean of the two.
    """
    f0 = event_loop(events, pending)
    s = measure()
    f1 = event_loop(events, pending)
    f = (f0 + f1) / 2
    return s, f, s / f
