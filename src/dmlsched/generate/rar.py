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

from ..problems.rar.instance import RarInstance, RarJob

#: the paper's job-size mix: GPUs -> number of jobs (160 in total)
PAPER_MIX = {1: 80, 2: 14, 4: 26, 8: 30, 16: 8, 32: 2}
CAPACITIES = (4, 8, 16, 32)


def generate(
    seed: int,
    n_jobs: int = 160,
    n_servers: int = 20,
    horizon: int = 1200,
    *,
    iterations: tuple[int, int] = (1000, 6000),
    tau: tuple[float, float] = (0.01, 0.05),
    capacities: tuple[int, ...] = CAPACITIES,
    xi1: float = 1.0,
    xi2: float = 0.001,
    alpha: float = 0.5,
    exchange_share: float = 0.05,
    name: str | None = None,
) -> RarInstance:
    """A seeded instance of the paper's setting (``n_jobs`` scales the mix).

    With ``n_jobs = 160`` the job sizes are exactly the paper's counts; other
    sizes draw each job's size from the same mix (in proportion).
    """
    if n_jobs < 1 or n_servers < 1:
        raise ValueError(f"n_jobs and n_servers must be >= 1, got {n_jobs}, {n_servers}")
    rng = np.random.default_rng(seed)
    sizes_all = np.array(list(PAPER_MIX), dtype=np.int64)
    if n_jobs == sum(PAPER_MIX.values()):
        sizes = np.repeat(sizes_all, list(PAPER_MIX.values()))
    else:
        p = np.array(list(PAPER_MIX.values()), dtype=float)
        sizes = rng.choice(sizes_all, size=n_jobs, p=p / p.sum())
    rng.shuffle(sizes)
    if int(sizes.max()) > n_servers * max(capacities):
        raise ValueError(f"capacities: {n_servers} servers of at most {max(capacities)} GPUs cannot hold a "
                         f"{int(sizes.max())}-GPU job of the paper's mix; use small() for small clusters")
    servers = tuple(int(c) for c in rng.choice(np.array(capacities), size=n_servers))
    while sum(servers) < int(sizes.max()):  # the largest job must fit in the cluster
        servers = tuple(int(c) for c in rng.choice(np.array(capacities), size=n_servers))
    F = rng.integers(iterations[0], iterations[1] + 1, size=n_jobs)
    tau0 = rng.uniform(tau[0], tau[1], size=n_jobs)
    return _instance(servers, sizes, F, tau0, horizon, xi1=xi1, xi2=xi2, alpha=alpha,
                     exchange_share=exchange_share, name=name or f"rar-paper-seed{seed}-{n_jobs}x{n_servers}")


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
    seed: int,
    n_jobs: int = 3,
    servers: tuple[int, ...] = (2, 2),
    horizon: int = 400,
    *,
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
    if n_jobs < 1 or not servers or min(servers) < 1:
        raise ValueError(f"n_jobs must be >= 1 and servers positive, got {n_jobs}, {servers}")
    rng = np.random.default_rng(seed)
    total = int(sum(servers))
    pool = np.array(sizes if sizes is not None else range(1, min(4, total) + 1), dtype=np.int64)
    if pool.max() > total:
        raise ValueError(f"sizes: a {int(pool.max())}-GPU job does not fit in {total} GPUs")
    G = rng.choice(pool, size=n_jobs)
    F = rng.integers(iterations[0], iterations[1] + 1, size=n_jobs).astype(float)
    tau0 = rng.uniform(tau[0], tau[1], size=n_jobs)
    nm = name or f"rar-small-seed{seed}-{n_jobs}x{len(servers)}"
    kw = dict(xi1=xi1, xi2=xi2, alpha=alpha, exchange_share=exchange_share, name=nm)
    Fi = np.maximum(1, F.astype(np.int64))
    for _ in range(60):
        inst = _instance(servers, G, Fi, tau0, horizon, **kw)
        seq = int(inst.rho_range[0].sum())
        if seq <= horizon:
            return inst
        Fi = np.maximum(1, np.floor(Fi * (horizon / seq) * 0.98)).astype(np.int64)
    raise ValueError(f"horizon: {horizon} slots cannot hold the jobs one after another")


def paper_instance(seed: int, **kw) -> RarInstance:
    """The Section 7 setting: 160 jobs, 20 servers, ``T = 1200``."""
    return generate(seed, 160, 20, 1200, **kw)


def servers_sweep(seed: int, n_servers: int = 20, horizon: int = 1500, n_jobs: int = 160, **kw) -> RarInstance:
    """Fig. 6 (Section 7): the jobs and servers of :func:`paper_instance` ``(seed)``
    (``n_jobs`` jobs on 20 servers) with only its first ``n_servers`` servers, ``T = 1500``.

    Reading: "we investigate the influence of communication contention by reducing
    the number of servers" -- the same 160 jobs on fewer servers of the same draw
    (``models/rar.md``).
    """
    base = generate(seed, n_jobs, 20, horizon, **kw)
    if not 1 <= n_servers <= base.num_servers:
        raise ValueError(f"n_servers must be in 1..{base.num_servers}, got {n_servers}")
    servers = base.servers[:n_servers]
    if sum(servers) < int(base.G.max()):
        raise ValueError(f"n_servers: the first {n_servers} servers hold {sum(servers)} GPUs, fewer than "
                         f"the largest job's {int(base.G.max())}")
    return RarInstance(servers=servers, jobs=base.jobs, bw_intra=base.bw_intra, bw_inter=base.bw_inter,
                       gpu_speed=base.gpu_speed, xi1=base.xi1, xi2=base.xi2, alpha=base.alpha, horizon=horizon,
                       name=f"rar-fig6-seed{seed}-{n_servers}servers")
