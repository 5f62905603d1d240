"""Hypothesis strategies for the template family.

Public (a family in ``dmlsched.problems`` is re-exported by
:mod:`dmlsched.strategies`, from ``__all__``):

* :func:`template_instances` -- valid instances, small enough for brute force
  by default (times and weights on the grid ``k / time_denominator`` so that
  shrunk counterexamples read well);
* :func:`template_dicts_mutated` -- valid instance dicts with one field
  (the jobs, a job, or a field of a job) replaced by any JSON value, removed,
  or an unknown field added (loader fuzzing with :func:`dmlsched.fuzz.json_values`:
  ``from_dict`` must answer with an instance or an ``InstanceError``).

The pattern to copy: ``<family>_instances(*, min_jobs, max_jobs, ...)`` with
keyword-only size arguments spelled as in the other families, and
``<family>_dicts_mutated``.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from dmlsched.fuzz import json_values

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


@st.composite
def template_dicts_mutated(draw, **instance_kwargs: Any) -> dict:
    """A valid instance dict with one field (possibly nested) replaced by any JSON value or removed."""
    d = copy.deepcopy(to_dict(draw(template_instances(**instance_kwargs))))
    target = draw(st.sampled_from(["jobs", "job", "id", "processing", "weight", "extra"]))
    value = draw(json_values(max_leaves=8))
    if target == "extra":
        d["unexpected"] = value  # an unknown field
    elif target == "job":
        d["jobs"][0] = value  # a whole job
    else:  # the job list, or a field of the first job: replaced or missing
        where = d if target == "jobs" else d["jobs"][0]
        if draw(st.booleans()):
            where[target] = value
        else:
            del where[target]
    return d
