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

Times are drawn from a grid (multiples of ``1/time_denominator``) so that
shrunk counterexamples read well and exact references are numerically tame.

Examples
--------
>>> from hypothesis import given
>>> from dmlsched.problems.hare.strategies import hare_instances
>>> @given(hare_instances(max_jobs=2, max_gpus=2))
... def test_something(inst): ...
"""

from __future__ import annotations

from typing import Any, Sequence

from hypothesis import strategies as st

from ...fuzz import json_values
from .instance import HareInstance, HareJob, to_dict

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
    sync_range: tuple[float, float] = (0.0, 2.0),
    max_arrival: float = 4.0,
    weight_range: tuple[float, float] = (0.5, 4.0),
    arrivals: bool = True,
    weights: bool = True,
    sync: bool = True,
    homogeneous: bool = False,
    time_denominator: int = 2,
) -> HareInstance:
    """Valid Hare instances.

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
        Cap on the total number of tasks (jobs are trimmed to respect it).
    train_range, sync_range
        Ranges of ``train_time`` (> 0) and ``sync_time`` (>= 0, zero allowed).
    max_arrival, weight_range
        Arrival times in ``[0, max_arrival]``, weights in ``weight_range``.
    arrivals, weights, sync
        ``False`` fixes arrivals to 0, weights to 1, synchronisation to 0.
    homogeneous
        One GPU type only (then ``alpha == 1``).
    time_denominator
        Times are multiples of ``1 / time_denominator``.
    """
    types = list(dict.fromkeys(gpu_types)) or list(DEFAULT_TYPES)
    if homogeneous:
        types = types[:1]
    M = draw(st.integers(min_gpus, max(min_gpus, max_gpus)))
    gpus = tuple(draw(st.lists(st.sampled_from(types), min_size=M, max_size=M)))
    used = list(dict.fromkeys(gpus))
    J = draw(st.integers(min_jobs, max(min_jobs, max_jobs)))
    budget = max_tasks if max_tasks is not None else None
    jobs = []
    for n in range(J):
        R = draw(st.integers(1, max_rounds))
        K = draw(st.integers(1, max_tasks_per_round))
        if budget is not None:
            remaining = budget - sum(j.num_tasks for j in jobs)
            if remaining < 1:
                break
            K = min(K, remaining)
            R = max(1, min(R, remaining // K))
        tt = hare_times(low=train_range[0], high=train_range[1], denominator=time_denominator)
        stt = hare_times(low=sync_range[0], high=sync_range[1], denominator=time_denominator, allow_zero=True)
        train = {g: draw(tt) for g in used}
        syn = {g: (draw(stt) if sync else 0.0) for g in used}
        arr = (draw(hare_times(low=0.0, high=max_arrival, denominator=time_denominator, allow_zero=True))
               if arrivals else 0.0)
        w = (draw(hare_times(low=weight_range[0], high=weight_range[1], denominator=time_denominator))
             if weights else 1.0)
        jobs.append(HareJob(f"J{n}", float(arr), float(w), R, K, train, syn))
    return HareInstance(gpus=gpus, jobs=tuple(jobs), name="hypothesis")


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
    import copy

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
