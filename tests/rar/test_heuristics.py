"""SJF-BCO (Algorithms 1-3) and the FF / LS / RAND baselines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlsched
from dmlsched.budget import Budget
from dmlsched.generate.rar import PAPER_MIX, generate, paper_instance
from dmlsched.problems.rar import heuristics
from dmlsched.problems.rar.bounds import rho_hat
from dmlsched.problems.rar.heuristics import (
    GREEDY_RULES,
    NEVER,
    PRIORITIES,
    Dispatch,
    _order,
    bisection,
    fa_ffp,
    first_fit,
    greedy_search,
    job_order,
    kappa_representatives,
    lbsgf,
    list_schedule,
    sjf_bco_search,
)

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


def _cluster(servers, U, busy, G=(2,)):
    jobs = [{"id": f"j{i}", "gpus": g, "iterations": 4, "grad_size": 0.0, "fp_time": 0.0, "batch": 1,
             "bp_time": 0.2} for i, g in enumerate(G)]
    inst = dmlsched.from_dict({"problem": "rar", "servers": list(servers), "bandwidth": {"intra": 10.0, "inter": 1.0},
                               "gpu_speed": 10.0, "xi1": 1.0, "xi2": 0.01, "alpha": 0.0, "horizon": 100, "jobs": jobs})
    d = Dispatch(inst, np.full(inst.num_jobs, 4, dtype=np.int64))
    d.U[:] = U
    d.busy[:] = busy
    d.srv_U[:] = np.add.reduceat(d.U, inst.offsets[:-1])
    return d


def test_fa_ffp_picks_least_loaded_idle_eligible_gpus():
    # servers [2, 3]: GPUs 0,1 | 2,3,4.  rho_hat = 4, theta = 8: eligible iff U <= 4.
    d = _cluster([2, 3], U=[5, 0, 3, 1, 0], busy=[False, False, False, True, False], G=(2, 4, 5))
    assert fa_ffp(8)(d, 0).tolist() == [1, 4]  # U = 0, 0 (ties: lower index), GPU 0 (U=5) ineligible
    assert fa_ffp(8)(d, 1) is None  # only 3 idle eligible GPUs, 4 once GPU 3 is idle: wait
    assert fa_ffp(8)(d, 2) is NEVER  # 4 eligible GPUs in all < 5: waiting cannot help
    assert fa_ffp(9)(d, 1).tolist() == [1, 4, 2, 0]  # theta = 9: every idle GPU, by U then index


def test_first_fit_takes_lowest_indices():
    d = _cluster([2, 3], U=[5, 0, 3, 1, 0], busy=[False, False, False, True, False], G=(2,))
    assert first_fit(8)(d, 0).tolist() == [1, 2]


def test_lbsgf_least_busy_servers_then_gpus():
    # servers [2, 2, 4]; loads sum U / O: s0 = 4, s1 = 1, s2 = 1 -> order s1, s2, s0 (stable)
    U = [4, 4, 0, 2, 1, 1, 1, 1]
    d = _cluster([2, 2, 4], U=U, busy=[False] * 8, G=(2,))
    d.rhat[:] = 1
    assert lbsgf(10, 1.0)(d, 0).tolist() == [2, 3]  # lambda G = 2 <= O_s1: s1 only
    assert lbsgf(10, 2.0)(d, 0).tolist() == [2, 3]  # s1 then s2; s1's GPUs come first
    d.busy[2] = True
    assert lbsgf(10, 1.0)(d, 0) is None  # s1 has one idle GPU: wait for an exit (servers kept)
    assert lbsgf(10, 2.0)(d, 0).tolist() == [3, 4]  # s1's idle GPU 3, then s2's least loaded
    d.busy[2] = False
    assert lbsgf(2, 1.0)(d, 0) is NEVER  # theta = 2: only GPU 2 (U=0) of s1 has U + 1 <= 2


def test_dispatch_waits_for_an_exit_in_order():
    inst = dmlsched.load(INSTANCES / "counterexamples" / "rar-theorem5-lemma4.json")
    res = dmlsched.solve(inst, "sjf-bco")
    # jobs a, b (1 slot) on both GPUs at 0; c (2 slots) waits for the exits at slot 1
    assert res.solution.start.tolist() == [0, 0, 1]
    assert res.objective == 3


def test_kappa_representatives_give_the_full_loop():
    for seed in range(3):
        inst = generate(seed=seed, num_jobs=24, num_servers=4, horizon=600)
        reps = kappa_representatives(inst)
        assert set(reps) <= set(range(1, inst.n_g + 1))
        rhat, order, G = rho_hat(inst), job_order(inst, "sjf"), inst.G

        def rules_for(kappas):
            def rules(theta):
                fa, lb = fa_ffp(theta), lbsgf(theta, 1.0)
                return [(lambda j, k=k: fa if G[j] <= k else lb) for k in kappas]
            return rules

        full = bisection(inst, rules_for(range(1, inst.n_g + 1)), order, rhat)
        fast = sjf_bco_search(inst)
        assert full["m"] == fast["m"] and full["theta"] == fast["theta"]
        assert full["sched"].start.tolist() == fast["sched"].start.tolist()
        assert full["sched"].gpus == fast["sched"].gpus


def test_generator_matches_the_paper_setting():
    inst = paper_instance(seed=3)
    assert inst.num_jobs == 160 and inst.num_servers == 20 and inst.horizon == 1200
    assert sorted(inst.G.tolist()) == sorted(np.repeat(list(PAPER_MIX), list(PAPER_MIX.values())).tolist())
    assert set(inst.servers) <= {4, 8, 16, 32}
    assert 1000 <= inst.F.min() and inst.F.max() <= 6000
    lo, _ = inst.tau_range
    single = [j for j in range(160) if inst.G[j] <= max(inst.servers)]
    assert np.all((lo[single] >= 0.01 - 1e-9) & (lo[single] <= 0.05 + 1e-9))
    assert dmlsched.to_dict(paper_instance(seed=3)) == dmlsched.to_dict(inst)  # seeded
    assert dmlsched.to_dict(paper_instance(seed=4)) != dmlsched.to_dict(inst)


@pytest.mark.parametrize("method", ["sjf-bco", "ff", "ls", "rand", "greedy"])
def test_heuristics_valid_on_the_paper_setting(method):
    inst = paper_instance(seed=0)
    res = dmlsched.solve(inst, method)  # solve() validates and re-evaluates
    assert res.status == dmlsched.Status.FEASIBLE
    assert res.objective <= inst.horizon
    assert res.details["average_jct"] <= res.objective


def test_rand_is_seeded():
    inst = generate(seed=1, num_jobs=40, num_servers=6, horizon=800)
    a, b = dmlsched.solve(inst, "rand", seed=5), dmlsched.solve(inst, "rand", seed=5)
    assert a.solution.gpus == b.solution.gpus and a.objective == b.objective
    c = dmlsched.solve(inst, "rand", seed=6)
    assert c.solution.gpus != a.solution.gpus


def test_kappa_and_lambda_options():
    inst = generate(seed=2, num_jobs=40, num_servers=6, horizon=800)
    r1 = dmlsched.solve(inst, "sjf-bco", kappa=1)
    assert r1.details["kappa"] == 1
    r8 = dmlsched.solve(inst, "sjf-bco", kappa=1, lam=8.0)
    assert r8.details["lambda"] == 8.0
    assert r8.solution.gpus != r1.solution.gpus  # a wider server choice changes the placement
    with pytest.raises(dmlsched.OptionError, match="lam"):
        dmlsched.solve(inst, "sjf-bco", lam=0.5)
    with pytest.raises(dmlsched.OptionError, match="bogus"):
        dmlsched.solve(inst, "ff", bogus=1)


def test_heuristic_reports_error_when_horizon_too_short():
    data = dmlsched.to_dict(dmlsched.load(INSTANCES / "counterexamples" / "rar-theorem5-lemma4.json"))
    inst = dmlsched.from_dict({**data, "horizon": 2, "expected": {}})
    res = dmlsched.solve(inst, "sjf-bco")
    assert res.status == dmlsched.Status.ERROR and res.solution is None


# ---------------------------------------------------------------------------
# readings of the baselines (models/rar.md, "Readings")
def test_order_reading_changes_the_dispatch_order():
    """order='sjf' dispatches in non-decreasing G_j, order='input' as listed; the clock
    never goes back, so start slots are monotone along the chosen order."""
    inst = generate(seed=5, num_jobs=40, num_servers=6, horizon=800)
    for method in ("ff", "ls", "rand"):
        sjf = dmlsched.solve(inst, method, order="sjf")
        inp = dmlsched.solve(inst, method, order="input")
        assert (sjf.details["order"], inp.details["order"]) == ("sjf", "input")
        s = sjf.solution.start[np.argsort(inst.G, kind="stable")]
        assert np.all(np.diff(s) >= 0), method
        assert np.all(np.diff(inp.solution.start) >= 0), method
        assert sjf.solution.start.tolist() != inp.solution.start.tolist(), method


def test_rand_pick_reading():
    """pick='servers' fills a random server before opening another, so a 2-GPU job placed
    on an empty cluster of 2-GPU servers is never split; pick='gpus' draws GPUs uniformly
    over the cluster and splits it in most seeds."""
    inst = dmlsched.from_dict({"problem": "rar", "servers": [2, 2, 2, 2], "bandwidth": {"intra": 10.0, "inter": 1.0},
                               "gpu_speed": 10.0, "xi1": 1.0, "xi2": 0.01, "alpha": 0.0, "horizon": 100,
                               "jobs": [{"id": "a", "gpus": 2, "iterations": 8, "grad_size": 0.0, "fp_time": 0.0,
                                         "batch": 1, "bp_time": 0.24}]})
    split = {"gpus": 0, "servers": 0}
    for seed in range(20):
        for pick in split:
            r = dmlsched.solve(inst, "rand", seed=seed, pick=pick)
            split[pick] += len({int(inst.gpu_server[g]) for g in r.solution.gpus[0]}) > 1
    assert split["servers"] == 0 and split["gpus"] >= 10


# ---------------------------------------------------------------------------
# greedy (ours, not the paper's)
def _one_server(F, G):
    jobs = [{"id": f"j{i}", "gpus": g, "iterations": f, "grad_size": 0.0, "fp_time": 0.0, "batch": 1,
             "bp_time": 0.24} for i, (f, g) in enumerate(zip(F, G))]
    return dmlsched.from_dict({"problem": "rar", "servers": [2], "bandwidth": {"intra": 10.0, "inter": 1.0},
                               "gpu_speed": 10.0, "xi1": 1.0, "xi2": 0.01, "alpha": 0.0, "horizon": 100,
                               "jobs": jobs})


def test_greedy_reserve_and_backfill_by_hand():
    """Longest first: A (1 GPU, 4 slots), B (2 GPUs, 3 slots), C (1 GPU, 1 slot) on 2 GPUs.
    Backfilling starts C beside A (makespan 7); reservation keeps C behind B (8); the
    perturbed runs of the portfolio find the order B first (7) too."""
    inst = _one_server([16, 12, 4], [1, 2, 1])  # 4 iterations per slot
    assert inst.rho_range[0].tolist() == [4, 3, 1]
    back = dmlsched.solve(inst, "greedy", rule="lpt", iterations=0)
    res = dmlsched.solve(inst, "greedy", rule="lpt-reserve", iterations=0)
    assert (back.objective, res.objective) == (7, 8)
    assert back.solution.start.tolist() == [0, 4, 0] and res.solution.start.tolist() == [0, 4, 7]
    assert dmlsched.solve(inst, "greedy").objective == 7 == dmlsched.solve(inst, "exact-cp").objective


def test_greedy_is_seeded_and_meets_the_bound_at_paper_scale():
    inst = paper_instance(seed=2)
    a = dmlsched.solve(inst, "greedy", seed=3)
    b = dmlsched.solve(inst, "greedy", seed=3)
    assert a.solution.gpus == b.solution.gpus and a.objective == b.objective and a.reproducible
    assert a.objective == dmlsched.solve(inst, "lower-bound").objective  # proven optimal on this seed
    assert a.objective < dmlsched.solve(inst, "sjf-bco").objective


class StopAfter(Budget):
    """A budget that says stop at its ``n``-th question (deterministic: no clock)."""

    def __init__(self, n):
        super().__init__(None)
        self.asked, self.n = 0, n

    def stop(self):
        self.asked += 1
        return self.asked >= self.n


def test_greedy_and_bisection_stop_inside_a_run_when_the_budget_says_so():
    """The list scheduler asks the budget at every completion event and the bisection's
    later probes before every job: a stop ends the search with what finished runs found,
    reported as a cut (a budget stopping at its n-th question: deterministic)."""
    inst = generate(seed=3, num_jobs=40, num_servers=6)
    free = greedy_search(inst, GREEDY_RULES, 0, 0)
    assert not free["cut"] and free["runs"] == len(GREEDY_RULES)
    assert list_schedule(inst, np.arange(inst.num_jobs), False, StopAfter(1)) is None
    never = StopAfter(10**9)
    assert greedy_search(inst, GREEDY_RULES, 0, 0, budget=never)["m"] == free["m"]  # asking changes nothing
    cut = greedy_search(inst, GREEDY_RULES, 0, 0, budget=StopAfter(never.asked // 2))
    assert cut["cut"] and cut["runs"] < len(GREEDY_RULES)
    assert cut["sched"] is None or cut["m"] >= free["m"]
    full = sjf_bco_search(inst)
    stopped = sjf_bco_search(inst, budget=StopAfter(2))  # asked first before the second probe
    assert stopped["cut"] and not full["cut"] and stopped["sched"] is not None and stopped["m"] >= full["m"]


def test_a_search_the_budget_did_not_stop_reports_no_cut(monkeypatch):
    """greedy_search and best_heuristic_schedule report a cut from the flags their inner runs
    return, never by asking the budget again after the fact: a budget that would say stop only
    after the last question the search needs (as a deadline passing just after it) cuts
    nothing, so nothing is reported (it used to be reported as a cut, and the exact methods
    were marked not reproducible)."""

    inst = generate(seed=3, num_jobs=40, num_servers=6, horizon=200)  # every rule's run ends after T
    r = inst.rho_range[0].astype(float)
    need = 0
    for name, reserve in GREEDY_RULES:  # the check before each rule and those inside its run
        key, tie = PRIORITIES[name](inst, r)
        count = StopAfter(10**9)
        assert list_schedule(inst, _order(inst, np.asarray(key, float), np.asarray(tie, float)), reserve,
                             count) is None
        need += 1 + count.asked
    out = greedy_search(inst, GREEDY_RULES, 0, 0, budget=StopAfter(need + 1))
    assert not out["cut"] and out["runs"] == len(GREEDY_RULES) and out["sched"] is None
    assert greedy_search(inst, GREEDY_RULES, 0, 0, budget=StopAfter(need))["cut"]  # its last question

    class Late(Budget):
        """Says stop once the deadline has passed: here, as soon as the greedy rules returned."""

        late = False

        def stop(self):
            return self.late

        __call__ = stop
        expired = stop

    real = heuristics.greedy_search
    budget = Late(None)

    def greedy_then_late(*args, **kwargs):
        out = real(*args, **kwargs)
        budget.late = True
        return out

    monkeypatch.setattr(heuristics, "greedy_search", greedy_then_late)
    inst = generate(seed=3, num_jobs=40, num_servers=6)
    found, stopped = heuristics.best_heuristic_schedule(inst, budget=budget)
    assert budget.late and not stopped
    assert found[0] == heuristics.best_heuristic_schedule(inst)[0][0]
