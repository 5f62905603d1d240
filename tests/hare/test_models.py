"""Hare exact MIP and relaxations: specification (models/hare.md) against the
Pyomo models, HiGHS against Gurobi, the chain relaxation <= Queyranne <= exact
<= heuristics, the relaxed-solution checker, deterministic work limits (the
same result under load), the whole-method deadline, refusals before building,
and the CLI."""

from __future__ import annotations

import importlib.util
import itertools
import json
import multiprocessing as mp
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InvalidSolutionError, SolverLimitError, Status, solvers
from dmlsched.cli import main
from dmlsched.generate.hare import TESTBED, generate
from dmlsched.kit import Run
from dmlsched.problems.hare import formulation, models, relaxation
from dmlsched.problems.hare.instance import HareInstance, HareJob
from dmlsched.problems.hare.models import (
    build_exact,
    build_relaxation_master,
    build_rl_miqcp,
    check_relaxed,
    queyranne_violation,
)
from dmlsched.problems.hare.solution import HareSchedule, evaluate
from dmlsched.strategies import hare_instances

from .bruteforce import random_instance
from .relax import relax

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "models" / "hare.md"
REL = 1e-6


def _close(a, b, rel=REL):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def _le(a, b, rel=REL):
    return a <= b + rel * max(1.0, abs(a), abs(b))


def _spec_names(model: str) -> list[str]:
    """Backticked names in the first column of the table after ``<!-- model: NAME -->``."""
    text = SPEC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- model: {model} -->\s*\n(.*?)(?:\n\s*\n|\Z)", text, re.S)
    assert m, f"no table for model {model!r} in {SPEC}"
    names = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not cells or cells[0] in ("Component", "") or set(cells[0]) <= {"-"}:
            continue
        names += re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[0])
    assert names, f"empty component table for {model!r}"
    return names


def _spec_instance() -> HareInstance:
    # identical GPUs (sym_gpu_order non-empty), several rounds and jobs
    return HareInstance(
        gpus=("V100", "V100", "K80"),
        jobs=(
            HareJob("A", 0.0, 1.0, 2, 2, {"V100": 1.0, "K80": 3.5}, {"V100": 0.1, "K80": 0.2}),
            HareJob("B", 0.5, 2.0, 1, 2, {"V100": 2.0, "K80": 2.5}, {"V100": 0.1, "K80": 0.3}),
        ),
    )


BUILDERS = {"exact": build_exact, "relaxation": build_relaxation_master, "miqcp": build_rl_miqcp}


@pytest.mark.parametrize("which", sorted(BUILDERS))
def test_spec_components_exist(which):
    mdl = BUILDERS[which](_spec_instance()).model
    listed = _spec_names(which)
    for name in listed:
        comp = getattr(mdl, name, None)
        assert comp is not None and isinstance(comp, pyo.Component), f"{name} missing in the {which} model"
    # and conversely: every constraint of the model is specified
    cons = {c.local_name for c in mdl.component_objects(pyo.Constraint, descend_into=False)}
    assert cons <= set(listed), f"constraints not in models/hare.md: {sorted(cons - set(listed))}"


def test_constraint_functions_cite_equations():
    F, X = formulation.HareFormulation, models.HareExactMip
    R, Q = relaxation.HareRelaxationMaster, relaxation.HareRlMiqcp
    for fn, eq in [(F.add_arrival, "(4)"), (F.add_assign, "(5)"), (F.add_completion, "(6)"),
                   (F.add_round_done, "(7)"), (F.add_round_start, "(7)"), (X.add_no_overlap, "(8)"),
                   (X.add_no_overlap_rev, "(8)"), (Q.add_rl_quadratic, "(9)"), (R.add_mc_lo_y, "(9)"),
                   (R.add_mc_up_y, "(9)"), (R.add_mc_lo_x, "(9)"), (R.add_mc_up_x, "(9)"),
                   (R.add_oa_cuts, "(9)"), (R.tangent_cut, "(9)")]:
        assert eq in fn.__doc__


