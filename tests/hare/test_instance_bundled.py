"""Re-solve the Hare instances in instances/hare/ and compare with their
recorded values (``"expected"``): the optimum (``exact``, recorded after
agreement of HiGHS, Gurobi and, where small enough, brute force) and the two
relaxation values."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched import Status
from dmlsched.problems.hare.models import check_relaxed

from .bruteforce import brute_force, count_candidates
from .relax import relax

FILES = sorted((Path(__file__).resolve().parents[2] / "instances" / "hare").glob("*.json"))
REL = 1e-5


def _close(a, b):
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


def test_instances_present():
    assert len(FILES) >= 5
    for f in FILES:
        inst = dmlsched.load(f)
        assert "optimum" in inst.expected and "relaxation" in inst.expected["bound"], f.name
        assert "relaxation_queyranne" in inst.expected["facts"], f.name


HEAVY = {"identical_gpus", "small_10"}  # a few seconds each on a loaded 2-core machine


@pytest.mark.parametrize(
    "path",
    [pytest.param(f, marks=pytest.mark.slow) if f.stem in HEAVY else f for f in FILES],
    ids=lambda p: p.stem,
)
def test_recorded_optimum(path):
    inst = dmlsched.load(path)
    exp = inst.expected
    res = dmlsched.solve(inst, "exact")
    assert res.status == Status.OPTIMAL
    assert _close(res.objective, exp["optimum"]), (res.objective, exp["optimum"])
    rl = relax(inst, kind="rl")
    qy = relax(inst, kind="queyranne")
    assert rl.status == qy.status == Status.OPTIMAL
    assert _close(rl.value, exp["bound"]["relaxation"]), (rl.value, exp["bound"]["relaxation"])
    assert _close(qy.value, exp["facts"]["relaxation_queyranne"]), (qy.value, exp["facts"]["relaxation_queyranne"])
    assert rl.value <= qy.value + REL * max(1.0, qy.value)
    assert qy.value <= res.objective + REL * max(1.0, res.objective)


@pytest.mark.parametrize("path", [f for f in FILES if count_candidates(dmlsched.load(f)) <= 50_000],
                         ids=lambda p: p.stem)
def test_recorded_optimum_by_brute_force(path):
    inst = dmlsched.load(path)
    assert "brute_force" in inst.expected["facts"]["exact_verified_by"]
    bf, best = brute_force(inst)
    dmlsched.validate(inst, best)
    assert _close(bf, inst.expected["optimum"])


def test_rl_optimum_violates_a_prefix_inequality():
    """Hare_Sched_RL enforces (9) only for the set of all tasks of a GPU.  On
    ``queyranne_gap`` its optimum (41.8) is below the Queyranne relaxation's
    (42.1), so *every* RL-optimal solution violates some subset inequality --
    by the separation lemma, a prefix in start order.  Lemma 2 of the paper
    applies (9) to prefixes of the sequence; the RL solution does not give that."""
    path = next(f for f in FILES if f.stem == "queyranne_gap")
    inst = dmlsched.load(path)
    rl = relax(inst, kind="rl")
    assert rl.status == Status.OPTIMAL
    check_relaxed(inst, rl.x_hat, rl.y_hat, "rl")
    with pytest.raises(dmlsched.InvalidSolutionError, match="Queyranne"):
        check_relaxed(inst, rl.x_hat, rl.y_hat, "queyranne")
    assert rl.value < inst.expected["facts"]["relaxation_queyranne"] - 0.1
