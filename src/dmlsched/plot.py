"""Pictures: Gantt charts of schedules, ratio distributions, runtime vs size,
JCT CDFs, performance profiles.  Every function draws with matplotlib
(imported lazily, ``pip install 'dmlsched[plot]'``): single-panel functions on
an ``ax`` (created if not given) which they return, multi-panel ones on a new
figure which they return; :func:`savefig` writes PNG and, on request, the same
figure as PDF or SVG.  Methods keep one colour, marker and line style in every
figure (:func:`method_styles`: a colour-blind-safe palette combined with
markers, distinct past ten methods).

Gantt charts (:func:`gantt`, ``dmlsched gantt``) exist for every family:
Hare and any family whose solution JSON has a ``"tasks"`` list of
``{"job", "gpu", "start", "end"}`` (optionally ``"round"``, ``"sync_end"``);
HLAS runs with their GPU groups drawn as bands; RAR schedules (GPUs grouped by
server, in time slots); Cruise configurations (one epoch, one row per
machine); moldable schedules (shared GPUs as slices of a row); Harmony groupings (machines as rows, each group's
jobs as slices of its machines' rows, over the run's phases when the solution
carries an execution, else over one group iteration); GPU groupings (GPUs as
rows in bands per group, each job's speed on the GPU as a bar: an allocation,
not a schedule in time).  The bars are the family's: its ``Family.gantt``
(``solution.gantt_bars``, a :class:`~dmlsched.gantt.GanttChart`).  Any registered method
can be drawn, plugins included.  Charts stay readable at scale (see
:func:`plot_gantt`).
"""

from __future__ import annotations

import functools
import math
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .gantt import GanttChart, tasks_chart
from .registry import problem_of


def _plt():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo") and not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("darwin", "win32")


def _ax(ax: Any, figsize: tuple[float, float] = (8, 4)) -> Any:
    if ax is not None:
        return ax
    plt = _plt()
    _, ax = plt.subplots(figsize=figsize)
    return ax


# ---------------------------------------------------------------------------
# Gantt charts


def gantt_chart(instance: Any, solution: Any) -> GanttChart:
    """The :class:`~dmlsched.gantt.GanttChart` of a solution of any family that has a schedule:
    the family's ``Family.gantt`` (each family's ``solution.gantt_bars``), or for a family
    without one (a plugin) the ``"tasks"`` list of ``{"job", "gpu", "start", "end"}`` of
    its solution JSON.

    Raises
    ------
    ValueError
        If the family's solutions are not schedules in time (``Family.no_gantt`` says why).
    """
    spec = problem_of(instance)
    if isinstance(solution, JsonTasks):
        return tasks_chart(instance, list(solution.tasks))
    if spec.gantt is not None:
        return spec.gantt(instance, solution)
    if spec.no_gantt is not None:
        raise ValueError(f"no Gantt chart for problem {spec.name!r}: {spec.no_gantt}")
    sj = spec.solution_to_json(instance, solution)
    tasks = sj.get("tasks") if isinstance(sj, dict) else None
    if not isinstance(tasks, list) or not all(
        isinstance(t, dict) and {"job", "gpu", "start", "end"} <= set(t) for t in tasks
    ):
        raise ValueError(
            f"solutions of problem {spec.name!r} are not GPU task lists "
            "(need a 'tasks' list with job, gpu, start, end, or a Family.gantt)"
        )
    return tasks_chart(instance, tasks)


def gantt_tasks(instance: Any, solution: Any) -> list[dict]:
    """The task bars of a solution: ``[{"job", "gpu", "start", "end", ...}]``
    (see :func:`gantt_chart`).

    Raises
    ------
    ValueError
        If the family's solutions cannot be drawn as bars.
    """
    return gantt_chart(instance, solution).tasks



#: rows a Gantt chart draws one by one; past this, rows are aggregated (servers, GPU
#: groups or types, each member a slice of its row) or the busiest are drawn
MAX_GANTT_ROWS = 48

