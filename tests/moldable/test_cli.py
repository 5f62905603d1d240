"""The ``dmlsched`` command on moldable instance files."""

from __future__ import annotations

import json

from dmlsched.cli import main


def test_cli_solve_and_check(instances_dir, capsys):
    f = instances_dir / "moldable" / "paper-hpc2n-example.json"
    assert main(["solve", str(f), "--method", "rigid-fcfs", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "moldable" and out["objective"] == 6.0
    assert out["solution"]["metrics"]["avg_flow"] == 3.0
    assert [len(t["segments"]) for t in out["solution"]["tasks"]] == [1, 1]
    assert main(["check", str(f), "--method", "moldable-equi", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "holds" and rep["reference_objective"] == 6.0 and rep["objective"] == 8.0


def test_cli_violation_and_methods(instances_dir, capsys):
    f = instances_dir / "counterexamples" / "moldable-equi-case1-idle.json"
    main(["check", str(f), "--method", "malleable-equi", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "violated" and rep["ratio"] == 2.25
    assert main(["methods", "moldable"]) == 0
    out = capsys.readouterr().out
    for m in ("rigid-fcfs", "rigid-shortest", "moldable-equi", "malleable-equi", "moldable-prop",
              "malleable-prop", "exact"):
        assert f"moldable/{m}" in out


def test_cli_bad_instance(tmp_path, capsys):
    bad = {"problem": "moldable", "gpus": 2, "gpu_memory": 1, "speedup": [[1, 1], [2, 3]], "tasks": []}
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    assert main(["solve", str(p), "--method", "rigid-fcfs"]) == 2
    assert "speedup[1]: speedup must be sublinear" in capsys.readouterr().err
