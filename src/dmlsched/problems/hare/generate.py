"""Seeded instances of Hare's evaluation setup (HPDC'22, Section 7.1) and its
simulation (Section 7.3).

What the paper gives and what we chose (``models/hare-baselines.md``,
"Setups"):

* *Jobs* (Section 7.1, Table 2): the 8 models in 4 domains, "each type of jobs
  accounts for 25% of the total workload" (a domain drawn uniformly, then a
  model of the domain); per-GPU-type training and synchronisation times of
  :func:`job_times` (the tables of the same authors' follow-up, HLAS, which uses
  the same models and GPU types V100, T4, K80, M60; its setups import them from here).  Rounds and tasks per
  round are not given: uniform on ``rounds`` (default 2..5) and on
  ``tasks_per_round`` (default {1, 2, 4}); weights uniform in
  ``weights`` (default {1, 2, 3}).
* *Testbed* (Section 7.1): "15 heterogeneous GPUs (8 V100s, 4 T4s, 1 K80, and
  2 M60s)": :data:`TESTBED`, listed in that order.
* *Simulation* (Section 7.3): 200 jobs on 160 GPUs by default; heterogeneity
  levels "For the low heterogeneity level, we only choose V100 GPUs ... the
  combination of (V100xK80) GPUs as the middle heterogeneity level while
  selecting the combination of (V100xT4xK80xM60) GPUs as the high
  heterogeneity level" (:func:`cluster`: equal numbers of each type).
* *Arrivals*: the paper takes them from a Google cluster trace, which is not
  available here.  Poisson arrivals; the rate is ``arrival_rate`` (jobs per
  second) or, by default, the one making the offered load ``load`` (a job's
  work is ``rounds x tasks / sum_m 1/(T^c_m + T^s_m)``, the time the whole
  cluster needs for it at full speed; load 1 saturates an ideal cluster).
  ``load`` of 100 approximates a batch of simultaneous arrivals (Hare is an
  offline scheduler: "Since Hare currently uses an offline scheduling
  algorithm, it is short in handling dynamic jobs", Section 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...generate._check import Args
from ...io import from_dict

#: GPU types of Hare's testbed and of HLAS's simulation (HLAS Section VI-A, Table II)
GPU_TYPES = ("V100", "T4", "K80", "M60")

#: model -> (domain, V100 per-batch training time in s, speedup over K80 of (V100, T4, M60));
#: what the papers give and what we chose: :mod:`dmlsched.problems.hlas.generate`'s docstring
#: (HLAS's setup, which shares these tables; they are here because Hare's setups use them too)
JOB_TYPES: dict[str, tuple[str, float, tuple[float, float, float]]] = {
    "VGG-19": ("CV", 0.152, (6.0, 2.2, 1.3)),
    "ResNet50": ("CV", 0.055, (7.0, 2.0, 1.4)),
    "InceptionV3": ("CV", 0.172, (5.0, 2.0, 1.3)),
    "Bert_base": ("NLP", 0.445, (6.0, 2.5, 1.5)),
    "Transformer": ("NLP", 0.426, (5.0, 2.2, 1.4)),
    "DeepSpeech": ("Speech", 0.342, (4.0, 1.8, 1.3)),
    "FastGCN": ("Rec", 0.040, (2.5, 1.4, 1.2)),
    "GraphSAGE": ("Rec", 0.029, (2.0, 1.3, 1.1)),
}
#: the four domains of Table 2, 25% of the jobs each by default
DOMAINS = ("CV", "NLP", "Speech", "Rec")


def job_times(model: str) -> tuple[dict[str, float], dict[str, float]]:
    """``(train_time, sync_time)`` per GPU type of a Table II model."""
    _, v100, (sv, st4, sm60) = JOB_TYPES[model]
    k80 = v100 * sv
    train = {"V100": v100, "T4": k80 / st4, "K80": k80, "M60": k80 / sm60}
    sync = {g: 0.2 * v100 for g in GPU_TYPES}
    return train, sync

#: Hare's testbed (Section 7.1): 8 V100, 4 T4, 1 K80, 2 M60, in that order.
TESTBED: tuple[str, ...] = ("V100",) * 8 + ("T4",) * 4 + ("K80",) + ("M60",) * 2

#: GPU types of each heterogeneity level of Section 7.3 (Fig. 16)
HETEROGENEITY: dict[str, tuple[str, ...]] = {
    "low": ("V100",),
    "middle": ("V100", "K80"),
    "high": ("V100", "T4", "K80", "M60"),
}


def cluster(num_gpus: int, heterogeneity: str = "high") -> list[str]:
    """``num_gpus`` GPUs in equal shares of the level's types (the first types get
    one more when it does not divide), grouped by type."""
    a = Args("generate.hare.cluster")
    a.choice("heterogeneity", heterogeneity, HETEROGENEITY)
    num_gpus = a.count("num_gpus", num_gpus)
    types = HETEROGENEITY[heterogeneity]
    q, r = divmod(num_gpus, len(types))
    out: list[str] = []
    for k, t in enumerate(types):
        out += [t] * (q + (1 if k < r else 0))
    return out


def generate(*, seed: int = 0, num_jobs: int = 6, num_gpus: int = 8, rounds: tuple[int, int] = (2, 5),
             tasks_per_round: tuple[int, ...] = (1, 2, 4), load: float = 0.9,
             gpus: list[str] | None = None, arrival_rate: float | None = None,
             weights: tuple[int, int] = (1, 3), name: str | None = None,
             domain_mix: dict[str, float] | None = None, bandwidth: float = 25.0,
             batch_scale: float = 1.0) -> Any:
    """An instance of Hare's evaluation setup (Section 7.1), seeded.

    Parameters
    ----------
    seed
        Seed of the one ``numpy.random.Generator`` everything is drawn from.
    num_jobs
        Jobs (>= 1).
    num_gpus, gpus
        GPUs: ``gpus`` (type names) or ``num_gpus`` GPUs cycling V100, T4, K80, M60.
    rounds, tasks_per_round, weights
        Rounds uniform on ``rounds`` (inclusive), tasks per round from
        ``tasks_per_round``, integer weights uniform on ``weights``.
    load, arrival_rate
        Poisson arrivals at ``arrival_rate`` jobs per second, or by default at
        the rate that makes the offered load ``load``.
    domain_mix
        Share of the jobs per domain (``{"CV": .., "NLP": .., "Speech": .., "Rec": ..}``,
        normalised; default 25% each, "In the default setting, each type of jobs accounts
        for 25%", Section 7.3 / Fig. 17).
    bandwidth
        Network speed in Gbps (default 25, the testbed's "25 Gbps Ethernet"): the
        synchronisation times (network-bound) scale by ``25 / bandwidth`` (Fig. 18).
    batch_scale
        Batch size relative to Table 2's (Fig. 19's ``B_0``): training times scale by it
        and the rounds (the same data) by its inverse, rounded up.
    """
    a = Args("generate.hare.generate")
    num_jobs = a.count("num_jobs", num_jobs)
    load = a.number("load", load, positive=True)
    arrival_rate = a.optional_number("arrival_rate", arrival_rate, positive=True)
    rounds = a.int_range("rounds", rounds)
    tasks_per_round = a.counts("tasks_per_round", tasks_per_round)
    weights = a.int_range("weights", weights)
    bandwidth = a.number("bandwidth", bandwidth, positive=True)
    batch_scale = a.number("batch_scale", batch_scale, positive=True)
    mix = [1.0] * 4
    if domain_mix is not None:
        if not isinstance(domain_mix, dict) or set(domain_mix) - set(DOMAINS):
            a.fail("domain_mix", f"must map domains ({', '.join(DOMAINS)}) to shares, got {domain_mix!r}")
        mix = [a.number(f"domain_mix.{d}", domain_mix.get(d, 0.0), minimum=0) for d in DOMAINS]
        if not sum(mix) > 0:
            a.fail("domain_mix", "the shares must not all be 0")
    cum = np.cumsum(np.asarray(mix) / sum(mix))
    rng = np.random.default_rng(seed)
    if gpus is None:
        num_gpus = a.count("num_gpus", num_gpus)
        gpus = [GPU_TYPES[m % len(GPU_TYPES)] for m in range(num_gpus)]
    else:
        if isinstance(gpus, str) or not gpus or any(g not in GPU_TYPES for g in gpus):
            a.fail("gpus", f"must be a non-empty list of GPU types ({', '.join(GPU_TYPES)}), got {gpus!r}")
        gpus = [str(g) for g in gpus]
        num_gpus = len(gpus)
    by_domain = {d: [m for m, spec in JOB_TYPES.items() if spec[0] == d] for d in DOMAINS}
    times = {}
    for m in JOB_TYPES:
        tr, sy = job_times(m)
        times[m] = ({g: v * batch_scale for g, v in tr.items()}, {g: v * 25.0 / bandwidth for g, v in sy.items()})
    counts = {g: gpus.count(g) for g in dict.fromkeys(gpus)}
    speed = {m: sum(c / (times[m][0][g] + times[m][1][g]) for g, c in counts.items()) for m in JOB_TYPES}
    jobs = []
    t = 0.0
    for n in range(num_jobs):
        if domain_mix is None:  # the same draws as before the option existed
            dom = DOMAINS[int(rng.integers(len(DOMAINS)))]
        else:
            dom = DOMAINS[min(len(DOMAINS) - 1, int(np.searchsorted(cum, rng.uniform(), side="right")))]
        models = by_domain[dom]
        model = models[int(rng.integers(len(models)))]
        train, sync = times[model]
        r = int(rng.integers(rounds[0], rounds[1] + 1))
        if batch_scale != 1.0:
            r = max(1, int(np.ceil(r / batch_scale - 1e-9)))
        k = int(rng.choice(list(tasks_per_round)))
        # times for the cluster's types only (another type in a file reads as a typo and is refused)
        jobs.append({"id": f"{model}-{n}", "arrival": round(t, 6),
                     "weight": float(rng.integers(weights[0], weights[1] + 1)),
                     "rounds": r, "tasks_per_round": k, "train_time": {g: train[g] for g in counts},
                     "sync_time": {g: sync[g] for g in counts}})
        if arrival_rate is not None:
            t += float(rng.exponential(1.0 / arrival_rate))
        else:
            work = r * k / speed[model]
            t += float(rng.exponential(work / load))
    tag = f"rate{arrival_rate:g}" if arrival_rate is not None else f"load{load:g}"
    return from_dict({"problem": "hare", "name": name or f"hare-setup-{num_jobs}j-{num_gpus}g-{tag}-s{seed}",
                      "gpus": gpus, "jobs": jobs})


def testbed(*, seed: int = 0, num_jobs: int = 20, load: float = 100.0, **params: Any) -> Any:
    """Section 7.2's setting: :func:`generate` on the 15-GPU :data:`TESTBED`
    (default 20 jobs arriving together, ``load=100``); ``params`` as :func:`generate`'s."""
    a = Args("generate.hare.testbed")
    a.forwarded(params, generate, fixed=("gpus", "num_gpus", "name"))
    num_jobs = a.count("num_jobs", num_jobs)
    load = a.number("load", load, positive=True)
    return generate(seed=seed, num_jobs=num_jobs, load=load, gpus=list(TESTBED),
                    name=f"hare-testbed-{num_jobs}j-load{load:g}-s{seed}", **params)


#: the offered load of Section 7.3's default point (200 jobs, 160 GPUs, high
#: heterogeneity); the sweeps keep its arrival rate (see :func:`simulation`)
SIMULATION_LOAD = 0.9


def simulation_rate(load: float = SIMULATION_LOAD, *, num_gpus: int = 160, heterogeneity: str = "high",
                    rounds: tuple[int, int] = (2, 5), tasks_per_round: tuple[int, ...] = (1, 2, 4)) -> float:
    """Arrival rate (jobs per second) at which the mean job of the Table 2 mix
    (rounds uniform on ``rounds``, tasks uniform in ``tasks_per_round``) offers
    ``load`` to the cluster."""
    gpus = cluster(num_gpus, heterogeneity)
    counts = {g: gpus.count(g) for g in dict.fromkeys(gpus)}
    mean_size = (rounds[0] + rounds[1]) / 2 * sum(tasks_per_round) / len(tasks_per_round)
    mean_work = 0.0
    for d in DOMAINS:
        models = [m for m, spec in JOB_TYPES.items() if spec[0] == d]
        for m in models:
            tr, sy = job_times(m)
            speed = sum(c / (tr[g] + sy[g]) for g, c in counts.items())
            mean_work += mean_size / speed / (len(DOMAINS) * len(models))
    return load / mean_work


def simulation(*, seed: int = 0, num_jobs: int = 200, num_gpus: int = 160, heterogeneity: str = "high",
               load: float | None = None, arrival_rate: float | None = None, **params: Any) -> Any:
    """Section 7.3's simulation: ``num_jobs`` jobs on ``num_gpus`` GPUs of the
    heterogeneity level (:func:`cluster`).

    Arrivals: by default Poisson at the fixed rate :func:`simulation_rate` of
    the default point (200 jobs of this job mix on 160 high-heterogeneity GPUs
    at offered load :data:`SIMULATION_LOAD`), so that, as in Figs. 14-16, more
    jobs (or fewer GPUs) mean more contention; ``load`` or ``arrival_rate``
    override it.
    Other ``params`` as :func:`generate`'s.
    """
    a = Args("generate.hare.simulation")
    a.forwarded(params, generate, fixed=("gpus", "num_gpus", "name", "load", "arrival_rate"))
    num_jobs = a.count("num_jobs", num_jobs)
    num_gpus = a.count("num_gpus", num_gpus)
    a.choice("heterogeneity", heterogeneity, HETEROGENEITY)
    load = a.optional_number("load", load, positive=True)
    arrival_rate = a.optional_number("arrival_rate", arrival_rate, positive=True)
    gpus = cluster(num_gpus, heterogeneity)
    if load is None and arrival_rate is None:  # the default point's rate, for this job mix
        arrival_rate = simulation_rate(rounds=tuple(params.get("rounds", (2, 5))),
                                       tasks_per_round=tuple(params.get("tasks_per_round", (1, 2, 4))))
    kw: dict[str, Any] = {"arrival_rate": arrival_rate} if arrival_rate is not None else {"load": load}
    tag = f"rate{arrival_rate:.4g}" if arrival_rate is not None else f"load{load:g}"
    return generate(seed=seed, num_jobs=num_jobs, gpus=gpus,
                    name=f"hare-sim-{num_jobs}j-{num_gpus}g-{heterogeneity}-{tag}-s{seed}", **kw, **params)


__all__ = [
    "DOMAINS", "GPU_TYPES", "HETEROGENEITY", "JOB_TYPES", "SIMULATION_LOAD", "TESTBED", "cluster",
    "generate", "job_times", "simulation", "simulation_rate", "testbed",
]
