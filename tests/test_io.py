"""The loader: dispatch on "problem", field-path errors, atomic save, fuzzing."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched.io import Reader


def test_reader_paths():
    r = Reader({"jobs": [{"t": {"K80": -1}}, {}]})
    with pytest.raises(dmlsched.InstanceError, match=r"^jobs\[0\]\.t\.K80: must be > 0, got -1$"):
        r["jobs"][0].number_map("t", gt=0)
    with pytest.raises(dmlsched.InstanceError, match=r"^jobs\[1\]\.id: missing required field$"):
        r["jobs"][1].string("id")
    with pytest.raises(dmlsched.InstanceError, match=r"^jobs: must be an object"):
        Reader({"jobs": 3})["jobs"].obj()
    with pytest.raises(dmlsched.InstanceError, match=r"must be an integer"):
        Reader({"n": 1.5}).integer("n")
    with pytest.raises(dmlsched.InstanceError, match=r"must be an integer"):
        Reader({"n": True}).integer("n")
    assert Reader({"n": 2.0}).integer("n") == 2
    with pytest.raises(dmlsched.InstanceError, match=r"^x: unknown field"):
        Reader({"x": 1}).check_keys(("y",))


def test_dispatch_and_roundtrip(tmp_path, tiny_hare_dict):
    inst = dmlsched.from_dict(tiny_hare_dict)
    p = tmp_path / "tiny.json"
    dmlsched.save(inst, p)
    again = dmlsched.load(p)
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)
    assert json.loads(p.read_text())["problem"] == "hare"


@pytest.mark.parametrize(
    "text, field",
    [
        ("{", ""),
        ("[]", ""),
        ('{"name": "x"}', "problem"),
        ('{"problem": "nope"}', "problem"),
        ('{"problem": 3}', "problem"),
        ('{"problem": "hare", "gpus": ["K80"], "jobs": [{"id": "a", "rounds": NaN}]}', ""),
    ],
)
def test_malformed_files_name_field(tmp_path, text, field):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(dmlsched.InstanceError) as ei:
        dmlsched.load(p)
    assert ei.value.field == field
    assert str(p) in str(ei.value)


def test_missing_file_is_instance_error(tmp_path):
    with pytest.raises(dmlsched.InstanceError, match="cannot read"):
        dmlsched.load(tmp_path / "absent.json")


def test_save_failure_keeps_existing_file(tmp_path, monkeypatch, tiny_hare_dict):
    p = tmp_path / "keep.json"
    p.write_text("precious\n")
    inst = dmlsched.from_dict(tiny_hare_dict)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        dmlsched.save(inst, p)
    assert p.read_text() == "precious\n"
    assert [q.name for q in tmp_path.iterdir()] == ["keep.json"]  # no temp file left behind


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-10, 10, allow_nan=False)
    | st.text(max_size=5) | st.sampled_from(["V100", "K80", "id", "rounds"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["id", "gpus", "jobs", "rounds", "name", "x", "servers"]) | st.text(max_size=4),
                      children, max_size=5),
    max_leaves=20,
)


PROBLEMS = [spec.name for spec in dmlsched.families()]


@settings(max_examples=300)
@given(
    problem=st.sampled_from(PROBLEMS + ["bogus"]) | st.none(),
    body=st.dictionaries(st.text(max_size=12), json_values, max_size=6),
)
def test_fuzz_any_json_gives_instance_or_instance_error(problem, body):
    """Every family's loader: any JSON object gives an instance or an InstanceError."""
    data = dict(body)
    if problem is not None:
        data["problem"] = problem
    # call the family's own parser: the dispatcher's defensive wrapper must not be needed
    parse = dmlsched.get_problem(problem).from_dict if problem in PROBLEMS else dmlsched.from_dict
    try:
        parse(data)
    except dmlsched.InstanceError:
        pass


@settings(max_examples=100)
@given(json_values)
def test_fuzz_top_level_values(value):
    try:
        dmlsched.from_dict(value)
    except dmlsched.InstanceError:
        pass


@pytest.mark.parametrize(
    "data, field",
    [
        ({"problem": "hare", "gpus": ["K80"], "jobs": [{"id": "a", "rounds": 1e11, "tasks_per_round": 1e8,
          "train_time": {"K80": 1}, "sync_time": {"K80": 0}}]}, "jobs[0].rounds"),
        ({"problem": "hlas", "gpus": ["K80"], "jobs": [{"id": "a", "arrival": 0, "rounds": 10**12,
          "tasks_per_round": 1, "train_time": {"K80": 1}, "sync_time": {"K80": 0}}]}, "jobs[0].rounds"),
        ({"problem": "harmony", "machines": 10**30, "reference_dop": 4,
          "jobs": [{"id": "a", "t_cpu": 1, "t_net": 1}]}, "machines"),
        ({"problem": "harmony", "machines": 10**7, "reference_dop": 4,
          "jobs": [{"id": "a", "t_cpu": 1, "t_net": 1}]}, "machines"),
    ],
)
def test_huge_sizes_are_instance_errors(data, field):
    """Sizes that would exhaust memory or time are refused at load, naming the field."""
    with pytest.raises(dmlsched.InstanceError) as ei:
        dmlsched.from_dict(data)
    assert ei.value.field == field
