"""Objectives scaled before solving: the numbers a MIP or LP solver sees are of
order one, whatever units the instance is written in.

A MIP solver's tolerances are absolute: HiGHS accepts rows violated by up to
``1e-6`` (``mip_feasibility_tolerance``) and prunes every node whose bound is
within ``1e-6`` of the incumbent, so on an instance written in days (times of
``1e-5``) it calls a schedule 10% above the optimum "optimal".  Every Pyomo
model of the library is therefore built on a *normalised* copy of its
instance:

* quantities of one kind (times, weights, speeds) are multiplied by a power of
  two (:func:`pow2`), which is exact in binary floating point: the copy is the
  same problem in other units, its optimal solutions are the original's, and
  its objective is the original's times a known power of two;
* release times are shifted by a common :func:`exact_shift` (a number just
  below the earliest release whose subtraction is exact), so that times of
  order ``1e-3`` after releases of order ``1e5`` are not lost in the
  releases' last digits;
* the solver then works on an objective without the releases' offset
  (weighted flow times instead of completion times), so that its relative gap
  is a gap of the quantity the user reads (an average JCT, a flow time).

A method converts the solver's bound back with the same exact factors, and
sets :attr:`dmlsched.kit.Run.objective_floor` to :data:`SOLVER_RESOLUTION` in
the original units: far below any objective a user can write relative to the
instance's own numbers, and what lets an optimum of exactly 0 be proven.
"""

from __future__ import annotations

import math
from typing import Iterable

#: what the solver resolves in the normalised units (its absolute tolerances are about
#: 1e-6 there; the kit's relative rule decides, this only covers an optimum of 0)
SOLVER_RESOLUTION = 1e-9

#: exponent range kept for the factors (doubles keep 2^+-1000 exactly; this keeps products sane)
MAX_EXPONENT = 200


def pow2(reference: float, *, target: float = 1.0) -> float:
    """The power of two ``f`` with ``target <= reference * f < 2 * target``
    (1 for a reference that is 0, negative or not finite)."""
    x = abs(float(reference))
    if not (math.isfinite(x) and x > 0):
        return 1.0
    k = -math.floor(math.log2(x / target))
    k = max(-MAX_EXPONENT, min(MAX_EXPONENT, k))
    f = math.ldexp(1.0, k)
    # log2 may be off by one at exact powers of two
    while x * f >= 2 * target:
        f /= 2
    while x * f < target:
        f *= 2
    return f


def positive_min(values: Iterable[float]) -> float:
    """The smallest positive value (0 when there is none)."""
    pos = [float(v) for v in values if float(v) > 0]
    return min(pos) if pos else 0.0


def exact_shift(values: Iterable[float]) -> float:
    """A shift ``s <= min(values)`` such that ``v - s`` is exact in floating point
    for every value ``v >= s``: the minimum rounded down to a multiple of the unit
    in the last place of the largest value (both are then multiples of that unit,
    and the difference of two such doubles below the largest is representable).
    0 when the minimum is not positive."""
    vals = [float(v) for v in values]
    if not vals:
        return 0.0
    lo, hi = min(vals), max(vals)
    if lo <= 0:
        return 0.0
    u = math.ulp(hi)
    return math.floor(lo / u) * u
