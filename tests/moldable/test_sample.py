"""The moldable family's one random builder (``sample.random_instance``): its shape arguments.

The hunt's stream at the defaults is pinned in ``tests/test_draws.py``; here the shapes the
strategies use, drawn with seeded :class:`~dmlsched.draws.RngDraws`.
"""

from __future__ import annotations

import numpy as np
import pytest

from dmlsched.draws import RngDraws
from dmlsched.problems.moldable.instance import from_dict
from dmlsched.problems.moldable.sample import GRID_CURVES, random_curve, random_instance


def _draws(seed: int) -> RngDraws:
    return RngDraws(np.random.default_rng(seed))


def test_grid_instances_have_integral_runtimes():
    """``grid=True``: integer arrivals, a GRID_CURVES curve, p_min >= 1/2, and every runtime on an
    admissible amount an integer (what the time-indexed MIP needs to be exact)."""
    seen_pmax2 = False
    for seed in range(200):
        inst = from_dict(random_instance(_draws(seed), tasks=3, gpus=2, max_volume=8, grid=True))
        assert inst.speedup.points in GRID_CURVES
        for k, t in enumerate(inst.tasks):
            assert t.arrival == int(t.arrival) and t.pmin_den in (1, 2) and t.p_max <= 2
            seen_pmax2 |= t.p_max == 2
            for p in inst.allowed_amounts(k):
                r = inst.runtime(k, p)
                assert r == pytest.approx(round(r), abs=1e-9), (seed, k, p, r)
    assert seen_pmax2


def test_the_shape_arguments_add_their_fields():
    kw = {"gpu_memory": 10.0, "max_memory": 10, "p_req": True, "curve": "random", "arrival_step": None,
          "volume_step": None, "preemption_overheads": (1.0, 5.0), "preemption_min_remainings": (2.0, 300.0)}
    has_req = fractional = False
    for seed in range(100):
        d = random_instance(_draws(seed), max_arrival=50.0, **kw)
        inst = from_dict(d)
        assert all("memory" in t and 0 <= t["memory"] <= 10 for t in d["tasks"])
        has_req |= any(t.p_req is not None for t in inst.tasks)
        fractional |= any(p < 1 for p, _ in inst.speedup.points)
        assert inst.preemption_overhead in (1.0, 5.0) and inst.preemption_min_remaining in (2.0, 300.0)
    assert has_req and fractional


def test_the_defaults_add_no_field():
    """At the hunt's defaults no task has memory or p_req, and the curve is p ** 0.8."""
    for seed in range(50):
        d = random_instance(_draws(seed))
        assert not any({"memory", "p_req"} & set(t) for t in d["tasks"])
        assert d["speedup"][-1] == [float(d["gpus"]), round(d["gpus"] ** 0.8, 6)]


@pytest.mark.parametrize("max_p", [1, 3, 8])
def test_random_curves_are_valid_sublinear_curves(max_p):
    for seed in range(100):
        pts = random_curve(_draws(seed), max_p=max_p)
        assert [1.0, 1.0] in pts and max(p for p, _ in pts) <= max_p
        d = random_instance(_draws(0), gpus=1)
        d["speedup"] = pts
        from_dict(d)  # SpeedupCurve checks non-decreasing and sublinear


def test_an_unknown_curve_is_refused():
    with pytest.raises(ValueError, match="curve"):
        random_instance(_draws(0), curve="cubic")
