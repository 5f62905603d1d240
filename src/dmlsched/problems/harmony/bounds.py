"""The claims of the dissertation as functions of the instance.

Harmony proves no approximation ratio.  Section 4.4.7 / Fig. 4.17 report that
its decision is "slightly worse by up to around 2%" than the Oracle in
resource utilisation, average JCT and makespan.  For :func:`dmlsched.check`
this becomes the ratio ``U_reference / U_harmony <= 1.02`` (for a maximisation
problem the ratio is reference / objective); the default reference is the
exhaustive optimum (``brute-force``), ``oracle`` is the paper's Oracle at
scale.  It is an *empirical* claim, judged at the paper's scale by
``claims.py`` (``proofs/harmony.md``); it is not a theorem and the tests record
where it fails.
"""

from __future__ import annotations

from .instance import HarmonyInstance

#: "up to around 2%" of Fig. 4.17, as a ratio reference / objective
FIG_4_17_RATIO = 1.02


def fig_4_17_ratio(inst: HarmonyInstance) -> float:
    """The claimed ratio ``U_opt / U_harmony <= 1.02`` (the same for every instance)."""
    return FIG_4_17_RATIO


def utilisation_upper_bound(inst: HarmonyInstance) -> float:
    """A proven upper bound on ``U`` of every grouping: ``U <= 1``.

    Proof: ``T_g >= sum T_cpu`` and ``T_g >= sum T_net`` give ``U_cpu, U_net <= 1``
    and the weights are normalised; unallocated machines only lower ``U``.
    """
    return 1.0
