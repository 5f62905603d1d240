"""Seeded instances of Hare's evaluation setup (HPDC'22, Sections 7.1 and 7.3): the code is
:mod:`dmlsched.problems.hare.generate`; this module keeps the public path
``dmlsched.generate.hare:<setup>`` of suites, claims and the README.
"""

from ..problems.hare.generate import (  # noqa: F401  (re-exported)
    DOMAINS,
    GPU_TYPES,
    HETEROGENEITY,
    JOB_TYPES,
    SIMULATION_LOAD,
    TESTBED,
    cluster,
    generate,
    job_times,
    simulation,
    simulation_rate,
    testbed,
)

__all__ = [
    "DOMAINS", "GPU_TYPES", "HETEROGENEITY", "JOB_TYPES", "SIMULATION_LOAD", "TESTBED", "cluster",
    "generate", "job_times", "simulation", "simulation_rate", "testbed",
]
