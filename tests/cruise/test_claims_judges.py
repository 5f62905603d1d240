"""The Cruise claims (src/dmlsched/problems/cruise/claims.py): judges on hand-written
records, and every claim's quick suite run end to end."""

from __future__ import annotations

import pytest

from dmlsched.bench import run_sweep
from dmlsched.claims import VERDICTS, all_claims, ceiling_violations, summary_word
from dmlsched.generate.cruise import heterogeneous_cluster
from dmlsched.problems.cruise import claims as C
from dmlsched.problems.cruise.baselines import proportional, role_candidates
from dmlsched.problems.cruise.heuristics import _config
from dmlsched.problems.cruise.solution import evaluate


def rec(inst, variant, objective, *, status="feasible", name="cruise-NMF-homogeneous-32", **details):
    method = variant.split("@")[0]
    return {"instance_hash": inst, "method": method, "variant": variant, "status": status,
            "objective": objective, "instance_name": name, "details": details,
            "size": details.pop("size", {}), "runtime_s": details.pop("runtime_s", 0.01)}


def test_table_3_4_is_a_model_check_and_exact_is_not_support():
    good = [rec("a", "exact", 100.0, status="optimal"), rec("a", "closed-form", 104.0, workers=22),
            rec("a", "closed-form@exact", 100.0, workers=23), rec("a", "proportional", 100.0, workers=23),
            rec("b", "exact", 50.0, status="optimal", name="cruise-LDA-homogeneous-32"),
            rec("b", "closed-form", 50.0, workers=18, name="cruise-LDA-homogeneous-32")]
    j = C.judge_table_3_4(good, "quick")
    assert j.verdict.startswith("inconclusive (the workloads are calibrated")
    assert j.readings[0].setup_word == "reproduced"
    assert "(and exact)" not in j.verdict and all(r.verdict == "" for r in j.rows)  # exact is the ground truth
    bad = good + [rec("c", "exact", 10.0, status="optimal", name="cruise-MLR-homogeneous-32"),
                  rec("c", "closed-form", 11.0, workers=20, name="cruise-MLR-homogeneous-32")]
    j = C.judge_table_3_4(bad, "quick")
    assert j.readings[0].parts[0].outcome == "fails" and "MLR" in j.readings[0].parts[0].reason
    # an unproven reference is not a ground truth
    assert C.judge_table_3_4([rec("a", "exact", 100.0), rec("a", "closed-form", 104.0)], "quick").verdict == "not run"


def test_integer_judge_is_a_theory_check():
    recs = []
    for k, (batches, workers, gap) in enumerate([(2, 4, 0.2), (40, 4, 0.01), (400, 10, 0.0)]):
        h = f"i{k}"
        recs += [rec(h, "exact", 1.0, status="optimal", size={"minibatches": batches}),
                 rec(h, "closed-form", 1.0 + gap, workers=workers),
                 rec(h, "closed-form@exact", 1.0)]
    j = C.judge_integer(recs, "quick")
    # two statements: the even split is optimal (holds), (3.5) is (fails)
    assert [p.outcome for p in j.readings[0].parts] == ["holds", "fails"]
    assert j.verdict == "partially reproduced" and "1.2" in j.ours
    rows = {r.reading: r for r in j.rows}
    assert any("0 <= " in k and "0/1 optimal" in rows[k].ours for k in rows)
    recs = [r for r in recs if r["instance_hash"] not in ("i0", "i1")]
    assert C.judge_integer(recs, "quick").verdict == "reproduced"
    recs.append(rec("i9", "exact", 1.0, status="optimal"))
    recs += [rec("i9", "closed-form", 1.1, workers=3), rec("i9", "closed-form@exact", 1.05)]
    assert C.judge_integer(recs, "quick").verdict == "not reproduced"  # no even split optimal there either


def test_ground_truth_judge_per_reading():
    name = "cruise-NMF-heterogeneous-28+4"
    recs = [rec("a", "exact", 10.0, status="optimal", name=name),
            rec("a", "proportional@compute", 11.9, workers=16, name=name),
            rec("a", "proportional@effective", 10.05, workers=19, name=name)]
    # MLR is context: the sentence is about NMF (Fig. 3.6)
    mlr = "cruise-MLR-heterogeneous-28+4"
    recs += [rec("b", "exact", 10.0, status="optimal", name=mlr), rec("b", "proportional@effective", 13.0, name=mlr)]
    j = C.judge_ground_truth(recs, "quick")
    # the default reading is the released optimizer's split (test_effective_is_the_released_optimizers_split)
    assert [(v.name, v.setup_word) for v in j.readings] == [("effective", "reproduced"), ("compute", "not reproduced")]
    assert [p.label for p in j.readings[0].parts[0].points] == ["NMF"]
    assert any("MLR (context)" in r.reading for r in j.rows)
    assert j.verdict.startswith("inconclusive")
    # the summary says that the word depends on the reading (the general rule of dmlsched.claims.summary_word)
    assert summary_word(j.readings) == ("inconclusive", "with this setup: reproduced; depends on the reading: "
                                                        "not reproduced under `compute`")


