"""Fixtures of the benchmark-engine tests: tiny Hare instances and the toy plugin."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from dmlsched import registry

HERE = Path(__file__).resolve().parent
TOY = str(HERE / "toy_family.py")


def hare_dict(seed: int, jobs: int = 2) -> dict:
    """A tiny random Hare instance (2-3 GPUs, <= 6 tasks): exact solves in well under a second."""
    rng = random.Random(seed)
    gpus = ["V100", "K80"] + (["V100"] if seed % 2 else [])
    js = []
    for n in range(jobs):
        js.append({
            "id": f"J{n}", "arrival": rng.choice([0.0, 0.5, 1.0]), "weight": rng.choice([1.0, 2.0]),
            "rounds": rng.choice([1, 2]), "tasks_per_round": rng.choice([1, 2]),
            "train_time": {"V100": round(rng.uniform(1, 2), 3), "K80": round(rng.uniform(2, 4), 3)},
            "sync_time": {"V100": 0.1, "K80": 0.2},
        })
    return {"problem": "hare", "name": f"tiny-{seed}", "gpus": gpus, "jobs": js}


@pytest.fixture
def hare_dir(tmp_path: Path) -> Path:
    """A folder of 3 tiny Hare instances (one in a sub-folder)."""
    d = tmp_path / "inst"
    (d / "sub").mkdir(parents=True)
    for s in range(3):
        p = d / ("sub" if s == 2 else ".") / f"t{s}.json"
        p.write_text(json.dumps(hare_dict(s)))
    return d


@pytest.fixture
def toy_plugin():
    """Path of the toy plugin; the registry and module cache are restored afterwards."""
    registry.load_families()
    probs, meths = dict(registry._PROBLEMS), dict(registry._METHODS)
    mods = set(sys.modules)
    yield TOY
    registry._PROBLEMS.clear()
    registry._PROBLEMS.update(probs)
    registry._METHODS.clear()
    registry._METHODS.update(meths)
    for m in set(sys.modules) - mods:
        if m.startswith("dmlsched_plugin_"):
            del sys.modules[m]


def write_toy(d: Path, name: str, values: list[float], sleep: float = 0.0) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{name}.json"
    p.write_text(json.dumps({"problem": "benchtoy", "name": name, "values": values, "sleep": sleep}))
    return p
