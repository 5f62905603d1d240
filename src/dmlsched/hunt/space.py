"""Instance spaces of the hunt: how to sample, mutate and shrink instances of a family.

A :class:`Space` works on the family's JSON form (the dict that
:func:`dmlsched.from_dict` reads), so one set of *structure-aware moves* serves
every family and every candidate is checked by the family's own loader (a
move that produces an invalid instance is rejected and another is drawn):

* ``scale``    multiply a number by a factor (times, sizes, weights);
* ``nudge``    add or subtract a small step to a number (move an arrival);
* ``round``    round a number to a coarse grid;
* ``step``     add or subtract 1 to an integer (rounds, tasks, GPUs);
* ``dup``      duplicate an element of an element list (duplicate a job);
* ``light``    duplicate an element and shrink its numbers (add a light task);
* ``heavy``    scale every number of one element (scale a job);
* ``drop``     delete an element of an element list;
* ``swap``     replace a string by another string seen in the same list
  (change a GPU type).

Each family declares, in its ``problems/<f>/sample.py`` (``Family.sample`` and
``Family.hunt``), which lists hold elements (``jobs``, ``tasks``,
``machines``, ...), which keys are never touched (``problem``, ``id``, ...),
a sampler of small random instances and the *size caps* of the space
(:data:`SPACES` reads them from the registry): the size parameters bound the sampler AND every move
(:meth:`Space.within`), so a search cannot drift to instances its exact
reference cannot solve in the time it has.
"""

from __future__ import annotations

import copy
import math
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from ..draws import RngDraws
from ..errors import DmlschedError
from ..family import DEFAULT_PROTECTED, Family
from ..io import from_dict
from ..registry import families

Path = tuple  # a path of keys/indices into the JSON dict


class HuntError(DmlschedError, ValueError):
    """A hunt that cannot run (unknown family, method or strategy; bad size)."""


MOVES = ("scale", "nudge", "round", "step", "dup", "light", "heavy", "drop", "swap")


