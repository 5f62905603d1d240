"""``benchmarks/REPRODUCTION.md``: the papers' claims, our setups, our numbers.

For each paper whose family is present in the package, a :class:`Claim`
holds the claim as the paper states it, a suite generating the setup (seeded
generator calls, run by the same sweep engine as ``dmlsched bench``) and a
judge turning the records into a measured result and a verdict
(``reproduced``, ``partially reproduced``, ``not reproduced``, or ``not run``
when the family or its generator is missing).

Run::

    python -m dmlsched.bench.reproduce --out benchmarks/REPRODUCTION.md [--workers 2] [--results FILE] [--quick]

``--results`` keeps the runs in a JSON-lines file so that an interrupted
generation resumes; ``--quick`` uses fewer seeds (a smoke test, not the
recorded numbers).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from .suite import Source, Suite

SHARED_TRACES = Path(os.environ.get("DMLSCHED_TRACES", "/work/shared/traces"))


# ---------------------------------------------------------------------------
# setups that have no generator module of their own
def moldable_swf(seed: int = 0, *, gpus: int = 256, jobs: int = 300, path: str | None = None) -> Any:
    """The first ``jobs`` jobs of the Lublin SWF trace on ``gpus`` GPUs
    (moldable range 1..gpus), via :func:`dmlsched.traces.swf.swf_to_moldable`.
    ``seed`` is unused (the trace is fixed); fewer GPUs = heavier load."""
    from ..traces.swf import read_swf, swf_to_moldable

    p = path or str(SHARED_TRACES / "swf" / "lublin_256.swf")
    return swf_to_moldable(read_swf(p), gpus=gpus, limit=jobs, name=f"lublin-{jobs}jobs-{gpus}gpus")


# ---------------------------------------------------------------------------
@dataclass
class Claim:
    family: str
    paper: str
    claim: str
    setup: str
    suite: Callable[[bool], Suite]
    judge: Callable[[list[dict]], tuple[str, str]]
    needs: tuple[str, ...] = ()


def _ok(records: list[dict]) -> list[dict]:
    return [r for r in records if r.get("status") in ("optimal", "feasible") and r.get("objective") is not None]


def _by_instance(records: list[dict]) -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {}
    for r in _ok(records):
        out.setdefault(r["instance_hash"], {})[r["method"]] = r
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _errors(records: list[dict]) -> str:
    bad = [r for r in records if r.get("status") not in ("optimal", "feasible")]
    if not bad:
        return ""
    kinds: dict[str, int] = {}
    for r in bad:
        kinds[f"{r.get('method')} {r.get('status')}"] = kinds.get(f"{r.get('method')} {r.get('status')}", 0) + 1
    return " Runs without a result (excluded): " + ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())) + "."


def _setup_group(r: dict) -> str:
    """The label of a generated instance without its seed: one group per setup."""
    import re

    g = re.sub(r",?\s*seed=\d+", "", str(r.get("label") or ""))
    return g.replace("()", "")


def judge_hare(records: list[dict]) -> tuple[str, str]:
    base = {"fifo": "Gavel-FIFO", "srtf": "SRTF", "homo": "Sched_Homo", "allox": "Sched_Allox"}
    groups: dict[str, dict[str, dict[str, dict]]] = {}
    for r in _ok(records):
        groups.setdefault(_setup_group(r), {}).setdefault(r["instance_hash"], {})[r["method"]] = r
    parts = []
    means = {}
    for g, inst in sorted(groups.items()):
        lines = []
        for b, label in base.items():
            red = [1 - d["list"]["objective"] / d[b]["objective"] for d in inst.values() if "list" in d and b in d]
            if not red:
                continue
            means[(g, b)] = statistics.fmean(red)
            lines.append(f"vs {label} mean {_pct(means[(g, b)])} (min {_pct(min(red))}, max {_pct(max(red))}, n={len(red)})")
        if lines:
            parts.append(f"*{g}*: " + "; ".join(lines))
    if not means:
        return "no comparable runs." + _errors(records), "not run"
    variant = []
    for g, inst in sorted(groups.items()):
        red = {label: [1 - d["list-eft"]["objective"] / d[b]["objective"] for d in inst.values()
                       if "list-eft" in d and b in d] for b, label in base.items()}
        if any(red.values()):
            variant.append(f"*{g}*: " + "; ".join(f"vs {label} mean {_pct(statistics.fmean(v))}"
                                                  for label, v in red.items() if v))
    rel = [r for r in records if r.get("method") == "list"]
    unsolved = sum(1 for r in rel if (r.get("details") or {}).get("relaxation_status") not in (None, "optimal"))
    text = ("Reduction of total weighted JCT by Hare (`list`) = 1 - W(list)/W(baseline), per instance. "
            + ". ".join(parts) + "."
            + (f" In {unsolved} of {len(rel)} `list` runs the relaxation was not solved to optimality within "
               "the limit (its incumbent was used)." if unsolved else " Every relaxation was solved to optimality.")
            + (" Variant `list-eft` (not Hare's algorithm: the same order, each task on the GPU where it "
               "finishes earliest; benchmarks/hare_evaluation.md): " + ". ".join(variant) + "." if variant else "")
            + _errors(records))
    if all(m >= 0.476 for m in means.values()):
        v = "reproduced"
    elif all(m > 0 for m in means.values()):
        v = "partially reproduced (Hare better than every baseline, by less than 47.6% somewhere)"
    elif any(m > 0 for m in means.values()):
        v = "not reproduced (Hare beats some baselines in some setups only)"
    else:
        v = "not reproduced (Hare is worse than every baseline on this setup)"
    return text, v


def judge_rar(records: list[dict]) -> tuple[str, str]:
    inst = _by_instance(records)
    lines = []
    won: dict[str, bool] = {}
    for metric, get in (("makespan", lambda r: r["objective"]),
                        ("average JCT", lambda r: (r.get("details") or {}).get("average_jct"))):
        vals: dict[str, list[float]] = {}
        wins = 0
        n = 0
        for d in inst.values():
            if not all(m in d for m in ("sjf-bco", "ff", "ls", "rand")):
                continue
            xs = {m: get(d[m]) for m in ("sjf-bco", "ff", "ls", "rand")}
            if not all(isinstance(x, (int, float)) for x in xs.values()):
                continue
            n += 1
            wins += all(xs["sjf-bco"] <= xs[m] for m in ("ff", "ls", "rand"))
            for m, x in xs.items():
                vals.setdefault(m, []).append(float(x))
        if not n:
            continue
        means = {m: statistics.fmean(v) for m, v in vals.items()}
        won[metric] = all(means["sjf-bco"] < means[m] for m in ("ff", "ls", "rand"))
        lines.append(f"{metric} (mean over {n} seeds): " + ", ".join(f"{m} {means[m]:.1f}" for m in means)
                     + f"; SJF-BCO best or tied on {wins}/{n} seeds")
    if not lines:
        return "no comparable runs." + _errors(records), "not run"
    if all(won.values()):
        v = "reproduced"
    elif any(won.values()):
        v = "partially reproduced (SJF-BCO wins on " + ", ".join(k for k, w in won.items() if w) + " only)"
    else:
        v = "not reproduced"
    return "; ".join(lines) + "." + _errors(records), v


def judge_gap(method: str, limit: float, what: str) -> Callable[[list[dict]], tuple[str, str]]:
    def judge(records: list[dict]) -> tuple[str, str]:
        gaps = [r["ratio"] - 1 for r in _ok(records) if r["method"] == method and isinstance(r.get("ratio"), (int, float))]
        if not gaps:
            return "no comparable runs." + _errors(records), "not run"
        within = sum(g <= limit + 1e-9 for g in gaps)
        text = (f"gap of `{method}` to the {what}: median {_pct(statistics.median(gaps))}, mean "
                f"{_pct(statistics.fmean(gaps))}, max {_pct(max(gaps))}; {within}/{len(gaps)} instances within "
                f"{_pct(limit)}." + _errors(records))
        if within == len(gaps):
            v = "reproduced"
        elif statistics.median(gaps) <= limit:
            v = "partially reproduced (median within, some instances beyond)"
        else:
            v = "not reproduced"
        return text, v

    return judge


def judge_moldable(records: list[dict]) -> tuple[str, str]:
    inst = _by_instance(records)
    rows = []
    light_ok = None
    light_any: list[str] = []
    for d in sorted(inst.values(), key=lambda d: -next(iter(d.values()))["size"].get("gpus", 0)):
        if "rigid-fcfs" not in d:
            continue
        any_r = next(iter(d.values()))
        base = d["rigid-fcfs"]["objective"]
        parts = [f"{m} {d[m]['objective'] / base:.2f}x" for m in ("moldable-equi", "malleable-equi") if m in d]
        rows.append(f"{any_r.get('instance_name') or any_r.get('label')}: " + ", ".join(parts))
        if light_ok is None:  # the first (largest cluster) is the lightest load
            gains = [m for m in ("moldable-equi", "malleable-equi") if m in d and d[m]["objective"] < base]
            light_ok = len(gains) == 2
            light_any = gains
    if not rows:
        return "no comparable runs." + _errors(records), "not run"
    text = ("Total flow time relative to Rigid FCFS (< 1x is a gain), largest cluster (lightest load) first: "
            + "; ".join(rows) + "." + _errors(records))
    if light_ok:
        return text, "reproduced"
    if light_any:
        return text, "partially reproduced (at the lightest load only " + ", ".join(light_any) + " gains)"
    return text, "not reproduced"


def judge_hlas(records: list[dict]) -> tuple[str, str]:
    groups: dict[str, dict[str, dict[str, dict]]] = {}
    for r in _ok(records):
        groups.setdefault(_setup_group(r), {}).setdefault(r["instance_hash"], {})[r["method"]] = r
    parts = []
    factors: list[float] = []
    for g, inst in sorted(groups.items()):
        line = []
        for b in ("fifo", "2d-las"):
            f = [d[b]["objective"] / d["hlas"]["objective"] for d in inst.values() if "hlas" in d and b in d]
            if f:
                factors.append(statistics.fmean(f))
                line.append(f"{b} / hlas = {statistics.fmean(f):.2f}x (n={len(f)})")
        if line:
            parts.append(f"*{g}*: " + ", ".join(line))
    if not factors:
        return "no comparable runs." + _errors(records), "not run"
    text = ("Improvement factor = average JCT of the baseline / average JCT of HLAS (> 1: HLAS better), "
            "mean over seeds. " + ". ".join(parts) + "." + _errors(records))
    best = max(factors)
    if best >= 0.9 * 2.94:
        return text, "reproduced"
    if min(factors) > 1:
        return text, f"partially reproduced (HLAS better, best factor {best:.2f}x < 2.94x)"
    return text, "not reproduced"


def hare_testbed(seed: int = 0, **params: Any) -> Any:
    """:func:`dmlsched.generate.hare.generate` on the paper's 15-GPU testbed (Section 7.1)."""
    from ..generate.hare import TESTBED, generate as gen

    return gen(seed, gpus=list(TESTBED), **params)


