"""The dissertation's baselines for Cruise (Lee, dissertation 2020, Sections 3.4.2-3.4.5).

* :func:`proportional` (method ``proportional``) -- the rule of the grid-search
  ground truth, Section 3.4.2 ("Finding Baselines with Grid Search": "we find the
  baseline for all experiments. We simply perform a grid search that runs all
  possible configurations (w, s)"; "In the heterogeneous environment, we
  distribute blocks proportional to each machine's power"): data proportional to
  compute power ``1 / C^i_proc``, model proportional to server bandwidth, the best
  role split found by search.
* :func:`static_config` (method ``static``) -- the static starting configurations
  of Sections 3.4.3 and 3.4.5, the baseline of "Cruise reduces the training time
  by up to 58.3% compared to static configuration".

Cruise's own methods are ``closed-form`` (``heuristics.py``) and ``exact``
(``models.py``); the partitions are rounded by :func:`.heuristics.apportion`.
"""

from __future__ import annotations

import math
from itertools import product

from ...errors import NotApplicable
from ...kit import Option, OptionError, Run, method
from ...result import Result
from .heuristics import _config
from .instance import CruiseInstance
from .solution import CruiseConfig, comm_times, evaluate


# ---------------------------------------------------------------------------
# proportional
def server_weights(inst: CruiseInstance, workers: list[int], servers: list[int]) -> list[float]:
    """Bandwidth weight of each server: ``min over workers i of b_ij`` (the bandwidth
    the server is guaranteed towards every worker; ``b_j`` itself when every worker
    is at least as fast in the per-machine form)."""
    return [float(min(inst.b[i, j] for i in workers)) for j in servers]


def role_candidates(inst: CruiseInstance, allowed_workers=None, max_configs: int = 20000):
    """Worker sets searched by :func:`proportional`.

    Machines of one type (:attr:`CruiseInstance.machine_types`) are
    interchangeable, so a role split is a worker count per type (the first
    machines of each type work).  When the product of ``(type size + 1)``
    exceeds ``max_configs``, fall back to a ranking: machines by increasing
    ``proc_time`` (ties: lower index), and
    the first ``W`` work, for every ``W``.
    """
    n = inst.num_machines
    allowed = set(allowed_workers) if allowed_workers is not None else set(range(1, n))
    types = inst.machine_types
    total = 1
    for g in types:
        total *= len(g) + 1
    if total <= max_configs:
        for counts in product(*(range(len(g) + 1) for g in types)):
            W = sum(counts)
            if W in allowed:
                yield sorted(i for g, c in zip(types, counts) for i in g[:c])
    else:
        rank = sorted(range(n), key=lambda i: (inst.p[i], i))
        for W in sorted(allowed):
            yield sorted(rank[:W])


def proportional(inst: CruiseInstance, allowed_workers=None, max_configs: int = 20000,
                 data: str = "compute") -> CruiseConfig:
    """Best configuration with data proportional to compute power and model
    proportional to :func:`server_weights`, over the role splits of
    :func:`role_candidates` (first best kept on ties).

    ``data="compute"``: ``d_i`` proportional to ``1 / C^i_proc``.
    ``data="effective"``: ``d_i`` proportional to ``1 / (C^i_proc + T_i / B)``, the
    sample rate including the per-sample share of communication ``T_i`` under the
    chosen model partition (the released Cruise optimizer's split; both are readings
    of Section 3.4.2, models/cruise.md).
    """
    if data not in ("compute", "effective"):
        raise OptionError("data", f"must be 'compute' or 'effective', got {data!r}")
    best, best_val = None, math.inf
    n = inst.num_machines
    for workers in role_candidates(inst, allowed_workers, max_configs):
        wset = set(workers)
        servers = [j for j in range(n) if j not in wset]
        mw = server_weights(inst, workers, servers)
        cfg = _config(inst, workers, [1.0 / inst.p[i] for i in workers], mw)
        if data == "effective":
            t = comm_times(inst, cfg)
            cfg = _config(inst, workers,
                          [1.0 / (inst.p[i] + t[i] / inst.batch_size) for i in workers], mw)
        val = evaluate(inst, cfg)
        if val < best_val:
            best, best_val = cfg, val
    if best is None:
        raise ValueError("no role split to search (allowed_workers empty?)")
    return best


