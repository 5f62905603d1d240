"""Benchmark of the six moldable/malleable policies on the two real traces
(Fujiwara et al., Fig. 4 / Fig. 8 style).

Usage::

    /work/venv/bin/python benchmarks/moldable_traces.py swf     # Lublin 256 SWF trace
    /work/venv/bin/python benchmarks/moldable_traces.py openb   # Alibaba openb pods
    /work/venv/bin/python benchmarks/moldable_traces.py plot    # PNGs from the recorded results

Each run appends JSON lines to ``benchmarks/moldable_results.jsonl`` (one per
trace x cluster size x policy: metrics, simulation and validation seconds).
Rigid policies run on the rigid conversion (p = requested), the four
moldable/malleable ones on the moldable conversion (SWF: (1, |G|); openb:
p_min from the GPU share, p_max = max(num_gpu, 4)), as in the paper.
Traces are read from ``../shared/traces`` and never copied.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TRACES = ROOT.parent / "shared" / "traces"
OUT = HERE / "moldable_results.jsonl"

POLICIES = [
    ("rigid-fcfs", "rigid"),
    ("rigid-shortest", "rigid"),
    ("moldable-equi", "moldable"),
    ("malleable-equi", "moldable"),
    ("moldable-prop", "moldable"),
    ("malleable-prop", "moldable"),
]
SIZES = {"swf": [256, 384, 512, 1024], "openb": [20, 32, 64, 128]}
KEYS = ["avg_flow", "max_flow", "avg_stretch", "max_stretch", "avg_job_flow", "max_job_flow",
        "avg_job_stretch", "max_job_stretch", "utilisation", "makespan", "preemptions", "segments"]


def instances(trace: str, gpus: int):
    from dmlsched.traces import openb_to_moldable, read_openb, read_swf, swf_to_moldable

    if trace == "swf":
        tr = read_swf(TRACES / "swf" / "lublin_256.swf")
        return {"rigid": swf_to_moldable(tr, gpus=gpus, mode="rigid"),
                "moldable": swf_to_moldable(tr, gpus=gpus, mode="moldable")}
    tr = read_openb(TRACES / "alibaba-openb")
    return {"rigid": openb_to_moldable(tr, gpus=gpus),
            "moldable": openb_to_moldable(tr, gpus=gpus, moldable_max=4)}


def run(trace: str, sizes: list[int], only: list[str] | None = None) -> None:
    from dmlsched.problems.moldable.simulator import simulate
    from dmlsched.problems.moldable.solution import metrics, validate

    rules = {"rigid-fcfs": ("rigid-fcfs", False), "rigid-shortest": ("rigid-shortest", False),
             "moldable-equi": ("equi", False), "malleable-equi": ("equi", True),
             "moldable-prop": ("prop", False), "malleable-prop": ("prop", True)}
    for g in sizes:
        insts = instances(trace, g)
        for name, conv in POLICIES:
            if only and name not in only:
                continue
            inst = insts[conv]
            rule, mall = rules[name]
            t0 = time.perf_counter()
            sched, stats = simulate(inst, rule, malleable=mall)
            sim_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            validate(inst, sched)
            val_s = time.perf_counter() - t0
            m = metrics(inst, sched)
            row = {"trace": trace, "gpus": g, "policy": name, "tasks": inst.num_tasks, "sim_s": round(sim_s, 3),
                   "validate_s": round(val_s, 3), "events": stats.events, **{k: m[k] for k in KEYS},
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": platform.node()}
            with open(OUT, "a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{trace:5s} G={g:5d} {name:15s} sim {sim_s:6.2f}s val {val_s:5.2f}s "
                  f"avg_flow {m['avg_flow']:12.1f} max_flow {m['max_flow']:12.1f} "
                  f"avg_str {m['avg_stretch']:9.2f} max_str {m['max_stretch']:11.1f} util {m['utilisation']:.3f}",
                  flush=True)


def load_rows() -> list[dict]:
    rows = [json.loads(x) for x in OUT.read_text().splitlines() if x.strip()]
    latest: dict[tuple, dict] = {}
    for r in rows:  # keep the latest record per (trace, gpus, policy)
        latest[(r["trace"], r["gpus"], r["policy"])] = r
    return list(latest.values())


def plot() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = load_rows()
    for trace in ("swf", "openb"):
        rs = [r for r in rows if r["trace"] == trace]
        if not rs:
            continue
        fig, axes = plt.subplots(2, 4, figsize=(13, 5.6))
        panels = [("avg_flow", "avg flow [s]"), ("max_flow", "max flow [s]"),
                  ("avg_job_flow", "avg job flow [s]"), ("max_job_flow", "max job flow [s]"),
                  ("avg_stretch", "avg stretch"), ("max_stretch", "max stretch"),
                  ("avg_job_stretch", "avg job stretch"), ("max_job_stretch", "max job stretch")]
        for ax, (key, label) in zip(axes.flat, panels):
            for name, _ in POLICIES:
                pts = sorted((r["gpus"], r[key]) for r in rs if r["policy"] == name)
                if pts:
                    style = ":" if "prop" in name or "shortest" in name else "-"
                    ax.plot([p for p, _ in pts], [v for _, v in pts], style, marker="o", ms=3, label=name)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(label, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("#GPUs" if trace == "openb" else "#processors", fontsize=8)
        axes.flat[0].legend(fontsize=7)
        title = {"swf": "Lublin-256 SWF trace (10,000 jobs)", "openb": "Alibaba openb GPU pods"}[trace]
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        fig.savefig(HERE / f"moldable_{trace}.png", dpi=60)
        plt.close(fig)


def table() -> None:
    """Markdown tables of the recorded results (pasted into moldable.md)."""
    rows = load_rows()
    for trace in ("swf", "openb"):
        rs = sorted((r for r in rows if r["trace"] == trace),
                    key=lambda r: (r["gpus"], [p for p, _ in POLICIES].index(r["policy"])))
        if not rs:
            continue
        print(f"\n### {trace}\n")
        print("| GPUs | policy | avg flow [s] | max flow [s] | avg stretch | max stretch | avg job flow | "
              "max job flow | avg job stretch | max job stretch | util | preempt. | sim [s] | validate [s] |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rs:
            print(f"| {r['gpus']} | {r['policy']} | {r['avg_flow']:.0f} | {r['max_flow']:.0f} | "
                  f"{r['avg_stretch']:.3g} | {r['max_stretch']:.3g} | {r['avg_job_flow']:.0f} | "
                  f"{r['max_job_flow']:.0f} | {r['avg_job_stretch']:.3g} | {r['max_job_stretch']:.3g} | "
                  f"{r['utilisation']:.3f} | {r['preemptions']} | {r['sim_s']:.2f} | {r['validate_s']:.2f} |")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "plot"
    if what == "plot":
        plot()
    elif what == "table":
        table()
    else:
        sizes = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else SIZES[what]
        only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
        run(what, sizes, only)
