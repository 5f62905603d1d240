"""``dmlsched bench`` / ``report`` / ``gantt`` through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dmlsched.bench import read_records
from dmlsched.cli import main

from .conftest import hare_dict


def test_bench_cli_summary_progress_and_file(hare_dir: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.jsonl"
    code = main(["bench", str(hare_dir), "--methods", "list,fifo", "--reference", "exact",
                 "--time-limit", "none", "--out", str(out), "--workers", "0"])
    o, e = capsys.readouterr()
    assert code == 0, e
    # progress on stderr (not a terminal): one summary line, not one per run
    assert "9/9" in e and "elapsed" in e and "eta" in e and e.count("bench: ") <= 4
    # summary on stdout: every column, one row per run, the verdicts
    header = o.splitlines()[0].split()
    assert header == ["instance", "method", "status", "objective", "ratio", "vs", "bound", "claim", "verdict",
                      "time", "note"]
    assert o.count("exact *") == 3 and o.count(" holds ") >= 3
    assert "9 run(s): 9 run now, 0 already done" in o and "error(s)" not in o
    recs = read_records(out)
    assert len(recs) == 9
    # rerun: nothing to do, same summary rows
    code = main(["bench", str(hare_dir), "--methods", "list,fifo", "--reference", "exact",
                 "--time-limit", "none", "--out", str(out), "--workers", "0"])
    o2, _ = capsys.readouterr()
    assert code == 0 and "0 run now, 9 already done" in o2
    assert len(read_records(out)) == 9


def test_bench_folder_with_one_malformed_instance_is_bad_input(hare_dir: Path, tmp_path: Path, capsys):
    """Issue 24: one malformed file in a folder is bad input (exit 2, one line naming the file and the
    field) refused before any run, with no results file written."""
    (hare_dir / "bad.json").write_text('{"problem": "hare", "gpus": [], "jobs": []}')
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(hare_dir), "--methods", "fifo", "--out", str(out), "--workers", "0"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "bad.json" in err[0] and "gpus: must have at least 1" in err[0], err
    assert not out.exists()


def test_bench_cli_bad_input_exit_2(hare_dir: Path, tmp_path: Path, capsys):
    assert main(["bench", str(hare_dir), "--methods", "nosuch", "--workers", "0"]) == 2
    assert "nosuch" in capsys.readouterr().err
    assert main(["bench", str(tmp_path / "missing"), "--workers", "0"]) == 2
    assert main(["bench", str(hare_dir), "--time-limit", "-3", "--workers", "0"]) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 'x'\ninstances = 3\n")
    assert main(["bench", str(bad), "--workers", "0"]) == 2
    assert "instances" in capsys.readouterr().err


def test_bench_suite_file_and_report(tmp_path: Path, capsys):
    d = tmp_path / "suite"
    (d / "inst").mkdir(parents=True)
    for s in range(2):
        (d / "inst" / f"h{s}.json").write_text(json.dumps(hare_dict(10 + s)))
    (d / "s.toml").write_text('''
name = "t"
methods = ["list", "fifo", "relaxation"]
reference = "exact"
time_limit = "none"
out = "res.jsonl"
[[instances]]
glob = "inst/*.json"
''')
    assert main(["bench", str(d / "s.toml"), "--workers", "0", "--no-progress"]) == 0
    recs = read_records(d / "res.jsonl")  # the suite's out, relative to the suite file
    assert len(recs) == 2 * 4 and {r["suite"] for r in recs} == {"t"}
    capsys.readouterr()
    rep = tmp_path / "rep"
    assert main(["report", str(d / "res.jsonl"), "--out", str(rep)]) == 0
    text = (rep / "report.md").read_text()
    assert "## hare" in text and "| list | 2 |" in text and "Hare Theorem 4" in text
    for png in ("hare-ratios.png", "hare-runtime.png", "hare-jct.png"):
        assert (rep / png).stat().st_size > 5000 and f"]({png})" in text
    assert main(["report", str(tmp_path / "none.jsonl"), "--out", str(rep)]) == 2


def test_gantt_cli(tmp_path: Path):
    f = tmp_path / "h.json"
    f.write_text(json.dumps(hare_dict(3)))
    png = tmp_path / "g.png"
    assert main(["gantt", str(f), "--method", "fifo", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["gantt", str(f), "--method", "nosuch", "--out", str(png)]) == 2


@pytest.mark.slow
def test_dmlsched_command_subprocess(hare_dir: Path, tmp_path: Path):
    out = tmp_path / "r.jsonl"
    exe = Path(sys.executable).parent / "dmlsched"
    cmd = [str(exe)] if exe.exists() else [
        sys.executable, "-c", "import sys; from dmlsched.cli import main; sys.exit(main())"]
    p = subprocess.run(cmd + ["bench", str(hare_dir), "--methods", "fifo", "--time-limit", "none", "--out", str(out),
                              "--workers", "2"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "fifo" in p.stdout and "error(s)" not in p.stdout and len(read_records(out)) == 3 * 2


def test_policy_jct_cdf_in_report(tmp_path: Path, capsys):
    """Online policies' per-job records become JCT CDFs in the report (HLAS family)."""
    root = Path(__file__).resolve().parents[2]
    inst = root / "instances" / "hlas" / "fig12.json"
    if not inst.exists():
        pytest.skip("no HLAS instance bundled")
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(inst), "--reference", "none", "--workers", "0", "--no-progress",
                 "--out", str(out)]) == 0
    recs = read_records(out)
    pol = [r for r in recs if r["kind"] == "policy"]
    assert pol and all(isinstance(r["jct"], list) and r["jct"] for r in pol)
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "online policies" in text and (tmp_path / "rep" / "hlas-jct.png").exists()
