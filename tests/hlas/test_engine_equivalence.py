"""The indexed HLAS engine (issue 23) gives exactly the schedules of the engine it replaced.

``reference_simulator.py`` is a verbatim copy of the simulator before the change; each
test runs :func:`dmlsched.problems.hlas.heuristics.simulate` once with the library's
simulator and once with the reference swapped in, and compares every task's GPU and
start time, every job's finish time and every assignment of the trace, bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched.generate.hlas import generate
from dmlsched.kit import Run
from dmlsched.problems.hlas import heuristics
from dmlsched.problems.hlas.simulator import HlasSimulator, IdleIndex
from dmlsched.problems.hlas.strategies import hlas_instances
from dmlsched.sim import Simulation

from .reference_simulator import HlasSimulator as _Reference


class ReferenceSimulator(_Reference):
    """The reference on the generic engine, with the library simulator's ``run``."""

    def run(self):
        return Simulation().run(self)

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

#: (policy, options of ``simulate``): every reading of models/hlas.md items 10-13 and each
#: policy's defaults as registered (fifo and 2d-las: gang "block"; 2d-las also with "skip" and oblivious placement)
READINGS = (
    [("hlas", {"group_mode": m, "group_idle": i}) for m in heuristics.GROUP_MODES for i in ("any", "all")]
    + [("hlas-p", {"group_mode": "batch"}), ("hlas-p", {"group_mode": "round", "group_idle": "all"})]
    + [("hlas", {"placement": "oblivious"}), ("hlas", {"grouped": False})]
    + [("fifo", {"gang": "block"}), ("fifo", {}), ("fifo", {"gang": "skip"}), ("fifo", {"grouped": True})]
    + [("2d-las", {"gang": "skip", "placement": "oblivious"}), ("2d-las", {"gang": "skip"}), ("2d-las", {})]
    + [("srtf", {}), ("srtf", {"grouped": True, "group_idle": "all"})]
)
IDS = [f"{p}-{'-'.join(map(str, o.values())) or 'relaxed'}" for p, o in READINGS]


def _run(inst, policy, opts, cls, monkeypatch, **extra):
    """``simulate`` with the simulator class ``cls`` (and extra constructor arguments)."""

    def make(*a, **k):
        return cls(*a, **k, **extra)

    monkeypatch.setattr(heuristics, "HlasSimulator", make)
    try:
        return heuristics.simulate(inst, policy, readings=heuristics.Readings(trace=True, **opts),
                                   run=Run.standalone("hlas", policy, seed=7))
    finally:
        monkeypatch.undo()


def _same(inst, policy, opts, monkeypatch, **extra):
    new, dn = _run(inst, policy, opts, HlasSimulator, monkeypatch, **extra)
    old, do = _run(inst, policy, opts, ReferenceSimulator, monkeypatch)
    assert new.gpu.tolist() == old.gpu.tolist()
    assert new.start.tolist() == old.start.tolist()
    assert new.finish.tolist() == old.finish.tolist()
    assert new.log == old.log
    assert dn["records"] == do["records"]  # first start and finish of every job
    assert (dn["events"], dn["decisions"], dn["assignments"]) == (do["events"], do["decisions"], do["assignments"])
    return dn


def _bundled():
    out = []
    for path in sorted((INSTANCES / "hlas").glob("*.json")):
        out.append(pytest.param(path, id=path.stem))
    return out


@pytest.mark.parametrize("path", _bundled())
@pytest.mark.parametrize("policy,opts", READINGS, ids=IDS)
def test_bundled_instances_same_schedules(path, policy, opts, monkeypatch):
    inst = dmlsched.load(path)
    _same(inst, policy, opts, monkeypatch)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("policy,opts", READINGS, ids=IDS)
def test_generated_instances_same_schedules(seed, policy, opts, monkeypatch):
    """The paper setup (mixed 4-GPU groups, eight job profiles) at a scale where many groups
    are open at once (load 0.5) and where few are (load 3)."""
    load = 0.5 if seed % 2 else 3.0
    inst = generate(num_jobs=60, num_gpus=24, num_groups=6, seed=seed, load=load, rounds=(2, 12),
                    tasks_per_round=(2, 4, 8))
    _same(inst, policy, opts, monkeypatch)


@pytest.mark.parametrize("scan_max", [-1, 2, 1000])
@pytest.mark.parametrize("group_idle", ["any", "all"])
def test_the_index_and_the_scan_choose_the_same_groups(scan_max, group_idle, monkeypatch):
    """The class index (``scan_max=-1``: always), the scan (``1000``: always) and the mix
    give the reference's schedule; large groups (8 GPUs) make free lists of many orders."""
    inst = generate(num_jobs=80, num_gpus=32, num_groups=4, seed=11, load=0.6, rounds=(2, 10),
                    tasks_per_round=(2, 4, 8, 16))
    d = _same(inst, "hlas", {"group_idle": group_idle}, monkeypatch, scan_max=scan_max)
    assert d["assignments"] > 100


@pytest.mark.parametrize("scan_max", [-1, 1000])
def test_per_gpu_runs_index_and_scan_agree(scan_max, monkeypatch):
    inst = generate(num_jobs=60, num_gpus=16, num_groups=None, seed=5, load=0.4, rounds=(2, 8))
    for policy in ("fifo", "srtf"):
        _same(inst, policy, {}, monkeypatch, scan_max=scan_max)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(hlas_instances())
def test_random_instances_same_schedules(inst):
    """Property: on the strategy's instances (odd groupings, equal speeds of different GPU
    types, so ties between groups of different kinds) both engines agree under each reading."""
    mp = pytest.MonkeyPatch()
    try:
        for policy, opts in (("hlas", {}), ("hlas", {"group_idle": "all"}), ("hlas", {"group_mode": "gpuset"}),
                             ("hlas", {"group_mode": "round"}), ("srtf", {})):
            _same(inst, policy, opts, mp, scan_max=-1)
            _same(inst, policy, opts, mp)
    finally:
        mp.undo()


def test_index_ties_between_classes_of_equal_speed():
    """Two GPU types of equal speed for a profile: groups of either type tie, and the lowest
    index wins whichever class it is in; the scan agrees."""
    speeds = [[2.0, 1.0, 1.0, 1.0], [1.0, 3.0, 1.0, 2.0]]
    types = [0, 1, 2, 1]  # GPUs 1 and 3 share a type; GPU 2 has another type of equal speed for profile 0
    for scan in (-1, 100):
        idx = IdleIndex([[0], [1], [2], [3]], speeds, types, scan_max=scan)
        assert idx.fastest(0) == 0 and idx.fastest(1) == 1
        idx.open.remove(0)
        idx.close(0)
        assert idx.fastest(0) == 1  # 1, 2, 3 tie at 1.0
        idx.open.remove(1)
        idx.close(1)
        assert idx.fastest(0) == 2 and idx.fastest(1) == 3
        idx.open.append(0)
        idx.move(0, idx.state([0]))
        assert idx.fastest(0) == 0 and idx.fastest(1) == 3
