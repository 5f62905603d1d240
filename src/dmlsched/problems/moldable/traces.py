"""Converters of real workload traces to moldable instances: SWF jobs
(:func:`swf_to_moldable`, the paper's Section VI setup) and Alibaba openb GPU
pods (:func:`openb_to_moldable`).

The readers stay in :mod:`dmlsched.traces` (:func:`~dmlsched.traces.read_swf`,
:func:`~dmlsched.traces.read_openb`); the converters build this family's
instances, so they live in the family (``dmlsched.traces`` sits below the
families and never imports them).
"""

from __future__ import annotations

import math

import numpy as np

from ...traces.openb import OpenbTrace, peak_gpu_demand
from ...traces.swf import SWFTrace
from .instance import MoldableInstance, MoldableTask, SpeedupCurve


def swf_to_moldable(
    trace: SWFTrace,
    *,
    gpus: int | None = None,
    mode: str = "moldable",
    moldable_max: int | str = "machine",
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
    limit: int | None = None,
    offline: bool = False,
    name: str | None = None,
):
    """Convert SWF jobs to a moldable instance (the paper's Section VI setup).

    Each job with a known run time and processor count becomes a task with
    ``arrival = submit`` (``0`` with ``offline``, Section VI-B), ``p_req`` =
    requested processors (allocated ones when the request is missing),
    ``volume = run time * p_req`` and linear speedup (a processor is treated
    as a GPU).  ``p_req`` above the cluster (or above ``p_max``) is clipped.

    Parameters
    ----------
    gpus
        Simulated cluster size (default: the trace's ``MaxProcs``, else the
        largest processor count in it).
    mode
        ``"moldable"``: ``(p_min, p_max) = (1, cap)`` with ``cap`` from
        ``moldable_max``, and ``p_req`` kept for the rigid policies, so that one
        instance serves both ("We set (p_min, p_max) = (1, 240) for the
        moldable/malleable algorithms and (p_min, p_max) = (p_req, p_req) for
        the rigid algorithms", Section VI).  ``"rigid"``: ``p_max = p_req``
        (the model's ``p_min`` is a unit fraction, so it stays 1; the rigid
        policies allocate ``p_req``).
    moldable_max
        The moldable cap: ``"machine"`` (default, the paper's reading: the
        trace's machine size, 240 for HPC2N, 256 for Lublin, whatever the
        simulated size, clipped to ``gpus``), ``"cluster"`` (the whole
        simulated cluster, ``|G|``), or an integer.
    limit
        Keep only the first ``limit`` usable jobs (``None``: the whole trace).

    Jobs without run time or processors (``-1``/``0``) are dropped; their
    count is in ``instance.source["dropped"]``.
    """
    if mode not in ("rigid", "moldable"):
        raise ValueError(f"mode must be 'rigid' or 'moldable', got {mode!r}")
    c = trace.columns
    observed = int(max(c["alloc_procs"].max(), c["req_procs"].max())) if len(trace) else 1
    machine = int(trace.max_procs or observed)
    G = int(gpus if gpus is not None else machine)
    if G < 1:
        raise ValueError(f"gpus must be >= 1, got {G}")
    if isinstance(moldable_max, str):
        if moldable_max == "machine":
            cap = min(machine, G)
        elif moldable_max == "cluster":
            cap = G
        else:
            raise ValueError(f"moldable_max must be 'machine', 'cluster' or an integer, got {moldable_max!r}")
    else:
        if int(moldable_max) < 1:
            raise ValueError(f"moldable_max must be >= 1, got {moldable_max}")
        cap = min(int(moldable_max), G)
    procs = np.where(c["req_procs"] > 0, c["req_procs"], c["alloc_procs"])
    ok = (c["run"] > 0) & (procs > 0)
    idx = np.flatnonzero(ok)
    if limit is not None:
        idx = idx[:limit]
    tasks = []
    clipped = 0
    for i in idx:
        preq = int(procs[i])
        p = min(preq, G if mode == "rigid" else cap)
        clipped += p < preq
        tasks.append(
            MoldableTask(
                id=str(int(c["job"][i])),
                user=str(int(c["user"][i])),
                arrival=0.0 if offline else float(c["submit"][i]),
                volume=float(c["run"][i] * procs[i]),
                pmin_den=1,
                p_max=p if mode == "rigid" else cap,
                memory=0.0,
                p_req=p,
            )
        )
    return MoldableInstance(
        gpus=G,
        gpu_memory=1.0,
        speedup=SpeedupCurve.linear(G),
        tasks=tuple(tasks),
        preemption_overhead=preemption_overhead,
        preemption_min_remaining=preemption_min_remaining,
        name=name or f"{trace.source}-{mode}-{G}",
        source={"trace": trace.source, "mode": mode, "machine": machine, "moldable_max": cap,
                "dropped": int((~ok).sum()), "clipped": int(clipped), "bad_rows": len(trace.bad)},
    )


