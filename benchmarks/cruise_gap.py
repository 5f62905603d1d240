"""Cruise claims, measured: (3.5)'s gap on homogeneous clusters and the
proportional heuristic's gap on heterogeneous clusters (vs Table 3.4's 0-6.5%).

Run:  /work/venv/bin/python benchmarks/cruise_gap.py [--quick] [--out FILE.json]

Prints a Markdown summary; benchmarks/cruise.md records a run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from datetime import datetime, timezone

import dmlsched
from dmlsched.generate.cruise import APPS, heterogeneous_cluster, homogeneous_cluster, random_instance
from dmlsched.problems.cruise.heuristics import closed_form
from dmlsched.problems.cruise.instance import homogeneous
from dmlsched.problems.cruise.solution import evaluate


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def dist(gaps: list[float]) -> str:
    g = sorted(gaps)
    if not g:
        return "n/a"
    q = lambda f: g[min(len(g) - 1, int(f * len(g)))]  # noqa: E731
    zero = sum(1 for x in g if x <= 1e-9)
    return (f"n={len(g)}, =0: {zero}, median {pct(q(0.5))}, p90 {pct(q(0.9))}, max {pct(g[-1])}, "
            f"mean {pct(statistics.fmean(g))}, within 6.5%: {sum(1 for x in g if x <= 0.065)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer instances")
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per exact solve")
    ap.add_argument("--out", default=None)
    ap.add_argument("--suites", default="sweep,homog,random,28+4,jitter",
                    help="comma-separated subset of sweep, homog, random, 28+4, jitter (each run stays short)")
    args = ap.parse_args()
    rows: list[dict] = []
    t_start = time.perf_counter()

    suites = set(args.suites.split(","))
    # 1. (3.5) on the calibrated homogeneous workloads (exact is instant: the bound is tight)
    if "sweep" in suites:
        sweep_suite(args, rows)
    if "homog" in suites:
        homog_suite(args, rows)
    if "random" in suites:
        random_suite(args, rows)
    if "28+4" in suites or "jitter" in suites:
        cluster_suite(args, rows, suites)
    meta = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": platform.platform(), "python": platform.python_version(),
            "cpus": os.cpu_count(), "total_s": time.perf_counter() - t_start, "suites": sorted(suites)}
    print(f"\n{meta}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


def sweep_suite(args, rows) -> None:
    """Every tiny homogeneous instance (N 2-4, D 1-8, M 1-5, B 1-5, four (p, b) pairs):
    (3.5), the mended rule and the lower bound against brute force."""
    from dmlsched.problems.cruise.bounds import lower_bound
    from dmlsched.problems.cruise.brute import brute_force, count_configurations

    total = checked = fails = 0
    smallest = None
    for n in range(2, 5):
        for D in range(1, 9):
            for M in range(1, 6):
                for B in range(1, 6):
                    for p, b in ((1.0, 1.0), (1.0, 4.0), (4.0, 1.0), (0.25, 1.0)):
                        inst = homogeneous(n, p, b, D, M, B)
                        total += 1
                        v = evaluate(inst, closed_form(inst, "paper")[0])
                        v2 = evaluate(inst, closed_form(inst, "exact")[0])
                        if count_configurations(inst) >= 3000:
                            continue
                        checked += 1
                        _, opt = brute_force(inst)
                        assert abs(opt - v2) <= 1e-9 * max(1, opt), ("mended rule", n, D, M, B, p, b)
                        assert abs(opt - lower_bound(inst)) <= 1e-9 * max(1, opt), ("bound", n, D, M, B, p, b)
                        if v > opt * (1 + 1e-9):
                            fails += 1
                            key = (n + D + M + B, n, D, M, B, p, b)
                            smallest = min(smallest or key, key)
    rows.append({"suite": "sweep", "total": total, "brute_checked": checked, "paper_fails": fails,
                 "smallest": smallest})
    print(f"sweep: {checked} tiny homogeneous instances checked by brute force: mended rule and "
          f"lower bound optimal in all; (3.5) worse in {fails}; smallest failure (N+D+M+B, N, D, M, B, p, b) "
          f"= {smallest}\n")


def homog_suite(args, rows) -> None:
    print("## (3.5) on calibrated homogeneous 32-machine clusters\n")
    print("| app | (3.5) W | (3.5) epoch | optimal W | optimum | gap |")
    print("|---|---|---|---|---|---|")
    for app in APPS:
        inst = homogeneous_cluster(app)
        cfg, info = closed_form(inst, "paper")
        v = evaluate(inst, cfg)
        ex = dmlsched.solve(inst, "exact", time_limit=args.time_limit)
        gap = v / ex.objective - 1
        rows.append({"suite": "homog-app", "app": app, "closed_form": v, "exact": ex.objective,
                     "status": ex.status.value, "gap": gap})
        print(f"| {app} | {info['workers']} | {v:.3f} | {sum(ex.solution.w)} | {ex.objective:.3f} "
              f"| {pct(gap)} ({ex.status.value}) |")

    # 2. (3.5) on random homogeneous clusters
    import numpy as np

    rng = np.random.default_rng(0)
    gaps = []
    for k in range(60 if args.quick else 300):
        n = int(rng.integers(3, 33))
        D = int(rng.integers(n, 5000))
        B = int(rng.integers(1, 200))
        M = int(rng.integers(1, 500))
        inst = homogeneous(n, 1e-3, float(M / (B * 1e-3 * np.exp(rng.uniform(np.log(0.03), np.log(0.6))))), D, M, B)
        cfg, _ = closed_form(inst, "paper")
        ex = dmlsched.solve(inst, "exact")
        gaps.append(evaluate(inst, cfg) / ex.objective - 1)
        rows.append({"suite": "homog-random", "n": n, "D": D, "M": M, "B": B, "b": float(inst.b[0, 1]),
                     "closed_form_workers": sum(cfg.w), "optimal_workers": sum(ex.solution.w), "gap": gaps[-1],
                     "status": ex.status.value})
    print(f"\n(3.5) on random homogeneous clusters (N 3-32, D < 5000, B < 200): {dist(gaps)}\n")
    hr = [r for r in rows if r["suite"] == "homog-random"]
    print("| mini-batches per worker D/(W* B) under (3.5) | gap distribution |")
    print("|---|---|")
    for lo, hi in ((0, 1), (1, 4), (4, 16), (16, math.inf)):
        g = [r["gap"] for r in hr if lo <= r["D"] / (r["closed_form_workers"] * r["B"]) < hi]
        print(f"| [{lo}, {hi}) | {dist(g)} |")
    print()



def random_suite(args, rows) -> None:
    # 3. proportional on heterogeneous clusters
    print("## proportional on heterogeneous clusters\n")
    print("| suite | N | data rule | gap distribution (vs exact; exact runs proven optimal / total) |")
    print("|---|---|---|---|")
    from dmlsched.problems.cruise.typed import count_work

    def reference(inst):
        """Exact optimum: type enumeration when small enough, else the MIP."""
        if count_work(inst) <= 200_000:
            return dmlsched.solve(inst, "exact-typed"), "exact-typed"
        return dmlsched.solve(inst, "exact", time_limit=args.time_limit), "exact"

    for n in ([4, 6] if args.quick else [4, 6, 8]):
        g = {"compute": [], "effective": []}
        proven = 0
        count = 10 if args.quick or n == 8 else 25
        for seed in range(count):
            inst = random_instance(n, seed=1000 * n + seed, dataset_size=200, model_size=16, batch_size=10)
            ex, how = reference(inst)
            proven += ex.status.value == "optimal"
            for rule in g:
                pr = dmlsched.solve(inst, "proportional", data=rule)
                g[rule].append(pr.objective / ex.objective - 1)
                rows.append({"suite": "hetero-random", "n": n, "seed": seed, "rule": rule,
                             "proportional": pr.objective, "exact": ex.objective, "reference": how,
                             "status": ex.status.value, "gap": g[rule][-1]})
        for rule in g:
            print(f"| random | {n} | {rule} | {dist(g[rule])}; proven {proven}/{count} |")



def cluster_suite(args, rows, suites) -> None:
    # 4. the dissertation's 28 + 4 cluster (Section 3.4.5), full scale, exact by type enumeration,
    #    and with 10% jitter on every machine (all machines distinct: MIP reference, time-limited)
    print("| suite | N | data rule | gap |")
    print("|---|---|---|---|")
    for app in (APPS if "28+4" in suites else []):
        inst = heterogeneous_cluster(app)
        t0 = time.perf_counter()
        ex = dmlsched.solve(inst, "exact-typed")
        t_ex = time.perf_counter() - t0
        for rule in ("compute", "effective"):
            pr = dmlsched.solve(inst, "proportional", data=rule)
            gap = pr.objective / ex.objective - 1
            pw, ew = pr.solution.w, ex.solution.w
            rows.append({"suite": "hetero-28+4", "app": app, "rule": rule, "proportional": pr.objective,
                         "exact": ex.objective, "status": ex.status.value, "gap": gap,
                         "split": [sum(pw[:28]), sum(pw[28:])], "exact_split": [sum(ew[:28]), sum(ew[28:])],
                         "exact_s": t_ex})
            print(f"| 28+4 {app} | 32 | {rule} | gap {pct(gap)} (exact-typed {ex.status.value} in {t_ex:.1f} s); "
                  f"W {sum(pw[:28])}+{sum(pw[28:])} vs optimum {sum(ew[:28])}+{sum(ew[28:])} |")
    if "jitter" in suites:
        for app in APPS:
            for seed in range(1):
                inst = heterogeneous_cluster(app, jitter=0.1, seed=seed, scale=0.1)
                ex = dmlsched.solve(inst, "exact", time_limit=args.time_limit)
                for rule in ("compute", "effective"):
                    pr = dmlsched.solve(inst, "proportional", data=rule)
                    gap = pr.objective / ex.objective - 1
                    lbgap = pr.objective / ex.lower_bound - 1
                    rows.append({"suite": "hetero-28+4-jitter", "app": app, "seed": seed, "rule": rule,
                                 "proportional": pr.objective, "exact": ex.objective,
                                 "exact_lb": ex.lower_bound, "status": ex.status.value, "gap": gap})
                    print(f"| 28+4 {app} jitter 10% seed {seed} (scale 0.1) | 32 | {rule} | gap {pct(gap)} to the "
                          f"MIP incumbent ({ex.status.value}; <= {pct(lbgap)} to its bound) |")

if __name__ == "__main__":
    main()
