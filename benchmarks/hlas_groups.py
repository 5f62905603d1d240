"""HLAS average JCT vs the number of GPU groups (the paper's Fig. 24: 160 GPUs, 200 jobs).

Usage::

    python benchmarks/hlas_groups.py [--seeds 3] [--load 3.0] [--group-mode batch]

For each number of groups, the greedy grouping's objective, HLAS's average and
total JCT (mean over seeds) and the mean simulation time.  ``--group-mode``
selects the reading of the GPU group (``batch``, ``gpuset``, ``round``,
``accounting``; ``models/hlas.md`` item 10).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import dmlsched
from dmlsched.generate.hlas import generate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--load", type=float, default=3.0)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--groups", default="10,20,40,80,160")
    ap.add_argument("--group-mode", default="batch")
    a = ap.parse_args()
    print(f"group_mode = {a.group_mode}\n")
    print(f"| groups | grouping objective | HLAS avg JCT | HLAS total JCT | sim s |")
    print("|---:|---:|---:|---:|---:|")
    for u in [int(x) for x in a.groups.split(",")]:
        avg, tot, gobj, sims = [], [], [], []
        for seed in range(a.seeds):
            inst = generate(a.jobs, 160, seed=seed, groups=u, load=a.load)
            res = dmlsched.solve(inst, "hlas", group_mode=a.group_mode)
            avg.append(res.objective)
            tot.append(res.objective * inst.num_jobs)
            gobj.append(res.details.get("grouping_objective") or 0.0)
            sims.append(res.details["simulation_s"])
        print(f"| {u} | {statistics.mean(gobj):.4f} | {statistics.mean(avg):.1f} | {statistics.mean(tot):.0f} | "
              f"{statistics.mean(sims):.2f} |")
    print("\n", platform.platform(), platform.python_version(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    main()
