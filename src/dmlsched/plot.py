"""Pictures: Gantt charts of schedules, ratio distributions, runtime vs size,
JCT CDFs.  Every function draws on a matplotlib ``ax`` (created if not given)
and returns it; matplotlib is imported lazily (``pip install 'dmlsched[plot]'``).

Gantt charts (:func:`gantt`, ``dmlsched gantt``) exist for every family whose
solutions are schedules in time: Hare and any family whose solution JSON has
a ``"tasks"`` list of ``{"job", "gpu", "start", "end"}`` (optionally
``"round"``, ``"sync_end"``); HLAS runs with their GPU groups drawn as bands;
RAR schedules (GPUs grouped by server, in time slots); Cruise configurations
(one epoch, one row per machine); moldable schedules (shared GPUs as slices of
a row, through the family's ``gantt_tasks``).  A family package can provide
``gantt_tasks(instance, solution)`` returning the bars.  Harmony and
GPU-grouping solutions are allocations without times: no chart.  Any
registered method can be drawn, plugins included.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence


def _plt():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo") and not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _has_display() -> bool:
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("darwin", "win32")


def _ax(ax: Any, figsize: tuple[float, float] = (8, 4)) -> Any:
    if ax is not None:
        return ax
    plt = _plt()
    _, ax = plt.subplots(figsize=figsize)
    return ax


# ---------------------------------------------------------------------------
# Gantt charts


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
    """

    tasks: list[dict]
    row_labels: list[str] | None = None
    groups: list[tuple[str, list[int]]] | None = None
    ylabel: str = "GPU"
    xlabel: str = "time"
    legend_title: str = "job"


#: families whose solutions are not schedules in time (nothing to draw), and why
NOT_SCHEDULES = {
    "harmony": "a Harmony solution is a grouping of jobs and machines per group (a steady state), not a schedule in time",
    "gpu-grouping": "a GPU-grouping solution assigns GPUs to groups; it has no times",
}


def gantt_chart(instance: Any, solution: Any) -> GanttChart:
    """The :class:`GanttChart` of a solution of any family that has a schedule.

    Hare schedules (and any family whose solution JSON has a ``"tasks"`` list
    of ``{"job", "gpu", "start", "end"}``) are drawn as they are; HLAS runs
    with their GPU groups as bands; RAR schedules with one row per GPU,
    grouped by server, in time slots; Cruise configurations as one epoch, one
    row per machine (each worker's mini-batches: computation, then
    communication with the servers); moldable schedules through the family's
    ``gantt_tasks`` (shared GPUs as slices of a row).  A family package may
    provide ``gantt_tasks(instance, solution)`` returning the bars.

    Raises
    ------
    ValueError
        If the family's solutions are not schedules in time.
    """
    import importlib

    from .registry import problem_of

    spec = problem_of(instance)
    if spec.name in _CONVERTERS:
        return _CONVERTERS[spec.name](instance, solution)
    if spec.name in NOT_SCHEDULES:
        raise ValueError(f"no Gantt chart for problem {spec.name!r}: {NOT_SCHEDULES[spec.name]}")
    try:
        fam = importlib.import_module(f"dmlsched.problems.{spec.name.replace('-', '')}")
        conv = getattr(fam, "gantt_tasks", None)
    except ImportError:
        conv = None
    if conv is not None:
        return GanttChart(list(conv(instance, solution)), row_labels=_gpu_labels(instance))
    sj = spec.solution_to_json(instance, solution)
    tasks = sj.get("tasks") if isinstance(sj, dict) else None
    if not isinstance(tasks, list) or not all(
        isinstance(t, dict) and {"job", "gpu", "start", "end"} <= set(t) for t in tasks
    ):
        raise ValueError(
            f"solutions of problem {spec.name!r} are not GPU task lists "
            "(need a 'tasks' list with job, gpu, start, end, or a family gantt_tasks())"
        )
    return GanttChart(tasks, row_labels=_gpu_labels(instance))


