"""Moldable instance files: fields, speedup-curve properties, errors naming the
field, round trips.  (Loader fuzzing of every family is in tests/test_io.py.)"""

from __future__ import annotations

import copy

import pytest

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.moldable import MoldableInstance, SpeedupCurve

GOOD = {
    "problem": "moldable",
    "name": "good",
    "gpus": 2,
    "gpu_memory": 12,
    "speedup": [[0.25, 0.4], [0.5, 0.65], [1, 1], [2, 1.8], [4, 3.0]],
    "preemption_overhead": 150,
    "preemption_min_remaining": 300,
    "tasks": [
        {"id": "a", "user": "u1", "arrival": 0, "volume": 3600, "p_min": 0.25, "p_max": 2, "memory": 3},
        {"id": 7, "user": "u2", "arrival": 10.5, "volume": 60, "p_min": "1/3", "p_max": 1, "memory": 12},
        {"id": "c", "volume": 5},
    ],
}


def test_good_instance_fields():
    inst = dmlsched.from_dict(GOOD)
    assert isinstance(inst, MoldableInstance)
    assert inst.gpus == 2 and inst.gpu_memory == 12 and inst.num_tasks == 3
    a, b, c = inst.tasks
    assert (a.pmin_den, a.p_max, a.memory) == (4, 2, 3)
    assert b.id == "7" and b.pmin_den == 3
    assert (c.arrival, c.pmin_den, c.p_max, c.memory, c.user) == (0.0, 1, 1, 0.0, "-")
    assert inst.allowed_amounts(0) == [0.25, 1 / 3, 0.5, 1.0, 2.0]
    # interpolation, extrapolation, f(v, p) = v / s(p)
    sp = inst.speedup
    assert sp.speed(1) == 1 and sp.speed(0.75) == pytest.approx(0.825)
    assert sp.speed(8) == 3.0 and sp.speed(0.125) == pytest.approx(0.2)
    assert inst.runtime(0, 2) == pytest.approx(2000)


def test_round_trip(tmp_path):
    inst = dmlsched.from_dict(GOOD)
    p = tmp_path / "x.json"
    dmlsched.save(inst, p)
    again = dmlsched.load(p)
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)


def _bad(path, value, match):
    d = copy.deepcopy(GOOD)
    node = d
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    with pytest.raises(InstanceError, match=match):
        dmlsched.from_dict(d)


@pytest.mark.parametrize(
    "path,value,match",
    [
        (("gpus",), 0, r"^gpus: must be >= 1"),
        (("gpu_memory",), -1, r"^gpu_memory: must be > 0"),
        (("speedup",), [], r"^speedup: must have at least 1"),
        (("speedup",), [[1, 1], [2, 0.9]], r"^speedup\[1\]: speedup must be non-decreasing"),
        (("speedup",), [[1, 1], [2, 2.5]], r"^speedup\[1\]: speedup must be sublinear"),
        (("speedup",), [[0.5, 0.2], [1, 1]], r"^speedup\[1\]: speedup must be sublinear"),
        (("speedup",), [[1, 2]], r"^speedup: s\(1\) must be 1"),
        (("speedup",), [[2, 1], [1, 1]], r"^speedup\[1\]\[0\]: processor amounts must be strictly increasing"),
        (("speedup",), [[1, 1, 3]], r"^speedup\[0\]: must be a \[p, speed\] pair"),
        (("tasks", 0, "p_min"), 0.3, r"^tasks\[0\]\.p_min: must be a unit fraction"),
        (("tasks", 0, "p_min"), "2/3", r"^tasks\[0\]\.p_min: must be a unit fraction"),
        (("tasks", 0, "p_min"), 2, r"^tasks\[0\]\.p_min: must be <= 1"),
        (("tasks", 0, "p_max"), 3, r"^tasks\[0\]\.p_max: must be <= 2"),
        (("tasks", 0, "p_max"), 1.5, r"^tasks\[0\]\.p_max: must be an integer"),
        (("tasks", 1, "memory"), 13, r"^tasks\[1\]\.memory: must be <= 12"),
        (("tasks", 2, "volume"), 0, r"^tasks\[2\]\.volume: must be > 0"),
        (("tasks", 2, "volume"), KeyError, r"^tasks\[2\]\.volume: missing required field"),
        (("tasks", 1, "arrival"), -1, r"^tasks\[1\]\.arrival: must be >= 0"),
        (("tasks", 1, "id"), "a", r"^tasks\[1\]\.id: duplicate task id"),
        (("tasks", 1, "id"), [1], r"^tasks\[1\]\.id: must be a string or an integer"),
        (("tasks", 1, "weight"), 1, r"^tasks\[1\]\.weight: unknown field"),
        (("preemption_overhead",), -5, r"^preemption_overhead: must be >= 0"),
        (("gpu",), 3, r"^gpu: unknown field"),
    ],
)
def test_bad_fields_are_named(path, value, match):
    _bad(path, value, match)


def test_speedup_curve_properties_checked_between_points():
    # piecewise-linear interpolation keeps both properties (module docstring)
    c = SpeedupCurve(((0.25, 0.4), (1.0, 1.0), (3.0, 2.0)))
    ps = [0.05 * i for i in range(1, 100)]
    ss = [c.speed(p) for p in ps]
    assert all(b >= a - 1e-12 for a, b in zip(ss, ss[1:]))
    assert all(b / q <= a / p + 1e-12 for p, q, a, b in zip(ps, ps[1:], ss, ss[1:]))
