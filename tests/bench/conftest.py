"""Fixtures of the benchmark-engine tests: tiny Hare instances and the toy plugin."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from dmlsched import registry
from dmlsched.draws import RngDraws
from dmlsched.problems.hare.sample import random_instance as sample

HERE = Path(__file__).resolve().parent
TOY = str(HERE / "toy_family.py")


def hare_dict(seed: int, jobs: int = 2) -> dict:
    """A tiny random Hare instance (2-3 GPUs, <= 6 tasks): exact solves in well under a second
    (the family's one random builder, seeded)."""
    d = sample(RngDraws(np.random.default_rng(seed)), min_jobs=jobs, jobs=jobs, min_gpus=2, gpus=3,
               type_names=("V100", "K80"), rounds=2, tasks_per_round=2, tasks=6, step=0.5, train=(1.0, 2.0),
               max_sync=0.5, max_arrival=1.0, weights=(1.0, 2.0))
    return dict(d, name=f"tiny-{seed}")


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