@method(
    "cruise",
    "proportional",
    kind="heuristic",
    description="Data proportional to compute power, model to bandwidth, best role split by search "
                "(the grid-search ground truth's rule, Sec. 3.4.2)",
    options=[
        Option("max_configs", int, 20000,
               "largest number of per-type role splits enumerated before ranking machines by compute speed",
               minimum=1),
        Option("data", str, "compute",
               "data rule (two readings of Sec. 3.4.2): 'compute' (d_i proportional to 1/C_proc) or 'effective' "
               "(proportional to 1/(C_proc + T_i/B), the released optimizer's split)",
               choices=("compute", "effective")),
    ],
)
def solve_proportional(inst: CruiseInstance, run: Run) -> Result:
    """Section 3.4.2's rule for the ground truth: proportional partitions, every role split
    searched (deterministic; ``seed`` unused)."""
    cfg = proportional(inst, max_configs=run.options["max_configs"], data=run.options["data"])
    return run.result(solution=cfg, workers=sum(cfg.w), servers=sum(cfg.s))


# ---------------------------------------------------------------------------
# a static configuration (the starting points of Sections 3.4.3 and 3.4.5)
def machine_classes(inst: CruiseInstance) -> list[list[int]]:
    """Machines grouped by ``(proc_time, bandwidth)``, classes in order of first appearance."""
    bw = inst.machine_bandwidth or tuple(0.0 for _ in inst.proc_time)
    out: dict[tuple[float, float], list[int]] = {}
    for i, key in enumerate(zip(inst.proc_time, bw)):
        out.setdefault(key, []).append(i)
    return list(out.values())


def static_config(inst: CruiseInstance, workers: list[int]) -> CruiseConfig:
    """``workers[k]`` workers from machine class ``k`` (:func:`machine_classes`, first machines
    of the class), the rest servers; data and model split evenly ('E' in the dissertation's
    notation, e.g. ``(W:16+2, S:12+2)|E``)."""
    classes = machine_classes(inst)
    if len(workers) != len(classes):
        raise NotApplicable(f"option workers: {len(workers)} counts for {len(classes)} machine classes")
    chosen: list[int] = []
    for k, (cls, w) in enumerate(zip(classes, workers)):
        if not 0 <= int(w) <= len(cls):
            raise NotApplicable(f"option workers[{k}] = {w}: the class has {len(cls)} machines")
        chosen += cls[: int(w)]
    if not chosen or len(chosen) == inst.num_machines:
        raise NotApplicable("option workers: a configuration needs at least one worker and one server")
    chosen.sort()
    return _config(inst, chosen, [1.0] * len(chosen), [1.0] * (inst.num_machines - len(chosen)))


@method(
    "cruise",
    "static",
    kind="heuristic",
    description="A fixed configuration: given worker counts per machine class, the rest servers, even "
                "partitions (the static starting points of Secs. 3.4.3 and 3.4.5)",
    options=[Option("workers", list, None, "workers per machine class (classes of equal proc_time and "
                    "bandwidth, in order of first appearance), e.g. [16, 2] for (W:16+2, S:12+2)|E")],
)
def solve_static(inst: CruiseInstance, run: Run) -> Result:
    """The configuration ``workers`` with even partitions (no optimisation: the baseline of
    "Cruise reduces the training time by up to 58.3% compared to static configuration")."""
    w = run.options["workers"]
    if w is None:
        raise NotApplicable("option workers is required (workers per machine class)")
    cfg = static_config(inst, [int(x) for x in w])
    return run.result(solution=cfg, workers=sum(cfg.w), servers=sum(cfg.s))
