"""Pictures: Gantt charts of schedules, ratio distributions, runtime vs size,
JCT CDFs.  Every function draws on a matplotlib ``ax`` (created if not given)
and returns it; matplotlib is imported lazily (``pip install dmlsched[plot]``).

Gantt charts are generic over families whose solution JSON (as printed by
``dmlsched solve --json``) has a ``"tasks"`` list of ``{"job", "gpu", "start",
"end"}`` entries, optionally with ``"round"`` and ``"sync_end"``: the Hare
format.  A family can also provide ``gantt_tasks(instance, solution)`` in its
package returning that list (for solutions that are not task lists already).
"""

from __future__ import annotations

import argparse
import math
import sys
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
def gantt_tasks(instance: Any, solution: Any) -> list[dict]:
    """The task bars of a solution: ``[{"job", "gpu", "start", "end", ...}]``.

    Raises
    ------
    ValueError
        If the family's solutions cannot be drawn as GPU task bars.
    """
    import importlib

    from .registry import problem_of

    spec = problem_of(instance)
    try:
        fam = importlib.import_module(f"dmlsched.problems.{spec.name.replace('-', '')}")
        conv = getattr(fam, "gantt_tasks", None)
    except ImportError:
        conv = None
    if conv is not None:
        return list(conv(instance, solution))
    sj = spec.solution_to_json(instance, solution)
    tasks = sj.get("tasks") if isinstance(sj, dict) else None
    if not isinstance(tasks, list) or not all(
        isinstance(t, dict) and {"job", "gpu", "start", "end"} <= set(t) for t in tasks
    ):
        raise ValueError(
            f"solutions of problem {spec.name!r} are not GPU task lists "
            "(need a 'tasks' list with job, gpu, start, end, or a family gantt_tasks())"
        )
    return tasks


