"""Seeded draws shared by the families' random-instance builders (``problems/<f>/sample.py``).

Every family has ONE builder of random instances, ``sample.random_instance(draws, **size)``;
it asks for its numbers through the small :class:`Draws` protocol, so one builder
serves every user.  Every builder's draws are fixed: with :class:`RngDraws`, a seed and
the same arguments give the same instance in every release (``tests/test_draws.py`` pins
the hunt's stream by sha256).  Its users:

* :class:`RngDraws` over a :class:`numpy.random.Generator`: the hunt, the tests'
  seeded instances, benchmarks and the proofs scripts
  (``random_instance(RngDraws(np.random.default_rng(seed)), ...)``).  Its draws are
  call for call those the hunt's samplers have always made, so a seed gives the
  same instance as before the samplers moved into the families;
* :class:`dmlsched.fuzz.HypothesisDraws` over a hypothesis ``draw``: the families'
  strategies (``strategies.py``), which keep hypothesis's shrinking (every draw
  shrinks towards its low end, the first element of a choice, and ``False``).

The builder makes *small random* instances (its defaults are the hunt's caps).
Four kinds of random instances are deliberately drawn elsewhere, each for a reason:

* the paper's setups (``problems/<f>/generate.py``, ``Family.generators``, e.g. cruise's
  ``random_instance``, a log-uniform cluster calibrated to a communication ratio): each is a
  distribution the paper describes, at the paper's scale, not a small random instance, and
  recorded suites (``deadlines.toml``, ``generated.toml``) and claims rest on their streams;
* the benchmark scripts ``bench_engine.py``, ``hare_list.py`` and ``hare_exact.py``: their
  recorded numbers rest on their own instances (their ``.md`` files say so); they move to a
  family generator or this builder when they are next re-recorded, not in a refactor that
  must keep every recorded number;
* the exact referee's ``Fraction`` draws and the engine-equivalence tests' generators: an
  independent check must not share the code it checks.

Imports only numpy.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, TypeVar

import numpy as np

__all__ = ["Draws", "RngDraws", "grid"]

T = TypeVar("T")


class Draws(Protocol):
    """The draws a random-instance builder may make (all bounds inclusive)."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``, uniformly."""

    def choice(self, seq: Sequence[T]) -> T:
        """One element of ``seq`` (non-empty), uniformly."""

    def grid(self, lo: float, hi: float, step: float = 0.25) -> float:
        """A number ``k * step`` in ``[lo, hi]``, uniformly over ``k`` (rounded to 6 decimals)."""

    def uniform(self, lo: float, hi: float) -> float:
        """A float in ``[lo, hi]``."""

    def coin(self, p: float = 0.5) -> bool:
        """``True`` with probability ``p``."""


def grid(rng: np.random.Generator, lo: float, hi: float, step: float = 0.25) -> float:
    """A number on the grid ``k * step`` in ``[lo, hi]``, uniformly over ``k`` (one ``rng.integers`` draw)."""
    k = int(rng.integers(int(round(lo / step)), int(round(hi / step)) + 1))
    return round(k * step, 6)


class RngDraws:
    """:class:`Draws` from a numpy generator (one generator call per draw).

    Parameters
    ----------
    rng
        The seeded generator; ``RngDraws(np.random.default_rng(seed))``.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def grid(self, lo: float, hi: float, step: float = 0.25) -> float:
        return grid(self.rng, lo, hi, step)

    def uniform(self, lo: float, hi: float) -> float:
        return float(self.rng.uniform(lo, hi))

    def coin(self, p: float = 0.5) -> bool:
        return bool(self.rng.random() < p)
