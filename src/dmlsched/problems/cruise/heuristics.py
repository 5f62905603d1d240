"""Cruise's own configuration heuristic (Lee, dissertation 2020, Section 3.2.3) and
the integer partitions every configuration rule shares.

* :func:`closed_form` -- the homogeneous analytical solution (3.5):
  ``W* = argmin_W (D / W) T(W)``, ``T(W) = C_proc + (M / b) max(1, W / (N - W)) / B``,
  ``d_i = D / W*``, ``m_j = M / (N - W*)``.

The dissertation's baselines, the grid-search ground truth's ``proportional``
rule (Section 3.4.2) and the ``static`` starting configurations (Sections 3.4.3
and 3.4.5), are in ``baselines.py``.

Integer rounding (every rule): an amount ``X`` split in proportion to weights is
rounded by the largest-remainder method (:func:`apportion`): every share gets
``floor(X w_i / sum w)``, the units left go one each to the largest fractional
parts, ties to the lower machine index.  For equal weights this is the even
split ``X // k`` plus one for the first ``X % k``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...errors import NotApplicable
from ...kit import Option, OptionError, Run, method
from ...result import Result
from .instance import CruiseInstance
from .solution import CruiseConfig, evaluate


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
