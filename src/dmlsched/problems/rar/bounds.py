"""The bound SJF-BCO claims (Theorem 5) and simple valid lower bounds.

Theorem 5: Algorithm 1 is ``n_g * phi * u / l``-approximate, with

* ``n_g = max_j G_j``;
* ``phi = max_j max_{k1,k2} rho_j(y^k1) / rho_j(y^k2)``: the worst ratio of a
  job's execution times (slots from start to completion) over schedules.  We
  compute it over the range of (8): ``rho_max_j / rho_min_j`` where
  ``rho_min_j`` uses the smallest possible ``tau_j`` (one server with
  ``b^i`` if the job fits on a server, else the fewest servers with no other
  contender) and ``rho_max_j`` the largest (``min(G_j, S)`` servers and
  ``p_j = min(max_s O_s, #jobs with G >= 2)``), see
  :attr:`RarInstance.rho_range`.  This is an upper bound on the paper's phi
  (the extremes need not be attainable together), so the claimed ratio we
  check is never smaller than the paper's.
* ``l, u``: ``rho_hat_j in [l rho_j, u rho_j]`` for every schedule.  Our
  estimate is ``rho_hat_j = rho_min_j`` (the smallest possible value, so that
  ``rho_hat/u`` never exceeds the true time and ILP (14)-(16) gives a valid
  lower bound), hence ``u = max_j rho_hat_j / rho_min_j = 1`` and
  ``l = min_j rho_hat_j / rho_max_j = min_j rho_min_j / rho_max_j``.

See ``proofs/rar-theorem-5.md``: the theorem is false (counterexample in
``instances/counterexamples/rar-theorem5-lemma4.json``).
"""

from __future__ import annotations

import math

import numpy as np

from ...budget import Budget
from ...kit import Run, method
from ...result import Result, Status
from .counts import count_vectors, count_vectors_size
from .horizon import ENERGETIC_MAX_WORK, energetic_infeasible, load_lower_bound
from .instance import RarInstance


def rho_hat(inst: RarInstance) -> np.ndarray:
    """The execution-time estimate used by SJF-BCO and the ILP bound: ``rho_min_j``."""
    return inst.rho_range[0].copy()


def phi(inst: RarInstance) -> float:
    """``phi = max_j rho_max_j / rho_min_j`` (Lemma 4)."""
    lo, hi = inst.rho_range
    return float(np.max(hi / lo))


def l_u(inst: RarInstance) -> tuple[float, float]:
    """``(l, u)`` with ``rho_hat_j in [l rho_j, u rho_j]`` for every schedule."""
    lo, hi = inst.rho_range
    est = rho_hat(inst)
    return float(np.min(est / hi)), float(np.max(est / lo))


def theorem5_ratio(inst: RarInstance) -> float:
    """The claimed approximation ratio ``n_g * phi * u / l`` of SJF-BCO."""
    l, u = l_u(inst)
    return float(inst.n_g * phi(inst) * u / l)


# ---------------------------------------------------------------------------
# the fluid (configuration) LP bound
def rate(inst: RarInstance, j: int, n: int, p: int) -> float:
    """Progress per slot of job ``j`` on ``n`` servers with contention ``p``."""
    return float(inst.rate(inst.tau(j, n, p if n > 1 else 0)))


def config_rates(config, num_servers: int, rate) -> list[float]:
    """Progress per slot of each ``(job, count vector)`` of a configuration of
    concurrently active jobs, in order.

    A job on several servers has contention ``p`` = the most multi-server jobs
    on any of its servers (9); a job on one server has ``p = 0``.  ``rate(j, n,
    p)`` gives the progress per slot of job ``j`` on ``n`` servers.
    """
    cnt = [0] * num_servers
    for _, v in config:
        if sum(1 for y in v if y > 0) > 1:
            for s in range(num_servers):
                if v[s] > 0:
                    cnt[s] += 1
    out = []
    for j, v in config:
        srv = [s for s in range(num_servers) if v[s] > 0]
        p = max(cnt[s] for s in srv) if len(srv) > 1 else 0
        out.append(rate(j, len(srv), p))
    return out


