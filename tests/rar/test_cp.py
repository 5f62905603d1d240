"""exact-cp: the time-indexed CP-SAT model, exact over every schedule (models/rar.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import Status, kit
from dmlsched.generate.rar import generate, small
from dmlsched.problems.rar import counts, cp, dp, heuristics
from dmlsched.problems.rar.cp import as_schedule, build_cp, extract
from dmlsched.problems.rar.dp import solve_dp
from dmlsched.strategies import rar_instances, rar_tiny_instances

from .brute import brute_force

ROOT = Path(__file__).resolve().parents[2] / "instances"
FILES = sorted((ROOT / "rar").glob("*.json")) + sorted((ROOT / "counterexamples").glob("rar-*.json"))
SMALL = [p for p in FILES if p.stat().st_size < 20000]
#: CP-SAT deterministic seconds (the method's work_limit): a net that stops a run gone wrong at the
#: same point at any load, where a wall-clock limit would cut a busy machine's run short
WORK = 20.0


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.name)
def test_recorded_optima(path):
    inst = dmlsched.load(path)
    r = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert r.status == Status.OPTIMAL and r.objective == inst.expected["optimum"] == r.bound


def test_delay_is_in_the_space():
    """The delayed optimum (5) that no non-delay schedule reaches (6) is found and proven."""
    inst = dmlsched.load(ROOT / "rar" / "delay-beats-nondelay.json")
    r = dmlsched.solve(inst, "exact-cp", fluid_cuts=False)
    assert r.status == Status.OPTIMAL and r.objective == 5
    assert dmlsched.solve(inst, "exact-nd").objective == 6


@st.composite
def _ultra_tiny(draw):
    inst = draw(rar_instances(max_jobs=2, max_servers=2, max_capacity=2, max_iterations=6, horizon=12, min_jobs=2))
    assume(inst.num_gpus <= 3)
    return inst


@settings(max_examples=25, deadline=None)
@given(inst=_ultra_tiny())
def test_equals_independent_brute_force(inst):
    """Against every GPU subset x every start vector, judged by validate/evaluate only."""
    r = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assume(r.status != Status.INFEASIBLE)
    assert r.status == Status.OPTIMAL
    assert brute_force(inst, int(r.objective)) == r.objective


@settings(max_examples=25, deadline=None)
@given(inst=rar_tiny_instances())
def test_equals_the_enumeration_where_it_answers(inst):
    """``exact`` (ILP (10)-(13) over Y_all(UB)) and exact-cp agree, in both progress modes;
    without symmetry breaking or cuts, and the contention-free relaxation bounds it."""
    ex = dmlsched.solve(inst, "exact", max_candidates=60_000)
    assume(ex.status == Status.OPTIMAL)
    cp = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert cp.status == Status.OPTIMAL and cp.objective == ex.objective
    plain = dmlsched.solve(inst, "exact-cp", work_limit=WORK, symmetry=False, fluid_cuts=False, dp=False)
    assert plain.objective == ex.objective
    rx = build_cp(inst, int(ex.objective), relax=True)
    out = dmlsched.cpsat.solve_cpsat(rx.model, work_limit=WORK)
    assert out.status == Status.OPTIMAL and out.objective <= ex.objective


def test_full_model_on_a_contended_instance():
    """Three 3-GPU jobs on three 2-GPU servers (every overlap shares a server): the
    contention-free relaxation and the fluid bound say 16, contention makes it 17; the
    full model (not closed by a bound; the DP phase off) proves it, and its schedules
    re-simulate to at most their model value.  With the DP phase it closes there."""
    inst = small(seed=11, num_jobs=3, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(3,),
                 iterations=(150, 450))
    r = dmlsched.solve(inst, "exact-cp", work_limit=3 * WORK, seed=0, dp=False)
    assert r.status == Status.OPTIMAL and r.objective == 17
    assert r.details["relaxation"]["bound"] == 16 == r.details["lower_bounds"]["fluid"]
    assert "closed" not in r.details and r.details["model"]["timed_jobs"] == 3
    withdp = dmlsched.solve(inst, "exact-cp", work_limit=3 * WORK, seed=0)
    assert withdp.objective == 17 and withdp.details["closed"].startswith("the dynamic program")
    cp = build_cp(inst, int(r.objective), lb=0)
    out = dmlsched.cpsat.solve_cpsat(cp.model, work_limit=WORK)
    starts, vecs = extract(cp, out.engine)
    s = as_schedule(inst, starts, vecs)
    assert dmlsched.evaluate(inst, s) <= out.objective


def test_incumbent_and_bound_when_the_model_is_refused():
    """A model beyond the memory limit is refused before it is built; the incumbent
    and the proven bound still come back (status feasible unless they meet)."""
    inst = dmlsched.load(ROOT / "rar" / "paper-seed0.json")
    r = dmlsched.solve(inst, "exact-cp", work_limit=WORK)
    assert r.status == Status.FEASIBLE and r.solution is not None
    assert "not built" in r.details["model"] and "x 10^" in r.details["model"]
    assert r.bound == dmlsched.solve(inst, "lower-bound").objective <= r.objective
    tiny = small(seed=5, num_jobs=6, servers=(2, 3, 4), horizon=400)
    r2 = dmlsched.solve(tiny, "exact-cp", memory_limit=1e-6)
    assert r2.solution is not None and "not built" in r2.details.get("model", "not built")


@pytest.mark.slow
def test_work_limit_is_reproducible_and_time_limit_is_marked():
    inst = small(seed=4, num_jobs=3, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(1, 2, 3))
    a = dmlsched.solve(inst, "exact-cp", work_limit=0.3)
    b = dmlsched.solve(inst, "exact-cp", work_limit=0.3)
    assert (a.status, a.objective, a.bound) == (b.status, b.objective, b.bound)
    assert a.reproducible
    assert a.bound <= a.objective


@pytest.mark.slow
def test_deadline_holds_with_an_incumbent():
    """On a hard instance the method returns with its incumbent and a proven bound, and a run its
    deadline cut says so.  How long past the deadline it returns is measured by
    benchmarks/deadlines.py (rar/exact-cp rows of deadlines.md), not asserted here: a busy
    machine can stretch any wall-clock bound."""
    inst = small(seed=7, num_jobs=6, servers=(2, 2, 2), horizon=400)
    r = dmlsched.solve(inst, "exact-cp", time_limit=3)
    assert r.solution is not None and r.bound is not None and r.bound <= r.objective
    if r.status != Status.OPTIMAL:
        assert not r.reproducible and r.details["deadline_cut"]


# ---------------------------------------------------------------------------
# exact-dp: the slot-by-slot dynamic program (a second exact method)
@settings(max_examples=20, deadline=None)
@given(inst=rar_tiny_instances())
def test_dp_full_search_equals_the_enumeration(inst):
    """The DP searched from scratch (incumbent T + 1, no dual pruning, no bound shortcut)
    agrees with the enumeration, in both progress modes."""
    ex = dmlsched.solve(inst, "exact", max_candidates=60_000)
    assume(ex.status == Status.OPTIMAL)
    out = solve_dp(inst, inst.horizon + 1, [], max_states=10**6)
    assert out["complete"] and out["best"] == ex.objective
    r = dmlsched.solve(inst, "exact-dp")
    assert r.status == Status.OPTIMAL and r.objective == ex.objective


@settings(max_examples=15, deadline=None)
@given(inst=_ultra_tiny())
def test_dp_equals_independent_brute_force(inst):
    out = solve_dp(inst, inst.horizon + 1, [], max_states=10**6)
    assume(out["best"] is not None)
    assert out["complete"] and brute_force(inst, int(out["best"])) == out["best"]


def test_dp_on_the_contended_instance_and_its_work_limit():
    inst = small(seed=11, num_jobs=3, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(3,),
                 iterations=(150, 450))
    r = dmlsched.solve(inst, "exact-dp")
    assert r.status == Status.OPTIMAL and r.objective == 17 and r.details["states"] > 0
    cut = dmlsched.solve(inst, "exact-dp", max_states=3)
    assert cut.status == Status.FEASIBLE and "max_states" in cut.details["stopped"] and cut.reproducible


@pytest.mark.slow
def test_dp_proves_what_the_time_indexed_model_leaves_open():
    """Three jobs on three 2-GPU servers with strong contention: the fluid bound is 282,
    the heuristic 283; the CP-SAT model did not close it in 60 s, the DP proves 283."""
    inst = small(seed=4, num_jobs=3, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(1, 2, 3))
    r = dmlsched.solve(inst, "exact-dp")
    assert r.status == Status.OPTIMAL and r.objective == 283 and r.details["lower_bounds"]["fluid"] == 282


def test_dp_refuses_large_instances_before_searching():
    r = dmlsched.solve(dmlsched.load(ROOT / "rar" / "paper-seed0.json"), "exact-dp")
    assert r.status == Status.NOT_APPLICABLE and "use exact-cp" in r.details["error"]


# ---------------------------------------------------------------------------
# the deadline: exact-cp asks its budget before every phase and reports a heuristic stop
# (checked with a budget that stops at a counted check point, never with a wall clock)


class _StopAfter(dmlsched.budget.Budget):
    """A budget whose stop() says stop from its ``n``-th question on (deterministic)."""

    def __init__(self, n: int) -> None:
        super().__init__(None)
        self.asked, self.n = 0, n

    def stop(self) -> bool:
        self.asked += 1
        return self.asked >= self.n

    __call__ = stop
    expired = stop


def test_model_size_counts_vectors_once_per_job_size(monkeypatch):
    """Thousands of jobs: the count vectors are counted per distinct G_j (6 here), not per
    job (the 6,000-job instance spent 16.6 s there, past a 5 s deadline)."""
    inst = generate(seed=0, num_jobs=300, num_servers=30)
    expected = sum(counts.count_vectors_size(inst, j) for j in range(inst.num_jobs))
    calls = []
    real = cp.count_vectors_size
    monkeypatch.setattr(cp, "count_vectors_size", lambda i, j: calls.append(j) or real(i, j))
    size = cp.model_size(inst, 500)
    assert size["vectors"] == expected and len(calls) == len(set(inst.G.tolist())) <= 6


def test_heuristic_stop_is_reported_and_no_model_is_built(monkeypatch):
    """A budget that is spent when the incumbent heuristics run: they report the stop, the
    method records the cut (not reproducible) and returns the incumbent and the bound
    without building (allocating) a CP-SAT model."""
    inst = small(horizon=800, num_jobs=16, servers=(4, 4, 8), seed=1)
    found, stopped = heuristics.best_heuristic_schedule(inst, budget=_StopAfter(1))
    assert stopped and found is not None  # SJF-BCO's first probe always runs to its end
    full, not_stopped = heuristics.best_heuristic_schedule(inst)
    assert not not_stopped and full[0] <= found[0]

    def no_model(*args, **kwargs):
        raise AssertionError("a CP-SAT model was built after the deadline")

    monkeypatch.setattr(cp, "build_cp", no_model)
    monkeypatch.setattr(kit, "Budget", lambda seconds, start=None, **kw: _StopAfter(1))
    r = dmlsched.solve(inst, "exact-cp", time_limit=5)
    assert r.status == Status.FEASIBLE and r.objective == found[0] and not r.reproducible
    assert "the incumbent heuristics" in r.details["deadline_cut"]
    assert r.details["model"].startswith("not built: the deadline passed")


class _Late(dmlsched.budget.Budget):
    """A budget that says stop only once ``late`` is set (no wall clock)."""

    late = False

    def stop(self) -> bool:
        return self.late

    __call__ = stop
    expired = stop


def _late_after(monkeypatch, module, name: str) -> _Late:
    """Every run's budget is one :class:`_Late`, made late when ``module.name`` returns."""
    budget = _Late(None)
    real = getattr(module, name)

    def then_late(*args, **kwargs):
        out = real(*args, **kwargs)
        budget.late = True
        return out

    monkeypatch.setattr(module, name, then_late)
    monkeypatch.setattr(kit, "Budget", lambda seconds, start=None, **kw: budget)
    return budget


