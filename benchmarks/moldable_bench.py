"""Moldable benchmarks on the bench engine: every number quoted in benchmarks/moldable.md.

Run (one command; each suite resumes through its results file)::

    .venv/bin/python benchmarks/moldable_bench.py [--suites traces,perf,exact,gap] \
        [--workers 2] [--out benchmarks/results-moldable.jsonl] [--quick]

Suites (thin wrappers over :func:`dmlsched.bench.run_sweep`):

* ``traces`` -- the six policies (and malleable-equi under the current-first
  reading) on the whole openb trace (20, 32, 64, 128 GPUs) and the whole
  Lublin SWF trace (256, 384, 512, 1024 processors);
* ``perf``   -- malleable Equipartition on the whole SWF trace (256) and on
  openb (20 GPUs), three repetitions: simulation and validation times;
* ``exact``  -- issue 17's goals: exact-cp on the 7-task paper-like instance
  and on 20-task instances (seeds 0-4), at 5 s and 60 s (wall time, peak
  memory, status, objective, bound), and the time-indexed MIP's refusal;
* ``gap``    -- certified gap at the paper's scale: every policy's objective
  over the preemptive lower bound on the 10,000-job SWF trace (and openb).

The ``traces`` suite also draws ``moldable_openb.png`` and ``moldable_swf.png``.

Prints one Markdown table per suite; the records go to ``--out`` (JSON lines).
Measured on a shared machine: timings are re-measured by the lead on a quiet one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

POLICIES = ["rigid-fcfs", "rigid-shortest", "moldable-equi", "malleable-equi", "malleable-equi@current-first",
            "moldable-prop", "malleable-prop"]
OPTS = {"malleable-equi@current-first": {"first_found": "current-first"}}


def gen(fn: str, params: dict, seeds=(0,), name: str = "") -> Source:
    return Source("generator", generator=f"dmlsched.generate.moldable:{fn}", params=params, seeds=tuple(seeds),
                  name=name)


def suites(quick: bool) -> dict[str, list[Suite]]:
    swf_jobs = {"num_jobs": 1000} if quick else {}
    openb_sizes = (20, 64) if quick else (20, 32, 64, 128)
    swf_sizes = (256, 1024) if quick else (256, 384, 512, 1024)
    return {
        "traces": [Suite(
            sources=[gen("openb", {"num_gpus": g}, name=f"openb-{g}") for g in openb_sizes]
            + [gen("swf", {"num_gpus": g, **swf_jobs}, name=f"swf-{g}") for g in swf_sizes],
            name="moldable-traces", methods=list(POLICIES), reference=None, time_limit=3600, options=dict(OPTS))],
        "perf": [Suite(
            sources=[gen("swf", {"num_gpus": 256, **swf_jobs}, name="swf-256"),
                     gen("openb", {"num_gpus": 20}, name="openb-20")],
            name="moldable-perf", methods=["malleable-equi"], reference=None, time_limit=600, repetitions=3)],
        "exact": [Suite(
            sources=[gen("paper_like", {"num_gpus": 8, "num_users": 2, "num_bags": 3, "tasks_per_bag": [2, 4]}, (3,),
                         name="paper-like-7"),
                     gen("paper_like", {"num_gpus": 8, "num_users": 2, "num_bags": 5, "tasks_per_bag": [4, 4]},
                         (0, 1) if quick else (0, 1, 2, 3, 4), name="paper-like-20")],
            name=f"moldable-exact-{limit:g}s", methods=["exact-cp", "exact"], reference=None, time_limit=limit,
            grace=max(10.0, limit)) for limit in ((5.0,) if quick else (5.0, 60.0))],
        "gap": [Suite(
            sources=[gen("swf", {"num_gpus": g, **swf_jobs}, name=f"swf-{g}") for g in (256, 512)]
            + [gen("openb", {"num_gpus": 20}, name="openb-20")],
            name="moldable-gap", methods=["rigid-fcfs", "rigid-shortest", "moldable-equi", "malleable-equi",
                                          "moldable-prop", "malleable-prop"],
            reference="preemptive-lb", time_limit=3600)],
    }


def _v(r: dict) -> str:
    return r.get("variant") or r["method"]


def _m(r: dict, key: str):
    return ((r.get("details") or {}).get("metrics") or {}).get(key)


def _inst(r: dict) -> str:
    return str(r.get("label", "")).split("(", 1)[0]


def table_traces(recs: list[dict]) -> str:
    out = ["| instance | GPUs | policy | avg flow [s] | max flow [s] | avg stretch | max stretch | util | "
           "preempt. | sim [s] | validate [s] |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in recs:
        if r["status"] not in ("feasible", "optimal"):
            out.append(f"| {_inst(r)} | | {_v(r)} | {r['status']}: {r.get('error')} | | | | | | | |")
            continue
        d = r.get("details") or {}
        out.append(
            f"| {_inst(r)} | {(r.get('size') or {}).get('gpus')} | {_v(r)} | {_m(r, 'avg_flow'):,.0f} | "
            f"{_m(r, 'max_flow'):,.0f} | {_m(r, 'avg_stretch'):.3g} | {_m(r, 'max_stretch'):.3g} | "
            f"{_m(r, 'utilisation'):.3f} | {_m(r, 'preemptions')} | {d.get('simulation_s', 0):.2f} | "
            f"{(d.get('stages') or {}).get('validate', 0):.2f} |")
    # the relative table: average flow vs Rigid FCFS
    by: dict[str, dict[str, dict]] = {}
    for r in recs:
        by.setdefault(_inst(r), {})[_v(r)] = r
    out += ["", "Average flow time relative to Rigid FCFS (negative = better):", "",
            "| instance | " + " | ".join(p for p in POLICIES if p != "rigid-fcfs") + " |",
            "|---|" + "---:|" * (len(POLICIES) - 1)]
    for name, d in by.items():
        base = d.get("rigid-fcfs")
        if not base or _m(base, "avg_flow") is None:
            continue
        cells = []
        for p in POLICIES[1:]:
            x = d.get(p)
            cells.append(f"{_m(x, 'avg_flow') / _m(base, 'avg_flow') - 1:+.1%}" if x and _m(x, "avg_flow") else "")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table_perf(recs: list[dict]) -> str:
    out = ["| instance | tasks | segments | simulate (best of 3) [s] | all runs [s] | validate [s] | peak RSS [MiB] |",
           "|---|---:|---:|---:|---|---:|---:|"]
    by: dict[str, list[dict]] = {}
    for r in recs:
        by.setdefault(_inst(r), []).append(r)
    for name, rs in by.items():
        sims = [float(r["details"]["simulation_s"]) for r in rs if r["status"] == "feasible"]
        val = [float((r["details"].get("stages") or {}).get("validate", 0)) for r in rs if r["status"] == "feasible"]
        peak = max((r.get("peak_rss_bytes") or 0) for r in rs) / 2**20
        out.append(f"| {name} | {_m(rs[0], 'tasks')} | {_m(rs[0], 'segments')} | {min(sims):.2f} | "
                   f"{', '.join(f'{s:.2f}' for s in sims)} | {min(val):.2f} | {peak:.0f} |")
    return "\n".join(out)


def table_exact(recs: list[dict]) -> str:
    out = ["| instance | tasks | method | limit [s] | wall [s] | peak RSS [MiB] | status | objective | bound | gap |",
           "|---|---:|---|---:|---:|---:|---|---:|---:|---:|"]
    for r in recs:
        obj, b = r.get("objective"), r.get("bound")
        gap = f"{obj / b - 1:.2%}" if obj and b else ""
        wall = r.get("wall_s") or r.get("runtime_s") or 0
        peak = (r.get("peak_rss_bytes") or 0) / 2**20
        status = r["status"] + (f" ({(r.get('error') or '')[:90]})" if r["status"] in ("n/a", "error") else "")
        out.append(f"| {_inst(r)} | {(r.get('size') or {}).get('tasks')} | {_v(r)} | {r.get('time_limit'):g} | "
                   f"{wall:.1f} | {peak:.0f} | {status} | {'' if obj is None else f'{obj:,.1f}'} | "
                   f"{'' if b is None else f'{b:,.1f}'} | {gap} |")
    return "\n".join(out)


def table_gap(recs: list[dict]) -> str:
    out = ["| instance | policy | total flow | lower bound | objective / bound | bound time [s] |",
           "|---|---|---:|---:|---:|---:|"]
    ref = {r["instance_hash"]: r for r in recs if r["method"] == "preemptive-lb"}
    for r in recs:
        if r["method"] == "preemptive-lb":
            continue
        lb = ref.get(r["instance_hash"])
        rt = (lb or {}).get("runtime_s") or 0
        out.append(f"| {_inst(r)} | {_v(r)} | {r['objective']:,.0f} | {r.get('reference_bound') or 0:,.0f} | "
                   f"{r.get('ratio_to_bound') or float('nan'):.3f} | {rt:.2f} |")
    return "\n".join(out)


TABLES = {"traces": table_traces, "perf": table_perf, "exact": table_exact, "gap": table_gap}


def plot_traces(recs: list[dict], out_dir: Path) -> list[Path]:
    """``moldable_openb.png`` and ``moldable_swf.png``: per-task and per-job flow
    and stretch against the cluster size (the layout of the paper's Figs. 4 and 8),
    each policy in its colour, marker and line style (dmlsched.plot.method_styles),
    one legend per figure."""
    from dmlsched import plot

    plt = plot._plt()
    styles = plot.method_styles(POLICIES)
    panels = [("avg_flow", "avg flow [s]"), ("max_flow", "max flow [s]"), ("avg_job_flow", "avg job flow [s]"),
              ("max_job_flow", "max job flow [s]"), ("avg_stretch", "avg stretch"), ("max_stretch", "max stretch"),
              ("avg_job_stretch", "avg job stretch"), ("max_job_stretch", "max job stretch")]
    written = []
    for trace, title in (("openb", "Alibaba openb GPU pods"), ("swf", "Lublin-256 SWF trace (10,000 jobs)")):
        rs = [r for r in recs if _inst(r).startswith(trace) and r["status"] == "feasible"]
        if not rs:
            continue
        fig, axes = plt.subplots(2, 4, figsize=(12, 6))
        for ax, (key, label) in zip(axes.flat, panels):
            for p in POLICIES:
                pts = sorted(((r.get("size") or {}).get("gpus"), _m(r, key)) for r in rs if _v(r) == p)
                if pts:
                    st = styles[p]
                    ax.plot([x for x, _ in pts], [y for _, y in pts], color=st["color"], marker=st["marker"],
                            linestyle=st["linestyle"], ms=4, label=p)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(label, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("#GPUs" if trace == "openb" else "#processors", fontsize=8)
        fig.suptitle(title, fontsize=10)
        plot.figure_legend(fig, list(axes.flat), ncol=len(POLICIES))
        path = out_dir / f"moldable_{trace}.png"
        plot.savefig(fig, str(path), dpi=80)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="traces,perf,exact,gap")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results-moldable.jsonl")))
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    all_suites = suites(a.quick)
    for name in a.suites.split(","):
        for s in all_suites[name]:
            workers = 1 if name in ("perf", "exact") else a.workers  # timings: one run at a time
            res = run_sweep(s, out=a.out, workers=workers, progress=False)
            print(f"\n### {s.name} ({res.ran} run, {res.skipped} from {a.out}, {res.elapsed_s:.0f} s)\n")
            print(TABLES[name](res.records))
            if name == "traces" and not a.quick:
                for p in plot_traces(res.records, Path(__file__).parent):
                    print(f"\n![{p.stem}]({p.name})")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
