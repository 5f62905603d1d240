"""Performance goal: 10,000 jobs of 10-100 rounds on 160 GPUs under HLAS in under 30 s.

Usage::

    python benchmarks/hlas_perf.py [--jobs 10000] [--policy hlas] [--group-mode batch] [--validate]

Times instance generation, the grouping (greedy, 40 groups), the simulation
itself (the engine's run loop) and, with ``--validate``, the Hare validator on
the resulting schedule.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import dmlsched
from dmlsched.generate.hlas import generate
from dmlsched.problems.hlas.heuristics import resolve_groups, simulate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--gpus", type=int, default=160)
    ap.add_argument("--groups", type=int, default=40)
    ap.add_argument("--policy", default="hlas")
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group-mode", default="batch", help="batch, gpuset, round or accounting")
    ap.add_argument("--validate", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    inst = generate(a.jobs, a.gpus, seed=a.seed, groups=a.groups, load=a.load, predictions="conservative")
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    groups, gd = resolve_groups(inst, a.policy in ("hlas", "hlas-p"))
    t_group = time.perf_counter() - t0
    t0 = time.perf_counter()
    run, d = simulate(inst, a.policy, groups=groups, group_mode=a.group_mode)
    t_total = time.perf_counter() - t0
    print(f"group_mode {a.group_mode} | instance: {inst.num_jobs} jobs, {inst.num_tasks} tasks, {inst.num_gpus} GPUs, "
          f"{len(groups)} groups ({gd.get('grouping')}, objective {gd.get('grouping_objective')})")
    print(f"generate {t_gen:.2f} s | grouping {t_group:.2f} s | simulation (run loop) {d['simulation_s']:.2f} s"
          f" | simulate() incl. records {t_total:.2f} s")
    print(f"events {d['events']} | decisions {d['decisions']} | assignments {d['assignments']} | "
          f"avg JCT {d['avg_jct']:.1f} s | makespan {d['makespan']:.1f} s | utilisation {d['utilisation']:.3f}")
    if a.validate:
        t0 = time.perf_counter()
        dmlsched.get_problem("hlas").validate(inst, run)
        print(f"Hare validator on {inst.num_tasks} tasks: {time.perf_counter() - t0:.2f} s")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    main()
