"""Cruise benchmarks on the bench engine: every number quoted in benchmarks/cruise.md.

Run (one command; each suite is resumable through its results file)::

    .venv/bin/python benchmarks/cruise_bench.py [--suites reach,mip,random,jitter,claims] \
        [--workers 2] [--out benchmarks/results-cruise.jsonl] [--quick]

Suites (thin wrappers over :func:`dmlsched.bench.run_sweep`):

* ``reach``  -- issue 17's goal: 32 machines of 4 types (``generate.cruise.typed_cluster``,
  calibrated NMF/MLR/LDA at full scale, seeds 0-4), ``exact`` with the types
  formulation and with the per-machine MIP of Figure 3.2, 60 s each;
* ``mip``    -- the per-machine MIP on random clusters of distinct machines
  (N = 4..12), HiGHS and Gurobi (where the size-limited licence allows);
* ``random`` -- ``proportional`` (both data rules) on random heterogeneous
  clusters (N = 4, 6, 8) against the proven optimum;
* ``jitter`` -- the 28+4 cluster with 10% jitter on every machine (32 distinct
  machines, scale 0.1), both data rules against the MIP (60 s);
* ``claims`` -- the family's CLAIMS (problems/cruise/claims.py) at full scale.

Prints one Markdown table per suite; the records go to ``--out`` (JSON lines).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite


def gen(fn: str, params: dict, seeds, name: str = "") -> Source:
    return Source("generator", generator=f"dmlsched.generate.cruise:{fn}", params=params, seeds=tuple(seeds), name=name)


def suites(quick: bool) -> dict[str, list[Suite]]:
    seeds = range(2) if quick else range(5)
    apps = ("NMF",) if quick else ("NMF", "MLR", "LDA")
    mip_sources = [gen("random_instance", {"num_machines": n, "dataset_size": 200, "model_size": 16, "batch_size": 10},
                       [100 * n, 100 * n + 1], f"random-{n}") for n in ((4, 8) if quick else (4, 6, 8, 10, 12))]
    return {
        "reach": [Suite(
            sources=[gen("typed_cluster", {"num_types": 4, "per_type": 8, "app": app}, seeds, f"{app}-4x8")
                     for app in apps],
            name="cruise-reach", methods=["exact", "exact@machines"], reference=None, time_limit=60,
            options={"exact@machines": {"formulation": "machines"}})],
        "mip": [Suite(sources=mip_sources, name=f"cruise-mip-{solver}", methods=["exact"], reference=None,
                      time_limit=10, solver=solver) for solver in ("highs", "gurobi")],
        "random": [Suite(
            sources=[gen("random_instance",
                         {"num_machines": n, "dataset_size": 200, "model_size": 16, "batch_size": 10},
                         [1000 * n + k for k in range(5 if quick else (10 if n == 8 else 25))], f"random-{n}")
                     for n in (4, 6, 8)],
            name="cruise-random", methods=["proportional", "proportional@effective"], reference="exact",
            time_limit=60, options={"proportional@effective": {"data": "effective"}})],
        "jitter": [Suite(
            sources=[gen("heterogeneous_cluster", {"app": app, "jitter": 0.1, "scale": 0.1}, [0], f"{app}-jitter")
                     for app in apps],
            name="cruise-jitter", methods=["proportional", "proportional@effective"], reference="exact",
            time_limit=60, options={"proportional@effective": {"data": "effective"}})],
    }


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def dist(xs: list[float]) -> str:
    if not xs:
        return "-"
    s = sorted(xs)
    return (f"n={len(s)}, =0: {sum(1 for x in s if x <= 1e-9)}, median {pct(statistics.median(s))}, "
            f"p90 {pct(s[min(len(s) - 1, int(0.9 * len(s)))])}, max {pct(s[-1])}, "
            f"within 6.5%: {sum(1 for x in s if x <= 0.065)}")


def report(name: str, records: list[dict]) -> None:
    print(f"\n## {name}\n")
    if name == "reach":
        print("| instance | formulation | status | epoch time | bound | time s | count vectors pruned / solved |")
        print("|---|---|---|---|---|---|---|")
        for r in records:
            d = r.get("details") or {}
            print(f"| {r['label']} | {d.get('formulation')} | {r['status']} | {r['objective']} | {r['bound']} "
                  f"| {r['runtime_s'] or 0:.1f} | {d.get('pruned_by_bound', '-')} / {d.get('solved', '-')} |")
    elif name == "mip":
        print("| instance | solver | status | time s | gap to bound |")
        print("|---|---|---|---|---|")
        for r in records:
            gap = (r["objective"] / r["bound"] - 1) if r.get("objective") and r.get("bound") else None
            print(f"| {r['label']} | {r.get('solver')} | {r['status']} | {r['runtime_s'] or 0:.2f} "
                  f"| {pct(gap) if gap is not None else '-'} |")
    else:
        by: dict[tuple[str, str], list[float]] = {}
        for r in records:
            if r.get("method") == "exact" or r.get("ratio") is None:
                continue
            n = (r.get("size") or {}).get("machines")
            by.setdefault((f"N={n}", r.get("variant") or r["method"]), []).append(r["ratio"] - 1)
        print("| cluster | rule | gap to the reference (exact) |")
        print("|---|---|---|")
        for (n, v), g in sorted(by.items()):
            print(f"| {n} | {v} | {dist(g)} |")
        refs = [r for r in records if r.get("method") == "exact"]
        print(f"\nreference proven optimal: {sum(r['status'] == 'optimal' for r in refs)}/{len(refs)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", default="reach,mip,random,jitter,claims")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results-cruise.jsonl")))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    wanted = args.suites.split(",")
    all_suites = suites(args.quick)
    for name in wanted:
        if name == "claims":
            from dmlsched.claims import all_claims

            for c in all_claims(["cruise"]):
                out = run_sweep(c.suite("quick" if args.quick else "full"), out=args.out, workers=args.workers,
                                progress=False)
                j = c.judge(out.records, "quick" if args.quick else "full")
                print(f"\n## claim {c.key} ({c.where})\n\n**{j.verdict}** — {j.measured}\n")
                for row in j.rows:
                    print(f"* {row.reading}: {row.ours} ({row.verdict}; {row.note})")
            continue
        from dmlsched.solvers import solver_available

        records: list[dict] = []
        for suite in all_suites[name]:
            if suite.solver == "gurobi" and not solver_available("gurobi"):
                continue
            records += run_sweep(suite, out=args.out, workers=args.workers, progress=False).records
        report(name, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
