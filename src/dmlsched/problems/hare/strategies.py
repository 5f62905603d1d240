"""Hypothesis strategies for Hare_Sched: valid instances and hostile JSON.

Public (re-exported by :mod:`dmlsched.strategies`):

* :func:`hare_instances` -- valid :class:`~.instance.HareInstance` objects with
  arrivals, weights and heterogeneous training and synchronisation times,
  sized for property tests of approximation ratios (small enough for an exact
  reference);
* :func:`json_values` -- any JSON value (the loader must answer each with an
  instance or an :class:`~dmlsched.errors.InstanceError`; defined in
  :mod:`dmlsched.fuzz`, re-exported here);
* :func:`hare_dicts_mutated` -- valid instance dicts with one field replaced by
  an arbitrary JSON value or deleted, so fuzzing reaches deep field paths.

Times are drawn on grids (multiples of ``1/time_denominator``, training times
scaled by a factor on the grid 0.25) so that shrunk counterexamples read well
and exact references are numerically tame; the instances come from the
family's one random builder (``sample.random_instance``), drawn through
:class:`~dmlsched.fuzz.HypothesisDraws`.

Examples
--------
>>> from hypothesis import given
>>> from dmlsched.problems.hare.strategies import hare_instances
>>> @given(hare_instances(max_jobs=2, max_gpus=2))
... def test_something(inst): ...
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws, json_values
from .instance import HareInstance, from_dict, to_dict
from .sample import random_instance

__all__ = ["hare_instances", "hare_dicts_mutated", "json_values", "hare_times"]

DEFAULT_TYPES = ("V100", "T4", "K80")


def hare_times(
    *, low: float, high: float, denominator: int = 2, allow_zero: bool = False
) -> st.SearchStrategy[float]:
    """Times on the grid ``k / denominator`` in ``[low, high]`` (and 0 if allowed)."""
    a = max(1, int(round(low * denominator)))
    b = max(a, int(round(high * denominator)))
    s = st.integers(a, b).map(lambda k: k / denominator)
    return st.one_of(st.just(0.0), s) if allow_zero else s


@st.composite
def hare_instances(
    draw,
    *,
    min_jobs: int = 1,
    max_jobs: int = 3,
    min_gpus: int = 1,
    max_gpus: int = 3,
    max_rounds: int = 2,
    max_tasks_per_round: int = 2,
    gpu_types: Sequence[str] = DEFAULT_TYPES,
    max_tasks: int | None = None,
    train_range: tuple[float, float] = (0.5, 6.0),
    alpha: float = 2.0,
    max_sync: float = 2.0,
    max_arrival: float = 4.0,
    weight_range: tuple[float, float] = (0.5, 4.0),
    arrivals: bool = True,
    weights: bool = True,
    sync: bool = True,
    homogeneous: bool = False,
    time_denominator: int = 2,
) -> HareInstance:
    """Valid Hare instances, built by the family's one random builder
    (:func:`dmlsched.problems.hare.sample.random_instance`) through
    :class:`~dmlsched.fuzz.HypothesisDraws`.

    Parameters
    ----------
    min_jobs, max_jobs, min_gpus, max_gpus
        Numbers of jobs and GPUs.
    max_rounds, max_tasks_per_round
        Per job, ``rounds`` in ``1..max_rounds`` and ``tasks_per_round`` in
        ``1..max_tasks_per_round``.
    gpu_types
        Pool of type names; each GPU draws one (so a cluster may use a subset).
    max_tasks
        Cap on the total number of tasks (a job that would exceed it has one round
        of one task; the jobs stop at the cap).
    train_range, alpha
        A job's base ``train_time`` on the grid in ``train_range``, times a factor
        on the grid 0.25 in ``[1, alpha]`` per GPU type.
    max_sync
        ``sync_time`` is 0 or on the grid in ``(0, max_sync]``, drawn per GPU type.
    max_arrival, weight_range
        Arrival times in ``[0, max_arrival]`` (0 or on the grid), weights on the grid
        in ``weight_range``.
    arrivals, weights, sync
        ``False`` fixes arrivals to 0, weights to 1, synchronisation to 0.
    homogeneous
        One GPU type only (then ``alpha == 1``).
    time_denominator
        The grid of base, synchronisation, arrival and weight values is
        ``1 / time_denominator``.
    """
    types = list(dict.fromkeys(gpu_types)) or list(DEFAULT_TYPES)
    step = 1.0 / time_denominator
    lo, hi = int(round(weight_range[0] * time_denominator)), int(round(weight_range[1] * time_denominator))
    d = random_instance(
        HypothesisDraws(draw), jobs=max(min_jobs, max_jobs), min_jobs=min_jobs, gpus=max(min_gpus, max_gpus),
        min_gpus=min_gpus, types=1 if homogeneous else len(types), type_names=types, rounds=max_rounds,
        tasks_per_round=max_tasks_per_round, tasks=max_tasks, alpha=alpha,
        train=(max(step, train_range[0]), max(step, train_range[1])), step=step,
        max_sync=max_sync if sync else 0.0, sync_per_type=True, max_arrival=max_arrival if arrivals else 0.0,
        weights=tuple(k / time_denominator for k in range(max(1, lo), max(1, lo, hi) + 1)) if weights else (1.0,),
    )
    return from_dict(dict(d, name="hypothesis"))


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, prefix + (i,)))
    return out


@st.composite
def hare_dicts_mutated(draw, **instance_kwargs) -> dict:
    """A valid Hare instance dict with one field replaced by any JSON value or removed."""
    inst = draw(hare_instances(**instance_kwargs))
    d = copy.deepcopy(to_dict(inst))
    paths = [p for p in _paths(d) if p]
    path = draw(st.sampled_from(paths))
    parent = d
    for key in path[:-1]:
        parent = parent[key]
    if draw(st.booleans()):
        parent[path[-1]] = draw(json_values(max_leaves=8))
    elif isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent.pop(path[-1])
    return d
