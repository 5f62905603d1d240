"""Benchmark: Algorithm 1's list phase (priority_order + list_schedule) on 160 GPUs.

Run: ``.venv/bin/python benchmarks/hare_list.py [--sizes 10000,100000,1000000] [--repeat 3]``

For each size ``n`` (tasks) a seeded random Hare instance is drawn on 160 GPUs
of the paper's four types (40 each of V100, T4, K80, M60), jobs with 1-49
rounds of 1-8 tasks, arrivals in [0, 100), training times in [1, 5) and
synchronisation times in [0, 1); the priorities ``H`` are random (the list
phase's cost does not depend on where ``H`` comes from; random priorities
interleave jobs the most, the worst case for the per-job barrier bookkeeping).
Times are the best of ``--repeat`` runs: wall-clock seconds (``time.perf_counter``)
and CPU seconds of this process (``time.process_time``).  The machine is shared
(2 cores, several engineers), so wall time depends on the load average, which
is printed with the results; CPU time is the cost of the algorithm itself.
Building the instance is reported separately and not included.
The result of every run is validated (``dmlsched.validate``) once per size,
outside the timed region.  Output: a Markdown table on standard output.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import dmlsched
from dmlsched.problems.hare.heuristics import list_schedule, priority_order
from dmlsched.problems.hare.instance import HareInstance, HareJob

TYPES = ("V100", "T4", "K80", "M60")


def make_instance(num_tasks: int, num_gpus: int = 160, seed: int = 0) -> HareInstance:
    """A seeded random instance with exactly ``num_tasks`` tasks."""
    rng = np.random.default_rng(seed)
    gpus = tuple(TYPES[m % len(TYPES)] for m in range(num_gpus))
    jobs = []
    total = 0
    while total < num_tasks:
        K = int(rng.integers(1, 9))
        R = int(rng.integers(1, 50))
        left = num_tasks - total
        if R * K > left:
            K = min(K, left)
            R = left // K
        jobs.append(
            HareJob(
                id=str(len(jobs)),
                arrival=float(rng.uniform(0, 100)),
                weight=float(rng.uniform(0.5, 2)),
                rounds=R,
                tasks_per_round=K,
                train_time={t: float(rng.uniform(1, 5)) for t in TYPES},
                sync_time={t: float(rng.uniform(0, 1)) for t in TYPES},
            )
        )
        total += R * K
    return HareInstance(gpus=gpus, jobs=tuple(jobs), name=f"bench-{num_tasks}")


def bench(num_tasks: int, repeat: int, seed: int = 0, placement: str = "earliest-start") -> dict:
    t0 = time.perf_counter()
    inst = make_instance(num_tasks, seed=seed)
    inst.tc, inst.ts, inst.task_k, inst.task_round  # noqa: B018 (build cached arrays)
    build = time.perf_counter() - t0
    prio = np.random.default_rng(seed + 1).uniform(0, 1000, inst.num_tasks)
    best_order = best_list = best_cpu = float("inf")
    sched = None
    for _ in range(repeat):
        c1 = time.process_time()
        t1 = time.perf_counter()
        order = priority_order(inst, prio)
        t2 = time.perf_counter()
        sched = list_schedule(inst, order, placement)
        t3 = time.perf_counter()
        c3 = time.process_time()
        best_order = min(best_order, t2 - t1)
        best_list = min(best_list, t3 - t2)
        best_cpu = min(best_cpu, c3 - c1)
    dmlsched.validate(inst, sched)
    return {
        "tasks": inst.num_tasks,
        "jobs": inst.num_jobs,
        "gpus": inst.num_gpus,
        "build_s": build,
        "order_s": best_order,
        "list_s": best_list,
        "total_s": best_order + best_list,
        "cpu_s": best_cpu,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--placement", default="earliest-start,earliest-available",
                    help="readings of line 12 to time (comma-separated)")
    args = ap.parse_args(argv)
    print(f"machine: {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()} "
          f"python {platform.python_version()} numpy {np.__version__}")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print("| placement | tasks | jobs | GPUs | build instance (s) | priority_order (s) | list_schedule (s) "
          "| list phase, wall (s) | list phase, CPU (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for placement in args.placement.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            r = bench(n, args.repeat, args.seed, placement)
            print(f"| {placement} | {r['tasks']:,} | {r['jobs']:,} | {r['gpus']} | {r['build_s']:.3f} | "
                  f"{r['order_s']:.3f} | {r['list_s']:.3f} | {r['total_s']:.3f} | {r['cpu_s']:.3f} |", flush=True)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
