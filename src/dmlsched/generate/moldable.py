"""Setups of Fujiwara et al.'s evaluation: a synthetic GPU workload and SWF traces.

* :func:`swf` — a Standard Workload Format trace (default: the Lublin trace
  of the shared traces folder) as in Section VI, at a given cluster size or
  offered load;
* :func:`paper_like` — synthetic instances in the spirit of the paper's own
  GPU workload (Section V-A).

The paper's GPU trace is not public; :func:`paper_like` reproduces its *structure*:
a few users submitting bags of tasks (parameter surveys) with occasional idle
periods, most tasks using ~20% of the device memory and a minority (the
OpenNMT-like tasks) needing more than 90% of it, moldable range
``(p_min, p_max) = (1/4, 4)`` and a sublinear speedup curve.  The curve
:data:`ILLUSTRATIVE_CURVE` is illustrative (the paper plots its measured
curves in Fig. 1 without giving numbers).  Same seed, same instance.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve

#: non-decreasing, sublinear, s(1) = 1 (s(p)/p: 1.6, 1.5, 1.3, 1, 0.9, 0.83, 0.78)
ILLUSTRATIVE_CURVE = ((0.25, 0.4), (1 / 3, 0.5), (0.5, 0.65), (1.0, 1.0), (2.0, 1.8), (3.0, 2.5), (4.0, 3.1))


def paper_like(
    *,
    gpus: int = 12,
    users: int = 4,
    bags: int = 6,
    tasks_per_bag: tuple[int, int] = (1, 20),
    mean_volume: float = 3600.0,
    big_memory_share: float = 0.1,
    rigid: bool = False,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
    seed: int = 0,
) -> MoldableInstance:
    """A random instance with bag-of-task arrivals.

    Parameters
    ----------
    gpus
        Cluster size (each GPU has 12 units of memory, like the paper's 12 GB M40s).
    users, bags
        Number of users and of bags (a bag = one user's parameter survey).
    tasks_per_bag
        Inclusive range of tasks per bag.
    mean_volume
        Mean task volume in seconds (log-normal, sigma 1).
    big_memory_share
        Fraction of bags whose tasks need 11 of 12 memory units (cannot share).
    rigid
        ``(p_min, p_max) = (1, 1)`` (the paper's rigid baseline) instead of
        ``(1/4, 4)``.  Not needed to run the rigid policies: every task
        requests ``p_req = 1`` GPU, which Rigid FCFS / Shortest allocate.
    seed
        Seed of the generator (``numpy.random.default_rng``).
    """
    rng = np.random.default_rng(seed)
    p_max = 1 if rigid else min(4, gpus)
    den = 1 if rigid else 4
    tasks: list[MoldableTask] = []
    t = 0.0
    for b in range(bags):
        t += float(rng.exponential(mean_volume))  # idle gap between surveys
        user = f"u{int(rng.integers(users))}"
        n = int(rng.integers(tasks_per_bag[0], tasks_per_bag[1] + 1))
        mem = 11.0 if rng.random() < big_memory_share else float(rng.choice([2.0, 2.5, 3.0]))
        base = float(rng.lognormal(np.log(mean_volume) - 0.5, 1.0))
        for i in range(n):
            arrival = t + float(rng.exponential(30.0)) * i  # a bag arrives within minutes
            vol = max(60.0, base * float(rng.uniform(0.8, 1.25)))
            tasks.append(
                MoldableTask(
                    id=f"b{b}t{i}", user=user, arrival=round(arrival, 3), volume=round(vol, 3),
                    pmin_den=den, p_max=p_max, memory=mem, p_req=1,
                )
            )
    return MoldableInstance(
        gpus=gpus,
        gpu_memory=12.0,
        speedup=SpeedupCurve(ILLUSTRATIVE_CURVE),
        tasks=tuple(tasks),
        preemption_overhead=preemption_overhead,
        preemption_min_remaining=preemption_min_remaining,
        name=f"paper-like-g{gpus}-s{seed}{'-rigid' if rigid else ''}",
    )


#: the default SWF trace, relative to the traces folder (``dmlsched.traces.traces_dir``)
LUBLIN = ("swf", "lublin_256.swf")


@lru_cache(maxsize=4)
def _read_swf(path: str, mtime: float):
    from ..traces.swf import read_swf

    return read_swf(path)


def offered_load(inst: MoldableInstance) -> float:
    """``rho = sum_k v_k / (|G| (max_k a_k - min_k a_k))``: the utilisation the
    cluster would have if all the work were done while tasks arrive (the
    paper's ``u`` of Section III-C with completions replaced by arrivals).
    ``inf`` when all tasks arrive at once."""
    if inst.num_tasks == 0:
        return 0.0
    span = float(inst.arrival.max() - inst.arrival.min())
    return float(inst.volume.sum()) / (inst.gpus * span) if span > 0 else math.inf


def swf(
    *,
    seed: int = 0,
    gpus: int | None = None,
    load: float | None = None,
    jobs: int | None = None,
    path: str | os.PathLike | None = None,
    moldable_max: int | str = "machine",
    offline: bool = False,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
) -> MoldableInstance:
    """An SWF trace as a moldable instance, the paper's Section VI setup.

    One instance serves every policy: each task carries its requested
    processors ``p_req`` (what Rigid FCFS / Shortest allocate) and the moldable
    range ``(1, cap)`` (see :func:`dmlsched.traces.swf_to_moldable`).

    Parameters
    ----------
    seed
        Unused (the trace is fixed); accepted so that suites can pass one.
    gpus
        Simulated cluster size.  Default: the trace's machine size, or the
        size giving ``load``.
    load
        Target offered load :func:`offered_load` (``0 < load``): the cluster
        size is ``ceil(sum v / (load * span of arrivals))``.  Give ``gpus`` or
        ``load``, not both.
    jobs
        The first ``jobs`` usable jobs of the trace (``None``: the whole trace,
        the paper's scale).
    path
        The SWF file (default: ``swf/lublin_256.swf`` in the traces folder).
    moldable_max
        ``"machine"`` (default; the paper's ``p_max = 240`` for HPC2N is the
        machine size, so 256 for Lublin, for every simulated size),
        ``"cluster"`` (``p_max = |G|``) or an integer.
    offline
        All tasks arrive at time 0 (Section VI-B).
    preemption_overhead, preemption_min_remaining
        ``t^pmp`` and the 300 s threshold (Section V-B).
    """
    from ..traces.common import trace_path
    from ..traces.swf import swf_to_moldable

    if gpus is not None and load is not None:
        raise ValueError("swf: give gpus or load, not both")
    if gpus is not None and (isinstance(gpus, bool) or int(gpus) != gpus or gpus < 1):
        raise ValueError(f"swf: gpus must be an integer >= 1, got {gpus!r}")
    if load is not None and not (isinstance(load, (int, float)) and math.isfinite(load) and load > 0):
        raise ValueError(f"swf: load must be a number > 0, got {load!r}")
    if jobs is not None and (isinstance(jobs, bool) or int(jobs) != jobs or jobs < 1):
        raise ValueError(f"swf: jobs must be an integer >= 1, got {jobs!r}")
    p = Path(path) if path is not None else trace_path(*LUBLIN)
    tr = _read_swf(str(p), p.stat().st_mtime if p.exists() else 0.0)
    G = None if gpus is None else int(gpus)
    if load is not None:
        probe = swf_to_moldable(tr, limit=jobs, moldable_max=moldable_max)
        span = float(probe.arrival.max() - probe.arrival.min()) if probe.num_tasks else 0.0
        if span <= 0:
            raise ValueError("swf: load is undefined when all jobs arrive at once")
        G = max(1, math.ceil(float(probe.volume.sum()) / (float(load) * span)))
    inst = swf_to_moldable(
        tr, gpus=G, mode="moldable", moldable_max=moldable_max, limit=jobs, offline=offline,
        preemption_overhead=preemption_overhead, preemption_min_remaining=preemption_min_remaining,
    )
    stem = p.stem
    parts = [stem, f"{inst.num_tasks}jobs", f"{inst.gpus}gpus"]
    if load is not None:
        parts.append(f"load{load:g}")
    if moldable_max != "machine":
        parts.append(f"max{moldable_max}")
    if offline:
        parts.append("offline")
    if preemption_overhead:
        parts.append(f"pmp{preemption_overhead:g}")
    return inst.with_tasks(inst.tasks, name="-".join(parts),
                           source={**(inst.source or {}), "offered_load": offered_load(inst)})


__all__ = ["ILLUSTRATIVE_CURVE", "LUBLIN", "offered_load", "paper_like", "swf"]