#: jobs named in a Gantt chart's legend; the others are counted in one entry
MAX_LEGEND_JOBS = 16

#: largest height of a Gantt chart (inches; 12 in x 120 dpi = 1440 pixels)
MAX_GANTT_HEIGHT_IN = 12.0

#: most round ends marked (dotted lines) in a Gantt chart; past this, none
MAX_ROUND_MARKS = 60

#: width of a Gantt chart (inches)
GANTT_WIDTH_IN = 10.0


def _busiest_rows(tasks: Sequence[dict], rows: list[int], k: int) -> list[int]:
    """The ``k`` rows of ``rows`` with the most busy time, in their order in ``rows``."""
    busy = dict.fromkeys(rows, 0.0)
    for t in tasks:
        r = int(t["gpu"])
        if r in busy:
            busy[r] += (float(t["end"]) - float(t["start"])) * float(t.get("height", 1.0))
    keep = set(sorted(rows, key=lambda r: (-busy[r], rows.index(r)))[:k])
    return [r for r in rows if r in keep]


def _aggregated(tasks: Sequence[dict], aggregate: Sequence[tuple[str, Sequence[int]]]) -> list[dict]:
    """Bars of ``tasks`` with each group of ``aggregate`` as one row: member ``i``
    of ``n`` takes the slice ``[i/n, (i+1)/n)`` of the row (a bar's own slice of
    its row shrinks into it)."""
    where: dict[int, tuple[int, int, int]] = {}
    for a, (_, rows) in enumerate(aggregate):
        for i, r in enumerate(rows):
            where[int(r)] = (a, i, len(rows))
    out = []
    for t in tasks:
        a, i, n = where[int(t["gpu"])]
        off, hgt = float(t.get("offset", 0.0)), float(t.get("height", 1.0))
        out.append({**t, "gpu": a, "offset": (i + off) / n, "height": hgt / n})
    return out


