"""Summary tables of benchmark records (plain text for the terminal, Markdown
for reports)."""

from __future__ import annotations

import math
import statistics
from collections import OrderedDict
from typing import Iterable


def _short(text: str, width: int = 140) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _num(x: object, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, float)):
        if not math.isfinite(x):
            return "inf"
        ax = abs(x)
        if ax != 0 and (ax >= 1e6 or ax < 1e-3):
            return f"{x:.{digits - 1}e}"
        return f"{x:.{digits}g}" if ax < 1 else f"{x:.{max(digits, len(str(int(ax))))}g}"
    return str(x)


def _time(x: object) -> str:
    if not isinstance(x, (int, float)):
        return "-"
    return f"{x:.2f}s" if x < 100 else f"{x:.0f}s"


RUN_COLUMNS = ("instance", "method", "status", "objective", "ratio", "bound", "verdict", "time")


def run_rows(records: Iterable[dict]) -> list[list[str]]:
    rows = []
    for r in records:
        method = r.get("method") or "(load)"
        if r.get("reference") and r.get("method") == r.get("reference"):
            method += " *"
        rows.append([
            str(r.get("label") or r.get("instance_hash")),
            method if r.get("seed") in (None, 0) or r.get("method") is None else f"{method} s{r.get('seed')}",
            str(r.get("status")),
            _num(r.get("objective"), 6),
            _num(r.get("ratio"), 4),
            _num(r.get("claimed_bound"), 4),
            "-" if r.get("claimed_bound") is None and r.get("verdict") == "inconclusive" else str(r.get("verdict") or "-"),
            _time(r.get("runtime_s")),
        ])
    return rows


def format_table(columns: Iterable[str], rows: list[list[str]], markdown: bool = False) -> str:
    cols = list(columns)
    if markdown:
        out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        return "\n".join(out)
    widths = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(cols)]
    numeric = {"objective", "ratio", "bound", "time", "runs", "mean", "median", "max", "mean time"}

    def fmt(row: list[str]) -> str:
        return "  ".join(
            cell.rjust(w) if col in numeric else cell.ljust(w) for cell, w, col in zip(row, widths, cols)
        ).rstrip()

    return "\n".join([fmt(cols), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def method_stats(records: Iterable[dict]) -> "OrderedDict[tuple[str, str], dict]":
    """Per (problem, method): runs, status counts, ratio statistics, verdicts, time."""
    groups: OrderedDict[tuple[str, str], list[dict]] = OrderedDict()
    for r in records:
        if r.get("method") is None:
            continue
        groups.setdefault((str(r.get("problem")), str(r["method"])), []).append(r)
    out: OrderedDict[tuple[str, str], dict] = OrderedDict()
    for k in sorted(groups):
        rs = groups[k]
        ratios = [r["ratio"] for r in rs if isinstance(r.get("ratio"), (int, float))]
        bounds = [r["claimed_bound"] for r in rs if isinstance(r.get("claimed_bound"), (int, float))]
        times = [r["runtime_s"] for r in rs if isinstance(r.get("runtime_s"), (int, float))]
        st: dict[str, int] = {}
        vd: dict[str, int] = {}
        for r in rs:
            st[str(r.get("status"))] = st.get(str(r.get("status")), 0) + 1
            if r.get("claimed_bound") is not None:  # no claimed bound: no verdict to count
                vd[str(r.get("verdict"))] = vd.get(str(r.get("verdict")), 0) + 1
        out[k] = {
            "runs": len(rs),
            "status": st,
            "verdicts": vd,
            "ratio_mean": statistics.fmean(ratios) if ratios else None,
            "ratio_median": statistics.median(ratios) if ratios else None,
            "ratio_max": max(ratios) if ratios else None,
            "bound_min": min(bounds) if bounds else None,
            "bound_max": max(bounds) if bounds else None,
            "time_mean": statistics.fmean(times) if times else None,
            "time_total": sum(times) if times else 0.0,
        }
    return out


STAT_COLUMNS = ("problem", "method", "runs", "status", "mean", "median", "max", "bound", "verdicts", "mean time")


def stat_rows(stats: "OrderedDict[tuple[str, str], dict]") -> list[list[str]]:
    rows = []
    for (p, m), s in stats.items():
        b = "-" if s["bound_min"] is None else (
            _num(s["bound_min"]) if math.isclose(s["bound_min"], s["bound_max"]) else
            f"{_num(s['bound_min'])}..{_num(s['bound_max'])}")
        rows.append([
            p, m, str(s["runs"]),
            " ".join(f"{k}:{v}" for k, v in sorted(s["status"].items())),
            _num(s["ratio_mean"]), _num(s["ratio_median"]), _num(s["ratio_max"]), b,
            " ".join(f"{k}:{v}" for k, v in sorted(s["verdicts"].items()) if k != "None") or "-",
            _time(s["time_mean"]),
        ])
    return rows


def summary_text(records: list[dict], *, ran: int | None = None, skipped: int | None = None,
                 elapsed_s: float | None = None, max_rows: int = 200) -> str:
    """The table ``dmlsched bench`` prints at the end of a sweep."""
    parts = []
    rows = run_rows(records)
    if len(rows) > max_rows:
        parts.append(format_table(RUN_COLUMNS, rows[:max_rows]))
        parts.append(f"... {len(rows) - max_rows} more run(s) (see the results file or `dmlsched report`)")
    else:
        parts.append(format_table(RUN_COLUMNS, rows))
    parts.append("")
    parts.append("ratio = objective / reference (>= 1 means worse than the reference); "
                 "* marks the reference run; bound = the paper's proven ratio")
    parts.append("")
    parts.append(format_table(STAT_COLUMNS, stat_rows(method_stats(records))))
    tail = f"{len(records)} run(s)"
    if ran is not None:
        tail += f": {ran} run now, {skipped or 0} already done"
    if elapsed_s is not None:
        tail += f", {elapsed_s:.1f} s"
    failed = [r for r in records if r.get("status") == "error"]
    not_applicable = [r for r in failed if (r.get("details") or {}).get("not_applicable")]
    errors = [r for r in failed if not (r.get("details") or {}).get("not_applicable")]
    violated = [r for r in records if r.get("verdict") == "violated"]
    if errors:
        tail += f"; {len(errors)} error(s)"
    if not_applicable:
        tail += f"; {len(not_applicable)} not applicable"
    if violated:
        tail += f"; {len(violated)} bound violation(s)"
    parts.append("")
    parts.append(tail)
    for r in errors[:20]:
        parts.append(f"  error: {r.get('label')} {r.get('method') or '(load)'}: {r.get('error')}")
    for r in not_applicable[:20]:
        parts.append(f"  n/a: {r.get('label')} {r.get('method')}: {_short(str(r.get('error')))}")
    for r in violated[:20]:
        parts.append(f"  VIOLATED: {r.get('label')} {r.get('method')}: ratio {_num(r.get('ratio'))} > bound {_num(r.get('bound'))}")
    return "\n".join(parts)
