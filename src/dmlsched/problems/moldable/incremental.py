"""Malleable Equipartition re-divided incrementally, for instances of whole-GPU tasks.

When every task has ``p_min = 1`` (the SWF setup: ``(p_min, p_max) = (1, |G|)``), a
pinned task holds whole GPUs and Equipartition (:func:`.policies.equipartition`) only
ever hands out whole GPUs, so its decision depends on nothing but the GPUs ``V`` that
pinned tasks leave vacant, the queue ``Q`` (active, unpinned tasks in arrival order) and,
under the current-first reading, the tasks' current GPUs:

* case 1 (``|Q| >= |V|``): one GPU of ``V`` to each task of ``Q`` in order, until none
  is left (:func:`.policies._case1_whole`);
* case 2 (``sum p_max <= |V|``): ``p_max`` GPUs each;
* case 3 (otherwise): one GPU each plus D'Hondt's share of the other ``|V| - |Q|``
  (equal votes: ``q`` or ``q + 1`` extra GPUs, the first ``r`` tasks the larger).

In cases 2 and 3 the lowest-index reading gives the tasks consecutive runs of ``V`` in
queue order and the current-first reading keeps each task's lowest current GPUs and
fills the rest from the lowest free ones (:func:`.policies.dedicated_batch`).

:class:`IncrementalEquipartition` keeps ``V``, the queue, the pinned tasks and (current
first) the free GPUs from one decision to the next, so a decision computes every task's
new amount from a formula and touches only the tasks whose allocation changes: it closes
and opens their segments; the others are compared, not rebuilt.  The earliest completion
is found by a scan of the running tasks' completion times (every running task's is
valid), not kept in a heap: a restart costs no heap traffic.  Everything else is the
general simulator's (:class:`.simulator.MoldableSimulator`): the same events, instants,
float operations in the same order, so the same segments bit for bit
(``tests/moldable/test_engine_equivalence.py`` compares them with a verbatim copy of the
simulator and rules this replaced).
"""

from __future__ import annotations

import itertools
import math
from bisect import insort

import numpy as np

from ...sim import Simulation
from .dhondt import dhondt
from .instance import MoldableInstance
from .solution import MoldableSchedule

ARRIVAL, COMPLETION, WAKE = 0, 1, 2
QUEUED, RUNNING, DONE = 1, 2, 3


def applies(inst: MoldableInstance) -> bool:
    """Whether every task takes whole GPUs only (``p_min = 1``)."""
    return all(d == 1 for d in inst._pmin_den_list)


