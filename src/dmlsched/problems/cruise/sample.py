"""Random small Cruise instances (the hunt's sampler) and the hunt's size caps.

:func:`random_instance` draws a small instance on coarse grids (so exact
references are fast), in JSON form; :data:`HUNT` gives the hunt its element
lists, integer keys, default size caps and :func:`within`.
"""

from __future__ import annotations

from typing import Sequence

from ...draws import Draws
from ...family import HuntSpace


def random_instance(draws: Draws, *, machines: int = 5, dataset: int = 40, min_machines: int = 2,
                    model: int = 8, batch: int = 5, proc_times: Sequence[float] | None = None,
                    bandwidths: Sequence[float] | None = None, matrix: bool | None = False,
                    homogeneous: bool = False, max_types: int | None = None, max_per_type: int = 3) -> dict:
    """A random small instance (JSON form); the defaults are the hunt's caps (``HUNT.default_size``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    machines, min_machines
        ``min_machines..machines`` machines, each with a ``proc_time`` on the grid 0.25
        in ``[0.25, 4]`` (or one of ``proc_times``) and a bandwidth on the grid 0.5 in
        ``[0.5, 8]`` (or one of ``bandwidths``).
    dataset, model, batch
        ``dataset_size``, ``model_size`` and ``batch_size`` drawn from 1 up to these.
    matrix
        ``True``: a top-level bandwidth matrix (one value per ordered pair of
        machines) instead of per-machine bandwidths; ``None``: a coin decides.
    homogeneous
        Every machine has the same ``proc_time`` and bandwidth.
    max_types, max_per_type
        A typed cluster (the ``types`` formulation's setting) instead: ``1..max_types``
        types of ``1..max_per_type`` identical machines each (at least 2 machines),
        per type a ``proc_time`` and a bandwidth (or a type-to-type matrix).
    """
    def proc() -> float:
        return draws.grid(0.25, 4.0) if proc_times is None else draws.choice(proc_times)

    def bw() -> float:
        return draws.grid(0.5, 8.0, 0.5) if bandwidths is None else draws.choice(bandwidths)

    if max_types is None and not homogeneous and matrix is False:  # the hunt's draws
        ms = [{"name": f"m{i}", "proc_time": proc(), "bandwidth": bw()}
              for i in range(draws.integer(int(min_machines), int(machines)))]
        return {"problem": "cruise", "machines": ms, "dataset_size": draws.integer(1, int(dataset)),
                "model_size": draws.integer(1, int(model)), "batch_size": draws.integer(1, int(batch))}
    if max_types is not None:
        k = draws.integer(1, int(max_types))
        counts = [draws.integer(1, int(max_per_type)) for _ in range(k)]
        if sum(counts) < 2:
            counts[0] = 2
        owner = [t for t, c in enumerate(counts) for _ in range(c)]
    else:
        owner = list(range(draws.integer(int(min_machines), int(machines))))
        k = 1 if homogeneous else len(owner)
        owner = [0] * len(owner) if homogeneous else owner
    sizes = {"dataset_size": draws.integer(1, int(dataset)), "model_size": draws.integer(1, int(model)),
             "batch_size": draws.integer(1, int(batch))}
    use_matrix = draws.coin(0.5) if matrix is None else matrix
    tp = [proc() for _ in range(k)]
    ms = [{"name": f"m{i}", "proc_time": tp[t]} for i, t in enumerate(owner)]
    d = {"problem": "cruise", "machines": ms}
    if use_matrix:
        if homogeneous:
            v = bw()
            tb = [[v]]
        else:
            tb = [[bw() for _ in range(k)] for _ in range(k)]
        d["bandwidth"] = [[None if i == j else tb[a][b] for j, b in enumerate(owner)] for i, a in enumerate(owner)]
    else:
        tbw = [bw() for _ in range(k)]
        for m, t in zip(ms, owner):
            m["bandwidth"] = tbw[t]
    d.update(sizes)
    return d


def within(d: dict, s: dict) -> bool:
    """Whether the instance ``d`` (JSON form) respects the size caps ``s``."""
    return len(d["machines"]) <= int(s["machines"]) and int(d["dataset_size"]) <= int(s["dataset"])


HUNT = HuntSpace(
    element_lists=("machines",), min_elements={"machines": 2},
    integer_keys=frozenset({"dataset_size", "model_size", "batch_size"}),
    default_size={"machines": 5, "dataset": 40}, within=within,
)
