"""Fujiwara et al.'s claims (moldable/malleable scheduling of DL tasks), each
with its setup at the paper's scale, its readings and a judge (see
:mod:`dmlsched.claims`).

* ``moldable-sec6-light-load`` -- Section VI-A / Fig. 8: on a standard HPC
  workload, Moldable and Malleable Equipartition beat Rigid FCFS in average
  flow time when the system is lightly loaded, and the moldable schedules are
  worse when it is modestly or heavily loaded.  The HPC2N trace is not in the
  shared traces; the Lublin trace (10,000 jobs, 256 processors) stands in,
  whole, at offered loads 1, 1/2, 1/4, 1/8.
* ``moldable-fig5-overhead`` -- Section V-F / Fig. 5: with preemption
  overhead ``t_pmp`` in {0, 150, 300} s, Malleable Equipartition keeps its
  advantage in maximum flow time over Moldable Equipartition when lightly
  loaded (|G| >= 24) and loses it when heavily loaded (|G| <= 12).  The paper's
  GPU trace is not public: :func:`dmlsched.generate.moldable.gpu_workload`
  builds a workload with its published statistics at its scale (77,677 tasks).
* ``moldable-sec7a-edmonds`` -- Section VII-A: "Edmonds [9] revealed that
  if all the tasks have a strictly sublinear speedup curve, then the
  Equipartition algorithm yields a 2-competitive schedule": a cited theorem,
  one theory check (Malleable Equipartition on batch instances, against
  ``exact-cp``); the paper's Moldable Equipartition and online arrivals are
  context rows;
* ``moldable-abstract`` -- the abstract: moldable/malleable Equipartition
  shorten the average flow time by at least 15.1%/42.5% against Rigid FCFS
  (one GPU per task), on the substitute GPU workload at the paper's scale,
  with the ``preemptive-lb`` ceiling.

Every claim is judged by the evidence rule of :mod:`dmlsched.claims`: the
workloads stand in for traces we do not have (HPC2N, the paper's GPU trace),
so those claims are ``inconclusive`` whatever the sign.
"""

from __future__ import annotations

from ...claims import (
    Claim,
    Judgement,
    Part,
    PartResult,
    Point,
    Reading,
    ReadingVerdict,
    Row,
    Scale,
    Setup,
    bound_ok,
    fmt,
    judgement,
    record_ok,
    record_variant,
)
from ...suites import Source, Suite

PAPER = "Fujiwara et al. 2018 (moldable/malleable DL scheduling)"
#: offered load rho = sum v / (|G| span of arrivals) at or below which a cluster is "lightly loaded".
#: From the paper: "the simulated system saturates with 120 CPUs" (Section VI-A, HPC2N's 240 CPUs halved),
#: so rho is about 1 at 120 CPUs, 1/2 at 240 ("modestly or heavily loaded (#CPUs <= 240)") and 1/4 at 480,
#: the first size the paper calls lightly loaded.
LIGHT = 0.25

# ---------------------------------------------------------------------------
# readings (models/moldable.md lists them with their sentences)
R_CAP_MACHINE = Reading(
    "cap-machine", "moldable range (1, machine size): p_max = 256 for the Lublin trace at every simulated size",
    "We set (p_min, p_max) = (1, 240) for the moldable/malleable algorithms and (p_min, p_max) = (p_req, p_req) "
    "for the rigid algorithms.", "Section VI", {"generator": {"moldable_max": "machine"}}, default=True)
R_CAP_CLUSTER = Reading(
    "cap-cluster", "moldable range (1, |G|): a task may take the whole simulated cluster",
    "We set (p_min, p_max) = (1, 240) for the moldable/malleable algorithms", "Section VI (240 read as |G|)",
    {"generator": {"moldable_max": "cluster"}})
R_FIRST_FIT = Reading(
    "first-fit", "Rigid FCFS scans the queue in arrival order and starts every task that fits, as the paper's "
    "scheduler scans and allocates for the Equipartition policies",
    "Rigid FCFS: A first-come-first-serve algorithm that allocates p_k^max to each task k in Q in the arrival "
    "order.", "Section V-B (and IV-A: \"the scheduler scans the queued tasks in the arrival order and allocates "
    "available resources to each task\")", {"rigid-fcfs": {"queue": "first-fit"}}, default=True)
R_MOLDABLE_ONLY = Reading(
    "moldable-only", "'the moldable schedules' of Section VI-A's second sentence are Moldable Equipartition's",
    "the average per-task flow time of the moldable schedules become worse than that of the rigid schedule. The "
    "reason is that the tasks could not benefit from fractional allocations since we set p_k^min = 1.",
    "Section VI-A", {"judge": {"heavy_half": "moldable-equi"}}, default=True)
