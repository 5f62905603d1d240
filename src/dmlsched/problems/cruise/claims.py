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
    fmt,
    judgement,
)
from ...claims import record_ok as _ok
from ...claims import records_by_instance as _by_instance
from ...suites import Source, Suite

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
#: Section 3.4.2's sentence on the ground truth's partitions (both readings split the servers' blocks by their
#: bandwidth; they differ in the workers' blocks)
GT_SENTENCE = ("In the heterogeneous environment, we distribute blocks proportional to each machine's power based on "
               "metrics including worker's local computation time and server's bandwidth.")
#: where the released Cruise optimizer splits blocks (read, not copied; models/cruise.md quotes it)
RELEASED_SPLIT = ("snuspl/cruise ps/.../optimizer/impl/HomogeneousOptimizer.java, generateWorkerPlanForOptimalConfig "
                  "and generateServerPlanForOptimalConfig")
READ_DATA = (
    Reading("effective", "the ground truth's server blocks proportional to the servers' bandwidth, worker blocks to "
            "1/(C_proc + T_i/B): a worker's power from its local computation time and its pull time over the "
            f"servers' bandwidth, the split of the released optimizer ({RELEASED_SPLIT})",
            GT_SENTENCE, "Section 3.4.2", {"proportional": {"data": "effective"}}, default=True),
    Reading("compute", "the ground truth's server blocks proportional to the servers' bandwidth, worker blocks to "
            "1/C_proc: each metric to its own role, the workers' blocks by their local computation time alone",
            GT_SENTENCE, "Section 3.4.2", {"proportional": {"data": "compute"}}),
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


def _seed_label(r: dict) -> str:
    """A record's point label: its generator seed (``"seed 12"``), else its instance name."""
    src = str(r.get("source") or "")
    head, sep, tail = src.rpartition("&seed=")
    return f"seed {tail}" if sep and tail.isdigit() else str(r.get("instance_name") or r.get("instance_hash", ""))


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


CALIBRATED = Setup("calibrated workloads", False, "the workloads are calibrated (generate/cruise.py) so that (3.5) "
                   "picks Table 3.4's optimum: the calibration fixes the configuration")
PARTS_3_4 = (
    Part("worst", "1 - Cruise's relative performance (the optimum's epoch time / Cruise's) below 6.1%, every app",
         "at most", 0.061, "reduction", "every", tolerance=0.0,
         source="The resulting performance in terms of epoch time is slightly inferior to the optimum but the "
                "difference is smaller than 6.1%."),
    Part("lda-lasso", "Cruise optimal on LDA and Lasso", "at most", 0.0, "reduction", "every", tolerance=0.0,
         source="Cruise finds the optimal configuration in LDA and Lasso with the same performance as the optimum."),
)


def judge_table_3_4(records: list[dict], scale: Scale) -> Judgement:
    rows: list[Row] = []
    slow: dict[str, Point] = {}
    mended: list[float] = []
    for inst in _by_instance(records).values():
        ref = inst.get("exact")
        if ref is None or not _ok(ref) or ref.get("status") != "optimal":
            continue
        app = _app(ref)
        r = inst.get("closed-form")
        if r is not None and _ok(r):
            perf = ref["objective"] / r["objective"]
            slow[app] = Point(app, 1.0 - perf)
            gt = inst.get("proportional")
            rows.append(Row(f"{app}: (3.5) as printed",
                            f"relative performance {100 * perf:.2f}% (Cruise W = {_workers(r)}, ground truth W = "
                            f"{_workers(gt) if gt else None})", "",
                            "paper: " + " / ".join(f"{100 * x:.1f}%" for x in TABLE_3_4.get(app, ()))))
        m = inst.get("closed-form@exact")
        if m is not None and _ok(m):
            mended.append(ref["objective"] / m["objective"])
    if not slow:
        return Judgement("not run", rows, ["no proven optimum or no closed-form run in the records"])
    prs = [PartResult(PARTS_3_4[0], list(slow.values())),
           PartResult(PARTS_3_4[1], [p for a, p in slow.items() if a in ("LDA", "Lasso")])]
    v = ReadingVerdict("default", prs, CALIBRATED.published, CALIBRATED.why, default=True)
    if mended:
        rows.append(Row("context: the mended rule (select=exact), all apps",
                        f"relative performance {100 * min(mended):.2f}%-{100 * max(mended):.2f}%", "",
                        "the even split with W by the true epoch time: optimal by proofs/cruise.md A2; `exact` is the "
                        "ground truth here, so it is not evidence for the claim"))
    return judgement(
        [v], ours=f"1 - relative performance {prs[0].ours_text()}", ceiling="-",
        caveat="model check: the calibration fixes Cruise's choice; only integer rounding is measured", rows=rows,
        caveats=["A model-internal check of integer rounding: each app's communication/computation ratio is "
                 "calibrated (generate/cruise.py) so that (3.5) on 32 r4.xlarge picks Table 3.4's grid-search "
                 "optimum, so matching the paper's 'Optimal (W, S)' column is by construction; what is measured is "
                 "the loss from integer data and ceil(d/B) mini-batches that (3.5) ignores.",
                 "The ground truth is the model's own optimum (`exact`, proven); it is the reference, not support.",
                 "The paper's per-application pattern (NMF 98.8%/93.9%, MLR 97.8%/97.6%, LDA and Lasso 100%) depends "
                 "on the starting configuration (measured metrics); in the model there is one number per app.",
                 "Lasso's mini-batch size is not given in the dissertation; MLR's 1,000 is used."])


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


MODEL = Setup("the dissertation's model", True, "a statement about the model (3.1)-(3.4) on every homogeneous "
              "cluster, checked on random ones")
PARTS_INT = (
    Part("even", "the best even split (d evenly across workers, m across servers, W chosen by (3.4)) / the proven "
         "optimum, every random homogeneous cluster", "bound", 1.0, "value", "every", tolerance=1e-9,
         source="the optimal solution distributes d evenly across workers and m evenly across servers"),
    Part("optimal", "(3.5)'s configuration / the proven optimum, every random homogeneous cluster", "bound", 1.0,
         "value", "every", tolerance=1e-9, source="Thus, we can derive an analytical solution that runs in O(N). We "
         "present our analytical solution below"),
)


def judge_integer(records: list[dict], scale: Scale) -> Judgement:
    per_bucket: dict[tuple[float, float], list[float]] = {b: [] for b in BUCKETS}
    pts: list[Point] = []
    even: list[Point] = []
    mended_bad = 0
    total = 0
    for inst in _by_instance(records).values():
        ref, cf, me = inst.get("exact"), inst.get("closed-form"), inst.get("closed-form@exact")
        if not (ref and cf and _ok(ref) and _ok(cf)) or ref.get("status") != "optimal":
            continue
        total += 1
        ratio = cf["objective"] / ref["objective"]
        lab = _seed_label(ref)
        pts.append(Point(lab, ratio))
        if me and _ok(me):
            even.append(Point(lab, me["objective"] / ref["objective"]))
        batches = (ref.get("size") or {}).get("minibatches") or 0
        per_w = batches / (_workers(cf) or 1)
        for b in BUCKETS:
            if b[0] <= per_w < b[1]:
                per_bucket[b].append(ratio - 1)
        if me and _ok(me) and me["objective"] > ref["objective"] * (1 + 1e-9):
            mended_bad += 1
    if not total:
        return Judgement("not run", [], ["no proven optimum in the records"])
    rows = []
    for (lo, hi), g in per_bucket.items():
        if g:
            rows.append(Row(f"(3.5), {lo:g} <= ceil(D/B)/W* < {hi:g} mini-batches per worker",
                            f"{sum(1 for x in g if x <= 1e-9)}/{len(g)} optimal; gap median "
                            f"{_pct(statistics.median(g))}, max {_pct(max(g))}", "", ""))
    rows.append(Row("context: the continuous relaxation (real d, m; d/B mini-batches)", "(3.5) is its optimum",
                    "", "proofs/cruise.md A1 (a proof, tested in tests/cruise/test_claims.py)"))
    rows.append(Row("the best even split (select=exact)", f"optimal on {total - mended_bad}/{total}", "",
                    "proofs/cruise.md A2"))
    prs = [PartResult(PARTS_INT[0], even), PartResult(PARTS_INT[1], pts)]
    v = ReadingVerdict("default", prs, MODEL.published, MODEL.why, default=True)
    return judgement([v], ours=f"even split / optimum {prs[0].ours_text()}; (3.5) / optimum {prs[1].ours_text()}",
                     ceiling="-",
                     caveat="an even split is optimal; (3.5) is only with real d, m (proof A1), not integer data",
                     rows=rows,
                     caveats=[f"{total} random homogeneous clusters (generate.cruise.random_homogeneous, N 3-32, "
                              "D < 5000, B < 200, M < 500, comm/compute ratio log-uniform in [0.03, 0.6]).",
                              "Smallest failure: N = 3, D = M = B = 1 "
                              "(instances/counterexamples/cruise-closed-form-*.json)."])


# ---------------------------------------------------------------------------
# Section 3.4.5: the ILP's configuration vs the ground truth's rule
def _suite_ground_truth(scale: Scale) -> Suite:
    apps = ("NMF", "MLR", "LDA")
    sc = 1.0 if scale == "full" else 0.1
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:heterogeneous_cluster",
                        params={"app": app, "scale": sc}, seeds=(0,), name=f"{app}-28+4") for app in apps],
        name=f"claim-cruise-3.4.5-{scale}",
        methods=["proportional@effective", "proportional@compute"], reference="exact", time_limit=120,
        options={"proportional@effective": {"data": "effective"}, "proportional@compute": {"data": "compute"}},
    )


