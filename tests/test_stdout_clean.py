"""Standard output carries exactly what a command promises, in a real process.

Solver libraries write to file descriptor 1 from C (HiGHS's banner through
``highspy``, CP-SAT's log), which tests that capture ``sys.stdout`` in the
test process never see.  Here every registered method runs through the
``dmlsched`` command in a fresh subprocess with ``--json``, and its standard
output must be one JSON document and nothing else; the solver's own log
appears only with ``--display``, and then on standard error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dmlsched.registry import load_families, methods

ROOT = Path(__file__).resolve().parents[1]

#: one small bundled instance per family, on which every method returns quickly
FILES = {
    "hare": "hare/tiny.json", "rar": "rar/tiny-mixed.json", "cruise": "cruise/homogeneous-4.json",
    "harmony": "harmony/five-jobs.json", "gpu-grouping": "gpu-grouping/small_2x8_g2.json",
    "hlas": "hlas/tiny_offline.json", "moldable": "moldable/sharing-memory.json",
}

load_families()
METHODS = [(m.problem, m.name) for m in methods() if m.problem in FILES]


def _run(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # what a solver prints would be written at once
    return subprocess.run([sys.executable, "-m", "dmlsched.cli", *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def _one_json_document(stdout: str) -> dict:
    """The whole of ``stdout`` is one JSON document (json.loads fails on anything around it)."""
    doc = json.loads(stdout)
    assert isinstance(doc, dict)
    assert stdout.endswith("\n") and stdout.count("\n") == 1, stdout[:500]
    return doc


def test_every_family_is_covered():
    assert set(FILES) == {m.problem for m in methods()}
    assert len(METHODS) >= 56


@pytest.mark.parametrize("problem, method", METHODS, ids=[f"{p}/{m}" for p, m in METHODS])
def test_solve_json_is_one_document(problem, method):
    r = _run("solve", f"instances/{FILES[problem]}", "-m", method, "--json")
    assert r.returncode in (0, 3), r.stderr
    doc = _one_json_document(r.stdout)
    assert doc["problem"] == problem and doc["method"] == method
    # without --display no solver talks, on either stream
    assert "HiGHS" not in r.stderr and "CP-SAT" not in r.stderr, r.stderr


@pytest.mark.parametrize("problem", sorted(FILES))
def test_check_json_is_one_document(problem):
    """``check`` runs the method and the family's reference (a MIP or CP-SAT model in most)."""
    method = {"hare": "list", "rar": "sjf-bco", "cruise": "proportional", "harmony": "harmony",
              "gpu-grouping": "greedy", "hlas": "fifo", "moldable": "rigid-fcfs"}[problem]
    r = _run("check", f"instances/{FILES[problem]}", "-m", method, "--json")
    assert r.returncode == 0, r.stderr
    doc = _one_json_document(r.stdout)
    assert doc["method"] == method and doc["verdict"]


def test_display_sends_the_solver_log_to_stderr():
    """With --display the solver's log (C-level included) goes to standard error, and
    standard output is still the one document."""
    r = _run("solve", "instances/hare/tiny.json", "-m", "exact-cp", "--json", "--display")
    assert r.returncode == 0, r.stderr
    doc = _one_json_document(r.stdout)
    assert doc["status"] == "optimal"
    assert "CP-SAT" in r.stderr
    # HiGHS's log, written from C, through Pyomo (exact-cp's own HiGHS, its fluid-LP bound's, is
    # quiet: solvers.quiet_highs, output off, no banner)
    r = _run("solve", "instances/hare/tiny.json", "-m", "exact", "--json", "--display")
    assert r.returncode == 0, r.stderr
    assert _one_json_document(r.stdout)["status"] == "optimal"
    assert "Running HiGHS" in r.stderr


def test_plain_output_has_no_solver_banner():
    """Without --json, standard output is the command's own table, still without the banner."""
    r = _run("solve", "instances/hare/tiny.json", "-m", "lower-bound")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split() == ["problem", "hare"]
    assert "HiGHS" not in r.stdout


def test_solver_calls_script_prints_only_its_lines(tmp_path):
    """benchmarks/solver_calls.py promises two header lines and one tab-separated line per
    solver call on standard output: nothing a solver prints from C (HiGHS's banner, made by
    the first ``highspy.Highs`` of the process: here Hare's fluid-LP bound in exact-cp)."""
    (tmp_path / "hare").mkdir()
    (tmp_path / "hare" / "tiny.json").write_text((ROOT / "instances" / "hare" / "tiny.json").read_text())
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "solver_calls.py"), "--instances", str(tmp_path),
                        "--family", "hare", "--method", "exact-cp"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == ["# solver calls: seed 0, the behaviour digest's options; wall-clock arguments left out",
                         "# columns: family instance method call# function arguments"], r.stdout[:500]
    assert len(lines) > 2 and r.stdout.endswith("\n")
    for i, line in enumerate(lines[2:]):
        family, inst, method, call, fn, args = line.split("\t")
        assert (family, inst, method, call) == ("hare", "hare/tiny.json", "exact-cp", str(i)), line
        assert fn in ("cpsat.solve_cpsat", "solvers.solve_model") and isinstance(json.loads(args), dict)


def test_every_highs_of_the_library_is_made_quiet():
    """A ``highspy.Highs`` made anywhere but :func:`dmlsched.solvers.quiet_highs` prints HiGHS's
    banner on descriptor 1 when it is the first of the process (a library caller's or a
    script's standard output)."""
    made = {p.relative_to(ROOT).as_posix() for p in (ROOT / "src").rglob("*.py") if "Highs()" in p.read_text()}
    assert made == {"src/dmlsched/solvers.py"}
    text = (ROOT / "src" / "dmlsched" / "solvers.py").read_text()
    body = text.split("def quiet_highs(")[1].split("\ndef ")[0]
    assert text.count("Highs()") == body.count("Highs()") > 0
