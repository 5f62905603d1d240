"""Fixtures of the Harmony tests."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import dmlsched

ROOT = Path(__file__).resolve().parents[2]
HARMONY_DIR = ROOT / "instances" / "harmony"
COUNTEREXAMPLES = ROOT / "instances" / "counterexamples"

TWO_JOBS = {
    "problem": "harmony",
    "name": "two-jobs-hand",
    "machines": 2,
    "reference_dop": 2,
    "weights": {"cpu": 2, "net": 1},
    "jobs": [
        {"id": "A", "t_cpu": 2, "t_net": 1, "iterations": 10},
        {"id": "B", "t_cpu": 1, "t_net": 3, "iterations": 20},
    ],
}


@pytest.fixture
def two_jobs_dict() -> dict:
    return copy.deepcopy(TWO_JOBS)


@pytest.fixture
def two_jobs(two_jobs_dict):
    return dmlsched.from_dict(two_jobs_dict)


def harmony_files() -> list[Path]:
    return sorted(HARMONY_DIR.glob("*.json")) + sorted(COUNTEREXAMPLES.glob("harmony-*.json"))
