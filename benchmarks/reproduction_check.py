"""An independent re-derivation of a sample of REPRODUCTION.md's numbers and words.

Written from the papers' text and the evidence rule as issue 21 states it (revised after
its review: context parts, the aggregation rule, 'slightly better' parts; a point is one
setting, counted once, and every comparison at a point uses one reading's variants), not from
``dmlsched.claims`` or the families' ``claims.py`` (neither is imported): it reads the
raw records of the results file, groups them itself, recomputes the factors, reductions
and ceilings of a sample of claims and the word the rule gives them, and looks each
number and word up in the report.  For two instances it also re-runs the methods and
recomputes the objective from the returned schedule with its own code.

Run (after ``dmlsched reproduce --results results-reproduce.jsonl``)::

    .venv/bin/python benchmarks/reproduction_check.py results-reproduce.jsonl benchmarks/REPRODUCTION.md \\
        --out benchmarks/reproduction_check.md
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

# the papers' numbers, typed from the papers' text (/work/shared/papers)
HLAS_FIG23 = {"fifo": 1.69, "2d-las": 1.1}  # "outperforms others by about 1.69x and 1.1x, respectively"
HLAS_ABSTRACT = 2.94  # "achieving a performance improvement of about 2.94x"
HLAS_P = 1.42  # "achieves additional improvement of 1.42x, compared to HLAS"
HLAS_FIG12 = {"hlas": 6.7, "srtf": 5.3, "hlas-p": 5.7}  # "the average JCT is 6.7 ... 5.3 ... 5.7"
HARE_FIG15_300 = 0.546  # "Hare outperforms others by 54.6%-80.5% when processing 300 jobs"
FUJIWARA = {"moldable-equi": 0.151, "malleable-equi": 0.425}  # "shortened by at least 15.1%/42.5%"
FUJIWARA_6 = {"moldable-equi": 0.967, "malleable-equi": 0.972}  # "up to 96.7% and 97.2% ... (|G| = 6)"
HARMONY_4_10 = {"avg_jct": 2.11, "makespan": 1.60, "run_utilisation": 1.65}  # 2.11x, 1.60x; "1.65x higher"
CRUISE_58 = {"NMF": 0.352, "MLR": 0.583, "LDA": 0.413}  # "35.2% ... 58.3% in MLR ... 41.3% in LDA"
CRUISE_CLOSE = 0.065  # "close": the dissertation's worst homogeneous gap, "6.5% slower performance"
TOL = 0.15  # the rule's tolerance, relative to the effect size
BASES = ("fifo", "sched-homo", "sched-allo", "2d-las")
#: HLAS's readings, each changed alone (typed from the report's reading list): name -> (HLAS's variant,
#: {baseline: its variant}); at a point every comparison uses one reading's variants, never a mix
HLAS_READINGS = {
    "default": ("hlas", {}),
    "group takes work when any GPU is idle": ("hlas@any", {}),
    "gpuset groups": ("hlas@gpuset", {}),
    "whole-round groups": ("hlas@round", {}),
    "groups only define T-bar": ("hlas@accounting", {}),
    "FIFO relaxed": ("hlas", {"fifo": "fifo@relaxed"}),
    "2D-LAS with backfilling": ("hlas", {"2d-las": "2d-las@backfill"}),
    "2D-LAS on random GPUs": ("hlas", {"2d-las": "2d-las@oblivious"}),
    "2D-LAS relaxed": ("hlas", {"2d-las": "2d-las@relaxed"}),
}
HARMONY_4_17 = 0.02  # "slightly worse by up to around 2%"


def load(path: str) -> list[dict]:
    out = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out[r.get("key") or id(r)] = r
    return list(out.values())


def variant(r: dict) -> str:
    return r.get("variant") or r.get("method") or ""


def ok(r: dict) -> bool:
    return r.get("status") in ("optimal", "feasible", "bound") and r.get("objective") is not None


def params(r: dict) -> tuple[dict, int]:
    src = str(r.get("source") or "")
    if "?" not in src:
        return {}, 0
    body, _, seed = src.split("?", 1)[1].rpartition("&seed=")
    try:
        return json.loads(body), int(seed)
    except ValueError:
        return {}, 0


def gmean(xs) -> float:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def mean(xs) -> float:
    xs = list(xs)
    return statistics.fmean(xs) if xs else math.nan


def ratio_of_means(seeds: dict, num: str, den: str) -> float:
    """At one point (its seeds): mean W(num) / mean W(den) over the seeds that ran both."""
    both = [s for s in seeds.values() if num in s and den in s]
    return mean(s[num] for s in both) / mean(s[den] for s in both) if both else math.nan


# ---------------------------------------------------------------------------
# the rule as revised after the review of issue 21 (REVIEW-21): outcomes, then the word from the
# parts about the method (context parts only when there is no other)
def outcome_about(value: float, paper: float, ceiling: float | None = None, factor: bool = True) -> str:
    eff, big = (value - 1, paper - 1) if factor else (value, paper)
    cap = None if ceiling is None else (ceiling - 1 if factor else ceiling)
    if eff <= 0:
        return "unreachable" if cap is not None and cap <= 0 else "fails"
    if cap is not None and cap < big * (1 - TOL) - 1e-12:
        return "unreachable"
    return "holds" if big * (1 - TOL) - 1e-12 <= eff <= big * (1 + TOL) + 1e-12 else "direction only"


def outcome_at_least(values: list[float], paper: float, ceilings: list[float | None]) -> str:
    if any(v <= 0 for v, c in zip(values, ceilings) if c is None or c > 0):
        return "fails"
    if any(c is not None and c < paper * (1 - TOL) - 1e-12 for c in ceilings):
        return "unreachable"
    return "holds" if all(v >= paper * (1 - TOL) - 1e-12 for v in values) else "direction only"


def outcome_sign(values: list[float], strict: bool = True) -> str:
    """Factors (> 1 the claimed side) at every covered point."""
    return "holds" if all((v > 1) if strict else (v >= 1) for v in values) else "fails"


def outcome_slight(value: float, tol: float) -> str:
    """'A trivial improvement': the right sign, an effect at most ``tol``."""
    if value <= 1:
        return "fails"
    return "holds" if value - 1 <= tol + 1e-12 else "direction only"


def word(outcomes: list[str]) -> str:
    if all(o == "holds" for o in outcomes):
        return "reproduced"
    if "unreachable" in outcomes and "fails" not in outcomes:
        return "unreachable in this setup"
    if "holds" in outcomes:
        return "partially reproduced"
    if all(o == "direction only" for o in outcomes):
        return "direction only"
    return "not reproduced"


# ---------------------------------------------------------------------------
# HLAS (IEEE TCC 2024, Section VI-D): Fig. 23 (160 GPUs, 40 groups, 100-300 jobs), Fig. 22 (200 jobs on
# 100-180 GPUs, arrivals for 160), Fig. 24 (200 jobs on 160 GPUs, 10-160 groups)
def hlas_points(recs: list[dict], fig: str, metric: str = "objective") -> dict[int, dict[int, dict[str, float]]]:
    pts: dict[int, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in recs:
        if not ok(r) or "hlas:generate" not in str(r.get("source")):
            continue
        p, seed = params(r)
        v = float(r["objective"]) if metric == "objective" else (r.get("details") or {}).get(metric)
        if v is None:
            continue
        if fig == "23" and p.get("num_gpus") == 160 and p.get("num_groups") == 40 and "load_gpus" not in p:
            pts[p["num_jobs"]][seed][variant(r)] = float(v)
        elif fig == "22" and p.get("num_jobs") == 200 and (p.get("load_gpus") == 160 or (
                p.get("num_gpus") == 160 and p.get("num_groups") == 40 and "load_gpus" not in p)):
            # Fig. 22's 160-GPU point is Fig. 23's 200-job instance (the same jobs on the same cluster: one
            # setting, run once and recorded without load_gpus)
            pts[p["num_gpus"]][seed][variant(r)] = float(v)
        elif fig == "24" and p.get("num_jobs") == 200 and p.get("num_gpus") == 160 and "load_gpus" not in p:
            pts[p["num_groups"]][seed][variant(r)] = float(v)
    return {k: pts[k] for k in sorted(pts)}


def check_hlas(recs: list[dict]) -> list[tuple]:
    out = []
    f23, f22 = hlas_points(recs, "23"), hlas_points(recs, "22")
    # Fig. 23: four parts about HLAS (the every-scheme growth is context)
    oc = []
    for b, paper in HLAS_FIG23.items():
        per = [ratio_of_means(s, b, "hlas") for s in f23.values()]
        cap = gmean(ratio_of_means(s, b, "lower-bound") for s in f23.values())
        agg = gmean(per)
        oc.append(outcome_about(agg, paper, cap))
        out.append(("hlas-fig23", f"HLAS vs {b}: geometric mean over the jobs of the per-point ratio of means",
                    f"{agg:.2f}x", oc[-1]))
    always = [ratio_of_means(s, b, "hlas") for s in f23.values() for b in BASES]
    oc.append(outcome_sign(always))
    gap = [ratio_of_means(s, "fifo", "hlas") for s in f23.values()]
    steps = [b / a - 1 for a, b in zip(gap, gap[1:])]  # the factor's relative change at each step
    oc.append(outcome_sign([1 + x for x in steps]))
    out.append(("hlas-fig23", "HLAS/FIFO factor's relative change along the jobs",
                f"{100 * min(steps):+.1f}% to {100 * max(steps):+.1f}%", oc[-1]))
    out.append(("hlas-fig23", "word with this setup (vs-fifo, vs-2dlas, always, gap-grows)", word(oc), ""))
    for fig, pts in (("hlas-fig23", f23), ("hlas-fig22", f22)):
        for name, (hlas, alt) in HLAS_READINGS.items():
            las = alt.get("2d-las", "2d-las")
            agg = gmean(ratio_of_means(s, las, hlas) for s in pts.values())
            cap = gmean(ratio_of_means(s, las, "lower-bound") for s in pts.values())
            paper = HLAS_FIG23["2d-las"] if fig == "hlas-fig23" else 2.04
            out.append((fig, f"reading '{name}': {hlas} vs {las}, geometric mean over {len(pts)} points",
                        f"{agg:.2f}x", outcome_about(agg, paper, cap)))
    # Fig. 22: vs 2D-LAS about 2.04x and better than each baseline; 2D-LAS vs FIFO is context
    agg = gmean(ratio_of_means(s, "2d-las", "hlas") for s in f22.values())
    each = [gmean(ratio_of_means(s, b, "hlas") for s in f22.values()) for b in BASES]
    oc = [outcome_about(agg, 2.04), outcome_sign(each)]
    out.append(("hlas-fig22", "HLAS vs 2D-LAS, geometric mean over the GPU counts", f"{agg:.2f}x", oc[0]))
    out.append(("hlas-fig22", "word with this setup (2D-LAS vs FIFO is context)", word(oc), ""))
    # abstract: "can outperform the state-of-the-art" and "about 2.94x" (the largest factor) on Figs. 22-23
    # a point is one setting, counted once: Fig. 22's 160-GPU point is Fig. 23's 200-job point
    both = {**{("23", k): v for k, v in f23.items()}, **{("22", k): v for k, v in f22.items()
                                                         if not (k == 160 and 200 in f23)}}
    each = {b: gmean(ratio_of_means(s, b, "hlas") for s in both.values()) for b in BASES}
    oc = [outcome_sign(list(each.values())), outcome_about(max(each.values()), HLAS_ABSTRACT)]
    out.append(("hlas-abstract", "HLAS vs 2D-LAS over the Figs. 22-23 points", f"{each['2d-las']:.2f}x", oc[0]))
    out.append(("hlas-abstract", "the largest factor", f"{max(each.values()):.2f}x", oc[1]))
    out.append(("hlas-abstract", "word with this setup (outperform, about 2.94x)", word(oc), ""))
    # Figs. 26-27: HLAS-P about 1.42x over HLAS; better than FIFO, HLAS, HLAS-L everywhere; HLAS-L slightly better
    p_hlas = gmean(ratio_of_means(s, "hlas", "hlas-p") for s in both.values())
    l_hlas = gmean(ratio_of_means(s, "hlas", "hlas-l") for s in both.values())
    always = [ratio_of_means(s, b, "hlas-p") for s in both.values() for b in ("fifo", "hlas", "hlas-l")]
    oc = [outcome_about(p_hlas, HLAS_P), outcome_sign(always), outcome_slight(l_hlas, 0.05)]
    out.append(("hlas-p-fig26-27", "HLAS-L vs HLAS ('a trivial improvement')", f"{l_hlas:.2f}x", oc[2]))
    out.append(("hlas-p-fig26-27", "word with this setup", word(oc), ""))
    # Fig. 24 read with 'total JCT' = the makespan: it falls and the average rises with more groups
    mk = hlas_points(recs, "24", "makespan")
    av = hlas_points(recs, "24")
    mks = [mean(s["hlas"] for s in seeds.values() if "hlas" in s) for seeds in mk.values()]
    avs = [mean(s["hlas"] for s in seeds.values() if "hlas" in s) for seeds in av.values()]
    oc = [outcome_sign([a / b for a, b in zip(mks, mks[1:])]), outcome_sign([b / a for a, b in zip(avs, avs[1:])])]
    falls = [1 - b / a for a, b in zip(mks, mks[1:])]  # a fall is positive
    out.append(("hlas-fig24", "HLAS makespan's fall at each step over 10-160 groups (reading 'total-makespan')",
                f"{100 * min(falls):+.1f}% to {100 * max(falls):+.1f}%", oc[0]))
    out.append(("hlas-fig24", "word with this setup, total JCT read as makespan", word(oc), ""))
    return out


def check_hlas_fig12(recs: list[dict]) -> list[tuple]:
    got = {variant(r): float(r["objective"]) for r in recs if ok(r) and str(r.get("source", "")).endswith("fig12.json")}
    oc = ["holds" if abs(got[m] - v) <= 0.01 * v else "fails" for m, v in HLAS_FIG12.items()]
    return [("hlas-fig12", "inconclusive (queue width ours); with this setup", word(oc), "")]


def check_hare_fig15(recs: list[dict]) -> list[tuple]:
    """Fig. 15 (160 GPUs, 100-300 jobs, the default setup: Poisson arrivals, 2-5 rounds, no other parameter):
    the gap of each baseline at 300 jobs with its own ceiling, and the gaps' steps along the jobs, a
    difference of two percentages (percentage points)."""
    by: dict[int, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in recs:
        p, seed = params(r)
        if ":simulation?" in str(r.get("source")) and ok(r) and set(p) == {"num_gpus", "num_jobs"} \
                and p["num_gpus"] == 160 and p["num_jobs"] in (100, 200, 300):
            by[p["num_jobs"]][r["instance_hash"]][variant(r)] = float(r["objective"])
    out, reds, caps, steps = [], [], [], []

    def gap(insts: dict, b: str, hare: str = "list") -> float:
        pairs = [d for d in insts.values() if hare in d and b in d]
        return 1 - mean(d[hare] for d in pairs) / mean(d[b] for d in pairs)

    for b in ("fifo", "srtf", "homo", "allox"):
        red, cap = gap(by[300], b), gap(by[300], b, "lower-bound")
        reds.append(red)
        caps.append(cap)
        g = [gap(by[n], b) for n in (100, 200, 300)]
        steps += [y - x for x, y in zip(g, g[1:])]
        out.append(("hare-fig15", f"300 jobs: Hare vs {b} (sum w C), 1 - ratio of the means", f"{100 * red:.1f}%", ""))
        out.append(("hare-fig15", f"300 jobs: ceiling vs {b}", f"{100 * cap:.1f}%", ""))
    out.append(("hare-fig15", "part '54.6% at 300 jobs'", outcome_at_least(reds, HARE_FIG15_300, caps), ""))
    out.append(("hare-fig15", "the gaps' steps 100 -> 200 -> 300 jobs, percentage points (every baseline)",
                f"{100 * min(steps):+.1f} pp to {100 * max(steps):+.1f} pp",
                "holds" if all(x > 0 for x in steps) else "fails"))
    return out


# ---------------------------------------------------------------------------
# Fujiwara et al.: the abstract (and V-D's "up to ... at |G| = 6"); Section VI-A's second sentence read as
# both Equipartition schedules
def check_moldable(recs: list[dict]) -> list[tuple]:
    by: dict[int, dict[str, float]] = defaultdict(dict)
    sec6: dict[float, dict[str, float]] = defaultdict(dict)
    for r in recs:
        lab = str(r.get("label") or "")
        m = re.match(r"setting=paper-scale;gpus=(\d+)\(", lab)
        if m and ok(r) and "num_tasks" not in lab:
            by[int(m.group(1))][variant(r)] = float(r["objective"])
        m = re.match(r"load=([0-9.]+);cap=machine\(", lab)
        if m and ok(r):
            sec6[float(m.group(1))][variant(r)] = float(r["objective"])
    out, oc = [], []
    for pol, paper in FUJIWARA.items():
        reds = [1 - d[pol] / d["rigid-fcfs"] for _, d in sorted(by.items()) if pol in d and "rigid-fcfs" in d]
        caps = [1 - d["preemptive-lb"] / d["rigid-fcfs"] for _, d in sorted(by.items())
                if pol in d and "rigid-fcfs" in d and "preemptive-lb" in d]
        oc.append(outcome_at_least(reds, paper, caps if len(caps) == len(reds) else [None] * len(reds)))
        out.append(("moldable-abstract", f"{pol} vs Rigid FCFS over |G| {sorted(by)}",
                    f"{100 * min(reds):.1f}% to {100 * max(reds):.1f}%", oc[-1]))
    d6 = by[6]
    for pol, paper in FUJIWARA_6.items():
        red = 1 - d6[pol] / d6["rigid-fcfs"]
        oc.append(outcome_about(red, paper, 1 - d6["preemptive-lb"] / d6["rigid-fcfs"], factor=False))
        out.append(("moldable-abstract", f"{pol} vs Rigid FCFS at |G| = 6 ('up to {100 * paper:.1f}%')",
                    f"{100 * red:.1f}%", oc[-1]))
    out.append(("moldable-abstract", "word with this setup (four parts)", word(oc), ""))
    light = [d["rigid-fcfs"] / d[m] for rho, d in sec6.items() if rho <= 0.25
             for m in ("moldable-equi", "malleable-equi")]
    heavy = [d[m] / d["rigid-fcfs"] for rho, d in sec6.items() if rho > 0.25
             for m in ("moldable-equi", "malleable-equi")]
    w = word([outcome_sign(light), outcome_sign(heavy)])
    out.append(("moldable-sec6-light-load", "'the moldable schedules' = both: word with this setup", w, ""))
    return out


# ---------------------------------------------------------------------------
# Harmony (dissertation 4.4.3, 4.4.7): one experiment, ten seeds its replicates (ratio of the means)
def check_harmony(recs: list[dict]) -> list[tuple]:
    by: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in recs:
        if ok(r) and (r.get("details") or {}).get("run_utilisation") is not None:
            by[r["instance_hash"]][variant(r)] = r["details"]
    out, oc = [], []
    pair = [d for d in by.values() if "isolated" in d and "harmony" in d]
    for k, paper in HARMONY_4_10.items():
        a, b = ("harmony", "isolated") if k == "run_utilisation" else ("isolated", "harmony")
        f = mean(d[a][k] for d in pair) / mean(d[b][k] for d in pair)
        oc.append(outcome_about(f, paper))
        out.append(("harmony-fig-4.10", f"{k}: ratio of the means over {len(pair)} seeds", f"{f:.2f}x", oc[-1]))
    out.append(("harmony-fig-4.10", "word with this setup (three parts)", word(oc), ""))
    oracle = [d for d in by.values() if "oracle" in d and "harmony" in d]
    gaps = {"utilisation": mean(d["oracle"]["run_utilisation"] for d in oracle) /
            mean(d["harmony"]["run_utilisation"] for d in oracle) - 1,
            "avg-jct": mean(d["harmony"]["avg_jct"] for d in oracle) / mean(d["oracle"]["avg_jct"] for d in oracle) - 1,
            "makespan": mean(d["harmony"]["makespan"] for d in oracle)
            / mean(d["oracle"]["makespan"] for d in oracle) - 1}
    # 'up to around 2%': at most 2% with the rule's tolerance (15% of the effect: 2.3%)
    oc = ["holds" if g <= HARMONY_4_17 * (1 + TOL) + 1e-12 else "fails" for g in gaps.values()]
    for k, g in gaps.items():
        out.append(("harmony-fig-4.17", f"Harmony vs the Oracle, {k}, ratio of the means", f"{100 * g:.1f}%", ""))
    out.append(("harmony-fig-4.17", "word with this setup", word(oc), ""))
    return out


# ---------------------------------------------------------------------------
# Cruise (dissertation ch. 3)
def check_cruise(recs: list[dict]) -> list[tuple]:
    by: dict[str, dict[str, float]] = defaultdict(dict)
    rand: dict[str, dict[str, float]] = defaultdict(dict)
    for r in recs:
        name = str(r.get("instance_name") or "")
        if ok(r) and "heterogeneous-28+4" in name:
            by[name.split("-")[1]][variant(r)] = float(r["objective"])
        if ok(r) and "random_homogeneous" in str(r.get("source")):
            rand[r["instance_hash"]][variant(r)] = float(r["objective"])
    out = []
    for app, paper in CRUISE_58.items():
        d = by.get(app, {})
        if "exact" in d and f"static@{app}" in d:
            red = 1 - d["exact"] / d[f"static@{app}"]
            out.append(("cruise-58.3", f"{app}: ILP optimum vs the static start", f"{100 * red:.1f}%",
                        outcome_about(red, paper, red, factor=False)))
    # 3.4.5: the ground truth (blocks by computation time and bandwidth) close to the ILP, NMF
    # both readings split the servers' blocks by bandwidth; 'effective' (the default) the workers' by computation
    # plus pull time, 'compute' by computation alone: the word per reading
    d = by["NMF"]
    for rd in ("effective", "compute"):
        g = d[f"proportional@{rd}"] / d["exact"] - 1
        w = "reproduced" if abs(g) <= CRUISE_CLOSE else "not reproduced"
        out.append(("cruise-3.4.5-ground-truth", f"NMF: ground truth ({rd}) vs the ILP optimum", f"{100 * g:.2f}%",
                    "holds" if abs(g) <= CRUISE_CLOSE else "fails"))
        out.append(("cruise-3.4.5-ground-truth", f"word with this setup under '{rd}'", w, ""))
    # (3.5): the even split optimal on every cluster; (3.5) itself optimal on every cluster
    n = len([1 for x in rand.values() if "exact" in x])
    even = sum(1 for x in rand.values() if "exact" in x and "closed-form@exact" in x
               and x["closed-form@exact"] <= x["exact"] * (1 + 1e-9))
    cf = sum(1 for x in rand.values() if "exact" in x and "closed-form" in x
             and x["closed-form"] <= x["exact"] * (1 + 1e-9))
    oc = ["holds" if even == n else "fails", "holds" if cf == n else "fails"]
    rat = [x["closed-form"] / x["exact"] for x in rand.values() if "exact" in x and "closed-form" in x]
    out.append(("cruise-3.5-integer", f"(3.5) / the optimum ({cf}/{n} optimal; the even split optimal on {even}/{n})",
                f"{min(rat):.3g} to {max(rat):.3g}", oc[1]))
    out.append(("cruise-3.5-integer", "word", word(oc), ""))
    return out


# ---------------------------------------------------------------------------
# SJF-BCO (MobiHoc'22): Fig. 4's limited-GPU sentence and Fig. 6 (the drop in time; the three falling: context)
def check_rar(recs: list[dict]) -> list[tuple]:
    sweep: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in recs:
        if ok(r) and ":servers_sweep?" in str(r.get("source")):
            p, _ = params(r)
            sweep[p.get("num_servers", 20)][variant(r)].append(float(r["objective"]))
    out = []
    fac = {}
    for b in ("ff@sjf", "rand@sjf"):
        fac[b] = [mean(sweep[n][b]) / mean(sweep[n]["sjf-bco"]) for n in (10, 20)]
    lim = [fac[b][0] / fac[b][1] for b in fac]  # the factor on 10 servers over the factor on 20, per baseline
    oc = outcome_sign(lim)
    out.append(("rar-fig4", "SJF-BCO's factor over FF / RAND, 10 servers over 20 ("
                + "; ".join(f"{b.split('@')[0].upper()}: {x[0]:.2f}x on 10 / {x[1]:.2f}x on 20" for b, x in fac.items())
                + ")", f"{min(lim):.2f}x to {max(lim):.2f}x", oc))
    drop = {m: mean(sweep[10][m]) - mean(sweep[20][m]) for m in ("sjf-bco", "ff@sjf", "ls@sjf")}
    for m, v in drop.items():
        out.append(("rar-fig6", f"{m}: drop of the mean makespan from 10 to 20 servers", f"{v:.1f}", ""))
    # 'FF has the largest makespan reduction': against SJF-BCO it speaks of the method; against LS it compares
    # two baselines (context); the falling makespans are context too
    w = "reproduced" if drop["ff@sjf"] > drop["sjf-bco"] else "not reproduced"
    out.append(("rar-fig6", "word with this setup (FF's drop above SJF-BCO's; FF vs LS and the falls context)", w,
                ""))
    return out


# ---------------------------------------------------------------------------
# objectives recomputed from schedules with our own code
def recompute_hlas() -> list[tuple]:
    from dmlsched import solve
    from dmlsched.generate.hlas import generate

    inst = generate(num_jobs=100, num_gpus=160, num_groups=40, predictions="conservative", seed=0)
    out = []
    offs, acc = [], 0
    for j in inst.jobs:
        offs.append(acc)
        acc += j.rounds * j.tasks_per_round
    for m in ("hlas", "fifo", "sched-allo"):
        res = solve(inst, m)
        run = res.solution
        jct = []
        for n, j in enumerate(inst.jobs):
            end = 0.0
            for t in range(offs[n], offs[n] + j.rounds * j.tasks_per_round):
                g = inst.gpus[int(run.gpu[t])]
                end = max(end, float(run.start[t]) + j.train_time[g] + j.sync_time[g])
            jct.append(end - j.arrival)
        mine = statistics.fmean(jct)
        out.append(("recomputed", f"HLAS fig. 23 instance (100 jobs, seed 0): {m} average JCT from its schedule",
                    f"{mine:.4f} (solve: {res.objective:.4f})", "agree" if abs(mine - res.objective) <= 1e-6 * mine
                    else "DISAGREE"))
    # the contention-free bound by our own greedy split
    lb = 0.0
    for j in inst.jobs:
        heap = [(j.train_time[g] + j.sync_time[g], k, 1) for k, g in enumerate(inst.gpus)]
        heapq.heapify(heap)
        end = 0.0
        for _ in range(j.tasks_per_round):
            e, k, c = heapq.heappop(heap)
            end = max(end, e)
            g = inst.gpus[k]
            heapq.heappush(heap, ((c + 1) * j.train_time[g] + j.sync_time[g], k, c + 1))
        lb += j.rounds * end
    lb /= inst.num_jobs
    theirs = solve(inst, "lower-bound").objective
    out.append(("recomputed", "its contention-free bound (own greedy split)", f"{lb:.4f} (solve: {theirs:.4f})",
                "agree" if abs(lb - theirs) <= 1e-6 * lb else "DISAGREE"))
    return out


def recompute_hare() -> list[tuple]:
    from dmlsched import solve
    from dmlsched.generate.hare import testbed

    inst = testbed(seed=1, num_jobs=20, load=100.0)
    out = []
    for m in ("fifo", "allox", "homo"):
        res = solve(inst, m)
        s = res.solution
        comp = defaultdict(float)
        k = 0
        for n, j in enumerate(inst.jobs):
            for _ in range(j.rounds * j.tasks_per_round):
                g = inst.gpus[int(s.gpu[k])]
                comp[n] = max(comp[n], float(s.start[k]) + j.train_time[g] + j.sync_time[g])
                k += 1
        mine = sum(j.weight * comp[n] for n, j in enumerate(inst.jobs))
        out.append(("recomputed", f"Hare testbed (20 jobs, seed 1): {m} sum w C from its schedule",
                    f"{mine:.4f} (solve: {res.objective:.4f})",
                    "agree" if abs(mine - res.objective) <= 1e-6 * mine else "DISAGREE"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("report")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-rerun", action="store_true", help="skip the re-runs (records only)")
    a = ap.parse_args(argv)
    recs = load(a.results)
    report = Path(a.report).read_text()
    rows = []
    for fn in (check_hlas, check_hlas_fig12, check_hare_fig15, check_moldable, check_harmony, check_cruise, check_rar):
        try:
            rows += fn(recs)
        except (ValueError, KeyError, ZeroDivisionError, statistics.StatisticsError) as e:
            rows.append((fn.__name__[6:].replace("_", "-"), "not checked: no records", type(e).__name__, ""))
    if not a.no_rerun:
        rows += recompute_hlas() + recompute_hare()

    def section(key: str) -> str:
        i = report.find(f"### `{key}`")
        return report[i: report.find("\n### ", i + 1)] if i >= 0 else ""
    lines = ["# Independent check of a sample of REPRODUCTION.md", "",
             f"`benchmarks/reproduction_check.py {a.results} {a.report}`: the numbers below are recomputed from "
             "the raw records (and, for 'recomputed', from re-run schedules) by code written from the papers' "
             "text and the rule of issue 21 as revised after its review (REVIEW-21), without `dmlsched.claims` or "
             "the families' judges; 'in report' says whether the number (or word) appears in that claim's section "
             "of the report. Written by the engineer who changed the judges (no helper agent could be started): "
             "independent of the judges' code, not of their author.", "",
             "| claim | quantity | recomputed | outcome / agreement | in report |", "|---|---|---|---|---|"]
    bad = 0
    for key, what, val, oc in rows:
        if key == "recomputed":
            found = "-"
            bad += oc != "agree"
        elif what.startswith("not checked"):
            found = "-"
        else:
            sec = section(key)
            needle = val.split(" to ")[0] if " to " in val else val
            found = "yes" if needle in sec and (not oc or oc in sec) else "NO"
            bad += found == "NO"
        lines.append(f"| {key} | {what} | {val} | {oc or '-'} | {found} |")
    lines += ["", f"{len(rows)} checks, {bad} disagreement(s)."]
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