R_MOLDABLE_BOTH = Reading(
    "moldable-and-malleable", "'the moldable schedules' are both Equipartition schedules (the first sentence "
    "names moldability and malleability together)",
    "moldability and malleability improves the average flow time compared to the rigid schedules. However, when "
    "the system is modestly or heavily loaded (#CPUs <= 240), the average per-task flow time of the moldable "
    "schedules become worse", "Section VI-A", {"judge": {"heavy_half": "moldable-equi, malleable-equi"}})
R_STRICT = Reading(
    "strict", "strict FCFS: no task starts before an earlier one", "allocates p_k^max to each task k in Q in the "
    "arrival order", "Section V-B", {"rigid-fcfs": {"queue": "strict"}})
R_EASY = Reading(
    "easy", "EASY backfilling: later tasks start if they do not delay the first waiting task's reservation",
    "To deal with the GPUs in our cluster, we are currently using a conventional batch scheduler, namely PBS Pro.",
    "Section II (the batch scheduler the baseline stands for)", {"rigid-fcfs": {"queue": "easy"}})
R_LOWEST = Reading(
    "lowest-index", "a re-allocated malleable task gets the first-found (lowest-index) GPUs, like a queued one",
    "Unless stated in the context, \"allocate\" implies that a specified amount of processor is allocated to task "
    "k from the first-found GPU i that meets m_k^req <= m_i^avl.", "Section IV-A",
    {"malleable-equi": {"first_found": "lowest-index"}}, default=True)
R_CURRENT = Reading(
    "current-first", "a re-allocated malleable task searches its current GPUs first",
    "The algorithm is identical to that of the moldable setting, except that both queued and running tasks are "
    "considered.", "Section IV-A (malleable)", {"malleable-equi": {"first_found": "current-first"}})


def _key(r: dict) -> dict[str, str]:
    """The setup a record belongs to, from its source name ``"k1=v1;k2=v2(...)"``."""
    head = str(r.get("label") or "").split("(", 1)[0]
    out = {}
    for part in head.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _metric(r: dict, name: str) -> float | None:
    m = (r.get("details") or {}).get("metrics") or {}
    v = m.get(name)
    return float(v) if v is not None else None


def _fmt(x: float) -> str:
    return f"{x:,.0f}"


# ---------------------------------------------------------------------------
# Section VI-A: Equipartition vs Rigid FCFS on a standard workload
LB = "preemptive-lb"
SEC6_METHODS = ["rigid-fcfs", "rigid-fcfs@strict", "rigid-fcfs@easy", "moldable-equi", "malleable-equi",
                "malleable-equi@current-first", LB]
SEC6_OPTIONS = {
    "rigid-fcfs": {"queue": "first-fit"},
    "rigid-fcfs@strict": {"queue": "strict"},
    "rigid-fcfs@easy": {"queue": "easy"},
    "malleable-equi": {"first_found": "lowest-index"},
    "malleable-equi@current-first": {"first_found": "current-first"},
}


def _sec6_scale(scale: Scale) -> tuple[tuple[float, ...], int | None]:
    if scale == "full":
        return (1.0, 0.5, 0.25, 0.125), None  # the whole trace
    return (1.0, 0.25), 300


def suite_sec6(scale: Scale) -> Suite:
    loads, jobs = _sec6_scale(scale)
    sources = []
    for cap in ("machine", "cluster"):
        for rho in loads:
            params: dict = {"load": rho, "moldable_max": cap}
            if jobs is not None:
                params["num_jobs"] = jobs
            sources.append(Source("generator", generator="dmlsched.generate.moldable:swf", params=params,
                                  seeds=(0,), name=f"load={rho:g};cap={cap}"))
    return Suite(sources=sources, name=f"claim-moldable-sec6-{scale}", methods=list(SEC6_METHODS),
                 reference=None, time_limit=3600 if scale == "full" else 300, options=dict(SEC6_OPTIONS))


SEC6_PARTS = (
    Part("light", "Moldable and Malleable Equipartition below Rigid FCFS in average flow time at every light load "
         "(rho <= 1/4)", "always better", None, "factor", "every",
         source="When the system is lightly loaded, [...] moldability and malleability improves the average flow "
                "time compared to the rigid schedules."),
    Part("heavy", "Moldable Equipartition above Rigid FCFS in average flow time at every heavier load (rho >= 1/2, "
         "#CPUs <= 240)", "always better", None, "factor", "every",
         source="when the system is modestly or heavily loaded (#CPUs <= 240), the average per-task flow time of "
                "the moldable schedules become worse than that of the rigid schedule"),
)
SEC6_SETUP = Setup("Lublin trace", False, "the HPC2N trace is not in the shared traces; the Lublin-Feitelson trace "
                   "stands in")
