"""Standard Workload Format (SWF) reader (the converter to moldable instances is
:func:`dmlsched.problems.moldable.traces.swf_to_moldable`).

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

