"""The loader's errors, the round trip and ``from_hlas`` (instance.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.gpugrouping import GroupingInstance, from_hlas

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "data, field",
    [
        ({"speeds": [[1, 2], [1]], "groups": 1}, "speeds[1]"),
        ({"speeds": [[1, -2]], "groups": 1}, "speeds[0][1]"),
        ({"speeds": [[1, 2]], "groups": 3}, "groups"),
        ({"speeds": [[1, 2]], "groups": 0}, "groups"),
        ({"speeds": [], "groups": 1}, "speeds"),
        ({"speeds": [[1, 2]], "groups": 1, "typo": 1}, "typo"),
    ],
)
def test_loader_errors_name_the_field(data, field):
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict({"problem": "gpu-grouping", **data})
    assert e.value.field == field


def test_roundtrip_and_from_hlas_merges_job_types():
    inst = dmlsched.load(ROOT / "instances" / "hlas" / "fig9_10.json")
    g = from_hlas(inst)
    assert g.groups == 2 and g.num_jobs == 2 and g.num_gpus == 4
    assert g.speeds[0][2] == pytest.approx(1 / 1.8)
    d = dmlsched.to_dict(g)
    assert dmlsched.from_dict(json.loads(json.dumps(d))).speeds == g.speeds
    dup = GroupingInstance(speeds=((1.0, 2.0), (1.0, 2.0), (2.0, 1.0)), groups=2)
    assert dup.deduplicated().num_jobs == 2
