"""The dissertation's Harmony claims (Lee 2020, Chapter 4), each with its setup at the
paper's scale (80 jobs on 100 machines), its readings and a judge (see
:mod:`dmlsched.claims`).

* ``harmony-fig-4.17`` -- Section 4.4.7 / Fig. 4.17: Harmony is "slightly worse
  by up to around 2%" than the Oracle in resource utilisation, average JCT and
  makespan; both run in the execution model (``execution.py``);
* ``harmony-4.4.3-utilisation`` -- Section 4.4.3: 93.2% CPU and 83.1% network
  utilisation on average, 27.2 concurrent jobs in 6.7 groups;
* ``harmony-fig-4.18`` -- Section 4.4.7 / Fig. 4.18: 8K jobs on 10K machines
  scheduled within 5 seconds.
"""

from __future__ import annotations

import statistics

from ...bench.suite import Source, Suite
from ...claims import Claim, Judgement, Reading, Row, Scale
from ...claims import record_ok as _ok
from ...claims import record_variant as _variant
from ...claims import records_by_instance as _by_instance

PAPER = "Harmony (Lee, dissertation 2020, ch. 4)"
#: "slightly worse by up to around 2%": what we accept as "around 2%"
AROUND_2 = 0.025

L6_QUOTE = "n_G* <- argmin sum_{j in J_to_group} |T_cpu_j(n_G) - T_net_j|"
READINGS = (
    Reading("aggregate", "L6 balances the group's summed CPU and network time: argmin |sum_j (T_cpu_j(n_G) - T_net_j)|",
            "Harmony first determines the number of groups n_G*, which determines the DoP that balances the CPU "
            "and network usage of the jobs the most", "Section 4.3.2, Algorithm 1 L6",
            {"harmony": {"group_rule": "aggregate"}}, default=True),
    Reading("per-job", "L6 as printed: argmin sum_j |T_cpu_j(n_G) - T_net_j|", L6_QUOTE, "Algorithm 1, L6",
            {"harmony": {"group_rule": "per-job"}}),
    Reading("first-stop", "Algorithm 1's loop stops at the first number of jobs that does not improve U",
            "Once it sees no more improvement with the increasing set of jobs, Harmony stops and runs the jobs "
            "with the optimized set of job groups (L12-14).", "Section 4.3.2, Algorithm 1 L10-13",
            {"harmony": {"admission": "first-stop"}}),
    Reading("best-prefix", "Algorithm 1's loop tries every number of jobs and keeps the best U",
            "While incrementing the number of jobs to consider, starting from a single job, Harmony tries to find "
            "the set of job groups G with better resource utilization", "Section 4.3.2",
            {"harmony": {"admission": "best-prefix"}}),
)
#: variant label -> (what it is, reading names)
VARIANTS = {
    "harmony": "aggregate L6, every job admitted (default)",
    "harmony@per-job": "printed L6 (per-job)",
    "harmony@first-stop": "aggregate L6, first-stop admission",
    "harmony@best-prefix": "aggregate L6, best-prefix admission",
}
VARIANT_OPTIONS = {
    "harmony": {"simulate": True},
    "harmony@per-job": {"group_rule": "per-job"},
    "harmony@first-stop": {"admission": "first-stop"},
    "harmony@best-prefix": {"admission": "best-prefix"},
}


def _pct(x: float) -> str:
    return f"{100 * x:+.2f}%"


def _scale_params(scale: Scale) -> tuple[dict, tuple[int, ...]]:
    if scale == "full":
        return {"num_jobs": 80, "num_machines": 100}, tuple(range(10))
    return {"num_jobs": 20, "num_machines": 25}, (0, 1)


# ---------------------------------------------------------------------------
# Fig. 4.17
def _suite_fig_4_17(scale: Scale) -> Suite:
    params, seeds = _scale_params(scale)
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.harmony:evaluation_workload",
                        params=params, seeds=seeds, name="evaluation-workload")],
        name=f"claim-harmony-fig-4.17-{scale}",
        methods=list(VARIANTS), reference="oracle", time_limit=1800 if scale == "full" else 120,
        options={**VARIANT_OPTIONS, "oracle": {"simulate": True}},
    )


