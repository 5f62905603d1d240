"""Harmony benchmarks: gap to the exhaustive Oracle (Fig. 4.17) and scheduling
time from 80 jobs / 100 machines to 8,000 jobs / 10,000 machines (Fig. 4.18).

Run::

    /work/venv/bin/python benchmarks/harmony_bench.py [--quick] [--seeds N]

Prints Markdown tables (recorded in benchmarks/harmony.md).  Single-threaded;
the full run takes about five minutes on one (loaded) core.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import datetime, timezone

import numpy as np

import dmlsched
from dmlsched.generate.harmony import evaluation_workload, sample_workload
from dmlsched.problems.harmony.heuristics import schedule
from dmlsched.problems.harmony.instance import HarmonyInstance, HarmonyJob


def uniform_instance(seed: int, jobs: int, machines: int) -> HarmonyInstance:
    """Times uniform in [1, 10] for both resources, reference DoP 1."""
    rng = np.random.default_rng([seed, 7])
    t = rng.uniform(1, 10, size=(jobs, 2)).round(3)
    its = rng.integers(10, 100, size=jobs)
    return HarmonyInstance(
        machines=machines,
        reference_dop=1.0,
        jobs=tuple(HarmonyJob(f"j{i}", float(a), float(b), int(k)) for i, ((a, b), k) in enumerate(zip(t, its))),
        name=f"uniform-{jobs}j-{machines}m-s{seed}",
    )


def pct(xs, q):
    return float(np.percentile(xs, q)) if len(xs) else float("nan")


def gap_table(families, seeds: int) -> list[str]:
    rows = [
        "| workload | n | M | instances | variant | U gap median | U gap p90 | U gap max | share <= 2% | avg-JCT gap median | makespan gap median | oracle s (mean) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, make, n, m in families:
        insts = [make(s, n, m) for s in range(seeds)]
        oracle_res, t_or = [], []
        for inst in insts:
            t0 = time.perf_counter()
            oracle_res.append(dmlsched.solve(inst, "oracle"))
            t_or.append(time.perf_counter() - t0)
        for admission in ("all", "incremental", "aggregate L6", "best n_G"):
            ug, jg, mg = [], [], []
            for inst, o in zip(insts, oracle_res):
                if admission == "best n_G":  # diagnostic: Algorithm 2 + allocation with the best n_G
                    h = max(
                        (dmlsched.solve(inst, "harmony", n_groups=k) for k in range(1, min(n, m) + 1)),
                        key=lambda r: r.objective,
                    )
                elif admission == "aggregate L6":
                    h = dmlsched.solve(inst, "harmony", group_rule="aggregate")
                else:
                    h = dmlsched.solve(inst, "harmony", admission=admission)
                ug.append(o.objective / h.objective - 1)
                if o.details.get("avg_jct"):
                    jg.append(h.details["avg_jct"] / o.details["avg_jct"] - 1)
                    mg.append(h.details["makespan"] / o.details["makespan"] - 1)
            share = sum(g <= 0.02 + 1e-12 for g in ug) / len(ug)
            rows.append(
                f"| {label} | {n} | {m} | {len(insts)} | {admission} | {100 * pct(ug, 50):.1f}% | "
                f"{100 * pct(ug, 90):.1f}% | {100 * max(ug):.1f}% | {100 * share:.0f}% | "
                f"{100 * pct(jg, 50):+.1f}% | {100 * pct(mg, 50):+.1f}% | {statistics.mean(t_or):.2f} |"
            )
    return rows


def scale_table(sizes, repeats: int) -> list[str]:
    rows = [
        "| jobs | machines | L6 reading | algorithm s | solve s (+ validation, evaluation, JCT) | U | U_cpu | U_net | n_G* | swaps | avg JCT | makespan |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    best_rows = []
    for n, m in sizes:
        inst = evaluation_workload(0, jobs=n, machines=m)
        for rule in ("per-job", "aggregate"):
            times, alg = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                schedule(inst, group_rule=rule)
                alg.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                res = dmlsched.solve(inst, "harmony", group_rule=rule)
                times.append(time.perf_counter() - t0)
            d = res.details
            rows.append(
                f"| {n} | {m} | {rule} | {statistics.median(alg):.3f} | {statistics.median(times):.3f} | {res.objective:.4f} | "
                f"{d['utilisation_cpu']:.3f} | {d['utilisation_net']:.3f} | {d['n_groups']} | {d['swaps']} | "
                f"{d['avg_jct']:.4g} | {d['makespan']:.4g} |"
            )
        if n <= 800:  # scan every n_G: Algorithm 2 + allocation with the best number of groups
            best = max((dmlsched.solve(inst, "harmony", n_groups=k) for k in range(1, min(n, m) + 1)),
                       key=lambda r: r.objective)
            best_rows.append(f"| {n} | {m} | {best.details['n_groups']} | {best.objective:.4f} |")
    rows += ["", "Best number of groups by scanning every n_G (a feasible value, so a lower bound on the optimum; "
             "U <= 1 is the upper bound):", "", "| jobs | machines | best n_G | U |", "|---|---|---|---|"]
    rows += best_rows
    return rows


def weight_table(seeds: int) -> list[str]:
    rows = [
        "| weights cpu:net | instances | U gap median | U gap p90 | U gap max | share <= 2% |",
        "|---|---|---|---|---|---|",
    ]
    for w in ({"cpu": 1, "net": 0}, {"cpu": 1, "net": 1}, {"cpu": 2, "net": 1}, {"cpu": 4, "net": 1}):
        gaps = []
        for s in range(seeds):
            inst = sample_workload(s, jobs=6, machines=8, weights=w)
            gaps.append(dmlsched.solve(inst, "oracle").objective / dmlsched.solve(inst, "harmony").objective - 1)
        share = sum(g <= 0.02 + 1e-12 for g in gaps) / len(gaps)
        rows.append(
            f"| {w['cpu']}:{w['net']} | {seeds} | {100 * pct(gaps, 50):.1f}% | {100 * pct(gaps, 90):.1f}% | "
            f"{100 * max(gaps):.1f}% | {100 * share:.0f}% |"
        )
    return rows


def paper_scale_table(seeds: int) -> list[str]:
    """80 jobs / 100 machines: the Oracle is out of reach, but U <= 1 bounds the
    optimum from above and the best-n_G run (feasible) from below."""
    rows = [
        "| L6 reading | seeds | U median | U min | certified gap upper bound (1/U - 1), median / max | gap lower bound (U_best-n_G / U - 1), median / max |",
        "|---|---|---|---|---|---|",
    ]
    data = {"per-job": [], "aggregate": []}
    best = []
    for s in range(seeds):
        inst = evaluation_workload(s)
        for rule in data:
            data[rule].append(dmlsched.solve(inst, "harmony", group_rule=rule).objective)
        best.append(max(dmlsched.solve(inst, "harmony", n_groups=k).objective for k in range(1, 81)))
    for rule, us in data.items():
        ub = [1 / u - 1 for u in us]
        lb = [max(0.0, b / u - 1) for b, u in zip(best, us)]
        rows.append(
            f"| {rule} | {seeds} | {pct(us, 50):.4f} | {min(us):.4f} | {100 * pct(ub, 50):.1f}% / {100 * max(ub):.1f}% | "
            f"{100 * pct(lb, 50):.1f}% / {100 * max(lb):.1f}% |"
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer seeds and sizes (smoke run)")
    ap.add_argument("--seeds", type=int, default=None)
    args = ap.parse_args()
    seeds = args.seeds or (3 if args.quick else 30)
    families = [
        ("eval-sample", lambda s, n, m: sample_workload(s, jobs=n, machines=m), 5, 6),
        ("eval-sample", lambda s, n, m: sample_workload(s, jobs=n, machines=m), 6, 8),
        ("eval-sample", lambda s, n, m: sample_workload(s, jobs=n, machines=m), 8, 10),
        ("eval-sample", lambda s, n, m: sample_workload(s, jobs=n, machines=m), 9, 12),
        ("uniform[1,10]", uniform_instance, 6, 8),
        ("uniform[1,10]", uniform_instance, 8, 10),
    ]
    if args.quick:
        families = families[:2]
    sizes = [(80, 100), (400, 500), (800, 1000), (2000, 2500), (4000, 5000), (8000, 10000)]
    if args.quick:
        sizes = sizes[:2]
    print(f"# Harmony benchmark — {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    print("## Gap to the exhaustive Oracle (Fig. 4.17)\n")
    print("Gaps: U_oracle / U_harmony - 1; avg JCT and makespan: harmony / oracle - 1 "
          "(the Oracle maximises U only, so JCT gaps may be negative).\n")
    print("\n".join(gap_table(families, seeds)))
    print("\n## Paper scale: 80 jobs on 100 machines (Oracle out of reach; bounds on the gap)\n")
    print("\n".join(paper_scale_table(seeds)))
    print("\n## Sensitivity to the scalarisation weights (eval-sample, n = 6, M = 8, admission=all)\n")
    print("\n".join(weight_table(seeds)))
    print("\n## Scheduling time (Fig. 4.18), evaluation workload seed 0, admission=all, median of runs\n")
    print("\n".join(scale_table(sizes, 1 if args.quick else 3)))


if __name__ == "__main__":
    main()
