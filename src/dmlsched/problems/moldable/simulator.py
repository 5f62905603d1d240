"""Discrete-event simulation of the moldable/malleable policies on
:class:`dmlsched.sim.Simulation` (Section V-B of the paper).

Events are task arrivals and completions.  At every instant, after all its
events, the policy's allocation rule (:mod:`.policies`) runs once:

* *moldable* setting: ``Q`` = queued tasks; running tasks keep their
  allocation (they are "pinned");
* *malleable* setting: ``Q`` = queued, suspended and running tasks, except
  running tasks whose remaining volume is ``<= preemption_min_remaining``
  (those are pinned).  A running task of ``Q`` that gets the identical
  allocation again just continues; any other outcome is a preemption
  (shrink, expand, migrate, suspend); a task that (re)starts after a
  preemption first pays ``preemption_overhead`` seconds without progress.

GPU choice ("first-found GPU", Section IV-A): with ``current_first=False``
(the paper's rule, default) a re-allocated task gets the lowest-index GPUs that
fit, like a queued one; with ``current_first=True`` the rule searches the
task's current GPUs first (so an unchanged amount stays on its GPUs).  The two
readings give different schedules whenever a lower-index GPU is free
(``models/moldable.md``).

The recorded segments are exactly what :func:`.solution.validate` checks and
:func:`.solution.evaluate` replays; nothing the simulator computes is trusted.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...sim import Simulation, gc_paused
from . import incremental
from .instance import MoldableInstance
from .policies import RULES, Alloc, Cluster, equipartition
from .solution import MoldableSchedule

ARRIVAL, COMPLETION, WAKE = 0, 1, 2
QUEUED, RUNNING, DONE = 1, 2, 3


@dataclass
class SimStats:
    """Counters of one simulation."""

    events: int = 0
    decisions: int = 0
    preemptions: int = 0
    wall_s: float = 0.0
    extra: dict = field(default_factory=dict)


class MoldableSimulator:
    """The engine's :class:`~dmlsched.sim.Policy` driving one allocation rule."""

    def __init__(self, inst: MoldableInstance, rule: Callable, malleable: bool, current_first: bool = False):
        self.inst = inst
        self.rule = rule
        self.malleable = malleable
        self.current_first = current_first
        n = inst.num_tasks
        self.status = [0] * n
        self.alloc: list[Alloc | None] = [None] * n
        self.anchor = [0.0] * n  # time of the last state update
        self.vrem = [float(v) for v in inst.volume]
        self.debt = [0.0] * n
        self.speed = [0.0] * n
        self.seg_start = [0.0] * n
        self.finish = [0.0] * n  # scheduled completion of a running task
        self.hnd: list = [None] * n
        self.segments: list[list] = [[] for _ in range(n)]  # [start, end, gpus, den]
        self.active: dict[int, None] = {}  # arrival order
        self.queued: dict[int, None] = {}  # moldable setting: arrived, not started (arrival order)
        self.running: dict[int, None] = {}
        self.cluster = Cluster.empty(inst.gpus, inst.gpu_memory)
        self.preemptions = 0
        self._speed_cache: dict[float, float] = {}
        self.tp = float(inst.preemption_overhead)
        self.thr = float(inst.preemption_min_remaining)
        self.mem = [float(m) for m in inst.memory]
        # malleable setting: completions wait in the policy's own heap of (time, seq, task,
        # version), invalidated lazily (an entry counts while its version is the task's); the
        # engine holds one WAKE event at the earliest valid completion
        self._done: list[tuple[float, int, int, int]] = []
        self._dseq = 0
        self._ver = [0] * n
        self._wake: list | None = None
        self._wake_t = -math.inf

    # -- engine protocol ---------------------------------------------------
    def start(self, sim: Simulation) -> None:
        for k in self.inst.arrival_order:
            sim.at(float(self.inst.arrival[k]), ARRIVAL, int(k))

    def handle(self, sim: Simulation, kind: int, k: int) -> None:
        if kind == ARRIVAL:
            self.status[k] = QUEUED
            self.active[k] = None
            if not self.malleable:
                self.queued[k] = None
        elif kind == COMPLETION:
            self._complete(k, sim.now)
        else:  # WAKE: every valid completion due now, in the order they were scheduled
            t = sim.now
            done, ver = self._done, self._ver
            n = 0
            while done:
                f, _, k, v = done[0]
                if v != ver[k]:
                    heapq.heappop(done)
                    continue
                if f != t:
                    break
                heapq.heappop(done)
                self._complete(k, t)
                n += 1
            sim.events += n - 1  # each completion counts as one event, as when it had its own
            self._wake = None
            self._wake_t = -math.inf

    def _complete(self, k: int, t: float) -> None:
        self._stop(k, t)
        self.vrem[k] = 0.0
        self.status[k] = DONE
        self.hnd[k] = None
        self._ver[k] += 1
        del self.active[k]

    def _rewake(self, sim: Simulation) -> None:
        """Keep the engine's WAKE event at the earliest valid completion (malleable setting)."""
        done, ver = self._done, self._ver
        while done and done[0][3] != ver[done[0][2]]:
            heapq.heappop(done)
        if len(done) > 2 * len(self.running) + 1024:  # mostly stale: rebuild from the valid entries
            done[:] = [e for e in done if e[3] == ver[e[2]]]
            heapq.heapify(done)
        f = done[0][0] if done else None
        if f == self._wake_t:
            return
        if self._wake is not None:
            sim.cancel(self._wake)
            self._wake = None
            self._wake_t = -math.inf
        if f is not None:
            self._wake = sim.at(f, WAKE, 0, -1)
            self._wake_t = f

    def decide(self, sim: Simulation) -> None:
        t = sim.now
        if self.malleable:
            self._decide_malleable(sim, t)
            self._rewake(sim)
        else:
            if not self.queued or (self.cluster.avl.max() <= 1e-9):
                return
            queue = list(self.queued)
            snap = self.cluster.copy()
            snap.now = t
            snap.ends = [(self.finish[k], len(self.alloc[k][1])) for k in self.running]
            out = self.rule(self.inst, snap, queue, self.vrem, None)
            for k, a in out.items():
                self._start(sim, k, a, t)

    # -- state updates -----------------------------------------------------
    def _progress(self, k: int, t: float) -> None:
        """Bring task ``k``'s remaining volume and debt up to time ``t``."""
        if self.status[k] == RUNNING:
            el = t - self.anchor[k]
            if el > 0:
                pay = min(self.debt[k], el)
                self.debt[k] -= pay
                self.vrem[k] -= (el - pay) * self.speed[k]
        self.anchor[k] = t

    def _stop(self, k: int, t: float) -> None:
        """Close the running segment of ``k`` at ``t`` and free its resources."""
        a = self.alloc[k]
        if a is None:
            return
        self._progress(k, t)
        segs = self.segments[k]
        if t > self.seg_start[k]:
            segs.append([self.seg_start[k], t, a[1], a[0]])
        elif segs and self.preempt_charged[k]:
            # zero-length segment: undo its overhead charge
            self.debt[k] -= self.tp
            self.preemptions -= 1
        if not self.malleable:
            self.cluster.release(a, self.mem[k])
        self.alloc[k] = None
        self.status[k] = QUEUED
        self.running.pop(k, None)

    def _start(self, sim: Simulation, k: int, a: Alloc, t: float) -> None:
        """Open a segment of ``k`` with allocation ``a`` at ``t``."""
        segs = self.segments[k]
        self.anchor[k] = t
        self.preempt_charged[k] = False
        if segs:
            last = segs[-1]
            if last[1] == t and last[2] == a[1] and last[3] == a[0]:
                # continuation with the identical allocation: merge
                segs.pop()
                self.seg_start[k] = last[0]
            else:
                self.debt[k] += self.tp
                self.preemptions += 1
                self.preempt_charged[k] = True
                self.seg_start[k] = t
        else:
            self.seg_start[k] = t
        self.alloc[k] = a
        self.status[k] = RUNNING
        self.running[k] = None
        p = float(len(a[1])) if a[0] == 1 else 1.0 / a[0]
        s = self._speed_cache.get(p)
        if s is None:
            s = self._speed_cache[p] = self.inst.speedup.speed(p)
        self.speed[k] = s
        if not self.malleable:
            self.cluster.take(a, self.mem[k])
            self.queued.pop(k, None)
        if self.hnd[k] is not None:
            sim.cancel(self.hnd[k])
        self.finish[k] = t + self.debt[k] + max(self.vrem[k], 0.0) / s
        self.hnd[k] = sim.at(self.finish[k], COMPLETION, k, -1)

    def _decide_malleable(self, sim: Simulation, t: float) -> None:
        """Re-partition at ``t``: every running task is brought up to date (:meth:`_progress`);
        those with at most ``preemption_min_remaining`` left keep their allocation (pinned), the
        rest and the waiting tasks go to the rule; a task whose allocation changes is stopped
        (:meth:`_stop`) and restarted (:meth:`_start`) with the new one.  The bodies of those
        methods are inlined here (same operations, same order): this is the simulator's hot path."""
        inst = self.inst
        base = Cluster.empty(inst.gpus, inst.gpu_memory)
        current: dict[int, Alloc | None] = {}
        pinned = set()
        thr = self.thr
        vrem, debt, anchor, speed, alloc, mem = self.vrem, self.debt, self.anchor, self.speed, self.alloc, self.mem
        for k in self.running:
            el = t - anchor[k]
            if el > 0:
                pay = min(debt[k], el)
                debt[k] -= pay
                vrem[k] -= (el - pay) * speed[k]
            anchor[k] = t
            if vrem[k] <= thr:
                base.take(alloc[k], mem[k])
                pinned.add(k)
            else:
                current[k] = alloc[k]
        queue = [k for k in self.active if k not in pinned] if pinned else list(self.active)
        if not queue:
            return
        base.now = t
        out = self.rule(inst, base, queue, vrem, current if self.current_first else None)
        segments, seg_start, charged, status, running = (self.segments, self.seg_start, self.preempt_charged,
                                                         self.status, self.running)
        finish, ver, done = self.finish, self._ver, self._done
        tp = self.tp
        push = heapq.heappush
        dseq = self._dseq
        uncharged = 0
        for k in current:  # running tasks that lose or change their allocation
            new = out.get(k)
            a = alloc[k]
            if new != a:
                # _stop(k, t) (its _progress is a no-op: k was brought to t above)
                segs = segments[k]
                if t > seg_start[k]:
                    segs.append([seg_start[k], t, a[1], a[0]])
                elif segs and charged[k]:
                    # zero-length segment: undo its overhead charge
                    debt[k] -= tp
                    uncharged += 1
                alloc[k] = None
                status[k] = QUEUED
                del running[k]
                if new is None:  # suspended: its completion is void
                    ver[k] += 1
        self.preemptions -= uncharged
        cache = self._speed_cache
        sp_of = inst.speedup.speed
        started = 0
        for k, new in out.items():
            if alloc[k] is not None:
                continue
            # _start(sim, k, new, t)
            segs = segments[k]
            anchor[k] = t
            charged[k] = False
            if segs:
                last = segs[-1]
                if last[1] == t and last[2] == new[1] and last[3] == new[0]:
                    # continuation with the identical allocation: merge
                    segs.pop()
                    seg_start[k] = last[0]
                else:
                    debt[k] += tp
                    started += 1
                    charged[k] = True
                    seg_start[k] = t
            else:
                seg_start[k] = t
            alloc[k] = new
            status[k] = RUNNING
            running[k] = None
            den = new[0]
            p = float(len(new[1])) if den == 1 else 1.0 / den
            s = cache.get(p)
            if s is None:
                s = cache[p] = sp_of(p)
            speed[k] = s
            finish[k] = f = t + debt[k] + max(vrem[k], 0.0) / s
            v = ver[k] = ver[k] + 1  # the previous completion of k is void
            push(done, (f, dseq, k, v))
            dseq += 1
        self.preemptions += started
        self._dseq = dseq

    # -- results -----------------------------------------------------------
    def schedule(self) -> MoldableSchedule:
        """The recorded segments as a :class:`MoldableSchedule` (tasks in index order)."""
        return schedule_of(self.segments)


