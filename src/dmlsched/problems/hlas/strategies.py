"""Hypothesis strategies for HLAS instances.

Public (re-exported by :mod:`dmlsched.strategies`):

* :func:`hlas_instances` -- small valid online instances (times on a grid
  ``k/2``, arrivals on a grid, optional predictions, queues, groups or an
  explicit grouping);
* :func:`hlas_dicts_mutated` -- valid instance dicts with one field (possibly
  nested) replaced by an arbitrary JSON value or deleted (loader fuzzing).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ...fuzz import json_values
from .instance import HlasInstance, HlasJob, to_dict

__all__ = ["hlas_instances", "hlas_dicts_mutated"]


@st.composite
def hlas_instances(draw, *, max_jobs: int = 4, max_gpus: int = 4, max_rounds: int = 4,
                   max_tasks_per_round: int = 4, types: tuple[str, ...] = ("V100", "T4", "K80"),
                   grouping: bool = True) -> HlasInstance:
    """Small valid HLAS instances."""
    m = draw(st.integers(1, max_gpus))
    gpus = tuple(draw(st.sampled_from(types)) for _ in range(m))
    used = tuple(dict.fromkeys(gpus))
    jobs = []
    for i in range(draw(st.integers(1, max_jobs))):
        rounds = draw(st.integers(1, max_rounds))
        jobs.append(HlasJob(
            id=f"J{i}",
            arrival=draw(st.integers(0, 8)) / 2,
            rounds=rounds,
            tasks_per_round=draw(st.integers(1, max_tasks_per_round)),
            train_time={g: draw(st.integers(1, 8)) / 2 for g in used},
            sync_time={g: draw(st.integers(0, 2)) / 2 for g in used},
            weight=draw(st.integers(1, 3)) * 1.0,
            predicted_rounds=draw(st.one_of(st.none(), st.integers(0, max_rounds + 1))),
        ))
    k = draw(st.integers(1, 4))
    cuts = sorted(set(draw(st.lists(st.integers(1, 20), min_size=k - 1, max_size=k - 1))))
    lows = [0.0] + [c / 2 for c in cuts]
    queues = tuple((lows[i], lows[i + 1] if i + 1 < len(lows) else math.inf) for i in range(len(lows)))
    groups = None
    explicit = None
    mode = draw(st.sampled_from(["none", "count", "explicit"])) if grouping else "none"
    if mode == "count":
        groups = draw(st.integers(1, m))
    elif mode == "explicit":
        labels = [draw(st.integers(0, m - 1)) for _ in range(m)]
        order = list(dict.fromkeys(labels))
        explicit = tuple(tuple(g for g in range(m) if labels[g] == lab) for lab in order)
    return HlasInstance(gpus=gpus, jobs=tuple(jobs), queues=queues, groups=groups, grouping=explicit)


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
