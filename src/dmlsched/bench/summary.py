"""Summary tables of benchmark records (plain text for the terminal, Markdown
for reports), and the statistics behind them.

What the numbers mean (the same in ``dmlsched bench`` and ``dmlsched report``):

* ``ratio``: the objective against the reference's objective (its feasible
  solution), oriented so that >= 1 means worse than the reference (value /
  reference for minimisation, reference / value for maximisation).  When the
  reference did not prove optimality it is printed ``>=x``: the ratio to the
  optimum is at least that.
* ``vs bound``: the objective against the reference's *proven* bound on the
  optimum (``ratio_to_bound``); printed ``<=x`` when the reference did not
  prove optimality: the ratio to the optimum is at most that.  On the
  reference's own row it is the reference's optimality gap as a ratio.
* ``claim``: the paper's proven approximation ratio for the method; the
  verdict is ``holds`` / ``violated`` / ``inconclusive`` against it,
  ``no_bound`` when no finite bound is claimed (never ``holds``), ``n/a``
  when the run produced no objective.
* status ``n/a``: the method refused the instance (outside its domain, or
  more than it can hold): not an error.
* Per method (variant): the geometric mean of ratios over the runs that have
  one, and the shifted geometric mean of run times,
  ``exp(mean(log(t + s))) - s`` with shift ``s`` = :data:`TIME_SHIFT_S`
  (the convention of MIP benchmark reports, so that very short runs do not
  dominate).
* Head-to-head: for two methods, the instances on which both have a solution
  (objective averaged over seeds), counted as win / tie / loss of the row
  method (tie: relative difference <= :data:`TIE_TOL`).
* Performance profiles (Dolan and Moré, 2002): for each instance solved by
  the set of methods, the ratio of a method's objective (or run time) to
  the best of all methods on it; a method's profile is the fraction of
  instances with ratio <= tau.  A method that ran on an instance without a
  solution has ratio infinity there.
"""

from __future__ import annotations

import math
import statistics
import textwrap
from collections import OrderedDict
from typing import Iterable

#: shift (seconds) of the shifted geometric mean of run times
TIME_SHIFT_S = 1.0

#: relative difference under which two objectives tie
TIE_TOL = 1e-6

#: smallest run time used in time ratios (a run cannot take 0 s)
MIN_TIME_S = 1e-4

SOLVED = ("optimal", "feasible")
#: statuses whose record carries a value: a solution's, or a bound method's proven bound
VALUED = SOLVED + ("bound",)


# ---------------------------------------------------------------------------
# normalised fields
def is_not_applicable(r: dict) -> bool:
    """Status ``n/a``, or an older record's ``error`` flagged ``not_applicable``."""
    return r.get("status") == "n/a" or bool((r.get("details") or {}).get("not_applicable"))


def status_of(r: dict) -> str:
    """The record's status, with refusals as ``n/a`` (also in older files)."""
    return "n/a" if is_not_applicable(r) else str(r.get("status"))


def verdict_of(r: dict) -> str:
    """The verdict, never ``holds`` without a finite claimed bound.

    ``n/a`` without an objective; ``no_bound`` when the claimed bound is
    missing or was infinite (stored as ``null``); otherwise as recorded.
    """
    if r.get("method") is None:
        return "-"
    v = r.get("verdict")
    if status_of(r) not in VALUED or not isinstance(r.get("objective"), (int, float)):
        return "n/a"
    cb = r.get("claimed_bound")
    if not isinstance(cb, (int, float)) or not math.isfinite(cb):
        return "no_bound"
    return str(v) if v else "-"


def variant_of(r: dict) -> str:
    return str(r.get("variant") or r.get("method"))


def is_reference_run(r: dict) -> bool:
    return bool(r.get("reference")) and variant_of(r) == r.get("reference")


def was_killed(r: dict) -> bool:
    d = r.get("details") or {}
    return bool(r.get("killed") or d.get("killed"))


def was_stopped(r: dict) -> bool:
    d = r.get("details") or {}
    return bool(d.get("stopped_by_bench")) and not was_killed(r)


def is_solution(r: dict) -> bool:
    """A feasible solution's objective (bound methods' values are not)."""
    return (status_of(r) in SOLVED and isinstance(r.get("objective"), (int, float))
            and r.get("kind") != "bound" and r.get("has_solution", True) is not False)


