"""The family's setup (``Family.generators``): seeded random GPU_Grouping
instances (:func:`grouping`, public path ``dmlsched.generate.hlas:grouping``).

The paper's GPU_Grouping instance, the speeds of HLAS's jobs on the GPUs of
HLAS's simulation setup (Section VI-A, Table II), is a setup of HLAS, the
family whose preparation phase solves it: HLAS's generator builds it
(:func:`dmlsched.problems.hlas.generate.paper_grouping`, public path
``dmlsched.generate.hlas:paper_grouping``, ``dmlsched generate hlas
paper-grouping``).  This family uses no other family.
"""

from __future__ import annotations

import numpy as np

from ...generate._check import Args
from .instance import GroupingInstance


def grouping(
    *,
    seed: int = 0,
    num_jobs: int = 8,
    num_gpus: int = 20,
    num_groups: int = 5,
    num_types: int | None = None,
    speed_range: tuple[float, float] = (0.5, 5.0),
    decimals: int = 3,
    name: str | None = None,
):
    """A seeded random GPU_Grouping instance (speeds drawn uniformly in ``speed_range``).

    ``num_types=None``: every GPU has its own random speed column (no two GPUs
    alike); ``num_types=k``: ``k`` GPU types with random columns, the GPUs split as
    evenly as possible among them (type ``i`` gets the ``i``-th share).
    Speeds are rounded to ``decimals`` decimals (so they are exact at scale
    ``10**decimals``).
    """
    a = Args("generate.hlas.grouping")
    num_jobs = a.count("num_jobs", num_jobs)
    num_gpus = a.count("num_gpus", num_gpus)
    groups = a.count("num_groups", num_groups, maximum=num_gpus)
    types = a.optional_count("num_types", num_types, maximum=num_gpus)
    speed_range = a.number_range("speed_range", speed_range, positive=True)
    decimals = a.count("decimals", decimals, minimum=0)
    rng = np.random.default_rng(seed)
    k = num_gpus if types is None else types
    cols = rng.uniform(speed_range[0], speed_range[1], size=(num_jobs, k)).round(decimals)
    of = [i * k // num_gpus for i in range(num_gpus)]
    speeds = tuple(tuple(float(cols[n, of[m]]) for m in range(num_gpus)) for n in range(num_jobs))
    return GroupingInstance(speeds=speeds, groups=groups,
                            name=name or f"grouping-{num_jobs}j-{num_gpus}g-{groups}u-"
                                         f"{'distinct' if types is None else f'{types}t'}-s{seed}")


__all__ = ["grouping"]
