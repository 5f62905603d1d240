"""Benchmark: why Algorithm 1 (``list``) loses to the baselines of Hare's evaluation.

Run: ``.venv/bin/python benchmarks/hare_evaluation.py --setup testbed --jobs 6 --loads 0.9,100
--seeds 1,2,3 --time-limit 10 --out FILE.jsonl``
and ``... --setup small`` for the 4-job, 4-GPU setup of ``benchmarks/REPRODUCTION.md``
(there the exact optimum is computed too, for an oracle order).  ``--summary FILE.jsonl...`` prints
the Markdown tables of ``benchmarks/hare_evaluation.md`` from recorded lines.

Instances: :func:`dmlsched.generate.hare.generate` (the paper's 8 models of Table 2,
25% per domain, weights 1-3, 2-5 rounds of 1, 2 or 4 tasks, Poisson arrivals at
offered load ``load``; load 100 ~ simultaneous arrivals).  ``testbed``: the paper's
15 GPUs in the order 8 V100, 4 T4, 1 K80, 2 M60 (``generate.hare.TESTBED``).

Per instance, each relaxation is solved ONCE (HiGHS, with the relaxation's
deterministic work limits and ``--time-limit`` s as a safety net; when a limit
hits, the checked feasible relaxed point is used, as ``list`` does) and every
variant below is a (priority order, GPU rule) pair built from it:

=================  ==========================================================
order              ``rl``: H from Hare_Sched_RL (Algorithm 1's),
                   ``q``: H from the Queyranne relaxation,
                   ``smith``: ``a_n + (r+1) R_n / w_n`` (no relaxation),
                   ``opt``: H from the exact optimum's start times (small setup only)
GPU rule           ``ea``: earliest available GPU (Algorithm 1 line 12 as printed),
                   ``es``: earliest start (the proof's step (21), ``list``'s default),
                   ``eft``: GPU where the task finishes earliest,
                   ``yhat``: the relaxation's own assignment ŷ,
                   ``ea-rev``: line 12 with the GPU list reversed (ties to the slow GPUs)
=================  ==========================================================

``rl/ea`` is Algorithm 1 with line 12 as printed (``list`` with
``placement="earliest-available"``), ``rl/es`` with the proof's reading
(``list``'s default); ``rl/eft`` is the method ``list-eft``,
``smith/eft`` the method ``smith-eft``.  Every schedule is validated and evaluated
by the family's own validator/evaluator.  Output: one JSON line per instance.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import dmlsched
from dmlsched.generate.hare import TESTBED, generate
from dmlsched.kit import Run
from dmlsched.problems.hare import solution as hsol
from dmlsched.problems.hare.heuristics import (
    list_schedule,
    list_schedule_eft,
    list_schedule_fixed,
    middle_completion_priority,
    priority_order,
    round_smith_priority,
)
from dmlsched.problems.hare.instance import HareInstance
from dmlsched.problems.hare.relaxation import solve_relaxation

#: the round-level FIFO/SRTF that this study was recorded with (now named
#: fifo-round / srtf-round; ``fifo`` and ``srtf`` are job-level since), homo, allox
BASELINES = ("fifo-round", "srtf-round", "homo", "allox")


def make(setup: str, seed: int, jobs: int, load: float) -> HareInstance:
    if setup == "testbed":
        return generate(seed=seed, num_jobs=jobs, load=load, gpus=list(TESTBED))
    return generate(seed=seed, num_jobs=jobs, num_gpus=4, load=load, rounds=(2, 3), tasks_per_round=(1, 2))


def reversed_gpus(inst: HareInstance) -> HareInstance:
    return HareInstance(gpus=tuple(reversed(inst.gpus)), jobs=inst.jobs, name=inst.name)


def value(inst: HareInstance, sched) -> float:
    hsol.validate(inst, sched)
    return float(hsol.evaluate(inst, sched))


def run_instance(setup: str, seed: int, jobs: int, load: float, tl: float, exact: bool) -> dict:
    inst = make(setup, seed, jobs, load)
    rec: dict = {"setup": setup, "seed": seed, "jobs": jobs, "load": load, "gpus": len(inst.gpus),
                 "tasks": inst.num_tasks, "time_limit": tl, "values": {}, "relaxations": {}}
    vals = rec["values"]
    for b in BASELINES:
        vals[b] = dmlsched.solve(inst, b).objective
    orders = {"smith": priority_order(inst, round_smith_priority(inst))}
    yhat = {}
    for kind, key in (("rl", "rl"), ("queyranne", "q")):
        t0 = time.perf_counter()
        rel = solve_relaxation(inst, Run.standalone("hare", "relaxation", time_limit=tl), kind=kind)
        rec["relaxations"][key] = {"status": rel.status.value, "value": rel.value, "lower_bound": rel.lower_bound,
                                   "x_hat_source": rel.details.get("x_hat_source"),
                                   "runtime_s": round(time.perf_counter() - t0, 2)}
        if rel.x_hat is not None:
            orders[key] = priority_order(inst, middle_completion_priority(inst, rel.x_hat))
            yhat[key] = rel.y_hat
    if exact:
        res = dmlsched.solve(inst, "exact", time_limit=tl)
        rec["exact"] = {"status": res.status.value, "objective": res.objective, "lower_bound": res.lower_bound}
        if res.solution is not None:
            orders["opt"] = priority_order(inst, middle_completion_priority(inst, res.solution.start))
            yhat["opt"] = res.solution.gpu
    rev = reversed_gpus(inst)
    for key, order in orders.items():
        vals[f"{key}/ea"] = value(inst, list_schedule(inst, order, "earliest-available"))
        vals[f"{key}/es"] = value(inst, list_schedule(inst, order, "earliest-start"))
        vals[f"{key}/eft"] = value(inst, list_schedule_eft(inst, order))
        vals[f"{key}/ea-rev"] = value(rev, list_schedule(rev, order, "earliest-available"))
        if key in yhat:
            vals[f"{key}/yhat"] = value(inst, list_schedule_fixed(inst, order, yhat[key]))
    # why line 12 hurts: share of training time spent on a GPU slower than the job's best
    sched = list_schedule(inst, orders["rl"], "earliest-available") if "rl" in orders else None
    if sched is not None:
        tc = inst.tc[inst.task_job, sched.gpu]
        best = inst.tc.min(axis=1)[inst.task_job]
        rec["a1_slow_share"] = float(np.mean(tc > best * (1 + 1e-9)))
        rec["a1_excess_train"] = float(tc.sum() / best.sum() - 1)
    return rec


VARIANT_ROWS = ["rl/ea", "rl/es", "rl/eft", "rl/yhat", "rl/ea-rev", "q/ea", "q/es", "q/eft", "q/yhat",
                "smith/ea", "smith/es", "smith/eft", "opt/ea", "opt/es", "opt/eft", "opt/yhat"]


def _lb(r: dict) -> float:
    """Best proven lower bound on the optimum recorded for an instance (relaxations, exact)."""
    lbs = [v["lower_bound"] for v in r["relaxations"].values() if v.get("lower_bound") is not None]
    if r.get("exact", {}).get("lower_bound") is not None:
        lbs.append(r["exact"]["lower_bound"])
    return max(lbs) if lbs else 0.0


def summary(paths: list[str]) -> str:
    recs = [json.loads(line) for p in paths for line in open(p) if line.strip()]
    groups: dict[tuple, list[dict]] = {}
    for r in recs:
        groups.setdefault((r["setup"], r["gpus"], r["jobs"], r["load"]), []).append(r)
    out = []
    for (setup, gpus, jobs, load), rs in sorted(groups.items()):
        seeds = ",".join(str(r["seed"]) for r in rs)
        rel = "; ".join(f"{k}: " + ", ".join(f"s{r['seed']} {r['relaxations'][k]['status']} "
                                              f"({r['relaxations'][k]['runtime_s']} s, "
                                              f"x̂ {r['relaxations'][k]['x_hat_source']})" for r in rs)
                        for k in ("rl", "q"))
        out.append(f"### {setup}: {gpus} GPUs, {jobs} jobs, load {load:g}, seeds {seeds} "
                   f"({min(r['tasks'] for r in rs)}-{max(r['tasks'] for r in rs)} tasks)\n")
        out.append(f"Relaxations ({rs[0]['time_limit']:g} s limit; x̂ from the last master, the fixed-assignment "
                   f"LP re-timing of its assignment, or the exact model's heuristic incumbent): {rel}.")
        if "a1_slow_share" in rs[0]:
            out.append(f" Algorithm 1 puts {statistics.fmean(r['a1_slow_share'] for r in rs):.0%} of tasks on a "
                       f"GPU slower than the job's fastest; total training time +"
                       f"{statistics.fmean(r['a1_excess_train'] for r in rs):.0%} over all-fastest.")
        if all("exact" in r for r in rs):
            out.append(" Exact: " + ", ".join(f"s{r['seed']} {r['exact']['status']}" for r in rs) + ".")
        out.append("\n\nMean reduction of total weighted JCT, 1 - W(row)/W(baseline) (positive = row is better), "
                   "and mean ratio to the best baseline per instance:\n")
        out.append("| order/GPU rule | vs fifo-round | vs srtf-round | vs homo | vs allox | W / best baseline |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for v in VARIANT_ROWS:
            if not all(v in r["values"] for r in rs):
                continue
            cells = []
            for b in BASELINES:
                red = [1 - r["values"][v] / r["values"][b] for r in rs]
                cells.append(f"{statistics.fmean(red):+.1%}")
            ratio = statistics.fmean(r["values"][v] / min(r["values"][b] for b in BASELINES) for r in rs)
            name = {"rl/ea": "rl/ea (= `list` with placement=earliest-available)",
                    "rl/es": "rl/es (= `list`, the default placement)", "rl/eft": "rl/eft (= `list-eft`)",
                    "smith/eft": "smith/eft (= `smith-eft`)"}.get(v, v)
            out.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.3f} |")
        # the most any schedule can gain over a baseline: 1 - LB / W(baseline), LB the best proven lower bound
        cells = []
        for b in BASELINES:
            cells.append(f"{statistics.fmean(1 - _lb(r) / r['values'][b] for r in rs):+.1%}")
        ratio = statistics.fmean(_lb(r) / min(r["values"][b] for b in BASELINES) for r in rs)
        out.append("| *upper limit: 1 - LB/W(baseline), proven* | " + " | ".join(cells) + f" | {ratio:.3f} |")
        if all("exact" in r and r["exact"]["status"] == "optimal" for r in rs):
            ratio = statistics.fmean(min(r["values"][b] for b in BASELINES) / r["exact"]["objective"] for r in rs)
            out.append(f"\nBest baseline / optimum: mean {ratio:.3f}.")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--setup", choices=("testbed", "small"), default="testbed")
    ap.add_argument("--jobs", default="6")
    ap.add_argument("--loads", default="0.9,100")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--exact", action="store_true", help="also solve the exact model (oracle order)")
    ap.add_argument("--out", default=None, help="append JSON lines here")
    ap.add_argument("--summary", nargs="*", default=None, help="print Markdown tables of recorded JSONL files")
    a = ap.parse_args(argv)
    if a.summary is not None:
        print(summary(a.summary))
        return 0
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, Python {platform.python_version()}",
          file=sys.stderr)
    for jobs in (int(x) for x in a.jobs.split(",")):
        for load in (float(x) for x in a.loads.split(",")):
            for seed in (int(x) for x in a.seeds.split(",")):
                t0 = time.perf_counter()
                rec = run_instance(a.setup, seed, jobs, load, a.time_limit, a.exact or a.setup == "small")
                rec["wall_s"] = round(time.perf_counter() - t0, 1)
                line = json.dumps(rec)
                print(line, flush=True)
                if a.out:
                    with open(a.out, "a") as f:
                        f.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
