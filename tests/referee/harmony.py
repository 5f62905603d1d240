"""Referee for Harmony's grouping problem (Lee 2020, Section 4.3.2, (4.1)-(4.4)),
in exact arithmetic.

Jobs are partitioned into non-empty groups; group ``g`` gets an integer
``m_g >= 1`` machines, ``sum_g m_g <= M``.  With ``cpu_j = T_cpu_j c / m_g``
(4.2), ``T_g = max(sum cpu_j, sum net_j, max_j (cpu_j + net_j))`` (4.1),
``U(g) = (w_cpu sum cpu_j + w_net sum net_j) / ((w_cpu + w_net) T_g)`` (4.3,
scalarised by the instance's weights, the project's reading) and the cluster
utilisation ``U = sum_g m_g U(g) / M`` (4.4, over the whole cluster: the
project's reading, ``models/harmony.md``), maximised.  Enumeration: every set
partition of the jobs and every machine vector.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from .common import Case, Numbers, dec, fl

MAGNITUDES = ("plain", "tiny", "thirds", "decimals")
SKIPPED = {"offset": "no arrival times in the model"}


def partitions(items: list[int]):
    """Every set partition of ``items`` (lists of blocks)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1:]]


def draw(seed: int, magnitude: str) -> dict:
    rng = random.Random(f"harmony-{magnitude}-{seed}")
    num = Numbers(magnitude, rng)
    jobs = [(num.time(1, 4), num.time(0, 4)) for _ in range(rng.randint(2, 4))]
    return {
        "M": rng.randint(2, 4), "c": rng.randint(1, 4), "jobs": jobs,
        "w_cpu": num.weight() * 2, "w_net": num.weight(),
    }


def from_json(data: dict) -> dict:
    w = data.get("weights", {"cpu": 2, "net": 1})
    return {"M": int(data["machines"]), "c": dec(data["reference_dop"]),
            "jobs": [(dec(j["t_cpu"]), dec(j["t_net"])) for j in data["jobs"]],
            "w_cpu": dec(w["cpu"]), "w_net": dec(w["net"])}


def utilisation_of_group(inst: dict, group: list[int], m: int) -> Fraction:
    """``m_g U(g)``."""
    cpu = [inst["jobs"][j][0] * inst["c"] / m for j in group]
    net = [inst["jobs"][j][1] for j in group]
    t = max(sum(cpu), sum(net), max(a + b for a, b in zip(cpu, net)))
    u = (inst["w_cpu"] * sum(cpu) + inst["w_net"] * sum(net)) / ((inst["w_cpu"] + inst["w_net"]) * t)
    return m * u


def optimum(inst: dict) -> Fraction:
    M = inst["M"]
    best = Fraction(-1)
    for part in partitions(list(range(len(inst["jobs"])))):
        k = len(part)
        if k > M:
            continue
        for ms in itertools.product(range(1, M + 1), repeat=k):
            if sum(ms) > M:
                continue
            u = sum(utilisation_of_group(inst, g, m) for g, m in zip(part, ms)) / M
            best = max(best, u)
    return best


def case(seed: int, magnitude: str) -> Case:
    inst = draw(seed, magnitude)
    data = {
        "problem": "harmony", "machines": inst["M"], "reference_dop": inst["c"],
        "weights": {"cpu": fl(inst["w_cpu"]), "net": fl(inst["w_net"])},
        "jobs": [{"id": f"J{j}", "t_cpu": fl(a), "t_net": fl(b)} for j, (a, b) in enumerate(inst["jobs"])],
    }
    return Case("harmony", magnitude, seed, data, inst, optimum(inst), Fraction(1), sense="max")
