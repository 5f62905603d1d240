"""Readers of real workload traces.

* :mod:`.swf` — Standard Workload Format (Parallel Workloads Archive);
* :mod:`.openb` — Alibaba ``cluster-trace-gpu-v2023`` (openb) GPU pods.

Malformed rows raise :class:`TraceError` naming the file and line; with
``skip_bad=True`` they are skipped and listed in the result's ``bad`` field.

:func:`traces_dir` finds the shared traces folder (``$DMLSCHED_TRACES``, else
``../shared/traces`` next to the project's checkout).

The converters to moldable instances are the moldable family's:
:mod:`dmlsched.problems.moldable.traces` (``swf_to_moldable``,
``openb_to_moldable``).
"""

from .common import TraceError, TracesNotFound, trace_path, traces_dir
from .openb import OpenbTrace, read_openb
from .swf import SWFTrace, read_swf

__all__ = [
    "OpenbTrace",
    "SWFTrace",
    "TraceError",
    "TracesNotFound",
    "read_openb",
    "read_swf",
    "trace_path",
    "traces_dir",
]
