"""What a Gantt chart shows, as data: :class:`GanttChart` (bars, rows, bands).

Each family's ``solution.gantt_bars(instance, solution)`` returns one (named by
its ``Family.gantt``); :mod:`dmlsched.plot` draws it.  This module imports
only the standard library, so families can build charts without matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GanttChart", "gpu_labels", "gpu_types", "tasks_chart"]


@dataclass
class GanttChart:
    """What a Gantt chart of one solution shows.

    Attributes
    ----------
    tasks
        Bars: dicts with ``job`` (colour key and label), ``gpu`` (row index),
        ``start``, ``end`` and optionally ``round``, ``sync_end``, ``offset``,
        ``height`` (see :func:`plot_gantt`).
    row_labels
        One label per row (``None``: the row indices).
    groups
        ``(label, rows)`` pairs drawn as bands of rows (HLAS GPU groups, RAR
        servers); rows are ordered group by group.
    ylabel, xlabel, legend_title
        Axis and legend titles.
    aggregate
        ``(label, rows)`` pairs that become one row each when there are too
        many rows to draw one by one (GPU types; default ``groups``).
    integer_time
        The time axis counts slots (integer ticks).
    """

    tasks: list[dict]
    row_labels: list[str] | None = None
    groups: list[tuple[str, list[int]]] | None = None
    ylabel: str = "GPU"
    xlabel: str = "time"
    legend_title: str = "job"
    aggregate: list[tuple[str, list[int]]] | None = None
    integer_time: bool = False


def gpu_labels(instance: Any) -> list[str] | None:
    """``"m: type"`` per GPU of an instance listing one GPU type per GPU (``gpus``), else ``None``."""
    gpus = getattr(instance, "gpus", None)
    if isinstance(gpus, (list, tuple)):
        return [f"{m}: {g}" for m, g in enumerate(gpus)]
    return None


def gpu_types(instance: Any) -> list[tuple[str, list[int]]] | None:
    """``(type, GPUs)`` pairs of an instance listing one GPU type per GPU."""
    gpus = getattr(instance, "gpus", None)
    if not isinstance(gpus, (list, tuple)):
        return None
    out: dict[str, list[int]] = {}
    for m, g in enumerate(gpus):
        out.setdefault(str(g), []).append(m)
    return list(out.items())


def tasks_chart(instance: Any, tasks: list[dict]) -> GanttChart:
    """A chart of task bars on an instance's GPUs (rows labelled by GPU, aggregated by GPU type)."""
    return GanttChart(tasks, row_labels=gpu_labels(instance), aggregate=gpu_types(instance))
