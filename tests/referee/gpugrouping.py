"""Referee for GPU_Grouping (HLAS paper, Section IV-C, (4)-(6)), in exact arithmetic.

``min_z max_n (p^max_n - p^min_n)`` with ``p^u_n = sum_{m in u} s_{n,m}`` the
speed of job ``n`` on group ``u``, every GPU in exactly one group (4), and
every group non-empty (the project's reading, ``models/gpu-grouping.md``).
Enumeration: every partition of the GPUs into exactly ``|U|`` non-empty blocks
(restricted growth strings: block labels in order of first use), each valued
with rationals.
"""

from __future__ import annotations

import random
from fractions import Fraction

from .common import Case, Numbers, dec, fl

#: magnitude classes that apply, and why the others do not
MAGNITUDES = ("plain", "tiny", "thirds", "decimals")
SKIPPED = {"offset": "no arrival times in the model"}


def draw(seed: int, magnitude: str) -> tuple[tuple[tuple[Fraction, ...], ...], int]:
    """2-3 jobs, 3-7 GPUs of 1-3 types, 2-3 groups.  Speeds are ``1 / (T^c + T^s)``
    of the class's times, as an HLAS instance makes them (``plain``, ``thirds``:
    speeds like 3/7), or the class's times themselves (``tiny``: speeds near
    1e-6; ``decimals``: speeds with seven decimals)."""
    rng = random.Random(f"gpu-grouping-{magnitude}-{seed}")
    num = Numbers(magnitude, rng)
    ngpu = rng.randint(3, 7)
    ntypes = rng.randint(1, 3)
    types = [rng.randrange(ntypes) for _ in range(ngpu)]
    jobs = rng.randint(2, 3)
    rows = []
    for _ in range(jobs):
        if magnitude in ("tiny", "decimals"):
            # speeds near 1e-6 ("tiny") or with seven decimals: the class's times used as speeds
            col = [num.time(1, 4) for _ in range(ntypes)]
        else:
            col = [1 / (num.time(1, 4) + num.time(0, 1)) for _ in range(ntypes)]
        rows.append(tuple(col[t] for t in types))
    groups = rng.randint(2, min(3, ngpu))
    return tuple(rows), groups


def from_json(data: dict) -> tuple[tuple[tuple[Fraction, ...], ...], int]:
    return tuple(tuple(dec(x) for x in row) for row in data["speeds"]), int(data["groups"])


def optimum(speeds: tuple[tuple[Fraction, ...], ...], groups: int) -> Fraction:
    m = len(speeds[0])
    best: Fraction | None = None
    label = [0] * m

    def value() -> Fraction:
        worst = Fraction(0)
        for row in speeds:
            p = [Fraction(0)] * groups
            for g, u in enumerate(label):
                p[u] += row[g]
            worst = max(worst, max(p) - min(p))
        return worst

    def rec(g: int, used: int) -> None:
        nonlocal best
        if m - g < groups - used:
            return  # not enough GPUs left to open the remaining groups
        if g == m:
            v = value()
            if best is None or v < best:
                best = v
            return
        for u in range(min(used + 1, groups)):
            label[g] = u
            rec(g + 1, max(used, u + 1))

    rec(0, 0)
    assert best is not None
    return best


def case(seed: int, magnitude: str) -> Case:
    speeds, groups = draw(seed, magnitude)
    data = {"problem": "gpu-grouping", "speeds": [[fl(s) for s in row] for row in speeds], "groups": groups}
    unit = max(max(row) for row in speeds)
    return Case("gpu-grouping", magnitude, seed, data, (speeds, groups), optimum(speeds, groups), unit)
