"""Random small GPU-grouping instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

import numpy as np

from ...draws import grid as _grid
from ...family import HuntSpace


def random_instance(rng: np.random.Generator, s: dict) -> dict:
    """A random small instance (JSON form) within the size caps ``s`` (``HUNT.default_size``).

    The draws of ``rng`` are fixed: a seed gives the same instance in every release.
    """
    n = int(rng.integers(2, int(s["gpus"]) + 1))
    jobs = int(rng.integers(1, int(s["jobs"]) + 1))
    speeds = [[_grid(rng, 0.25, 5.0) for _ in range(n)] for _ in range(jobs)]
    groups = int(rng.integers(1, max(1, n // 2) + 1))
    return {"problem": "gpu-grouping", "speeds": speeds, "groups": groups}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["speeds"]) <= int(s["jobs"]) and all(len(row) <= int(s["gpus"]) for row in d["speeds"])


HUNT = HuntSpace(
    element_lists=("speeds",), integer_keys=frozenset({"groups"}),
    default_size={"gpus": 6, "jobs": 3}, within=within,
)
