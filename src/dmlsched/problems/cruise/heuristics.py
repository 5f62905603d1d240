"""Cruise's configuration heuristics (Lee, dissertation 2020, Sections 3.2.3 and 3.4.2).

* :func:`closed_form` -- the homogeneous analytical solution (3.5):
  ``W* = argmin_W (D / W) T(W)``, ``T(W) = C_proc + (M / b) max(1, W / (N - W)) / B``,
  ``d_i = D / W*``, ``m_j = M / (N - W*)``.
* :func:`proportional` -- the heterogeneous heuristic of Section 3.4.2: data
  proportional to compute power ``1 / C^i_proc``, model proportional to server
  bandwidth, the best role split found by search.

Integer rounding (both): an amount ``X`` split in proportion to weights is
rounded by the largest-remainder method (:func:`apportion`): every share gets
``floor(X w_i / sum w)``, the units left go one each to the largest fractional
parts, ties to the lower machine index.  For equal weights this is the even
split ``X // k`` plus one for the first ``X % k``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

from ...errors import NotApplicable
from ...kit import Option, OptionError, Run, method
from ...result import Result
from .instance import CruiseInstance
from .solution import CruiseConfig, comm_times, evaluate


def apportion(total: int, weights) -> list[int]:
    """Split the integer ``total`` in proportion to positive ``weights`` (largest remainder).

    Exact arithmetic on the floats' rational values, so the result does not
    depend on summation order.  Returns integers summing to ``total``.
    """
    ws = [Fraction(float(x)) for x in weights]
    if not ws:
        raise ValueError("no weights")
    s = sum(ws)
    quotas = [total * x / s for x in ws]
    base = [math.floor(q) for q in quotas]
    left = total - sum(base)
    order = sorted(range(len(ws)), key=lambda i: (-(quotas[i] - base[i]), i))
    for i in order[:left]:
        base[i] += 1
    return base


def _config(inst: CruiseInstance, workers: list[int], d_weights, m_weights) -> CruiseConfig:
    n = inst.num_machines
    wset = set(workers)
    servers = [j for j in range(n) if j not in wset]
    d = [0] * n
    m = [0] * n
    for i, x in zip(workers, apportion(inst.dataset_size, d_weights)):
        d[i] = x
    for j, x in zip(servers, apportion(inst.model_size, m_weights)):
        m[j] = x
    w = tuple(1 if i in wset else 0 for i in range(n))
    return CruiseConfig(w=w, s=tuple(1 - x for x in w), d=tuple(d), m=tuple(m))


# ---------------------------------------------------------------------------
# (3.5)
def paper_T(inst: CruiseInstance, W: int) -> float:
    """(3.5)'s ``T(W) = C_proc + (M / b) max(1, W / (N - W)) / B`` (homogeneous cluster)."""
    n = inst.num_machines
    b = float(inst.b[0, 1])
    return float(inst.p[0]) + inst.model_size / b * max(1.0, W / (n - W)) / inst.batch_size


def paper_value(inst: CruiseInstance, W: int) -> float:
    """(3.5)'s objective ``(D / W) T(W)``: the continuous relaxation's epoch time with
    ``W`` workers and even partitions."""
    return inst.dataset_size / W * paper_T(inst, W)


def even_config(inst: CruiseInstance, W: int) -> CruiseConfig:
    """Machines ``0..W-1`` work, the rest serve; ``d`` and ``m`` split evenly (integers)."""
    n = inst.num_machines
    return _config(inst, list(range(W)), [1.0] * W, [1.0] * (n - W))


def closed_form(inst: CruiseInstance, select: str = "paper") -> tuple[CruiseConfig, dict]:
    """The analytical solution (3.5) on a homogeneous cluster.

    Parameters
    ----------
    select
        ``"paper"``: ``W* = argmin_W (D/W) T(W)`` exactly as printed (ties to the
        smaller ``W``), then the even integer split.  ``"exact"``: the even split for
        every ``W`` evaluated with the true epoch time (ceil and integers), best kept
        -- the mended rule, optimal on homogeneous clusters (``proofs/cruise.md``).

    Raises
    ------
    ValueError
        On a heterogeneous cluster, where (3.5) does not apply.
    """
    if not inst.is_homogeneous:
        raise ValueError(
            "closed-form (3.5) applies to homogeneous clusters only (all proc_time equal and "
            "all bandwidths equal); use method 'proportional' or 'exact'"
        )
    n = inst.num_machines
    Ws = range(1, n)
    vals = {W: paper_value(inst, W) for W in Ws}
    if select == "paper":
        W = min(Ws, key=lambda x: (vals[x], x))
    elif select == "exact":
        W = min(Ws, key=lambda x: (evaluate(inst, even_config(inst, x)), x))
    else:
        raise OptionError("select", f"must be 'paper' or 'exact', got {select!r}")
    info = {"workers": W, "servers": n - W, "continuous_value": vals[W], "select": select}
    return even_config(inst, W), info


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


# ---------------------------------------------------------------------------
# registration
def _homogeneous_bound(inst: CruiseInstance) -> float | None:
    """(3.5) claims optimality (ratio 1) on homogeneous clusters, nothing otherwise."""
    return 1.0 if inst.is_homogeneous else None


@method(
    "cruise",
    "closed-form",
    kind="heuristic",
    description="Analytical solution (3.5) for homogeneous clusters (refuses heterogeneous input)",
    bound=_homogeneous_bound,
    bound_name="Cruise (3.5): optimal on homogeneous clusters",
    options=[
        Option("select", str, "paper",
               "how W is chosen: 'paper' ((3.5) as printed: argmin (D/W) T(W)) or 'exact' (the even "
               "integer split's true epoch time, the mended rule)", choices=("paper", "exact")),
    ],
)
def solve_closed_form(inst: CruiseInstance, run: Run) -> Result:
    """(3.5) on a homogeneous cluster; ``n/a`` with a clear message otherwise."""
    try:
        cfg, info = closed_form(inst, select=run.options["select"])
    except ValueError as e:
        raise NotApplicable(str(e)) from None
    return run.result(solution=cfg, **info)


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
