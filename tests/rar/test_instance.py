"""RAR-DDLS instance files: fields, errors with paths, tau > 1 handling, fuzz."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dmlsched
from dmlsched import InstanceError
from dmlsched.problems.rar import RarInstance

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
        (lambda d: d["jobs"][0].__setitem__("grad_size", 1e308), "jobs[0].grad_size"),
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
