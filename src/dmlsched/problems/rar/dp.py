"""An exact slot-by-slot dynamic program over every schedule of small RAR-DDLS
instances (method ``exact-dp``).  Specification and proofs: ``models/rar.md``,
section "exact-dp".

A *state* at the start of slot ``t`` is the set of finished jobs, the running
jobs with their count vectors and progress, and (implicitly) the waiting jobs.
A *decision* starts any set of waiting jobs now, each with a count vector that
fits the free GPUs (or none: waiting is a decision, so deliberate delays are
in the space); the slot then runs at the rates (6)-(9) of the resulting
configuration.  Two states of the same slot with the same finished set and the
same running jobs and vectors compare by progress: one with at least as much
progress for every running job dominates (it can copy the other's future
decisions, and by the monotonicity of ``models/rar.md`` its jobs finish no
later), so only Pareto-optimal progress vectors are kept.  A state is dropped
when ``t`` plus a lower bound on its remaining time reaches the incumbent: the
fluid bound of the remaining work with the root's dual vectors (Farley's bound
holds for any remaining work), and each unfinished job's remaining slots at its
fastest rate.  Identical untouched servers are used in index order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...budget import Budget
from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from .bounds import FLUID_MAX_VECTORS, best_lower_bound, config_rates, count_vectors_upto, rate
from .counts import as_schedule, count_vectors
from .heuristics import best_heuristic_schedule
from .instance import RarInstance


class _TooMany(Exception):
    """More start decisions in one state than the work limit allows, or (``stopped``)
    the budget said stop while they were listed."""

    def __init__(self, stopped: bool = False) -> None:
        super().__init__()
        self.stopped = stopped


class _Rates:
    """Rates of configurations (cached): ``{job: progress per slot}``."""

    def __init__(self, inst: RarInstance):
        self.inst = inst
        self.cache: dict[tuple, tuple[float, ...]] = {}

    def __call__(self, config: tuple[tuple[int, tuple[int, ...]], ...]) -> tuple[float, ...]:
        r = self.cache.get(config)
        if r is not None:
            return r
        inst = self.inst
        r = self.cache[config] = tuple(config_rates(config, inst.num_servers,
                                                    lambda j, n, p: rate(inst, j, n, p)))
        return r


def _vectors(inst: RarInstance) -> list[list[tuple[int, ...]]]:
    return [count_vectors(inst, j) for j in range(inst.num_jobs)]


def solve_dp(inst: RarInstance, ub: int, duals: list[tuple[np.ndarray, float]], *, max_states: int,
             budget: Budget | None = None) -> dict:
    """The DP with incumbent ``ub`` (a schedule of makespan ``ub`` exists).

    Returns ``{"best": makespan < ub or None, "sched": ((job, start slot, count
    vector), ...) of ``best`` or None, "complete": bool, "states": n, "stopped": bool}``;
    ``complete`` means the search space was exhausted (so ``best``, or ``ub`` if
    ``best`` is None, is optimal); ``stopped`` that ``budget.stop()`` ended it (else an
    incomplete search reached ``max_states``)."""
    J, S = inst.num_jobs, inst.num_servers
    caps = list(inst.servers)
    F = inst.F.astype(float)
    vecs = _vectors(inst)
    rates = _Rates(inst)
    fastest = np.array([max(rates(((j, v),))[0] for v in vecs[j]) for j in range(J)])
    frac = inst.progress == "fractional"
    eps = 1e-9

    def lower(t: int, rem: np.ndarray) -> int:
        """A lower bound on the makespan of any completion of a state at slot ``t``."""
        b = float(np.max(np.ceil(rem / fastest - eps))) if rem.any() else 0.0
        for pi, z in duals:
            b = max(b, float(np.dot(pi, rem)) / z * (1 - 1e-9))
        return t + int(math.ceil(b - 1e-9))

    # a state: (finished mask, running ((job, vec), ...) sorted) -> list of (progress tuple, starts dict)
    frontier: dict[tuple, list[tuple[tuple[float, ...], tuple]]] = {(0, ()): [((), ())]}
    best = None
    best_sched = None
    states = 0
    t = 0
    full = (1 << J) - 1
    work, next_check = 0, 500  # decisions tried; the deadline is asked every 500 (a decision may
    # scan a long Pareto list, so a coarser step overran a 60 s limit by 10 s on 8 jobs)
    while frontier and t < ub - 1:
        nxt: dict[tuple, list[tuple[tuple[float, ...], tuple]]] = {}
        for (done, running), items in frontier.items():
            free = list(caps)
            used = [False] * S
            for _, v in running:
                for s in range(S):
                    free[s] -= v[s]
                    used[s] = used[s] or v[s] > 0
            busy = {j for j, _ in running}
            waiting = [j for j in range(J) if not (done >> j) & 1 and j not in busy]
            # every set of waiting jobs with fitting vectors (depth-first over waiting jobs)
            choices: list[tuple[tuple[int, tuple[int, ...]], ...]] = []

            def rec(k: int, acc: list, fr: list, us: list) -> None:
                if k == len(waiting):
                    choices.append(tuple(acc))
                    if len(choices) > max_states:
                        raise _TooMany
                    if len(choices) % 10_000 == 0 and budget is not None and budget.stop():
                        raise _TooMany(stopped=True)
                    return
                rec(k + 1, acc, fr, us)
                j = waiting[k]
                for v in vecs[j]:
                    if any(v[s] > fr[s] for s in range(S)):
                        continue
                    if any(caps[s] == caps[s + 1] and not us[s] and not us[s + 1] and v[s] < v[s + 1]
                           for s in range(S - 1)):
                        continue  # untouched identical servers in index order
                    fr2 = [fr[s] - v[s] for s in range(S)]
                    us2 = [us[s] or v[s] > 0 for s in range(S)]
                    acc.append((j, v))
                    rec(k + 1, acc, fr2, us2)
                    acc.pop()

            try:
                rec(0, [], free, used)
            except _TooMany as e:
                return {"best": best, "sched": best_sched, "complete": False, "states": states,
                        "stopped": e.stopped}
            for prog, starts in items:
                pmap = dict(zip((j for j, _ in running), prog))
                for add in choices:
                    work += 1
                    if budget is not None and work >= next_check:
                        next_check = work + 500
                        if budget.stop():
                            return {"best": best, "sched": best_sched, "complete": False, "states": states,
                                    "stopped": True}
                    config = tuple(sorted(running + add))
                    if not config:
                        continue  # idling with nothing running never helps (shift the rest earlier)
                    r = rates(config)
                    new_done = done
                    new_run = []
                    new_prog = []
                    for (j, v), rj in zip(config, r):
                        pj = pmap.get(j, 0.0) + rj
                        finished = (F[j] - pj <= eps * rj) if frac else (pj >= F[j])
                        if finished:
                            new_done |= 1 << j
                        else:
                            new_run.append((j, v))
                            new_prog.append(pj)
                    new_starts = starts + tuple((j, t, v) for j, v in add)
                    if new_done == full:
                        m = t + 1
                        if m < ub and (best is None or m < best):
                            best, best_sched = m, new_starts
                            ub = m
                        continue
                    rem = F.copy()
                    for j in range(J):
                        if (new_done >> j) & 1:
                            rem[j] = 0.0
                    for (j, _), pj in zip(new_run, new_prog):
                        rem[j] = F[j] - pj
                    if lower(t + 1, rem) >= ub:
                        continue
                    key = (new_done, tuple(new_run))
                    lst = nxt.setdefault(key, [])
                    pv = tuple(new_prog)
                    if any(all(a >= b for a, b in zip(q, pv)) for q, _ in lst):
                        continue
                    lst[:] = [(q, s) for q, s in lst if not all(b >= a for a, b in zip(q, pv))]
                    lst.append((pv, new_starts))
                    states += 1
                    if states > max_states:
                        return {"best": best, "sched": best_sched, "complete": False, "states": states,
                                "stopped": False}
            if budget is not None and budget.stop():
                return {"best": best, "sched": best_sched, "complete": False, "states": states, "stopped": True}
        frontier = nxt
        t += 1
    return {"best": best, "sched": best_sched, "complete": True, "states": states, "stopped": False}


def dp_schedule(inst: RarInstance, sched: tuple[tuple[int, int, tuple[int, ...]], ...]):
    """The schedule of :func:`solve_dp`'s ``sched`` (``(job, start slot, count vector)``
    per job)."""
    starts = [0] * inst.num_jobs
    vecs: list[tuple[int, ...]] = [()] * inst.num_jobs
    for j, a, v in sched:
        starts[j], vecs[j] = int(a), v
    return as_schedule(inst, starts, vecs)


#: the largest number of jobs exact-dp accepts
MAX_JOBS = 10


def dp_applies(inst: RarInstance) -> tuple[bool, str]:
    """Whether the DP is attempted: at most :data:`MAX_JOBS` jobs and
    ``bounds.FLUID_MAX_VECTORS`` count vectors in all (else the reason)."""
    nvec = count_vectors_upto(inst, FLUID_MAX_VECTORS)
    if inst.num_jobs > MAX_JOBS or nvec > FLUID_MAX_VECTORS:
        return False, (f"{inst.num_jobs} jobs (at most {MAX_JOBS}) and "
                       f"{fmt_count(nvec)}{'+' if nvec > FLUID_MAX_VECTORS else ''} count vectors (at most "
                       f"{fmt_count(FLUID_MAX_VECTORS)})")
    return True, ""


@method(
    "rar", "exact-dp", kind="exact",
    description="slot-by-slot dynamic program with Pareto dominance and fluid-bound pruning, exact over every "
                "schedule (small instances; a second exact method beside exact-cp)",
    options=[Option("max_states", int, 2_000_000, "deterministic work limit: states kept in all", minimum=1)],
)
def solve_exact_dp(inst: RarInstance, run: Run) -> Result:
    """Optimal makespan over every schedule by dynamic programming over slots.

    Exact in both progress modes (it runs the model's own rates).  Starts from the
    best heuristic schedule and the best lower bound; prunes with the fluid LP's
    duals.  ``max_states`` bounds the work (then the result is the incumbent and
    the bound, status feasible)."""
    small, why = dp_applies(inst)
    if not small:
        raise NotApplicable(f"exact-dp is for small instances: {why}; use exact-cp")
    with run.stage("bound"):
        lb, name, parts = best_lower_bound(inst, budget=run.budget)
        if parts.pop("stopped", False):
            run.cut("the lower bounds")
        parts.pop("_duals", None)
        pairs = parts.pop("_dual_pairs", [])
    with run.stage("incumbent"):
        inc, stopped = best_heuristic_schedule(inst, budget=run.budget)
    if stopped:
        run.cut("the incumbent heuristics")
    ub = inc[0] if inc is not None else inst.horizon + 1
    if inc is not None:
        run.incumbent(inc[1], bound=lb)
    details: dict[str, Any] = {"lower_bound_name": name, "lower_bounds": parts}
    if inc is not None and inc[0] <= lb:
        return run.result(bound=lb, closed="heuristic meets the lower bound", **details)
    with run.stage("search"):
        out = solve_dp(inst, ub, pairs, max_states=run.options["max_states"], budget=run.budget)
    details["states"] = out["states"]
    if out["sched"] is not None:
        run.incumbent(dp_schedule(inst, out["sched"]))
    if not out["complete"]:
        if out["stopped"]:
            run.cut("dynamic program")
        else:
            details["stopped"] = f"max_states ({fmt_count(run.options['max_states'])}) reached"
        return run.result(bound=lb, **details)
    # the space is exhausted: nothing below the best schedule found exists
    if run.best is None:
        return run.result(status=Status.INFEASIBLE, **details)
    return run.result(bound=[lb, run.best_value], status=Status.OPTIMAL, **details)
