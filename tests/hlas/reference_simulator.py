"""Reference copy of the HLAS simulator before the indexed engine (issue 23), kept ONLY for
``test_engine_equivalence.py``: the faster engine must give exactly the same schedules.

Not part of the library; do not import it elsewhere.  The original docstring follows.

The HLAS execution model on the shared engine (:mod:`dmlsched.sim`).

Semantics (``models/hlas.md`` has the full list and the reasons):

* The cluster is partitioned into GPU groups (HLAS: the GPU-grouping result;
  the baselines: one group per GPU, i.e. Algorithm 1's per-GPU loop).  A
  group is *idle* when all its GPUs are idle; only idle groups receive work.
* At every instant, after all arrivals and completions of that instant, the
  policy fills the idle groups: it takes the job with the smallest priority
  key that has unassigned tasks in its current round, gives it the idle group
  that is fastest for it (largest ``sum_m 1/(T^c+T^s)`` over the group's free
  GPUs; ties: lowest index), and assigns it a *group batch* of its unassigned
  tasks (:func:`_batch`): each task goes to the group GPU on which it would
  finish training earliest, as long as it finishes within one task-time of the
  group's slowest free GPU (so a singleton group takes one task, and a group
  works at about its aggregate speed ``p_n^u``).  Tasks that do not fit wait;
  the job is then *partially scheduled* and stays first in its queue until
  its round is fully assigned.  GPUs of the group left without a task take
  the next job's tasks (Algorithm 3 returns a list of jobs per group).
* A task starts when assigned and is not preempted; its GPU is busy for
  ``T^c`` (synchronisation overlaps, as in Hare's (8)); the group is idle again
  when its last task finishes training.  A round ends when all its tasks have
  trained and synchronised; only then does the policy learn whether another
  round follows, and the job re-enters the queues with its new size.

The above is the default reading of a GPU group, ``batch``.  Constructor
flags select the alternatives of ``models/hlas.md`` item 10 (option
``group_mode`` of the registered methods): ``one_per_gpu`` (``gpuset``: one
task per free group GPU, no batch), ``whole_round`` (``round``: the group
takes the whole remaining round, list-scheduled, no horizon) and
``tbar_groups`` (``accounting``: singleton groups for dispatch, ``T̄_n`` on
``tbar_groups`` groups); ``any_idle`` (option ``group_idle="any"``, item 12:
a group takes work as soon as one of its GPUs is idle, on its idle GPUs
only, and every GPU returns to its group when its own tasks end); ``gang``
(``"block"``/``"skip"``, singleton groups only) starts a round only on
``min(tasks_per_round, |M|)`` idle GPUs at once; ``placement="oblivious"``
gives the picked job an idle group drawn uniformly at random (seeded)
instead of the fastest one (a heterogeneity-oblivious scheduler such as
Tiresias, item 13).
"""

from __future__ import annotations

import heapq
import math
import random
from typing import Sequence

from dmlsched.problems.hlas.instance import HlasInstance
from dmlsched.problems.hlas.policies import Rule, View
from dmlsched.sim import Recorder, Simulation

# event kinds double as their priority within an instant (GPU_IDLE has GROUP_IDLE's priority)
GROUP_IDLE, ROUND_DONE, ARRIVAL, GPU_IDLE = 0, 1, 2, 3

_heappush = heapq.heappush
_heappop = heapq.heappop


def tbar(inst: HlasInstance, num_groups: int) -> list[float]:
    """``T̄_n = |D_n| / s̄_n`` with ``s̄_n = (1/|U|) sum_m 1/(T^c_{n,m} + T^s_{n,m})``.

    The average group speed ``s̄_n`` is the mean over groups of ``p_n^u``, which
    equals the total speed over all GPUs divided by ``|U|`` whatever the
    grouping; ``T̄_n`` is the time of one round of ``|D_n|`` tasks at that speed.
    """
    out = []
    for j in inst.jobs:
        total = sum(1.0 / (j.train_time[g] + j.sync_time[g]) for g in inst.gpus)
        out.append(j.tasks_per_round * num_groups / total)
    return out