def plot_gantt(
    tasks: Sequence[dict],
    *,
    gpu_labels: Sequence[str] | None = None,
    ax: Any = None,
    title: str | None = None,
    show_sync: bool = True,
    label_tasks: bool | None = None,
) -> Any:
    """Draw task bars: GPUs as rows, one colour per job, rounds marked.

    Parameters
    ----------
    tasks
        Dicts with ``job``, ``gpu`` (row index), ``start``, ``end`` (end of the
        GPU's busy time) and optionally ``round`` and ``sync_end`` (end of
        synchronisation, drawn as a thin hatched tail that may overlap the
        next task, as in Hare's model).
    gpu_labels
        Row labels (e.g. ``"0: V100"``); default the GPU indices.
    label_tasks
        Write ``job/r`` on each bar (default: when there are at most 200 tasks).
    """
    from matplotlib.patches import Patch

    ax = _ax(ax, (10, max(2.5, 0.45 * (len(gpu_labels) if gpu_labels else 4) + 1.5)))
    jobs = list(dict.fromkeys(str(t["job"]) for t in tasks))
    cmap = _plt().get_cmap("tab20" if len(jobs) > 10 else "tab10")
    color = {j: cmap(i % cmap.N) for i, j in enumerate(jobs)}
    n_gpus = max([int(t["gpu"]) for t in tasks] + [len(gpu_labels or []) - 1, 0]) + 1
    if label_tasks is None:
        label_tasks = len(tasks) <= 200
    horizon = max([float(t.get("sync_end", t["end"])) for t in tasks] + [0.0])
    for t in tasks:
        y = int(t["gpu"])
        s, e = float(t["start"]), float(t["end"])
        j = str(t["job"])
        r = t.get("round")
        hatch = "//" if isinstance(r, int) and r % 2 == 1 else None  # alternate rounds
        # a bar may take a slice of its row: "offset" and "height" in [0, 1] (shared GPUs)
        off, hgt = float(t.get("offset", 0.0)), float(t.get("height", 1.0))
        ax.broken_barh([(s, max(e - s, 1e-12))], (y - 0.4 + 0.8 * off, 0.8 * hgt), facecolors=color[j],
                       edgecolors="black", linewidth=0.6, hatch=hatch)
        se = t.get("sync_end")
        if show_sync and se is not None and float(se) > e:
            ax.broken_barh([(e, float(se) - e)], (y - 0.12, 0.24), facecolors=color[j], alpha=0.45,
                           edgecolors="none")
        if label_tasks and e - s > 0.03 * max(horizon, 1e-9):
            txt = j if r is None else f"{j}/r{r}"
            ax.text((s + e) / 2, y - 0.4 + 0.8 * (off + hgt / 2), txt, ha="center", va="center", fontsize=7,
                    clip_on=True)
    # rounds marked: a tick where each (job, round) finishes synchronisation
    ends: dict[tuple[str, Any], float] = {}
    for t in tasks:
        if t.get("round") is not None:
            k = (str(t["job"]), t["round"])
            ends[k] = max(ends.get(k, -math.inf), float(t.get("sync_end", t["end"])))
    for (j, _r), x in ends.items():
        ax.plot([x, x], [-0.6, n_gpus - 0.4], color=color[j], linewidth=0.6, linestyle=":", alpha=0.8)
    ax.set_yticks(range(n_gpus))
    ax.set_yticklabels(list(gpu_labels) if gpu_labels else [str(m) for m in range(n_gpus)])
    ax.set_ylim(n_gpus - 0.4, -0.6)
    ax.set_xlim(0, horizon * 1.02 if horizon > 0 else 1)
    ax.set_xlabel("time")
    ax.set_ylabel("GPU")
    handles = [Patch(facecolor=color[j], edgecolor="black", label=j) for j in jobs[:20]]
    if handles:
        ax.legend(handles=handles, title="job", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    if title:
        ax.set_title(title)
    return ax


def gantt(instance: Any, solution: Any, *, ax: Any = None, title: str | None = None, **kw: Any) -> Any:
    """Gantt chart of ``solution`` of ``instance`` (see :func:`plot_gantt`)."""
    tasks = gantt_tasks(instance, solution)
    gpus = getattr(instance, "gpus", None)
    labels = [f"{m}: {g}" for m, g in enumerate(gpus)] if isinstance(gpus, (list, tuple)) else None
    return plot_gantt(tasks, gpu_labels=labels, ax=ax, title=title, **kw)


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
    """Save the figure of ``ax`` to ``path`` and close it."""
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    _plt().close(fig)


# ---------------------------------------------------------------------------
# dmlsched gantt
def add_gantt_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched gantt FILE --method M --out schedule.png``."""
    parser.add_argument("file", metavar="FILE", help="instance JSON file")
    parser.add_argument("--method", "-m", required=True, help="method whose schedule is drawn")
    parser.add_argument("--out", "-o", required=True, help="PNG (or PDF/SVG) file to write")
    parser.add_argument("--solver", default="highs", choices=["highs", "gurobi"])
    parser.add_argument("--time-limit", type=float, default=None, metavar="S")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--title", default=None)


def cli_gantt(args: argparse.Namespace) -> int:
    """Solve ``FILE`` with ``--method`` and draw the schedule; 2 on bad input."""
    from . import load, solve
    from .errors import DmlschedError

    try:
        inst = load(args.file)
        res = solve(inst, args.method, solver=args.solver, time_limit=args.time_limit, seed=args.seed)
        if res.solution is None:
            print(f"dmlsched gantt: error: {args.method} returned no schedule (status {res.status.value})",
                  file=sys.stderr)
            return 1
        title = args.title or (
            f"{getattr(inst, 'name', '') or args.file}: {args.method} "
            f"({res.status.value}, objective {res.objective:.6g})"
        )
        ax = gantt(inst, res.solution, title=title)
        savefig(ax, args.out)
    except (DmlschedError, ValueError) as e:
        print(f"dmlsched gantt: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"dmlsched gantt: error: {e} (install the plot extra: pip install 'dmlsched[plot]')", file=sys.stderr)
        return 2
    print(f"gantt: {args.out}")
    return 0
