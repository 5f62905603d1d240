"""``dmlsched generate``, ``dmlsched convert-trace``, ``-`` as standard input,
``bench --keep-solutions`` with ``gantt --results``, relative sources."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dmlsched
from dmlsched import registry
from dmlsched.bench import load_suite, materialize, read_records
from dmlsched.cli import main
from dmlsched.generate import hare, rar
from dmlsched.problems.moldable.traces import openb_to_moldable, swf_to_moldable
from dmlsched.tools import solution_from_json
from dmlsched.traces import TracesNotFound, read_openb, read_swf, traces_dir

ROOT = Path(__file__).resolve().parents[1]


def test_generate_writes_the_generators_instance(tmp_path: Path, capsys):
    out = tmp_path / "sim.json"
    assert main(["generate", "hare", "simulation", "num_jobs=7", "num_gpus=5", "heterogeneity=low",
                 "--seed", "3", "--out", str(out)]) == 0
    assert "hare instance" in capsys.readouterr().err
    want = hare.simulation(seed=3, num_jobs=7, num_gpus=5, heterogeneity="low")
    assert dmlsched.to_dict(dmlsched.load(out)) == dmlsched.to_dict(want)
    # list values and dashed setup names
    out2 = tmp_path / "rar.json"
    assert main(["generate", "rar", "servers-sweep", "num_servers=12", "num_jobs=20", "--out", str(out2)]) == 0
    assert dmlsched.to_dict(dmlsched.load(out2)) == dmlsched.to_dict(
        rar.servers_sweep(seed=0, num_servers=12, num_jobs=20))
    out3 = tmp_path / "h.json"
    assert main(["generate", "hare", "generate", "rounds=[1,2]", "--seed", "2", "--out", str(out3)]) == 0
    assert dmlsched.to_dict(dmlsched.load(out3)) == dmlsched.to_dict(hare.generate(seed=2, rounds=(1, 2)))


def test_generate_lists_families_and_setups(capsys):
    assert main(["generate"]) == 0
    o = capsys.readouterr().out
    assert all(f in o for f in ("cruise", "hare", "harmony", "hlas", "moldable", "rar"))
    assert main(["generate", "hare"]) == 0
    o = capsys.readouterr().out
    names = [ln.split(":")[0].strip() for ln in o.splitlines()[1:] if ln.startswith("  ") and not ln.startswith("   ")]
    assert names == ["generate", "simulation", "testbed"] and "num_jobs=200" in o  # helpers are not setups


def _listed(text: str) -> dict[str, list[str]]:
    """``dmlsched generate``'s listing: family -> its setups."""
    rows = [ln.split(None, 1) for ln in text.splitlines()[1:] if ln.startswith("  ")]
    return {fam: rest.split(", ") for fam, rest in rows}


def _setups_of(text: str) -> list[str]:
    """``dmlsched generate FAMILY``'s listing: the setups (up to the setups of other families)."""
    lines = text.splitlines()[1:]
    lines = lines[:next((k for k, ln in enumerate(lines) if not ln.startswith(" ")), len(lines))]
    return [ln.split(":")[0].strip() for ln in lines if ln.startswith("  ") and not ln.startswith("   ")]


def test_generate_lists_what_the_families_declare(capsys):
    """The listing is every registered family's ``Family.generators`` (gpu-grouping's
    included), each setup under the family declaring it only."""
    declared = {f.name: sorted(s.replace("_", "-") for s in f.generators)
                for f in dmlsched.families() if f.generators}
    assert {"cruise", "gpu-grouping", "hare", "harmony", "hlas", "moldable", "rar"} <= set(declared)
    assert main(["generate"]) == 0
    assert _listed(capsys.readouterr().out) == declared
    for fam, names in declared.items():
        assert main(["generate", fam]) == 0
        assert _setups_of(capsys.readouterr().out) == names, fam
    # gpu-grouping's paper instance is HLAS's setup (HLAS uses gpu-grouping): named after its own setups
    assert main(["generate", "gpu-grouping"]) == 0
    o = capsys.readouterr().out
    assert o.splitlines()[-2:][0] == "gpu-grouping instances from setups of the families that use it:"
    assert o.splitlines()[-1].startswith("  dmlsched generate hlas paper-grouping: The GPU_Grouping instance")
    assert main(["generate", "gpu-grouping", "grouping", "num_jobs=2", "num_gpus=3", "num_groups=2",
                 "--out", "-"]) == 0
    out, err = capsys.readouterr()
    assert dmlsched.from_dict(json.loads(out)).speeds and "gpu-grouping instance" in err


