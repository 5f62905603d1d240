"""The HLAS claims: judges on hand-written records, and the quick scale of every claim
on the bench engine."""

from __future__ import annotations

import pytest

from dmlsched.bench import run_sweep
from dmlsched.bench.reproduce import verdict_word
from dmlsched.claims import all_claims
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


def rec(variant, objective, *, setup="paper", jobs=200, gpus=160, groups=40, seed=0, status="feasible"):
    return {"variant": variant, "method": variant.split("@")[0], "objective": objective, "status": status,
            "label": f"setup={setup};jobs={jobs}(num_jobs={jobs}, seed={seed})",
            "source": f"dmlsched.generate.hlas:generate?{{}}&seed={seed}",
            "size": {"jobs": jobs, "gpus": gpus, "groups": groups}}


def point(values, **kw):
    return [rec(v, x, **kw) for v, x in values.items()]


def test_every_claim_is_declared_completely():
    assert {c.key for c in CLAIMS} == {"hlas-fig23", "hlas-fig22", "hlas-abstract", "hlas-fig24",
                                       "hlas-p-fig26-27", "hlas-fig12"}
    assert {c.key for c in all_claims(["hlas"])} == {c.key for c in CLAIMS}
    for c in CLAIMS:
        assert c.quote and c.where and c.claimed and c.setup
        for scale in ("quick", "full"):
            s = c.suite(scale)
            assert s.sources and s.methods
    defaults = [r for r in READINGS if r.default]
    assert {r.name for r in defaults} == {"group-idle-any", "batch", "sizes-pareto", "contended", "fifo-gavel",
                                          "2dlas-tiresias"}
    # the variants' options are real options of the methods
    import dmlsched

    for v, (_, opts) in ALL_VARIANTS.items():
        names = {o.name for o in dmlsched.get_method("hlas", v.split("@")[0]).options}
        assert set(opts) <= names, v


def test_fig23_judge_factors_and_ceiling():
    recs = []
    for jobs, seed in [(100, 0), (100, 1), (300, 0)]:
        recs += point({"hlas": 50.0, "fifo": 85.0, "fifo@relaxed": 60.0, "2d-las": 55.0, "srtf": 30.0,
                       "hlas@all": 100.0}, jobs=jobs, seed=seed)
    recs += point({"hlas": 10.0, "fifo": 9.0, "2d-las": 9.5, "srtf": 9.0, "fifo@relaxed": 9.0}, setup="light", jobs=200)
    j = judge_fig23(recs, "full")
    assert j.verdict.startswith("reproduced: vs FIFO (1.69x): reproduced under the default readings (1.70x)")
    assert "vs 2D-LAS (1.1x): reproduced (1.10x" in j.verdict
    rows = {r.reading: r for r in j.rows}
    ceil = next(r for r in j.rows if r.reading.startswith("ceiling") and "paper" in r.reading)
    assert ceil.ours.startswith("2.83x")
    lceil = next(r for r in j.rows if r.reading.startswith("ceiling") and "light" in r.reading)
    assert lceil.ours.startswith("1.00x")
    worse = [r for name, r in rows.items() if name.startswith("HLAS (batch, group takes work only when all")
             and "Gavel_FIFO" in name]
    assert worse and worse[0].verdict == "not reproduced"  # 85 / 100 < 1
    assert any("ALL its GPUs are idle" in c for c in j.caveats)
    assert j.verdict.split(":")[0] == "reproduced" and j.verdict.split(":")[1].strip() == "vs FIFO (1.69x)"


def test_fig23_judge_skips_failed_runs_and_reports_not_run():
    assert judge_fig23([], "full").verdict == "not run"
    recs = point({"hlas": 50.0, "fifo": 100.0, "2d-las": 60.0, "srtf": 40.0})
    recs.append(rec("2d-las", None, status="error"))
    j = judge_fig23(recs, "quick")
    assert "2.00x" in j.verdict and "(1.20x" in j.verdict


def test_fig22_judge_names_the_best_reading():
    recs = []
    for gpus in (100, 160):
        recs += point({"hlas": 50.0, "hlas@accounting": 40.0, "2d-las": 60.0, "2d-las@relaxed": 45.0,
                       "fifo": 90.0, "srtf": 35.0}, gpus=gpus, jobs=200)
    j = judge_fig22(recs, "full")
    assert j.verdict.startswith("partially reproduced under the default readings (1.20x")
    assert "best over the readings 1.50x" in j.verdict and "not reached under any reading" in j.verdict


def test_abstract_judge_takes_the_largest_factor():
    recs = point({"hlas": 50.0, "fifo": 150.0, "2d-las": 60.0, "srtf": 40.0}, jobs=300)
    recs += point({"hlas": 50.0, "fifo": 100.0, "2d-las": 60.0, "srtf": 40.0}, jobs=100)
    j = judge_abstract(recs, "full")
    assert j.verdict.startswith("reproduced: largest factor 3.00x (vs Gavel_FIFO)")


@pytest.mark.parametrize("values, word", [((100.0, 80.0, 60.0), "falls"), ((60.0, 80.0, 100.0), "rises"),
                                          ((60.0, 60.0, 60.0), "flat")])
def test_fig24_judge_quotes_both_halves(values, word):
    recs = []
    for u, v in zip((10, 40, 160), values):
        recs += point({"hlas": v}, groups=u)
    j = judge_fig24(recs, "full")
    assert f"JCT {word} with more groups" in j.verdict or f"JCT is {word} with more groups" in j.verdict
    assert any("total JCT decreases" in c for c in j.caveats) and any("average JCT increases" in c for c in j.caveats)


def test_hlasp_and_fig12_judges():
    j = judge_hlasp(point({"hlas": 142.0, "hlas-p": 100.0}), "full")
    assert j.verdict.startswith("reproduced (1.42x")
    j = judge_hlasp(point({"hlas": 105.0, "hlas-p": 100.0}), "full")
    assert j.verdict.startswith("partially reproduced")
    ok = [{"variant": m, "method": m, "objective": v, "status": "feasible"}
          for m, v in (("hlas", 20 / 3), ("srtf", 16 / 3), ("hlas-p", 17 / 3))]
    assert judge_fig12(ok, "quick").verdict == "reproduced"
    ok[0]["objective"] = 7.0
    assert judge_fig12(ok, "quick").verdict == "not reproduced"


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.key for c in CLAIMS])
def test_quick_scale_runs_on_the_bench_engine(claim):
    res = run_sweep(claim.suite("quick"), workers=0, progress=False)
    assert res.records and all(r["status"] == "feasible" for r in res.records), [
        (r["variant"], r.get("error")) for r in res.records if r["status"] != "feasible"]
    j = claim.judge(res.records, "quick")
    assert verdict_word(j.verdict), j.verdict
    assert j.rows