# ---------------------------------------------------------------------------
# formatting
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
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return "-"
    return f"{x:.2f}s" if x < 100 else f"{x:.0f}s"


def _ratio_cell(r: dict) -> str:
    x = r.get("ratio")
    if not isinstance(x, (int, float)):
        return "-"
    if is_reference_run(r) or r.get("reference_optimal") is not False:
        return _num(x)
    return ">=" + _num(x)


def _bound_cell(r: dict) -> str:
    x = r.get("ratio_to_bound")
    if not isinstance(x, (int, float)):
        return "-"
    if r.get("reference_optimal") is not False or is_reference_run(r):
        return _num(x)
    return "<=" + _num(x)


def notes_of(r: dict) -> str:
    out = []
    if was_killed(r):
        out.append("killed" + (" (last incumbent)" if status_of(r) in SOLVED else ""))
    elif was_stopped(r):
        out.append("stopped at limit")
    if r.get("reproducible") is False and not (was_killed(r) or was_stopped(r)):
        out.append("not reproducible")
    return ", ".join(out)


RUN_COLUMNS = ("instance", "method", "status", "objective", "ratio", "vs bound", "claim", "verdict", "time", "note")


def run_rows(records: Iterable[dict]) -> list[list[str]]:
    rows = []
    for r in records:
        method = variant_of(r) if r.get("method") is not None else "(load)"
        if is_reference_run(r):
            method += " *"
        if r.get("method") is not None and r.get("seed") not in (None, 0):
            method += f" s{r.get('seed')}"
        rows.append([
            str(r.get("label") or r.get("instance_hash")),
            method,
            status_of(r),
            _num(r.get("objective"), 6),
            _ratio_cell(r),
            _bound_cell(r),
            _num(r.get("claimed_bound"), 4),
            verdict_of(r),
            _time(r.get("runtime_s")),
            notes_of(r),
        ])
    return rows


NUMERIC = {"objective", "ratio", "vs bound", "claim", "time", "runs", "gm ratio", "max ratio", "gm vs bound",
           "sgm time", "n"}


