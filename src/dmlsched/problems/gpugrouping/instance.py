"""GPU_Grouping instances (HLAS paper, Section IV-C, eqs. (4)-(6)).

``speeds[n][m]`` is the training speed ``s_{n,m}`` of job ``n`` on GPU ``m``
(the paper: ``s_{n,m} ∝ 1 / (T^c_{n,m} + T^s_{n,m})``); ``groups`` is the
number of groups ``|U|``.  Every group must receive at least one GPU (an empty
group has speed 0 and is no group at all), so ``1 <= groups <= #GPUs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, integer, number
from ...io import Reader


@dataclass(frozen=True)
class GpuTypes:
    """The GPUs of an instance grouped by identical speed column.

    Attributes
    ----------
    type_of
        Type index of every GPU.
    members
        GPU indices of every type (increasing).
    speeds
        ``speeds[n][k]``: speed of job ``n`` on a GPU of type ``k``.
    """

    type_of: tuple[int, ...]
    members: tuple[tuple[int, ...], ...]
    speeds: tuple[tuple[float, ...], ...]

    @property
    def counts(self) -> tuple[int, ...]:
        """Number of GPUs of each type."""
        return tuple(len(g) for g in self.members)

    @property
    def num_types(self) -> int:
        return len(self.members)


@dataclass(frozen=True, eq=False)
class GroupingInstance:
    """Speeds (jobs x GPUs) and the number of groups."""

    speeds: tuple[tuple[float, ...], ...]
    groups: int
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.speeds or not self.speeds[0]:
            raise InstanceError("speeds", "must have at least one job and one GPU")
        m = len(self.speeds[0])
        for n, row in enumerate(self.speeds):
            if len(row) != m:
                raise InstanceError(f"speeds[{n}]", f"must have {m} entries (one per GPU), got {len(row)}")
            for k, v in enumerate(row):
                if not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0):
                    raise InstanceError(f"speeds[{n}][{k}]", f"must be a finite number > 0, got {v!r}")
        if not 1 <= self.groups <= m:
            raise InstanceError("groups", f"must be between 1 and the number of GPUs ({m}), got {self.groups}")

    @property
    def num_jobs(self) -> int:
        return len(self.speeds)

    @property
    def num_gpus(self) -> int:
        return len(self.speeds[0])

    @cached_property
    def s(self) -> np.ndarray:
        """``s[n, m]`` as an array."""
        return np.array(self.speeds, dtype=float)

    @cached_property
    def gpu_types(self) -> "GpuTypes":
        """GPUs with identical speed columns (identical for every job) as one type each.

        Types are numbered in order of their first GPU; see :class:`GpuTypes`.
        """
        cols: dict[tuple[float, ...], int] = {}
        of = []
        for m in range(self.num_gpus):
            col = tuple(row[m] for row in self.speeds)
            of.append(cols.setdefault(col, len(cols)))
        members: list[list[int]] = [[] for _ in cols]
        for m, k in enumerate(of):
            members[k].append(m)
        return GpuTypes(type_of=tuple(of), members=tuple(tuple(g) for g in members),
                        speeds=tuple(zip(*cols)) if cols else ())

    def deduplicated(self) -> "GroupingInstance":
        """The same instance with identical job rows merged (the objective is unchanged)."""
        rows = tuple(dict.fromkeys(self.speeds))
        if len(rows) == len(self.speeds):
            return self
        return GroupingInstance(speeds=rows, groups=self.groups, name=self.name)


def speeds_from_times(train: np.ndarray, sync: np.ndarray) -> np.ndarray:
    """``s_{n,m} = 1 / (T^c_{n,m} + T^s_{n,m})`` (proportionality constant 1)."""
    return 1.0 / (np.asarray(train, dtype=float) + np.asarray(sync, dtype=float))


def from_hlas(inst: Any, groups: int | None = None) -> GroupingInstance:
    """The grouping instance of an HLAS (or Hare) instance.

    One speed row per job, ``1 / (T^c + T^s)`` on each GPU; identical rows
    (jobs of the same type) are merged, which leaves the objective unchanged.
    ``groups`` defaults to the HLAS instance's ``groups``.
    """
    tc = np.array([[j.train_time[g] for g in inst.gpus] for j in inst.jobs], dtype=float)
    ts = np.array([[j.sync_time[g] for g in inst.gpus] for j in inst.jobs], dtype=float)
    s = speeds_from_times(tc, ts)
    rows = tuple(dict.fromkeys(tuple(float(x) for x in row) for row in s))
    u = groups if groups is not None else getattr(inst, "groups", None)
    if u is None:
        raise ValueError("number of groups required")
    return GroupingInstance(speeds=rows, groups=int(u), name=f"{getattr(inst, 'name', '')}-grouping".lstrip("-"))


def from_dict(data: Any) -> GroupingInstance:
    """Parse and validate a ``"problem": "gpu-grouping"`` instance."""
    r = Reader(data)
    r.check_keys(("speeds", "groups"), common=True)
    rows = []
    width = None
    for rr in r.items("speeds", min_len=1):
        row = tuple(c.as_number(gt=0) for c in rr.items(min_len=1))
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise rr.error(f"must have {width} entries (one per GPU), got {len(row)}")
        rows.append(row)
    groups = r.integer("groups", ge=1)
    if groups > width:
        raise r.error(f"must be <= the number of GPUs ({width}), got {groups}", "groups")
    expected = r["expected"].obj() if r.has("expected") else {}
    name = r.string("name", "", nonempty=False)
    return GroupingInstance(speeds=tuple(rows), groups=groups, name=name, expected=dict(expected))


def to_dict(inst: GroupingInstance) -> dict:
    d: dict[str, Any] = {"problem": "gpu-grouping"}
    if inst.name:
        d["name"] = inst.name
    d["speeds"] = [list(r) for r in inst.speeds]
    d["groups"] = inst.groups
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: GroupingInstance) -> dict:
    return {"jobs": inst.num_jobs, "gpus": inst.num_gpus, "groups": inst.groups}


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "gpu-grouping"`` instance files (``Family.schema``)."""
    return family_schema(
        "gpu-grouping", "GPU_Grouping instance (non-clairvoyant Hare, IEEE TCC 2024, (4)-(6))",
        {"speeds": array(array(number("training speed s_{n,m}", gt=0), "a job's speed on each GPU", min_items=1),
                         "one row per job", min_items=1),
         "groups": integer("number of groups |U|", ge=1)},
        ("speeds", "groups"),
        "GPUs split into groups; objective: the largest spread of a job's speed over the groups (minimised).",
        ("every row has one entry per GPU", "groups <= number of GPUs"))
