"""The solver-guided hunt for Hare's Algorithm 1 (dmlsched.problems.hare.guided):
the decision-trace replica reproduces the list phase, the LP encodes it
exactly, never proposes an invalid instance, raises the certified ratio on a
planted instance, and the strategy is reproducible by seed."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import dmlsched
import dmlsched.hunt as H
from dmlsched import registry
from dmlsched.cli import main
from dmlsched.family import Ref
from dmlsched.hunt import search
from dmlsched.problems.hare import guided as G
from dmlsched.problems.hare.bounds import alpha
from dmlsched.problems.hare.listsched import PLACEMENTS, list_schedule, priority_order

ROOT = Path(__file__).resolve().parents[2]


def _ctx(method: str = "list", options: dict | None = None, size: dict | None = None) -> H.Context:
    space = H.get_space("hare")
    ev = H.Evaluator("hare", method, options=options, keep_solutions=8)
    return H.Context(space=space, evaluator=ev, rng=np.random.default_rng(0), size=space.size(size),
                     seconds=None, max_evals=None, target=None, objective="excess")


def _sample(seed: int, size: dict | None = None) -> dict:
    space = H.get_space("hare")
    return space.sample(np.random.default_rng(seed), space.size(size))


def _structure(d: dict) -> tuple:
    return (tuple(d["gpus"]), tuple((j["id"], j["weight"], j["rounds"], j["tasks_per_round"]) for j in d["jobs"]))


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_trace_replica_reproduces_the_list_phase(placement):
    """The replica with its trace is the family's list phase (GPU and start of
    every task), on random instances and random priority orders (no solver)."""
    rng = np.random.default_rng(1)
    for seed in range(60):
        inst = dmlsched.from_dict(_sample(seed, {"gpus": 3, "tasks": 8, "types": 2}))
        order = priority_order(inst, rng.random(inst.num_tasks))
        real = list_schedule(inst, order, placement)
        tr = G.trace_list(inst, order, placement)
        assert G.same_schedule(inst, tr, real)
        # every recorded decision is what the rules say
        for i in range(inst.num_tasks):
            j = tr.barrier[i]
            assert (j < 0) == (inst.task_round[i] == 0)
        # a perturbed schedule is detected
        bad = copy.deepcopy(real)
        bad.start[0] += 1e-3
        assert not G.same_schedule(inst, tr, bad)


def test_placements_differ_and_the_replica_follows_each():
    """Two idle GPUs: earliest start takes the lowest index, earliest available
    the one idle the longest; the replica records each choice."""
    d = {"problem": "hare", "gpus": ["A", "A"], "jobs": [
        {"id": "a", "arrival": 0.0, "weight": 1.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"A": 2.0}, "sync_time": {"A": 0.0}},
        {"id": "b", "arrival": 0.0, "weight": 1.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"A": 1.0}, "sync_time": {"A": 0.0}},
        {"id": "c", "arrival": 5.0, "weight": 1.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"A": 1.0}, "sync_time": {"A": 0.0}}]}
    inst = dmlsched.from_dict(d)
    order = np.array([0, 1, 2])
    es, ea = G.trace_list(inst, order, "earliest-start"), G.trace_list(inst, order, "earliest-available")
    assert es.gpu.tolist() == [0, 1, 0] and ea.gpu.tolist() == [0, 1, 1]
    assert not es.by_gpu[2] and not ea.by_gpu[2]  # both start at the arrival 5
    for tr, p in ((es, "earliest-start"), (ea, "earliest-available")):
        assert G.same_schedule(inst, tr, list_schedule(inst, order, p))


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), placement=st.sampled_from(PLACEMENTS),
       method=st.sampled_from(["list", "list-queyranne"]))
def test_lp_step_never_proposes_an_invalid_instance(seed, placement, method):
    """Every proposal loads, keeps the structure (jobs, rounds, tasks, GPUs,
    weights) and does not raise alpha, hence the claimed bound."""
    d = _sample(seed, {"gpus": 3, "tasks": 5, "jobs": 3})
    ctx = _ctx(method, {"placement": placement})
    s = ctx.evaluator(d)
    assume(s.ratio is not None and math.isfinite(s.ratio))
    step = G.hare_lp_step(ctx, s)
    assert step.status in ("ok", "no_gain", "lp_infeasible"), step  # the replica matched the method
    assume(step.status == "ok")
    inst0 = dmlsched.from_dict(d)
    props = [p for stage in [step.proposals, *step.later] for p in stage]
    assert props
    for p in props:
        inst = dmlsched.from_dict(p)  # valid (raises otherwise)
        assert ctx.space.valid(p) and _structure(p) == _structure(d)
        assert alpha(inst) <= alpha(inst0) * (1 + 1e-7)
        assert ctx.evaluator.m.bound(inst) <= ctx.evaluator.m.bound(inst0) * (1 + 1e-6)
        assert np.all(inst.tc_type > 0) and np.all(inst.ts_type >= 0) and np.all(inst.arrival >= 0)
        assert all(math.isfinite(v) for v in inst.tc_type.ravel())


@pytest.mark.slow
def test_lp_encodes_the_list_schedule_exactly():
    """Where the real method keeps the trace at the LP's data, the list
    schedule's value is the LP's prediction times the normalisation and the
    optimum is at most the normalisation (the S* epigraph): the certified
    ratio is at least the prediction."""
    checked = 0
    for seed in range(40):
        d = _sample(seed, {"gpus": 2, "tasks": 5, "jobs": 3})
        inst = dmlsched.from_dict(d)
        res, ref = dmlsched.solve(inst, "list"), dmlsched.solve(inst, "exact")
        tr = G.hare_trace(inst, "list", {})
        assert G.same_schedule(inst, tr, res.solution)
        status, value, props = G.hare_lp(inst, tr, ref.solution, ref.objective, thetas=(1.0,))
        assert status == "optimal"
        assert value >= res.objective / ref.objective * (1 - 1e-6)  # the current data is (nearly) feasible
        new = dmlsched.from_dict(G.apply_hare_data(d, inst, props[0]))
        tr2 = G.hare_trace(new, "list", {})
        if not (np.array_equal(tr2.order, tr.order) and np.array_equal(tr2.gpu, tr.gpu)
                and np.array_equal(tr2.by_gpu, tr.by_gpu) and np.array_equal(tr2.barrier, tr.barrier)):
            continue  # the relaxation reordered: the proposal is only a proposal
        got = dmlsched.solve(new, "list").objective
        opt = dmlsched.solve(new, "exact").objective
        assert got == pytest.approx(value * ref.objective, rel=1e-6)
        assert opt <= ref.objective * (1 + 1e-6)
        assert got / opt >= value * (1 - 1e-6)
        checked += 1
        if checked >= 5:
            break
    assert checked >= 5


def _spt_trap_below_the_bound() -> dict:
    d = json.loads((ROOT / "instances/counterexamples/hare-theorem4-rl-spt-trap.json").read_text())
    for k in ("expected", "name", "description"):
        d.pop(k)
    d["jobs"][1]["train_time"]["V100"] = 0.5  # light tasks shortened: ratio 2.15 < 3
    return d


def test_guided_step_raises_the_certified_ratio_on_a_planted_instance():
    """One GPU, the paper's relaxation: light tasks of 0.5 before a heavy task
    of 1.25 (ratio 2.15 < alpha(2+alpha) = 3).  One LP step (with its line
    search) finds data with a certified ratio above 3: a violation."""
    ctx = _ctx("list")
    s = ctx.evaluator(_spt_trap_below_the_bound())
    assert s.certified and 2.1 < s.ratio < 3.0 and s.claimed == pytest.approx(3.0)
    step = G.hare_lp_step(ctx, s)
    assert step.status == "ok" and step.predicted > s.ratio
    scored = [ctx.evaluator(p) for stage in [step.proposals, *step.later] for p in stage]
    top = max(scored, key=lambda x: x.ratio)
    assert top.certified and top.ratio > s.ratio * 1.2
    assert top.violation and top.ratio > 3.0
    # the hunt's guided strategy started there gets it too (and records the LP's work)
    r = H.hunt("hare", "list", strategy="guided", budget=None, max_evals=12, seed=0, shrink_evals=0,
               start=_spt_trap_below_the_bound())
    assert r.best.violation and r.first_violation is not None
    assert r.notes["guided"]["lp_improved"] >= 1


def test_trace_mismatch_skips_the_lp(monkeypatch):
    """When the replica does not reproduce the method's schedule, no LP is built."""
    ctx = _ctx("list")
    s = ctx.evaluator(_spt_trap_below_the_bound())
    real = G.trace_list

    def shifted(inst, order, placement="earliest-start"):
        tr = real(inst, order, placement)
        tr.start = tr.start + 0.5
        return tr

    monkeypatch.setattr(G, "trace_list", shifted)
    step = G.hare_lp_step(ctx, s)
    assert step.status == "trace_mismatch" and step.proposals is None


