"""``dmlsched report``: a Markdown report with tables, CSV files and plots
from benchmark records.

Next to ``report.md``: ``runs.csv`` (one row per run, flat columns:
:data:`CSV_COLUMNS`, then ``size.<measure>`` columns) and, per family,
``<family>-instances.csv`` (one row per instance: its size, the reference's
objective, then each method's objective and ratio); each figure as PNG and,
by default, PDF (``formats``).  For each problem family in the records:

* a table per method (variant): runs, statuses (``n/a`` apart), geometric mean
  and max of the ratio to the reference's objective, geometric mean of the
  ratio to the reference's proven bound, the claimed bound, verdicts,
  shifted geometric mean of run times (the definitions are those of
  :mod:`.summary`);
* the head-to-head matrix (wins/ties/losses between any two methods);
* a per-instance table (objective and ratio of every method on every
  instance; the first :data:`MAX_INSTANCE_ROWS` instances, all of them in
  the CSV file);
* ``<family>-profile.png``: Dolan-Moré performance profiles of solution
  quality and of run time, one legend;
* ``<family>-ratios.png``: the distribution of ratio-to-reference per method
  on an axis fitted to the ratios, the claimed bound a red line (a band when
  it varies by instance) or, when far above the ratios, written at the top;
* ``<family>-runtime.png``: runtime against an instance size measure
  (``tasks`` when the family reports it, else its first size measure);
* ``<family>-jct.png``: CDFs of job completion times (completion minus
  arrival) per method, one panel per instance size (instances of different
  sizes are not pooled), when records carry per-job values (online policies'
  simulator records, or solutions with per-job completion times);
* every bound violation, every error, every run killed or stopped at its
  limit, and (apart from errors) every refusal (``n/a``), with instance and
  message.
"""

from __future__ import annotations

import csv
import io
import math
import platform
import re
import statistics
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from .. import plot
from ..io import write_text_atomic
from .summary import (
    LEGEND,
    STAT_COLUMNS,
    STATS_LEGEND,
    _num,
    format_table,
    head_to_head_table,
    is_solution,
    method_stats,
    notes_of,
    performance_profile,
    stat_rows,
    status_of,
    variant_of,
    verdict_of,
    was_killed,
    was_stopped,
)

#: rows of the per-instance table in report.md (the CSV file has every instance)
MAX_INSTANCE_ROWS = 60

#: columns of runs.csv, in order (then one ``size.<measure>`` column per size measure)
CSV_COLUMNS = ("problem", "instance", "instance_name", "instance_hash", "source", "method", "variant", "kind",
               "seed", "solver", "time_limit", "status", "objective", "bound", "sense", "runtime_s", "wall_s",
               "peak_rss_bytes", "reference", "reference_objective", "reference_bound", "reference_optimal",
               "ratio", "ratio_to_bound", "claimed_bound", "bound_name", "verdict", "killed", "stopped",
               "reproducible", "has_solution", "jobs_with_jct", "mean_jct", "error", "version", "host",
               "finished_at", "key")

#: size measures preferred on the runtime plot's x axis, in order
SIZE_PREFERENCE = ("tasks", "jobs", "gpus", "machines", "values")


def _size_measure(records: list[dict]) -> str | None:
    keys: OrderedDict[str, int] = OrderedDict()
    for r in records:
        for k, v in (r.get("size") or {}).items():
            if isinstance(v, (int, float)):
                keys[k] = keys.get(k, 0) + 1
    for k in SIZE_PREFERENCE:
        if k in keys:
            return k
    return next(iter(keys), None)


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in s)


