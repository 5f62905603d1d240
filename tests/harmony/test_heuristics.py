"""Algorithms 1 and 2: each step against its specification, and the whole."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlsched
from dmlsched.generate.harmony import evaluation_workload
from dmlsched.problems.harmony.heuristics import (
    allocate_machines,
    assign_jobs,
    best_num_groups,
    group_prefix,
    group_value,
    imbalance_sum,
    schedule,
)
from dmlsched.problems.harmony.instance import HarmonyInstance, HarmonyJob
from dmlsched.problems.harmony.strategies import harmony_instances


def _inst(jobs, machines=4, dop=1.0):
    return HarmonyInstance(
        machines=machines,
        reference_dop=dop,
        jobs=tuple(HarmonyJob(f"j{i}", float(a), float(b)) for i, (a, b) in enumerate(jobs)),
    )


@settings(max_examples=150, deadline=None)
@given(harmony_instances(max_jobs=8, max_machines=12))
def test_num_groups_is_the_brute_force_argmin(inst):
    jobs = list(range(inst.num_jobs))
    hi = min(inst.num_jobs, inst.machines)
    vals = [imbalance_sum(inst, jobs, k) for k in range(1, hi + 1)]
    k = best_num_groups(inst, jobs, "per-job")
    assert 1 <= k <= hi
    assert vals[k - 1] <= min(vals) * (1 + 1e-12) + 1e-12


def test_num_groups_worked_example():
    # a_j = t_cpu * c / M = 1/4 each; f(n) = 4 * |n/4 - 1| -> n_G* = 4
    inst = _inst([(1, 1)] * 4, machines=4)
    assert best_num_groups(inst, [0, 1, 2, 3], "per-job") == 4
    # CPU-heavy jobs: balance needs few groups (large DoP): n_G* = 1
    assert best_num_groups(_inst([(8, 1)] * 4, machines=4), [0, 1, 2, 3], "per-job") == 1


def test_assign_jobs_worked_example():
    """Algorithm 2 by hand (models/harmony.md, "Worked example of Algorithm 2").

    n_G = 2 on M = 2 machines, c = 1: times at DoP M/n_G = 1 are the profiled ones.
    itr: j0 = 10 (cpu 9, net 1), j1 = 8 (1, 7), j2 = 6 (5, 1), j3 = 5 (1, 4), j4 = 3 (2, 1).
    Group 0: j0 (largest, S = 0), then complementary (diff <= 0): j1 -> S = 2.
    Group 1: j2 (largest left, S = 0), then j3 (diff -3) -> S = 1.
    Remaining j4 (diff 1): |1 + 2| = 3 vs |1 + 1| = 2 -> group 1; itr 3 <= max 6, no job-bound check.
    Fine-tuning: g_u = 0 (|S| = 2), partner 1 (S = 2): best swap j0<->j2 gives S = (-2, 6)...
    no swap lowers |2| + |2| = 4 except none: so no swap.
    """
    inst = _inst([(9, 1), (1, 7), (5, 1), (1, 4), (2, 1)], machines=2)
    asg = assign_jobs(inst, [0, 1, 2, 3, 4], 2)
    assert asg.groups == [[0, 1], [2, 3, 4]]
    assert asg.swaps == 0


@settings(max_examples=150, deadline=None)
@given(harmony_instances(max_jobs=10, max_machines=12), st.data())
def test_job_bound_check_is_never_reached(inst, data):
    """proofs/harmony.md, Observation 2: L16's condition T_itr_j > max_{g*} T_itr is
    never true (each group starts with the longest job left), so the job-bound
    check of Algorithm 2 never fires."""
    k = data.draw(st.integers(1, inst.num_jobs))
    asg = assign_jobs(inst, list(range(inst.num_jobs)), k, fine_tune=False)
    assert asg.job_bound_checks == 0 and asg.fallback_job_bound == 0


@settings(max_examples=120, deadline=None)
@given(harmony_instances(max_jobs=9, max_machines=12), st.data())
def test_assign_jobs_partitions_and_swaps_stop_at_local_optimum(inst, data):
    jobs = list(range(inst.num_jobs))
    k = data.draw(st.integers(1, inst.num_jobs))
    asg = assign_jobs(inst, jobs, k)
    assert len(asg.groups) == k
    assert sorted(j for g in asg.groups for j in g) == jobs
    assert all(len(g) >= inst.num_jobs // k for g in asg.groups)
    if k >= 2:  # the fine-tuning stopped: no swap between g_u and its partner helps
        cpu = inst.t_cpu * inst.reference_dop * k / inst.machines
        d = cpu - inst.t_net
        s = np.array([d[g].sum() for g in asg.groups])
        u = int(np.argmax(np.abs(s)))
        other = np.abs(s[u] - s)
        other[u] = -np.inf
        v = int(np.argmax(other))
        x = d[asg.groups[u]][:, None] - d[asg.groups[v]][None, :]
        best = (np.abs(s[u] - x) + np.abs(s[v] + x)).min()
        assert best >= abs(s[u]) + abs(s[v]) - 1e-9 * max(1.0, np.abs(s).max())


@settings(max_examples=100, deadline=None)
@given(harmony_instances(max_jobs=8, max_machines=12), st.data())
def test_allocate_machines_greedy(inst, data):
    k = data.draw(st.integers(1, min(inst.num_jobs, inst.machines)))
    groups = [list(range(inst.num_jobs))[i::k] for i in range(k)]
    m = allocate_machines(inst, groups)
    assert sum(m) == inst.machines and min(m) >= 1
    # replay: each extra machine went to a group of maximal intensity at that moment
    cur = [1] * k
    a = [inst.t_cpu[g].sum() * inst.reference_dop for g in groups]
    n = [inst.t_net[g].sum() for g in groups]
    for _ in range(inst.machines - k):
        inten = [a[i] / (cur[i] * n[i]) if n[i] > 0 else np.inf for i in range(k)]
        i = int(np.argmax(inten))
        cur[i] += 1
    assert cur == m


@settings(max_examples=100, deadline=None)
@given(harmony_instances(max_jobs=9, max_machines=12), st.sampled_from(["all", "first-stop", "best-prefix"]))
def test_harmony_returns_valid_solutions(inst, admission):
    res = dmlsched.solve(inst, "harmony", admission=admission)  # validates and re-evaluates
    assert res.status == dmlsched.Status.FEASIBLE
    assert sum(res.solution.machines) == inst.machines
    assert 0 < res.objective <= 1 + 1e-12
    assert res.details["n_groups"] <= min(inst.num_jobs, inst.machines)


def test_admission_readings_change_what_they_claim():
    """first-stop stops at the first prefix that does not improve U (80 jobs, seed 0: 4
    jobs), best-prefix tries every prefix (here more jobs, a higher U than first-stop),
    all admits every job; with place_rest the static decision still groups every job.  About
    admission, so L6 is pinned to the aggregate reading these numbers were recorded with."""
    inst = evaluation_workload(seed=0)
    first = schedule(inst, admission="first-stop", place_rest=False, group_rule="aggregate")
    best = schedule(inst, admission="best-prefix", place_rest=False, group_rule="aggregate")
    every = schedule(inst, admission="all", place_rest=False, group_rule="aggregate")
    assert every.admitted == 80
    k = first.admitted
    nxt = group_prefix(inst, list(range(k + 1)), group_rule="aggregate")
    assert group_value(inst, nxt.groups, nxt.machines) <= group_value(inst, first.groups, first.machines)
    assert best.admitted > k and best.utilisation_admitted > first.utilisation_admitted
    placed = schedule(inst, admission="first-stop")
    assert sorted(j for g in placed.groups for j in g) == list(range(inst.num_jobs))


def test_deterministic_and_unknown_option(two_jobs):
    a = dmlsched.solve(two_jobs, "harmony", seed=1)
    b = dmlsched.solve(two_jobs, "harmony", seed=2)
    assert a.solution.groups == b.solution.groups and a.objective == b.objective
    with pytest.raises(dmlsched.OptionError, match="bogus"):
        dmlsched.solve(two_jobs, "harmony", bogus=1)


def test_paper_scale_runs():
    """8,000 jobs on 10,000 machines (Fig. 4.18) gives a valid grouping (timing: benchmarks/)."""
    inst = evaluation_workload(seed=3, num_jobs=8000, num_machines=10000)
    res = dmlsched.solve(inst, "harmony")
    assert sum(len(g) for g in res.solution.groups) == 8000


@settings(max_examples=100, deadline=None)
@given(harmony_instances(max_jobs=8, max_machines=12))
def test_aggregate_rule_is_the_brute_force_argmin(inst):
    jobs = list(range(inst.num_jobs))
    a = inst.t_cpu * inst.reference_dop / inst.machines
    hi = min(inst.num_jobs, inst.machines)
    vals = [abs(a.sum() * k - inst.t_net.sum()) for k in range(1, hi + 1)]
    k = best_num_groups(inst, jobs, "aggregate")
    assert vals[k - 1] <= min(vals) * (1 + 1e-12) + 1e-12
    res = dmlsched.solve(inst, "harmony", admission="all", group_rule="aggregate")  # L6 on every job
    assert res.details["n_groups"] == k and res.details["group_rule"] == "aggregate"
    # the default is the printed per-job rule
    res = dmlsched.solve(inst, "harmony", admission="all")
    assert res.details["group_rule"] == "per-job" and res.details["n_groups"] == best_num_groups(inst, jobs)
    assert best_num_groups(inst, jobs) == best_num_groups(inst, jobs, "per-job")


def test_unknown_rule_and_bad_num_groups(two_jobs):
    with pytest.raises(dmlsched.OptionError, match="group_rule"):
        dmlsched.solve(two_jobs, "harmony", group_rule="median")
    with pytest.raises(dmlsched.OptionError, match="num_groups"):
        dmlsched.solve(two_jobs, "harmony", num_groups=0)
    with pytest.raises(dmlsched.OptionError, match="option 'n_groups': now 'num_groups': must be >= 1"):
        dmlsched.solve(two_jobs, "harmony", n_groups=0)
    # clamped to min(|J|, M) = 2 (L6 on both jobs: admission="all")
    assert dmlsched.solve(two_jobs, "harmony", admission="all", num_groups=5).details["n_groups"] == 2
    with pytest.raises(dmlsched.OptionError, match="admission"):
        dmlsched.solve(two_jobs, "harmony", admission="some")


def _allocate_one_at_a_time(inst, groups, total):
    """allocate_machines as it was before the threshold shortcut: every machine through the heap."""
    m = [1] * len(groups)
    a = [float(inst.t_cpu[g].sum()) * inst.reference_dop for g in groups]
    nt = [float(inst.t_net[g].sum()) for g in groups]

    def key(i):
        return -(a[i] / (m[i] * nt[i])) if nt[i] > 0 else -math.inf

    heap = [(key(i), i) for i in range(len(groups))]
    heapq.heapify(heap)
    for _ in range(total - len(groups)):
        _, i = heapq.heappop(heap)
        m[i] += 1
        heapq.heappush(heap, (key(i), i))
    return m


@settings(max_examples=200, deadline=None)
@given(harmony_instances(max_jobs=12, max_machines=4, integer_times=True), st.data())
def test_allocation_shortcut_is_the_one_at_a_time_loop(inst, data):
    """The threshold shortcut of allocate_machines (many machines per group) gives exactly the
    one-at-a-time loop's machines, ties included (integer times: equal intensities are common)."""
    total = data.draw(st.sampled_from([inst.num_jobs, 5 * inst.num_jobs + 3, 97, 1000, 10_000]))
    total = max(total, inst.num_jobs)
    k = data.draw(st.integers(1, inst.num_jobs))
    groups = [list(range(inst.num_jobs))[i::k] for i in range(k)]
    assert allocate_machines(inst, groups, total) == _allocate_one_at_a_time(inst, groups, total)


def test_allocation_shortcut_at_paper_scale():
    inst = evaluation_workload(seed=0, num_jobs=800, num_machines=10_000)
    for k in (1, 7, 80, 623, 800):
        groups = [list(range(800))[i::k] for i in range(k)]
        assert allocate_machines(inst, groups) == _allocate_one_at_a_time(inst, groups, 10_000)