def test_a_deadline_passing_after_the_heuristics_is_a_cut_of_the_cp_sat_phases(monkeypatch):
    """The incumbent heuristics ran to their end (not stopped: no cut of theirs), then the
    deadline passed: no model is built, and the result, which depends on the wall clock, is
    recorded as a cut (not reproducible)."""

    budget = _late_after(monkeypatch, cp, "best_heuristic_schedule")
    inst = small(horizon=800, num_jobs=16, servers=(4, 4, 8), seed=1)
    r = dmlsched.solve(inst, "exact-cp", time_limit=5)
    assert budget.late and r.status == Status.FEASIBLE and not r.reproducible
    assert r.details["deadline_cut"] == ["the CP-SAT phases (not started)"]
    assert r.details["model"].startswith("not built: the deadline passed")


def test_exact_dp_tells_its_state_limit_from_a_deadline_by_the_dp_s_own_flag(monkeypatch):
    """The DP ended at max_states (a deterministic limit, reproducible) and the deadline
    passed only afterwards: the result says max_states, with no cut (it used to ask the
    clock again and record a cut of the dynamic program)."""

    budget = _late_after(monkeypatch, dp, "solve_dp")
    inst = small(horizon=400, num_jobs=4, servers=(2, 2), seed=1)
    r = dmlsched.solve(inst, "exact-dp", time_limit=5, max_states=1)
    assert budget.late and r.details["stopped"].startswith("max_states") and r.reproducible
    assert "deadline_cut" not in r.details


