"""A sweep killed mid-way (SIGKILL, Ctrl-C) resumes without losing or
duplicating finished lines."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dmlsched.bench import Source, Suite, read_records, run_sweep

from .conftest import TOY, write_toy

N = 10
#: seconds after which a runner that makes no progress is a hang (a bug), never a slow machine:
#: every wait below ends on an event (lines written, the process ending) long before it
HANG = 600


def _cmd(d: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "dmlsched.bench", "bench", str(d), "--plugin", TOY,
            "--methods", "sleep,first", "--reference", "exact", "--workers", "1",
            "--time-limit", "none", "--out", str(out), "--no-progress"]


def _default_sigint() -> None:
    """In the runner we start: SIGINT back to its default, so that the runner
    turns it into KeyboardInterrupt even when pytest was started with SIGINT
    ignored (a background job of a non-interactive shell passes that on)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_lines(out: Path, n: int, proc: subprocess.Popen) -> bytes:
    """Wait until ``out`` holds ``n`` whole lines; return its whole lines as they were then."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < HANG:
        data = out.read_bytes() if out.exists() else b""
        if data.count(b"\n") >= n:
            return data[: data.rfind(b"\n") + 1]
        if proc.poll() is not None:
            pytest.fail(f"runner ended early: {proc.returncode}")
        time.sleep(0.05)
    pytest.fail(f"runner made no progress in {HANG} s (a hang)")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_sweep_resumes(tmp_path: Path, sig: int):
    d = tmp_path / "toy"
    for i in range(N):
        write_toy(d, f"i{i:02d}", [i + 1, 2 * i + 1], sleep=0.25)
    out = tmp_path / "r.jsonl"
    proc = subprocess.Popen(_cmd(d, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_sigint)
    seen = _wait_lines(out, 4, proc)
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=HANG)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err.decode()
    else:
        assert proc.returncode == -signal.SIGKILL
    before = out.read_bytes()
    done_before = read_records(out)
    assert 4 <= len(done_before) < 3 * N  # killed mid-sweep
    assert before.startswith(seen)  # every line whole before the signal is kept (also one being synced)
    # rerun: completes, leaves every finished line byte-for-byte, no duplicates
    rerun = subprocess.run(_cmd(d, out), capture_output=True, timeout=HANG)
    assert rerun.returncode == 0, rerun.stderr.decode()
    after = out.read_bytes()
    assert after.startswith(before if before.endswith(b"\n") else before + b"\n")
    recs = read_records(out)
    keys = [r["key"] for r in recs]
    assert len(keys) == len(set(keys)) == 3 * N
    assert {r["status"] for r in recs} <= {"optimal", "feasible"}
    assert f"{3 * N - len(done_before)} run now, {len(done_before)} already done" in rerun.stdout.decode()


def test_truncated_last_line_is_ignored_and_not_glued(tmp_path: Path, toy_plugin):
    """A kill during a write leaves half a line: reading skips it, appending starts a new line."""
    d = tmp_path / "toy"
    write_toy(d, "a", [1, 2])
    write_toy(d, "b", [3, 2])
    out = tmp_path / "r.jsonl"
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["first"], reference="exact",
              plugins=[toy_plugin], time_limit=None)
    run_sweep(s, out=str(out), workers=0, progress=False)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # cut the last line
    assert len(read_records(out)) == len(lines) - 1
    res = run_sweep(s, out=str(out), workers=0, progress=False)
    assert res.ran == 1
    recs = read_records(out)
    assert len(recs) == len(lines) == len({r["key"] for r in recs})
