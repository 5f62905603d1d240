"""Progress lines (dmlsched.progress) and the default time limit of
heuristics that call a solver."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import dmlsched
from dmlsched import progress
from dmlsched.cli import main
from dmlsched.kit import DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT, method
from dmlsched.registry import _METHODS


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_stage_and_elapsed_then_erases_itself(monkeypatch):
    monkeypatch.setattr(progress, "REFRESH_S", 0.05)
    out = _Tty()
    with progress.running("hare/list", 10, stream=out):
        progress.set_stage("hare/list: relaxation")
        time.sleep(0.3)
    text = out.getvalue()
    assert "hare/list" in text and "/10 s" in text and "relaxation" in text
    assert text.endswith("\r")  # the line is cleared: what the command prints next starts clean
    assert progress._state["stage"] is None


def test_progress_is_off_off_a_terminal(monkeypatch):
    monkeypatch.delenv(progress.NO_PROGRESS_ENV, raising=False)
    assert progress.wanted(_Tty())
    assert not progress.wanted(io.StringIO())
    assert not progress.wanted(_Tty(), verbose=1) and not progress.wanted(_Tty(), display=True)
    monkeypatch.setenv(progress.NO_PROGRESS_ENV, "1")
    assert not progress.wanted(_Tty())
    out = io.StringIO()
    with progress.running("x", 1, enabled=False, stream=out):
        pass
    assert out.getvalue() == ""


def test_methods_state_the_default_time_limit_of_solver_heuristics(capsys):
    assert main(["methods", "hare", "--json"]) == 0
    ms = {m["method"]: m for m in json.loads(capsys.readouterr().out)}
    assert ms["list"]["default_time_limit"] == DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT
    assert ms["fifo"]["default_time_limit"] is None and ms["exact"]["default_time_limit"] is None
    assert main(["methods", "hare"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("hare/list "))
    assert f"default time limit {DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT:g} s" in line


def test_solver_heuristic_without_time_limit_gets_the_default():
    seen = {}

    @method("hare", "probe-deadline", kind="heuristic", uses_solver=True, replace=True)
    def probe(inst, run):
        """Records the deadline it was given."""
        seen["remaining"] = run.remaining()
        return dmlsched.solve(inst, "fifo")

    try:
        inst = dmlsched.load(Path(__file__).resolve().parents[1] / "instances" / "hare" / "tiny.json")
        probe(inst)
        assert 0 < seen["remaining"] <= DEFAULT_SOLVER_HEURISTIC_TIME_LIMIT
        probe(inst, time_limit=5)
        assert seen["remaining"] <= 5
    finally:
        _METHODS.pop(("hare", "probe-deadline"), None)