PART_GT = Part("close", "the ground truth's configuration vs Cruise's ILP optimum, NMF epoch time", "close",
               None, "factor", "every", tolerance=WORST_SLOWDOWN,
               source="Figure 3.6 shows the results of running NMF [...] Cruise reconfigures the job to (W:20+4, "
                      "S:8+0)|E close to the ground truth optimum")


GT_READINGS = (("effective", "proportional@effective"), ("compute", "proportional@compute"))


def judge_ground_truth(records: list[dict], scale: Scale) -> Judgement:
    """The sentence is about NMF (Fig. 3.6): NMF is the part's point; MLR and LDA are context rows."""
    pts: dict[str, list[Point]] = {label: [] for _, label in GT_READINGS}
    rows: list[Row] = []
    for inst in _by_instance(records).values():
        ref = inst.get("exact")
        if not (ref and _ok(ref) and ref.get("status") == "optimal"):
            continue
        for name, label in GT_READINGS:
            r = inst.get(label)
            if r and _ok(r):
                p = Point(_app(ref), r["objective"] / ref["objective"])
                if p.label == "NMF":
                    pts[label].append(p)
                rows.append(Row(f"data={name}: {p.label}" + ("" if p.label == "NMF" else " (context)"),
                                f"{_pct(p.ours - 1)} slower than the ILP optimum", "", ""))
    default = GT_READINGS[0][1]
    if not pts[default]:
        return Judgement("not run", rows, ["no proven optimum and NMF run of the default reading in the records"])
    verdicts = [ReadingVerdict(name, [PartResult(PART_GT, pts[label])], CALIBRATED.published,
                               "the workloads are calibrated to the homogeneous Table 3.4",
                               default=label == default)
                for name, label in GT_READINGS if pts[label]]
    rows.sort(key=lambda r: r.reading)
    return judgement(verdicts, ours=f"ground truth / ILP, NMF {verdicts[0].parts[0].ours_text()}", ceiling="-",
                     caveat="calibrated workloads; the model's ILP optimum stands for Cruise's ILP", rows=rows,
                     caveats=["Section 3.4.5's cluster: 28 r4.xlarge + 4 r4.4xlarge (4x cores, 4x bandwidth) with "
                              "the calibrated workloads; the model's ILP optimum (exact, proven) stands for Cruise's "
                              "ILP.", "'close' = within 6.5%, the dissertation's worst homogeneous gap; the text "
                              "gives no number here.",
                              "Readings (Section 3.4.2): both split the servers' blocks by their bandwidth; "
                              "`effective` splits the workers' blocks by computation plus pull time, `compute` by "
                              "computation alone. Read literally (each metric to its own role) the sentence gives "
                              "`compute`, and two of three independent readers read it so; 'including' leaves the "
                              "metrics open. The default is `effective` because the released optimizer completes "
                              f"the list this way ({RELEASED_SPLIT}, since the 2017 commit 'homogeneous optimizer "
                              "considering network bandwidth'; before it the same file split by computation "
                              "throughput alone; also hetero/ILPSolver.computeMDWvalues), and 3.4.5 reports 'about "
                              "2 times more blocks' on machines with 4x the cores and bandwidth (a split by "
                              "computation alone gives about 4x, if computation scales with the cores). The word "
                              "depends on the reading.",
                              "Direction: the ground truth is evaluated in the same model as the ILP, so it can "
                              "never beat the ILP's proven optimum; in the paper the ground truth is ahead of "
                              "Cruise. A failure under a reading therefore says its ground truth is far from the "
                              "model's optimum, not that the ILP falls short.",
                              "Not compared: the configurations themselves (the paper's W:20+4, S:8+0 for Cruise "
                              "and W:19+4, S:9+0 for the ground truth); only epoch times are.",
                              "Not judged as a part: 'Data is repartitioned so that the faster instances have about 2 "
                              "times more blocks than the slower instances' follows a configuration printed '|E' "
                              "(even blocks); it is read only as text for the reading, never compared with our "
                              "block counts.",
                              "The sentence is about NMF (Fig. 3.6); MLR and LDA are context rows."])


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


