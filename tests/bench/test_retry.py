"""``--retry`` re-runs errors, killed and not-reproducible runs and keeps the
newest line; the run key carries the package version (issue 16 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dmlsched.bench import Source, Suite, read_records, run_sweep
from dmlsched.bench import runner as runner_mod
from dmlsched.bench.store import key_core, latest_records, package_version
from dmlsched.cli import main

from .conftest import write_toy


def _suite(d: Path, plugin: str, **kw) -> Suite:
    kw.setdefault("methods", ["flaky", "first"])
    kw.setdefault("reference", "exact")
    return Suite(sources=[Source("path", pattern=str(d))], plugins=[plugin], time_limit=None, **kw)


def test_retry_errors_reruns_and_the_newest_line_counts(toy_plugin, tmp_path: Path, monkeypatch):
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1])
    write_toy(d, "b", [2, 5])
    out = tmp_path / "r.jsonl"
    monkeypatch.setenv("DMLSCHED_TOY_FAIL", "1")
    first = run_sweep(_suite(d, toy_plugin), out=str(out), workers=0, progress=False)
    assert [r["status"] for r in first.records if r["method"] == "flaky"] == ["error", "error"]
    monkeypatch.delenv("DMLSCHED_TOY_FAIL")
    # without --retry an error is done
    again = run_sweep(_suite(d, toy_plugin), out=str(out), workers=0, progress=False)
    assert again.ran == 0
    before = out.read_text()
    res = run_sweep(_suite(d, toy_plugin), out=str(out), workers=0, progress=False, retry="errors")
    assert res.ran == 2 and res.retried == 2 and res.skipped == 4
    flaky = [r for r in res.records if r["method"] == "flaky"]
    assert [r["status"] for r in flaky] == ["feasible", "feasible"]
    assert all(r["details"]["replaces"]["status"] == "error" for r in flaky)
    # append-only: the old lines are still there, the newest line of a key counts
    assert out.read_text().startswith(before)
    lines = read_records(out)
    assert len(lines) == 6 + 2 and len({r["key"] for r in lines}) == 6
    latest = {r["key"]: r for r in latest_records([out])}
    assert all(latest[r["key"]]["status"] == "feasible" for r in flaky)
    # the report reads the newest line too
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    assert "Errors" not in (tmp_path / "rep" / "report.md").read_text()


def _rewrite(out: Path, pred, **fields) -> None:
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    for r in recs:
        if pred(r):
            r.update(fields)
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_retry_killed_and_not_reproducible(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1])
    write_toy(d, "b", [2, 5])
    out = tmp_path / "r.jsonl"
    run_sweep(_suite(d, toy_plugin, methods=["first", "seeded"]), out=str(out), workers=0, progress=False)
    _rewrite(out, lambda r: r["method"] == "first" and r["label"].endswith("a.json"), killed=True)
    _rewrite(out, lambda r: r["method"] == "seeded" and r["label"].endswith("b.json"), reproducible=False)
    s = _suite(d, toy_plugin, methods=["first", "seeded"])
    assert run_sweep(s, out=str(out), workers=0, progress=False, retry="errors").ran == 0
    k = run_sweep(s, out=str(out), workers=0, progress=False, retry=["killed"])
    assert k.ran == 1
    assert {(r["method"], r["killed"]) for r in k.records if r["label"].endswith("a.json")} >= {("first", False)}
    n = run_sweep(s, out=str(out), workers=0, progress=False, retry="killed,not-reproducible")
    assert n.ran == 1  # the killed one was replaced by a normal run already
    assert all(r["reproducible"] is not False and not r["killed"] for r in n.records)


def test_retried_reference_reruns_the_runs_compared_with_it(toy_plugin, tmp_path: Path, monkeypatch):
    d = tmp_path / "toy"
    write_toy(d, "a", [4, 2])
    out = tmp_path / "r.jsonl"
    s = _suite(d, toy_plugin, methods=["first"], reference="flaky")
    monkeypatch.setenv("DMLSCHED_TOY_FAIL", "1")
    r1 = {r["method"]: r for r in run_sweep(s, out=str(out), workers=0, progress=False).records}
    assert r1["flaky"]["status"] == "error" and r1["first"]["ratio"] is None
    monkeypatch.delenv("DMLSCHED_TOY_FAIL")
    res = run_sweep(s, out=str(out), workers=0, progress=False, retry="errors")
    r2 = {r["method"]: r for r in res.records}
    assert res.ran == 2 and r2["flaky"]["status"] == "feasible"
    assert r2["first"]["ratio"] == pytest.approx(2.0) and r2["first"]["verdict"] == "violated"


def test_the_key_carries_the_version_and_any_version_ignores_it(toy_plugin, tmp_path: Path, monkeypatch):
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1])
    out = tmp_path / "r.jsonl"
    s = _suite(d, toy_plugin, methods=["first"])
    first = run_sweep(s, out=str(out), workers=0, progress=False)
    v = package_version()
    assert all(r["key"].endswith(f"|v={v}") and r["version"] == v for r in first.records)
    assert key_core(first.records[0]["key"]) + f"|v={v}" == first.records[0]["key"]
    monkeypatch.setattr(runner_mod, "package_version", lambda: "99.0")
    assert run_sweep(s, out=str(out), workers=0, progress=False, any_version=True).ran == 0
    other = run_sweep(s, out=str(out), workers=0, progress=False)
    assert other.ran == 2 and all(r["key"].endswith("|v=99.0") for r in other.records)


def test_retry_words_are_checked(toy_plugin, tmp_path: Path, capsys):
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1])
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(d), "--plugin", toy_plugin, "--methods", "first", "--workers", "0",
                 "--out", str(out), "--retry", "errors,bogus"]) == 2
    assert "bogus" in capsys.readouterr().err and not out.exists()
    assert main(["bench", str(d), "--plugin", toy_plugin, "--methods", "first", "--workers", "0",
                 "--retry", "errors"]) == 2
    assert "--retry" in capsys.readouterr().err
