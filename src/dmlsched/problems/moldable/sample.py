"""Random small moldable instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.  The same builder,
with its shape arguments, makes the family's hypothesis strategies
(``strategies.py``, through :class:`~dmlsched.fuzz.HypothesisDraws`).
"""

from __future__ import annotations

from typing import Sequence

from ...draws import Draws
from ...family import HuntSpace

#: minimum shares of the moldable sampler: 1/n of a GPU (the paper's p_min)
MOLDABLE_PMIN = (1, "1/2", "1/3", "1/4")

#: sublinear speedup curves whose runtimes stay integral for even volumes
#: (used where the exact MIP must be exact): s(1/2) in {1/2, 2/3}, linear above 1
GRID_CURVES = (
    ((0.5, 0.5), (1.0, 1.0), (4.0, 4.0)),
    ((0.5, 2.0 / 3.0), (1.0, 1.0), (4.0, 4.0)),
)

#: the shares a random curve may have points at below one GPU (1/n)
CURVE_SHARE_DENS = (2, 3, 4, 8)

#: the speedup curves :func:`random_instance` draws
CURVES = ("power", "random", "grid")


def random_curve(draws: Draws, *, max_p: int = 8) -> list[list[float]]:
    """A random non-decreasing sublinear curve with ``s(1) = 1``, as ``[[p, s], ...]``.

    Up to two points below one GPU at shares ``1/n`` (``n`` in :data:`CURVE_SHARE_DENS`),
    and points at some of ``p = 2..max_p``.  Built from per-step ratios: going from
    ``p`` to ``p' > p`` the speed is multiplied by a factor in ``[1, p'/p]``
    (``1 + lam * (p'/p - 1)`` with ``lam`` uniform in ``[0, 1]``).
    """
    pool = list(CURVE_SHARE_DENS)
    dens = []
    for _ in range(draws.integer(0, 2)):
        dens.append(draws.choice(pool))
        pool.remove(dens[-1])
    below = []
    nxt_p, nxt_s = 1.0, 1.0
    for p in sorted({1.0 / n for n in dens}, reverse=True):  # s(p) = s(p_next) / factor
        s = nxt_s / (1.0 + draws.uniform(0.0, 1.0) * (nxt_p / p - 1.0))
        below.append([p, s])
        nxt_p, nxt_s = p, s
    pts = below[::-1] + [[1.0, 1.0]]
    p, s = 1.0, 1.0
    for q in range(2, int(max_p) + 1):
        if draws.coin(0.5):
            s = s * (1.0 + draws.uniform(0.0, 1.0) * (q / p - 1.0))
            p = float(q)
            pts.append([p, s])
    return pts


def _curve(draws: Draws, curve: str, g: int, exponent: float) -> list[list[float]]:
    """The instance's speedup points: ``curve`` one of :data:`CURVES` (only ``"power"`` draws nothing)."""
    if curve == "power":
        return [[1.0, 1.0]] + [[float(p), round(float(p) ** float(exponent), 6)] for p in range(2, g + 1)]
    if curve == "random":
        return random_curve(draws, max_p=max(1, g))
    if curve == "grid":
        return [list(pt) for pt in draws.choice(GRID_CURVES)]
    raise ValueError(f"curve: must be one of {', '.join(CURVES)}, got {curve!r}")


def _number(draws: Draws, lo: float, hi: float, step: float | None) -> float:
    return draws.uniform(lo, hi) if step is None else draws.grid(lo, hi, step)


