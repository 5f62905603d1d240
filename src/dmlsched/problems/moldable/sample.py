"""Random small moldable instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from ...draws import Draws
from ...family import HuntSpace

#: minimum shares of the moldable sampler: 1/n of a GPU (the paper's p_min)
MOLDABLE_PMIN = (1, "1/2", "1/3", "1/4")


def random_instance(draws: Draws, *, tasks: int = 4, gpus: int = 3, speedup_exponent: float = 0.8,
                    users: int = 2, max_arrival: float = 4.0, max_volume: float = 8.0) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    The draws are fixed: with :class:`~dmlsched.draws.RngDraws`, a seed and the same
    arguments give the same instance in every release.

    Parameters
    ----------
    draws
        Where the numbers come from.
    tasks, gpus
        ``1..tasks`` tasks on ``1..gpus`` GPUs; each task's ``p_max`` in ``1..G``, its
        ``p_min`` one of :data:`MOLDABLE_PMIN`.
    speedup_exponent
        The speedup curve ``s(p) = p ** speedup_exponent`` at ``p = 1..G``.
    users
        Tasks belong to users ``u0..u{users-1}``.
    max_arrival, max_volume
        Arrivals on the grid 0.5 in ``[0, max_arrival]``, volumes in ``[0.5, max_volume]``.
    """
    g = draws.integer(1, int(gpus))
    out = []
    for i in range(draws.integer(1, int(tasks))):
        pmax = draws.integer(1, g)
        out.append({"id": f"T{i}", "user": f"u{draws.integer(0, int(users) - 1)}",
                    "arrival": draws.grid(0.0, max_arrival, 0.5), "volume": draws.grid(0.5, max_volume, 0.5),
                    "p_min": draws.choice(MOLDABLE_PMIN), "p_max": pmax})
    curve = [[1.0, 1.0]] + [[float(p), round(float(p) ** float(speedup_exponent), 6)] for p in range(2, g + 1)]
    return {"problem": "moldable", "gpus": g, "gpu_memory": 1.0, "speedup": curve, "preemption_overhead": 0.0,
            "preemption_min_remaining": 0.0, "tasks": out}


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
