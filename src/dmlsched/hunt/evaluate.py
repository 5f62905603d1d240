"""Scoring candidate instances: the method's objective against a reference.

The score of an instance is the ratio of the hunted method's objective to the
reference's value, oriented so that a larger ratio means a worse method
(objective / reference for minimisation, reference / objective for
maximisation).  Both runs go through :func:`dmlsched.solve`, so every solution
is validated and every objective recomputed.

* With an ``exact`` reference (any non-``bound`` method), the denominator is
  the reference's *feasible* objective: the ratio is then a certified lower
  bound on the method's true ratio on the instance (the optimum can only be
  better than a feasible value), so ``ratio > claimed bound`` is a proven
  violation whether or not the reference proved optimality.
* With a ``bound`` reference (a proven bound on the optimum), the ratio is an
  upper bound on the true ratio: useful to search, never a proof of violation.

References are cached by the instance's canonical hash, so a candidate reached
twice is solved once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .. import api
from ..errors import DmlschedError
from ..io import from_dict
from ..registry import get_method, get_problem


def instance_hash(data: dict) -> str:
    """The bench's canonical hash (keys sorted, ``name``/``description`` excluded)."""
    from ..bench.suite import instance_hash as h

    return h(data)


@dataclass
class Scored:
    """One evaluated candidate."""

    data: dict
    hash: str
    objective: float | None = None
    reference: float | None = None
    reference_optimal: bool = False
    ratio: float | None = None
    claimed: float | None = None
    certified: bool = False
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The quantity the search maximises (``-inf`` for unusable candidates)."""
        if self.ratio is None or not math.isfinite(self.ratio):
            return -math.inf
        return float(self.ratio)

    @property
    def violation(self) -> bool:
        """A proven violation of the claimed bound (certified ratio above it)."""
        return (
            self.certified and self.claimed is not None and math.isfinite(self.claimed)
            and self.ratio is not None and self.ratio > self.claimed * (1 + 1e-6)
        )


class Evaluator:
    """Scores instances (JSON dicts) of one family for one method.

    Parameters
    ----------
    problem, method
        The family and the hunted method.
    reference
        A method name (default: the family's default reference).
    time_limit
        Per-run deadline (seconds) of the method and of the reference.
    seed
        Seed passed to both runs.
    options, reference_options
        Method options.
    """

    def __init__(self, problem: str, method: str, reference: str | None = None, *,
                 time_limit: float | None = 10.0, seed: int = 0, options: dict | None = None,
                 reference_options: dict | None = None):
        self.spec = get_problem(problem)
        self.problem, self.method = problem, method
        self.m = get_method(problem, method)
        self.reference = reference or self.spec.default_reference
        if self.reference is None:
            raise DmlschedError(f"{problem} has no default reference: name one")
        self.r = get_method(problem, self.reference)
        self.time_limit, self.seed = time_limit, seed
        self.options = dict(options or {})
        self.reference_options = dict(reference_options or {})
        self.cache: dict[str, Scored] = {}
        self.evaluations = 0  # distinct instances scored

    def __call__(self, data: dict) -> Scored:
        h = instance_hash(data)
        hit = self.cache.get(h)
        if hit is not None:
            return hit
        self.evaluations += 1
        out = Scored(data=data, hash=h)
        try:
            inst = from_dict(data)
        except DmlschedError as e:
            out.error = f"invalid instance: {e}"
            self.cache[h] = out
            return out
        try:
            res = api.solve(inst, self.method, time_limit=self.time_limit, seed=self.seed, **self.options)
            ref = api.solve(inst, self.reference, time_limit=self.time_limit, seed=self.seed,
                            **self.reference_options)
        except DmlschedError as e:  # an invalid solution is a finding too: keep the message
            out.error = f"{type(e).__name__}: {e}"
            self.cache[h] = out
            return out
        out.objective = res.objective if res.solution is not None else None
        out.claimed = self.m.bound(inst) if self.m.bound is not None else None
        out.details = {"status": res.status.value, "reference_status": ref.status.value,
                       "reproducible": res.reproducible and ref.reproducible}
        if self.r.kind == "bound":
            value, out.certified = ref.bound if ref.bound is not None else ref.objective, False
        else:
            value, out.certified = (ref.objective if ref.solution is not None else None), True
        out.reference = value
        out.reference_optimal = ref.status.value == "optimal"
        if out.objective is not None and value is not None:
            out.ratio = _ratio(self.spec.sense, out.objective, value)
        self.cache[h] = out
        return out


def _ratio(sense: str, value: float, ref: float) -> float:
    num, den = (value, ref) if sense == "min" else (ref, value)
    if den <= 0:
        return 1.0 if abs(num - den) <= 1e-9 else math.inf
    return num / den
