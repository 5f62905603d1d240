"""Proven lower bounds on the Cruise epoch time, as functions of the instance.

For a fixed number of workers ``W`` (``S = N - W`` servers), every worker ``i``
has a per-mini-batch communication time

``T_i >= tau_i(W) = max(M, W * ceil(M / S)) / max_{j != i} b_ij``

because ``sum_j m_j / b_ij >= M / max_j b_ij`` and some server holds at least
``ceil(M / S)`` model units (integers summing to ``M`` over ``S`` servers).  So a
worker with ``d_i`` samples needs ``C >= p_i d_i + ceil(d_i / B) tau_i``; with
``f_i(C)`` the most samples worker ``i`` can process within ``C``, any
configuration with ``W`` workers and epoch time ``C`` has
``D <= sum of the W largest f_i(C)``.  The smallest such ``C`` is a lower bound
:func:`lower_bound_for_workers`; its minimum over ``W`` bounds the optimum
(:func:`lower_bound`).  On a homogeneous cluster it is attained by the even
partition, hence equals the optimum (``proofs/cruise.md``).

The continuous bound (:func:`continuous_lower_bound_for_workers`) drops
integrality: ``tau_i = max(M, W M / S) / max_j b_ij`` and ``d_i / B`` mini-batches.
"""

from __future__ import annotations

import math

import numpy as np

from ...kit import Run, method
from ...result import Result
from .instance import CruiseInstance


def _tau(inst: CruiseInstance, W: int, *, integer: bool = True) -> np.ndarray:
    n = inst.num_machines
    S = n - W
    M = inst.model_size
    top = math.ceil(M / S) if integer else M / S
    bmax = np.array([max(inst.b[i, j] for j in range(n) if j != i) for i in range(n)])
    return max(M, W * top) / bmax


def comm_floor(inst: CruiseInstance, W: int) -> np.ndarray:
    """``tau_i(W)``: a lower bound on worker ``i``'s per-mini-batch communication time
    in any configuration with ``W`` workers and integer ``m``."""
    return _tau(inst, W)


def max_samples(p: float, tau: float, B: int, C: float, D: int) -> int:
    """``f(C) = max{d in 0..D : p d + ceil(d / B) tau <= C}``."""
    if C < 0:
        return -1
    best = 0
    x = C / (p * B + tau)
    for k in (math.floor(x), math.floor(x) + 1):
        if k <= 0:
            continue
        rest = C - k * tau
        if rest < 0:
            continue
        d = min(k * B, math.floor(rest / p + 1e-12 * max(1.0, rest / p)), D)
        # exactness guard against rounding: step down while the cost exceeds C
        while d > 0 and p * d + math.ceil(d / B) * tau > C:
            d -= 1
        best = max(best, d)
    return best


def lower_bound_for_workers(inst: CruiseInstance, W: int) -> float:
    """A proven lower bound on the epoch time of every configuration with ``W`` workers.

    Returns the smallest value ``C`` of the form ``p_i q + ceil(q / B) tau_i``
    for which the ``W`` largest ``f_i(C)`` sum to at least ``D`` (see the module
    docstring), found by exact search over those candidate values.
    """
    n = inst.num_machines
    if not 1 <= W <= n - 1:
        raise ValueError(f"W must be in 1..{n - 1}, got {W}")
    D, B = inst.dataset_size, inst.batch_size
    tau = _tau(inst, W)
    p = inst.p

    def enough(C: float) -> bool:
        f = sorted((max_samples(float(p[i]), float(tau[i]), B, C, D) for i in range(n)), reverse=True)
        return sum(f[:W]) >= D

    # bisection on C (enough() is monotone), then snap to the exact jump point
    lo, hi = 0.0, max(float(p[i]) * D + math.ceil(D / B) * float(tau[i]) for i in range(n))
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        if enough(mid):
            hi = mid
        else:
            lo = mid
    # snap: the optimum C* of the bound lies in (lo, hi] and is a jump point of some f_i;
    # the smallest next jump c1 above lo satisfies c1 <= C*, so c1 is exact when enough(c1).
    cands = []
    for i in range(n):
        q = max_samples(float(p[i]), float(tau[i]), B, lo, D) + 1
        if q <= D:
            cands.append(float(p[i]) * q + math.ceil(q / B) * float(tau[i]))
    c1 = min((c for c in cands if c > lo), default=math.inf)
    if c1 <= hi and enough(c1):
        return c1
    return lo


def lower_bound(inst: CruiseInstance) -> float:
    """``min_W`` :func:`lower_bound_for_workers`: a proven lower bound on the optimum."""
    return min(lower_bound_for_workers(inst, W) for W in range(1, inst.num_machines))


def continuous_lower_bound_for_workers(inst: CruiseInstance, W: int) -> float:
    """Lower bound of the continuous relaxation with ``W`` workers:
    ``D / (sum of the W largest 1 / (p_i + tau_i / B))`` with the continuous ``tau_i``."""
    tau = _tau(inst, W, integer=False)
    rates = np.sort(1.0 / (inst.p + tau / inst.batch_size))[::-1]
    return float(inst.dataset_size / rates[:W].sum())


def continuous_lower_bound(inst: CruiseInstance) -> float:
    """``min_W`` of :func:`continuous_lower_bound_for_workers`."""
    return min(continuous_lower_bound_for_workers(inst, W) for W in range(1, inst.num_machines))


# ---------------------------------------------------------------------------
# registration


@method(
    "cruise",
    "lower-bound",
    kind="bound",
    description="Proven lower bound: min over W of the per-worker capacity bound (bounds.py)",
)
def solve_lower_bound(inst: CruiseInstance, run: Run) -> Result:
    """:func:`lower_bound` (the exact optimum on homogeneous clusters)."""
    with run.stage("bound"):
        v = lower_bound(inst)
    return run.result(bound=v)
