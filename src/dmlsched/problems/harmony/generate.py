"""Harmony's evaluation workload (Lee 2020, Section 4.4.2, Table 4.1), seeded.

4 applications x 2 datasets x 10 hyper-parameter settings = 80 jobs on 100
machines, profiled at DoP 16.  The per-job times of Fig. 4.9 are not in the
text (the figure is missing from the extraction), so the generator derives
them from Table 4.1's sizes with a documented model:

* ``t_cpu = input_GB * CPU_S_PER_GB[app] / 16 * h_cpu`` -- COMP time at DoP 16:
  the input is split over 16 workers; ``CPU_S_PER_GB`` is the application's
  per-GB compute cost (LDA's sampling is the most expensive per byte);
* ``t_net = model_GB * NET_S_PER_GB * h_net`` -- PULL + PUSH of the model
  (independent of the DoP, as Section 4.3.2 assumes);
* ``(h_cpu, h_net)`` -- the hyper-parameter setting's multipliers, log-normal
  with sigma 0.5 each (mini-batch size, regularisation and model sparsity
  change the per-iteration costs);
* ``iterations`` -- until convergence, ``round(200 * lognormal(0, 0.5))``,
  at least 10.

The resulting computation/communication ratios range from about 0.1 to 10,
the spread Fig. 4.1 and 4.9 describe ("the ratios of CPU and network
utilisation vary greatly").  Larger workloads repeat the 80 (application,
dataset, setting) tuples with fresh draws.
"""

from __future__ import annotations

import numpy as np

from ...generate._check import Args
from .instance import DEFAULT_WEIGHTS, HarmonyInstance, HarmonyJob

#: (application, dataset, input GB, model GB) -- Table 4.1
DATASETS: tuple[tuple[str, str, float, float], ...] = (
    ("NMF", "Netflix64x", 45.6, 1.0),
    ("NMF", "Netflix128x", 91.2, 5.0),
    ("LDA", "PubMed", 4.3, 2.1),
    ("LDA", "NyTimes", 0.6, 1.1),
    ("MLR", "Synthetic78", 78.4, 12.0),
    ("MLR", "Synthetic155", 155.0, 24.0),
    ("Lasso", "Synthetic78", 78.4, 12.0),
    ("Lasso", "Synthetic155", 155.0, 24.0),
)
#: seconds of COMP per GB of input on one worker (our calibration, see module doc)
CPU_S_PER_GB = {"NMF": 4.0, "LDA": 60.0, "MLR": 1.5, "Lasso": 1.0}
#: seconds of PULL + PUSH per GB of model (2 x 8 Gbit / 1.1 Gbps, rounded down for sharding)
NET_S_PER_GB = 2.0
SETTINGS = 10
REFERENCE_DOP = 16


def evaluation_workload(
    *,
    seed: int = 0,
    num_jobs: int = 80,
    num_machines: int = 100,
    reference_dop: float = REFERENCE_DOP,
    weights: dict[str, float] | None = None,
    iterations: bool = True,
    iteration_sigma: float = 0.5,
) -> HarmonyInstance:
    """The 80-job / 100-machine workload of Section 4.4.2 (or a scaled one).

    Parameters
    ----------
    seed
        Seed of every draw (same seed, same instance).
    num_jobs, num_machines
        Sizes; the default is the dissertation's 80 jobs on 100 machines.
    reference_dop
        DoP at which ``t_cpu`` is profiled (16 in the dissertation).  The work of a
        job does not depend on it: ``t_cpu`` is the single-machine time divided by
        ``reference_dop``, so ``T_cpu_j(m) = t_cpu * c / m`` is the same for every ``c``.
    weights
        ``{"cpu": .., "net": ..}`` scalarisation weights (default 2:1).
    iterations
        Draw iterations-to-convergence (for JCT and makespan).
    iteration_sigma
        Spread (sigma of the log-normal factor on 200) of the iterations; 0: every job
        runs 200 iterations.  The dissertation gives no number.
    """
    a = Args("generate.harmony.evaluation_workload")
    jobs = a.count("num_jobs", num_jobs)
    machines = a.count("num_machines", num_machines)
    reference_dop = a.number("reference_dop", reference_dop, positive=True)
    if weights is not None:
        weights = a.shares("weights", weights, keys=DEFAULT_WEIGHTS)
    a.flag("iterations", iterations)
    iteration_sigma = a.number("iteration_sigma", iteration_sigma, minimum=0)
    rng = np.random.default_rng(seed)
    h = rng.lognormal(0.0, 0.5, size=(jobs, 2))
    its = np.maximum(10, np.round(200 * rng.lognormal(0.0, iteration_sigma, size=jobs))).astype(int)
    out = []
    n_tuples = len(DATASETS)
    for i in range(jobs):
        app, ds, inp, mdl = DATASETS[i % n_tuples]
        setting = (i // n_tuples) % SETTINGS
        rep = i // (n_tuples * SETTINGS)
        t_cpu = inp * CPU_S_PER_GB[app] / reference_dop * h[i, 0]
        t_net = mdl * NET_S_PER_GB * h[i, 1]
        jid = f"{app}-{ds}-h{setting}" + (f"-r{rep}" if rep else "")
        out.append(
            HarmonyJob(
                id=jid,
                t_cpu=float(round(t_cpu, 6)),
                t_net=float(round(t_net, 6)),
                iterations=int(its[i]) if iterations else None,
            )
        )
    w = dict(DEFAULT_WEIGHTS, **(weights or {}))
    return HarmonyInstance(
        machines=int(machines),
        reference_dop=float(reference_dop),
        jobs=tuple(out),
        w_cpu=float(w["cpu"]),
        w_net=float(w["net"]),
        name=f"harmony-eval-{jobs}j-{machines}m-s{seed}",
    )


def sample_workload(
    *,
    seed: int = 0,
    num_jobs: int = 6,
    num_machines: int = 8,
    reference_dop: float | None = None,
    weights: dict[str, float] | None = None,
) -> HarmonyInstance:
    """A small instance for the Oracle: ``num_jobs`` jobs drawn (without
    replacement) from the 80-job workload of the same seed, on ``num_machines``
    machines.

    ``reference_dop`` defaults to ``16 * num_machines / 100`` so that the
    per-machine CPU load matches the 80-job / 100-machine setting scaled down.
    """
    a = Args("generate.harmony.sample_workload")
    jobs = a.count("num_jobs", num_jobs, maximum=80)
    machines = a.count("num_machines", num_machines)
    reference_dop = a.optional_number("reference_dop", reference_dop, positive=True)
    base = evaluation_workload(seed=seed, num_jobs=80, num_machines=100, weights=weights)
    rng = np.random.default_rng([seed, 1])
    pick = sorted(rng.choice(80, size=jobs, replace=False).tolist())
    dop = REFERENCE_DOP * machines / 100 if reference_dop is None else reference_dop
    return HarmonyInstance(
        machines=int(machines),
        reference_dop=float(dop),
        jobs=tuple(base.jobs[i] for i in pick),
        w_cpu=base.w_cpu,
        w_net=base.w_net,
        name=f"harmony-sample-{jobs}j-{machines}m-s{seed}",
    )


__all__ = [
    "CPU_S_PER_GB", "DATASETS", "NET_S_PER_GB", "REFERENCE_DOP", "SETTINGS", "evaluation_workload",
    "sample_workload",
]
