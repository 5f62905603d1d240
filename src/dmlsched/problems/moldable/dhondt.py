"""The D'Hondt (Jefferson) highest-averages apportionment method.

Used by Equipartition (Fujiwara et al., Section IV-A, case 3) to distribute the
remaining vacant GPUs ("seats") among tasks ("candidates") with ``p_k^max``
votes each.
"""

from __future__ import annotations

import heapq
from typing import Sequence


def dhondt(
    votes: Sequence[float],
    seats: int,
    caps: Sequence[int] | None = None,
) -> list[int]:
    """Apportion ``seats`` among candidates by the D'Hondt method.

    Seats are awarded one at a time to the candidate with the highest quotient
    ``votes[i] / (s_i + 1)``, where ``s_i`` is the number of seats it already
    holds.

    Ties (equal quotients) are broken deterministically: the candidate with
    more votes wins; among equal votes, the candidate listed first (lowest
    index) wins.  Candidates with zero votes get no seat (seats then stay
    unassigned if nobody else can take them).

    Parameters
    ----------
    votes
        Non-negative vote counts, one per candidate.
    seats
        Number of seats to distribute (>= 0).
    caps
        Optional maximum number of seats per candidate; a capped candidate
        drops out of the competition (seats may then remain unassigned when
        ``sum(caps) < seats``).

    Returns
    -------
    list of int
        Seats per candidate, in the order of ``votes``.

    Examples
    --------
    The textbook example (8 seats; parties with 100000, 80000, 30000, 20000
    votes) gives 4, 3, 1, 0 seats:

    >>> dhondt([100000, 80000, 30000, 20000], 8)
    [4, 3, 1, 0]
    """
    if seats < 0:
        raise ValueError(f"seats must be >= 0, got {seats}")
    n = len(votes)
    for v in votes:
        if not v >= 0:
            raise ValueError(f"votes must be >= 0, got {v}")
    if caps is not None and len(caps) != n:
        raise ValueError("caps must have one entry per candidate")
    got = [0] * n
    if n and seats and len(set(votes)) == 1 and votes[0] > 0:
        # equal votes: all quotients tie at every round, so seats go round-robin
        # in index order; valid while no cap binds
        q, r = divmod(seats, n)
        need = q + (1 if r else 0)
        if caps is None or min(caps) >= need:
            return [q + (1 if i < r else 0) for i in range(n)]
    # max-heap keyed on (quotient, votes, -index); quotient compared exactly as
    # fractions votes/(s+1) via cross-multiplication would be slower, floats of
    # equal exact values are equal here since votes and divisors are exact.
    heap = [(-float(v), -float(v), i) for i, v in enumerate(votes) if v > 0 and (caps is None or caps[i] > 0)]
    heapq.heapify(heap)
    left = seats
    while left > 0 and heap:
        _, negv, i = heapq.heappop(heap)
        got[i] += 1
        left -= 1
        if caps is None or got[i] < caps[i]:
            heapq.heappush(heap, (negv / (got[i] + 1), negv, i))
    return got
