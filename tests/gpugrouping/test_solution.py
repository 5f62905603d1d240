"""The validator, the evaluator and the solution's JSON (solution.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.gpugrouping import Grouping, GroupingInstance

ROOT = Path(__file__).resolve().parents[2]


def test_fig9_grouping_equalises_job_a():
    inst = dmlsched.load(ROOT / "instances" / "gpu-grouping" / "fig9_10.json")
    res = dmlsched.solve(inst, "exact-cp")
    out = dmlsched.solution_to_json(inst, res.solution)
    assert out["members"] == [[0, 2], [1, 3]]
    assert out["range_per_job"][0] == pytest.approx(0.0, abs=1e-12)  # J_A sees two identical groups
    assert out["range_per_job"][1] == pytest.approx(0.1)


def test_validator_rejects_bad_groupings():
    inst = GroupingInstance(speeds=((1.0, 2.0, 3.0),), groups=2)
    spec = dmlsched.get_problem("gpu-grouping")
    with pytest.raises(InvalidSolutionError, match=r"\(4\)"):
        spec.validate(inst, Grouping((0, 1)))
    with pytest.raises(InvalidSolutionError, match=r"\(4\)"):
        spec.validate(inst, Grouping((0, 1, 2)))
    with pytest.raises(InvalidSolutionError, match="nonempty"):
        spec.validate(inst, Grouping((0, 0, 0)))
    spec.validate(inst, Grouping((0, 1, 1)))
    assert spec.evaluate(inst, Grouping((0, 1, 1))) == pytest.approx(4.0)