def family_plots(records: list[dict], fam: str, out: Path,
                 formats: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Draw the family's plots into ``out`` (PNG, and ``formats`` besides);
    returns ``(caption, PNG file name)`` pairs."""
    made: list[tuple[str, str]] = []
    by_method: OrderedDict[str, list[dict]] = OrderedDict()
    for r in sorted(records, key=variant_of):
        by_method.setdefault(variant_of(r), []).append(r)
    styles = plot.method_styles(by_method)  # one look per method in every figure

    def save(fig_or_ax, name: str, caption: str) -> None:
        plot.savefig(fig_or_ax, str(out / name), formats=formats)
        made.append((caption, name))

    prof = plot_profiles(records, fam, out, styles=styles, formats=formats)
    if prof:
        made.append(prof)
    ratios = {m: [r["ratio"] for r in rs if _is_number(r.get("ratio"))] for m, rs in by_method.items()}
    ratios = {m: v for m, v in ratios.items() if v}
    if ratios:
        bounds = {m: [r["claimed_bound"] for r in by_method[m] if _is_number(r.get("claimed_bound"))]
                  for m in ratios}
        ax = plot.plot_ratios(ratios, bounds, title=f"{fam}: ratio to reference", styles=styles)
        save(ax, f"{_slug(fam)}-ratios.png",
             "Ratio to the reference per method (red: the paper's claimed bound, written at the top when "
             "it lies far above the ratios)")
    measure = _size_measure(records)
    if measure:
        series = {}
        for m, rs in by_method.items():
            pts = [((r.get("size") or {}).get(measure), r.get("runtime_s")) for r in rs]
            pts = [(x, y) for x, y in pts if _is_number(x) and _is_number(y)]
            if pts:
                series[m] = ([p[0] for p in pts], [p[1] for p in pts])
        if series:
            tls = {r.get("time_limit") for r in records if r.get("time_limit")}
            ax = plot.plot_runtime_vs_size(series, size_name=measure, title=f"{fam}: runtime vs {measure}",
                                           time_limit=max(tls) if len(tls) == 1 else None, styles=styles)
            save(ax, f"{_slug(fam)}-runtime.png", f"Runtime against instance size ({measure})")
    jct = jct_panels(by_method)
    if jct is not None:
        what, panels = jct
        fig = plot.plot_cdf_panels(panels, title=f"{fam}: JCT CDF of the {what}", styles=styles)
        save(fig, f"{_slug(fam)}-jct.png",
             f"CDF of job completion times (completion - arrival) of the {what}, one panel per instance size")
    return made


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


#: most panels of a JCT figure: past this, sizes are binned into ranges
MAX_JCT_PANELS = 6


def _size_bins(records: list[dict]) -> tuple[str | None, dict[float, str]]:
    """The size measure JCT panels split on (``jobs`` when recorded, else
    :func:`_size_measure`) and the panel label of each of its values: one
    panel per value, or :data:`MAX_JCT_PANELS` ranges of consecutive values."""
    keys = {k for r in records for k, v in (r.get("size") or {}).items() if _is_number(v)}
    measure = "jobs" if "jobs" in keys else _size_measure(records)
    if measure is None:
        return None, {}
    values = sorted({float(r["size"][measure]) for r in records if _is_number((r.get("size") or {}).get(measure))})
    if len(values) <= MAX_JCT_PANELS:
        return measure, {v: f"{measure} {v:g}" for v in values}
    labels: dict[float, str] = {}
    k = -(-len(values) // MAX_JCT_PANELS)
    for i in range(0, len(values), k):
        chunk = values[i:i + k]
        for v in chunk:
            labels[v] = f"{measure} {chunk[0]:g}-{chunk[-1]:g}" if len(chunk) > 1 else f"{measure} {chunk[0]:g}"
    return measure, labels


def jct_panels(by_method: "OrderedDict[str, list[dict]]") -> tuple[str, dict[str, dict[str, list[float]]]] | None:
    """Per-job completion times grouped by instance size then method:
    ``(what, {size label: {method: [jct, ...]}})`` of the online policies (of
    every method when no policy has them), ``None`` without per-job values."""
    panels: dict[str, dict[str, list[float]]] = {}
    kinds: dict[str, object] = {}
    with_jct = [r for rs in by_method.values() for r in rs if isinstance(r.get("jct"), list) and r["jct"]]
    measure, bins = _size_bins(with_jct)
    order = list(dict.fromkeys(bins.values()))
    for m, rs in by_method.items():
        for r in rs:
            vals = [float(x) for x in (r.get("jct") or []) if _is_number(x)] if isinstance(r.get("jct"), list) else []
            if vals:
                v = (r.get("size") or {}).get(measure) if measure else None
                label = bins.get(float(v), "size unknown") if _is_number(v) else "size unknown"
                panels.setdefault(label, {}).setdefault(m, []).extend(vals)
                kinds[m] = r.get("kind")
    if not panels:
        return None
    panels = {k: panels[k] for k in sorted(panels, key=lambda k: order.index(k) if k in order else len(order))}
    policies = {m for m, k in kinds.items() if k == "policy"}
    if policies:
        panels = {s: {m: v for m, v in p.items() if m in policies} for s, p in panels.items()}
        panels = {s: p for s, p in panels.items() if p}
    return ("online policies" if policies else "methods"), panels


def plot_profiles(records: list[dict], fam: str, out: Path, *, styles: dict | None = None,
                  formats: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """``<family>-profile.png``: performance profiles of quality and of time."""
    q = performance_profile(records, "objective")
    if len(q["ratios"]) < 2 or not q["instances"]:
        return None
    t = performance_profile(records, "time")
    fig = plot.plot_performance_profiles(
        [(f"objective ({len(q['instances'])} instances)", q["ratios"]),
         (f"run time ({len(t['instances'])} instances)", t["ratios"])],
        styles=styles, title=f"{fam}: performance profiles")
    name = f"{_slug(fam)}-profile.png"
    plot.savefig(fig, str(out / name), formats=formats)
    return ("Dolan-Moré performance profiles: fraction of instances on which a method is within a factor tau of "
            "the best method, for the objective (left) and the run time of runs with a solution (right); a "
            "method without a solution on an instance never reaches it", name)


# ---------------------------------------------------------------------------
# tables
def _cell(x: object) -> object:
    """A CSV cell: numbers as they are, ``None`` empty, anything else as text."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float, str)):
        return x
    return str(x)


def csv_row(r: dict, size_keys: list[str]) -> list[object]:
    """One run as the flat row of ``runs.csv``."""
    jct = [float(x) for x in r["jct"] if _is_number(x)] if isinstance(r.get("jct"), list) else []
    flat = dict(r)
    flat.update(
        instance=r.get("label"),
        variant=variant_of(r),
        status=status_of(r),
        verdict=verdict_of(r),
        killed=was_killed(r),
        stopped=was_stopped(r),
        jobs_with_jct=len(jct) or None,
        mean_jct=(sum(jct) / len(jct)) if jct else None,
        error=" ".join(str(r.get("error") or "").split()) or None,
    )
    size = r.get("size") or {}
    return [_cell(flat.get(c)) for c in CSV_COLUMNS] + [_cell(size.get(k)) for k in size_keys]


def runs_csv(records: list[dict]) -> str:
    """``runs.csv``: a header and one row per run."""
    size_keys = list(dict.fromkeys(k for r in records for k in (r.get("size") or {})))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(CSV_COLUMNS) + [f"size.{k}" for k in size_keys])
    for r in records:
        w.writerow(csv_row(r, size_keys))
    return buf.getvalue()


