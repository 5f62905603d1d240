"""GPU_Grouping (HLAS paper eqs. (4)-(6)): loader, validator, MILP vs brute force vs Gurobi, greedy gap."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import InstanceError, InvalidSolutionError, SolverLimitError, Status
from dmlsched.cli import main
from dmlsched.problems.gpugrouping import Grouping, GroupingInstance, brute_force_grouping, from_hlas
from dmlsched.problems.gpugrouping.heuristics import deal, partitions
from dmlsched.problems.gpugrouping.models import build_model
from dmlsched.problems.gpugrouping.strategies import grouping_dicts_mutated, grouping_instances
from dmlsched.problems.hare.strategies import json_values

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "instances" / "gpu-grouping").glob("*.json"))


def _stirling2(n: int, k: int) -> int:
    return round(sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) / math.factorial(k))


@pytest.mark.parametrize("m,k", [(1, 1), (4, 2), (5, 3), (6, 6), (7, 3)])
def test_partitions_enumerates_each_set_partition_once(m, k):
    parts = list(partitions(m, k))
    assert len(parts) == len(set(parts)) == _stirling2(m, k)
    assert all(len(set(p)) == k for p in parts)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_instance_files_reach_their_recorded_optimum(path):
    inst = dmlsched.load(path)
    opt = inst.expected["optimum"]
    _, v, _ = brute_force_grouping(inst)
    assert v == pytest.approx(opt, abs=1e-9)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL and res.objective == pytest.approx(opt, abs=1e-6)
    g = dmlsched.solve(inst, "greedy")
    assert g.objective >= opt - 1e-9
    if "group" in inst.expected.get("facts", {}):
        assert res.solution.canonical().group == tuple(inst.expected["facts"]["group"])


def test_fig9_grouping_equalises_job_a():
    inst = dmlsched.load(ROOT / "instances" / "gpu-grouping" / "fig9_10.json")
    res = dmlsched.solve(inst, "exact")
    out = dmlsched.solution_to_json(inst, res.solution)
    assert out["members"] == [[0, 2], [1, 3]]
    assert out["range_per_job"][0] == pytest.approx(0.0, abs=1e-12)  # J_A sees two identical groups
    assert out["range_per_job"][1] == pytest.approx(0.1)


@settings(max_examples=25, deadline=None)
@given(grouping_instances(max_jobs=3, max_gpus=6, max_groups=3))
def test_exact_matches_brute_force(inst):
    _, v, _ = brute_force_grouping(inst)
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(v, abs=1e-6)
    assert res.lower_bound <= v + 1e-6
    g = dmlsched.solve(inst, "greedy")
    assert g.objective >= v - 1e-9  # no heuristic beats the optimum


def test_symmetry_breaking_keeps_the_optimum():
    inst = dmlsched.load(ROOT / "instances" / "gpu-grouping" / "small_3x7_g3.json")
    a = dmlsched.solve(inst, "exact", symmetry=True)
    b = dmlsched.solve(inst, "exact", symmetry=False)
    assert a.objective == pytest.approx(b.objective, abs=1e-6) == pytest.approx(inst.expected["optimum"])
    m = build_model(inst)
    assert len(m.sym_upper) + len(m.sym_order) > 0


def test_highs_and_gurobi_agree(solver):
    for path in FILES:
        inst = dmlsched.load(path)
        try:
            res = dmlsched.solve(inst, "exact", solver=solver, time_limit=20)
        except SolverLimitError:
            pytest.skip("model exceeds Gurobi's size-limited licence")
        assert res.status == Status.OPTIMAL
        assert res.objective == pytest.approx(inst.expected["optimum"], abs=1e-6)


def test_model_spec_names_exist_in_the_model():
    spec = (ROOT / "models" / "gpu-grouping.md").read_text()
    names = set(re.findall(r"`model\.(\w+)`", spec))
    assert {"assign", "pmax_def", "pmin_def", "range_def", "nonempty", "sym_upper", "sym_order"} <= names
    inst = dmlsched.load(FILES[0])
    m = build_model(inst)
    for name in names:
        assert hasattr(m, name), name


def test_greedy_gap_is_reported_by_check():
    inst = dmlsched.load(ROOT / "instances" / "gpu-grouping" / "small_3x7_g3.json")
    rep = dmlsched.check(inst, "greedy", reference="exact")
    assert rep.reference == "exact" and rep.reference_objective == pytest.approx(1.75)
    assert rep.ratio >= 1 - 1e-9 and rep.verdict == "no_bound"  # the paper claims no bound
    assert "claims no bound" in rep.details["note"]


def test_greedy_gap_on_random_instances_is_small():
    """The recorded number of benchmarks/hlas.md, at test scale: mean ratio over 20 instances."""
    import numpy as np

    rng = np.random.default_rng(5)
    ratios = []
    for _ in range(20):
        sp = tuple(tuple(float(x) for x in rng.integers(1, 20, size=7) / 4) for _ in range(3))
        inst = GroupingInstance(speeds=sp, groups=3)
        _, v, _ = brute_force_grouping(inst)
        g = dmlsched.solve(inst, "greedy").objective
        ratios.append(1.0 if v == 0 and g == 0 else g / v)
    assert min(ratios) >= 1 - 1e-9
    assert float(np.mean(ratios)) < 1.5


def test_deal_opens_every_group_and_greedy_is_canonical():
    inst = GroupingInstance(speeds=((1.0, 2.0, 3.0, 4.0, 5.0),), groups=3)
    assert sorted(set(deal(inst))) == [0, 1, 2]
    sol = dmlsched.solve(inst, "greedy").solution
    assert sol == sol.canonical()


def test_validator_rejects_bad_groupings():
    inst = GroupingInstance(speeds=((1.0, 2.0, 3.0),), groups=2)
    spec = dmlsched.get_problem("gpu-grouping")
    with pytest.raises(InvalidSolutionError, match=r"\(4\)"):
        spec.validate(inst, Grouping((0, 1)))
    with pytest.raises(InvalidSolutionError, match=r"\(4\)"):
        spec.validate(inst, Grouping((0, 1, 2)))
    with pytest.raises(InvalidSolutionError, match="nonempty"):
        spec.validate(inst, Grouping((0, 0, 0)))
    spec.validate(inst, Grouping((0, 1, 1)))
    assert spec.evaluate(inst, Grouping((0, 1, 1))) == pytest.approx(4.0)


@pytest.mark.parametrize(
    "data, field",
    [
        ({"speeds": [[1, 2], [1]], "groups": 1}, "speeds[1]"),
        ({"speeds": [[1, -2]], "groups": 1}, "speeds[0][1]"),
        ({"speeds": [[1, 2]], "groups": 3}, "groups"),
        ({"speeds": [[1, 2]], "groups": 0}, "groups"),
        ({"speeds": [], "groups": 1}, "speeds"),
        ({"speeds": [[1, 2]], "groups": 1, "typo": 1}, "typo"),
    ],
)
def test_loader_errors_name_the_field(data, field):
    with pytest.raises(InstanceError) as e:
        dmlsched.from_dict({"problem": "gpu-grouping", **data})
    assert e.value.field == field


@settings(max_examples=150, deadline=None)
@given(st.one_of(json_values(), grouping_dicts_mutated()))
def test_loader_fuzz_instance_or_instance_error(value):
    data = {"problem": "gpu-grouping", **value} if isinstance(value, dict) and "problem" not in value else value
    try:
        inst = dmlsched.from_dict(data)
    except InstanceError:
        return
    assert isinstance(inst, GroupingInstance)
    assert dmlsched.from_dict(dmlsched.to_dict(inst)).speeds == inst.speeds


def test_roundtrip_and_from_hlas_merges_job_types():
    inst = dmlsched.load(ROOT / "instances" / "hlas" / "fig9_10.json")
    g = from_hlas(inst)
    assert g.groups == 2 and g.num_jobs == 2 and g.num_gpus == 4
    assert g.speeds[0][2] == pytest.approx(1 / 1.8)
    d = dmlsched.to_dict(g)
    assert dmlsched.from_dict(json.loads(json.dumps(d))).speeds == g.speeds
    dup = GroupingInstance(speeds=((1.0, 2.0), (1.0, 2.0), (2.0, 1.0)), groups=2)
    assert dup.deduplicated().num_jobs == 2


def test_cli_solve_and_check(capsys):
    path = str(ROOT / "instances" / "gpu-grouping" / "fig9_10.json")
    assert main(["solve", path, "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["objective"] == pytest.approx(0.1)
    assert out["solution"]["members"] == [[0, 2], [1, 3]]
    assert main(["check", path, "--method", "greedy", "--reference", "exact", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ratio"] == pytest.approx(1.0)
