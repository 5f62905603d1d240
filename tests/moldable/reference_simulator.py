"""Reference copy of the moldable simulator before issue 23's faster malleable engine, kept
ONLY for ``test_engine_equivalence.py``: the library must give exactly the same schedules.

Not part of the library; do not import it elsewhere.  The original docstring follows.

Discrete-event simulation of the moldable/malleable policies on
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

import time
from dataclasses import dataclass, field
from typing import Callable

from dmlsched.problems.moldable.instance import MoldableInstance
from dmlsched.problems.moldable.solution import MoldableSchedule
from dmlsched.sim import Simulation

from .reference_policies import RULES, Alloc, Cluster

ARRIVAL, COMPLETION = 0, 1
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
        else:
            self._stop(k, sim.now)
            self.vrem[k] = 0.0
            self.status[k] = DONE
            self.hnd[k] = None
            del self.active[k]

    def decide(self, sim: Simulation) -> None:
        t = sim.now
        if self.malleable:
            self._decide_malleable(sim, t)
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
        inst = self.inst
        base = Cluster.empty(inst.gpus, inst.gpu_memory)
        current: dict[int, Alloc | None] = {}
        pinned = set()
        thr = self.thr
        for k in self.running:
            self._progress(k, t)
            if self.vrem[k] <= thr:
                base.take(self.alloc[k], self.mem[k])
                pinned.add(k)
            else:
                current[k] = self.alloc[k]
        queue = [k for k in self.active if k not in pinned] if pinned else list(self.active)
        if not queue:
            return
        base.now = t
        out = self.rule(inst, base, queue, self.vrem, current if self.current_first else None)
        for k in current:  # running tasks that lose or change their allocation
            new = out.get(k)
            if new != self.alloc[k]:
                self._stop(k, t)
                if new is None and self.hnd[k] is not None:
                    sim.cancel(self.hnd[k])
                    self.hnd[k] = None
        for k, new in out.items():
            if self.alloc[k] is None:
                self._start(sim, k, new, t)

    # -- results -----------------------------------------------------------
    def schedule(self) -> MoldableSchedule:
        task, start, end, den, ptr, idx = [], [], [], [], [0], []
        for k, segs in enumerate(self.segments):
            for st, en, gpus, d in segs:
                task.append(k)
                start.append(st)
                end.append(en)
                den.append(d)
                idx.extend(gpus)
                ptr.append(len(idx))
        return MoldableSchedule(task=task, start=start, end=end, share_den=den, gpu_ptr=ptr, gpu_idx=idx)


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
    ms = MoldableSimulator(inst, fn, malleable, current_first)
    ms.preempt_charged = [False] * inst.num_tasks
    sim = Simulation()
    sim.run(ms, max_events=max_events if max_events is not None else 50 * max(1, inst.num_tasks) + 1000)
    wall = time.perf_counter() - t0
    unfinished = [k for k in range(inst.num_tasks) if ms.status[k] != DONE]
    if unfinished:  # pragma: no cover - every policy eventually serves a lone task
        raise RuntimeError(f"simulation ended with {len(unfinished)} unfinished tasks")
    return ms.schedule(), SimStats(events=sim.events, decisions=sim.decisions, preemptions=ms.preemptions, wall_s=wall)