#: readings judged: name -> (cap, rigid variant, malleable variant, heavy half includes malleable)
SEC6_READINGS = {
    "default": ("machine", "rigid-fcfs", "malleable-equi", False),
    "cap-cluster": ("cluster", "rigid-fcfs", "malleable-equi", False),
    "strict FCFS": ("machine", "rigid-fcfs@strict", "malleable-equi", False),
    "EASY backfilling": ("machine", "rigid-fcfs@easy", "malleable-equi", False),
    "current-first": ("machine", "rigid-fcfs", "malleable-equi@current-first", False),
    "moldable schedules include malleable": ("machine", "rigid-fcfs", "malleable-equi", True),
}


def judge_sec6(records: list[dict], scale: Scale) -> Judgement:
    # setups[(cap, rho)][variant] = total flow (the lower bound's objective for preemptive-lb)
    setups: dict[tuple[str, float], dict[str, float]] = {}
    gpus: dict[tuple[str, float], int] = {}
    for r in records:
        k = _key(r)
        if "load" not in k:
            continue
        v = record_variant(r)
        ok = bound_ok(r) if v == LB else record_ok(r)
        if not ok:
            continue
        key = (k.get("cap", "machine"), float(k["load"]))
        setups.setdefault(key, {})[v] = float(r["objective"])
        gpus[key] = int((r.get("size") or {}).get("gpus", 0))
    if not setups:
        return Judgement("not run", [], ["no policy run in the records"])
    verdicts: list[ReadingVerdict] = []
    rows: list[Row] = []
    for name, (cap, rigid, mall, both) in SEC6_READINGS.items():
        loads = sorted({rho for c, rho in setups if c == cap}, reverse=True)
        light, heavy = [], []
        for rho in loads:
            d = setups[(cap, rho)]
            if rigid not in d or "moldable-equi" not in d or mall not in d:
                continue
            lab = f"rho {rho:g} ({gpus[(cap, rho)]} GPUs)"
            ceil = d[rigid] / d[LB] if d.get(LB) else None
            if rho <= LIGHT:
                light += [Point(f"moldable @ {lab}", d[rigid] / d["moldable-equi"], ceil),
                          Point(f"malleable @ {lab}", d[rigid] / d[mall], ceil)]
            else:
                heavy.append(Point(f"rigid vs moldable @ {lab}", d["moldable-equi"] / d[rigid],
                                   d["moldable-equi"] / d[LB] if d.get(LB) else None))
                if both:
                    heavy.append(Point(f"rigid vs malleable @ {lab}", d[mall] / d[rigid],
                                       d[mall] / d[LB] if d.get(LB) else None))
        if not light and not heavy:
            continue
        prs = [PartResult(SEC6_PARTS[0], light), PartResult(SEC6_PARTS[1], heavy)]
        verdicts.append(ReadingVerdict(name, prs, SEC6_SETUP.published, SEC6_SETUP.why, default=name == "default"))
        rows += [Row(f"{name}: {pr.part.key}", "; ".join(f"{p.label} {p.ours:.2f}x" for p in pr.points),
                     pr.outcome, pr.reason) for pr in prs]
    if not verdicts or not verdicts[0].default:
        return Judgement("not run", rows, ["no run of the default readings"])
    d = verdicts[0].parts
    caveats = [
        "The HPC2N trace (202,871 jobs, 240 CPUs) is not in the shared traces; the Lublin-Feitelson trace "
        "(10,000 jobs, 256 processors) stands in. Light load is defined by utilisation: offered load "
        f"rho = sum v / (|G| x span of arrivals) <= {LIGHT}. The paper calls |G| <= 240 modestly or heavily "
        "loaded and larger clusters lightly loaded, and says 'the simulated system saturates with 120 CPUs': rho "
        "is about 1 at 120 CPUs, 1/2 at 240 and 1/4 at 480, its first light size.",
        "Average flow time per task; a processor is a GPU, linear speedup, no preemption cost (Section VI). "
        "Factors are ratios of total flow times (equal to those of average flow times). Ceiling: W / LB, LB the "
        "preemptive-lb bound over every schedule.",
        "Both halves are judged under every reading (the light half alone decided the word before).",
        "Rigid FCFS scans in arrival order and starts every task that fits (first-fit): Section V-B's 'allocates "
        "p_k^max to each task k in Q in the arrival order' uses the words of Section IV-A's scheduler, which 'scans "
        "the queued tasks in the arrival order and allocates available resources to each task'; strict FCFS and "
        "EASY backfilling are readings beside it.",
    ]
    if scale != "full":
        caveats.append("quick scale: the first 300 jobs at two loads only")
    return judgement(verdicts, ours=f"light {d[0].ours_text()}; heavy {d[1].ours_text()}",
                     ceiling=f"light {fmt(d[0].ceiling_value(), 'factor')}", caveat="Lublin trace for HPC2N",
                     rows=rows, caveats=caveats)


