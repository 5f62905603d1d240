"""Hostile JSON for the loaders' fuzz tests (hypothesis strategies shared by
every family's ``strategies.py``).

A loader must answer each JSON value with an instance or an
:class:`~dmlsched.errors.InstanceError` naming the field; the families'
``*_dicts_mutated`` strategies put :func:`json_values` into valid instance
dicts.  Requires ``hypothesis`` (``pip install 'dmlsched[strategies]'``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["json_values"]


def json_values(*, max_leaves: int = 30) -> st.SearchStrategy[Any]:
    """Any JSON value: null, booleans, numbers (huge, tiny, negative), strings,
    arrays and objects, nested."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
        st.sampled_from(["hare", "V100", "K80", "problem", "jobs", "gpus", ""]),
    )
    keys = st.one_of(
        st.text(max_size=6),
        st.sampled_from(
            ["problem", "gpus", "jobs", "id", "arrival", "weight", "rounds",
             "tasks_per_round", "train_time", "sync_time", "name", "expected", "V100"]
        ),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)
        ),
        max_leaves=max_leaves,
    )
