"""HLAS instance files: loader errors with field paths, round trip, generator, CLI (any-JSON fuzzing of
the loader is tests/test_io.py's)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched import InstanceError
from dmlsched.cli import main
from dmlsched.generate.hlas import DOMAINS, JOB_TYPES, generate, job_times
from dmlsched.problems.hlas.strategies import hlas_instances

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "instances" / "hlas").glob("*.json"))


def base() -> dict:
    return {
        "problem": "hlas",
        "gpus": ["V100", "K80"],
        "queues": [[0, 2], [2, None]],
        "jobs": [{"id": "a", "arrival": 0, "rounds": 2, "tasks_per_round": 2,
                  "train_time": {"V100": 1, "K80": 3}, "sync_time": {"V100": 0.1, "K80": 0.1}}],
    }


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_instance_files_load_and_roundtrip(path):
    inst = dmlsched.load(path)
    again = dmlsched.from_dict(json.loads(dmlsched.dumps(inst)))
    assert dmlsched.to_dict(again) == dmlsched.to_dict(inst)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["jobs"][0]["train_time"].__setitem__("K80", 0), "jobs[0].train_time.K80"),
        (lambda d: d["jobs"][0]["train_time"].pop("K80"), "jobs[0].train_time.K80"),
        (lambda d: d["jobs"][0].__setitem__("rounds", 0), "jobs[0].rounds"),
        (lambda d: d["jobs"][0].__setitem__("predicted_rounds", -1), "jobs[0].predicted_rounds"),
        (lambda d: d["jobs"][0].__setitem__("colour", 1), "jobs[0].colour"),
        (lambda d: d.__setitem__("queues", [[1, None]]), "queues[0][0]"),
        (lambda d: d.__setitem__("queues", [[0, 2], [3, None]]), "queues[1][0]"),
        (lambda d: d.__setitem__("queues", [[0, 2], [2, 5]]), "queues[1][1]"),
        (lambda d: d.__setitem__("queues", [[0, 2, 3]]), "queues[0]"),
        (lambda d: d.__setitem__("queues", [[0, 0], [0, None]]), "queues[0][1]"),
        (lambda d: d.__setitem__("groups", 3), "groups"),
        (lambda d: d.__setitem__("grouping", [[0], [0, 1]]), "grouping[1][0]"),
        (lambda d: d.__setitem__("grouping", [[0]]), "grouping"),
        (lambda d: d.__setitem__("grouping", [[0], [5]]), "grouping[1][0]"),
        (lambda d: d.__setitem__("grouping", [[0], []]), "grouping[1]"),
        (lambda d: d.update(grouping=[[0], [1]], groups=1), "groups"),
        (lambda d: d["jobs"].append(dict(d["jobs"][0])), "jobs[1].id"),
    ],
)
def test_loader_errors_name_the_field(mutate, field):
    d = base()
    mutate(d)
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict(d)
    assert e.value.field == field, str(e.value)


def test_defaults():
    d = base()
    del d["queues"]
    inst = dmlsched.from_dict(d)
    assert inst.queues == ((0.0, math.inf),) and inst.num_groups == 2 and inst.jobs[0].weight == 1.0


@settings(max_examples=30, deadline=None)
@given(hlas_instances())
def test_strategy_instances_roundtrip_and_convert_to_hare(inst):
    assert dmlsched.to_dict(dmlsched.from_dict(dmlsched.to_dict(inst))) == dmlsched.to_dict(inst)
    hare = inst.to_hare()
    assert hare.num_tasks == inst.num_tasks and hare.gpus == inst.gpus


def test_generator_reproduces_the_paper_setup():
    inst = generate(num_jobs=400, num_gpus=160, seed=4, num_groups=40, predictions="conservative")
    assert inst.num_gpus == 160 and inst.num_groups == 40
    assert Counter(inst.gpus) == {"V100": 40, "T4": 40, "K80": 40, "M60": 40}
    models = [j.id.split("-", 1)[1] for j in inst.jobs]
    assert set(models) == set(JOB_TYPES)
    dom = Counter(JOB_TYPES[m][0] for m in models)
    assert set(dom) == set(DOMAINS) and all(70 <= c <= 130 for c in dom.values())  # 25% each
    arr = np.array([j.arrival for j in inst.jobs])
    assert arr[0] == 0 and np.all(np.diff(arr) >= 0)
    gaps = np.diff(arr)
    assert abs(gaps.std() / gaps.mean() - 1) < 0.2  # exponential inter-arrivals (Poisson)
    assert all(10 <= j.rounds <= 1000 and j.tasks_per_round in (8, 16, 32) for j in inst.jobs)
    # heavy-tailed sizes (Section IV-B, Figs. 7-8): many small jobs, a few large ones hold most work
    work = np.sort([j.rounds * j.tasks_per_round for j in inst.jobs])[::-1]
    assert np.median([j.rounds for j in inst.jobs]) <= 30 and work[:40].sum() > 0.4 * work.sum()
    uni = generate(num_jobs=400, num_gpus=160, seed=4, sizes="uniform", rounds=(10, 100), tasks_per_round=(2, 4, 8))
    assert all(10 <= j.rounds <= 100 and j.tasks_per_round in (2, 4, 8) for j in uni.jobs)
    with pytest.raises(ValueError, match="sizes"):
        generate(num_jobs=5, num_gpus=8, num_groups=2, sizes="zipf")
    assert all(j.predicted_rounds is not None and j.predicted_rounds <= j.rounds for j in inst.jobs)
    # the paper's stated speedups: ResNet50 7x on V100 and 2x on T4, GraphSAGE 2x on V100 (vs K80)
    tr, sy = job_times("ResNet50")
    assert tr["K80"] / tr["V100"] == pytest.approx(7) and tr["K80"] / tr["T4"] == pytest.approx(2)
    tr, _ = job_times("GraphSAGE")
    assert tr["K80"] / tr["V100"] == pytest.approx(2)
    assert all(j.sync_time[g] < j.train_time[g] for j in inst.jobs for g in inst.gpu_types)
    lows = [lo for lo, _ in inst.queues]
    assert lows[0] == 0 and all(b == 4 * a for a, b in zip(lows[1:], lows[2:]))


def test_generated_instance_is_valid_json(tmp_path):
    inst = generate(num_jobs=5, num_gpus=8, seed=0, num_groups=2)
    p = tmp_path / "g.json"
    dmlsched.save(inst, p)
    assert dmlsched.to_dict(dmlsched.load(p)) == dmlsched.to_dict(inst)


def test_cli_solve_and_check_on_fig12(capsys):
    path = str(ROOT / "instances" / "hlas" / "fig12.json")
    assert main(["solve", path, "--method", "hlas", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "hlas" and out["status"] == "feasible"
    assert out["objective"] == pytest.approx(20 / 3)
    assert {j["job"]: j["finish"] for j in out["solution"]["jobs"]} == {"J1": 4, "J2": 7, "J3": 9}
    assert len(out["solution"]["tasks"]) == 9
    assert main(["check", path, "--method", "hlas-p", "--reference", "srtf", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    # srtf is a feasible (not proven optimal) reference: the ratio to it is in the details
    assert rep["reference"] == "srtf" and rep["verdict"] == "no_bound"
    assert rep["ratio"] == pytest.approx((17 / 3) / (16 / 3)) and rep["reference_optimal"] is False
    assert main(["solve", path, "--method", "2d-las", "-o", "grouped=true"]) == 0
    capsys.readouterr()
    assert main(["methods", "hlas"]) == 0
    listing = capsys.readouterr().out
    for m in ("hlas", "hlas-p", "fifo", "2d-las", "srtf"):
        assert f"hlas/{m}" in listing
