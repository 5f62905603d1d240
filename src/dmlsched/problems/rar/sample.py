"""Random small RAR instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

import numpy as np

from ...family import HuntSpace


def random_instance(rng: np.random.Generator, s: dict) -> dict:
    """A random small instance (JSON form) within the size caps ``s`` (``HUNT.default_size``).

    The draws of ``rng`` are fixed: a seed gives the same instance in every release.
    """
    servers = [int(rng.integers(1, int(s["capacity"]) + 1)) for _ in range(int(rng.integers(1, int(s["servers"]) + 1)))]
    total = sum(servers)
    jobs = []
    for i in range(int(rng.integers(1, int(s["jobs"]) + 1))):
        jobs.append({
            "id": f"j{i}", "gpus": int(rng.integers(1, min(total, 4) + 1)),
            "iterations": int(rng.integers(1, int(s["iterations"]) + 1)),
            "grad_size": float(rng.choice([0.0, 0.5, 1.0, 2.0, 4.0])),
            "fp_time": float(rng.choice([0.0, 0.001, 0.002])), "batch": int(rng.choice([1, 8, 32])),
            "bp_time": float(rng.choice([0.02, 0.05, 0.1, 0.2, 0.4])),
        })
    return {"problem": "rar", "servers": servers,
            "bandwidth": {"intra": float(rng.choice([50.0, 100.0])), "inter": float(rng.choice([5.0, 10.0, 20.0]))},
            "gpu_speed": float(rng.choice([100.0, 1000.0])), "xi1": 1.0, "xi2": float(rng.choice([0.01, 0.05])),
            "alpha": float(rng.choice([0.0, 1.0, 3.0])), "horizon": int(s["horizon"]), "jobs": jobs,
            "progress": "fractional"}


def fix(d: dict) -> dict:
    """A horizon of at least one slot after a move."""
    d["horizon"] = max(int(d.get("horizon", 1)), 1)
    return d


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return (len(d["jobs"]) <= int(s["jobs"]) and len(d["servers"]) <= int(s["servers"])
            and max(d["servers"]) <= int(s["capacity"]) and int(d["horizon"]) <= int(s["horizon"])
            and all(int(j["iterations"]) <= int(s["iterations"]) for j in d["jobs"]))


HUNT = HuntSpace(
    element_lists=("jobs",),
    integer_keys=frozenset({"gpus", "iterations", "batch", "horizon", "servers"}),
    default_size={"jobs": 3, "servers": 2, "capacity": 2, "iterations": 8, "horizon": 40}, fix=fix,
    within=within,
)