def test_a_planted_familys_setup_is_found(monkeypatch, capsys, tmp_path: Path):
    """A family registered with ``generators`` (a plugin) is listed and generated
    from, with no list of families to edit."""
    def pair(*, seed: int = 0, num_jobs: int = 2):
        """Two (or ``num_jobs``) Hare jobs on two GPUs."""
        return hare.generate(seed=seed, num_jobs=num_jobs, num_gpus=2)

    planted = dataclasses.replace(registry.family("hare"), name="planted", package=None,
                                  generators={"pair_setup": pair})
    monkeypatch.setitem(registry._PROBLEMS, "planted", planted)
    assert main(["generate"]) == 0
    assert _listed(capsys.readouterr().out)["planted"] == ["pair-setup"]
    assert main(["generate", "planted"]) == 0
    assert _setups_of(capsys.readouterr().out) == ["pair-setup"]
    out = tmp_path / "p.json"
    assert main(["generate", "planted", "pair-setup", "num_jobs=3", "--seed", "4", "--out", str(out)]) == 0
    assert dmlsched.to_dict(dmlsched.load(out)) == dmlsched.to_dict(pair(seed=4, num_jobs=3))
    assert main(["generate", "planted", "nope", "--out", str(tmp_path / "x.json")]) == 2
    assert "choose from pair-setup" in capsys.readouterr().err