# ---------------------------------------------------------------------------
# Section V-F / Fig. 5: preemption overhead
FIG5_SIZES = (6, 12, 24, 48)
FIG5_OVERHEADS = (0.0, 150.0, 300.0)
FIG5_ARRIVALS = ("mixed", "burst", "chain")
FIG5_METHODS = ["moldable-equi", "malleable-equi", "malleable-equi@current-first"]
#: full scale: one month of the paper's workload at its density and load (the
#: simulation of 77,677 tasks takes about 4 min per malleable run here)
FIG5_FULL_TASKS = 12_946
#: the sentence the three readings of a bag's arrivals come from
JOB_QUOTE = ("A job consists of tasks that start during or within one minute after finishing the execution of "
             "another task of the same user.")
R_BURST = Reading(
    "burst", "a bag's tasks are submitted within minutes and run during each other",
    JOB_QUOTE, "Section III-C", {"generator": {"bag_arrivals": "burst"}})
R_CHAIN = Reading(
    "chain", "a bag's tasks are submitted one after the other, each within a minute of the previous one's end",
    JOB_QUOTE, "Section III-C", {"generator": {"bag_arrivals": "chain"}})
R_MIXED = Reading(
    "mixed", "each bag is a burst or a chain with equal odds",
    JOB_QUOTE, "Section III-C", {"generator": {"bag_arrivals": "mixed"}}, default=True)


def suite_fig5(scale: Scale) -> Suite:
    if scale == "full":
        tasks, sizes, overheads, arrivals = FIG5_FULL_TASKS, FIG5_SIZES, FIG5_OVERHEADS, FIG5_ARRIVALS
    else:
        tasks, sizes, overheads, arrivals = 400, (6, 24), (0.0, 300.0), ("mixed",)
    sources = []
    for ba in arrivals:
        for g in sizes:
            for tp in overheads:
                params: dict = {"num_gpus": g, "preemption_overhead": tp, "num_tasks": tasks, "bag_arrivals": ba}
                sources.append(Source("generator", generator="dmlsched.generate.moldable:gpu_workload",
                                      params=params, seeds=(0,), name=f"arrivals={ba};gpus={g};pmp={tp:g}"))
    return Suite(sources=sources, name=f"claim-moldable-fig5-{scale}", methods=list(FIG5_METHODS),
                 reference=None, time_limit=3600 if scale == "full" else 300,
                 options={"malleable-equi": {"first_found": "lowest-index"},
                          "malleable-equi@current-first": {"first_found": "current-first"}})


FIG5_PARTS = (
    Part("light", "Malleable below Moldable Equipartition in maximum flow time at |G| >= 24, every t_pmp",
         "always better", None, "factor", "every",
         source="As far as the system is lightly loaded (|G| >= 24), the merit of the malleable algorithm is "
                "preserved in terms of maximum flow time."),
    Part("heavy", "Malleable no better than Moldable Equipartition in maximum flow time at |G| <= 12, t_pmp > 0",
         "always better", None, "factor", "every", strict=False,
         source="when the system is heavily loaded (|G| <= 12), the task suffer from frequent preemptions and the "
                "benefit of malleability disappears"),
)
GPU_SETUP = Setup("GPU workload model", False, "the paper's GPU trace is not public; a workload with its published "
                  "statistics stands in")
#: readings judged: name -> (arrivals, malleable variant)
FIG5_READINGS = {"default": ("mixed", "malleable-equi"), "burst bags": ("burst", "malleable-equi"),
                 "chain bags": ("chain", "malleable-equi"), "current-first": ("mixed", "malleable-equi@current-first")}


