"""GPU grouping: exact reach of the typed models against the binary MILP, and greedy's gap.

Usage::

    python benchmarks/hlas_grouping.py [--time-limit 60] [--out results.jsonl] [--workers 1]

A thin wrapper over :func:`dmlsched.bench.run_sweep` (no reference; every run
reports its own proven bound).  Instances:

* the paper setup (``generate.hlas.paper_grouping``): 8 job types of Table II on
  15-160 GPUs of the four types, uneven mixes (8/4/1/2, 5/3/1/1) and the equal mix;
* random speeds (``generate.hlas.grouping``): 20 and 24 GPUs, every GPU its own
  speed column (no two alike), 3-8 jobs, 4-6 groups, seeds 0-2;
* tiny random instances (3 jobs, 8 distinct GPUs, 3 groups, seeds 0-29),
  summarised: greedy against the brute force.

Methods: ``greedy``, ``exact`` (typed MILP, HiGHS), ``exact@binary`` (the
binary MILP of (4)-(6); paper instances only: on distinct GPUs it is the
typed one), ``exact-cp`` (typed CP-SAT), ``brute-force`` (tiny instances).  Prints one
Markdown table: status, objective, proven bound and wall time per run, and greedy's ratio to the proven optimum.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from collections import defaultdict

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

MIX = {"8/4/1/2": {"V100": 8, "T4": 4, "K80": 1, "M60": 2}, "5/3/1/1": {"V100": 5, "T4": 3, "K80": 1, "M60": 1},
       "equal": None}
PAPER = [(15, 3, "8/4/1/2"), (30, 5, "8/4/1/2"), (40, 8, "5/3/1/1"), (60, 10, "8/4/1/2"), (60, 10, "equal"),
         (160, 40, "equal"), (160, 40, "8/4/1/2")]
RANDOM = [(3, 20, 4), (4, 20, 5), (8, 20, 4), (8, 20, 5), (8, 24, 6)]
METHODS = ["greedy", "exact", "exact@binary", "exact-cp", "brute-force"]
TINY = "tiny 3 jobs, 8 distinct GPUs, 3 groups"


def suites(time_limit: float) -> list[Suite]:
    paper, rand = [], []
    for m, u, mix in PAPER:
        params = {"num_gpus": m, "num_groups": u}
        if MIX[mix]:
            params["gpu_mix"] = MIX[mix]
        paper.append(Source("generator", generator="dmlsched.generate.hlas:paper_grouping", params=params,
                            seeds=(0,), name=f"paper {m} GPUs ({mix}), {u} groups"))
    for n, m, u in RANDOM:
        rand.append(Source("generator", generator="dmlsched.generate.hlas:grouping",
                           params={"num_jobs": n, "num_gpus": m, "num_groups": u}, seeds=(0, 1, 2),
                           name=f"random {n} jobs, {m} distinct GPUs, {u} groups"))
    tiny = [Source("generator", generator="dmlsched.generate.hlas:grouping",
                   params={"num_jobs": 3, "num_gpus": 8, "num_groups": 3}, seeds=tuple(range(30)), name=TINY)]
    opts = {"exact@binary": {"formulation": "binary"}}
    return [
        Suite(sources=paper, name="hlas-grouping-paper", methods=["greedy", "exact", "exact@binary", "exact-cp"],
              reference=None, time_limit=time_limit, options=opts),
        # distinct GPUs: the typed MILP is the binary one (one GPU per type)
        Suite(sources=rand, name="hlas-grouping-random", methods=["greedy", "exact", "exact-cp"],
              reference=None, time_limit=time_limit, options=opts),
        Suite(sources=tiny, name="hlas-grouping-tiny", methods=["greedy", "brute-force"], reference=None,
              time_limit=time_limit),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.mkdtemp(prefix="hlas-grouping-"), "results.jsonl")
    records = []
    for su in suites(a.time_limit):
        records += run_sweep(su, out=out, workers=a.workers, progress=False).records
    by = defaultdict(dict)
    for r in records:
        by[r["label"]][r.get("variant") or r["method"]] = r
    print(f"results: {out}; time limit {a.time_limit:g} s\n")
    print("| instance | " + " | ".join(METHODS) + " | greedy / optimum |")
    print("|---|" + "---|" * (len(METHODS) + 1))
    tiny = []
    for label, runs in by.items():
        if label.startswith(TINY):
            g, b = runs.get("greedy", {}).get("objective"), runs.get("brute-force", {}).get("objective")
            if g is not None and b is not None:
                tiny.append(1.0 if g <= b + 1e-12 else (g / b if b > 0 else float("inf")))
            continue
        cells = []
        opt = None
        for m in METHODS:
            r = runs.get(m)
            if r is None:
                cells.append("-")
                continue
            st, obj, b, w = r["status"], r.get("objective"), r.get("bound"), r.get("wall_s") or 0.0
            if st == "optimal" and obj is not None:
                opt = obj if opt is None else min(opt, obj)
            if m == "greedy":
                cells.append(f"{obj:.4f} ({w:.2f} s)" if obj is not None else st)
            else:
                cells.append(f"{st} {obj:.4f} / {b if b is None else f'{b:.4f}'} ({w:.1f} s)" if obj is not None
                             else f"{st} ({w:.1f} s)")
        g = runs.get("greedy", {}).get("objective")
        ratio = "-" if g is None or opt is None else ("1.000" if opt == 0 and g == 0 else
                                                     f"{g / opt:.3f}" if opt > 0 else "inf")
        print(f"| {label} | " + " | ".join(cells) + f" | {ratio} |")
    if tiny:
        print(f"\n{TINY}: greedy optimal on {sum(r <= 1 + 1e-9 for r in tiny)} of {len(tiny)}, mean ratio "
              f"{sum(tiny) / len(tiny):.3f}, max {max(tiny):.3f}")
    print("\ncells: status objective / proven bound (wall time)")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