def _suite(name: str, sources: list[Source], methods: list[str], reference: str | None,
           time_limit: float = 30) -> Suite:
    return Suite(sources=sources, name=name, methods=methods, reference=reference or "none",
                 time_limit=time_limit, solver="highs")


CLAIMS: list[Claim] = [
    Claim(
        family="hare",
        paper="Hare (Chen et al., HPDC'22), Section 7, Fig. 12",
        claim="Hare reduces total weighted JCT by 47.6%-75.3% compared with Gavel-FIFO, SRTF, Sched_Homo and Sched_Allox.",
        setup=("`dmlsched.bench.reproduce:hare_testbed`: the paper's testbed of 15 GPUs (8 V100, 4 T4, 1 K80, "
               "2 M60, listed in that order), 6 jobs of the paper's 8 models (Table 2, 25% per domain, per-GPU "
               "times of `generate.hlas.job_times`), 2-5 rounds of 1, 2 or 4 tasks, weights 1-3; offered load "
               "0.9 (Poisson arrivals) and 100 (near-simultaneous arrivals); seeds 1-3 each (1 with --quick). "
               "Methods `list` (Algorithm 1 with the RL relaxation; 10 s per run, the relaxation's checked "
               "feasible point when the limit hits), `fifo`, `srtf`, `homo`, `allox`, and the variant `list-eft` "
               "(not Hare: the same order, earliest-finish GPU; benchmarks/hare_evaluation.md)."),
        suite=lambda quick: _suite("repro-hare", [
            Source("generator", generator="dmlsched.bench.reproduce:hare_testbed",
                   params={"load": load, "num_jobs": 6},
                   seeds=tuple(range(1, 2 if quick else 4))) for load in (0.9, 100.0)],
            ["list", "list-eft", "fifo", "srtf", "homo", "allox"], None, time_limit=10),
        judge=judge_hare,
        needs=("dmlsched.generate.hlas",),
    ),
    Claim(
        family="rar",
        paper="SJF-BCO (Yu et al., MobiHoc'22), Section 6, Fig. 4",
        claim="SJF-BCO achieves a smaller makespan and average JCT than FF, LS and RAND.",
        setup=("`dmlsched.generate.rar:generate`: the paper's 160 jobs (80x1, 14x2, 26x4, 30x8, 8x16, 2x32 GPUs), "
               "F_j in [1000, 6000], tau in [0.01, 0.05], 20 servers with capacities from {4, 8, 16, 32}, T = 1200; "
               "seeds 1-10 (1-3 with --quick)."),
        suite=lambda quick: _suite("repro-rar", [
            Source("generator", generator="dmlsched.generate.rar:generate", params={},
                   seeds=tuple(range(1, 4 if quick else 11)))],
            ["sjf-bco", "ff", "ls", "rand"], None),
        judge=judge_rar,
        needs=("dmlsched.generate.rar",),
    ),
    Claim(
        family="harmony",
        paper="Harmony (Lee, dissertation ch. 4), Section 4.4.7, Fig. 4.17",
        claim="Harmony's grouping is within about 2% of the exhaustive-search optimum.",
        setup=("`dmlsched.generate.harmony:sample_workload`: 5 jobs drawn from the 80-job evaluation workload, "
               "6 machines; seeds 1-20 (1-5 with --quick); `harmony` against the `oracle` (exhaustive search), in cluster utilisation."),
        suite=lambda quick: _suite("repro-harmony", [
            Source("generator", generator="dmlsched.generate.harmony:sample_workload",
                   params={"jobs": 5, "machines": 6}, seeds=tuple(range(1, 6 if quick else 21)))],
            ["harmony"], "oracle"),
        judge=judge_gap("harmony", 0.02, "exhaustive optimum (oracle)"),
        needs=("dmlsched.generate.harmony",),
    ),
    Claim(
        family="cruise",
        paper="Cruise (Lee, dissertation ch. 3), Table 3.4",
        claim="On heterogeneous clusters the Cruise heuristic is within 0-6.5% of the optimal configuration.",
        setup=("`dmlsched.generate.cruise:random_instance`: 6 machines with log-uniform heterogeneous compute and "
               "bandwidth; seeds 1-10 (1-3 with --quick); `proportional` (the heterogeneous heuristic) against `exact` (MIP)."),
        suite=lambda quick: _suite("repro-cruise", [
            Source("generator", generator="dmlsched.generate.cruise:random_instance", params={"n": 6},
                   seeds=tuple(range(1, 4 if quick else 11)))],
            ["proportional"], "exact"),
        judge=judge_gap("proportional", 0.065, "optimum (exact MIP)"),
        needs=("dmlsched.generate.cruise",),
    ),
    Claim(
        family="hlas",
        paper="HLAS (Chen et al., IEEE journal 2024), Section VI, abstract",
        claim="The non-clairvoyant HLAS policy outperforms existing schedulers with an average-JCT improvement of about 2.94x.",
        setup=("`dmlsched.generate.hlas:generate`: the paper's simulation setup (8 job types of Table II, 25% per "
               "domain, V100/T4/K80/M60 with heterogeneous speedups, Poisson arrivals at offered load 0.9, 40 GPU "
               "groups) with 100 and 200 jobs on 160 GPUs; seeds 1-3 (1 with --quick); policies `hlas`, `fifo`, "
               "`2d-las`; average JCT."),
        suite=lambda quick: _suite("repro-hlas", [
            Source("generator", generator="dmlsched.generate.hlas:generate",
                   params={"num_jobs": n, "num_gpus": 160}, seeds=tuple(range(1, 2 if quick else 4)))
            for n in (100, 200)],
            ["hlas", "fifo", "2d-las"], None, time_limit=120),
        judge=judge_hlas,
        needs=("dmlsched.generate.hlas",),
    ),
    Claim(
        family="moldable",
        paper="Fujiwara et al., moldable and malleable scheduling of DL tasks, Section VI",
        claim="Moldable and malleable Equipartition improve average flow time over Rigid FCFS when the cluster is lightly loaded.",
        setup=("`dmlsched.bench.reproduce:moldable_swf`: the first 300 jobs of the Lublin SWF trace "
               "(`traces/swf/lublin_256.swf`, a 256-processor trace) on 512, 256 and 128 GPUs (light, native and "
               "heavy load; a processor is treated as a GPU, moldable range 1..GPUs); policies "
               "`rigid-fcfs`, `moldable-equi`, `malleable-equi`; total flow time."),
        suite=lambda quick: _suite("repro-moldable", [
            Source("generator", generator="dmlsched.bench.reproduce:moldable_swf", params={"gpus": g}, seeds=(0,))
            for g in (512, 256, 128)],
            ["rigid-fcfs", "moldable-equi", "malleable-equi"], None),
        judge=judge_moldable,
        needs=("dmlsched.traces.swf",),
    ),
]


