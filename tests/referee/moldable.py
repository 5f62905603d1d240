"""Referee for non-preemptive moldable GPU scheduling (Fujiwara et al., Section
III), the space of the family's exact methods, in exact arithmetic.

Identical GPUs with memory ``M``; task ``k`` arrives at ``a_k`` with volume
``v_k``, runs once, without interruption, on one admissible amount ``p``
(a share ``1/n`` of one GPU, ``2 <= n <= n_k``, or ``n`` whole GPUs,
``1 <= n <= p^max_k``) for ``f(v_k, p) = v_k / s(p)`` (the speedup curve
interpolated linearly between its points, through the origin below the
first, constant above the last).  On every GPU at every instant the shares
sum to at most 1 and the memories to at most ``M`` (a task on several whole
GPUs needs its memory on each: the project's reading).  Objective: total flow
time ``sum_k (C_k - a_k)``.

Enumeration: a *mode* of a task is its amount and its GPUs.  Every order of
the tasks and every mode of each is scheduled by the serial
schedule-generation scheme: in that order, each task at the earliest time
``>= a_k`` from which its GPUs have room for its whole run next to the tasks
already placed.  Applied to the start order and modes of any feasible
schedule this starts no task later (tasks placed before ``k`` start and end
no later, so at ``k``'s old start the tasks overlapping it are among those
that overlapped it before), so the minimum over orders and modes is the
optimum.  GPUs are identical: a task may use a GPU no earlier task uses only
if every lower-numbered GPU is already used (labels in order of first use).
A branch is cut when its flow so far is no better than the best.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from .common import DECIMALS, Case, Numbers, dec, fl

MAGNITUDES = ("plain", "tiny", "offset", "thirds", "decimals")
SKIPPED: dict[str, str] = {}


def speed(points: list[tuple[Fraction, Fraction]], p: Fraction) -> Fraction:
    (p0, s0), (pl, sl) = points[0], points[-1]
    if p <= p0:
        return s0 * p / p0
    if p >= pl:
        return sl
    for (pa, sa), (pb, sb) in zip(points, points[1:]):
        if pa <= p <= pb:
            return sa + (sb - sa) * (p - pa) / (pb - pa)
    raise AssertionError("unreachable")


def draw(seed: int, magnitude: str) -> dict:
    """2 GPUs, 3 tasks (shares down to 1/3, at most 2 whole GPUs).  ``decimals``
    writes memories with seven decimals around a third of the GPU's memory."""
    rng = random.Random(f"moldable-{magnitude}-{seed}")
    num = Numbers(magnitude, rng)
    gpus = 2
    if magnitude == "thirds":
        s_half = Fraction(2, 3)
    elif magnitude == "decimals":
        s_half = Fraction(rng.randint(DECIMALS // 2, DECIMALS - 1), DECIMALS)
    else:
        s_half = Fraction(rng.choice((3, 4)), 5)
    s_two = Fraction(rng.choice((3, 4)), 2)
    points = [(Fraction(1, 2), s_half), (Fraction(1), Fraction(1)), (Fraction(2), s_two)]
    mem_gpu = Fraction(1)
    tasks = []
    for _ in range(3):
        den = rng.choice((1, 2, 3))
        pmax = rng.randint(1, gpus)
        if magnitude == "decimals":
            memory = Fraction(rng.choice((3333334, 3333333, 4999999, 5000001)), DECIMALS)
        else:
            memory = Fraction(rng.randint(1, 6), 10)
        tasks.append({"arrival": num.arrival(2), "volume": num.time(1, 4), "den": den, "pmax": pmax,
                      "memory": memory})
    return {"gpus": gpus, "memory": mem_gpu, "points": points, "tasks": tasks}


def from_json(data: dict) -> dict:
    def den(p: object) -> int:
        q = dec(p)
        assert q.numerator == 1, "p_min is a unit fraction"
        return q.denominator

    return {
        "gpus": int(data["gpus"]), "memory": dec(data["gpu_memory"]),
        "points": [(dec(p), dec(s)) for p, s in data["speedup"]],
        "tasks": [{"arrival": dec(t.get("arrival", 0)), "volume": dec(t["volume"]), "den": den(t.get("p_min", 1)),
                   "pmax": int(t.get("p_max", 1)), "memory": dec(t.get("memory", 0))} for t in data["tasks"]],
    }


def modes(inst: dict, k: int) -> list[tuple[Fraction, Fraction, tuple[int, ...]]]:
    """``(share per GPU, duration, GPUs)`` of every admissible amount on every GPU set."""
    t = inst["tasks"][k]
    out = []
    g = range(inst["gpus"])
    for n in range(2, t["den"] + 1):
        d = t["volume"] / speed(inst["points"], Fraction(1, n))
        out.extend((Fraction(1, n), d, (i,)) for i in g)
    for n in range(1, t["pmax"] + 1):
        d = t["volume"] / speed(inst["points"], Fraction(n))
        out.extend((Fraction(1), d, gs) for gs in itertools.combinations(g, n))
    return out


def optimum(inst: dict) -> Fraction:
    tasks = inst["tasks"]
    n = len(tasks)
    all_modes = [modes(inst, k) for k in range(n)]
    placed: list[tuple[Fraction, Fraction, Fraction, Fraction, tuple[int, ...]]] = []  # start, end, share, mem, gpus
    best: list[Fraction | None] = [None]
    done = [False] * n

    def fits(t0: Fraction, d: Fraction, share: Fraction, mem: Fraction, gs: tuple[int, ...]) -> bool:
        points = [t0] + [s for s, _, _, _, _ in placed if t0 < s < t0 + d]
        for tau in points:
            for g in gs:
                sh = share
                me = mem
                for s, e, s2, m2, g2 in placed:
                    if g in g2 and s <= tau < e:
                        sh += s2
                        me += m2
                if sh > 1 or me > inst["memory"]:
                    return False
        return True

    def rec(flow: Fraction, used: int) -> None:
        if best[0] is not None and flow >= best[0]:
            return
        if all(done):
            best[0] = flow
            return
        for k in range(n):
            if done[k]:
                continue
            t = tasks[k]
            for share, d, gs in all_modes[k]:
                if _skips(gs, used):
                    continue
                cands = sorted({t["arrival"]} | {e for _, e, _, _, _ in placed if e > t["arrival"]})
                start = next(c for c in cands if fits(c, d, share, t["memory"], gs))
                placed.append((start, start + d, share, t["memory"], gs))
                done[k] = True
                rec(flow + start + d - t["arrival"], max(used, max(gs) + 1))
                done[k] = False
                placed.pop()

    rec(Fraction(0), 0)
    assert best[0] is not None
    return best[0]


def _skips(gs: tuple[int, ...], used: int) -> bool:
    """A GPU set that takes a new GPU while skipping a lower unused one."""
    new = [g for g in gs if g >= used]
    return bool(new) and new != list(range(used, used + len(new)))


def case(seed: int, magnitude: str) -> Case:
    inst = draw(seed, magnitude)
    data = {
        "problem": "moldable", "gpus": inst["gpus"], "gpu_memory": fl(inst["memory"]),
        "speedup": [[fl(p), fl(s)] for p, s in inst["points"]],
        "preemption_overhead": 0.0, "preemption_min_remaining": 0.0,
        "tasks": [
            {"id": f"t{k}", "user": "u", "arrival": fl(t["arrival"]), "volume": fl(t["volume"]),
             "p_min": f"1/{t['den']}" if t["den"] > 1 else 1, "p_max": t["pmax"], "memory": fl(t["memory"])}
            for k, t in enumerate(inst["tasks"])
        ],
    }
    unit = Numbers(magnitude, random.Random(0)).unit
    return Case("moldable", magnitude, seed, data, inst, optimum(inst), unit)
