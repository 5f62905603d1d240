"""Argument checks shared by every generator of :mod:`dmlsched.generate`.

A bad argument ends in one :class:`GeneratorArgumentError` whose message names
the generator and the argument, e.g. ``generate.hare.simulation: num_jobs must
be an integer >= 1, got -4``.  ``dmlsched bench`` reports it as bad input
(exit 2) naming the suite's source.

Spelling of generator arguments (the same in every family; a test inspects
every signature): every parameter is keyword-only; ``seed: int = 0``; a count
of things is ``num_<things>`` (``num_jobs``, ``num_gpus``, ``num_servers``,
``num_machines``, ``num_tasks``, ``num_groups``, ...); a range of a count is
``min_<things>`` / ``max_<things>``; a list of the instance's own items keeps
the instance's field name (``gpus`` = GPU type names in Hare, ``servers`` =
server capacities in RAR).
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from ..errors import DmlschedError


class GeneratorArgumentError(DmlschedError, ValueError):
    """A generator argument outside its domain.

    ``str(err)`` reads ``"generate.hare.generate: num_jobs must be an integer
    >= 1, got -4"``; ``err.generator`` and ``err.argument`` name the two.
    """

    def __init__(self, generator: str, argument: str, message: str):
        self.generator = generator
        self.argument = argument
        super().__init__(f"{generator}: {argument} {message}")


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


class Args:
    """Checks of one generator call's arguments; every method returns the
    value normalised (Python ``int``/``float``/``tuple``) or raises
    :class:`GeneratorArgumentError`.

    Parameters
    ----------
    where
        The generator as users call it, e.g. ``"generate.hare.simulation"``.
    """

    def __init__(self, where: str):
        self.where = where

    def fail(self, name: str, message: str) -> NoReturn:
        """Raise the error for argument ``name`` (``message`` reads after the name)."""
        raise GeneratorArgumentError(self.where, name, message)

    # -- scalars ---------------------------------------------------------------------
    def count(self, name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
        """An integer count ``>= minimum`` (and ``<= maximum``); integral floats and
        numpy integers are accepted, booleans and fractions are not."""
        bound = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        ok = _is_real(value) and math.isfinite(float(value)) and float(value) == int(value)
        if not ok or int(value) < minimum or (maximum is not None and int(value) > maximum):
            self.fail(name, f"must be an integer {bound}, got {value!r}")
        return int(value)

    def optional_count(self, name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int | None:
        """:meth:`count`, or ``None``."""
        return None if value is None else self.count(name, value, minimum=minimum, maximum=maximum)

    def number(self, name: str, value: Any, *, minimum: float | None = None, positive: bool = False,
               maximum: float | None = None) -> float:
        """A finite number (``> 0`` if ``positive``, ``>= minimum``, ``<= maximum``)."""
        if not (_is_real(value) and math.isfinite(float(value))):
            self.fail(name, f"must be a finite number, got {value!r}")
        v = float(value)
        if positive and not v > 0:
            self.fail(name, f"must be > 0, got {value!r}")
        if minimum is not None and v < minimum:
            self.fail(name, f"must be >= {minimum:g}, got {value!r}")
        if maximum is not None and v > maximum:
            self.fail(name, f"must be <= {maximum:g}, got {value!r}")
        return v

    def optional_number(self, name: str, value: Any, **kw: Any) -> float | None:
        """:meth:`number`, or ``None``."""
        return None if value is None else self.number(name, value, **kw)

    def probability(self, name: str, value: Any) -> float:
        """A number in ``[0, 1]``."""
        if not (_is_real(value) and 0.0 <= float(value) <= 1.0):
            self.fail(name, f"must be a probability in [0, 1], got {value!r}")
        return float(value)

    def choice(self, name: str, value: Any, choices: Iterable[Any]) -> Any:
        """One of ``choices``."""
        options = list(choices)
        if value not in options:
            self.fail(name, f"must be one of {', '.join(map(repr, options))}, got {value!r}")
        return value

    def flag(self, name: str, value: Any) -> bool:
        """A boolean."""
        if not isinstance(value, bool):
            self.fail(name, f"must be true or false, got {value!r}")
        return value

    # -- sequences -----------------------------------------------------------------------
    def _seq(self, name: str, value: Any, what: str) -> tuple:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            self.fail(name, f"must be {what}, got {value!r}")
        return tuple(value)

    def int_range(self, name: str, value: Any, *, minimum: int = 1) -> tuple[int, int]:
        """An inclusive integer range ``(low, high)`` with ``minimum <= low <= high``."""
        what = f"a range [low, high] of integers with {minimum} <= low <= high"
        t = self._seq(name, value, what)
        if len(t) != 2 or not all(_is_real(x) and math.isfinite(float(x)) and float(x) == int(x) for x in t) \
                or not minimum <= int(t[0]) <= int(t[1]):
            self.fail(name, f"must be {what}, got {value!r}")
        return int(t[0]), int(t[1])

    def number_range(self, name: str, value: Any, *, positive: bool = False,
                     minimum: float | None = None) -> tuple[float, float]:
        """A range ``(low, high)`` of finite numbers, ``low <= high`` (both ``> 0`` if
        ``positive``, ``>= minimum``)."""
        cond = " > 0" if positive else (f" >= {minimum:g}" if minimum is not None else "")
        what = f"a range [low, high] of finite numbers{cond} with low <= high"
        t = self._seq(name, value, what)
        if len(t) != 2 or not all(_is_real(x) and math.isfinite(float(x)) for x in t) or float(t[0]) > float(t[1]) \
                or (positive and not float(t[0]) > 0) or (minimum is not None and float(t[0]) < minimum):
            self.fail(name, f"must be {what}, got {value!r}")
        return float(t[0]), float(t[1])

    def counts(self, name: str, value: Any, *, minimum: int = 1) -> tuple[int, ...]:
        """A non-empty list of integers ``>= minimum``."""
        what = f"a non-empty list of integers >= {minimum}"
        t = self._seq(name, value, what)
        if not t or not all(_is_real(x) and math.isfinite(float(x)) and float(x) == int(x) and int(x) >= minimum
                            for x in t):
            self.fail(name, f"must be {what}, got {value!r}")
        return tuple(int(x) for x in t)

    def shares(self, name: str, value: Any, keys: Iterable[str] | None = None) -> dict[str, float]:
        """A table ``{key: share}`` of non-negative numbers, not all zero (keys from
        ``keys`` when given)."""
        allowed = None if keys is None else list(keys)
        if not isinstance(value, Mapping) or not value:
            self.fail(name, f"must be a non-empty table of shares, got {value!r}")
        for k, v in value.items():
            if allowed is not None and k not in allowed:
                self.fail(name, f"has unknown key {k!r} (allowed: {', '.join(allowed)})")
            if not (_is_real(v) and math.isfinite(float(v)) and float(v) >= 0):
                self.fail(f"{name}.{k}", f"must be a finite number >= 0, got {v!r}")
        if not sum(float(v) for v in value.values()) > 0:
            self.fail(name, f"must have a positive share, got {dict(value)!r}")
        return {str(k): float(v) for k, v in value.items()}

    def forwarded(self, params: Mapping[str, Any], target: Callable[..., Any], *, fixed: Iterable[str] = ()) -> None:
        """Extra keyword arguments a generator forwards to ``target``: each must be a
        parameter of ``target`` not set by the forwarding generator itself (``fixed``)."""
        names = inspect.signature(target).parameters
        taken = set(fixed)
        for k in params:
            if k not in names or k in taken or k == "seed":
                self.fail(k, "is not an argument of this generator")
