"""Reference copy of the moldable validator and evaluator before issue 23 (one shared replay,
a faster replay loop), kept ONLY for ``test_engine_equivalence.py``.

Not part of the library; do not import it elsewhere.  The original docstring follows.

Moldable/malleable schedules: allocation timelines, validator, evaluator, metrics.

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

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsched.errors import InvalidSolutionError
from dmlsched.io import Reader
from dmlsched.problems.moldable.instance import MoldableInstance
from dmlsched.tolerance import TOL, time_tolerance


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
    order = np.lexsort((s.gpu_idx, seg_of))
    dup_seg = seg_of[order][1:][(seg_of[order][1:] == seg_of[order][:-1])
                                & (s.gpu_idx[order][1:] == s.gpu_idx[order][:-1])]
    dup = np.zeros(s.num_segments, dtype=bool)
    dup[dup_seg] = True
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
    seg_of = np.repeat(np.arange(s.num_segments), ngpu)
    keep = s.end[seg_of] > s.start[seg_of]  # empty segments occupy nothing
    seg_of = seg_of[keep]
    gpu = s.gpu_idx[keep]
    share = 1.0 / s.share_den[seg_of]
    mem = inst.memory[s.task[seg_of]]
    m = seg_of.size
    if m == 0:
        return
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
    over_sh = is_start & (load > 1.0 + 1e-9)
    over_m = is_start & (memload > inst.gpu_memory * (1 + TOL) + TOL)
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
            if val > cap * (1 + 1e-9) + (0 if what == "processor share" else TOL):
                tasks = sorted({inst.tasks[int(s.task[seg_of[i]])].id for i in np.flatnonzero(act)})
                raise InvalidSolutionError(
                    f"(S3) GPU {g} at time {t}: {what} {val} exceeds capacity {cap} (tasks {tasks})"
                )


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
        bad_seg = np.unique(seg_of[ee][diff])
        same[bad_seg] = False
    return same


@dataclass
class TaskProgress:
    """Per-task results of :func:`replay`."""

    completion: np.ndarray
    first_start: np.ndarray
    preemptions: np.ndarray


def replay(inst: MoldableInstance, s: MoldableSchedule, *, check: bool = True) -> TaskProgress:
    """Recompute every task's completion from its segments and the speedup curve.

    With ``check`` the constraints (S1), (S4)-(S6) are verified on the way.
    """
    n = inst.num_tasks
    comp = np.full(n, np.nan)
    first = np.full(n, np.nan)
    npre = np.zeros(n, dtype=np.int64)
    amount = s.amount()
    speed_cache: dict[float, float] = {}
    tp = inst.preemption_overhead
    thr = inst.preemption_min_remaining
    eps = _eps(inst, s)
    bounds = np.r_[0, np.flatnonzero(np.diff(s.task)) + 1, s.num_segments] if s.num_segments else np.zeros(1, np.int64)
    same_alloc = _same_alloc_as_prev(s).tolist()
    starts, ends = s.start.tolist(), s.end.tolist()
    for b in range(len(bounds) - 1):
        lo, hi = int(bounds[b]), int(bounds[b + 1])
        k = int(s.task[lo])
        t = inst.tasks[k]
        v = t.volume
        done = 0.0
        debt = 0.0
        prev_end = None
        first[k] = s.start[lo]
        if check and s.start[lo] < t.arrival - eps:
            raise InvalidSolutionError(
                f"(S1) task {_name(inst, k)} starts at {s.start[lo]} before its arrival {t.arrival}"
            )
        for j in range(lo, hi):
            st, en = starts[j], ends[j]
            if prev_end is not None:
                if check and st < prev_end - eps:
                    raise InvalidSolutionError(
                        f"(S1) task {_name(inst, k)}: segments overlap at {st} < {prev_end}"
                    )
                # a continuation is contiguous up to float rounding only: a short real
                # gap (a suspension resumed a moment later) is a preemption (S4)
                continuation = same_alloc[j] and abs(st - prev_end) <= 64.0 * float(
                    np.spacing(max(abs(st), abs(prev_end), 1.0)))
                if not continuation:
                    rem = v - done
                    if check and rem <= thr - TOL * max(1.0, thr, v):
                        raise InvalidSolutionError(
                            f"(S5) task {_name(inst, k)} preempted at {prev_end} with remaining volume "
                            f"{rem} <= preemption_min_remaining {thr}"
                        )
                    npre[k] += 1
                    debt += tp
            p = float(amount[j])
            sp = speed_cache.get(p)
            if sp is None:
                sp = speed_cache[p] = inst.speedup.speed(p)
            dur = max(0.0, en - st)
            pay = min(debt, dur)
            debt -= pay
            work = (dur - pay) * sp
            if j == hi - 1:
                rem = v - done
                c = st + pay + rem / sp
                comp[k] = c
                if check and rem <= -TOL * max(1.0, v):
                    raise InvalidSolutionError(f"(S6) task {_name(inst, k)} completed before its last segment")
                if check and abs(c - en) > 10 * eps:
                    raise InvalidSolutionError(
                        f"(S6) task {_name(inst, k)}: last segment ends at {en} but the speedup curve "
                        f"gives completion at {c}"
                    )
            else:
                done += work
                if check and done >= v + TOL * max(1.0, v) * 10:
                    raise InvalidSolutionError(
                        f"(S6) task {_name(inst, k)} completes before its segment ending at {en}"
                    )
            prev_end = en
    if check:
        missing = np.flatnonzero(np.isnan(comp))
        if missing.size:
            raise InvalidSolutionError(f"task {_name(inst, int(missing[0]))} is never scheduled")
    return TaskProgress(completion=comp, first_start=first, preemptions=npre)


def validate(inst: MoldableInstance, s: MoldableSchedule) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint (S1)-(S6)."""
    _structure(inst, s)
    _allocations(inst, s)
    replay(inst, s, check=True)
    _capacity(inst, s)


def completion_times(inst: MoldableInstance, s: MoldableSchedule) -> np.ndarray:
    return replay(inst, s, check=False).completion


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
    pr = replay(inst, s, check=False)
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
