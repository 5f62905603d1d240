"""The generic CLI on Harmony instance files."""

from __future__ import annotations

import json

import pytest

from dmlsched.cli import main

from .conftest import COUNTEREXAMPLES, HARMONY_DIR

HAND = str(HARMONY_DIR / "two-jobs-hand.json")


def test_solve_json(capsys):
    assert main(["solve", HAND, "--method", "harmony", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "harmony" and out["status"] == "feasible"
    assert out["objective"] == pytest.approx(5 / 6)
    assert sorted(j for g in out["solution"]["groups"] for j in g["jobs"]) == ["A", "B"]
    assert out["solution"]["avg_jct"] == pytest.approx(60.0)


def test_solve_with_option_and_brute_force(capsys):
    assert main(["solve", HAND, "--method", "harmony", "-o", "admission=first-stop", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "feasible"
    assert main(["solve", HAND, "--method", "brute-force"]) == 0
    assert "optimal" in capsys.readouterr().out
    assert main(["solve", HAND, "--method", "harmony", "-o", "admission=sometimes"]) == 2


def test_check_default_reference_and_counterexample(capsys):
    assert main(["check", HAND, "--method", "harmony", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["reference"] == "brute-force" and rep["verdict"] == "holds" and rep["ratio"] == pytest.approx(1.0)
    cex = str(COUNTEREXAMPLES / "harmony-fig4.17-two-balanced-jobs.json")
    assert main(["check", cex, "--method", "harmony", "--reference", "exact", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "violated" and rep["ratio"] == pytest.approx(4 / 3)


def test_bad_file_exit_2(tmp_path, capsys):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"problem": "harmony", "machines": 2, "reference_dop": 1,
                             "jobs": [{"id": "a", "t_cpu": -1, "t_net": 1}]}))
    assert main(["solve", str(p), "--method", "harmony"]) == 2
    assert "jobs[0].t_cpu" in capsys.readouterr().err


def test_methods_lists_harmony(capsys):
    assert main(["methods", "harmony"]) == 0
    out = capsys.readouterr().out
    for m in ("harmony/harmony", "harmony/oracle", "harmony/brute-force", "harmony/exact"):
        assert m in out
