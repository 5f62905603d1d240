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


def time_tolerance(max_duration: float, max_time: float, tol: float = TOL) -> float:
    """Absolute tolerance for comparing time stamps of one schedule.

    ``tol * max(1, max_duration)`` — relative to the *durations* of the
    instance, not to the absolute time, so that an overlap of a few seconds at
    ``t = 1e7`` is not forgiven — floored at 64 units in the last place of the
    largest time stamp, which covers the rounding of sums of durations.
    """
    import numpy as np  # noqa: PLC0415 - import dmlsched stays free of numpy (L0)

    return max(tol * max(1.0, abs(float(max_duration))), 64.0 * float(np.spacing(abs(float(max_time)))))
