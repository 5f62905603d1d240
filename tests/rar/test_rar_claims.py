"""The family's claims (problems/rar/claims.py): judges on hand-written records,
every claim's quick form runs on the bench engine."""

from __future__ import annotations

import pytest

import dmlsched
import dmlsched.bench  # the quick-form test runs a sweep (dmlsched does not import bench by itself)
from dmlsched.claims import VERDICTS
from dmlsched.problems.rar.claims import CLAIMS, _shape, judge_fig4, judge_fig6, judge_thm5


def _rec(h, variant, makespan, jct, bound=None, **kw):
    return {"instance_hash": h, "variant": variant, "method": variant.split("@")[0], "status": "feasible",
            "objective": makespan, "details": {"average_jct": jct}, "reference_bound": bound, **kw}


def _fig4(sjf_better: bool, input_better: bool):
    recs = []
    for h in ("a", "b"):
        recs.append(_rec(h, "sjf-bco", 100, 50, bound=80))
        recs.append(_rec(h, "greedy", 85, 60, bound=80))
        for b in ("ff", "ls", "rand"):
            recs.append(_rec(h, f"{b}@sjf", 110 if sjf_better else 95, 55 if sjf_better else 45))
            recs.append(_rec(h, f"{b}@input", 110 if input_better else 95, 70 if input_better else 45))
    return recs


def test_fig4_verdict_names_the_reading():
    both = judge_fig4(_fig4(True, True), "full")
    assert both.verdict.startswith("reproduced (under both")
    one = judge_fig4(_fig4(False, True), "full")
    assert one.verdict.startswith("reproduced under reading order=input; fails under order=sjf")
    assert "FF makespan" in one.verdict and "RAND JCT" in one.verdict
    none = judge_fig4(_fig4(False, False), "full")
    assert none.verdict == "not reproduced under either job order"
    ctx = [r for r in both.rows if r.reading.startswith("context")][0]
    assert "SJF-BCO mean 1.250" in ctx.ours and "greedy mean 1.062" in ctx.ours
    assert judge_fig4([], "full").verdict == "not run"


def test_fig4_partial_when_one_metric_holds():
    recs = []
    for b in ("ff", "ls", "rand"):
        for o in ("sjf", "input"):
            recs.append(_rec("a", f"{b}@{o}", 110, 40))  # SJF-BCO better makespan, worse JCT
    recs.append(_rec("a", "sjf-bco", 100, 50))
    j = judge_fig4(recs, "full")
    assert j.verdict.startswith("partially reproduced, depending on the baselines' job order")
    assert "order=sjf: lowest makespan (not lowest: FF JCT, LS JCT, RAND JCT)" in j.verdict
    assert all(r.verdict == "partially reproduced" for r in j.rows if r.reading.startswith("order="))


def test_shape_of_a_curve():
    assert _shape([5, 4, 4, 6, 3, 2]) == "-+-"
    assert _shape([3, 2, 1]) == "-" and _shape([1, 1]) == ""


def test_fig6_reads_the_generator_parameters():
    recs = []
    for n, (s, f, ls) in {10: (300, 400, 350), 15: (280, 330, 320), 20: (250, 260, 300)}.items():
        src = f'dmlsched.generate.rar:servers_sweep?{{"num_servers": {n}}}&seed=0'
        recs.append(_rec(f"h{n}", "sjf-bco", s, 1, source=src))
        for o in ("sjf", "input"):
            recs.append(_rec(f"h{n}", f"ff@{o}", f, 1, source=src))
            recs.append(_rec(f"h{n}", f"ls@{o}", ls, 1, source=src))
    j = judge_fig6(recs, "full")
    assert j.verdict == "reproduced under both job orders"
    red = [r for r in j.rows if "largest reduction" in r.reading][0]
    assert "FF 140.0" in red.ours and red.verdict == "reproduced"


def test_theorem5_needs_a_violation_under_every_tie_order():
    src = "/x/instances/counterexamples/rar-theorem5-every-tie-rule.json"
    recs = [_rec("c", f"sjf-bco@ties-{t}", 7, 1, source=src, verdict="violated", ratio=7 / 6, claimed_bound=1.0,
                 reference_objective=6.0) for t in ("input", "longest", "shortest")]
    assert judge_thm5(recs, "full").verdict.startswith("not reproduced: false under every reading")
    recs[1]["verdict"] = "holds"
    assert judge_thm5(recs, "full").verdict.startswith("reproduced on these instances")


def test_every_claim_is_declared_in_full():
    keys = {c.key for c in CLAIMS}
    assert keys == {"rar-fig4", "rar-fig5", "rar-fig6", "rar-fig7", "rar-theorem5"}
    for c in CLAIMS:
        assert c.family == "rar" and c.quote and c.claimed and c.where.startswith("Section")
        full, quick = c.suite("full"), c.suite("quick")
        assert full.name != quick.name
        for r in c.readings:
            assert r.quote and r.where
    fig4 = next(c for c in CLAIMS if c.key == "rar-fig4")
    assert [r.name for r in fig4.readings if r.default] == ["sjf", "rand-gpus"]
    src = fig4.suite("full").sources[0]
    assert src.generator.endswith(":paper_instance") and len(src.seeds) == 10


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_quick_form_runs(claim):
    out = dmlsched.bench.run_sweep(claim.suite("quick"), workers=0, progress=False)
    assert out.records and all(r["status"] != "error" for r in out.records)
    j = claim.judge(out.records, "quick")
    assert any(j.verdict.startswith(v) for v in VERDICTS), j.verdict
    assert j.rows
