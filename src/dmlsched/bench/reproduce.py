"""``dmlsched reproduce``: run every family's claims and write ``benchmarks/REPRODUCTION.md``.

The claims are data owned by the families (``problems/<family>/claims.py``,
collected by :func:`dmlsched.claims.all_claims`): each has the paper's quote,
where it is, the paper's number, its readings, a suite per scale and a judge.
This module only runs them:

1. ``claim.suite(scale)`` (``"full"``: the paper's scale and load; ``"quick"``:
   a small version for CI) on the benchmark engine, the same one as
   ``dmlsched bench`` (local worker processes or Dask, per-run limits, a
   results file that makes an interrupted run resume);
2. ``claim.judge(records, scale)`` -> a :class:`~dmlsched.claims.Judgement`
   whose verdict starts with one of :data:`~dmlsched.claims.VERDICTS`;
3. one table per paper: the claim (quote, where), the paper's number, ours per
   reading, the verdict and the caveats; then, per claim, the setup, the
   readings with the sentence each comes from, and the runs; the machine,
   the versions and the times.

A family without a claims module gets a line saying so (nothing is judged
for it here).

Run::

    dmlsched reproduce [--quick] [--results FILE] [--workers N | --dask ADDRESS] [--family F,...] [--claim KEY,...]

``--quick`` writes ``REPRODUCTION-quick.md`` unless ``--out`` says otherwise, so
a smoke test never overwrites the recorded report.

The report records the commit it was produced from (``git rev-parse HEAD``,
marked when the work tree had changes) and, at full scale, ships the run
records behind it: the newest record of every run, as compact JSON lines
compressed with xz, next to the report (``REPRODUCTION-runs.jsonl.xz``;
``--archive FILE`` elsewhere, ``--no-archive`` none).  ``--results`` accepts
such an archive: ``dmlsched reproduce --results
benchmarks/REPRODUCTION-runs.jsonl.xz`` re-renders the report from it in
seconds, without running anything (the archive is not changed; new runs go
to a temporary file).  An archive over :data:`MAX_ARCHIVE_BYTES` is not
written; the report then says so and gives the command and its cost.
"""

from __future__ import annotations

import gzip
import lzma
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TextIO

from ..claims import OUTCOMES, RULE, VERDICTS, WORDS, Claim, Judgement, all_claims, fmt, summary_word
from ..errors import UnknownMethodError
from ..family import Family, Ref
from ..io import write_text_atomic
from ..registry import bundled_families, family
from ..suites import SuiteError
from .engines import default_workers
from .runner import make_engine, run_sweep
from .store import dumps_record

#: where ``dmlsched reproduce`` writes by default
DEFAULT_OUT = "benchmarks/REPRODUCTION.md"
DEFAULT_QUICK_OUT = "REPRODUCTION-quick.md"

#: largest run-record archive written next to the report (the repository's file size limit)
MAX_ARCHIVE_BYTES = 2 * 2**20

#: suffixes of compressed results files ``--results`` reads (read-only)
ARCHIVE_SUFFIXES = (".xz", ".gz")


def archive_path(out: str | os.PathLike) -> Path:
    """The default archive of a report: ``REPRODUCTION.md`` -> ``REPRODUCTION-runs.jsonl.xz``."""
    p = Path(out)
    return p.with_name(f"{p.stem}-runs.jsonl.xz")


def commit_line(where: str | os.PathLike | None = None) -> str:
    """The git commit of the checkout holding this package (``+ uncommitted
    changes`` when its work tree differs), or why it is unknown."""
    cwd = Path(where) if where is not None else Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              timeout=20, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return f"`{head}`" + (" + uncommitted changes" if dirty else "")