class Pricer:
    """Exact pricing of the configuration LP: a capacity-feasible set of concurrently
    active jobs with count vectors maximising ``sum_j pi_j R_j`` (depth-first search
    with an optimistic bound; contention only lowers rates, so the value of the placed
    jobs at the current contention plus every other job at its fastest rate bounds
    every completion)."""

    def __init__(self, inst: RarInstance, max_nodes: int, rates=None):
        self.inst = inst
        self.max_nodes = max_nodes
        self._rates = rates or (lambda j, n, p: rate(inst, j, n, p))
        self.cache: dict[tuple[int, int, int], float] = {}
        self.vecs = [count_vectors(inst, j) for j in range(inst.num_jobs)]
        self.rmax = np.array([max(self.rate(j, sum(1 for y in v if y > 0), 1) for v in self.vecs[j])
                              for j in range(inst.num_jobs)])
        #: each job's vectors, fastest first (the search order; independent of the duals)
        self.fast_first = [sorted(self.vecs[j], key=lambda v: -self.rate(j, sum(1 for y in v if y > 0), 1))
                           for j in range(inst.num_jobs)]

    def rate(self, j: int, n: int, p: int) -> float:
        key = (j, n, p)
        r = self.cache.get(key)
        if r is None:
            r = self.cache[key] = self._rates(j, n, p)
        return r

    def config_rates(self, placed: list[tuple[int, tuple[int, ...]]]) -> dict[int, float]:
        return dict(zip((j for j, _ in placed), config_rates(placed, self.inst.num_servers, self.rate)))

    def price(self, pi: np.ndarray, budget: Budget | None = None) -> tuple[float, dict[int, float] | None, bool]:
        """``(z*, rates of the best configuration, complete)``; ``complete`` is false
        when the node limit or ``budget.stop()`` (asked every 1000 nodes) ended the search
        (then ``z*`` is only an upper bound, which keeps Farley's bound valid)."""
        inst = self.inst
        S = inst.num_servers
        caps = list(inst.servers)
        order = [j for j in np.argsort(-pi * self.rmax, kind="stable").tolist() if pi[j] > 0]
        val = {j: float(pi[j] * self.rmax[j]) for j in order}
        G = {j: int(inst.G[j]) for j in order}
        free = list(caps)
        used = [0] * S  # jobs placed on each server (for the symmetry of untouched servers)
        placed: list[tuple[int, tuple[int, ...]]] = []
        best: list = [0.0, None]
        nodes = [0]
        complete = [True]
        vecs = self.fast_first

        def tail(k: int) -> float:
            """Fractional knapsack of the jobs after ``k`` (value at the fastest rate,
            weight G_j) into the free GPUs: an upper bound on what they can add."""
            room = float(sum(free))
            out = 0.0
            for j in sorted(order[k:], key=lambda q: -val[q] / G[q]):
                if room <= 0:
                    break
                take = min(1.0, room / G[j])
                out += take * val[j]
                room -= take * G[j]
            return out

        def canonical(v: tuple[int, ...]) -> bool:
            """Untouched servers of equal capacity are interchangeable: their counts
            must not increase along the index order."""
            for s in range(S - 1):
                t = s + 1
                if caps[s] == caps[t] and used[s] == 0 and used[t] == 0 and v[s] < v[t]:
                    return False
            return True

        def dfs(k: int) -> None:
            nodes[0] += 1
            if nodes[0] > self.max_nodes or (budget is not None and nodes[0] % 1000 == 0 and budget.stop()):
                complete[0] = False
                return
            rates = self.config_rates(placed)
            cur = sum(pi[j] * r for j, r in rates.items())
            if cur > best[0]:
                best[0], best[1] = cur, rates
            if k == len(order) or cur + tail(k) <= best[0] * (1 + 1e-12):
                return
            j = order[k]
            for v in vecs[j]:
                if all(v[s] <= free[s] for s in range(S)) and canonical(v):
                    for s in range(S):
                        free[s] -= v[s]
                        used[s] += v[s] > 0
                    placed.append((j, v))
                    dfs(k + 1)
                    placed.pop()
                    for s in range(S):
                        free[s] += v[s]
                        used[s] -= v[s] > 0
                    if not complete[0]:
                        return
            dfs(k + 1)

        dfs(0)
        if not complete[0]:
            return float(np.dot(pi, self.rmax)), best[1], False
        return best[0], best[1], True


def fluid_lower_bound(inst: RarInstance, *, max_iterations: int = 200, max_nodes: int = 200_000,
                      budget: Budget | None = None, keep_duals: bool = False) -> dict:
    """The configuration LP bound (``models/rar.md``, "fluid bound").

    Variables ``x_c >= 0``: slots spent in configuration ``c`` (a capacity-feasible
    set of active jobs with count vectors); ``min sum_c x_c`` s.t.
    ``sum_c R_jc x_c >= F_j``.  Every schedule gives such an ``x`` (its slots grouped
    by configuration), so the LP value is a lower bound on the makespan (it allows
    preemption and migration).  Solved by column generation with exact pricing; the
    returned bound is Farley's ``pi . F / z*`` for the last duals ``pi`` and the
    pricing optimum ``z*``, valid at every iteration (weak duality).  Deterministic:
    iteration and node limits only.
    """
    from scipy.optimize import linprog

    J = inst.num_jobs
    F = inst.F.astype(float)
    pr = Pricer(inst, max_nodes)
    cols: list[np.ndarray] = []
    for j in range(J):
        c = np.zeros(J)
        c[j] = pr.rmax[j]
        cols.append(c)
    best = 0.0
    lp = None
    complete = False
    duals = None
    pairs: list[tuple[np.ndarray, float]] = []
    it = 0
    for it in range(1, max_iterations + 1):
        A = np.array(cols).T
        res = linprog(np.ones(len(cols)), A_ub=-A, b_ub=-F, bounds=(0, None), method="highs")
        if res.status != 0:
            break
        lp = float(res.fun)
        pi = np.maximum(0.0, -np.asarray(res.ineqlin.marginals, dtype=float))
        duals = pi
        z, rates, exact = pr.price(pi, budget)
        if z > 0:
            best = max(best, float(np.dot(pi, F)) / z)
            if keep_duals and exact:
                pairs.append((pi.copy(), float(z)))
        if rates is None or z <= 1 + 1e-9:
            complete = exact
            break
        col = np.zeros(J)
        for j, r in rates.items():
            col[j] = r
        cols.append(col)
        if budget is not None and budget.stop():
            break
    value = float(best) * (1 - 1e-9)
    return {"bound": int(math.ceil(value - 1e-9)) if value > 0 else 0, "value": value, "lp": lp,
            "iterations": it, "columns": len(cols), "converged": complete, "duals": duals,
            "dual_pairs": pairs}


