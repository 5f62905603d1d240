"""Random small Cruise instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from ...draws import Draws
from ...family import HuntSpace


def random_instance(draws: Draws, *, machines: int = 5, dataset: int = 40, min_machines: int = 2,
                    model: int = 8, batch: int = 5) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    The draws are fixed: with :class:`~dmlsched.draws.RngDraws`, a seed and the same
    arguments give the same instance in every release.

    Parameters
    ----------
    draws
        Where the numbers come from.
    machines, min_machines
        ``min_machines..machines`` machines, each with a ``proc_time`` on the grid 0.25
        in ``[0.25, 4]`` and a bandwidth on the grid 0.5 in ``[0.5, 8]``.
    dataset, model, batch
        ``dataset_size``, ``model_size`` and ``batch_size`` drawn from 1 up to these.
    """
    ms = [{"name": f"m{i}", "proc_time": draws.grid(0.25, 4.0), "bandwidth": draws.grid(0.5, 8.0, 0.5)}
          for i in range(draws.integer(int(min_machines), int(machines)))]
    return {"problem": "cruise", "machines": ms, "dataset_size": draws.integer(1, int(dataset)),
            "model_size": draws.integer(1, int(model)), "batch_size": draws.integer(1, int(batch))}


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["machines"]) <= int(s["machines"]) and int(d["dataset_size"]) <= int(s["dataset"])


HUNT = HuntSpace(
    element_lists=("machines",), min_elements={"machines": 2},
    integer_keys=frozenset({"dataset_size", "model_size", "batch_size"}),
    default_size={"machines": 5, "dataset": 40}, within=within,
)
