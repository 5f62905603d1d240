"""Greedy GPU grouping vs the exact MILP (and brute force): the gap, and the time.

Usage::

    python benchmarks/hlas_grouping_gap.py [--tiny 100] [--time-limit 60]

Part 1: ``--tiny`` random instances (3 jobs, 7-8 GPUs, 2-3 groups, speeds on a
grid) against brute force.  Part 2: instances derived from the paper's setup
with uneven GPU mixes (so that perfect groups are impossible) against the
MILP with a time limit (its proven bound gives the gap's worst case).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import dmlsched
from dmlsched.generate.hlas import generate
from dmlsched.problems.gpugrouping import GroupingInstance, brute_force_grouping, from_hlas


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiny", type=int, default=100)
    ap.add_argument("--time-limit", type=float, default=60.0)
    a = ap.parse_args()
    rng = np.random.default_rng(2024)
    ratios, opt_hits, tg = [], 0, []
    for _ in range(a.tiny):
        m = int(rng.integers(7, 9))
        u = int(rng.integers(2, 4))
        sp = tuple(tuple(float(x) for x in rng.integers(1, 20, size=m) / 4) for _ in range(3))
        inst = GroupingInstance(speeds=sp, groups=u)
        _, v, _ = brute_force_grouping(inst)
        t0 = time.perf_counter()
        g = dmlsched.solve(inst, "greedy").objective
        tg.append(time.perf_counter() - t0)
        r = 1.0 if g <= v + 1e-12 else (g / v if v > 0 else float("inf"))
        ratios.append(r)
        opt_hits += r <= 1 + 1e-9
    print(f"tiny ({a.tiny} instances, 3 jobs, 7-8 GPUs, 2-3 groups) vs brute force: "
          f"greedy optimal in {opt_hits}, mean ratio {statistics.mean(ratios):.3f}, "
          f"median {statistics.median(ratios):.3f}, max {max(ratios):.3f}, greedy {1000 * statistics.mean(tg):.2f} ms")
    print()
    print("| GPUs (V100/T4/K80/M60) | groups | greedy | greedy s | exact (status) | exact bound | exact s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mix, m, u in [((8, 4, 1, 2), 15, 3), ((8, 4, 1, 2), 30, 5), ((5, 3, 1, 1), 40, 8), ((8, 4, 1, 2), 60, 10)]:
        share = dict(zip(("V100", "T4", "K80", "M60"), mix))
        ginst = from_hlas(generate(40, m, seed=0, groups=u, gpu_mix=share))
        t0 = time.perf_counter()
        g = dmlsched.solve(ginst, "greedy")
        tg = time.perf_counter() - t0
        t0 = time.perf_counter()
        e = dmlsched.solve(ginst, "exact", time_limit=a.time_limit)
        te = time.perf_counter() - t0
        print(f"| {m} ({'/'.join(map(str, mix))} mix) | {u} | {g.objective:.4f} | {tg:.2f} | "
              f"{e.objective:.4f} ({e.status.value}) | {e.lower_bound:.4f} | {te:.1f} |")
    print("\n", platform.platform(), platform.python_version(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    main()
