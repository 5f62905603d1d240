"""Referee for Cruise's configuration problem (Lee 2020, Section 3.2, Figure 3.2,
(3.1)-(3.4)), in exact arithmetic.

Roles ``w_i``/``s_i`` partition the ``N`` machines (at least one worker and one
server); integer data ``d_i >= 0`` on workers summing to ``D``, integer model
units ``m_j >= 0`` on servers summing to ``M``.  Worker ``i``'s epoch time is
``C^i = p_i d_i + ceil(d_i / B) max(max_j m_j |w| / b_ij, sum_j m_j / b_ij)``
(3.2)-(3.4) and the objective is ``C = max_i C^i`` (3.1).  Per-machine
bandwidths ``beta_i`` give ``b_ij = min(beta_i, beta_j)`` (the project's
reading, ``models/cruise.md``).  Enumeration: every role split, every
composition of ``D`` over the workers and of ``M`` over the servers.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

from .common import Case, Numbers, dec, fl

MAGNITUDES = ("plain", "tiny", "thirds", "decimals")
SKIPPED = {"offset": "no arrival times in the model"}


def compositions(total: int, parts: int):
    """Every tuple of ``parts`` non-negative integers summing to ``total``."""
    for cuts in itertools.combinations(range(total + parts - 1), parts - 1):
        prev = -1
        out = []
        for c in cuts:
            out.append(c - prev - 1)
            prev = c
        out.append(total + parts - 1 - prev - 1)
        yield tuple(out)


def draw(seed: int, magnitude: str) -> dict:
    rng = random.Random(f"cruise-{magnitude}-{seed}")
    num = Numbers(magnitude, rng)
    n = rng.randint(3, 4)
    equal_bw = rng.random() < 0.3  # some instances where the continuous relaxation applies
    beta0 = 1 / num.time(1, 4)
    machines = []
    for _ in range(n):
        p = num.time(1, 4) / 10
        beta = beta0 if equal_bw else 1 / num.time(1, 4)
        machines.append((p, beta))
    return {"machines": machines, "D": rng.randint(2, 6), "M": rng.randint(1, 4), "B": rng.randint(1, 3)}


def from_json(data: dict) -> dict | None:
    """The exact instance of a Cruise JSON dict with per-machine bandwidths (``None``
    for the explicit matrix form, which this referee does not read)."""
    if "bandwidth" in data:
        return None
    return {"machines": [(dec(m["proc_time"]), dec(m["bandwidth"])) for m in data["machines"]],
            "D": int(data["dataset_size"]), "M": int(data["model_size"]), "B": int(data["batch_size"])}


def epoch(inst: dict, roles: tuple[int, ...], d: dict[int, int], m: dict[int, int]) -> Fraction:
    mach = inst["machines"]
    workers = [i for i, r in enumerate(roles) if r]
    servers = [j for j, r in enumerate(roles) if not r]
    w = len(workers)
    worst = Fraction(0)
    for i in workers:
        b = {j: min(mach[i][1], mach[j][1]) for j in servers}
        comm = max(max(m[j] * w / b[j] for j in servers), sum(m[j] / b[j] for j in servers))
        c = mach[i][0] * d[i] + math.ceil(Fraction(d[i], inst["B"])) * comm
        worst = max(worst, c)
    return worst


def optimum(inst: dict) -> Fraction:
    n = len(inst["machines"])
    best: Fraction | None = None
    for roles in itertools.product((0, 1), repeat=n):
        workers = [i for i, r in enumerate(roles) if r]
        servers = [j for j, r in enumerate(roles) if not r]
        if not workers or not servers:
            continue
        for dv in compositions(inst["D"], len(workers)):
            d = dict(zip(workers, dv))
            for mv in compositions(inst["M"], len(servers)):
                v = epoch(inst, roles, d, dict(zip(servers, mv)))
                if best is None or v < best:
                    best = v
    assert best is not None
    return best


def case(seed: int, magnitude: str) -> Case:
    inst = draw(seed, magnitude)
    data = {
        "problem": "cruise",
        "machines": [{"name": f"m{i}", "proc_time": fl(p), "bandwidth": fl(b)}
                     for i, (p, b) in enumerate(inst["machines"])],
        "dataset_size": inst["D"], "model_size": inst["M"], "batch_size": inst["B"],
    }
    unit = Numbers(magnitude, random.Random(0)).unit
    return Case("cruise", magnitude, seed, data, inst, optimum(inst), unit)
