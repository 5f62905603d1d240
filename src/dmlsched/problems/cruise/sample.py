"""Random small Cruise instances (the hunt's sampler) and the hunt's size caps.

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
    machines = [{"name": f"m{i}", "proc_time": _grid(rng, 0.25, 4.0), "bandwidth": _grid(rng, 0.5, 8.0, 0.5)}
                for i in range(int(rng.integers(2, int(s["machines"]) + 1)))]
    return {"problem": "cruise", "machines": machines, "dataset_size": int(rng.integers(1, int(s["dataset"]) + 1)),
            "model_size": int(rng.integers(1, 9)), "batch_size": int(rng.integers(1, 6))}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["machines"]) <= int(s["machines"]) and int(d["dataset_size"]) <= int(s["dataset"])


HUNT = HuntSpace(
    element_lists=("machines",), min_elements={"machines": 2},
    integer_keys=frozenset({"dataset_size", "model_size", "batch_size"}),
    default_size={"machines": 5, "dataset": 40}, within=within,
)
