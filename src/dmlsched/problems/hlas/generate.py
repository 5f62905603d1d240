"""Instances reproducing the HLAS paper's simulation setup (Section VI-A, Table II).

Eight job types in four domains, 25% of the jobs per domain (uniform over the
domain's models); GPU types V100, T4, K80 and M60 with per-model speedups;
Poisson arrivals; everything drawn from one ``numpy.random.Generator(seed)``.

What the paper does not give, and what we chose (also in ``models/hlas.md``):

* *Per-batch times.*  Table III gives Hare's switching time and its share of
  the task time; their ratio is the task time (e.g. VGG-19: 2.77 ms / 1.82% =
  152 ms).  We take it as the V100 training time ``T^c``.
* *Speedups over K80.*  Fig. 1 is not in the text; the text says ResNet50 runs
  7x faster on V100 and 2x on T4, GraphSAGE about 2x on V100.  The other
  entries of :data:`JOB_TYPES` are our assumptions of the same shape
  (compute-heavy CV/NLP models gain most, graph models least).
* *Synchronisation.*  Network-bound, so equal on every GPU type: 20% of the
  V100 training time, keeping the paper's assumption ``T^s < T^c``.
* *Sizes* (option ``sizes``, a reading of Section IV-B / Figs. 7-8, see
  ``models/hlas.md`` "Readings of the setup").  ``"pareto"`` (default): rounds
  from a bounded Pareto distribution with shape ``pareto_shape`` (default 1)
  on ``rounds`` (default 10..1000), rounded down: many small jobs and a few
  large ones holding most of the GPU time, as the paper's trace ("many jobs
  are small and a few large jobs occupy the most of GPU times, which fits the
  features of heavy-tailed distribution").  ``"uniform"``: rounds uniform on
  ``rounds`` (the earlier reading, with ``rounds=(10, 100)``).  Tasks per
  round uniform in ``tasks_per_round`` (default {8, 16, 32}; the paper gives
  no number: with {2, 4, 8} a job uses at most 8 of 160 GPUs, 200 jobs hardly
  contend, and even clairvoyant SRTF is at most 1.58x ahead of FIFO (every
  job arriving at once), so no policy could show the paper's 1.69x-2.04x;
  ``models/hlas.md`` item 14).
* *Arrivals.*  Poisson; the rate is ``arrival_rate`` or, by default, the one
  that makes the offered load ``load``: rate x mean job work, where a job's
  work is ``rounds x tasks_per_round / sum_m 1/(T^c_m + T^s_m)``, the time the
  whole cluster would need for it at full speed (load 1 saturates an ideal
  cluster).  Default 3: the jobs arrive faster than the cluster serves them,
  so "the average JCT grows as the number of jobs increases" (Fig. 23).
  ``load_gpus``: compute the load for a cluster of that many GPUs (same
  mix) instead of ``num_gpus``, so that one seed gives the same arrivals on
  clusters of different sizes (Fig. 22).
* *Queues.*  ``K = num_queues`` MLFQ queues with geometric thresholds
  ``[0, b, 4b, 16b, ...]``, ``b = queue_base`` x the median one-round size
  ``T̄_n`` (so a job leaves ``Q_1`` after about ``queue_base`` rounds).
* *Predictions* (``predictions="conservative"``): ``predicted_rounds =
  floor(U(0.5, 1) * rounds)``, never more than the truth, as the paper's
  conservative predictor intends.
"""

from __future__ import annotations

import math

import numpy as np

from ...generate._check import Args
from ..gpugrouping import GroupingInstance, from_hlas
from ..hare.generate import DOMAINS, GPU_TYPES, JOB_TYPES, job_times
from .instance import HlasInstance, HlasJob

#: readings of the job-size distribution (Section IV-B, Figs. 7-8)
SIZE_READINGS = ("pareto", "uniform")


def bounded_pareto(rng: np.random.Generator, low: int, high: int, shape: float, size: int) -> np.ndarray:
    """Integers ``floor(X)`` of a bounded Pareto ``X`` on ``[low, high + 1)`` (inverse CDF),
    so every value is in ``low..high``."""
    u = rng.uniform(0.0, 1.0, size=size)
    lo, hi = float(low), float(high) + 1.0
    x = lo / (1.0 - u * (1.0 - (lo / hi) ** shape)) ** (1.0 / shape)
    return np.clip(np.floor(x), low, high).astype(np.int64)


