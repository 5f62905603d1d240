"""Seeded draws shared by the families' random-instance builders (``problems/<f>/sample.py``).

Imports only numpy.  The draws are those the hunt's samplers have always made, so a
seed gives the same instance as before they moved into the families.
"""

from __future__ import annotations

import numpy as np

__all__ = ["grid"]


def grid(rng: np.random.Generator, lo: float, hi: float, step: float = 0.25) -> float:
    """A number on the grid ``k * step`` in ``[lo, hi]``, uniformly over ``k`` (one ``rng.integers`` draw)."""
    k = int(rng.integers(int(round(lo / step)), int(round(hi / step)) + 1))
    return round(k * step, 6)
