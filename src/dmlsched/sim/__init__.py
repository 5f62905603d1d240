"""The discrete-event engine shared by online policies (HLAS, moldable, ...).

Generic: nothing here knows about jobs' rounds, GPUs or a particular policy.

API
---
``EventQueue``
    ``push(time, kind, payload=None, priority=0) -> handle``, ``cancel(handle)``,
    ``pop() -> (time, kind, payload, priority)``, ``peek_time()``, ``len()``.
    Order: ``(time, priority, seq)`` where ``seq`` is the push counter, so ties
    are broken deterministically (lower ``priority`` first, then first pushed).
    Cancellation is lazy (the entry is marked dead), O(1).
``Simulation``
    The clock ``now`` plus a queue: ``at(time, kind, payload, priority)``,
    ``after(delay, ...)``, ``cancel(handle)``, ``stop()`` and
    ``run(policy, until=inf, max_events=None)``.  The run loop, for each
    distinct event time ``t`` in increasing order, sets ``now = t``, calls
    ``policy.handle(sim, kind, payload)`` for every event at ``t`` and then
    ``policy.decide(sim)`` once, so a policy decides having seen every arrival
    and completion of the instant.  Counters ``events`` and ``decisions``.
``Policy`` (a ``typing.Protocol``)
    ``start(sim)``, ``handle(sim, kind, payload)``, ``decide(sim)``.
    ``kind`` is whatever the policy pushed (small ints are fastest).
``Recorder``
    Per-job ``arrival``/``weight``; ``start(job, t)`` (first service),
    ``finish(job, t)``, ``busy(resource, dt)``, ``note(job, key, value)``;
    ``records()`` -> :class:`JobRecord` list, ``metrics()`` -> dict with
    ``avg_jct``, ``total_jct``, ``total_weighted_jct``, ``max_jct``,
    ``makespan``, ``utilisation``, ``finished``, ``unfinished``.

Instants are exact: two events belong to the same instant only if their
times are equal floats (compute times the same way, or round them, when
events must coincide).

Determinism: the engine has no randomness and no dependence on hashing or
wall-clock; the same pushes give the same run.  A policy that needs random
numbers must take a seed and own a ``random.Random(seed)``.

Example
-------
>>> class Countdown:
...     def __init__(self): self.log = []
...     def start(self, sim): sim.at(0.0, "tick", 3)
...     def handle(self, sim, kind, n):
...         self.log.append((sim.now, n))
...         if n > 0: sim.after(1.5, "tick", n - 1)
...     def decide(self, sim): pass
>>> p = Countdown(); sim = Simulation().run(p)
>>> p.log
[(0.0, 3), (1.5, 2), (3.0, 1), (4.5, 0)]
"""

from .engine import CANCELLED, EventQueue, Policy, Simulation, gc_paused
from .recorder import JobRecord, Recorder

__all__ = ["CANCELLED", "EventQueue", "JobRecord", "Policy", "Recorder", "Simulation", "gc_paused"]
