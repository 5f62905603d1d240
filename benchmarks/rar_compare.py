"""RAR-DDLS, paper setting (Section 7, Fig. 4): SJF-BCO vs FF, LS, RAND over seeds.

Usage: python benchmarks/rar_compare.py [--seeds 10] [--baseline-order input|sjf] [--out FILE]

Prints a Markdown table of makespan and average JCT per seed and the means;
the recorded numbers are in benchmarks/rar.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import dmlsched
from dmlsched.generate.rar import paper_instance
from dmlsched.problems.rar.bounds import load_lower_bound

METHODS = ["sjf-bco", "ff", "ls", "rand"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default=None)
    ap.add_argument("--baseline-order", default="input", choices=["input", "sjf"],
                    help="job order of FF and LS (the paper does not say; default input order)")
    args = ap.parse_args()
    rows = []
    for seed in range(args.seeds):
        inst = paper_instance(seed)
        row = {"seed": seed, "gpus": inst.num_gpus, "lb": load_lower_bound(inst)}
        for m in METHODS:
            t = time.perf_counter()
            opts = {"order": args.baseline_order} if m in ("ff", "ls") else {}
            r = dmlsched.solve(inst, m, seed=seed, **opts)
            row[m] = {"makespan": r.objective, "jct": r.details.get("average_jct"),
                      "time_s": time.perf_counter() - t, "kappa": r.details.get("kappa"),
                      "theta": r.details.get("theta_u")}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| seed | GPUs | load LB | " + " | ".join(f"{m} makespan / JCT" for m in METHODS) + " |")
    print("|---" * (3 + len(METHODS)) + "|")
    for row in rows:
        cells = [f"{row[m]['makespan']:.0f} / {row[m]['jct']:.1f}" for m in METHODS]
        print(f"| {row['seed']} | {row['gpus']} | {row['lb']} | " + " | ".join(cells) + " |")
    mean = {m: (statistics.mean(r[m]["makespan"] for r in rows), statistics.mean(r[m]["jct"] for r in rows))
            for m in METHODS}
    print("| mean | | | " + " | ".join(f"{mean[m][0]:.1f} / {mean[m][1]:.1f}" for m in METHODS) + " |")
    wins = {m: sum(1 for r in rows if r["sjf-bco"]["makespan"] < r[m]["makespan"]) for m in METHODS[1:]}
    wins_jct = {m: sum(1 for r in rows if r["sjf-bco"]["jct"] < r[m]["jct"]) for m in METHODS[1:]}
    print(f"\nSJF-BCO strictly better makespan than: {wins} (of {len(rows)} seeds)")
    print(f"SJF-BCO strictly better average JCT than: {wins_jct} (of {len(rows)} seeds)")
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
