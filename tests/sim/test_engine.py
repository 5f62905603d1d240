"""The discrete-event engine: ordering, tie-breaking, cancellation, run loop, recorder."""

from __future__ import annotations

import doctest
import gc
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched.sim as sim_pkg
from dmlsched.sim import EventQueue, Policy, Recorder, Simulation
from dmlsched.sim import engine as engine_mod
from dmlsched.sim import recorder as recorder_mod


def test_doctests():
    for mod in (sim_pkg, engine_mod, recorder_mod):
        res = doctest.testmod(mod)
        assert res.failed == 0 and res.attempted > 0, mod.__name__


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-2, 2), st.booleans()), min_size=1, max_size=40))
def test_queue_order_is_time_priority_seq_and_cancel_removes(items):
    q = EventQueue()
    handles = []
    for i, (t, p, _) in enumerate(items):
        handles.append(q.push(float(t), "k", i, priority=p))
    for h, (_, _, c) in zip(handles, items):
        if c:
            assert q.cancel(h)
            assert not q.cancel(h)  # second cancel is a no-op
    live = [(t, p, i) for i, (t, p, c) in enumerate(items) if not c]
    assert len(q) == len(live)
    got = []
    while q:
        t, kind, payload, p = q.pop()
        got.append((t, p, payload))
    assert got == sorted(live)
    assert q.peek_time() == math.inf


def test_cancel_after_pop_is_noop():
    q = EventQueue()
    h = q.push(1.0, "a")
    q.pop()
    assert not q.cancel(h)
    assert len(q) == 0


class _Log:
    """Records the sequence of engine callbacks."""

    def __init__(self, script):
        self.script = script
        self.calls = []

    def start(self, sim):
        for t, kind, prio in self.script:
            sim.at(t, kind, None, prio)

    def handle(self, sim, kind, payload):
        self.calls.append(("handle", sim.now, kind))
        if kind == "spawn":  # an event at the current instant is handled in the same instant
            sim.at(sim.now, "child", None, -5)

    def decide(self, sim):
        self.calls.append(("decide", sim.now))


def test_run_loop_one_decide_per_instant_after_all_events():
    p = _Log([(1.0, "b", 1), (1.0, "a", 0), (0.5, "x", 0), (2.0, "spawn", 0)])
    assert isinstance(p, Policy)
    s = Simulation().run(p)
    assert p.calls == [
        ("handle", 0.5, "x"), ("decide", 0.5),
        ("handle", 1.0, "a"), ("handle", 1.0, "b"), ("decide", 1.0),
        ("handle", 2.0, "spawn"), ("handle", 2.0, "child"), ("decide", 2.0),
    ]
    assert s.events == 5 and s.decisions == 3 and s.now == 2.0


def test_until_and_past_events_and_cancel():
    class P:
        def start(self, sim):
            self.h = sim.at(3.0, "late")
            sim.at(1.0, "early")
            self.seen = []

        def handle(self, sim, kind, payload):
            self.seen.append(kind)
            with pytest.raises(ValueError):
                sim.at(sim.now - 1.0, "past")

        def decide(self, sim):
            pass

    p = P()
    s = Simulation().run(p, until=2.0)
    assert p.seen == ["early"] and s.now == 1.0 and len(s.queue) == 1
    s2 = Simulation()
    s2.run(type("Q", (P,), {"decide": lambda self, sim: sim.cancel(self.h)})())
    assert s2.events == 1  # the cancelled late event never fires


def test_max_events_guard():
    class Forever:
        def start(self, sim):
            sim.at(0.0, "t")

        def handle(self, sim, kind, payload):
            sim.after(1.0, "t")

        def decide(self, sim):
            pass

    with pytest.raises(RuntimeError):
        Simulation().run(Forever(), max_events=100)


