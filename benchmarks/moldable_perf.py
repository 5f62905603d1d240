"""Issue 23's goal for malleable Equipartition on the whole Lublin SWF trace: linear growth in
jobs, and the whole solve (validation included) within 5x a floor with the same heap traffic.

Usage::

    DMLSCHED_TRACES=/path/to/traces python benchmarks/moldable_perf.py [--jobs 1250,2500,5000,10000]

For each prefix of the trace (256 processors, the paper's setup; ``generate.moldable.swf``)
and each reading of the "first-found GPU" (``lowest-index``, the paper's, and
``current-first``), one ``dmlsched.solve(inst, "malleable-equi")`` in this process: the
simulation, the metrics, the method kit's evaluation and ``solve``'s validation and
evaluation (which share one replay of the schedule).  The floor (``floor.py``) is a bare
heapq event loop with the same heap traffic: one push and one pop per task arrival and per
segment of the schedule (every segment schedules its task's completion), the arrivals
queued at the start; it is measured right before and right after the solve and averaged.
Growth: seconds per job and per segment along the prefixes (the paper's lowest-index rule
re-allocates most running tasks at every event, so its schedule itself grows faster than
the jobs: the segments are the output).

Prints a Markdown table; the load average is printed beside every row.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from floor import event_loop

import dmlsched
from dmlsched.generate.moldable import swf


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", default="1250,2500,5000,10000")
    ap.add_argument("--readings", default="lowest-index,current-first")
    a = ap.parse_args()
    print("| jobs | reading | segments | events | solve [s] | simulation [s] | floor [s] | solve / floor | "
          "ms per job | us per segment | load |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in a.jobs.split(",")):
        inst = swf(num_gpus=256, num_jobs=n)
        for reading in a.readings.split(","):
            load0 = os.getloadavg()[0]
            res = dmlsched.solve(inst, "malleable-equi", first_found=reading)  # warm-up run: not timed
            segs = res.details["metrics"]["segments"]
            traffic = inst.num_tasks + segs
            f0 = event_loop(traffic, inst.num_tasks)
            t0 = time.perf_counter()
            res = dmlsched.solve(inst, "malleable-equi", first_found=reading)
            wall = time.perf_counter() - t0
            f1 = event_loop(traffic, inst.num_tasks)
            floor = (f0 + f1) / 2
            d = res.details
            print(f"| {n:,} | {reading} | {segs:,} | {d['events']:,} | {wall:.2f} | {d['simulation_s']:.2f} | "
                  f"{floor:.3f} | {wall / floor:.1f}x | {1000 * wall / n:.2f} | {1e6 * wall / segs:.2f} | "
                  f"{load0:.1f}-{os.getloadavg()[0]:.1f} |", flush=True)
    print()
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    main()
