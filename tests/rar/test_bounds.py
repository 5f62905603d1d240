"""Lower bounds on the makespan (models/rar.md, "Lower bounds"): each <= the optimum
on every small instance, and each better than the load bound where it should be."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import assume, given, settings

import dmlsched
from dmlsched import Status
from dmlsched.generate.rar import generate, paper_instance, small
from dmlsched.problems.rar import bounds, horizon
from dmlsched.problems.rar.bounds import (
    best_lower_bound,
    energetic_infeasible,
    energetic_lower_bound,
    fluid_lower_bound,
    load_lower_bound,
)
from dmlsched.strategies import rar_tiny_instances

ROOT = Path(__file__).resolve().parents[2] / "instances"


def _two_wide_jobs(g, n_gpus):
    jobs = [{"id": f"j{i}", "gpus": g, "iterations": 40, "grad_size": 0.0, "fp_time": 0.0, "batch": 1,
             "bp_time": 0.24} for i in range(2)]
    return dmlsched.from_dict({"problem": "rar", "servers": [n_gpus], "bandwidth": {"intra": 10.0, "inter": 1.0},
                               "gpu_speed": 10.0, "xi1": 1.0, "xi2": 0.01, "alpha": 0.0, "horizon": 100,
                               "jobs": jobs})


def test_energetic_reasoning_beats_the_load_bound_on_wide_jobs():
    """Two 3-GPU jobs of 10 slots on 4 GPUs cannot overlap: load bound ceil(60/4) = 15,
    energetic reasoning 20 (their compulsory parts [C - 10, 10) overlap for C < 20)."""
    inst = _two_wide_jobs(3, 4)
    assert inst.rho_range[0].tolist() == [10, 10]
    assert load_lower_bound(inst) == 15
    assert energetic_lower_bound(inst) == 20
    assert energetic_infeasible(inst.G, inst.rho_range[0], 4, 19)
    assert not energetic_infeasible(inst.G, inst.rho_range[0], 4, 20)
    assert dmlsched.solve(inst, "exact-cp").objective == 20


def test_fluid_bound_sees_contention():
    """Three 3-GPU jobs on three 2-GPU servers: any two running together share a server
    and slow each other down.  The load bound ignores it (198); the fluid configuration
    LP does not (282, against the best known 283)."""
    inst = small(seed=4, num_jobs=3, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(1, 2, 3))
    fl = fluid_lower_bound(inst)
    assert load_lower_bound(inst) == 198 and fl["bound"] == 282 and fl["converged"]
    assert dmlsched.solve(inst, "greedy").objective >= 282
    assert best_lower_bound(inst)[:2] == (282, "fluid")


def test_farley_bound_is_valid_before_convergence():
    inst = small(seed=4, num_jobs=6, servers=(2, 2, 2), horizon=400, exchange_share=0.4, sizes=(1, 2, 3))
    full = fluid_lower_bound(inst)
    for it in (1, 2, 3):
        early = fluid_lower_bound(inst, max_iterations=it)
        assert early["value"] <= full["value"] + 1e-6
    assert full["converged"] and abs(full["value"] - full["lp"]) <= 1e-6 * full["lp"]


@settings(max_examples=30, deadline=None)
@given(inst=rar_tiny_instances())
def test_every_bound_is_at_most_the_optimum(inst):
    ex = dmlsched.solve(inst, "exact", max_candidates=60_000)
    assume(ex.status == Status.OPTIMAL)
    value, _, parts = best_lower_bound(inst)
    assert parts["load"] <= parts["energetic"] <= ex.objective
    assert parts["fluid"] <= ex.objective and value <= ex.objective
    lb = dmlsched.solve(inst, "lower-bound")
    assert lb.objective == value and lb.bound == value
    assert dmlsched.solve(inst, "ilp-bound").objective <= ex.objective


def test_paper_scale_bound_is_fast_and_below_every_heuristic():
    """At 160 jobs / 20 servers the bound is the longest job on these seeds (the
    fluid LP is not attempted), and greedy meets it on seed 1 (a proven optimum)."""
    for seed in (0, 1):
        inst = paper_instance(seed=seed)
        r = dmlsched.solve(inst, "lower-bound")
        assert r.objective == load_lower_bound(inst) == int(np.max(inst.rho_range[0]))
        assert "fluid" not in r.details["bounds"]
        for m in ("sjf-bco", "greedy"):
            assert dmlsched.solve(inst, m).objective >= r.objective
    assert (dmlsched.solve(paper_instance(seed=1), "greedy").objective
            == dmlsched.solve(paper_instance(seed=1), "lower-bound").objective)


def test_energetic_reasoning_s_shortcut_agrees_with_every_interval():
    """When no job is longer than C / 2 and the jobs' energy is below N C, energetic
    reasoning cannot rule C out (the bound in energetic_infeasible's docstring): the
    shortcut's answer, checked against the computation over every interval on seeded draws
    at the edge (N the fewest GPUs that hold the energy)."""

    rng = np.random.default_rng(22)
    for _ in range(400):
        C = int(rng.integers(2, 60))
        k = int(rng.integers(1, 12))
        G = rng.integers(1, 9, k).astype(float)
        rho = rng.integers(1, C // 2 + 1, k).astype(float)
        N = int(np.ceil(float(G @ rho) / C))
        if float(G @ rho) == N * C:
            N += 1
        assert not horizon._energetic_violated(G, rho, N, C), (G, rho, N, C)
        assert not bounds.energetic_infeasible(G, rho, N, C)
    # outside the shortcut's conditions the full check still decides (the case above rules C out)
    inst = _two_wide_jobs(3, 4)
    assert bounds.energetic_infeasible(inst.G, inst.rho_range[0], 4, 19)


def test_the_horizon_check_of_a_large_instance_computes_no_interval(monkeypatch):
    """Every RAR method first asks horizon_infeasible (before its budget can stop anything):
    at 6,000 jobs the intervals cost about 1-2 s (286 distinct durations, 165,000 intervals);
    a horizon far above the durations is decided by the shortcut, without them."""

    def no_intervals(*args):
        raise AssertionError("energetic reasoning computed its intervals")

    monkeypatch.setattr(horizon, "_energetic_violated", no_intervals)
    inst = generate(seed=0, num_jobs=600, num_servers=60)
    assert 2 * int(inst.rho_range[0].max()) <= inst.horizon
    assert horizon.horizon_infeasible(inst) is None
