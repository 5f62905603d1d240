"""The solver-free bounds that need no method: the load bound on the makespan and
energetic reasoning, and the check that no schedule ends within the horizon
(:func:`horizon_infeasible`, the family's ``infeasible`` hook).

Kept apart from ``bounds.py``, which registers the method ``lower-bound`` and so is
imported only after the family is registered, while the family's description
needs :func:`horizon_infeasible` when it is registered.  ``bounds.py`` imports
the load bound and energetic reasoning from here.
"""

from __future__ import annotations

import numpy as np

from .instance import RarInstance


def load_lower_bound(inst: RarInstance) -> int:
    """A solver-free lower bound on the makespan.

    ``max(max_j rho_min_j, ceil(sum_j G_j rho_min_j / N))``: every job runs at
    least ``rho_min_j`` slots on ``G_j`` GPUs, and the ``N`` GPUs share the work.
    """
    lo = inst.rho_range[0]
    work = int(np.dot(inst.G, lo))
    return int(max(int(lo.max()), -(-work // inst.num_gpus)))


# ---------------------------------------------------------------------------
# energetic reasoning
def energetic_infeasible(G: np.ndarray, rho: np.ndarray, N: int, C: int) -> bool:
    """Whether energetic reasoning proves that no schedule ends by ``C``.

    Job ``j`` runs ``rho_j`` consecutive slots on ``G_j`` GPUs inside ``[0, C)``.  In an
    interval ``[t1, t2)`` it then uses at least ``G_j * min(t2 - t1, (rho_j - t1)^+,
    (t2 - C + rho_j)^+)`` GPU-slots (started as early or as late as possible); if the
    jobs' least energies exceed ``N (t2 - t1)`` for some interval, ``C`` is infeasible.
    Checked on the intervals whose ends are in ``{0, C, rho_j, C - rho_j}`` (where the
    energy functions change slope).

    Without computing any interval when no job is longer than ``C / 2`` and the jobs'
    energy ``W = sum_j G_j rho_j`` is below ``N C`` (then ``C`` is never ruled out; the
    usual case, ``C`` being the horizon, far above the jobs' durations): with
    ``L = t2 - t1``, ``x = rho_j - t1`` and ``y = t2 - C + rho_j``, a job's least energy
    is 0 unless ``x, y > 0``, and then at most ``G_j min(x, y) <= G_j (x + y) / 2 =
    G_j (rho_j - (C - L) / 2)``.  So an interval needs at most ``g(L) = sum_j G_j
    max(0, rho_j - (C - L) / 2)``, convex in ``L`` with ``g(0) = 0`` (every
    ``rho_j <= C / 2``) and ``g(C) = W``: ``g(L) <= (L / C) W < N L`` on ``(0, C]``.
    """
    if int(rho.max()) > C:
        return True
    if 2 * float(rho.max()) <= C and float(np.dot(G, rho)) < N * C * (1 - 1e-9):
        return False  # no interval can need more than N L (the docstring's bound)
    return _energetic_violated(G, rho, N, C)


def _energetic_violated(G: np.ndarray, rho: np.ndarray, N: int, C: int) -> bool:
    """Energetic reasoning's check on every interval (:func:`energetic_infeasible`
    without its shortcut)."""
    # jobs of equal duration add their widths (the energy is linear in G_j)
    durs, inv = np.unique(rho, return_inverse=True)
    width = np.bincount(inv, weights=G)
    pts = np.unique(np.clip(np.concatenate([[0, C], durs, C - durs]), 0, C))
    t1 = pts[:, None]
    t2 = pts[None, :]
    ii, kk = np.nonzero(t2 > t1)
    a, b = pts[ii].astype(float), pts[kk].astype(float)
    length = b - a
    need = np.zeros(len(a))
    for g, r in zip(width.tolist(), durs.tolist()):
        e = np.minimum(length, np.minimum(np.maximum(0.0, r - a), np.maximum(0.0, b - C + r)))
        need += g * np.maximum(0.0, e)
    return bool(np.any(need > N * length + 1e-9))


#: energetic reasoning is skipped beyond this many (interval, duration) pairs per candidate makespan
ENERGETIC_MAX_WORK = 5e7


def horizon_infeasible(inst: RarInstance) -> str | None:
    """Why no schedule ends within the horizon ``T``, when a solver-free bound
    proves it (the load bound, or energetic reasoning at ``C = T``), else
    ``None``.  Every RAR method then says ``infeasible`` (the family's
    ``infeasible`` hook)."""
    T = int(inst.horizon)
    lb = load_lower_bound(inst)
    if lb > T:
        return f"no schedule within the horizon T = {T}: the load bound on the makespan is {lb}"
    rho = inst.rho_range[0].astype(float)
    n = len(np.unique(rho))
    if (2 * n + 2) ** 2 / 2 * n <= ENERGETIC_MAX_WORK and energetic_infeasible(
            inst.G.astype(float), rho, inst.num_gpus, T):
        return f"no schedule within the horizon T = {T}: energetic reasoning rules out every makespan <= {T}"
    return None
