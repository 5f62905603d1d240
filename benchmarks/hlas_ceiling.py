"""Where can a priority rule win?  SRTF/FIFO (the clairvoyant ceiling) over loads, job-size
distributions and tasks per round, at the paper's scale (200 jobs, 160 GPUs).

Usage::

    python benchmarks/hlas_ceiling.py [--seeds 3] [--out results.jsonl] [--workers 1]

A thin wrapper over :func:`dmlsched.bench.run_sweep`: ``generate.hlas.generate``
with sizes ``pareto`` (10..1000 rounds) or ``uniform`` (10..100), 2/4/8 or
8/16/32 tasks per round, offered load 0.9, 3 or 1000 (every job arrives almost
at once); methods ``srtf``, ``fifo`` (Gavel_FIFO) and ``fifo@relaxed``.
Prints the average JCTs and the factors SRTF/FIFO (geometric mean over seeds).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import tempfile
import time
from collections import defaultdict

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

SIZES = {"pareto": [10, 1000], "uniform": [10, 100]}
TASKS = ([2, 4, 8], [8, 16, 32])
LOADS = (0.9, 3.0, 1000.0)


def suite(seeds: int) -> Suite:
    sources = []
    for sizes, rounds in SIZES.items():
        for tasks in TASKS:
            for load in LOADS:
                sources.append(Source(
                    "generator", generator="dmlsched.generate.hlas:generate", seeds=tuple(range(seeds)),
                    name=f"{sizes};{'-'.join(map(str, tasks))} tasks;load {load:g}",
                    params={"num_jobs": 200, "num_gpus": 160, "num_groups": 40, "sizes": sizes, "rounds": rounds,
                            "tasks_per_round": tasks, "load": load}))
    return Suite(sources=sources, name="hlas-ceiling", methods=["srtf", "fifo", "fifo@relaxed"], reference=None,
                 time_limit=900, options={"fifo@relaxed": {"gang": "none"}})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.mkdtemp(prefix="hlas-ceiling-"), "results.jsonl")
    res = run_sweep(suite(a.seeds), out=out, workers=a.workers, progress=False)
    by: dict = defaultdict(lambda: defaultdict(dict))
    for r in res.records:
        if r["status"] == "feasible":
            setup = r["label"].split("(", 1)[0]
            by[setup][r["source"]][r.get("variant") or r["method"]] = r["objective"]
    print(f"results: {out}\n")
    print("| sizes | tasks per round | load | SRTF | Gavel_FIFO | relaxed FIFO | SRTF/Gavel_FIFO | "
          "SRTF/relaxed FIFO |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for setup, seeds in by.items():
        sizes, tasks, load = setup.split(";")
        vals = list(seeds.values())

        def mean(v: str) -> float:
            return sum(x[v] for x in vals) / len(vals)

        def gm(num: str) -> float:
            return math.exp(sum(math.log(x[num] / x["srtf"]) for x in vals) / len(vals))

        print(f"| {sizes} | {tasks.split()[0]} | {load.split()[1]} | {mean('srtf'):.1f} | {mean('fifo'):.1f} | "
              f"{mean('fifo@relaxed'):.1f} | {gm('fifo'):.2f}x | {gm('fifo@relaxed'):.2f}x |")
    print("\n200 jobs, 160 GPUs (40 of each type), mean average JCT (s) over seeds; factors: geometric means")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
