"""Alibaba ``cluster-trace-gpu-v2023`` (openb) pod reader and converter.

``openb_pod_list_default.csv`` columns: ``name, cpu_milli, memory_mib,
num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time,
scheduled_time``.  ``gpu_milli`` is the share of one GPU in thousandths
(GPU-sharing pods have ``num_gpu == 1`` and ``gpu_milli < 1000``).
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from .common import TraceError

POD_FILE = "openb_pod_list_default.csv"
POD_COLUMNS = (
    "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
    "creation_time", "deletion_time", "scheduled_time",
)


@dataclass(frozen=True)
class OpenbPod:
    """One pod; ``scheduled_time`` is ``None`` for pods never scheduled."""

    line: int
    name: str
    num_gpu: int
    gpu_milli: int
    gpu_spec: str
    qos: str
    pod_phase: str
    creation_time: int
    deletion_time: int
    scheduled_time: int | None
    memory_mib: int


@dataclass
class OpenbTrace:
    """Parsed pods; ``bad`` lists ``(line, message)`` of rows skipped with ``skip_bad=True``."""

    source: str
    pods: list[OpenbPod]
    bad: list[tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.pods)


def _int(row: dict, key: str, *, lo: int | None = None, hi: int | None = None, optional: bool = False):
    x = (row.get(key) or "").strip()
    if x == "":
        if optional:
            return None
        raise ValueError(f"{key}: missing")
    try:
        v = int(x)
    except ValueError:
        try:
            f = float(x)
        except ValueError:
            raise ValueError(f"{key}: not an integer: {x!r}") from None
        if not f.is_integer():
            raise ValueError(f"{key}: not an integer: {x!r}") from None
        v = int(f)
    if lo is not None and v < lo:
        raise ValueError(f"{key}: must be >= {lo}, got {v}")
    if hi is not None and v > hi:
        raise ValueError(f"{key}: must be <= {hi}, got {v}")
    return v


def read_openb(path: str | os.PathLike, *, skip_bad: bool = False) -> OpenbTrace:
    """Read the openb pod list (a folder holding :data:`POD_FILE`, or the CSV itself).

    Raises
    ------
    TraceError
        On a missing column or a malformed row (non-integer field, negative
        GPU count, ``gpu_milli`` outside ``[0, 1000]``, deletion before
        scheduling), naming the line, unless ``skip_bad``.
    """
    p = Path(path)
    if p.is_dir():
        p = p / POD_FILE
    try:
        fh = open(p, encoding="utf-8", newline="")
    except OSError as e:
        raise TraceError(str(p), 0, f"cannot read: {e}") from None
    pods: list[OpenbPod] = []
    bad: list[tuple[int, str]] = []
    with fh:
        reader = csv.DictReader(fh)
        missing = [c for c in POD_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise TraceError(p.name, 1, f"missing column(s) {', '.join(missing)}")
        for row in reader:
            ln = reader.line_num
            try:
                if None in row or any(v is None for v in row.values()):
                    raise ValueError("wrong number of fields")
                name = row["name"].strip()
                if not name:
                    raise ValueError("name: missing")
                num_gpu = _int(row, "num_gpu", lo=0)
                gpu_milli = _int(row, "gpu_milli", lo=0, hi=1000)
                created = _int(row, "creation_time", lo=0)
                deleted = _int(row, "deletion_time", lo=0)
                sched = _int(row, "scheduled_time", lo=0, optional=True)
                mem = _int(row, "memory_mib", lo=0, optional=True)
                if sched is not None and deleted < sched:
                    raise ValueError(f"deletion_time {deleted} before scheduled_time {sched}")
                if num_gpu >= 1 and gpu_milli == 0:
                    raise ValueError("gpu_milli: must be > 0 for a GPU pod")
            except ValueError as e:
                if skip_bad:
                    bad.append((ln, str(e)))
                    continue
                raise TraceError(p.name, ln, str(e)) from None
            pods.append(
                OpenbPod(
                    line=ln, name=name, num_gpu=num_gpu, gpu_milli=gpu_milli,
                    gpu_spec=(row["gpu_spec"] or "").strip(), qos=(row["qos"] or "").strip(),
                    pod_phase=(row["pod_phase"] or "").strip(), creation_time=created,
                    deletion_time=deleted, scheduled_time=sched, memory_mib=mem or 0,
                )
            )
    return OpenbTrace(source=p.name, pods=pods, bad=bad)


def peak_gpu_demand(trace: OpenbTrace) -> float:
    """Most GPUs the trace's pods held at once as recorded (``scheduled_time``
    to ``deletion_time``; a sharing pod counts its share ``gpu_milli/1000``)."""
    ev: list[tuple[int, float]] = []
    for pod in trace.pods:
        if pod.num_gpu and pod.scheduled_time is not None and pod.deletion_time > pod.scheduled_time:
            g = pod.num_gpu * pod.gpu_milli / 1000.0
            ev.append((pod.scheduled_time, g))
            ev.append((pod.deletion_time, -g))
    ev.sort(key=lambda e: (e[0], e[1]))
    cur = peak = 0.0
    for _, g in ev:
        cur += g
        peak = max(peak, cur)
    return peak


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
    from ..problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve

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