def _run_metrics(r: dict) -> tuple[float, float, float] | None:
    d = r.get("details") or {}
    if not _ok(r) or d.get("run_utilisation") is None:
        return None
    return float(d["run_utilisation"]), float(d["avg_jct"]), float(d["makespan"])


def judge_fig_4_17(records: list[dict], scale: Scale) -> Judgement:
    gaps: dict[str, dict[str, list[float]]] = {v: {"u": [], "jct": [], "makespan": [], "static": []} for v in VARIANTS}
    seeds = 0
    for inst in _by_instance(records).values():
        o = inst.get("oracle")
        om = _run_metrics(o) if o else None
        if om is None:
            continue
        seeds += 1
        for v in VARIANTS:
            r = inst.get(v)
            hm = _run_metrics(r) if r else None
            if hm is None:
                continue
            g = gaps[v]
            g["u"].append(om[0] / hm[0] - 1)  # how much lower Harmony's utilisation is
            g["jct"].append(hm[1] / om[1] - 1)
            g["makespan"].append(hm[2] / om[2] - 1)
            g["static"].append(o["objective"] / r["objective"] - 1)
    if not seeds:
        return Judgement("not run", [], ["no Oracle run with the execution model in the records"])
    rows = []
    verdicts = {}
    for v, g in gaps.items():
        if not g["u"]:
            continue
        worst = max(max(g["u"]), max(g["jct"]), max(g["makespan"]))
        med = max(statistics.median(g["u"]), statistics.median(g["jct"]), statistics.median(g["makespan"]))
        verdicts[v] = ("reproduced" if worst <= AROUND_2 else
                       "partially reproduced" if med <= AROUND_2 else "not reproduced")
        rows.append(Row(
            VARIANTS[v],
            (f"worse than the Oracle by: utilisation {_pct(statistics.median(g['u']))} (max {_pct(max(g['u']))}), "
             f"avg JCT {_pct(statistics.median(g['jct']))} (max {_pct(max(g['jct']))}), "
             f"makespan {_pct(statistics.median(g['makespan']))} (max {_pct(max(g['makespan']))}); "
             f"static U {_pct(statistics.median(g['static']))}"),
            verdicts[v], f"median (max) over {len(g['u'])} seeds; paper: up to about +2% in all three"))
    default = verdicts.get("harmony", "not run")
    others = [f"{VARIANTS[v]}: {w}" for v, w in verdicts.items() if v != "harmony"]
    verdict = f"{default} under the default reading (aggregate L6, all jobs admitted)"
    if others:
        verdict += "; " + "; ".join(others)
    caveats = [
        "The Oracle is the paper's at scale (oracle.py): every number of jobs x every number of groups with "
        "Algorithm 2 and the allocation, deciding for all unfinished jobs at every event; the dissertation does "
        "not describe its search space, an exhaustive search over every grouping of 80 jobs (Bell(80) ~ 10^87) "
        "cannot have run in its 13.8 minutes (models/harmony.md, 'The Oracle').",
        "Both run in the dissertation's execution model as we read it (models/harmony.md, 'Execution model'): "
        "jobs submitted at time 0, group iterations of length T_g (4.1), regrouping when a job finishes; no "
        "profiling or migration cost.",
        "The per-job times of Fig. 4.9 are not in the text: generate.harmony.evaluation_workload is a "
        "documented model of Table 4.1's workloads.",
        "Negative gaps mean Harmony is better than the Oracle: the Oracle maximises the utilisation of each "
        "decision, not JCT or makespan over the run.",
        "On tiny instances an exhaustive search over every grouping (method brute-force) is far better than "
        "Harmony (proofs/harmony.md, 28-59% median in U); that is not the paper's comparison at 80/100.",
    ]
    g = gaps["harmony"]
    measured = (f"default reading over {len(g['u'])} seeds: utilisation {_pct(statistics.median(g['u']))}, "
                f"avg JCT {_pct(statistics.median(g['jct']))}, makespan {_pct(statistics.median(g['makespan']))} "
                f"(median gap to the Oracle)") if g["u"] else ""
    return Judgement(verdict, rows, caveats, measured)


