"""Standard Workload Format (SWF) reader and converter to moldable instances.

SWF: ``;`` header comment lines, then one job per line with 18
whitespace-separated numeric fields, ``-1`` for missing: job number, submit
time, wait time, run time, allocated processors, average CPU time, used
memory, requested processors, requested time, requested memory, status, user,
group, executable, queue, partition, preceding job, think time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .common import TraceError

FIELDS = (
    "job", "submit", "wait", "run", "alloc_procs", "avg_cpu", "used_mem", "req_procs",
    "req_time", "req_mem", "status", "user", "group", "executable", "queue", "partition",
    "preceding", "think",
)


@dataclass
class SWFTrace:
    """Parsed SWF jobs as integer/float columns (one entry per job line).

    ``header`` holds the ``; Key: value`` comment lines; ``bad`` lists
    ``(line, message)`` of rows skipped with ``skip_bad=True``.
    """

    source: str
    columns: dict[str, np.ndarray]
    header: dict[str, str] = field(default_factory=dict)
    bad: list[tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.columns["job"].shape[0])

    @property
    def max_procs(self) -> int | None:
        for key in ("MaxProcs", "MaxNodes"):
            if key in self.header:
                try:
                    return int(self.header[key])
                except ValueError:
                    return None
        return None


def read_swf(path: str | os.PathLike, *, skip_bad: bool = False) -> SWFTrace:
    """Read an SWF file.

    Raises
    ------
    TraceError
        On a malformed job line (wrong field count, non-numeric field,
        negative submit time), naming the line, unless ``skip_bad``.
    """
    p = Path(path)
    rows: list[list[float]] = []
    header: dict[str, str] = {}
    bad: list[tuple[int, str]] = []
    try:
        fh = open(p, encoding="utf-8", errors="strict")
    except OSError as e:
        raise TraceError(str(p), 0, f"cannot read: {e}") from None
    with fh:
        for ln, line in enumerate(fh, start=1):
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                body = s[1:].strip()
                if ":" in body:
                    k, v = body.split(":", 1)
                    header[k.strip()] = v.strip()
                continue
            parts = s.split()
            try:
                if len(parts) != 18:
                    raise ValueError(f"expected 18 fields, got {len(parts)}")
                vals = []
                for name, x in zip(FIELDS, parts):
                    try:
                        v = float(x)
                    except ValueError:
                        raise ValueError(f"field {name!r}: not a number: {x!r}") from None
                    if not np.isfinite(v):
                        raise ValueError(f"field {name!r}: not finite")
                    vals.append(v)
                if vals[1] < 0:
                    raise ValueError(f"field 'submit': must be >= 0, got {parts[1]}")
            except ValueError as e:
                if skip_bad:
                    bad.append((ln, str(e)))
                    continue
                raise TraceError(p.name, ln, str(e)) from None
            rows.append(vals)
    arr = np.array(rows, dtype=float).reshape(-1, 18)
    cols = {name: arr[:, i] for i, name in enumerate(FIELDS)}
    return SWFTrace(source=p.name, columns=cols, header=header, bad=bad)


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
    from ..problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve

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
