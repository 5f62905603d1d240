"""The sweep: planning, references, verdicts, resume, errors, hard time limits."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched.bench import Source, Suite, load_suite, read_records, run_sweep
from dmlsched.bench.runner import entry_options, plan, split_variant
from dmlsched.suites import SuiteError, materialize

from .conftest import write_toy

SAME = ("key", "status", "objective", "bound", "ratio", "ratio_to_bound", "claimed_bound", "verdict",
        "reference_objective")


def hare_suite(d: Path, **kw) -> Suite:
    kw.setdefault("methods", ["list", "fifo"])
    kw.setdefault("reference", "exact")
    kw.setdefault("time_limit", None)  # tiny instances: no wall clock to cut a run
    return Suite(sources=[Source("path", pattern=str(d))], **kw)


@pytest.mark.slow
def test_hare_sweep_in_process_matches_check(hare_dir: Path, tmp_path: Path):
    out = tmp_path / "r.jsonl"
    res = run_sweep(hare_suite(hare_dir), out=str(out), workers=0, progress=False)
    recs = res.records
    # 3 instances x (exact reference, list, fifo)
    assert len(recs) == 3 * 3
    lines = read_records(out)
    assert len(lines) == len(recs) and len({r["key"] for r in lines}) == len(lines)
    for r in recs:
        inst = dmlsched.load(r["source"])
        if r["method"] == "exact":
            assert r["status"] == "optimal" and r["ratio"] == pytest.approx(1.0)
            continue
        # the worker derived ratio/bound/verdict exactly as dmlsched.check does
        rep = dmlsched.check(inst, r["method"], reference="exact")
        assert r["objective"] == pytest.approx(rep.objective, rel=1e-9)
        assert r["ratio"] == pytest.approx(rep.ratio, rel=1e-6)
        assert r["verdict"] == rep.verdict
        assert r["claimed_bound"] == (pytest.approx(rep.bound) if rep.bound is not None else None)
        assert r["ratio"] >= 1 - 1e-6  # exact is optimal, no heuristic beats it
        # per-job JCTs: completion minus arrival, recomputed from the schedule
        res = dmlsched.solve(inst, r["method"])
        comp = dmlsched.solution_to_json(inst, res.solution)["completion"]
        assert r["jct"] == pytest.approx([comp[j.id] - j.arrival for j in inst.jobs])
    assert {r["verdict"] for r in recs if r["method"] == "list"} == {"holds"}


def test_rerun_skips_done_and_never_rewrites(hare_dir: Path, tmp_path: Path):
    out = tmp_path / "r.jsonl"
    first = run_sweep(hare_suite(hare_dir, methods=["fifo"]), out=str(out), workers=0, progress=False)
    text = out.read_text()
    again = run_sweep(hare_suite(hare_dir, methods=["fifo"]), out=str(out), workers=0, progress=False)
    assert again.ran == 0 and again.skipped == first.ran
    assert out.read_text() == text
    # a new method only adds its own lines; the reference comes from the file
    more = run_sweep(hare_suite(hare_dir, methods=["fifo", "srtf"]), out=str(out), workers=0, progress=False)
    assert more.ran == 3
    assert out.read_text().startswith(text)
    recs = read_records(out)
    assert len(recs) == len({r["key"] for r in recs}) == 3 * 3
    srtf = [r for r in recs if r["method"] == "srtf"]
    assert all(r["reference"] == "exact" and r["ratio"] is not None for r in srtf)


def test_key_distinguishes_seed_solver_and_limit(hare_dir: Path):
    s = hare_suite(hare_dir, methods=["fifo"], repetitions=2)
    runs, _ = plan(s, materialize(s))
    keys = [r.key for r in runs]
    assert len(keys) == len(set(keys)) == 3 * (1 + 2)
    s2 = hare_suite(hare_dir, methods=["fifo"], repetitions=2, time_limit=7)
    runs2, _ = plan(s2, materialize(s2))
    assert not set(keys) & {r.key for r in runs2}
    assert all("|highs|7" in k for k in (r.key for r in runs2))


def test_key_distinguishes_reference_and_options(hare_dir: Path):
    """A different reference or method options must not reuse recorded verdicts."""
    base = hare_suite(hare_dir, methods=["list"])
    keys = {r.key for r in plan(base, materialize(base))[0] if not r.is_reference}
    other_ref = hare_suite(hare_dir, methods=["list"], reference="relaxation")
    assert not keys & {r.key for r in plan(other_ref, materialize(other_ref))[0] if not r.is_reference}
    opts = hare_suite(hare_dir, methods=["list"], options={"list": {"relaxation": "queyranne"}})
    assert not keys & {r.key for r in plan(opts, materialize(opts))[0] if not r.is_reference}
    again = hare_suite(hare_dir, methods=["list"])
    assert keys == {r.key for r in plan(again, materialize(again))[0] if not r.is_reference}


@pytest.mark.slow
def test_local_engine_same_records_as_in_process(hare_dir: Path, tmp_path: Path):
    a = run_sweep(hare_suite(hare_dir), out=str(tmp_path / "a.jsonl"), workers=0, progress=False)
    b = run_sweep(hare_suite(hare_dir), out=str(tmp_path / "b.jsonl"), workers=2, progress=False)
    proj = lambda rs: [{k: r.get(k) for k in SAME} for r in rs]  # noqa: E731
    assert proj(a.records) == proj(b.records)
    assert {r["engine"] for r in b.records if r["method"]} == {"local"}


def test_unknown_method_is_an_error(hare_dir: Path):
    with pytest.raises(SuiteError, match="nosuch"):
        run_sweep(hare_suite(hare_dir, methods=["nosuch"]), workers=0, progress=False)


def test_toy_verdicts_bound_method_and_seeds(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [1, 2, 3])   # first = optimum: holds
    write_toy(d, "b", [4, 2, 3])   # first = 2 x optimum > 1.5: violated
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["first", "half", "seeded"],
              reference="exact", repetitions=3, plugins=[toy_plugin], time_limit=None)
    res = run_sweep(s, workers=0, progress=False)
    by = {(r["label"].split("/")[-1], r["method"], r["seed"]): r for r in res.records}
    assert by[("a.json", "first", 0)]["verdict"] == "holds"
    b = by[("b.json", "first", 0)]
    assert b["verdict"] == "violated" and b["ratio"] == pytest.approx(2.0) and b["claimed_bound"] == 1.5
    assert by[("b.json", "half", 0)]["objective"] == pytest.approx(1.0)
    assert [by[("b.json", "seeded", s)]["objective"] for s in (0, 1, 2)] == [4.0, 2.0, 3.0]
    # the reference ran once per instance, with the base seed
    assert sum(1 for r in res.records if r["method"] == "exact") == 2


@pytest.mark.slow
def test_hard_time_limit_kills_a_run_that_ignores_it(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "slow", [1, 2], sleep=60)
    write_toy(d, "fast", [3, 1], sleep=0)
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["sleep", "first"], reference="none",
              time_limit=1, grace=0.5, plugins=[toy_plugin])
    out = tmp_path / "r.jsonl"
    res = run_sweep(s, out=str(out), workers=1, progress=False)
    by = {(r["label"].split("/")[-1], r["method"]): r for r in res.records}
    slow = by[("slow.json", "sleep")]
    # asked to stop at 1.25 s: the sleep is interrupted, no incumbent, so time_limit
    assert slow["status"] == "time_limit" and slow["details"]["stopped_by_bench"] is True
    assert "stopped at the time limit" in slow["error"] and 1.2 <= slow["wall_s"]  # no upper bound: load
    # later runs go on
    assert by[("fast.json", "sleep")]["status"] == "feasible"
    assert by[("slow.json", "first")]["status"] == "feasible"
    assert len(read_records(out)) == 4


@pytest.mark.slow
def test_crash_and_exception_are_recorded_and_the_sweep_goes_on(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [2, 1])
    write_toy(d, "b", [1, 2])
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["crash", "raise", "first"],
              reference="exact", plugins=[toy_plugin], time_limit=None)
    res = run_sweep(s, workers=1, progress=False)
    by = {(r["label"].split("/")[-1], r["method"]): r for r in res.records}
    for inst in ("a.json", "b.json"):
        c = by[(inst, "crash")]
        assert c["status"] == "error" and "died" in c["error"] and "SIGKILL" in c["error"]
        e = by[(inst, "raise")]
        assert e["status"] == "error" and "toy method failed on purpose" in e["error"]
        assert by[(inst, "first")]["status"] == "feasible"
        assert by[(inst, "exact")]["status"] == "optimal"


def test_generator_source(toy_plugin, tmp_path: Path):
    suite_file = tmp_path / "s.toml"
    suite_file.write_text(f'''
name = "gen"
methods = ["first"]
reference = "exact"
plugins = ["{toy_plugin}"]
time_limit = "none"
[[instances]]
generator = "{toy_plugin}:generate"
params = {{ n = 4 }}
seeds = [1, 2, 3]
''')

    s = load_suite(suite_file)
    res = run_sweep(s, workers=0, progress=False)
    assert len(res.records) == 6
    names = sorted({r["instance_name"] for r in res.records})
    assert names == ["toy-4-1", "toy-4-2", "toy-4-3"]
    assert all(r["status"] in ("optimal", "feasible", "bound") for r in res.records)
    # same generator, same seeds: same instances (hashes), so a rerun skips all
    again = run_sweep(load_suite(suite_file), workers=0, progress=False)
    assert {r["instance_hash"] for r in again.records} == {r["instance_hash"] for r in res.records}


def test_failed_reference_gives_inconclusive_not_a_crash(toy_plugin, tmp_path: Path):
    d = tmp_path / "toy"
    write_toy(d, "a", [4, 2])
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["first"], reference="raise",
              plugins=[toy_plugin], time_limit=None)
    res = run_sweep(s, workers=0, progress=False)
    by = {r["method"]: r for r in res.records}
    assert by["raise"]["status"] == "error"
    f = by["first"]
    assert f["status"] == "feasible" and f["ratio"] is None and f["verdict"] == "inconclusive"
    assert f["claimed_bound"] == 1.5 and f["reference_status"] == "error"
    # a bound method as reference: proves a lower bound, so the claim can be certified
    s2 = Suite(sources=[Source("path", pattern=str(d))], methods=["first"], reference="half",
               plugins=[toy_plugin], time_limit=None)
    f2 = {r["method"]: r for r in run_sweep(s2, workers=0, progress=False).records}["first"]
    assert f2["ratio"] is None and f2["ratio_to_bound"] == pytest.approx(4.0)  # against a bound only
    assert f2["verdict"] == "inconclusive"  # 4 > 1.5 vs a bound only proves nothing


def test_variants_run_one_method_under_several_options(toy_plugin, tmp_path: Path):
    """A method entry NAME@LABEL runs NAME with suite.options["NAME@LABEL"]; records carry both."""
    assert split_variant("list@proof") == ("list", "proof") and split_variant("list") == ("list", None)
    opts = Suite(sources=[], options={"a": {"x": 1, "y": 2}, "a@b": {"y": 3}})
    assert entry_options(opts, "a@b") == {"x": 1, "y": 3} and entry_options(opts, "a") == {"x": 1, "y": 2}
    d = tmp_path / "toy"
    write_toy(d, "a", [3, 1, 2])
    s = Suite(sources=[Source("path", pattern=str(d))], methods=["seeded", "seeded@again"],
              reference="exact", repetitions=2, plugins=[toy_plugin], time_limit=None)
    res = run_sweep(s, workers=0, progress=False)
    recs = [r for r in res.records if r["method"] == "seeded"]
    assert sorted((r["variant"], r["seed"]) for r in recs) == [
        ("seeded", 0), ("seeded", 1), ("seeded@again", 0), ("seeded@again", 1)]
    assert len({r["key"] for r in recs}) == 4
    assert all(r["verdict"] == "no_bound" and r["ratio"] is not None for r in recs)
