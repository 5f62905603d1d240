"""RAR-DDLS, paper setting: the kappa sweep (Fig. 5) and the lambda sweep (Fig. 7).

Usage: python benchmarks/rar_sweeps.py [--seeds 5]

kappa = 1..32 with lambda = 1 (SJF-BCO's bisection with kappa fixed); lambda in
{1, 2, 4, 8} with kappa = 1.  Mean makespan (and average JCT) over seeds.
The recorded numbers are in benchmarks/rar.md.
"""

from __future__ import annotations

import argparse
import statistics

import dmlsched
from dmlsched.generate.rar import paper_instance


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    insts = [paper_instance(s) for s in range(args.seeds)]
    print("| kappa | mean makespan | mean avg JCT | failed |")
    print("|---|---|---|---|")
    for kappa in range(1, 33):
        ms, js, fail = [], [], 0
        for inst in insts:
            r = dmlsched.solve(inst, "sjf-bco", kappa=kappa)
            if r.solution is None:
                fail += 1
                continue
            ms.append(r.objective)
            js.append(r.details["average_jct"])
        print(f"| {kappa} | {statistics.mean(ms):.1f} | {statistics.mean(js):.1f} | {fail} |", flush=True)
    print()
    print("| lambda (kappa = 1) | mean makespan | mean avg JCT |")
    print("|---|---|---|")
    for lam in (1.0, 2.0, 4.0, 8.0):
        rs = [dmlsched.solve(inst, "sjf-bco", kappa=1, lam=lam) for inst in insts]
        print(f"| {lam:g} | {statistics.mean(r.objective for r in rs):.1f} | "
              f"{statistics.mean(r.details['average_jct'] for r in rs):.1f} |", flush=True)


if __name__ == "__main__":
    main()