# ---------------------------------------------------------------------------
# Section 4.4.3: measured utilisation
PAPER_UTIL = {"cpu": 0.932, "net": 0.831, "jobs": 27.2, "groups": 6.7}
UTIL_TOLERANCE = 0.05


def _suite_utilisation(scale: Scale) -> Suite:
    params, seeds = _scale_params(scale)
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.harmony:evaluation_workload",
                        params=params, seeds=seeds, name="evaluation-workload")],
        name=f"claim-harmony-4.4.3-{scale}", methods=list(VARIANTS), reference=None,
        time_limit=600 if scale == "full" else 120, options=dict(VARIANT_OPTIONS),
    )


def judge_utilisation(records: list[dict], scale: Scale) -> Judgement:
    by_v: dict[str, list[dict]] = {}
    for r in records:
        d = r.get("details") or {}
        if _ok(r) and d.get("run_utilisation_cpu") is not None:
            by_v.setdefault(_variant(r), []).append(d)
    if not by_v:
        return Judgement("not run", [], ["no run of the execution model in the records"])
    rows = []
    verdicts = {}
    for v in VARIANTS:
        ds = by_v.get(v)
        if not ds:
            continue
        cpu = statistics.mean(d["run_utilisation_cpu"] for d in ds)
        net = statistics.mean(d["run_utilisation_net"] for d in ds)
        jobs = statistics.mean(d["mean_running_jobs"] for d in ds)
        groups = statistics.mean(d["mean_groups"] for d in ds)
        close = abs(cpu - PAPER_UTIL["cpu"]) <= UTIL_TOLERANCE and abs(net - PAPER_UTIL["net"]) <= UTIL_TOLERANCE
        verdicts[v] = "reproduced" if close else "not reproduced"
        t90 = ""
        if all(d.get("run_utilisation_cpu_t90") is not None for d in ds):
            c90 = statistics.mean(d["run_utilisation_cpu_t90"] for d in ds)
            n90 = statistics.mean(d["run_utilisation_net_t90"] for d in ds)
            t90 = f"; until 90% of the jobs finished: CPU {100 * c90:.1f}%, network {100 * n90:.1f}%"
        rows.append(Row(VARIANTS[v],
                        f"CPU {100 * cpu:.1f}%, network {100 * net:.1f}%; {jobs:.1f} jobs in {groups:.1f} groups{t90}",
                        verdicts[v], "paper: 93.2% CPU, 83.1% network; 27.2 jobs in 6.7 groups"))
    static = []
    for r in records:
        d = r.get("details") or {}
        if _ok(r) and _variant(r) in ("harmony", "harmony@per-job"):
            static.append((_variant(r), d.get("utilisation_cpu"), d.get("utilisation_net")))
    for v in ("harmony", "harmony@per-job"):
        vals = [(c, n) for vv, c, n in static if vv == v and c is not None]
        if vals:
            rows.append(Row(f"{VARIANTS[v]}, the first decision (static U of (4.4))",
                            f"CPU {100 * statistics.mean(c for c, _ in vals):.1f}%, "
                            f"network {100 * statistics.mean(n for _, n in vals):.1f}%",
                            "", "what L6's reading does to the grouping of all 80 jobs"))
    default = verdicts.get("harmony", "not run")
    verdict = (f"{default} under the default reading" if default == "reproduced" else
               "not reproduced over the whole run under any reading; under the default reading the CPU and "
               "network use match until the tail of a few long jobs (see the rows)")
    if any(w == "reproduced" for w in verdicts.values()) and default != "reproduced":
        verdict = "reproduced under " + ", ".join(VARIANTS[v] for v, w in verdicts.items() if w == "reproduced")
    caveats = [
        "Utilisation over the run = time average over [0, makespan] of sum_g m_g U(g) / M (CPU and network "
        "parts of (4.3)); the paper measures CPU and network use every minute on real machines.",
        "The workload is a model of Table 4.1 (Fig. 4.9's per-job times are missing from the text); the tail of "
        "the run, when few jobs are left, weighs on the averages as in the paper's Fig. 4.11.",
        "The measured 93.2% / 83.1% is what supports the aggregate reading of L6 as the default: under the "
        "printed per-job formula the first decision already leaves CPU use near a third.",
    ]
    return Judgement(verdict, rows, caveats, "; ".join(f"{r.reading}: {r.ours}" for r in rows[:1]))


