"""``dmlsched report``: a Markdown report with tables and PNG plots from
benchmark records.

For each problem family in the records:

* a table per method (variant): runs, statuses (``n/a`` apart), geometric mean
  and max of the ratio to the reference's objective, geometric mean of the
  ratio to the reference's proven bound, the claimed bound, verdicts,
  shifted geometric mean of run times (the definitions are those of
  :mod:`.summary`);
* the head-to-head matrix (wins/ties/losses between any two methods);
* ``<family>-profile.png``: Dolan-Moré performance profiles of solution
  quality and of run time;
* ``<family>-ratios.png``: the distribution of ratio-to-reference per method,
  the proven bound drawn as a red line (a band when it varies by instance);
* ``<family>-runtime.png``: runtime against an instance size measure
  (``tasks`` when the family reports it, else its first size measure);
* ``<family>-jct.png``: CDFs of job completion times (completion minus
  arrival) per method, when records carry per-job values (online policies'
  simulator records, or solutions with per-job completion times);
* every bound violation, every error, every run killed or stopped at its
  limit, and (apart from errors) every refusal (``n/a``), with instance and
  message.
"""

from __future__ import annotations

import platform
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from .summary import (
    LEGEND,
    STAT_COLUMNS,
    STATS_LEGEND,
    _num,
    format_table,
    head_to_head_table,
    method_stats,
    notes_of,
    performance_profile,
    profile_curve,
    stat_rows,
    status_of,
    variant_of,
    verdict_of,
    was_killed,
    was_stopped,
)

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


def family_plots(records: list[dict], fam: str, out: Path) -> list[tuple[str, str]]:
    """Draw the family's plots into ``out``; returns ``(caption, file name)`` pairs."""
    from .. import plot

    made: list[tuple[str, str]] = []
    by_method: OrderedDict[str, list[dict]] = OrderedDict()
    for r in sorted(records, key=variant_of):
        by_method.setdefault(variant_of(r), []).append(r)
    prof = plot_profiles(records, fam, out)
    if prof:
        made.append(prof)
    ratios = {m: [r["ratio"] for r in rs if isinstance(r.get("ratio"), (int, float))] for m, rs in by_method.items()}
    ratios = {m: v for m, v in ratios.items() if v}
    if ratios:
        bounds = {m: [r["claimed_bound"] for r in by_method[m] if isinstance(r.get("claimed_bound"), (int, float))] for m in ratios}
        ax = plot.plot_ratios(ratios, bounds, title=f"{fam}: ratio to reference")
        name = f"{_slug(fam)}-ratios.png"
        plot.savefig(ax, str(out / name))
        made.append(("Ratio to the reference per method (red: the paper's proven bound)", name))
    measure = _size_measure(records)
    if measure:
        series = {}
        for m, rs in by_method.items():
            pts = [((r.get("size") or {}).get(measure), r.get("runtime_s")) for r in rs]
            pts = [(x, y) for x, y in pts if isinstance(x, (int, float)) and isinstance(y, (int, float))]
            if pts:
                series[m] = ([p[0] for p in pts], [p[1] for p in pts])
        if series:
            tls = {r.get("time_limit") for r in records if r.get("time_limit")}
            ax = plot.plot_runtime_vs_size(series, size_name=measure, title=f"{fam}: runtime vs {measure}",
                                           time_limit=max(tls) if len(tls) == 1 else None)
            name = f"{_slug(fam)}-runtime.png"
            plot.savefig(ax, str(out / name))
            made.append((f"Runtime against instance size ({measure})", name))
    jct = OrderedDict()
    kinds = {}
    for m, rs in by_method.items():
        vals = [x for r in rs if isinstance(r.get("jct"), list) for x in r["jct"] if isinstance(x, (int, float))]
        if vals:
            jct[m] = vals
            kinds[m] = rs[0].get("kind")
    policies = OrderedDict((m, v) for m, v in jct.items() if kinds.get(m) == "policy")
    chosen = policies or jct
    if chosen:
        what = "online policies" if policies else "methods"
        ax = plot.plot_cdf(chosen, title=f"{fam}: JCT CDF ({what}, all instances pooled)")
        name = f"{_slug(fam)}-jct.png"
        plot.savefig(ax, str(out / name))
        made.append((f"CDF of job completion times (completion - arrival) of the {what}", name))
    return made


def plot_profiles(records: list[dict], fam: str, out: Path) -> tuple[str, str] | None:
    """``<family>-profile.png``: performance profiles of quality and of time."""
    import math

    from .. import plot

    q = performance_profile(records, "objective")
    if len(q["ratios"]) < 2 or not q["instances"]:
        return None
    t = performance_profile(records, "time")
    plt = plot._plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, data, what in ((axes[0], q, "objective"), (axes[1], t, "run time")):
        finite = [r for rs in data["ratios"].values() for r in rs if math.isfinite(r)]
        hi = max(finite + [1.0]) * 1.05
        taus = sorted({1.0, hi} | set(finite))
        for i, (name, rs) in enumerate(data["ratios"].items()):
            ax.step(taus, profile_curve(rs, taus), where="post", label=name,
                    linestyle=("-", "--", ":", "-.")[i // 10 % 4])
        if hi > 4:  # Dolan-Moré's log2 axis for wide ranges, plain numbers otherwise
            from matplotlib.ticker import ScalarFormatter

            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlim(1.0, hi)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"tau (ratio of {what} to the best method on the instance)")
        ax.set_ylabel("fraction of instances within tau")
        ax.set_title(f"{fam}: performance profile, {what} ({len(data['instances'])} instances)")
    axes[1].legend(fontsize=7, loc="lower right")
    plot.savefig(axes[0], str(out / f"{_slug(fam)}-profile.png"))
    return ("Dolan-Moré performance profiles: fraction of instances on which a method is within a factor tau of "
            "the best method, for the objective (left) and the run time of runs with a solution (right); a "
            "method without a solution on an instance never reaches it", f"{_slug(fam)}-profile.png")


def write_report(records: Iterable[dict], out_dir: str, *, title: str | None = None,
                 sources: list[str] | None = None) -> Path:
    """Write ``out_dir/report.md`` and its PNGs; returns the report's path."""
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
        LEGEND.replace("'", "`"),
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
        try:
            plots = family_plots(fr, fam, out)
        except ImportError as e:  # matplotlib missing: tables only
            plots = []
            lines += [f"(plots skipped: {e})", ""]
        for cap, name in plots:
            lines += [f"![{cap}]({name})", "", f"*{cap}.*", ""]
        viol = [r for r in fr if verdict_of(r) == "violated"]
        if viol:
            lines += ["### Bound violations", ""]
            lines += [format_table(["instance", "method", "ratio", "claim", "reference"],
                                   [[str(r.get("label")), variant_of(r), _num(r.get("ratio")), _num(r.get("claimed_bound")),
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
        lines += [format_table(["file", "error"], [[str(r.get("label")), str(r.get("error"))[:300]] for r in load_errors],
                               markdown=True), ""]
    path = out / "report.md"
    from ..io import write_text_atomic

    write_text_atomic(path, "\n".join(lines))
    return path
