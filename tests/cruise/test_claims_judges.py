"""The Cruise claims (src/dmlsched/problems/cruise/claims.py): judges on hand-written
records, and every claim's quick suite run end to end."""

from __future__ import annotations

import pytest

from dmlsched.bench import run_sweep
from dmlsched.claims import VERDICTS, all_claims
from dmlsched.problems.cruise import claims as C


def rec(inst, variant, objective, *, status="feasible", name="cruise-NMF-homogeneous-32", **details):
    method = variant.split("@")[0]
    return {"instance_hash": inst, "method": method, "variant": variant, "status": status,
            "objective": objective, "instance_name": name, "details": details,
            "size": details.pop("size", {}), "runtime_s": details.pop("runtime_s", 0.01)}


def test_table_3_4_judge_follows_the_worst_app():
    good = [rec("a", "exact", 100.0, status="optimal"), rec("a", "closed-form", 104.0, workers=22),
            rec("a", "closed-form@exact", 100.0, workers=23), rec("a", "proportional", 100.0, workers=23),
            rec("b", "exact", 50.0, status="optimal", name="cruise-LDA-homogeneous-32"),
            rec("b", "closed-form", 50.0, workers=18, name="cruise-LDA-homogeneous-32")]
    j = C.judge_table_3_4(good, "quick")
    assert j.verdict.startswith("reproduced") and "96.15%" in j.measured
    bad = good + [rec("c", "exact", 10.0, status="optimal", name="cruise-MLR-homogeneous-32"),
                  rec("c", "closed-form", 11.0, workers=20, name="cruise-MLR-homogeneous-32")]
    j = C.judge_table_3_4(bad, "quick")
    assert j.verdict.startswith("not reproduced")
    assert any("MLR" in r.reading and r.verdict == "not reproduced" for r in j.rows)
    # an unproven reference is not a ground truth
    assert C.judge_table_3_4([rec("a", "exact", 100.0), rec("a", "closed-form", 104.0)], "quick").verdict == "not run"


def test_integer_judge_buckets_by_minibatches_per_worker():
    recs = []
    for k, (batches, workers, gap) in enumerate([(2, 4, 0.2), (40, 4, 0.01), (400, 10, 0.0)]):
        h = f"i{k}"
        recs += [rec(h, "exact", 1.0, status="optimal", size={"minibatches": batches}),
                 rec(h, "closed-form", 1.0 + gap, workers=workers),
                 rec(h, "closed-form@exact", 1.0)]
    j = C.judge_integer(recs, "quick")
    assert j.verdict.startswith("partially reproduced") and "20.00%" in j.verdict
    rows = {r.reading: r for r in j.rows}
    assert any("0 <= " in k and rows[k].verdict == "not reproduced" for k in rows)
    assert any("16 <= " in k and rows[k].verdict == "reproduced" for k in rows)


def test_ground_truth_judge_names_the_reading():
    name = "cruise-NMF-heterogeneous-28+4"
    recs = [rec("a", "exact", 10.0, status="optimal", name=name),
            rec("a", "proportional", 11.9, workers=16, name=name),
            rec("a", "proportional@effective", 10.05, workers=19, name=name)]
    j = C.judge_ground_truth(recs, "quick")
    assert j.verdict.startswith("reproduced under reading effective") and "compute" in j.verdict


def test_speed_judge():
    recs = [rec("a", "closed-form", 1.0, runtime_s=0.004),
            rec("b", "exact", 2.0, status="optimal", name="cruise-NMF-heterogeneous-28+4", runtime_s=3.0)]
    assert C.judge_speed(recs, "full").verdict == "reproduced"
    recs[1]["status"] = "feasible"
    assert C.judge_speed(recs, "full").verdict == "partially reproduced"


def test_every_claim_is_complete():
    claims = all_claims(["cruise"])
    assert {c.key for c in claims} == {"cruise-table-3.4", "cruise-3.5-integer", "cruise-3.4.5-ground-truth",
                                      "cruise-3.4.6-speed"}
    for c in claims:
        assert c.quote and c.where and c.claimed and c.setup
        for scale in ("quick", "full"):
            assert c.suite(scale).sources


@pytest.mark.slow
@pytest.mark.parametrize("key", ["cruise-table-3.4", "cruise-3.5-integer", "cruise-3.4.5-ground-truth",
                                 "cruise-3.4.6-speed"])
def test_quick_run_gives_a_verdict(key):
    claim = next(c for c in all_claims(["cruise"]) if c.key == key)
    out = run_sweep(claim.suite("quick"), workers=0, progress=False)
    assert all(r["status"] != "error" for r in out.records), [r.get("error") for r in out.records]
    j = claim.judge(out.records, "quick")
    assert any(j.verdict.startswith(v) for v in VERDICTS if v != "not run"), j.verdict
    assert j.rows