# ---------------------------------------------------------------------------
# Fig. 4.18: scale
def _suite_fig_4_18(scale: Scale) -> Suite:
    params = ({"num_jobs": 8000, "num_machines": 10000} if scale == "full"
              else {"num_jobs": 800, "num_machines": 1000})
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.harmony:evaluation_workload",
                        params=params, seeds=(0, 1, 2), name="scaled-workload")],
        name=f"claim-harmony-fig-4.18-{scale}", methods=["harmony"], reference=None, time_limit=60,
    )


def judge_fig_4_18(records: list[dict], scale: Scale) -> Judgement:
    ok = [r for r in records if _ok(r) and r.get("method") == "harmony"]
    if not ok:
        return Judgement("not run", [], ["no run in the records"])
    times = [float(r["runtime_s"]) for r in ok]
    size = (ok[0].get("size") or {})
    rows = [Row(f"{size.get('jobs')} jobs on {size.get('machines')} machines",
                f"{max(times):.2f} s (max of {len(times)} seeds, including validation)",
                "reproduced" if max(times) <= 5.0 else "not reproduced", "paper: within 5 seconds")]
    return Judgement("reproduced" if max(times) <= 5.0 else "not reproduced", rows,
                     ["measured on a shared 2-core machine; the lead re-measures on a quiet one"],
                     f"{max(times):.2f} s")


CLAIMS = [
    Claim(
        family="harmony", key="harmony-fig-4.17", paper=PAPER, where="Section 4.4.7, Fig. 4.17",
        quote=("Figure 4.17 shows the comparison result of resource utilization, average JCT, and makespan, between "
               "the solution found with the exhaustive search and the one provided by Harmony. We see that the "
               "results in Harmony is slightly worse by up to around 2%."),
        claimed="within about 2% of the Oracle in utilisation, average JCT and makespan (80 jobs, 100 machines)",
        setup=("evaluation_workload: 80 jobs (Table 4.1's 4 apps x 2 datasets x 10 settings) on 100 machines, "
               "seeds 0-9 (20 jobs on 25 machines, seeds 0-1, with --quick); Harmony and the Oracle each run the "
               "execution model (simulate=True)."),
        suite=_suite_fig_4_17, judge=judge_fig_4_17, readings=READINGS,
        full_time="about 20 min on 2 cores (the Oracle's runs dominate)",
    ),
    Claim(
        family="harmony", key="harmony-4.4.3-utilisation", paper=PAPER, where="Section 4.4.3, Fig. 4.11",
        quote=("Harmony achieves average utilization of 93.2% CPU and 83.1% network resources [...] 27.2 concurrent "
               "jobs were running together on average, while divided into 6.7 job groups across all 100 machines."),
        claimed="93.2% CPU, 83.1% network; 27.2 jobs in 6.7 groups",
        setup="the same 80-job, 100-machine runs of Harmony in the execution model, per reading",
        suite=_suite_utilisation, judge=judge_utilisation, readings=READINGS, full_time="about 2 min",
    ),
    Claim(
        family="harmony", key="harmony-fig-4.18", paper=PAPER, where="Section 4.4.7, Fig. 4.18",
        quote="Harmony can schedule 8K jobs to 10K machines within 5 seconds.",
        claimed="8,000 jobs on 10,000 machines within 5 s",
        setup="evaluation_workload scaled to 8,000 jobs / 10,000 machines (800 / 1,000 with --quick), seeds 0-2",
        suite=_suite_fig_4_18, judge=judge_fig_4_18, full_time="about 10 s",
    ),
]
