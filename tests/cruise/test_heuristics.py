"""Cruise heuristics: apportionment, proportional split, determinism, generator."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched.generate.cruise import (
    APPS,
    calibrated_parameters,
    heterogeneous_cluster,
    homogeneous_cluster,
    random_instance,
)
from dmlsched.problems.cruise.baselines import proportional
from dmlsched.problems.cruise.heuristics import apportion, closed_form
from dmlsched.problems.cruise.instance import CruiseInstance
from dmlsched.problems.cruise.strategies import cruise_instances
from dmlsched.tolerance import leq


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 1000), st.lists(st.floats(0.01, 100), min_size=1, max_size=8))
def test_apportion_sums_and_is_within_one_of_quota(total, weights):
    out = apportion(total, weights)
    assert sum(out) == total and all(x >= 0 for x in out)
    s = sum(weights)
    for x, w in zip(out, weights):
        assert abs(x - total * w / s) < 1 + 1e-9


def test_apportion_even_split():
    assert apportion(10, [1, 1, 1]) == [4, 3, 3]
    assert apportion(2, [1, 1, 1]) == [1, 1, 0]


def test_proportional_shares_follow_power():
    inst = CruiseInstance(proc_time=(0.25, 1.0, 1.0, 1.0), machine_bandwidth=(1.0, 1.0, 1.0, 3.0),
                          dataset_size=50, model_size=8, batch_size=10)
    cfg = proportional(inst, allowed_workers=[2])
    # workers: the fast machine 0 and the first slow one; data 4:1
    assert cfg.w[0] == 1 and cfg.d[0] == 40 and sum(cfg.d) == 50
    # servers 2 (b=1) and 3 (b=3): weights min over workers of b_ij = 1 and 1 -> even
    assert cfg.m[2] == 4 and cfg.m[3] == 4


@settings(max_examples=30, deadline=None)
@given(cruise_instances(max_machines=6, max_dataset=40))
def test_proportional_valid_and_deterministic(inst):
    a = dmlsched.solve(inst, "proportional", seed=1)
    b = dmlsched.solve(inst, "proportional", seed=2)
    assert a.solution.d == b.solution.d and a.solution.m == b.solution.m
    e = dmlsched.solve(inst, "proportional", data="effective")
    assert leq(dmlsched.solve(inst, "lower-bound").objective, min(a.objective, e.objective))


def test_proportional_is_even_on_homogeneous():
    inst = homogeneous_cluster(app="NMF", num_machines=8, scale=0.01)
    cfg = proportional(inst)
    W = sum(cfg.w)
    assert max(cfg.d) - min(cfg.d[i] for i in cfg.workers) <= 1
    assert max(cfg.m) - min(cfg.m[j] for j in cfg.servers) <= 1
    assert 1 <= W < 8


def test_generator_calibration_reproduces_table_3_4():
    for app, ((W, S), _, _) in APPS.items():
        inst = homogeneous_cluster(app=app)
        _, info = closed_form(inst, "paper")
        assert (info["workers"], info["servers"]) == (W, S), app
        assert calibrated_parameters(app)["dataset_size"] == inst.dataset_size


def test_generators_are_seeded():
    a = random_instance(num_machines=6, seed=5)
    b = random_instance(num_machines=6, seed=5)
    assert a.proc_time == b.proc_time and a.machine_bandwidth == b.machine_bandwidth
    h1 = heterogeneous_cluster(app="MLR", jitter=0.1, seed=3)
    h2 = heterogeneous_cluster(app="MLR", jitter=0.1, seed=3)
    assert h1.proc_time == h2.proc_time
    assert heterogeneous_cluster(app="MLR").machine_types == (tuple(range(28)), tuple(range(28, 32)))
    assert random_instance(num_machines=4, seed=1, matrix=True).bandwidth_matrix is not None


def test_proportional_gap_on_the_28_plus_4_cluster(instances_dir):
    """The dissertation's rule (data proportional to compute) misses the optimum by
    ~19% on the calibrated 28+4 NMF cluster (optimum recorded by brute-force over types and by exact);
    the effective-rate variant is within 1% (proofs/cruise.md)."""
    inst = dmlsched.load(instances_dir / "cruise" / "nmf-28+4-scale0.1.json")
    opt = inst.expected["optimum"]
    paper = dmlsched.solve(inst, "proportional").objective
    eff = dmlsched.solve(inst, "proportional", data="effective").objective
    assert paper / opt - 1 > 0.065
    assert leq(opt, eff) and eff / opt - 1 < 0.01