def test_model_state_is_on_the_builder_not_on_the_pyomo_model():
    f = build_exact(_spec_instance())
    assert not [k for k in vars(f.model) if k.startswith("_") and k in ("_inst", "_hz", "_groups", "_cut_keys")]
    assert f.inst is not None and f.box is not None


def test_model_size_counts_the_built_model():
    """formulation.model_size (used to refuse before building) counts exactly
    what the builder builds."""
    for inst in [_spec_instance()] + SMALL:
        hz = models.horizon(inst)
        for exact, build in ((True, build_exact), (False, build_relaxation_master)):
            mdl = build(inst, hz).model
            size = formulation.model_size(inst, hz, exact=exact)
            rows = sum(1 for _ in mdl.component_data_objects(pyo.Constraint, active=True))
            assert rows == size["rows"], (exact, rows, size)
            nvars = sum(1 for _ in mdl.component_data_objects(pyo.Var))
            assert nvars == size["variables"]


def test_loading_the_registry_does_not_import_pyomo():
    code = ("import sys, dmlsched; dmlsched.methods('hare'); "
            "import dmlsched.problems.hare.models, dmlsched.problems.hare.heuristics; "
            "print('pyomo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


SMALL = [random_instance(s, jobs=(2, 3), gpus=(2, 3), max_rounds=2, max_tasks_per_round=3, max_tasks=8)
         for s in (11, 12, 13)]


@pytest.mark.slow
@pytest.mark.parametrize("idx", range(len(SMALL)))
def test_exact_highs_agrees_with_gurobi(idx, gurobi):
    inst = SMALL[idx]
    h = dmlsched.solve(inst, "exact")
    try:
        g = dmlsched.solve(inst, "exact", solver="gurobi")
    except SolverLimitError:
        pytest.skip("model too large for Gurobi's licence")
    assert h.status == g.status == Status.OPTIMAL
    assert _close(h.objective, g.objective)


@pytest.mark.parametrize("idx", range(len(SMALL)))
def test_relaxation_highs_oa_agrees_with_gurobi_miqcp(idx, gurobi):
    inst = SMALL[idx]
    h = relax(inst, kind="rl")
    try:
        g = relax(inst, kind="rl", solver="gurobi")
    except SolverLimitError:
        pytest.skip("model too large for Gurobi's licence")
    assert g.details["formulation"] == "miqcp"
    assert h.status == g.status == Status.OPTIMAL
    assert _close(h.value, g.value, 1e-5), (h.value, g.value)
    assert _close(h.lower_bound, g.lower_bound, 1e-5)


def test_queyranne_highs_agrees_with_gurobi_oa(gurobi):
    inst = SMALL[0]
    h = relax(inst, kind="queyranne")
    try:
        g = relax(inst, kind="queyranne", solver="gurobi")
    except SolverLimitError:
        pytest.skip("model too large for Gurobi's licence")
    assert h.status == g.status == Status.OPTIMAL
    assert _close(h.value, g.value, 1e-5)


def test_miqcp_needs_gurobi():
    with pytest.raises(dmlsched.SolverError):
        relax(SMALL[0], kind="rl", solver="highs", formulation="miqcp")
    with pytest.raises(ValueError):
        relax(SMALL[0], kind="nonsense")
    with pytest.raises(ValueError):
        dmlsched.solve(SMALL[0], "exact", no_such_option=1)


CHAIN = [random_instance(s, jobs=(2, 4), gpus=(2, 3), max_rounds=3, max_tasks_per_round=2, max_tasks=9,
                         zero_weight=(s % 3 == 0)) for s in range(20, 26)]


@pytest.mark.slow
@pytest.mark.parametrize("idx", range(len(CHAIN)))
def test_chain_rl_queyranne_exact_heuristics(idx):
    """relaxation(rl) <= relaxation(queyranne) <= exact <= every heuristic, and
    every returned schedule passes the validator (``solve`` validates)."""
    inst = CHAIN[idx]
    rl = dmlsched.solve(inst, "relaxation", relaxation="rl")
    qy = dmlsched.solve(inst, "relaxation", relaxation="queyranne")
    ex = dmlsched.solve(inst, "exact")
    assert rl.status == qy.status == Status.BOUND and ex.status == Status.OPTIMAL
    assert rl.details["bound_complete"] and qy.details["bound_complete"]
    assert rl.solution is None and qy.solution is None
    assert _le(rl.lower_bound, rl.objective) and _le(qy.lower_bound, qy.objective)
    assert _le(rl.objective, qy.objective, 1e-5)
    assert _le(qy.objective, ex.objective, 1e-5)
    heuristics = [m.name for m in dmlsched.methods("hare") if m.kind == "heuristic"]
    assert "list" in heuristics
    for name in heuristics:
        h = dmlsched.solve(inst, name)
        dmlsched.validate(inst, h.solution)
        assert _le(ex.objective, h.objective), (name, ex.objective, h.objective)
    lq = dmlsched.solve(inst, "list", relaxation="queyranne")
    assert _le(ex.objective, lq.objective)
    assert _close(lq.lower_bound, qy.lower_bound, 1e-5)


def test_exact_retiming_never_worse_than_mip():
    for inst in CHAIN[:3]:
        r = dmlsched.solve(inst, "exact")
        d = r.details
        assert d["source"] == "mip"
        assert _le(d["retimed_objective"], d["solver_objective"])
        assert _close(r.objective, d["retimed_objective"])


def test_solve_relaxation_interface():
    inst = CHAIN[1]
    for kind in ("rl", "queyranne"):
        rel = relax(inst, kind=kind)
        assert rel.status == Status.OPTIMAL
        assert rel.x_hat.shape == (inst.num_tasks,) and rel.y_hat.shape == (inst.num_tasks,)
        assert rel.y_hat.dtype.kind == "i"
        # value is recomputed from (x_hat, y_hat) and they satisfy the relaxation
        assert _close(check_relaxed(inst, rel.x_hat, rel.y_hat, kind), rel.value)

        assert _close(evaluate(inst, HareSchedule(rel.y_hat, rel.x_hat)), rel.value)
        assert _le(rel.lower_bound, rel.value)
        assert rel.details["iterations"] >= 1


@pytest.mark.slow
def test_relaxation_box_does_not_bind():
    """The start-time box (models/hare.md Lemma B) does not change the relaxation
    value on these instances: widening it 3x gives the same optimum."""
    for inst in CHAIN[:3]:
        for kind in ("rl", "queyranne"):
            a = relax(inst, kind=kind)
            b = relax(inst, kind=kind, horizon_scale=3.0)
            assert a.status == b.status == Status.OPTIMAL
            assert _close(a.value, b.value, 1e-5), (kind, a.value, b.value)


# -- relaxed-solution checker --------------------------------------------------


def _checker_instance():
    # one job, two rounds of two tasks; one GPU of each type
    inst = HareInstance(
        gpus=("V100", "K80"),
        jobs=(HareJob("A", 1.0, 2.0, 2, 2, {"V100": 2.0, "K80": 3.0}, {"V100": 0.5, "K80": 1.0}),),
    )
    # round 0: task 0 on V100 at 1, task 1 on K80 at 1; round 1 after max(1+2.5, 1+4)=5
    x = np.array([1.0, 1.0, 5.0, 5.0])
    g = np.array([0, 1, 0, 1])
    return inst, x, g


def test_check_relaxed_accepts_and_values():
    inst, x, g = _checker_instance()
    # C = max(5 + 2.5, 5 + 4) = 9, weight 2
    assert check_relaxed(inst, x, g, "rl") == pytest.approx(18.0)
    assert check_relaxed(inst, x, g, "queyranne") == pytest.approx(18.0)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda x, g: (x - np.array([0.5, 0, 0, 0]), g), r"\(4\)"),
        (lambda x, g: (x, np.array([0, 2, 0, 1])), r"\(5\)"),
        (lambda x, g: (x, np.array([0, -1, 0, 1])), r"\(5\)"),
        (lambda x, g: (x - np.array([0, 0, 0.5, 0]), g), r"\(7\)"),
        (lambda x, g: (np.array([1.0, np.nan, 5.0, 5.0]), g), "finite"),
        (lambda x, g: (x[:3], g[:3]), "entries"),
    ],
)
def test_check_relaxed_rejects(mutate, match):
    inst, x, g = _checker_instance()
    x2, g2 = mutate(x.copy(), g.copy())
    with pytest.raises(InvalidSolutionError, match=match):
        check_relaxed(inst, x2, g2, "rl")


