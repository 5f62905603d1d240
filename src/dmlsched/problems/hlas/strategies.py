"""Hypothesis strategies for HLAS instances.

Public (re-exported by :mod:`dmlsched.strategies`):

* :func:`hlas_instances` -- small valid online instances (times on a grid
  ``k/2``, arrivals on a grid, optional predictions, queues, groups or an
  explicit grouping);
* :func:`hlas_dicts_mutated` -- valid instance dicts with one field (possibly
  nested) replaced by an arbitrary JSON value or deleted (loader fuzzing).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ...fuzz import HypothesisDraws, json_values
from .instance import HlasInstance, from_dict, to_dict
from .sample import TYPES, random_instance

__all__ = ["hlas_instances", "hlas_dicts_mutated"]


@st.composite
def hlas_instances(draw, *, max_jobs: int = 4, max_gpus: int = 4, max_rounds: int = 4,
                   max_tasks_per_round: int = 4, types: tuple[str, ...] = TYPES,
                   grouping: bool = True) -> HlasInstance:
    """Small valid HLAS instances: the family's one random builder
    (:func:`dmlsched.problems.hlas.sample.random_instance`) through
    :class:`~dmlsched.fuzz.HypothesisDraws` (arrivals in ``[0, 4]``, train times in
    ``[1/2, 4]``, sync times in ``[0, 1]``, on the grid 1/2; optional predictions; 1..4
    queues; with ``grouping`` a number of groups or an explicit grouping, or neither)."""
    return from_dict(random_instance(HypothesisDraws(draw), jobs=max_jobs, gpus=max_gpus, rounds=max_rounds,
                                     tasks_per_round=max_tasks_per_round, types=types, grouping=grouping))


@st.composite
def hlas_dicts_mutated(draw) -> Any:
    """A valid instance dict with one field (possibly nested) replaced or removed."""
    d = to_dict(draw(hlas_instances(max_jobs=2, max_gpus=3)))
    value = draw(json_values())
    target = draw(st.sampled_from(["top", "job", "train", "queue", "queue_cell", "grouping"]))
    delete = draw(st.booleans())
    if target == "top":
        key = draw(st.sampled_from(["gpus", "jobs", "queues", "groups", "grouping", "name", "bogus"]))
        if delete and key in d:
            del d[key]
        else:
            d[key] = value
    elif target == "job":
        key = draw(st.sampled_from(["id", "arrival", "rounds", "tasks_per_round", "weight",
                                    "predicted_rounds", "train_time", "sync_time", "bogus"]))
        if delete and key in d["jobs"][0]:
            del d["jobs"][0][key]
        else:
            d["jobs"][0][key] = value
    elif target == "train":
        g = next(iter(d["jobs"][0]["train_time"]))
        d["jobs"][0]["train_time"][g] = value
    elif target == "queue":
        d["queues"][0] = value
    elif target == "queue_cell":
        d["queues"][-1][draw(st.integers(0, 1))] = value
    else:
        d["grouping"] = [[0], value] if delete else value
    return d