def _batch(order: list[int], tc: list[float], rem: int, t: float,
           whole: bool = False) -> tuple[list[int], list[float]]:
    """A group batch of at most ``rem`` tasks on the free GPUs ``order`` (fastest first).

    Each task goes to the GPU on which it would finish training earliest
    (ties: earlier in ``order``), as long as it finishes within the horizon
    ``t + max_m T^c_m`` (one task on the group's slowest free GPU), so the
    batch is at least one task and at most ``sum_m floor(horizon / T^c_m)``.
    With ``whole=True`` (group mode ``"round"``) there is no horizon: all
    ``rem`` tasks are list-scheduled on the group.
    Returns the GPU and start time of each task, in assignment order.  GPUs
    left without a task stay free for the next job of the same decision.
    """
    horizon = math.inf if whole else max(tc[m] for m in order) * (1.0 + 1e-12)
    heap = [(tc[m], i, m, 0.0) for i, m in enumerate(order)]
    heapq.heapify(heap)
    gpus: list[int] = []
    starts: list[float] = []
    while heap and len(gpus) < rem:
        fin, i, m, st = heap[0]
        if fin > horizon:
            break
        gpus.append(m)
        starts.append(t + st)
        heapq.heapreplace(heap, (fin + tc[m], i, m, fin))
    return gpus, starts


