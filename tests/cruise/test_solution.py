"""Cruise validator (negative tests, one per constraint) and evaluator (by hand)."""

from __future__ import annotations

import math

import pytest

import dmlsched
from dmlsched import InvalidSolutionError
from dmlsched.problems.cruise.instance import CruiseInstance
from dmlsched.problems.cruise.solution import (
    CruiseConfig,
    epoch_times,
    evaluate,
    evaluate_continuous,
    from_json,
    to_json,
    validate,
)


@pytest.fixture
def inst():
    # machines 0,1 fast workers-to-be, 2,3 servers-to-be; b_ij = min(b_i, b_j)
    return CruiseInstance(proc_time=(0.5, 1.0, 2.0, 2.0), machine_bandwidth=(4.0, 2.0, 1.0, 4.0),
                          dataset_size=7, model_size=6, batch_size=2)


def good():
    return CruiseConfig(w=(1, 1, 0, 0), s=(0, 0, 1, 1), d=(4, 3, 0, 0), m=(0, 0, 2, 4))


def test_evaluator_by_hand(inst):
    c = good()
    validate(inst, c)
    # worker 0: b_02 = min(4,1) = 1, b_03 = 4; ||w|| = 2
    #   server term max(2*2/1, 4*2/4) = 4; worker term 2/1 + 4/4 = 3; T = 4; ceil(4/2) = 2
    #   C^0 = 0.5*4 + 2*4 = 10
    # worker 1: b_12 = 1, b_13 = 2: server max(4, 4) = 4; worker 2 + 2 = 4; T = 4; ceil(3/2) = 2
    #   C^1 = 1*3 + 2*4 = 11
    assert list(epoch_times(inst, c)) == [10.0, 11.0, 0.0, 0.0]
    assert evaluate(inst, c) == 11.0
    assert dmlsched.evaluate(inst, c) == 11.0
    # continuous: d_i/B batches: C^0 = 2 + 2*4 = 10, C^1 = 3 + 1.5*4 = 9
    assert math.isclose(evaluate_continuous(inst, c.w, c.d, c.m), 10.0)


def test_json_round_trip(inst):
    c = good()
    j = to_json(inst, c)
    assert j["roles"] == ["worker", "worker", "server", "server"]
    c2 = from_json(inst, j)
    assert (c2.w, c2.s, c2.d, c2.m) == (c.w, c.s, c.d, c.m)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(w=(1, 1, 1, 0)), "not disjoint"),
        (dict(s=(0, 0, 0, 1)), "not covering"),
        (dict(w=(0, 0, 0, 0), s=(1, 1, 1, 1), d=(0, 0, 0, 0), m=(1, 1, 2, 2)), "no worker"),
        (dict(w=(1, 1, 1, 1), s=(0, 0, 0, 0), d=(1, 2, 2, 2), m=(0, 0, 0, 0)), "no server"),
        (dict(w=(2, 1, 0, 0)), "must be 0 or 1"),
        (dict(d=(4, 2, 0, 0)), "sum of d is 6"),
        (dict(m=(0, 0, 2, 5)), "sum of m is 7"),
        (dict(d=(5, 3, -1, 0)), "must be >= 0"),
        (dict(d=(3, 3, 1, 0)), "is not a worker"),
        (dict(m=(1, 0, 1, 4)), "is not a server"),
        (dict(d=(3.5, 3.5, 0, 0)), "must be an integer"),
        (dict(m=(0, 0, 2)), "3 entries"),
    ],
)
def test_validator_rejects(inst, change, message):
    c = good()
    fields = dict(w=c.w, s=c.s, d=c.d, m=c.m)
    fields.update(change)
    with pytest.raises(InvalidSolutionError, match=message):
        validate(inst, CruiseConfig(**fields))


def test_zero_data_worker_counts_in_w(inst):
    # an idle worker is allowed, contributes C^i = 0, and still counts in ||w||
    c = CruiseConfig(w=(1, 1, 0, 0), s=(0, 0, 1, 1), d=(7, 0, 0, 0), m=(0, 0, 2, 4))
    validate(inst, c)
    t = epoch_times(inst, c)
    assert t[1] == 0.0
    # worker 0: T = max(2*2/1, 4*2/4) = 4 with ||w|| = 2; ceil(7/2) = 4 -> 3.5 + 16
    assert t[0] == 19.5
