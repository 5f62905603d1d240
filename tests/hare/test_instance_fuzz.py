"""Hare instance files, what ``tests/test_io.py`` does not already cover:
valid Hare files with one field mutated or deleted (deep field paths), the
round trip of generated instances, targeted bad files naming the field, and
Hare-specific refusals when saving.  (Any JSON value / any text under every
family, malformed JSON, NaN, missing files and a failing ``os.replace`` are
``tests/test_io.py``'s.)"""

from __future__ import annotations

import copy
import json
import math
import os
import re

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InstanceError
from dmlsched.io import Reader
from dmlsched.problems.hare import HareInstance
from dmlsched.problems.hare.instance import HareJob, _read_job
from dmlsched.problems.hare.strategies import hare_dicts_mutated, hare_instances

GOOD = {
    "problem": "hare",
    "name": "three",
    "gpus": ["V100", "K80", "K80"],
    "jobs": [
        {"id": "A", "arrival": 0.0, "weight": 1.0, "rounds": 2, "tasks_per_round": 2,
         "train_time": {"V100": 1.0, "K80": 3.5}, "sync_time": {"V100": 0.1, "K80": 0.2}},
        {"id": "B", "arrival": 1.0, "weight": 2.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"V100": 2.0, "K80": 2.5}, "sync_time": {"V100": 0.0, "K80": 0.0}},
        {"id": "C", "arrival": 0.5, "weight": 0.5, "rounds": 3, "tasks_per_round": 1,
         "train_time": {"V100": 1.0, "K80": 1.5}, "sync_time": {"V100": 0.5, "K80": 0.5}},
    ],
}


@settings(max_examples=100, deadline=None)
@given(hare_dicts_mutated(max_jobs=3, max_gpus=3))
def test_mutated_hare_files_give_instance_or_field_error(value):
    try:
        inst = dmlsched.from_dict(value)
    except InstanceError as e:
        assert e.field or "problem" not in value, str(e)
    else:
        assert isinstance(inst, HareInstance)
        # the loader's fast path reads every job exactly as the Reader does
        types = tuple(dict.fromkeys(value["gpus"]))
        slow = [_read_job(Reader(d, f"jobs[{i}]"), types) for i, d in enumerate(value["jobs"])]
        assert list(inst.jobs) == slow


@settings(max_examples=60, deadline=None)
@given(hare_instances(max_jobs=4, max_gpus=4, max_rounds=3, max_tasks_per_round=3))
def test_generated_instances_round_trip_through_json(inst):
    again = dmlsched.loads(dmlsched.dumps(inst))
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)


def _bad(tmp_path, mutate):
    d = copy.deepcopy(GOOD)
    mutate(d)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(InstanceError) as ei:
        dmlsched.load(p)
    return str(ei.value)