@dataclass
class Space:
    """The instance space of one family.

    Attributes
    ----------
    problem
        Family name.
    sample
        ``sample(rng, size) -> dict``: a random small instance (JSON form).
    element_lists
        Keys of lists whose elements are whole objects (jobs, tasks,
        machines) that moves may duplicate or drop.
    protected
        Keys whose values moves never change.
    integer_keys
        Keys holding integers (moved by ``step``; ``scale`` keeps them integral).
    min_elements
        Smallest length of each element list.
    default_size
        Size parameters of :attr:`sample` (documented per family).
    fix
        ``fix(dict) -> dict`` repairs derived fields after a move (e.g. a
        horizon that must cover the instance), or ``None``.
    within
        ``within(dict, size) -> bool``: whether an instance respects the size
        caps (moves that leave them are rejected), or ``None`` (no caps).
    magnitude
        ``(lo, hi)``: every number a move leaves outside ``{0} u [lo, hi]``
        (in absolute value) is rejected, so repeated scaling cannot reach
        degenerate data (``1e15`` next to ``1e-12``) whose "ratios" measure
        floating point rather than the heuristic.
    """

    problem: str
    sample: Callable[[np.random.Generator, dict], dict]
    element_lists: tuple[str, ...] = ("jobs",)
    protected: frozenset[str] = DEFAULT_PROTECTED
    integer_keys: frozenset[str] = frozenset()
    min_elements: dict[str, int] = field(default_factory=dict)
    default_size: dict[str, Any] = field(default_factory=dict)
    fix: Callable[[dict], dict] | None = None
    within: Callable[[dict, dict], bool] | None = None
    magnitude: tuple[float, float] = (1e-4, 1e4)

    # -- helpers -----------------------------------------------------------
    def size(self, size: dict | None) -> dict:
        out = dict(self.default_size)
        for k, v in (size or {}).items():
            if k not in self.default_size:
                raise HuntError(
                    f"unknown size parameter {k!r} for {self.problem}; known: {', '.join(sorted(self.default_size))}"
                )
            out[k] = v
        return out

    def valid(self, data: dict) -> bool:
        try:
            from_dict(data)
        except DmlschedError:
            return False
        except (ValueError, TypeError, OverflowError, ZeroDivisionError):
            return False
        return True

    def finish(self, data: dict) -> dict:
        return self.fix(data) if self.fix is not None else data

    def fits(self, data: dict, size: dict | None) -> bool:
        """Whether ``data`` respects the magnitudes and the size caps ``size``
        (only the magnitudes without ``size``)."""
        lo, hi = self.magnitude
        for p in self.numeric_leaves(data):
            v = abs(float(_get(data, p)))
            if v != 0.0 and not (lo <= v <= hi):
                return False
        if size is None or self.within is None:
            return True
        try:
            return bool(self.within(data, size))
        except (KeyError, TypeError, ValueError, AttributeError):
            return False

    # -- leaves ----------------------------------------------------------------
    def numeric_leaves(self, data: Any, prefix: Path = ()) -> list[Path]:
        out: list[Path] = []
        if isinstance(data, dict):
            for k, v in data.items():
                if k in self.protected:
                    continue
                out.extend(self.numeric_leaves(v, prefix + (k,)))
        elif isinstance(data, list):
            for i, v in enumerate(data):
                out.extend(self.numeric_leaves(v, prefix + (i,)))
        elif isinstance(data, (int, float)) and not isinstance(data, bool):
            out.append(prefix)
        return out

    def string_leaves(self, data: Any, prefix: Path = ()) -> list[Path]:
        out: list[Path] = []
        if isinstance(data, dict):
            for k, v in data.items():
                if k in self.protected:
                    continue
                out.extend(self.string_leaves(v, prefix + (k,)))
        elif isinstance(data, list):
            for i, v in enumerate(data):
                if isinstance(v, str):
                    out.append(prefix + (i,))
                else:
                    out.extend(self.string_leaves(v, prefix + (i,)))
        return out

    # -- moves -------------------------------------------------------------------
    def mutate(self, rng: np.random.Generator, data: dict, tries: int = 50, size: dict | None = None) -> dict:
        """A valid neighbour of ``data`` by one random move (``data`` itself if none is found).

        With ``size``, neighbours outside the size caps (:meth:`fits`) are rejected.
        """
        for _ in range(tries):
            move = MOVES[int(rng.integers(len(MOVES)))]
            new = self.apply(rng, data, move)
            if new is not None:
                new = self.finish(new)
                if new != data and self.fits(new, size) and self.valid(new):
                    return new
        return data

    def apply(self, rng: np.random.Generator, data: dict, move: str) -> dict | None:
        d = copy.deepcopy(data)
        if move in ("scale", "nudge", "round", "step"):
            leaves = self.numeric_leaves(d)
            if move == "step":
                leaves = [p for p in leaves if self._is_int(p)]
            if not leaves:
                return None
            p = leaves[int(rng.integers(len(leaves)))]
            v = _get(d, p)
            if move == "scale":
                f = float(rng.choice([0.5, 0.8, 1.25, 2.0, 0.1, 10.0]))
                nv: float = v * f
            elif move == "nudge":
                nv = v + float(rng.choice([-1.0, -0.5, -0.25, 0.25, 0.5, 1.0])) * max(1.0, abs(v)) * 0.5
            elif move == "round":
                grid = float(rng.choice([1.0, 0.5, 0.25]))
                nv = round(v / grid) * grid
            else:
                nv = v + int(rng.choice([-1, 1]))
            if self._is_int(p):
                nv = int(round(nv))
            elif isinstance(v, float) or not float(nv).is_integer():
                nv = float(nv)
            if isinstance(nv, float) and (not math.isfinite(nv)):
                return None
            _set(d, p, nv)
            return d
        if move in ("dup", "light", "heavy", "drop"):
            lists = [k for k in self.element_lists if isinstance(d.get(k), list) and d[k]]
            if not lists:
                return None
            key = lists[int(rng.integers(len(lists)))]
            items = d[key]
            i = int(rng.integers(len(items)))
            if move == "drop":
                if len(items) <= self.min_elements.get(key, 1):
                    return None
                del items[i]
                return d
            if move == "heavy":
                f = float(rng.choice([0.25, 0.5, 2.0, 4.0]))
                items[i] = self._scale_all(items[i], f)
                return d
            new = copy.deepcopy(items[i])
            if move == "light":
                new = self._scale_all(new, float(rng.choice([0.05, 0.1, 0.25])))
            if isinstance(new, dict) and isinstance(new.get("id"), str):
                used = {x.get("id") for x in items if isinstance(x, dict)}
                k = len(items)
                while f"{new['id']}-{k}" in used:
                    k += 1
                new["id"] = f"{new['id']}-{k}"
            items.insert(int(rng.integers(len(items) + 1)), new)
            return d
        if move == "swap":
            leaves = self.string_leaves(d)
            if not leaves:
                return None
            p = leaves[int(rng.integers(len(leaves)))]
            parent = _get(d, p[:-1])
            choices = sorted({x for x in parent if isinstance(x, str)})
            if len(choices) < 2:
                return None
            cur = _get(d, p)
            other = [c for c in choices if c != cur]
            _set(d, p, other[int(rng.integers(len(other)))])
            return d
        raise HuntError(f"unknown move {move!r}")

    def _is_int(self, p: Path) -> bool:
        return any(isinstance(k, str) and k in self.integer_keys for k in p)

    def _scale_all(self, obj: Any, f: float, prefix: Path = ()) -> Any:
        if isinstance(obj, dict):
            return {k: (v if k in self.protected or k in self.integer_keys else self._scale_all(v, f, prefix + (k,)))
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._scale_all(v, f, prefix) for v in obj]
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return float(obj) * f
        return obj

    # -- shrinking candidates ------------------------------------------------------
    def shrink_candidates(self, data: dict) -> Iterator[dict]:
        """Smaller or simpler variants of ``data``, most aggressive first:
        drop an element, decrement an integer, round a number (to 1, then 0.5,
        then 0.25), each as one candidate."""
        for key in self.element_lists:
            items = data.get(key)
            if not isinstance(items, list):
                continue
            for i in range(len(items) - 1, -1, -1):
                if len(items) <= self.min_elements.get(key, 1):
                    break
                d = copy.deepcopy(data)
                del d[key][i]
                yield self.finish(d)
        for p in self.numeric_leaves(data):
            if self._is_int(p):
                v = _get(data, p)
                if v > 1:
                    d = copy.deepcopy(data)
                    _set(d, p, v - 1)
                    yield self.finish(d)
        for grid in (1.0, 0.5, 0.25):
            for p in self.numeric_leaves(data):
                if self._is_int(p):
                    continue
                v = _get(data, p)
                r = round(v / grid) * grid
                if r != v:
                    d = copy.deepcopy(data)
                    _set(d, p, float(r))
                    yield self.finish(d)