def _mm1(seed: int, n: int = 300):
    """A FIFO single-server queue: a generic policy, checked against Lindley's recursion."""
    rng = random.Random(seed)
    arr, svc, t = [], [], 0.0
    for _ in range(n):
        t += rng.expovariate(1.0)
        arr.append(t)
        svc.append(rng.expovariate(1.2))

    class FifoServer:
        def start(self, sim):
            self.rec = Recorder(arr, num_resources=1)
            self.waiting, self.busy = [], False
            for j, a in enumerate(arr):
                sim.at(a, 0, j)

        def handle(self, sim, kind, j):
            if kind == 0:
                self.waiting.append(j)
            else:
                self.rec.finish(j, sim.now)
                self.busy = False

        def decide(self, sim):
            if not self.busy and self.waiting:
                j = self.waiting.pop(0)
                self.busy = True
                self.rec.start(j, sim.now)
                self.rec.busy(0, svc[j])
                sim.after(svc[j], 1, j)

    p = FifoServer()
    Simulation().run(p)
    lindley, free = [], 0.0
    for a, s in zip(arr, svc):
        free = max(free, a) + s
        lindley.append(free)
    return p.rec, lindley


def test_generic_policy_matches_lindley_and_is_deterministic():
    rec, lindley = _mm1(7)
    assert rec.finish_time == pytest.approx(lindley)
    rec2, _ = _mm1(7)
    assert rec2.finish_time == rec.finish_time
    m = rec.metrics()
    assert m["finished"] == 300 and m["unfinished"] == 0
    assert m["makespan"] == pytest.approx(lindley[-1])
    assert 0 < m["utilisation"] <= 1
    assert m["avg_jct"] == pytest.approx(sum(c - a for c, a in zip(lindley, rec.arrival)) / 300)


def test_recorder_records_and_weights():
    r = Recorder([0.0, 2.0], [2.0, 1.0], num_resources=2)
    r.start(0, 1.0)
    r.start(0, 5.0)  # only the first start counts
    r.finish(0, 4.0)
    r.note(0, "rounds", 3)
    r.busy(1, 3.0)
    assert r.unfinished() == [1]
    rec = r.records()
    assert rec[0].start == 1.0 and rec[0].jct == 4.0 and rec[0].extra == {"rounds": 3}
    assert rec[1].jct is None
    m = r.metrics()
    assert m["total_weighted_jct"] == 8.0 and m["unfinished"] == 1
    assert m["utilisation"] == pytest.approx(3.0 / (2 * 4.0))
    assert rec[0].to_json("A")["job"] == "A"
    with pytest.raises(ValueError):
        Recorder([0.0], [1.0, 2.0])


def test_cancelled_entries_are_compacted_and_order_is_kept():
    """A policy that cancels almost everything it pushes (a malleable policy re-planning each
    completion) keeps a heap of about its live size, and events come out in the same order."""
    rng = random.Random(3)
    q = EventQueue()
    live = {}
    for i in range(20_000):
        h = q.push(rng.random() * 100, "k", i, priority=rng.randint(0, 2))
        live[i] = h
        if len(live) > 50:  # cancel a random live event: most pushes end up cancelled
            j = rng.choice(list(live))
            assert q.cancel(live.pop(j))
        assert len(q._heap) <= (engine_mod.COMPACT_FACTOR + 1) * len(q) + 1025
    expect = sorted((h[0], h[1], h[2], h[4]) for h in live.values())
    got = []
    while q:
        t, _, payload, p = q.pop()
        got.append((t, p, payload))
    assert got == [(t, p, x) for t, p, _, x in expect]
    assert q._dead == len(q._heap)  # what is left is dead, and counted


def test_the_run_pauses_the_cyclic_gc_and_restores_it():
    seen = []

    class P:
        def start(self, sim):
            sim.at(0.0, "x")

        def handle(self, sim, kind, payload):
            seen.append(gc.isenabled())

        def decide(self, sim):
            pass

    assert gc.isenabled()
    Simulation().run(P())
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        Simulation().run(P())
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
