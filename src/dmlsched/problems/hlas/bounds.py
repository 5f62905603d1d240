"""A proven lower bound on every schedule of an HLAS instance (method
``lower-bound``, kind ``bound``): the ceiling the claims put beside every
comparison.  The paper proves no bound for HLAS; this one is ours.

**Contention-free bound.**  A round of job ``n`` ends when each of its
``K_n`` tasks has trained and synchronised (Hare's (7)); ``j`` tasks on GPU
``m`` end no earlier than ``j T^c_{n,m} + T^s_{n,m}`` after the round starts
(training does not overlap on a GPU, (8); the synchronisation of the last one
follows it).  So a round lasts at least ``rho_n = min over splits of max_m
(j_m T^c_{n,m} + T^s_{n,m})``, the split of ``K_n`` tasks over all GPUs of
the cluster with the job alone on it; the greedy split (each task to the GPU
where it would end first) attains that minimum, since each GPU's end is
increasing in its count (exchange argument).  Rounds of a job run one after
the other (the barrier), so ``C_n - a_n >= R_n rho_n`` and the average JCT
of every schedule is at least ``mean_n R_n rho_n``.  It uses the jobs' true
rounds: it bounds clairvoyant schedules too.
"""

from __future__ import annotations

import heapq

from ...kit import Run, method
from ...result import Result
from .instance import HlasInstance


def round_time_bound(inst: HlasInstance, n: int) -> float:
    """``rho_n``: the shortest one round of job ``n`` can take, alone on the whole cluster."""
    j = inst.jobs[n]
    tc = [j.train_time[g] for g in inst.gpus]
    ts = [j.sync_time[g] for g in inst.gpus]
    heap = [(tc[m] + ts[m], m, 1) for m in range(len(tc))]
    heapq.heapify(heap)
    end = 0.0
    for _ in range(j.tasks_per_round):
        e, m, c = heapq.heappop(heap)
        end = max(end, e)
        heapq.heappush(heap, ((c + 1) * tc[m] + ts[m], m, c + 1))
    return end


def contention_free_bound(inst: HlasInstance) -> float:
    """``mean_n R_n rho_n``: a lower bound on the average JCT of every schedule."""
    return sum(j.rounds * round_time_bound(inst, n) for n, j in enumerate(inst.jobs)) / inst.num_jobs


@method("hlas", "lower-bound", kind="bound",
        description="contention-free lower bound on the average JCT of every schedule: each job's rounds back to "
                    "back, each round alone on the whole cluster (bounds.py)")
def solve_lower_bound(inst: HlasInstance, run: Run) -> Result:
    """:func:`contention_free_bound` as a bound method."""
    return run.result(bound=contention_free_bound(inst), bound_name="contention-free")


__all__ = ["contention_free_bound", "round_time_bound", "solve_lower_bound"]
