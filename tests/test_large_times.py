"""Validators compare time stamps with a tolerance relative to task durations, not to
absolute time: at t = 1e7 (trace time stamps reach that) an overlap of seconds is caught."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dmlsched
from dmlsched.problems.hare.solution import HareSchedule
from dmlsched.problems.hlas.solution import HlasRun
from dmlsched.problems.moldable.solution import MoldableSchedule

T0 = 1e7


@pytest.fixture
def hare_big():
    return dmlsched.from_dict({
        "problem": "hare", "gpus": ["V100"],
        "jobs": [{"id": "a", "arrival": T0, "rounds": 1, "tasks_per_round": 2,
                  "train_time": {"V100": 5}, "sync_time": {"V100": 0}}],
    })


def test_hare_overlap_at_large_time_is_rejected(hare_big):
    with pytest.raises(dmlsched.InvalidSolutionError, match=r"\(8\)"):
        dmlsched.validate(hare_big, HareSchedule(gpu=[0, 0], start=[T0, T0 + 4.0]))
    dmlsched.validate(hare_big, HareSchedule(gpu=[0, 0], start=[T0, T0 + 5.0]))  # touching is fine
    assert dmlsched.solve(hare_big, "exact").objective == pytest.approx(T0 + 10)


def test_hare_arrival_at_large_time_is_checked(hare_big):
    with pytest.raises(dmlsched.InvalidSolutionError, match=r"\(4\)"):
        dmlsched.validate(hare_big, HareSchedule(gpu=[0, 0], start=[T0 - 1.0, T0 + 4.0]))


def test_moldable_overlap_at_large_time_is_rejected():
    inst = dmlsched.from_dict({
        "problem": "moldable", "gpus": 1, "gpu_memory": 1, "speedup": [[1, 1]],
        "preemption_overhead": 0, "preemption_min_remaining": 0,
        "tasks": [{"id": "A", "user": "u", "arrival": T0, "volume": 5, "p_min": 1, "p_max": 1, "memory": 0},
                  {"id": "B", "user": "v", "arrival": T0, "volume": 5, "p_min": 1, "p_max": 1, "memory": 0}],
    })
    both = MoldableSchedule.from_segments([(0, T0, T0 + 5, (0,), 1), (1, T0, T0 + 5, (0,), 1)])
    with pytest.raises(dmlsched.InvalidSolutionError, match="exceeds capacity"):
        dmlsched.validate(inst, both)
    seq = MoldableSchedule.from_segments([(0, T0, T0 + 5, (0,), 1), (1, T0 + 5, T0 + 10, (0,), 1)])
    dmlsched.validate(inst, seq)
    assert dmlsched.solve(inst, "rigid-fcfs").objective == pytest.approx(15.0)


def test_hlas_finish_times_checked_at_large_times():
    """A run whose reported finish times are off by 9 time units at t = 1e7 is rejected."""
    d = json.loads((Path(__file__).resolve().parents[1] / "instances" / "hlas" / "fig12.json").read_text())
    d.pop("expected", None)
    for j in d["jobs"]:
        j["arrival"] = T0
    inst = dmlsched.from_dict(d)
    run = dmlsched.solve(inst, "hlas").solution
    dmlsched.validate(inst, run)
    bad = HlasRun(gpu=run.gpu, start=run.start, finish=run.finish + np.array([9.0, -9.0, 9.0]))
    with pytest.raises(dmlsched.InvalidSolutionError, match=r"\(6\)"):
        dmlsched.validate(inst, bad)
