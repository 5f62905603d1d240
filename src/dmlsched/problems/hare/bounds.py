"""The bound Hare proves: Theorem 4, Algorithm 1 is an alpha(2 + alpha)-approximation.

``alpha = max over tasks i of max(T^c_max_i / T^c_min_i, T^s_max_i / T^s_min_i)``
where max/min range over the GPUs of the cluster (the paper's Lemma 3).
A synchronisation ratio 0/0 counts as 1; x/0 with x > 0 makes alpha infinite.
See ``proofs/hare-theorem-4.md`` for the statement, the proof as checked, and
what the tests found.
"""

from __future__ import annotations

import math

import numpy as np

from .instance import HareInstance


def alpha(inst: HareInstance) -> float:
    """Heterogeneity ratio alpha of Lemma 3 (over the GPUs present in the cluster)."""
    tc, ts = inst.tc_type, inst.ts_type  # over the GPU types present (same max/min as over GPUs)
    a = float(np.max(tc.max(axis=1) / tc.min(axis=1)))
    for row in ts:
        lo, hi = float(row.min()), float(row.max())
        if hi == 0.0:
            continue
        a = max(a, math.inf if lo == 0.0 else hi / lo)
    return a


def theorem4_ratio(inst: HareInstance) -> float:
    """The claimed approximation ratio ``alpha * (2 + alpha)`` of Algorithm 1."""
    a = alpha(inst)
    return a * (2.0 + a)


def mended_ratio(inst: HareInstance) -> float:
    """The ratio proven for Algorithm 1 with the Queyranne relaxation.

    ``(3 alpha + 2 - 2/M) * max(1, alpha/2)`` with ``M`` GPUs (3 on one GPU of
    one type; ``5 - 2/M`` for identical GPUs).  Proof: ``proofs/hare-theorem-4.md``,
    section "A proven bound": the mended Lemma 2 (Queyranne inequalities on
    prefixes, relaxed assignment), Lemma 3 for every GPU at once (by induction
    over the list), averaging over the GPUs, and the final scaling step.
    Holds for both readings of line 12 (``placement``).  Requires the
    relaxation solved to optimality (its value at most OPT).
    """
    a = alpha(inst)
    return (3.0 * a + 2.0 - 2.0 / inst.num_gpus) * max(1.0, a / 2.0)
