"""`dmlsched solve` / `check` on Cruise instance files."""

from __future__ import annotations

import json

from dmlsched.cli import main


def test_cli_solve_json(instances_dir, capsys):
    f = instances_dir / "cruise" / "heterogeneous-4.json"
    assert main(["solve", str(f), "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "cruise" and out["status"] == "optimal"
    assert abs(out["objective"] - 0.27) < 1e-9
    assert out["solution"]["roles"].count("worker") == 2


def test_cli_check_counterexample(instances_dir, capsys):
    f = instances_dir / "counterexamples" / "cruise-closed-form-ceil.json"
    main(["check", str(f), "--method", "closed-form", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "violated" and abs(rep["ratio"] - 1.25) < 1e-9


def test_cli_methods_lists_cruise(capsys):
    assert main(["methods", "cruise"]) == 0
    out = capsys.readouterr().out
    for m in ("exact", "closed-form", "proportional", "brute-force", "relaxation", "lower-bound"):
        assert m in out
