"""SJF-BCO (Algorithm 1 with FA-FFP, Algorithm 2, and LBSGF, Algorithm 3), the
placement rules of the paper's baselines FF, LS and RAND (MobiHoc'22, Sections
5 and 7; their methods are in :mod:`.baselines`), and ``greedy`` (ours).

All four share one *clock-driven list dispatcher* (:class:`Dispatch`): jobs
are taken in a fixed order; for the current job a placement rule picks GPUs
among those idle at the clock ``t`` whose accumulated estimated execution
time ``U_g`` satisfies ``U_g + rho_hat_j / u <= theta_u``.  If the rule finds
``G_j`` of them the job starts at ``t`` (all its workers at once, held to
completion); otherwise the dispatcher "waits for some job to exit": it
advances the clock to the next completion computed by the contention
simulator (:class:`~.solution.Engine`) and tries again; with nothing running
the job cannot be placed and the run fails (Algorithms 2-3, line "return
empty").  Every reading is listed in ``models/rar.md``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...budget import Budget
from ...kit import Option, OptionError, Run, method
from ...result import Result, Status
from .bounds import load_lower_bound, rho_hat, theorem5_ratio
from .counts import assign_gpus
from .instance import RarInstance
from .solution import Engine, RarSchedule

Chooser = Callable[["Dispatch", int], "np.ndarray | None"]

#: a rule's answer meaning "cannot place this job even if every GPU were idle"
NEVER = np.empty(0, dtype=np.int64)


class Dispatch:
    """State of one list-dispatch run: clock, idle GPUs, ``U_g``, simulator."""

    def __init__(self, inst: RarInstance, rhat: np.ndarray):
        self.inst = inst
        self.rhat = rhat
        self.eng = Engine(inst)
        self.busy = np.zeros(inst.num_gpus, dtype=bool)
        self.U = np.zeros(inst.num_gpus, dtype=np.int64)
        self.t = 0
        self.start = np.full(inst.num_jobs, -1, dtype=np.int64)
        self.gpus: list[tuple[int, ...]] = [()] * inst.num_jobs
        self.holding: dict[int, np.ndarray] = {}
        self.srv_U = np.zeros(inst.num_servers, dtype=np.int64)  # sum_g U_g per server
        self.O = np.asarray(inst.servers, dtype=np.int64)
        self.placed = 0  # number of placements (keys the LBSGF server-order cache)
        self.lb_cache: tuple | None = None
        self.off = [int(x) for x in inst.offsets]  # first global GPU of every server (and the end)

    def place(self, j: int, choose: Chooser, cutoff: int) -> bool:
        """Place job ``j`` at the earliest clock time the rule allows.

        Returns ``False`` if it cannot be placed, or only at a time ``t`` with
        ``t + 1 >= cutoff`` (then the run's makespan cannot be below ``cutoff``).
        A rule returns :data:`NEVER` when it could not place the job even with
        every GPU idle; since waiting changes only which GPUs are idle (``U`` is
        updated by placements alone), the job would wait until nothing runs and
        then fail, so the run fails at once (same outcome, less work).
        """
        while True:
            if self.t + 1 >= cutoff:
                return False
            sel = choose(self, j)
            if sel is NEVER:
                return False
            if sel is not None:
                sel = np.asarray(sel, dtype=np.int64)
                self.busy[sel] = True
                self.U[sel] += self.rhat[j]
                np.add.at(self.srv_U, self.inst.gpu_server[sel], self.rhat[j])
                self.holding[j] = sel
                self.placed += 1
                self.start[j] = self.t
                self.gpus[j] = tuple(sel.tolist())
                srv = tuple(sorted(set(self.inst.gpu_server[sel].tolist())))
                self.eng.start(j, srv, self.t)
                return True
            te = self.eng.next_exit()
            if te is None:
                return False
            for e in self.eng.advance(te):
                self.busy[self.holding.pop(e)] = False
            self.t = te

    def copy(self) -> "Dispatch":
        """An independent copy (runs sharing a prefix of placements fork from it)."""
        d = Dispatch.__new__(Dispatch)
        d.__dict__.update(self.__dict__)
        d.eng = self.eng.copy()
        d.busy, d.U, d.srv_U, d.start = self.busy.copy(), self.U.copy(), self.srv_U.copy(), self.start.copy()
        d.gpus = list(self.gpus)
        d.holding = dict(self.holding)
        return d

    def finish(self) -> np.ndarray:
        self.eng.run()
        return np.array([self.eng.finish[j] for j in range(self.inst.num_jobs)], dtype=np.int64)


def run_list(inst: RarInstance, order, choose: Callable[[int], Chooser], rhat: np.ndarray,
             cutoff: int, budget: Budget | None = None) -> tuple[int, RarSchedule, np.ndarray] | None:
    """Dispatch jobs in ``order`` with rule ``choose(j)``; ``None`` if the run fails
    or cannot reach a makespan ``< cutoff``, or if ``budget.stop()`` (asked before every
    job) says stop."""
    return _run_list(inst, order, choose, rhat, cutoff, budget)[0]


def _run_list(inst: RarInstance, order, choose: Callable[[int], Chooser], rhat: np.ndarray,
              cutoff: int, budget: Budget | None) -> tuple[tuple[int, RarSchedule, np.ndarray] | None, bool]:
    """:func:`run_list`, and whether ``budget.stop()`` ended the run (its ``None`` is then a cut,
    not a failure)."""
    d = Dispatch(inst, rhat)
    for j in order:
        if budget is not None and budget.stop():
            return None, True
        if not d.place(int(j), choose(int(j)), cutoff):
            return None, False
    T = d.finish()
    m = int(T.max())
    if m >= cutoff:
        return None, False
    return (m, RarSchedule(start=d.start.copy(), gpus=tuple(d.gpus)), T), False


# ---------------------------------------------------------------------------
# placement rules
def _least_loaded(d: Dispatch, cand: np.ndarray, g: int) -> np.ndarray:
    """The ``g`` candidates with least ``U`` (ties: lowest GPU index), in that order."""
    key = d.U[cand] * (d.inst.num_gpus + 1) + cand
    if g < len(key):
        key = np.partition(key, g - 1)[:g]
    key = np.sort(key)
    return key % (d.inst.num_gpus + 1)


def fa_ffp(theta: float) -> Chooser:
    """Algorithm 2 (FA-FFP): among idle GPUs with ``U_g + rho_hat_j <= theta``, the
    ``G_j`` with least ``U_g`` (ties: lowest server, then GPU index, i.e. first fit)."""

    def choose(d: Dispatch, j: int):
        ok = d.U + d.rhat[j] <= theta
        cand = np.flatnonzero(ok & ~d.busy)
        g = int(d.inst.G[j])
        if len(cand) < g:
            return NEVER if np.count_nonzero(ok) < g else None
        return _least_loaded(d, cand, g)

    return choose


def lbsgf(theta: float, lam: float) -> Chooser:
    """Algorithm 3 (LBSGF): servers by non-decreasing ``sum_g U_g / O_s`` (ties: index);
    keep the first ``m`` with ``sum O_s >= lambda_j G_j`` (all if fewer); append each
    selected server's idle GPUs with ``U_g + rho_hat_j <= theta`` sorted by ``U_g``;
    take the first ``G_j`` of that list."""
    def choose(d: Dispatch, j: int):
        inst = d.inst
        O = d.O
        g = int(inst.G[j])
        cache = d.lb_cache
        if cache is None or cache[0] != d.placed:  # server loads change only at placements
            srv = np.argsort(d.srv_U / O, kind="stable")
            cache = d.lb_cache = (d.placed, srv, np.cumsum(O[srv]))
        _, srv, cum = cache
        m = int(np.searchsorted(cum, lam * g, side="left")) + 1
        picked: list[int] = []
        possible = 0
        lim = theta - d.rhat[j]
        off = d.off
        U, busy = d.U, d.busy
        for s in srv[:m].tolist():
            lo, hi = off[s], off[s + 1]
            Us = U[lo:hi].tolist()
            bs = busy[lo:hi].tolist()
            loc = []
            for i, u in enumerate(Us):
                if u <= lim:
                    possible += 1
                    if not bs[i]:
                        loc.append(i)
            if loc:
                if len(loc) > 1:
                    loc.sort(key=Us.__getitem__)  # stable: ties keep the GPU order
                picked.extend(i + lo for i in loc)
        if len(picked) < g:
            return NEVER if possible < g else None
        return np.array(picked[:g], dtype=np.int64)

    return choose


def first_fit(theta: float) -> Chooser:
    """FF baseline: the first ``G_j`` eligible GPUs, server by server, by index."""

    def choose(d: Dispatch, j: int):
        ok = d.U + d.rhat[j] <= theta
        cand = np.flatnonzero(ok & ~d.busy)
        g = int(d.inst.G[j])
        if len(cand) < g:
            return NEVER if np.count_nonzero(ok) < g else None
        return cand[:g]

    return choose


def least_loaded(theta: float) -> Chooser:
    """LS baseline: the ``G_j`` eligible GPUs with least ``U_g`` over the whole cluster."""
    return fa_ffp(theta)


def random_rule(rng: np.random.Generator, theta: float) -> Chooser:
    """RAND baseline: ``G_j`` eligible GPUs drawn uniformly at random (``theta = T``)."""

    def choose(d: Dispatch, j: int):
        ok = d.U + d.rhat[j] <= theta
        cand = np.flatnonzero(ok & ~d.busy)
        g = int(d.inst.G[j])
        if len(cand) < g:
            return NEVER if np.count_nonzero(ok) < g else None
        return np.sort(rng.choice(cand, size=g, replace=False))

    return choose


def random_server_rule(rng: np.random.Generator, theta: float) -> Chooser:
    """RAND baseline, reading ``servers``: servers in a random order, and on each
    server in turn as many of its eligible idle GPUs (drawn at random) as the
    job still needs, until it has ``G_j``."""

    def choose(d: Dispatch, j: int):
        ok = d.U + d.rhat[j] <= theta
        free = ok & ~d.busy
        g = int(d.inst.G[j])
        if np.count_nonzero(free) < g:
            return NEVER if np.count_nonzero(ok) < g else None
        off = d.inst.offsets
        picked: list[np.ndarray] = []
        need = g
        for s in rng.permutation(d.inst.num_servers).tolist():
            loc = np.flatnonzero(free[off[s]:off[s + 1]]) + off[s]
            if len(loc):
                take = min(need, len(loc))
                picked.append(rng.choice(loc, size=take, replace=False))
                need -= take
                if need == 0:
                    break
        return np.sort(np.concatenate(picked))

    return choose


# ---------------------------------------------------------------------------
def kappa_representatives(inst: RarInstance) -> list[int]:
    """The values of ``kappa`` in ``1..n_g`` giving distinct runs.

    A run depends on ``kappa`` only through the set ``{j : G_j <= kappa}``, so
    ``kappa = 1`` and each distinct ``G_j`` represent all of ``1..n_g``; since
    line 22 keeps the first strictly better ``kappa``, evaluating only the
    smallest member of each class returns exactly what the full loop returns.
    """
    vals = sorted(set(int(g) for g in inst.G))
    reps = [1] if vals[0] > 1 else []
    return reps + vals


def job_order(inst: RarInstance, order: str, ties: str = "input") -> np.ndarray:
    """Jobs in dispatch order: ``"sjf"`` (non-decreasing ``G_j``, Algorithm 1 line 4)
    or ``"input"``.  ``ties`` orders jobs of equal ``G_j`` under ``"sjf"``: as listed
    (``"input"``), longest ``rho_min`` first (``"longest"``) or shortest first (``"shortest"``)."""
    if order == "input":
        return np.arange(inst.num_jobs)
    if order != "sjf":
        raise OptionError("order", f"must be 'sjf' or 'input', got {order!r}")
    idx = np.arange(inst.num_jobs)
    r = inst.rho_range[0]
    if ties == "input":
        return np.lexsort((idx, inst.G))
    if ties == "longest":
        return np.lexsort((idx, -r, inst.G))
    if ties == "shortest":
        return np.lexsort((idx, r, inst.G))
    raise OptionError("ties", f"must be 'input', 'longest' or 'shortest', got {ties!r}")


def bisection(inst: RarInstance, rules: Callable[[int], list[Callable[[int], Chooser]]] | None,
              order: np.ndarray, rhat: np.ndarray, theta_range: tuple[int, int] | None = None,
              inner: Callable | None = None, budget: Budget | None = None) -> dict:
    """Lines 5-31 of Algorithm 1: bisection on integer ``theta_u`` over ``[1, T]``.

    ``rules(theta)`` lists the inner runs (one per ``kappa``), or ``inner(theta,
    m, budget, first)`` performs them and returns ``(m_theta, schedule, index, T, runs,
    stopped)``.  A run counts only if it places every job and finishes by the horizon
    (``m <= T``).  ``budget.stop()`` is asked before every probe after the first (the
    method's deadline), and within the probes before every job (a probe it stops keeps
    only its finished runs, and is the last); when it says stop, ``best["cut"]`` is
    ``True``.  The first probe (``first``) asks only once one of its runs has found a
    schedule: the search's first schedule is always completed (an incumbent to return),
    then the deadline holds to one job's placement.
    """
    T = inst.horizon
    left, right = theta_range or (1, T)
    best: dict = {"m": T + 1, "sched": None, "theta": None, "index": None, "T": None, "cut": False}
    runs = 0
    trail: list[tuple[int, int | None]] = []
    while left <= right:
        if trail and budget is not None and budget.stop():
            best["cut"] = True
            break
        theta = (left + right) // 2
        m_theta, y_theta, idx_theta, T_theta = T + 1, None, None, None
        first = not trail  # the first probe asks the budget once it has a schedule
        stopped = False
        if inner is not None:
            m_theta, y_theta, idx_theta, T_theta, n, stopped = inner(theta, best["m"], budget, first)
            runs += n
        else:
            for idx, choose in enumerate(rules(theta)):
                runs += 1
                probe_budget = None if first and y_theta is None else budget
                out, stopped = _run_list(inst, order, choose, rhat, min(m_theta, best["m"]), probe_budget)
                if stopped:
                    break
                if out is not None and out[0] < m_theta:
                    m_theta, y_theta, idx_theta, T_theta = out[0], out[1], idx, out[2]
        trail.append((theta, m_theta if y_theta is not None else None))
        if m_theta < best["m"]:
            best.update(m=m_theta, sched=y_theta, theta=theta, index=idx_theta, T=T_theta)
            right = theta - 1
        else:
            left = theta + 1
        if stopped:  # the budget stopped this probe: its finished runs are kept, no probe follows
            best["cut"] = True
            break
    best["runs"] = runs
    best["trail"] = trail
    return best


def sjf_bco_search(inst: RarInstance, kappa: int | None = None, lam: float = 1.0,
                   budget: Budget | None = None, ties: str = "input") -> dict:
    """Algorithm 1 (SJF-BCO) with FA-FFP for ``G_j <= kappa`` and LBSGF otherwise."""
    rhat = rho_hat(inst)
    order = job_order(inst, "sjf", ties)
    kappas = [int(kappa)] if kappa is not None else kappa_representatives(inst)
    G = inst.G

    order_l = order.tolist()
    T = inst.horizon

    def inner(theta: int, m_best: int, probe_budget: Budget | None, first: bool = False):
        """The kappa loop (lines 8-23) at one theta, sharing work between kappas.

        Jobs come in non-decreasing G_j, so the runs for kappa < kappa' place the
        jobs with G_j <= kappa identically (FA-FFP in both, same state): one
        prefix state is advanced with FA-FFP as kappa grows and each run forks it
        for its LBSGF suffix.  Exactly the results of independent runs.
        ``probe_budget.stop()``, asked before every job (in the ``first`` probe only once a
        run has found a schedule), abandons the probe (it keeps what its finished runs
        found; the last element of the result says so).
        """

        def stopped() -> bool:
            return probe_budget is not None and not (first and y_theta is None) and probe_budget.stop()

        fa, lb = fa_ffp(theta), lbsgf(theta, lam)
        m_theta, y_theta, idx_theta, T_theta, n = T + 1, None, None, None, 0
        cur = Dispatch(inst, rhat)
        pos = 0  # jobs order_l[:pos] are placed in `cur` (FA-FFP)
        dead = False
        for idx, k in enumerate(kappas):
            n += 1
            cutoff = min(m_theta, m_best)
            if not dead:
                while pos < len(order_l) and G[order_l[pos]] <= k:
                    if stopped():
                        return m_theta, y_theta, idx_theta, T_theta, n, True
                    if not cur.place(order_l[pos], fa, cutoff):
                        dead = True
                        break
                    pos += 1
            if dead or (pos > 0 and cur.t + 1 >= cutoff):
                break  # the shared prefix fails for this and every larger kappa
            d = cur.copy() if pos < len(order_l) else cur
            ok = True
            for j in order_l[pos:]:
                if stopped():
                    return m_theta, y_theta, idx_theta, T_theta, n, True
                if not d.place(j, lb, cutoff):
                    ok = False
                    break
            if not ok:
                continue
            Tj = d.finish()
            m = int(Tj.max())
            if m < cutoff and m < m_theta:
                m_theta, idx_theta, T_theta = m, idx, Tj
                y_theta = RarSchedule(start=d.start.copy(), gpus=tuple(d.gpus))
            if d is cur:
                break
        return m_theta, y_theta, idx_theta, T_theta, n, False

    best = bisection(inst, None, order, rhat, inner=inner, budget=budget)
    best["kappa"] = kappas[best["index"]] if best["index"] is not None else None
    return best


# ---------------------------------------------------------------------------
# registration (the method kit)

def search_result(run: Run, inst: RarInstance, best: dict, **extra) -> Result:
    """The result of a list-dispatch search (``best`` from :func:`bisection`)."""
    if best.get("cut"):
        run.cut("bisection on theta_u")
    if best["sched"] is None:
        if best.get("cut"):
            return run.result(runs=best.get("runs"), **extra)
        why = f": {best['why']}" if best.get("why") else ""
        return run.result(status=Status.ERROR, error=f"found no schedule within the horizon T = {inst.horizon}{why}"
                          " (no bound proves that none exists)",
                          runs=best.get("runs"), **extra)
    return run.result(solution=best["sched"], average_jct=float(np.mean(best["T"])), theta_u=best["theta"],
                      runs=best.get("runs"), **extra)


@method(
    "rar", "sjf-bco", kind="heuristic",
    description="Algorithm 1 (SJF-BCO): bisection on theta_u, kappa loop, FA-FFP / LBSGF",
    bound=theorem5_ratio, bound_name="SJF-BCO Theorem 5: n_g * phi * u / l (false in general)",
    options=[
        Option("kappa", int, None, "fix kappa (default: the loop over 1..max_j G_j of line 8)", minimum=1),
        Option("lam", float, 1.0, "lambda_j of LBSGF, the same for every job (paper: 1)", minimum=1.0),
        Option("ties", str, "input", "order of jobs with equal G_j (the paper does not say): as listed, "
               "longest rho_min first, or shortest first", choices=("input", "longest", "shortest")),
    ],
)
def solve_sjf_bco(inst: RarInstance, run: Run) -> Result:
    """SJF-BCO (Algorithm 1): jobs by non-decreasing ``G_j``, FA-FFP for ``G_j <= kappa``,
    LBSGF otherwise, bisection on ``theta_u``.  The bisection stops early only at the
    deadline (then ``details["reproducible"]`` is false)."""
    kappa, lam, ties = run.options["kappa"], run.options["lam"], run.options["ties"]
    with run.stage("search"):
        best = sjf_bco_search(inst, kappa=kappa, lam=lam, budget=run.budget, ties=ties)
    return search_result(run, inst, best, kappa=best.get("kappa"), ties=ties, **{"lambda": lam})


def best_heuristic_schedule(inst: RarInstance, budget: Budget | None = None
                            ) -> tuple[tuple[int, RarSchedule] | None, bool]:
    """The best schedule of SJF-BCO, the FF and LS baselines in both job orders and
    ``greedy``'s rules (the incumbent exact methods start from), ``None`` if none finds
    one within ``T``; and whether ``budget.stop()`` ended the search early (then the
    caller records a cut: the result depends on the wall clock).  SJF-BCO's first
    probe runs until it has a schedule; after that every probe, rule and
    list-scheduling event asks the budget first.  "Stopped" is what those questions answered (the searches' cut
    flags), never the clock asked again after the search."""
    rhat = rho_hat(inst)
    found: list[tuple[int, RarSchedule]] = []
    b = sjf_bco_search(inst, budget=budget)
    stopped = bool(b["cut"])
    if b["sched"] is not None:
        found.append((int(b["m"]), b["sched"]))
    for rule in (first_fit, least_loaded):
        for order in ("sjf", "input"):
            if stopped or (budget is not None and budget.stop()):
                stopped = True
                break
            b = bisection(inst, lambda theta, r=rule: [lambda j, c=r(theta): c], job_order(inst, order), rhat,
                          budget=budget)
            stopped = bool(b["cut"])
            if b["sched"] is not None:
                found.append((int(b["m"]), b["sched"]))
    if not stopped and (budget is None or not budget.stop()):
        g = greedy_search(inst, GREEDY_RULES, 0, 0, budget=budget)
        stopped = bool(g["cut"])
        if g["sched"] is not None:
            found.append((int(g["m"]), g["sched"]))
    else:
        stopped = True
    return (min(found, key=lambda x: x[0]) if found else None), stopped


# ---------------------------------------------------------------------------
# our list scheduler (not the paper's): the incumbent of exact-cp and the upper
# side of the certified gap
def _place_counts(free: np.ndarray, g: int) -> dict[int, int] | None:
    """Best fit on one server (least free capacity that holds ``g``, ties: lowest
    index); otherwise the fewest servers, largest free capacity first; ``None`` if
    fewer than ``g`` GPUs are free."""
    fits = np.flatnonzero(free >= g)
    if len(fits):
        s = int(fits[np.argmin(free[fits])])
        return {s: g}
    if int(free.sum()) < g:
        return None
    vec: dict[int, int] = {}
    need = g
    for s in np.argsort(-free, kind="stable").tolist():
        take = min(need, int(free[s]))
        if take > 0:
            vec[s] = take
            need -= take
            if need == 0:
                break
    return vec


def list_schedule(inst: RarInstance, order, reserve: bool, budget: Budget | None = None
                  ) -> tuple[int, RarSchedule, np.ndarray] | None:
    """Event-driven list scheduling: at slot 0 and at every completion, start the
    waiting jobs in ``order`` that fit (:func:`_place_counts`).  With ``reserve``
    the scan stops at the first job that does not fit (no job overtakes it);
    without, later jobs fill the gap (backfilling).  ``None`` if it ends after ``T``,
    or if ``budget.stop()`` says stop at a completion event (:func:`_list_run` tells the two apart)."""
    return _list_run(inst, order, reserve, budget)[0]


def _list_run(inst: RarInstance, order, reserve: bool, budget: Budget | None
              ) -> tuple[tuple[int, RarSchedule, np.ndarray] | None, bool]:
    """:func:`list_schedule`, and whether ``budget.stop()`` ended the run (its ``None`` is then
    a cut, not a run past ``T``)."""
    J, S = inst.num_jobs, inst.num_servers
    free = np.asarray(inst.servers, dtype=np.int64).copy()
    eng = Engine(inst)
    waiting = [int(j) for j in order]
    start = [0] * J
    vecs: list[tuple[int, ...]] = [()] * J
    hold: dict[int, dict[int, int]] = {}
    t = 0
    G = inst.G.tolist()
    total = int(free.sum())
    while waiting:
        rest = []
        blocked = False
        for j in waiting:
            vec = None if (blocked or G[j] > total) else _place_counts(free, G[j])
            if vec is None:
                rest.append(j)
                blocked = blocked or reserve
                continue
            total -= G[j]
            for s, y in vec.items():
                free[s] -= y
            hold[j] = vec
            start[j] = t
            vecs[j] = tuple(vec.get(s, 0) for s in range(S))
            eng.start(j, tuple(sorted(vec)), t)
        waiting = rest
        if not waiting:
            break
        if budget is not None and budget.stop():
            return None, True
        te = eng.next_exit()
        if te is None or te >= inst.horizon:
            return None, False
        for e in eng.advance(te):
            total += G[e]
            for s, y in hold.pop(e).items():
                free[s] += y
        t = te
    eng.run()
    T = np.array([eng.finish[j] for j in range(J)], dtype=np.int64)
    m = int(T.max())
    if m > inst.horizon:
        return None, False
    return (m, assign_gpus(inst, start, vecs, T), T), False


#: priority rules of ``greedy``: the key sorted in decreasing order
PRIORITIES = {
    "lpt": lambda inst, r: (r, inst.G),          # longest rho_min first, then widest
    "area": lambda inst, r: (r * inst.G, r),      # largest G_j rho_min_j first
    "wide": lambda inst, r: (inst.G, r),          # widest first, then longest
}


def _order(inst: RarInstance, key: np.ndarray, tie: np.ndarray) -> np.ndarray:
    return np.lexsort((np.arange(inst.num_jobs), -tie, -key))


def greedy_search(inst: RarInstance, rules: list[tuple[str, bool]], iterations: int, seed: int,
                  budget: Budget | None = None) -> dict:
    """Best of :func:`list_schedule` over the ``(priority, reserve)`` rules, then
    ``iterations`` runs of the best rule with its priorities multiplied by seeded
    log-normal noise (sigma 0.15).  Deterministic for a seed."""
    r = inst.rho_range[0].astype(float)
    best: dict = {"m": None, "sched": None, "T": None, "rule": None, "runs": 0, "cut": False}

    def consider(out, rule) -> None:
        best["runs"] += 1
        if out is not None and (best["m"] is None or out[0] < best["m"]):
            best.update(m=out[0], sched=out[1], T=out[2], rule=rule)

    for name, reserve in rules:
        if budget is not None and budget.stop():
            best["cut"] = True
            return best
        key, tie = PRIORITIES[name](inst, r)
        out, stopped = _list_run(inst, _order(inst, np.asarray(key, float), np.asarray(tie, float)), reserve, budget)
        if stopped:  # the budget stopped the run
            best["cut"] = True
            return best
        consider(out, f"{name}{'-reserve' if reserve else ''}")
    lb = load_lower_bound(inst)
    if iterations and best["rule"] is not None and best["m"] > lb:
        base = best["rule"]
        name = base.removesuffix("-reserve")
        reserve = base.endswith("-reserve")
        key, tie = PRIORITIES[name](inst, r)
        rng = np.random.default_rng(seed)
        for _ in range(iterations):
            if best["m"] <= lb:  # provably optimal: more runs cannot improve
                break
            if budget is not None and budget.stop():
                best["cut"] = True
                break
            noisy = np.asarray(key, float) * np.exp(rng.normal(0.0, 0.15, inst.num_jobs))
            out, stopped = _list_run(inst, _order(inst, noisy, np.asarray(tie, float)), reserve, budget)
            if stopped:
                best["cut"] = True
                break
            consider(out, f"{base} (perturbed)")
    return best


GREEDY_RULES = [(p, res) for p in PRIORITIES for res in (True, False)]


@method("rar", "greedy", kind="heuristic",
        description="our list scheduler (not the paper's): longest/largest/widest first, best-fit server, "
                    "split only when no server holds the job; best of rules and seeded perturbations",
        options=[
            Option("rule", str, "portfolio", "a single priority rule or the best of all ('portfolio')",
                   choices=("portfolio",) + tuple(f"{p}{s}" for p in PRIORITIES for s in ("", "-reserve"))),
            Option("iterations", int, 20, "runs with seeded random perturbations of the best rule's priorities",
                   minimum=0),
        ])
def solve_greedy(inst: RarInstance, run: Run) -> Result:
    """Event-driven list scheduling of our own (``models/rar.md``, "greedy"): jobs by a
    priority rule; at each completion the waiting jobs that fit start, each on the
    fullest server that holds it, or split over the fewest servers.  Deterministic for
    a seed (the work is a fixed number of runs)."""
    rule = run.options["rule"]
    rules = GREEDY_RULES if rule == "portfolio" else [(rule.removesuffix("-reserve"), rule.endswith("-reserve"))]
    with run.stage("search"):
        best = greedy_search(inst, rules, run.options["iterations"], run.seed, budget=run.budget)
    if best["cut"]:
        run.cut("greedy perturbation runs")
    if best["sched"] is None and best["cut"]:
        return run.result(runs=best["runs"])
    if best["sched"] is None:
        return run.result(status=Status.ERROR, error=f"found no schedule within the horizon T = {inst.horizon} "
                          "(no bound proves that none exists)",
                          runs=best["runs"])
    return run.result(solution=best["sched"], average_jct=float(np.mean(best["T"])), rule=best["rule"],
                      runs=best["runs"])
