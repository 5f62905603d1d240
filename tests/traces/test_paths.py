"""Where the traces are found: $DMLSCHED_TRACES, else ../shared/traces next to the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched.traces as traces
from dmlsched.traces import TracesNotFound, trace_path, traces_dir
from dmlsched.traces.common import TRACES_ENV


def test_environment_variable_wins(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_ENV, str(tmp_path))
    assert traces_dir() == tmp_path
    (tmp_path / "swf").mkdir()
    (tmp_path / "swf" / "a.swf").write_text("; x\n")
    assert trace_path("swf", "a.swf") == tmp_path / "swf" / "a.swf"
    with pytest.raises(TracesNotFound, match="b.swf"):
        trace_path("swf", "b.swf")


def test_missing_environment_folder_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_ENV, str(tmp_path / "nope"))
    with pytest.raises(TracesNotFound, match=r"DMLSCHED_TRACES=.*nope: no such folder"):
        traces_dir()
    assert traces_dir(must_exist=False) == tmp_path / "nope"


def test_default_is_relative_to_the_checkout(monkeypatch):
    monkeypatch.delenv(TRACES_ENV, raising=False)
    root = Path(traces.__file__).resolve().parents[3]  # src/dmlsched/traces -> checkout
    assert (root / "pyproject.toml").is_file()
    expected = root.parent / "shared" / "traces"
    assert traces_dir(must_exist=False) == expected
    if expected.is_dir():
        assert traces_dir() == expected
    else:
        with pytest.raises(TracesNotFound, match="DMLSCHED_TRACES"):
            traces_dir()


def test_no_absolute_machine_path_in_the_readers():
    src = Path(traces.__file__).resolve().parent
    for f in src.glob("*.py"):
        assert "/work/" not in f.read_text(), f.name
