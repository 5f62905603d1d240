"""``dmlsched report``: the CSV files, the per-instance table, the legend in
Markdown, captions once, vector figures."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from dmlsched.bench import read_records
from dmlsched.bench.report import CSV_COLUMNS, markdown_legend, write_report
from dmlsched.bench.summary import LEGEND
from dmlsched.cli import main

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """Three Hare instances x (list, fifo, lower-bound) against exact-cp."""
    d = tmp_path_factory.mktemp("rep")
    out = d / "r.jsonl"
    files = [str(ROOT / "instances" / "hare" / n) for n in ("tiny.json", "two_jobs.json", "small_10.json")]
    assert main(["bench", *files, "--methods", "list,fifo,lower-bound", "--reference", "exact-cp",
                 "--time-limit", "none", "--out", str(out), "--workers", "0", "--no-progress"]) == 0
    return out


def test_report_writes_runs_csv_one_row_per_run(results: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    assert main(["report", str(results), "--out", str(rep), "--formats", "png,pdf,svg"]) == 0
    capsys.readouterr()
    recs = read_records(results)
    with (rep / "runs.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(recs) == 3 * 4  # three instances x (reference + three methods)
    header = list(rows[0])
    assert header[: len(CSV_COLUMNS)] == list(CSV_COLUMNS)
    assert {"size.jobs", "size.tasks", "size.gpus"} <= set(header)
    by_key = {r["key"]: r for r in recs}
    for row in rows:  # flat: every cell is a scalar, numbers as written
        rec = by_key[row["key"]]
        assert row["method"] == rec["method"] and row["status"] == rec["status"]
        assert float(row["objective"]) == pytest.approx(rec["objective"])
        assert int(row["size.tasks"]) == rec["size"]["tasks"]
        assert not any(c.startswith(("{", "[")) for c in row.values())


def test_report_per_instance_table_and_csv(results: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    assert main(["report", str(results), "--out", str(rep)]) == 0
    capsys.readouterr()
    with (rep / "hare-instances.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3
    recs = read_records(results)
    for row in rows:
        mine = [r for r in recs if r["label"] == row["instance"]]
        ref = next(r for r in mine if r["method"] == "exact-cp")
        assert float(row["reference objective"]) == pytest.approx(ref["objective"])
        for m in ("list", "fifo", "exact-cp"):
            r = next(x for x in mine if x["method"] == m)
            assert float(row[m]) == pytest.approx(r["objective"])
            assert float(row[f"{m} ratio"]) == pytest.approx(r["ratio"])
        lb = next(x for x in mine if x["method"] == "lower-bound")
        assert float(row["lower-bound"]) == pytest.approx(lb["objective"])  # a bound method's value
    text = (rep / "report.md").read_text()
    assert "| instance | jobs | tasks | gpus | reference | reference objective | exact-cp | fifo |" in text
    tiny = next(r for r in recs if r["label"].endswith("tiny.json") and r["method"] == "fifo")
    line = next(ln for ln in text.splitlines() if ln.startswith("| ") and "tiny.json" in ln)
    assert f"{tiny['objective']:.4g}" in line


def test_report_markdown_legend_captions_and_vector_figures(results: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    assert main(["report", str(results), "--out", str(rep), "--formats", "png,pdf,svg"]) == 0
    capsys.readouterr()
    text = (rep / "report.md").read_text()
    # the glossary: apostrophes stay apostrophes, quoted terms become code spans, every span closes
    assert "reference's objective" in text and "`>=x`" in text and "`<=x`" in text
    for para in text.split("\n\n"):
        if not para.startswith("|"):
            assert para.count("`") % 2 == 0, para
    # every caption once
    caps = re.findall(r"^\*(.+)\.\*$", text, flags=re.M)
    assert caps and all(text.count(c) == 1 for c in caps)
    for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        png = rep / img
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
        assert b"<svg" in png.with_suffix(".svg").read_bytes()[:2000]


def test_report_bad_formats_exit_2(results: Path, tmp_path: Path, capsys):
    assert main(["report", str(results), "--out", str(tmp_path / "r"), "--formats", "png,bmp"]) == 2
    assert "--formats" in capsys.readouterr().err


def test_markdown_legend_keeps_apostrophes():
    md = markdown_legend(LEGEND)
    assert "reference's" in md and "`>=x`" in md
    assert "'" not in md.replace("'s ", " ")  # every other quote became a code span


def test_plots_survive_unknown_statuses(results: Path, tmp_path: Path):
    """A status the report does not know (e.g. a new ``bound``) is shown, not a crash."""
    recs = read_records(results)
    for r in recs:
        if r["method"] == "lower-bound":
            r["status"] = "bound"
    path = write_report(recs, str(tmp_path / "rep"), formats=())
    assert "bound:3" in path.read_text()
    assert (tmp_path / "rep" / "runs.csv").read_text().count("\n") == len(recs) + 1
    assert (tmp_path / "rep" / "hare-ratios.png").stat().st_size > 2000