PARTS_SPEED = (
    Part("homogeneous", "cost calculation, homogeneous 32 machines ((3.5))", "at most", 0.030, "value", "every",
         tolerance=0.0, source="Cost calculation takes 30 ms for the homogeneous environment"),
    Part("heterogeneous", "cost calculation, heterogeneous 28+4 (the ILP, proven)", "at most", 37.4, "value",
         "every", tolerance=0.0, source="and 37.4 s for the heterogeneous environment on average"),
)


def judge_speed(records: list[dict], scale: Scale) -> Judgement:
    homo = [r for r in records if r.get("method") == "closed-form" and _ok(r)]
    het = [r for r in records if r.get("method") == "exact" and "heterogeneous" in (r.get("instance_name") or "")
           and _ok(r)]
    if not homo or not het:
        return Judgement("not run", [], ["missing records"])
    t_h = max(r["runtime_s"] for r in homo)
    t_x = max(r["runtime_s"] for r in het) if all(r.get("status") == "optimal" for r in het) else float("inf")
    prs = [PartResult(PARTS_SPEED[0], [Point("NMF-32", t_h)]), PartResult(PARTS_SPEED[1], [Point("NMF-28+4", t_x)])]
    v = ReadingVerdict("default", prs, CALIBRATED.published, "calibrated workloads; timed on our solver and machine",
                       default=True)
    return judgement([v], ours=f"{1000 * t_h:.2f} ms; {t_x:.2f} s", ceiling="-",
                     caveat="timed on a shared machine, HiGHS proving optimality (the paper: Gurobi, MIPGap 0.4)",
                     rows=[Row(pr.part.what, pr.ours_text(), pr.outcome, pr.reason) for pr in prs],
                     caveats=["Times measured on a shared 2-core machine (the lead re-measures on a quiet one); the "
                              "paper's ILP ran Gurobi with MIPGap 0.4 (snuspl/harmony ILPSolver.java), ours proves "
                              "optimality with HiGHS over machine types."])


