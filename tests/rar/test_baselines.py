"""RAND (Section 7): one seeded run with theta_u = T; when it has no schedule
within the horizon the result says why (issue 18: ``rand`` ended in status
``error`` on benchmarks/rar_runtime.py's 10,000-job setup because its run
ends at slot 1385 > T = 1200 there; random GPUs spread jobs over many of the
1,000 servers)."""

from __future__ import annotations

import dataclasses

import dmlsched
from dmlsched.generate.rar import generate
from dmlsched.registry import methods


def _inst(horizon: int):
    # 12 jobs on servers of 32, 4, 16, 8 GPUs: FF ends at 277, RAND (seed 0) at 332
    return dataclasses.replace(generate(seed=1, num_jobs=12, num_servers=4, horizon=5000), horizon=horizon)


def test_rand_beyond_the_horizon_says_where_its_run_ended():
    inst = _inst(300)
    assert dmlsched.solve(inst, "ff").objective == 277.0  # a schedule within T exists
    res = dmlsched.solve(inst, "rand", seed=0)
    assert res.status == dmlsched.Status.ERROR
    assert res.details["makespan_reached"] == 332
    assert "ends at slot 332 > T" in res.details["error"]
    assert res.details["error"].startswith("found no schedule within the horizon T = 300")
    # the same run with a horizon it meets is feasible and ends where the failing one did
    ok = dmlsched.solve(_inst(332), "rand", seed=0)
    assert ok.status == dmlsched.Status.FEASIBLE and ok.objective == 332.0
    assert ok.details["makespan_reached"] == 332


def test_rand_other_readings_and_seeds_meet_the_horizon():
    inst = _inst(300)
    assert dmlsched.solve(inst, "rand", seed=0, pick="servers").status == dmlsched.Status.FEASIBLE
    assert dmlsched.solve(inst, "rand", seed=3).status == dmlsched.Status.FEASIBLE


def test_a_horizon_below_the_load_bound_is_infeasible_in_every_method():
    """T = 20 is below the load bound (277): no schedule exists, and every RAR method says
    ``infeasible`` with the proof (issue 24: exact-cp said infeasible, sjf-bco and rand error)."""
    inst = _inst(20)
    for m in methods("rar"):
        res = dmlsched.solve(inst, m.name)
        assert res.status == dmlsched.Status.INFEASIBLE, m.name
        assert res.details["infeasible"] == (
            "no schedule within the horizon T = 20: the load bound on the makespan is 277")