def _cluster(num_gpus: int, types: list[str], share: np.ndarray) -> tuple[str, ...]:
    """``num_gpus`` GPUs of ``types`` in proportion to ``share`` (largest remainders)."""
    counts = np.floor(share / share.sum() * num_gpus).astype(int)
    for i in np.argsort(-(share / share.sum() * num_gpus - counts), kind="stable")[: num_gpus - counts.sum()]:
        counts[i] += 1
    return tuple(g for g, c in zip(types, counts) for _ in range(c))


def generate(
    *,
    seed: int = 0,
    num_jobs: int = 200,
    num_gpus: int = 160,
    num_groups: int | None = 40,
    gpu_mix: dict[str, float] | None = None,
    domain_mix: dict[str, float] | None = None,
    rounds: tuple[int, int] = (10, 1000),
    sizes: str = "pareto",
    pareto_shape: float = 1.0,
    tasks_per_round: tuple[int, ...] = (8, 16, 32),
    load: float = 3.0,
    load_gpus: int | None = None,
    arrival_rate: float | None = None,
    num_queues: int = 5,
    queue_base: float = 5.0,
    predictions: str = "none",
    time_grid: float | None = None,
    name: str | None = None,
) -> HlasInstance:
    """A seeded HLAS instance of the paper's simulation setup (see the module docstring).

    Parameters
    ----------
    num_jobs, num_gpus
        Sizes (the paper: 100-300 jobs on 160 GPUs).
    seed
        Seed of every random draw (same seed, same instance).
    num_groups
        Number of GPU groups (``None``: one per GPU).
    gpu_mix
        Share of each GPU type (default equal shares of V100, T4, K80, M60).
    domain_mix
        Share of each domain (default 25% each).
    rounds
        Inclusive range of rounds per job.
    sizes, pareto_shape
        Distribution of the rounds: ``"pareto"`` (bounded Pareto with shape
        ``pareto_shape``) or ``"uniform"``.
    load, arrival_rate, load_gpus
        Offered load (for a cluster of ``load_gpus`` GPUs, default
        ``num_gpus``), or an explicit Poisson rate (jobs per second).
    predictions
        ``"none"`` or ``"conservative"``.
    time_grid
        Round every arrival, training and synchronisation time to a multiple
        of this (seconds; training times at least one grid step), so that
        the offline optimum's integer time scale is exact (``models/hlas.md``).
    """
    a = Args("generate.hlas.generate")
    num_jobs = a.count("num_jobs", num_jobs)
    num_gpus = a.count("num_gpus", num_gpus)
    groups = a.optional_count("num_groups", num_groups, maximum=num_gpus)
    a.choice("sizes", sizes, SIZE_READINGS)
    rounds = a.int_range("rounds", rounds)
    a.number("pareto_shape", pareto_shape, positive=True)
    tasks_per_round = a.counts("tasks_per_round", tasks_per_round)
    a.choice("predictions", predictions, ("none", "conservative"))
    load = a.number("load", load, positive=True)
    load_gpus = a.optional_count("load_gpus", load_gpus)
    arrival_rate = a.optional_number("arrival_rate", arrival_rate, positive=True)
    num_queues = a.count("num_queues", num_queues)
    queue_base = a.number("queue_base", queue_base, positive=True)
    time_grid = a.optional_number("time_grid", time_grid, positive=True)
    if gpu_mix is not None:
        gpu_mix = a.shares("gpu_mix", gpu_mix, keys=GPU_TYPES)
    if domain_mix is not None:
        domain_mix = a.shares("domain_mix", domain_mix, keys=DOMAINS)
    rng = np.random.default_rng(seed)
    mix = gpu_mix or {g: 0.25 for g in GPU_TYPES}
    types = list(mix)
    share = np.array([mix[g] for g in types], dtype=float)
    gpus = _cluster(num_gpus, types, share)
    dmix = domain_mix or {d: 0.25 for d in DOMAINS}
    dnames = list(dmix)
    dprob = np.array([dmix[d] for d in dnames], dtype=float)
    dprob /= dprob.sum()
    by_domain = {d: [m for m, (dd, _, _) in JOB_TYPES.items() if dd == d] for d in DOMAINS}
    doms = rng.choice(len(dnames), size=num_jobs, p=dprob)
    models = [by_domain[dnames[d]][int(rng.integers(len(by_domain[dnames[d]])))] for d in doms]
    if sizes == "uniform":
        nrounds = rng.integers(rounds[0], rounds[1] + 1, size=num_jobs)
    else:
        nrounds = bounded_pareto(rng, rounds[0], rounds[1], pareto_shape, num_jobs)
    tpr = rng.choice(np.array(tasks_per_round), size=num_jobs)
    frac = rng.uniform(0.5, 1.0, size=num_jobs)
    gaps = rng.exponential(1.0, size=num_jobs)
    times = {m: job_times(m) for m in JOB_TYPES}
    # a job's work in seconds of the whole cluster: rounds x tasks / sum_m s_{n,m}
    ref_gpus = gpus if load_gpus is None else _cluster(load_gpus, types, share)
    speed_sum = {m: sum(1.0 / (times[m][0][g] + times[m][1][g]) for g in ref_gpus) for m in JOB_TYPES}
    work = np.array([nrounds[i] * tpr[i] / speed_sum[models[i]] for i in range(num_jobs)])
    rate = arrival_rate if arrival_rate is not None else load / float(work.mean())
    arrivals = np.cumsum(gaps / rate)
    arrivals -= arrivals[0]  # first job at time 0
    if time_grid is not None:
        grid = float(time_grid)

        def snap(v: float, least: float = 0.0) -> float:
            return max(least, round(round(v / grid) * grid, 12))

        times = {m: ({g: snap(t, grid) for g, t in tr.items()}, {g: snap(t) for g, t in sy.items()})
                 for m, (tr, sy) in times.items()}
        arrivals = np.array([snap(a) for a in arrivals])
    jobs = []
    present = set(gpus)  # a job's times name the cluster's types only (another type would read as a typo)
    for i in range(num_jobs):
        tr, sy = times[models[i]]
        jobs.append(HlasJob(
            id=f"j{i}-{models[i]}", arrival=float(arrivals[i]), rounds=int(nrounds[i]),
            tasks_per_round=int(tpr[i]), train_time={g: t for g, t in tr.items() if g in present},
            sync_time={g: t for g, t in sy.items() if g in present},
            predicted_rounds=int(math.floor(frac[i] * nrounds[i])) if predictions == "conservative" else None,
        ))
    u = num_gpus if groups is None else groups
    one_round = sorted(
        j.tasks_per_round * u / sum(1.0 / (j.train_time[g] + j.sync_time[g]) for g in gpus) for j in jobs
    )[num_jobs // 2]
    b = queue_base * one_round
    lows = [0.0] + [b * 4.0 ** k for k in range(num_queues - 1)]
    queues = tuple((lows[k], lows[k + 1] if k + 1 < len(lows) else math.inf) for k in range(len(lows)))
    return HlasInstance(gpus=gpus, jobs=tuple(jobs), queues=queues, groups=groups,
                        name=name or f"hlas-gen-{num_jobs}j-{num_gpus}g-s{seed}")


def paper_grouping(*, seed: int = 0, num_gpus: int = 60, num_groups: int = 10,
                   gpu_mix: dict[str, float] | None = None, num_jobs: int = 40,
                   name: str | None = None) -> GroupingInstance:
    """The GPU_Grouping instance HLAS solves on the paper's setup: the speeds of
    :func:`generate`'s jobs (8 job types of Table II) on ``num_gpus`` GPUs of the
    four types in ``gpu_mix`` (default equal shares), ``num_groups`` groups."""
    a = Args("generate.hlas.paper_grouping")
    num_gpus = a.count("num_gpus", num_gpus)
    groups = a.count("num_groups", num_groups, maximum=num_gpus)
    num_jobs = a.count("num_jobs", num_jobs)
    inst = from_hlas(generate(num_jobs=num_jobs, num_gpus=num_gpus, seed=seed, num_groups=groups, gpu_mix=gpu_mix),
                     groups)
    mix = "-".join(f"{k}{v:g}" for k, v in (gpu_mix or {}).items()) or "equal"
    return type(inst)(speeds=inst.speeds, groups=inst.groups,
                      name=name or f"grouping-paper-{num_gpus}g-{groups}u-{mix}-s{seed}")


__all__ = [
    "DOMAINS", "GPU_TYPES", "JOB_TYPES", "SIZE_READINGS", "bounded_pareto", "generate",
    "job_times", "paper_grouping",
]
