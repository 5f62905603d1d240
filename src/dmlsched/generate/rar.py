"""Seeded instances of RAR-DDLS's evaluation setup (MobiHoc'22): the code is
:mod:`dmlsched.problems.rar.generate`; this module keeps the public path
``dmlsched.generate.rar:<setup>`` of suites, claims and the README.
"""

from ..problems.rar.generate import (  # noqa: F401  (re-exported)
    CAPACITIES,
    PAPER_MIX,
    generate,
    paper_instance,
    servers_sweep,
    small,
)

__all__ = ["CAPACITIES", "PAPER_MIX", "generate", "paper_instance", "servers_sweep", "small"]
