"""Cruise instances reproducing the dissertation's setups (Lee 2020, Sections 3.1, 3.4).

The dissertation reports clusters and optimal role splits, not per-sample
compute times or bandwidths in model units, so the workloads here are
*calibrated*: under (3.5) on a homogeneous cluster of ``N`` machines the
optimum for ``W > S`` balances ``D p / W`` against ``D M / (b B S)``, giving
``S / W = sqrt(r)`` with ``r = M / (b B p)``.  Each application's ``r`` is set
so that (3.5) on the 32-machine r4.xlarge cluster picks the grid-search
optimum of Table 3.4:

=====  ==========  ======================  ===========  =========
app    optimum     r = (S/W)^2             D (samples)  B
=====  ==========  ======================  ===========  =========
NMF    (23, 9)     (9/23)^2   = 0.1531     2,000,000    10,000
MLR    (27, 5)     (5/27)^2   = 0.0343     100,000      1,000
LDA    (18, 14)    (14/18)^2  = 0.6049     100,000      1,000
Lasso  (20, 12)    (12/20)^2  = 0.3600     100,000      1,000
=====  ==========  ======================  ===========  =========

Lasso's dataset is "Synthetic sparse (100K samples, 100K features)" (Table
3.3); its mini-batch size is not given, MLR's 1,000 (the other synthetic
SGD workload) is used.

``M`` is the NMF model's 128 server blocks of 280 items (Section 3.4.6),
35,840 units, for every app.  ``p`` is chosen so that an epoch takes about
100 s at the optimum; ``b = M / (r B p)``.  The heterogeneous cluster of
Section 3.4.5 adds 4 r4.4xlarge machines to 28 r4.xlarge: 4x the cores (``p / 4``)
and 4x the bandwidth (5.00 vs 1.25 Gbps).
"""

from __future__ import annotations

import math

import numpy as np

from ..problems.cruise.instance import CruiseInstance

#: app -> (workers, servers) optimum on 32 r4.xlarge (Table 3.4), D, B
APPS = {
    "NMF": ((23, 9), 2_000_000, 10_000),
    "MLR": ((27, 5), 100_000, 1_000),
    "LDA": ((18, 14), 100_000, 1_000),
    "Lasso": ((20, 12), 100_000, 1_000),
}
MODEL_UNITS = 128 * 280
EPOCH_TARGET_S = 100.0


def calibrated_parameters(app: str, n: int = 32) -> dict:
    """``p``, ``b``, ``D``, ``M``, ``B`` of ``app`` (see the module docstring)."""
    if app not in APPS:
        raise ValueError(f"unknown app {app!r}; choose one of {', '.join(APPS)}")
    (W, S), D, B = APPS[app]
    r = (S / W) ** 2
    # with b = M / (r B p): D M / (b B S) = D r p / S, so C = D p (1 / W + r / S)
    p = EPOCH_TARGET_S / (D * (1.0 / W + r / S))
    b = MODEL_UNITS / (r * B * p)
    return {"proc_time": p, "bandwidth": b, "dataset_size": D, "model_size": MODEL_UNITS, "batch_size": B}


def homogeneous_cluster(app: str = "NMF", n: int = 32, *, scale: float = 1.0, seed: int = 0) -> CruiseInstance:
    """``n`` identical r4.xlarge machines running ``app``.

    ``scale`` shrinks ``D`` and ``M`` (rounded, at least 1) for smaller instances.
    The workload is deterministic; ``seed`` is accepted (and unused) so that the
    benchmark engine can call every generator the same way.
    """
    c = calibrated_parameters(app)
    D = max(1, round(c["dataset_size"] * scale))
    M = max(1, round(c["model_size"] * scale))
    B = max(1, round(c["batch_size"] * scale))
    return CruiseInstance(
        proc_time=(c["proc_time"],) * n,
        machine_bandwidth=(c["bandwidth"],) * n,
        dataset_size=D,
        model_size=M,
        batch_size=B,
        name=f"cruise-{app}-homogeneous-{n}",
    )


def heterogeneous_cluster(
    app: str = "NMF",
    n_slow: int = 28,
    n_fast: int = 4,
    *,
    speedup: float = 4.0,
    bandwidth_ratio: float = 4.0,
    jitter: float = 0.0,
    scale: float = 1.0,
    seed: int = 0,
) -> CruiseInstance:
    """Section 3.4.5's cluster: ``n_slow`` r4.xlarge and ``n_fast`` r4.4xlarge machines.

    Parameters
    ----------
    speedup, bandwidth_ratio
        Fast machines have ``proc_time / speedup`` and ``bandwidth * bandwidth_ratio``.
    jitter
        Each machine's ``proc_time`` and ``bandwidth`` are multiplied by an
        independent factor uniform in ``[1 - jitter, 1 + jitter]`` (seeded):
        measured metrics are never exactly equal.
    scale
        Shrinks ``D``, ``M`` and ``B``.
    seed
        Seed of the jitter.
    """
    if not 0 <= jitter < 1:
        raise ValueError("jitter must be in [0, 1)")
    c = calibrated_parameters(app)
    rng = np.random.default_rng(seed)
    n = n_slow + n_fast
    procs = [c["proc_time"]] * n_slow + [c["proc_time"] / speedup] * n_fast
    bws = [c["bandwidth"]] * n_slow + [c["bandwidth"] * bandwidth_ratio] * n_fast
    if jitter:
        procs = [x * f for x, f in zip(procs, rng.uniform(1 - jitter, 1 + jitter, n))]
        bws = [x * f for x, f in zip(bws, rng.uniform(1 - jitter, 1 + jitter, n))]
    return CruiseInstance(
        proc_time=tuple(float(x) for x in procs),
        machine_bandwidth=tuple(float(x) for x in bws),
        dataset_size=max(1, round(c["dataset_size"] * scale)),
        model_size=max(1, round(c["model_size"] * scale)),
        batch_size=max(1, round(c["batch_size"] * scale)),
        name=f"cruise-{app}-heterogeneous-{n_slow}+{n_fast}",
    )


