"""Hypothesis strategies generating moldable instances (public; re-exported by
:mod:`dmlsched.strategies`): the family's one random builder
(:func:`dmlsched.problems.moldable.sample.random_instance`) through
:class:`~dmlsched.fuzz.HypothesisDraws`."""

from __future__ import annotations

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws
from .instance import MoldableInstance, SpeedupCurve, from_dict
from .sample import random_curve, random_instance

__all__ = ["moldable_instances", "moldable_speedup_curves"]


@st.composite
def moldable_speedup_curves(draw, *, max_p: int = 8) -> SpeedupCurve:
    """Random non-decreasing sublinear curves with ``s(1) = 1``
    (:func:`~dmlsched.problems.moldable.sample.random_curve`).

    Built from per-step ratios: going from ``p`` to ``p' > p`` the speed is
    multiplied by a factor in ``[1, p'/p]``.
    """
    return SpeedupCurve(tuple((p, s) for p, s in random_curve(HypothesisDraws(draw), max_p=max_p)))


@st.composite
def moldable_instances(
    draw,
    *,
    max_gpus: int = 4,
    max_tasks: int = 8,
    max_volume: float = 1000.0,
    grid: bool = False,
    with_memory: bool = True,
) -> MoldableInstance:
    """Small random instances: ``1..max_gpus`` GPUs of memory 10, ``1..max_tasks`` tasks of
    users ``u0..u2``, each with an integer memory need in ``0..10`` (``with_memory``).

    Without ``grid``: a random sublinear curve up to ``G``, float arrivals in ``[0, 50]`` and
    volumes in ``[1, max_volume]``, ``p_min`` in ``{1, 1/2, 1/3, 1/4}``, ``p_max`` in ``1..G``,
    an optional ``p_req``, preemption overheads in ``{0, 1, 5}`` and minimum remaining
    times in ``{0, 2, 300}``.  With ``grid`` arrivals are integers in ``[0, 4]``, volumes
    even integers and the curve is one of
    :data:`~dmlsched.problems.moldable.sample.GRID_CURVES` with ``p_min >= 1/2``, so every
    runtime on an admissible amount is an integer (the exact MIP is then exact); no
    preemption cost.
    """
    shape = {"max_arrival": 4.0} if grid else {
        "max_arrival": 50.0, "arrival_step": None, "min_volume": 1.0, "volume_step": None, "curve": "random",
        "p_req": True, "preemption_overheads": (0.0, 0.0, 1.0, 5.0), "preemption_min_remainings": (0.0, 2.0, 300.0)}
    d = random_instance(HypothesisDraws(draw), tasks=max_tasks, gpus=max_gpus, users=3, max_volume=max_volume,
                        grid=grid, gpu_memory=10.0, max_memory=10 if with_memory else None, **shape)
    d["name"] = "hypothesis"
    return from_dict(d)
