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

from ...fuzz import json_values
from .instance import GroupingInstance, to_dict

__all__ = ["grouping_instances", "grouping_dicts_mutated"]


@st.composite
def grouping_instances(draw, *, max_jobs: int = 3, max_gpus: int = 6, max_groups: int = 3,
                       speed_grid: int = 4, max_speed: int = 12, max_types: int | None = None) -> GroupingInstance:
    """Instances with ``1..max_jobs`` jobs, ``1..max_gpus`` GPUs, ``1..min(max_groups, M)`` groups.

    With ``max_types`` the GPUs are drawn from at most that many GPU types
    (identical speed columns), so GPUs repeat; otherwise every column is drawn
    on its own (repeats happen by chance).
    """
    m = draw(st.integers(1, max_gpus))
    n = draw(st.integers(1, max_jobs))
    u = draw(st.integers(1, min(max_groups, m)))
    if max_types is None:
        speeds = tuple(
            tuple(draw(st.integers(1, max_speed)) / speed_grid for _ in range(m)) for _ in range(n)
        )
    else:
        k = draw(st.integers(1, max_types))
        cols = [tuple(draw(st.integers(1, max_speed)) / speed_grid for _ in range(n)) for _ in range(k)]
        of = [draw(st.integers(0, k - 1)) for _ in range(m)]
        speeds = tuple(tuple(cols[of[g]][j] for g in range(m)) for j in range(n))
    return GroupingInstance(speeds=speeds, groups=u)


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
