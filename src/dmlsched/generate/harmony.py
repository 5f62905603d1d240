"""Seeded instances of Harmony's evaluation workloads: the code is
:mod:`dmlsched.problems.harmony.generate`; this module keeps the public path
``dmlsched.generate.harmony:<setup>`` of suites, claims and the README.
"""

from ..problems.harmony.generate import (  # noqa: F401  (re-exported)
    CPU_S_PER_GB,
    DATASETS,
    NET_S_PER_GB,
    REFERENCE_DOP,
    SETTINGS,
    evaluation_workload,
    sample_workload,
)

__all__ = [
    "CPU_S_PER_GB", "DATASETS", "NET_S_PER_GB", "REFERENCE_DOP", "SETTINGS", "evaluation_workload",
    "sample_workload",
]