def test_check_relaxed_rejects_9_and_prefix():
    # two single-task jobs arriving at 0 on one GPU, both starting at 0: (9) fails
    inst = HareInstance(
        gpus=("V100",),
        jobs=(HareJob("A", 0.0, 1.0, 1, 1, {"V100": 2.0}, {"V100": 0.0}),
              HareJob("B", 0.0, 1.0, 1, 1, {"V100": 2.0}, {"V100": 0.0})),
    )
    with pytest.raises(InvalidSolutionError, match=r"\(9\)"):
        check_relaxed(inst, np.array([0.0, 0.0]), np.array([0, 0]), "rl")
    # (9) on the whole set holds (2*0 + 2*2 >= 4) but not Queyranne... with three tasks:
    inst3 = HareInstance(
        gpus=("V100",),
        jobs=tuple(HareJob(c, 0.0, 1.0, 1, 1, {"V100": 2.0}, {"V100": 0.0}) for c in "ABC"),
    )
    # starts 0, 0, 8: all tasks: 2*(0+0+8) = 16 >= 1/2(36 - 12) = 12 holds;
    # prefix {A, B}: 0 >= 1/2 (16 - 8) = 4 fails
    x = np.array([0.0, 0.0, 8.0])
    g = np.zeros(3, dtype=int)
    check_relaxed(inst3, x, g, "rl")
    with pytest.raises(InvalidSolutionError, match="Queyranne"):
        check_relaxed(inst3, x, g, "queyranne")