def instance_table(records: list[dict]) -> tuple[list[str], list[list[object]], list[str]]:
    """One family's per-instance table: ``(columns, rows, methods)``.

    Columns: ``instance``, its size measures, ``reference``, the reference's
    objective, then per method (variant) its objective (averaged over seeds
    when it has several solutions) and its ratio to the reference (likewise);
    a method without a solution on the instance has its status instead.
    """
    recs = [r for r in records if r.get("method")]
    methods = sorted({variant_of(r) for r in recs})
    size_keys = list(dict.fromkeys(k for r in recs for k in (r.get("size") or {})))
    by_inst: OrderedDict[str, list[dict]] = OrderedDict()
    for r in recs:
        by_inst.setdefault(str(r.get("instance_hash")), []).append(r)
    cols = ["instance"] + size_keys + ["reference", "reference objective"]
    for m in methods:
        cols += [m, f"{m} ratio"]
    rows: list[list[object]] = []
    for rs in by_inst.values():
        first = rs[0]
        size = first.get("size") or {}
        ref = next((r for r in rs if r.get("reference_objective") is not None), first)
        row: list[object] = [first.get("label")] + [size.get(k) for k in size_keys]
        row += [first.get("reference"), ref.get("reference_objective")]
        for m in methods:
            mine = [r for r in rs if variant_of(r) == m]
            valued = [r for r in mine if _has_value(r)]
            objs = [float(r["objective"]) for r in valued]
            rats = [float(r["ratio"]) for r in valued if _is_number(r.get("ratio"))]
            if objs:
                row += [statistics.fmean(objs), statistics.fmean(rats) if rats else None]
            else:
                row += [" ".join(sorted({status_of(r) for r in mine})) or None, None]
        rows.append(row)
    return cols, rows, methods


