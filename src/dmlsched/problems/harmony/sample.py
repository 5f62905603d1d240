"""Random small Harmony instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so the brute-force
reference is fast), in JSON form; :data:`HUNT` gives the hunt its element lists,
integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

import numpy as np

from ...draws import grid
from ...family import DEFAULT_PROTECTED, HuntSpace


def random_instance(rng: np.random.Generator, s: dict) -> dict:
    """A random small instance (JSON form) within the size caps ``s`` (``HUNT.default_size``).

    The draws of ``rng`` are fixed: a seed gives the same instance in every release.
    """
    jobs = [{"id": f"J{i}", "t_cpu": grid(rng, 0.5, 5.0, 0.5), "t_net": grid(rng, 0.5, 5.0, 0.5),
             "iterations": int(rng.integers(1, int(s["iterations"]) + 1))}
            for i in range(int(rng.integers(2, int(s["jobs"]) + 1)))]
    return {"problem": "harmony", "machines": int(rng.integers(1, int(s["machines"]) + 1)),
            "reference_dop": int(rng.integers(1, 4)), "weights": {"cpu": 1, "net": 1}, "jobs": jobs}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return (len(d["jobs"]) <= int(s["jobs"]) and int(d["machines"]) <= int(s["machines"])
            and int(d["reference_dop"]) <= int(s["machines"])
            and all(int(j["iterations"]) <= int(s["iterations"]) for j in d["jobs"]))


HUNT = HuntSpace(
    element_lists=("jobs",),
    protected=DEFAULT_PROTECTED | {"weights"},
    integer_keys=frozenset({"iterations", "machines", "reference_dop"}),
    min_elements={"jobs": 2}, default_size={"jobs": 5, "machines": 4, "iterations": 40},
    within=within,
)
