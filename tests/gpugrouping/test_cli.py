"""`dmlsched solve` / `check` on GPU_Grouping instance files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dmlsched.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_cli_solve_and_check(capsys):
    path = str(ROOT / "instances" / "gpu-grouping" / "fig9_10.json")
    assert main(["solve", path, "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["objective"] == pytest.approx(0.1)
    assert out["solution"]["members"] == [[0, 2], [1, 3]]
    assert main(["check", path, "--method", "greedy", "--reference", "exact", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ratio"] == pytest.approx(1.0)