def random_instance(
    n: int,
    *,
    seed: int,
    dataset_size: int = 1000,
    model_size: int = 64,
    batch_size: int = 50,
    proc_range: tuple[float, float] = (0.5, 2.0),
    bandwidth_range: tuple[float, float] = (0.5, 2.0),
    matrix: bool = False,
    r: float | None = None,
) -> CruiseInstance:
    """A random heterogeneous cluster (log-uniform ``proc_time`` and bandwidth factors).

    Base values are scaled so that the communication/computation ratio
    ``r = M / (b B p)`` (default: log-uniform in ``[0.03, 0.6]``, the range the
    three calibrated apps span) puts the optimum inside ``1..N-1``.
    """
    rng = np.random.default_rng(seed)
    if r is None:
        r = float(math.exp(rng.uniform(math.log(0.03), math.log(0.6))))
    p0 = 1e-3
    b0 = model_size / (r * batch_size * p0)
    lo, hi = proc_range
    procs = p0 * np.exp(rng.uniform(math.log(lo), math.log(hi), n))
    blo, bhi = bandwidth_range
    if matrix:
        mat = b0 * np.exp(rng.uniform(math.log(blo), math.log(bhi), (n, n)))
        rows = tuple(tuple(None if i == j else float(mat[i, j]) for j in range(n)) for i in range(n))
        return CruiseInstance(tuple(float(x) for x in procs), dataset_size, model_size, batch_size,
                              bandwidth_matrix=rows, name=f"cruise-random-{n}-{seed}")
    bws = b0 * np.exp(rng.uniform(math.log(blo), math.log(bhi), n))
    return CruiseInstance(tuple(float(x) for x in procs), dataset_size, model_size, batch_size,
                          machine_bandwidth=tuple(float(x) for x in bws), name=f"cruise-random-{n}-{seed}")


def typed_cluster(
    types: int = 4,
    per_type: int | tuple[int, ...] = 8,
    *,
    seed: int = 0,
    app: str = "NMF",
    scale: float = 1.0,
    spread: float = 4.0,
) -> CruiseInstance:
    """A cluster of ``types`` machine types, ``per_type`` identical machines each
    (Section 3.4.5's setting with more types: e.g. 4 x 8 = 32 machines).

    Type ``t`` has the calibrated r4.xlarge ``proc_time`` divided by a speed-up
    and its bandwidth multiplied by a factor, both log-uniform in
    ``[1, spread]`` (seeded); the workload is ``app``'s calibrated one
    (:func:`calibrated_parameters`), with ``D``, ``M``, ``B`` scaled by ``scale``.
    """
    if types < 1:
        raise ValueError("types must be >= 1")
    counts = (per_type,) * types if isinstance(per_type, int) else tuple(per_type)
    if len(counts) != types or any(c < 1 for c in counts) or sum(counts) < 2:
        raise ValueError("per_type: one count >= 1 per type, at least 2 machines in all")
    if spread < 1:
        raise ValueError("spread must be >= 1")
    c = calibrated_parameters(app)
    rng = np.random.default_rng(seed)
    speed = np.exp(rng.uniform(0.0, math.log(spread), types))
    bwf = np.exp(rng.uniform(0.0, math.log(spread), types))
    procs: list[float] = []
    bws: list[float] = []
    for t, k in enumerate(counts):
        procs += [float(c["proc_time"] / speed[t])] * k
        bws += [float(c["bandwidth"] * bwf[t])] * k
    return CruiseInstance(
        proc_time=tuple(procs),
        machine_bandwidth=tuple(bws),
        dataset_size=max(1, round(c["dataset_size"] * scale)),
        model_size=max(1, round(c["model_size"] * scale)),
        batch_size=max(1, round(c["batch_size"] * scale)),
        name=f"cruise-{app}-{types}types-{sum(counts)}-s{seed}",
    )


def random_homogeneous(
    seed: int = 0,
    *,
    machines: tuple[int, int] = (3, 32),
    max_dataset: int = 5000,
    max_batch: int = 199,
    max_model: int = 499,
    r_range: tuple[float, float] = (0.03, 0.6),
) -> CruiseInstance:
    """A random homogeneous cluster (the setting of (3.5)): ``N`` uniform in ``machines``,
    ``D`` in ``[N, max_dataset)``, ``B`` in ``[1, max_batch]``, ``M`` in ``[1, max_model]``,
    ``proc_time = 10^-3`` and the bandwidth set by a communication/computation ratio
    ``r = M / (b B p)`` log-uniform in ``r_range`` (the three calibrated apps span
    0.03-0.6).  Seeded: one instance per seed."""
    rng = np.random.default_rng([seed, 35])
    n = int(rng.integers(machines[0], machines[1] + 1))
    D = int(rng.integers(n, max(n + 1, max_dataset)))
    B = int(rng.integers(1, max_batch + 1))
    M = int(rng.integers(1, max_model + 1))
    r = float(math.exp(rng.uniform(math.log(r_range[0]), math.log(r_range[1]))))
    p = 1e-3
    b = M / (r * B * p)
    return CruiseInstance(
        proc_time=(p,) * n,
        machine_bandwidth=(float(b),) * n,
        dataset_size=D,
        model_size=M,
        batch_size=B,
        name=f"cruise-random-homogeneous-s{seed}",
    )
