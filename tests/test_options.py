"""Old option names (``dmlsched.options.RENAMED``, issue 22 step F4): each is
accepted by the methods that declared it, gives the result of the new name and
is recorded in ``details["renamed_options"]``; giving both names, or an old
name on a method that never had it, is an ``OptionError`` naming them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import dmlsched
from dmlsched.cli import main
from dmlsched.kit import Run
from dmlsched.options import DISTINCT, PER_FAMILY_VALUES, RENAMED, RENAMES, OptionError, bell_number
from dmlsched.problems.harmony.bruteforce import bell
from dmlsched.registry import load_families, methods

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"

#: (instance, method, old option, its value, the new option's value); CP-SAT runs get a work limit
ALIASES = [
    ("hare/tiny.json", "exact", "gpu_symmetry", False, False),
    ("hare/tiny.json", "list", "gpu_symmetry", False, False),
    ("hare/tiny.json", "list-eft", "gpu_symmetry", False, False),
    ("hare/tiny.json", "list-queyranne", "gpu_symmetry", False, False),
    ("hare/tiny.json", "relaxation", "gpu_symmetry", False, False),
    ("hare/tiny.json", "relaxation", "kind", "queyranne", "queyranne"),
    ("hlas/tiny_offline.json", "offline-mip", "gpu_symmetry", False, False),
    ("hlas/tiny_offline.json", "offline-exact", "objective_cut", True, True),
    ("moldable/paper-hpc2n-example.json", "exact-cp", "gpu_symmetry", False, False),
    ("moldable/paper-hpc2n-example.json", "exact-cp", "time_scale", 1, 1),
    ("cruise/matrix-3.json", "brute-force", "limit", 1000, 1000),
    ("cruise/matrix-3.json", "exact", "use_upper", False, False),
    ("rar/two-job-contention.json", "exact", "max_schedules", 60_000, 60_000),
    ("rar/two-job-contention.json", "exact-nd", "max_schedules", 60_000, 60_000),
    ("harmony/two-jobs-hand.json", "brute-force", "max_jobs", 9, 21_147),
    ("harmony/two-jobs-hand.json", "brute-force", "max_jobs", 1, 1),
    ("harmony/two-jobs-hand.json", "harmony", "n_groups", 2, 2),
    ("gpu-grouping/small_2x8_g2.json", "brute-force", "typed", False, "gpus"),
    ("gpu-grouping/small_2x8_g2.json", "brute-force", "typed", True, "types"),
]
CP_SAT = {("hlas", "offline-exact"), ("moldable", "exact-cp")}


def _solve(inst, method: str, **options):
    if (dmlsched.problem_of(inst).name, method) in CP_SAT:
        options["work_limit"] = 10.0
    return dmlsched.solve(inst, method, **options)


def _outcome(inst, res) -> tuple:
    spec = dmlsched.problem_of(inst)
    sol = None if res.solution is None else json.dumps(spec.solution_to_json(inst, res.solution), sort_keys=True)
    return res.status, res.objective, res.bound, sol


def test_every_alias_has_a_case_and_every_case_is_an_alias():
    cases = {(f"{dmlsched.problem_of(dmlsched.load(INSTANCES / f)).name}/{m}", old) for f, m, old, _, _ in ALIASES}
    assert cases == {(key, r.old) for r in RENAMES if r.alias for key in r.methods}


@pytest.mark.parametrize("path, method, old, value, new_value", ALIASES,
                         ids=[f"{f.split('/')[0]}-{m}-{o}={v}" for f, m, o, v, _ in ALIASES])
def test_an_old_name_gives_the_new_names_result_and_is_recorded(path, method, old, value, new_value):
    inst = dmlsched.load(INSTANCES / path)
    new = RENAMED[old]
    with_old = _solve(inst, method, **{old: value})
    with_new = _solve(inst, method, **{new: new_value})
    assert _outcome(inst, with_old) == _outcome(inst, with_new)
    assert with_old.details["renamed_options"] == {old: new}
    assert "renamed_options" not in with_new.details


def test_harmony_max_jobs_k_is_max_candidates_bell_k():
    """``max_jobs=k`` refused exactly the instances of more than ``k`` jobs; Bell(k)
    groupings refuse exactly those (two jobs: Bell(2) = 2)."""
    inst = dmlsched.load(INSTANCES / "harmony/two-jobs-hand.json")
    assert inst.num_jobs == 2
    assert dmlsched.solve(inst, "brute-force", max_jobs=1).status == dmlsched.Status.NOT_APPLICABLE
    assert dmlsched.solve(inst, "brute-force", max_candidates=bell(1)).status == dmlsched.Status.NOT_APPLICABLE
    assert dmlsched.solve(inst, "brute-force", max_jobs=2).status == dmlsched.Status.OPTIMAL
    assert dmlsched.solve(inst, "brute-force", max_candidates=bell(2)).status == dmlsched.Status.OPTIMAL
    assert dmlsched.solve(inst, "brute-force", max_candidates=bell(2) - 1).status == dmlsched.Status.NOT_APPLICABLE
    assert [bell_number(n) for n in range(13)] == [bell(n) for n in range(13)]
    assert bell_number(9) == 21_147
    with pytest.raises(OptionError, match="'max_jobs'"):
        dmlsched.solve(inst, "brute-force", max_jobs=0)
    with pytest.raises(OptionError, match="'max_jobs'"):
        dmlsched.solve(inst, "brute-force", max_jobs="nine")


def test_old_and_new_name_together_is_an_error_naming_both():
    inst = dmlsched.load(INSTANCES / "hare/tiny.json")
    with pytest.raises(OptionError, match=r"option 'gpu_symmetry': the old name of 'symmetry'") as e:
        dmlsched.solve(inst, "exact", gpu_symmetry=False, symmetry=False)
    assert isinstance(e.value, ValueError) and e.value.option == "gpu_symmetry"


def test_an_old_name_is_accepted_only_where_it_was_declared():
    """hare exact-cp always called it ``symmetry``: ``gpu_symmetry`` stays unknown there,
    and the error says whose old name it is."""
    inst = dmlsched.load(INSTANCES / "hare/tiny.json")
    with pytest.raises(OptionError, match=r"unknown option of hare/exact-cp \('gpu_symmetry' is the old name of "
                                          r"'symmetry' on hare/exact"):
        dmlsched.solve(inst, "exact-cp", gpu_symmetry=False)


def test_rar_scale_is_not_an_alias_of_progress_scale():
    """``scale`` is the integer time scale of the CP-SAT methods; rar exact-cp's progress
    units are ``progress_scale`` and the old name is refused, naming the new one."""
    inst = dmlsched.load(INSTANCES / "rar/two-job-contention.json")
    with pytest.raises(OptionError, match=r"option 'scale': rar/exact-cp calls it 'progress_scale' now"):
        dmlsched.solve(inst, "exact-cp", scale=1000)
    assert "scale" not in RENAMED


def test_the_cli_option_path_maps_old_names(capsys):
    path = str(INSTANCES / "hare/tiny.json")
    assert main(["solve", path, "--method", "exact", "-o", "gpu_symmetry=false", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["details"]["renamed_options"] == {"gpu_symmetry": "symmetry"}
    assert main(["solve", path, "--method", "exact", "-o", "gpu_symmetry=false", "-o", "symmetry=true"]) == 2
    assert "'gpu_symmetry'" in capsys.readouterr().err


def test_standalone_and_delegated_runs_map_old_names():
    inst = dmlsched.load(INSTANCES / "hare/tiny.json")
    run = Run.standalone("hare", "relaxation", options={"kind": "queyranne", "gpu_symmetry": False})
    assert run.options["relaxation"] == "queyranne" and run.options["symmetry"] is False
    assert "kind" not in run.options and "gpu_symmetry" not in run.options
    assert run.details["renamed_options"] == {"kind": "relaxation", "gpu_symmetry": "symmetry"}
    parent = Run.standalone("hare", "exact", instance=inst)
    res = parent.delegate("exact", inst, options={"gpu_symmetry": False})
    assert res.details["renamed_options"] == {"gpu_symmetry": "symmetry"}
    assert _outcome(inst, res) == _outcome(inst, dmlsched.solve(inst, "exact", symmetry=False))


def test_gpu_grouping_typed_must_be_a_bool():
    inst = dmlsched.load(INSTANCES / "gpu-grouping/small_2x8_g2.json")
    with pytest.raises(OptionError, match="'typed'"):
        dmlsched.solve(inst, "brute-force", typed="gpus")
    with pytest.raises(OptionError, match="'space'"):
        dmlsched.solve(inst, "brute-force", space="partitions")


def test_the_names_kept_apart_are_declared_as_the_table_says():
    """:data:`dmlsched.options.DISTINCT` (names that concern one phenomenon but are
    different readings or different jobs) describes the registered options exactly: each
    entry's methods declare the option with that type and those choices, and no other
    method declares it; none of these names is an old name."""
    load_families()
    for d in DISTINCT:
        assert d.option not in RENAMED
        assert d.reason and d.reading, d.option
        declared = {f"{m.problem}/{m.name}": o for m in methods() for o in m.options if o.name == d.option}
        assert set(declared) == set(d.choices), (d.option, sorted(declared))
        for key, o in declared.items():
            assert o.type is d.type and tuple(o.choices or ()) == d.choices[key], (key, d.option)
    groups = {}
    for d in DISTINCT:
        groups.setdefault(d.group, []).append(d.option)
    assert all(len(names) > 1 for names in groups.values()), groups


def test_the_distinct_check_can_fail(monkeypatch):
    """A table entry that no longer matches the registered option fails the check."""
    d = DISTINCT[0]
    monkeypatch.setattr(__name__ + ".DISTINCT", (replace(d, type=str),))
    with pytest.raises(AssertionError):
        test_the_names_kept_apart_are_declared_as_the_table_says()


def _declarations() -> dict[str, dict[str, tuple]]:
    """option name -> {"problem/method": (type, choices)} over every registered method."""
    load_families()
    out: dict[str, dict[str, tuple]] = {}
    for m in methods():
        for o in m.options:
            out.setdefault(o.name, {})[f"{m.problem}/{m.name}"] = (o.type, tuple(o.choices or ()))
    return out


def _one_name_one_meaning(decl: dict[str, dict[str, tuple]], per_family: dict[str, str]) -> list[str]:
    """What breaks "one name per concept": a name of two types, or of different choices
    on two methods without a reason in ``per_family``; and stale ``per_family`` entries."""
    bad = []
    for name, by_method in sorted(decl.items()):
        types = {t for t, _ in by_method.values()}
        if len(types) > 1:
            bad.append(f"{name}: declared as {sorted(t.__name__ for t in types)}")
        varies = len({c for _, c in by_method.values()}) > 1
        if varies and name not in per_family:
            bad.append(f"{name}: different choices on {sorted(by_method)} and not in PER_FAMILY_VALUES")
        if not varies and name in per_family:
            bad.append(f"{name}: in PER_FAMILY_VALUES but its choices are the same everywhere")
    return bad


def test_one_option_name_has_one_type_and_its_values_vary_only_with_a_reason():
    assert _one_name_one_meaning(_declarations(), PER_FAMILY_VALUES) == []


def test_the_one_name_check_can_fail():
    decl = _declarations()
    planted = {**decl, "placement": {**decl["placement"], "moldable/equi": (bool, ())}}
    assert any("placement: declared as" in b for b in _one_name_one_meaning(planted, PER_FAMILY_VALUES))
    without = {k: v for k, v in PER_FAMILY_VALUES.items() if k != "placement"}
    assert any(b.startswith("placement: different choices") for b in _one_name_one_meaning(decl, without))
    assert any("the same everywhere" in b for b in _one_name_one_meaning(decl, {**PER_FAMILY_VALUES, "symmetry": "x"}))