def _versions() -> str:
    out = [f"Python {platform.python_version()}"]
    for mod in ("dmlsched", "pyomo", "highspy", "numpy", "scipy", "gurobipy", "distributed"):
        try:
            m = importlib.import_module(mod)
            v = getattr(m, "__version__", None)
            if v is None and mod == "highspy":
                from importlib.metadata import version

                v = version("highspy")
            out.append(f"{mod} {v}")
        except Exception:
            pass
    return ", ".join(out)


def _machine() -> str:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {platform.platform()}, {os.cpu_count()} cores ({cpu})"


def generate(out: str, *, workers: int | None = None, results: str | None = None, quick: bool = False,
             stream: Any = None) -> Path:
    """Run every claim's setup whose family is present and write the report."""
    from ..registry import families
    from .runner import run_sweep

    stream = stream if stream is not None else sys.stderr
    present = {f.name for f in families()}
    tmp = None
    if results is None:
        tmp = tempfile.mkdtemp(prefix="dmlsched-repro-")
        results = str(Path(tmp) / "reproduction.jsonl")
    rows = []
    details = []
    t_all = time.monotonic()
    for c in CLAIMS:
        if c.family not in present:
            rows.append((c, "family not in the package", "not run", 0.0))
            continue
        missing = []
        for mod in c.needs:
            try:
                importlib.import_module(mod)
            except ImportError:
                missing.append(mod)
        if missing:
            rows.append((c, f"missing module(s): {', '.join(missing)}", "not run", 0.0))
            continue
        print(f"reproduce: {c.family}: {c.claim}", file=stream, flush=True)
        t0 = time.monotonic()
        try:
            res = run_sweep(c.suite(quick), out=results, workers=workers, progress=False, stream=stream)
            measured, verdict = c.judge(res.records)
        except Exception as e:  # one claim's failure must not hide the others
            measured, verdict = f"the setup failed: {type(e).__name__}: {e}", "not run"
            res = None
        rows.append((c, measured, verdict, time.monotonic() - t0))
        if res is not None:
            details.append((c, res.records))
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = "python -m dmlsched.bench.reproduce --out " + out + (" --quick" if quick else "")
    lines = [
        "# Reproduction of the papers' claims",
        "",
        f"Generated by `{cmd}` on {now}.",
        "",
        f"- machine: {_machine()}",
        f"- versions: {_versions()}",
        f"- solver: HiGHS; every run through the `dmlsched bench` engine (local worker processes, "
        f"per-run hard time limits); total {time.monotonic() - t_all:.0f} s",
        f"- families present: {', '.join(sorted(present))}",
        "" if not quick else "- **--quick run: fewer seeds than the recorded setup; a smoke test, not the result.**",
        "",
        "| paper | claim | verdict |",
        "|---|---|---|",
    ]
    for c, _m, v, _t in rows:
        lines.append(f"| {c.paper} | {c.claim} | **{v}** |")
    lines.append("")
    for c, m, v, t in rows:
        lines += [f"## {c.family}: {c.paper}", "", f"**Claim.** {c.claim}", "", f"**Setup.** {c.setup}", "",
                  f"**Measured.** {m}", "", f"**Verdict.** {v}" + (f" ({t:.0f} s)" if t else ""), ""]
    lines += ["## Notes", "",
              "- Ratios and gaps are against the reference named in each setup (optimum from an exact method "
              "or exhaustive search when one is named). Runs that failed or hit the time limit are excluded and "
              "counted in the measured text.",
              "- The setups are scaled down from the papers' (exact references and the relaxation inside Hare's "
              "Algorithm 1 must finish within the time limit); a claim not reproduced here is a statement about "
              "this setup, and the proofs/ documents discuss the claims themselves.",
              ""]
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("\n".join(lines), encoding="utf-8")
    return p


def add_reproduce_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="benchmarks/REPRODUCTION.md", help="Markdown file to write")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: cores)")
    parser.add_argument("--results", default=None, help="keep the runs in this JSON-lines file (resumable)")
    parser.add_argument("--quick", action="store_true", help="fewer seeds: a smoke test")


def cli_reproduce(args: argparse.Namespace) -> int:
    p = generate(args.out, workers=args.workers, results=args.results, quick=args.quick)
    print(f"reproduction report: {p}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dmlsched.bench.reproduce", description=__doc__.split("\n")[0])
    add_reproduce_arguments(ap)
    return cli_reproduce(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
