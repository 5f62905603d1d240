"""Run Hare's claims (``src/dmlsched/problems/hare/claims.py``) and write their
judgements as Markdown (``benchmarks/hare_claims.md``).

One command::

    .venv/bin/python benchmarks/hare_claims.py --results DIR --out benchmarks/hare_claims.md [--scale quick]

Each claim's suite runs in this process (``workers=0``, so Algorithm 1's
readings and variants share one relaxation solve per instance) with its runs
kept in ``DIR/<claim>.jsonl``: an interrupted run resumes, and a finished one
only re-judges.  ``dmlsched reproduce`` runs the same claims for
``benchmarks/REPRODUCTION.md``.
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
    ap.add_argument("--results", required=True, help="folder for the JSON-lines results (resumable)")
    ap.add_argument("--out", help="Markdown file to write (default: print)")
    ap.add_argument("--scale", choices=["full", "quick"], default="full")
    ap.add_argument("--claims", help="comma-separated claim keys (default: all of Hare's)")
    args = ap.parse_args(argv)
    from dmlsched.bench import run_sweep
    from dmlsched.claims import all_claims

    os.makedirs(args.results, exist_ok=True)
    keys = set(args.claims.split(",")) if args.claims else None
    parts = []
    for c in all_claims(["hare"]):
        if keys and c.key not in keys:
            continue
        t0 = time.perf_counter()
        out = run_sweep(c.suite(args.scale), out=os.path.join(args.results, f"{c.key}.jsonl"), workers=0,
                        progress=False)
        records = out.records if hasattr(out, "records") else out
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
                  "", f"*{len(records)} runs; judged in {dt:.0f} s (including any runs not yet in the results).*", ""]
        parts.append("\n".join(lines))
    head = ["# Hare's evaluation claims, judged", "",
            f"Produced by `.venv/bin/python benchmarks/hare_claims.py --results DIR --out benchmarks/hare_claims.md` "
            f"(scale `{args.scale}`) on {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}, {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, on a shared machine. The results do not "
            "depend on the machine's load: every limit inside the methods is a deterministic work limit.", ""]
    text = "\n".join(head + parts)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
