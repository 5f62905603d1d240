"""Seeded instances of Hare's evaluation setup (HPDC'22, Section 7.1)."""

from __future__ import annotations

from typing import Any

#: Hare's testbed (Section 7.1): 8 V100, 4 T4, 1 K80, 2 M60, in that order.
TESTBED: tuple[str, ...] = ("V100",) * 8 + ("T4",) * 4 + ("K80",) + ("M60",) * 2


def generate(seed: int = 0, *, num_jobs: int = 6, num_gpus: int = 8, rounds: tuple[int, int] = (2, 5),
               tasks_per_round: tuple[int, ...] = (1, 2, 4), load: float = 0.9,
               gpus: list[str] | None = None) -> Any:
    """A small instance of Hare's evaluation setup (Section 7.1), seeded.

    Jobs are the paper's 8 models of Table 2 (4 domains, 25% each) with the
    per-GPU-type training and synchronisation times of
    :func:`dmlsched.generate.hlas.job_times` (the same authors' follow-up uses
    the same models and GPU types V100, T4, K80, M60); GPUs cycle through the
    four types; weights uniform in {1, 2, 3}; Poisson arrivals whose rate
    makes the offered load ``load`` (work of a job = rounds x tasks / total
    cluster speed).  ``load`` of 100 approximates a batch of simultaneous
    arrivals.
    """
    import numpy as np

    from .hlas import DOMAINS, GPU_TYPES, JOB_TYPES, job_times
    from ..io import from_dict

    rng = np.random.default_rng(seed)
    if gpus is None:
        gpus = [GPU_TYPES[m % len(GPU_TYPES)] for m in range(num_gpus)]
    else:
        gpus = [str(g) for g in gpus]
        num_gpus = len(gpus)
    jobs = []
    t = 0.0
    for n in range(num_jobs):
        dom = DOMAINS[int(rng.integers(len(DOMAINS)))]
        models = [m for m, spec in JOB_TYPES.items() if spec[0] == dom]
        model = models[int(rng.integers(len(models)))]
        train, sync = job_times(model)
        r = int(rng.integers(rounds[0], rounds[1] + 1))
        k = int(rng.choice(list(tasks_per_round)))
        jobs.append({"id": f"{model}-{n}", "arrival": round(t, 6), "weight": float(rng.integers(1, 4)),
                     "rounds": r, "tasks_per_round": k, "train_time": train, "sync_time": sync})
        work = r * k / sum(1.0 / (train[g] + sync[g]) for g in gpus)
        t += float(rng.exponential(work / load))
    return from_dict({"problem": "hare", "name": f"hare-setup-{num_jobs}j-{num_gpus}g-load{load:g}-s{seed}",
                      "gpus": gpus, "jobs": jobs})
