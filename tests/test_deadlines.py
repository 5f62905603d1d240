"""``time_limit`` is a deadline for the whole method, simulations included
(issue 24: ``hlas fifo --time-limit 5`` on 2 million tasks ran 13 s).

An online policy's event loop checks no clock; the kit's watchdog stops it
shortly after its deadline.  The tests use simulations that cannot end (an
endless loop), so the outcome does not depend on the machine's speed."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

import dmlsched
from dmlsched.kit import Deadline, DeadlineReached, Run, _watchdog, method
from dmlsched.registry import _METHODS, load_families

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def endless_policy():
    """A policy of the Hare family whose simulation never ends (registered for the test only)."""
    load_families()
    calls = []

    @method("hare", "endless-policy", kind="policy", description="test only: an event loop without end")
    def endless(inst, run: Run):
        calls.append(1)
        n = 0
        while True:  # an event loop that checks no clock
            n += 1

    yield calls
    _METHODS.pop(("hare", "endless-policy"), None)


def test_a_policy_past_its_deadline_is_stopped(endless_policy):
    inst = dmlsched.load(ROOT / "instances/hare/tiny.json")
    res = dmlsched.solve(inst, "endless-policy", time_limit=0.05)
    assert endless_policy == [1]
    assert res.status.value == "time_limit" and res.solution is None
    assert res.reproducible is False and "the simulation" in res.details["deadline_cut"][0]
    # the alarm is gone afterwards: nothing fires later in the process
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)


def test_a_policy_without_a_limit_is_not_watched():
    inst = dmlsched.load(ROOT / "instances/hlas/fig12.json")
    assert dmlsched.solve(inst, "fifo").status.value == "feasible"
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_watchdog_is_not_nested_and_disarms():
    with pytest.raises(DeadlineReached):
        with _watchdog(Deadline(0.01)):
            with _watchdog(Deadline(1e6)):  # an inner method keeps the outer alarm
                while True:
                    pass
    with _watchdog(Deadline(1e6)):
        pass
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
