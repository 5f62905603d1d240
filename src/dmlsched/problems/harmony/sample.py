"""Random small Harmony instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so the brute-force
reference is fast), in JSON form; :data:`HUNT` gives the hunt its element lists,
integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from ...draws import Draws
from ...family import DEFAULT_PROTECTED, HuntSpace


def random_instance(draws: Draws, *, jobs: int = 5, machines: int = 4, iterations: int = 40,
                    min_jobs: int = 2, step: float = 0.5, max_time: float = 5.0, zero_net: bool = False,
                    max_dop: int = 3) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    The draws are fixed: with :class:`~dmlsched.draws.RngDraws`, a seed and the same
    arguments give the same instance in every release.

    Parameters
    ----------
    draws
        Where the numbers come from.
    jobs, min_jobs, machines, iterations
        ``min_jobs..jobs`` jobs of ``1..iterations`` iterations, ``1..machines`` machines.
    step, max_time
        ``t_cpu`` and ``t_net`` on the grid ``step`` in ``[step, max_time]``.
    zero_net
        ``t_net`` is 0 half of the time (a coin drawn before it).
    max_dop
        ``reference_dop`` in ``1..max_dop``.
    """
    out = [{"id": f"J{i}", "t_cpu": draws.grid(step, max_time, step),
            "t_net": 0.0 if zero_net and draws.coin(0.5) else draws.grid(step, max_time, step),
            "iterations": draws.integer(1, int(iterations))}
           for i in range(draws.integer(int(min_jobs), int(jobs)))]
    return {"problem": "harmony", "machines": draws.integer(1, int(machines)),
            "reference_dop": draws.integer(1, int(max_dop)), "weights": {"cpu": 1, "net": 1}, "jobs": out}


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