def _grid_task(draws: Draws, g: int, max_arrival: float, max_volume: float) -> tuple[int, float, float, object]:
    """``p_max``, arrival, volume and ``p_min`` of a task whose runtimes are integers on a
    :data:`GRID_CURVES` curve: ``p_max`` in ``{1, min(2, G)}``, an integer arrival, an even
    volume (a multiple of 4 when ``p_max = 2``), ``p_min`` in ``{1, 1/2}``."""
    pmax = draws.choice(sorted({1, min(2, g)}))
    arrival = float(draws.integer(0, int(max_arrival)))
    if pmax == 2:
        volume = float(4 * draws.integer(1, max(1, int(max_volume) // 4)))
    else:
        volume = float(2 * draws.integer(1, max(1, int(max_volume) // 2)))
    return pmax, arrival, volume, draws.choice((1, "1/2"))


def random_instance(draws: Draws, *, tasks: int = 4, gpus: int = 3, speedup_exponent: float = 0.8,
                    users: int = 2, max_arrival: float = 4.0, max_volume: float = 8.0,
                    arrival_step: float | None = 0.5, min_volume: float = 0.5, volume_step: float | None = 0.5,
                    curve: str | None = None, grid: bool = False, gpu_memory: float = 1.0,
                    max_memory: int | None = None, p_req: bool = False,
                    preemption_overheads: Sequence[float] | None = None,
                    preemption_min_remainings: Sequence[float] | None = None) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    The shape arguments after ``max_volume`` draw nothing at their defaults (the hunt's
    stream is the one ``tests/test_draws.py`` pins).

    Parameters
    ----------
    draws
        Where the numbers come from.
    tasks, gpus
        ``1..tasks`` tasks on ``1..gpus`` GPUs; each task's ``p_max`` in ``1..G``, its
        ``p_min`` one of :data:`MOLDABLE_PMIN`.
    speedup_exponent
        The ``"power"`` speedup curve ``s(p) = p ** speedup_exponent`` at ``p = 1..G``.
    users
        Tasks belong to users ``u0..u{users-1}``.
    max_arrival, arrival_step
        Arrivals on the grid ``arrival_step`` in ``[0, max_arrival]``; ``None``: any float there.
    min_volume, max_volume, volume_step
        Volumes on the grid ``volume_step`` in ``[min_volume, max_volume]``; ``None``: any float there.
    curve
        ``"power"`` (the default without ``grid``), ``"random"`` (:func:`random_curve` up to
        ``p = G``) or ``"grid"`` (one of :data:`GRID_CURVES`, the default with ``grid``).
    grid
        Every runtime an integer (the time-indexed MIP is then exact): see :func:`_grid_task`;
        ``arrival_step``, ``min_volume``, ``volume_step`` are then not used.
    gpu_memory, max_memory
        Each GPU's memory; with ``max_memory`` each task needs an integer memory in
        ``0..max_memory`` (keep it at most ``gpu_memory``), otherwise it has no ``memory`` key (0).
    p_req
        A coin per task decides whether it requests ``p_req`` in ``1..p_max`` dedicated GPUs.
    preemption_overheads, preemption_min_remainings
        The instance's ``preemption_overhead`` and ``preemption_min_remaining`` drawn from these
        values; ``None``: 0.
    """
    if curve is None:
        curve = "grid" if grid else "power"
    g = draws.integer(1, int(gpus))
    n = draws.integer(1, int(tasks))
    speedup = _curve(draws, curve, g, speedup_exponent)
    out = []
    for i in range(n):
        if grid:
            pmax, arrival, volume, pmin = _grid_task(draws, g, max_arrival, max_volume)
            task = {"id": f"T{i}", "user": f"u{draws.integer(0, int(users) - 1)}", "arrival": arrival,
                    "volume": volume, "p_min": pmin, "p_max": pmax}
        else:
            pmax = draws.integer(1, g)
            task = {"id": f"T{i}", "user": f"u{draws.integer(0, int(users) - 1)}",
                    "arrival": _number(draws, 0.0, max_arrival, arrival_step),
                    "volume": _number(draws, min_volume, max_volume, volume_step),
                    "p_min": draws.choice(MOLDABLE_PMIN), "p_max": pmax}
        if max_memory is not None:
            task["memory"] = float(draws.integer(0, int(max_memory)))
        if p_req and draws.coin(0.5):
            task["p_req"] = draws.integer(1, pmax)
        out.append(task)
    return {"problem": "moldable", "gpus": g, "gpu_memory": float(gpu_memory), "speedup": speedup,
            "preemption_overhead": 0.0 if preemption_overheads is None else draws.choice(preemption_overheads),
            "preemption_min_remaining": 0.0 if preemption_min_remainings is None
            else draws.choice(preemption_min_remainings), "tasks": out}


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