def judge_fig5(records: list[dict], scale: Scale) -> Judgement:
    # data[arrivals][g][pmp][variant] = (avg, max)
    data: dict[str, dict[int, dict[float, dict[str, tuple[float, float]]]]] = {}
    for r in records:
        k = _key(r)
        if "gpus" not in k or "pmp" not in k or not record_ok(r):
            continue
        af, mf = _metric(r, "avg_flow"), _metric(r, "max_flow")
        if af is None or mf is None:
            continue
        ba = k.get("arrivals", "mixed")
        cell = data.setdefault(ba, {}).setdefault(int(k["gpus"]), {}).setdefault(float(k["pmp"]), {})
        cell[record_variant(r)] = (af, mf)
    if not data:
        return Judgement("not run", [], ["no policy run in the records"])
    verdicts: list[ReadingVerdict] = []
    rows: list[Row] = []
    for name, (ba, mall) in FIG5_READINGS.items():
        light, heavy = [], []
        for g in sorted(data.get(ba, {})):
            per = data[ba][g]
            mold = next((per[p]["moldable-equi"] for p in sorted(per) if "moldable-equi" in per[p]), None)
            if mold is None:
                continue
            for p in sorted(per):
                if mall not in per[p]:
                    continue
                mx = per[p][mall][1]
                lab = f"|G| {g}, t_pmp {p:g}"
                if g >= 24:
                    light.append(Point(lab, mold[1] / mx))
                elif p > 0:
                    heavy.append(Point(lab, mx / mold[1]))
        if not light and not heavy:
            continue
        prs = [PartResult(FIG5_PARTS[0], light), PartResult(FIG5_PARTS[1], heavy)]
        verdicts.append(ReadingVerdict(name, prs, GPU_SETUP.published, GPU_SETUP.why, default=name == "default"))
        rows += [Row(f"{name}: {pr.part.key}", "; ".join(f"{p.label}: {p.ours:.2f}x" for p in pr.points),
                     pr.outcome, pr.reason) for pr in prs]
    if not verdicts or not verdicts[0].default:
        return Judgement("not run", rows, ["no run of the default readings"])
    d = verdicts[0].parts
    caveats = [
        "The paper's GPU trace is not public: generate.moldable.gpu_workload has its published statistics "
        "(77,677 tasks, 2,317 jobs, 14 users, six months, saturating 6 GPUs, (p_min, p_max) = (1/4, 4), p_req = 1) "
        "and an illustrative sublinear curve; 25% of the bags need 11 of 12 GB.",
        ("Full scale: one month at the paper's density and load (12,946 tasks) instead of six: the simulation of "
         "the whole 77,677 tasks takes about 4 min per malleable run on this machine.") if scale == "full"
        else "quick scale: 400 tasks, 6 and 24 GPUs, t_pmp 0 and 300, mixed arrivals",
        "Factors: Moldable's maximum flow / Malleable's (light half, > 1: malleable better) and Malleable's / "
        "Moldable's (heavy half, >= 1: the benefit gone). No proven bound on the maximum flow time is computed: "
        "no ceiling.",
        "Overhead reading: every segment after a preemption (suspend/resume, shrink/expand, migration) starts with "
        "t_pmp seconds without progress; tasks with remaining volume <= 300 s are not preempted (Section V-B).",
    ]
    return judgement(verdicts, ours=f"light {d[0].ours_text()}; heavy {d[1].ours_text()}", ceiling="- (max flow)",
                     caveat="substitute GPU workload (the paper's trace is not public)", rows=rows, caveats=caveats)


# ---------------------------------------------------------------------------
# Abstract: "shortened by at least 15.1%/42.5%"
ABS_PARTS = (
    Part("moldable", "Moldable Equipartition vs Rigid FCFS (one GPU per task), average flow time, at every |G|",
         "at least", 0.151, "reduction", "every",
         source="the average flow time of moldable/malleable DL tasks is shortened by at least 15.1%/42.5%"),
    Part("malleable", "Malleable Equipartition vs Rigid FCFS, average flow time, at every |G|", "at least", 0.425,
         "reduction", "every",
         source="the average flow time of moldable/malleable DL tasks is shortened by at least 15.1%/42.5%"),
    Part("moldable-6", "Moldable Equipartition vs Rigid FCFS at |G| = 6 (fully loaded), average flow time", "about",
         0.967, "reduction", "every",
         source="moldability and malleability improve the average flow time up to 96.7% and 97.2% over the rigid "
                "schedule, respectively, when the system is fully loaded (|G| = 6)"),
    Part("malleable-6", "Malleable Equipartition vs Rigid FCFS at |G| = 6 (fully loaded), average flow time",
         "about", 0.972, "reduction", "every",
         source="moldability and malleability improve the average flow time up to 96.7% and 97.2% over the rigid "
                "schedule, respectively, when the system is fully loaded (|G| = 6)"),
)