class HlasSimulator:
    """A :class:`dmlsched.sim.Policy` running a priority :class:`Rule` on groups.

    After :meth:`dmlsched.sim.Simulation.run`, ``gpu`` and ``start`` hold the
    GPU and start time of every task in Hare's global task numbering (task
    ``k`` of a round = the ``k``-th task assigned), ``recorder`` the per-job
    times, and ``log`` (if ``trace``) every assignment as
    ``(time, job, round, group, [gpus])``.
    """

    def __init__(self, inst: HlasInstance, rule: Rule, groups: Sequence[Sequence[int]], *,
                 trace: bool = False, whole_round: bool = False, one_per_gpu: bool = False,
                 tbar_groups: int | None = None, gang: str | None = None, any_idle: bool = False,
                 placement: str = "fastest", seed: int = 0) -> None:
        self.inst = inst
        if gang is not None:
            if gang not in ("block", "skip"):
                raise ValueError(f"gang must be None, 'block' or 'skip', got {gang!r}")
            if any(len(g) != 1 for g in groups):
                raise ValueError("gang scheduling is defined for one group per GPU only (pass gang=None for runs on "
                                 "GPU groups)")
        if placement not in ("fastest", "oblivious"):
            raise ValueError(f"placement must be 'fastest' or 'oblivious', got {placement!r}")
        self.oblivious = placement == "oblivious"
        self.seed = seed
        # an idle group is drawn by the kind of GPUs it holds (kinds in sorted order of their type
        # names, each with probability proportional to its idle groups), then the first idle group of
        # that kind: the draw depends on the multiset of idle GPU types, never on the order the
        # instance lists its GPUs (groups of one kind are interchangeable)
        tnames = [tuple(sorted(inst.gpus[m] for m in g)) for g in groups]
        kinds = sorted(set(tnames))
        self._kind = [kinds.index(t) for t in tnames]
        self._nkinds = len(kinds)
        self.gang = gang
        self.gang_width = [min(j.tasks_per_round, inst.num_gpus) for j in inst.jobs]
        self.whole_round = whole_round
        self.one_per_gpu = one_per_gpu
        self.rule = rule
        self.groups = [list(g) for g in groups]
        # singleton groups: "any GPU idle" and "all GPUs idle" are the same event
        self.any_idle = any_idle and any(len(g) > 1 for g in self.groups)
        self.group_of = [0] * inst.num_gpus
        self.pos = [0] * inst.num_gpus
        for u, g in enumerate(self.groups):
            for i, m in enumerate(g):
                self.group_of[m] = u
                self.pos[m] = i
        n_jobs = inst.num_jobs
        # job profiles: jobs with identical time tables share per-GPU lists
        prof_of: dict[tuple, int] = {}
        self.tc: list[list[float]] = []
        self.ts: list[list[float]] = []
        self.speed: list[list[float]] = []
        self.prof = [0] * n_jobs
        for n, j in enumerate(inst.jobs):
            key = (tuple(j.train_time[g] for g in inst.gpu_types), tuple(j.sync_time[g] for g in inst.gpu_types))
            p = prof_of.get(key)
            if p is None:
                p = prof_of[key] = len(self.tc)
                tcl = [float(j.train_time[g]) for g in inst.gpus]
                tsl = [float(j.sync_time[g]) for g in inst.gpus]
                self.tc.append(tcl)
                self.ts.append(tsl)
                self.speed.append([1.0 / (a + b) for a, b in zip(tcl, tsl)])
            self.prof[n] = p
        self.tpr = [j.tasks_per_round for j in inst.jobs]
        self.rounds = [j.rounds for j in inst.jobs]
        self.arrival = [j.arrival for j in inst.jobs]
        offs, acc = [], 0
        for j in inst.jobs:
            offs.append(acc)
            acc += j.num_tasks
        self.offset = offs
        self.tbar = tbar(inst, len(self.groups) if tbar_groups is None else tbar_groups)
        view = View(
            arrival=self.arrival,
            tasks_per_round=self.tpr,
            tbar=self.tbar,
            predicted=[j.predicted_rounds or 0 for j in inst.jobs],
            lows=[lo for lo, _ in inst.queues],
        )
        rule.setup(view, self.rounds if rule.clairvoyant else None)
        self.trace = trace
        self.log: list[tuple] = []
        self._order_cache: dict[tuple[int, int], list[int]] = {}
        self._pat_cache: dict[tuple[int, int, int], tuple] = {}
        self._speed_cache: dict[tuple[int, int], float] = {}
        self._gsize = [len(g) for g in self.groups]
        # one group per GPU: a group's speed is its GPU's, so the fastest idle group is the
        # idle group of smallest rank in a per-profile order by (-speed, index)
        self._rank: list[list[int]] | None = None
        if all(n == 1 for n in self._gsize):
            self._rank = []
            for sp in self.speed:
                order = sorted(range(len(self.groups)), key=lambda v: (-sp[self.groups[v][0]], v))
                rk = [0] * len(order)
                for i, v in enumerate(order):
                    rk[v] = i
                self._rank.append(rk)

    # -- engine protocol ------------------------------------------------
    def start(self, sim: Simulation) -> None:
        inst = self.inst
        n_jobs = inst.num_jobs
        self._rng = random.Random(self.seed)
        self.gpu = [0] * inst.num_tasks
        self.start_time = [0.0] * inst.num_tasks
        self.rounds_run = [0] * n_jobs
        self.assigned = [0] * n_jobs  # tasks of the current round already assigned
        self.round_done = [-math.inf] * n_jobs  # latest train+sync end in the current round
        self.service = [0.0] * n_jobs  # attained task-GPU (training) time
        self.recorder = Recorder(self.arrival, [j.weight for j in inst.jobs], num_resources=inst.num_gpus)
        self.ready: list[tuple] = []
        # gang "skip": waiting jobs in one heap per gang width, partially scheduled ones in their own
        # heap, so a decision finds the first job in priority order that fits without scanning
        self._wheaps: list[tuple[int, list[tuple]]] | None = None
        self._pheap: list[tuple] = []
        if self.gang == "skip":
            self._wheaps = [(w, []) for w in sorted(set(self.gang_width))]
            self._wheap_of = {w: h for w, h in self._wheaps}
        self.open: list[int] = list(range(len(self.groups)))  # idle groups
        # oblivious placement: the idle groups of each kind (see __init__)
        self._okind: list[list[int]] = [[] for _ in range(self._nkinds)]
        for u in self.open:
            self._okind[self._kind[u]].append(u)
        self.free: list[list[int]] = [list(g) for g in self.groups]
        self.group_end = [0.0] * len(self.groups)
        self.assignments = 0
        for n in sorted(range(n_jobs), key=lambda i: (self.arrival[i], i)):
            sim.at(self.arrival[n], ARRIVAL, n, ARRIVAL)

    def handle(self, sim: Simulation, kind: int, x: int) -> None:
        if kind == GROUP_IDLE:
            self.open.append(x)
            if self.oblivious:
                self._okind[self._kind[x]].append(x)
            self.free[x] = list(self.groups[x])
        elif kind == GPU_IDLE:  # group_idle="any": GPU x returns to its group, which is open again
            u = self.group_of[x]
            # a new list: free lists may be shared with cached patterns (their ``rest``)
            fu = sorted(self.free[u] + [x], key=self.pos.__getitem__)
            self.free[u] = fu
            if len(fu) == 1:
                self.open.append(u)
                if self.oblivious:
                    self._okind[self._kind[u]].append(u)
        elif kind == ROUND_DONE:
            r = self.rounds_run[x] + 1
            self.rounds_run[x] = r
            if r == self.rounds[x]:  # the policy learns that no round follows
                self.recorder.finish_time[x] = sim.now
            else:
                self.assigned[x] = 0
                self.round_done[x] = -math.inf
                self._push(self.rule.key(x, r, self.service[x]))
        else:  # ARRIVAL
            self._push(self.rule.key(x, 0, 0.0))

    def _gpu_order(self, u: int, p: int) -> list[int]:
        """GPUs of group ``u`` fastest-first for profile ``p`` (ties: lower index)."""
        key = (u, p)
        o = self._order_cache.get(key)
        if o is None:
            sp = self.speed[p]
            o = sorted(self.groups[u], key=lambda m: (-sp[m], m))
            self._order_cache[key] = o
        return o

    def _pattern(self, u: int, p: int, rem: int, fu: list[int]) -> tuple:
        """Assignment of ``rem`` tasks of profile ``p`` to the free GPUs ``fu`` of group ``u``.

        Returns ``(gpus, start_offsets, sum_tc, train_end_offset, done_offset, rest)``;
        cached by ``(u, p, rem, free GPUs)``: patterns only depend on these.
        """
        key = (u, p, rem) if len(fu) == len(self.groups[u]) else (u, p, rem, tuple(fu))
        pat = self._pat_cache.get(key)
        if pat is not None:
            return pat
        tcp = self.tc[p]
        tsp = self.ts[p]
        if len(fu) == 1 and not self.whole_round:
            gpus, offs, rest = list(fu), [0.0], []
        else:
            fs = set(fu)
            order = [m for m in self._gpu_order(u, p) if m in fs]
            if self.one_per_gpu:  # group mode "gpuset": one task on each of the fastest free GPUs
                gpus, offs = order[:rem], [0.0] * min(rem, len(order))
            else:
                gpus, offs = _batch(order, tcp, rem, 0.0, self.whole_round)
            used = set(gpus)
            rest = [m for m in order if m not in used] if len(used) < len(order) else []
        tot = 0.0
        end = 0.0
        done = 0.0
        for m, o in zip(gpus, offs):
            d = tcp[m]
            tot += d
            if o + d > end:
                end = o + d
            if o + d + tsp[m] > done:
                done = o + d + tsp[m]
        zero = all(o == 0.0 for o in offs)
        pat = (gpus, None if zero else offs, tot, end, done, rest)
        self._pat_cache[key] = pat
        return pat

    def _group_speed(self, v: int, p: int, fv: list[int]) -> float:
        if len(fv) == 1:
            return self.speed[p][fv[0]]
        if len(fv) == len(self.groups[v]):
            key = (v, p)
            s = self._speed_cache.get(key)
            if s is None:
                sp = self.speed[p]
                s = self._speed_cache[key] = sum(sp[m] for m in fv)
            return s
        sp = self.speed[p]
        return sum(sp[m] for m in fv)

    def _draw(self, opn: list[int]) -> int:
        """An idle group drawn uniformly at random, neutral to the order of the GPUs: a
        uniform index into the idle groups listed kind by kind (kinds in sorted order)."""
        r = self._rng.randrange(len(opn))
        for groups in self._okind:
            if r < len(groups):
                return groups[r]
            r -= len(groups)
        raise AssertionError("unreachable")  # pragma: no cover

    def _push(self, key: tuple) -> None:
        if self._wheaps is None:
            _heappush(self.ready, key)
        else:
            _heappush(self._wheap_of[self.gang_width[key[-1]]], key)

    def _pick(self, nopen: int) -> list[tuple] | None:
        """Gang "skip": the heap whose head is the first job in priority order that can take
        work on ``nopen`` idle GPUs (a partially scheduled job, or a waiting job whose round
        fits), ``None`` if none can."""
        best = self._pheap or None
        for w, h in self._wheaps:
            if w > nopen:
                break
            if h and (best is None or h[0] < best[0]):
                best = h
        return best

    def decide(self, sim: Simulation) -> None:
        ready = self.ready
        opn = self.open
        skip = self._wheaps is not None
        if not opn or (not ready and not skip):
            return
        t = sim.now
        free = self.free
        group_end = self.group_end
        tpr = self.tpr
        assigned = self.assigned
        round_done = self.round_done
        service = self.service
        gpu_out = self.gpu
        start_out = self.start_time
        first = self.recorder.first_start
        prof = self.prof
        offset = self.offset
        rounds_run = self.rounds_run
        pat_cache = self._pat_cache
        gsize = self._gsize
        trace = self.trace
        touched: list[int] = []
        any_idle = self.any_idle
        gpu_end: dict[int, float] = {}
        gang = self.gang
        rank = self._rank
        while opn:
            if skip:  # a later job that fits may start (backfilling)
                ready = self._pick(len(opn))
                if ready is None:
                    break
            elif not ready:
                break
            key = ready[0]
            n = key[-1]
            if gang == "block" and assigned[n] == 0 and len(opn) < self.gang_width[n]:
                # gang scheduling: a round starts only on min(tasks_per_round, |M|) idle GPUs at
                # once (a round larger than the cluster then runs its further tasks as GPUs free);
                # the head job waits and nobody overtakes it (Gavel_FIFO)
                break
            p = prof[n]
            # the idle group fastest for n (over its free GPUs); ties: lowest index
            if len(opn) == 1:
                u = opn[0]
            elif self.oblivious:  # heterogeneity-oblivious placement: any idle group, uniformly at random
                u = self._draw(opn)
            elif rank is not None:
                u = min(opn, key=rank[p].__getitem__)
            else:
                u = -1
                best = -1.0
                for v in opn:
                    s = self._group_speed(v, p, free[v])
                    if s > best or (s == best and v < u):
                        best, u = s, v
            fu = free[u]
            a = assigned[n]
            k = tpr[n]
            rem = k - a
            pat = pat_cache.get((u, p, rem)) if len(fu) == gsize[u] else None
            if pat is None:
                pat = self._pattern(u, p, rem, fu)
            gpus, offs, tot, end_off, done_off, rest = pat
            c = len(gpus)
            base = offset[n] + rounds_run[n] * k + a
            gpu_out[base:base + c] = gpus
            start_out[base:base + c] = [t] * c if offs is None else [t + o for o in offs]
            service[n] += tot
            if any_idle:
                tcp = self.tc[p]
                for i, m in enumerate(gpus):
                    e = t + (0.0 if offs is None else offs[i]) + tcp[m]
                    if e > gpu_end.get(m, -1.0):
                        gpu_end[m] = e
            elif u in touched:
                if t + end_off > group_end[u]:
                    group_end[u] = t + end_off
            else:
                group_end[u] = t + end_off
                touched.append(u)
            rd = t + done_off
            if rd < round_done[n]:
                rd = round_done[n]
            round_done[n] = rd
            if first[n] is None:
                first[n] = t
            if trace:
                self.log.append((t, n, rounds_run[n], u, list(gpus)))
            self.assignments += 1
            # shrink the group's free list, close it when full
            if rest:
                free[u] = rest
            else:
                free[u] = []
                opn.remove(u)
                if self.oblivious:
                    self._okind[self._kind[u]].remove(u)
            a += c
            assigned[n] = a
            if a == k:
                _heappop(ready)
                sim.at(rd, ROUND_DONE, n, ROUND_DONE)
            elif key[1]:  # now partially scheduled: first in its queue from here on
                if skip:
                    _heappop(ready)
                    _heappush(self._pheap, key[:1] + (0,) + key[2:])
                else:
                    ready[0] = key[:1] + (0,) + key[2:]
        for m, e in gpu_end.items():
            sim.at(e, GPU_IDLE, m, GROUP_IDLE)
        for u in touched:
            if u in opn:
                opn.remove(u)
                if self.oblivious:
                    self._okind[self._kind[u]].remove(u)
            sim.at(group_end[u], GROUP_IDLE, u, GROUP_IDLE)