def test_no_lp_step_starts_once_the_budget_is_spent(monkeypatch):
    """An LP step re-solves, replays and solves an LP, none of it scored, so the
    budget check of ``Context.score_many`` would not stop it: it checks the budget
    itself before each part (a guided hunt of 20 s ran 48 s before)."""
    ctx = _ctx("list")
    s = ctx.evaluator(_spt_trap_below_the_bound())
    calls = []
    monkeypatch.setattr(ctx.evaluator, "results", lambda data: calls.append(data))
    ctx.max_evals, ctx.steps = 1, 1  # spent
    with pytest.raises(H.search.BudgetSpent):
        G.hare_lp_step(ctx, s)
    assert calls == []
    # spent between the re-solve and the replica: no replica, no LP
    ctx.max_evals, ctx.steps = None, 0
    monkeypatch.undo()
    real_results = ctx.evaluator.results

    def results_then_spent(data):
        out = real_results(data)
        ctx.max_evals, ctx.steps = 1, 1
        return out

    traced = []
    monkeypatch.setattr(ctx.evaluator, "results", results_then_spent)
    monkeypatch.setattr(G, "hare_trace", lambda *a, **k: traced.append(a))
    with pytest.raises(H.search.BudgetSpent):
        G.hare_lp_step(ctx, s)
    assert traced == []


