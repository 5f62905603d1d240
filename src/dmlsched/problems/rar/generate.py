"""Instance generator reproducing the evaluation of SJF-BCO (MobiHoc'22, Section 7).

Paper setting: 160 jobs (80 x 1 GPU, 14 x 2, 26 x 4, 30 x 8, 8 x 16, 2 x 32),
``F_j`` uniform in ``[1000, 6000]``, per-iteration time ``tau_j`` in
``[0.01, 0.05]`` slots, 20 servers with ``O_s`` uniform in ``{4, 8, 16, 32}``,
``T = 1200``; contention and overhead add "within 15%" of the execution time.

Our parameterisation (the paper gives no physical constants; see
``models/rar.md``):

* ``tau0_j`` uniform in ``[0.01, 0.05]`` is job ``j``'s per-iteration time on one
  server (8): ``b^i = 10``, ``b^e = 1``, ``C = 100``, ``xi2 = 0.001``;
* ``m_j`` makes the inter-server exchange term, uncontended, ``5%`` of ``tau0_j``
  (``(m/w) 2 (w-1) / b^e = 0.05 tau0``); FP and BP share the rest (``M_j = 32``);
* ``xi1 = 1`` and ``alpha = 0.5``: an uncontended split job is ~5% slower plus
  ``xi2`` per extra server; with ``p`` contenders the exchange term grows by
  ``f = p + 0.5 (p - 1)``.  (``xi1 = xi2`` as the paper sets it would make
  ``k = xi1 p < 1`` for every realistic ``p`` with ``xi2`` this small, i.e. no
  contention at all; we keep contention and report this deviation.)

Everything is drawn from ``numpy.random.default_rng(seed)``: same seed, same instance.
"""

from __future__ import annotations

import numpy as np

from ...generate._check import Args
from .instance import RarInstance, RarJob

#: the paper's job-size mix: GPUs -> number of jobs (160 in total)
PAPER_MIX = {1: 80, 2: 14, 4: 26, 8: 30, 16: 8, 32: 2}
CAPACITIES = (4, 8, 16, 32)


def generate(
    *,
    seed: int = 0,
    num_jobs: int = 160,
    num_servers: int = 20,
    horizon: int = 1200,
    iterations: tuple[int, int] = (1000, 6000),
    tau: tuple[float, float] = (0.01, 0.05),
    capacities: tuple[int, ...] = CAPACITIES,
    xi1: float = 1.0,
    xi2: float = 0.001,
    alpha: float = 0.5,
    exchange_share: float = 0.05,
    name: str | None = None,
) -> RarInstance:
    """A seeded instance of the paper's setting (``num_jobs`` scales the mix).

    With ``num_jobs = 160`` the job sizes are exactly the paper's counts; other
    sizes draw each job's size from the same mix (in proportion).
    """
    a = Args("generate.rar.generate")
    num_jobs = a.count("num_jobs", num_jobs)
    num_servers = a.count("num_servers", num_servers)
    horizon = a.count("horizon", horizon)
    iterations, tau = _job_args(a, iterations, tau, xi1, xi2, alpha, exchange_share)
    capacities = a.counts("capacities", capacities)
    rng = np.random.default_rng(seed)
    sizes_all = np.array(list(PAPER_MIX), dtype=np.int64)
    if num_jobs == sum(PAPER_MIX.values()):
        sizes = np.repeat(sizes_all, list(PAPER_MIX.values()))
    else:
        p = np.array(list(PAPER_MIX.values()), dtype=float)
        sizes = rng.choice(sizes_all, size=num_jobs, p=p / p.sum())
    rng.shuffle(sizes)
    if int(sizes.max()) > num_servers * max(capacities):
        a.fail("num_servers", f"= {num_servers} servers with capacities of at most {max(capacities)} GPUs cannot "
                              f"hold a {int(sizes.max())}-GPU job of the paper's mix; use small() for small clusters")
    servers = tuple(int(c) for c in rng.choice(np.array(capacities), size=num_servers))
    while sum(servers) < int(sizes.max()):  # the largest job must fit in the cluster
        servers = tuple(int(c) for c in rng.choice(np.array(capacities), size=num_servers))
    F = rng.integers(iterations[0], iterations[1] + 1, size=num_jobs)
    tau0 = rng.uniform(tau[0], tau[1], size=num_jobs)
    return _instance(servers, sizes, F, tau0, horizon, xi1=xi1, xi2=xi2, alpha=alpha,
                     exchange_share=exchange_share, name=name or f"rar-paper-seed{seed}-{num_jobs}x{num_servers}")


def _job_args(a: Args, iterations, tau, xi1, xi2, alpha, exchange_share) -> tuple[tuple[int, int], tuple[float, float]]:
    """Checks of the job parameters shared by :func:`generate` and :func:`small`."""
    iterations = a.int_range("iterations", iterations)
    tau = a.number_range("tau", tau, positive=True)
    a.number("xi1", xi1, minimum=0)
    a.number("xi2", xi2, minimum=0)
    a.number("alpha", alpha, minimum=0)
    a.number("exchange_share", exchange_share, minimum=0, maximum=1)
    return iterations, tau


