"""The HLAS paper's two offline baselines run online (Section VI-D):
"For *Sched_Homo* and *Sched_Allo* algorithms, we use a unit job size to
disable the job size information."

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
from .instance import HlasInstance
from .solution import HlasRun, completion_times, metrics


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


__all__ = ["solve_sched_allo", "solve_sched_homo"]
