"""The dmlsched command on RAR-DDLS instance files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dmlsched.cli import main

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


def test_cli_solve_json(capsys, tmp_path):
    f = INSTANCES / "rar" / "delay-beats-nondelay.json"
    out_file = tmp_path / "sol.json"
    assert main(["solve", str(f), "--method", "exact", "--json", "--out", str(out_file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "rar" and out["status"] == "optimal" and out["objective"] == 5
    sol = json.loads(out_file.read_text())
    assert sol["makespan"] == 5 and len(sol["jobs"]) == 2


def test_cli_check_counterexample(capsys):
    f = INSTANCES / "counterexamples" / "rar-theorem5-lemma4.json"
    assert main(["check", str(f), "--method", "sjf-bco", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["reference"] == "exact-cp" and rep["verdict"] == "violated" and rep["ratio"] == 1.5
    assert main(["check", str(f), "--method", "sjf-bco", "--reference", "ilp-bound", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["reference"] == "ilp-bound" and rep["ratio"] is None and rep["ratio_to_bound"] == 1.5


def test_cli_methods_and_subprocess():
    r = subprocess.run([sys.executable, "-m", "dmlsched.cli", "methods", "rar"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    for m in ("sjf-bco", "ff", "ls", "rand", "greedy", "ilp-bound", "lower-bound", "exact", "exact-nd", "exact-cp"):
        assert f"rar/{m} " in r.stdout
    assert "Theorem 5" in r.stdout and "NOT a proven global optimum" in r.stdout


def test_cli_solve_paper_instance_text(capsys):
    assert main(["solve", str(INSTANCES / "rar" / "paper-seed0.json"), "--method", "ls"]) == 0
    out = capsys.readouterr().out
    assert "status     feasible" in out and "makespan" in out


def test_cli_unknown_option_is_exit_2(capsys):
    f = INSTANCES / "rar" / "two-job-contention.json"
    assert main(["solve", str(f), "--method", "ff", "-o", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err


def test_cli_exact_cp(capsys):
    f = INSTANCES / "rar" / "delay-beats-nondelay.json"
    assert main(["solve", str(f), "--method", "exact-cp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["objective"] == 5
