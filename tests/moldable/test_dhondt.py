"""D'Hondt apportionment: textbook example, tie-breaking, caps, and the
defining property (a divisor exists that separates winners from losers)."""

from __future__ import annotations

import heapq
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlsched.problems import moldable
from dmlsched.problems.moldable import dhondt


def test_exported_from_family():
    assert moldable.dhondt is dhondt


def test_textbook_example():
    # the standard example (e.g. Wikipedia "D'Hondt method"): 230,000 voters, 8 seats,
    # parties A-D with 100,000 / 80,000 / 30,000 / 20,000 votes -> 4 / 3 / 1 / 0 seats
    assert dhondt([100_000, 80_000, 30_000, 20_000], 8) == [4, 3, 1, 0]


def test_second_textbook_example():
    # 7 seats, votes 340,000 / 280,000 / 160,000 / 60,000 / 15,000 -> 3 / 3 / 1 / 0 / 0
    assert dhondt([340_000, 280_000, 160_000, 60_000, 15_000], 7) == [3, 3, 1, 0, 0]


def test_ties_go_to_more_votes_then_lower_index():
    # quotients 6/1 == 3/... : [6, 3]: seat 1 -> A (6), seat 2: A 6/2=3 vs B 3/1=3 tie -> A (more votes)
    assert dhondt([6, 3], 2) == [2, 0]
    # equal votes: round-robin in index order
    assert dhondt([4, 4, 4], 4) == [2, 1, 1]
    assert dhondt([4, 4, 4], 0) == [0, 0, 0]


def test_caps_and_zero_votes():
    assert dhondt([10, 1], 5, caps=[2, 10]) == [2, 3]
    assert dhondt([10, 0], 3) == [3, 0]
    assert dhondt([0, 0], 3) == [0, 0]
    assert dhondt([4, 4], 10, caps=[3, 3]) == [3, 3]  # seats left unassigned
    with pytest.raises(ValueError):
        dhondt([1, -1], 2)
    with pytest.raises(ValueError):
        dhondt([1], -1)


def _divisor_property(votes, seats, got):
    """D'Hondt's defining property: with exact quotients,
    max over candidates of v_i / (s_i + 1)  <=  min over seated candidates of v_j / s_j."""
    assert sum(got) == seats
    nxt = max(Fraction(v, s + 1) for v, s in zip(votes, got))
    last = min((Fraction(v, s) for v, s in zip(votes, got) if s > 0), default=None)
    if last is not None:
        assert nxt <= last


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 50), min_size=1, max_size=8), st.integers(0, 40))
def test_defining_property(votes, seats):
    got = dhondt(votes, seats)
    _divisor_property(votes, seats, got)
    # ties are broken deterministically: same input, same output, independent of call history
    assert dhondt(list(votes), seats) == got


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 20), min_size=1, max_size=6), st.integers(0, 30))
def test_house_monotone_and_proportional(votes, seats):
    a, b = dhondt(votes, seats), dhondt(votes, seats + 1)
    assert all(y >= x for x, y in zip(a, b))  # one more seat never takes a seat away
    total = sum(votes)
    for v, s in zip(votes, a):  # lower quota: s_i >= floor(seats * v_i / V)
        assert s >= (seats * v) // total


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 20), st.integers(0, 6)), min_size=1, max_size=6),
    st.integers(0, 30),
)
def test_caps_respected_and_sequential(pairs, seats):
    votes = [v for v, _ in pairs]
    caps = [c for _, c in pairs]
    got = dhondt(votes, seats, caps=caps)
    assert all(g <= c for g, c in zip(got, caps))
    assert sum(got) == min(seats, sum(caps))
    # among candidates still below their cap, the divisor property holds
    open_ = [i for i in range(len(votes)) if got[i] < caps[i]]
    if open_:
        nxt = max(Fraction(votes[i], got[i] + 1) for i in open_)
        seated = [Fraction(v, s) for v, s in zip(votes, got) if s > 0]
        if seated:
            assert nxt <= min(seated)


def _seat_by_seat(votes, seats, caps=None):
    """The seat-by-seat D'Hondt the library used before issue 23 (a max-heap of candidates
    keyed on (quotient, votes, -index)): the reference for the class-based algorithm."""
    got = [0] * len(votes)
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


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3, 4, 6, 8, 12, 256]), st.integers(0, 9)), min_size=1, max_size=30),
       st.integers(0, 120), st.booleans())
def test_classes_of_equal_votes_give_the_seat_by_seat_result(cands, seats, capped):
    """Property: the round-by-class algorithm equals seat-by-seat D'Hondt, ties included
    (few distinct votes, so classes are large and quotients of different classes tie)."""
    votes = [v for v, _ in cands]
    caps = [c for _, c in cands] if capped else None
    assert dhondt(votes, seats, caps=caps) == _seat_by_seat(votes, seats, caps)


def test_classes_scale_with_rounds_not_seats():
    """Equipartition's case 3 on a large cluster: 3 classes of p_max, caps p_max - 1."""
    votes = [4] * 500 + [16] * 300 + [256] * 200
    caps = [v - 1 for v in votes]
    assert dhondt(votes, 5000, caps=caps) == _seat_by_seat(votes, 5000, caps)