def gantt_tasks(instance: Any, solution: Any) -> list[dict]:
    """The task bars of a solution: ``[{"job", "gpu", "start", "end", ...}]``
    (see :func:`gantt_chart`).

    Raises
    ------
    ValueError
        If the family's solutions cannot be drawn as bars.
    """
    return gantt_chart(instance, solution).tasks


def _gpu_labels(instance: Any) -> list[str] | None:
    gpus = getattr(instance, "gpus", None)
    if isinstance(gpus, (list, tuple)):
        return [f"{m}: {g}" for m, g in enumerate(gpus)]
    return None


def _hlas_chart(instance: Any, run: Any) -> GanttChart:
    """HLAS: Hare's task bars, rows grouped by the run's GPU groups."""
    from .problems.hare.solution import to_json as hare_json

    tasks = hare_json(instance.hare, run.hare_schedule())["tasks"]
    groups = [list(map(int, g)) for g in (run.groups or instance.grouping or [])]
    return GanttChart(
        tasks, row_labels=_gpu_labels(instance),
        groups=[(f"group {u}", g) for u, g in enumerate(groups)] if groups else None,
    )


def _rar_chart(instance: Any, schedule: Any) -> GanttChart:
    """RAR: one row per GPU (grouped by server), each job a bar on its GPUs
    from its start slot to its finish slot."""
    from .registry import problem_of

    sj = problem_of(instance).solution_to_json(instance, schedule)
    offsets = [int(x) for x in instance.offsets]
    tasks = []
    for job in sj["jobs"]:
        for srv, local in job["placement"].items():
            for g in local:
                tasks.append({"job": job["id"], "gpu": offsets[int(srv)] + int(g),
                              "start": float(job["start"]), "end": float(job["end"])})
    labels = [f"s{s}/g{g}" for s, n in enumerate(instance.servers) for g in range(int(n))]
    groups = [(f"server {s}", list(range(offsets[s], offsets[s] + int(n)))) for s, n in enumerate(instance.servers)]
    return GanttChart(tasks, row_labels=labels, groups=groups, xlabel="time slot")


#: workers with more mini-batches than this are drawn as one computation and one communication bar
MAX_BATCH_BARS = 200


