"""The bound SJF-BCO claims (Theorem 5) and simple valid lower bounds.

Theorem 5: Algorithm 1 is ``n_g * phi * u / l``-approximate, with

* ``n_g = max_j G_j``;
* ``phi = max_j max_{k1,k2} rho_j(y^k1) / rho_j(y^k2)``: the worst ratio of a
  job's execution times (slots from start to completion) over schedules.  We
  compute it over the range of (8): ``rho_max_j / rho_min_j`` where
  ``rho_min_j`` uses the smallest possible ``tau_j`` (one server with
  ``b^i`` if the job fits on a server, else the fewest servers with no other
  contender) and ``rho_max_j`` the largest (``min(G_j, S)`` servers and
  ``p_j = min(max_s O_s, #jobs with G >= 2)``), see
  :attr:`RarInstance.rho_range`.  This is an upper bound on the paper's phi
  (the extremes need not be attainable together), so the claimed ratio we
  check is never smaller than the paper's.
* ``l, u``: ``rho_hat_j in [l rho_j, u rho_j]`` for every schedule.  Our
  estimate is ``rho_hat_j = rho_min_j`` (the smallest possible value, so that
  ``rho_hat/u`` never exceeds the true time and ILP (14)-(16) gives a valid
  lower bound), hence ``u = max_j rho_hat_j / rho_min_j = 1`` and
  ``l = min_j rho_hat_j / rho_max_j = min_j rho_min_j / rho_max_j``.

See ``proofs/rar-theorem-5.md``: the theorem is false (counterexample in
``instances/counterexamples/rar-theorem5-lemma4.json``).
"""

from __future__ import annotations

import numpy as np

from .instance import RarInstance


def rho_hat(inst: RarInstance) -> np.ndarray:
    """The execution-time estimate used by SJF-BCO and the ILP bound: ``rho_min_j``."""
    return inst.rho_range[0].copy()


def phi(inst: RarInstance) -> float:
    """``phi = max_j rho_max_j / rho_min_j`` (Lemma 4)."""
    lo, hi = inst.rho_range
    return float(np.max(hi / lo))


def l_u(inst: RarInstance) -> tuple[float, float]:
    """``(l, u)`` with ``rho_hat_j in [l rho_j, u rho_j]`` for every schedule."""
    lo, hi = inst.rho_range
    est = rho_hat(inst)
    return float(np.min(est / hi)), float(np.max(est / lo))


def theorem5_ratio(inst: RarInstance) -> float:
    """The claimed approximation ratio ``n_g * phi * u / l`` of SJF-BCO."""
    l, u = l_u(inst)
    return float(inst.n_g * phi(inst) * u / l)


def load_lower_bound(inst: RarInstance) -> int:
    """A solver-free lower bound on the makespan.

    ``max(max_j rho_min_j, ceil(sum_j G_j rho_min_j / N))``: every job runs at
    least ``rho_min_j`` slots on ``G_j`` GPUs, and the ``N`` GPUs share the work.
    """
    lo = inst.rho_range[0]
    work = int(np.dot(inst.G, lo))
    return int(max(int(lo.max()), -(-work // inst.num_gpus)))