def suite_abstract(scale: Scale) -> Suite:
    tasks, sizes = (None, FIG5_SIZES) if scale == "full" else (300, (6, 24))
    sources = []
    for g in sizes:
        params: dict = {"num_gpus": g}
        if tasks is not None:
            params["num_tasks"] = tasks
        sources.append(Source("generator", generator="dmlsched.generate.moldable:gpu_workload", params=params,
                              seeds=(0,), name=f"setting=paper-scale;gpus={g}"))
    return Suite(sources=sources, name=f"claim-moldable-abstract-{scale}",
                 methods=["rigid-fcfs", "moldable-equi", "malleable-equi", LB], reference=None,
                 time_limit=3600 if scale == "full" else 300)


def judge_abstract(records: list[dict], scale: Scale) -> Judgement:
    per: dict[int, dict[str, float]] = {}
    for r in records:
        k = _key(r)
        v = record_variant(r)
        if "gpus" not in k or "pmp" in k or not (bound_ok(r) if v == LB else record_ok(r)):
            continue
        per.setdefault(int(k["gpus"]), {})[v] = float(r["objective"])
    pts: dict[str, list[Point]] = {"moldable-equi": [], "malleable-equi": []}
    for g in sorted(per):
        d = per[g]
        if "rigid-fcfs" not in d:
            continue
        ceil = 1.0 - d[LB] / d["rigid-fcfs"] if d.get(LB) else None
        for m in pts:
            if m in d:
                pts[m].append(Point(f"|G| {g}", 1.0 - d[m] / d["rigid-fcfs"], ceil))
    if not any(pts.values()):
        return Judgement("not run", [], ["no run in the records"])
    prs = [PartResult(ABS_PARTS[0], pts["moldable-equi"]), PartResult(ABS_PARTS[1], pts["malleable-equi"]),
           PartResult(ABS_PARTS[2], [p for p in pts["moldable-equi"] if p.label == "|G| 6"]),
           PartResult(ABS_PARTS[3], [p for p in pts["malleable-equi"] if p.label == "|G| 6"])]
    v = ReadingVerdict("default", prs, GPU_SETUP.published, GPU_SETUP.why, default=True)
    rows = [Row(pr.part.what, "; ".join(f"{p.label} {fmt(p.ours, 'reduction')} (ceiling {fmt(p.ceiling, 'reduction')})"
                                        for p in pr.points), pr.outcome, pr.reason) for pr in prs]
    return judgement([v], ours=f"moldable {prs[0].ours_text()}; malleable {prs[1].ours_text()}",
                     ceiling=fmt(min(c for c in (prs[0].ceiling_value(), 1.0) if c is not None), "reduction"),
                     caveat="substitute GPU workload (the paper's trace is not public)", rows=rows,
                     caveats=["generate.moldable.gpu_workload at the paper's scale (77,677 tasks) on 6, 12, 24, 48 "
                              "GPUs (the sizes of Figs. 4-5 from |G| = 6, where the paper's system saturates); "
                              "Rigid FCFS gives each task one GPU (p_req = 1), t_pmp = 0 (Sections V-D, V-E).",
                              "Section V-D's 'up to 96.7% and 97.2% [...] when the system is fully loaded (|G| = 6)' "
                              "is judged at |G| = 6 beside the abstract's 'at least' over every |G|.",
                              "Ceiling: 1 - LB / W(Rigid FCFS), LB the preemptive-lb bound over every schedule."])


# ---------------------------------------------------------------------------
# Section VII-A: "Equipartition ... yields a 2-competitive schedule"
COMP_METHODS = ["moldable-equi", "malleable-equi", "rigid-fcfs", "moldable-prop", "malleable-prop"]


def suite_competitive(scale: Scale) -> Suite:
    seeds = tuple(range(10)) if scale == "full" else (0,)
    n = 6 if scale == "full" else 4
    sources = [
        Source("generator", generator="dmlsched.generate.moldable:batch",
               params={"num_gpus": 4, "num_tasks": n, "arrivals": "batch"}, seeds=seeds, name="setting=batch"),
        Source("generator", generator="dmlsched.generate.moldable:batch",
               params={"num_gpus": 4, "num_tasks": n, "arrivals": "online"}, seeds=seeds, name="setting=online"),
        Source("generator", generator="dmlsched.generate.moldable:paper_like",
               params={"num_gpus": 4, "num_users": 2, "num_bags": 2, "tasks_per_bag": [2, 3]}, seeds=seeds,
               name="setting=paper-small"),
    ]
    return Suite(sources=sources, name=f"claim-moldable-competitive-{scale}", methods=list(COMP_METHODS),
                 reference="exact-cp", time_limit=60)


EDMONDS_PART = Part(
    "2-competitive", "Malleable Equipartition's total flow time / the offline optimum, every batch instance",
    "bound", 2.0, "value", "every", tolerance=0.0,
    source="the Equipartition algorithm yields a 2-competitive schedule")