def plot_gantt(
    tasks: Sequence[dict],
    *,
    gpu_labels: Sequence[str] | None = None,
    ax: Any = None,
    title: str | None = None,
    show_sync: bool = True,
    label_tasks: bool | None = None,
    groups: Sequence[tuple[str, Sequence[int]]] | None = None,
    ylabel: str = "GPU",
    xlabel: str = "time",
    legend_title: str = "job",
    aggregate: Sequence[tuple[str, Sequence[int]]] | None = None,
    max_rows: int = MAX_GANTT_ROWS,
    max_legend: int = MAX_LEGEND_JOBS,
    integer_time: bool = False,
) -> Any:
    """Draw task bars: GPUs as rows, one colour per job, rounds marked.

    Readable at any scale: past ``max_rows`` rows, the rows are aggregated
    (each group of ``aggregate``, else of ``groups``, becomes one row in which
    every member is a slice) when that leaves at most ``max_rows`` rows, else
    only the ``max_rows`` busiest rows are drawn; the figure's height is at
    most :data:`MAX_GANTT_HEIGHT_IN`; the legend names at most ``max_legend``
    jobs and says how many it leaves out and whether colours repeat; hatching
    (odd rounds), synchronisation tails and round ends have legend entries; a
    character the fonts cannot draw is replaced by its escape (``\\u4f5c``).

    Parameters
    ----------
    tasks
        Dicts with ``job``, ``gpu`` (row index), ``start``, ``end`` (end of the
        GPU's busy time) and optionally ``round`` and ``sync_end`` (end of
        synchronisation, drawn as a thin translucent tail under the bars, so
        that the next task on the GPU covers it, as in Hare's model),
        ``offset`` and ``height`` (the slice of the row a bar takes, in [0, 1],
        for shared GPUs).
    gpu_labels
        Row labels (e.g. ``"0: V100"``); default the GPU indices.
    ax
        A matplotlib axes to draw on (created if not given, at most
        :data:`GANTT_WIDTH_IN` x :data:`MAX_GANTT_HEIGHT_IN` inches).
    title
        The chart's title.
    show_sync
        Draw the synchronisation tails.
    label_tasks
        Write ``job/r`` on each bar (default: when at most 200 bars are drawn).
    groups
        ``(label, rows)`` pairs: rows are ordered group by group, each group a
        shaded band with its label on the right (GPU groups, servers).
    ylabel, xlabel, legend_title
        Axis and legend titles.
    aggregate
        ``(label, rows)`` pairs used to aggregate rows past ``max_rows``
        (default ``groups``), e.g. GPU types.
    max_rows
        Most rows drawn.
    max_legend
        Most jobs named in the legend.
    integer_time
        Integer ticks on the time axis (time slots).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    plt = _plt()
    n_rows = max([int(t["gpu"]) for t in tasks] + [len(gpu_labels or []) - 1, 0]) + 1
    labels = [_drawable(str(x)) for x in gpu_labels] if gpu_labels else [str(m) for m in range(n_rows)]
    labels += [str(m) for m in range(len(labels), n_rows)]
    notes: list[str] = []
    slices = 0  # rows drawn as slices of aggregated rows
    agg = aggregate if aggregate is not None else groups
    if n_rows > max_rows and agg and len(agg) <= max_rows and all(len(r) for _, r in agg):
        covered = sorted(int(r) for _, rows in agg for r in rows)
        if covered == list(range(n_rows)):  # every row in exactly one group
            notes.append(f"{len(agg)} rows of {n_rows} {ylabel}s: one row per "
                         f"{'group' if aggregate is None else 'aggregate'}, each {ylabel} a slice")
            tasks = _aggregated(tasks, agg)
            labels = [_drawable(f"{lbl} ({len(rows)})") for lbl, rows in agg]
            slices = n_rows
            n_rows, groups = len(agg), None
            ylabel = f"{ylabel}s by {'group' if aggregate is None else 'aggregate'}"
    # row order: group by group (rows in no group at the end), else by index
    order: list[int] = []
    if groups:
        for _, rows in groups:
            order.extend(int(r) for r in rows if int(r) not in order)
    seen = set(order)
    order.extend(r for r in range(n_rows) if r not in seen)
    if len(order) > max_rows:
        order = _busiest_rows(tasks, order, max_rows)
        notes.append(f"the {max_rows} busiest of {n_rows} {ylabel}s")
        shown = set(order)
        tasks = [t for t in tasks if int(t["gpu"]) in shown]
        if groups:
            groups = [(lbl, [r for r in rows if int(r) in shown]) for lbl, rows in groups]
    pos = {r: k for k, r in enumerate(order)}
    rows_drawn = len(order)
    jobs = list(dict.fromkeys(str(t["job"]) for t in tasks))
    # room for every row (a slice of an aggregated row gets a quarter of a row) and the legend
    entries = min(len(jobs), max_legend) + 6
    height = max(2.5, 0.3 * max(rows_drawn, slices / 4) + 1.8, 0.17 * entries + 1.0)
    ax = _ax(ax, (GANTT_WIDTH_IN, min(MAX_GANTT_HEIGHT_IN, height)))
    cmap = plt.get_cmap("tab20" if len(jobs) > 10 else "tab10")
    color = {j: cmap(i % cmap.N) for i, j in enumerate(jobs)}
    if label_tasks is None:
        label_tasks = len(tasks) <= 200
    horizon = max([float(t.get("sync_end", t["end"])) for t in tasks] + [0.0])
    if groups:
        for k, (label, rows) in enumerate(groups):
            ys = [pos[int(r)] for r in rows if int(r) in pos]
            if not ys:
                continue
            lo, hi = min(ys) - 0.5, max(ys) + 0.5
            ax.axhspan(lo, hi, color="0.93" if k % 2 == 0 else "0.98", zorder=0)
            ax.axhline(hi, color="0.5", linewidth=0.8, zorder=1)
            ax.text(1.005, (lo + hi) / 2, _drawable(label), transform=ax.get_yaxis_transform(), ha="left",
                    va="center", fontsize=8, color="0.25")
    hatched = synced = False
    lw = 0.6 if len(tasks) <= 2000 else 0.2
    for t in tasks:
        y = pos[int(t["gpu"])]
        s, e = float(t["start"]), float(t["end"])
        j = str(t["job"])
        r = t.get("round")
        hatch = "//" if isinstance(r, int) and r % 2 == 1 else None  # alternate rounds
        hatched = hatched or hatch is not None
        off, hgt = float(t.get("offset", 0.0)), float(t.get("height", 1.0))
        ax.broken_barh([(s, max(e - s, 1e-12))], (y - 0.4 + 0.8 * off, 0.8 * hgt), facecolors=color[j],
                       edgecolors="black" if hgt >= 0.2 else "none", linewidth=lw, hatch=hatch, zorder=2)
        se = t.get("sync_end")
        if show_sync and se is not None and float(se) > e:
            synced = True
            # under the bars (zorder): the next task on the GPU may start during synchronisation
            ax.broken_barh([(e, float(se) - e)], (y - 0.4 + 0.8 * (off + 0.35 * hgt), 0.8 * 0.3 * hgt),
                           facecolors=color[j], alpha=0.45, edgecolors="none", zorder=1.5)
        if label_tasks and e - s > 0.03 * max(horizon, 1e-9):
            txt = _drawable(j if r is None else f"{j}/r{r}")
            ax.text((s + e) / 2, y - 0.4 + 0.8 * (off + hgt / 2), txt, ha="center", va="center", fontsize=7,
                    clip_on=True, zorder=3)
    # rounds marked: a tick where each (job, round) finishes synchronisation
    ends: dict[tuple[str, Any], float] = {}
    for t in tasks:
        if t.get("round") is not None:
            k = (str(t["job"]), t["round"])
            ends[k] = max(ends.get(k, -math.inf), float(t.get("sync_end", t["end"])))
    mark_rounds = 0 < len(ends) <= MAX_ROUND_MARKS
    if mark_rounds:
        for (j, _r), x in ends.items():
            ax.plot([x, x], [-0.6, rows_drawn - 0.4], color=color[j], linewidth=0.6, linestyle=":", alpha=0.8)
    ax.set_yticks(range(rows_drawn))
    ax.set_yticklabels([labels[r] for r in order], fontsize=8 if rows_drawn <= 24 else 6)
    ax.set_ylim(rows_drawn - 0.4, -0.6)
    ax.set_xlim(0, horizon * 1.02 if horizon > 0 else 1)
    if integer_time:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    handles = [Patch(facecolor=color[j], edgecolor="black", label=_drawable(j)) for j in jobs[:max_legend]]
    if len(jobs) > max_legend:
        more = f"+ {len(jobs) - max_legend} more {legend_title}s"
        if len(jobs) > cmap.N:
            more += f" (colours repeat every {cmap.N})"
        handles.append(Patch(facecolor="none", edgecolor="none", label=more))
    if hatched:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="odd rounds (hatched)"))
    if synced:
        handles.append(Patch(facecolor="0.4", alpha=0.45, edgecolor="none", label="synchronisation"))
    if mark_rounds:
        handles.append(Line2D([], [], color="0.3", linestyle=":", linewidth=0.8, label="end of a round"))
    for note in notes:
        handles.append(Patch(facecolor="none", edgecolor="none", label=f"rows: {note}"))
    if handles:
        ax.legend(handles=handles, title=legend_title, loc="upper left",
                  bbox_to_anchor=(1.08 if groups else 1.01, 1.0), fontsize=7, title_fontsize=8)
    if title:
        ax.set_title(_drawable(title), fontsize=10 if len(title) <= 70 else 8)
    return ax


@functools.lru_cache(maxsize=4)
def _charmap(families: tuple[str, ...]) -> frozenset[int]:
    """Code points the fonts of ``families`` draw (matplotlib falls back from
    one family to the next)."""
    from matplotlib import font_manager, ft2font

    points: set[int] = set()
    for fam in families:
        path = font_manager.findfont(font_manager.FontProperties(family=[fam]))
        points.update(ft2font.FT2Font(path).get_charmap())
    return frozenset(points)


def _drawable(text: str) -> str:
    """``text`` with every character the default fonts cannot draw replaced by
    its escape (``\\u4f5c``), so distinct ids stay distinct (matplotlib would
    draw a box and warn once per character)."""
    if text.isascii():
        return text
    import matplotlib

    fam = matplotlib.rcParams["font.family"]
    try:
        chars = _charmap((fam,) if isinstance(fam, str) else tuple(fam))
    except Exception:  # noqa: BLE001 - no font file to read: keep the text
        return text
    return "".join(c if ord(c) in chars or c.isspace() else c.encode("ascii", "backslashreplace").decode()
                   for c in text)


def gantt(instance: Any, solution: Any, *, ax: Any = None, title: str | None = None, **kw: Any) -> Any:
    """Gantt chart of ``solution`` of ``instance`` (see :func:`gantt_chart`, :func:`plot_gantt`).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (save it with :func:`savefig`).
    """
    ch = gantt_chart(instance, solution)
    kw.setdefault("groups", ch.groups)
    kw.setdefault("ylabel", ch.ylabel)
    kw.setdefault("xlabel", ch.xlabel)
    kw.setdefault("legend_title", ch.legend_title)
    kw.setdefault("aggregate", ch.aggregate)
    kw.setdefault("integer_time", ch.integer_time)
    return plot_gantt(ch.tasks, gpu_labels=ch.row_labels, ax=ax, title=title, **kw)


def gantt_title(instance: Any, result: Any, label: str | None = None) -> str:
    """``"NAME: METHOD (STATUS, OBJECTIVE-NAME VALUE)"``, the objective named
    by the family (e.g. ``average job completion time``)."""
    spec = problem_of(instance)
    name = label or getattr(instance, "name", "") or spec.name
    value = "-" if result.objective is None else f"{result.objective:.6g}"
    return f"{name}: {result.method} ({result.status.value}, {spec.objective_name} {value})"


# ---------------------------------------------------------------------------
# benchmark pictures

#: markers combined with the palette's colours (7 is prime to the palette's 10
#: colours, so 70 methods get distinct colour-marker pairs)
MARKERS = ("o", "s", "^", "D", "v", "P", "X")

#: line styles, changing every 10 methods
LINESTYLES = ("-", "--", "-.", ":")

#: matplotlib style sheets whose colour cycle is a colour-blind-safe qualitative
#: palette, first found first (petroff10: matplotlib >= 3.10)
PALETTES = ("petroff10", "tableau-colorblind10")


def palette() -> list[str]:
    """The colours of the first style sheet of :data:`PALETTES` matplotlib has."""
    plt = _plt()
    for name in PALETTES:
        if name in plt.style.library:
            return list(plt.style.library[name]["axes.prop_cycle"].by_key()["color"])
    return list(plt.rcParams["axes.prop_cycle"].by_key()["color"])  # pragma: no cover


def method_styles(names: Iterable[str]) -> dict[str, dict[str, str]]:
    """One ``{"color", "marker", "linestyle"}`` per name, in order: the
    ``i``-th name gets colour ``i mod 10`` of :func:`palette`, marker ``i mod
    7`` of :data:`MARKERS` and line style ``i // 10`` of :data:`LINESTYLES`,
    so any two of up to 70 names differ in colour or marker.  Pass the same
    (e.g. sorted) list to every figure so a method looks the same in all."""
    colors = palette()
    out: dict[str, dict[str, str]] = {}
    for i, n in enumerate(dict.fromkeys(names)):
        out[n] = {"color": colors[i % len(colors)], "marker": MARKERS[i % len(MARKERS)],
                  "linestyle": LINESTYLES[(i // len(colors)) % len(LINESTYLES)]}
    return out


def _styles(names: Iterable[str], styles: dict[str, dict[str, str]] | None) -> dict[str, dict[str, str]]:
    names = list(names)
    if styles is not None and all(n in styles for n in names):
        return styles
    return method_styles(names)


def plot_ratios(
    groups: dict[str, Sequence[float]],
    bounds: dict[str, Sequence[float]] | None = None,
    *,
    ax: Any = None,
    title: str | None = None,
    styles: dict[str, dict[str, str]] | None = None,
    ylabel: str = "ratio to reference",
) -> Any:
    """Distribution of ratio-to-reference per method (box and points, in the
    method's colour and marker) on an axis fitted to the ratios.

    The claimed bound of a method is a red line over its box when it lies
    within reach of the axis (a band between its smallest and largest value
    when it varies between instances); a bound far above every ratio does not
    stretch the axis: it is written at the top of the axis, with an arrow.
    """
    from matplotlib.lines import Line2D

    names = list(groups)
    st = _styles(names, styles)
    ax = _ax(ax, (max(5.0, 0.9 * len(names) + 2.5), 4))
    data = [[float(x) for x in groups[n] if x is not None and math.isfinite(float(x))] for n in names]
    pos = list(range(1, len(names) + 1))
    nonempty = [(p, d) for p, d in zip(pos, data) if d]
    if nonempty:
        ax.boxplot([d for _, d in nonempty], positions=[p for p, _ in nonempty], widths=0.5,
                   showfliers=False, medianprops={"color": "black"})
    rng = random.Random(0)  # deterministic jitter
    for p, n, d in zip(pos, names, data):
        ax.scatter([p + rng.uniform(-0.15, 0.15) for _ in d], d, s=12, alpha=0.7, color=st[n]["color"],
                   marker=st[n]["marker"], zorder=3, linewidths=0)
    values = [x for d in data for x in d] + [1.0]
    lo, hi = min(values), max(values)
    pad = 0.08 * (hi - lo) if hi > lo else 0.05 * max(abs(hi), 1.0)
    top = hi + pad
    bnd = {n: [float(x) for x in (bounds or {}).get(n, []) if x is not None and math.isfinite(float(x))]
           for n in names}
    # a bound within a third of the data's span above it is drawn; further ones are annotated
    reach = hi + max(hi - lo, 0.05 * max(abs(hi), 1.0)) / 3
    drawn = annotated = False
    for p, n in zip(pos, names):
        b = bnd[n]
        if not b:
            continue
        blo, bhi = min(b), max(b)
        text = f"{blo:.3g}" if math.isclose(blo, bhi) else f"{blo:.3g}-{bhi:.3g}"
        if blo <= reach:
            drawn = True
            top = max(top, min(bhi, reach) + pad)
            ax.plot([p - 0.35, p + 0.35], [blo, blo], color="tab:red", linewidth=2, zorder=4)
            if bhi > blo:
                ax.fill_between([p - 0.35, p + 0.35], blo, min(bhi, reach), color="tab:red", alpha=0.12,
                                zorder=1)
                ax.text(p, min(bhi, reach), f"to {bhi:.3g}" if bhi > reach else f"{bhi:.3g}", ha="center",
                        va="bottom", fontsize=7, color="tab:red")
        else:
            annotated = True
            ax.annotate(f"claim\n{text}", xy=(p, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(p, 0.86), textcoords=("data", "axes fraction"), ha="center", va="top",
                        fontsize=7, color="tab:red",
                        arrowprops={"arrowstyle": "->", "color": "tab:red", "linewidth": 0.8})
    if annotated:  # room for the annotations under the top edge
        top = hi + (top - hi) + 0.25 * (hi - lo + pad)
    ax.set_ylim(lo - pad, top)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(pos)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_xlim(0.4, len(names) + 0.6)
    ax.set_ylabel(ylabel)
    handles = []
    if drawn:
        handles.append(Line2D([], [], color="tab:red", linewidth=2, label="claimed bound"))
    if annotated:
        handles.append(Line2D([], [], color="tab:red", linewidth=0.8, marker="^", linestyle="none",
                              label="claimed bound above the axis (value written)"))
    if handles:
        ax.legend(handles=handles, loc="upper left", fontsize=7)
    if title:
        ax.set_title(title)
    return ax


def plot_runtime_vs_size(
    series: dict[str, tuple[Sequence[float], Sequence[float]]],
    *,
    size_name: str = "size",
    ax: Any = None,
    title: str | None = None,
    time_limit: float | None = None,
    styles: dict[str, dict[str, str]] | None = None,
) -> Any:
    """Runtime (log scale) against an instance size measure, one series per
    method in its colour and marker."""
    st = _styles(series, styles)
    ax = _ax(ax, (7.5, 4))
    for name, (xs, ys) in series.items():
        ax.scatter(xs, [max(y, 1e-5) for y in ys], s=16, marker=st[name]["marker"], color=st[name]["color"],
                   label=name, alpha=0.8, linewidths=0)
    if time_limit:
        ax.axhline(time_limit, color="tab:red", linestyle="--", linewidth=1, label="time limit")
    ax.set_yscale("log")
    ax.set_xlabel(size_name)
    ax.set_ylabel("runtime (s)")
    if series:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if title:
        ax.set_title(title)
    return ax


def _step_every(n: int) -> int:
    """Mark every ``k``-th point of a curve of ``n`` points (about 8 markers)."""
    return max(1, n // 8)


def plot_cdf(
    samples: dict[str, Iterable[float]],
    *,
    ax: Any = None,
    xlabel: str = "job completion time",
    title: str | None = None,
    styles: dict[str, dict[str, str]] | None = None,
    legend: bool = True,
) -> Any:
    """Empirical CDFs, one curve per method in its colour, marker and line
    style (e.g. JCTs of online policies)."""
    st = _styles(samples, styles)
    ax = _ax(ax, (6, 4))
    for name, xs in samples.items():
        v = sorted(float(x) for x in xs)
        if not v:
            continue
        n = len(v)
        ax.step([v[0]] + v, [0.0] + [(i + 1) / n for i in range(n)], where="post", label=f"{name}",
                color=st[name]["color"],
                linestyle=st[name]["linestyle"], marker=st[name]["marker"], markersize=4,
                markevery=_step_every(n))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    if samples and legend:
        ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return ax


def _panel_grid(n: int, width: float = 4.2, height: float = 3.3) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels (at most 3 per row) and its axes, in order."""
    plt = _plt()
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 0.9), squeeze=False)
    flat = list(axes.flat)
    for extra in flat[n:]:
        extra.set_visible(False)
    return fig, flat[:n]


