"""Benchmark: Hare's baselines at scale (issue "a newcomer's first hour", item 3).

Goals: ``fifo``, ``srtf``, ``homo`` and ``allox`` on 10,000 jobs and 160 GPUs
under 1 s each; a 300,000-job file loaded and scheduled by ``fifo`` under 30 s;
the loader's time and memory on that file recorded.

One command writes the recorded Markdown::

    .venv/bin/python benchmarks/hare_baselines.py --out benchmarks/hare_baselines.md
    .venv/bin/python benchmarks/hare_baselines.py --quick      # a smoke run (prints only)

Re-measuring some methods only (the 300,000-job file is skipped; the rows of
the named methods in the existing ``--out`` file are replaced, every other
line kept)::

    .venv/bin/python benchmarks/hare_baselines.py --methods allox --out benchmarks/hare_baselines.md

Instances: :func:`dmlsched.generate.hare.simulation` (Section 7.3's job mix,
160 GPUs of four types, Poisson arrivals) at several offered loads.  The
300,000-job file is generated at run time into a temporary directory (it is
about 70 MB; nothing large is committed).  Times are wall-clock seconds of
``dmlsched.solve`` (method + the family's validator and evaluator), and,
separately, of the method alone; memory is the peak resident set size of a
fresh child process doing the load (``resource.getrusage``), and Python's
``tracemalloc`` peak of the load itself.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

METHODS = ("fifo", "srtf", "homo", "allox", "fifo-round", "srtf-round")


def time_methods(num_jobs: int, load: float, seed: int = 1, methods=METHODS) -> list[dict]:
    import dmlsched
    from dmlsched.generate.hare import simulation

    inst = simulation(seed=seed, num_jobs=num_jobs, load=load)
    warm = simulation(seed=seed, num_jobs=100, load=3.0)
    for m in methods:  # lazy imports (scipy for allox) and first-call costs are not timed
        dmlsched.solve(warm, m, seed=seed)
    rows = []
    for m in methods:
        c0 = time.process_time()
        t0 = time.perf_counter()
        res = dmlsched.solve(inst, m, seed=seed)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        validate = res.details.get("stages", {}).get("validate", 0.0)
        rows.append({"jobs": num_jobs, "tasks": inst.num_tasks, "gpus": inst.num_gpus, "load": load,
                     "method": m, "status": res.status.value, "objective": res.objective,
                     "wall_s": wall, "method_s": wall - validate, "cpu_s": cpu,
                     "largest_pool": res.details.get("largest_pool")})
    return rows


_LOAD_CHILD = r"""
import gc, json, sys, time, tracemalloc
def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
t0 = time.perf_counter()
import dmlsched
t_import = time.perf_counter() - t0
path = sys.argv[1]
rss0 = rss()
c0, t0 = time.process_time(), time.perf_counter()
inst = dmlsched.load(path)
t_load, c_load = time.perf_counter() - t0, time.process_time() - c0
rss1 = rss()
c0, t0 = time.process_time(), time.perf_counter()
res = dmlsched.solve(inst, "fifo")
t_fifo, c_fifo = time.perf_counter() - t0, time.process_time() - c0
rss2 = rss()
out = {"import_s": t_import, "load_s": t_load, "load_cpu_s": c_load, "fifo_s": t_fifo, "fifo_cpu_s": c_fifo,
       "fifo_validate_s": res.details.get("stages", {}).get("validate"),
       "status": res.status.value, "jobs": inst.num_jobs, "tasks": inst.num_tasks,
       "rss_before_load": rss0, "rss_after_load": rss1, "rss_after_fifo": rss2}
del inst, res
gc.collect()
tracemalloc.start()  # a second, traced load: Python's allocation peak of the loader itself
inst = dmlsched.load(path)
out["load_peak_bytes"] = tracemalloc.get_traced_memory()[1]
print(json.dumps(out))
"""

_GEN_CHILD = r"""
import sys, time
import dmlsched
from dmlsched.generate.hare import simulation
t0 = time.perf_counter()
inst = simulation(seed=1, num_jobs=int(sys.argv[2]), load=0.9)
dmlsched.save(inst, sys.argv[1])
print(time.perf_counter() - t0)
"""


def big_file(num_jobs: int, seed: int = 1) -> dict:
    """Generate ``num_jobs`` jobs on 160 GPUs into a temporary file (in a child
    process), then load and schedule it with ``fifo`` in a fresh process."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"hare-{num_jobs}.json")
        out = subprocess.run([sys.executable, "-c", _GEN_CHILD, path, str(num_jobs)], capture_output=True,
                             text=True, check=True)
        t_gen = float(out.stdout.strip().splitlines()[-1])
        size = os.path.getsize(path)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _LOAD_CHILD, path], capture_output=True, text=True, check=True)
        total = time.perf_counter() - t0
        rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec.update(file_bytes=size, generate_s=t_gen, child_wall_s=total)
    return rec