def _get(d: Any, p: Path) -> Any:
    for k in p:
        d = d[k]
    return d


def _set(d: Any, p: Path, v: Any) -> None:
    for k in p[:-1]:
        d = d[k]
    d[p[-1]] = v


# ---------------------------------------------------------------------------
# the spaces: each family's Family.sample and Family.hunt (problems/<f>/sample.py),
# and the spaces of families without one (register_space)


def _space_of(fam: Family) -> Space:
    h = fam.hunt
    build = fam.sample

    def sample(rng: np.random.Generator, size: dict) -> dict:
        return build(RngDraws(rng), **size)

    return Space(fam.name, sample, element_lists=tuple(h.element_lists), protected=frozenset(h.protected),
                 integer_keys=frozenset(h.integer_keys), min_elements=dict(h.min_elements),
                 default_size=dict(h.default_size), fix=h.fix, within=h.within)


class _Spaces(MutableMapping):
    """The hunt space of every family: from its ``Family.sample``/``Family.hunt``, or
    added by :func:`register_space` (a plugin, or a family without them)."""

    def __init__(self) -> None:
        self._added: dict[str, Space] = {}
        self._built: dict[str, Space] = {}
        self._of: tuple[int, ...] = ()  # the registered families (by identity) _hunted was built from
        self._hunted: dict[str, Family] = {}

    def _families(self) -> dict[str, Family]:
        """The families with a sampler and caps, by name: built on first use, and again only
        when the registry's families changed (one registered, or replaced, since)."""
        fams = families()
        of = tuple(map(id, fams))
        if of != self._of:
            self._hunted = {f.name: f for f in fams if f.sample is not None and f.hunt is not None}
            self._built = {}  # spaces of the families as they are now (built again on use)
            self._of = of
        return self._hunted

    def __getitem__(self, problem: str) -> Space:
        if problem in self._added:
            return self._added[problem]
        if problem not in self._built:
            fam = self._families().get(problem)
            if fam is None:
                raise KeyError(problem)
            self._built[problem] = _space_of(fam)
        return self._built[problem]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(set(self._families()) | set(self._added)))

    def __len__(self) -> int:
        return len(set(self._families()) | set(self._added))

    def __setitem__(self, problem: str, space: Space) -> None:
        self._added[problem] = space

    def __delitem__(self, problem: str) -> None:
        del self._added[problem]  # a family's own space cannot be removed


#: every family's hunt space, by family name (:func:`register_space` adds one)
SPACES = _Spaces()


def get_space(problem: str) -> Space:
    try:
        return SPACES[problem]
    except KeyError:
        raise HuntError(f"no hunt space for {problem!r}; known: {', '.join(sorted(SPACES))}") from None


def register_space(space: Space, *, replace: bool = False) -> Space:
    """Add the space of a (plugin) family."""
    if space.problem in SPACES and not replace:
        raise HuntError(f"a hunt space for {space.problem!r} exists; pass replace=True")
    SPACES[space.problem] = space
    return space

