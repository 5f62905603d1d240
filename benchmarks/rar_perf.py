"""Issue 23's goal for RAR: ``sjf-bco`` within 1.5x ``ff`` at 10,000 jobs / 1,000 servers.

Usage::

    python benchmarks/rar_perf.py [--jobs 10000] [--servers 1000]

Both methods through ``dmlsched.solve`` (search, then validation) on
``generate.rar.generate(num_jobs, num_servers, horizon=1200, seed=0)`` (the setup of
``rar_runtime.py --large``), alternately, in this process; prints each method's time, the
number of list-dispatch runs and placements (a placement: one job given its GPUs; SJF-BCO's
kappa loop re-places the jobs of every kappa's LBSGF suffix), and the ratio, with the load
average.  The ratio of placements is what the paper's algorithm does more than FF whatever
the speed of one placement.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import dmlsched
from dmlsched.generate.rar import generate
from dmlsched.problems.rar import heuristics


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--servers", type=int, default=1_000)
    a = ap.parse_args()
    inst = generate(num_jobs=a.jobs, num_servers=a.servers, horizon=1200, seed=0)
    count = {"n": 0}
    place = heuristics.Dispatch.place

    def counted(self, j, choose, cutoff):
        count["n"] += 1
        return place(self, j, choose, cutoff)

    heuristics.Dispatch.place = counted
    rows = {}
    for m in ("ff", "sjf-bco"):
        load0 = os.getloadavg()[0]
        count["n"] = 0
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = dmlsched.solve(inst, m)
        rows[m] = (time.perf_counter() - t0, time.process_time() - c0, res, count["n"], load0, os.getloadavg()[0])
    heuristics.Dispatch.place = place
    print(f"{a.jobs:,} jobs, {a.servers:,} servers, {inst.num_gpus:,} GPUs")
    print("| method | wall [s] | CPU [s] | makespan | runs | placements | load |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for m, (w, c, res, n, l0, l1) in rows.items():
        print(f"| {m} | {w:.2f} | {c:.2f} | {res.objective:g} | {res.details.get('runs')} | {n:,} "
              f"| {l0:.1f}-{l1:.1f} |")
    (wf, cf, _, nf, _, _), (ws, cs, _, ns, _, _) = rows["ff"], rows["sjf-bco"]
    print(f"\nsjf-bco / ff: wall {ws / wf:.2f}x, CPU {cs / cf:.2f}x, placements {ns / nf:.2f}x (goal <= 1.5x)")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    main()
