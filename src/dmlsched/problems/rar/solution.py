"""RAR-DDLS schedules: the contention simulator, validator and evaluator.

A schedule gives every job a start slot ``a_j >= 0`` and a placement: the set
of GPUs (global indices, see :attr:`RarInstance.offsets`) it holds from
``a_j`` until it completes.  Time is slotted: a job started at ``a_j``
occupies slots ``a_j, a_j+1, ..., T_j - 1`` (0-based) and
``T_j = a_j + (number of slots until its progress reaches F_j)`` is the
paper's (9); the active set of slot ``t`` is ``{j : a_j <= t < T_j}``.

In every slot the simulator computes the paper's (6)-(9) for every active job:
``p_j[t]`` (max over the servers where ``j`` is split of the number of active
split jobs there; 0 on one server), ``k_j = xi1 p_j``, ``B_j``, ``gamma_j``,
``tau_j[t]`` and the progress ``phi_j[t]``.  :class:`Engine` does this event by
event (contention changes only when a job starts or ends) and
:func:`simulate_slots` literally slot by slot (the reference for tests).

Validator (raises :class:`InvalidSolutionError` naming the constraint):

* (1) gang: job ``j`` holds exactly ``G_j`` distinct GPUs of the cluster;
* (2) capacity: a GPU is held by at most one active job in every slot
  (hence ``sum_j y_js[t] <= O_s``);
* (3)-(5) no preemption or migration: one start and one placement per job
  (a job listed twice in a JSON solution is rejected by :func:`from_json`);
* horizon: ``T_j <= T`` for every job.
"""

from __future__ import annotations

import heapq
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...gantt import GanttChart
from ...io import Reader
from .instance import RarInstance


@dataclass(eq=False)
class RarSchedule:
    """Start slot and GPU set (global indices) of every job."""

    start: np.ndarray
    gpus: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        self.start = np.asarray(self.start, dtype=np.int64)
        self.gpus = tuple(tuple(int(g) for g in gs) for gs in self.gpus)

    def __getstate__(self) -> dict:
        """Pickled and copied without the kept outcome of the checks (:func:`check`)."""
        return {k: v for k, v in self.__dict__.items() if k != "_checked"}


def counts_of(inst: RarInstance, gpus: tuple[int, ...]) -> dict[int, int]:
    """``y_js``: GPUs per server of one job's placement."""
    out: dict[int, int] = {}
    for g in gpus:
        s = int(inst.gpu_server[g])
        out[s] = out.get(s, 0) + 1
    return out