def _cruise_chart(instance: Any, config: Any) -> GanttChart:
    """Cruise: one epoch, one row per machine.  A worker ``i`` processes
    ``ceil(d_i / B)`` mini-batches, each computation (``C_proc d``) followed by
    communication with the servers (the per-mini-batch time of (3.4)); a
    server's row spans the epoch with its ``m_j`` model units."""
    from .problems.cruise.solution import comm_times, epoch_times

    comm = comm_times(instance, config)
    epoch = float(epoch_times(instance, config).max())
    B = int(instance.batch_size)
    tasks: list[dict] = []
    labels = []
    for i in range(instance.num_machines):
        if config.w[i] == 1:
            d = int(config.d[i])
            labels.append(f"{i}: worker, d={d}")
            p, t = float(instance.p[i]), float(comm[i])
            nb = -(-d // B)
            x = 0.0
            if nb > MAX_BATCH_BARS:
                tasks.append({"job": "computation", "gpu": i, "start": 0.0, "end": p * d})
                tasks.append({"job": "communication", "gpu": i, "start": p * d, "end": p * d + nb * t})
                continue
            left = d
            for _ in range(nb):
                b = min(B, left)
                left -= b
                tasks.append({"job": "computation", "gpu": i, "start": x, "end": x + p * b})
                x += p * b
                if t > 0:
                    tasks.append({"job": "communication", "gpu": i, "start": x, "end": x + t})
                    x += t
        else:
            labels.append(f"{i}: server, m={int(config.m[i])}")
            tasks.append({"job": "server", "gpu": i, "start": 0.0, "end": epoch})
    return GanttChart(tasks, row_labels=labels, ylabel="machine", xlabel="time (one epoch)",
                      legend_title="phase")


_CONVERTERS = {"hlas": _hlas_chart, "rar": _rar_chart, "cruise": _cruise_chart}


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
) -> Any:
    """Draw task bars: GPUs as rows, one colour per job, rounds marked.

    Parameters
    ----------
    tasks
        Dicts with ``job``, ``gpu`` (row index), ``start``, ``end`` (end of the
        GPU's busy time) and optionally ``round`` and ``sync_end`` (end of
        synchronisation, drawn as a thin hatched tail that may overlap the
        next task, as in Hare's model), ``offset`` and ``height`` (the slice
        of the row a bar takes, in [0, 1], for shared GPUs).
    gpu_labels
        Row labels (e.g. ``"0: V100"``); default the GPU indices.
    ax
        A matplotlib axes to draw on (created if not given).
    title
        The chart's title.
    show_sync
        Draw the synchronisation tails.
    label_tasks
        Write ``job/r`` on each bar (default: when there are at most 200 tasks).
    groups
        ``(label, rows)`` pairs: rows are ordered group by group, each group a
        shaded band with its label on the right (GPU groups, servers).
    ylabel, xlabel, legend_title
        Axis and legend titles.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.patches import Patch

    n_rows = max([int(t["gpu"]) for t in tasks] + [len(gpu_labels or []) - 1, 0]) + 1
    # row order: group by group (rows in no group at the end), else by index
    order: list[int] = []
    if groups:
        for _, rows in groups:
            order.extend(int(r) for r in rows if int(r) not in order)
    order.extend(r for r in range(n_rows) if r not in set(order))
    pos = {r: k for k, r in enumerate(order)}
    ax = _ax(ax, (10, max(2.5, 0.45 * n_rows + 1.5)))
    jobs = list(dict.fromkeys(str(t["job"]) for t in tasks))
    cmap = _plt().get_cmap("tab20" if len(jobs) > 10 else "tab10")
    color = {j: cmap(i % cmap.N) for i, j in enumerate(jobs)}
    if label_tasks is None:
        label_tasks = len(tasks) <= 200
    horizon = max([float(t.get("sync_end", t["end"])) for t in tasks] + [0.0])
    if groups:
        for k, (label, rows) in enumerate(groups):
            ys = [pos[int(r)] for r in rows]
            if not ys:
                continue
            lo, hi = min(ys) - 0.5, max(ys) + 0.5
            ax.axhspan(lo, hi, color="0.93" if k % 2 == 0 else "0.98", zorder=0)
            ax.axhline(hi, color="0.5", linewidth=0.8, zorder=1)
            ax.text(1.005, (lo + hi) / 2, label, transform=ax.get_yaxis_transform(), ha="left", va="center",
                    fontsize=8, color="0.25")
    for t in tasks:
        y = pos[int(t["gpu"])]
        s, e = float(t["start"]), float(t["end"])
        j = str(t["job"])
        r = t.get("round")
        hatch = "//" if isinstance(r, int) and r % 2 == 1 else None  # alternate rounds
        off, hgt = float(t.get("offset", 0.0)), float(t.get("height", 1.0))
        ax.broken_barh([(s, max(e - s, 1e-12))], (y - 0.4 + 0.8 * off, 0.8 * hgt), facecolors=color[j],
                       edgecolors="black", linewidth=0.6, hatch=hatch, zorder=2)
        se = t.get("sync_end")
        if show_sync and se is not None and float(se) > e:
            ax.broken_barh([(e, float(se) - e)], (y - 0.12, 0.24), facecolors=color[j], alpha=0.45,
                           edgecolors="none", zorder=2)
        if label_tasks and e - s > 0.03 * max(horizon, 1e-9):
            txt = j if r is None else f"{j}/r{r}"
            ax.text((s + e) / 2, y - 0.4 + 0.8 * (off + hgt / 2), txt, ha="center", va="center", fontsize=7,
                    clip_on=True, zorder=3)
    # rounds marked: a tick where each (job, round) finishes synchronisation
    ends: dict[tuple[str, Any], float] = {}
    for t in tasks:
        if t.get("round") is not None:
            k = (str(t["job"]), t["round"])
            ends[k] = max(ends.get(k, -math.inf), float(t.get("sync_end", t["end"])))
    for (j, _r), x in ends.items():
        ax.plot([x, x], [-0.6, n_rows - 0.4], color=color[j], linewidth=0.6, linestyle=":", alpha=0.8)
    labels = list(gpu_labels) if gpu_labels else [str(m) for m in range(n_rows)]
    labels += [str(m) for m in range(len(labels), n_rows)]
    ax.set_yticks(range(n_rows))
    ax.set_yticklabels([labels[r] for r in order])
    ax.set_ylim(n_rows - 0.4, -0.6)
    ax.set_xlim(0, horizon * 1.02 if horizon > 0 else 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    handles = [Patch(facecolor=color[j], edgecolor="black", label=j) for j in jobs[:20]]
    if handles:
        ax.legend(handles=handles, title=legend_title, loc="upper left",
                  bbox_to_anchor=(1.08 if groups else 1.01, 1.0), fontsize=8)
    if title:
        ax.set_title(title)
    return ax


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
    return plot_gantt(ch.tasks, gpu_labels=ch.row_labels, ax=ax, title=title, **kw)


def gantt_title(instance: Any, result: Any, label: str | None = None) -> str:
    """``"NAME: METHOD (STATUS, OBJECTIVE-NAME VALUE)"``, the objective named
    by the family (e.g. ``average job completion time``)."""
    from .registry import problem_of

    spec = problem_of(instance)
    name = label or getattr(instance, "name", "") or spec.name
    value = "-" if result.objective is None else f"{result.objective:.6g}"
    return f"{name}: {result.method} ({result.status.value}, {spec.objective_name} {value})"


# ---------------------------------------------------------------------------
# benchmark pictures
def plot_ratios(
    groups: dict[str, Sequence[float]],
    bounds: dict[str, Sequence[float]] | None = None,
    *,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Distribution of ratio-to-reference per method (box + points), with the
    proven bound drawn as a red line over each method (a band min..max when
    the bound varies between instances)."""
    ax = _ax(ax, (max(5, 1.3 * len(groups) + 2), 4))
    names = list(groups)
    data = [list(groups[n]) for n in names]
    pos = list(range(1, len(names) + 1))
    nonempty = [(p, d) for p, d in zip(pos, data) if d]
    if nonempty:
        ax.boxplot([d for _, d in nonempty], positions=[p for p, _ in nonempty], widths=0.5,
                   showfliers=False)
    import random

    rng = random.Random(0)  # deterministic jitter
    for p, d in zip(pos, data):
        ax.scatter([p + rng.uniform(-0.15, 0.15) for _ in d], d, s=10, alpha=0.6, color="tab:blue", zorder=3)
    labelled = False
    for p, n in zip(pos, names):
        b = [x for x in (bounds or {}).get(n, []) if x is not None and math.isfinite(x)]
        if not b:
            continue
        lo, hi = min(b), max(b)
        kw = dict(color="tab:red", linewidth=2, zorder=4)
        if not labelled:
            kw["label"] = "proven bound"
            labelled = True
        ax.plot([p - 0.35, p + 0.35], [lo, lo], **kw)
        if hi > lo:
            ax.fill_between([p - 0.35, p + 0.35], lo, hi, color="tab:red", alpha=0.12, zorder=1)
            ax.plot([p - 0.35, p + 0.35], [hi, hi], color="tab:red", linewidth=1, linestyle="--", zorder=4)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(pos)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("ratio to reference")
    if labelled:
        ax.legend(loc="upper left", fontsize=8)
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
) -> Any:
    """Runtime (log scale) against an instance size measure, one series per method."""
    ax = _ax(ax, (7, 4))
    markers = "os^vD<>pxh*"
    for i, (name, (xs, ys)) in enumerate(series.items()):
        ax.scatter(xs, [max(y, 1e-5) for y in ys], s=14, marker=markers[i % len(markers)], label=name, alpha=0.75)
    if time_limit:
        ax.axhline(time_limit, color="tab:red", linestyle="--", linewidth=1, label="time limit")
    ax.set_yscale("log")
    ax.set_xlabel(size_name)
    ax.set_ylabel("runtime (s)")
    if series:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if title:
        ax.set_title(title)
    return ax


