"""Template family instances: one machine, jobs with processing times and weights.

An instance of ``1 || sum_j w_j C_j`` (one machine, no preemption, all jobs
available at time 0): job ``j`` takes ``processing`` time units and has
``weight`` w_j.  The pattern to copy: a frozen dataclass that checks itself in
``__post_init__`` (so an instance built in Python is as safe as one read from a
file), and ``from_dict`` / ``to_dict`` / ``size``, the three functions
:func:`dmlsched.registry.register_family` takes from this module.
``from_dict`` reads through :class:`dmlsched.io.Reader`, so every bad field
raises an :class:`~dmlsched.errors.InstanceError` naming its path, e.g.
``jobs[1].weight: must be > 0, got -1``.  ``schema`` is the JSON Schema of the
family's files (``Family.schema``, what ``dmlsched schema template`` prints),
built from :mod:`dmlsched.formats`' blocks; ``tests/test_formats.py`` checks it
against ``from_dict`` on the bundled instances and their mutations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dmlsched.errors import InstanceError
from dmlsched.formats import array, family_schema, number, obj, string
from dmlsched.io import Reader

#: the family's registry name and the ``"problem"`` field of its files (rename here)
PROBLEM = "template"


@dataclass(frozen=True)
class Job:
    """One job: an id, its processing time ``p_j > 0`` and its weight ``w_j > 0``."""

    id: str
    processing: float
    weight: float


@dataclass(frozen=True, eq=False)
class TemplateInstance:
    """Jobs of a single machine; ``expected`` holds recorded values (one schema, see
    ``tests/test_conformance.py``)."""

    jobs: tuple[Job, ...]
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.jobs:
            raise InstanceError("jobs", "must have at least one job")
        seen: set[str] = set()
        for j, job in enumerate(self.jobs):
            if job.id in seen:
                raise InstanceError(f"jobs[{j}].id", f"duplicate id {job.id!r}")
            seen.add(job.id)
            for what in ("processing", "weight"):
                v = getattr(job, what)
                if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                    raise InstanceError(f"jobs[{j}].{what}", f"must be a finite number > 0, got {v!r}")

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @property
    def p(self) -> tuple[float, ...]:
        """Processing times in job order."""
        return tuple(job.processing for job in self.jobs)

    @property
    def w(self) -> tuple[float, ...]:
        """Weights in job order."""
        return tuple(job.weight for job in self.jobs)


def from_dict(data: Any) -> TemplateInstance:
    """Parse and validate a ``"problem": "template"`` instance (errors name the field)."""
    r = Reader(data)
    r.check_keys(("jobs",), common=True)  # unknown fields are errors: a typo never becomes a default
    jobs = []
    for rj in r.items("jobs", min_len=1):
        rj.check_keys(("id", "processing", "weight"))
        jobs.append(Job(id=rj.string("id"), processing=rj.number("processing", gt=0),
                        weight=rj.number("weight", gt=0)))
    expected = r["expected"].obj() if r.has("expected") else {}
    return TemplateInstance(jobs=tuple(jobs), name=r.string("name", "", nonempty=False), expected=dict(expected))


def to_dict(inst: TemplateInstance) -> dict:
    """The JSON form of ``inst`` (``from_dict(to_dict(inst))`` gives it back)."""
    d: dict[str, Any] = {"problem": PROBLEM}
    if inst.name:
        d["name"] = inst.name
    d["jobs"] = [{"id": j.id, "processing": j.processing, "weight": j.weight} for j in inst.jobs]
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: TemplateInstance) -> dict:
    """Size measures recorded by the benchmarks."""
    return {"jobs": inst.num_jobs}


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "template"`` instance files."""
    job = obj({"id": string("job id, unique"),
               "processing": number("processing time p_j", gt=0),
               "weight": number("weight w_j of the job's completion time", gt=0)},
              ("id", "processing", "weight"), "one job")
    return family_schema(
        PROBLEM, "Template instance (1 || sum_j w_j C_j)",
        {"jobs": array(job, "the jobs, processed one at a time from time 0", min_items=1)},
        ("jobs",),
        "One machine and weighted jobs; objective: total weighted completion time.",
        ("job ids are unique",))