@pytest.mark.parametrize("late_after, what", [("model_size", "the CP-SAT relaxation's build"),
                                              ("progress_scale", "the CP-SAT model's build")])
def test_a_deadline_passing_while_a_model_is_built_stops_the_build(monkeypatch, late_after, what):
    """The model's build asks the budget before each job's (and server's) part: a deadline that
    passes just before the relaxation's build (after ``model_size``) or the exact model's (after
    ``progress_scale``) stops it at its first question, with the incumbent kept and a cut
    recorded.  (A model of 200,000 variables took 11-21 s to build at load 6-9, unbudgeted.)"""
    budget = _late_after(monkeypatch, cp, late_after)
    budget.work = 0.2  # CP-SAT's deterministic limit for the relaxation (the budget's stop() ignores it)
    built: list = []
    real = cp.CpRar.build

    def spy(self):
        built.append(self.relax)
        return real(self)

    monkeypatch.setattr(cp.CpRar, "build", spy)
    inst = small(horizon=400, num_jobs=8, servers=(2, 2, 4), seed=2)
    r = dmlsched.solve(inst, "exact-cp", time_limit=5, dp=False)
    assert budget.late and r.status == Status.FEASIBLE and not r.reproducible
    assert r.details["deadline_cut"] == [what]
    assert r.details["model"].startswith("not built: the deadline passed during")
    assert built == ([True] if late_after == "model_size" else [True, False])
    assert r.objective == r.details["incumbent_heuristic"] or late_after == "progress_scale"