EDMONDS_SETUP = Setup("the theorem's setting", True, "a cited theorem, checked in its setting: batch arrivals, free "
                      "re-partitioning (malleable), shares down to 1/4 of a GPU")


def judge_competitive(records: list[dict], scale: Scale) -> Judgement:
    """The quoted theorem on every batch instance for Malleable Equipartition (the closest to
    Edmonds' EQUI); the other settings and Moldable Equipartition as context rows."""
    by: dict[str, dict[str, list[dict]]] = {}
    for r in records:
        s = _key(r).get("setting")
        if s is None or r.get("kind") != "policy":
            continue
        by.setdefault(s, {}).setdefault(record_variant(r), []).append(r)
    if not by:
        return Judgement("not run", [], ["no policy run in the records"])
    rows = []
    pts = []
    for s in sorted(by):
        for m in ("moldable-equi", "malleable-equi"):
            rs = by[s].get(m, [])
            if not rs:
                continue
            counts = {v: sum(1 for r in rs if r.get("verdict") == v) for v in ("holds", "violated", "inconclusive")}
            ratios = [float(r["ratio_to_bound"]) for r in rs if r.get("ratio_to_bound") is not None]
            rows.append(Row(f"{m}, {s}", f"{len(rs)} instance(s): holds {counts['holds']}, violated "
                                         f"{counts['violated']}, inconclusive {counts['inconclusive']}; worst ratio "
                                         f"to the bound {max(ratios) if ratios else float('nan'):.3g}",
                            "" if (m, s) != ("malleable-equi", "batch") else "the check",
                            "reference: exact-cp (optimum; its bound over every schedule for malleable policies)"))
            if (m, s) == ("malleable-equi", "batch"):
                for r in rs:
                    x = r.get("ratio_to_bound")
                    # a ratio to a bound over every schedule above 2 decides nothing; it is "violated" only
                    # when the check proves it (verdict "violated")
                    if x is not None and (float(x) <= 2.0 or r.get("verdict") == "violated"):
                        pts.append(Point(str(r.get("instance_name") or r.get("instance_hash", ""))[:24], float(x)))
    pr = PartResult(EDMONDS_PART, pts)
    v = ReadingVerdict("default", [pr], EDMONDS_SETUP.published, EDMONDS_SETUP.why, default=True)
    worst = max((p.ours for p in pts), default=float("nan"))
    return judgement([v], ours=f"worst ratio {worst:.3g} on {len(pts)} instances", ceiling="-",
                     caveat="a cited theorem (Edmonds), not an evaluation of the paper", rows=rows, caveats=[
                         "A theory check, not an evaluation claim: the paper cites Edmonds' result as its reason for "
                         "Equipartition. The result assumes continuous equal shares, free re-partitioning and batch "
                         "arrivals (proofs/equipartition.md); Malleable Equipartition on batch instances is the "
                         "closest this model allows and is the check. The quote says 'strictly sublinear'; the "
                         "check's tasks have linear speedup, the boundary case, which is the setting of the batch "
                         "result the sentence compresses (ratio 2 - 2/(n+1), linear up to a task's parallelism; "
                         "proofs/equipartition.md): not a strictly sublinear curve. "
                         "Moldable Equipartition (no re-partitioning) "
                         "and online arrivals are outside the theorem: context rows only.",
                         "A ratio counts when the optimum is proven (exact-cp) or when the ratio to the bound over "
                         "every schedule is at most 2 (then the ratio to the optimum is too)."])


#: the sentence of both 2-competitiveness claims (batch/online scale and the paper's scale)
EDMONDS_QUOTE = ("In terms of average flow time, Edmonds [9] revealed that if all the tasks have a strictly "
                 "sublinear speedup curve, then the Equipartition algorithm yields a 2-competitive schedule.")