def test_guided_hunt_is_reproducible_by_seed():
    kw = dict(strategy="guided", budget=None, max_evals=10, size={"tasks": 4, "gpus": 2, "jobs": 3},
              shrink_evals=5)
    a = H.hunt("hare", "list", seed=3, **kw)
    b = H.hunt("hare", "list", seed=3, **kw)
    assert [h[1:] for h in a.history] == [h[1:] for h in b.history]
    assert a.best.data == b.best.data and a.shrunk.data == b.shrunk.data
    assert a.notes == b.notes and a.notes["guided"]["lp_steps"] >= 1
    assert a.evaluations == b.evaluations == 10


def test_cli_guided_json_is_one_json_object(capfd):
    """HiGHS prints a banner on descriptor 1 when the first LP is made: the
    guided strategy silences it, so ``--json`` stays one JSON object."""
    code = main(["hunt", "hare", "-m", "list", "--strategy", "guided", "--max-evals", "4", "--json",
                 "--start", str(ROOT / "instances/counterexamples/hare-theorem4-rl-spt-trap.json"),
                 "--shrink-evals", "0"])
    out, err = capfd.readouterr()
    assert code == 0, err
    rec = json.loads(out)
    assert rec["strategy"] == "guided" and rec["notes"]["guided"]["lp_steps"] >= 1
    assert rec["best"]["violation"] is True  # the bundled counterexample, scored first


def test_the_hunt_finds_hares_strategy_through_its_family():
    """Hare's ``FAMILY.guided`` names its strategy for ``list`` and ``list-queyranne`` (a ``Ref``
    into ``guided.py``, the module role of a solver-guided strategy); the hunt resolves it there.
    Importing ``guided.py`` registers nothing, and a method with no strategy is refused with the
    families/methods that have one."""
    ref = Ref("dmlsched.problems.hare.guided:hare_guided")
    assert dict(registry.family("hare").guided) == {"list": ref, "list-queyranne": ref}
    assert search.guided_strategy("hare", "list") is G.hare_guided
    assert search.guided_strategy("hare", "list-queyranne") is G.hare_guided
    assert not [k for k in search._ADDED_GUIDED if k[0] == "hare"]
    with pytest.raises(H.HuntError, match=r"no solver-guided strategy for hare/exact; available: .*"
                                          r"hare/list, hare/list-queyranne"):
        search.guided_strategy("hare", "exact")
