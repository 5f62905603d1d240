"""Random small GPU-grouping instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from ...draws import Draws
from ...family import HuntSpace


def random_instance(draws: Draws, *, gpus: int = 6, jobs: int = 3, min_gpus: int = 2,
                    max_speed: float = 5.0, step: float = 0.25, max_groups: int | None = None,
                    max_types: int | None = None, min_jobs: int = 1, min_groups: int = 1) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    gpus, min_gpus, jobs, min_jobs
        ``min_gpus..gpus`` GPUs, ``min_jobs..jobs`` jobs.
    max_speed, step
        Speeds on the grid ``step`` in ``[step, max_speed]``.
    max_groups, min_groups
        Groups drawn in ``min_groups..min(max_groups, M)``; ``None``: ``min_groups..max(1, M // 2)``.
    max_types
        ``None``: every GPU's speed column is drawn on its own; else the GPUs are of
        ``1..max_types`` types (identical columns; drawn after the groups).
    """
    n = draws.integer(int(min_gpus), int(gpus))
    rows = draws.integer(int(min_jobs), int(jobs))
    if max_types is None:
        speeds = [[draws.grid(step, max_speed, step) for _ in range(n)] for _ in range(rows)]
    else:
        k = draws.integer(1, int(max_types))
        cols = [[draws.grid(step, max_speed, step) for _ in range(rows)] for _ in range(k)]
        of = [draws.integer(0, k - 1) for _ in range(n)]
        speeds = [[cols[of[g]][j] for g in range(n)] for j in range(rows)]
    top = max(1, n // 2) if max_groups is None else min(int(max_groups), n)
    groups = draws.integer(int(min_groups), top)
    return {"problem": "gpu-grouping", "speeds": speeds, "groups": groups}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["speeds"]) <= int(s["jobs"]) and all(len(row) <= int(s["gpus"]) for row in d["speeds"])


HUNT = HuntSpace(
    element_lists=("speeds",), integer_keys=frozenset({"groups"}),
    default_size={"gpus": 6, "jobs": 3}, within=within,
)
