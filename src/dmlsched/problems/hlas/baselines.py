"""The HLAS paper's baselines of the online comparison (Section VI-D): "We
compare our online scheduling algorithm HLAS with four other algorithms:
FIFO, *Sched_Homo* [4], *Sched_Allo* [6], and 2D-LAS."

``fifo`` (Gavel_FIFO) and ``2d-las`` (Tiresias' 2D-LAS) are priority rules
of the shared execution model (:mod:`.policies`, :mod:`.simulator`), run by
:func:`.heuristics.run_policy` as every policy is, with the paper's
description of each as their defaults: gang-scheduled, blocking, on the
fastest idle GPUs (``models/hlas.md`` item 11).

The two offline baselines run online: "For *Sched_Homo* and *Sched_Allo*
algorithms, we use a unit job size to disable the job size information."
``sched-homo`` and ``sched-allo`` run Hare's ``homo`` and ``allox``
(``models/hare-baselines.md``: job-level, a job keeps its GPUs from its first
round to its last; Sched_Homo on a gang of randomly drawn free GPUs in
Smith's order, Sched_Allo on one GPU by min-cost matching) on the same jobs
with option ``sizes="unit"``: every estimate takes a job as one round long,
so neither uses the hidden number of rounds.  Both decide only at arrivals
and releases, over jobs that have arrived.  The schedule is returned as an
:class:`~.solution.HlasRun` and validated like every policy's run.
"""

from __future__ import annotations

from ...kit import Run, method
from ...result import Result
from .heuristics import policy_options, run_policy
from .instance import HlasInstance
from .solution import HlasRun, completion_times, metrics

FIFO = "Gavel_FIFO: arrival order, fastest idle GPUs, a round waits for its GPUs (gang, blocking)"
TWO_D_LAS = "2D-LAS (Tiresias): least attained task-GPU time first, gang, blocking, fastest idle GPUs"


@method("hlas", "fifo", kind="policy", options=policy_options(gang="block"), description=FIFO)
def run_fifo(inst: HlasInstance, run: Run) -> Result:
    """Gavel_FIFO (module docstring); options: the readings of ``models/hlas.md``, as every policy's."""
    return run_policy(inst, run, "fifo")


@method("hlas", "2d-las", kind="policy", options=policy_options(gang="block"), description=TWO_D_LAS)
def run_2dlas(inst: HlasInstance, run: Run) -> Result:
    """2D-LAS (module docstring); options: the readings of ``models/hlas.md``, as every policy's."""
    return run_policy(inst, run, "2d-las")


def _hare_baseline(inst: HlasInstance, run: Run, name: str, policy: str) -> Result:
    with run.stage("schedule"):
        res = run.delegate(name, inst.to_hare(), problem="hare", options={"sizes": "unit"})
    if res.solution is None:
        raise RuntimeError(f"hare/{name} returned no schedule ({res.status.value})")
    sol = HlasRun(gpu=res.solution.gpu, start=res.solution.start, finish=[0.0] * inst.num_jobs, policy=policy)
    sol.finish = completion_times(inst, sol)
    m = metrics(inst, sol)
    return run.result(solution=sol, avg_jct=m["avg_jct"], total_weighted_jct=m["total_weighted_jct"],
                      makespan=m["makespan"], utilisation=m["utilisation"], sizes="unit")


@method("hlas", "sched-homo", kind="policy",
        description="Sched_Homo online (Section VI-D): Hare's homo with a unit job size (random free GPUs, Smith's "
                    "order on one-round estimates, job-level non-preemption)")
def solve_sched_homo(inst: HlasInstance, run: Run) -> Result:
    """Sched_Homo with a unit job size (module docstring)."""
    return _hare_baseline(inst, run, "homo", "sched-homo")


@method("hlas", "sched-allo", kind="policy",
        description="Sched_Allo online (Section VI-D): Hare's allox with a unit job size (min-cost matching of jobs "
                    "to GPU slots on one-round estimates, one GPU per job)")
def solve_sched_allo(inst: HlasInstance, run: Run) -> Result:
    """Sched_Allo with a unit job size (module docstring)."""
    return _hare_baseline(inst, run, "allox", "sched-allo")


__all__ = ["run_2dlas", "run_fifo", "solve_sched_allo", "solve_sched_homo"]
