"""The HLAS claims under the evidence rule: declarations, judges on hand-written records
(every word's boundary the issue names), and the quick scale of every claim on the bench
engine with a valid ceiling."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched.bench import run_sweep
from dmlsched.bench.reproduce import verdict_word
from dmlsched.claims import all_claims, ceiling_violations
from dmlsched.problems.hlas.claims import (
    ALL_VARIANTS,
    CLAIMS,
    READINGS,
    abstract_points,
    judge_abstract,
    judge_fig12,
    judge_fig22,
    judge_fig23,
    judge_fig24,
    judge_hlasp,
)

FIG12 = Path(__file__).resolve().parents[2] / "instances" / "hlas" / "fig12.json"


def rec(variant, objective, *, jobs=200, gpus=160, groups=40, seed=0, status=None):
    status = status or ("optimal" if variant == "lower-bound" else "feasible")
    return {"variant": variant, "method": variant.split("@")[0], "objective": objective, "status": status,
            "label": f"setup=paper;jobs={jobs}(num_jobs={jobs}, seed={seed})",
            "source": f"dmlsched.generate.hlas:generate?{{}}&seed={seed}",
            "size": {"jobs": jobs, "gpus": gpus, "groups": groups}}


def point(values, **kw):
    return [rec(v, x, **kw) for v, x in values.items()]


BASE = {"fifo": 169.0, "sched-homo": 200.0, "sched-allo": 180.0, "2d-las": 110.0, "lower-bound": 10.0,
        "srtf": 60.0}


def fig23(hlas: float, **over) -> list[dict]:
    """Three points; FIFO's gap to HLAS grows by 5% a step (the paper's 'the gap ... increases')."""
    recs = []
    for i, (jobs, scale) in enumerate(((100, 1.0), (200, 1.5), (300, 2.0))):
        vals = {**BASE, **over, "hlas": hlas}
        vals["fifo"] *= 1.0 + 0.05 * i
        recs += point({v: x * scale for v, x in vals.items()}, jobs=jobs)
    return recs


def test_every_claim_is_declared_completely():
    assert {c.key for c in CLAIMS} == {"hlas-fig23", "hlas-fig22", "hlas-abstract", "hlas-fig24",
                                       "hlas-p-fig26-27", "hlas-fig12"}
    assert {c.key for c in all_claims(["hlas"])} == {c.key for c in CLAIMS}
    for c in CLAIMS:
        assert c.quote and c.where and c.claimed and c.setup and c.parts and c.setups and c.default_reason
        for scale in ("quick", "full"):
            s = c.suite(scale)
            assert s.sources and s.methods
    assert {r.name for r in READINGS if r.default} == {"group-idle-all", "batch", "fifo-gavel", "2dlas-gavel"}
    assert all(r.quote and "(the paper gives" not in r.quote for r in READINGS)  # every quote is the paper's

    for v, (_, opts) in ALL_VARIANTS.items():
        names = {o.name for o in dmlsched.get_method("hlas", v.split("@")[0]).options}
        assert set(opts) <= names, v


def test_fig23_094x_against_claimed_11x_is_not_reproduced():
    # HLAS 0.94x 2D-LAS: a loss, whatever the tolerance around the paper's 1.1x
    j = judge_fig23(fig23(110.0 / 0.94), "full")
    parts = {p.part.key: p for p in j.readings[0].parts}
    assert parts["vs-2dlas"].outcome == "fails" and parts["always"].outcome == "fails"
    assert j.readings[0].setup_word != "reproduced"
    assert j.verdict.startswith("inconclusive (the Google-trace arrivals")  # the substitute workload decides


def test_fig23_always_with_one_losing_point_is_not_reproduced():
    recs = fig23(100.0)
    # at 100 jobs HLAS loses to Sched_Allo
    recs = [dict(r, objective=99.0) if r["variant"] == "sched-allo" and r["size"]["jobs"] == 100 else r for r in recs]
    j = judge_fig23(recs, "full")
    parts = {p.part.key: p for p in j.readings[0].parts}
    assert parts["always"].outcome == "fails" and "Sched_Allo @ 100 jobs" in parts["always"].reason
    assert j.readings[0].setup_word == "partially reproduced"  # 1.69x and 1.1x hold, "always" fails


def test_fig23_success_is_inconclusive_like_a_failure():
    good = judge_fig23(fig23(100.0), "full")
    assert {p.part.key: p.outcome for p in good.readings[0].parts} == {
        "vs-fifo": "holds", "vs-2dlas": "holds", "always": "holds", "gap-grows": "holds", "jct-grows": "holds"}
    assert good.readings[0].word == "inconclusive" and good.readings[0].setup_word == "reproduced"
    assert "vs-fifo 17.73x" in good.ceiling  # W(FIFO) / LB, geometric mean over the points


def test_fig23_gap_to_fifo_must_grow_at_every_step():
    recs = [dict(r, objective=r["objective"] * (0.9 if r["size"]["jobs"] == 300 else 1.0))
            if r["variant"] == "fifo" else r for r in fig23(100.0)]
    parts = {p.part.key: p for p in judge_fig23(recs, "full").readings[0].parts}
    assert parts["gap-grows"].outcome == "fails" and "300 jobs" in parts["gap-grows"].reason


def test_a_baseline_trend_is_context_and_never_moves_the_word():
    # Sched_Allo's JCT falls once along the jobs: the context part fails, the word does not move
    recs = [dict(r, objective=r["objective"] * (3.0 if r["size"]["jobs"] == 200 else 1.0))
            if r["variant"] == "sched-allo" else r for r in fig23(100.0)]
    rv = judge_fig23(recs, "full").readings[0]
    parts = {p.part.key: p for p in rv.parts}
    assert parts["jct-grows"].outcome == "fails" and parts["jct-grows"].part.subject == "context"
    assert rv.setup_word == "reproduced"
    # Fig. 22: HLAS loses to 2D-LAS everywhere; 2D-LAS beating FIFO does not lift the word
    recs = []
    for g in (100, 140, 180):
        recs += point({**BASE, "hlas": 100.0, "2d-las": 60.0, "fifo": 250.0, "sched-homo": 294.0}, jobs=200, gpus=g)
    rv = judge_fig22(recs, "full").readings[0]
    assert {p.part.key: p.outcome for p in rv.parts} == {
        "vs-2dlas": "fails", "vs-others": "fails", "2dlas-vs-fifo": "holds"}
    assert rv.setup_word == "not reproduced"


def test_fig22_and_abstract():
    recs = []
    for g in (100, 140, 180):
        recs += point({**BASE, "hlas": 100.0, "2d-las": 204.0, "fifo": 250.0, "sched-homo": 294.0}, jobs=200, gpus=g)
    j = judge_fig22(recs, "full")
    assert {p.part.key: p.outcome for p in j.readings[0].parts} == {
        "vs-2dlas": "holds", "vs-others": "holds", "2dlas-vs-fifo": "holds"}
    a = judge_abstract(recs, "full")
    out, pr = a.readings[0].parts
    assert pr.points[0].label == "vs Sched_Homo" and pr.outcome == "holds"
    assert out.part.key == "outperform" and out.outcome == "holds"
    # the abstract's "can outperform the state-of-the-art": one baseline ahead of HLAS fails it
    recs = [dict(r, objective=90.0) if r["variant"] == "2d-las" else r for r in recs]
    a = judge_abstract(recs, "full")
    assert [p.outcome for p in a.readings[0].parts] == ["fails", "holds"]
    assert a.readings[0].setup_word == "partially reproduced"


def test_fig24_contradicts_itself_whatever_the_numbers():
    recs = []
    for u, v in ((10, 50.0), (40, 60.0), (160, 70.0)):
        recs += point({"hlas": v}, groups=u)
    j = judge_fig24(recs, "full")
    assert j.verdict.startswith("inconclusive (the claim contradicts itself)")
    assert [p.outcome for p in j.readings[0].parts] == ["fails", "holds"]
    assert judge_fig24([], "full").verdict == "not run"


def test_hlasp_and_fig12_judges():
    recs = []
    for g in (100, 180):
        recs += point({"hlas": 142.0, "hlas-p": 100.0, "hlas-l": 140.0, "fifo": 200.0, "lower-bound": 10.0},
                      jobs=200, gpus=g)
    j = judge_hlasp(recs, "full")
    assert [p.outcome for p in j.readings[0].parts] == ["holds", "holds", "holds"]
    assert j.verdict.startswith("inconclusive (the paper's workload and its predictor")
    ex = [{"variant": m, "method": m, "objective": v, "status": "feasible"}
          for m, v in {"hlas": 20 / 3, "srtf": 16 / 3, "hlas-p": 17 / 3}.items()]
    # a consistency check: the queue width is ours, chosen to give Fig. 12(a)
    assert judge_fig12(ex, "full").verdict.startswith("inconclusive (the example's queue thresholds")
    assert judge_fig12(ex, "full").readings[0].setup_word == "reproduced"
    ex[0]["objective"] = 7.0
    assert judge_fig12(ex, "full").readings[0].setup_word == "partially reproduced"


def test_hlasl_trivial_improvement_is_slight_and_signed():
    def parts(hlas_l):
        recs = []
        for g in (100, 180):
            recs += point({"hlas": 142.0, "hlas-p": 100.0, "hlas-l": hlas_l, "fifo": 200.0, "lower-bound": 10.0},
                          jobs=200, gpus=g)
        return {p.part.key: p.outcome for p in judge_hlasp(recs, "full").readings[0].parts}
    assert parts(140.0)["l-trivial"] == "holds"  # 1.4% better: trivial
    assert parts(142.0 / 1.24)["l-trivial"] == "direction only"  # 24% better: not trivial, the right sign
    assert parts(145.0)["l-trivial"] == "fails"  # worse than HLAS: no improvement at all


@pytest.mark.parametrize("width, hlas, hlasp", [(2, 6.0, 19 / 3), (3, 16 / 3, 16 / 3)])
def test_fig12_depends_on_the_queue_width_we_choose(width, hlas, hlasp):
    """The caveat's numbers: other queue widths give other averages (the width is ours)."""
    d = dmlsched.to_dict(dmlsched.load(FIG12))
    d["queues"] = [[k * width, (k + 1) * width] for k in range(4)] + [[4 * width, None]]
    inst = dmlsched.from_dict(d)
    assert dmlsched.solve(inst, "hlas").objective == pytest.approx(hlas)
    assert dmlsched.solve(inst, "hlas-p").objective == pytest.approx(hlasp)


