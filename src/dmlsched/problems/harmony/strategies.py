"""Hypothesis strategies for Harmony instances (re-exported by :mod:`dmlsched.strategies`)."""

from __future__ import annotations

from hypothesis import strategies as st

from .instance import HarmonyInstance, from_dict

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
    """JSON dicts of valid Harmony instances.

    Parameters
    ----------
    min_jobs, max_jobs, max_machines
        Size ranges (machines from 1).
    iterations
        ``True``: every job has iterations; ``False``: none; ``None``: either.
    integer_times
        Draw integer times 1..20 (exact arithmetic, ties are frequent) instead
        of floats in [0.1, 50] (``t_net`` may be 0 in both cases).
    """
    n = draw(st.integers(min_jobs, max_jobs))
    machines = draw(st.integers(1, max_machines))
    dop = draw(st.sampled_from([1, 2, 4, 8, 16]))
    with_it = draw(st.booleans()) if iterations is None else iterations
    if integer_times:
        cpu = st.integers(1, 20)
        net = st.integers(0, 20)
    else:
        cpu = st.floats(0.1, 50, allow_nan=False, allow_infinity=False)
        net = st.one_of(st.just(0.0), st.floats(0.1, 50, allow_nan=False, allow_infinity=False))
    jobs = []
    for j in range(n):
        jd = {"id": f"j{j}", "t_cpu": draw(cpu), "t_net": draw(net)}
        if with_it:
            jd["iterations"] = draw(st.integers(1, 50))
        jobs.append(jd)
    d = {"problem": "harmony", "machines": machines, "reference_dop": dop, "jobs": jobs}
    if draw(st.booleans()):
        d["weights"] = {"cpu": draw(st.sampled_from([1, 2, 3])), "net": draw(st.sampled_from([0, 1]))}
    return d


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
