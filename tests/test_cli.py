"""The ``dmlsched`` command: solve/check/methods, JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dmlsched
from dmlsched.cli import build_parser, main
from dmlsched.kit import COMMON_OPTIONS
from dmlsched.registry import methods


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
    p = build_parser()
    assert p.parse_args(["check", "f.json", "-m", "list"]).time_limit == 60.0
    assert p.parse_args(["check", "f.json", "-m", "list", "--time-limit", "5"]).time_limit == 5.0
    assert p.parse_args(["solve", "f.json", "-m", "list"]).time_limit is None


# ---------------------------------------------------------------------------
# the newcomer's first hour: version, visibility, options, plugins

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _run(*argv, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "dmlsched.cli", *argv], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dmlsched {dmlsched.__version__}"


def test_verbose_one_line_per_stage_and_no_pyomo_flood():
    """-v: load, build, solve, extract/validate lines of dmlsched (before or after the
    command); -vv: debug of dmlsched only, never Pyomo's DEBUG flood."""
    f = str(ROOT / "instances" / "rar" / "tiny-mixed.json")
    for argv in (["-v", "solve", f, "-m", "exact"], ["solve", f, "-m", "exact", "-v"]):
        r = _run(*argv)
        assert r.returncode == 0, r.stderr
        lines = r.stderr.strip().splitlines()
        stages = [ln.split(": ")[-1].split()[0] for ln in lines]
        assert lines and all(ln.startswith("INFO dmlsched: rar/exact: ") for ln in lines), lines
        assert stages[0] == "load" and "build" in stages and "solve" in stages and stages[-1] == "validate"
    r = _run("-vv", "solve", f, "-m", "exact")
    assert r.returncode == 0
    lines = r.stderr.strip().splitlines()
    assert 0 < len(lines) < 100 and all(" dmlsched" in ln for ln in lines), lines[:20]
    assert "pyomo" not in r.stderr.lower()
    r = _run("solve", f, "-m", "exact")
    assert r.stderr == ""  # quiet by default


def test_display_streams_the_solver_log_to_stderr():
    r = _run("solve", str(ROOT / "instances" / "rar" / "tiny-mixed.json"), "-m", "exact", "--display", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "optimal"  # standard output stays one JSON object
    assert "HiGHS" in r.stderr and len(r.stderr.splitlines()) > 10


def test_methods_lists_declared_options(capsys):
    assert main(["methods", "hare"]) == 0
    out = capsys.readouterr().out
    for m in methods("hare"):
        for o in m.options:
            assert f"    -o {o.describe()}" in out
    assert "every method also takes: " + "; ".join(o.describe() for o in COMMON_OPTIONS) in out
    assert main(["methods", "hare", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    row = next(r for r in rows if r["method"] == "exact")
    spec = next(m for m in methods("hare") if m.name == "exact")
    assert [o["name"] for o in row["options"]] == [o.name for o in spec.options]
    assert {o["name"] for o in row["common_options"]} == {"display", "memory_limit"}


def test_o_means_option_on_every_command(capsys):
    p = build_parser()
    for cmd in (["solve", "f.json", "-m", "x"], ["check", "f.json", "-m", "x"],
                ["gantt", "f.json", "-m", "x", "--out", "g.png"]):
        args = p.parse_args([*cmd, "-o", "threads=2", "-o", "solver-options={\"a\": 1}", "--display"])
        assert args.option == [("threads", 2), ("solver_options", {"a": 1})] and args.display is True
    assert main(["gantt", "f.json", "-m", "x", "-o", "chart.png"]) == 2
    err = capsys.readouterr().err
    assert "-o is --option everywhere: the output file is --out" in err and err.count("\n") == 1


PLUGIN = '''
from dmlsched.kit import Option, method
from dmlsched.problems.hare import HareSchedule


@method("hare", "plugin-fifo", kind="heuristic", options=[Option("spread", bool, False, "unused")])
def plugin_fifo(inst, run):
    """The bundled list scheduler, re-registered under another name."""
    import dmlsched

    res = dmlsched.solve(inst, "list")
    return run.result(solution=HareSchedule(gpu=res.solution.gpu, start=res.solution.start))
'''


def test_plugin_module_on_every_command(tmp_path):
    """--plugin MODULE (importable) works on methods, solve, check, gantt and bench."""
    (tmp_path / "myplug.py").write_text(PLUGIN)
    env = dict(__import__("os").environ, PYTHONPATH=str(tmp_path))
    f = str(ROOT / "instances" / "hare" / "tiny.json")
    r = _run("methods", "hare", "--plugin", "myplug", env=env)
    assert r.returncode == 0 and "hare/plugin-fifo" in r.stdout and "-o spread (bool" in r.stdout
    r = _run("solve", f, "-m", "plugin-fifo", "--plugin", "myplug", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "feasible"
    r = _run("check", f, "-m", "plugin-fifo", "-r", "exact", "--plugin", "myplug", "--json", env=env)
    assert r.returncode == 0 and json.loads(r.stdout)["ratio"] >= 1 - 1e-9
    pytest.importorskip("matplotlib")
    r = _run("gantt", f, "-m", "plugin-fifo", "--plugin", "myplug", "--out", str(tmp_path / "g.png"), env=env)
    assert r.returncode == 0 and (tmp_path / "g.png").stat().st_size > 2000
    # without the plugin, the method is unknown: exit 2, one line
    r = _run("solve", f, "-m", "plugin-fifo")
    assert r.returncode == 2 and "unknown method 'plugin-fifo'" in r.stderr and r.stderr.count("\n") == 1
    # a module that is not importable names the plugin (and hints at the file)
    script = __import__("pathlib").Path(sys.executable).parent / "dmlsched"  # no cwd on sys.path
    r = subprocess.run([str(script), "methods", "--plugin", "myplug"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and "--plugin myplug" in r.stderr and "--plugin myplug.py" in r.stderr


def test_solve_out_is_atomic_and_checked_first(tiny_file, tmp_path, capsys):
    out = tmp_path / "sol.json"
    out.write_text("old\n")
    assert main(["solve", str(tiny_file), "-m", "nope", "--out", str(out)]) == 2
    assert out.read_text() == "old\n"
    assert main(["solve", str(tiny_file), "-m", "list", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["tasks"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sol.json", "tiny.json"]
    capsys.readouterr()