# ---------------------------------------------------------------------------
# Section 3.4.5 / the abstract: "reduces the training time by up to 58.3%"
#: app -> (the starting configuration's workers per class (slow, fast), the paper's reduction)
STARTS = {"NMF": ([25, 2], 0.352), "MLR": ([16, 2], 0.583), "LDA": ([25, 2], 0.413)}
PARTS_58 = tuple(
    Part(app, f"Cruise vs the static start (W:{w[0]}+{w[1]}, S:{28 - w[0]}+{4 - w[1]})|E, {app} epoch time",
         "about", red, "reduction", "aggregate", "the one run", source=f"reduce the epoch times by {100 * red:.1f}%")
    for app, (w, red) in STARTS.items())


def _suite_58(scale: Scale) -> Suite:
    sc = 1.0 if scale == "full" else 0.1
    return Suite(
        sources=[Source("generator", generator="dmlsched.generate.cruise:heterogeneous_cluster",
                        params={"app": app, "scale": sc}, seeds=(0,), name=f"{app}-28+4") for app in STARTS],
        name=f"claim-cruise-58.3-{scale}",
        methods=["exact", *[f"static@{app}" for app in STARTS]], reference=None, time_limit=120,
        options={f"static@{app}": {"workers": w} for app, (w, _) in STARTS.items()},
    )


