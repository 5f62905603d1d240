"""The HLAS claims under the evidence rule: declarations, judges on hand-written records
(every word's boundary the issue names), and the quick scale of every claim on the bench
engine with a valid ceiling."""

from __future__ import annotations

import pytest

from dmlsched.bench import run_sweep
from dmlsched.bench.reproduce import verdict_word
from dmlsched.claims import all_claims, ceiling_violations
from dmlsched.problems.hlas.claims import (
    ALL_VARIANTS,
    CLAIMS,
    READINGS,
    judge_abstract,
    judge_fig12,
    judge_fig22,
    judge_fig23,
    judge_fig24,
    judge_hlasp,
)


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
    recs = []
    for jobs, scale in ((100, 1.0), (200, 1.5), (300, 2.0)):
        vals = {**BASE, **over, "hlas": hlas}
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
    assert {r.name for r in READINGS if r.default} == {"group-idle-all", "batch", "fifo-gavel", "2dlas-fastest"}
    assert all(r.quote and "(the paper gives" not in r.quote for r in READINGS)  # every quote is the paper's
    import dmlsched

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
        "vs-fifo": "holds", "vs-2dlas": "holds", "always": "holds", "jct-grows": "holds"}
    assert good.readings[0].word == "inconclusive" and good.readings[0].setup_word == "reproduced"
    assert "vs-fifo 16.90x" in good.ceiling  # W(FIFO) / LB


def test_fig22_and_abstract():
    recs = []
    for g in (100, 140, 180):
        recs += point({**BASE, "hlas": 100.0, "2d-las": 204.0, "fifo": 250.0, "sched-homo": 294.0}, jobs=200, gpus=g)
    j = judge_fig22(recs, "full")
    assert {p.part.key: p.outcome for p in j.readings[0].parts} == {
        "vs-2dlas": "holds", "vs-others": "holds", "2dlas-vs-fifo": "holds"}
    a = judge_abstract(recs, "full")
    pr = a.readings[0].parts[0]
    assert pr.points[0].label == "vs Sched_Homo" and pr.outcome == "holds"


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
    assert judge_fig12(ex, "full").verdict == "reproduced"
    ex[0]["objective"] = 7.0
    assert judge_fig12(ex, "full").verdict.startswith("partially reproduced")


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.key for c in CLAIMS])
def test_quick_scale_runs_on_the_bench_engine(claim, tmp_path):
    res = run_sweep(claim.suite("quick"), out=str(tmp_path / "r.jsonl"), workers=0, progress=False)
    assert res.records and not [r for r in res.records if r.get("status") == "error"]
    j = claim.judge(res.records, "quick")
    assert verdict_word(j.verdict), j.verdict
    assert not ceiling_violations(claim, res.records)
