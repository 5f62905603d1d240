"""Seeded instances of the moldable paper's setups (synthetic, SWF and Alibaba openb traces): the code is
:mod:`dmlsched.problems.moldable.generate`; this module keeps the public path
``dmlsched.generate.moldable:<setup>`` of suites, claims and the README.
"""

from ..problems.moldable.generate import (  # noqa: F401  (re-exported)
    ILLUSTRATIVE_CURVE,
    LUBLIN,
    batch,
    gpu_workload,
    offered_load,
    openb,
    paper_like,
    swf,
)

__all__ = [
    "ILLUSTRATIVE_CURVE", "LUBLIN", "batch", "gpu_workload", "offered_load", "openb", "paper_like",
    "swf",
]
