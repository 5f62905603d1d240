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

from ...generate._check import Args
from .instance import CruiseInstance

#: app -> (workers, servers) optimum on 32 r4.xlarge (Table 3.4), D, B
APPS = {
    "NMF": ((23, 9), 2_000_000, 10_000),
    "MLR": ((27, 5), 100_000, 1_000),
    "LDA": ((18, 14), 100_000, 1_000),
    "Lasso": ((20, 12), 100_000, 1_000),
}
MODEL_UNITS = 128 * 280
EPOCH_TARGET_S = 100.0


def calibrated_parameters(app: str) -> dict:
    """``p``, ``b``, ``D``, ``M``, ``B`` of ``app`` (see the module docstring)."""
    Args("generate.cruise.calibrated_parameters").choice("app", app, APPS)
    (W, S), D, B = APPS[app]
    r = (S / W) ** 2
    # with b = M / (r B p): D M / (b B S) = D r p / S, so C = D p (1 / W + r / S)
    p = EPOCH_TARGET_S / (D * (1.0 / W + r / S))
    b = MODEL_UNITS / (r * B * p)
    return {"proc_time": p, "bandwidth": b, "dataset_size": D, "model_size": MODEL_UNITS, "batch_size": B}


def homogeneous_cluster(*, seed: int = 0, app: str = "NMF", num_machines: int = 32,
                        scale: float = 1.0) -> CruiseInstance:
    """``num_machines`` identical r4.xlarge machines running ``app``.

    ``scale`` shrinks ``D`` and ``M`` (rounded, at least 1) for smaller instances.
    The workload is deterministic; ``seed`` is accepted (and unused) so that the
    benchmark engine can call every generator the same way.
    """
    a = Args("generate.cruise.homogeneous_cluster")
    a.choice("app", app, APPS)
    n = a.count("num_machines", num_machines, minimum=2)
    scale = a.number("scale", scale, positive=True)
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
    *,
    seed: int = 0,
    app: str = "NMF",
    num_slow: int = 28,
    num_fast: int = 4,
    speedup: float = 4.0,
    bandwidth_ratio: float = 4.0,
    jitter: float = 0.0,
    scale: float = 1.0,
) -> CruiseInstance:
    """Section 3.4.5's cluster: ``num_slow`` r4.xlarge and ``num_fast`` r4.4xlarge machines.

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
    a = Args("generate.cruise.heterogeneous_cluster")
    a.choice("app", app, APPS)
    n_slow = a.count("num_slow", num_slow, minimum=0)
    n_fast = a.count("num_fast", num_fast, minimum=0)
    if n_slow + n_fast < 2:
        a.fail("num_slow", f"+ num_fast must be >= 2 machines, got {n_slow} + {n_fast}")
    speedup = a.number("speedup", speedup, positive=True)
    bandwidth_ratio = a.number("bandwidth_ratio", bandwidth_ratio, positive=True)
    jitter = a.number("jitter", jitter, minimum=0)
    if not jitter < 1:
        a.fail("jitter", f"must be in [0, 1), got {jitter!r}")
    scale = a.number("scale", scale, positive=True)
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
    *,
    seed: int = 0,
    num_machines: int = 8,
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
    a = Args("generate.cruise.random_instance")
    n = a.count("num_machines", num_machines, minimum=2)
    dataset_size = a.count("dataset_size", dataset_size)
    model_size = a.count("model_size", model_size)
    batch_size = a.count("batch_size", batch_size)
    proc_range = a.number_range("proc_range", proc_range, positive=True)
    bandwidth_range = a.number_range("bandwidth_range", bandwidth_range, positive=True)
    a.flag("matrix", matrix)
    r = a.optional_number("r", r, positive=True)
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
    *,
    seed: int = 0,
    num_types: int = 4,
    per_type: int | tuple[int, ...] = 8,
    app: str = "NMF",
    scale: float = 1.0,
    spread: float = 4.0,
) -> CruiseInstance:
    """A cluster of ``num_types`` machine types, ``per_type`` identical machines each
    (Section 3.4.5's setting with more types: e.g. 4 x 8 = 32 machines).

    Type ``t`` has the calibrated r4.xlarge ``proc_time`` divided by a speed-up
    and its bandwidth multiplied by a factor, both log-uniform in
    ``[1, spread]`` (seeded); the workload is ``app``'s calibrated one
    (:func:`calibrated_parameters`), with ``D``, ``M``, ``B`` scaled by ``scale``.
    """
    a = Args("generate.cruise.typed_cluster")
    types = a.count("num_types", num_types)
    a.choice("app", app, APPS)
    scale = a.number("scale", scale, positive=True)
    if isinstance(per_type, (list, tuple)):
        counts = a.counts("per_type", per_type)
    else:
        counts = (a.count("per_type", per_type),) * types
    if len(counts) != types or sum(counts) < 2:
        a.fail("per_type", f"must be one count >= 1 per type ({types}), at least 2 machines in all, got {per_type!r}")
    spread = a.number("spread", spread, minimum=1)
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
    *,
    seed: int = 0,
    min_machines: int = 3,
    max_machines: int = 32,
    max_dataset: int = 5000,
    max_batch: int = 199,
    max_model: int = 499,
    r_range: tuple[float, float] = (0.03, 0.6),
) -> CruiseInstance:
    """A random homogeneous cluster (the setting of (3.5)): ``N`` uniform in
    ``min_machines..max_machines``,
    ``D`` in ``[N, max_dataset)``, ``B`` in ``[1, max_batch]``, ``M`` in ``[1, max_model]``,
    ``proc_time = 10^-3`` and the bandwidth set by a communication/computation ratio
    ``r = M / (b B p)`` log-uniform in ``r_range`` (the three calibrated apps span
    0.03-0.6).  Seeded: one instance per seed."""
    a = Args("generate.cruise.random_homogeneous")
    lo = a.count("min_machines", min_machines, minimum=2)
    hi = a.count("max_machines", max_machines, minimum=lo)
    max_dataset = a.count("max_dataset", max_dataset)
    max_batch = a.count("max_batch", max_batch)
    max_model = a.count("max_model", max_model)
    r_range = a.number_range("r_range", r_range, positive=True)
    rng = np.random.default_rng([seed, 35])
    n = int(rng.integers(lo, hi + 1))
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


__all__ = [
    "APPS", "EPOCH_TARGET_S", "MODEL_UNITS", "calibrated_parameters", "heterogeneous_cluster",
    "homogeneous_cluster", "random_homogeneous", "random_instance", "typed_cluster",
]
