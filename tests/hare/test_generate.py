"""The Hare evaluation-setup generator: seeded, valid, list/baselines run on it."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.generate.hare import TESTBED, cluster, generate, simulation, simulation_rate


def test_same_seed_same_instance():
    a, b = generate(seed=3, num_jobs=5, num_gpus=6), generate(seed=3, num_jobs=5, num_gpus=6)
    assert dmlsched.to_dict(a) == dmlsched.to_dict(b)
    assert dmlsched.to_dict(generate(seed=4, num_jobs=5, num_gpus=6)) != dmlsched.to_dict(a)


def test_generated_instance_is_valid_and_solvable():
    inst = generate(seed=0, num_jobs=4, num_gpus=4, rounds=(1, 2), tasks_per_round=(1, 2))
    assert inst.num_jobs == 4 and inst.num_gpus == 4
    assert sorted(set(inst.gpus)) == ["K80", "M60", "T4", "V100"]
    arrivals = [j.arrival for j in inst.jobs]
    assert arrivals == sorted(arrivals) and arrivals[0] == 0.0
    for method in ("fifo", "allox"):
        res = dmlsched.solve(inst, method)
        assert res.objective > 0


def test_testbed_and_simulation_setups():
    from dmlsched.generate.hare import testbed  # noqa: PLC0415 - a module-level 'testbed' would be collected as a test

    tb = testbed(seed=1)
    assert tb.gpus == TESTBED and tb.num_jobs == 20
    assert max(j.arrival for j in tb.jobs) < 1.0  # load 100: the jobs arrive together
    assert cluster(160) == ["V100"] * 40 + ["T4"] * 40 + ["K80"] * 40 + ["M60"] * 40
    assert cluster(5, "middle") == ["V100"] * 3 + ["K80"] * 2
    assert set(cluster(160, "low")) == {"V100"}
    sim = simulation(seed=1)
    assert sim.num_jobs == 200 and sim.num_gpus == 160
    # the default arrivals are Poisson at a fixed rate: more jobs span more time
    more = simulation(seed=1, num_jobs=300)
    assert more.jobs[199].arrival == sim.jobs[199].arrival  # the same stream
    assert simulation_rate() > 0
    batch = simulation(seed=1, num_jobs=50, load=100.0)
    assert max(j.arrival for j in batch.jobs) < max(j.arrival for j in sim.jobs[:50])
    with pytest.raises(ValueError, match="heterogeneity"):
        cluster(4, "extreme")
    with pytest.raises(ValueError, match="num_jobs"):
        generate(seed=0, num_jobs=-4)
    with pytest.raises(ValueError, match="load"):
        generate(seed=0, load=0)