@pytest.mark.parametrize("seed", range(30))
def test_queyranne_separation_finds_most_violated_subset(seed):
    """The prefix in start order attains the largest violation over all subsets."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    p = rng.integers(1, 6, size=n) / 2
    x = rng.integers(0, 12, size=n) / 2  # ties happen
    best = 0.0
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            S = list(S)
            v = 0.5 * (p[S].sum() ** 2 - (p[S] ** 2).sum()) - (p[S] * x[S]).sum()
            best = max(best, v)
    viol, k = queyranne_violation(p, x)
    assert viol == pytest.approx(best, abs=1e-12)
    assert (k == 0) == (best <= 0)


# -- limits ---------------------------------------------------------------------

#: the wall-clock net of a run that a work limit ends: Hare's ``list`` (a heuristic that calls a
#: solver) always has a deadline (default 120 s, which a busy machine can reach); this one no load
#: reaches, and the work limits the test sets end the run long before it
NET = 3600.0

BIG = random_instance(7, jobs=(5, 6), gpus=(4, 4), max_rounds=3, max_tasks_per_round=3, max_tasks=30)


def test_exact_time_limit_returns_checked_incumbent():
    res = dmlsched.solve(BIG, "exact", time_limit=0.5)
    if res.status == Status.NOT_APPLICABLE:  # a busy machine spent the 0.5 s before the build:
        assert res.details["refused"] == "time"  # refused before allocating, the one other outcome
        return
    assert res.status in (Status.FEASIBLE, Status.OPTIMAL)
    dmlsched.validate(BIG, res.solution)
    assert res.lower_bound is not None and _le(res.lower_bound, res.objective)
    assert res.details["source"] in ("mip", "heuristic")
    assert _le(res.objective, res.details["heuristic_objective"])
    assert "build" in res.details["stages"]


def test_exact_deadline_covers_the_whole_method():
    """time_limit bounds box + build + Pyomo translation + solve: with almost no
    time the method still returns the box's incumbent (or refuses), marked as
    cut by the clock; the stages are timed.  (Wall-clock figures are in
    benchmarks/hare_exact.md, not asserted here.)"""
    inst = random_instance(9, jobs=(8, 8), gpus=(4, 4), max_rounds=3, max_tasks_per_round=3, max_tasks=40)
    res = dmlsched.solve(inst, "exact", time_limit=1e-3)
    assert res.status in (Status.FEASIBLE, Status.NOT_APPLICABLE)
    if res.status == Status.FEASIBLE:
        dmlsched.validate(inst, res.solution)
        assert res.reproducible is False and res.details["deadline_cut"]
        assert res.details["source"] == "heuristic"
    # stopped by HiGHS's node limit (deterministic work), never by a wall clock
    res = dmlsched.solve(inst, "exact", solver_options={"mip_max_nodes": 1})
    assert res.reproducible and {"box", "build", "solve"} <= set(res.details["stages"])


def test_exact_refuses_before_building_what_it_cannot_hold():
    inst = generate(seed=1, gpus=list(TESTBED), num_jobs=40, load=100.0)
    res = dmlsched.solve(inst, "exact", time_limit=5)
    assert res.status == Status.NOT_APPLICABLE
    assert res.details["refused"] in ("time", "memory")
    assert "rows" in res.details["error"] and "nonzeros" in res.details["error"]
    res = dmlsched.solve(inst, "exact", memory_limit=0.01)
    assert res.status == Status.NOT_APPLICABLE and res.details["refused"] == "memory"


def test_relaxation_time_limit_still_gives_checked_point():
    """Stopped by the wall clock, the relaxation still returns a proven bound (if
    any) and a relaxed point that passes the checker, so Algorithm 1 can run,
    and says the clock cut it (not reproducible)."""
    relaxation.clear_relaxation_cache()
    for kind in ("rl", "queyranne"):
        rel = relax(BIG, kind=kind, time_limit=0.5, master_nodes=10**6, oa_iterations=10**6,
                               formulation="oa")
        assert rel.status in (Status.OPTIMAL, Status.FEASIBLE)
        assert rel.x_hat is not None
        assert _close(check_relaxed(BIG, rel.x_hat, rel.y_hat, kind), rel.value)
        if rel.status == Status.FEASIBLE:
            assert rel.details["x_hat_source"] in ("master", "fixed_assignment", "heuristic", "queyranne-repair")
            assert not rel.reproducible
        if rel.lower_bound is not None:
            assert _le(rel.lower_bound, rel.value)
    res = dmlsched.solve(BIG, "list", relaxation="queyranne", time_limit=0.5,
                         master_nodes=10**6, oa_iterations=10**6)
    dmlsched.validate(BIG, res.solution)
    assert res.reproducible is False and res.details["deadline_cut"]
    if res.lower_bound is not None:
        assert _le(res.lower_bound, res.objective)
    res = dmlsched.solve(BIG, "relaxation", relaxation="rl", time_limit=0.5)
    assert res.solution is None
    assert res.status == Status.BOUND and isinstance(res.details["bound_complete"], bool)


def _busy(seconds: float) -> None:  # pragma: no cover - runs in a child process
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        x += 1


@pytest.mark.slow
def test_list_gives_the_same_schedule_on_a_busy_machine():
    """Issue "numbers a researcher can trust": on this instance a 0.5 s wall-clock
    limit cuts the relaxation (the old behaviour, and still the safety net),
    while the deterministic work limits stop it at the same point on a quiet
    machine and with two busy-loop processes keeping both cores busy: the same
    x^, the same schedule, reproducible both times."""
    opts = dict(relaxation="queyranne", oa_iterations=4, master_nodes=50)
    relaxation.clear_relaxation_cache()
    cut = dmlsched.solve(BIG, "list", time_limit=0.5, master_nodes=10**6, oa_iterations=10**6,
                         relaxation="queyranne")
    assert cut.reproducible is False  # the wall clock cut it: what the work limits replace
    relaxation.clear_relaxation_cache()
    quiet = dmlsched.solve(BIG, "list", time_limit=NET, **opts)  # wall-clock: list always has one; NET
    assert quiet.reproducible and quiet.details["relaxation_work_limit"]
    relaxation.clear_relaxation_cache()
    ctx = mp.get_context("spawn")
    hogs = [ctx.Process(target=_busy, args=(60.0,)) for _ in range(2)]
    for h in hogs:
        h.start()
    try:
        busy = dmlsched.solve(BIG, "list", time_limit=NET, **opts)  # wall-clock: as above
    finally:
        for h in hogs:
            h.terminate()
            h.join()
    assert busy.reproducible
    assert busy.objective == quiet.objective
    assert np.array_equal(busy.solution.gpu, quiet.solution.gpu)
    assert np.array_equal(busy.solution.start, quiet.solution.start)
    assert busy.details["relaxation_value"] == quiet.details["relaxation_value"]


def test_relaxation_cache_reuses_a_reproducible_solve():
    inst = CHAIN[1]
    relaxation.clear_relaxation_cache()
    a = relax(inst, kind="rl")
    b = relax(inst, kind="rl")
    assert not a.details.get("cached") and b.details["cached"]
    assert np.array_equal(a.x_hat, b.x_hat) and a.value == b.value
    c = relax(inst, kind="rl", box="schedule")  # other options: solved again
    assert not c.details.get("cached")


def test_relaxation_solves_through_the_callers_run(monkeypatch):
    """Every solver call of a relaxation solve goes through the caller's run (one path for
    methods and library callers), and a wall-clock cut is recorded on that run."""
    through_run, direct = [], []
    run_solve, solve = Run.solve_model, solvers.solve_model
    monkeypatch.setattr(Run, "solve_model",
                        lambda self, *a, **k: through_run.append(k["what"]) or run_solve(self, *a, **k))
    monkeypatch.setattr(solvers, "solve_model", lambda *a, **k: direct.append(1) or solve(*a, **k))
    relaxation.clear_relaxation_cache()
    run = Run.standalone("hare", "list-queyranne", seed=2)
    rel = relaxation.solve_relaxation(CHAIN[0], run, kind="queyranne")
    assert rel.status == Status.OPTIMAL and "relaxation master" in through_run
    assert len(direct) == len(through_run) > 0
    assert run.details["reproducible"] and "deadline_cut" not in run.details
    relaxation.clear_relaxation_cache()
    run = Run.standalone("hare", "relaxation", time_limit=0.0, options={"formulation": "oa"})
    rel = relaxation.solve_relaxation(CHAIN[0], run, kind="rl")
    assert not rel.reproducible and not run.details["reproducible"]
    assert run.details["deadline_cut"] == rel.details["deadline_cut"]


def test_relaxation_skips_a_master_beyond_its_size_limit():
    inst = CHAIN[1]
    relaxation.clear_relaxation_cache()
    rel = relax(inst, kind="rl", max_master_nonzeros=10, formulation="oa")
    assert rel.details["skipped"] and rel.details["x_hat_source"] == "heuristic"
    assert rel.details["x_hat"]["source"] == "box-heuristic"
    assert rel.status == Status.FEASIBLE
    res = dmlsched.solve(inst, "list", max_master_nonzeros=10, formulation="oa")
    assert res.details["x_hat_source"] == "heuristic" and res.reproducible
    assert res.details["x_hat"]["source"] == "box-heuristic"


def test_fixed_assignment_point_satisfies_relaxation():
    """The repair LP: with the assignment fixed, (9)/(Q) are linear in x and the
    separation loop ends at a point the checker accepts."""
    inst = CHAIN[0]
    hz = models.horizon(inst)
    for kind in ("rl", "queyranne"):
        f = build_relaxation_master(inst, hz)
        gpu = hz.incumbent.gpu
        x = models.fixed_assignment_point(f, kind, gpu, Run.standalone("hare", "relaxation"))
        assert x is not None
        v = check_relaxed(inst, x, gpu, kind)
        assert _le(v, hz.incumbent_value)  # the heuristic's own timing is feasible for this LP
        assert not any(v.fixed for row in f.y for v in row)


# -- CLI -------------------------------------------------------------------------


def test_cli_solve_and_check(capsys):
    path = str(ROOT / "instances" / "hare" / "two_jobs.json")
    assert main(["solve", path, "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["objective"] == pytest.approx(9.8)
    assert len(out["solution"]["tasks"]) == 6
    assert main(["solve", path, "--method", "relaxation", "-o", "relaxation=queyranne", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "bound" and out["lower_bound"] == pytest.approx(8.85, rel=1e-5)
    assert out["solution"] is None
    assert main(["check", path, "--method", "list", "--reference", "exact", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["reference"] == "exact" and rep["reference_objective"] == pytest.approx(9.8)
    assert rep["verdict"] in ("holds", "violated")
    assert main(["solve", path, "--method", "exact", "-o", "bogus=1"]) == 2


def test_gurobi_licence_limit_is_a_clear_error(gurobi):
    """(9) as a quadratic constraint involves |D|(|M|+1) variables: beyond the pip
    licence's 200 the solve raises SolverLimitError (tests skip on it)."""
    inst = random_instance(3, jobs=(8, 8), gpus=(4, 4), max_rounds=3, max_tasks_per_round=3, max_tasks=60)
    assert inst.num_tasks * (inst.num_gpus + 1) > 200
    with pytest.raises(SolverLimitError):
        relax(inst, kind="rl", solver="gurobi")