def judge_58(records: list[dict], scale: Scale) -> Judgement:
    prs = []
    for part in PARTS_58:
        pts = []
        for inst in _by_instance(records).values():
            ref, st = inst.get("exact"), inst.get(f"static@{part.key}")
            if ref and st and _ok(ref) and _ok(st) and ref.get("status") == "optimal" and _app(ref) == part.key:
                red = 1.0 - ref["objective"] / st["objective"]
                pts.append(Point(part.key, red, red))
        prs.append(PartResult(part, pts))
    if all(p.outcome == "not run" for p in prs):
        return Judgement("not run", [], ["no pair of exact and static runs in the records"])
    v = ReadingVerdict("default", prs, CALIBRATED.published, "calibrated workloads (to the homogeneous Table 3.4)",
                       default=True)
    return judgement([v], ours=", ".join(f"{p.part.key} {p.ours_text()}" for p in prs),
                     ceiling=", ".join(f"{p.part.key} {fmt(p.ceiling_value(), 'reduction')}" for p in prs),
                     caveat="calibrated workloads; the ILP optimum is the ceiling itself",
                     rows=[Row(p.part.what, p.ours_text(), p.outcome, p.reason) for p in prs],
                     caveats=["Cruise in the heterogeneous environment is its ILP, i.e. the model's optimum (`exact`, "
                              "proven): our reduction equals the ceiling, the most any configuration can gain over "
                              "the static start. The starts are the dissertation's (Section 3.4.5): NMF and LDA at "
                              "(W:25+2, S:3+2)|E, MLR at (W:16+2, S:12+2)|E, even partitions ('E').",
                              "'up to 58.3%' (abstract) is MLR's number; NMF's 35.2% and LDA's 41.3% are judged "
                              "beside it."])


