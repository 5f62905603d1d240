"""Allocation rules of the paper's policies (Fujiwara et al., Section IV, V-B)
as pure functions of a cluster snapshot.

Every rule has the signature ``rule(inst, cluster, queue, vrem, current) -> dict``
mapping task index -> allocation ``(share_den, gpus)``; tasks of ``queue``
without an entry stay queued (or are suspended).  ``queue`` is the list ``Q``
of tasks the rule may allocate, in arrival order; ``vrem[k]`` their remaining
volume; ``current[k]`` the allocation a (malleable) task holds right now
(``None`` otherwise), only used to prefer its current GPUs when several are
equally valid ("first-found GPU" searches the current GPUs first).  The rule
mutates ``cluster`` (a scratch snapshot) as it allocates.

Readings of the paper are documented in ``models/moldable.md``.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from ...options import OptionError
from .dhondt import dhondt
from .instance import MoldableInstance

Alloc = tuple[int, tuple[int, ...]]  # (share_den, gpus)

#: tolerance for sums of unit fractions on one GPU
EPS = 1e-9


class Cluster:
    """A mutable snapshot of the GPUs: available share, memory, task counts.

    Attributes
    ----------
    avl
        ``p_i^avl = 1 - sum of shares of the tasks on GPU i``.
    mem
        ``m_i^avl``: free device memory.
    count
        Number of running (or, inside Equipartition case 4, pre-assigned) tasks.
    now, ends
        The simulation time and ``(completion time, GPUs)`` of every running
        task (set by the moldable simulator; EASY backfilling reads them).
    """

    __slots__ = ("avl", "mem", "count", "now", "ends")

    def __init__(self, avl: np.ndarray, mem: np.ndarray, count: np.ndarray):
        self.avl = avl
        self.mem = mem
        self.count = count
        self.now = 0.0
        self.ends: list[tuple[float, int]] = []

    @staticmethod
    def empty(gpus: int, gpu_memory: float) -> "Cluster":
        return Cluster(np.ones(gpus), np.full(gpus, float(gpu_memory)), np.zeros(gpus, dtype=np.int64))

    def copy(self) -> "Cluster":
        return Cluster(self.avl.copy(), self.mem.copy(), self.count.copy())

    # -- aggregate quantities -------------------------------------------
    def vacant(self) -> np.ndarray:
        """``A``: indices of GPUs without running tasks, increasing."""
        return np.flatnonzero(self.count == 0)

    def total_avl(self) -> float:
        return float(self.avl.sum())

    # -- allocation primitives ------------------------------------------
    def take(self, alloc: Alloc, memory: float) -> None:
        den, gpus = alloc
        share = 1.0 / den
        if len(gpus) > 4:
            ix = np.fromiter(gpus, dtype=np.int64, count=len(gpus))
            self.avl[ix] -= share
            self.mem[ix] -= memory
            self.count[ix] += 1
            return
        for g in gpus:
            self.avl[g] -= share
            self.mem[g] -= memory
            self.count[g] += 1

    def release(self, alloc: Alloc, memory: float) -> None:
        den, gpus = alloc
        share = 1.0 / den
        ix = np.fromiter(gpus, dtype=np.int64, count=len(gpus))
        self.avl[ix] += share
        self.mem[ix] += memory
        self.count[ix] -= 1
        empty = ix[self.count[ix] == 0]
        self.avl[empty] = 1.0  # cancel rounding drift on empty GPUs

    def find_share(self, den: int, memory: float, prefer: Alloc | None = None) -> int | None:
        """First-found GPU with ``p_avl >= 1/den`` and ``m_avl >= memory``."""
        need = 1.0 / den - EPS
        if prefer is not None:
            for g in prefer[1]:
                if self.avl[g] >= need and self.mem[g] >= memory:
                    return int(g)
        ok = np.flatnonzero((self.avl >= need) & (self.mem >= memory))
        return int(ok[0]) if ok.size else None

    def find_dedicated(self, n: int, prefer: Alloc | None = None) -> tuple[int, ...] | None:
        """``n`` vacant GPUs (lowest indices; the task's current ones first)."""
        count = self.count
        if prefer is not None:
            pg = prefer[1]
            if len(pg) <= 4:
                cur = [g for g in pg if count[g] == 0][:n]
            else:
                ix = np.fromiter(pg, dtype=np.int64, count=len(pg))
                cur = ix[count[ix] == 0][:n].tolist()
            if len(cur) == n:
                return tuple(sorted(cur))
            if cur:
                mask = count == 0
                mask[cur] = False
                rest = np.flatnonzero(mask)[: n - len(cur)]
                if rest.size < n - len(cur):
                    return None
                return tuple(sorted(cur + rest.tolist()))
        vac = np.flatnonzero(count == 0)
        if vac.size < n:
            return None
        return tuple(vac[:n].tolist())

    def allocate(self, amount_den: int, amount_n: int, memory: float, prefer: Alloc | None = None) -> Alloc | None:
        """Allocate ``1/amount_den`` of one GPU (``amount_den > 1``) or
        ``amount_n`` dedicated GPUs (``amount_den == 1``); ``None`` if impossible."""
        if amount_den > 1 or amount_n == 1:
            if amount_den == 1:
                # one whole GPU: a vacant one
                got = self.find_dedicated(1, prefer)
                if got is None:
                    return None
                alloc: Alloc = (1, got)
            else:
                g = self.find_share(amount_den, memory, prefer)
                if g is None:
                    return None
                alloc = (amount_den, (g,))
        else:
            got = self.find_dedicated(amount_n, prefer)
            if got is None:
                return None
            alloc = (1, got)
        self.take(alloc, memory)
        return alloc


def dedicated_batch(cluster: Cluster, items: list[tuple[int, int]], current, memory: list[float]) -> dict[int, Alloc]:
    """Allocate ``n`` dedicated vacant GPUs to every ``(k, n)`` of ``items``.

    A task first keeps as many of its current GPUs as its new amount allows
    (its lowest-index ones; so an unchanged amount means an unchanged
    allocation, not a migration); the rest are the lowest-index vacant GPUs
    left, in the order of ``items``.  Items that no longer fit are left out.
    Without current allocations the tasks get consecutive runs of the vacant
    GPUs, in the order of ``items``.
    """
    count = cluster.count
    vac = np.flatnonzero(count == 0)
    out: dict[int, Alloc] = {}
    if not current:
        fill = vac.tolist()
        nf = len(fill)
        pos = 0
        sizes: list[int] = []
        mems: list[float] = []
        for k, n in items:
            if n > nf - pos:
                continue
            out[k] = (1, tuple(fill[pos:pos + n]))
            pos += n
            sizes.append(n)
            mems.append(memory[k])
        if pos:
            ix = vac[:pos]
            cluster.avl[ix] -= 1.0
            count[ix] += 1
            if any(mems):
                cluster.mem[ix] -= np.repeat(mems, sizes)
        return out
    free = set(vac.tolist())
    keep: list[list[int]] = []
    for k, n in items:
        cur = current.get(k)
        if cur is not None and cur[0] == 1:
            kept = [g for g in cur[1] if g in free]  # its current vacant GPUs, lowest first
            kept.sort()
            if len(kept) > n:
                kept = kept[:n]
            free.difference_update(kept)
        else:
            kept = []
        keep.append(kept)
    fill = sorted(free)
    pos = 0
    used: list[int] = []
    sizes = []
    mems = []
    for (k, n), kept in zip(items, keep):
        need = n - len(kept)
        if need > len(fill) - pos:
            continue
        if need:
            gl = kept + fill[pos : pos + need]
            pos += need
            gl.sort()
        else:
            gl = kept
        out[k] = (1, tuple(gl))
        used.extend(gl)
        sizes.append(len(gl))
        mems.append(memory[k])
    if used:
        ix = np.array(used, dtype=np.int64)
        cluster.avl[ix] -= 1.0
        cluster.count[ix] += 1
        if any(mems):
            cluster.mem[ix] -= np.repeat(mems, sizes)
    return out


def _prefer(current: dict[int, Alloc | None], k: int) -> Alloc | None:
    return current.get(k) if current else None


def _alloc_amount(inst, cluster, k, p_den, p_n, current):
    return cluster.allocate(p_den, p_n, float(inst.memory[k]), _prefer(current, k))


# ---------------------------------------------------------------------------
# Rigid
#: queue disciplines of the rigid policies (readings of "Rigid FCFS", Section V-B)
QUEUES = ("first-fit", "strict", "easy")


def rigid(order_key: str, queue: str = "first-fit", *, blocking: bool | None = None) -> Callable:
    """Rigid FCFS (``order_key="arrival"``) or Rigid Shortest (``"volume"``):
    allocate the requested ``p_k^req`` dedicated GPUs (the paper's rigid
    setting ``(p^min, p^max) = (p^req, p^req)``; ``p_max`` when the task has
    no ``p_req``) to each queued task in that order.

    ``queue`` says what happens after a task that does not fit:

    * ``"first-fit"``: the scan goes on, later tasks that fit start
      (backfilling without reservations; how PBS Pro behaves unless
      ``strict_ordering`` is set);
    * ``"strict"``: the scan stops (no task overtakes a waiting one);
    * ``"easy"``: EASY backfilling: the first task that does not fit gets a
      reservation at the earliest time enough GPUs are free (running tasks'
      known completions); later tasks start only if they fit now and finish by
      then or use GPUs the reservation leaves over.

    ``blocking=True`` is the old spelling of ``queue="strict"``.
    """
    if blocking is not None:
        queue = "strict" if blocking else "first-fit"
    if queue not in QUEUES:
        raise OptionError("queue", f"must be one of {QUEUES}, got {queue!r}")

    def rule(inst: MoldableInstance, cluster: Cluster, queue_: Sequence[int], vrem, current) -> dict[int, Alloc]:
        out: dict[int, Alloc] = {}
        ks = list(queue_)
        if order_key == "volume":
            ks.sort(key=lambda k: (inst.tasks[k].volume, _pos(inst, k)))
        free = int((cluster.count == 0).sum())
        req = inst._request_list
        now = cluster.now
        started: list[tuple[float, int]] = []
        shadow: float | None = None  # EASY: reservation time of the blocked head
        extra = 0
        for k in ks:
            pm = req[k]
            if pm > free:
                if queue == "strict":
                    break
                if queue == "easy" and shadow is None:
                    avail = free
                    shadow = math.inf
                    for end, n in sorted(list(cluster.ends) + started):
                        avail += n
                        if avail >= pm:
                            shadow, extra = end, avail - pm
                            break
                continue
            if shadow is not None:  # EASY backfill: must not delay the reservation
                run_k = inst.runtime(k, float(pm))
                if now + run_k <= shadow + EPS * max(1.0, abs(shadow)):
                    pass
                elif pm <= extra:
                    extra -= pm
                else:
                    continue
            a = _alloc_amount(inst, cluster, k, 1, pm, current)
            if a is None:  # pragma: no cover - free GPUs were counted
                continue
            out[k] = a
            free -= pm
            started.append((now + inst.runtime(k, float(pm)), pm))
            if free == 0:
                break
        return out

    return rule


def _pos(inst: MoldableInstance, k: int) -> int:
    return int(inst._arrival_rank[k])


# ---------------------------------------------------------------------------
# the two cases shared by Equipartition and Proportional
def _all_blocked(inst: MoldableInstance, failed: list[tuple[int, float]], no_vacant: bool) -> bool:
    """Whether no task of the instance can fit any more in case 1's scan: every
    (share, memory) class of the instance needs at least the share and memory of
    a task that failed (capacity only shrinks during the scan), and no vacant GPU
    is left for whole-GPU tasks.  Only an early exit: ``False`` when unsure."""
    classes = inst._share_classes
    if classes is None or (inst._has_whole_gpu_tasks and not no_vacant):
        return False
    return all(any(fd >= cd and fm <= cm for fd, fm in failed) for cd, cm in classes)


def _case1_whole(cluster: Cluster, queue, current, mems: list[float]) -> dict[int, Alloc]:
    """Case 1 when every task of ``queue`` takes whole GPUs (``p_min = 1``): one vacant GPU
    each in queue order (a task's current GPU first, if vacant), until none is left.  The
    general loop of :func:`_common_cases` with the counts in a list and the cluster updated
    once at the end (the same values)."""
    cnt = cluster.count.tolist()
    vac = [g for g, c in enumerate(cnt) if c == 0]
    nv = len(vac)
    vi = 0
    out: dict[int, Alloc] = {}
    gs: list[int] = []
    ms: list[float] = []
    for k in queue:
        cur = current.get(k) if current else None
        g = -1
        if cur is not None and len(cur[1]) == 1 and cnt[cur[1][0]] == 0:
            g = cur[1][0]
        else:
            while vi < nv and cnt[vac[vi]] != 0:
                vi += 1
            if vi < nv:
                g = vac[vi]
        if g < 0:
            break  # no vacant GPU left, and no task can take a share
        cnt[g] += 1
        gs.append(g)
        ms.append(mems[k])
        out[k] = (1, (g,))
    if gs:
        ix = np.array(gs, dtype=np.int64)
        cluster.avl[ix] -= 1.0
        cluster.count[ix] += 1
        if any(ms):
            cluster.mem[ix] -= np.array(ms)
    return out


def _common_cases(inst, cluster, queue, current) -> dict[int, Alloc] | None:
    """Cases 1 and 2 of Section IV; ``None`` when neither applies."""
    dens = inst._pmin_den_list
    total_avl = cluster.total_avl()
    out: dict[int, Alloc] = {}
    # sum_{Q} p_min >= sum_G p_avl, summed only until it holds (positive terms:
    # the prefix reaches the threshold iff the whole sum does)
    pl = inst._pmin_list
    thr = total_avl - EPS
    sum_min = 0.0
    case1 = False
    for k in queue:
        sum_min += pl[k]
        if sum_min >= thr:
            case1 = True
            break
    if case1:
        # case 1: p_min to each task, arrival order, first-found GPU
        mems = inst._memory_list
        if len(queue) > 64:  # instance-wide extremes: the early exits below only fire later
            max_den, min_mem = inst._max_pmin_den, inst._min_memory
        else:
            max_den = max(map(dens.__getitem__, queue))
            min_mem = min(map(mems.__getitem__, queue))
        count, avl, mem = cluster.count, cluster.avl, cluster.mem
        if max_den == 1:
            return _case1_whole(cluster, queue, current, mems)
        vac = np.flatnonzero(count == 0).tolist()
        vi = 0  # vac[:vi] examined; taken vacant GPUs are marked in count
        no_vacant = False
        # capacity only shrinks during the scan, so a task needing at least as much
        # share and memory as one that failed fails too (skipped without a search);
        # once the smallest share with the smallest memory fails, nothing fits any more
        failed: list[tuple[int, float]] = []
        for k in queue:
            den = dens[k]
            if den == 1:
                if no_vacant:
                    continue
                cur = current.get(k) if current else None
                g = -1
                if cur is not None and len(cur[1]) == 1 and count[cur[1][0]] == 0:
                    g = cur[1][0]
                else:
                    while vi < len(vac) and count[vac[vi]] != 0:
                        vi += 1
                    if vi < len(vac):
                        g = vac[vi]
                if g < 0:
                    no_vacant = True
                    if max_den == 1 or avl.max() < 1.0 / max_den - EPS or _all_blocked(inst, failed, no_vacant):
                        break
                    continue
                avl[g] -= 1.0
                mem[g] -= mems[k]
                count[g] += 1
                out[k] = (1, (g,))
            else:
                mk = mems[k]
                if failed and any(fd >= den and fm <= mk for fd, fm in failed):
                    continue
                a = cluster.allocate(den, 1, mk, current.get(k) if current else None)
                if a is not None:
                    out[k] = a
                    continue
                if den >= max_den and mk <= min_mem:
                    break
                failed.append((den, mk))
                if _all_blocked(inst, failed, no_vacant):
                    break
        return out
    vacant = int((cluster.count == 0).sum())
    pmx = inst._pmax_list
    need = 0
    for k in queue:
        need += pmx[k]
        if need > vacant:
            return None
    if need <= vacant:
        # case 2: p_max to each task (always fits, by the case condition)
        return dedicated_batch(cluster, [(k, pmx[k]) for k in queue], current, inst._memory_list)
    return None


# ---------------------------------------------------------------------------
# Equipartition (non-clairvoyant)
def equipartition(inst: MoldableInstance, cluster: Cluster, queue: Sequence[int], vrem, current) -> dict[int, Alloc]:
    """Equipartition with D'Hondt apportionment and fractional sharing (Section IV-A)."""
    queue = list(queue)
    if not queue:
        return {}
    out = _common_cases(inst, cluster, queue, current)
    if out is not None:
        return out
    out = {}
    vac = cluster.vacant()
    if len(queue) <= vac.size:
        # case 3: one vacant GPU each, then D'Hondt on the remaining vacant GPUs
        pmx = inst._pmax_list
        votes = [pmx[k] for k in queue]
        extra = dhondt(votes, int(vac.size) - len(queue), caps=[v - 1 for v in votes])
        # always fits: sum of (1 + e) <= |A|
        return dedicated_batch(cluster, [(k, 1 + e) for k, e in zip(queue, extra)], current, inst._memory_list)
    # case 4: pre-assign to least loaded GPUs, then largest unit fraction <= p_avl/|R'_i|
    pre: dict[int, list[int]] = {}
    count = cluster.count.copy()
    mem = cluster.mem.copy()
    for k in queue:
        t = inst.tasks[k]
        i = int(np.argmin(count))  # smallest number of running or pre-assigned tasks, lowest index
        if t.p_min <= cluster.avl[i] + EPS and t.memory <= mem[i]:
            pre.setdefault(i, []).append(k)
            count[i] += 1
            mem[i] -= t.memory
    for i in sorted(pre):
        ks = pre[i]
        ratio = cluster.avl[i] / len(ks)
        n = max(1, math.ceil(1.0 / ratio - EPS))  # largest 1/n <= ratio
        for k in ks:
            if n > inst.tasks[k].pmin_den:
                continue  # 1/n < p_min: no admissible amount on this GPU
            a: Alloc = (n, (i,))
            cluster.take(a, float(inst.memory[k]))
            out[k] = a
    return out


# ---------------------------------------------------------------------------
# Proportional (clairvoyant)
def _amount(pmin_den: int, i: int) -> tuple[int, int, float]:
    """The ``i``-th smallest admissible amount: ``(den, n, p)``."""
    if i < pmin_den - 1:
        den = pmin_den - i
        return den, 1, 1.0 / den
    n = i - pmin_den + 2
    return 1, n, float(n)


def proportional(inst: MoldableInstance, cluster: Cluster, queue: Sequence[int], vrem, current) -> dict[int, Alloc]:
    """Proportional allocation towards the target makespan ``t^trg`` (Section IV-B)."""
    queue = list(queue)
    if not queue:
        return {}
    out = _common_cases(inst, cluster, queue, current)
    if out is not None:
        return out
    out = {}
    total_avl = cluster.total_avl()
    t_trg = float(sum(vrem[k] for k in queue)) / total_avl
    rank = inst._arrival_rank
    order = sorted(queue, key=lambda k: (-vrem[k], rank[k]))
    sp = inst.speedup
    smallest = 1.0 / max(map(inst._pmin_den_list.__getitem__, queue))
    nvac = int((cluster.count == 0).sum())
    gmax = -1.0  # max p_avl over GPUs, recomputed lazily after share allocations
    for k in order:
        t = inst.tasks[k]
        v = float(vrem[k])
        # admissible and allocatable amounts form an index range [lo, hi]
        if nvac >= 1:
            hi = t.pmin_den - 2 + min(t.p_max, nvac)  # index of n = min(p_max, nvac)
        else:
            if gmax < 0:
                gmax = float(cluster.avl.max())
            if gmax < smallest - EPS:
                break  # nothing fits any more
            if gmax < 1.0 / t.pmin_den - EPS:
                continue
            fits = cluster.avl[cluster.mem >= t.memory]
            best_share = float(fits.max()) if fits.size else 0.0
            # largest unit fraction <= best_share that is >= p_min
            if best_share < 1.0 / t.pmin_den - EPS:
                continue
            n_small = max(2, math.ceil(1.0 / best_share - EPS))
            hi = t.pmin_den - n_small
        lo = 0
        if hi < lo:
            continue
        # first index in [lo, hi] with f(v, p) <= t_trg (f non-increasing in p)
        a, b = lo, hi + 1
        while a < b:
            mid = (a + b) // 2
            if v / sp.speed(_amount(t.pmin_den, mid)[2]) <= t_trg:
                b = mid
            else:
                a = mid + 1
        cand = a if a <= hi else hi
        if a <= hi and a > lo:
            f_a = v / sp.speed(_amount(t.pmin_den, a)[2])
            f_b = v / sp.speed(_amount(t.pmin_den, a - 1)[2])
            if abs(f_b - t_trg) <= abs(f_a - t_trg):  # ties: the smaller amount
                cand = a - 1
        den, n, _ = _amount(t.pmin_den, cand)
        al = _alloc_amount(inst, cluster, k, den, n, current)
        if al is not None:
            out[k] = al
            if den == 1:
                nvac -= n
            else:
                nvac = int((cluster.count == 0).sum())
                gmax = -1.0
    return out


RULES: dict[str, Callable] = {
    "rigid-fcfs": rigid("arrival"),
    "rigid-shortest": rigid("volume"),
    "rigid-fcfs-strict": rigid("arrival", "strict"),
    "rigid-fcfs-easy": rigid("arrival", "easy"),
    "equi": equipartition,
    "prop": proportional,
}
