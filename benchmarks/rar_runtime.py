"""RAR-DDLS: SJF-BCO running time on the paper setting (goal < 1 s) and on
10,000 jobs / 1,000 servers (goal < 60 s).

Usage: python benchmarks/rar_runtime.py [--seeds 10] [--large] [--large-seed 0] [--large-baselines]

Times (wall clock and process CPU time) ``dmlsched.solve(inst, "sjf-bco")`` (which also validates and re-evaluates
the schedule) with ``time.perf_counter``.  The recorded numbers are in benchmarks/rar.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import dmlsched
from dmlsched.generate.rar import generate, paper_instance


def timed(inst, **kw):
    t, c = time.perf_counter(), time.process_time()
    r = dmlsched.solve(inst, "sjf-bco", **kw)
    r.details["cpu_s"] = time.process_time() - c
    return time.perf_counter() - t, r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--large", action="store_true", help="also run 10,000 jobs on 1,000 servers")
    ap.add_argument("--large-seed", type=int, default=0)
    ap.add_argument("--large-baselines", action="store_true", help="also run ff, ls, rand on the large instance")
    args = ap.parse_args()
    print(f"machine: {platform.machine()} {platform.processor()}, python {platform.python_version()}")
    ts, cs = [], []
    for seed in range(args.seeds):
        inst = paper_instance(seed)
        t, r = timed(inst)
        ts.append(t)
        cs.append(r.details["cpu_s"])
        print(f"paper seed {seed}: wall {t:.3f} s, cpu {r.details['cpu_s']:.3f} s, makespan {r.objective:.0f}, "
              f"runs {r.details['runs']}", flush=True)
    print(f"paper setting: wall median {statistics.median(ts):.3f} s, max {max(ts):.3f} s; "
          f"cpu median {statistics.median(cs):.3f} s, max {max(cs):.3f} s over {len(ts)} seeds")
    if args.large:
        t0 = time.perf_counter()
        inst = generate(args.large_seed, 10_000, 1_000, 1200)
        tg = time.perf_counter() - t0
        t, r = timed(inst)
        print(f"10,000 jobs / 1,000 servers ({inst.num_gpus} GPUs), seed {args.large_seed}: generate {tg:.2f} s, "
              f"sjf-bco wall {t:.1f} s, cpu {r.details['cpu_s']:.1f} s, makespan {r.objective}, "
              f"avg JCT {r.details.get('average_jct')}, runs {r.details.get('runs')}, "
              f"kappa {r.details.get('kappa')}, theta {r.details.get('theta_u')}", flush=True)
        if args.large_baselines:
            for m in ("ff", "ls", "rand"):
                t, c = time.perf_counter(), time.process_time()
                rb = dmlsched.solve(inst, m)
                print(f"  {m}: status {rb.status.value}, makespan {rb.objective}, "
                      f"avg JCT {rb.details.get('average_jct')}, wall {time.perf_counter() - t:.1f} s, "
                      f"cpu {time.process_time() - c:.1f} s", flush=True)


if __name__ == "__main__":
    main()
