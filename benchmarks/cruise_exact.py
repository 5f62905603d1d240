"""Cruise solve times: the exact MIP vs N, type enumeration on the 28+4 cluster,
and the heuristics (the dissertation: "cost calculation takes 30 ms for the
homogeneous environment and 37.4 s for the heterogeneous environment").

Run:  /work/venv/bin/python benchmarks/cruise_exact.py [--time-limit S] [--out FILE.json]

Each solve is single-threaded HiGHS with the given time limit; the whole run
stays under ~5 minutes.  Results are recorded in benchmarks/cruise.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import datetime, timezone

import dmlsched
from dmlsched.generate.cruise import APPS, heterogeneous_cluster, homogeneous_cluster, random_instance
from dmlsched.problems.cruise.instance import homogeneous
from dmlsched.problems.cruise.models import build_model
from dmlsched.errors import SolverLimitError
from dmlsched.solvers import model_size, solver_available


def timed(fn, *a, **k):
    t0 = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    print("## exact MIP (HiGHS) on random heterogeneous clusters (D=200, M=16, B=10)\n")
    print("| N | seed | vars/cons per W | HiGHS status | time s | gap to bound | Gurobi (N >= 10) |")
    print("|---|---|---|---|---|---|---|")
    for n in (4, 6, 8, 10, 12):
        for seed in range(2):
            inst = random_instance(n, seed=100 * n + seed, dataset_size=200, model_size=16, batch_size=10)
            sz = model_size(build_model(inst, n // 2))
            res, t = timed(dmlsched.solve, inst, "exact", time_limit=args.time_limit)
            gap = res.objective / res.lower_bound - 1 if res.lower_bound else float("nan")
            rows.append({"bench": "mip-random", "n": n, "seed": seed, "status": res.status.value,
                         "time_s": t, "gap": gap, **sz})
            line = f"| {n} | {seed} | {sz['variables']}/{sz['constraints']} | {res.status.value} | {t:.2f} | {100 * gap:.2f}% |"
            if n >= 10 and solver_available("gurobi"):
                try:
                    g, tg = timed(dmlsched.solve, inst, "exact", solver="gurobi", time_limit=args.time_limit)
                    ggap = g.objective / g.lower_bound - 1 if g.lower_bound else float("nan")
                    line += f" {g.status.value} {tg:.2f} s, {100 * ggap:.2f}% |"
                    rows[-1].update(gurobi_status=g.status.value, gurobi_s=tg, gurobi_gap=ggap)
                except SolverLimitError:
                    line += " too large for the licence |"
            else:
                line += " - |"
            print(line)
    print("\n## homogeneous 32 machines (calibrated apps)\n")
    print("| app | closed-form ms | exact s (status) |")
    print("|---|---|---|")
    for app in APPS:
        inst = homogeneous_cluster(app)
        cf, tcf = timed(dmlsched.solve, inst, "closed-form")
        ex, tex = timed(dmlsched.solve, inst, "exact", time_limit=args.time_limit)
        rows.append({"bench": "homog-32", "app": app, "closed_form_s": tcf, "exact_s": tex, "status": ex.status.value})
        print(f"| {app} | {1000 * tcf:.2f} | {tex:.2f} ({ex.status.value}) |")
    big = homogeneous(1000, 1e-3, 1e4, 10**7, 10**5, 1000)
    _, t = timed(dmlsched.solve, big, "closed-form")
    print(f"\nclosed-form on 1000 identical machines: {1000 * t:.1f} ms")
    rows.append({"bench": "homog-1000", "closed_form_s": t})
    print("\n## the 28+4 cluster (Section 3.4.5), full scale\n")
    print("| app | exact-typed s | MIP status after limit | MIP incumbent / optimum | proportional s |")
    print("|---|---|---|---|---|")
    for app in APPS:
        inst = heterogeneous_cluster(app)
        ty, tty = timed(dmlsched.solve, inst, "exact-typed")
        pr, tpr = timed(dmlsched.solve, inst, "proportional")
        ex, tex = timed(dmlsched.solve, inst, "exact", time_limit=3 * args.time_limit)
        mip = f"{ex.status.value} ({tex:.0f} s) | {ex.objective / ty.objective:.4f}"
        rows.append({"bench": "28+4", "app": app, "typed_s": tty, "proportional_s": tpr, "mip": mip})
        print(f"| {app} | {tty:.1f} | {mip} | {tpr:.2f} |")
    meta = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count()}
    print(f"\n{meta}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