class Engine:
    """Event-driven slot simulator of (6)-(9).

    Jobs are started with :meth:`start` at non-decreasing times; :meth:`advance`
    processes every completion up to a time.  Between events the active set,
    hence every ``p_j``, ``tau_j`` and ``phi_j``, is constant, so each job's
    completion slot is ``t + ceil(remaining / phi_j)``; when a start or an end
    changes a job's contention its remaining work is brought up to date and its
    completion is recomputed.  Only jobs split over several servers interact.

    The refresh is incremental: a start or an end touches only the split jobs
    sharing a server with it, and among those only the ones whose ``p_j``
    changes (kept per job with a histogram of its servers' contention); a job's
    progress rate for a given ``p_j`` is computed once (``(j, p)`` cache), a job
    on one server never changes rate; completions are a heap invalidated
    lazily (an entry counts while its version is the job's).
    """

    def __init__(self, inst: RarInstance, record: bool = False):
        J = inst.num_jobs
        self.inst = inst
        self.t = 0
        self.split_at: list[set[int]] = [set() for _ in range(inst.num_servers)]
        self.servers: list[tuple[int, ...] | None] = [None] * J
        self.rate: list[float | None] = [None] * J
        self.rem = [0.0] * J
        self.t_at = [0] * J
        self.version = [0] * J  # -1 once finished
        self.finish: dict[int, int] = {}
        self.heap: list[tuple[int, int, int]] = []
        self.record = record
        self.trace: dict[int, list[dict[str, float]]] = {}
        self.pv = [0] * J  # current p_j of every active job, kept incrementally
        self.hist: list[dict[int, int] | None] = [None] * J  # split job -> {count c: #its servers with c split jobs}
        self.nactive = 0
        self._exch = inst.exch_coef.tolist()
        self._base = inst.base_time.tolist()
        self._F = [float(f) for f in inst.F]
        # (p * (S + 1) + n) * J + j -> progress rate of job j split over n servers at contention p
        self._rates: dict[int, float] = {}
        self._single: list[float | None] = [None] * J  # rate of job j on one server

    def copy(self) -> "Engine":
        """An independent copy of the simulator state (for forking runs)."""
        e = Engine.__new__(Engine)
        e.__dict__.update(self.__dict__)
        e.split_at = [set(x) for x in self.split_at]
        for name in ("servers", "rate", "rem", "t_at", "version", "pv"):
            setattr(e, name, list(getattr(self, name)))
        e.finish = dict(self.finish)
        e.heap = list(self.heap)
        e.trace = {k: list(v) for k, v in self.trace.items()}
        e.hist = [dict(h) if h is not None else None for h in self.hist]
        return e

    @property
    def active(self) -> int:
        return self.nactive

    def p(self, j: int) -> int:
        """``p_j`` (6) under the current active set."""
        ss = self.servers[j]
        if len(ss) <= 1:
            return 0
        return max(len(self.split_at[s]) for s in ss)

    def _rate(self, j: int, ns: int, p: int, t: int) -> tuple[float, float]:
        """``(tau_j, phi_j)`` of job ``j`` on ``ns`` servers with contention ``p`` (8)-(9)."""
        inst = self.inst
        if ns <= 1:
            tau = self._exch[j] / inst.bw_intra + self._base[j] + inst.xi2
        else:
            tau = self._exch[j] * inst.degradation(p) / inst.bw_inter + self._base[j] + inst.xi2 * ns
        rate = inst.rate(tau)
        if not rate > 0:
            raise InvalidSolutionError(
                f"job {inst.jobs[j].id!r} makes no progress from slot {t}: tau = {tau:.6g} > 1 slot with "
                f"p = {p} contenders, more than any capacity-feasible schedule allows ((2) capacity)"
            )
        return tau, rate

    def _refresh(self, jobs, t: int) -> None:
        inst = self.inst
        servers, rates, rem, t_at, version, pv = self.servers, self.rate, self.rem, self.t_at, self.version, self.pv
        cache, single = self._rates, self._single
        J = inst.num_jobs
        S1 = inst.num_servers + 1
        floor = inst.progress == "floor"
        heap = self.heap
        for j in jobs:
            ss = servers[j]
            if ss is None:
                continue
            ns = len(ss)
            p = pv[j]
            if ns <= 1:
                rate = single[j]
                if rate is None:
                    rate = single[j] = self._rate(j, ns, p, t)[1]
            else:
                key = (p * S1 + ns) * J + j
                rate = cache.get(key)
                if rate is None:
                    rate = cache[key] = self._rate(j, ns, p, t)[1]
            if self.record:
                tr = self.trace.setdefault(j, [])
                if not tr or tr[-1]["p"] != p:
                    tr.append({"t": t, "p": p, "k": inst.xi1 * p, "tau": self._rate(j, ns, p, t)[0], "phi": rate})
            old = rates[j]
            if old is not None:
                if rate == old:
                    continue
                rem[j] -= old * (t - t_at[j])
            t_at[j] = t
            rates[j] = rate
            v = version[j] = version[j] + 1
            r = rem[j]
            if floor:
                need = -(-int(round(r)) // int(rate))
            else:
                need = inst.slots_needed(r, rate)
            heapq.heappush(heap, (t + need, v, j))

    def start(self, j: int, servers: tuple[int, ...], t: int) -> None:
        """Start job ``j`` at slot ``t`` on ``servers`` (the servers it uses)."""
        if t < self.t:
            raise ValueError("starts must come at non-decreasing times")
        h = self.heap
        if h and h[0][0] <= t:
            self.advance(t)
        self.t = t
        changed = [j]
        servers = tuple(servers)
        self.servers[j] = servers
        self.nactive += 1
        pv = self.pv
        hist = self.hist
        pj = 0
        if len(servers) > 1:
            hj: dict[int, int] = {}
            for s in servers:
                members = self.split_at[s]
                c_old = len(members)
                c = c_old + 1
                for q in members:
                    hq = hist[q]
                    n = hq[c_old] - 1
                    if n:
                        hq[c_old] = n
                    else:
                        del hq[c_old]
                    hq[c] = hq.get(c, 0) + 1
                    if pv[q] < c:
                        pv[q] = c
                        changed.append(q)
                members.add(j)
                hj[c] = hj.get(c, 0) + 1
                if c > pj:
                    pj = c
            hist[j] = hj
        pv[j] = pj
        self.rem[j] = self._F[j]
        self.rate[j] = None
        self._refresh(changed, t)

    def next_exit(self) -> int | None:
        """Time of the next completion (``None`` if nothing runs)."""
        h = self.heap
        version = self.version
        while h and version[h[0][2]] != h[0][1]:
            heapq.heappop(h)
        return h[0][0] if h else None

    def advance(self, t: int) -> list[int]:
        """Process every completion at a time ``<= t``; return the jobs that ended."""
        ended: list[int] = []
        heap = self.heap
        version = self.version
        servers = self.servers
        pv, hist, split_at = self.pv, self.hist, self.split_at
        pop = heapq.heappop
        while True:
            while heap and version[heap[0][2]] != heap[0][1]:
                pop(heap)
            if not heap or heap[0][0] > t:
                break
            te = heap[0][0]
            batch = []
            while heap and heap[0][0] == te:
                _, v, j = pop(heap)
                if version[j] == v:
                    batch.append(j)
            changed: list[int] = []
            for j in batch:
                ss = servers[j]
                servers[j] = None
                self.nactive -= 1
                pv[j] = 0
                version[j] = -1
                self.finish[j] = te
                if len(ss) > 1:
                    hist[j] = None
                    for s in ss:
                        members = split_at[s]
                        members.discard(j)
                        c = len(members)
                        c_old = c + 1
                        for q in members:
                            hq = hist[q]
                            n = hq[c_old] - 1
                            if n:
                                hq[c_old] = n
                            else:
                                del hq[c_old]
                                if pv[q] == c_old:  # s was q's only most contended server
                                    pv[q] = c
                                    changed.append(q)
                            hq[c] = hq.get(c, 0) + 1
            self._refresh(changed, te)
            ended.extend(batch)
            if te > self.t:
                self.t = te
        return ended

    def run(self) -> None:
        """Run every active job to completion."""
        while (te := self.next_exit()) is not None:
            self.advance(te)


def simulate(inst: RarInstance, start, gpus, record: bool = False) -> Engine:
    """Run the schedule through :class:`Engine`; ``engine.finish[j]`` is ``T_j``."""
    start = np.asarray(start, dtype=np.int64)
    eng = Engine(inst, record=record)
    for j in np.argsort(start, kind="stable").tolist():
        ss = tuple(sorted({int(inst.gpu_server[g]) for g in gpus[j]}))
        eng.start(j, ss, int(start[j]))
    eng.run()
    return eng


def simulate_slots(inst: RarInstance, start, counts: list[dict[int, int]], max_slots: int) -> np.ndarray:
    """Literal slot-by-slot simulation of (6)-(9) (the reference for tests).

    ``counts[j]`` is ``{server: y_js}``.  Returns ``T_j`` (``-1`` for jobs not
    finished within ``max_slots``).  Cost ``O(max_slots * J * S)``.
    """
    J = inst.num_jobs
    start = [int(a) for a in start]
    prog = [0.0] * J
    T = [-1] * J
    for t in range(max_slots):
        if all(x >= 0 for x in T):
            break
        act = [j for j in range(J) if start[j] <= t and T[j] < 0]
        split = {j for j in act if sum(1 for y in counts[j].values() if y > 0) > 1}
        for j in act:
            srv = [s for s, y in counts[j].items() if y > 0]
            if len(srv) == 1:
                p = 0
            else:
                p = max(sum(1 for q in split if counts[q].get(s, 0) > 0) for s in srv)
            rate = inst.rate(inst.tau(j, len(srv), p))
            prog[j] += rate
            need = float(inst.F[j])
            if need - prog[j] <= (0.0 if inst.progress == "floor" else 1e-9 * rate):
                T[j] = t + 1
    return np.array(T, dtype=np.int64)


# ---------------------------------------------------------------------------
def _shape_check(inst: RarInstance, s: RarSchedule) -> None:
    J = inst.num_jobs
    if s.start.shape != (J,) or len(s.gpus) != J:
        raise InvalidSolutionError(f"schedule has {s.start.shape[0] if s.start.ndim else 0} starts and "
                                   f"{len(s.gpus)} placements, instance has {J} jobs")
    for j, job in enumerate(inst.jobs):
        if s.start[j] < 0:
            raise InvalidSolutionError(f"job {job.id!r}: start slot {int(s.start[j])} < 0")
        gs = s.gpus[j]
        if len(set(gs)) != len(gs):
            raise InvalidSolutionError(f"(1) gang: job {job.id!r} lists a GPU twice: {gs}")
        if len(gs) != job.gpus:
            raise InvalidSolutionError(
                f"(1) gang: job {job.id!r} holds {len(gs)} GPUs, it needs exactly G_j = {job.gpus}"
            )
        for g in gs:
            if not 0 <= g < inst.num_gpus:
                raise InvalidSolutionError(f"(2) capacity: job {job.id!r} uses GPU {g}, the cluster has "
                                           f"{inst.num_gpus} (indices 0..{inst.num_gpus - 1})")


def _simulated(inst: RarInstance, s: RarSchedule) -> np.ndarray:
    """``T_j`` (9) of every job, by simulation."""
    eng = simulate(inst, s.start, s.gpus)
    return np.array([eng.finish[j] for j in range(inst.num_jobs)], dtype=np.int64)


def _fingerprint(s: RarSchedule) -> tuple:
    """What the checks of a schedule depend on: its start slots (type, shape, CRC-32) and placements."""
    st = np.ascontiguousarray(s.start)
    return st.dtype.str, st.shape, zlib.crc32(st), hash(s.gpus)


def check(inst: RarInstance, s: RarSchedule) -> np.ndarray:
    """Validate (every constraint below) and return ``T_j``, once per instance and schedule
    content: the outcome is kept on the schedule with a fingerprint, so :func:`validate`,
    :func:`evaluate` and :func:`completion_times` of one solution share one simulation
    (``dmlsched.solve`` validates and evaluates, the method kit evaluates)."""
    fp = _fingerprint(s)
    memo = s.__dict__.get("_checked")
    if memo is not None and memo[0] is inst and memo[1] == fp:
        if memo[3] is not None:
            raise memo[3]
        return memo[2]
    T, err = None, None
    try:
        _shape_check(inst, s)
        T = _simulated(inst, s)
        _check_times(inst, s, T)
    except InvalidSolutionError as e:
        err = e
    s.__dict__["_checked"] = (inst, fp, T, err)
    if err is not None:
        raise err
    return T


def completion_times(inst: RarInstance, s: RarSchedule) -> np.ndarray:
    """``T_j`` (9) of every job, by simulation (shared with the checks when the schedule is valid)."""
    try:
        return check(inst, s)
    except InvalidSolutionError:
        return _simulated(inst, s)


def validate(inst: RarInstance, s: RarSchedule) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint."""
    check(inst, s)


def _check_times(inst: RarInstance, s: RarSchedule, T: np.ndarray) -> None:
    """The horizon and (2) capacity, given ``T_j``."""
    for j, job in enumerate(inst.jobs):
        if T[j] > inst.horizon:
            raise InvalidSolutionError(
                f"horizon: job {job.id!r} completes at slot {int(T[j])} > T = {inst.horizon}"
            )
    # (2) one job per GPU per slot: intervals [a_j, T_j) on each GPU are disjoint
    use: dict[int, list[tuple[int, int, int]]] = {}
    for j in range(inst.num_jobs):
        for g in s.gpus[j]:
            use.setdefault(g, []).append((int(s.start[j]), int(T[j]), j))
    for g, iv in use.items():
        iv.sort()
        for (a0, e0, j0), (a1, _e1, j1) in zip(iv, iv[1:]):
            if a1 < e0:
                srv = int(inst.gpu_server[g])
                raise InvalidSolutionError(
                    f"(2) capacity: GPU {g} (server {srv}, local {g - int(inst.offsets[srv])}) is held by "
                    f"job {inst.jobs[j1].id!r} from slot {a1} while job {inst.jobs[j0].id!r} runs until {e0}"
                )


def evaluate(inst: RarInstance, s: RarSchedule) -> float:
    """Makespan ``max_j T_j`` recomputed by simulation."""
    return float(completion_times(inst, s).max())


def average_jct(inst: RarInstance, s: RarSchedule) -> float:
    """Average job completion time ``mean_j T_j`` (all jobs arrive at slot 0)."""
    return float(completion_times(inst, s).mean())


def to_json(inst: RarInstance, s: RarSchedule) -> dict:
    """``{"jobs": [{id, start, end, placement: {server: [local GPU, ...]}, trace}], "makespan", "average_jct"}``.

    ``trace`` lists the contention segments of the job: from slot ``t`` on,
    ``p``, ``k = xi1 p``, ``tau`` (8) and progress ``phi`` per slot.
    """
    eng = simulate(inst, s.start, s.gpus, record=True)
    jobs = []
    for j, job in enumerate(inst.jobs):
        pl: dict[str, list[int]] = {}
        for g in sorted(s.gpus[j]):
            srv = int(inst.gpu_server[g])
            pl.setdefault(str(srv), []).append(int(g - inst.offsets[srv]))
        jobs.append({"id": job.id, "start": int(s.start[j]), "end": int(eng.finish[j]),
                     "placement": pl, "trace": eng.trace.get(j, [])})
    T = [eng.finish[j] for j in range(inst.num_jobs)]
    return {"jobs": jobs, "makespan": int(max(T)), "average_jct": float(np.mean(T))}


def from_json(inst: RarInstance, data: Any) -> RarSchedule:
    """Rebuild a schedule from :func:`to_json` output (each job exactly once)."""
    r = Reader(data)
    ids = {j.id: n for n, j in enumerate(inst.jobs)}
    start = [-1] * inst.num_jobs
    gpus: list[tuple[int, ...] | None] = [None] * inst.num_jobs
    for jr in r.items("jobs"):
        jid = jr.string("id")
        if jid not in ids:
            raise jr.error(f"unknown job {jid!r}", "id")
        n = ids[jid]
        if gpus[n] is not None:
            raise jr.error("(3) no preemption or migration: job listed twice (one start, one placement per job)")
        start[n] = jr.integer("start", ge=0)
        gs: list[int] = []
        for sk, sr in jr.entries("placement"):
            try:
                srv = int(sk)
            except ValueError:
                raise sr.error("server key must be an integer") from None
            if not 0 <= srv < inst.num_servers:
                raise sr.error(f"no server {srv}")
            for gr in sr.items():
                loc = gr.as_int(ge=0, lt=inst.servers[srv])
                gs.append(int(inst.offsets[srv]) + loc)
        gpus[n] = tuple(gs)
    missing = [inst.jobs[n].id for n in range(inst.num_jobs) if gpus[n] is None]
    if missing:
        raise r.error(f"job {missing[0]!r} missing", "jobs")
    return RarSchedule(start=np.array(start), gpus=tuple(gpus))  # type: ignore[arg-type]


def gantt_bars(inst: RarInstance, s: RarSchedule) -> GanttChart:
    """The Gantt chart of a schedule: one row per GPU (grouped by server), each job a bar
    on its GPUs from its start slot to its finish slot."""
    sj = to_json(inst, s)
    offsets = [int(x) for x in inst.offsets]
    tasks = []
    for job in sj["jobs"]:
        for srv, local in job["placement"].items():
            for g in local:
                tasks.append({"job": job["id"], "gpu": offsets[int(srv)] + int(g),
                              "start": float(job["start"]), "end": float(job["end"])})
    labels = [f"s{s}/g{g}" for s, n in enumerate(inst.servers) for g in range(int(n))]
    groups = [(f"server {s}", list(range(offsets[s], offsets[s] + int(n)))) for s, n in enumerate(inst.servers)]
    return GanttChart(tasks, row_labels=labels, groups=groups, xlabel="time slot", integer_time=True)
