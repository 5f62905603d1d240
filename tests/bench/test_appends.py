"""Appends to a results file leave whole lines only (issue 24): a write that
fails part-way (a full disk) is undone, a whole line stays whatever stops the
fsync after it, and a torn last line left by a kill is removed when the file is
next opened for appending."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dmlsched.bench import read_records
from dmlsched.bench.store import ResultStore, append_line

from .conftest import hare_dict


def _whole_lines(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), data[-80:]
    return [json.loads(x) for x in data.splitlines() if x.strip()]


def test_a_failed_write_is_cut_back(tmp_path: Path, monkeypatch):
    """The disk fills in the middle of a line: the part written is removed, the error raised."""
    out = tmp_path / "r.jsonl"
    store = ResultStore(out)
    store.append({"key": "a", "status": "optimal"})
    before = out.read_bytes()
    real_write = os.write
    calls = []

    def full_disk(fd: int, data) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[: len(data) // 2]))  # a short write ...
        raise OSError(28, "No space left on device")  # ... then the disk is full

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space left"):
        store.append({"key": "b", "status": "feasible", "details": {"pad": "x" * 200}})
    monkeypatch.undo()
    store.close()
    assert out.read_bytes() == before and len(calls) == 2
    assert [r["key"] for r in _whole_lines(out)] == ["a"]


def test_an_interrupt_keeps_a_whole_line_and_undoes_a_half_one(tmp_path: Path, monkeypatch):
    """Ctrl-C in the fsync after a whole line (the sweep stopped as a run's record was
    synced): the record stays, the interrupt is raised; Ctrl-C in the middle of a write
    (half a line written): the half is removed."""
    out = tmp_path / "r.jsonl"
    store = ResultStore(out)
    store.append({"key": "a", "status": "optimal"})

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.append({"key": "b", "status": "optimal"})
    monkeypatch.undo()
    assert [r["key"] for r in _whole_lines(out)] == ["a", "b"]
    before = out.read_bytes()
    real_write = os.write

    def half_then_interrupted(fd: int, data) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", half_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.append({"key": "c", "status": "optimal"})
    monkeypatch.undo()
    store.close()
    assert out.read_bytes() == before


def test_a_torn_tail_is_removed_on_resume(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    with ResultStore(out) as store:
        store.append({"key": "a", "status": "optimal"})
        store.append({"key": "b", "status": "optimal"})
    text = out.read_bytes()
    out.write_bytes(text[: len(text) - 10])  # a kill in the middle of the last line
    with ResultStore(out) as store:
        assert not store.done("b") and store.done("a")
        store.append({"key": "c", "status": "optimal"})
    assert [r["key"] for r in _whole_lines(out)] == ["a", "c"]


def test_append_line_writes_everything_and_syncs(tmp_path: Path):
    p = tmp_path / "f"
    with open(p, "ab") as f:
        append_line(f.fileno(), b"x" * 100_000 + b"\n")
    assert p.read_bytes() == b"x" * 100_000 + b"\n"


def _limit_file_size(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_bench_on_a_full_disk_leaves_no_half_line(tmp_path: Path):
    """A real process whose file-size limit is reached while it appends (as a full disk
    would stop it): it stops with an error, and the results file holds whole records only."""
    d = tmp_path / "inst"
    d.mkdir()
    for s in range(4):
        (d / f"t{s}.json").write_text(json.dumps(hare_dict(s)))
    out = tmp_path / "r.jsonl"
    def argv(methods: str) -> list[str]:
        return [sys.executable, "-m", "dmlsched.cli", "bench", str(d), "--methods", methods, "--reference", "none",
                "--workers", "0", "--no-progress", "--out", str(out)]

    first = subprocess.run(argv("fifo"), capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    size = out.stat().st_size
    line = size // 4  # about one record
    r = subprocess.run(argv("fifo,srtf"), capture_output=True, text=True, timeout=300,
                       preexec_fn=_limit_file_size(size + line + line // 2))
    assert r.returncode != 0 and "File too large" in r.stderr, r.stderr
    recs = _whole_lines(out)  # every line whole: the torn one was cut back
    assert len(recs) == 5 and len(read_records(out)) == 5
