"""Interruptions: Ctrl-C (SIGINT) and SIGTERM stop a command cleanly.

An interrupted command says so on standard error, exits 128 + the signal's
number, and never replaces a previous output with the cut result unless
asked (``solve --save-interrupted``); ``hunt`` saves what it found as it goes
and stops on either signal.  The tests send the signal to a real
``dmlsched`` process once its ``-v`` log (or its progress) shows it is in the
middle of the work, and check the outcome -- never a duration.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import dmlsched
from dmlsched import interrupt
from dmlsched.cli import main
from dmlsched.generate import hare
from dmlsched.incumbents import incumbent_sink
from dmlsched.kit import Deadline

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def big_hare(tmp_path_factory) -> Path:
    """A Hare instance whose optimum CP-SAT cannot prove in any reasonable time."""
    p = tmp_path_factory.mktemp("big") / "hare60.json"
    dmlsched.save(hare.generate(seed=3, num_jobs=60, num_gpus=6), p)
    return p


def _start(argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dmlsched.cli", *argv], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _signal_when(p: subprocess.Popen, needle: str, sig: int) -> tuple[str, str]:
    """Read standard error until a line contains ``needle``, send ``sig``, collect the rest."""
    seen = []
    for line in p.stderr:
        seen.append(line)
        if needle in line:
            break
    else:  # pragma: no cover - the process ended before the point we wait for
        pytest.fail("the process ended before " + repr(needle) + ": " + "".join(seen))
    p.send_signal(sig)
    out, err = p.communicate(timeout=600)
    return out, "".join(seen) + err


SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


@pytest.mark.parametrize("sig", SIGNALS)
def test_interrupted_solve_keeps_out_and_says_so(big_hare, tmp_path, sig):
    out = tmp_path / "sol.json"
    out.write_text("previous result\n")
    p = _start(["solve", str(big_hare), "-m", "exact-cp", "-v", "--json", "--out", str(out)], tmp_path)
    stdout, stderr = _signal_when(p, "hare/exact-cp: build", sig)
    assert p.returncode == 128 + sig, stderr
    line = [ln for ln in stderr.splitlines() if ln.startswith("interrupted by")]
    assert line and signal.Signals(sig).name in line[0] and "left as it was" in line[0], stderr
    assert out.read_text() == "previous result\n"  # nothing replaced by the cut run
    doc = json.loads(stdout)  # the cut result itself, marked, is still one JSON document
    assert doc["details"]["interrupted"] is True and doc["reproducible"] is False
    assert doc["status"] in ("feasible", "time_limit")


def test_save_interrupted_writes_the_cut_result(big_hare, tmp_path):
    out = tmp_path / "sol.json"
    out.write_text("previous result\n")
    p = _start(["solve", str(big_hare), "-m", "exact-cp", "-v", "--out", str(out), "--save-interrupted"], tmp_path)
    stdout, stderr = _signal_when(p, "hare/exact-cp: build", signal.SIGINT)
    assert p.returncode == 130, stderr
    assert "interrupted by SIGINT" in stderr and "its best solution is in --out" in stderr
    sol = json.loads(out.read_text())
    assert len(sol["tasks"]) == dmlsched.load(big_hare).num_tasks


def test_interrupted_check_does_not_run_on(big_hare, tmp_path):
    """Ctrl-C while the reference runs: the check stops, says so, exit 130."""
    p = _start(["check", str(big_hare), "-m", "fifo", "-v", "--json"], tmp_path)
    stdout, stderr = _signal_when(p, "hare/exact-cp: build", signal.SIGINT)
    assert p.returncode == 130, stderr
    assert "interrupted by SIGINT" in stderr
    rep = json.loads(stdout)
    assert "exact-cp" in rep["details"]["interrupted"]


@pytest.mark.parametrize("sig", SIGNALS)
def test_hunt_saves_as_it_goes_and_stops(tmp_path, sig):
    folder = tmp_path / "found"
    p = _start(["hunt", "hare", "--method", "list", "--budget", "100000", "--out", str(folder)], tmp_path)
    stdout, stderr = _signal_when(p, "hunt:", sig)  # the first best: saved at once
    assert p.returncode == 128 + sig, stderr
    assert f"interrupted by {signal.Signals(sig).name}: the hunt stopped" in stderr
    logs = list(folder.glob("hunt-*.json"))
    assert len(logs) == 1
    log = json.loads(logs[0].read_text())
    assert log["interrupted"] is True and log["best"]["ratio"] >= 1 and log["shrunk"] is None
    inst = dmlsched.load(folder / f"{logs[0].name[len('hunt-'):]}")
    assert dmlsched.to_dict(inst)["problem"] == "hare"
    assert "evaluations" in stdout


def test_a_stop_request_ends_a_cpsat_search_with_its_incumbent():
    """In process: a request made in the first incumbent's callback stops CP-SAT
    (through its stop function) and the kit marks the result."""
    inst = hare.generate(seed=3, num_jobs=40, num_gpus=6)
    calls = []

    def sink(msg: dict) -> None:
        calls.append(msg)
        if len(calls) == 1:
            interrupt.request(signal.SIGINT)

    assert threading.current_thread() is threading.main_thread()
    with incumbent_sink(sink):
        res = dmlsched.solve(inst, "exact-cp")
    assert res.details["interrupted"] is True and res.details["interrupted_by"] == "SIGINT"
    assert res.status.value == "feasible" and res.reproducible is False
    # the next call starts afresh: a request ends the runs alive at that moment only
    again = dmlsched.solve(dmlsched.load(ROOT / "instances/hare/tiny.json"), "exact-cp")
    assert again.status.value == "optimal" and "interrupted" not in again.details


def test_a_request_expires_every_deadline_made_before_it():
    d, none = Deadline(1e9), Deadline(None)
    assert not d.expired() and none.remaining() is None
    interrupt.request(signal.SIGTERM)
    assert d.expired() and none.expired() and d.remaining() == 0.0 and none.remaining() == 0.0
    assert not Deadline(None).expired()
    assert interrupt.signal_name() == "SIGTERM" and interrupt.exit_code() == 143


def test_the_command_restores_the_signal_handlers(tmp_path, capsys):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert main(["solve", str(ROOT / "instances/hare/tiny.json"), "-m", "exact-cp", "--json"]) == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    assert json.loads(capsys.readouterr().out)["status"] == "optimal"
    assert os.get_blocking(1) or True  # descriptor 1 is back (the print above reached the capture)


def test_a_stop_asked_before_the_search_began_is_asked_again():
    """CP-SAT forgets a stop_search made before its search starts: the request is repeated
    until the solver call ends (the race that kept a signalled solve running)."""
    state = {"running": False, "stopped": False, "calls": 0}

    def stop() -> None:
        state["calls"] += 1
        if state["running"]:  # a stop before the start is forgotten, as CP-SAT's is
            state["stopped"] = True

    # stop signals are watched only where SIGINT has a Python handler; an earlier test in
    # this worker process may have left it ignored or default (as the bench child does)
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _repeat_until_stopped(stop, state)
    finally:
        signal.signal(signal.SIGINT, saved)
    assert state["stopped"]


def _repeat_until_stopped(stop, state: dict) -> None:
    with interrupt.solver_call(stop) as watched:
        assert watched
        interrupt.request(signal.SIGINT)
        assert state["calls"] == 1 and not state["stopped"]
        state["running"] = True  # the search begins after the request
        for _ in range(100_000):  # wait for the repeated stop (an event, not a duration)
            if state["stopped"]:
                break
            time.sleep(0.001)
