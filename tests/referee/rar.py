"""Referee for RAR-DDLS (Yu, Ji, Rajan, Liu, MobiHoc'22, Section 4, (1)-(9)),
in exact arithmetic.

A schedule gives job ``j`` a start slot ``a_j >= 0`` and ``y_js`` GPUs on
server ``s`` (``sum_s y_js = G_j`` (1)), held until it ends, per slot at most
``O_s`` GPUs of server ``s`` in use (2), no preemption or migration (3)-(5).
In slot ``t`` the active jobs are ``a_j <= t < T_j`` (the project's half-open
reading); a job on several servers has ``p_j`` = the largest number of split
active jobs on one of its servers (6), ``k_j = xi_1 p_j`` (7), bandwidth
``b^e / f(alpha, max(1, k_j))`` with ``f(alpha, k) = k + alpha (k - 1)``
(the project clips ``k`` at 1, ``models/rar.md``), else ``b^i``; ``tau_j``
is (8) and the job completes ``floor(1 / tau_j)`` iterations in the slot; it
ends at ``T_j = a_j + d`` with ``d`` the first number of its slots whose
progress reaches ``F_j`` (9).  Objective: the makespan ``max_j T_j``.

Enumeration: every count vector of every job and every start slot below an
upper bound ``H`` on the optimum (jobs one after another, each alone on its
fastest vector); starts are shifted so that the first is 0 (shifting every
start earlier keeps a schedule feasible and its makespan drops).  Each
combination is simulated slot by slot with the exact progress per slot
``floor(1 / tau)`` (rationals; tabulated per job, number of servers and
``p``).  A simulation stops once it cannot beat the best makespan found.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

from .common import DECIMALS, MEGA, Case, dec, fl

MAGNITUDES = ("plain", "tiny", "thirds", "decimals")
SKIPPED = {"offset": "no arrival times in the model (every job is present at slot 0)"}


def _draw_once(rng: random.Random, magnitude: str) -> dict:
    def val(plain: Fraction) -> Fraction:
        if magnitude == "thirds":
            q = rng.choice((3, 7))
            return Fraction(max(1, round(plain * q * 10)), q * 10)
        if magnitude == "decimals":
            return plain * (1 + Fraction(rng.randint(-DECIMALS // 10, DECIMALS // 10), DECIMALS))
        return plain

    size = MEGA if magnitude == "tiny" else Fraction(1)  # gradient sizes, bandwidths and speed in a tiny unit
    servers = rng.choice(((2, 2), (2, 1), (3, 2), (2, 2, 1)))
    jobs = []
    for _ in range(rng.randint(2, 3)):
        g = rng.randint(1, min(3, sum(servers)))
        batch = Fraction(rng.randint(5, 15))
        fp = val(Fraction(1, 100))
        if magnitude == "tiny":
            batch, fp = batch * 10**6, fp * MEGA
        jobs.append({
            "gpus": g, "iterations": rng.randint(2, 8), "grad_size": val(Fraction(rng.randint(5, 20), 100)) * size,
            "fp_time": fp, "batch": batch, "bp_time": val(Fraction(rng.randint(2, 15), 100)),
        })
    return {
        "servers": servers, "b_intra": 10 * size, "b_inter": val(Fraction(1)) * size, "speed": 100 * size,
        "xi1": Fraction(1), "xi2": val(Fraction(rng.randint(1, 5), 100)),
        "alpha": val(Fraction(rng.choice((0, 1, 2)), 2)), "jobs": jobs,
    }


def tau(inst: dict, j: int, nserv: int, p: int) -> Fraction:
    job = inst["jobs"][j]
    w = job["gpus"]
    if nserv <= 1:
        bw = inst["b_intra"]
    else:
        k = max(Fraction(1), inst["xi1"] * p)
        bw = inst["b_inter"] / (k + inst["alpha"] * (k - 1))
    m = job["grad_size"]
    return (m / w * 2 * (w - 1) / bw + m / w * (w - 1) / inst["speed"] + inst["xi2"] * nserv
            + job["fp_time"] * job["batch"] + job["bp_time"])


def vectors(inst: dict, j: int) -> list[tuple[int, ...]]:
    g = inst["jobs"][j]["gpus"]
    return [v for v in itertools.product(*(range(o + 1) for o in inst["servers"])) if sum(v) == g]


def phi_table(inst: dict) -> dict[tuple[int, int, int], int] | None:
    """``floor(1/tau)`` per (job, servers used, p); ``None`` when a ``tau`` exceeds a
    slot or ``1/tau`` lies within 1e-6 of an integer without being one (the project
    computes ``floor(1/tau + 1e-9)`` in floating point: such data would test rounding,
    not the model)."""
    out = {}
    ns = len(inst["servers"])
    nj = len(inst["jobs"])
    for j in range(nj):
        for nserv in range(1, min(ns, inst["jobs"][j]["gpus"]) + 1):
            for p in ((0,) if nserv == 1 else range(1, nj + 1)):
                t = tau(inst, j, nserv, p)
                r = 1 / t
                fl_ = math.floor(r)
                if fl_ < 1:
                    return None
                if r != fl_ and (r - fl_ < Fraction(1, 10**6) or fl_ + 1 - r < Fraction(1, 10**6)):
                    return None
                out[(j, nserv, p)] = fl_
    return out


def from_json(data: dict) -> dict | None:
    """The exact instance of a RAR JSON dict in floor mode (``None`` otherwise or when a
    ``1/tau`` lies within 1e-6 of an integer, see :func:`phi_table`)."""
    if data.get("progress", "floor") != "floor":
        return None
    inst = {
        "servers": tuple(int(o) for o in data["servers"]), "b_intra": dec(data["bandwidth"]["intra"]),
        "b_inter": dec(data["bandwidth"]["inter"]), "speed": dec(data["gpu_speed"]), "xi1": dec(data["xi1"]),
        "xi2": dec(data["xi2"]), "alpha": dec(data["alpha"]), "horizon": int(data["horizon"]),
        "jobs": [{"gpus": int(j["gpus"]), "iterations": int(j["iterations"]), "grad_size": dec(j["grad_size"]),
                  "fp_time": dec(j["fp_time"]), "batch": dec(j["batch"]), "bp_time": dec(j["bp_time"])}
                 for j in data["jobs"]],
    }
    table = phi_table(inst)
    if table is None:
        return None
    inst["phi"] = table
    return inst


def draw(seed: int, magnitude: str) -> dict:
    rng = random.Random(f"rar-{magnitude}-{seed}")
    while True:
        inst = _draw_once(rng, magnitude)
        table = phi_table(inst)
        if table is not None:
            inst["phi"] = table
            return inst


def makespan(inst: dict, starts: tuple[int, ...], vecs: tuple[tuple[int, ...], ...], cap: int) -> int | None:
    """The makespan of a schedule, ``None`` when it breaks capacity or cannot end before ``cap``."""
    jobs = inst["jobs"]
    nj = len(jobs)
    ns = len(inst["servers"])
    phi = inst["phi"]
    prog = [0] * nj
    end = [None] * nj
    used = [sum(1 for s in range(ns) if v[s] > 0) for v in vecs]
    t = 0
    while True:
        active = [j for j in range(nj) if starts[j] <= t and end[j] is None]
        for s in range(ns):
            if sum(vecs[j][s] for j in active) > inst["servers"][s]:
                return None
        split = [j for j in active if used[j] > 1]
        for j in active:
            if used[j] > 1:
                p = max(sum(1 for q in split if vecs[q][s] > 0) for s in range(ns) if vecs[j][s] > 0)
            else:
                p = 0
            prog[j] += phi[(j, used[j], p)]
        for j in active:
            if prog[j] >= jobs[j]["iterations"]:
                end[j] = t + 1
        if all(e is not None for e in end):
            return max(end)
        t += 1
        if t + 1 >= cap:
            return None  # some job ends at t + 1 or later: no better than cap


def upper_bound(inst: dict) -> int:
    """Jobs one after another, each alone (``p = 1`` when split) on its fastest vector."""
    total = 0
    for j, job in enumerate(inst["jobs"]):
        best = None
        for v in vectors(inst, j):
            n = sum(1 for x in v if x > 0)
            rate = inst["phi"][(j, n, 1 if n > 1 else 0)]
            d = -(-job["iterations"] // rate)
            best = d if best is None else min(best, d)
        total += best
    return total


def optimum(inst: dict) -> int | None:
    """The least makespan, ``None`` when no schedule ends by the horizon."""
    nj = len(inst["jobs"])
    ub = upper_bound(inst)
    best = ub + 1
    vecs_all = [vectors(inst, j) for j in range(nj)]
    for starts in itertools.product(range(ub), repeat=nj):
        if min(starts) != 0:
            continue
        for vecs in itertools.product(*vecs_all):
            m = makespan(inst, starts, vecs, best)
            if m is not None and m < best:
                best = m
    assert best <= ub
    return best if best <= inst.get("horizon", best) else None


def enumeration_size(inst: dict) -> int:
    """Schedules :func:`optimum` simulates at most."""
    n = 1
    for j in range(len(inst["jobs"])):
        n *= len(vectors(inst, j)) * upper_bound(inst)
    return n


def case(seed: int, magnitude: str) -> Case:
    inst = draw(seed, magnitude)
    opt = optimum(inst)
    data = {
        "problem": "rar", "servers": list(inst["servers"]),
        "bandwidth": {"intra": fl(inst["b_intra"]), "inter": fl(inst["b_inter"])},
        "gpu_speed": fl(inst["speed"]), "xi1": fl(inst["xi1"]), "xi2": fl(inst["xi2"]),
        "alpha": fl(inst["alpha"]), "horizon": 4 * upper_bound(inst),
        "jobs": [
            {"id": f"J{j}", "gpus": job["gpus"], "iterations": job["iterations"], "grad_size": fl(job["grad_size"]),
             "fp_time": fl(job["fp_time"]), "batch": fl(job["batch"]), "bp_time": fl(job["bp_time"])}
            for j, job in enumerate(inst["jobs"])
        ],
    }
    return Case("rar", magnitude, seed, data, inst, Fraction(opt), Fraction(1))
