"""Brute force over every configuration of a tiny Cruise instance.

Enumerates every role split (``2^N - 2``), every composition of ``D`` over
the workers and of ``M`` over the servers, and evaluates each with the
family's evaluator.  Independent of the MIP: used to validate ``exact``.
"""

from __future__ import annotations

import math
from itertools import product
from typing import Iterator

from ...errors import NotApplicable
from ...registry import register_method
from ...result import Result, Status
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts`` non-negative integers summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first,) + rest


def count_configurations(inst: CruiseInstance) -> int:
    """How many configurations :func:`brute_force` evaluates."""
    n, D, M = inst.num_machines, inst.dataset_size, inst.model_size
    return sum(
        math.comb(n, W) * math.comb(D + W - 1, W - 1) * math.comb(M + n - W - 1, n - W - 1)
        for W in range(1, n)
    )


def brute_force(inst: CruiseInstance, limit: int = 200_000) -> tuple[CruiseConfig, float]:
    """The optimum by exhaustive enumeration (first best in enumeration order).

    Raises
    ------
    ValueError
        If more than ``limit`` configurations would be evaluated.
    """
    count = count_configurations(inst)
    if count > limit:
        raise ValueError(f"brute force would evaluate {count} configurations (limit {limit})")
    n = inst.num_machines
    best, best_val = None, math.inf
    for w in product((1, 0), repeat=n):
        W = sum(w)
        if W == 0 or W == n:
            continue
        workers = [i for i in range(n) if w[i]]
        servers = [j for j in range(n) if not w[j]]
        s = tuple(1 - x for x in w)
        for dd in compositions(inst.dataset_size, W):
            d = [0] * n
            for i, x in zip(workers, dd):
                d[i] = x
            for mm in compositions(inst.model_size, len(servers)):
                m = [0] * n
                for j, x in zip(servers, mm):
                    m[j] = x
                cfg = CruiseConfig(w=w, s=s, d=tuple(d), m=tuple(m))
                val = evaluate(inst, cfg)
                if val < best_val:
                    best, best_val = cfg, val
    return best, best_val


@register_method(
    "cruise",
    "brute-force",
    kind="exact",
    description="Exhaustive enumeration of roles and integer partitions (tiny instances only)",
)
def solve_brute_force(
    inst: CruiseInstance,
    *,
    solver: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    limit: int = 200_000,
    **options,
) -> Result:
    """Exhaustive search; ``Status.ERROR`` when the instance exceeds ``limit`` configurations.

    Options
    -------
    limit
        Largest number of configurations evaluated (default 200,000).
    """
    if options:
        raise TypeError(f"unknown option(s) for cruise/brute-force: {', '.join(options)}")
    try:
        cfg, val = brute_force(inst, limit=limit)
    except ValueError as e:
        raise NotApplicable(str(e)) from None
    return Result("cruise", "brute-force", Status.OPTIMAL, objective=val, bound=val,
                  solution=cfg, details={"configurations": count_configurations(inst)})
