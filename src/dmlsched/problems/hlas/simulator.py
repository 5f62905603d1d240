"""The HLAS execution model: the shared engine's loop (:mod:`dmlsched.sim`) fused with the policy.

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

import bisect
import heapq
import math
import random
from typing import Sequence

from ...sim import Recorder, Simulation, gc_paused
from .instance import HlasInstance
from .policies import Rule, View

# event kinds double as their priority within an instant (GPU_IDLE has GROUP_IDLE's priority)
GROUP_IDLE, ROUND_DONE, ARRIVAL, GPU_IDLE = 0, 1, 2, 3
#: an event's order within an instant is ``priority << ORDER_BITS | push number``
ORDER_BITS = 48

_heappush = heapq.heappush
_heappop = heapq.heappop
_NONE: list = []  # stands for a list never used (group_idle "any" touches no group)


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


#: open groups up to which a decision scans them for the fastest (cheaper than the index up to
#: about that many); above it the index answers; both give the same group
SCAN_MAX = 8


class IdleIndex:
    """The fastest idle group for a job profile, kept as GPUs are taken and freed.

    A group's speed for a job profile ``p`` is the sum of ``1/(T^c + T^s)`` over
    its free GPUs, added in the order of its free list (so the floats, hence the
    ties, are those of a plain sum over that list).  Every free list met is a
    *state* (an id; :meth:`state`), and its speed depends only on its *class*,
    the sequence of its GPU types.  The index keeps, for every class, the open
    groups in it as a bit mask, so moving a group between states costs ``O(1)``
    whatever the number of profiles; the transitions of a state when one GPU
    returns (:meth:`add`) are remembered, so a returning GPU costs one lookup.

    :meth:`fastest` answers "the open group with the largest speed for ``p``,
    ties lowest index".  With at most ``scan_max`` open groups it scans them
    (one list access each); otherwise it walks the classes in the order of their
    speed for ``p`` (levels of exactly equal speed together; sorted once per
    profile, new classes inserted as they appear) to the first level holding an
    open group, and takes that level's lowest group: ``O(1)`` when the fastest
    classes are occupied, at most the number of classes.  When the classes
    outnumber the open groups several times (large groups, whose free lists have
    many type sequences, and then few groups) it scans the groups instead.
    ``scan_max < 0`` never scans (tests of the index).
    """

    __slots__ = ("open", "scan_max", "gstate", "cmask", "sfree", "sclass", "bit", "csp", "_sp", "_type",
                 "_state", "_cls", "_ctypes", "_levels", "_added", "_pos")

    def __init__(self, groups: Sequence[Sequence[int]], speeds: Sequence[Sequence[float]],
                 gpu_type: Sequence[int], scan_max: int = SCAN_MAX, pos: Sequence[int] | None = None) -> None:
        self._sp = [list(s) for s in speeds]  # per profile, per GPU
        self._type = list(gpu_type)  # type index of every GPU
        self._pos = list(pos) if pos is not None else None  # position of every GPU in its group
        self._state: dict[tuple[int, ...], int] = {}  # free list -> state id
        self.sfree: list[list[int]] = []  # state id -> its free list (shared, never changed in place)
        self.sclass: list[int] = []  # state id -> class id
        self._cls: dict[tuple[int, ...], int] = {}  # type sequence -> class id
        self._ctypes: list[tuple[int, ...]] = []  # class id -> a free list of that type sequence
        self.cmask: list[int] = []  # class id -> bit mask of its open groups
        self.csp: dict[int, list[float]] = {}  # profile -> speed of every class (see :meth:`speeds`)
        self._levels: dict[int, tuple[int, list[tuple[float, int]], list[list[int]]]] = {}
        self._added: list[dict[int, int]] = [{} for _ in self._type]  # per GPU: state -> state with it back
        self.scan_max = scan_max
        self.open: list[int] = []
        self.bit = [1 << v for v in range(len(groups))]
        self.gstate = [-1] * len(groups)
        for v, g in enumerate(groups):
            self.move(v, self.state(g))
        self.open.extend(range(len(groups)))

    @property
    def num_classes(self) -> int:
        return len(self._ctypes)

    def state(self, free: Sequence[int]) -> int:
        """The id of the free list ``free`` (its GPUs in that order); new lists get new ids."""
        key = tuple(free)
        s = self._state.get(key)
        if s is None:
            s = self._state[key] = len(self.sclass)
            tkey = tuple(self._type[m] for m in key)
            c = self._cls.get(tkey)
            if c is None:
                c = self._cls[tkey] = len(self._ctypes)
                self._ctypes.append(key)
                self.cmask.append(0)
            self.sclass.append(c)
            self.sfree.append(list(key))
        return s

    def add(self, s: int, m: int) -> int:
        """The state of free list ``s`` (``-1``: empty) with GPU ``m`` back, in group order."""
        back = self._added[m]
        s2 = back.get(s)
        if s2 is None:
            fl = [m] if s < 0 else self.sfree[s] + [m]
            if self._pos is not None:
                fl.sort(key=self._pos.__getitem__)
            s2 = back[s] = self.state(fl)
        return s2

    def move(self, v: int, s: int) -> None:
        """Group ``v`` is open with the free list of state ``s``."""
        c = self.sclass[s]
        old = self.sclass[self.gstate[v]] if self.gstate[v] >= 0 else -1
        if old != c:
            if old >= 0:
                self.cmask[old] ^= self.bit[v]
            self.cmask[c] |= self.bit[v]
        self.gstate[v] = s

    def close(self, v: int) -> None:
        """Group ``v`` takes no more work (it has no free GPU, or waits for all of them)."""
        if self.gstate[v] >= 0:
            self.cmask[self.sclass[self.gstate[v]]] ^= self.bit[v]
        self.gstate[v] = -1

    def speeds(self, p: int) -> list[float]:
        """Speed of every class for profile ``p`` (extended as classes appear)."""
        csp = self.csp.get(p)
        if csp is None:
            csp = self.csp[p] = []
        if len(csp) < len(self._ctypes):
            sp = self._sp[p]
            csp.extend(sum(sp[m] for m in key) for key in self._ctypes[len(csp):])
        return csp

    def fastest(self, p: int) -> int:
        """The open group with the largest speed for profile ``p`` (ties: lowest index)."""
        opn = self.open
        csp = self.csp.get(p)
        if csp is None or len(csp) < len(self._ctypes):
            csp = self.speeds(p)
        sm = self.scan_max
        if len(opn) <= sm or (sm >= 0 and len(csp) > 4 * len(opn) + 16):
            gstate, sclass = self.gstate, self.sclass
            u = -1
            best = -1.0
            for v in opn:
                s = csp[sclass[gstate[v]]]
                if s > best or (s == best and v < u):
                    best, u = s, v
            return u
        lv = self._levels.get(p)
        if lv is None or lv[0] < len(csp):
            lv = self._sort(p, csp)
        cmask = self.cmask
        for level in lv[2]:
            if len(level) == 1:
                mask = cmask[level[0]]
            else:
                mask = 0
                for c in level:
                    mask |= cmask[c]
            if mask:
                return (mask & -mask).bit_length() - 1
        raise AssertionError("an open group is in no class")  # pragma: no cover

    def _sort(self, p: int, csp: list[float]) -> tuple:
        """The classes in decreasing speed for ``p``, as levels of equal speed."""
        old = self._levels.get(p)
        order = old[1] if old is not None else []
        for c in range(len(order), len(csp)):
            bisect.insort(order, (-csp[c], c))
        levels: list[list[int]] = []
        last = None
        for ns, c in order:
            if ns == last:
                levels[-1].append(c)
            else:
                levels.append([c])
                last = ns
        # flat: a level of one class is its id, a level of several is ~(its index in the last item)
        multi = [lv for lv in levels if len(lv) > 1]
        flat, k = [], 0
        for lv_ in levels:
            if len(lv_) == 1:
                flat.append(lv_[0])
            else:
                flat.append(~k)
                k += 1
        lv = self._levels[p] = (len(csp), order, levels, flat, multi)
        return lv


class HlasSimulator:
    """A priority :class:`Rule` run on GPU groups.

    :meth:`run` is :meth:`dmlsched.sim.Simulation.run` with this policy fused
    into the loop (same order of events, instants and decisions).  How a policy
    plugs in: a :class:`Rule` (``policies.py``) turns what a non-clairvoyant
    policy may see into a priority key; :data:`policies.RULES` maps names to
    rules and the registered methods (``heuristics.py``, ``baselines.py``) pass one here.  The
    rule is called at each arrival and round end, never per event.

    After :meth:`run`, ``gpu`` and ``start_time`` hold the
    GPU and start time of every task in Hare's global task numbering (task
    ``k`` of a round = the ``k``-th task assigned), ``recorder`` the per-job
    times, and ``log`` (if ``trace``) every assignment as
    ``(time, job, round, group, [gpus])``.

    The fastest idle group is kept by an :class:`IdleIndex` (``scan_max``:
    see :data:`SCAN_MAX`; the answer does not depend on it).  ``gang``
    (``None``, ``"block"``, ``"skip"``) and ``placement`` (``"fastest"``,
    ``"oblivious"``) are not re-checked here: the policies pass the values
    that :class:`~.heuristics.Readings` checked.
    """

    def __init__(self, inst: HlasInstance, rule: Rule, groups: Sequence[Sequence[int]], *,
                 trace: bool = False, whole_round: bool = False, one_per_gpu: bool = False,
                 tbar_groups: int | None = None, gang: str | None = None, any_idle: bool = False,
                 placement: str = "fastest", seed: int = 0, scan_max: int = SCAN_MAX) -> None:
        self.inst = inst
        if gang is not None and any(len(g) != 1 for g in groups):
            raise ValueError("gang scheduling is defined for one group per GPU only (pass gang=None for runs on "
                             "GPU groups)")
        self.oblivious = placement == "oblivious"
        self.seed = seed
        self.scan_max = scan_max
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
        self._rmul = max(self.tpr, default=0) + 1  # pattern keys: (state * profiles + profile) * _rmul + tasks
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
        self._pat_cache: dict[int, tuple] = {}  # (state * profiles + profile) * _rmul + tasks -> pattern
        self._ord_cache: dict[int, tuple[list[int], tuple[int, ...]]] = {}  # state * profiles + profile -> order
        self._shapes: dict[tuple, tuple] = {}  # (profile and GPU types in order, tasks) -> batch
        self._gsize = [len(g) for g in self.groups]

    # -- the run ------------------------------------------------------------
    def _init_state(self) -> None:
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
        types = {g: i for i, g in enumerate(inst.gpu_types)}
        self.idle = IdleIndex(self.groups, self.speed, [types[g] for g in inst.gpus], self.scan_max, self.pos)
        self._full_state = [self.idle.state(g) for g in self.groups]  # free lists of the whole groups
        self.open: list[int] = self.idle.open  # idle groups (shared with the index)
        # oblivious placement: the idle groups of each kind (see __init__)
        self._okind: list[list[int]] = [[] for _ in range(self._nkinds)]
        for u in self.open:
            self._okind[self._kind[u]].append(u)
        self.group_end = [0.0] * len(self.groups)
        self.assignments = 0

    def run(self) -> Simulation:
        """Simulate to the end; returns the :class:`~dmlsched.sim.Simulation` record
        (``now``, ``events``, ``decisions``).

        The loop is the engine's (:meth:`dmlsched.sim.Simulation.run`) with the policy
        fused in: events ordered by ``(time, priority, push order)``; at each instant
        every event is handled, then one decision fills the idle groups; events pushed
        at the current instant are handled in it, followed by another decision.  Fusing
        saves the two calls per event of the generic protocol, about as much time as the
        event itself costs (``benchmarks/hlas_perf.py``).  The cyclic garbage collector is
        paused meanwhile (:func:`dmlsched.sim.gc_paused`).
        """
        with gc_paused():
            return self._run()

    def _run(self) -> Simulation:
        self._init_state()
        sim = Simulation()
        # state, bound to locals for the loop
        rule_key = self.rule.key
        skip = self._wheaps is not None
        ready = self.ready
        wheap_of = self._wheap_of if skip else None
        gang_width = self.gang_width
        pheap = self._pheap
        opn = self.open
        group_of = self.group_of
        okind = self._okind
        kind_of = self._kind
        group_end = self.group_end
        tpr = self.tpr
        rounds = self.rounds
        assigned = self.assigned
        round_done = self.round_done
        service = self.service
        gpu_out = self.gpu
        start_out = self.start_time
        finish = self.recorder.finish_time
        first = self.recorder.first_start
        prof = self.prof
        offset = self.offset
        rounds_run = self.rounds_run
        pat_cache = self._pat_cache
        pattern = self._pattern
        trace = self.trace
        log = self.log
        any_idle = self.any_idle
        block = self.gang == "block"
        oblivious = self.oblivious
        draw = self._draw
        pick = self._pick
        # the idle-group index, its arrays bound here (moves between states are inlined)
        idle = self.idle
        fastest = idle.fastest
        speeds = idle.speeds
        levels_of = idle._levels
        gstate, cmask, bit = idle.gstate, idle.cmask, idle.bit  # a group's class: sclass[gstate[u]]
        sfree, sclass = idle.sfree, idle.sclass
        added, add = idle._added, idle.add
        full = self._full_state
        csp_of = idle.csp
        scan_max = self.scan_max
        nprof = len(self.tc)
        rmul = self._rmul
        push, pop = _heappush, _heappop
        neg_inf = -math.inf
        assignments = 0
        # the event queue: (time, order, code) with order = priority << ORDER_BITS | push number
        # (priority = the kind's; GPU_IDLE: GROUP_IDLE's), i.e. (time, priority, push order); code = the
        # GPU of a GPU_IDLE event (the most frequent: no decoding), ~(payload << 2 | kind) for the others.
        # Arrivals, known in advance, enter one at a time (the next when one is handled): the same
        # order of events as a heap holding them all from the start, in a heap of the running work.
        # Every event pushed is handled: their number is the pushes'.
        heap: list[tuple[float, int, int]] = []
        seq = 0
        o_round = ROUND_DONE << ORDER_BITS
        rcode = [~(n << 2 | ROUND_DONE) for n in range(self.inst.num_jobs)]
        o_arrival = ARRIVAL << ORDER_BITS
        arr = sorted(range(self.inst.num_jobs), key=lambda i: (self.arrival[i], i))
        arr_t = [float(self.arrival[n]) for n in arr]
        na = len(arr)
        ai = 0
        if na:
            heap.append((arr_t[0], o_arrival | seq, ~(arr[0] << 2 | ARRIVAL)))
            seq += 1
            ai = 1
        more = 0  # events handled after the first of their instant (decisions = events - more)
        t = 0.0
        while heap:
            t, _, code = pop(heap)
            # every event of this instant
            while True:
                if code >= 0:  # GPU_IDLE (group_idle="any"): GPU code returns to its group, open again
                    u = group_of[code]
                    s = gstate[u]
                    s2 = added[code].get(s)
                    if s2 is None:
                        s2 = add(s, code)
                    gstate[u] = s2
                    if s < 0:
                        opn.append(u)
                        if oblivious:
                            okind[kind_of[u]].append(u)
                        cmask[sclass[s2]] |= bit[u]
                    else:  # a free list one GPU longer is always of another class
                        b = bit[u]
                        cmask[sclass[s]] ^= b
                        cmask[sclass[s2]] |= b
                elif (code := ~code) & 3 == ROUND_DONE:
                    x = code >> 2
                    r = rounds_run[x] + 1
                    rounds_run[x] = r
                    if r == rounds[x]:  # the policy learns that no round follows
                        finish[x] = t
                    else:
                        assigned[x] = 0
                        round_done[x] = neg_inf
                        push(wheap_of[gang_width[x]] if skip else ready, rule_key(x, r, service[x]))
                elif code & 3 == ARRIVAL:
                    x = code >> 2
                    push(wheap_of[gang_width[x]] if skip else ready, rule_key(x, 0, 0.0))
                    if ai < na:
                        push(heap, (arr_t[ai], o_arrival | seq, ~(arr[ai] << 2 | ARRIVAL)))
                        seq += 1
                        ai += 1
                else:  # GROUP_IDLE
                    x = code >> 2
                    opn.append(x)
                    if oblivious:
                        okind[kind_of[x]].append(x)
                    s2 = full[x]
                    cmask[sclass[s2]] |= bit[x]
                    gstate[x] = s2
                try:
                    if heap[0][0] != t:
                        break
                except IndexError:  # no event left
                    break
                _, _, code = pop(heap)
                more += 1
            # one decision: fill the idle groups
            if not opn or (not ready and not skip):
                continue
            touched: list[int] = [] if not any_idle else _NONE
            q = ready
            while opn:
                if skip:  # a later job that fits may start (backfilling)
                    q = pick(len(opn))
                    if q is None:
                        break
                elif not q:
                    break
                key = q[0]
                n = key[-1]
                if block and assigned[n] == 0 and len(opn) < gang_width[n]:
                    # gang scheduling: a round starts only on min(tasks_per_round, |M|) idle GPUs at
                    # once (a round larger than the cluster then runs its further tasks as GPUs free);
                    # the head job waits and nobody overtakes it (Gavel_FIFO)
                    break
                p = prof[n]
                # the idle group fastest for n (over its free GPUs); ties: lowest index
                no = len(opn)
                if no == 1:
                    u = opn[0]
                elif oblivious:  # heterogeneity-oblivious placement: any idle group, uniformly at random
                    u = draw(opn)
                elif no <= scan_max:
                    csp = csp_of.get(p)
                    if csp is None or len(csp) < len(cmask):
                        csp = speeds(p)
                    u = -1
                    best = -1.0
                    for v in opn:
                        sv = csp[sclass[gstate[v]]]
                        if sv > best or (sv == best and v < u):
                            best, u = sv, v
                else:
                    # the class index: the first level (classes of equal speed) holding an open group
                    lv = levels_of.get(p)
                    u = -1
                    if lv is not None and lv[0] == len(cmask):
                        multi = lv[4]
                        for cl in lv[3]:
                            if cl >= 0:
                                mask = cmask[cl]
                            else:
                                mask = 0
                                for c in multi[~cl]:
                                    mask |= cmask[c]
                            if mask:
                                u = (mask & -mask).bit_length() - 1
                                break
                    if u < 0:  # classes appeared since the levels were made, or many classes: the general path
                        u = fastest(p)
                a = assigned[n]
                k = tpr[n]
                rem = k - a
                su = gstate[u]
                pat = pat_cache.get((su * nprof + p) * rmul + rem)
                if pat is None:
                    pat = pattern(u, p, rem, sfree[su])
                gpus, c, offs, tot, end_off, done_off, ends, rest_state = pat
                base = offset[n] + rounds_run[n] * k + a
                service[n] += tot
                if c == 1:  # one task, at t (the first task of a batch starts at once)
                    gpu_out[base] = gpus[0]
                    start_out[base] = t
                else:
                    gpu_out[base:base + c] = gpus
                    start_out[base:base + c] = [t] * c if offs is None else [t + o for o in offs]
                if any_idle:
                    # each GPU is free again when its last task's training ends
                    if c == 1:
                        code, _, d = ends[0]
                        push(heap, (t + d, seq, code))
                        seq += 1
                    elif offs is None:
                        for code, _, d in ends:
                            push(heap, (t + d, seq, code))
                            seq += 1
                    else:
                        for code, o, d in ends:
                            push(heap, (t + o + d, seq, code))
                            seq += 1
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
                if trace:
                    log.append((t, n, rounds_run[n], u, list(gpus)))
                assignments += 1
                # shrink the group's free list, close it when full
                b = bit[u]
                cmask[sclass[su]] ^= b
                gstate[u] = rest_state
                if rest_state >= 0:  # a shorter free list is always of another class
                    cmask[sclass[rest_state]] |= b
                else:
                    opn.remove(u)
                    if oblivious:
                        okind[kind_of[u]].remove(u)
                a += c
                assigned[n] = a
                if a == k:
                    pop(q)
                    push(heap, (rd, o_round | seq, rcode[n]))
                    seq += 1
                elif key[1]:  # now partially scheduled: first in its queue from here on
                    if skip:
                        pop(q)
                        push(pheap, key[:1] + (0,) + key[2:])
                    else:
                        q[0] = key[:1] + (0,) + key[2:]
            for u in touched:
                if u in opn:
                    opn.remove(u)
                    idle.close(u)
                    if oblivious:
                        okind[kind_of[u]].remove(u)
                push(heap, (group_end[u], seq, ~(u << 2 | GROUP_IDLE)))
                seq += 1
        self.assignments = assignments
        # a job's first start: its first task's (the first task of a batch starts at its time)
        for n, r in enumerate(rounds_run):
            if r or assigned[n]:
                first[n] = start_out[offset[n]]
        sim.now, sim.events, sim.decisions = t, seq, seq - more
        return sim

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

        Returns ``(gpus, number of gpus, start_offsets, sum_tc, train_end_offset, done_offset,
        ends, rest_state)``: ``ends`` holds ``(code, offset, T^c)`` of the last task on each GPU
        used, in order of first use (that task's training ends at ``(t + offset) + T^c``;
        ``code`` is the code of its ``GPU_IDLE`` event in the loop's queue, the GPU itself);
        ``rest_state`` is the index's state of the free GPUs left (-1 if none).
        Cached by ``(free list, p, rem)``, on which patterns depend; the batch itself
        depends only on the GPU types of the free GPUs in the job's order, so it is
        computed once per type sequence (:meth:`_shape`) and mapped onto the GPUs.
        """
        sid = self.idle.gstate[u]  # the state id of fu
        nprof = len(self.tc)
        okey = sid * nprof + p
        od = self._ord_cache.get(okey)
        if od is None:
            fs = set(fu)
            order = [m for m in self._gpu_order(u, p) if m in fs]
            types = self.idle._type
            od = self._ord_cache[okey] = (order, (p,) + tuple(types[m] for m in order))
        order, tkey = od
        shape = self._shapes.get((tkey, rem))
        if shape is None:
            shape = self._shapes[(tkey, rem)] = self._shape(order, p, rem)
        pos, offs, tot, end, done, rest_pos, ends_pos = shape
        gpus = [order[i] for i in pos]
        rest_state = -1
        if rest_pos:
            rest_state = self.idle.state([order[i] for i in rest_pos])
        ends = tuple((order[i], o, d) for i, o, d in ends_pos)
        pat = (gpus, len(gpus), offs, tot, end, done, ends, rest_state)
        self._pat_cache[okey * self._rmul + rem] = pat
        return pat

    def _shape(self, order: list[int], p: int, rem: int) -> tuple:
        """The batch of ``rem`` tasks of profile ``p`` on the free GPUs ``order`` (fastest first),
        in positions of ``order``: ``(positions, start_offsets or None, sum_tc, train_end_offset,
        done_offset, rest_positions, ends)`` with ``ends`` = ``(position, offset, T^c)``."""
        tcp = self.tc[p]
        tsp = self.ts[p]
        if len(order) == 1 and not self.whole_round:
            gpus, offs = list(order), [0.0]
        elif self.one_per_gpu:  # group mode "gpuset": one task on each of the fastest free GPUs
            gpus, offs = order[:rem], [0.0] * min(rem, len(order))
        else:
            gpus, offs = _batch(order, tcp, rem, 0.0, self.whole_round)
        at = {m: i for i, m in enumerate(order)}
        used = set(gpus)
        rest_pos = [i for i, m in enumerate(order) if m not in used]
        tot = 0.0
        end = 0.0
        done = 0.0
        last: dict[int, float] = {}
        for m, o in zip(gpus, offs):
            d = tcp[m]
            tot += d
            if o + d > end:
                end = o + d
            if o + d + tsp[m] > done:
                done = o + d + tsp[m]
            last[m] = o  # tasks on one GPU follow each other: the last ends last
        zero = all(o == 0.0 for o in offs)
        ends = tuple((at[m], o, tcp[m]) for m, o in last.items())
        return ([at[m] for m in gpus], None if zero else offs, tot, end, done, rest_pos, ends)

    def _draw(self, opn: list[int]) -> int:
        """An idle group drawn uniformly at random, neutral to the order of the GPUs: a
        uniform index into the idle groups listed kind by kind (kinds in sorted order)."""
        r = self._rng.randrange(len(opn))
        for groups in self._okind:
            if r < len(groups):
                return groups[r]
            r -= len(groups)
        raise AssertionError("unreachable")  # pragma: no cover

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