def write_archive(records: list[dict], path: str | os.PathLike,
                  max_bytes: int = MAX_ARCHIVE_BYTES) -> tuple[int, int] | None:
    """Write ``records`` (the newest line per key) as compact JSON lines
    compressed with xz, atomically; returns ``(runs, bytes)``, or ``None``
    (nothing written) when the archive would exceed ``max_bytes``."""
    newest: dict[str, dict] = {}
    for r in records:
        newest[str(r.get("key"))] = r
    data = "".join(dumps_record(r) + "\n" for r in newest.values()).encode("utf-8")
    blob = lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)
    if len(blob) > max_bytes:
        return None
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.chmod(tmp, 0o644)  # a file to ship, readable like the report
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(newest), len(blob)


def unpack_archive(path: str | os.PathLike, folder: str | os.PathLike) -> str:
    """Decompress a results archive (``.xz``, ``.gz``) into ``folder``; returns
    the JSON-lines file to resume from (the archive itself is not changed)."""
    p = Path(path)
    opener = lzma.open if p.suffix == ".xz" else gzip.open
    out = Path(folder) / "reproduction.jsonl"
    with opener(p, "rb") as src, out.open("wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
    return str(out)


@dataclass
class ClaimRun:
    """What running one claim produced."""

    claim: Claim
    judgement: Judgement
    records: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    ran: int = 0
    skipped: int = 0
    problem: str = ""  # the setup or judge failure, if any


def verdict_word(verdict: str) -> str:
    """The :data:`~dmlsched.claims.VERDICTS` word a verdict starts with ('' if none)."""
    for v in sorted(VERDICTS, key=len, reverse=True):  # "not reproduced" before "reproduced"
        if verdict.startswith(v):
            return v
    return ""


class _LazyEngine:
    """One engine for every claim, started on the first submitted run (a rerun
    whose runs are all in the results file starts no worker and no cluster)."""

    def __init__(self, workers: int | None, dask: str | None, dashboard: str | None):
        self.workers, self.dask, self.dashboard = workers, dask, dashboard
        self._eng: Any = None
        self.name = "dask" if dask else ("inprocess" if workers == 0 else "local")

    def _get(self) -> Any:
        if self._eng is None:
            self._eng = make_engine(self.workers, self.dask, self.dashboard)
        return self._eng

    def submit(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> None:
        self._get().submit(job, hard_limit, stop_after)

    def next_result(self) -> dict:
        return self._get().next_result()

    def close(self) -> None:
        if self._eng is not None:
            self._eng.close()
            self._eng = None


def run_claim(claim: Claim, scale: str, *, results: str, engine: Any, progress: bool = False,
              stream: TextIO | None = None, retry: Any = None) -> ClaimRun:
    """Run one claim's suite at ``scale`` and judge it; failures become a
    ``not run`` verdict naming them (one claim never hides the others)."""
    t0 = time.monotonic()
    try:
        suites = claim.suites(scale)  # type: ignore[arg-type]
    except Exception as e:
        msg = f"the setup failed: {type(e).__name__}: {e}"
        return ClaimRun(claim, Judgement(verdict=f"not run ({msg})"), seconds=time.monotonic() - t0, problem=msg)
    records: list[dict] = []
    ran = skipped = 0
    try:
        for suite in suites:
            res = run_sweep(suite, out=results, engine=engine, progress=progress, stream=stream, retry=retry)
            records += res.records
            ran, skipped = ran + res.ran, skipped + res.skipped
    except Exception as e:
        msg = f"the sweep failed: {type(e).__name__}: {e}"
        return ClaimRun(claim, Judgement(verdict=f"not run ({msg})"), seconds=time.monotonic() - t0, problem=msg)
    try:
        j = claim.judge(records, scale)  # type: ignore[arg-type]
        if not isinstance(j, Judgement) or not (verdict_word(str(j.verdict)) or
                                                (claim.role == "context" and j.verdict == "context")):
            raise TypeError(f"the judge must return a Judgement whose verdict starts with one of {VERDICTS}, "
                            f"got {j!r}")
        problem = ""
    except Exception as e:
        problem = f"the judge failed: {type(e).__name__}: {e}"
        j = Judgement(verdict=f"not run ({problem})", measured=traceback.format_exc(limit=3))
    return ClaimRun(claim, j, records, time.monotonic() - t0, ran, skipped, problem)


# ---------------------------------------------------------------------------
# the report
def versions_line() -> str:
    """Python and the versions of the packages behind the numbers."""
    out = [f"Python {platform.python_version()}"]
    for dist in ("dmlsched", "pyomo", "highspy", "ortools", "numpy", "scipy", "gurobipy", "distributed"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            pass
    return ", ".join(out)


def machine_line() -> str:
    """Host, platform, cores, CPU model and memory of this machine."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 2**20:.0f} GiB"
                break
    except (OSError, ValueError):
        pass
    return f"{platform.node()}: {platform.platform()}, {os.cpu_count()} cores ({cpu}){mem}"


def _cell(text: Any) -> str:
    """Text for one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _fmt_s(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _runs_line(cr: ClaimRun) -> str:
    recs = [r for r in cr.records if r.get("method")]
    st: dict[str, int] = {}
    for r in recs:
        s = ("n/a" if (r.get("status") == "n/a" or (r.get("details") or {}).get("not_applicable"))
             else str(r.get("status")))
        st[s] = st.get(s, 0) + 1
    insts = len({r.get("instance_hash") for r in cr.records})
    killed = sum(1 for r in recs if r.get("killed") or (r.get("details") or {}).get("stopped_by_bench"))
    unrepro = sum(1 for r in recs if r.get("reproducible") is False)
    out = (f"{len(recs)} run(s) on {insts} instance(s) "
           f"({', '.join(f'{k} {v}' for k, v in sorted(st.items())) or '-'}); "
           f"{cr.ran} run now, {cr.skipped} taken from the results file; {_fmt_s(cr.seconds)}")
    if killed:
        out += f"; {killed} stopped or killed at the limit"
    if unrepro:
        out += f"; {unrepro} not reproducible (a wall clock cut them)"
    return out


#: longest line the report writes (a table row is shortened cell by cell to fit)
MAX_LINE = 1000
#: most points listed per part in a claim's section
MAX_POINTS = 12


def _fit_row(cells: list[str], limit: int = MAX_LINE) -> str:
    """A Markdown table row of ``cells``, the longest cells shortened until the line fits ``limit``."""
    cells = [_cell(c) for c in cells]
    while True:
        line = "| " + " | ".join(cells) + " |"
        if len(line) <= limit:
            return line
        i = max(range(len(cells)), key=lambda k: len(cells[k]))
        cut = max(20, len(cells[i]) - (len(line) - limit) - 3)
        cells[i] = cells[i][:cut].rstrip("\\") + "..."


def _para(text: str, limit: int = MAX_LINE) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[: limit - 3] + "..."


def _word_cell(j: Judgement) -> str:
    """The summary's verdict cell: the default reading's word (with what this setup shows, and
    the other readings' words where they differ: :func:`dmlsched.claims.summary_word`)."""
    if not j.readings:
        return f"**{verdict_word(j.verdict) or j.verdict}**"
    w, note = summary_word(j.readings)
    return f"**{w}**" + (f" ({note})" if note else "")


def _ours_cell(j: Judgement) -> str:
    """The summary's 'ours' cell: every part of the default reading that makes its word, with its
    outcome where it does not hold (so no failing part hides); the judge's text without readings."""
    d = next((r for r in j.readings if r.default), None)
    if d is None:
        return j.ours or "-"
    return "; ".join(f"{pr.part.key} {pr.ours_text()}" + ("" if pr.outcome == "holds" else f" ({pr.outcome})")
                     for pr in d.counted()) or "-"


def _rule_section() -> list[str]:
    out = ["## How the verdicts are decided", ""]
    for para in RULE:
        out += [_para(para), ""]
    out += ["Claim words (from the parts about the paper's method), in this order:", ""]
    out += [f"- **{w}**: {d}." for w, d in WORDS.items()]
    out += ["", f"(part outcomes: {', '.join(OUTCOMES)})", ""]
    return out


def render(runs: list[ClaimRun], *, scale: str, without_claims: list[str], command: str, total_s: float,
           engine: str, results: str | None, partial: bool = False, broken: dict[str, str] | None = None,
           commit: str | None = None, archive: str | None = None) -> str:
    """The Markdown of REPRODUCTION.md: the rule and the words, one summary table, then per
    paper its readings (listed once) and per claim the parts, the verdict per reading and the
    measurements.  No line is longer than :data:`MAX_LINE` characters.  ``commit``:
    :func:`commit_line`; ``archive``: the line saying where the run records are."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        REPORT_TITLE,
        "",
        f"Generated by `{command}` on {now}; total {_fmt_s(total_s)}.",
        "",
    ]
    ran = sum(cr.ran for cr in runs)  # a run is run once; a claim sharing it later takes it from the file
    walls = {r.get("key") or id(r): float(r.get("wall_s") or 0.0) for cr in runs for r in cr.records}
    busy = sum(walls.values())  # a run shared by two claims counts once
    distinct = len(walls)
    if distinct > ran:
        lines += [_para(f"The report rests on {distinct} distinct run(s) (a run shared by several claims counts "
                        f"once): this command ran {ran} and took the other {distinct - ran} from the results file. "
                        f"They took {_fmt_s(busy)} of worker time in all (about {_fmt_s(busy / max(1, _cores()))} on "
                        f"{_cores()} worker(s)), measured when each ran."), ""]
    lines += [
        f"- scale: **{scale}**" + (" (the papers' own scale, load and baselines where we have them)" if scale == "full"
                                   else " (a small version of every claim for CI: a smoke test, not the result)"),
        f"- machine: {machine_line()}" + _load_text(),
        f"- commit: {commit or commit_line()}",
        f"- versions: {versions_line()}",
        f"- engine: {engine}; every run through the `dmlsched bench` engine",
    ]
    if results:
        lines.append(f"- runs: `{results}` (rerun the same command to resume; "
                     "`--retry errors,killed` re-runs failures)")
    if archive:
        lines.append(f"- run records: {archive}")
    if partial:
        lines.append("- **partial run: only the claims selected by --family/--claim**")
    lines += [""] + _rule_section()
    if any(cr.claim.family == "hare" for cr in runs):
        lines += ["Hare's x^ (Algorithm 1, Step 1: the solution of Hare_Sched_RL), by code:", ""]
        xhat_codes = Ref("dmlsched.problems.hare.claims:XHAT_CODES").get()  # loaded with Hare's claims
        lines += [f"- `{k}`: {v}." for k, v in xhat_codes.items()] + [""]
    verdict_runs = [cr for cr in runs if cr.claim.role != "context"]
    lines += ["## Summary", ""]
    if verdict_runs:
        lines += ["| claim | paper's number | ours (default readings) | verdict | ceiling | decisive caveat |",
                  "|---|---|---|---|---|---|"]
        for cr in verdict_runs:
            c, j = cr.claim, cr.judgement
            role = "" if c.role == "claim" else f" ({c.role})"
            lines.append(_fit_row([f"`{c.key}`{role}", c.claimed, _ours_cell(j), _word_cell(j), j.ceiling or "-",
                                   _short(j.caveat or (j.caveats[0] if j.caveats else "-"), 100)]))
    else:
        lines.append("No claim was run.")
    lines.append("")
    context = [cr for cr in runs if cr.claim.role == "context"]
    if context:
        lines += ["Context (measurements beside the claims, no verdict):", ""]
        lines += [f"- `{cr.claim.key}`: "
                  f"{_para(cr.judgement.ours or cr.judgement.measured or cr.judgement.verdict, 900)}"
                  for cr in context] + [""]
    papers: dict[str, list[ClaimRun]] = {}
    for cr in runs:
        papers.setdefault(cr.claim.paper, []).append(cr)
    for paper, crs in papers.items():
        fams = sorted({cr.claim.family for cr in crs})
        lines += [f"## {paper}", "", f"Family: {', '.join(f'`{f}`' for f in fams)}.", ""]
        seen: dict[str, Any] = {}
        for cr in crs:
            for rd in cr.claim.readings:
                seen.setdefault(rd.name, rd)
        if seen:
            lines += ["Readings of this paper (each with the sentence it comes from; defaults first):", ""]
            for rd in sorted(seen.values(), key=lambda r: not r.default):
                lines.append(_para(f"- `{rd.name}`{' (default)' if rd.default else ''}: {rd.what}. From {rd.where}: "
                                   f"\"{' '.join(rd.quote.split())}\""))
            lines.append("")
        for cr in crs:
            lines += _claim_section(cr, scale)
    if without_claims or broken:
        lines += ["## Families without claims", ""]
        for f in without_claims:
            lines.append(f"- `{f}`: no claims module (`src/dmlsched/problems/{f}/claims.py`): nothing is judged here.")
        for f, err in (broken or {}).items():
            lines.append(_para(f"- `{f}`: its claims module failed to import ({_cell(err)}): nothing is judged here."))
        lines.append("")
    return "\n".join(lines)


def _load_text() -> str:
    """``"; load average 1.2, 1.5, 1.1 when written"`` (nothing where the OS has none)."""
    try:
        return "; load average {:.1f}, {:.1f}, {:.1f} when written".format(*os.getloadavg())
    except (AttributeError, OSError):
        return ""


def _claim_section(cr: ClaimRun, scale: str) -> list[str]:
    c, j = cr.claim, cr.judgement
    lines = [f"### `{c.key}`: {c.where}", "", _para(f"> {c.quote}"), ""]
    if c.role != "claim":
        lines += [f"*{c.role}*" + {"theory": ": a theorem or a cited result, checked on instances.",
                                   "model check": ": the model's own construction decides part of it (see the "
                                                  "setup).",
                                   "context": ": measurements beside the claims, no verdict."}.get(c.role, ""), ""]
    lines += [_para(f"**Setup ({scale}).** {c.setup}"), ""]
    for st in c.setups:
        lines.append(_para(f"Setup `{st.name}`: {'as published' if st.published else 'not as published'} ({st.why})."))
    if c.setups:
        lines.append("")
    if c.parts:
        lines += ["**Parts** (declared from the text):", "",
                  "| part | kind | paper | covers | tolerance | from the text |",
                  "|---|---|---|---|---|---|"]
        for p in c.parts:
            tol = "-" if p.kind in ("always better", "grows") or (p.kind in ("at most", "bound") and not p.tolerance) \
                else f"{100 * p.tolerance:g}%"
            kind = p.kind + (" (context)" if p.subject == "context" else "")
            lines.append(_fit_row([p.what, kind, p.paper_text(), p.covers + (f": {p.aggregate}" if p.aggregate else ""),
                                   tol, f"\"{p.source}\"" if p.source else "-"]))
        lines.append("")
    if c.default_reason:
        lines += [_para(f"**Default reading.** {c.default_reason}."), ""]
    if j.readings:
        lines += ["**Verdict per reading:**", "", "| reading | setup | part outcomes | word |", "|---|---|---|---|"]
        first_why = None
        for rv in j.readings:
            if rv.published:
                setup = "as published"
            elif rv.why == first_why:
                setup = "not as published (as above)"
            else:
                setup, first_why = f"not as published: {rv.why}", rv.why
            outs = "; ".join(f"{pr.part.key}{' (context)' if pr.part.subject == 'context' else ''}: {pr.outcome} "
                             f"({pr.ours_text()})" for pr in rv.parts)
            word = rv.word + (f"; with this setup: {rv.setup_word}" if rv.word == "inconclusive" else "")
            lines.append(_fit_row([rv.name + (" (default)" if rv.default else ""), setup, outs, word]))
        lines.append("")
    d = next((r for r in j.readings if r.default), None)
    if d is not None and any(pr.points for pr in d.parts):
        lines += ["**Points under the default readings** (ours and the ceiling at each covered point):", "",
                  "| part | point | ours | ceiling |", "|---|---|---|---|"]
        for pr in d.parts:
            for pt in pr.points[:MAX_POINTS]:
                lines.append(_fit_row([pr.part.key, pt.label, pt.shown or fmt(pt.ours, pr.part.unit),
                                       fmt(pt.ceiling, pr.part.unit) if pt.ceiling is not None else "-"]))
            if len(pr.points) > MAX_POINTS:
                lines.append(_fit_row([pr.part.key, f"... {len(pr.points) - MAX_POINTS} more", "", ""]))
        lines.append("")
    if j.rows:
        lines += ["**Measured:**", "", "| what | ours | outcome | note |", "|---|---|---|---|"]
        for r in j.rows:
            lines.append(_fit_row([r.reading, r.ours, r.verdict or "-", r.note or "-"]))
        lines.append("")
    elif j.measured and not cr.problem:
        lines += [_para(f"**Measured.** {j.measured}"), ""]
    if j.caveats:
        lines += ["**Caveats:**", ""] + [_para(f"- {x}") for x in j.caveats if x] + [""]
    if cr.problem:
        lines += [_para(f"**Not run.** {cr.problem}"), ""]
    lines += [_para(f"**Runs.** {_runs_line(cr)}." + (f" Documented full run: {c.full_time}." if c.full_time else "")),
              "", _para(f"**Verdict.** {j.verdict}"), ""]
    return lines


def _short(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 3] + "..."


def generate(out: str | None = None, *, scale: str = "full", workers: int | None = None, dask: str | None = None,
             dashboard: str | None = None, results: str | None = None, families: list[str] | None = None,
             claim_keys: list[str] | None = None, retry: Any = None, progress: bool = False,
             stream: TextIO | None = None, claims: list[Claim] | None = None,
             archive: str | None | bool = True) -> tuple[Path, list[ClaimRun]]:
    """Run every claim (of ``families`` / ``claim_keys`` if given) at ``scale``
    and write the report to ``out``; returns its path and the runs.

    ``claims`` replaces :func:`dmlsched.claims.all_claims` (tests).
    ``archive``: where to ship the run records (xz); ``True``: next to the
    report at full scale (:func:`archive_path`), none at quick scale;
    ``False``/``None``: none.  ``results`` may be such an archive (read only).
    """
    if scale not in ("full", "quick"):
        raise ValueError(f"scale must be 'full' or 'quick', got {scale!r}")
    stream = stream if stream is not None else sys.stderr
    out = out or (DEFAULT_QUICK_OUT if scale == "quick" else DEFAULT_OUT)
    bundled = bundled_families()
    selected = _select_families(families, bundled) if families else bundled
    names = [f.name for f in selected]
    fams = names if families else None
    registered, broken = _collect_claims(names)
    cl = list(claims) if claims is not None else registered
    if fams:
        cl = [c for c in cl if c.family in fams]
    if claim_keys:
        missing = sorted(set(claim_keys) - {c.key for c in cl})
        if missing:
            raise SuiteError(f"--claim: unknown {', '.join(missing)}; known: {', '.join(c.key for c in cl) or 'none'}")
        cl = [c for c in cl if c.key in claim_keys]
    with_claims = {c.family for c in registered} | {c.family for c in cl} | set(broken)
    # named by package, as its (missing) claims file is
    without = [f.package_name or f.name for f in selected if f.name not in with_claims]
    tmp = None
    shown_results = results
    if results is not None and Path(results).suffix in ARCHIVE_SUFFIXES:
        tmp = tempfile.mkdtemp(prefix="dmlsched-repro-")
        results = unpack_archive(results, tmp)
    elif results is None:
        tmp = tempfile.mkdtemp(prefix="dmlsched-repro-")
        results = str(Path(tmp) / "reproduction.jsonl")
    engine = _LazyEngine(workers, dask, dashboard)
    t0 = time.monotonic()
    runs: list[ClaimRun] = []
    try:
        for c in cl:
            print(f"reproduce: {c.key} ({c.paper}, {c.where}) at {scale} scale", file=stream, flush=True)
            cr = run_claim(c, scale, results=results, engine=engine, progress=progress, stream=stream, retry=retry)
            print(f"reproduce: {c.key}: {cr.judgement.verdict} ({_fmt_s(cr.seconds)})", file=stream, flush=True)
            runs.append(cr)
    finally:
        engine.close()
    total = time.monotonic() - t0
    cmd = "dmlsched reproduce" + (" --quick" if scale == "quick" else "")
    if fams:
        cmd += " --family " + ",".join(fams)
    if claim_keys:
        cmd += " --claim " + ",".join(claim_keys)
    eng = (f"Dask ({dask})" if dask else "in-process" if workers == 0 else
           f"{workers or _cores()} local worker process(es)")
    if shown_results is not None and tmp is not None:
        cmd += f" --results {shown_results}"
    if archive is True:
        arch = archive_path(out) if scale == "full" else None
    else:
        arch = archive if isinstance(archive, (str, os.PathLike)) else None
    arch_line = None
    if arch:
        recs = [r for cr in runs for r in cr.records]
        wrote = write_archive(recs, arch)
        busy = sum({str(r.get("key")): float(r.get("wall_s") or 0.0) for r in recs}.values())
        if wrote is not None:
            arch_line = (f"`{arch}` ({wrote[0]} runs, {wrote[1] / 2**20:.2f} MiB, "
                         f"xz): `dmlsched reproduce --results {arch}` re-renders this report from them without "
                         f"running anything; running them again costs about {_fmt_s(busy)} of worker time")
        else:
            arch_line = (f"not shipped (over {MAX_ARCHIVE_BYTES / 2**20:.0f} MiB compressed); `{cmd} --results "
                         f"FILE` runs them again (about {_fmt_s(busy)} of worker time) and keeps them in FILE")
    text = render(runs, scale=scale, without_claims=without, command=cmd, total_s=total, engine=eng,
                  results=None if tmp else results, partial=bool(fams or claim_keys), broken=broken,
                  archive=arch_line)
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(p, text + "\n")
    return p, runs


def _select_families(names: list[str], bundled: list[Family]) -> list[Family]:
    """The families ``--family`` names, each by its registry name (``gpu-grouping``)
    or its package's (``gpugrouping``), once each, in the order given."""
    out: list[Family] = []
    unknown: list[str] = []
    for name in names:
        try:
            fam = family(name)
        except UnknownMethodError:
            unknown.append(name)
            continue
        if fam not in out:
            out.append(fam)
    if unknown:
        raise SuiteError(f"--family: unknown {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(f.name for f in bundled)}")
    return out


def _collect_claims(families: list[str]) -> tuple[list[Claim], dict[str, str]]:
    """Every family's claims; a family whose claims module fails to import is
    reported (``{family: error}``), not fatal to the others."""
    out: list[Claim] = []
    broken: dict[str, str] = {}
    for f in families:
        try:
            out.extend(all_claims([f]))
        except Exception as e:
            broken[f] = f"{type(e).__name__}: {e}"
    keys = [c.key for c in out]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"duplicate claim keys: {dup}")
    return out, broken


def _cores() -> int:
    return default_workers()


#: the first line of every report :func:`render` writes
REPORT_TITLE = "# Reproduction of the papers' claims"


def check_report_file(path: str | os.PathLike) -> None:
    """``--out`` may replace a reproduction report, never another file (an
    instance, a results file): :class:`SuiteError` naming it otherwise."""
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size == 0:
            return
        with p.open("r", encoding="utf-8", errors="replace") as f:
            first = next((ln.strip() for ln in f if ln.strip()), "")
    except OSError:
        return  # unreadable: the write will say so
    if first != REPORT_TITLE:
        raise SuiteError(f"--out {path}: exists and is not a reproduction report (its first line is not "
                         f"{REPORT_TITLE!r}); refusing to overwrite it: give another --out")


if __name__ == "__main__":  # its command line moved to dmlsched.cli.bench, which a library module must not import
    print("python -m dmlsched.bench.reproduce: the command is `dmlsched reproduce` "
          "(or python -m dmlsched.cli reproduce)", file=sys.stderr)
    sys.exit(2)