def plot_cdf(
    samples: dict[str, Iterable[float]],
    *,
    ax: Any = None,
    xlabel: str = "job completion time",
    title: str | None = None,
) -> Any:
    """Empirical CDFs, one curve per method (e.g. JCTs of online policies)."""
    ax = _ax(ax, (6, 4))
    for name, xs in samples.items():
        v = sorted(float(x) for x in xs)
        if not v:
            continue
        n = len(v)
        ax.step(v, [(i + 1) / n for i in range(n)], where="post", label=f"{name} (n={n})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    if samples:
        ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return ax


def savefig(ax: Any, path: str, dpi: int = 120) -> None:
    """Save the figure of ``ax`` to ``path`` (atomically: an interrupted or failed
    save leaves an existing file as it was) and close it."""
    fig = ax.figure
    fig.tight_layout()
    try:
        save_atomic(fig, path, dpi=dpi)
    finally:
        _plt().close(fig)


def save_atomic(fig: Any, path: str | Path, **kw: Any) -> None:
    """``fig.savefig`` to a temporary file beside ``path`` (same extension, so
    the same format), then moved over ``path``."""
    import os

    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp{p.suffix}")
    try:
        fig.savefig(str(tmp), **kw)
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()


# ---------------------------------------------------------------------------
# dmlsched gantt
def add_gantt_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched gantt FILE --method M --out schedule.png`` (as in :mod:`dmlsched.cli`)."""
    from .cli import gantt_arguments

    gantt_arguments(parser)


def supported_formats() -> set[str]:
    """File extensions matplotlib can write (``png``, ``pdf``, ``svg``, ...)."""
    from matplotlib.figure import Figure

    return set(Figure().canvas.get_supported_filetypes())


def cli_gantt(args: argparse.Namespace) -> int:
    """Solve ``FILE`` with ``--method`` (any registered method, plugins
    included, with its ``-o`` options) and draw the schedule.

    Exit 2 on bad input (checked before solving: the output path and its
    format), 1 when the method returns no schedule.
    """
    from pathlib import Path

    from . import solve
    from .cli import UsageError, _load, check_output_path, method_options, solver_log_to_stderr
    from .registry import problem_of

    check_output_path(args.out, "--out", inputs=[args.file, *(p for p in args.plugin if p.endswith(".py"))])
    try:
        formats = supported_formats()
    except ImportError as e:
        raise UsageError(f"gantt needs matplotlib ({e}): pip install 'dmlsched[plot]'") from None
    ext = Path(args.out).suffix.lower().lstrip(".")
    if ext and ext not in formats:
        raise UsageError(f"--out {args.out}: cannot write .{ext} images (use one of {', '.join(sorted(formats))})")
    inst = _load(args.file, args.method)
    spec = problem_of(inst)
    if spec.name in NOT_SCHEDULES:
        raise UsageError(f"{args.file}: no Gantt chart for problem {spec.name!r}: {NOT_SCHEDULES[spec.name]}")
    with solver_log_to_stderr(args.display):
        res = solve(inst, args.method, solver=args.solver, time_limit=args.time_limit, seed=args.seed,
                    **method_options(args))
    if res.details.get("interrupted"):  # a cut run draws no chart (main reports the interruption)
        raise KeyboardInterrupt
    if res.solution is None:
        msg = res.details.get("error")
        print(f"dmlsched gantt: error: {res.problem}/{args.method} returned no schedule (status "
              f"{res.status.value}{': ' + ' '.join(str(msg).split()) if msg else ''})", file=sys.stderr)
        return 3 if res.status.value == "n/a" else 1
    label = getattr(inst, "name", "") or Path(args.file).stem
    ax = gantt(inst, res.solution, title=args.title or gantt_title(inst, res, label))
    tmp = Path(args.out)
    tmp = tmp.with_name(f".{tmp.name}.tmp{tmp.suffix}")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    try:
        savefig(ax, str(tmp))
        import os

        os.replace(tmp, args.out)
    finally:
        if tmp.exists():
            tmp.unlink()
    print(f"gantt: {args.out}")
    return 0