def test_fig24_total_jct_read_as_makespan_is_judged_without_contradiction():
    recs = []
    for u, (v, mk) in ((10, (50.0, 900.0)), (40, (60.0, 800.0)), (160, (70.0, 850.0))):
        r = rec("hlas", v, groups=u)
        r["details"] = {"makespan": mk}
        recs.append(r)
    j = judge_fig24(recs, "full")
    mk = next(r for r in j.readings if r.name == "total-makespan")
    assert not mk.contradicts and [p.outcome for p in mk.parts] == ["fails", "holds"]
    assert "makespan 40 groups -> 160 groups" in mk.parts[0].reason


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.key for c in CLAIMS])
def test_quick_scale_runs_on_the_bench_engine(claim, tmp_path):
    res = run_sweep(claim.suite("quick"), out=str(tmp_path / "r.jsonl"), workers=0, progress=False)
    assert res.records and not [r for r in res.records if r.get("status") == "error"]
    j = claim.judge(res.records, "quick")
    assert verdict_word(j.verdict), j.verdict
    assert not ceiling_violations(claim, res.records)


def test_abstract_counts_the_setting_shared_by_figs_22_and_23_once():
    """200 jobs on 160 GPUs is a point of Fig. 23 (jobs axis) and of Fig. 22 (GPUs axis): one setting,
    one point of the abstract's geometric mean (an independent check found it counted twice)."""
    recs = []
    for n in (100, 200, 300):
        recs += point({"hlas": 100.0, "fifo": 150.0}, jobs=n, gpus=160)
    for g in (100, 160, 180):
        recs += point({"hlas": 100.0, "fifo": 150.0}, jobs=200, gpus=g)
    pts = abstract_points(recs, "full")
    assert sorted(pts) == sorted(["100 jobs", "200 jobs", "300 jobs", "100 GPUs", "180 GPUs"])
    # one changed value at the shared setting moves the mean as one point of five, not two of six
    recs = [dict(r, objective=50.0) if r["variant"] == "hlas" and r["size"] == {"jobs": 200, "gpus": 160,
                                                                                  "groups": 40} else r for r in recs]
    a = judge_abstract(recs, "full")
    vs_fifo = next(p for p in a.readings[0].parts[0].points if p.label == "vs Gavel_FIFO")
    assert vs_fifo.ours == pytest.approx((1.5 ** 4 * 3.0) ** (1 / 5))