# ---------------------------------------------------------------------------
# energetic reasoning (the interval check is in horizon.py)
def energetic_lower_bound(inst: RarInstance, start: int | None = None, max_steps: int = 10_000,
                          budget: Budget | None = None) -> int:
    """The smallest makespan ``C >= start`` (default: the load bound) that energetic
    reasoning with ``rho_min`` does not rule out (a valid lower bound).  When
    ``budget.stop()`` ends the search early, the ``C`` reached is returned: every smaller
    makespan was ruled out, so it is still a lower bound."""
    G = inst.G.astype(float)
    rho = inst.rho_range[0].astype(float)
    C = int(start if start is not None else load_lower_bound(inst))
    n = len(np.unique(rho))
    if (2 * n + 2) ** 2 / 2 * n > ENERGETIC_MAX_WORK:  # intervals x distinct durations per candidate
        return C
    for _ in range(max_steps):
        if budget is not None and budget.stop():
            return C
        if not energetic_infeasible(G, rho, inst.num_gpus, C):
            return C
        C += 1
    return C


#: the fluid bound is computed when the jobs have at most this many count vectors in all
FLUID_MAX_VECTORS = 3000


def count_vectors_upto(inst: RarInstance, cap: int = FLUID_MAX_VECTORS) -> int:
    """The number of count vectors of all jobs; the count stops at the first job
    that takes it past ``cap`` (so a value ``> cap`` only says "more than cap")."""
    n = 0
    for j in range(inst.num_jobs):
        n += count_vectors_size(inst, j)
        if n > cap:
            break
    return n


def best_lower_bound(inst: RarInstance, budget: Budget | None = None) -> tuple[int, str, dict]:
    """The best of the solver-free lower bounds: ``(value, name, details)``.

    The load bound, energetic reasoning from it, and (when the jobs have at most
    :data:`FLUID_MAX_VECTORS` count vectors in all) the fluid configuration LP.
    Deterministic (work limits only) unless ``budget.stop()`` (a deadline) ends a search
    early: the bound is then still valid, and ``details["stopped"]`` is true so
    that the caller marks its result as cut by the wall clock."""
    load = load_lower_bound(inst)
    out = {"load": load}
    best, name = load, "load"
    en = energetic_lower_bound(inst, load, budget=budget)
    out["energetic"] = en
    if en > best:
        best, name = en, "energetic"
    nvec = count_vectors_upto(inst)
    if nvec <= FLUID_MAX_VECTORS and (budget is None or not budget.stop()):
        fl = fluid_lower_bound(inst, budget=budget, keep_duals=True)
        out["fluid"] = fl["bound"]
        out["_duals"] = fl["duals"]  # popped by exact-cp (its cuts); not a detail
        out["_dual_pairs"] = fl["dual_pairs"]  # popped by exact-cp / exact-dp (the DP's pruning)
        out["fluid_converged"] = fl["converged"]
        if fl["bound"] > best:
            best, name = fl["bound"], "fluid"
    if budget is not None and budget.stop():
        out["stopped"] = True
    return int(best), name, out


@method(
    "rar", "lower-bound", kind="bound",
    description="best solver-free lower bound: load, energetic reasoning, fluid configuration LP (small "
                "instances); milliseconds at the paper's scale",
)
def solve_lower_bound(inst: RarInstance, run: Run) -> Result:
    """The best of the load bound, energetic reasoning and (when the jobs have at most
    ``bounds.FLUID_MAX_VECTORS`` count vectors) the fluid configuration LP; proofs in
    ``models/rar.md``.  Deterministic (work limits only)."""
    with run.stage("bound"):
        value, name, parts = best_lower_bound(inst, budget=run.budget)
    parts.pop("_duals", None)
    parts.pop("_dual_pairs", None)
    if parts.pop("stopped", False):
        run.cut("the lower bounds")
    return run.result(bound=float(value), objective=float(value), status=Status.OPTIMAL, best=name, bounds=parts)
