"""Exhaustive enumeration for GPU_Grouping (tiny instances): the reference the
models are tested against.

Two enumerations, both exact:

* **set partitions** of the GPUs into exactly ``|U|`` non-empty blocks
  (restricted growth strings, one labelling per partition; Stirling number
  ``S(|M|, |U|)`` of them);
* **type compositions** (default when GPUs repeat): GPUs with identical speed
  columns are interchangeable, so a grouping is fixed, up to the value of the
  objective, by the number ``y[k][u]`` of GPUs of each type ``k`` in each group
  ``u``; groups are interchangeable too, so only count vectors in
  lexicographically non-increasing group order are enumerated.  Every set
  partition maps to such a matrix with the same objective and every matrix
  comes from a set partition (``models/gpu-grouping.md``, "Grouping by type").
"""

from __future__ import annotations

import itertools
import math
from typing import Iterator

import numpy as np

from ...errors import NotApplicable
from ...kit import Option, Run, fmt_count, method
from ...result import Result, Status
from .instance import GroupingInstance
from .solution import Grouping, evaluate


def partitions(m: int, k: int) -> Iterator[tuple[int, ...]]:
    """All partitions of ``range(m)`` into exactly ``k`` non-empty labelled-canonical groups.

    Restricted growth strings: ``a[0] = 0`` and ``a[i] <= 1 + max(a[:i])``.
    """
    a = [0] * m

    def rec(i: int, mx: int):
        if i == m:
            if mx + 1 == k:
                yield tuple(a)
            return
        if mx + 1 + (m - i) < k:  # not enough GPUs left to open the missing groups
            return
        for v in range(min(mx + 2, k)):
            a[i] = v
            yield from rec(i + 1, max(mx, v))

    if m == 0:
        return
    yield from rec(1, 0)


def stirling2(n: int, k: int) -> int:
    """Number of partitions of ``n`` items into ``k`` non-empty blocks."""
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) // math.factorial(k)


def brute_force_grouping(inst: GroupingInstance) -> tuple[Grouping, float, int]:
    """Enumerate every set partition; returns (best grouping, value, partitions tried)."""
    best, best_val, count = None, np.inf, 0
    for g in partitions(inst.num_gpus, inst.groups):
        count += 1
        v = evaluate(inst, Grouping(g))
        if v < best_val - 1e-15:
            best, best_val = g, v
    return Grouping(best), float(best_val), count


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` non-negative integers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def type_matrices(counts: tuple[int, ...], groups: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Count matrices ``y[u] = (y[u][0], ..., y[u][K-1])`` with column sums ``counts``,
    every row non-zero, rows in lexicographically non-increasing order."""
    k = len(counts)
    per_type = [list(_compositions(c, groups)) for c in counts]
    for choice in itertools.product(*per_type):
        rows = tuple(tuple(choice[t][u] for t in range(k)) for u in range(groups))
        if any(sum(r) == 0 for r in rows):
            continue
        if all(rows[u] >= rows[u + 1] for u in range(groups - 1)):
            yield rows


def count_type_matrices(counts: tuple[int, ...], groups: int) -> int:
    """Upper bound on the matrices :func:`type_matrices` visits (before the order filter)."""
    return math.prod(math.comb(c + groups - 1, groups - 1) for c in counts)


def grouping_from_counts(inst: GroupingInstance, rows: tuple[tuple[int, ...], ...]) -> Grouping:
    """A grouping with ``rows[u][k]`` GPUs of type ``k`` in group ``u`` (lowest GPUs first)."""
    types = inst.gpu_types
    group = [0] * inst.num_gpus
    nxt = [0] * types.num_types
    for u, row in enumerate(rows):
        for k, c in enumerate(row):
            for m in types.members[k][nxt[k]:nxt[k] + c]:
                group[m] = u
            nxt[k] += c
    return Grouping(tuple(group)).canonical()


def brute_force_typed(inst: GroupingInstance) -> tuple[Grouping, float, int]:
    """Enumerate type-count matrices; returns (best grouping, value, matrices evaluated)."""
    types = inst.gpu_types
    s = np.array(types.speeds, dtype=float)  # jobs x types
    best_rows, best_val, count = None, np.inf, 0
    for rows in type_matrices(types.counts, inst.groups):
        count += 1
        p = s @ np.array(rows, dtype=float).T  # jobs x groups
        v = float((p.max(axis=1) - p.min(axis=1)).max())
        if v < best_val - 1e-15:
            best_rows, best_val = rows, v
    sol = grouping_from_counts(inst, best_rows)
    return sol, float(evaluate(inst, sol)), count


@method(
    "gpu-grouping",
    "brute-force",
    kind="exact",
    options=[
        Option("space", str, "types", "what to enumerate: 'types' (counts of identical GPUs per group, "
               "type-count matrices) or 'gpus' (every set partition of the GPUs); the old "
               "typed=True/False", choices=("types", "gpus")),
        Option("max_candidates", int, 2_000_000, "refuse (n/a) when more candidates would be enumerated",
               minimum=1),
    ],
    description="Enumerates every grouping (set partitions, or type-count matrices of identical GPUs)",
)
def solve_brute(inst: GroupingInstance, run: Run) -> Result:
    """Exhaustive search; exact by construction.  Refuses, before enumerating,
    when the number of candidates exceeds ``max_candidates``."""
    types = inst.gpu_types
    typed = run.options["space"] == "types"
    count = count_type_matrices(types.counts, inst.groups) if typed else stirling2(inst.num_gpus, inst.groups)
    if count > run.options["max_candidates"]:
        raise NotApplicable(
            f"brute force would enumerate {fmt_count(count)} {'type-count matrices' if typed else 'partitions'}, "
            f"more than max_candidates = {fmt_count(run.options['max_candidates'])}")
    with run.stage("enumerate"):
        sol, val, tried = brute_force_typed(inst) if typed else brute_force_grouping(inst)
    return run.result(solution=sol, bound=val, status=Status.OPTIMAL, candidates=tried)


__all__ = ["brute_force_grouping", "brute_force_typed", "count_type_matrices", "grouping_from_counts",
           "partitions", "stirling2", "type_matrices"]