def figure_legend(fig: Any, axes: Sequence[Any], *, ncol: int = 6) -> None:
    """One legend for the figure, below its panels: every labelled artist once,
    in rows of ``ncol`` entries; the panels are laid out above it."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, lbl in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lbl, h)
    if seen:
        ncol = min(len(seen), ncol)
        fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=ncol, fontsize=7, frameon=False)
        rows = -(-len(seen) // ncol)
        height = fig.get_size_inches()[1]
        fig.tight_layout(rect=(0, min(0.4, (0.2 * rows + 0.25) / height), 1, 1))
    else:
        fig.tight_layout()


def plot_cdf_panels(
    panels: dict[str, dict[str, Iterable[float]]],
    *,
    title: str | None = None,
    xlabel: str = "job completion time",
    styles: dict[str, dict[str, str]] | None = None,
) -> Any:
    """Empirical CDFs in one panel per key of ``panels`` (e.g. per instance
    size, so that instances of different sizes are not pooled), one legend for
    the figure.  Returns the figure."""
    names = list(dict.fromkeys(m for p in panels.values() for m in p))
    st = _styles(names, styles)
    fig, axes = _panel_grid(max(len(panels), 1))
    for ax, (label, samples) in zip(axes, panels.items()):
        plot_cdf(samples, ax=ax, xlabel=xlabel, title=label, styles=st, legend=False)
        ax.title.set_fontsize(9)
    if title:
        fig.suptitle(title, fontsize=10)
    figure_legend(fig, axes)
    return fig


def plot_performance_profiles(
    panels: Sequence[tuple[str, dict[str, Sequence[float]]]],
    *,
    styles: dict[str, dict[str, str]] | None = None,
    title: str | None = None,
) -> Any:
    """Dolan-Moré performance profiles, one panel per ``(title, ratios)``:
    ``ratios[method]`` holds the method's performance ratio on each instance
    (``inf`` where it has no solution); the curve is the fraction of instances
    with ratio <= tau.  One legend for the figure; returns the figure."""
    names = list(dict.fromkeys(m for _, r in panels for m in r))
    st = _styles(names, styles)
    fig, axes = _panel_grid(max(len(panels), 1), width=5.6, height=3.8)
    for ax, (label, ratios) in zip(axes, panels):
        finite = [x for rs in ratios.values() for x in rs if math.isfinite(x)]
        hi = max(finite + [1.0]) * 1.05
        taus = np.array(sorted({1.0, hi} | set(finite)))
        for name, rs in ratios.items():
            arr = np.sort(np.asarray(rs, dtype=float))
            frac = np.searchsorted(arr, taus, side="right") / max(len(arr), 1)
            ax.step(taus, frac, where="post", label=name, color=st[name]["color"],
                    linestyle=st[name]["linestyle"], marker=st[name]["marker"], markersize=4,
                    markevery=_step_every(len(taus)))
        if hi > 4:  # Dolan-Moré's log2 axis for wide ranges, plain numbers otherwise
            from matplotlib.ticker import ScalarFormatter

            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlim(1.0, hi)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("tau (ratio to the best method on the instance)")
        ax.set_ylabel("fraction of instances within tau")
        ax.set_title(label, fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    figure_legend(fig, axes)
    return fig


def savefig(obj: Any, path: str, dpi: int = 120, *, formats: Sequence[str] = ()) -> list[str]:
    """Save the figure of ``obj`` (an axes or a figure) to ``path`` and close it.

    ``formats`` (e.g. ``("pdf", "svg")``): also write the figure in these
    formats, next to ``path`` with their suffix (vector output for papers).
    Each file is written atomically (:func:`save_atomic`): an interrupted or
    failed save leaves an existing file as it was.  Returns the paths written.
    """
    fig = getattr(obj, "figure", None) or obj
    if not fig.get_layout_engine() and not fig.legends:
        fig.tight_layout()
    written = [str(path)]
    try:
        save_atomic(fig, path, dpi=dpi)
        for fmt in formats:
            other = str(Path(path).with_suffix("." + fmt.lstrip(".")))
            if other not in written:
                save_atomic(fig, other, dpi=dpi)
                written.append(other)
    finally:
        _plt().close(fig)
    return written


def save_atomic(fig: Any, path: str | Path, **kw: Any) -> None:
    """``fig.savefig`` to a temporary file beside ``path`` (same extension, so
    the same format), then moved over ``path``."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp{p.suffix}")
    try:
        fig.savefig(str(tmp), **kw)
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()


def supported_formats() -> set[str]:
    """File extensions matplotlib can write (``png``, ``pdf``, ``svg``, ...)."""
    from matplotlib.figure import Figure

    return set(Figure().canvas.get_supported_filetypes())


@dataclass
class JsonTasks:
    """A recorded solution drawn from its JSON task list (a family without ``from_json``)."""

    tasks: list
