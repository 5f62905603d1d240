"""Every exact method and every bound of every family against optima proven in
exact rational arithmetic by independent enumerations (issue 24).

The referees (``tests/referee/<family>.py``) are written from the papers'
models with :class:`fractions.Fraction` and call nothing of the project's
models or evaluators.  Each family is checked in every magnitude class that
applies to it (``common.MAGNITUDES``: small integers and halves; times near
1e-6; releases near 1e5 with times near 1e-3; thirds and sevenths; seven
decimals, for memories too).  ``benchmarks/referee.py`` runs the same checks
on many more instances and records the counts (``benchmarks/referee.md``).
"""

from __future__ import annotations

import glob
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

import dmlsched
from dmlsched.result import Result, Status

from . import cruise, gpugrouping, hare, harmony, moldable, rar
from .common import MAGNITUDES, Case, Numbers
from .runs import FAMILIES, RUNS, judge, run_case, runs_of

ROOT = Path(__file__).resolve().parents[2]

#: instances per (family, magnitude class) in this suite (the benchmark runs many more)
SEEDS_PER_CLASS = 1


def _params():
    out = []
    for family, (_, mod) in FAMILIES.items():
        for mag in mod.MAGNITUDES:
            for seed in range(SEEDS_PER_CLASS):
                out.append(pytest.param(family, mag, seed, id=f"{family}-{mag}-{seed}"))
    return out


@pytest.mark.parametrize("family,magnitude,seed", _params())
def test_exact_methods_and_bounds_meet_the_referee(family, magnitude, seed):
    build, _ = FAMILIES[family]
    case = build(seed, magnitude)
    bad, seen = run_case(case)
    assert not bad, "\n".join(bad)
    assert set(seen) == {r.name for r in runs_of(family)}


def test_every_family_and_every_exact_method_and_bound_is_refereed():
    """No exact method or bound of any family escapes the referees."""
    covered = {(r.family, r.method) for r in RUNS}
    for spec in dmlsched.families():
        assert spec.name in FAMILIES
        for m in dmlsched.methods(spec.name):
            if m.kind in ("exact", "bound"):
                assert (spec.name, m.name) in covered, f"{spec.name}/{m.name} has no referee run"


def test_magnitude_classes_are_all_used_or_said_why_not():
    for family, (_, mod) in FAMILIES.items():
        assert set(mod.MAGNITUDES) | set(mod.SKIPPED) == set(MAGNITUDES), family
        assert not set(mod.MAGNITUDES) & set(mod.SKIPPED), family


# ---------------------------------------------------------------------------
# the referees themselves: recorded optima, and their building blocks


def _referee_optimum(data: dict) -> Fraction | None:
    """The referee's optimum of a bundled instance, ``None`` when it is beyond the
    referee's size (or a form it does not read)."""
    p = data["problem"]
    if p in ("hare", "hlas"):
        h = hare.from_json(data)
        if hare.num_tasks(h) > 8:
            return None
        return hare.hare_optimum(h) if p == "hare" else hare.hlas_optimum(h)
    if p == "gpu-grouping":
        s, g = gpugrouping.from_json(data)
        return gpugrouping.optimum(s, g) if len(s[0]) <= 10 else None
    if p == "cruise":
        c = cruise.from_json(data)
        return cruise.optimum(c) if c is not None and len(c["machines"]) <= 4 and c["D"] <= 20 else None
    if p == "harmony":
        h = harmony.from_json(data)
        return harmony.optimum(h) if len(h["jobs"]) <= 5 else None
    if p == "moldable":
        m = moldable.from_json(data)
        return moldable.optimum(m) if len(m["tasks"]) <= 4 and m["gpus"] <= 3 else None
    if p == "rar":
        r = rar.from_json(data)
        if r is None or rar.enumeration_size(r) > 2 * 10**5:
            return None
        opt = rar.optimum(r)
        return None if opt is None else Fraction(opt)
    raise AssertionError(p)


