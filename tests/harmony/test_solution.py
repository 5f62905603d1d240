"""Validator (negative cases) and evaluator (hand-computed values, properties)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.harmony.solution import (
    HarmonySolution,
    completion_times,
    evaluate,
    from_json,
    group_stats,
    metrics,
    to_json,
    validate,
)
from dmlsched.problems.harmony.strategies import harmony_instances


def test_hand_computed_two_jobs(two_jobs):
    """models/harmony.md, "Worked example": every grouping of the 2-job instance."""
    together2 = HarmonySolution(((0, 1),), (2,))
    st2 = group_stats(two_jobs, (0, 1), 2)
    assert (st2.sum_cpu, st2.sum_net, st2.max_itr, st2.t_group) == (3.0, 4.0, 4.0, 4.0)
    assert (st2.u_cpu, st2.u_net) == (0.75, 1.0)
    assert evaluate(two_jobs, together2) == pytest.approx(5 / 6)
    # both on one machine (one machine idle): T = 6, U(g) = (2*1 + 4/6)/3, counted over M = 2
    assert evaluate(two_jobs, HarmonySolution(((0, 1),), (1,))) == pytest.approx((2 + 2 / 3) / 3 / 2)
    # isolated, one machine each: job-bound groups, T = 5 each
    iso = HarmonySolution(((0,), (1,)), (1, 1))
    assert group_stats(two_jobs, (0,), 1).bound == "job"
    assert evaluate(two_jobs, iso) == pytest.approx((0.6 + 1.4 / 3) / 2)


def test_metrics_and_completion_times(two_jobs):
    sol = HarmonySolution(((0, 1),), (2,))
    # T_g = 4 for 10 iterations (both jobs), then B alone: cpu 1, net 3, T = 4 (job-bound) for 10 more
    ct = completion_times(two_jobs, sol)
    assert list(ct) == pytest.approx([40.0, 80.0])
    m = metrics(two_jobs, sol)
    assert m["avg_jct"] == pytest.approx(60.0) and m["makespan"] == pytest.approx(80.0)
    assert m["utilisation_cpu"] == pytest.approx(0.75) and m["utilisation_net"] == pytest.approx(1.0)
    iso = HarmonySolution(((0,), (1,)), (1, 1))
    assert list(completion_times(two_jobs, iso)) == pytest.approx([50.0, 100.0])
    m = metrics(two_jobs, HarmonySolution(((0, 1),), (1,)))
    assert m["utilisation_allocated"] == pytest.approx(2 * m["utilisation"])  # (4.4) over sum m_g


def test_no_iterations_no_jct(two_jobs_dict):
    for j in two_jobs_dict["jobs"]:
        del j["iterations"]
    inst = dmlsched.from_dict(two_jobs_dict)
    m = metrics(inst, HarmonySolution(((0, 1),), (2,)))
    assert m["avg_jct"] is None and m["makespan"] is None


@pytest.mark.parametrize(
    "groups, machines, tag",
    [
        (((0,),), (2,), "(P) job 'B' is in no group"),
        (((0, 1), (1,)), (1, 1), "(P) job 'B' is in group 0 and in group 1"),
        (((0, 1), ()), (1, 1), "(P) group 1 is empty"),
        (((0, 2),), (2,), "(P) group 0: job index 2 out of range"),
        (((0, -1),), (2,), "out of range"),
        (((0,), (1,)), (1, 0), "(M1)"),
        (((0,), (1,)), (1, 1.5), "(M1)"),
        (((0,), (1,)), (2, 1), "(M2) groups use 3 machines"),
        (((0, 1),), (1, 1), "2 machine counts"),
    ],
)
def test_validator_rejects(two_jobs, groups, machines, tag):
    with pytest.raises(InvalidSolutionError, match=re.escape(tag)):
        validate(two_jobs, HarmonySolution(groups, machines))


def test_json_round_trip(two_jobs):
    sol = HarmonySolution(((1, 0),), (2,))
    data = to_json(two_jobs, sol)
    assert data["groups"][0]["jobs"] == ["B", "A"] and data["groups"][0]["bound"] in ("net", "job")
    back = from_json(two_jobs, data)
    assert back.groups == sol.groups and back.machines == sol.machines
    with pytest.raises(dmlsched.InstanceError):
        from_json(two_jobs, {"groups": [{"jobs": ["Z"], "machines": 1}]})


@settings(max_examples=80, deadline=None)
@given(harmony_instances(max_jobs=5, max_machines=8), st.data())
def test_machine_monotonicity_lemma1(inst, data):
    """proofs/harmony.md Lemma 1: m * U(g) is non-decreasing in m."""
    jobs = data.draw(st.lists(st.sampled_from(range(inst.num_jobs)), min_size=1, unique=True))
    vals = [m * group_stats(inst, jobs, m).u for m in range(1, 12)]
    for a, b in zip(vals, vals[1:]):
        assert b >= a - 1e-12 * max(1.0, a)


@settings(max_examples=80, deadline=None)
@given(harmony_instances(max_jobs=5, max_machines=8), st.data())
def test_utilisation_in_unit_interval(inst, data):
    n = inst.num_jobs
    labels = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    blocks = {}
    for j, b in enumerate(labels):
        blocks.setdefault(b, []).append(j)
    groups = tuple(tuple(v) for v in blocks.values())
    assume(len(groups) <= inst.machines)
    machines = tuple([1] * len(groups))
    sol = HarmonySolution(groups, machines)
    validate(inst, sol)
    u = evaluate(inst, sol)
    assert 0.0 < u <= 1.0 + 1e-12
    for g, m in zip(groups, machines):
        s = group_stats(inst, g, m)
        assert s.t_group >= max(s.sum_cpu, s.sum_net, s.max_itr) and 0 <= s.u_cpu <= 1 and 0 <= s.u_net <= 1