def markdown(rows: list[dict], big: dict | None, quick: bool) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        la = os.getloadavg()
        load = f"load average {la[0]:.1f} / {la[1]:.1f} / {la[2]:.1f} (1/5/15 min) at the end"
    except OSError:  # pragma: no cover
        load = "load average unknown"
    out = ["# Hare baselines at scale",
           "",
           "Produced by `.venv/bin/python benchmarks/hare_baselines.py --out benchmarks/hare_baselines.md` "
           f"on {now}, {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
           f"**measured on a shared machine** ({load}): other engineers' jobs were running, so times are "
           "upper bounds of what a quiet machine gives (the lead re-measures).",
           "",
           "Goals (issue 18, item 3): `fifo`, `srtf`, `homo`, `allox` on 10,000 jobs and 160 GPUs under 1 s "
           "each; a 300,000-job file loaded and scheduled by `fifo` under 30 s.",
           "",
           "Instances: `dmlsched.generate.hare.simulation(seed=1, num_jobs=N, load=L)`: the Table 2 job mix "
           "(2-5 rounds of 1, 2 or 4 tasks), 160 GPUs (40 each of V100, T4, K80, M60), Poisson arrivals at "
           "offered load L. `wall` = `dmlsched.solve` (method + validator + evaluator); `method` = without "
           "the validation stage. `allox` solves one assignment problem per arrival on the waiting jobs "
           "(`largest pool` = most jobs in one matching): its cost grows with the queue, i.e. with the load.",
           "",
           "| jobs | tasks | load | method | wall (s) | method (s) | CPU (s) | largest pool |",
           "|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        out.append(_row(r))
    if big:
        out += ["",
                f"## {big['jobs']:,}-job file",
                "",
                f"Generated into a temporary directory ({big['file_bytes'] / 2**20:.1f} MiB of JSON, "
                f"{big['tasks']:,} tasks, 160 GPUs; generation {big['generate_s']:.1f} s, not counted), then in a "
                "fresh Python process:",
                "",
                "| step | wall (s) | CPU (s) |",
                "|---|---:|---:|",
                f"| `import dmlsched` | {big['import_s']:.2f} | |",
                f"| `dmlsched.load` (parse + validate the instance) | {big['load_s']:.2f} | {big['load_cpu_s']:.2f} |",
                f"| `dmlsched.solve(inst, \"fifo\")` (incl. validation {big['fifo_validate_s']:.2f} s wall) | "
                f"{big['fifo_s']:.2f} | {big['fifo_cpu_s']:.2f} |",
                f"| **load + fifo** | **{big['load_s'] + big['fifo_s']:.2f}** | "
                f"**{big['load_cpu_s'] + big['fifo_cpu_s']:.2f}** |",
                "",
                f"Loader memory: resident set size {big['rss_before_load'] / 2**20:.0f} MiB after `import "
                f"dmlsched`, {big['rss_after_load'] / 2**20:.0f} MiB after `load` (+"
                f"{(big['rss_after_load'] - big['rss_before_load']) / 2**20:.0f} MiB), "
                f"{big['rss_after_fifo'] / 2**20:.0f} MiB after `fifo`; Python's allocation peak of a second, "
                f"traced load {big['load_peak_bytes'] / 2**20:.0f} MiB (tracemalloc slows the load several "
                f"times, so that load is not the timed one)."]
    if quick:
        out += ["", "*(quick run: smaller sizes, not the recorded numbers)*"]
    return "\n".join(out) + "\n"


def _row(r: dict) -> str:
    return (f"| {r['jobs']:,} | {r['tasks']:,} | {r['load']:g} | `{r['method']}` | {r['wall_s']:.3f} | "
            f"{r['method_s']:.3f} | {r['cpu_s']:.3f} | "
            f"{r['largest_pool'] if r['largest_pool'] is not None else ''} |")


def merge(old: str, rows: list[dict]) -> str:
    """``old`` (a recorded file) with the table rows of ``rows``' (jobs, load,
    method) replaced, and a line saying when they were re-measured."""
    new = {(f"{r['jobs']:,}", f"{r['load']:g}", f"`{r['method']}`"): _row(r) for r in rows}
    out = []
    for line in old.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| ") else []
        key = (cells[0], cells[2], cells[3]) if len(cells) >= 4 else None
        out.append(new.pop(key) if key in new else line)
    if new:
        raise SystemExit(f"hare_baselines: no row to replace for {sorted(new)} in the --out file")
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    methods = ", ".join(sorted({f"`{r['method']}`" for r in rows}))
    try:
        la = os.getloadavg()
        load = f"load average {la[0]:.1f} / {la[1]:.1f} / {la[2]:.1f} at the end"
    except OSError:  # pragma: no cover
        load = "load average unknown"
    note = (f"Rows of {methods} re-measured on {now} (`--methods {','.join(sorted({r['method'] for r in rows}))}`; "
            f"shared machine, {load}).")
    out = [line for line in out if not (line.startswith("Rows of ") and "re-measured on" in line)]
    at = next((i for i, line in enumerate(out) if line.startswith("| jobs |")), len(out))
    out[at:at] = [note, ""]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the Markdown here (default: print)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--methods", help=f"comma-separated subset of {','.join(METHODS)}: re-measure only "
                    "these (no 300,000-job file); with --out, replace their rows in that file")
    args = ap.parse_args(argv)
    methods = METHODS
    if args.methods:
        methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
        bad = [m for m in methods if m not in METHODS]
        if bad or not methods:
            ap.error(f"--methods: unknown method(s) {', '.join(bad) or '(none given)'}; "
                     f"choose from {', '.join(METHODS)}")
    sizes = [(2000, 0.5)] if args.quick else [(10_000, 0.3), (10_000, 0.5), (10_000, 0.9)]
    rows = []
    for n, load in sizes:
        rows += time_methods(n, load, methods=methods)
    if args.methods and args.out and os.path.exists(args.out) and not args.quick:
        with open(args.out, encoding="utf-8") as fh:
            text = merge(fh.read(), rows)
    else:
        big = None if args.methods else big_file(5000 if args.quick else 300_000)
        text = markdown(rows, big, args.quick)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
