"""Hostile JSON for the loaders' fuzz tests (hypothesis strategies shared by
every family's ``strategies.py``).

A loader must answer each JSON value with an instance or an
:class:`~dmlsched.errors.InstanceError` naming the field; the families'
``*_dicts_mutated`` strategies put :func:`json_values` into valid instance
dicts.  Requires ``hypothesis`` (``pip install 'dmlsched[strategies]'``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from hypothesis import strategies as st

__all__ = ["HypothesisDraws", "json_values"]


class HypothesisDraws:
    """:class:`dmlsched.draws.Draws` from a hypothesis ``draw`` (inside ``@st.composite``),
    so a family's strategies build their examples with the family's one random builder
    (``sample.random_instance(HypothesisDraws(draw), ...)``) and keep shrinking: an
    integer or grid point shrinks towards ``lo``, a choice towards the first element,
    a coin towards ``False``.

    Parameters
    ----------
    draw
        The ``draw`` function hypothesis hands an ``@st.composite`` strategy.
    """

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, hi)))

    def choice(self, seq: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(seq))

    def grid(self, lo: float, hi: float, step: float = 0.25) -> float:
        k = self.draw(st.integers(int(round(lo / step)), int(round(hi / step))))
        return round(k * step, 6)

    def uniform(self, lo: float, hi: float) -> float:
        return float(self.draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False)))

    def coin(self, p: float = 0.5) -> bool:
        if p <= 0.0 or p >= 1.0:
            return p >= 1.0
        return bool(self.draw(st.booleans()))


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
