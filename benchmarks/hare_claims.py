"""Run Hare's claims (``src/dmlsched/problems/hare/claims.py``) and write their
judgements as Markdown (``benchmarks/hare_claims.md``).

One command::

    .venv/bin/python benchmarks/hare_claims.py --results DIR --out benchmarks/hare_claims.md [--scale quick]

Each claim's suite runs in this process (``workers=0``, so Algorithm 1's
readings and variants share one relaxation solve per instance) with its runs
kept in ``DIR/<claim>.jsonl``: an interrupted run resumes, and a finished one
only re-judges.  ``dmlsched reproduce`` runs the same claims for
``benchmarks/REPRODUCTION.md``.

``--records FILE`` judges recorded runs without running anything: FILE is a
JSON-lines results file holding the claims' runs (e.g. the one ``dmlsched
reproduce`` writes, ``benchmarks/results-reproduce.jsonl``); each claim gets
the records of its suite's planned runs, found by their keys (a run shared by
two claims, recorded once, counts for both).  A planned run missing from FILE
is named in the output and left out; nothing is run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--results", help="folder for the JSON-lines results (resumable)")
    src.add_argument("--records", help="judge the runs recorded in this JSON-lines file; run nothing")
    ap.add_argument("--out", help="Markdown file to write (default: print)")
    ap.add_argument("--scale", choices=["full", "quick"], default="full")
    ap.add_argument("--claims", help="comma-separated claim keys (default: all of Hare's)")
    ap.add_argument("--note", help="a sentence added to the header (e.g. when and how long the recorded runs took)")
    args = ap.parse_args(argv)
    from dmlsched.bench import run_sweep
    from dmlsched.claims import all_claims

    if args.results:
        os.makedirs(args.results, exist_ok=True)
    recorded = _read_newest(args.records) if args.records else None
    keys = set(args.claims.split(",")) if args.claims else None
    parts = []
    for c in all_claims(["hare"]):
        if keys and c.key not in keys:
            continue
        t0 = time.perf_counter()
        missing = 0
        records = []
        for suite in c.suites(args.scale):  # the main suite and any extra ones (their records judged together)
            if recorded is not None:
                got, miss = _recorded(suite, recorded)
                records += got
                missing += miss
            else:
                out = run_sweep(suite, out=os.path.join(args.results, f"{c.key}.jsonl"), workers=0, progress=False)
                records += out.records if hasattr(out, "records") else out
        j = c.judge(records, args.scale)
        dt = time.perf_counter() - t0
        lines = [f"## {c.key}: {c.where}", "",
                 f"> {c.quote}", "",
                 f"**Paper:** {c.claimed}.  **Setup:** {c.setup}", "",
                 f"**Verdict:** {j.verdict}", ""]
        if j.measured:
            lines += [f"**Measured:** {j.measured}", ""]
        lines += ["| reading | ours | verdict | note |", "|---|---|---|---|"]
        lines += [f"| {r.reading} | {r.ours} | {r.verdict} | {r.note} |" for r in j.rows]
        lines += [""] + [f"- {cv}" for cv in j.caveats]
        lines += ["", "Readings: " + "; ".join(f"`{r.name}`{' (default)' if r.default else ''}: {r.what} "
                                                  f"({r.where})" for r in c.readings),
                  "", (f"*{len(records)} recorded runs of `{c.suite(args.scale).name}` judged from `{args.records}` "
                       f"in {dt:.0f} s" + (f"; {missing} planned runs are not in that file and are left out" if missing
                                           else "") + ".*") if recorded is not None else
                  f"*{len(records)} runs; judged in {dt:.0f} s (including any runs not yet in the results).*", ""]
        parts.append("\n".join(lines))
    how = (f"--records {args.records}" if recorded is not None else "--results DIR")
    head = ["# Hare's evaluation claims, judged", "",
            f"Produced by `.venv/bin/python benchmarks/hare_claims.py {how} --out benchmarks/hare_claims.md` "
            f"(scale `{args.scale}`) on {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}, {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, on a shared machine. The results do not "
            "depend on the machine's load: every limit inside the methods is a deterministic work limit."
            + (f" {args.note}" if args.note else ""), ""]
    text = "\n".join(head + parts)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(text)
    return 0


def _read_newest(path: str) -> dict[str, dict]:
    """key -> the newest record of that key in a JSON-lines results file."""
    from dmlsched.bench.store import iter_records

    if not os.path.exists(path):
        raise SystemExit(f"--records: no such file: {path}")
    out: dict[str, dict] = {}
    for r in iter_records(path):
        if r.get("key"):
            out[r["key"]] = r
    return out


def _recorded(suite, recorded: dict[str, dict]) -> tuple[list[dict], int]:
    """The records of ``suite``'s planned runs found in ``recorded`` (plan order), and how many are missing."""
    from dmlsched.bench.runner import plan
    from dmlsched.suites import materialize

    runs, _ = plan(suite, materialize(suite))
    found = [recorded[r.key] for r in runs if r.key in recorded]
    return found, len(runs) - len(found)


if __name__ == "__main__":
    sys.exit(main())
