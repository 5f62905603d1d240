"""The dissertation's Cruise claims (Lee 2020, Chapter 3), each with its setup at the
paper's scale, its readings and a judge (see :mod:`dmlsched.claims`).

* ``cruise-table-3.4`` -- Section 3.4.3 / Table 3.4: on the homogeneous
  32-machine cluster Cruise's choice ((3.5), "the O(N) analytical solver for
  the homogeneous environment") is within 93.9-100% of the grid-search optimum;
* ``cruise-3.5-integer`` -- Section 3.2.3, (3.5): the analytical solution is
  optimal on homogeneous clusters (with integer data: where it holds);
* ``cruise-3.4.5-ground-truth`` -- Section 3.4.5: Cruise's ILP configuration is
  "close to the ground truth optimum" of the proportional rule;
* ``cruise-3.4.6-speed`` -- Section 3.4.6: cost calculation in 30 ms
  (homogeneous) and 37.4 s (heterogeneous).

The heterogeneous clusters are solved by ``exact`` (Cruise's ILP: "we use the
O(N) analytical solver for the homogeneous environment and use the ILP solver
for the heterogeneous environment", Section 3.4.1); ``proportional`` is the
rule by which the grid-search *ground truth* sets partitions (Section 3.4.2).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from ...bench.suite import Source, Suite
from ...claims import Claim, Judgement, Reading, Row, Scale
from ...claims import record_ok as _ok
from ...claims import record_variant as _variant
from ...claims import records_by_instance as _by_instance

PAPER = "Cruise (Lee, dissertation 2020, ch. 3)"
APPS = ("NMF", "MLR", "LDA", "Lasso")

#: Table 3.4, relative performance of Cruise's choice per app and starting configuration
TABLE_3_4 = {"NMF": (0.988, 0.939), "MLR": (0.978, 0.976), "LDA": (1.0, 1.0), "Lasso": (1.0, 1.0)}
#: "6.5% slower performance than the optimum" (Section 3.4.3, the worst case)
WORST_SLOWDOWN = 0.065

READ_SELECT = (
    Reading("paper", "(3.5) as printed: W* = argmin_W (D/W) T(W), even integer split",
            "w* = argmin_w [D/||w|| T(||w||)], where T(||w||) = C_w.proc + M/b max(1, ||w||/(N-||w||))/B",
            "Section 3.2.3, (3.5)", {"closed-form": {"select": "paper"}}, default=True),
    Reading("exact", "the even integer split, W chosen by the true epoch time (3.4)",
            "In case that we have homogeneous machines [...] the optimal solution distributes d evenly "
            "across workers and m evenly across servers.", "Section 3.2.3",
            {"closed-form": {"select": "exact"}}),
)
READ_DATA = (
    Reading("compute", "ground truth's data split proportional to compute power 1/C_proc",
            "In the heterogeneous environment, we distribute blocks proportional to each machine's power "
            "based on metrics including worker's local computation time and server's bandwidth.",
            "Section 3.4.2", {"proportional": {"data": "compute"}}, default=True),
    Reading("effective", "data split proportional to 1/(C_proc + T_i/B) (the released optimizer's worker plan)",
            "In the heterogeneous environment, we distribute blocks proportional to each machine's power "
            "based on metrics including worker's local computation time and server's bandwidth.",
            "Section 3.4.2; snuspl/harmony HomogeneousOptimizer.generateWorkerPlanForOptimalConfig",
            {"proportional": {"data": "effective"}}),
)


# ---------------------------------------------------------------------------
# record helpers
def _app(r: dict) -> str:
    name = r.get("instance_name") or ""
    for app in APPS:
        if f"-{app}-" in name:
            return app
    return name


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _workers(r: dict) -> Any:
    d = r.get("details") or {}
    return d.get("workers")


# ---------------------------------------------------------------------------
# Table 3.4
def _suite_table_3_4(scale: Scale) -> Suite:
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:homogeneous_cluster",
                        params={"app": app, "num_machines": 32}, seeds=(0,), name=f"{app}-32") for app in APPS],
        name=f"claim-cruise-table-3.4-{scale}",
        methods=["closed-form", "closed-form@exact", "proportional"],
        reference="exact", time_limit=60,
        options={"closed-form@exact": {"select": "exact"}},
    )


def judge_table_3_4(records: list[dict], scale: Scale) -> Judgement:
    rows: list[Row] = []
    rel: dict[str, dict[str, float]] = {}
    for inst in _by_instance(records).values():
        ref = inst.get("exact")
        if ref is None or not _ok(ref) or ref.get("status") != "optimal":
            continue
        app = _app(ref)
        gt = inst.get("proportional")
        for label in ("closed-form", "closed-form@exact"):
            r = inst.get(label)
            if r is None or not _ok(r):
                continue
            perf = ref["objective"] / r["objective"]
            rel.setdefault(label, {})[app] = perf
            if label == "closed-form":
                paper = " / ".join(f"{100 * x:.1f}%" for x in TABLE_3_4.get(app, ()))
                wgt = _workers(gt) if gt else None
                rows.append(Row(
                    f"{app}: (3.5) as printed",
                    f"relative performance {100 * perf:.2f}% (Cruise W = {_workers(r)}, ground truth W = {wgt})",
                    "reproduced" if perf >= 1 - WORST_SLOWDOWN - 1e-12 else "not reproduced",
                    f"paper: {paper} (two starting configurations)"))
    if not rel.get("closed-form"):
        return Judgement("not run", rows, ["no proven optimum or no closed-form run in the records"])
    worst = min(rel["closed-form"].values())
    mended = rel.get("closed-form@exact", {})
    if mended:
        rows.append(Row("mended rule (select=exact), all apps",
                        f"relative performance {100 * min(mended.values()):.2f}%-{100 * max(mended.values()):.2f}%",
                        "reproduced" if min(mended.values()) >= 1 - 1e-9 else "not reproduced",
                        "the even split with W by the true epoch time is the optimum (proofs/cruise.md, A2)"))
    ok = worst >= 1 - WORST_SLOWDOWN - 1e-12
    verdict = ("reproduced under reading paper (and exact)" if ok
               else "not reproduced under reading paper")
    caveats = [
        "Workloads are calibrated (generate/cruise.py): each app's communication/computation ratio is set so "
        "that (3.5) on 32 r4.xlarge picks Table 3.4's grid-search optimum, so (3.5)'s choice matching the "
        "paper's 'Optimal (W, S)' column is by construction; what is measured is the loss from integer data "
        "and ceil(d/B) mini-batches that (3.5) ignores.",
        "The ground truth is the grid search over (W, S) with the paper's partition rule (`proportional`: "
        "even partitions on a homogeneous cluster), proven optimal here by `exact`.",
        "In the paper Cruise's choice depends on the starting configuration (measured metrics); in the model "
        "it does not (one number per app).",
        "Lasso's mini-batch size is not given in the dissertation; MLR's 1,000 is used.",
    ]
    measured = (f"(3.5): relative performance {100 * worst:.2f}%-{100 * max(rel['closed-form'].values()):.2f}% "
                f"over {len(rel['closed-form'])} apps (paper: 93.9%-100%)")
    return Judgement(verdict, rows, caveats, measured)


# ---------------------------------------------------------------------------
# (3.5) with integer data
BUCKETS = ((0.0, 1.0), (1.0, 4.0), (4.0, 16.0), (16.0, math.inf))


def _suite_integer(scale: Scale) -> Suite:
    n = 300 if scale == "full" else 20
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:random_homogeneous",
                        params={}, seeds=tuple(range(n)), name="random-homogeneous")],
        name=f"claim-cruise-3.5-integer-{scale}",
        methods=["closed-form", "closed-form@exact"], reference="exact", time_limit=60,
        options={"closed-form@exact": {"select": "exact"}},
    )


def judge_integer(records: list[dict], scale: Scale) -> Judgement:
    per_bucket: dict[tuple[float, float], list[float]] = {b: [] for b in BUCKETS}
    mended_bad = 0
    total = 0
    for inst in _by_instance(records).values():
        ref, cf, me = inst.get("exact"), inst.get("closed-form"), inst.get("closed-form@exact")
        if not (ref and cf and _ok(ref) and _ok(cf)) or ref.get("status") != "optimal":
            continue
        total += 1
        gap = cf["objective"] / ref["objective"] - 1
        batches = (ref.get("size") or {}).get("minibatches") or 0
        w = _workers(cf) or 1
        per_w = batches / w
        for b in BUCKETS:
            if b[0] <= per_w < b[1]:
                per_bucket[b].append(gap)
        if me and _ok(me) and me["objective"] > ref["objective"] * (1 + 1e-9):
            mended_bad += 1
    if not total:
        return Judgement("not run", [], ["no proven optimum in the records"])
    rows = []
    for (lo, hi), g in per_bucket.items():
        if not g:
            continue
        exact = sum(1 for x in g if x <= 1e-9)
        rows.append(Row(
            f"(3.5) as printed, {lo:g} <= ceil(D/B)/W* < {hi:g} mini-batches per worker",
            f"{exact}/{len(g)} optimal; gap median {_pct(statistics.median(g))}, max {_pct(max(g))}",
            "reproduced" if max(g) <= 1e-9 else ("within 6.5%" if max(g) <= WORST_SLOWDOWN else "not reproduced"),
            "paper: optimal on homogeneous clusters"))
    rows.append(Row("continuous relaxation (real d, m; d/B mini-batches)", "(3.5) is its optimum (proof A1)",
                    "reproduced", "proofs/cruise.md A1; tests/cruise/test_claims.py"))
    rows.append(Row("mended rule (select=exact)", f"optimal on {total - mended_bad}/{total}",
                    "reproduced" if not mended_bad else "not reproduced", "proofs/cruise.md A2 (proof)"))
    low = [x for b, g in per_bucket.items() if b[1] <= 4.0 for x in g]
    high = [x for b, g in per_bucket.items() if b[0] >= 4.0 for x in g]
    verdict = "partially reproduced: (3.5) is the optimum of the continuous relaxation"
    if low and max(low) > WORST_SLOWDOWN:
        verdict += f"; with integer data it fails by up to {_pct(max(low))} below 4 mini-batches per worker"
        if high:
            ok_high = sum(1 for x in high if x <= 1e-9)
            verdict += f"; from 4 on it is optimal on {ok_high} of {len(high)} and within {_pct(max(high))}"
    caveats = [f"{total} random homogeneous clusters (generate.cruise.random_homogeneous, N 3-32, D < 5000, "
               "B < 200, M < 500, comm/compute ratio log-uniform in [0.03, 0.6]); the dissertation gives no "
               "integer-data experiment, so the scope is ours.",
               "Smallest failure: N = 3, D = M = B = 1 (instances/counterexamples/cruise-closed-form-*.json)."]
    return Judgement(verdict, rows, caveats,
                     f"{total} instances; (3.5) optimal on {sum(1 for g in per_bucket.values() for x in g if x <= 1e-9)}")


# ---------------------------------------------------------------------------
# Section 3.4.5: the ILP's configuration vs the ground truth's rule
def _suite_ground_truth(scale: Scale) -> Suite:
    apps = ("NMF", "MLR", "LDA")
    sc = 1.0 if scale == "full" else 0.1
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:heterogeneous_cluster",
                        params={"app": app, "scale": sc}, seeds=(0,), name=f"{app}-28+4") for app in apps],
        name=f"claim-cruise-3.4.5-{scale}",
        methods=["proportional", "proportional@effective"], reference="exact", time_limit=120,
        options={"proportional@effective": {"data": "effective"}},
    )


def judge_ground_truth(records: list[dict], scale: Scale) -> Judgement:
    rows: list[Row] = []
    gaps: dict[str, list[float]] = {"proportional": [], "proportional@effective": []}
    for inst in _by_instance(records).values():
        ref = inst.get("exact")
        if not (ref and _ok(ref) and ref.get("status") == "optimal"):
            continue
        for label, reading in (("proportional", "compute"), ("proportional@effective", "effective")):
            r = inst.get(label)
            if not (r and _ok(r)):
                continue
            gap = r["objective"] / ref["objective"] - 1
            gaps[label].append(gap)
            rows.append(Row(f"{_app(ref)}: ground truth rule data={reading}",
                            f"{_pct(gap)} slower than the ILP optimum ({_workers(r)} workers)",
                            "close" if gap <= WORST_SLOWDOWN else "not close",
                            "paper (NMF): ILP (W:20+4, S:8+0) vs ground truth (W:19+4, S:9+0)"))
    if not gaps["proportional"]:
        return Judgement("not run", rows, ["no proven optimum in the records"])
    comp_ok = max(gaps["proportional"]) <= WORST_SLOWDOWN
    eff_ok = bool(gaps["proportional@effective"]) and max(gaps["proportional@effective"]) <= WORST_SLOWDOWN
    if comp_ok:
        verdict = "reproduced under reading compute"
    elif eff_ok:
        verdict = "reproduced under reading effective; not under compute (the dissertation's wording)"
    else:
        verdict = "not reproduced under readings compute and effective"
    caveats = [
        "Section 3.4.5's cluster: 28 r4.xlarge + 4 r4.4xlarge (4x cores, 4x bandwidth) with the calibrated "
        "workloads (full scale); the calibration fixes only the homogeneous optima, so the heterogeneous "
        "splits of the paper (19+4 workers for NMF) are not expected to match; the model's ILP optimum "
        "(exact, proven) stands for Cruise's ILP.",
        "'close' = within 6.5%, the dissertation's worst homogeneous gap; the text gives no number here.",
    ]
    return Judgement(verdict, rows, caveats,
                     f"ground truth rule vs ILP optimum: compute {_pct(min(gaps['proportional']))}-"
                     f"{_pct(max(gaps['proportional']))}")


# ---------------------------------------------------------------------------
# Section 3.4.6: the optimizer's cost calculation time
def _suite_speed(scale: Scale) -> Suite:
    sc = 1.0 if scale == "full" else 0.1
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:homogeneous_cluster",
                        params={"app": "NMF", "num_machines": 32}, seeds=(0,), name="NMF-32"),
                 Source("generator", generator="dmlsched.generate.cruise:heterogeneous_cluster",
                        params={"app": "NMF", "scale": sc}, seeds=(0,), name="NMF-28+4")],
        name=f"claim-cruise-3.4.6-{scale}", methods=["closed-form", "exact"], reference=None, time_limit=120,
    )


def judge_speed(records: list[dict], scale: Scale) -> Judgement:
    homo = [r for r in records if r.get("method") == "closed-form" and _ok(r)]
    het = [r for r in records if r.get("method") == "exact" and "heterogeneous" in (r.get("instance_name") or "")
           and _ok(r)]
    if not homo or not het:
        return Judgement("not run", [], ["missing records"])
    t_h = max(r["runtime_s"] for r in homo)
    t_x = max(r["runtime_s"] for r in het)
    proven = all(r.get("status") == "optimal" for r in het)
    rows = [Row("homogeneous, 32 machines: closed-form (3.5)", f"{1000 * t_h:.2f} ms",
                "reproduced" if t_h <= 0.030 else "not reproduced", "paper: 30 ms"),
            Row("heterogeneous 28+4: exact (types formulation)", f"{t_x:.2f} s ({'proven' if proven else 'not proven'})",
                "reproduced" if t_x <= 37.4 and proven else "not reproduced", "paper: 37.4 s (Gurobi ILP)")]
    ok = t_h <= 0.030 and t_x <= 37.4 and proven
    return Judgement("reproduced" if ok else "partially reproduced", rows,
                     ["Times measured on a shared 2-core machine (the lead re-measures on a quiet one); the "
                      "paper's ILP ran Gurobi with MIPGap 0.4 (snuspl/harmony ILPSolver.java), ours proves "
                      "optimality with HiGHS over machine types."],
                     f"closed-form {1000 * t_h:.2f} ms; exact {t_x:.2f} s")


# ---------------------------------------------------------------------------
CLAIMS = [
    Claim(
        family="cruise", key="cruise-table-3.4", paper=PAPER, where="Section 3.4.3, Table 3.4, Fig. 3.4",
        quote=("Cruise finds configurations close to the ground-truth optimum [...] The resulting performance in "
               "terms of epoch time is slightly inferior to the optimum but the difference is smaller than 6.1%. "
               "Cruise finds the optimal configuration in LDA and Lasso with the same performance as the optimum."),
        claimed="relative performance 93.9%-100% (6.5% slower at worst) of Cruise's choice vs the grid-search optimum",
        setup=("32 identical r4.xlarge machines, the calibrated NMF, MLR, LDA and Lasso workloads "
               "(generate.cruise.homogeneous_cluster); Cruise's homogeneous optimizer = `closed-form` (3.5); "
               "ground truth = grid search over (W, S) with even partitions (`proportional`), proven by `exact`."),
        suite=_suite_table_3_4, judge=judge_table_3_4, readings=READ_SELECT, full_time="about 10 s",
    ),
    Claim(
        family="cruise", key="cruise-3.5-integer", paper=PAPER, where="Section 3.2.3, (3.5)",
        quote=("In case that we have homogeneous machines [...] the optimal solution distributes d evenly across "
               "workers and m evenly across servers. Thus, we can derive an analytical solution that runs in O(N)."),
        claimed="(3.5) is optimal on homogeneous clusters",
        setup=("300 random homogeneous clusters (20 with --quick), `closed-form` against the proven optimum "
               "(`exact`), grouped by mini-batches per worker under (3.5)."),
        suite=_suite_integer, judge=judge_integer, readings=READ_SELECT, full_time="about 1 min",
    ),
    Claim(
        family="cruise", key="cruise-3.4.5-ground-truth", paper=PAPER, where="Section 3.4.5, Fig. 3.6",
        quote=("Cruise reconfigures the job to (W:20+4, S:8+0)|E close to the ground truth optimum in the "
               "heterogeneous environment (W:19+4, S:9+0)|P."),
        claimed="Cruise's ILP configuration is close to the ground truth (grid search with proportional partitions)",
        setup=("Section 3.4.5's 28 r4.xlarge + 4 r4.4xlarge cluster, calibrated NMF, MLR, LDA at full scale "
               "(0.1 with --quick); the ILP = `exact` (proven); the ground truth = `proportional` per reading."),
        suite=_suite_ground_truth, judge=judge_ground_truth, readings=READ_DATA, full_time="about 30 s",
    ),
    Claim(
        family="cruise", key="cruise-3.4.6-speed", paper=PAPER, where="Section 3.4.6",
        quote=("Cost calculation takes 30 ms for the homogeneous environment and 37.4 s for the heterogeneous "
               "environment on average."),
        claimed="30 ms (homogeneous, analytical) and 37.4 s (heterogeneous, ILP)",
        setup="NMF on 32 r4.xlarge (closed-form) and on the 28+4 cluster (exact), full scale.",
        suite=_suite_speed, judge=judge_speed, full_time="about 10 s",
    ),
]
