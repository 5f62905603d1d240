"""Bounds: the ratio the paper quotes, and a lower bound on the total flow time
of every schedule, preemptive ones included (method ``preemptive-lb``).

The lower bound (proof in ``proofs/equipartition.md`` section 6):

* **Area.**  A task at amount ``p >= p_min`` uses ``p`` processors and
  progresses at ``s(p)``; since ``s(p)/p`` is non-increasing, its progress
  per processor is at most ``s(p_min)/p_min``, so completing it takes at least
  the area ``A_k = v_k p_min / s(p_min)`` of processor-time.  At every
  instant the amounts of all running tasks sum to at most ``|G|`` (shares of
  a GPU sum to at most 1, a dedicated GPU counts 1).  Any schedule therefore
  induces a schedule of one machine of speed ``|G|`` on which job ``k``,
  released at ``a_k`` with size ``A_k``, completes no later than task ``k``;
  on one machine, SRPT completes at least as many jobs as any schedule by
  every time ``t`` (Schrage 1968), so the ``i``-th smallest completion time of
  any schedule is at least SRPT's ``i``-th, ``c_(i)``.
* **Speed.**  Task ``k`` cannot finish before ``e_k = a_k + v_k / s(p_max)``
  (the fastest it can run, without overhead), so the ``i``-th smallest
  completion time is at least ``e_(i)``, the ``i``-th smallest of the ``e_k``.

Hence ``sum_k C_k >= sum_i max(c_(i), e_(i))`` and
``LB = sum_i max(c_(i), e_(i)) - sum_k a_k``.  Nothing in the argument uses
the absence of preemption, migration or its overhead: the bound holds for the
malleable policies' schedules and for the optimum over all schedules.
"""

from __future__ import annotations

import heapq

import numpy as np

from ...kit import Run, method
from ...result import Result
from .instance import MoldableInstance


def edmonds_ratio(inst: MoldableInstance) -> float:
    """2: the competitive ratio of Equipartition for total (average) flow time
    that the paper attributes to Edmonds [9] (Section VII-A).

    The paper quotes it without Edmonds' assumptions (continuously divisible
    processors, preemption at no cost, speed augmentation for arbitrary
    arrivals); ``proofs/equipartition.md`` states them and records instances
    of this family on which the ratio exceeds 2.
    """
    return 2.0


def srpt_completions(release: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Completion times of preemptive SRPT on one machine of speed 1, sorted.

    Ties (equal remaining sizes) are broken by index; the sorted vector of
    completion times does not depend on the tie rule.
    """
    n = int(release.shape[0])
    order = np.lexsort((np.arange(n), release))
    out = np.empty(n)
    heap: list[tuple[float, int]] = []
    t = 0.0
    i = 0
    done = 0
    while done < n:
        if not heap:
            k = int(order[i])
            t = max(t, float(release[k]))
        while i < n and float(release[order[i]]) <= t:
            k = int(order[i])
            heapq.heappush(heap, (float(size[k]), k))
            i += 1
        rem, k = heapq.heappop(heap)
        nxt = float(release[order[i]]) if i < n else np.inf
        if t + rem <= nxt:
            t += rem
            out[done] = t
            done += 1
        else:
            heapq.heappush(heap, (rem - (nxt - t), k))
            t = nxt
    return np.sort(out)


def preemptive_lower_bound(inst: MoldableInstance) -> float:
    """``sum_i max(c_(i), e_(i)) - sum_k a_k`` (module docstring): a lower
    bound on the total flow time of every schedule, preemptive or not."""
    if inst.num_tasks == 0:
        return 0.0
    sp = inst.speedup
    pmin = 1.0 / inst.pmin_den.astype(float)
    eff = np.array([sp.speed(float(p)) for p in pmin]) / pmin  # progress per processor at p_min
    area = inst.volume / eff
    c = srpt_completions(inst.arrival, area / inst.gpus)
    fastest = np.array([sp.speed(float(p)) for p in inst.p_max.astype(float)])
    e = np.sort(inst.arrival + inst.volume / fastest)
    return float(np.maximum(c, e).sum() - inst.arrival.sum())


def trivial_lower_bound(inst: MoldableInstance) -> float:
    """``sum_k v_k / s(p_max_k)``: every task's fastest run (the speed part alone)."""
    fastest = np.array([inst.speedup.speed(float(p)) for p in inst.p_max.astype(float)])
    return float((inst.volume / fastest).sum())


@method(
    "moldable",
    "preemptive-lb",
    kind="bound",
    description="lower bound on the total flow time of every schedule (preemptive included): "
    "SRPT on the pooled processor area combined with each task's fastest run",
)
def preemptive_lb(inst: MoldableInstance, run: Run) -> Result:
    """The bound of :func:`preemptive_lower_bound` (proof in ``proofs/equipartition.md`` section 6)."""
    with run.stage("bound"):
        lb = preemptive_lower_bound(inst)
    return run.result(bound=lb, trivial=trivial_lower_bound(inst), whole_space_bound=lb)
