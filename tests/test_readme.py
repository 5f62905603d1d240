"""The README stays true: CI runs its test command, and every code block in it
is executed here.

* ``bash`` blocks: the first two (install + main job, install + tests) are the
  opening commands: the second is exactly what ``.ci/run`` runs (so CI executes
  it), the first's suite is loaded and its flags parsed (running it takes a
  minute on two cores: that is the bench's own tests' business); the
  "Adding a method" commands run as written in a folder holding the README's
  ``my_method.py``; the API reference command is run by ``tests/test_docs.py``.
* ``python`` blocks run in order in one namespace (a reader's session), from
  the project's root; the property-test example with fewer examples.
* ``json`` blocks are instances that load.
* ``text`` blocks are the command synopsis: every command in it exists.
* the ``sh`` block is "Adding a family": run as written in a folder holding
  ``templates/``.
* the family table of "What is inside" names every registered method of each
  family in its row, and nothing else in its methods column.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import dmlsched
from dmlsched.bench import load_suite
from dmlsched.cli import build_parser, main
from dmlsched.problems.hare import HareSchedule
from dmlsched.registry import _PROBLEMS, load_families
from dmlsched.traces import TracesNotFound, traces_dir

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, flags=re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [code for kind, code in BLOCKS if kind == lang]


def test_every_block_has_a_known_language():
    assert {kind for kind, _ in BLOCKS} <= {"bash", "python", "json", "text", "sh"}, {kind for kind, _ in BLOCKS}
    # every bash block is one this file (or test_docs.py) runs
    bash = _blocks("bash")
    assert len(bash) == 4, [b[:40] for b in bash]
    assert "sphinx" in bash[3]


def test_ci_runs_the_readme_test_command():
    bash = _blocks("bash")
    test_cmd = bash[1].strip()  # the second block of the README is the test command
    assert "pytest" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text()
    assert "dmlsched bench" in bash[0]


def test_main_job_command_is_valid():
    """The main job's bench command parses and its suite loads (the install part
    is the same as CI's but without extras: the base install)."""
    line = _blocks("bash")[0].strip()
    install, _, run = line.partition("&& .venv/bin/dmlsched ")
    assert "pip install -q -e ." in install and "[" not in install  # the base install, no extras
    args = build_parser().parse_args(shlex.split(run))
    assert args.command == "bench"
    suite = load_suite(ROOT / args.paths[0])
    assert suite.sources


def test_python_blocks_run(tmp_path, monkeypatch):
    """Every Python block, in order, in one namespace, from the project's root."""
    monkeypatch.chdir(ROOT)
    ns: dict = {}
    ran = 0
    for code in _blocks("python"):
        if code.startswith("# my_method.py"):
            continue  # a plugin file: run by test_adding_a_method_walkthrough
        if "hare_instances" in code:
            code = code.replace("max_examples=50", "max_examples=3")
        if "trace_path" in code:
            try:
                traces_dir()
            except TracesNotFound:
                pytest.skip("the shared traces folder is absent")
        exec(compile(code, "<README.md>", "exec"), ns)  # noqa: S102 - our own README
        ran += 1
        if "test_list_queyranne_within_bound" in ns:
            ns.pop("test_list_queyranne_within_bound")()
    assert ran >= 4

    assert isinstance(ns["sched"], HareSchedule)


def test_json_blocks_load():
    blocks = _blocks("json")
    assert blocks
    for code in blocks:
        inst = dmlsched.from_dict(json.loads(code))
        assert dmlsched.problem_of(inst).name == json.loads(code)["problem"]


def test_synopsis_commands_exist(capsys):
    """Every command of the synopsis is a subcommand whose --help works."""
    synopsis = _blocks("text")[0]
    commands = [ln.split()[1] for ln in synopsis.splitlines() if ln.startswith("dmlsched ")]
    sub = next(a for a in build_parser()._actions if a.dest == "command")  # noqa: SLF001
    assert set(sub.choices) <= set(commands), "every command is in the synopsis"
    for c in commands:
        if c.startswith("--"):
            assert main([c]) == 0
        else:
            assert main([c, "--help"]) == 0
    assert "dmlsched" in capsys.readouterr().out


