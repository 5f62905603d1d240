"""The summary and the report on hand-written result files: each rule of
issue 16 item 5 (time-limited reference, infinite bound, n/a, geometric mean,
head-to-head, performance profiles, variants)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from dmlsched.bench.progress import Progress
from dmlsched.bench.summary import (
    exit_code,
    geometric_mean,
    head_to_head,
    method_stats,
    performance_profile,
    profile_curve,
    run_rows,
    shifted_geometric_mean,
    summary_text,
    verdict_of,
)
from dmlsched.cli import main

COLS = ("instance", "method", "status", "objective", "ratio", "vs bound", "claim", "verdict", "time", "note")


def rec(h: str, method: str, obj: float | None, *, status: str = "feasible", problem: str = "hare",
        variant: str | None = None, seed: int = 0, **kw) -> dict:
    r = {"key": f"{h}|{variant or method}|{seed}", "problem": problem, "label": h, "instance_hash": h,
         "method": method, "variant": variant or method, "seed": seed, "status": status, "objective": obj,
         "kind": "heuristic", "sense": "min", "has_solution": obj is not None and status in ("optimal", "feasible"),
         "runtime_s": 0.5, "reference": "exact", "details": {}}
    r.update(kw)
    return r


def row(r: dict) -> dict:
    return dict(zip(COLS, run_rows([r])[0]))


def test_time_limited_reference_ratio_and_bound_ratio_apart():
    """hlas fig9_10 as found: fifo 2.43 against the reference's bound, 1.25 against its incumbent."""
    ref = rec("i", "exact", 8.0, kind="exact", ratio=1.0, ratio_to_bound=8.0 / 4.115, reference_optimal=False,
              reference_status="feasible", reference_objective=8.0)
    fifo = rec("i", "fifo", 10.0, ratio=1.25, ratio_to_bound=2.43, reference_optimal=False,
               reference_status="feasible", reference_objective=8.0, claimed_bound=None, verdict="no_bound")
    r = row(fifo)
    assert r["ratio"] == ">=1.25" and r["vs bound"] == "<=2.43"
    assert row(ref)["ratio"] == "1" and row(ref)["method"] == "exact *"
    st = method_stats([ref, fifo])
    assert st[("hare", "fifo")]["ratio_gmean"] == pytest.approx(1.25)  # never the bound ratio
    assert st[("hare", "fifo")]["to_bound_gmean"] == pytest.approx(2.43)
    assert st[("hare", "fifo")]["ref_not_optimal"] == 1
    text = summary_text([ref, fifo])
    assert "1 vs non-optimal ref" in text and "is at least" in text.replace("\n", " ")
    # a proven reference: plain numbers
    fifo2 = dict(fifo, reference_optimal=True, ratio_to_bound=1.25)
    assert row(fifo2)["ratio"] == "1.25" and row(fifo2)["vs bound"] == "1.25"


def test_missing_or_infinite_bound_is_no_bound_never_holds():
    old = rec("i", "list", 10.0, ratio=1.1, claimed_bound=None, verdict="holds")  # inf stored as null
    assert verdict_of(old) == "no_bound" and row(old)["verdict"] == "no_bound"
    fin = rec("i", "list", 10.0, ratio=1.1, claimed_bound=8.0, verdict="holds")
    assert verdict_of(fin) == "holds"
    st = method_stats([old, fin])[("hare", "list")]
    assert st["verdicts"] == {"holds": 1, "no_bound": 1}


def test_not_applicable_is_its_own_status_and_not_an_error():
    na = rec("i", "brute-force", None, status="n/a", error="brute force would evaluate about 2.8 x 10^99 schedules")
    legacy = rec("j", "brute-force", None, status="error", details={"not_applicable": True}, error="too big")
    ok = rec("i", "fifo", 3.0, ratio=1.0)
    for r in (na, legacy):
        assert row(r)["status"] == "n/a" and row(r)["verdict"] == "n/a"
    text = summary_text([na, legacy, ok])
    assert "2 not applicable" in text and "error(s)" not in text and "  n/a: i brute-force" in text
    assert exit_code([na, legacy, ok]) == 0
    err = rec("k", "list", None, status="error", error="boom")
    assert exit_code([na, ok, err]) == 1 and "1 error(s)" in summary_text([na, err])


def test_geometric_means():
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert geometric_mean([]) is None and geometric_mean([None, math.inf]) is None
    # shift 1 s: exp(mean(log(0 + 1), log(3 + 1))) - 1 = 2 - 1
    assert shifted_geometric_mean([0.0, 3.0]) == pytest.approx(1.0)
    assert shifted_geometric_mean([0.0, 3.0], shift=10) == pytest.approx(math.sqrt(10 * 13) - 10)
    rs = [rec("a", "list", 4.0, ratio=1.0, runtime_s=0.0), rec("b", "list", 8.0, ratio=4.0, runtime_s=3.0),
          rec("c", "list", None, status="time_limit", runtime_s=None)]
    st = method_stats(rs)[("hare", "list")]
    assert st["ratio_gmean"] == pytest.approx(2.0) and st["ratio_n"] == 2 and st["runs"] == 3
    assert st["time_sgm"] == pytest.approx(1.0)
    assert "2 (2)" in summary_text(rs) and "shift 1 s" in summary_text(rs)


