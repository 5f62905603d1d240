"""Hypothesis strategies for Cruise: valid instances and hostile JSON.

Public (re-exported by :mod:`dmlsched.strategies`):

* :func:`cruise_instances` -- valid :class:`~.instance.CruiseInstance` objects,
  homogeneous or not, per-machine bandwidths or an explicit matrix, sized so
  that ``exact`` (and, with small defaults, ``brute-force``) can serve as the
  reference;
* :func:`cruise_homogeneous_instances` -- identical machines (the setting of (3.5));
* :func:`cruise_json_values` -- any JSON value;
* :func:`cruise_dicts_mutated` -- valid instance dicts with one field replaced
  by an arbitrary JSON value or deleted (fuzzing reaches deep field paths).

Times and bandwidths come from small grids so shrunk counterexamples read well.

Examples
--------
>>> from hypothesis import given
>>> from dmlsched.problems.cruise.strategies import cruise_instances
>>> @given(cruise_instances(max_machines=4))
... def test_something(inst): ...
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws
from .instance import CruiseInstance, from_dict, to_dict
from .sample import random_instance

__all__ = [
    "cruise_instances",
    "cruise_typed_instances",
    "cruise_homogeneous_instances",
    "cruise_json_values",
    "cruise_dicts_mutated",
]

PROC_GRID = (0.25, 0.5, 1.0, 2.0, 4.0)
BW_GRID = (0.5, 1.0, 2.0, 4.0, 8.0)


@st.composite
def cruise_instances(
    draw,
    *,
    min_machines: int = 2,
    max_machines: int = 5,
    max_dataset: int = 12,
    max_model: int = 6,
    max_batch: int = 4,
    matrix: bool | None = None,
    homogeneous: bool | None = None,
) -> CruiseInstance:
    """Valid Cruise instances: the family's one random builder
    (:func:`dmlsched.problems.cruise.sample.random_instance`) through
    :class:`~dmlsched.fuzz.HypothesisDraws`, times and bandwidths on
    :data:`PROC_GRID` and :data:`BW_GRID`.

    Parameters
    ----------
    matrix
        ``True``: explicit bandwidth matrix; ``False``: per-machine bandwidths;
        ``None``: either.
    homogeneous
        ``True``: identical machines; ``False``/``None``: values drawn per machine
        (``False`` does not force distinct values).
    """
    return from_dict(random_instance(
        HypothesisDraws(draw), machines=max(min_machines, max_machines), min_machines=min_machines,
        dataset=max_dataset, model=max_model, batch=max_batch, proc_times=PROC_GRID, bandwidths=BW_GRID,
        matrix=matrix, homogeneous=bool(homogeneous)))


@st.composite
def cruise_typed_instances(
    draw,
    *,
    max_types: int = 3,
    max_per_type: int = 3,
    max_dataset: int = 12,
    max_model: int = 6,
    max_batch: int = 4,
    matrix: bool | None = None,
) -> CruiseInstance:
    """Clusters of a few machine types with several identical machines each (the
    setting of the ``types`` formulation): per type a ``proc_time`` and a
    bandwidth (per machine, or a type-to-type matrix expanded to machines); the
    family's one random builder with ``max_types``."""
    return from_dict(random_instance(
        HypothesisDraws(draw), dataset=max_dataset, model=max_model, batch=max_batch, proc_times=PROC_GRID,
        bandwidths=BW_GRID, matrix=matrix, max_types=max_types, max_per_type=max_per_type))


def cruise_homogeneous_instances(**kwargs: Any) -> st.SearchStrategy[CruiseInstance]:
    """Homogeneous clusters (:func:`cruise_instances` with ``homogeneous=True``)."""
    return cruise_instances(homogeneous=True, **kwargs)


def cruise_json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value (finite numbers, strings, booleans, null, arrays, objects)."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-10, 10)
        | st.floats(allow_nan=False, allow_infinity=False, width=32)
        | st.text(max_size=6)
        | st.sampled_from(["cruise", "machines", "proc_time", "bandwidth", "worker"])
    )
    return st.recursive(
        leaves,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
        max_leaves=max_leaves,
    )


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


@st.composite
def cruise_dicts_mutated(draw) -> Any:
    """A valid instance dict with one node (any depth) replaced by a JSON value or deleted."""
    inst = draw(cruise_instances(max_machines=3))
    d = to_dict(inst)
    path = draw(st.sampled_from(_paths(d)[1:]))
    parent = d
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[last]
    else:
        parent[last] = draw(cruise_json_values())
    return d
