"""Synthetic instances in the spirit of Fujiwara et al.'s GPU workload (Section V-A).

The paper's trace is not public; this generator reproduces its *structure*:
a few users submitting bags of tasks (parameter surveys) with occasional idle
periods, most tasks using ~20% of the device memory and a minority (the
OpenNMT-like tasks) needing more than 90% of it, moldable range
``(p_min, p_max) = (1/4, 4)`` and a sublinear speedup curve.  The curve
:data:`ILLUSTRATIVE_CURVE` is illustrative (the paper plots its measured
curves in Fig. 1 without giving numbers).  Same seed, same instance.
"""

from __future__ import annotations

import numpy as np

from ..problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve

#: non-decreasing, sublinear, s(1) = 1 (s(p)/p: 1.6, 1.5, 1.3, 1, 0.9, 0.83, 0.78)
ILLUSTRATIVE_CURVE = ((0.25, 0.4), (1 / 3, 0.5), (0.5, 0.65), (1.0, 1.0), (2.0, 1.8), (3.0, 2.5), (4.0, 3.1))


def paper_like(
    *,
    gpus: int = 12,
    users: int = 4,
    bags: int = 6,
    tasks_per_bag: tuple[int, int] = (1, 20),
    mean_volume: float = 3600.0,
    big_memory_share: float = 0.1,
    rigid: bool = False,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
    seed: int = 0,
) -> MoldableInstance:
    """A random instance with bag-of-task arrivals.

    Parameters
    ----------
    gpus
        Cluster size (each GPU has 12 units of memory, like the paper's 12 GB M40s).
    users, bags
        Number of users and of bags (a bag = one user's parameter survey).
    tasks_per_bag
        Inclusive range of tasks per bag.
    mean_volume
        Mean task volume in seconds (log-normal, sigma 1).
    big_memory_share
        Fraction of bags whose tasks need 11 of 12 memory units (cannot share).
    rigid
        ``(p_min, p_max) = (1, 1)`` (the paper's rigid baseline) instead of ``(1/4, 4)``.
    seed
        Seed of the generator (``numpy.random.default_rng``).
    """
    rng = np.random.default_rng(seed)
    p_max = 1 if rigid else min(4, gpus)
    den = 1 if rigid else 4
    tasks: list[MoldableTask] = []
    t = 0.0
    for b in range(bags):
        t += float(rng.exponential(mean_volume))  # idle gap between surveys
        user = f"u{int(rng.integers(users))}"
        n = int(rng.integers(tasks_per_bag[0], tasks_per_bag[1] + 1))
        mem = 11.0 if rng.random() < big_memory_share else float(rng.choice([2.0, 2.5, 3.0]))
        base = float(rng.lognormal(np.log(mean_volume) - 0.5, 1.0))
        for i in range(n):
            arrival = t + float(rng.exponential(30.0)) * i  # a bag arrives within minutes
            vol = max(60.0, base * float(rng.uniform(0.8, 1.25)))
            tasks.append(
                MoldableTask(
                    id=f"b{b}t{i}", user=user, arrival=round(arrival, 3), volume=round(vol, 3),
                    pmin_den=den, p_max=p_max, memory=mem,
                )
            )
    return MoldableInstance(
        gpus=gpus,
        gpu_memory=12.0,
        speedup=SpeedupCurve(ILLUSTRATIVE_CURVE),
        tasks=tuple(tasks),
        preemption_overhead=preemption_overhead,
        preemption_min_remaining=preemption_min_remaining,
        name=f"paper-like-g{gpus}-s{seed}{'-rigid' if rigid else ''}",
    )


__all__ = ["ILLUSTRATIVE_CURVE", "paper_like"]
