"""Random small Hare instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps, :func:`within` and :func:`fix`.
"""

from __future__ import annotations

import numpy as np

from ...draws import grid as _grid
from ...family import HuntSpace

#: job weights of the Hare sampler: spread over orders of magnitude (a heavy job
#: among light ones is the structure of the known list-scheduling traps)
HARE_WEIGHTS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def random_instance(rng: np.random.Generator, s: dict) -> dict:
    """A random small instance (JSON form) within the size caps ``s`` (``HUNT.default_size``).

    The draws of ``rng`` are fixed: a seed gives the same instance in every release.
    """
    types = ["A", "B", "C"][: int(s["types"])]
    m = int(rng.integers(1, int(s["gpus"]) + 1))
    gpus = [types[int(rng.integers(len(types)))] for _ in range(m)]
    used = sorted(set(gpus))
    jobs = []
    budget = int(s["tasks"])
    for n in range(int(rng.integers(1, int(s["jobs"]) + 1))):
        if budget <= 0:
            break
        k = int(rng.integers(1, int(s["tasks_per_round"]) + 1))
        r = int(rng.integers(1, int(s["rounds"]) + 1))
        if k * r > budget:
            k, r = 1, 1
        budget -= k * r
        base = _grid(rng, 0.25, 4.0)
        train = {g: round(base * _grid(rng, 1.0, float(s["alpha"]), 0.25), 6) for g in used}
        sync_base = 0.0 if rng.random() < 0.5 else _grid(rng, 0.25, 1.0)
        sync = {g: sync_base for g in used}  # equal sync across types keeps alpha finite
        arrival = 0.0 if rng.random() < 0.5 else _grid(rng, 0.25, 3.0)
        jobs.append({"id": f"J{n}", "arrival": arrival,
                     "weight": float(HARE_WEIGHTS[int(rng.integers(len(HARE_WEIGHTS)))]),
                     "rounds": r, "tasks_per_round": k, "train_time": train, "sync_time": sync})
    return {"problem": "hare", "gpus": gpus, "jobs": jobs}


def fix(d: dict) -> dict:
    """Keep each job's times for the GPU types the cluster still has (a move that
    takes a type's last GPU away would otherwise leave times that read as a typo)."""
    types = set(d.get("gpus", ()))
    for j in d.get("jobs", ()):
        for key in ("train_time", "sync_time"):
            if isinstance(j.get(key), dict):
                j[key] = {g: t for g, t in j[key].items() if g in types}
    return d


def within(d: dict, s: dict) -> bool:
    """Size caps, and positive weights: a job of weight 0 makes the relaxation
    degenerate (any start of its tasks is optimal), so Algorithm 1's order
    would be whichever optimal vertex the LP solver returns."""
    jobs = d["jobs"]
    tasks = sum(int(j["rounds"]) * int(j["tasks_per_round"]) for j in jobs)
    return (len(jobs) <= int(s["jobs"]) and len(d["gpus"]) <= int(s["gpus"]) and tasks <= int(s["tasks"])
            and len(set(d["gpus"])) <= int(s["types"]) and all(float(j["weight"]) > 0 for j in jobs))


HUNT = HuntSpace(
    element_lists=("jobs",), integer_keys=frozenset({"rounds", "tasks_per_round"}),
    default_size={"jobs": 4, "gpus": 3, "types": 2, "rounds": 2, "tasks_per_round": 3, "tasks": 8, "alpha": 2.0},
    within=within, fix=fix,
)
