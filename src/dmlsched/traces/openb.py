"""Alibaba ``cluster-trace-gpu-v2023`` (openb) pod reader (the converter to moldable
instances is :func:`dmlsched.problems.moldable.traces.openb_to_moldable`).

``openb_pod_list_default.csv`` columns: ``name, cpu_milli, memory_mib,
num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time,
scheduled_time``.  ``gpu_milli`` is the share of one GPU in thousandths
(GPU-sharing pods have ``num_gpu == 1`` and ``gpu_milli < 1000``).
"""

from __future__ import annotations

import csv
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

