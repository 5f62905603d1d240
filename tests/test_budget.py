"""The run budget (docs/architecture.rst, "Methods, runs and budgets"): wall deadline,
deterministic work, sharing and cuts.

Times are read from a patched monotonic clock, never from the machine's, so no
test depends on the load."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import dmlsched
from dmlsched import budget as budget_mod
from dmlsched import interrupt
from dmlsched.budget import Budget, Deadline
from dmlsched.kit import Run


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(budget_mod, "time", SimpleNamespace(monotonic=c))  # the budget module's clock only
    return c


def test_deadline_is_the_former_name_and_expired_is_stop(clock):
    assert Deadline is Budget
    d = Deadline(10.0)
    assert (d.limit, d.start, d.at) == (10.0, 1000.0, 1010.0)
    assert d.remaining() == 10.0 and not d.expired() and not d.stop() and not d()
    clock.t = 1010.0
    assert d.remaining() == 0.0 and d.expired() and d.stop() and d()
    assert Budget.expired is Budget.stop
    none = Budget()
    assert none.remaining() is None and none.work_left() is None and not none.stop()
    assert Budget(5.0, start=990.0).remaining() == 0.0  # counted from the given start


def test_work_is_spent_here_and_in_every_ancestor(clock):
    root = Budget(work=10.0)
    assert root.work_left() == 10.0 and not root.stop()
    child = root.share(0.5)
    assert child.work == 5.0 and child.remaining() is None
    grandchild = child.share(1.0, work=2.0)
    grandchild.spend(2.0)
    assert grandchild.stop() and not child.stop() and not root.stop()
    assert (grandchild.spent, child.spent, root.spent) == (2.0, 2.0, 2.0)
    child.spend(3.0)
    assert child.stop() and child.work_left() == 0.0 and root.work_left() == 5.0
    root.spend(5.0)
    assert root.stop()
    assert Budget(3.0).share(0.5).work is None  # no work limit above: none below
    with pytest.raises(ValueError, match="work"):
        Budget(work=-1.0)
    with pytest.raises(ValueError, match="work"):
        Budget(work=float("nan"))


def test_share_takes_a_fraction_of_what_is_left_from_now(clock):
    b = Budget(10.0)
    clock.t += 4.0
    half = b.share(0.5)
    assert half.limit == pytest.approx(3.0) and half.start == clock.t and half.at == pytest.approx(clock.t + 3.0)
    assert Budget().share(0.5).limit is None
    clock.t += 3.0
    assert half.stop() and not b.stop()


def test_less_keeps_a_reserve_and_may_start_spent(clock):
    b = Budget(10.0, work=4.0)
    clock.t += 2.0
    r = b.less(3.0)
    assert r.limit == pytest.approx(5.0) and r.work == 4.0 and not r.stop()
    past = b.less(20.0)  # a reserve beyond what is left: a deadline already passed (rar's ILP bound)
    assert past.limit == pytest.approx(-12.0) and past.stop() and past.remaining() == 0.0
    assert Budget().less(3.0).limit is None


def test_cuts_go_up_to_the_run_that_owns_the_budget(clock):
    cuts: list[str] = []
    root = Budget(10.0, on_cut=cuts.append)
    root.share(0.5).less(1.0).cut("the inner search")
    root.cut("the master")
    assert cuts == ["the inner search", "the master"]
    Budget(1.0).cut("nobody listens")  # a root without on_cut drops it

    run = Run.standalone("hare", time_limit=10)
    assert run.budget is run.deadline and run.budget.limit == 10
    run.budget.share(0.5).cut("a shared part")
    assert run.details["deadline_cut"] == ["a shared part"] and run.details["reproducible"] is False


def test_a_stop_request_ends_every_budget_made_before_it(clock):
    b, w = Budget(1e9), Budget(work=5.0)
    assert not b.stop() and not w.stop()
    interrupt.request()
    assert b.stop() and w.stop() and b.remaining() == 0.0 and b.interrupted()
    assert not Budget().stop() and not Budget(1.0).share(0.5).interrupted()  # made after the request


def test_a_method_run_carries_its_budget(tiny_hare_dict):
    inst = dmlsched.from_dict(tiny_hare_dict)
    res = dmlsched.solve(inst, "list", time_limit=3600)  # wall-clock: list has one (default 120); work ends it
    assert res.reproducible  # the budget's cut hook is the run's, unused when nothing is cut
