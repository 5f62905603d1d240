"""Shared fixtures.

Tests that take a ``solver`` argument run once per available MIP solver
(``--solvers highs,gurobi`` narrows the set; Gurobi is skipped without a
licence).  Hypothesis runs derandomised so CI is reproducible.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from dmlsched.solvers import solver_available
from dmlsched.traces.common import traces_dir as find

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


TINY_HARE = {
    "problem": "hare",
    "name": "tiny",
    "gpus": ["V100", "V100", "K80"],
    "jobs": [
        {"id": "A", "arrival": 0.0, "weight": 1.0, "rounds": 2, "tasks_per_round": 2,
         "train_time": {"V100": 1.0, "K80": 3.5}, "sync_time": {"V100": 0.1, "K80": 0.2}}
    ],
}


@pytest.fixture
def tiny_hare_dict() -> dict:
    """The issue's tiny Hare instance as a JSON dict (a fresh copy)."""
    return copy.deepcopy(TINY_HARE)


def pytest_addoption(parser):
    parser.addoption(
        "--solvers",
        default="highs,gurobi",
        help="comma-separated MIP solvers to run solver-parametrised tests with",
    )


def pytest_generate_tests(metafunc):
    if "solver" in metafunc.fixturenames:
        names = [s for s in metafunc.config.getoption("--solvers").split(",") if s]
        params = [
            pytest.param(
                s,
                marks=pytest.mark.skipif(not solver_available(s), reason=f"{s} not available"),
            )
            for s in names
        ]
        metafunc.parametrize("solver", params)


@pytest.fixture
def gurobi():
    """Skip the test when Gurobi (package + licence) is not available."""
    if not solver_available("gurobi"):
        pytest.skip("gurobi not available")
    return "gurobi"


@pytest.fixture(scope="session")
def instances_dir() -> Path:
    return INSTANCES


@pytest.fixture(scope="session")
def skip_without_traces():
    """``check(errors)``: skip the test when its runs failed only because the shared traces folder
    is absent (a claim whose instances come from a trace), as :func:`traces_dir` skips."""
    def check(errors: list[dict]) -> None:
        if errors and not find(must_exist=False).is_dir() and all(
                str(r.get("error", "")).startswith("TracesNotFound") for r in errors):
            pytest.skip("the claim's instances need the shared traces folder, absent here")

    return check


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    p = find(must_exist=False)  # $DMLSCHED_TRACES when set, else <project root>/../shared/traces
    if not p.is_dir():
        pytest.skip(f"traces folder {p} is absent")
    return p