class IncrementalEquipartition:
    """The engine's policy for malleable Equipartition on a whole-GPU instance (module docstring).

    A running task's allocation is its tuple of GPUs (the share is always whole).  Closed
    segments go to a log of flat lists in the order they close (task, start, end, GPUs;
    per task, that is time order), which :meth:`schedule` groups by task; no object is made
    per segment but its GPU tuple, which is the allocation itself.  Read by ``simulate``:
    ``status``, ``preemptions``, :meth:`schedule`.
    """

    def __init__(self, inst: MoldableInstance, current_first: bool = False):
        self.inst = inst
        self.current_first = current_first
        n = inst.num_tasks
        self.status = [0] * n
        self.alloc: list[tuple[int, ...] | None] = [None] * n
        self.vrem = [float(v) for v in inst.volume]
        self.debt = [0.0] * n
        self.speed = [0.0] * n
        self.seg_start = [0.0] * n
        self.finish = [0.0] * n
        self.seq = [0] * n  # order of the starts: completions due at one instant, in this order
        self.charged = [False] * n
        # the log of closed segments; last[k]: position of task k's last one (-1: none)
        self.log_task: list[int] = []
        self.log_start: list[float] = []
        self.log_end: list[float] = []
        self.log_gpus: list[tuple[int, ...]] = []
        self.last = [-1] * n
        self.queue: dict[int, None] = {}  # active, unpinned tasks, arrival order
        self.urun: dict[int, None] = {}  # running, unpinned
        self.pinned: dict[int, None] = {}  # running with at most the threshold left: keep their GPUs
        self.preemptions = 0
        self.tp = float(inst.preemption_overhead)
        self.thr = float(inst.preemption_min_remaining)
        G = inst.gpus
        self.vacant = list(range(G))  # V: GPUs not held by a pinned task, increasing
        self._vt: tuple[int, ...] | None = None  # V as a tuple (slices are the allocations)
        self.pinned_mark = bytearray(G)  # GPUs held by pinned tasks
        self.free = list(range(G))  # current first: the GPUs of V no running task holds, increasing
        self.held = [0] * n  # number of GPUs a task holds
        self._seq = 0
        self._prev_t = -math.inf
        self._wake: list | None = None
        self._wake_t = -math.inf
        sp = inst.speedup.speed
        self._speed_of = [0.0] + [sp(float(p)) for p in range(1, G + 1)]
        pmx = inst._pmax_list
        self._pmax = pmx
        self._equal_pmax = pmx[0] if pmx and all(p == pmx[0] for p in pmx) else None

    # -- engine protocol ---------------------------------------------------
    def start(self, sim: Simulation) -> None:
        for k in self.inst.arrival_order:
            sim.at(float(self.inst.arrival[k]), ARRIVAL, int(k))

    def handle(self, sim: Simulation, kind: int, k: int) -> None:
        if kind == ARRIVAL:
            self.status[k] = QUEUED
            self.queue[k] = None
            return
        # WAKE: every completion due now, in the order the tasks started
        t = sim.now
        finish = self.finish
        due = [k for k in self.urun if finish[k] == t] + [k for k in self.pinned if finish[k] == t]
        if len(due) > 1:
            seq = self.seq
            due.sort(key=seq.__getitem__)
        for k in due:
            self._complete(k, t)
        sim.events += len(due) - 1  # each completion counts as one event, as when it had its own
        self._wake = None
        self._wake_t = -math.inf

    def _close(self, k: int, start: float, t: float, gpus: tuple[int, ...]) -> None:
        self.last[k] = len(self.log_task)
        self.log_task.append(k)
        self.log_start.append(start)
        self.log_end.append(t)
        self.log_gpus.append(gpus)

    def _reopen(self, k: int) -> None:
        """Take task ``k``'s last segment out of the log (a continuation: its allocation comes
        back at the instant it ended).  The entry stays as a tombstone (task ``-1``)."""
        i = self.last[k]
        self.log_task[i] = -1
        j = i - 1
        task = self.log_task
        while j >= 0 and task[j] != k:
            j -= 1
        self.last[k] = j

    def _complete(self, k: int, t: float) -> None:
        a = self.alloc[k]
        if t > self.seg_start[k]:
            self._close(k, self.seg_start[k], t, a)
        elif self.last[k] >= 0 and self.charged[k]:
            self.debt[k] -= self.tp  # zero-length segment: undo its overhead charge
            self.preemptions -= 1
        self.alloc[k] = None
        self.vrem[k] = 0.0
        self.status[k] = DONE
        if k in self.pinned:
            del self.pinned[k]
            mark, vac = self.pinned_mark, self.vacant
            gs = a
            for g in gs:
                mark[g] = 0
            if len(gs) <= 4:
                for g in gs:
                    insort(vac, g)
            else:
                vac.extend(gs)
                vac.sort()
            self._vt = None
        else:
            del self.urun[k]
            del self.queue[k]
        self.held[k] = 0
        if self.current_first:
            free = self.free
            if len(a) <= 4:
                for g in a:
                    insort(free, g)
            else:
                free.extend(a)
                free.sort()

    def _rewake(self, sim: Simulation) -> None:
        """Keep the engine's WAKE event at the earliest completion of a running task."""
        finish = self.finish
        f = min(min(map(finish.__getitem__, self.urun), default=math.inf),
                min(map(finish.__getitem__, self.pinned), default=math.inf))
        if f == self._wake_t:
            return
        if self._wake is not None:
            sim.cancel(self._wake)
            self._wake = None
            self._wake_t = -math.inf
        if f != math.inf:
            self._wake = sim.at(f, WAKE, 0, -1)
            self._wake_t = f

    def decide(self, sim: Simulation) -> None:
        t = sim.now
        self._progress(t)
        if self.queue:
            changes = self._changes()
            self._apply(changes, t)
        self._rewake(sim)

    # -- one decision ----------------------------------------------------------
    def _progress(self, t: float) -> None:
        """Bring the unpinned running tasks up to ``t`` (every running task was brought up to
        the previous decision) and pin those left with at most the threshold.  Pinned tasks
        are not brought up to date: they keep their allocation and completion time, and
        nothing reads their remaining volume again."""
        el = t - self._prev_t
        self._prev_t = t
        vrem, debt, speed, thr = self.vrem, self.debt, self.speed, self.thr
        pin = []
        if el > 0 and not self.tp:  # no overhead: nobody owes time
            for k in self.urun:
                v = vrem[k] = vrem[k] - el * speed[k]
                if v <= thr:
                    pin.append(k)
        elif el > 0:
            for k in self.urun:
                d = debt[k]
                if d:
                    pay = min(d, el)
                    debt[k] = d - pay
                    v = vrem[k] = vrem[k] - (el - pay) * speed[k]
                else:
                    v = vrem[k] = vrem[k] - el * speed[k]
                if v <= thr:
                    pin.append(k)
        else:  # another decision at the same instant: nothing progressed
            pin = [k for k in self.urun if vrem[k] <= thr]
        if pin:
            urun, queue, pinned, alloc = self.urun, self.queue, self.pinned, self.alloc
            mark = self.pinned_mark
            for k in pin:
                del urun[k]
                del queue[k]
                pinned[k] = None
                for g in alloc[k]:
                    mark[g] = 1
            self.vacant = [g for g in self.vacant if not mark[g]]
            self._vt = None

    def _amounts(self, nq: int, nv: int) -> list[int] | None:
        """The GPUs of each queued task in cases 2 and 3, in queue order (``None``: case 1)."""
        if nq >= nv:
            return None
        pmx = self._pmax
        P = self._equal_pmax
        if P is not None:
            if nq * P <= nv:
                return [P] * nq
            # equal votes: D'Hondt goes round robin; no cap P - 1 binds, as nv - nq < nq (P - 1)
            q, r = divmod(nv - nq, nq)
            return [q + 2] * r + [q + 1] * (nq - r)
        votes = [pmx[k] for k in self.queue]
        if sum(votes) <= nv:
            return votes
        extra = dhondt(votes, nv - nq, caps=[v - 1 for v in votes])
        return [1 + e for e in extra]

    def _changes(self) -> list[tuple[int, tuple[int, ...] | None]]:
        """``(task, new allocation or None)`` for every queued task whose allocation changes,
        in queue order."""
        queue, alloc = self.queue, self.alloc
        nv = len(self.vacant)
        amounts = self._amounts(len(queue), nv)
        if amounts is None:
            return self._case1()
        out: list[tuple[int, tuple[int, ...] | None]] = []
        if not self.current_first:
            vt = self._vt
            if vt is None:
                vt = self._vt = tuple(self.vacant)
            pos = 0
            for k, n in zip(queue, amounts):
                new = vt[pos:pos + n]
                pos += n
                if alloc[k] != new:
                    out.append((k, new))
            return out
        # current first: keep the lowest current GPUs, fill from the lowest free ones
        held = self.held
        free = self.free
        grow: list[tuple[int, tuple[int, ...], int]] = []
        need = 0
        released: list[int] = []
        for k, n in [(k, n) for k, n in zip(queue, amounts) if held[k] != n]:
            a = alloc[k]
            if a is None:
                out.append((k, None))
                grow.append((len(out) - 1, (), n))
                need += n
            elif len(a) > n:
                out.append((k, a[:n]))
                released.extend(a[n:])
            else:
                out.append((k, None))
                grow.append((len(out) - 1, a, n - len(a)))
                need += n - len(a)
        if released:
            free.extend(released)
            free.sort()
        if grow:
            fill = free[:need]
            del free[:need]
            pos = 0
            for i, kept, m in grow:
                gl = list(kept) + fill[pos:pos + m]
                pos += m
                if kept:
                    gl.sort()
                out[i] = (out[i][0], tuple(gl))
        return out

    def _case1(self) -> list[tuple[int, tuple[int, ...] | None]]:
        """Case 1: one GPU of ``V`` each in queue order (under current-first a task's single
        current GPU if it is still vacant), until none is left; later tasks are suspended."""
        queue, alloc, vac = self.queue, self.alloc, self.vacant
        nv = len(vac)
        out: list[tuple[int, tuple[int, ...] | None]] = []
        if not self.current_first:
            for i, k in enumerate(queue):
                a = alloc[k]
                if i < nv:
                    new = (vac[i],)
                    if a != new:
                        out.append((k, new))
                elif a is not None:
                    out.append((k, None))
            return out
        taken = bytearray(self.pinned_mark)
        vi = 0
        for k in queue:
            a = alloc[k]
            g = -1
            if a is not None and len(a) == 1 and not taken[a[0]]:
                g = a[0]
            else:
                while vi < nv and taken[vac[vi]]:
                    vi += 1
                if vi < nv:
                    g = vac[vi]
            if g < 0:
                if a is not None:
                    out.append((k, None))
                continue
            taken[g] = 1
            if a != (g,):
                out.append((k, (g,)))
        self.free = [g for g in vac if not taken[g]]  # empty: |Q| >= |V| and every task took one
        return out

    def _apply(self, changes: list[tuple[int, tuple[int, ...] | None]], t: float) -> None:
        """Stop every changed task that runs, then start it with its new allocation (the
        simulator's ``_stop`` and ``_start``: same operations, same order per task)."""
        seg_start, charged, alloc, debt, vrem = self.seg_start, self.charged, self.alloc, self.debt, self.vrem
        speed, finish, seqs, urun, status, last = self.speed, self.finish, self.seq, self.urun, self.status, self.last
        held = self.held
        log_task, log_start, log_end, log_gpus = self.log_task, self.log_start, self.log_end, self.log_gpus
        speed_of = self._speed_of
        tp = self.tp
        seq = self._seq
        nlog = len(log_task)
        started = 0
        uncharged = 0
        for k, new in changes:
            a = alloc[k]
            if a is not None and t > seg_start[k]:  # stop: close the segment
                last[k] = nlog
                nlog += 1
                log_task.append(k)
                log_start.append(seg_start[k])
                log_end.append(t)
                log_gpus.append(a)
                alloc[k] = None
                del urun[k]
                status[k] = QUEUED
                if new is None:
                    held[k] = 0
                    continue
                debt[k] += tp  # restart: a preemption
                started += 1
                charged[k] = True
                seg_start[k] = t
            else:
                if a is not None:  # stop at the instant it started: a zero-length segment
                    if last[k] >= 0 and charged[k]:  # undo its overhead charge
                        debt[k] -= tp
                        uncharged += 1
                    alloc[k] = None
                    del urun[k]
                    status[k] = QUEUED
                if new is None:
                    held[k] = 0
                    continue
                charged[k] = False
                j = last[k]
                if j >= 0:
                    if log_end[j] == t and log_gpus[j] == new:
                        seg_start[k] = log_start[j]  # continuation with the identical allocation
                        self._reopen(k)
                    else:
                        debt[k] += tp
                        started += 1
                        charged[k] = True
                        seg_start[k] = t
                else:
                    seg_start[k] = t
            alloc[k] = new
            status[k] = RUNNING
            urun[k] = None
            c = held[k] = len(new)
            s = speed[k] = speed_of[c]
            v = vrem[k]
            finish[k] = t + debt[k] + (v if v > 0.0 else 0.0) / s
            seqs[k] = seq
            seq += 1
        self._seq = seq
        self.preemptions += started - uncharged

    # -- results -----------------------------------------------------------
    def schedule(self) -> MoldableSchedule:
        """The log of closed segments grouped by task (stable: each task's in time order)."""
        task = np.array(self.log_task, dtype=np.int64)
        keep = None
        if task.size and task.min() < 0:  # tombstones of continued segments
            keep = np.flatnonzero(task >= 0)
        gpus = self.log_gpus
        first = np.zeros(len(gpus) + 1, dtype=np.int64)  # where each logged segment's GPUs begin in flat
        np.cumsum(np.fromiter(map(len, gpus), dtype=np.int64, count=len(gpus)), out=first[1:])
        flat = np.fromiter(itertools.chain.from_iterable(gpus), dtype=np.int64, count=int(first[-1]))
        start = np.array(self.log_start, dtype=float)
        end = np.array(self.log_end, dtype=float)
        order = np.argsort(task if keep is None else task[keep], kind="stable")
        if keep is not None:
            order = keep[order]
        lens = first[1:][order] - first[:-1][order]
        ptr = np.zeros(order.size + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        idx = flat[np.repeat(first[order] - ptr[:-1], lens) + np.arange(int(ptr[-1]))]
        return MoldableSchedule(task=task[order], start=start[order], end=end[order],
                                share_den=np.ones(order.size, dtype=np.int64), gpu_ptr=ptr, gpu_idx=idx)