@pytest.mark.parametrize("app", ["NMF", "MLR", "LDA"])
def test_effective_is_the_released_optimizers_split(app):
    """The released Cruise optimizer (snuspl/cruise, HomogeneousOptimizer.generateWorkerPlanForOptimalConfig
    and generateServerPlanForOptimalConfig; read, rewritten here from its formula) gives worker i the
    share 1 / (B C_proc,i + pull max(1 / bw_i, W / sum of the servers' bw)) of the data blocks and each
    server the share bw_j / sum bw of the model blocks.  Searched over the same role splits, it gives the
    configuration of the `effective` reading on the claim's three instances (full scale): the same role
    split and the same epoch time up to the rounding of one block."""
    inst = heterogeneous_cluster(app=app)
    bw, B, M, n = inst.machine_bandwidth, inst.batch_size, inst.model_size, inst.num_machines
    best = None
    for workers in role_candidates(inst):
        servers = [j for j in range(n) if j not in set(workers)]
        total_bw, W = sum(bw[j] for j in servers), len(workers)
        data = [1.0 / (B * inst.p[i] + M * max(1.0 / bw[i], W / total_bw)) for i in workers]
        cfg = _config(inst, workers, data, [bw[j] for j in servers])
        v = evaluate(inst, cfg)
        if best is None or v < best[0]:
            best = (v, cfg)
    eff, comp = proportional(inst, data="effective"), proportional(inst, data="compute")
    assert best[1].w == eff.w
    assert evaluate(inst, eff) == pytest.approx(best[0], rel=1e-5)
    assert max(abs(a - b) for a, b in zip(eff.d, best[1].d)) <= 1
    assert evaluate(inst, comp) > 1.05 * best[0]  # the other reading is another configuration


def test_speed_judge():
    recs = [rec("a", "closed-form", 1.0, runtime_s=0.004),
            rec("b", "exact", 2.0, status="optimal", name="cruise-NMF-heterogeneous-28+4", runtime_s=3.0)]
    assert C.judge_speed(recs, "full").readings[0].setup_word == "reproduced"
    recs[1]["status"] = "feasible"  # not proven: no time to compare
    assert C.judge_speed(recs, "full").readings[0].setup_word == "partially reproduced"


def test_58_judge_per_app_and_its_ceiling():
    recs = []
    for app, (opt, static) in {"NMF": (65.0, 100.0), "MLR": (41.7, 100.0), "LDA": (58.7, 100.0)}.items():
        name = f"cruise-{app}-heterogeneous-28+4"
        recs += [rec(app, "exact", opt, status="optimal", name=name), rec(app, f"static@{app}", static, name=name)]
        recs += [rec(app, f"static@{o}", 200.0, name=name) for o in ("NMF", "MLR", "LDA") if o != app]
    j = C.judge_58(recs, "full")
    assert [p.outcome for p in j.readings[0].parts] == ["holds", "holds", "holds"]
    assert j.readings[0].word == "inconclusive" and "MLR 58.3%" in j.ceiling


def test_every_claim_is_complete():
    claims = all_claims(["cruise"])
    assert {c.key for c in claims} == {"cruise-table-3.4", "cruise-3.5-integer", "cruise-3.4.5-ground-truth",
                                      "cruise-3.4.6-speed", "cruise-58.3"}
    for c in claims:
        assert c.quote and c.where and c.claimed and c.setup and c.parts and c.setups and c.default_reason
        for scale in ("quick", "full"):
            assert c.suite(scale).sources
    roles = {c.key: c.role for c in claims}
    assert roles["cruise-table-3.4"] == "model check" and roles["cruise-3.5-integer"] == "theory"


@pytest.mark.slow
@pytest.mark.parametrize("key", ["cruise-table-3.4", "cruise-3.5-integer", "cruise-3.4.5-ground-truth",
                                 "cruise-3.4.6-speed", "cruise-58.3"])
def test_quick_run_gives_a_verdict(key):
    claim = next(c for c in all_claims(["cruise"]) if c.key == key)
    out = run_sweep(claim.suite("quick"), workers=0, progress=False)
    assert all(r["status"] != "error" for r in out.records), [r.get("error") for r in out.records]
    j = claim.judge(out.records, "quick")
    assert any(j.verdict.startswith(v) for v in VERDICTS if v != "not run"), j.verdict
    assert j.rows
    assert not ceiling_violations(claim, out.records)
