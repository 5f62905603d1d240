"""The adversarial hunt: reproducible by seed, shrinking keeps the ratio above
the target, and a hunt on a family with a planted weakness finds it."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np
import pytest

import dmlsched
import dmlsched.hunt as H
from dmlsched import registry
from dmlsched.cli import main
from dmlsched.draws import RngDraws
from dmlsched.errors import InvalidSolutionError
from dmlsched.family import Ref
from dmlsched.hunt.space import _Spaces
from dmlsched.io import Reader
from dmlsched.kit import Run, method
from dmlsched.registry import ProblemSpec, register_problem

# ---------------------------------------------------------------------------
# a family with a planted weakness: "pick the smallest value"; the heuristic
# "scan" is optimal unless the values hold the structure [big, ..., small, trap]
# with big > 3 * small, where it picks the first value (ratio = big / small).


@dataclass(frozen=True)
class Planted:
    values: tuple[float, ...]
    name: str = ""
    expected: dict = field(default_factory=dict)


def _from_dict(data):
    r = Reader(data)
    r.check_keys(("values",), common=True)
    return Planted(tuple(r.numbers("values", min_len=2, gt=0)), r.string("name", "", nonempty=False),
                   r["expected"].obj() if r.has("expected") else {})


def _to_dict(inst):
    d = {"problem": "planted", "values": list(inst.values)}
    if inst.name:
        d["name"] = inst.name
    if inst.expected:
        d["expected"] = inst.expected
    return d


def _validate(inst, sol):
    if not (isinstance(sol, int) and 0 <= sol < len(inst.values)):
        raise InvalidSolutionError(f"index {sol!r} out of range")


@pytest.fixture
def planted(monkeypatch):
    registry.load_families()  # copy the loaded registry, never an empty one
    monkeypatch.setattr(registry, "_PROBLEMS", dict(registry._PROBLEMS))
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    monkeypatch.setattr(H.space, "SPACES", dict(H.space.SPACES))
    monkeypatch.setattr(H, "SPACES", H.space.SPACES)
    register_problem(ProblemSpec(
        name="planted", instance_type=Planted, from_dict=_from_dict, to_dict=_to_dict, validate=_validate,
        evaluate=lambda inst, s: float(inst.values[s]), solution_to_json=lambda inst, s: {"index": s},
        default_reference="exact",
    ))

    @method("planted", "exact", kind="exact")
    def exact(inst, run: Run):
        return run.result(solution=int(np.argmin(inst.values)))

    @method("planted", "scan", kind="heuristic", bound=lambda inst: 2.0, bound_name="planted claim: 2")
    def scan(inst, run: Run):
        v = inst.values
        trap = len(v) >= 3 and v[0] > 3 * min(v) and v[-1] > v[0]
        return run.result(solution=0 if trap else int(np.argmin(v)))

    def sample(rng, size):
        n = int(rng.integers(2, size["n"] + 1))
        return {"problem": "planted", "values": [float(rng.integers(1, 9)) for _ in range(n)]}

    H.register_space(H.Space("planted", sample, element_lists=("values",), min_elements={"values": 2},
                             default_size={"n": 4}))
    return "planted"


def test_hunt_is_reproducible_by_seed(planted):
    for strategy in ("random", "hill", "anneal"):
        a = H.hunt(planted, "scan", strategy=strategy, budget=None, max_evals=60, seed=7)
        b = H.hunt(planted, "scan", strategy=strategy, budget=None, max_evals=60, seed=7)
        assert a.history == [] or [h[1:] for h in a.history] == [h[1:] for h in b.history]
        assert a.best.data == b.best.data and a.shrunk.data == b.shrunk.data, strategy
        assert a.evaluations == b.evaluations == 60
    c = H.hunt(planted, "scan", strategy="random", budget=None, max_evals=60, seed=8)
    d = H.hunt(planted, "scan", strategy="random", budget=None, max_evals=60, seed=7)
    assert c.best.data != d.best.data or c.history != d.history


def test_planted_weakness_is_found_and_shrunk(planted, tmp_path):
    r = H.hunt(planted, "scan", strategy="anneal", budget=None, max_evals=400, seed=1, out=tmp_path)
    assert r.best.violation and r.best.ratio > 2.0 and r.first_violation is not None
    # shrinking keeps the ratio above the target and never grows the instance
    assert r.shrunk.violation and r.shrunk.ratio > 2.0
    assert len(r.shrunk.data["values"]) <= len(r.best.data["values"])
    assert len(r.shrunk.data["values"]) == 3  # the trap needs exactly three values
    # the written instance carries what was found, and re-checking it gives the same verdict
    inst = dmlsched.load(r.files[0])
    assert inst.expected["verdict"] == {"scan": "violated"}
    rep = dmlsched.check(inst, "scan")
    assert rep.verdict == "violated" and rep.ratio == pytest.approx(r.shrunk.ratio)
    log = json.loads((tmp_path / f"hunt-{inst.name}.json").read_text())
    assert log["shrunk"]["violation"] is True and log["evaluations"] == r.evaluations


def test_random_sampling_rarely_hits_the_trap_that_search_finds(planted):
    rnd = H.hunt(planted, "scan", strategy="random", budget=None, max_evals=400, seed=1)
    ann = H.hunt(planted, "scan", strategy="anneal", budget=None, max_evals=400, seed=1)
    assert ann.best.ratio >= rnd.best.ratio


def test_shrink_keeps_the_ratio_above_the_target(planted):
    space = H.get_space(planted)
    ev = H.Evaluator(planted, "scan")
    start = ev({"problem": "planted", "values": [7.5, 6.0, 1.25, 3.0, 8.0]})
    assert start.violation
    shrunk, used = H.search.shrink(space, ev, start, lambda s: s.ratio is not None and s.ratio > 2.0)
    assert shrunk.ratio > 2.0 and used > 0
    assert len(shrunk.data["values"]) == 3
    # rounder numbers: 1.25 is rounded away; 7.5 stays (rounding it to 8 would break the trap 8.0 > v[0])
    assert shrunk.data["values"] == [7.5, 1.0, 8.0]


def test_bad_requests_are_clean_errors(planted):
    with pytest.raises(H.HuntError, match="unknown strategy"):
        H.hunt(planted, "scan", strategy="nope", max_evals=5)
    with pytest.raises(H.HuntError, match="size parameter 'jobs'"):
        H.hunt(planted, "scan", size={"jobs": 3}, max_evals=5)
    with pytest.raises(H.HuntError, match="no solver-guided strategy"):
        H.hunt(planted, "scan", strategy="guided", max_evals=5)
    with pytest.raises(dmlsched.UnknownMethodError):
        H.hunt(planted, "nosuch", max_evals=5)


def _marking_strategy(ctx: H.Context) -> None:
    """A guided strategy for the planted family: random sampling, marked in the notes."""
    ctx.notes["planted_guided"] = ctx.evaluator.method
    H.search.random_sampling(ctx)


def test_a_family_declares_its_guided_strategy_for_every_method(planted, monkeypatch):
    """``Family.guided = {"*": Ref(...)}`` serves every method of the family; the hunt resolves
    the ``Ref`` (importing its module) only when a guided hunt starts."""
    mod = ModuleType("planted_guided")
    mod.strategy = _marking_strategy
    monkeypatch.setitem(sys.modules, "planted_guided", mod)
    register_problem(dataclasses.replace(registry.family(planted), guided={"*": Ref("planted_guided:strategy")}))
    assert H.search.guided_strategy(planted, "exact") is _marking_strategy
    r = H.hunt(planted, "scan", strategy="guided", budget=None, max_evals=20, seed=1)
    assert r.notes["planted_guided"] == "scan" and r.evaluations == 20
    rnd = H.hunt(planted, "scan", strategy="random", budget=None, max_evals=20, seed=1)
    assert [h[1:] for h in r.history] == [h[1:] for h in rnd.history]  # the same search, found through Family.guided
    register_problem(dataclasses.replace(registry.family(planted), guided={"*": Ref("planted_guided:nothing")}))
    with pytest.raises(ImportError, match="no attribute 'nothing'"):
        H.hunt(planted, "scan", strategy="guided", max_evals=5)


def test_a_plugin_adds_a_guided_strategy_with_register_guided(planted, monkeypatch):
    """A plugin adding a method to a family it does not declare (here the planted family,
    registered in the older form, without ``guided``) registers its strategy; the error
    for a method without one names every family/method that has one."""
    monkeypatch.setattr(H.search, "_ADDED_GUIDED", {})
    assert H.register_guided is H.search.register_guided and H.guided_strategy is H.search.guided_strategy
    with pytest.raises(H.HuntError, match=r"no solver-guided strategy for planted/scan; "
                                          r"available: hare/list, hare/list-queyranne$"):
        H.hunt(planted, "scan", strategy="guided", max_evals=5)
    H.search.register_guided(planted, "scan", _marking_strategy)
    r = H.hunt(planted, "scan", strategy="guided", budget=None, max_evals=10, seed=1)
    assert r.notes["planted_guided"] == "scan"
    with pytest.raises(H.HuntError, match=r"no solver-guided strategy for planted/exact; "
                                          r"available: hare/list, hare/list-queyranne, planted/scan$"):
        H.search.guided_strategy(planted, "exact")
    with pytest.raises(H.HuntError, match="exists; pass replace=True"):
        H.search.register_guided(planted, "scan", H.search.random_sampling)
    with pytest.raises(H.HuntError, match="exists; pass replace=True"):  # Hare declares its own
        H.search.register_guided("hare", "list", _marking_strategy)
    with pytest.raises(H.HuntError, match="planted has no method 'nope'"):
        H.search.register_guided(planted, "nope", _marking_strategy)
    H.search.register_guided(planted, "scan", H.search.random_sampling, replace=True)
    assert H.search.guided_strategy(planted, "scan") is H.search.random_sampling


@pytest.mark.parametrize("problem", sorted(H.SPACES))
def test_every_space_samples_and_mutates_valid_instances(problem):
    space = H.get_space(problem)
    rng = np.random.default_rng(0)
    d = space.finish(space.sample(rng, space.size(None)))
    assert space.valid(d)
    moved = 0
    for _ in range(30):
        nd = space.mutate(rng, d)
        assert space.valid(nd)
        moved += nd != d
        d = nd
    assert moved >= 20
    for cand in list(space.shrink_candidates(d))[:10]:
        assert isinstance(cand, dict)


def test_scores_are_certified_against_an_exact_reference():
    """A ratio against the exact reference's feasible value never exceeds the
    true ratio: on a bundled instance with a recorded optimum they agree."""
    inst = dmlsched.load("instances/counterexamples/rar-theorem5-lemma4.json")
    ev = H.Evaluator("rar", "sjf-bco")
    s = ev(dmlsched.to_dict(inst))
    assert s.certified and s.reference == pytest.approx(inst.expected["optimum"])
    assert s.ratio == pytest.approx(inst.expected["objective"]["sjf-bco"] / inst.expected["optimum"])
    assert math.isfinite(s.claimed) and s.violation


# ---------------------------------------------------------------------------
# batches, the bench engine, the command line


def test_batches_are_consumed_in_proposal_order(planted):
    """A hunt depends on seed and batch only; batch 1 is the sequential search,
    and a larger batch is reproducible too (and still finds the trap)."""
    for strategy in ("random", "hill", "anneal"):
        a = H.hunt(planted, "scan", strategy=strategy, budget=None, max_evals=61, seed=5, batch=4)
        b = H.hunt(planted, "scan", strategy=strategy, budget=None, max_evals=61, seed=5, batch=4)
        assert a.best.data == b.best.data and [h[1:] for h in a.history] == [h[1:] for h in b.history]
        assert a.evaluations == 61 and a.batch == 4  # the budget cuts inside the last batch
    r = H.hunt(planted, "scan", strategy="anneal", budget=None, max_evals=400, seed=1, batch=3)
    assert r.best.violation and r.shrunk.violation and len(r.shrunk.data["values"]) == 3


def test_score_many_keeps_the_order_and_the_cache(planted):
    ev = H.Evaluator(planted, "scan")
    datas = [{"problem": "planted", "values": v} for v in ([3.0, 1.0], [7.5, 6.0, 1.25, 8.0], [3.0, 1.0])]
    out = ev.evaluate_many(datas)
    assert [s.data["values"] for s in out] == [d["values"] for d in datas]
    assert out[0] is out[2] and ev.evaluations == 2
    assert out[1].violation and out[1].ratio == pytest.approx(6.0)


def test_size_caps_bound_every_move():
    space = H.get_space("hare")
    size = space.size({"tasks": 4, "gpus": 2, "jobs": 2})
    rng = np.random.default_rng(3)
    d = space.sample(rng, size)
    for _ in range(200):
        d = space.mutate(rng, d, size=size)
        inst = dmlsched.from_dict(d)
        assert inst.num_tasks <= 4 and inst.num_gpus <= 2 and inst.num_jobs <= 2


def test_start_instance_is_scored_first(planted):
    start = {"problem": "planted", "values": [7.5, 6.0, 1.25, 8.0]}
    for strategy in ("random", "hill", "anneal"):
        r = H.hunt(planted, "scan", strategy=strategy, budget=None, max_evals=1, seed=0, start=start, shrink_evals=0)
        assert r.best.data["values"] == start["values"] and r.first_violation[1] == 1
    with pytest.raises(H.HuntError, match="start"):
        H.hunt(planted, "scan", max_evals=1, start=dmlsched.load("instances/counterexamples/rar-theorem5-lemma4.json"))


@pytest.mark.slow
def test_engine_evaluation_gives_the_same_hunt_as_in_process():
    """Local worker processes of the bench engine: the same best, history and
    shrunk instance as in-process with the same batch."""
    kw = dict(strategy="anneal", budget=None, max_evals=8, seed=3, batch=2, shrink_evals=4,
              size={"jobs": 2, "iterations": 4, "horizon": 20})
    a = H.hunt("rar", "sjf-bco", workers=0, **kw)
    b = H.hunt("rar", "sjf-bco", workers=2, **kw)
    assert a.engine == "inprocess" and b.engine == "local"
    assert a.best.data == b.best.data and a.shrunk.data == b.shrunk.data
    assert [h[1:] for h in a.history] == [h[1:] for h in b.history]
    assert a.best.ratio == b.best.ratio and a.best.certified == b.best.certified


def test_cli_hunt_finds_and_writes_the_planted_trap(planted, tmp_path, capsys):
    out = tmp_path / "found"
    code = main(["hunt", planted, "--method", "scan", "--strategy", "anneal", "--max-evals", "400",
                 "--seed", "1", "--out", str(out), "--plot", str(tmp_path / "p.png")])
    cap = capsys.readouterr()
    assert code == 0
    assert "first certified violation" in cap.err and "hunt:" in cap.err
    assert "violation True" in cap.out and "wrote" in cap.out
    files = sorted(p.name for p in out.iterdir())
    assert files == ["hunt-planted-scan-anneal-seed1.json", "planted-scan-anneal-seed1.json"]
    assert (tmp_path / "p.png").stat().st_size > 1000
    code = main(["hunt", planted, "-m", "scan", "--max-evals", "30", "--json", "--shrink-evals", "0"])
    cap = capsys.readouterr()
    assert code == 0 and cap.err == ""
    rec = json.loads(cap.out)
    assert rec["evaluations"] == 30 and rec["strategy"] == "anneal"


@pytest.mark.parametrize("argv, needle", [
    (["hare"], "--method"),
    (["hare", "-m", "nope"], "--method"),
    (["nope", "-m", "list"], "PROBLEM"),
    (["hare", "-m", "list", "--strategy", "zz"], "--strategy"),
    (["hare", "-m", "exact", "--strategy", "guided"], "--strategy guided"),
    (["hare", "-m", "list", "--size", "foo=3"], "--size"),
    (["hare", "-m", "list", "--size", "tasks=x"], "--size"),
    (["hare", "-m", "list", "--size", "tasks"], "--size"),
    (["hare", "-m", "list", "--budget", "-1"], "--budget"),
    (["hare", "-m", "list", "--max-evals", "0"], "--max-evals"),
    (["hare", "-m", "list", "--workers", "-1"], "--workers"),
    (["hare", "-m", "list", "--batch", "0"], "--batch"),
    (["hare", "-m", "list", "--target", "0"], "--target"),
    (["hare", "-m", "list", "--objective", "best"], "--objective"),
    (["hare", "-m", "fifo", "--objective", "excess"], "--objective ratio"),
    (["hare", "-m", "list", "-r", "nope"], "--reference"),
    (["hare", "-m", "list", "-o", "nope=1"], "nope"),
    (["hare", "-m", "list", "-o", "placement=zz"], "placement"),
    (["hare", "-m", "list", "--reference-option", "foo=1"], "foo"),
    (["hare", "-m", "list", "--start", "instances/counterexamples/rar-theorem5-lemma4.json"], "--start"),
    (["hare", "-m", "list", "--start", "no/such/file.json"], "no/such/file.json"),
    (["hare", "-m", "list", "--out", "README.md"], "--out"),
    (["hare", "-m", "list", "--plot", "instances"], "--plot"),
    (["planted-nope", "-m", "x"], "PROBLEM"),
])
def test_cli_hunt_bad_inputs_are_one_line_errors(argv, needle, capsys, tmp_path):
    code = main(["hunt", *argv, "--max-evals", "1"] if "--max-evals" not in argv else ["hunt", *argv])
    cap = capsys.readouterr()
    assert code == 2, cap
    lines = [ln for ln in cap.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], cap.err
    assert cap.out == ""


def test_moves_keep_numbers_in_a_sane_range():
    """Repeated scaling cannot reach degenerate data (1e15 next to 1e-12):
    every number a move leaves is 0 or within the space's magnitudes."""
    for problem in ("harmony", "hare", "rar"):
        space = H.get_space(problem)
        size = space.size(None)
        rng = np.random.default_rng(7)
        d = space.sample(rng, size)
        lo, hi = space.magnitude
        for _ in range(300):
            d = space.mutate(rng, d, size=size)
            for p in space.numeric_leaves(d):
                v = abs(float(H.space._get(d, p)))
                assert v == 0.0 or lo <= v <= hi, (problem, p, v)
    assert H.get_space("harmony").mutate(np.random.default_rng(0), {"problem": "harmony", "machines": 2,
            "reference_dop": 1, "weights": {"cpu": 1, "net": 1},
            "jobs": [{"id": "a", "t_cpu": 1.0, "t_net": 1.0, "iterations": 1},
                     {"id": "b", "t_cpu": 1.0, "t_net": 2.0, "iterations": 1}]})["weights"] == {"cpu": 1, "net": 1}


