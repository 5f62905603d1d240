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

from ...generate._check import Args
from ...traces.common import trace_path
from ...traces.openb import POD_FILE, read_openb
from ...traces.swf import read_swf
from .instance import MoldableInstance, MoldableTask, SpeedupCurve
from .traces import openb_to_moldable, swf_to_moldable

#: non-decreasing, sublinear, s(1) = 1 (s(p)/p: 1.6, 1.5, 1.3, 1, 0.9, 0.83, 0.78)
ILLUSTRATIVE_CURVE = ((0.25, 0.4), (1 / 3, 0.5), (0.5, 0.65), (1.0, 1.0), (2.0, 1.8), (3.0, 2.5), (4.0, 3.1))


def paper_like(
    *,
    seed: int = 0,
    num_gpus: int = 12,
    num_users: int = 4,
    num_bags: int = 6,
    tasks_per_bag: tuple[int, int] = (1, 20),
    mean_volume: float = 3600.0,
    big_memory_share: float = 0.1,
    rigid: bool = False,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
) -> MoldableInstance:
    """A random instance with bag-of-task arrivals.

    Parameters
    ----------
    num_gpus
        Cluster size (each GPU has 12 units of memory, like the paper's 12 GB M40s).
    num_users, num_bags
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
    a = Args("generate.moldable.paper_like")
    gpus = a.count("num_gpus", num_gpus)
    users = a.count("num_users", num_users)
    bags = a.count("num_bags", num_bags)
    tasks_per_bag = a.int_range("tasks_per_bag", tasks_per_bag)
    mean_volume = a.number("mean_volume", mean_volume, positive=True)
    big_memory_share = a.probability("big_memory_share", big_memory_share)
    a.flag("rigid", rigid)
    preemption_overhead = a.number("preemption_overhead", preemption_overhead, minimum=0)
    preemption_min_remaining = a.number("preemption_min_remaining", preemption_min_remaining, minimum=0)
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


def _check_moldable_max(a: Args, value, words: tuple[str, ...]) -> None:
    """``moldable_max``: one of ``words`` or an integer >= 1."""
    if isinstance(value, str):
        a.choice("moldable_max", value, words)
    else:
        a.count("moldable_max", value)


#: the default SWF trace, relative to the traces folder (``dmlsched.traces.traces_dir``)
LUBLIN = ("swf", "lublin_256.swf")


@lru_cache(maxsize=4)
def _read_swf(path: str, mtime: float):
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
    num_gpus: int | None = None,
    load: float | None = None,
    num_jobs: int | None = None,
    path: str | os.PathLike | None = None,
    moldable_max: int | str = "machine",
    offline: bool = False,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
) -> MoldableInstance:
    """An SWF trace as a moldable instance, the paper's Section VI setup.

    One instance serves every policy: each task carries its requested
    processors ``p_req`` (what Rigid FCFS / Shortest allocate) and the moldable
    range ``(1, cap)`` (see :func:`dmlsched.problems.moldable.traces.swf_to_moldable`).

    Parameters
    ----------
    seed
        Unused (the trace is fixed); accepted so that suites can pass one.
    num_gpus
        Simulated cluster size.  Default: the trace's machine size, or the
        size giving ``load``.
    load
        Target offered load :func:`offered_load` (``0 < load``): the cluster
        size is ``ceil(sum v / (load * span of arrivals))``.  Give ``num_gpus`` or
        ``load``, not both.
    num_jobs
        The first ``num_jobs`` usable jobs of the trace (``None``: the whole trace,
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
    a = Args("generate.moldable.swf")
    gpus = a.optional_count("num_gpus", num_gpus)
    load = a.optional_number("load", load, positive=True)
    if gpus is not None and load is not None:
        a.fail("num_gpus", "and load: give one, not both")
    jobs = a.optional_count("num_jobs", num_jobs)
    _check_moldable_max(a, moldable_max, ("machine", "cluster"))
    a.flag("offline", offline)
    preemption_overhead = a.number("preemption_overhead", preemption_overhead, minimum=0)
    preemption_min_remaining = a.number("preemption_min_remaining", preemption_min_remaining, minimum=0)
    p = Path(path) if path is not None else trace_path(*LUBLIN)
    tr = _read_swf(str(p), p.stat().st_mtime if p.exists() else 0.0)
    G = None if gpus is None else int(gpus)
    if load is not None:
        probe = swf_to_moldable(tr, limit=jobs, moldable_max=moldable_max)
        span = float(probe.arrival.max() - probe.arrival.min()) if probe.num_tasks else 0.0
        if span <= 0:
            a.fail("load", "is undefined when all jobs arrive at once")
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


#: the paper's GPU workload (Section V-A): 77,677 tasks in 2,317 jobs of 14
#: users over six months (August 2017 - January 2018), saturating 6 GPUs (Fig. 3)
PAPER_TASKS, PAPER_JOBS, PAPER_USERS, PAPER_DAYS, PAPER_SATURATION = 77_677, 2_317, 14, 184.0, 6.0


def gpu_workload(
    *,
    seed: int = 0,
    num_gpus: int = 12,
    num_tasks: int = PAPER_TASKS,
    num_jobs: int | None = None,
    num_users: int = PAPER_USERS,
    days: float | None = None,
    saturation: float = PAPER_SATURATION,
    big_memory_share: float = 0.25,
    bag_arrivals: str = "mixed",
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
) -> MoldableInstance:
    """A synthetic workload with the statistics the paper gives for its own GPU
    trace (Section V-A; the trace is not public), at the paper's scale by default.

    * ``num_tasks`` tasks in ``num_jobs`` bags (default ``num_tasks * 2317 / 77677``,
      the paper's 33.5 tasks per job; bag sizes geometric) of ``num_users`` users,
      over ``days`` (default ``184 * num_tasks / 77677``: six months at full
      scale, the same density when smaller);
    * bag submissions uniform over the period; within a bag (``bag_arrivals``,
      a reading of "A job consists of tasks that start during or within one
      minute after finishing the execution of another task of the same user",
      Section III-C): ``"burst"`` submits a bag's tasks within minutes
      (exponential gaps of mean 30 s: they run *during* each other),
      ``"chain"`` submits each task when the previous one, run alone on one
      GPU, has finished, plus up to 60 s (one *after* the other), ``"mixed"``
      (default) draws one of the two per bag with equal odds;
    * volumes log-normal (a bag's base volume with sigma 1.2 across bags,
      +-20% within a bag), scaled so that the total volume fills
      ``saturation`` GPUs over the period ("The simulated system becomes
      saturated with six GPUs", Section V-C);
    * memory: ``big_memory_share`` of the bags need 11 of 12 GB and cannot
      share a GPU (OpenNMT-like: "usually requires more than 90% of GPU's
      device memory"), the others 2-3 GB ("around 20% of a GPU's device
      memory");
    * ``(p_min, p_max) = (1/4, 4)``, ``p_req = 1`` (Section V-B), the speedup
      :data:`ILLUSTRATIVE_CURVE` (Fig. 1 gives no numbers), GPUs with 12 GB.

    Same seed, same instance.
    """
    a = Args("generate.moldable.gpu_workload")
    gpus = a.count("num_gpus", num_gpus)
    n = a.count("num_tasks", num_tasks)
    jobs = a.optional_count("num_jobs", num_jobs, maximum=n)
    users = a.count("num_users", num_users)
    days = a.optional_number("days", days, positive=True)
    saturation = a.number("saturation", saturation, positive=True)
    big_memory_share = a.probability("big_memory_share", big_memory_share)
    a.choice("bag_arrivals", bag_arrivals, ("burst", "chain", "mixed"))
    preemption_overhead = a.number("preemption_overhead", preemption_overhead, minimum=0)
    preemption_min_remaining = a.number("preemption_min_remaining", preemption_min_remaining, minimum=0)
    rng = np.random.default_rng(seed)
    nb = jobs if jobs is not None else max(1, round(n * PAPER_JOBS / PAPER_TASKS))
    span = 86400.0 * (days if days is not None else PAPER_DAYS * n / PAPER_TASKS)
    # bag sizes: 1 + geometric, summing to n
    weights = rng.pareto(1.2, nb) + 0.05  # heavy-tailed survey sizes
    sizes = 1 + rng.multinomial(n - nb, weights / weights.sum())
    starts = np.sort(rng.uniform(0.0, span, nb))
    base = rng.lognormal(0.0, 1.2, nb)
    big = rng.random(nb) < big_memory_share
    owner = rng.integers(users, size=nb)
    chain = {"burst": np.zeros(nb, bool), "chain": np.ones(nb, bool)}.get(bag_arrivals)
    if chain is None:
        chain = rng.random(nb) < 0.5
    vol = [base[b] * rng.uniform(0.8, 1.2, int(sizes[b])) for b in range(nb)]
    scale_v = saturation * span / float(sum(x.sum() for x in vol))  # total volume fills `saturation` GPUs
    arr, mem, bag, idx = [], [], [], []
    for b in range(nb):
        m = int(sizes[b])
        vol[b] = np.maximum(vol[b] * scale_v, 1.0)
        if chain[b]:
            gaps = np.r_[0.0, vol[b][:-1] + rng.uniform(0.0, 60.0, m - 1)]
        else:
            gaps = rng.exponential(30.0, m)
            gaps[0] = 0.0
        arr.append(starts[b] + np.cumsum(gaps))
        mem.append(np.full(m, 11.0) if big[b] else rng.choice([2.0, 2.5, 3.0], m))
        bag.append(np.full(m, b))
        idx.append(np.arange(m))
    a = np.concatenate(arr)
    v = np.concatenate(vol)
    mm = np.concatenate(mem)
    bg = np.concatenate(bag)
    ix = np.concatenate(idx)
    order = np.lexsort((ix, bg, a))
    out = tuple(
        MoldableTask(id=f"b{int(bg[i])}t{int(ix[i])}", user=f"u{int(owner[bg[i]])}", arrival=round(float(a[i]), 3),
                     volume=round(float(v[i]), 3), pmin_den=4, p_max=min(4, int(gpus)), memory=float(mm[i]), p_req=1)
        for i in order
    )
    return MoldableInstance(
        gpus=int(gpus), gpu_memory=12.0, speedup=SpeedupCurve(ILLUSTRATIVE_CURVE), tasks=out,
        preemption_overhead=preemption_overhead, preemption_min_remaining=preemption_min_remaining,
        name=(f"gpu-workload-{n}t-g{int(gpus)}-s{seed}" + ("" if bag_arrivals == "mixed" else f"-{bag_arrivals}")
              + (f"-pmp{preemption_overhead:g}" if preemption_overhead else "")),
    )


def openb(
    *,
    seed: int = 0,
    num_gpus: int | None = None,
    moldable_max: int | None = 4,
    drop_failed: bool = False,
    path: str | os.PathLike | None = None,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
) -> MoldableInstance:
    """The Alibaba openb GPU pods (``alibaba-openb/`` in the traces folder) as a
    moldable instance (:func:`dmlsched.problems.moldable.traces.openb_to_moldable`): every pod
    keeps its request ``p_req`` for the rigid policies, and ``moldable_max``
    (default 4, like the paper's ``p_max = 4`` for its own GPU trace) widens
    the moldable range.  ``num_gpus`` defaults to the peak recorded demand (66).
    ``seed`` is unused (the trace is fixed)."""
    a = Args("generate.moldable.openb")
    gpus = a.optional_count("num_gpus", num_gpus)
    if moldable_max is not None:
        moldable_max = a.count("moldable_max", moldable_max)
    a.flag("drop_failed", drop_failed)
    preemption_overhead = a.number("preemption_overhead", preemption_overhead, minimum=0)
    preemption_min_remaining = a.number("preemption_min_remaining", preemption_min_remaining, minimum=0)

    p = Path(path) if path is not None else trace_path("alibaba-openb", POD_FILE)
    tr = _read_openb(str(p), p.stat().st_mtime if p.exists() else 0.0)
    inst = openb_to_moldable(tr, gpus=gpus, moldable_max=moldable_max, drop_failed=drop_failed,
                             preemption_overhead=preemption_overhead,
                             preemption_min_remaining=preemption_min_remaining)
    parts = ["openb", f"{inst.gpus}gpus"] + ([f"max{moldable_max}"] if moldable_max else []) + \
        (["nofailed"] if drop_failed else [])
    return inst.with_tasks(inst.tasks, name="-".join(parts))


@lru_cache(maxsize=2)
def _read_openb(path: str, mtime: float):
    return read_openb(path)


def batch(
    *,
    seed: int = 0,
    num_gpus: int = 4,
    num_tasks: int = 6,
    max_volume: int = 20,
    p_min: int = 4,
    arrivals: str = "batch",
) -> MoldableInstance:
    """Small instances close to the setting of the competitive-ratio results
    the paper quotes (Section VII-A, ``proofs/equipartition.md``): linear
    speedup up to the whole cluster (``p_max = |G|``), the finest share
    ``1/p_min``, no device-memory limit, free preemption (overhead 0,
    threshold 0), integer volumes in ``[1, max_volume]``.

    ``arrivals="batch"``: every task at time 0 (Deng et al.'s setting);
    ``"online"``: integer arrivals spread over about the total work / |G|.
    """
    a = Args("generate.moldable.batch")
    a.choice("arrivals", arrivals, ("batch", "online"))
    tasks = a.count("num_tasks", num_tasks)
    gpus = a.count("num_gpus", num_gpus)
    max_volume = a.count("max_volume", max_volume)
    p_min = a.count("p_min", p_min)
    rng = np.random.default_rng(seed)
    vols = rng.integers(1, int(max_volume) + 1, int(tasks)).astype(float)
    horizon = max(1, int(vols.sum() / gpus))
    arr = (np.zeros(int(tasks)) if arrivals == "batch"
           else np.sort(rng.integers(0, horizon + 1, int(tasks))).astype(float))
    ts = tuple(MoldableTask(id=f"t{k}", user=f"u{k}", arrival=float(arr[k]), volume=float(vols[k]),
                            pmin_den=int(p_min), p_max=int(gpus), memory=0.0) for k in range(int(tasks)))
    return MoldableInstance(gpus=int(gpus), gpu_memory=1.0, speedup=SpeedupCurve.linear(int(gpus)), tasks=ts,
                            preemption_overhead=0.0, preemption_min_remaining=0.0,
                            name=f"{arrivals}-g{gpus}-n{tasks}-s{seed}")


__all__ = [
    "ILLUSTRATIVE_CURVE", "LUBLIN", "batch", "gpu_workload", "offered_load", "openb", "paper_like",
    "swf",
]
