"""The HLAS family's one random builder (``sample.random_instance``), drawn with seeded
:class:`~dmlsched.draws.RngDraws` (the strategies draw through it with HypothesisDraws)."""

from __future__ import annotations

import numpy as np

from dmlsched.draws import RngDraws
from dmlsched.problems.hlas.instance import from_dict, to_dict
from dmlsched.problems.hlas.sample import random_instance


def _draws(seed: int) -> RngDraws:
    return RngDraws(np.random.default_rng(seed))


def test_same_seed_same_instance_and_valid():
    for seed in range(100):
        d = random_instance(_draws(seed))
        assert d == random_instance(_draws(seed))
        inst = from_dict(d)
        assert 1 <= inst.num_gpus <= 4 and 1 <= inst.num_jobs <= 4 and 1 <= len(inst.queues) <= 4
        assert all(1 <= j.rounds <= 4 and 1 <= j.tasks_per_round <= 4 for j in inst.jobs)
        assert to_dict(from_dict(to_dict(inst))) == to_dict(inst)


def test_every_shape_occurs():
    """Over 200 seeds: several GPU types, predictions, several queues, a number of groups and an
    explicit grouping each occur."""
    insts = [from_dict(random_instance(_draws(seed))) for seed in range(200)]
    assert any(len(set(i.gpus)) > 1 for i in insts)
    assert any(j.predicted_rounds is not None for i in insts for j in i.jobs)
    assert any(len(i.queues) > 1 for i in insts)
    assert any(i.groups is not None for i in insts)
    assert any(i.grouping is not None for i in insts)


def test_switches_turn_shapes_off():
    for seed in range(100):
        d = random_instance(_draws(seed), grouping=False, predictions=False, queues=1, types=("A100",))
        assert "groups" not in d and "grouping" not in d and d["queues"] == [[0.0, None]]
        assert not any("predicted_rounds" in j for j in d["jobs"]) and set(d["gpus"]) == {"A100"}
        from_dict(d)