def _instance(servers, sizes, F, tau0, horizon: int, *, xi1: float, xi2: float, alpha: float,
              exchange_share: float, name: str) -> RarInstance:
    """Jobs of the paper's physical parameterisation (module docstring) from their sizes,
    iterations and single-server per-iteration times ``tau0``."""
    b_i, b_e, C = 10.0, 1.0, 100.0
    n_jobs = len(sizes)
    jobs = []
    for j in range(n_jobs):
        w = int(sizes[j])
        ww = max(w, 2)
        m = exchange_share * tau0[j] * b_e * ww / (2.0 * (ww - 1))
        exch_single = m / w * 2 * (w - 1) / b_i
        red = m / w * (w - 1) / C
        compute = tau0[j] - exch_single - red - xi2
        batch = 32
        jobs.append(RarJob(id=f"j{j}", gpus=w, iterations=int(F[j]), grad_size=float(m),
                           fp_time=float(0.5 * compute / batch), batch=float(batch),
                           bp_time=float(0.5 * compute)))
    return RarInstance(servers=tuple(int(c) for c in servers), jobs=tuple(jobs), bw_intra=b_i, bw_inter=b_e,
                       gpu_speed=C, xi1=xi1, xi2=xi2, alpha=alpha, horizon=horizon, name=name)


def small(
    *,
    seed: int = 0,
    num_jobs: int = 3,
    servers: tuple[int, ...] = (2, 2),
    horizon: int = 400,
    sizes: tuple[int, ...] | None = None,
    iterations: tuple[int, int] = (1000, 6000),
    tau: tuple[float, float] = (0.01, 0.05),
    xi1: float = 1.0,
    xi2: float = 0.001,
    alpha: float = 0.5,
    exchange_share: float = 0.05,
    name: str | None = None,
) -> RarInstance:
    """A small seeded instance for exact methods: the paper's job parameters on a
    given small cluster.

    Job sizes are uniform over ``sizes`` (default ``1..min(4, total GPUs)``).  So
    that every instance is feasible, the iterations are scaled down (all by one
    factor) when running the jobs one after another, each alone at its fastest,
    would not end by ``horizon``.
    """
    a = Args("generate.rar.small")
    num_jobs = a.count("num_jobs", num_jobs)
    servers = a.counts("servers", servers)
    horizon = a.count("horizon", horizon)
    iterations, tau = _job_args(a, iterations, tau, xi1, xi2, alpha, exchange_share)
    if sizes is not None:
        sizes = a.counts("sizes", sizes)
    rng = np.random.default_rng(seed)
    total = int(sum(servers))
    pool = np.array(sizes if sizes is not None else range(1, min(4, total) + 1), dtype=np.int64)
    if pool.max() > total:
        a.fail("sizes", f"has a {int(pool.max())}-GPU job that does not fit in {total} GPUs")
    G = rng.choice(pool, size=num_jobs)
    F = rng.integers(iterations[0], iterations[1] + 1, size=num_jobs).astype(float)
    tau0 = rng.uniform(tau[0], tau[1], size=num_jobs)
    nm = name or f"rar-small-seed{seed}-{num_jobs}x{len(servers)}"
    kw = dict(xi1=xi1, xi2=xi2, alpha=alpha, exchange_share=exchange_share, name=nm)
    Fi = np.maximum(1, F.astype(np.int64))
    for _ in range(60):
        inst = _instance(servers, G, Fi, tau0, horizon, **kw)
        seq = int(inst.rho_range[0].sum())
        if seq <= horizon:
            return inst
        Fi = np.maximum(1, np.floor(Fi * (horizon / seq) * 0.98)).astype(np.int64)
    a.fail("horizon", f"= {horizon} slots cannot hold the jobs one after another")


def paper_instance(*, seed: int = 0, **kw) -> RarInstance:
    """The Section 7 setting: 160 jobs, 20 servers, ``T = 1200``; ``kw`` as
    :func:`generate`'s other arguments."""
    Args("generate.rar.paper_instance").forwarded(kw, generate, fixed=("num_jobs", "num_servers", "horizon"))
    return generate(seed=seed, num_jobs=160, num_servers=20, horizon=1200, **kw)


def servers_sweep(*, seed: int = 0, num_servers: int = 20, horizon: int = 1500, num_jobs: int = 160,
                  **kw) -> RarInstance:
    """Fig. 6 (Section 7): the jobs and servers of :func:`paper_instance` ``(seed)``
    (``num_jobs`` jobs on 20 servers) with only its first ``num_servers`` servers, ``T = 1500``.

    Reading: "we investigate the influence of communication contention by reducing
    the number of servers" -- the same 160 jobs on fewer servers of the same draw
    (``models/rar.md``).
    """
    a = Args("generate.rar.servers_sweep")
    a.forwarded(kw, generate, fixed=("num_servers",))
    num_servers = a.count("num_servers", num_servers, maximum=20)
    num_jobs = a.count("num_jobs", num_jobs)
    horizon = a.count("horizon", horizon)
    base = generate(seed=seed, num_jobs=num_jobs, num_servers=20, horizon=horizon, **kw)
    servers = base.servers[:num_servers]
    if sum(servers) < int(base.G.max()):
        a.fail("num_servers", f"= {num_servers}: the first {num_servers} servers hold {sum(servers)} GPUs, "
                              f"fewer than the largest job's {int(base.G.max())}")
    return RarInstance(servers=servers, jobs=base.jobs, bw_intra=base.bw_intra, bw_inter=base.bw_inter,
                       gpu_speed=base.gpu_speed, xi1=base.xi1, xi2=base.xi2, alpha=base.alpha, horizon=horizon,
                       name=f"rar-fig6-seed{seed}-{num_servers}servers")


__all__ = ["CAPACITIES", "PAPER_MIX", "generate", "paper_instance", "servers_sweep", "small"]