CLAIMS = [
    Claim(
        family="moldable", key="moldable-sec6-light-load", paper=PAPER, where="Section VI-A, Fig. 8",
        quote=("When the system is lightly loaded, we reach the same conclusion as before: moldability and "
               "malleability improves the average flow time compared to the rigid schedules. However, when the "
               "system is modestly or heavily loaded (#CPUs <= 240), the average per-task flow time of the moldable "
               "schedules become worse than that of the rigid schedule."),
        claimed="Moldable and Malleable Equipartition below Rigid FCFS in average flow time at light load; "
                "moldable above it at |G| <= 240 (no numbers given)",
        setup=("Lublin SWF trace, all 10,000 jobs (`generate.moldable:swf`), cluster sized for offered load "
               "1, 1/2, 1/4, 1/8; one instance per size serves every policy (rigid: p_req dedicated GPUs; "
               "moldable range (1, cap)); policies rigid-fcfs (first-fit, strict, easy), moldable-equi, "
               "malleable-equi (lowest-index, current-first)"),
        suite=suite_sec6, judge=judge_sec6,
        readings=(R_CAP_MACHINE, R_CAP_CLUSTER, R_FIRST_FIT, R_STRICT, R_EASY, R_LOWEST, R_CURRENT, R_MOLDABLE_ONLY,
                  R_MOLDABLE_BOTH),
        full_time="14 min on 2 shared cores (load 8-13)", parts=SEC6_PARTS, setups=(SEC6_SETUP,),
        default_reason=("(p_min, p_max) = (1, 240) is the trace's machine size; Rigid FCFS scans in arrival order "
                        "and allocates to each task that fits, in the words of IV-A's scheduler; a re-allocated task "
                        "takes the first-found GPUs (IV-A); 'the moldable schedules' are Moldable Equipartition's "
                        "(VI-A's reason: 'fractional allocations')"),
        ceiling=(LB, "objective", "objective"),
    ),
    Claim(
        family="moldable", key="moldable-fig5-overhead", paper=PAPER, where="Section V-F, Fig. 5",
        quote=("As far as the system is lightly loaded (|G| >= 24), the merit of the malleable algorithm is "
               "preserved in terms of maximum flow time. However, when the system is heavily loaded (|G| <= 12), "
               "the task suffer from frequent preemptions and the benefit of malleability disappears."),
        claimed="with t_pmp in {0, 150, 300} s: Malleable below Moldable Equipartition in maximum flow time at "
                "|G| >= 24; no benefit at |G| <= 12",
        setup=("`generate.moldable:gpu_workload`, one month at the paper's density and load (12,946 tasks), bag "
               "arrivals mixed / burst / chain, on 6, 12, 24, 48 GPUs with t_pmp 0, 150, 300 s; moldable-equi and "
               "malleable-equi (lowest-index, current-first)"),
        suite=suite_fig5, judge=judge_fig5, readings=(R_MIXED, R_BURST, R_CHAIN, R_LOWEST, R_CURRENT),
        full_time="21 min on 2 shared cores (load 8-13)", parts=FIG5_PARTS, setups=(GPU_SETUP,),
        default_reason=("the job sentence of Section III-C admits bursts and chains alike, so half of each; a "
                        "re-allocated task takes the first-found GPUs (Section IV-A)"),
    ),
    Claim(
        family="moldable", key="moldable-sec7a-edmonds", paper=PAPER, where="Section VII-A (a cited theorem)",
        quote=EDMONDS_QUOTE,
        claimed="total flow time of Equipartition <= 2 x the offline optimum",
        setup=("10 seeds of 6 tasks on 4 GPUs in three settings (batch: all at 0, linear speedup, shares to 1/4, "
               "free preemption; online: the same with arrivals; paper-small: `paper_like` 4-6 tasks), reference "
               "exact-cp (proven optimum, and its bound over every schedule for malleable policies)"),
        suite=suite_competitive, judge=judge_competitive, readings=(), role="theory",
        full_time="1.3 min on 2 shared cores", parts=(EDMONDS_PART,), setups=(EDMONDS_SETUP,),
        default_reason="the theorem's own setting", ceiling=None,
    ),
    Claim(
        family="moldable", key="moldable-abstract", paper=PAPER, where="Abstract (Sections V-D, Fig. 4)",
        quote=("Simulations using our real workload trace show that if the scheduler can allocate 1-4 GPUs to a "
               "task or assign 1-4 tasks to a GPU, then the average flow time of moldable/malleable DL tasks is "
               "shortened by at least 15.1%/42.5%, respectively, compared to a Rigid FCFS schedule in which one GPU "
               "is allocated to each task."),
        claimed="at least 15.1% (moldable) / 42.5% (malleable) shorter average flow time than Rigid FCFS; up to "
                "96.7% / 97.2% at |G| = 6",
        setup=("`generate.moldable:gpu_workload` at the paper's scale (77,677 tasks) on 6, 12, 24, 48 GPUs; "
               "rigid-fcfs, moldable-equi, malleable-equi and the preemptive-lb bound"),
        suite=suite_abstract, judge=judge_abstract, readings=(), full_time="about 25 min on 2 shared cores",
        parts=ABS_PARTS, setups=(GPU_SETUP,), default_reason="one reading: the paper's own policies and workload "
        "model", ceiling=(LB, "objective", "objective"),
    ),
]

__all__ = ["CLAIMS", "judge_abstract", "judge_competitive", "judge_fig5", "judge_sec6", "suite_abstract",
           "suite_competitive", "suite_fig5", "suite_sec6"]
