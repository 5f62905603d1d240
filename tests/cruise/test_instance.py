"""Cruise instances: loading, field-precise errors, round trips (fuzzing of every
family's loader: tests/test_io.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.cruise.instance import CruiseInstance, from_dict, to_dict
from dmlsched.problems.cruise.strategies import cruise_instances

BASE = {
    "problem": "cruise",
    "machines": [
        {"proc_time": 0.01, "bandwidth": 100.0},
        {"proc_time": 0.02, "bandwidth": 50.0},
        {"proc_time": 0.01, "bandwidth": 100.0},
    ],
    "dataset_size": 10,
    "model_size": 4,
    "batch_size": 3,
}


def test_per_machine_bandwidth_gives_min_links():
    inst = from_dict(BASE)
    assert inst.num_machines == 3
    assert inst.b[0, 1] == 50.0 and inst.b[1, 0] == 50.0 and inst.b[0, 2] == 100.0
    assert np.isinf(inst.b[1, 1])
    assert not inst.is_homogeneous
    assert inst.machine_types == ((0, 2), (1,))


def test_matrix_form_and_round_trip():
    d = {
        "problem": "cruise",
        "machines": [{"proc_time": 1}, {"proc_time": 2}],
        "bandwidth": [[None, 3], [5, 7]],
        "dataset_size": 4, "model_size": 2, "batch_size": 1,
        "expected": {"optimum": 1.0},
    }
    inst = dmlsched.from_dict(d)
    assert inst.b[0, 1] == 3 and inst.b[1, 0] == 5 and np.isinf(inst.b[1, 1])
    again = dmlsched.loads(dmlsched.dumps(inst))
    assert to_dict(again) == to_dict(inst)
    assert again.expected == {"optimum": 1.0}


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["machines"][2].__setitem__("proc_time", 0), "machines[2].proc_time"),
        (lambda d: d["machines"][1].__setitem__("bandwidth", -1), "machines[1].bandwidth"),
        (lambda d: d["machines"][0].pop("bandwidth"), "machines[0].bandwidth"),
        (lambda d: d["machines"][0].__setitem__("speed", 1), "machines[0].speed"),
        (lambda d: d.__setitem__("dataset_size", 2.5), "dataset_size"),
        (lambda d: d.__setitem__("model_size", 0), "model_size"),
        (lambda d: d.pop("batch_size"), "batch_size"),
        (lambda d: d.__setitem__("machines", [{"proc_time": 1, "bandwidth": 1}]), "machines"),
        (lambda d: d.__setitem__("bandwidth", [[1, 1, 1]] * 3), "machines[0].bandwidth"),
        (lambda d: d.__setitem__("extra", 1), "extra"),
    ],
)
def test_errors_name_the_field(mutate, field):
    d = copy.deepcopy(BASE)
    mutate(d)
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict(d)
    assert e.value.field == field, str(e.value)


def test_matrix_errors_name_the_entry():
    d = {"problem": "cruise", "machines": [{"proc_time": 1}, {"proc_time": 1}],
         "dataset_size": 1, "model_size": 1, "batch_size": 1}
    for mat, field in [([[None, 0], [1, None]], "bandwidth[0][1]"),
                       ([[None, 1]], "bandwidth"),
                       ([[None, 1], [1]], "bandwidth[1]"),
                       ([[None, None], [1, None]], "bandwidth[0][1]")]:
        with pytest.raises(InstanceError) as e:
            dmlsched.from_dict({**d, "bandwidth": mat})
        assert e.value.field == field


def test_instance_files_load_with_expected(instances_dir):
    files = sorted((instances_dir / "cruise").glob("*.json")) + sorted(
        (instances_dir / "counterexamples").glob("cruise-*.json"))
    assert len(files) >= 6
    for f in files:
        inst = dmlsched.load(f)
        assert isinstance(inst, CruiseInstance)
        assert "optimum" in inst.expected


@settings(max_examples=50, deadline=None)
@given(cruise_instances())
def test_strategy_instances_round_trip(inst):
    assert to_dict(from_dict(to_dict(inst))) == to_dict(inst)
