"""Bad input to ``dmlsched bench`` ends with exit 2 and one line naming it;
nothing already written is changed (issue 18)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from dmlsched.bench import ResultStore, Source, Suite, load_suite, run_sweep
from dmlsched.bench.store import NotAResultsFile
from dmlsched.cli import main

from .conftest import hare_dict


@pytest.fixture
def one_hare(tmp_path: Path) -> Path:
    p = tmp_path / "inst" / "h.json"
    p.parent.mkdir()
    p.write_text(json.dumps(hare_dict(1)))
    return p


def test_unknown_method_among_known_ones_is_an_error(one_hare: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(one_hare), "--methods", "list,nosuch", "--workers", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "list" not in err.split("known:")[0].replace("list,nosuch", "")
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def test_methods_table_names_a_method_of_another_family(one_hare: Path, tmp_path: Path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text(f'time_limit = 5\n[methods]\nhare = ["fifo", "sjf-bco"]\n[[instances]]\npath = "{one_hare}"\n')
    assert main(["bench", str(suite), "--workers", "0"]) == 2
    assert "methods.hare: sjf-bco" in capsys.readouterr().err


def test_unknown_option_and_kind_are_errors_before_running(one_hare: Path, tmp_path: Path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text(f'methods = ["fifo"]\ntime_limit = 5\n[options.fifo]\nbogus = 1\n'
                     f'[[instances]]\npath = "{one_hare}"\n')
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(suite), "--workers", "0", "--out", str(out)]) == 2
    assert "bogus" in capsys.readouterr().err and not out.exists()
    suite.write_text(f'kinds = ["exakt"]\ntime_limit = 5\n[[instances]]\npath = "{one_hare}"\n')
    assert main(["bench", str(suite), "--workers", "0"]) == 2
    assert "exakt" in capsys.readouterr().err


def test_kinds_selects_methods(one_hare: Path, tmp_path: Path):
    suite = tmp_path / "s.toml"
    suite.write_text(f'kinds = ["bound"]\nreference = "none"\ntime_limit = 20\n[[instances]]\npath = "{one_hare}"\n')
    recs = run_sweep(load_suite(suite), workers=0, progress=False).records
    assert recs and {r["kind"] for r in recs} == {"bound"}


@pytest.mark.parametrize("content", [None, "pretty", "oneline", "text"])
def test_out_onto_a_file_that_is_not_a_results_file_is_refused_untouched(one_hare: Path, tmp_path: Path,
                                                                         capsys, content):
    if content is None:
        target = one_hare  # the instance itself
    else:
        target = tmp_path / "other.json"
        target.write_text({"pretty": json.dumps(hare_dict(2), indent=2), "oneline": json.dumps(hare_dict(2)) + "\n",
                           "text": "notes\n"}[content])
    before = target.read_bytes()
    mtime = target.stat().st_mtime_ns
    assert main(["bench", str(one_hare), "--methods", "fifo", "--workers", "0", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    # the instance itself is an input of the command; another file is not a results file
    assert re.search(r"not a (dmlsched )?results file|is an input of this command", err) and str(target) in err
    assert target.read_bytes() == before and target.stat().st_mtime_ns == mtime


def test_store_refuses_a_file_that_is_not_a_results_file(tmp_path: Path):
    """The Python API refuses too (not only the command line)."""
    p = tmp_path / "inst.json"
    p.write_text(json.dumps(hare_dict(1), indent=2))
    before = p.read_bytes()
    with pytest.raises(NotAResultsFile, match="not a results file"):
        ResultStore(p)
    assert p.read_bytes() == before


def test_out_onto_a_results_file_or_an_empty_file_appends(one_hare: Path, tmp_path: Path):
    out = tmp_path / "r.jsonl"
    out.write_text("")
    assert main(["bench", str(one_hare), "--methods", "fifo", "--workers", "0", "--out", str(out)]) == 0
    n = len(out.read_text().splitlines())
    assert n == 2
    assert main(["bench", str(one_hare), "--methods", "fifo,srtf", "--workers", "0", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 3


def test_dask_without_distributed_is_a_clean_error_and_writes_nothing(one_hare: Path, tmp_path: Path,
                                                                       capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    out = tmp_path / "r.jsonl"
    assert main(["bench", str(one_hare), "--methods", "fifo", "--dask", "local", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "distributed" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_sweep_that_fails_to_start_leaves_no_empty_results_file(one_hare: Path, tmp_path: Path):
    class Broken:
        name = "broken"

        def submit(self, *a, **k):
            raise RuntimeError("engine down")

        def close(self):
            pass

    out = tmp_path / "r.jsonl"
    s = Suite(sources=[Source("path", pattern=str(one_hare))], methods=["fifo"], time_limit=None)
    with pytest.raises(RuntimeError):
        run_sweep(s, out=str(out), engine=Broken(), progress=False)
    assert not out.exists()
