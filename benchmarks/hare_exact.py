"""Benchmark: Hare_Sched exact MIP and relaxations (HiGHS) vs instance size.

For each number of GPUs and an increasing number of tasks, one seeded random
instance is solved by ``exact``, ``relaxation`` (``relaxation="rl"``) and
``relaxation`` (``relaxation="queyranne"``) with a per-solve time limit; a method's
series stops at its first size not solved to proven optimality, so the
largest size solved within the limit is the last ``optimal`` row.

Usage::

    python benchmarks/hare_exact.py --quick             # ~1 minute smoke run
    python benchmarks/hare_exact.py --gpus 2            # one series, 60 s limit
    python benchmarks/hare_exact.py --gpus 4 --out results.jsonl

Prints one JSON line per solve (appended to ``--out`` if given) and a Markdown
table at the end (recorded in ``benchmarks/hare_exact.md``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np

import dmlsched
from dmlsched.problems.hare.instance import HareInstance, HareJob

TYPES = ("V100", "T4", "K80")
SLOWDOWN = {"V100": 1.0, "T4": 1.75, "K80": 2.5}


def make_instance(num_tasks: int, num_gpus: int, seed: int = 0) -> HareInstance:
    """A seeded instance with exactly ``num_tasks`` tasks on ``num_gpus`` GPUs
    (types cycle V100, T4, K80; times on a 0.5 grid; jobs of 1-3 rounds of 1-3 tasks)."""
    rng = np.random.default_rng([seed, num_tasks, num_gpus])
    gpus = tuple(TYPES[m % len(TYPES)] for m in range(num_gpus))
    used = list(dict.fromkeys(gpus))
    jobs = []
    left = num_tasks
    while left > 0:
        k = int(rng.integers(1, min(3, left) + 1))
        r = int(rng.integers(1, min(3, left // k) + 1))
        left -= k * r
        base = float(rng.integers(2, 9)) / 2
        train = {g: float(np.round(base * SLOWDOWN[g] * 2) / 2) for g in used}
        sync = {g: float(rng.integers(0, 3)) / 2 for g in used}
        jobs.append(
            HareJob(
                f"J{len(jobs)}",
                float(rng.integers(0, max(1, num_tasks // 2) + 1)) / 2,
                float(rng.integers(1, 5)),
                r,
                k,
                train,
                sync,
            )
        )
    return HareInstance(gpus=gpus, jobs=tuple(jobs), name=f"bench-{num_tasks}x{num_gpus}-s{seed}")


METHODS = [
    ("exact", "exact", {}),
    ("rl", "relaxation", {"relaxation": "rl"}),
    ("queyranne", "relaxation", {"relaxation": "queyranne"}),
]


def run(gpus: list[int], tasks: list[int], time_limit: float, budget: float, seed: int, out: str | None):
    rows = []
    t_start = time.perf_counter()
    for M in gpus:
        alive = {label for label, _, _ in METHODS}
        for n in tasks:
            inst = make_instance(n, M, seed)
            for label, method, opts in METHODS:
                if label not in alive:
                    continue
                if time.perf_counter() - t_start > budget:
                    print(f"# budget of {budget:.0f} s used up", file=sys.stderr)
                    return rows
                t0 = time.perf_counter()
                res = dmlsched.solve(inst, method, time_limit=time_limit, seed=seed, **opts)
                wall = time.perf_counter() - t0
                row = {
                    "tasks": n,
                    "gpus": M,
                    "jobs": inst.num_jobs,
                    "method": label,
                    "status": res.status.value,
                    "objective": res.objective,
                    "lower_bound": res.lower_bound,
                    "wall_s": round(wall, 3),
                    "iterations": res.details.get("iterations"),
                    "time_limit": time_limit,
                }
                rows.append(row)
                line = json.dumps(row)
                print(line, flush=True)
                if out:
                    with open(out, "a", encoding="utf-8") as f:
                        f.write(line + "\n")
                if res.status.value != "optimal":
                    alive.discard(label)
            if not alive:
                break
    return rows


def markdown(rows: list[dict], time_limit: float) -> str:
    lines = [
        f"Time limit {time_limit:g} s per solve. Time columns: seconds to proven optimality, "
        "else the status (seconds). Value columns: optimum, else objective / bound (exact) "
        "or the proven bound (relaxations).",
        "",
        "| tasks x GPUs | jobs | exact (s) | rl (s) | queyranne (s) | optimum | rl value | queyranne value |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted({(r["gpus"], r["tasks"]) for r in rows})
    for M, n in keys:
        rs = {r["method"]: r for r in rows if r["gpus"] == M and r["tasks"] == n}
        jobs = next(iter(rs.values()))["jobs"]

        def cell(label):
            r = rs.get(label)
            if r is None:
                return "—"
            if r["status"] == "optimal":
                return f"{r['wall_s']:.2f}"
            return f"{r['status']} ({r['wall_s']:.0f})"

        def val(label):
            r = rs.get(label)
            if r is None or r["objective"] is None:
                return "—"
            if r["status"] == "optimal":
                return f"{r['objective']:.4g}"
            lb = r["lower_bound"]
            if label != "exact":  # a bound method without proof reports its bound
                return f">= {lb:.4g}" if lb is not None else "—"
            return f"{r['objective']:.4g} / {lb:.4g}" if lb is not None else f"{r['objective']:.4g}"

        lines.append(
            f"| {n} x {M} | {jobs} | {cell('exact')} | {cell('rl')} | {cell('queyranne')} "
            f"| {val('exact')} | {val('rl')} | {val('queyranne')} |"
        )
    lines.append("")
    for label, _, _ in METHODS:
        for M in sorted({r["gpus"] for r in rows}):
            ok = [r["tasks"] for r in rows if r["method"] == label and r["gpus"] == M and r["status"] == "optimal"]
            lines.append(
                f"- `{label}` on {M} GPUs: largest size solved to optimality within "
                f"{time_limit:g} s: {max(ok) if ok else 'none'} tasks"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 5 s limit (smoke run)")
    ap.add_argument("--gpus", type=int, nargs="+", default=None, help="GPU counts (default 2 4)")
    ap.add_argument("--tasks", type=int, nargs="+", default=None, help="task counts")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per solve (default 60)")
    ap.add_argument("--budget", type=float, default=300.0, help="stop starting solves after this many seconds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="append JSON lines here")
    args = ap.parse_args(argv)
    if args.quick:
        gpus = args.gpus or [2]
        tasks = args.tasks or [4, 6, 8]
        limit = args.time_limit or 5.0
    else:
        gpus = args.gpus or [2, 4]
        tasks = args.tasks or [4, 6, 8, 10, 12, 14, 16, 20, 24, 32]
        limit = args.time_limit or 60.0
    print(f"# {datetime.now(timezone.utc).isoformat(timespec='seconds')} {platform.node()} "
          f"{platform.processor() or platform.machine()} python {platform.python_version()}", file=sys.stderr)
    rows = run(gpus, tasks, limit, args.budget, args.seed, args.out)
    print(markdown(rows, limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
