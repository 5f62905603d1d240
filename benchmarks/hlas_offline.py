"""The clairvoyant offline optimum: reach of ``offline-exact`` (CP-SAT) against
``offline-mip`` (Hare's MIP), on the paper's testbed shape.

Usage::

    python benchmarks/hlas_offline.py [--time-limit 60] [--out results.jsonl] [--workers 1]

A thin wrapper over :func:`dmlsched.bench.run_sweep` (no reference).  Instances
(``generate.hlas.generate`` with every time on a 0.01 s grid, so the integer
time scale 100 is exact): the 15-GPU testbed (8 V100, 4 T4, 1 K80, 2 M60) with
2-10 jobs of 2-4 rounds of 2, 4 or 8 tasks at offered load 2, seeds 0-2; and the
worked examples ``instances/hlas``.  Prints status, objective, proven bound and
wall time per run, and the largest task count each method proves.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

TESTBED = {"V100": 8, "T4": 4, "K80": 1, "M60": 2}
JOBS = (2, 3, 4, 6, 8, 10)
METHODS = ["offline-exact", "offline-mip"]


def suite(time_limit: float) -> Suite:
    sources = [Source("path", pattern=str(Path(__file__).resolve().parents[1] / "instances" / "hlas"))]
    for n in JOBS:
        sources.append(Source("generator", generator="dmlsched.generate.hlas:generate", seeds=(0, 1, 2),
                              name=f"testbed {n} jobs",
                              params={"num_jobs": n, "num_gpus": 15, "num_groups": None, "gpu_mix": TESTBED,
                                      "rounds": [2, 4], "tasks_per_round": [2, 4, 8], "load": 2.0,
                                      "time_grid": 0.01}))
    return Suite(sources=sources, name="hlas-offline-reach", methods=METHODS, reference=None,
                 time_limit=time_limit)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.mkdtemp(prefix="hlas-offline-"), "results.jsonl")
    res = run_sweep(suite(a.time_limit), out=out, workers=a.workers, progress=False)
    by = defaultdict(dict)
    for r in res.records:
        by[(r["label"], (r.get("size") or {}).get("tasks"))][r["method"]] = r
    print(f"results: {out}; time limit {a.time_limit:g} s\n")
    print("| instance | tasks | " + " | ".join(METHODS) + " |")
    print("|---|---:|" + "---|" * len(METHODS))
    proven = defaultdict(int)
    for (label, tasks), runs in by.items():
        cells = []
        for m in METHODS:
            r = runs.get(m)
            if r is None:
                cells.append("-")
                continue
            obj, b, w = r.get("objective"), r.get("bound"), r.get("wall_s") or 0.0
            if r["status"] == "optimal":
                proven[m] = max(proven[m], tasks or 0)
            cells.append(f"{r['status']} {obj if obj is None else f'{obj:.4f}'} / "
                         f"{b if b is None else f'{b:.4f}'} ({w:.1f} s)")
        print(f"| {label} | {tasks} | " + " | ".join(cells) + " |")
    print("\nlargest proven (tasks): " + ", ".join(f"{m} {proven[m]}" for m in METHODS))
    print("cells: status objective / proven bound (wall time)")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
