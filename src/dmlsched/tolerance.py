"""The one floating-point tolerance used by validators and cross-checks.

``TOL = 1e-6``, applied relatively to the magnitude of the compared values with
a floor of 1: ``leq(a, b)`` is ``a <= b + TOL * max(1, |a|, |b|)``.
"""

from __future__ import annotations

TOL = 1e-6


def slack(a: float, b: float, tol: float = TOL) -> float:
    return tol * max(1.0, abs(a), abs(b))


def leq(a: float, b: float, tol: float = TOL) -> bool:
    """``a <= b`` up to the tolerance."""
    return a <= b + slack(a, b, tol)


def geq(a: float, b: float, tol: float = TOL) -> bool:
    """``a >= b`` up to the tolerance."""
    return a >= b - slack(a, b, tol)


def close(a: float, b: float, tol: float = TOL) -> bool:
    """``a == b`` up to the tolerance."""
    return abs(a - b) <= slack(a, b, tol)