def test_sjf_bco_s_first_probe_asks_the_budget_once_it_has_a_schedule():
    """A budget already spent: SJF-BCO's first probe completes its first schedule (the incumbent
    it returns) and then stops, instead of running every kappa at that theta."""
    inst = small(horizon=800, num_jobs=16, servers=(4, 4, 8), seed=1)
    kappas = heuristics.kappa_representatives(inst)
    spent = _Late(None)
    spent.late = True
    b = heuristics.sjf_bco_search(inst, budget=spent)
    assert len(kappas) == 4 and b["cut"] and b["sched"] is not None and len(b["trail"]) == 1
    assert b["runs"] < len(kappas)
    free = heuristics.sjf_bco_search(inst)  # the same first probe, run to its end
    assert free["trail"][0][0] == b["trail"][0][0] and free["runs"] > b["runs"]
    # the FF and LS baselines' probes are one run each: the first is completed, then it stops
    ff = heuristics.bisection(inst, lambda theta: [lambda j, c=heuristics.first_fit(theta): c],
                              heuristics.job_order(inst, "sjf"), heuristics.rho_hat(inst), budget=spent)
    assert ff["cut"] and ff["runs"] == 1


def test_each_element_index_of_the_exact_model_has_two_terms():
    """The rate's element constraint is indexed by ``p[j, t] + (P+1) nrow[j]``, one variable for
    the table's row: an index summing all of the job's count vectors made CP-SAT's import
    (``ExpandNonAffineExpressions``, which asks no time limit) take 230 s on a 208k-variable
    model given 0.01 s (benchmarks/rar.md); the row variable keeps each index at two terms."""
    inst = small(horizon=400, num_jobs=8, servers=(2, 2, 4), seed=2)  # jobs with many multi-server vectors
    model = build_cp(inst, 124, scale=1)
    elements = [c.element for c in model.model.proto.constraints if len(c.element.exprs)]
    assert len(elements) == len(model.timed) * model.H > 0
    assert max(len(e.linear_index.vars) for e in elements) == 2