@pytest.mark.parametrize("argv, needle", [
    (["generate", "hare", "simulation", "num_jobs=-4"], "num_jobs must be an integer >= 1"),
    (["generate", "hare", "testbed", "nope=1"], "nope"),
    (["generate", "rar", "generate", "num_jobs"], "expected KEY=VALUE"),
    (["generate", "nofamily", "x"], "unknown family"),
    (["generate", "hare", "nosetup"], "unknown setup"),
    (["generate", "hare", "simulation"], "--out"),
    (["generate", "hare", "simulation", "seed=3"], "--seed"),
])
def test_generate_bad_arguments_exit_2(argv, needle, tmp_path: Path, capsys):
    if "--out" not in needle:
        argv = argv + ["--out", str(tmp_path / "x.json")]
    assert main(argv) == 2
    assert needle in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_generate_to_stdout_and_solve_from_stdin(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    gen = subprocess.run([sys.executable, "-m", "dmlsched.cli", "generate", "hare", "generate", "num_jobs=3",
                          "num_gpus=3", "--out", "-"], capture_output=True, text=True, env=env, check=True)
    data = json.loads(gen.stdout)  # standard output is the instance alone
    assert data["problem"] == "hare" and len(data["jobs"]) == 3
    run = subprocess.run([sys.executable, "-m", "dmlsched.cli", "solve", "-", "-m", "fifo", "--json"],
                         input=gen.stdout, capture_output=True, text=True, env=env, check=True)
    res = json.loads(run.stdout)
    want = dmlsched.solve(dmlsched.from_dict(data), "fifo")
    assert res["objective"] == pytest.approx(want.objective)
    bad = subprocess.run([sys.executable, "-m", "dmlsched.cli", "solve", "-", "-m", "fifo"],
                         input='{"problem": "hare", "gpus": []}', capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "gpus" in bad.stderr


def _traces() -> Path:
    try:
        return traces_dir()
    except TracesNotFound as e:
        pytest.skip(str(e))


def test_convert_trace_swf_and_openb(tmp_path: Path, capsys):
    d = _traces()
    out = tmp_path / "swf.json"
    assert main(["convert-trace", "swf", "lublin_256.swf", "gpus=64", "limit=40", "mode=rigid",
                 "--out", str(out)]) == 0
    want = swf_to_moldable(read_swf(d / "swf" / "lublin_256.swf"), gpus=64, limit=40, mode="rigid")
    assert dmlsched.to_dict(dmlsched.load(out)) == dmlsched.to_dict(want)
    out2 = tmp_path / "ob.json"
    path = d / "alibaba-openb" / "openb_pod_list_default.csv"
    assert main(["convert-trace", "openb", str(path), "gpus=16", "drop_failed=true", "--out", str(out2)]) == 0
    want = openb_to_moldable(read_openb(path), gpus=16, drop_failed=True)
    assert dmlsched.to_dict(dmlsched.load(out2)) == dmlsched.to_dict(want)
    capsys.readouterr()
    assert main(["convert-trace", "swf", "lublin_256.swf", "gpux=3", "--out", str(tmp_path / "x.json")]) == 2
    assert "gpux" in capsys.readouterr().err
    assert main(["convert-trace", "swf", "nosuch.swf", "--out", str(tmp_path / "x.json")]) == 2
    assert not (tmp_path / "x.json").exists()


def test_keep_solutions_and_gantt_of_a_recorded_run(tmp_path: Path, capsys):
    pytest.importorskip("matplotlib")
    files = [str(ROOT / "instances" / "hare" / "small_10.json"), str(ROOT / "instances" / "rar" / "tiny-mixed.json")]
    res = tmp_path / "r.jsonl"
    assert main(["bench", *files, "--methods", "list,ff", "--reference", "none", "--keep-solutions",
                 "--out", str(res), "--workers", "0", "--no-progress", "--time-limit", "none"]) == 0
    capsys.readouterr()
    recs = read_records(res)
    assert recs and all(isinstance(r["solution"], dict) for r in recs)
    for r in recs:  # sources relative to the working folder (the suite's folder for a TOML suite)
        assert not os.path.isabs(r["source"]) and (Path.cwd() / r["source"]).resolve().is_file()
    out = tmp_path / "g.png"
    assert main(["gantt", files[0], "-m", "list", "--results", str(res), "--out", str(out)]) == 0
    assert out.stat().st_size > 2000
    rec = next(r for r in recs if r["method"] == "list")

    inst = dmlsched.load(files[0])
    sol = solution_from_json(inst, rec["solution"])
    assert dmlsched.problem_of(inst).evaluate(inst, sol) == pytest.approx(rec["objective"])
    # a run that kept no schedule, or no run at all: exit 2, nothing written
    plain = tmp_path / "p.jsonl"
    assert main(["bench", files[0], "--methods", "fifo", "--reference", "none", "--out", str(plain),
                 "--workers", "0", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["gantt", files[0], "-m", "fifo", "--results", str(plain), "--out", str(tmp_path / "n.png")]) == 2
    assert "--keep-solutions" in capsys.readouterr().err
    assert main(["gantt", files[0], "-m", "srtf", "--results", str(plain), "--out", str(tmp_path / "n.png")]) == 2
    assert not (tmp_path / "n.png").exists()


def _smallest_instance(name: str) -> Path:
    return min((ROOT / "instances" / name).glob("*.json"), key=lambda p: (p.stat().st_size, p.name))


@pytest.mark.parametrize("family", [f.name for f in registry.bundled_families()])
def test_solutions_are_read_back_through_the_family(family):
    """``tools.solution_from_json`` is ``Family.solution_from_json``: the default
    reference's solution of the family's smallest bundled instance, written as JSON
    and read back, validates and evaluates to the same objective; a family that
    cannot read its solutions says why, and ``None`` comes back."""
    spec = registry.family(family)
    inst = dmlsched.load(_smallest_instance(family))
    res = dmlsched.solve(inst, spec.default_reference, seed=0)
    assert res.solution is not None, res.status
    data = json.loads(json.dumps(spec.solution_to_json(inst, res.solution)))
    sol = solution_from_json(inst, data)
    if spec.solution_from_json is None:
        assert sol is None and spec.no_solution_from_json
        return
    spec.validate(inst, sol)
    assert spec.evaluate(inst, sol) == pytest.approx(res.objective, rel=1e-9)
    assert spec.solution_to_json(inst, sol) == data


def test_suite_sources_are_relative_to_the_suite_folder(tmp_path: Path):
    d = tmp_path / "s"
    (d / "inst").mkdir(parents=True)
    (d / "inst" / "a.json").write_text((ROOT / "instances" / "hare" / "tiny.json").read_text())
    (d / "suite.toml").write_text('instances = [{glob = "inst/*.json"}]\nkeep_solutions = true\n')
    suite = load_suite(d / "suite.toml")
    assert suite.keep_solutions
    items = materialize(suite)
    assert [it.source for it in items] == [os.path.join("inst", "a.json")]