def test_head_to_head_counts_by_sense_and_seeds():
    rs = [rec("a", "x", 1.0), rec("a", "y", 2.0),            # x wins
          rec("b", "x", 3.0), rec("b", "y", 3.0 + 1e-9),     # tie within tolerance
          rec("c", "x", 5.0), rec("c", "y", 4.0),            # x loses
          rec("d", "x", 1.0), rec("d", "y", None, status="time_limit"),  # not both solved
          rec("e", "x", 2.0, seed=0), rec("e", "x", 6.0, seed=1), rec("e", "y", 3.0)]  # x mean 4 > 3: loss
    h = head_to_head(rs)
    assert h[("x", "y")] == (1, 1, 2) and h[("y", "x")] == (2, 1, 1)
    mx = [dict(r, sense="max") for r in rs]
    assert head_to_head(mx)[("x", "y")] == (2, 1, 1)
    # bound methods are not solutions
    b = rs + [rec("a", "lb", 0.5, kind="bound", status="optimal")]
    assert all("lb" not in k for k in head_to_head(b))
    assert "head-to-head" in summary_text(rs) and "1/1/2" in summary_text(rs)


def test_performance_profile_data():
    rs = [rec("a", "x", 10.0, runtime_s=1.0), rec("a", "y", 20.0, runtime_s=0.5),
          rec("b", "x", 30.0, runtime_s=2.0), rec("b", "y", 15.0, runtime_s=2.0),
          rec("c", "x", 5.0, runtime_s=1.0), rec("c", "y", None, status="n/a"),
          rec("d", "x", 7.0)]  # y never ran on d: d is left out
    q = performance_profile(rs, "objective")
    assert q["instances"] == ["a", "b", "c"]
    assert q["ratios"]["x"] == [1.0, 2.0, 1.0] and q["ratios"]["y"] == [2.0, 1.0, math.inf]
    assert profile_curve(q["ratios"]["y"], [1.0, 1.5, 2.0, 100.0]) == pytest.approx([1 / 3, 1 / 3, 2 / 3, 2 / 3])
    t = performance_profile(rs, "time")
    assert t["ratios"]["x"] == [2.0, 1.0, 1.0] and t["ratios"]["y"] == [1.0, 1.0, math.inf]
    mx = performance_profile([dict(r, sense="max") for r in rs], "objective")
    assert mx["ratios"]["x"] == [2.0, 1.0, 1.0] and mx["ratios"]["y"] == [1.0, 2.0, math.inf]


def test_variants_are_separate_rows():
    rs = [rec("a", "list", 10.0, variant="list@proof", ratio=1.0),
          rec("a", "list", 12.0, variant="list@printed", ratio=1.2)]
    st = method_stats(rs)
    assert set(st) == {("hare", "list@proof"), ("hare", "list@printed")}
    assert [row(r)["method"] for r in rs] == ["list@proof", "list@printed"]


def test_report_from_a_hand_written_file(tmp_path: Path):
    rs = [rec("a", "exact", 8.0, kind="exact", status="optimal", ratio=1.0, ratio_to_bound=1.0, reference_optimal=True),
          rec("a", "x", 10.0, ratio=1.25, ratio_to_bound=1.25, reference_optimal=True, claimed_bound=2.0,
              verdict="holds"),
          rec("a", "y", 20.0, ratio=2.5, ratio_to_bound=2.5, reference_optimal=True, claimed_bound=2.0,
              verdict="violated"),
          rec("b", "exact", 4.0, kind="exact", status="feasible", ratio=1.0, ratio_to_bound=2.0,
              reference_optimal=False),
          rec("b", "x", 5.0, ratio=1.25, ratio_to_bound=2.5, reference_optimal=False, claimed_bound=2.0,
              verdict="inconclusive"),
          rec("b", "y", None, status="n/a", error="outside its domain"),
          rec("b", "z", None, status="error", error="boom"),
          rec("b", "w", 6.0, killed=True, reproducible=False, error="killed after 9 s", details={"killed": True})]
    f = tmp_path / "r.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rs))
    assert main(["report", str(f), "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "### Errors (real failures)" in text and "boom" in text
    errors = text.split("### Errors (real failures)")[1].split("###")[0]
    assert "outside its domain" not in errors
    assert "### Not applicable" in text and "outside its domain" in text
    assert "### Runs at the time limit" in text and "killed (last incumbent)" in text
    assert "Head-to-head" in text and "### Bound violations" in text
    assert "gm ratio" in text and "sgm time" in text and "shift 1 s" in text
    png = tmp_path / "rep" / "hare-profile.png"
    assert png.stat().st_size > 5000 and "](hare-profile.png)" in text


def test_progress_off_a_terminal_prints_periodic_lines_not_one_per_run():
    now = [0.0]
    buf = io.StringIO()
    p = Progress(282, stream=buf, interval=15, clock=lambda: now[0])
    for i in range(282):  # the main job: 282 runs in about 40 s
        now[0] += 40 / 282
        p.update({"status": "optimal" if i % 3 else "n/a", "label": "x", "method": "m"})
    p.close()
    lines = buf.getvalue().splitlines()
    assert lines[0] == "bench: 282 run(s) to do"
    assert 2 <= len(lines) <= 5, lines  # 15 s, 30 s and the last one
    assert lines[-1].startswith("bench: 282/282 100.0%") and "n/a 94" in lines[-1] and "optimal 188" in lines[-1]

    class Tty(io.StringIO):
        def isatty(self):
            return True

    t = Tty()
    p = Progress(3, stream=t, clock=lambda: 0.0)
    for _ in range(3):
        p.update({"status": "feasible", "label": "x", "method": "m"})
    assert t.getvalue().count("\r\x1b[2K[") == 3 and t.getvalue().endswith("\n")
