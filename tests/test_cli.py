"""The ``dmlsched`` command: solve/check/methods, JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dmlsched.cli import main


@pytest.fixture
def tiny_file(tmp_path, tiny_hare_dict):
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(tiny_hare_dict))
    return p


def test_methods_lists_hare(capsys):
    assert main(["methods", "hare"]) == 0
    out = capsys.readouterr().out
    assert "hare/list" in out and "alpha(2+alpha)" in out
    assert main(["methods", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"problem": "hare", "method": "list"}.items() <= rows[[r["method"] for r in rows].index("list")].items()


def test_methods_unknown_problem(capsys):
    assert main(["methods", "nope"]) == 2
    assert "unknown problem" in capsys.readouterr().err


def test_solve_json(tiny_file, capsys):
    assert main(["solve", str(tiny_file), "--method", "list", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"problem", "method", "status", "sense", "objective", "bound", "lower_bound",
                        "upper_bound", "runtime_s", "reproducible", "details", "solution"}
    assert out["problem"] == "hare" and out["status"] == "feasible"
    sol = out["solution"]
    assert len(sol["tasks"]) == 4
    assert set(sol["tasks"][0]) >= {"job", "round", "task", "gpu", "start", "end"}
    assert out["objective"] == pytest.approx(sum(sol["completion"].values()))
    assert out["lower_bound"] == out["bound"] <= out["objective"] + 1e-9 == out["upper_bound"] + 1e-9


def test_check_json(tiny_file, capsys):
    assert main(["check", str(tiny_file), "--method", "list", "--reference", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"problem", "method", "objective", "reference", "reference_objective",
                        "reference_bound", "ratio", "ratio_to_bound", "bound", "verdict", "details"}
    # the tiny instance: exact proves the optimum and list is within alpha(2+alpha) of it
    assert out["reference"] == "exact" and out["reference_optimal"] is True
    assert out["ratio"] >= 1 - 1e-9 and out["ratio_to_bound"] <= out["bound"]
    assert out["verdict"] == "holds"


@pytest.mark.parametrize(
    "content, needle",
    [
        ("{not json", "malformed JSON"),
        ('{"problem": "hare", "gpus": ["K80"], "jobs": [{"id": "a", "rounds": 1, "tasks_per_round": 1,'
         ' "train_time": {"K80": -2}, "sync_time": {"K80": 0}}]}', "jobs[0].train_time.K80: must be > 0"),
        ('{"problem": "hare", "gpus": ["K80", "V100"], "jobs": [{"id": "a", "rounds": 1, "tasks_per_round": 1,'
         ' "train_time": {"K80": 2}, "sync_time": {"K80": 0, "V100": 0}}]}', "jobs[0].train_time.V100"),
    ],
)
def test_bad_input_exit_2(tmp_path, capsys, content, needle):
    p = tmp_path / "bad.json"
    p.write_text(content)
    assert main(["solve", str(p), "--method", "list"]) == 2
    err = capsys.readouterr().err
    assert needle in err


def test_unknown_method_exit_2(tiny_file, capsys):
    assert main(["solve", str(tiny_file), "--method", "nope"]) == 2
    assert "unknown method" in capsys.readouterr().err


def test_solve_writes_solution_file(tiny_file, tmp_path, capsys):
    out = tmp_path / "sol.json"
    assert main(["solve", str(tiny_file), "-m", "list", "--out", str(out)]) == 0
    assert "objective" in capsys.readouterr().out
    assert json.loads(out.read_text())["completion"]


def test_console_script_runs(tiny_file):
    """The installed entry point (python -m dmlsched.cli) gives exit codes, not tracebacks."""
    r = subprocess.run([sys.executable, "-m", "dmlsched.cli", "solve", str(tiny_file), "-m", "list", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["method"] == "list"
    r = subprocess.run([sys.executable, "-m", "dmlsched.cli", "solve", str(tiny_file) + ".absent", "-m", "list"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_method_error_exit_1_with_message(tmp_path, capsys):
    """A method that does not apply ends with status n/a: exit 3 and its message on stderr."""
    p = tmp_path / "het.json"
    p.write_text(json.dumps({
        "problem": "cruise", "dataset_size": 8, "model_size": 4, "batch_size": 2,
        "machines": [{"proc_time": 1.0, "bandwidth": 1.0}, {"proc_time": 2.0, "bandwidth": 1.0},
                     {"proc_time": 1.0, "bandwidth": 3.0}],
    }))
    assert main(["solve", str(p), "-m", "closed-form", "--json"]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "n/a"
    assert "homogeneous" in captured.err


def test_check_has_a_default_time_limit_solve_has_none():
    from dmlsched.cli import build_parser

    p = build_parser()
    assert p.parse_args(["check", "f.json", "-m", "list"]).time_limit == 60.0
    assert p.parse_args(["check", "f.json", "-m", "list", "--time-limit", "5"]).time_limit == 5.0
    assert p.parse_args(["solve", "f.json", "-m", "list"]).time_limit is None
