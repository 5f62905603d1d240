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

:meth:`Evaluator.evaluate_many` scores a batch of candidates, on the bench
engine when given a :class:`~dmlsched.hunt.pool.EnginePool` (local worker
processes or Dask: each candidate is two bench jobs, the method and the
reference, run through the same :func:`dmlsched.solve`), and returns the
scores in the order the candidates were proposed, whichever finished first.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

from .. import api, interrupt
from ..errors import DmlschedError
from ..io import from_dict
from ..registry import get_method, get_problem
from ..suites import instance_hash


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
    solver
        MIP solver of both runs (``"highs"`` or ``"gurobi"``).
    plugins
        Plugin modules (``--plugin``) the engine's worker processes import
        before running a job.
    keep_solutions
        How many (method, reference) results of in-process evaluations to keep
        (most recent first) for :meth:`results` (the guided strategies use the
        schedules); 0 keeps none.
    """

    def __init__(self, problem: str, method: str, reference: str | None = None, *,
                 time_limit: float | None = 10.0, seed: int = 0, options: dict | None = None,
                 reference_options: dict | None = None, solver: str = "highs", keep_solutions: int = 0,
                 plugins: Sequence[str] = ()):
        self.spec = get_problem(problem)
        self.problem, self.method = problem, method
        self.m = get_method(problem, method)
        self.reference = reference or self.spec.default_reference
        if self.reference is None:
            raise DmlschedError(f"{problem} has no default reference: name one")
        self.r = get_method(problem, self.reference)
        self.time_limit, self.seed, self.solver = time_limit, seed, solver
        self.options = dict(options or {})
        self.reference_options = dict(reference_options or {})
        self.cache: dict[str, Scored] = {}
        self.evaluations = 0  # distinct instances scored
        self.keep_solutions = int(keep_solutions)
        self.plugins = tuple(plugins)
        self._results: OrderedDict[str, tuple[Any, Any]] = OrderedDict()

    def __call__(self, data: dict) -> Scored:
        """Score one instance in this process (cached by its hash)."""
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
            res, ref = self._solve_both(inst)
        except DmlschedError as e:  # an invalid solution is a finding too: keep the message
            out.error = f"{type(e).__name__}: {e}"
            self.cache[h] = out
            return out
        self._fill(out, inst, status=res.status.value, objective=res.objective if res.solution is not None else None,
                   reproducible=res.reproducible and ref.reproducible, ref_status=ref.status.value,
                   ref_objective=ref.objective if ref.solution is not None else None, ref_bound=ref.bound)
        if self.keep_solutions > 0:
            self._keep(h, res, ref)
        self.cache[h] = out
        return out

    def _solve_both(self, inst: Any) -> tuple[Any, Any]:
        res = api.solve(inst, self.method, solver=self.solver, time_limit=self.time_limit, seed=self.seed,
                        **self.options)
        ref = api.solve(inst, self.reference, solver=self.solver, time_limit=self.time_limit, seed=self.seed,
                        **self.reference_options)
        return res, ref

    def _keep(self, h: str, res: Any, ref: Any) -> None:
        self._results[h] = (res, ref)
        self._results.move_to_end(h)
        while len(self._results) > self.keep_solutions:
            self._results.popitem(last=False)

    def results(self, data: dict) -> tuple[Any, Any]:
        """The method's and the reference's :class:`~dmlsched.result.Result` on ``data``.

        Kept from an in-process evaluation when available, else solved again
        here (both runs are deterministic: the same objectives as the score,
        which callers should check).
        """
        h = instance_hash(data)
        hit = self._results.get(h)
        if hit is not None:
            return hit
        out = self._solve_both(from_dict(data))
        if self.keep_solutions > 0:
            self._keep(h, *out)
        return out

    def _fill(self, out: Scored, inst: Any, *, status: str | None, objective: float | None, reproducible: bool,
              ref_status: str | None, ref_objective: float | None, ref_bound: float | None,
              error: str | None = None) -> None:
        """Fill a score from the two runs' figures (shared by both evaluation paths)."""
        out.objective = objective
        out.claimed = self.m.bound(inst) if self.m.bound is not None else None
        out.details = {"status": status, "reference_status": ref_status, "reproducible": bool(reproducible)}
        if error:
            out.error = error
        if self.r.kind == "bound":
            value, out.certified = (ref_bound if ref_bound is not None else ref_objective), False
        else:
            value, out.certified = ref_objective, True
        out.reference = value
        out.reference_optimal = ref_status == "optimal"
        if out.objective is not None and value is not None:
            out.ratio = _ratio(self.spec.sense, out.objective, value)

    # -- batches -------------------------------------------------------------------
    def evaluate_many(self, datas: Sequence[dict], pool: Any = None) -> list[Scored]:
        """Score ``datas``, returning the scores in the order given.

        Without ``pool`` (or with a pool of no workers) the candidates are
        scored here one by one; with an :class:`~dmlsched.hunt.pool.EnginePool`
        the new ones (not in the cache, each hash once) run on its engine.
        """
        gen = interrupt.generation()
        try:
            return self._evaluate_many(datas, pool)
        finally:
            if interrupt.since(gen):  # runs cut by Ctrl-C or SIGTERM score nothing: forget them, stop
                for d in datas:
                    self.cache.pop(instance_hash(d), None)
                raise KeyboardInterrupt

    def _evaluate_many(self, datas: Sequence[dict], pool: Any) -> list[Scored]:
        if pool is None or not getattr(pool, "parallel", False):
            return [self(d) for d in datas]
        hashes = [instance_hash(d) for d in datas]
        todo: dict[str, dict] = {}
        for h, d in zip(hashes, datas):
            if h not in self.cache and h not in todo:
                todo[h] = d
        valid: dict[str, tuple[dict, Any]] = {}
        for h, d in todo.items():
            self.evaluations += 1
            try:
                valid[h] = (d, from_dict(d))
            except DmlschedError as e:
                out = Scored(data=d, hash=h, error=f"invalid instance: {e}")
                self.cache[h] = out
        if valid:
            runs = [(h, role, d) for h, (d, _) in valid.items() for role in ("method", "reference")]
            jobs = [self.job(d, role, f"{h}-{role}") for h, role, d in runs]
            recs = pool.run(jobs)
            by_key = {r.get("key"): r for r in recs}
            for h, (d, inst) in valid.items():
                rm, rr = by_key[f"{h}-method"], by_key[f"{h}-reference"]
                out = Scored(data=d, hash=h)
                err = None
                for r in (rm, rr):
                    if r.get("status") == "error" and r.get("error"):
                        err = err or f"{r.get('method')}: {r.get('error')}"
                self._fill(out, inst, status=rm.get("status"),
                           objective=rm.get("objective") if rm.get("has_solution") else None,
                           reproducible=bool(rm.get("reproducible")) and bool(rr.get("reproducible")),
                           ref_status=rr.get("status"),
                           ref_objective=rr.get("objective") if rr.get("has_solution") else None,
                           ref_bound=rr.get("bound"), error=err)
                self.cache[h] = out
        return [self.cache[h] for h in hashes]

    def job(self, data: dict, role: str, key: str) -> dict:
        """The bench job (:mod:`dmlsched.bench.execute`) running the method or the reference on ``data``."""
        method, options = ((self.method, self.options) if role == "method"
                           else (self.reference, self.reference_options))
        return {"key": key, "suite": "hunt", "label": role, "source": "hunt", "instance": data,
                "instance_hash": key.split("-")[0], "problem": self.problem, "size": None, "method": method,
                "seed": self.seed, "solver": self.solver, "time_limit": self.time_limit, "options": dict(options),
                "reference": None, "reference_record": None, "plugins": list(self.plugins)}


def _ratio(sense: str, value: float, ref: float) -> float:
    num, den = (value, ref) if sense == "min" else (ref, value)
    if den <= 0:
        return 1.0 if abs(num - den) <= 1e-9 else math.inf
    return num / den