def schedule_of(segs: list[list]) -> MoldableSchedule:
    """Per-task lists of ``[start, end, gpus, den]`` segments as a :class:`MoldableSchedule`
    (tasks in index order)."""
    flat = [x for task_segs in segs for x in task_segs]
    task = np.repeat(np.arange(len(segs), dtype=np.int64), [len(x) for x in segs])
    if not flat:
        return MoldableSchedule(task=task, start=np.zeros(0), end=np.zeros(0), share_den=np.zeros(0, np.int64),
                                gpu_ptr=np.zeros(1, np.int64), gpu_idx=np.zeros(0, np.int64))
    start, end, gpus, den = zip(*flat)
    ptr = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, gpus), dtype=np.int64, count=len(gpus)), out=ptr[1:])
    idx = np.fromiter(itertools.chain.from_iterable(gpus), dtype=np.int64, count=int(ptr[-1]))
    return MoldableSchedule(task=task, start=np.array(start, dtype=float), end=np.array(end, dtype=float),
                            share_den=np.array(den, dtype=np.int64), gpu_ptr=ptr, gpu_idx=idx)


def simulate(
    inst: MoldableInstance, rule: str | Callable, *, malleable: bool = False, max_events: int | None = None,
    current_first: bool = False,
) -> tuple[MoldableSchedule, SimStats]:
    """Simulate ``rule`` (a name of :data:`.policies.RULES` or a rule function).

    ``current_first`` (malleable setting): search a running task's current
    GPUs first instead of the lowest-index ones (module docstring).
    Returns the recorded schedule and counters.  Deterministic: no randomness,
    ties broken by arrival order and GPU index.
    """
    fn = RULES[rule] if isinstance(rule, str) else rule
    t0 = time.perf_counter()
    if malleable and fn is equipartition and incremental.applies(inst):
        ms = incremental.IncrementalEquipartition(inst, current_first)
    else:
        ms = MoldableSimulator(inst, fn, malleable, current_first)
        ms.preempt_charged = [False] * inst.num_tasks
    sim = Simulation()
    with gc_paused():  # the run and the schedule's arrays: millions of small live objects, no cycles
        sim.run(ms, max_events=max_events if max_events is not None else 50 * max(1, inst.num_tasks) + 1000)
        wall = time.perf_counter() - t0
        unfinished = [k for k in range(inst.num_tasks) if ms.status[k] != DONE]
        if unfinished:  # pragma: no cover - every policy eventually serves a lone task
            raise RuntimeError(f"simulation ended with {len(unfinished)} unfinished tasks")
        sched = ms.schedule()
        stats = SimStats(events=sim.events, decisions=sim.decisions, preemptions=ms.preemptions, wall_s=wall)
        del ms, sim  # freed while the collector is paused: its first pass then has nothing of the run to scan
    return sched, stats
