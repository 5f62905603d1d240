"""The brute forces over set partitions and GPU-type matrices (bruteforce.py)."""

from __future__ import annotations

import math

import pytest

import dmlsched
from dmlsched import Status
from dmlsched.generate.hlas import grouping as random_grouping
from dmlsched.problems.gpugrouping import GroupingInstance
from dmlsched.problems.gpugrouping.bruteforce import grouping_from_counts, partitions, stirling2, type_matrices


def _stirling2(n: int, k: int) -> int:
    return round(sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) / math.factorial(k))


@pytest.mark.parametrize("m,k", [(1, 1), (4, 2), (5, 3), (6, 6), (7, 3)])
def test_partitions_enumerates_each_set_partition_once(m, k):
    parts = list(partitions(m, k))
    assert len(parts) == len(set(parts)) == _stirling2(m, k) == stirling2(m, k)
    assert all(len(set(p)) == k for p in parts)


def test_type_matrices_enumerate_each_multiset_partition_once():
    """Partitions of a multiset of GPU types into u non-empty groups: the set partitions of
    the GPUs, identified up to exchanging identical GPUs, are exactly the type matrices."""
    counts = (3, 2, 1)
    of = [0, 0, 0, 1, 1, 2]
    seen = set()
    for p in partitions(len(of), 3):
        rows = [[0, 0, 0] for _ in range(3)]
        for gpu, u in enumerate(p):
            rows[u][of[gpu]] += 1
        seen.add(tuple(sorted((tuple(r) for r in rows), reverse=True)))
    mats = list(type_matrices(counts, 3))
    assert len(mats) == len(set(mats)) == len(seen) and set(mats) == seen


def test_grouping_from_counts_realises_the_counts():
    inst = GroupingInstance(speeds=((1.0, 2.0, 1.0, 2.0, 1.0),), groups=2)
    assert inst.gpu_types.members == ((0, 2, 4), (1, 3))
    g = grouping_from_counts(inst, ((2, 1), (1, 1)))
    rows = [[0, 0], [0, 0]]
    for gpu, u in enumerate(g.group):
        rows[u][inst.gpu_types.type_of[gpu]] += 1
    assert sorted(map(tuple, rows), reverse=True) == [(2, 1), (1, 1)]


def test_brute_force_refuses_before_enumerating():
    inst = random_grouping(num_jobs=2, num_gpus=14, num_groups=5, seed=0)
    res = dmlsched.solve(inst, "brute-force", typed=False)
    assert res.status == Status.NOT_APPLICABLE and "partitions" in res.details["error"]
    assert "x 10^" in res.details["error"] or "," in res.details["error"]
