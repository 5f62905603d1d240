"""Moldable/malleable schedules: allocation timelines, validator, evaluator, metrics.

A schedule lists, for every task, its *segments*: maximal intervals
``[start, end)`` with one allocation, either ``n`` dedicated GPUs
(``share_den == 1``, ``gpus`` = the ``n`` GPU indices) or the share ``1/n`` of
one GPU (``share_den == n > 1``, one GPU index).  The amount of processor is
``p = len(gpus)`` or ``1/n``.

Semantics (see ``models/moldable.md``):

* (S1) a segment starts no earlier than the task's arrival; a task's segments
  are ordered and disjoint;
* (S2) every allocation is a unit fraction of one GPU or whole dedicated GPUs,
  with ``p_min <= p <= p_max``;
* (S3) at every instant, on every GPU, the shares of the segments covering it
  sum to at most 1 and their memory to at most ``gpu_memory`` (a task on
  ``n`` dedicated GPUs needs ``m_k`` on each of them);
* (S4) progress: during a segment of amount ``p`` a task processes volume at
  rate ``s(p)``, except that after each *preemption* it first pays
  ``t^pmp`` seconds of overhead (no progress).  A preemption is every segment
  after the first that is not a contiguous continuation (same end and start
  time up to float rounding) with the identical allocation (a resume after a
  suspension, however short, a shrink/expand, a migration);
* (S5) a preemption is allowed only when the remaining volume at the end of
  the previous segment exceeds ``preemption_min_remaining``;
* (S6) the task completes inside its last segment, which ends at the
  completion time recomputed from the speedup curve.

Nothing here trusts the simulator: completion times are recomputed from the
segments and the speedup curve.  Comparisons use :mod:`dmlsched.tolerance`.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...cpsat import rational
from ...errors import InvalidSolutionError
from ...gantt import GanttChart, tasks_chart
from ...io import Reader
from ...tolerance import TOL, time_tolerance
from .instance import MoldableInstance


@dataclass(eq=False)
class MoldableSchedule:
    """Allocation timeline of every task, as flat segment arrays.

    Attributes
    ----------
    task, start, end, share_den
        One entry per segment: task index, interval, share denominator
        (``1`` = dedicated GPUs).  Segments of a task appear in time order.
    gpu_ptr, gpu_idx
        CSR lists of GPU indices: segment ``j`` uses
        ``gpu_idx[gpu_ptr[j]:gpu_ptr[j+1]]``.
    """

    task: np.ndarray
    start: np.ndarray
    end: np.ndarray
    share_den: np.ndarray
    gpu_ptr: np.ndarray
    gpu_idx: np.ndarray

    def __post_init__(self) -> None:
        self.task = np.asarray(self.task, dtype=np.int64)
        self.start = np.asarray(self.start, dtype=float)
        self.end = np.asarray(self.end, dtype=float)
        self.share_den = np.asarray(self.share_den, dtype=np.int64)
        self.gpu_ptr = np.asarray(self.gpu_ptr, dtype=np.int64)
        self.gpu_idx = np.asarray(self.gpu_idx, dtype=np.int64)

    def __getstate__(self) -> dict:
        """Pickled and copied without the kept outcome of the checks (:func:`check`)."""
        return {k: v for k, v in self.__dict__.items() if k != "_checked"}

    @property
    def num_segments(self) -> int:
        return int(self.task.shape[0])

    def gpus_of(self, j: int) -> tuple[int, ...]:
        return tuple(int(g) for g in self.gpu_idx[self.gpu_ptr[j] : self.gpu_ptr[j + 1]])

    def amount(self) -> np.ndarray:
        """Processor amount ``p`` of every segment."""
        ngpu = np.diff(self.gpu_ptr)
        return np.where(self.share_den == 1, ngpu.astype(float), 1.0 / np.maximum(self.share_den, 1))

    @staticmethod
    def from_segments(segments: list[tuple[int, float, float, tuple[int, ...], int]]) -> "MoldableSchedule":
        """Build from ``(task, start, end, gpus, share_den)`` tuples (any order;
        sorted by task then start)."""
        segs = sorted(segments, key=lambda s: (s[0], s[1], s[2]))
        ptr = [0]
        idx: list[int] = []
        for s in segs:
            idx.extend(s[3])
            ptr.append(len(idx))
        return MoldableSchedule(
            task=[s[0] for s in segs],
            start=[s[1] for s in segs],
            end=[s[2] for s in segs],
            share_den=[s[4] for s in segs],
            gpu_ptr=ptr,
            gpu_idx=idx,
        )


def _eps(inst: MoldableInstance, s: MoldableSchedule) -> float:
    """The schedule's absolute time tolerance (:func:`dmlsched.tolerance.time_tolerance`):
    relative to the longest possible runtime of a task (its volume at its smallest
    share, at most ``volume / p_min`` for a sublinear speedup), not to the absolute
    time, so large time stamps (traces reach 1e7 s) do not hide overlaps."""
    longest = max((t.volume / float(t.p_min) for t in inst.tasks), default=1.0)
    t_max = float(np.max(np.abs(s.end))) if s.num_segments else 0.0
    return time_tolerance(longest, t_max)


def _name(inst: MoldableInstance, k: int) -> str:
    return repr(inst.tasks[k].id)


def _structure(inst: MoldableInstance, s: MoldableSchedule) -> None:
    n = s.num_segments
    for a, nm in ((s.start, "start"), (s.end, "end"), (s.share_den, "share_den")):
        if a.shape != (n,):
            raise InvalidSolutionError(f"segment arrays disagree in length ({nm})")
    if s.gpu_ptr.shape != (n + 1,) or s.gpu_ptr[0] != 0 or s.gpu_ptr[-1] != s.gpu_idx.shape[0]:
        raise InvalidSolutionError("gpu_ptr is not a CSR pointer array of the segments")
    if n and (s.task.min() < 0 or s.task.max() >= inst.num_tasks):
        raise InvalidSolutionError("segment task index out of range")
    if not (np.all(np.isfinite(s.start)) and np.all(np.isfinite(s.end))):
        raise InvalidSolutionError("segment times must be finite")
    if n and np.any(np.diff(s.task) < 0):
        raise InvalidSolutionError("segments must be grouped by task (sorted by task index)")
    if s.gpu_idx.size and (s.gpu_idx.min() < 0 or s.gpu_idx.max() >= inst.gpus):
        raise InvalidSolutionError(f"GPU index out of range [0, {inst.gpus})")
    bad = np.flatnonzero(s.end < s.start - _eps(inst, s))
    if bad.size:
        j = int(bad[0])
        raise InvalidSolutionError(f"(S1) task {_name(inst, int(s.task[j]))}: segment ends before it starts")


def _allocations(inst: MoldableInstance, s: MoldableSchedule) -> np.ndarray:
    """(S2): unit fractions of one GPU or whole dedicated GPUs within [p_min, p_max]."""
    ngpu = np.diff(s.gpu_ptr)
    den = s.share_den
    task = s.task
    seg_of = np.repeat(np.arange(s.num_segments), ngpu)
    dup = np.zeros(s.num_segments, dtype=bool)
    if s.gpu_idx.size > 1:
        # a GPU listed twice: only in a segment whose list is not strictly increasing
        gi = s.gpu_idx
        odd = np.unique(seg_of[1:][(gi[1:] <= gi[:-1]) & (seg_of[1:] == seg_of[:-1])])
        if odd.size:
            sel = np.isin(seg_of, odd)
            so, go = seg_of[sel], gi[sel]
            order = np.lexsort((go, so))
            so, go = so[order], go[order]
            dup[so[1:][(so[1:] == so[:-1]) & (go[1:] == go[:-1])]] = True
    bad = (den < 1) | ((den > 1) & (ngpu != 1)) | (ngpu < 1) | dup
    if s.num_segments:
        bad |= den > inst.pmin_den[task]
        bad |= (den == 1) & (ngpu > inst.p_max[task])
    for j in np.flatnonzero(bad)[:1]:
        j = int(j)
        k = int(task[j])
        t = inst.tasks[k]
        d, ng = int(den[j]), int(ngpu[j])
        gl = s.gpus_of(j)
        if d < 1:
            raise InvalidSolutionError(f"(S2) task {_name(inst, k)}: share denominator {d} < 1")
        if d > 1 and ng != 1:
            raise InvalidSolutionError(
                f"(S2) task {_name(inst, k)}: a shared allocation 1/{d} must use exactly one GPU, got {ng}"
            )
        if ng < 1:
            raise InvalidSolutionError(f"(S2) task {_name(inst, k)}: segment without a GPU")
        if len(set(gl)) != ng:
            raise InvalidSolutionError(f"(S2) task {_name(inst, k)}: GPU listed twice in {gl}")
        if d > t.pmin_den:
            raise InvalidSolutionError(f"(S2) task {_name(inst, k)}: share 1/{d} below p_min = 1/{t.pmin_den}")
        raise InvalidSolutionError(f"(S2) task {_name(inst, k)}: {ng} GPUs above p_max = {t.p_max}")
    return s.amount()


def _capacity(inst: MoldableInstance, s: MoldableSchedule) -> None:
    """(S3) per-GPU share <= 1 and memory <= gpu_memory at every instant (sweep)."""
    ngpu = np.diff(s.gpu_ptr)
    if s.num_segments == 0:
        return
    eps = _eps(inst, s)
    nonempty = s.end > s.start  # empty segments occupy nothing
    if not nonempty.any():
        return
    # Only a GPU where intervals overlap, or a task needs more memory than a GPU has, can be
    # over capacity: elsewhere the load at each start is that segment's own share and memory.
    suspect = _suspect_gpus(inst, s, nonempty)
    if suspect is None:
        return
    seg_of = np.repeat(np.arange(s.num_segments), ngpu)
    keep = nonempty[seg_of]
    seg_of = seg_of[keep]
    gpu = s.gpu_idx[keep]
    share = 1.0 / s.share_den[seg_of]
    mem = inst.memory[s.task[seg_of]]
    m = seg_of.size
    if suspect is not True:
        sub = np.isin(gpu, suspect)
        seg_of, gpu, share, mem = seg_of[sub], gpu[sub], share[sub], mem[sub]
        m = seg_of.size
    g2 = np.concatenate([gpu, gpu])
    t2 = np.concatenate([s.start[seg_of], s.end[seg_of]])
    kind = np.concatenate([np.ones(m, dtype=np.int64), np.zeros(m, dtype=np.int64)])  # ends (0) first
    dsh = np.concatenate([share, -share])
    dm = np.concatenate([mem, -mem])
    # Snap times: an end within tolerance of a start on the same GPU counts as before it.
    order = np.lexsort((kind, t2, g2))
    g2, t2, kind, dsh, dm = g2[order], t2[order], kind[order], dsh[order], dm[order]
    # process ends that are within tolerance after a start as happening first:
    # equivalently compare with tolerance by checking loads only at start events,
    # after removing ends that fall within TOL of that start.
    csh = np.cumsum(dsh)
    cm = np.cumsum(dm)
    first = np.r_[0, np.flatnonzero(np.diff(g2)) + 1]
    base_sh = np.repeat(np.r_[0.0, csh][first], np.diff(np.r_[first, g2.size]))
    base_m = np.repeat(np.r_[0.0, cm][first], np.diff(np.r_[first, g2.size]))
    load = csh - base_sh
    memload = cm - base_m
    is_start = kind == 1
    # a cheap filter in floating point (sums of data: rounding far below 1e-12); every
    # candidate is then decided exactly, the numbers read as written (issue 24: a tolerance
    # of 1e-6 let two tasks of memory 0.5000001 share a GPU of memory 1)
    over_sh = is_start & (load > 1.0 + 1e-12)
    over_m = is_start & (memload > inst.gpu_memory * (1 + 1e-12))
    for over, what in ((over_sh, "processor share"), (over_m, "memory")):
        cand = np.flatnonzero(over)
        for q in cand:
            # forgive overlaps within the time tolerance: recompute the load at t2[q]
            # counting segments active on (t2[q] + tol)
            g, t = int(g2[q]), float(t2[q])
            tt = t + eps
            act = (gpu == g) & (s.start[seg_of] <= t + 1e-12) & (s.end[seg_of] > tt)
            val = share[act].sum() if what == "processor share" else mem[act].sum()
            cap = 1.0 if what == "processor share" else inst.gpu_memory
            if _exceeds(what, s.share_den[seg_of[act]], mem[act], inst.gpu_memory):
                tasks = sorted({inst.tasks[int(s.task[seg_of[i]])].id for i in np.flatnonzero(act)})
                raise InvalidSolutionError(
                    f"(S3) GPU {g} at time {t}: {what} {val} exceeds capacity {cap} (tasks {tasks})"
                )


def _exceeds(what: str, dens: np.ndarray, mems: np.ndarray, capacity: float) -> bool:
    """Exactly: the shares ``1/den`` sum past 1, or the memories (read as written,
    :func:`dmlsched.cpsat.rational`) past the capacity."""
    if what == "processor share":
        return sum(Fraction(1, int(d)) for d in dens) > 1
    return sum(rational(float(v)) for v in mems) > rational(float(capacity))


def _suspect_gpus(inst: MoldableInstance, s: MoldableSchedule, nonempty: np.ndarray) -> np.ndarray | bool | None:
    """GPUs where two of the ``nonempty`` segments' intervals overlap or a task's memory
    exceeds the GPU's (``None``: no GPU; ``True``: too many to be worth a subset).  The GPU
    entries are gathered in order of their segments' start times (the segments sorted, the
    entries of each copied in that order), then put in order of GPU by a stable sort on small
    integers (a radix sort): each GPU's intervals by start."""
    so = np.argsort(s.start, kind="stable")
    so = so[nonempty[so]]
    ngpu = np.diff(s.gpu_ptr)
    lens = ngpu[so]
    ptr = np.zeros(so.size + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    entry = np.repeat(s.gpu_ptr[so] - ptr[:-1], lens) + np.arange(int(ptr[-1]))  # entries in start order
    seg = np.repeat(so, lens)
    g = s.gpu_idx[entry]
    order = np.argsort(g.astype(np.int16) if inst.gpus < 2**15 else g, kind="stable")
    g = g[order]
    seg = seg[order]
    st = s.start[seg]
    en = s.end[seg]
    bounds = np.r_[0, np.flatnonzero(np.diff(g)) + 1, g.size]
    bad: list[int] = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        if b - a > 1 and np.any(st[a + 1:b] < np.maximum.accumulate(en[a:b - 1])):
            bad.append(int(g[a]))
    heavy_seg = nonempty & (inst.memory[s.task] > inst.gpu_memory * (1 + TOL))
    heavy: list[int] = []
    if heavy_seg.any():
        heavy = np.unique(s.gpu_idx[np.repeat(heavy_seg, ngpu)]).tolist()
    out = sorted(set(bad) | set(heavy))
    if not out:
        return None
    if len(out) * 2 > len(bounds):
        return True
    return np.asarray(out, dtype=np.int64)


def _same_alloc_as_prev(s: MoldableSchedule) -> np.ndarray:
    """``same[j]``: segment ``j`` has the same task, share and GPU list as ``j-1``."""
    n = s.num_segments
    same = np.zeros(n, dtype=bool)
    if n < 2:
        return same
    ng = np.diff(s.gpu_ptr)
    cand = (s.task[1:] == s.task[:-1]) & (s.share_den[1:] == s.share_den[:-1]) & (ng[1:] == ng[:-1])
    same[1:] = cand
    seg_of = np.repeat(np.arange(n), ng)
    e = np.arange(seg_of.size)
    check = same[seg_of]  # entries of candidate segments
    ee = e[check]
    if ee.size:
        diff = s.gpu_idx[ee] != s.gpu_idx[ee - ng[seg_of[ee]]]
        same[seg_of[ee][diff]] = False
    return same


@dataclass
class TaskProgress:
    """Per-task results of :func:`replay`."""

    completion: np.ndarray
    first_start: np.ndarray
    preemptions: np.ndarray


def _contiguous(s: MoldableSchedule) -> np.ndarray:
    """``cont[j]``: segment ``j`` continues segment ``j-1`` (same task and allocation, and it
    starts where ``j-1`` ends up to float rounding: 64 units in the last place of the larger
    of the two times, or of 1)."""
    same = _same_alloc_as_prev(s)
    if s.num_segments < 2:
        return same
    st, pe = s.start[1:], s.end[:-1]
    mag = np.maximum(np.maximum(np.abs(st), np.abs(pe)), 1.0)
    same[1:] &= np.abs(st - pe) <= 64.0 * np.spacing(mag)
    return same


def replay(inst: MoldableInstance, s: MoldableSchedule, *, check: bool = True) -> TaskProgress:
    """Recompute every task's completion from its segments and the speedup curve.

    With ``check`` the constraints (S1), (S4)-(S6) are verified on the way.
    """
    n = inst.num_tasks
    comp = np.full(n, np.nan)
    first = np.full(n, np.nan)
    npre = np.zeros(n, dtype=np.int64)
    nseg = s.num_segments
    if nseg == 0:
        if check and n:
            raise InvalidSolutionError(f"task {_name(inst, 0)} is never scheduled")
        return TaskProgress(completion=comp, first_start=first, preemptions=npre)
    if inst.preemption_overhead == 0:
        got = _replay_without_overhead(inst, s, check)
        if got is not None:
            return got
    # the loop: with an overhead (a task's debt is paid left to right), and for the message of
    # the first violation the vectorised pass found
    amount = s.amount().tolist()
    speed_cache: dict[float, float] = {}
    speed_of = inst.speedup.speed
    tp = inst.preemption_overhead
    thr = inst.preemption_min_remaining
    eps = _eps(inst, s)
    task = s.task
    bounds = np.r_[0, np.flatnonzero(np.diff(task)) + 1, nseg].tolist()
    cont = _contiguous(s).tolist()
    starts, ends = s.start.tolist(), s.end.tolist()
    tasks_of = task[np.asarray(bounds[:-1], dtype=np.int64)].tolist()
    volume = inst.volume.tolist()
    arrival = inst.arrival.tolist()
    comp_l = [math.nan] * n
    first_l = [math.nan] * n
    npre_l = [0] * n
    for b in range(len(bounds) - 1):
        lo, hi = bounds[b], bounds[b + 1]
        k = tasks_of[b]
        v = volume[k]
        done = 0.0
        debt = 0.0
        first_l[k] = starts[lo]
        if check and starts[lo] < arrival[k] - eps:
            raise InvalidSolutionError(
                f"(S1) task {_name(inst, k)} starts at {starts[lo]} before its arrival {arrival[k]}"
            )
        npk = 0
        prev_end = None
        for j in range(lo, hi):
            st, en = starts[j], ends[j]
            if prev_end is not None:
                if check and st < prev_end - eps:
                    raise InvalidSolutionError(
                        f"(S1) task {_name(inst, k)}: segments overlap at {st} < {prev_end}"
                    )
                # a continuation is contiguous up to float rounding only: a short real
                # gap (a suspension resumed a moment later) is a preemption (S4)
                if not cont[j]:
                    rem = v - done
                    if check and rem <= thr - TOL * max(1.0, thr, v):
                        raise InvalidSolutionError(
                            f"(S5) task {_name(inst, k)} preempted at {prev_end} with remaining volume "
                            f"{rem} <= preemption_min_remaining {thr}"
                        )
                    npk += 1
                    debt += tp
            p = amount[j]
            sp = speed_cache.get(p)
            if sp is None:
                sp = speed_cache[p] = speed_of(p)
            dur = en - st
            if not dur > 0.0:  # max(0.0, en - st)
                dur = 0.0
            pay = dur if dur < debt else debt  # min(debt, dur)
            debt -= pay
            if j == hi - 1:
                rem = v - done
                c = st + pay + rem / sp
                comp_l[k] = c
                if check and rem <= -TOL * max(1.0, v):
                    raise InvalidSolutionError(f"(S6) task {_name(inst, k)} completed before its last segment")
                if check and abs(c - en) > 10 * eps:
                    raise InvalidSolutionError(
                        f"(S6) task {_name(inst, k)}: last segment ends at {en} but the speedup curve "
                        f"gives completion at {c}"
                    )
            else:
                done += (dur - pay) * sp
                if check and done >= v + TOL * max(1.0, v) * 10:
                    raise InvalidSolutionError(
                        f"(S6) task {_name(inst, k)} completes before its segment ending at {en}"
                    )
            prev_end = en
        npre_l[k] = npk
    comp = np.array(comp_l)
    first = np.array(first_l)
    npre = np.array(npre_l, dtype=np.int64)
    if check:
        missing = np.flatnonzero(np.isnan(comp))
        if missing.size:
            raise InvalidSolutionError(f"task {_name(inst, int(missing[0]))} is never scheduled")
    return TaskProgress(completion=comp, first_start=first, preemptions=npre)


def _prefix_by_block(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Running sums of ``x`` within each block ``[lo, hi)``, added left to right as a loop
    adds them (``np.add.accumulate`` along the rows of the blocks padded to a power of two:
    each sum is the previous one plus the next term, never a pairwise or cross-block sum)."""
    out = np.empty_like(x)
    counts = hi - lo
    width = np.left_shift(1, np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64))
    for w in np.unique(width).tolist():
        rows = np.flatnonzero(width == w)
        col = np.arange(w)
        idx = lo[rows][:, None] + col
        mask = col < counts[rows][:, None]
        pad = np.zeros((rows.size, w))
        sel = idx[mask]
        pad[mask] = x[sel]
        out[sel] = np.add.accumulate(pad, axis=1)[mask]
    return out


def _replay_without_overhead(inst: MoldableInstance, s: MoldableSchedule, check: bool) -> TaskProgress | None:
    """:func:`replay` for an instance without preemption overhead, vectorised.

    Without overhead a task never owes time (the loop's ``debt`` and ``pay`` stay ``0.0``),
    so each segment adds ``dur * s(p)`` to its task's done volume: the same float operations
    as the loop, in the same order (the per-task sums by :func:`_prefix_by_block`), hence the
    same values bit for bit.  ``None`` when ``check`` finds a violation (the loop then names
    the first one, with its message) or when a task's segments are not consecutive.
    """
    n = inst.num_tasks
    nseg = s.num_segments
    task = s.task
    cut = np.flatnonzero(np.diff(task)) + 1
    lo = np.r_[0, cut]
    hi = np.r_[cut, nseg]
    tasks_of = task[lo]
    if np.unique(tasks_of).size != tasks_of.size:
        return None
    st, en = s.start, s.end
    amounts, inv = np.unique(s.amount(), return_inverse=True)
    speed_of = inst.speedup.speed
    sp = np.array([speed_of(p) for p in amounts.tolist()], dtype=float)[inv.reshape(-1)]
    dur = en - st
    dur = np.where(dur > 0.0, dur, 0.0)
    done = _prefix_by_block(dur * sp, lo, hi)  # done volume at the end of each segment
    first = np.zeros(nseg, dtype=bool)
    first[lo] = True
    before = np.zeros(nseg)  # done volume at its start
    later = np.flatnonzero(~first)
    before[later] = done[later - 1]
    v = inst.volume[task]
    rem = v - before
    pre = ~first & ~_contiguous(s)
    jl = hi - 1
    comp_seg = (st[jl] + 0.0) + rem[jl] / sp[jl]
    if check:
        eps = _eps(inst, s)
        thr = inst.preemption_min_remaining
        vp, vl = v[pre], v[jl]
        notlast = np.ones(nseg, dtype=bool)
        notlast[jl] = False
        vn = v[notlast]
        if (np.any(st[lo] < inst.arrival[tasks_of] - eps)
                or np.any(st[later] < en[later - 1] - eps)
                or np.any(rem[pre] <= thr - TOL * np.maximum(np.maximum(1.0, thr), vp))
                or np.any(rem[jl] <= -TOL * np.maximum(1.0, vl))
                or np.any(np.abs(comp_seg - en[jl]) > 10 * eps)
                or np.any(done[notlast] >= vn + TOL * np.maximum(1.0, vn) * 10)
                or tasks_of.size != n):
            return None
    comp = np.full(n, np.nan)
    first_start = np.full(n, np.nan)
    npre = np.zeros(n, dtype=np.int64)
    comp[tasks_of] = comp_seg
    first_start[tasks_of] = st[lo]
    npre[tasks_of] = np.add.reduceat(pre.astype(np.int64), lo)
    return TaskProgress(completion=comp, first_start=first_start, preemptions=npre)


def _fingerprint(s: MoldableSchedule) -> tuple:
    """What the checks of a schedule depend on: every array's type, shape and CRC-32."""
    return tuple((a.dtype.str, a.shape, zlib.crc32(np.ascontiguousarray(a)))
                 for a in (s.task, s.start, s.end, s.share_den, s.gpu_ptr, s.gpu_idx))


def check(inst: MoldableInstance, s: MoldableSchedule) -> TaskProgress:
    """Validate (S1)-(S6) and replay, once per instance and schedule content.

    The outcome (the replay's :class:`TaskProgress`, or the first violation) is kept on the
    schedule with a fingerprint of its arrays, so :func:`validate`, :func:`evaluate` and
    :func:`metrics` of one solution share one replay (``dmlsched.solve`` validates and
    evaluates, the method kit evaluates, the policies report metrics).  Changing the
    schedule's arrays changes the fingerprint, and the checks run again.
    """
    fp = _fingerprint(s)
    memo = s.__dict__.get("_checked")
    if memo is not None and memo[0] is inst and memo[1] == fp:
        if memo[3] is not None:
            raise memo[3]
        return memo[2]
    progress, err = None, None
    try:
        _structure(inst, s)
        _allocations(inst, s)
        progress = replay(inst, s, check=True)
        _capacity(inst, s)
    except InvalidSolutionError as e:
        err = e
    s.__dict__["_checked"] = (inst, fp, progress, err)
    if err is not None:
        raise err
    return progress


def _progress(inst: MoldableInstance, s: MoldableSchedule) -> TaskProgress:
    """The shared replay of a valid schedule; an invalid one is replayed without checks."""
    try:
        return check(inst, s)
    except InvalidSolutionError:
        return replay(inst, s, check=False)


def validate(inst: MoldableInstance, s: MoldableSchedule) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint (S1)-(S6)."""
    check(inst, s)


def completion_times(inst: MoldableInstance, s: MoldableSchedule) -> np.ndarray:
    return _progress(inst, s).completion


def evaluate(inst: MoldableInstance, s: MoldableSchedule) -> float:
    """Total flow time ``sum_k (t_k^cmp - t_k^arr)`` recomputed from the segments."""
    return float(np.sum(completion_times(inst, s) - inst.arrival))


def jobs_of(inst: MoldableInstance, first_start: np.ndarray, completion: np.ndarray, gap: float = 60.0) -> np.ndarray:
    """Job index of every task (Section III-C).

    A job of a user is a maximal chain of that user's tasks, taken in order of
    their start times, in which each task starts no later than ``gap`` seconds
    after the latest completion among the chain's earlier tasks ("tasks that
    start during or within one minute after finishing the execution of another
    task of the same user").
    """
    users: dict[str, list[int]] = {}
    for k, t in enumerate(inst.tasks):
        users.setdefault(t.user, []).append(k)
    job = np.full(inst.num_tasks, -1, dtype=np.int64)
    nj = 0
    for u in sorted(users):
        ks = sorted(users[u], key=lambda k: (first_start[k], k))
        horizon = -np.inf
        for k in ks:
            if first_start[k] > horizon + gap:
                nj += 1
            job[k] = nj - 1
            horizon = max(horizon, completion[k])
    return job


def metrics(inst: MoldableInstance, s: MoldableSchedule, *, job_gap: float = 60.0) -> dict[str, Any]:
    """Flow time, stretch, per-job flow/stretch, utilisation and makespan.

    * per task: flow ``t^cmp - t^arr``, stretch ``flow / v``;
    * per job (see :func:`jobs_of`): flow ``max t^cmp - min t^arr`` over its
      tasks, stretch = job flow / total volume of the job;
    * utilisation ``u = sum v / (|G| (max t^cmp - min t^arr))``;
    * makespan ``max t^cmp`` (absolute) and ``span = max t^cmp - min t^arr``.
    """
    pr = _progress(inst, s)
    flow = pr.completion - inst.arrival
    stretch = flow / inst.volume
    job = jobs_of(inst, pr.first_start, pr.completion, job_gap)
    nj = int(job.max()) + 1 if job.size else 0
    jarr = np.full(nj, np.inf)
    jcmp = np.full(nj, -np.inf)
    jvol = np.zeros(nj)
    np.minimum.at(jarr, job, inst.arrival)
    np.maximum.at(jcmp, job, pr.completion)
    np.add.at(jvol, job, inst.volume)
    jflow = jcmp - jarr
    jstretch = jflow / jvol
    span = float(pr.completion.max() - inst.arrival.min()) if inst.num_tasks else 0.0
    return {
        "tasks": inst.num_tasks,
        "total_flow": float(flow.sum()),
        "avg_flow": float(flow.mean()) if flow.size else 0.0,
        "max_flow": float(flow.max()) if flow.size else 0.0,
        "avg_stretch": float(stretch.mean()) if flow.size else 0.0,
        "max_stretch": float(stretch.max()) if flow.size else 0.0,
        "jobs": nj,
        "avg_job_flow": float(jflow.mean()) if nj else 0.0,
        "max_job_flow": float(jflow.max()) if nj else 0.0,
        "avg_job_stretch": float(jstretch.mean()) if nj else 0.0,
        "max_job_stretch": float(jstretch.max()) if nj else 0.0,
        "utilisation": float(inst.volume.sum() / (inst.gpus * span)) if span > 0 else 0.0,
        "makespan": float(pr.completion.max()) if inst.num_tasks else 0.0,
        "span": span,
        "preemptions": int(pr.preemptions.sum()),
        "segments": s.num_segments,
    }


def to_json(inst: MoldableInstance, s: MoldableSchedule) -> dict:
    """``{"tasks": [{id, completion, flow, segments: [{start, end, gpus, share_den}]}], "metrics": {...}}``."""
    comp = completion_times(inst, s)
    out = []
    segs: dict[int, list[dict]] = {}
    for j in range(s.num_segments):
        segs.setdefault(int(s.task[j]), []).append(
            {
                "start": float(s.start[j]),
                "end": float(s.end[j]),
                "gpus": list(s.gpus_of(j)),
                "share_den": int(s.share_den[j]),
            }
        )
    for k, t in enumerate(inst.tasks):
        out.append(
            {
                "id": t.id,
                "completion": float(comp[k]),
                "flow": float(comp[k] - t.arrival),
                "segments": segs.get(k, []),
            }
        )
    return {"tasks": out, "metrics": metrics(inst, s)}


def from_json(inst: MoldableInstance, data: Any) -> MoldableSchedule:
    """Rebuild a schedule from :func:`to_json` output."""
    r = Reader(data)
    ids = {t.id: k for k, t in enumerate(inst.tasks)}
    segs = []
    for tr in r.items("tasks"):
        tid = str(tr["id"].value)
        if tid not in ids:
            raise tr.error(f"unknown task {tid!r}", "id")
        k = ids[tid]
        for sr in tr.items("segments"):
            segs.append(
                (
                    k,
                    sr.number("start"),
                    sr.number("end"),
                    tuple(sr.integers("gpus", min_len=1, ge=0, lt=inst.gpus)),
                    sr.integer("share_den", ge=1),
                )
            )
    return MoldableSchedule.from_segments(segs)


def gantt_tasks(instance: MoldableInstance, solution: MoldableSchedule) -> list[dict]:
    """Bars for :func:`dmlsched.plot.plot_gantt`: one per (segment, GPU).

    A segment with share ``1/n`` takes a slice of height ``1/n`` of its GPU's
    row (``"offset"``/``"height"``), placed at the lowest free slice, so tasks
    sharing a GPU are drawn side by side rather than on top of each other.
    """
    segs = []
    for j in range(solution.num_segments):
        start, end = float(solution.start[j]), float(solution.end[j])
        if end <= start:
            continue
        share = 1.0 / int(solution.share_den[j])
        for g in solution.gpu_idx[solution.gpu_ptr[j]:solution.gpu_ptr[j + 1]]:
            segs.append((int(g), start, end, share, instance.tasks[int(solution.task[j])].id))
    bars = []
    active: dict[int, list[tuple[float, float, float]]] = {}  # gpu -> (end, offset, height)
    for g, start, end, share, tid in sorted(segs, key=lambda x: (x[0], x[1], -x[3])):
        live = [a for a in active.get(g, []) if a[0] > start + 1e-12]
        off = 0.0
        for k in range(max(1, round(1 / share))):
            cand = k * share
            if all(cand + share <= o + 1e-9 or cand >= o + h - 1e-9 for _, o, h in live):
                off = cand
                break
        live.append((end, off, share))
        active[g] = live
        bars.append({"job": tid, "gpu": g, "start": start, "end": end, "share": share,
                     "offset": off, "height": share})
    return bars


def gantt_bars(instance: MoldableInstance, solution: MoldableSchedule) -> GanttChart:
    """The Gantt chart of a schedule: :func:`gantt_tasks`' bars on the instance's GPUs."""
    return tasks_chart(instance, gantt_tasks(instance, solution))
