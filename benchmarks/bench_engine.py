"""Benchmark of the benchmark engine itself (issue 7).

1. Speed-up of an exact sweep (default 200 small Hare instances, method
   ``exact``, HiGHS) with 2 local worker processes vs 1 (goal >= 1.8x on a
   2-core machine).
2. Per-run overhead of the engine beyond the method itself: sweep wall-clock
   minus the sum of the methods' ``runtime_s``, divided by the number of runs,
   for the local engine (1 worker) on a fast method (``fifo``), with and
   without an fsynced results file; the in-process engine for comparison
   (goal < 50 ms per run).  It includes planning, sending the instance to the
   worker, parsing it there, the validator, the evaluator, the verdict, the
   fsynced write and the progress display.

Engines are started and warmed before timing (worker start-up, i.e. importing
dmlsched, Pyomo and the solvers, is paid once per worker and after each kill;
it is measured separately).

Usage::

    python benchmarks/bench_engine.py [--instances 200] [--jobs 3] [--quick]

Prints a Markdown block to paste into ``benchmarks/bench_engine.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path


def hare_instance(seed: int, jobs: int) -> dict:
    rng = random.Random(seed)
    gpus = ["V100", "V100", "K80"]
    js = []
    for n in range(jobs):
        js.append({
            "id": f"J{n}", "arrival": rng.choice([0.0, 0.5, 1.0, 2.0]), "weight": rng.choice([1.0, 2.0, 3.0]),
            "rounds": rng.choice([1, 2]), "tasks_per_round": rng.choice([1, 2]),
            "train_time": {"V100": round(rng.uniform(1, 2), 3), "K80": round(rng.uniform(2, 4), 3)},
            "sync_time": {"V100": 0.1, "K80": 0.2},
        })
    return {"problem": "hare", "name": f"engine-{jobs}-{seed}", "gpus": gpus, "jobs": js}


def sweep(folder: Path, method: str, engine, out: Path | None) -> tuple[float, list[dict]]:
    from dmlsched.bench import Source, Suite, run_sweep

    suite = Suite(sources=[Source("path", pattern=str(folder))], methods=[method], reference="none",
                  time_limit=60)
    t0 = time.perf_counter()
    res = run_sweep(suite, out=str(out) if out else None, engine=engine, progress=False)
    return time.perf_counter() - t0, res.records


def warm_engine(workers: int, warm: Path):
    """An engine whose worker processes are started and warmed by a small sweep.

    Worker start-up (imports) is paid once per worker and reported separately.
    """
    from dmlsched.bench.engines import InProcessEngine, LocalEngine

    eng = InProcessEngine() if workers == 0 else LocalEngine(workers)
    sweep(warm, "exact", eng, None)
    sweep(warm, "fifo", eng, None)
    return eng


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2, help="jobs per Hare instance (exact solve time)")
    ap.add_argument("--quick", action="store_true", help="20 instances, for a smoke test")
    args = ap.parse_args()
    n = 20 if args.quick else args.instances
    tmp = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    folder = tmp / "inst"
    folder.mkdir()
    for s in range(n):
        (folder / f"i{s:04d}.json").write_text(json.dumps(hare_instance(s, args.jobs)))
    warm = tmp / "warm"
    warm.mkdir()
    for s in range(4):
        (warm / f"w{s}.json").write_text(json.dumps(hare_instance(10_000 + s, args.jobs)))
    engines = {w: warm_engine(w, warm) for w in (0, 1, 2)}
    rows = []
    # -- 1. speed-up of the exact sweep (load average noted: the machine may be shared)
    l0 = os.getloadavg()[0]
    t1, r1 = sweep(folder, "exact", engines[1], None)
    l1 = os.getloadavg()[0]
    t2, r2 = sweep(folder, "exact", engines[2], None)
    l2 = os.getloadavg()[0]
    assert [r["objective"] for r in r1] == [r["objective"] for r in r2], "engines disagree"
    solve1 = sum(r["runtime_s"] for r in r1)
    solve2 = sum(r["runtime_s"] for r in r2)
    opt = sum(r["status"] == "optimal" for r in r1)
    rows.append(("exact sweep, 1 worker", f"{t1:.2f} s", f"sum of solve times {solve1:.2f} s; {opt}/{n} optimal"))
    rows.append(("exact sweep, 2 workers", f"{t2:.2f} s", f"sum of solve times {solve2:.2f} s"))
    rows.append(("speed-up 2 vs 1 workers", f"{t1 / t2:.2f}x",
                 f"goal >= 1.8x; 1-min load average {l0:.1f} before, {l1:.1f} between, {l2:.1f} after"))
    # -- 2. per-run overhead on a fast method
    over = {}
    for label, workers, out in (("local engine, 1 worker, fsynced results file", 1, tmp / "o1.jsonl"),
                                ("local engine, 1 worker, no results file", 1, None),
                                ("in-process engine (no isolation), fsynced file", 0, tmp / "o0.jsonl")):
        tw, recs = sweep(folder, "fifo", engines[workers], out)
        meth = sum(r["runtime_s"] for r in recs)
        per = (tw - meth) / len(recs)
        over[label] = per
        rows.append((f"overhead per run: {label}", f"{1000 * per:.1f} ms",
                     f"{len(recs)} fifo runs in {tw:.2f} s, methods {1000 * meth / len(recs):.2f} ms/run"))
    for e in engines.values():
        e.close()
    # -- 3. the engine's own parallel efficiency, independent of free CPU:
    # a method that sleeps 50 ms (tests/bench/toy_family.py, loaded as a plugin)
    toy = str(Path(__file__).resolve().parents[1] / "tests" / "bench" / "toy_family.py")
    if Path(toy).exists():
        from dmlsched.bench import Source, Suite, run_sweep

        tdir = tmp / "toy"
        tdir.mkdir()
        for s in range(n):
            (tdir / f"t{s:04d}.json").write_text(json.dumps({"problem": "benchtoy", "values": [1 + s, 3],
                                                              "sleep": 0.05}))
        tt = {}
        for w in (1, 2):
            from dmlsched.bench.engines import LocalEngine

            eng = LocalEngine(w)
            suite = Suite(sources=[Source("path", pattern=str(tdir))], methods=["sleep"], reference="none",
                          time_limit=60, plugins=[toy])
            run_sweep(Suite(sources=[Source("path", pattern=str(tdir))], methods=["first"],
                            reference="none", plugins=[toy]), engine=eng, progress=False)  # warm-up (all workers)
            t0 = time.perf_counter()
            run_sweep(suite, engine=eng, progress=False)
            tt[w] = time.perf_counter() - t0
            eng.close()
        rows.append(("sleep-50ms sweep, 1 vs 2 workers", f"{tt[1]:.2f} s vs {tt[2]:.2f} s = {tt[1] / tt[2]:.2f}x",
                     f"{n} runs; ideal 2x: the engine's dispatch does not limit the speed-up"))
    # worker start-up (paid once per worker, and after each kill)
    from dmlsched.bench.child import ChildProcess

    starts = []
    for _ in range(3):
        c = ChildProcess()
        t0 = time.perf_counter()
        c.start()
        starts.append(time.perf_counter() - t0)
        c.close()
    rows.append(("worker process start-up (once per worker / after a kill)", f"{statistics.median(starts):.2f} s",
                 "median of 3: imports dmlsched, Pyomo, solvers"))
    import dmlsched

    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = (float("nan"),) * 3
    print(f"### Run of {now}\n")
    print(f"- machine: {platform.node()}, {platform.platform()}, {os.cpu_count()} cores "
          f"(load average before/after: see below), Python {platform.python_version()}, "
          f"dmlsched {dmlsched.__version__}")
    print(f"- workload: {n} Hare instances (3 GPUs, {args.jobs} jobs, <= {args.jobs * 4} tasks), "
          f"method exact (HiGHS), then fifo; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    print("| measure | value | notes |\n|---|---|---|")
    for a, b, c in rows:
        print(f"| {a} | {b} | {c} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
