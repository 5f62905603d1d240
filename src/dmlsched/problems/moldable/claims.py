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
* ``moldable-sec7a-2-competitive`` -- Section VII-A: "Edmonds [9] revealed that
  if all the tasks have a strictly sublinear speedup curve, then the
  Equipartition algorithm yields a 2-competitive schedule"; judged by
  ``check`` verdicts (optimum or bound from ``exact-cp``) on small instances in
  the setting of the quoted result and in the paper's own, and against the
  best lower bound and the best feasible schedule at the paper's scale.
"""

from __future__ import annotations

import math

from ...bench.suite import Source, Suite
from ...claims import Claim, Judgement, Reading, Row, Scale, record_ok, record_variant, signed_pct

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
    "first-fit", "Rigid FCFS scans the queue in arrival order and starts every task that fits (PBS Pro's "
    "behaviour without strict_ordering)",
    "Rigid FCFS: A first-come-first-serve algorithm that allocates p_k^max to each task k in Q in the arrival "
    "order.", "Section V-B", {"rigid-fcfs": {"queue": "first-fit"}}, default=True)
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
SEC6_METHODS = ["rigid-fcfs", "rigid-fcfs@strict", "rigid-fcfs@easy", "moldable-equi", "malleable-equi",
                "malleable-equi@current-first"]
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


def judge_sec6(records: list[dict], scale: Scale) -> Judgement:
    # setups[(cap, rho)][variant] = avg flow
    setups: dict[tuple[str, float], dict[str, float]] = {}
    gpus: dict[tuple[str, float], int] = {}
    for r in records:
        k = _key(r)
        if "load" not in k or not record_ok(r):
            continue
        af = _metric(r, "avg_flow")
        if af is None:
            continue
        key = (k.get("cap", "machine"), float(k["load"]))
        setups.setdefault(key, {})[record_variant(r)] = af
        gpus[key] = int((r.get("size") or {}).get("gpus", 0))
    if not setups:
        return Judgement("not run", [], ["no policy run in the records"])
    rows: list[Row] = []
    verdicts: dict[tuple[str, str], str] = {}
    for cap in ("machine", "cluster"):
        loads = sorted({rho for c, rho in setups if c == cap}, reverse=True)
        if not loads:
            continue
        for rigid in ("rigid-fcfs", "rigid-fcfs@strict", "rigid-fcfs@easy"):
            for mall in ("malleable-equi", "malleable-equi@current-first"):
                cells, light_ok, heavy_worse = [], [], []
                for rho in loads:
                    d = setups[(cap, rho)]
                    if rigid not in d or "moldable-equi" not in d or mall not in d:
                        continue
                    base = d[rigid]
                    mo, ma = d["moldable-equi"] / base - 1, d[mall] / base - 1
                    cells.append(f"rho {rho:g} ({gpus[(cap, rho)]} GPUs): moldable {signed_pct(mo)}, malleable {signed_pct(ma)}")
                    if rho <= LIGHT:
                        light_ok.append(mo < 0 and ma < 0)
                    else:
                        heavy_worse.append(mo > 0)
                if not cells:
                    continue
                v_light = ("reproduced" if light_ok and all(light_ok) else
                           "partially reproduced" if any(light_ok) else "not reproduced")
                verdicts[(cap, rigid + "|" + mall)] = v_light
                rq = rigid.split("@")[1] if "@" in rigid else "first-fit"
                mf = mall.split("@")[1] if "@" in mall else "lowest-index"
                note = ("moldable worse than rigid at every heavier load: "
                        + ("yes" if heavy_worse and all(heavy_worse) else
                           "no" if heavy_worse else "no heavier load run"))
                rows.append(Row(f"cap-{cap}, rigid {rq}, malleable {mf}",
                                "avg flow vs Rigid FCFS: " + "; ".join(cells), v_light, note))
    default = verdicts.get(("machine", "rigid-fcfs|malleable-equi"), "not run")
    held = sorted({f"cap-{c}/{v.replace('|', ' vs ')}" for (c, v), w in verdicts.items() if w == "reproduced"})
    failed = sorted({f"cap-{c}/{v.replace('|', ' vs ')}" for (c, v), w in verdicts.items() if w != "reproduced"})
    if default == "reproduced":
        verdict = "reproduced under the default readings (cap-machine, first-fit Rigid FCFS, lowest-index GPUs)"
        if failed:
            verdict += f"; not under {len(failed)} other reading combination(s): " + ", ".join(failed[:6])
    elif held:
        verdict = ("partially reproduced: holds under " + ", ".join(held[:6])
                   + f"; fails under the default readings ({default})")
    else:
        verdict = "not reproduced under any reading (" + default + " under the defaults)"
    caveats = [
        "The HPC2N trace (202,871 jobs, 240 CPUs) is not in the shared traces; the Lublin-Feitelson trace "
        "(10,000 jobs, 256 processors) stands in. Light load is defined by utilisation: offered load "
        f"rho = sum v / (|G| x span of arrivals) <= {LIGHT}. The paper calls |G| <= 240 modestly or heavily "
        "loaded and larger clusters lightly loaded, and says 'the simulated system saturates with 120 CPUs': rho "
        "is about 1 at 120 CPUs, 1/2 at 240 and 1/4 at 480, its first light size.",
        "Average flow time per task; a processor is a GPU, linear speedup, no preemption cost (Section VI).",
    ]
    if scale != "full":
        caveats.append("quick scale: the first 300 jobs at two loads only")
    return Judgement(verdict, rows, caveats,
                     measured=f"{len(setups)} setups; light = rho <= {LIGHT}")


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
        data.setdefault(ba, {}).setdefault(int(k["gpus"]), {}).setdefault(float(k["pmp"]), {})[record_variant(r)] = (af, mf)
    if not data:
        return Judgement("not run", [], ["no policy run in the records"])
    rows = []
    verdicts: dict[tuple[str, str], str] = {}
    for ba in [a for a in FIG5_ARRIVALS if a in data] + sorted(set(data) - set(FIG5_ARRIVALS)):
        for mall, label in (("malleable-equi", "lowest-index"), ("malleable-equi@current-first", "current-first")):
            light_ok, heavy_gone = [], []
            mine = []
            for g in sorted(data[ba]):
                per = data[ba][g]
                mold = next((per[p]["moldable-equi"] for p in sorted(per) if "moldable-equi" in per[p]), None)
                if mold is None:
                    continue
                cells = []
                for p in sorted(per):
                    if mall not in per[p]:
                        continue
                    a, m = per[p][mall]
                    cells.append(f"t_pmp {p:g}: max {signed_pct(m / mold[1] - 1)}, avg {signed_pct(a / mold[0] - 1)}")
                    if g >= 24:
                        light_ok.append(m < mold[1])
                    elif p > 0:
                        heavy_gone.append(a >= mold[0] and m >= mold[1] * 0.98)
                if cells:
                    mine.append(Row(f"arrivals {ba}, {label}, |G| = {g}",
                                    f"Malleable vs Moldable Equipartition (moldable: avg {_fmt(mold[0])} s, max "
                                    f"{_fmt(mold[1])} s): " + "; ".join(cells), "", "light" if g >= 24 else "heavy"))
            part_light = bool(light_ok) and all(light_ok)
            part_heavy = bool(heavy_gone) and all(heavy_gone)
            v = ("reproduced" if part_light and part_heavy else
                 "partially reproduced" if part_light or part_heavy else "not reproduced")
            verdicts[(ba, label)] = v
            for row in mine:
                row.verdict = v
                row.note += ("; light half holds" if part_light else "; light half fails") if row.note == "light" \
                    else ("; heavy half holds" if part_heavy else "; heavy half fails")
            rows.extend(mine)
    d = verdicts.get(("mixed", "lowest-index"), "not run")
    held = [f"{a}/{f}" for (a, f), v in verdicts.items() if v == "reproduced"]
    if d == "reproduced":
        verdict = "reproduced under the default readings (mixed arrivals, lowest-index GPUs)"
    elif held:
        verdict = f"reproduced under {', '.join(held)}; {d} under the default readings"
    else:
        part = [f"{a}/{f}" for (a, f), v in verdicts.items() if v == "partially reproduced"]
        # the paper's GPU trace is not public: a failure on a substitute workload is not a failure at
        # the paper's load, so it cannot make the claim "not reproduced"
        word = "inconclusive" if d == "not reproduced" else d
        verdict = (f"{word}: the paper's GPU trace is not public; on a substitute workload with its published "
                   f"statistics the claim is {d} under the default readings (mixed arrivals, lowest-index GPUs)"
                   + (f"; partially under {', '.join(part)}" if part else
                      ("; and under every other reading run" if d == "not reproduced" else "")))
    caveats = [
        "The paper's GPU trace is not public: generate.moldable.gpu_workload has its published statistics "
        "(77,677 tasks, 2,317 jobs, 14 users, six months, saturating 6 GPUs, (p_min, p_max) = (1/4, 4), p_req = 1) "
        "and an illustrative sublinear curve; 25% of the bags need 11 of 12 GB.",
        ("Full scale: one month at the paper's density and load (12,946 tasks) instead of six: the simulation of "
         "the whole 77,677 tasks takes about 4 min per malleable run on this machine.") if scale == "full"
        else "quick scale: 400 tasks, 6 and 24 GPUs, t_pmp 0 and 300, mixed arrivals",
        "Light: |G| >= 24 (malleable max flow below moldable at every t_pmp); heavy: |G| <= 12 (with t_pmp > 0 "
        "malleable no better than moldable in average flow and within 2% or worse in maximum flow).",
        "Overhead reading: every segment after a preemption (suspend/resume, shrink/expand, migration) starts with "
        "t_pmp seconds without progress; tasks with remaining volume <= 300 s are not preempted (Section V-B).",
    ]
    return Judgement(verdict, rows, caveats)


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


def suite_competitive_scale(scale: Scale) -> Suite:
    tasks, sizes = (None, FIG5_SIZES) if scale == "full" else (300, (6, 24))
    sources = []
    for g in sizes:
        params: dict = {"num_gpus": g}
        if tasks is not None:
            params["num_tasks"] = tasks
        sources.append(Source("generator", generator="dmlsched.generate.moldable:gpu_workload", params=params,
                              seeds=(0,), name=f"setting=paper-scale;gpus={g}"))
    return Suite(sources=sources, name=f"claim-moldable-competitive-scale-{scale}",
                 methods=["moldable-equi", "malleable-equi", "rigid-fcfs", "rigid-shortest", "moldable-prop"],
                 reference="preemptive-lb", time_limit=3600 if scale == "full" else 300)


def judge_competitive(records: list[dict], scale: Scale) -> Judgement:
    """Verdict counts per setting and policy; ratios against the optimum (or
    the bound over every schedule for malleable policies)."""
    by: dict[str, dict[str, list[dict]]] = {}
    for r in records:
        k = _key(r)
        s = k.get("setting")
        if s is None or r.get("kind") not in ("policy",):
            continue
        by.setdefault(s, {}).setdefault(record_variant(r), []).append(r)
    if not by:
        return Judgement("not run", [], ["no policy run in the records"])
    rows = []
    viol_equi = []
    for s in sorted(by):
        for m in ("moldable-equi", "malleable-equi"):
            rs = by[s].get(m, [])
            if not rs:
                continue
            counts = {v: sum(1 for r in rs if r.get("verdict") == v) for v in ("holds", "violated", "inconclusive")}
            ratios = [float(r["ratio_to_bound"]) for r in rs if r.get("ratio_to_bound") is not None]
            worst = max(ratios) if ratios else math.nan
            # at scale: the best other policy is a feasible schedule, so objective / best > 2 is a violation
            best_other = []
            for r in rs:
                inst = [x for x in records if x.get("instance_hash") == r.get("instance_hash") and record_ok(x)
                        and x.get("kind") == "policy"]
                if inst and record_ok(r):
                    best_other.append(float(r["objective"]) / min(float(x["objective"]) for x in inst))
            over = sum(1 for x in best_other if x > 2 * (1 + 1e-6))
            v = "violated" if counts["violated"] or over else ("holds" if counts["holds"] == len(rs) else
                                                               "inconclusive")
            if v == "violated":
                viol_equi.append(f"{m} ({s})")
            rows.append(Row(
                f"{m}, {s}",
                (f"{len(rs)} instance(s): holds {counts['holds']}, violated {counts['violated']}, inconclusive "
                 f"{counts['inconclusive']}; worst ratio to the bound {worst:.3g}"
                 + (f"; ratio to the best policy up to {max(best_other):.3g}" if best_other else "")),
                v, "reference: exact-cp (optimum; its bound over every schedule for malleable policies)"
                if not s.startswith("paper-scale") else "reference: preemptive-lb (bound over every schedule)"))
    held = [r.reading for r in rows if r.verdict == "holds"]
    if viol_equi and held:
        # the quoted result is a theorem about an idealised setting: it holds where this model comes
        # closest to it and fails where the paper's policies break its assumptions
        verdict = ("partially reproduced: the ratio stays within 2 for " + ", ".join(held) + "; it exceeds 2 for "
                   + ", ".join(viol_equi) + " (the quoted result assumes continuous equal shares, free "
                   "re-partitioning and batch arrivals: proofs/equipartition.md)")
    elif viol_equi:
        verdict = ("not reproduced as a guarantee for the paper's Equipartition: the ratio exceeds 2 for "
                   + ", ".join(viol_equi) + " and holds in no setting run; it holds only in Edmonds' idealised "
                   "setting (see proofs/equipartition.md)")
    else:
        verdict = "reproduced on these instances (no ratio above 2 found)"
    caveats = [
        "The quoted result needs assumptions the paper does not restate (continuous equal shares, free "
        "re-partitioning, batch arrivals or speed augmentation): proofs/equipartition.md. 'batch' instances are the "
        "closest this model allows (all at 0, linear speedup up to |G|, shares down to 1/4, free preemption); "
        "'online' adds arrivals; 'paper-small' is the paper's own setting at a size exact-cp proves.",
        "At the paper's scale only a lower bound is available: 'holds' there means objective / bound <= 2, "
        "'violated' would need objective > 2 x another policy's (a feasible schedule).",
    ]
    return Judgement(verdict, rows, caveats)


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
        readings=(R_CAP_MACHINE, R_CAP_CLUSTER, R_FIRST_FIT, R_STRICT, R_EASY, R_LOWEST, R_CURRENT),
        full_time="14 min on 2 shared cores (load 8-13)",
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
        full_time="21 min on 2 shared cores (load 8-13)",
    ),
    Claim(
        family="moldable", key="moldable-sec7a-2-competitive", paper=PAPER, where="Section VII-A",
        quote=EDMONDS_QUOTE,
        claimed="total flow time of Equipartition <= 2 x the offline optimum",
        setup=("10 seeds of 6 tasks on 4 GPUs in three settings (batch: all at 0, linear speedup, shares to 1/4, "
               "free preemption; online: the same with arrivals; paper-small: `paper_like` 4-6 tasks), reference "
               "exact-cp (proven optimum, and its bound over every schedule for malleable policies)"),
        suite=suite_competitive, judge=judge_competitive, readings=(),
        full_time="1.3 min on 2 shared cores",
    ),
    Claim(
        family="moldable", key="moldable-sec7a-2-competitive-scale", paper=PAPER, where="Section VII-A",
        quote=EDMONDS_QUOTE,
        claimed="total flow time of Equipartition <= 2 x the offline optimum",
        setup=("`generate.moldable:gpu_workload` at the paper's scale (77,677 tasks) on 6, 12, 24, 48 GPUs; "
               "reference preemptive-lb (a lower bound over every schedule); a policy more than 2 x another's "
               "objective would be a violation"),
        suite=suite_competitive_scale, judge=judge_competitive, readings=(),
        full_time="20 min on 2 shared cores (load 8-13)",
    ),
]

__all__ = ["CLAIMS", "judge_competitive", "judge_fig5", "judge_sec6", "suite_competitive",
           "suite_competitive_scale", "suite_fig5", "suite_sec6"]
