"""exact never claims optimality it cannot prove on badly scaled instances (D ~ 1e9)."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.problems.cruise import solution as S
from dmlsched.problems.cruise.instance import CruiseInstance


@pytest.mark.slow
def test_false_infeasibility_is_not_trusted():
    inst = CruiseInstance((0.001, 0.001, 0.001, 0.002), 1000000007, 1000003, 7,
                          machine_bandwidth=(25.0, 10.0, 100.0, 100.0))
    res = dmlsched.solve(inst, "exact")
    # a valid configuration: one worker holding all data, three servers
    cfg = S.CruiseConfig.from_roles(["server", "server", "worker", "server"],
                                    [0, 0, 1000000007, 0], [0, 0, 0, 1000003])
    S.validate(inst, cfg)
    value = S.evaluate(inst, cfg)
    assert res.lower_bound <= value * (1 + 1e-9)
    if res.objective > value * (1 + 1e-6):
        assert res.status == dmlsched.Status.FEASIBLE  # not "optimal" with a worse value


def test_lower_bound_is_the_solvers_proven_bound():
    inst = CruiseInstance((0.001, 0.002, 0.003), 10**9, 1000003, 7, machine_bandwidth=(10.0, 100.0, 100.0))
    res = dmlsched.solve(inst, "exact")
    cfg = S.CruiseConfig.from_roles(["server", "worker", "server"], [0, 10**9, 0], [0, 0, 1000003])
    assert res.lower_bound <= S.evaluate(inst, cfg) * (1 + 1e-12)
