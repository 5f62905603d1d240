"""Results store, suite files, instance expansion, plots with an ``ax``."""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path

import pytest

import dmlsched
from dmlsched import plot
from dmlsched.bench import ResultStore, Source, Suite, load_suite, read_records, run_key
from dmlsched.bench.store import StoreLockedError, json_safe
from dmlsched.suites import SuiteError, expand_path, instance_hash, materialize, suite_from_dict

from .conftest import hare_dict

ROOT = Path(__file__).resolve().parents[2]


def test_store_append_fsync_and_reload(tmp_path: Path):
    p = tmp_path / "a" / "r.jsonl"
    with ResultStore(p) as st:
        st.append({"key": "k1", "x": float("inf"), "y": [1.5, float("nan")]})
        st.append({"key": "k1", "x": 2})  # a key is recorded once
        st.append({"key": "k2"})
    lines = p.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0]) == {"key": "k1", "x": None, "y": [1.5, None]}
    st2 = ResultStore(p)
    assert st2.done("k1") and st2.done("k2") and not st2.done("k3") and len(st2) == 2
    p.write_text(p.read_text() + "garbage\n[1,2]\n\n")
    assert [r["key"] for r in read_records(p)] == ["k1", "k2"]


def test_json_safe_numpy():
    np = pytest.importorskip("numpy")
    out = json_safe({"a": np.float64(1.5), "b": np.arange(3), 3: np.int64(7), "c": math.inf})
    assert out == {"a": 1.5, "b": [0, 1, 2], "3": 7, "c": None}


def test_run_key_format():
    assert run_key("h", "list", 3, "highs", 20.0) == "h|list|3|highs|20"
    assert run_key("h", "list", 0, "gurobi", 0.5) == "h|list|0|gurobi|0.5"
    assert run_key("h", "list", 0, "highs", None) == "h|list|0|highs|none"


def test_instance_hash_ignores_name_not_content():
    a, b = hare_dict(1), hare_dict(1)
    b["name"] = "other"
    assert instance_hash(a) == instance_hash(b)
    b["jobs"][0]["weight"] += 1
    assert instance_hash(a) != instance_hash(b)


def test_expand_path_recursive_sorted(tmp_path: Path):
    for rel in ("b.json", "a/z.json", "a/b/c.json", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    got = [p.relative_to(tmp_path).as_posix() for p in expand_path(str(tmp_path), tmp_path)]
    assert got == ["a/b/c.json", "a/z.json", "b.json"]
    assert [p.name for p in expand_path("a/*.json", tmp_path)] == ["z.json"]
    assert [p.name for p in expand_path("**/c.json", tmp_path)] == ["c.json"]
    with pytest.raises(SuiteError):
        expand_path("missing.json", tmp_path)


def test_materialize_dedupes_and_refuses_bad_files(tmp_path: Path):
    (tmp_path / "x.json").write_text(json.dumps(hare_dict(1)))
    (tmp_path / "y.json").write_text(json.dumps({**hare_dict(1), "name": "copy"}))

    items = materialize(Suite(sources=[Source("path", pattern=str(tmp_path))]))
    assert [(Path(i.source).name, i.problem) for i in items] == [("x.json", "hare")]
    # a malformed file is bad input, refused naming the file and what is wrong (issue 24)
    for name, text, needle in (("z.json", "{not json", "malformed JSON"),
                               ("w.json", json.dumps({"problem": "nosuch"}), "unknown problem")):
        (tmp_path / name).write_text(text)
        with pytest.raises(SuiteError, match=needle) as e:
            materialize(Suite(sources=[Source("path", pattern=str(tmp_path))]))
        assert name in str(e.value)
        (tmp_path / name).unlink()


@pytest.mark.parametrize("text,match", [
    ("instances = []", "instances"),
    ("typo = 1\n[[instances]]\nglob='*.json'", "typo"),
    ("[[instances]]\nglob='*.json'\npath='x'", "exactly one"),
    ("time_limit = -1\n[[instances]]\nglob='*.json'", "time_limit"),
    ("methods = 'list'\n[[instances]]\nglob='*.json'", "methods"),
    ("[[instances]]\ngenerator = 'nocolon'", "module:function"),
    ("[[instances]]\ngenerator = 'a:b'\nseeds = []", "seeds"),
    ("repetitions = 0\n[[instances]]\nglob='*.json'", "repetitions"),
    ("name = [", "malformed TOML"),
])
def test_bad_suite_files(tmp_path: Path, text: str, match: str):
    p = tmp_path / "s.toml"
    p.write_text(text)
    with pytest.raises(SuiteError, match=match):
        load_suite(p)


def test_bundled_suites_parse_and_expand():
    for p in sorted((ROOT / "benchmarks" / "suites").glob("*.toml")):
        s = load_suite(p)
        assert s.sources, p
        for src in s.sources:
            if src.kind == "path":
                assert expand_path(src.pattern, s.base_dir), (p, src.pattern)


def test_plots_draw_on_a_given_ax(tmp_path: Path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is the plot extra (importorskip above); Agg is set first

    fig, axes = plt.subplots(2, 2)
    tasks = [{"job": "A", "gpu": 0, "start": 0, "end": 1, "round": 0, "sync_end": 1.2},
             {"job": "B", "gpu": 1, "start": 0.5, "end": 2, "round": 1}]
    assert plot.plot_gantt(tasks, gpu_labels=["0: V100", "1: K80"], ax=axes[0, 0]) is axes[0, 0]
    assert len(axes[0, 0].collections) >= 3  # two bars and a sync tail
    assert plot.plot_ratios({"a": [1, 1.2]}, {"a": [2, 3]}, ax=axes[0, 1]) is axes[0, 1]
    assert plot.plot_runtime_vs_size({"a": ([1, 2], [0.1, 0.2])}, ax=axes[1, 0]) is axes[1, 0]
    assert plot.plot_cdf({"a": [3, 1, 2]}, ax=axes[1, 1]) is axes[1, 1]
    xs, ys = axes[1, 1].lines[0].get_data()
    assert list(xs) == [1, 1, 2, 3] and list(ys) == pytest.approx([0, 1 / 3, 2 / 3, 1])  # rises from 0
    fig.savefig(tmp_path / "f.png")
    plt.close(fig)


def test_gantt_from_hare_solution():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")

    inst = dmlsched.from_dict(hare_dict(5))
    res = dmlsched.solve(inst, "fifo")
    tasks = plot.gantt_tasks(inst, res.solution)
    assert len(tasks) == inst.num_tasks
    ax = plot.gantt(inst, res.solution)
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{m}: {g}" for m, g in enumerate(inst.gpus)]
    matplotlib.pyplot.close(ax.figure)


def test_suite_format_example_in_readme_parses():
    text = (ROOT / "benchmarks" / "suites" / "README.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    s = suite_from_dict(tomllib.loads(block), base_dir=ROOT / "benchmarks" / "suites")
    assert s.methods == ["list", "fifo"] and s.options == {"list": {"relaxation": "rl"}}
    assert [src.kind for src in s.sources] == ["path", "generator"] and s.sources[1].seeds == (1, 2, 3)
    assert s.hard_limit() == 25


def test_a_second_writer_is_refused(tmp_path: Path):
    p = tmp_path / "r.jsonl"
    a = ResultStore(p)
    a.append({"key": "k"})
    with pytest.raises(StoreLockedError, match="another dmlsched bench"):
        ResultStore(p)
    a.close()
    assert ResultStore(p).done("k")  # the lock goes with the writer
