"""Claimed bounds quoted by the paper, as functions of the instance."""

from __future__ import annotations

from .instance import MoldableInstance


def edmonds_ratio(inst: MoldableInstance) -> float:
    """2: the competitive ratio of Equipartition for total (average) flow time
    that the paper attributes to Edmonds [9] (Section VII-A).

    The paper quotes it without Edmonds' assumptions (continuously divisible
    processors, preemption at no cost, speed augmentation for arbitrary
    arrivals); ``proofs/equipartition.md`` states them and records instances
    of this family on which the ratio exceeds 2.
    """
    return 2.0
