"""HLAS vs baselines on the paper's online setup (Section VI-D, Fig. 23): 100-300 jobs, 160 GPUs.

Usage::

    python benchmarks/hlas_online.py [--seeds 3] [--loads 0.9,3.0] [--json out.json]
    python benchmarks/hlas_online.py --readings [--seeds 3] [--loads 3.0]

For each load, job count and seed it generates an instance with
:func:`dmlsched.generate.hlas.generate` (40 GPU groups, conservative
predictions) and runs every policy through :func:`dmlsched.solve` (so every run
is validated as a Hare schedule).  Prints a Markdown table of the average JCT
(mean over seeds) and the mean simulation time per run.

``--readings`` runs HLAS and HLAS-P under every reading of the GPU group
(option ``group_mode``: batch, gpuset, round, accounting; ``models/hlas.md``)
and the baselines both relaxed and gang-scheduled (option ``gang``) instead.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import dmlsched
from dmlsched.generate.hlas import generate

RUNS = [  # (label, method, options)
    ("HLAS (40 groups)", "hlas", {}),
    ("HLAS-P (40 groups)", "hlas-p", {}),
    ("HLAS (per GPU)", "hlas", {"grouped": False}),
    ("FIFO", "fifo", {}),
    ("2D-LAS", "2d-las", {}),
    ("SRTF (clairvoyant)", "srtf", {}),
]

READINGS = [
    *[(f"HLAS {m}", "hlas", {"group_mode": m}) for m in ("batch", "gpuset", "round", "accounting")],
    *[(f"HLAS-P {m}", "hlas-p", {"group_mode": m}) for m in ("batch", "gpuset", "round", "accounting")],
    ("FIFO", "fifo", {}),
    ("FIFO gang-block", "fifo", {"gang": "block"}),
    ("2D-LAS", "2d-las", {}),
    ("2D-LAS gang-skip", "2d-las", {"gang": "skip"}),
    ("SRTF", "srtf", {}),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", default="100,150,200,250,300")
    ap.add_argument("--loads", default="0.9,3.0")
    ap.add_argument("--gpus", type=int, default=160)
    ap.add_argument("--groups", type=int, default=40)
    ap.add_argument("--json", default=None)
    ap.add_argument("--readings", action="store_true", help="every group_mode and gang variant")
    a = ap.parse_args()
    runs = READINGS if a.readings else RUNS
    jobs = [int(x) for x in a.jobs.split(",")]
    loads = [float(x) for x in a.loads.split(",")]
    rows = []
    for load in loads:
        print(f"\n### load {load}, {a.gpus} GPUs, {a.groups} groups, {a.seeds} seeds\n")
        print("| jobs | " + " | ".join(lbl for lbl, _, _ in runs) + " | sim s/run |")
        print("|---:|" + "---:|" * (len(runs) + 1))
        for n in jobs:
            jct = {lbl: [] for lbl, _, _ in runs}
            sims = []
            for seed in range(a.seeds):
                inst = generate(n, a.gpus, seed=seed, groups=a.groups, load=load, predictions="conservative")
                for lbl, method, opts in runs:
                    res = dmlsched.solve(inst, method, seed=seed, **opts)
                    jct[lbl].append(res.objective)
                    sims.append(res.details["simulation_s"])
            means = {lbl: statistics.mean(v) for lbl, v in jct.items()}
            rows.append({"load": load, "jobs": n, "avg_jct": means, "sim_s": statistics.mean(sims)})
            print(f"| {n} | " + " | ".join(f"{means[lbl]:.1f}" for lbl, _, _ in runs)
                  + f" | {statistics.mean(sims):.3f} |")
    meta = {"machine": platform.platform(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print("\n", meta)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