def _has_value(r: dict) -> bool:
    """A solution's objective, or a bound method's value."""
    return is_solution(r) or (r.get("kind") == "bound" and _is_number(r.get("objective"))
                              and status_of(r) not in ("error", "n/a", "time_limit"))


def instances_csv(records: list[dict]) -> str:
    cols, rows, _ = instance_table(records)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in rows:
        w.writerow([_cell(x) for x in row])
    return buf.getvalue()


def instance_markdown(records: list[dict], csv_name: str) -> list[str]:
    """The per-instance table in Markdown: one row per instance, one column
    per method holding ``objective (ratio)`` (or the status of a run without
    a solution); the first :data:`MAX_INSTANCE_ROWS` instances."""
    cols, rows, methods = instance_table(records)
    if not rows:
        return []
    head = cols[: len(cols) - 2 * len(methods)]
    out_rows = []
    for row in rows[:MAX_INSTANCE_ROWS]:
        cells = [_num(x) if not isinstance(x, str) else x for x in row[: len(head)]]
        for k in range(len(methods)):
            obj, rat = row[len(head) + 2 * k], row[len(head) + 2 * k + 1]
            if isinstance(obj, (int, float)):
                cells.append(_num(obj) + (f" ({_num(rat, 3)})" if rat is not None else ""))
            else:
                cells.append(str(obj or "-"))
        out_rows.append(cells)
    lines = ["Per instance: objective (ratio to the reference) of every method; a run without a solution "
             f"shows its status. All instances, with the ratios in their own columns: `{csv_name}`.", "",
             format_table(head + methods, out_rows, markdown=True), ""]
    if len(rows) > MAX_INSTANCE_ROWS:
        lines += [f"({len(rows) - MAX_INSTANCE_ROWS} more instances in `{csv_name}`.)", ""]
    return lines


def markdown_legend(text: str) -> str:
    """A legend written with ``'quoted'`` terms as Markdown: quoted terms
    become code spans; apostrophes (``reference's``) stay apostrophes."""
    return re.sub(r"(?<![A-Za-z])'([^'\n]+?)'(?![A-Za-z])", r"`\1`", text)


