"""Test helpers for the Hare exact model: seeded random instances and the
brute-force reference (re-exported from :mod:`dmlsched.problems.hare.bruteforce`).

``random_instance(seed, ...)`` draws times on a grid of 0.5 so that optima are
numerically tame; the same seed always gives the same instance.
"""

from __future__ import annotations

import numpy as np

from dmlsched.problems.hare.bruteforce import brute_force, count_candidates, left_shift, semi_active
from dmlsched.problems.hare.instance import HareInstance, HareJob

__all__ = ["brute_force", "count_candidates", "left_shift", "random_instance", "semi_active"]

TYPES = ("V100", "T4", "K80")


def random_instance(
    seed: int,
    *,
    jobs: tuple[int, int] = (1, 3),
    gpus: tuple[int, int] = (1, 3),
    max_rounds: int = 2,
    max_tasks_per_round: int = 2,
    max_tasks: int = 5,
    zero_weight: bool = False,
) -> HareInstance:
    """A random Hare instance with at most ``max_tasks`` tasks (seeded)."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(gpus[0], gpus[1] + 1))
    g = tuple(str(t) for t in rng.choice(TYPES, size=M))
    used = list(dict.fromkeys(g))
    J = int(rng.integers(jobs[0], jobs[1] + 1))
    out = []
    total = 0
    for n in range(J):
        left = max_tasks - total
        if left < 1:
            break
        K = int(min(rng.integers(1, max_tasks_per_round + 1), left))
        R = int(max(1, min(rng.integers(1, max_rounds + 1), left // K)))
        total += K * R
        fast = float(rng.integers(1, 9)) / 2
        train = {t: fast * float(rng.choice([1.0, 1.5, 2.0, 3.0])) for t in used}
        sync = {t: float(rng.integers(0, 3)) / 2 for t in used}
        w = 0.0 if (zero_weight and n == 0) else float(rng.integers(1, 7)) / 2
        out.append(HareJob(f"J{n}", float(rng.integers(0, 7)) / 2, w, R, K, train, sync))
    return HareInstance(gpus=g, jobs=tuple(out), name=f"random-{seed}")