def test_hare_space_keeps_weights_positive_and_shrinking_respects_the_caps():
    """Weight 0 makes the relaxation degenerate: the Hare space keeps weights
    positive, in moves and in shrinking (which would round 0.01 to 0)."""
    space = H.get_space("hare")
    size = space.size(None)
    d = {"problem": "hare", "gpus": ["A"], "jobs": [
        {"id": "a", "arrival": 0.0, "weight": 0.01, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"A": 1.0}, "sync_time": {"A": 0.0}},
        {"id": "b", "arrival": 0.0, "weight": 1.0, "rounds": 1, "tasks_per_round": 1,
         "train_time": {"A": 1.25}, "sync_time": {"A": 0.0}}]}
    assert space.fits(d, size)
    zero = json.loads(json.dumps(d))
    zero["jobs"][0]["weight"] = 0.0
    assert space.valid(zero) and not space.fits(zero, size)
    rng = np.random.default_rng(0)
    for _ in range(200):
        d = space.mutate(rng, d, size=size)
        assert all(j["weight"] > 0 for j in d["jobs"])
    ev = H.Evaluator("hare", "list")
    start = ev(d)
    shrunk, _ = H.search.shrink(space, ev, start, lambda s: s.ratio is not None, max_evals=10, size=size)
    assert all(j["weight"] > 0 for j in shrunk.data["jobs"])


def test_the_spaces_family_table_is_built_once_and_again_only_when_the_registry_changes(monkeypatch):
    """SPACES reads the registry's families with a sampler and caps: the table is built on
    first use and kept (it was rebuilt on every lookup), and built again when a family is
    registered later (a family registered at run time still gets its space)."""


    registry.load_families()
    monkeypatch.setattr(registry, "_PROBLEMS", dict(registry._PROBLEMS))
    spaces = _Spaces()
    first = spaces._families()
    assert spaces["rar"] is spaces["rar"] and spaces._families() is first and "rar" in list(spaces)
    assert "rar-copy" not in spaces
    rar = registry.family("rar")
    registry.register_problem(dataclasses.replace(rar, name="rar-copy"))
    assert "rar-copy" in spaces._families() and "rar-copy" in list(spaces) and len(spaces) == len(first) + 1
    copy = spaces["rar-copy"]  # the copy's space draws through the same builder as rar's
    assert copy.default_size == spaces["rar"].default_size and spaces._families() is spaces._families()
    assert (copy.sample(np.random.default_rng(3), copy.default_size)
            == rar.sample(RngDraws(np.random.default_rng(3)), **copy.default_size))