def test_referees_agree_with_the_recorded_optima_of_the_bundled_instances():
    """Two independent derivations: the optima recorded with the bundled instances
    (brute forces of the project, hand-worked examples) and the referees'."""
    checked = {}
    for path in sorted(glob.glob(str(ROOT / "instances" / "*" / "*.json"))):
        data = json.loads(Path(path).read_text())
        exp = (data.get("expected") or {}).get("optimum")
        if exp is None:
            continue
        opt = _referee_optimum(data)
        if opt is None:
            continue
        assert float(opt) == pytest.approx(exp, rel=1e-9, abs=1e-12), path
        checked[data["problem"]] = checked.get(data["problem"], 0) + 1
    assert set(checked) == set(FAMILIES), checked
    assert sum(checked.values()) >= 25


def test_building_blocks():
    assert list(cruise.compositions(3, 2)) == [(0, 3), (1, 2), (2, 1), (3, 0)]
    assert sum(1 for _ in cruise.compositions(6, 3)) == math.comb(8, 2)
    assert [sum(1 for _ in harmony.partitions(list(range(n)))) for n in range(1, 7)] == [1, 2, 5, 15, 52, 203]
    pts = [(Fraction(1, 2), Fraction(2, 3)), (Fraction(1), Fraction(1)), (Fraction(2), Fraction(3, 2))]
    assert moldable.speed(pts, Fraction(1, 4)) == Fraction(1, 3)  # through the origin below the first point
    assert moldable.speed(pts, Fraction(3, 2)) == Fraction(5, 4)  # interpolated
    assert moldable.speed(pts, Fraction(4)) == Fraction(3, 2)  # constant above the last
    # a partition of 4 GPUs into 2 non-empty groups: the best split of speeds 1, 2, 3, 4 is even
    assert gpugrouping.optimum(((Fraction(1), Fraction(2), Fraction(3), Fraction(4)),), 2) == 0


def test_magnitude_classes_write_the_numbers_they_promise():
    for mag in MAGNITUDES:
        num = Numbers(mag, random.Random(1))
        times = [num.time(1, 4) for _ in range(50)]
        arrivals = [num.arrival(2) for _ in range(50)]
        if mag == "tiny":
            assert all(Fraction(1, 2 * 10**6) <= t <= Fraction(4, 10**6) for t in times)
        if mag == "offset":
            assert all(100_000 <= a <= 100_000 + Fraction(2, 1000) for a in arrivals)
            assert all(t <= Fraction(4, 1000) for t in times)
        if mag == "thirds":
            assert {t.denominator for t in times} - {1} <= {3, 7} and {3, 7} <= {t.denominator for t in times}
        if mag == "decimals":
            assert max(t.denominator for t in times) >= 10**6


def test_a_method_worse_than_the_optimum_fails_the_referee():
    """The judge cannot pass everything: a wrong "optimal", a bound past the optimum and a
    bound method reporting ``optimal`` are each caught."""
    case = hare.hare_case(0, "plain")
    inst = dmlsched.from_dict(case.data)
    good = dmlsched.solve(inst, "exact-cp")
    exact = next(r for r in RUNS if r.family == "hare" and r.method == "exact-cp")
    bound = next(r for r in RUNS if r.family == "hare" and r.method == "lower-bound")
    assert judge(case, exact, good) == []
    worse = Result("hare", "exact-cp", Status.OPTIMAL, objective=good.objective * 1.01, bound=good.objective * 1.01,
                   solution=good.solution)
    assert any("says optimal" in m for m in judge(case, exact, worse))
    past = Result("hare", "lower-bound", Status.BOUND, objective=float(case.optimum) * 1.01,
                  bound=float(case.optimum) * 1.01)
    assert any("passes the optimum" in m for m in judge(case, bound, past))
    old = Result("hare", "lower-bound", Status.OPTIMAL, objective=1.0, bound=1.0)
    assert any("expected bound" in m for m in judge(case, bound, old))


def test_cases_are_reproducible():
    for family, (build, _) in FAMILIES.items():
        a, b = build(3, "thirds"), build(3, "thirds")
        assert isinstance(a, Case) and a.data == b.data and a.optimum == b.optimum, family
