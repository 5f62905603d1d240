"""``dmlsched report``: a Markdown report with tables and PNG plots from
benchmark records.

For each problem family in the records:

* a table per method: runs, statuses, ratio to the reference (mean, median,
  max), the proven bound, verdicts, mean runtime;
* ``<family>-ratios.png``: the distribution of ratio-to-reference per method,
  the proven bound drawn as a red line (a band when it varies by instance);
* ``<family>-runtime.png``: runtime against an instance size measure
  (``tasks`` when the family reports it, else its first size measure);
* ``<family>-jct.png``: CDFs of job completion times (completion minus
  arrival) per method, when records carry per-job values (online policies'
  simulator records, or solutions with per-job completion times);
* every bound violation and every error, with instance and message.
"""

from __future__ import annotations

import platform
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from .summary import STAT_COLUMNS, _num, format_table, method_stats, stat_rows

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
    for r in sorted(records, key=lambda r: str(r.get("method"))):
        by_method.setdefault(str(r["method"]), []).append(r)
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
        "`ratio` is objective / reference objective for minimisation (reference / objective for "
        "maximisation), so >= 1 means worse than the reference; for bound methods it is the bound's "
        "value relative to the reference. `bound` is the paper's proven approximation ratio; the verdict "
        "is `holds` when the ratio to a proven reference is within it, `violated` when even a feasible "
        "reference shows it exceeded.",
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
        try:
            plots = family_plots(fr, fam, out)
        except ImportError as e:  # matplotlib missing: tables only
            plots = []
            lines += [f"(plots skipped: {e})", ""]
        for cap, name in plots:
            lines += [f"![{cap}]({name})", "", f"*{cap}.*", ""]
        viol = [r for r in fr if r.get("verdict") == "violated"]
        if viol:
            lines += ["### Bound violations", ""]
            lines += [format_table(["instance", "method", "ratio", "bound", "reference"],
                                   [[str(r.get("label")), str(r["method"]), _num(r.get("ratio")), _num(r.get("claimed_bound")),
                                     f"{r.get('reference')} = {_num(r.get('reference_objective'))}"] for r in viol],
                                   markdown=True), ""]
        errs = [r for r in fr if r.get("status") in ("error", "time_limit")]
        if errs:
            lines += ["### Errors and runs stopped at the time limit", ""]
            lines += [format_table(["instance", "method", "status", "message"],
                                   [[str(r.get("label")), str(r["method"]), str(r["status"]),
                                     str(r.get("error") or "")[:200]] for r in errs], markdown=True), ""]
    if load_errors:
        lines += ["## Files that could not be loaded", ""]
        lines += [format_table(["file", "error"], [[str(r.get("label")), str(r.get("error"))[:300]] for r in load_errors],
                               markdown=True), ""]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
