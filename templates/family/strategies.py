"""Hypothesis strategies for the template family.

Public (a family in ``dmlsched.problems`` is re-exported by
:mod:`dmlsched.strategies`, from ``__all__``):

* :func:`template_instances` -- valid instances, small enough for brute force
  by default (times and weights on the grid ``k / time_denominator`` so that
  shrunk counterexamples read well);
* :func:`template_dicts_mutated` -- valid instance dicts with one field
  (possibly nested) replaced by any JSON value or removed (loader fuzzing:
  ``from_dict`` must answer with an instance or an ``InstanceError``).

The pattern to copy: ``<family>_instances(*, min_jobs, max_jobs, ...)`` with
keyword-only size arguments spelled as in the other families, and
``<family>_dicts_mutated``.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from .instance import Job, TemplateInstance, to_dict

__all__ = ["template_instances", "template_dicts_mutated"]


@st.composite
def template_instances(draw, *, min_jobs: int = 1, max_jobs: int = 5, max_time: int = 10,
                       max_weight: int = 4, time_denominator: int = 2) -> TemplateInstance:
    """Instances with ``min_jobs..max_jobs`` jobs, processing times in
    ``(0, max_time]`` and weights in ``(0, max_weight]`` on the grid ``k / time_denominator``."""
    n = draw(st.integers(min_jobs, max_jobs))
    grid = time_denominator
    jobs = tuple(
        Job(id=f"j{k}", processing=draw(st.integers(1, max_time * grid)) / grid,
            weight=draw(st.integers(1, max_weight * grid)) / grid)
        for k in range(n)
    )
    return TemplateInstance(jobs=jobs)


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
def template_dicts_mutated(draw, **instance_kwargs: Any) -> dict:
    """A valid instance dict with one field replaced by any JSON value or removed."""
    from dmlsched.problems.hare.strategies import json_values

    d = copy.deepcopy(to_dict(draw(template_instances(**instance_kwargs))))
    path = draw(st.sampled_from([p for p in _paths(d) if p]))
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
