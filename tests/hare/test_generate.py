"""The Hare evaluation-setup generator: seeded, valid, list/baselines run on it."""

from __future__ import annotations

import dmlsched
from dmlsched.generate.hare import generate


def test_same_seed_same_instance():
    a, b = generate(3, num_jobs=5, num_gpus=6), generate(3, num_jobs=5, num_gpus=6)
    assert dmlsched.to_dict(a) == dmlsched.to_dict(b)
    assert dmlsched.to_dict(generate(4, num_jobs=5, num_gpus=6)) != dmlsched.to_dict(a)


def test_generated_instance_is_valid_and_solvable():
    inst = generate(0, num_jobs=4, num_gpus=4, rounds=(1, 2), tasks_per_round=(1, 2))
    assert inst.num_jobs == 4 and inst.num_gpus == 4
    assert sorted(set(inst.gpus)) == ["K80", "M60", "T4", "V100"]
    arrivals = [j.arrival for j in inst.jobs]
    assert arrivals == sorted(arrivals) and arrivals[0] == 0.0
    for method in ("fifo", "allox"):
        res = dmlsched.solve(inst, method)
        assert res.objective > 0