def _set(path, value):
    def f(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return f


def _del(path):
    def f(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]
    return f


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (_set(("jobs", 2, "train_time", "K80"), -1), r"^jobs\[2\]\.train_time\.K80: must be > 0, got -1"),
        (_set(("jobs", 2, "train_time", "K80"), 0), r"^jobs\[2\]\.train_time\.K80: must be > 0, got 0"),
        (_set(("jobs", 1, "sync_time", "V100"), -0.5), r"^jobs\[1\]\.sync_time\.V100: must be >= 0"),
        (_set(("jobs", 0, "arrival"), -1.0), r"^jobs\[0\]\.arrival: must be >= 0"),
        (_set(("jobs", 1, "weight"), -2), r"^jobs\[1\]\.weight: must be >= 0"),
        (_del(("jobs", 1, "train_time", "K80")), r"^jobs\[1\]\.train_time\.K80: missing time for a GPU type"),
        (_del(("jobs", 0, "sync_time", "V100")), r"^jobs\[0\]\.sync_time\.V100: missing time for a GPU type"),
        (_del(("jobs", 0, "rounds")), r"^jobs\[0\]\.rounds: missing required field"),
        (_del(("jobs", 2, "train_time")), r"^jobs\[2\]\.train_time: missing required field"),
        (_del(("gpus",)), r"^gpus: missing required field"),
        (_set(("jobs", 1, "id"), "A"), r"^jobs\[1\]\.id: duplicate job id 'A'"),
        (_set(("jobs", 0, "rounds"), "2"), r"^jobs\[0\]\.rounds: must be an integer, got string"),
        (_set(("jobs", 0, "rounds"), 1.5), r"^jobs\[0\]\.rounds: must be an integer"),
        (_set(("jobs", 0, "rounds"), 0), r"^jobs\[0\]\.rounds: must be >= 1"),
        (_set(("jobs", 0, "tasks_per_round"), True), r"^jobs\[0\]\.tasks_per_round: must be an integer, got boolean"),
        (_set(("jobs", 1, "weight"), None), r"^jobs\[1\]\.weight: must be a number, got null"),
        (_set(("jobs", 1, "train_time"), [1, 2]), r"^jobs\[1\]\.train_time: must be an object, got array"),
        (_set(("jobs", 1, "id"), [1]), r"^jobs\[1\]\.id: must be a string or an integer"),
        (_set(("gpus",), "V100"), r"^gpus: must be an array, got string"),
        (_set(("gpus",), []), r"^gpus: must have at least 1 element"),
        (_set(("gpus", 1), 7), r"^gpus\[1\]: must be a string, got number"),
        (_set(("jobs",), {}), r"^jobs: must be an array, got object"),
        (_set(("jobs", 0, "colour"), "red"), r"^jobs\[0\]\.colour: unknown field"),
        (_set(("colour",), "red"), r"^colour: unknown field"),
        (_set(("problem",), "nope"), r"^problem: unknown problem 'nope'"),
    ],
)
def test_bad_files_name_the_field(tmp_path, mutate, expected):
    msg = _bad(tmp_path, mutate)
    assert re.search(expected, msg), msg
    assert "bad.json" in msg  # load() says which file


def test_expected_field_is_allowed_and_kept(tmp_path):
    d = copy.deepcopy(GOOD)
    d["expected"] = {"exact": 12.5}
    inst = dmlsched.from_dict(d)
    assert inst.expected == {"exact": 12.5}
    p = tmp_path / "e.json"
    dmlsched.save(inst, p)
    assert dmlsched.load(p).expected == {"exact": 12.5}


# -- save never loses an existing file ------------------------------------------
@pytest.fixture
def saved(tmp_path):
    p = tmp_path / "inst.json"
    dmlsched.save(dmlsched.from_dict(GOOD), p)
    return p, p.read_bytes()


def _unchanged(p, before):
    assert p.read_bytes() == before
    assert dmlsched.to_dict(dmlsched.load(p)) == dmlsched.to_dict(dmlsched.from_dict(GOOD))
    assert sorted(x.name for x in p.parent.iterdir()) == [p.name]  # no temporary file left


def test_save_of_unserialisable_instance_keeps_existing_file(saved):
    p, before = saved
    # bypasses the Reader: a NaN arrival cannot be written as JSON
    bad = HareInstance(
        gpus=("V100",),
        jobs=(HareJob("A", math.nan, 1.0, 1, 1, {"V100": 1.0}, {"V100": 0.0}),),
    )
    with pytest.raises(ValueError):
        dmlsched.save(bad, p)
    _unchanged(p, before)


def test_save_of_invalid_instance_keeps_existing_file(saved):
    p, before = saved
    # negative training time: serialisable, but the re-parse check refuses it
    bad = HareInstance(
        gpus=("V100",),
        jobs=(HareJob("A", 0.0, 1.0, 1, 1, {"V100": -1.0}, {"V100": 0.0}),),
    )
    with pytest.raises(InstanceError, match=r"jobs\[0\]\.train_time\.V100: must be > 0"):
        dmlsched.save(bad, p)
    _unchanged(p, before)


@pytest.mark.parametrize("fail_in", ["fsync"])  # "replace": tests/test_io.py
def test_save_failing_while_writing_keeps_existing_file(saved, monkeypatch, fail_in):
    p, before = saved
    other = dmlsched.from_dict({**GOOD, "name": "other"})

    def boom(*a, **k):
        raise OSError(f"disk failure in {fail_in}")

    monkeypatch.setattr(os, fail_in, boom)
    with pytest.raises(OSError, match="disk failure"):
        dmlsched.save(other, p)
    monkeypatch.undo()
    _unchanged(p, before)
