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
    # Candidates of equal votes form a class; inside a class the quotients tie round after
    # round, so round j of a class (its members holding j seats, quotient votes / (j + 1))
    # gives one seat to each member still below its cap, in index order.  A heap of classes
    # keyed on (quotient, votes) hands out whole rounds: the exact seat-by-seat order, whose
    # ties go to more votes and then to the lower index, in O(rounds log classes).
    classes: dict[float, list[int]] = {}
    for i, v in enumerate(votes):
        if v > 0 and (caps is None or caps[i] > 0):
            classes.setdefault(float(v), []).append(i)
    heap = [(-v, -v, v) for v in classes]  # (-(v / (j + 1)), -v, v) of each class's next round j = 0
    heapq.heapify(heap)
    rnd = dict.fromkeys(classes, 0)  # next round of every class
    left = seats
    while left > 0 and heap:
        _, negv, v = heapq.heappop(heap)
        j = rnd[v]
        members = classes[v]  # those below their cap, in index order
        if len(members) >= left:  # the last seats: the first members of this round
            for i in members[:left]:
                got[i] += 1
            break
        for i in members:
            got[i] += 1
        left -= len(members)
        rnd[v] = j + 1
        if caps is not None:
            members = classes[v] = [i for i in members if caps[i] > j + 1]
        if members:
            heapq.heappush(heap, (negv / (j + 2), negv, v))
    return got
