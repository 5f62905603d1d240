"""Runs over their limit: asked to stop first (the kit returns the best
incumbent), killed only after the grace, and a killed run's last incumbent is
recorded (issue 16 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dmlsched.bench import Source, Suite, read_records, run_sweep

from .conftest import write_toy


def _suite(d: Path, methods: list[str], plugin: str, **kw) -> Suite:
    kw.setdefault("reference", "exact")
    kw.setdefault("time_limit", 1)
    kw.setdefault("grace", 2)
    return Suite(sources=[Source("path", pattern=str(d))], methods=methods, plugins=[plugin], **kw)


@pytest.mark.slow
def test_killed_run_keeps_its_last_incumbent_in_the_results_file(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [9, 7, 4, 6, 2], sleep=60)  # incumbents 9, 7, 4, 2 (0.3 s apart), then stuck
    out = tmp_path / "r.jsonl"
    res = run_sweep(_suite(d, ["stubborn"], toy_plugin, time_limit=1.5, grace=5), out=str(out),
                    workers=1, progress=False)
    by = {r["method"]: r for r in res.records}
    rec = {r["method"]: r for r in read_records(out)}["stubborn"]
    assert rec == by["stubborn"]
    # asked to stop at 4 s (ignored), killed at 6.5 s: the last incumbent (2, offered by about 1 s)
    # is the record
    assert rec["killed"] is True and rec["details"]["killed"] is True
    assert rec["status"] == "feasible" and rec["objective"] == 2.0 and rec["bound"] == 1.0
    assert rec["has_solution"] is True and rec["reproducible"] is False
    assert "killed after" in rec["error"] and "asked to stop" in rec["error"]
    assert 6.4 <= rec["wall_s"]  # no upper bound: a busy machine may be slow
    # judged like a finished run, against the reference (exact: 2)
    assert rec["ratio"] == pytest.approx(1.0) and rec["reference_objective"] == 2.0
    assert isinstance(rec["peak_rss_bytes"], int) and rec["peak_rss_bytes"] > 10 * 2**20


@pytest.mark.slow
def test_stop_request_returns_the_best_incumbent_without_a_kill(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [9, 7, 4], sleep=60)
    write_toy(d, "b", [3, 1], sleep=60)
    res = run_sweep(_suite(d, ["incumbents", "sleep", "first"], toy_plugin, reference="none", time_limit=1,
                           grace=8), workers=1, progress=False)
    by = {(r["label"].split("/")[-1], r["method"]): r for r in res.records}
    inc = by[("a.json", "incumbents")]
    # asked to stop at 5 s (incumbents offered by about 0.6 s; the kill would come at 9 s): the kit
    # returned its best incumbent, the worker was not killed
    assert inc["status"] == "feasible" and inc["objective"] == 4.0 and inc["killed"] is False
    assert inc["details"]["stopped_by_bench"] is True and inc["details"]["interrupted"] is True
    assert inc["reproducible"] is False and 4.9 <= inc["wall_s"]  # no upper bound: load
    # no incumbent: stopped, recorded as time_limit, not killed either
    sl = by[("a.json", "sleep")]
    assert sl["status"] == "time_limit" and sl["killed"] is False and sl["details"]["stopped_by_bench"] is True
    assert by[("b.json", "first")]["status"] == "feasible"
    # one worker process served every run: no kill, no restart
    assert len({r["pid"] for r in res.records}) == 1


def test_in_process_incumbents_need_no_worker(toy_plugin, tmp_path: Path):
    """The kit's own deadline is untouched by the bench in process (no limits enforced there)."""
    d = tmp_path / "toy"
    write_toy(d, "a", [5, 3], sleep=0)
    res = run_sweep(_suite(d, ["incumbents"], toy_plugin, reference="exact"), workers=0, progress=False)
    inc = {r["method"]: r for r in res.records}["incumbents"]
    assert inc["status"] == "feasible" and inc["objective"] == 3.0 and inc["killed"] is False


@pytest.mark.slow
def test_fresh_worker_per_run_and_peak_memory(toy_plugin, tmp_path: Path):
    """``jobs_per_worker=1``: every run in a new process; each record has its peak memory."""
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1])
    write_toy(d, "b", [2, 5])
    res = run_sweep(_suite(d, ["first"], toy_plugin, reference="none", time_limit=None), workers=1, progress=False,
                    jobs_per_worker=1)
    assert len({r["pid"] for r in res.records}) == 2
    for r in res.records:
        assert r["rss_before_bytes"] <= r["peak_rss_bytes"] < 2**31
