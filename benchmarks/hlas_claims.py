"""Run the HLAS paper's claims (``dmlsched.problems.hlas.claims``) on the bench engine
and print each judgement as Markdown (the tables of ``benchmarks/hlas.md`` §2).

Usage::

    python benchmarks/hlas_claims.py [--scale full|quick] [--out results.jsonl] [--workers 2] [--only KEY ...]

A thin wrapper over :func:`dmlsched.bench.run_sweep`: every claim's suite runs
into one results file (resumable: runs already in it are skipped, and runs
shared by two claims -- same instance, method, options -- run once).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

from dmlsched.bench import run_sweep
from dmlsched.problems.hlas.claims import CLAIMS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", choices=("full", "quick"), default="full")
    ap.add_argument("--out", default=None, help="results file (default: a temporary file)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", nargs="*", default=None, help="claim keys to run")
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.mkdtemp(prefix="hlas-claims-"), "results.jsonl")
    print(f"results: {out}\n")
    for c in CLAIMS:
        if a.only and c.key not in a.only:
            continue
        t0 = time.monotonic()
        res = run_sweep(c.suite(a.scale), out=out, workers=a.workers, progress=False)
        j = c.judge(res.records, a.scale)
        print(f"### {c.key}: {c.where}\n")
        print(f"Paper: {c.claimed}.  Verdict: **{j.verdict}**\n")
        print("| reading | ours | verdict | note |\n|---|---|---|---|")
        for r in j.rows:
            print(f"| {r.reading} | {r.ours} | {r.verdict} | {r.note} |")
        print()
        for cv in j.caveats:
            print(f"* {cv}")
        print(f"\n({len(res.records)} runs, {res.ran} new, {time.monotonic() - t0:.0f} s)\n", flush=True)
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
