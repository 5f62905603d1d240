"""Hypothesis strategies for GPU_Grouping.

Public (re-exported by :mod:`dmlsched.strategies`):

* :func:`grouping_instances` -- valid instances (speeds on a grid ``k/4``),
  small enough for brute force by default;
* :func:`grouping_dicts_mutated` -- valid instance dicts with one field
  replaced by an arbitrary JSON value or deleted (loader fuzzing).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws, json_values
from .instance import GroupingInstance, from_dict, to_dict
from .sample import random_instance

__all__ = ["grouping_instances", "grouping_dicts_mutated"]


@st.composite
def grouping_instances(draw, *, max_jobs: int = 3, max_gpus: int = 6, max_groups: int = 3,
                       speed_grid: int = 4, max_speed: int = 12, max_types: int | None = None) -> GroupingInstance:
    """Instances with ``1..max_jobs`` jobs, ``1..max_gpus`` GPUs, ``1..min(max_groups, M)`` groups,
    speeds ``k / speed_grid`` for ``k`` in ``1..max_speed``: the family's one random
    builder (:func:`dmlsched.problems.gpugrouping.sample.random_instance`) through
    :class:`~dmlsched.fuzz.HypothesisDraws`.

    With ``max_types`` the GPUs are drawn from at most that many GPU types
    (identical speed columns), so GPUs repeat; otherwise every column is drawn
    on its own (repeats happen by chance).
    """
    step = 1.0 / speed_grid
    d = random_instance(HypothesisDraws(draw), gpus=max_gpus, jobs=max_jobs, min_gpus=1, max_speed=max_speed * step,
                        step=step, max_groups=max_groups, max_types=max_types)
    return from_dict(d)


@st.composite
def grouping_dicts_mutated(draw) -> Any:
    """A valid instance dict with one field (possibly nested) replaced or removed."""
    d = to_dict(draw(grouping_instances(max_gpus=4)))
    target = draw(st.sampled_from(["speeds", "groups", "row", "cell", "extra"]))
    value = draw(json_values())
    if target == "row":
        d["speeds"][0] = value
    elif target == "cell":
        d["speeds"][0][0] = value
    elif target == "extra":
        d["unexpected"] = value
    elif draw(st.booleans()):
        d[target] = value
    else:
        del d[target]
    return d