def write_report(records: Iterable[dict], out_dir: str, *, title: str | None = None,
                 sources: list[str] | None = None, formats: Iterable[str] = ("pdf",)) -> Path:
    """Write ``out_dir/report.md``, its CSV files and its figures (PNG, and
    each of ``formats`` besides, e.g. ``pdf``, ``svg``); returns the report's path."""
    formats = tuple(f.lower().lstrip(".") for f in formats if f and f.lower().lstrip(".") != "png")
    recs = list(records)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fams = sorted({str(r.get("problem")) for r in recs if r.get("problem")})
    lines = [f"# {title or 'dmlsched benchmark report'}", ""]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    hosts = sorted({str(r.get("host")) for r in recs if r.get("host")})
    engines = sorted({str(r.get("engine")) for r in recs if r.get("engine") and r.get("engine") != "runner"})
    versions = sorted({str(r.get("version")) for r in recs if r.get("version")})
    lines += [
        f"- generated: {now} on {platform.node()} (Python {platform.python_version()})",
        f"- results: {', '.join(sources or [])}",
        f"- runs: {len(recs)}; families: {', '.join(fams) or '-'}; engines: {', '.join(engines) or '-'}; "
        f"hosts: {', '.join(hosts) or '-'}; dmlsched {', '.join(versions) or '?'}",
        "",
        markdown_legend(LEGEND),
        "",
        "Tables as CSV: `runs.csv` (one row per run) and `<family>-instances.csv` (one row per instance)."
        + (f" Figures as PNG and {', '.join(f.upper() for f in formats)} (same name)." if formats else ""),
        "",
        STATS_LEGEND + " Head-to-head: wins/ties/losses of the row method against the column method on the "
        "instances both solved (objectives averaged over seeds). The verdict is `holds` when the ratio to a "
        "proven bound on the optimum is within the claim, `violated` when even the reference's feasible "
        "value shows it exceeded, `inconclusive` otherwise.",
        "",
    ]
    load_errors = [r for r in recs if not r.get("problem")]
    for fam in fams:
        fr = [r for r in recs if r.get("problem") == fam and r.get("method")]
        lines += [f"## {fam}", ""]
        insts = len({r.get("instance_hash") for r in fr})
        tls = sorted({str(r.get("time_limit")) for r in fr})
        solvers = sorted({str(r.get("solver")) for r in fr})
        refs = sorted({str(r.get("reference")) for r in fr if r.get("reference")})
        lines += [f"{insts} instance(s), {len(fr)} run(s); reference: {', '.join(refs) or 'none'}; "
                  f"solver: {', '.join(solvers)}; time limit: {', '.join(tls)} s", ""]
        cols = [c for c in STAT_COLUMNS if c != "problem"]
        rows = [row[1:] for row in stat_rows(method_stats(fr))]
        lines += [format_table(cols, rows, markdown=True), ""]
        bnames = OrderedDict()
        for r in fr:
            if r.get("bound_name"):
                bnames.setdefault(r["method"], r["bound_name"])
        if bnames:
            lines += ["Proven bounds: " + "; ".join(f"`{m}`: {b}" for m, b in bnames.items()), ""]
        h2h = head_to_head_table(fr, markdown=True)
        if h2h:
            lines += ["Head-to-head (row vs column: wins/ties/losses):", "", h2h, ""]
        inst_csv = f"{_slug(fam)}-instances.csv"
        (out / inst_csv).write_text(instances_csv(fr), encoding="utf-8")
        lines += instance_markdown(fr, inst_csv)
        try:
            plots = family_plots(fr, fam, out, formats)
        except ImportError as e:  # matplotlib missing: tables only
            plots = []
            lines += [f"(plots skipped: {e})", ""]
        for cap, name in plots:
            lines += [f"![{Path(name).stem}]({name})", "", f"*{cap}.*", ""]
        viol = [r for r in fr if verdict_of(r) == "violated"]
        if viol:
            lines += ["### Bound violations", ""]
            lines += [format_table(["instance", "method", "ratio", "claim", "reference"],
                                   [[str(r.get("label")), variant_of(r), _num(r.get("ratio")),
                                     _num(r.get("claimed_bound")),
                                     f"{r.get('reference')} = {_num(r.get('reference_objective'))}"] for r in viol],
                                   markdown=True), ""]
        errs = [r for r in fr if status_of(r) == "error"]
        if errs:
            lines += ["### Errors (real failures)", ""]
            lines += [format_table(["instance", "method", "message"],
                                   [[str(r.get("label")), variant_of(r), str(r.get("error") or "")[:200]]
                                    for r in errs], markdown=True), ""]
        limit = [r for r in fr if status_of(r) == "time_limit" or was_killed(r) or was_stopped(r)]
        if limit:
            lines += ["### Runs at the time limit", ""]
            lines += [format_table(["instance", "method", "status", "objective", "note", "message"],
                                   [[str(r.get("label")), variant_of(r), status_of(r), _num(r.get("objective")),
                                     notes_of(r), str(r.get("error") or "")[:160]] for r in limit],
                                   markdown=True), ""]
        na = [r for r in fr if status_of(r) == "n/a"]
        if na:
            lines += ["### Not applicable (the method refused the instance)", ""]
            lines += [format_table(["instance", "method", "reason"],
                                   [[str(r.get("label")), variant_of(r),
                                     str(r.get("error") or (r.get("details") or {}).get("error") or "")[:200]]
                                    for r in na], markdown=True), ""]
    if load_errors:
        lines += ["## Files that could not be loaded", ""]
        lines += [format_table(["file", "error"],
                               [[str(r.get("label")), str(r.get("error"))[:300]] for r in load_errors],
                               markdown=True), ""]
    (out / "runs.csv").write_text(runs_csv(recs), encoding="utf-8")
    path = out / "report.md"
    write_text_atomic(path, "\n".join(lines))
    return path
