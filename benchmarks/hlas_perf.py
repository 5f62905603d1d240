"""Performance goals: 10,000 jobs of 10-100 rounds on 160 GPUs under HLAS in under 30 s, and
(issue 23) the simulation within 3x a bare heapq event loop with the same number of events.

Usage::

    python benchmarks/hlas_perf.py [--jobs 10000] [--group-mode batch] [--group-idle any] [--out results.jsonl]

A thin wrapper over :func:`dmlsched.bench.run_sweep` (one generated instance,
method ``hlas``; ``InProcessEngine``, so nothing else competes with the run).
The setup of the goal (fixed when it was set): uniform 10..100 rounds, 2, 4 or
8 tasks per round, offered load 0.9, 40 groups, seed 1.  Prints the simulation
time (the engine's run loop), the whole method's time and the counters from
the run's record (every run is validated as a Hare schedule by ``solve``).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

from floor import event_loop

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--group-mode", default="batch")
    ap.add_argument("--group-idle", default="any")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    params = {"num_jobs": a.jobs, "num_gpus": 160, "num_groups": 40, "sizes": "uniform", "rounds": [10, 100],
              "tasks_per_round": [2, 4, 8], "load": 0.9, "predictions": "conservative"}
    suite = Suite(sources=[Source("generator", generator="dmlsched.generate.hlas:generate", params=params,
                                  seeds=(1,), name="perf")],
                  name="hlas-perf", methods=["hlas"], reference=None, time_limit=600,
                  options={"hlas": {"group_mode": a.group_mode, "group_idle": a.group_idle}})
    out = a.out or os.path.join(tempfile.mkdtemp(prefix="hlas-perf-"), "results.jsonl")
    load0 = os.getloadavg()[0]
    rec = run_sweep(suite, out=out, workers=0, progress=False).records[0]
    d = rec["details"]
    floors = [event_loop(d["events"], a.jobs) for _ in range(2)]
    st = d.get("stages", {})
    print(f"group_mode {a.group_mode}, group_idle {a.group_idle} | {rec['size']}")
    print(f"simulation (run loop) {d['simulation_s']:.2f} s | method {st.get('simulate', 0):.2f} s | "
          f"validation {st.get('validate', 0):.2f} s | run {rec['wall_s']:.2f} s")
    print(f"events {d['events']} | decisions {d['decisions']} | assignments {d['assignments']} | "
          f"avg JCT {rec['objective']:.1f} s | makespan {d['makespan']:.1f} s | utilisation {d['utilisation']:.3f}")
    floor = sum(floors) / len(floors)
    print(f"floor (bare heapq loop, {d['events']} events, {a.jobs} queued at the start) {floor:.2f} s | "
          f"simulation / floor {d['simulation_s'] / floor:.2f}x (goal <= 3x)")
    print(platform.platform(), platform.python_version(), f"cpus={os.cpu_count()}",
          time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          f"load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
