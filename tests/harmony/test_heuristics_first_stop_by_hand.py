"""Harmony's default (Algorithm 1 with the first-stop admission and the printed, per-job L6) re-derived
by hand and by a plain re-implementation written from the paper's text and models/harmony.md (no numpy,
no code of ``heuristics.py``), checked against the library and the values recorded in the instance
files; the aggregate reading of L6 is checked the same way."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched.problems.harmony.strategies import harmony_instances

from .conftest import HARMONY_DIR


# ---------------------------------------------------------------------------
# the plain re-implementation
def _u(inst, jobs, m):
    """(4.1)-(4.3), scalarised: U of the jobs ``jobs`` run together on ``m`` machines."""
    c = inst.reference_dop
    cpu = [inst.jobs[j].t_cpu * c / m for j in jobs]
    net = [inst.jobs[j].t_net for j in jobs]
    t = max(sum(cpu), sum(net), max(a + b for a, b in zip(cpu, net)))
    wc, wn = inst.w_cpu, inst.w_net
    return (wc * sum(cpu) / t + wn * sum(net) / t) / (wc + wn)


def _n_groups(inst, jobs, rule="per-job"):
    """L6 by a scan over n = 1 .. min(|J|, M), smallest on ties: printed (``"per-job"``)
    argmin_n sum_j |T_cpu_j c n / M - T_net_j|, or ``"aggregate"`` argmin_n |sum_j (T_cpu_j c n / M - T_net_j)|."""
    big_m, c = inst.machines, inst.reference_dop
    cands = range(1, min(len(jobs), big_m) + 1)

    def diffs(n):
        return [inst.jobs[j].t_cpu * c * n / big_m - inst.jobs[j].t_net for j in jobs]

    if rule == "per-job":
        return min(cands, key=lambda n: (sum(abs(d) for d in diffs(n)), n))
    return min(cands, key=lambda n: (abs(sum(diffs(n))), n))


def _assign(inst, jobs, n):
    """Algorithm 2 with times at the equal DoP M / n."""
    big_m, c = inst.machines, inst.reference_dop
    cpu = {j: inst.jobs[j].t_cpu * c * n / big_m for j in jobs}
    net = {j: inst.jobs[j].t_net for j in jobs}
    itr = {j: cpu[j] + net[j] for j in jobs}
    diff = {j: cpu[j] - net[j] for j in jobs}
    left = sorted(jobs, key=lambda j: -itr[j])  # L2 (stable: ties in input order)
    rank = {j: i for i, j in enumerate(left)}
    groups = []
    for _ in range(n):  # L4-11: floor(|J| / n) jobs each
        g = []
        while len(g) < len(jobs) // n:
            s = sum(diff[x] for x in g)
            pick = next((j for j in left if diff[j] * s <= 0), left[0])  # complementary, else the largest
            left.remove(pick)
            g.append(pick)
        groups.append(g)
    for j in sorted(left, key=lambda j: (-abs(diff[j]), rank[j])):  # L12-22
        score = [abs(diff[j] + sum(diff[x] for x in g)) for g in groups]
        order = sorted(range(n), key=lambda i: (score[i], i))
        k = order[0]
        for i in order:  # L16-21: skip groups the job would make job-bound
            k = i
            g = groups[i]
            if itr[j] <= max(itr[x] for x in g):
                break
            if itr[j] < max(sum(cpu[x] for x in g) + cpu[j], sum(net[x] for x in g) + net[j]):
                break
        else:
            k = order[0]
        groups[k].append(j)
    # fine-tuning: swap one job of the most imbalanced group and one of its most complementary partner
    s = [sum(diff[x] for x in g) for g in groups]
    scale = max([1.0] + [abs(v) for v in s])
    while n >= 2:
        u = max(range(n), key=lambda i: (abs(s[i]), -i))
        v = max((i for i in range(n) if i != u), key=lambda i: (abs(s[u] - s[i]), -i))
        best = None
        for a, ja in enumerate(groups[u]):
            for b, jb in enumerate(groups[v]):
                x = diff[ja] - diff[jb]
                cost = abs(s[u] - x) + abs(s[v] + x)
                if best is None or cost < best[0]:
                    best = (cost, a, b, x)
        if not best[0] < abs(s[u]) + abs(s[v]) - 1e-12 * scale:
            break
        _, a, b, x = best
        groups[u][a], groups[v][b] = groups[v][b], groups[u][a]
        s[u] -= x
        s[v] += x
    return groups


def _allocate(inst, groups):
    """One machine each, then one at a time to the most computation-intensive group."""
    c = inst.reference_dop
    m = [1] * len(groups)

    def intensity(i):
        net = sum(inst.jobs[j].t_net for j in groups[i])
        return float("inf") if net == 0 else sum(inst.jobs[j].t_cpu * c for j in groups[i]) / (m[i] * net)

    for _ in range(inst.machines - len(groups)):
        m[max(range(len(groups)), key=lambda i: (intensity(i), -i))] += 1
    return m


def plain_first_stop(inst, rule="per-job"):
    """Algorithm 1, first-stop, L6 read by ``rule``: prefixes J[:1], J[:2], ...; stop at the first that does not improve
    sum_g m_g U(g); keep the best; then each job left out joins the group whose m_g U(g) gains most.
    Returns (groups, machines, admitted, value of each prefix tried)."""
    order = list(range(inst.num_jobs))
    best, u_max, tried = None, 0.0, []
    for k in range(1, len(order) + 1):
        jobs = order[:k]
        groups = _assign(inst, jobs, _n_groups(inst, jobs, rule))
        m = _allocate(inst, groups)
        val = sum(mm * _u(inst, g, mm) for g, mm in zip(groups, m))
        tried.append(val)
        if best is None or val > u_max * (1 + 1e-12):
            best, u_max = (groups, m, k), val
        else:
            break
    groups, m, k = best
    for j in order[k:]:
        gain = [mm * (_u(inst, g + [j], mm) - _u(inst, g, mm)) for g, mm in zip(groups, m)]
        groups[max(range(len(groups)), key=lambda i: (gain[i], -i))].append(j)
    return groups, m, k, tried


def _cluster_u(inst, groups, m):
    return sum(mm * _u(inst, g, mm) for g, mm in zip(groups, m)) / inst.machines


# ---------------------------------------------------------------------------
def test_network_heavy_split_by_hand():
    """instances/harmony/network-heavy-split.json, M = 4, c = 1, weights 2:1; jobs (T_cpu, T_net):
    cpu1 (8, 1), cpu2 (6, 1), net1 (1, 9), net2 (1, 7).

    * J[:1] = {cpu1}: L6 n_G = 1; on 4 machines T_cpu = 2, T_net = 1, T_g = 3:
      U = (2 * 2/3 + 1/3) / 3 = 5/9, m U = 20/9.
    * J[:2] = {cpu1, cpu2}: sum_j (T_cpu_j n / 4 - T_net_j) = 3.5 n - 2, smallest at n_G = 1; one group
      on 4 machines: sum cpu 3.5, sum net 2, longest job 3, T_g = 3.5: U = (2 + 2/3.5) / 3 = 6/7,
      m U = 24/7 > 20/9: improves.
      (The printed per-job sum |2n - 1| + |1.5n - 1| is 1.5 at n = 1, 5 at n = 2: n_G = 1 too.)
    * J[:3] adds net1. Printed L6 (the default): |2n - 1| + |1.5n - 1| + |0.25n - 9| is 10.25, 13.5,
      16.75 at n = 1, 2, 3: n_G = 1; one group on 4 machines: sum cpu 3.75, sum net 11, longest job
      net1 9.25, T_g = 11: U = (2 * 3.75/11 + 1) / 3 = 37/66, m U = 74/33 < 24/7: first stop; keep J[:2].
      Aggregate L6: 3.75 n - 11 is smallest at n_G = 3; at DoP 4/3, T_itr: net1 9.75, cpu1 7,
      cpu2 5.5: one job per group in that order; machines 1 each, the 4th to cpu1 (intensity 8 >
      6 > 1/9). m U: net1 on 1 (T 10) 1.1/3; cpu1 on 2 (T 5) 2 x 1.8/3; cpu2 on 1 (T 7) 13/21;
      sum 2.19 < 24/7: first stop too; keep J[:2].
    * net1, then net2 join the only group: all four on 4 machines: sum cpu 4, sum net 18, T_g = 18,
      U = (2 * 4/18 + 1) / 3 = 13/27.
    """
    inst = dmlsched.load(HARMONY_DIR / "network-heavy-split.json")
    assert 4 * (Fraction(2) * Fraction(15, 4) / 11 + 1) / 3 == Fraction(74, 33)
    third = {"per-job": 74 / 33, "aggregate": 1.1 / 3 + 2 * 1.8 / 3 + 13 / 21}
    for rule in ("per-job", "aggregate"):
        assert _n_groups(inst, [0, 1, 2], rule) == {"per-job": 1, "aggregate": 3}[rule]
        groups, m, k, tried = plain_first_stop(inst, rule)
        assert k == 2 and tried == pytest.approx([20 / 9, 24 / 7, third[rule]], rel=1e-12)
        assert sorted(map(sorted, groups)) == [[0, 1, 2, 3]] and m == [4]
        assert _cluster_u(inst, groups, m) == pytest.approx(13 / 27, rel=1e-12)
        res = dmlsched.solve(inst, "harmony", group_rule=rule)
        assert res.objective == pytest.approx(13 / 27, rel=1e-12) and res.details["admitted"] == 2
    assert (Fraction(2 * 4, 18) + 1) / 3 == Fraction(13, 27)
    assert inst.expected["objective"]["harmony"] == pytest.approx(13 / 27, abs=1e-12)
    assert dmlsched.solve(inst, "harmony").details["group_rule"] == "per-job"


@pytest.mark.parametrize("name", ["eval-sample-5j-6m.json", "network-heavy-split.json", "five-jobs.json",
                                  "two-jobs-hand.json"])
def test_recorded_values_are_the_plain_reimplementation(name):
    """Every bundled instance's recorded ``harmony`` value is the plain re-implementation's, and so is
    the library's grouping (eval-sample-5j-6m, M = 6, c = 0.96, a_j = 0.16 T_cpu_j: J[:1] =
    {LDA-PubMed-h1} alone on 6 machines: T_cpu 3.9295, T_net 4.6140, T_g 8.5436, m U = 2.920.
    J[:2] adds Lasso-Synthetic78-h2 (a 0.5916, T_net 38.966): printed L6 sum_j |a_j n - T_net_j| is
    39.06 at n = 1, 41.03 at n = 2: n_G = 1, one group on 6 machines: sum cpu 4.521, sum net 43.580 =
    T_g, m U = 6 (2 x 4.521 + 43.580) / (3 x 43.580) = 2.415, no improvement: first stop. (The
    aggregate |sum_j (a_j n - T_net_j)| is 39.06, 34.54: n_G = 2, m U 2.870, first stop too.) The four
    other jobs then join that one group: U = 0.3733, under both readings)."""
    inst = dmlsched.load(HARMONY_DIR / name)
    groups, m, k, tried = plain_first_stop(inst)
    u = _cluster_u(inst, groups, m)
    g2, m2, k2, tried2 = plain_first_stop(inst, "aggregate")
    assert (k2, sorted(map(sorted, g2)), m2) == (k, sorted(map(sorted, groups)), m)
    if name == "eval-sample-5j-6m.json":
        cpu, net = 0.16 * (24.559613 + 3.697259), 4.614032 + 38.966018
        assert k == 1 and tried == pytest.approx([2.91988198, 6 * (2 * cpu + net) / (3 * net)], rel=1e-8)
        assert tried2 == pytest.approx([2.91988198, 2.87021998]) and m == [6]
    assert inst.expected["objective"]["harmony"] == pytest.approx(u, abs=1e-11)
    # the Oracle's recorded value: its grouping's U recomputed here, between Harmony's and the optimum
    o = dmlsched.solve(inst, "oracle")
    assert inst.expected["objective"]["oracle"] == pytest.approx(
        _cluster_u(inst, [list(g) for g in o.solution.groups], list(o.solution.machines)), abs=1e-11)
    assert u - 1e-12 <= inst.expected["objective"]["oracle"] <= inst.expected["optimum"] + 1e-12
    res = dmlsched.solve(inst, "harmony")
    assert res.details["admitted"] == k
    assert sorted(map(sorted, res.solution.groups)) == sorted(map(sorted, groups))
    assert res.objective == pytest.approx(u, rel=1e-12)


@pytest.mark.parametrize("rule", [None, "aggregate"])
@settings(max_examples=150, deadline=None)
@given(harmony_instances(max_jobs=9, max_machines=12, integer_times=True))
def test_library_first_stop_is_the_plain_reimplementation(rule, inst):
    """On random instances (integer times: many exact ties) the library's default decision (printed
    L6) and its aggregate reading are the plain re-implementation's: same admitted prefix, same
    grouping, same machines, same U."""
    groups, m, k, _ = plain_first_stop(inst, rule or "per-job")
    res = dmlsched.solve(inst, "harmony", **({"group_rule": rule} if rule else {}))
    assert res.details["admitted"] == k
    assert [list(g) for g in res.solution.groups] == groups and list(res.solution.machines) == m
    assert res.objective == pytest.approx(_cluster_u(inst, groups, m), rel=1e-12)
