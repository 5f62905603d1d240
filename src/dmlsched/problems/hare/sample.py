"""The one builder of random Hare instances, and the hunt's size caps.

:func:`random_instance` draws an instance on coarse grids (so exact references
are fast), in JSON form, through a :class:`~dmlsched.draws.Draws`: the hunt and
the tests' seeded instances with ``RngDraws(np.random.default_rng(seed))``, the
hypothesis strategies (:mod:`.strategies`) with
:class:`~dmlsched.fuzz.HypothesisDraws`.  :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps, :func:`within` and :func:`fix`.
"""

from __future__ import annotations

from typing import Sequence

from ...draws import Draws
from ...family import HuntSpace

#: job weights of the Hare sampler: spread over orders of magnitude (a heavy job
#: among light ones is the structure of the known list-scheduling traps)
HARE_WEIGHTS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)

#: GPU type names of the hunt's instances
TYPE_NAMES = ("A", "B", "C")


def random_instance(
    draws: Draws,
    *,
    jobs: int = 4,
    gpus: int = 3,
    types: int = 2,
    rounds: int = 2,
    tasks_per_round: int = 3,
    tasks: int | None = 8,
    alpha: float = 2.0,
    min_jobs: int = 1,
    min_gpus: int = 1,
    type_names: Sequence[str] = TYPE_NAMES,
    step: float = 0.25,
    train: tuple[float, float] = (0.25, 4.0),
    max_sync: float = 1.0,
    sync_per_type: bool = False,
    max_arrival: float = 3.0,
    arrival_step: float | None = None,
    weights: Sequence[float] = HARE_WEIGHTS,
) -> dict:
    """A random instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    jobs, min_jobs
        The number of jobs is drawn in ``[min_jobs, jobs]`` (fewer when ``tasks`` runs out).
    gpus, min_gpus
        The number of GPUs is drawn in ``[min_gpus, gpus]``; each GPU draws its type.
    types, type_names
        The GPU types are the first ``types`` of ``type_names`` (a cluster may use a
        subset); ``types=1``: homogeneous.
    rounds, tasks_per_round
        Per job, ``rounds`` and ``tasks_per_round`` drawn from 1.
    tasks
        Cap on the total number of tasks: a job that would exceed it gets one round of
        one task; the jobs stop when it is reached.  ``None``: no cap.
    alpha, train, step
        A job's base time is on the grid ``step`` in ``train``; its time on each type
        is the base times a factor on the grid 0.25 in ``[1, alpha]``.
    max_sync, sync_per_type
        A job's synchronisation time is 0 (half of the time) or on the grid ``step``
        in ``[step, max_sync]``, the same on every type (``sync_per_type``: drawn per
        type).  ``max_sync=0``: no synchronisation.
    max_arrival, arrival_step
        Arrivals are 0 (half of the time) or on the grid ``arrival_step`` (default
        ``step``) in ``[arrival_step, max_arrival]``; ``0``: every job arrives at 0.
        A coarse grid makes jobs arrive in bursts.
    weights
        The weights a job draws from.
    """
    names = list(type_names)[: int(types)]
    m = draws.integer(int(min_gpus), int(gpus))
    cluster = [draws.choice(names) for _ in range(m)]
    used = sorted(set(cluster))
    out = []
    budget = float("inf") if tasks is None else int(tasks)
    for n in range(draws.integer(int(min_jobs), int(jobs))):
        if budget <= 0:
            break
        k = draws.integer(1, int(tasks_per_round))
        r = draws.integer(1, int(rounds))
        if k * r > budget:
            k, r = 1, 1
        budget -= k * r
        base = draws.grid(train[0], train[1], step)
        train_time = {g: round(base * draws.grid(1.0, float(alpha), 0.25), 6) for g in used}
        if sync_per_type:
            sync = {g: _zero_or_grid(draws, max_sync, step) for g in used}
        else:
            s = _zero_or_grid(draws, max_sync, step)
            sync = {g: s for g in used}  # equal sync across types keeps alpha finite
        arrival = _zero_or_grid(draws, max_arrival, step if arrival_step is None else arrival_step)
        out.append({"id": f"J{n}", "arrival": arrival, "weight": float(draws.choice(weights)),
                    "rounds": r, "tasks_per_round": k, "train_time": train_time, "sync_time": sync})
    return {"problem": "hare", "gpus": cluster, "jobs": out}


def _zero_or_grid(draws: Draws, high: float, step: float) -> float:
    """0 or (a fair coin) a point of the grid ``step`` in ``[step, high]``; 0 without a draw if ``high < step``."""
    if high < step:
        return 0.0
    return 0.0 if draws.coin(0.5) else draws.grid(step, high, step)


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