# ---------------------------------------------------------------------------
CLAIMS = [
    Claim(
        family="cruise", key="cruise-table-3.4", paper=PAPER, where="Section 3.4.3, Table 3.4, Fig. 3.4",
        quote=("Cruise finds configurations close to the ground-truth optimum [...] The resulting performance in "
               "terms of epoch time is slightly inferior to the optimum but the difference is smaller than 6.1%. "
               "Cruise finds the optimal configuration in LDA and Lasso with the same performance as the optimum."),
        # the 6.5% of Fig. 3.4's paragraph ("with 6.5% slower performance than the optimum") is the epoch-time
        # slowdown of one starting point, 1/0.939 - 1; the part judges the sentence quoted here
        claimed="relative performance of Cruise's choice vs the grid-search optimum within 6.1%; optimal on LDA "
                "and Lasso",
        setup=("32 identical r4.xlarge machines, the calibrated NMF, MLR, LDA and Lasso workloads "
               "(generate.cruise.homogeneous_cluster); Cruise's homogeneous optimizer = `closed-form` (3.5); "
               "ground truth = grid search over (W, S) with even partitions (`proportional`), proven by `exact`."),
        suite=_suite_table_3_4, judge=judge_table_3_4, readings=READ_SELECT, full_time="about 10 s",
        parts=PARTS_3_4, setups=(CALIBRATED,), role="model check",
        default_reason="(3.5) as printed is the dissertation's homogeneous optimizer",
    ),
    Claim(
        family="cruise", key="cruise-3.5-integer", paper=PAPER, where="Section 3.2.3, (3.5)",
        quote=("In case that we have homogeneous machines [...] the optimal solution distributes d evenly across "
               "workers and m evenly across servers. Thus, we can derive an analytical solution that runs in O(N)."),
        claimed="(3.5) is optimal on homogeneous clusters",
        setup=("300 random homogeneous clusters (20 with --quick), `closed-form` against the proven optimum "
               "(`exact`), grouped by mini-batches per worker under (3.5)."),
        suite=_suite_integer, judge=judge_integer, readings=READ_SELECT, full_time="about 1 min",
        parts=PARTS_INT, setups=(MODEL,), role="theory", default_reason="(3.5) as printed",
    ),
    Claim(
        family="cruise", key="cruise-3.4.5-ground-truth", paper=PAPER, where="Section 3.4.5, Fig. 3.6",
        quote=("Cruise reconfigures the job to (W:20+4, S:8+0)|E close to the ground truth optimum in the "
               "heterogeneous environment (W:19+4, S:9+0)|P."),
        claimed="on NMF, Cruise's ILP configuration is close to the ground truth (grid search with proportional "
                "partitions)",
        setup=("Section 3.4.5's 28 r4.xlarge + 4 r4.4xlarge cluster, calibrated NMF, MLR, LDA at full scale "
               "(0.1 with --quick); the ILP = `exact` (proven); the ground truth = `proportional` per reading."),
        suite=_suite_ground_truth, judge=judge_ground_truth, readings=READ_DATA, full_time="about 30 s",
        parts=(PART_GT,), setups=(CALIBRATED,),
        default_reason="3.4.2's sentence fits both readings; 3.4.5's 'about 2 times more blocks' on machines with 4x "
                       "the cores speaks against a split by computation alone, and the released optimizer "
                       "(generateWorkerPlanForOptimalConfig) splits workers' blocks by computation plus pull time",
    ),
    Claim(
        family="cruise", key="cruise-3.4.6-speed", paper=PAPER, where="Section 3.4.6",
        quote=("Cost calculation takes 30 ms for the homogeneous environment and 37.4 s for the heterogeneous "
               "environment on average."),
        claimed="30 ms (homogeneous, analytical) and 37.4 s (heterogeneous, ILP)",
        setup="NMF on 32 r4.xlarge (closed-form) and on the 28+4 cluster (exact), full scale.",
        suite=_suite_speed, judge=judge_speed, full_time="about 10 s", parts=PARTS_SPEED, setups=(CALIBRATED,),
        default_reason="one reading",
    ),
    Claim(
        family="cruise", key="cruise-58.3", paper=PAPER, where="Abstract of ch. 3; Section 3.4.5, Fig. 3.6",
        quote=("Cruise reduces the training time by up to 58.3% compared to static configuration within tens of "
               "seconds reconfiguration overhead. [...] Epoch time decreases by 35.2% (from 162 s to 105 s). Our "
               "experiments with other applications in the same environment also reduce the epoch times by 58.3% in "
               "MLR starting at (W:16+2, S:12+2)|E and 41.3% in LDA starting at (W:25+2, S:3+2)|E."),
        claimed="up to 58.3% shorter epochs than the static start (NMF 35.2%, MLR 58.3%, LDA 41.3%)",
        setup=("Section 3.4.5's 28+4 cluster with the calibrated NMF, MLR, LDA; `static` (the paper's starting "
               "configurations, even partitions) against `exact` (Cruise's ILP, proven)."),
        suite=_suite_58, judge=judge_58, full_time="about 30 s", parts=PARTS_58, setups=(CALIBRATED,),
        default_reason="one reading: the dissertation's starts", ceiling=("exact", "objective", "objective"),
    ),
]
