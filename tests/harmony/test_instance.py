"""Loader: valid files, round trips, precise errors (fuzzing of every family's loader:
tests/test_io.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.harmony import HarmonyInstance
from dmlsched.problems.harmony.strategies import harmony_instance_dicts

from .conftest import harmony_files


@pytest.mark.parametrize("path", harmony_files(), ids=lambda p: p.name)
def test_files_load_and_round_trip(path):
    inst = dmlsched.load(path)
    assert isinstance(inst, HarmonyInstance)
    assert "optimum" in inst.expected
    again = dmlsched.loads(dmlsched.dumps(inst))
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)


def test_fields(two_jobs):
    assert two_jobs.machines == 2 and two_jobs.reference_dop == 2
    assert two_jobs.weights == pytest.approx((2 / 3, 1 / 3))
    assert two_jobs.cpu_time(0, 4) == pytest.approx(1.0)  # (4.2): 2 * 2 / 4
    assert two_jobs.has_iterations
    assert list(two_jobs.iterations) == [10, 20]


def test_defaults_weights_and_iterations(two_jobs_dict):
    del two_jobs_dict["weights"]
    for j in two_jobs_dict["jobs"]:
        del j["iterations"]
    inst = dmlsched.from_dict(two_jobs_dict)
    assert (inst.w_cpu, inst.w_net) == (2.0, 1.0)
    assert not inst.has_iterations and inst.iterations is None


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("machines"), "machines"),
        (lambda d: d.__setitem__("machines", 0), "machines"),
        (lambda d: d.__setitem__("machines", 2.5), "machines"),
        (lambda d: d.__setitem__("reference_dop", -1), "reference_dop"),
        (lambda d: d.__setitem__("jobs", []), "jobs"),
        (lambda d: d["jobs"][1].__setitem__("t_cpu", 0), "jobs[1].t_cpu"),
        (lambda d: d["jobs"][0].__setitem__("t_net", -0.5), "jobs[0].t_net"),
        (lambda d: d["jobs"][0].__setitem__("t_net", "1"), "jobs[0].t_net"),
        (lambda d: d["jobs"][1].__setitem__("iterations", 0), "jobs[1].iterations"),
        (lambda d: d["jobs"][1].__setitem__("iterations", 1.5), "jobs[1].iterations"),
        (lambda d: d["jobs"][1].__setitem__("id", "A"), "jobs[1].id"),
        (lambda d: d["jobs"][1].__setitem__("id", True), "jobs[1].id"),
        (lambda d: d["jobs"][0].__setitem__("tcpu", 1), "jobs[0].tcpu"),
        (lambda d: d.__setitem__("weights", {"cpu": 0, "net": 0}), "weights"),
        (lambda d: d.__setitem__("weights", {"gpu": 1}), "weights.gpu"),
        (lambda d: d.__setitem__("weights", {"cpu": -1}), "weights.cpu"),
        (lambda d: d.__setitem__("extra", 1), "extra"),
    ],
)
def test_errors_name_the_field(two_jobs_dict, mutate, field):
    mutate(two_jobs_dict)
    with pytest.raises(InstanceError) as ei:
        dmlsched.from_dict(two_jobs_dict)
    assert ei.value.field == field, str(ei.value)


def test_nan_rejected(two_jobs_dict):
    text = json.dumps(two_jobs_dict).replace('"t_cpu": 2', '"t_cpu": NaN')
    with pytest.raises(InstanceError):
        dmlsched.loads(text)


@settings(max_examples=60, deadline=None)
@given(harmony_instance_dicts(max_jobs=6))
def test_generated_dicts_load(d):
    inst = dmlsched.from_dict(d)
    assert inst.num_jobs == len(d["jobs"])
    assert dmlsched.to_dict(dmlsched.loads(dmlsched.dumps(inst))) == dmlsched.to_dict(inst)
