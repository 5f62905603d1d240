"""Test helpers for the Hare exact model: seeded random instances and the
brute-force reference (re-exported from :mod:`dmlsched.problems.hare.bruteforce`).

``random_instance(seed, ...)`` is the family's one random builder
(:func:`dmlsched.problems.hare.sample.random_instance`) drawing through
``RngDraws(np.random.default_rng(seed))``, with times on a grid of 0.5 so that
optima are numerically tame; the same seed always gives the same instance.
"""

from __future__ import annotations

import numpy as np

from dmlsched.draws import RngDraws
from dmlsched.problems.hare.bruteforce import brute_force, count_candidates, left_shift, semi_active
from dmlsched.problems.hare.instance import HareInstance, from_dict
from dmlsched.problems.hare.sample import random_instance as sample

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
    """A random Hare instance with at most ``max_tasks`` tasks (seeded); with
    ``zero_weight`` the first job weighs 0."""
    d = sample(RngDraws(np.random.default_rng(seed)), min_jobs=jobs[0], jobs=jobs[1], min_gpus=gpus[0],
               gpus=gpus[1], types=len(TYPES), type_names=TYPES, rounds=max_rounds,
               tasks_per_round=max_tasks_per_round, tasks=max_tasks, step=0.5, train=(0.5, 4.0), alpha=3.0,
               max_sync=1.0, sync_per_type=True, max_arrival=3.0, weights=(0.5, 1.0, 1.5, 2.0, 2.5, 3.0))
    if zero_weight:
        d["jobs"][0]["weight"] = 0.0
    return from_dict(dict(d, name=f"random-{seed}"))