def openb_to_moldable(
    trace: OpenbTrace,
    *,
    gpus: int | None = None,
    speedup: tuple[tuple[float, float], ...] | None = None,
    gpu_memory: float = 1.0,
    preemption_overhead: float = 0.0,
    preemption_min_remaining: float = 300.0,
    moldable_max: int | None = None,
    drop_failed: bool = False,
    name: str | None = None,
):
    """Convert GPU pods to a moldable instance.

    * ``gpus`` (default ``None``): the simulated cluster size; by default the
      most GPUs the trace's pods held at once as recorded, rounded up
      (:func:`peak_gpu_demand`, 66 for ``openb_pod_list_default.csv``): the
      smallest cluster that held the trace as it ran.  (The node list's 6,212
      GPUs belong to the whole production cluster, of which the pod list is a
      sample.)
    * CPU-only pods (``num_gpu == 0``) and pods never scheduled (no
      ``scheduled_time``, e.g. ``Pending``) are dropped (counted in
      ``instance.source``);
    * pods that ended ``Failed`` (about 30% of the GPU tasks) are kept: they
      held their GPUs from ``scheduled_time`` to ``deletion_time`` like any
      other pod, so they are part of the load the cluster served;
      ``drop_failed=True`` drops them (counted as ``failed``);
    * ``arrival = creation_time``; duration ``d = deletion_time - scheduled_time``
      (pods with ``d == 0`` are dropped);
    * GPU-sharing pods (``gpu_milli < 1000``): ``p_min = 1/n`` with
      ``n = floor(1000 / gpu_milli)`` (the largest unit fraction the pod's share
      fits in), ``p_max = 1``, ``p_req = 1`` (a rigid policy gives it a whole
      GPU), ``volume = d``;
    * whole-GPU pods: ``p_min = 1``, ``p_max = p_req = num_gpu`` (clipped to
      ``gpus``), ``volume = d * num_gpu`` (linear speedup, as for SWF);
    * ``moldable_max`` (optional) raises every ``p_max`` to that value (a
      moldable range beyond the request; ``p_req`` stays the request);
    * the trace has no per-pod device-memory column, so ``memory = 0``;
      ``user`` is the pod name (the trace has no users: every pod is its own job).
    """
    if gpus is None:
        gpus = max(1, math.ceil(peak_gpu_demand(trace) - 1e-9))
        default_size = True
    else:
        default_size = False
    if isinstance(gpus, bool) or int(gpus) != gpus or gpus < 1:
        raise ValueError(f"gpus must be an integer >= 1, got {gpus!r}")
    gpus = int(gpus)
    tasks = []
    dropped = {"cpu_only": 0, "unscheduled": 0, "zero_duration": 0}
    if drop_failed:
        dropped["failed"] = 0
    failed_kept = 0
    for pod in trace.pods:
        if pod.num_gpu == 0:
            dropped["cpu_only"] += 1
            continue
        if pod.scheduled_time is None:
            dropped["unscheduled"] += 1
            continue
        d = pod.deletion_time - pod.scheduled_time
        if d <= 0:
            dropped["zero_duration"] += 1
            continue
        if pod.pod_phase == "Failed":
            if drop_failed:
                dropped["failed"] += 1
                continue
            failed_kept += 1
        if pod.num_gpu == 1 and pod.gpu_milli < 1000:
            den, pmax, vol = max(1, 1000 // pod.gpu_milli), 1, float(d)
        else:
            den, pmax, vol = 1, min(pod.num_gpu, gpus), float(d) * pod.num_gpu
        preq = pmax
        if moldable_max is not None:
            pmax = max(pmax, min(moldable_max, gpus))
        tasks.append(
            MoldableTask(
                id=pod.name, user=pod.name, arrival=float(pod.creation_time), volume=vol,
                pmin_den=min(den, 1000), p_max=pmax, memory=0.0, p_req=preq,
            )
        )
    curve = SpeedupCurve(tuple(speedup)) if speedup is not None else SpeedupCurve.linear(gpus)
    return MoldableInstance(
        gpus=gpus,
        gpu_memory=gpu_memory,
        speedup=curve,
        tasks=tuple(tasks),
        preemption_overhead=preemption_overhead,
        preemption_min_remaining=preemption_min_remaining,
        name=name or f"openb-{gpus}",
        source={"trace": trace.source, "dropped": dropped, "failed_kept": failed_kept,
                "gpus": "peak recorded demand" if default_size else "given", "bad_rows": len(trace.bad)},
    )


__all__ = ["openb_to_moldable", "swf_to_moldable"]
