"""RAR-DDLS instance files: fields, errors with paths, tau > 1 handling, fuzz."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.rar import RarInstance

from pathlib import Path

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

FILES = sorted((INSTANCES / "rar").glob("*.json")) + sorted((INSTANCES / "counterexamples").glob("rar-*.json"))


@pytest.fixture
def two_dict() -> dict:
    return json.loads((INSTANCES / "rar" / "two-job-contention.json").read_text())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_instance_files_load_and_round_trip(path, tmp_path):
    inst = dmlsched.load(path)
    assert isinstance(inst, RarInstance)
    out = tmp_path / "x.json"
    dmlsched.save(inst, out)
    again = dmlsched.load(out)
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["jobs"][1].__setitem__("gpus", 0), "jobs[1].gpus"),
        (lambda d: d["jobs"][0].__setitem__("iterations", 2.5), "jobs[0].iterations"),
        (lambda d: d["jobs"][0].__setitem__("grad_size", -1), "jobs[0].grad_size"),
        (lambda d: d["jobs"][0].__setitem__("gpus", 99), "jobs[0].gpus"),
        (lambda d: d["jobs"][1].__setitem__("id", "A"), "jobs[1].id"),
        (lambda d: d["jobs"][0].__setitem__("colour", "red"), "jobs[0].colour"),
        (lambda d: d["bandwidth"].__setitem__("inter", 0), "bandwidth.inter"),
        (lambda d: d["bandwidth"].pop("intra"), "bandwidth.intra"),
        (lambda d: d.__setitem__("servers", [2, 0]), "servers[1]"),
        (lambda d: d.__setitem__("servers", []), "servers"),
        (lambda d: d.__setitem__("xi1", 1.5), "xi1"),
        (lambda d: d.__setitem__("xi2", 0), "xi2"),
        (lambda d: d.__setitem__("horizon", 0), "horizon"),
        (lambda d: d.__setitem__("progress", "ceil"), "progress"),
        (lambda d: d.__setitem__("hoirzon", 3), "hoirzon"),
        (lambda d: d.pop("alpha"), "alpha"),
        (lambda d: d.__setitem__("servers", [10**12]), "servers[0]"),
        (lambda d: d["jobs"][0].__setitem__("iterations", 10**30), "jobs[0].iterations"),
        (lambda d: d["jobs"][0].__setitem__("grad_size", 1e308), "jobs[0]"),
    ],
)
def test_bad_fields_name_the_field(two_dict, mutate, field):
    mutate(two_dict)
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict(two_dict)
    assert e.value.field == field, str(e.value)


def test_tau_above_one_slot_is_rejected_in_floor_mode_and_allowed_fractional(two_dict):
    # job B: a huge gradient makes its per-iteration time > 1 slot once split
    two_dict["jobs"][1]["grad_size"] = 100.0
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict(two_dict)
    assert e.value.field == "jobs[1]" and "floor(1/tau) = 0" in str(e.value)
    two_dict["progress"] = "fractional"
    inst = dmlsched.from_dict(two_dict)
    lo, hi = inst.tau_range
    assert hi[1] > 1
    # the job still finishes: progress 1/tau per slot, every method terminates
    res = dmlsched.solve(inst, "ls")
    assert res.objective is not None and res.objective >= inst.rho_range[0][1]


def test_tau_range_and_rho_range_by_hand(two_dict):
    inst = dmlsched.from_dict(two_dict)
    lo, hi = inst.tau_range
    # job A fits on one server: tau_min = 2/100 + 0.05 + 0.05 = 0.12
    assert lo[0] == pytest.approx(0.12)
    # worst case: 2 servers, p_max = min(2, 2 split-capable jobs) = 2, f = 2 + 1*(2-1) = 3:
    # 2*3/10 + 0.05 + 0.1 = 0.75
    assert hi[0] == pytest.approx(0.75)
    rmin, rmax = inst.rho_range
    assert rmin[0] == 1 and rmax[0] == 6  # 6 iterations at floor(1/0.12)=8 resp. floor(1/0.75)=1 per slot


def _json_values():
    leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 40), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=4))
    return st.recursive(leaf, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=8), c, max_size=4)),
                        max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fuzz_any_json_gives_instance_or_instance_error(data):
    d = json.loads((INSTANCES / "rar" / "two-job-contention.json").read_text())
    d.pop("expected", None)
    # replace one field (top-level, bandwidth or a job field) by an arbitrary JSON value
    where = data.draw(st.sampled_from(["top", "bw", "job", "whole"]))
    value = data.draw(_json_values())
    if where == "top":
        d[data.draw(st.sampled_from(sorted(d)))] = value
    elif where == "bw":
        d["bandwidth"][data.draw(st.sampled_from(["intra", "inter", "x"]))] = value
    elif where == "job":
        d["jobs"][data.draw(st.integers(0, 1))][data.draw(st.sampled_from(
            ["id", "gpus", "iterations", "grad_size", "fp_time", "batch", "bp_time"]))] = value
    else:
        d = {"problem": "rar", **value} if isinstance(value, dict) else value
    try:
        inst = dmlsched.from_dict(d)
    except InstanceError:
        return
    assert isinstance(inst, RarInstance)