def _commands(block: str) -> list[str]:
    """The command lines of a shell block (comments and blank lines left out)."""
    return [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def _run_commands(lines: list[str], cwd: Path) -> list[str]:
    """Run each line as a reader would, in ``cwd``; each must succeed without a traceback."""
    outs = []
    for ln in lines:
        r = subprocess.run(ln, shell=True, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (ln, r.stdout[-2000:], r.stderr[-2000:])
        assert "Traceback" not in r.stderr
        outs.append(r.stdout)
    return outs


def test_adding_a_method_walkthrough(tmp_path):
    """The README's my_method.py and its commands, as written, in a fresh folder."""
    pytest.importorskip("matplotlib")
    plugin = next(code for code in _blocks("python") if code.startswith("# my_method.py"))
    (tmp_path / "my_method.py").write_text(plugin)
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    lines = _commands(_blocks("bash")[2])
    assert len(lines) == 5 and all(ln.startswith("dmlsched ") for ln in lines)
    env = _env()
    outs = _run_commands(lines, tmp_path)
    assert "hare/greedy" in outs[0] and "-o order (string, default 'weight')" in outs[0]
    assert "status     feasible" in outs[1]
    assert "verdict" in outs[2]
    assert (tmp_path / "greedy.png").stat().st_size > 1000
    recs = [json.loads(x) for x in (tmp_path / "my-results.jsonl").read_text().splitlines() if x.strip()]
    greedy = [r for r in recs if r.get("method") == "greedy"]
    assert len(greedy) == 2 and all(r["status"] == "feasible" for r in greedy)
    # an ill-typed option of the plugin's method: exit 2, one line naming it
    r = subprocess.run(
        ["dmlsched", "solve", "instances/hare/tiny.json", "-m", "greedy", "-o", "order=size",
         "--plugin", "my_method.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "'order'" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_adding_a_family_walkthrough(tmp_path):
    """The README's commands for a new family from ``templates/family``, as written, in a fresh folder."""
    (tmp_path / "templates").symlink_to(ROOT / "templates")
    (sh,) = _blocks("sh")
    lines = _commands(sh)
    assert lines[0].startswith("cp -r templates/family ")
    outs = _run_commands(lines, tmp_path)
    by_cmd = {ln.split()[1]: out for ln, out in zip(lines, outs) if ln.startswith("dmlsched ")}
    # the renamed family with the template's methods
    for m in ("exact", "brute-force", "wspt", "random", "lower-bound"):
        assert f"my-family/{m}" in by_cmd["methods"]
    assert "status     feasible" in by_cmd["solve"] and "objective  38" in by_cmd["solve"]
    assert re.search(r"verdict\s+holds", by_cmd["check"])
    assert not list((tmp_path / "my_family").glob("*.bak"))
    recs = [json.loads(x) for x in (tmp_path / "my-family.jsonl").read_text().splitlines() if x.strip()]
    runs = {r["method"]: r for r in recs if r.get("method")}
    assert set(runs) == {"exact", "brute-force", "wspt", "random", "lower-bound"}
    assert all(r["status"] in ("optimal", "feasible", "bound") for r in runs.values())
    assert runs["wspt"]["verdict"] == "holds"


def _family_table() -> dict[str, str]:
    """family -> the methods cell of its row in "What is inside"."""
    section = README.split("## What is inside", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for ln in section.splitlines():
        m = re.match(r"^\| `([\w-]+)` \| (.*)$", ln)
        if m and ln.count(" | ") == 3:
            rows[m.group(1)] = ln.split(" | ")[2]
    return rows


def test_family_table_names_every_registered_method():
    """Every family's row lists exactly its registered methods (in backticks), so
    the table stays true when a method is added, renamed or removed."""
    rows = _family_table()
    fams = {f.name for f in dmlsched.families()}
    assert set(rows) == fams, f"table rows {sorted(rows)} vs registered families {sorted(fams)}"
    for fam, cell in rows.items():
        named = set(re.findall(r"`([^`]+)`", cell))
        registered = {m.name for m in dmlsched.methods(fam)}
        assert registered <= named, f"{fam}: the README's row lacks {sorted(registered - named)}"
        assert named <= registered, f"{fam}: the README's row names {sorted(named - registered)}, not methods"


def test_readme_names_each_familys_default_reference():
    """The README's sentence on `--reference` gives every family's default."""
    load_families()
    para = next(p for p in README.split("\n\n") if "Its reference (`--reference`" in p)
    para = " ".join(para.split())
    found = {}
    for seg in re.split(r"(?=`[\w-]+` for )", para)[1:]:
        ref, _, rest = seg.partition(" for ")
        for fam in re.findall(r"`([\w-]+)`", rest.split(".")[0]):
            found[fam] = ref.strip("`")
    assert found == {name: spec.default_reference for name, spec in _PROBLEMS.items()}


def test_readme_says_to_activate_the_environment():
    assert ". .venv/bin/activate" in README
