"""Hypothesis strategies for Harmony instances (re-exported by :mod:`dmlsched.strategies`)."""

from __future__ import annotations

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws
from .instance import HarmonyInstance, from_dict
from .sample import random_instance

__all__ = ["harmony_instances", "harmony_instance_dicts"]


@st.composite
def harmony_instance_dicts(
    draw,
    *,
    min_jobs: int = 1,
    max_jobs: int = 5,
    max_machines: int = 6,
    iterations: bool | None = None,
    integer_times: bool = False,
) -> dict:
    """JSON dicts of valid Harmony instances: the family's one random builder
    (:func:`dmlsched.problems.harmony.sample.random_instance`) through
    :class:`~dmlsched.fuzz.HypothesisDraws`.

    Parameters
    ----------
    min_jobs, max_jobs, max_machines
        Size ranges (machines from 1).
    iterations
        ``True``: every job has iterations; ``False``: none; ``None``: either.
    integer_times
        Draw integer times 1..20 (exact arithmetic, ties are frequent) instead
        of floats in [0.1, 50] (``t_net`` is 0 half of the time in both cases).
    """
    times = {"step": 1.0, "min_time": 1.0, "max_time": 20.0} if integer_times else \
        {"step": None, "min_time": 0.1, "max_time": 50.0}
    return random_instance(HypothesisDraws(draw), jobs=max(min_jobs, max_jobs), min_jobs=min_jobs,
                           machines=max_machines, iterations=50, zero_net=True, dops=(1, 2, 4, 8, 16),
                           with_iterations=iterations, random_weights=True, **times)


@st.composite
def harmony_instances(draw, **kwargs) -> HarmonyInstance:
    """Valid :class:`HarmonyInstance` objects (keyword arguments as
    :func:`harmony_instance_dicts`)."""
    return from_dict(draw(harmony_instance_dicts(**kwargs)))




def _json_values(max_leaves: int = 10):
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=6),
        st.sampled_from(["harmony", "cpu", "net", "jobs", "t_cpu", ""]),
    )
    keys = st.one_of(st.text(max_size=6), st.sampled_from(["id", "t_cpu", "t_net", "iterations", "cpu", "net"]))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=max_leaves,
    )


def _paths(d, prefix=()):
    yield prefix
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from _paths(v, prefix + (i,))


@st.composite
def harmony_dicts_mutated(draw, **kwargs) -> dict:
    """A valid Harmony instance dict with one field replaced by any JSON value,
    removed, or joined by an unknown sibling field (for loader fuzz tests)."""
    d = draw(harmony_instance_dicts(**kwargs))
    paths = [p for p in _paths(d) if p]
    path = draw(st.sampled_from(paths))
    parent = d
    for key in path[:-1]:
        parent = parent[key]
    action = draw(st.sampled_from(["replace", "remove", "add"]))
    if action == "replace":
        parent[path[-1]] = draw(_json_values())
    elif action == "remove":
        if isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    elif isinstance(parent, dict):
        parent[draw(st.text(min_size=1, max_size=5))] = draw(_json_values(4))
    else:
        parent.append(draw(_json_values(4)))
    return d


__all__.append("harmony_dicts_mutated")
