"""What every referee shares: the magnitude classes of the numbers an instance
is written with, and the one relative tolerance its optima are compared with.

An instance is drawn as *exact rationals* (:class:`fractions.Fraction`) and
written to JSON as the nearest doubles; the referee's optimum is computed
from the rationals by enumeration in exact arithmetic.  A data value and its
double differ by at most half an ulp (about 1e-16 relative), which moves a
continuous optimum by as little; the tolerance below is ten orders of
magnitude wider.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: the magnitude classes (issue 24): how the numbers of an instance are written
MAGNITUDES = ("plain", "tiny", "offset", "thirds", "decimals")

#: the relative tolerance every exact method and bound is checked with (the kit's optimality gap)
RTOL = 1e-6
#: absolute floor of the comparison, as a share of the instance's natural unit of the objective
#: (only matters when the optimum itself is 0 or a rounding error of the data)
FLOOR = 1e-9

MEGA = Fraction(1, 10**6)
MILLI = Fraction(1, 1000)
DECIMALS = 10**7


def F(x: Any) -> Fraction:
    """A rational from an int, a Fraction or a decimal string (never from a float)."""
    if isinstance(x, float):
        raise TypeError("referee data are exact: build them from ints or Fractions, not floats")
    return Fraction(x)


def dec(x: Any) -> Fraction:
    """The rational a person means by a JSON number: its shortest decimal form
    (``0.1`` is 1/10, not the double nearest to it); ``"1/4"`` strings too."""
    if isinstance(x, str):
        return Fraction(x)
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def fl(x: Fraction | int) -> float:
    """The double a JSON file carries for an exact value."""
    return float(x)


@dataclass
class Numbers:
    """Draws the numbers of one instance in one magnitude class.

    ``time(lo, hi)``: a duration of about ``lo..hi`` natural units, written in
    the class's magnitude; ``arrival(hi)``: a release time; ``weight()``: a
    dimensionless multiplier; ``unit``: the size of one natural unit (1e-6 in
    ``tiny``, 1e-3 in ``offset``, else 1).
    """

    kind: str
    rng: random.Random

    def __post_init__(self) -> None:
        if self.kind not in MAGNITUDES:
            raise ValueError(f"unknown magnitude class {self.kind!r}")

    @property
    def unit(self) -> Fraction:
        return {"tiny": MEGA, "offset": MILLI}.get(self.kind, Fraction(1))

    def _plain(self, lo: float | int, hi: float | int) -> Fraction:
        """Halves in ``[lo, hi]`` (``lo > 0`` keeps it positive)."""
        return Fraction(self.rng.randint(int(2 * lo), int(2 * hi)), 2)

    def time(self, lo: float | int = 1, hi: float | int = 4) -> Fraction:
        k = self.kind
        if k == "thirds":
            q = self.rng.choice((3, 7))
            return Fraction(self.rng.randint(int(q * lo), int(q * hi)), q)
        if k == "decimals":
            return Fraction(self.rng.randint(int(DECIMALS * lo), int(DECIMALS * hi)), DECIMALS)
        return self._plain(lo, hi) * self.unit

    def arrival(self, hi: float | int = 2) -> Fraction:
        k = self.kind
        if k == "offset":
            return 100_000 + self._plain(0, hi) * MILLI
        if k in ("thirds", "decimals"):
            return self.time(0, hi)
        return self._plain(0, hi) * self.unit

    def weight(self) -> Fraction:
        k = self.kind
        if k == "thirds":
            return Fraction(self.rng.randint(1, 9), self.rng.choice((3, 7)))
        if k == "decimals":
            return Fraction(self.rng.randint(DECIMALS, 3 * DECIMALS), DECIMALS)
        return Fraction(self.rng.randint(1, 3))


@dataclass
class Case:
    """One referee instance: the JSON dict a user would write, the exact data,
    the referee's optimum and the unit its comparison floor is measured in."""

    family: str
    magnitude: str
    seed: int
    data: dict
    exact: Any
    optimum: Fraction
    unit: Fraction
    sense: str = "min"
    note: str = ""

    @property
    def floor(self) -> float:
        return FLOOR * float(self.unit)

    def tol(self, value: float) -> float:
        """The allowed distance of ``value`` from the optimum."""
        return RTOL * max(abs(value), abs(float(self.optimum))) + self.floor

    def better_than_optimum(self, value: float) -> bool:
        """``value`` beats the proven optimum by more than the tolerance (a bug somewhere)."""
        opt = float(self.optimum)
        gain = opt - value if self.sense == "min" else value - opt
        return gain > self.tol(value)

    def bound_valid(self, bound: float) -> bool:
        """``bound`` is on the right side of the optimum, within the tolerance."""
        opt = float(self.optimum)
        over = bound - opt if self.sense == "min" else opt - bound
        return over <= self.tol(bound)

    def matches(self, value: float) -> bool:
        return abs(value - float(self.optimum)) <= self.tol(value)
