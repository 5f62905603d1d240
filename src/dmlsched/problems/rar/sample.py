"""Random small RAR instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from typing import Sequence

from ...draws import Draws
from ...family import HuntSpace

#: per-iteration backward times of the hunt's jobs (seconds)
BP_TIMES = (0.02, 0.05, 0.1, 0.2, 0.4)
#: inter-server bandwidths of the hunt's clusters
INTER = (5.0, 10.0, 20.0)


def random_instance(
    draws: Draws,
    *,
    jobs: int = 3,
    servers: int = 2,
    capacity: int = 2,
    iterations: int = 8,
    horizon: int = 40,
    min_jobs: int = 1,
    xi1: Sequence[float] | None = None,
    bp_times: Sequence[float] = BP_TIMES,
    inter: Sequence[float] = INTER,
    progress: Sequence[str] | None = None,
) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    jobs, min_jobs, servers, capacity, iterations
        ``min_jobs..jobs`` jobs of ``1..iterations`` iterations; ``1..servers`` servers
        of ``1..capacity`` GPUs.
    horizon
        The horizon (slots).
    xi1
        Values ``xi1`` is drawn from; ``None``: 1.
    bp_times, inter
        Values of the jobs' backward times and of the inter-server bandwidth.
    progress
        Progress readings drawn from; ``None``: ``"fractional"``.
    """
    cluster = [draws.integer(1, int(capacity)) for _ in range(draws.integer(1, int(servers)))]
    total = sum(cluster)
    out = []
    for i in range(draws.integer(int(min_jobs), int(jobs))):
        out.append({
            "id": f"j{i}", "gpus": draws.integer(1, min(total, 4)),
            "iterations": draws.integer(1, int(iterations)),
            "grad_size": float(draws.choice([0.0, 0.5, 1.0, 2.0, 4.0])),
            "fp_time": float(draws.choice([0.0, 0.001, 0.002])), "batch": int(draws.choice([1, 8, 32])),
            "bp_time": float(draws.choice(bp_times)),
        })
    d = {"problem": "rar", "servers": cluster,
         "bandwidth": {"intra": float(draws.choice([50.0, 100.0])), "inter": float(draws.choice(inter))},
         "gpu_speed": float(draws.choice([100.0, 1000.0])),
         "xi1": 1.0 if xi1 is None else float(draws.choice(xi1)), "xi2": float(draws.choice([0.01, 0.05])),
         "alpha": float(draws.choice([0.0, 1.0, 3.0])), "horizon": int(horizon), "jobs": out,
         "progress": "fractional" if progress is None else draws.choice(progress)}
    return d


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
