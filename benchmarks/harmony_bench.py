"""Harmony benchmarks on the bench engine: every number quoted in benchmarks/harmony.md.

Run (one command; resumable through the results file)::

    .venv/bin/python benchmarks/harmony_bench.py [--suites tiny,weights,scale,claims] \
        [--workers 2] [--out benchmarks/results-harmony.jsonl] [--quick]

Suites (thin wrappers over :func:`dmlsched.bench.run_sweep`):

* ``tiny``    -- jobs sampled from the 80-job workload on a few machines, every
  reading of Harmony and the Oracle against the exhaustive optimum
  (``brute-force``), static utilisation (4.4);
* ``weights`` -- the same at n = 6, M = 8 for CPU:network weights 1:0, 1:1, 2:1, 4:1;
* ``scale``   -- scheduling time from 80 jobs / 100 machines to 8,000 / 10,000
  (Fig. 4.18), both readings of L6;
* ``claims``  -- the family's CLAIMS (problems/harmony/claims.py) at full scale:
  Fig. 4.17 at 80 jobs / 100 machines in the execution model, Section 4.4.3,
  Fig. 4.18.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

VARIANTS = ["harmony", "harmony@aggregate", "harmony@best-prefix", "harmony@all", "oracle"]
VARIANT_OPTIONS = {"harmony@aggregate": {"group_rule": "aggregate"},
                   "harmony@best-prefix": {"admission": "best-prefix"}, "harmony@all": {"admission": "all"}}


def gen(fn: str, params: dict, seeds, name: str = "") -> Source:
    return Source("generator", generator=f"dmlsched.generate.harmony:{fn}", params=params, seeds=tuple(seeds),
                  name=name)


def suites(quick: bool) -> dict[str, list[Suite]]:
    n_seeds = 5 if quick else 30
    sizes = ((5, 6), (6, 8)) if quick else ((5, 6), (6, 8), (8, 10), (9, 12))
    scale = ((80, 100), (800, 1000)) if quick else ((80, 100), (400, 500), (800, 1000), (2000, 2500),
                                                    (4000, 5000), (8000, 10000))
    return {
        "tiny": [Suite(sources=[gen("sample_workload", {"num_jobs": n, "num_machines": m}, range(n_seeds),
                                    f"sample-{n}j-{m}m")
                                for n, m in sizes],
                       name="harmony-tiny", methods=VARIANTS, reference="brute-force", time_limit=120,
                       options=VARIANT_OPTIONS)],
        "weights": [Suite(sources=[gen("sample_workload",
                                       {"num_jobs": 6, "num_machines": 8, "weights": {"cpu": c, "net": w}},
                                       range(n_seeds), f"weights-{c}:{w}")
                                   for c, w in ((1, 0), (1, 1), (2, 1), (4, 1))],
                          name="harmony-weights", methods=["harmony", "harmony@aggregate"], reference="brute-force",
                          time_limit=120, options=VARIANT_OPTIONS)],
        "scale": [Suite(sources=[gen("evaluation_workload", {"num_jobs": j, "num_machines": m}, range(3),
                                     f"eval-{j}j-{m}m")
                                 for j, m in scale],
                        name="harmony-scale", methods=["harmony", "harmony@aggregate"], reference=None, time_limit=60,
                        options=VARIANT_OPTIONS)],
    }


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report(name: str, records: list[dict]) -> None:
    print(f"\n## {name}\n")
    if name == "scale":
        rows: dict[tuple, list[dict]] = {}
        for r in records:
            if r.get("status") in ("optimal", "feasible"):
                size = r.get("size") or {}
                rows.setdefault((size.get("jobs"), size.get("machines"), r.get("variant") or r["method"]), []).append(r)
        print("| jobs | machines | variant | solve s (median of 3, incl. validation) "
              "| U (median) | U_cpu | U_net | n_G* |")
        print("|---|---|---|---|---|---|---|---|")
        for (j, m, v), rs in sorted(rows.items()):
            d = [r["details"] for r in rs]
            print(f"| {j} | {m} | {v} | {statistics.median(r['runtime_s'] for r in rs):.3f} "
                  f"| {statistics.median(r['objective'] for r in rs):.4f} "
                  f"| {statistics.median(x['utilisation_cpu'] for x in d):.3f} "
                  f"| {statistics.median(x['utilisation_net'] for x in d):.3f} "
                  f"| {statistics.median(x['n_groups'] for x in d):.0f} |")
        return
    groups: dict[tuple, list[float]] = {}
    for r in records:
        if r.get("method") == "brute-force" or r.get("ratio") is None:
            continue
        key = (r.get("label", "").split("(")[0], r.get("variant") or r["method"])
        groups.setdefault(key, []).append(r["ratio"] - 1)
    print("| instances | variant | n | U gap median | p90 | max | within 2% |")
    print("|---|---|---|---|---|---|---|")
    for (lab, v), g in sorted(groups.items()):
        s = sorted(g)
        print(f"| {lab} | {v} | {len(s)} | {pct(statistics.median(s))} | {pct(s[min(len(s) - 1, int(0.9 * len(s)))])} "
              f"| {pct(s[-1])} | {sum(1 for x in s if x <= 0.02)}/{len(s)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", default="tiny,weights,scale,claims")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results-harmony.jsonl")))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    all_suites = suites(args.quick)
    scale = "quick" if args.quick else "full"
    for name in args.suites.split(","):
        if name == "claims":
            from dmlsched.claims import all_claims

            for c in all_claims(["harmony"]):
                out = run_sweep(c.suite(scale), out=args.out, workers=args.workers, progress=False)
                j = c.judge(out.records, scale)
                print(f"\n## claim {c.key} ({c.where})\n\n**{j.verdict}** — {j.measured}\n")
                for row in j.rows:
                    print(f"* {row.reading}: {row.ours} ({row.verdict}; {row.note})")
            continue
        records: list[dict] = []
        for suite in all_suites[name]:
            records += run_sweep(suite, out=args.out, workers=args.workers, progress=False).records
        report(name, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