def format_table(columns: Iterable[str], rows: list[list[str]], markdown: bool = False) -> str:
    cols = list(columns)
    if markdown:
        out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        return "\n".join(out)
    widths = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(cols)]

    def fmt(row: list[str]) -> str:
        return "  ".join(
            cell.rjust(w) if col in NUMERIC else cell.ljust(w) for cell, w, col in zip(row, widths, cols)
        ).rstrip()

    return "\n".join([fmt(cols), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


# ---------------------------------------------------------------------------
# statistics
def geometric_mean(xs: Iterable[float]) -> float | None:
    """Geometric mean of positive finite values (``None`` without any)."""
    v = [float(x) for x in xs if isinstance(x, (int, float)) and math.isfinite(x) and x > 0]
    if not v:
        return None
    return math.exp(statistics.fmean(math.log(x) for x in v))


def shifted_geometric_mean(xs: Iterable[float], shift: float = TIME_SHIFT_S) -> float | None:
    """``exp(mean(log(x + shift))) - shift`` over non-negative finite values."""
    v = [float(x) for x in xs if isinstance(x, (int, float)) and math.isfinite(x) and x >= 0]
    if not v:
        return None
    return math.exp(statistics.fmean(math.log(x + shift) for x in v)) - shift


def method_stats(records: Iterable[dict]) -> "OrderedDict[tuple[str, str], dict]":
    """Per (problem, variant): runs, statuses, ratio statistics, verdicts, times."""
    groups: OrderedDict[tuple[str, str], list[dict]] = OrderedDict()
    for r in records:
        if r.get("method") is None:
            continue
        groups.setdefault((str(r.get("problem")), variant_of(r)), []).append(r)
    out: OrderedDict[tuple[str, str], dict] = OrderedDict()
    for k in sorted(groups):
        rs = groups[k]
        ratios = [r["ratio"] for r in rs if isinstance(r.get("ratio"), (int, float))]
        to_bound = [r["ratio_to_bound"] for r in rs if isinstance(r.get("ratio_to_bound"), (int, float))]
        bounds = [r["claimed_bound"] for r in rs if isinstance(r.get("claimed_bound"), (int, float))]
        times = [r["runtime_s"] for r in rs if isinstance(r.get("runtime_s"), (int, float))]
        st: dict[str, int] = {}
        vd: dict[str, int] = {}
        for r in rs:
            s = status_of(r)
            st[s] = st.get(s, 0) + 1
            v = verdict_of(r)
            vd[v] = vd.get(v, 0) + 1
        out[k] = {
            "runs": len(rs),
            "status": st,
            "verdicts": vd,
            "ratio_n": len(ratios),
            "ratio_gmean": geometric_mean(ratios),
            "ratio_max": max(ratios) if ratios else None,
            "ratio_mean": statistics.fmean(ratios) if ratios else None,
            "ratio_median": statistics.median(ratios) if ratios else None,
            "to_bound_gmean": geometric_mean(to_bound),
            "ref_not_optimal": sum(1 for r in rs if r.get("reference_optimal") is False
                                   and isinstance(r.get("ratio"), (int, float)) and not is_reference_run(r)),
            "bound_min": min(bounds) if bounds else None,
            "bound_max": max(bounds) if bounds else None,
            "time_sgm": shifted_geometric_mean(times),
            "time_mean": statistics.fmean(times) if times else None,
            "time_total": sum(times) if times else 0.0,
            "not_reproducible": sum(1 for r in rs if r.get("reproducible") is False),
            "killed": sum(1 for r in rs if was_killed(r) or was_stopped(r)),
        }
    return out


STAT_COLUMNS = ("problem", "method", "runs", "status", "gm ratio", "max ratio", "gm vs bound", "claim",
                "verdicts", "sgm time", "note")


def stat_rows(stats: "OrderedDict[tuple[str, str], dict]") -> list[list[str]]:
    rows = []
    for (p, m), s in stats.items():
        b = "-" if s["bound_min"] is None else (
            _num(s["bound_min"]) if math.isclose(s["bound_min"], s["bound_max"]) else
            f"{_num(s['bound_min'])}..{_num(s['bound_max'])}")
        gm = _num(s["ratio_gmean"])
        if s["ratio_gmean"] is not None and s["ratio_n"] < s["runs"]:
            gm += f" ({s['ratio_n']})"
        notes = []
        if s["ref_not_optimal"]:
            notes.append(f"{s['ref_not_optimal']} vs non-optimal ref")
        if s["killed"]:
            notes.append(f"{s['killed']} killed/stopped")
        if s["not_reproducible"]:
            notes.append(f"{s['not_reproducible']} not reproducible")
        rows.append([
            p, m, str(s["runs"]),
            " ".join(f"{k}:{v}" for k, v in sorted(s["status"].items())),
            gm, _num(s["ratio_max"]), _num(s["to_bound_gmean"]), b,
            " ".join(f"{k}:{v}" for k, v in sorted(s["verdicts"].items()) if k not in ("-", "n/a")) or "-",
            _time(s["time_sgm"]),
            ", ".join(notes),
        ])
    return rows


def _per_instance_objective(records: Iterable[dict]) -> dict[str, dict[str, float]]:
    """{variant: {instance hash: objective averaged over seeds}} of solutions."""
    acc: dict[str, dict[str, list[float]]] = {}
    for r in records:
        if is_solution(r):
            acc.setdefault(variant_of(r), {}).setdefault(str(r.get("instance_hash")), []).append(float(r["objective"]))
    return {v: {h: statistics.fmean(xs) for h, xs in d.items()} for v, d in acc.items()}


def _sense(records: list[dict]) -> str:
    for r in records:
        if r.get("sense") in ("min", "max"):
            return r["sense"]
    return "min"


def _compare(a: float, b: float, sense: str) -> int:
    """+1 if ``a`` is better than ``b``, 0 on a tie, -1 if worse."""
    if abs(a - b) <= TIE_TOL * max(1.0, abs(a), abs(b)):
        return 0
    better = a < b if sense == "min" else a > b
    return 1 if better else -1


def head_to_head(records: Iterable[dict]) -> "OrderedDict[tuple[str, str], tuple[int, int, int]]":
    """(A, B) -> (wins, ties, losses) of A against B on the instances where
    both have a solution (objectives averaged over seeds); one family's records."""
    recs = list(records)
    sense = _sense(recs)
    obj = _per_instance_objective(recs)
    names = sorted(obj)
    out: OrderedDict[tuple[str, str], tuple[int, int, int]] = OrderedDict()
    for a in names:
        for b in names:
            if a == b:
                continue
            common = sorted(set(obj[a]) & set(obj[b]))
            res = [_compare(obj[a][h], obj[b][h], sense) for h in common]
            out[(a, b)] = (res.count(1), res.count(0), res.count(-1))
    return out


def head_to_head_table(records: Iterable[dict], markdown: bool = False) -> str:
    """Matrix of ``wins/ties/losses`` of each row method against each column method."""
    h2h = head_to_head(records)
    names = sorted({a for a, _ in h2h})
    if len(names) < 2:
        return ""
    rows = []
    for a in names:
        rows.append([a] + ["" if a == b else "{}/{}/{}".format(*h2h[(a, b)]) for b in names])
    return format_table(["w/t/l vs"] + names, rows, markdown=markdown)


def performance_profile(records: Iterable[dict], metric: str = "objective") -> dict:
    """Dolan-Moré performance ratios of one family's records.

    Parameters
    ----------
    metric
        ``"objective"`` (solution quality; ratio to the best objective on
        the instance, oriented by the family's sense) or ``"time"`` (run time
        of runs with a solution, ratio to the fastest; times below
        :data:`MIN_TIME_S` count as :data:`MIN_TIME_S`).

    Returns
    -------
    dict
        ``{"instances": [hash, ...], "ratios": {variant: [r per instance]}}``
        over the instances on which every variant has a record (of any
        status) and at least one has a solution; ``inf`` where a variant has
        no solution.  Bound methods are left out (their values are not
        solutions).
    """
    recs = [r for r in records if r.get("method") is not None and r.get("kind") != "bound"]
    sense = _sense(recs)
    variants = sorted({variant_of(r) for r in recs})
    ran: dict[str, set[str]] = {v: set() for v in variants}
    vals: dict[str, dict[str, list[float]]] = {v: {} for v in variants}
    for r in recs:
        v, h = variant_of(r), str(r.get("instance_hash"))
        ran[v].add(h)
        if not is_solution(r):
            continue
        if metric == "objective":
            x = float(r["objective"])
        elif metric == "time":
            t = r.get("runtime_s")
            if not isinstance(t, (int, float)):
                continue
            x = max(float(t), MIN_TIME_S)
        else:
            raise ValueError(f"metric must be 'objective' or 'time', got {metric!r}")
        vals[v].setdefault(h, []).append(x)
    if not variants:
        return {"instances": [], "ratios": {}}
    common = set.intersection(*(ran[v] for v in variants))
    insts = sorted(h for h in common if any(h in vals[v] for v in variants))
    ratios: dict[str, list[float]] = {v: [] for v in variants}
    lower_is_better = metric == "time" or sense == "min"
    for h in insts:
        x = {v: statistics.fmean(vals[v][h]) for v in variants if h in vals[v]}
        best = min(x.values()) if lower_is_better else max(x.values())
        for v in variants:
            if v not in x:
                ratios[v].append(math.inf)
            elif x[v] == best:
                ratios[v].append(1.0)
            elif lower_is_better:
                ratios[v].append(x[v] / best if best > 0 else math.inf)
            else:
                ratios[v].append(best / x[v] if x[v] > 0 else math.inf)
    return {"instances": insts, "ratios": ratios}


def profile_curve(ratios: list[float], taus: Iterable[float]) -> list[float]:
    """rho(tau): the fraction of ``ratios`` <= tau, for each tau."""
    n = len(ratios)
    return [sum(1 for r in ratios if r <= t * (1 + 1e-12)) / n if n else 0.0 for t in taus]


# ---------------------------------------------------------------------------
# the terminal summary
LEGEND = (
    "ratio = objective / reference's objective (>= 1: worse than the reference; inverted for maximisation); "
    "'>=x': the reference did not prove optimality, the ratio to the optimum is at least x. "
    "vs bound = objective / the reference's proven bound on the optimum ('<=x': the ratio to the optimum is "
    "at most x; on the reference's row, its own gap). claim = the paper's proven ratio; verdict no_bound = "
    "no finite claim. * marks the reference run. Status n/a = the method refused the instance (not an error)."
)

STATS_LEGEND = (
    "Per method (variant): gm ratio = geometric mean of ratio over the runs that have one (their number in "
    "parentheses when fewer than the runs); gm vs bound likewise; sgm time = shifted geometric mean of run "
    f"times, shift {TIME_SHIFT_S:g} s."
)


def summary_text(records: list[dict], *, ran: int | None = None, skipped: int | None = None,
                 elapsed_s: float | None = None, max_rows: int = 200, retried: int = 0,
                 max_h2h: int = 12) -> str:
    """The text ``dmlsched bench`` prints at the end of a sweep."""
    parts = []
    rows = run_rows(records)
    if len(rows) > max_rows:
        parts.append(format_table(RUN_COLUMNS, rows[:max_rows]))
        parts.append(f"... {len(rows) - max_rows} more run(s) (see the results file or `dmlsched report`)")
    else:
        parts.append(format_table(RUN_COLUMNS, rows))
    parts += ["", _wrap(LEGEND), "", format_table(STAT_COLUMNS, stat_rows(method_stats(records))), "",
              _wrap(STATS_LEGEND)]
    fams = sorted({str(r.get("problem")) for r in records if r.get("problem") and r.get("method")})
    for fam in fams:
        fr = [r for r in records if r.get("problem") == fam]
        n = len({variant_of(r) for r in fr if is_solution(r)})
        if 2 <= n <= max_h2h:
            parts += ["", f"{fam}: head-to-head (row vs column: wins/ties/losses on instances both solved)",
                      head_to_head_table(fr)]
        elif n > max_h2h:
            parts += ["", f"{fam}: head-to-head of {n} methods: see `dmlsched report`"]
    tail = f"{len(records)} run(s)"
    if ran is not None:
        tail += f": {ran} run now" + (f" ({retried} retried)" if retried else "") + f", {skipped or 0} already done"
    if elapsed_s is not None:
        tail += f", {elapsed_s:.1f} s"
    errors = [r for r in records if status_of(r) == "error"]
    not_applicable = [r for r in records if status_of(r) == "n/a"]
    violated = [r for r in records if verdict_of(r) == "violated"]
    killed = [r for r in records if was_killed(r) or was_stopped(r)]
    unrepro = [r for r in records if r.get("reproducible") is False]
    if errors:
        tail += f"; {len(errors)} error(s)"
    if not_applicable:
        tail += f"; {len(not_applicable)} not applicable"
    if violated:
        tail += f"; {len(violated)} bound violation(s)"
    if killed:
        tail += f"; {len(killed)} killed or stopped at the limit"
    if unrepro:
        tail += f"; {len(unrepro)} not reproducible (a wall clock cut them)"
    parts.append("")
    parts.append(tail)
    for r in errors[:20]:
        parts.append(f"  error: {r.get('label')} {variant_of(r) if r.get('method') else '(load)'}: {r.get('error')}")
    if len(errors) > 20:
        parts.append(f"  ... {len(errors) - 20} more error(s)")
    for r in not_applicable[:20]:
        parts.append(f"  n/a: {r.get('label')} {variant_of(r)}: "
                     f"{_short(str(r.get('error') or (r.get('details') or {}).get('error')))}")
    if len(not_applicable) > 20:
        parts.append(f"  ... {len(not_applicable) - 20} more n/a")
    for r in violated[:20]:
        parts.append(f"  VIOLATED: {r.get('label')} {variant_of(r)}: ratio {_num(r.get('ratio'))} > claimed "
                     f"{_num(r.get('claimed_bound'))} "
                     f"(reference {r.get('reference')} = {_num(r.get('reference_objective'))})")
    if len(violated) > 20:
        parts.append(f"  ... {len(violated) - 20} more violation(s)")
    return "\n".join(parts)


def _wrap(text: str, width: int = 100) -> str:
    return textwrap.fill(text, width=width, break_on_hyphens=False)


def exit_code(records: Iterable[dict]) -> int:
    """``dmlsched bench``'s exit code: 1 when a run ended in ``error`` (a real
    failure, including a file that could not be loaded), else 0.  ``n/a``,
    ``time_limit``, killed runs and violated claims are results, not failures."""
    return 1 if any(status_of(r) == "error" for r in records) else 0
