"""Seeded instances of Cruise's evaluation setups: the code is
:mod:`dmlsched.problems.cruise.generate`; this module keeps the public path
``dmlsched.generate.cruise:<setup>`` of suites, claims and the README.
"""

from ..problems.cruise.generate import (  # noqa: F401  (re-exported)
    APPS,
    EPOCH_TARGET_S,
    MODEL_UNITS,
    calibrated_parameters,
    heterogeneous_cluster,
    homogeneous_cluster,
    random_homogeneous,
    random_instance,
    typed_cluster,
)

__all__ = [
    "APPS", "EPOCH_TARGET_S", "MODEL_UNITS", "calibrated_parameters", "heterogeneous_cluster",
    "homogeneous_cluster", "random_homogeneous", "random_instance", "typed_cluster",
]
