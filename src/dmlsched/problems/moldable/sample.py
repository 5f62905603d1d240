"""Random small moldable instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

import numpy as np

from ...draws import grid as _grid
from ...family import HuntSpace

#: minimum shares of the moldable sampler: 1/n of a GPU (the paper's p_min)
MOLDABLE_PMIN = (1, "1/2", "1/3", "1/4")


def random_instance(rng: np.random.Generator, s: dict) -> dict:
    """A random small instance (JSON form) within the size caps ``s`` (``HUNT.default_size``).

    The draws of ``rng`` are fixed: a seed gives the same instance in every release.
    """
    g = int(rng.integers(1, int(s["gpus"]) + 1))
    tasks = []
    for i in range(int(rng.integers(1, int(s["tasks"]) + 1))):
        pmax = int(rng.integers(1, g + 1))
        tasks.append({"id": f"T{i}", "user": f"u{int(rng.integers(2))}", "arrival": _grid(rng, 0.0, 4.0, 0.5),
                      "volume": _grid(rng, 0.5, 8.0, 0.5),
                      "p_min": MOLDABLE_PMIN[int(rng.integers(len(MOLDABLE_PMIN)))], "p_max": pmax})
    curve = [[1.0, 1.0]] + [[float(p), round(float(p) ** float(s["speedup_exponent"]), 6)] for p in range(2, g + 1)]
    return {"problem": "moldable", "gpus": g, "gpu_memory": 1.0, "speedup": curve, "preemption_overhead": 0.0,
            "preemption_min_remaining": 0.0, "tasks": tasks}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["tasks"]) <= int(s["tasks"]) and int(d["gpus"]) <= int(s["gpus"])


HUNT = HuntSpace(
    element_lists=("tasks",),
    protected=frozenset({"problem", "name", "id", "user", "description", "source", "expected", "speedup",
                         "gpu_memory", "preemption_overhead", "preemption_min_remaining", "p_min"}),
    integer_keys=frozenset({"gpus", "p_min", "p_max"}),
    default_size={"tasks": 4, "gpus": 3, "speedup_exponent": 0.8}, within=within,
)