def test_same_seed_same_result():
    inst = CHAIN[2]
    a = dmlsched.solve(inst, "exact", seed=3)
    b = dmlsched.solve(inst, "exact", seed=3)
    assert a.objective == b.objective
    assert np.array_equal(a.solution.gpu, b.solution.gpu) and np.array_equal(a.solution.start, b.solution.start)
    relaxation.clear_relaxation_cache()
    r1 = relax(inst, kind="queyranne", seed=3)
    relaxation.clear_relaxation_cache()
    r2 = relax(inst, kind="queyranne", seed=3)
    assert r1.value == r2.value and np.array_equal(r1.x_hat, r2.x_hat)


def test_benchmark_script_quick_mode(capsys):
    """benchmarks/hare_exact.py runs (one tiny size) and prints its table."""
    spec = importlib.util.spec_from_file_location("hare_exact_bench", ROOT / "benchmarks" / "hare_exact.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    inst = mod.make_instance(7, 3, seed=1)
    assert inst.num_tasks == 7 and inst.num_gpus == 3
    assert mod.main(["--quick", "--tasks", "4", "--gpus", "2"]) == 0
    out = capsys.readouterr().out
    assert "| 4 x 2 |" in out and "largest size solved" in out


@pytest.mark.slow
def test_property_relaxations_below_exact_on_generated_instances():
    """Hypothesis (derandomised in CI): rl <= queyranne <= exact, all proven."""
    @settings(max_examples=12, deadline=None, derandomize=True)
    @given(hare_instances(max_jobs=3, max_gpus=3, max_tasks=6))
    def check(inst):
        ex = dmlsched.solve(inst, "exact")
        rl = relax(inst, kind="rl")
        qy = relax(inst, kind="queyranne")
        assert ex.status == rl.status == qy.status == Status.OPTIMAL
        assert _le(rl.lower_bound, qy.lower_bound, 1e-5)
        assert _le(qy.value, ex.objective, 1e-5)
        assert _le(ex.lower_bound, ex.objective)

    check()
