"""Random small Harmony instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so the brute-force
reference is fast), in JSON form; :data:`HUNT` gives the hunt its element lists,
integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from typing import Sequence

from ...draws import Draws
from ...family import DEFAULT_PROTECTED, HuntSpace


def random_instance(draws: Draws, *, jobs: int = 5, machines: int = 4, iterations: int = 40,
                    min_jobs: int = 2, step: float | None = 0.5, min_time: float = 0.5, max_time: float = 5.0,
                    zero_net: bool = False, max_dop: int = 3, dops: Sequence[int] | None = None,
                    with_iterations: bool | None = True, random_weights: bool = False) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    jobs, min_jobs, machines, iterations
        ``min_jobs..jobs`` jobs of ``1..iterations`` iterations, ``1..machines`` machines.
    step, min_time, max_time
        ``t_cpu`` and ``t_net`` on the grid ``step`` in ``[min_time, max_time]``;
        ``step=None``: any float there.
    zero_net
        ``t_net`` is 0 half of the time (a coin drawn before it).
    max_dop, dops
        ``reference_dop`` in ``1..max_dop``, or one of ``dops`` when given.
    with_iterations
        ``False``: no job has ``iterations``; ``None``: a coin decides for all jobs.
    random_weights
        ``False``: the weights are ``{"cpu": 1, "net": 1}``; ``True``: a coin decides
        between no weights (the default scalarisation) and ``cpu`` in 1..3, ``net`` in {0, 1}.
    """
    def time() -> float:
        return draws.uniform(min_time, max_time) if step is None else draws.grid(min_time, max_time, step)

    with_it = draws.coin(0.5) if with_iterations is None else with_iterations
    out = []
    for i in range(draws.integer(int(min_jobs), int(jobs))):
        job = {"id": f"J{i}", "t_cpu": time(), "t_net": 0.0 if zero_net and draws.coin(0.5) else time()}
        if with_it:
            job["iterations"] = draws.integer(1, int(iterations))
        out.append(job)
    d = {"problem": "harmony", "machines": draws.integer(1, int(machines)),
         "reference_dop": draws.integer(1, int(max_dop)) if dops is None else draws.choice(dops),
         "weights": {"cpu": 1, "net": 1}, "jobs": out}
    if random_weights:
        if draws.coin(0.5):
            d["weights"] = {"cpu": draws.choice((1, 2, 3)), "net": draws.choice((0, 1))}
        else:
            del d["weights"]
    return d


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
