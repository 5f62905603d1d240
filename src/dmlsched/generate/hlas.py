"""Seeded instances of the HLAS paper's simulation setup (Section VI-A, Table II)
and its GPU_Grouping instances: the code is
:mod:`dmlsched.problems.hlas.generate`; this module keeps the public path
``dmlsched.generate.hlas:<setup>`` of suites, claims and the README.

``grouping`` (random GPU_Grouping instances) is the gpu-grouping family's
(:mod:`dmlsched.problems.gpugrouping.generate`); the tables of Table II
(``JOB_TYPES``, ``DOMAINS``, ``GPU_TYPES``, ``job_times``) are in
:mod:`dmlsched.problems.hare.generate`, which Hare's setups also use.
"""

from ..problems.gpugrouping.generate import grouping  # noqa: F401  (re-exported)
from ..problems.hare.generate import DOMAINS, GPU_TYPES, JOB_TYPES, job_times  # noqa: F401  (re-exported)
from ..problems.hlas.generate import (  # noqa: F401  (re-exported)
    SIZE_READINGS,
    bounded_pareto,
    generate,
    paper_grouping,
)

__all__ = [
    "DOMAINS", "GPU_TYPES", "JOB_TYPES", "SIZE_READINGS", "bounded_pareto", "generate", "grouping",
    "job_times", "paper_grouping",
]
