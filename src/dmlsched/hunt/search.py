"""Search strategies and the hunt loop.

A strategy proposes instances; the :class:`Context` scores them (through the
:class:`~dmlsched.hunt.evaluate.Evaluator`), keeps the best, records the best
score over time and stops the strategy when the budget is spent.  Every
strategy draws its randomness from one ``numpy`` generator seeded by the hunt's
seed, and counts its budget in evaluations as well as seconds: with an
evaluation budget (``max_evals``) a hunt is reproducible exactly; with a time
budget it is the same search cut at a different point.

Strategies (pluggable: :data:`STRATEGIES`, :func:`register_strategy`):

``random``  independent samples from the family's sampler (the baseline);
``hill``    hill climbing with the structure-aware moves of
            :class:`~dmlsched.hunt.space.Space`, restarting when stuck;
``anneal``  simulated annealing on the logarithm of the score, cooling by
            evaluation count, with restarts from the best;
``guided``  the family's solver-guided strategy where one exists
            (:mod:`dmlsched.hunt.guided`), otherwise an error naming the
            families that have one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .evaluate import Evaluator, Scored
from .space import HuntError, Space


class BudgetSpent(Exception):
    """Raised by :meth:`Context.score` when the budget is spent."""


@dataclass
class Context:
    """What a strategy works with."""

    space: Space
    evaluator: Evaluator
    rng: np.random.Generator
    size: dict
    seconds: float | None
    max_evals: int | None
    target: float | None
    objective: str = "ratio"  # "ratio" or "excess" (ratio / claimed bound)
    start: float = field(default_factory=time.monotonic)
    best: Scored | None = None
    history: list[tuple[float, int, float]] = field(default_factory=list)
    first_violation: tuple[float, int] | None = None
    steps: int = 0

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def spent(self) -> bool:
        if self.max_evals is not None and self.steps >= self.max_evals:
            return True
        return self.seconds is not None and self.elapsed() >= self.seconds

    def value(self, s: Scored) -> float:
        """The search objective of a scored candidate."""
        if s.score == -math.inf:
            return -math.inf
        if self.objective == "excess":
            if s.claimed is None or not math.isfinite(s.claimed) or s.claimed <= 0:
                return -math.inf
            return s.score / s.claimed
        return s.score

    def score(self, data: dict) -> Scored:
        """Score ``data`` (one step of the budget); raises :class:`BudgetSpent` when spent."""
        if self.spent():
            raise BudgetSpent
        self.steps += 1
        s = self.evaluator(data)
        if self.best is None or self.value(s) > self.value(self.best):
            self.best = s
            self.history.append((self.elapsed(), self.steps, self.value(s)))
        if self.first_violation is None and s.violation:
            self.first_violation = (self.elapsed(), self.steps)
        return s

    def sample(self) -> dict:
        for _ in range(100):
            d = self.space.finish(self.space.sample(self.rng, self.size))
            if self.space.valid(d):
                return d
        raise HuntError(f"the {self.space.problem} sampler gives no valid instance with size {self.size}")


Strategy = Callable[[Context], None]


def random_sampling(ctx: Context) -> None:
    """Independent random instances from the family's sampler."""
    while True:
        ctx.score(ctx.sample())


def hill_climbing(ctx: Context, patience: int = 40) -> None:
    """First-improvement hill climbing (ties accepted), restarting from a fresh
    sample after ``patience`` steps without improvement."""
    while True:
        cur = ctx.score(ctx.sample())
        stuck = 0
        while stuck < patience:
            nxt = ctx.score(ctx.space.mutate(ctx.rng, cur.data))
            if ctx.value(nxt) > ctx.value(cur):
                cur, stuck = nxt, 0
            else:
                if ctx.value(nxt) == ctx.value(cur):
                    cur = nxt
                stuck += 1


def simulated_annealing(ctx: Context, t0: float = 0.05, cooling: float = 0.995, reheat: int = 150) -> None:
    """Simulated annealing on ``log(value)``: a worse neighbour is accepted with
    probability ``exp(delta / T)``; ``T`` cools by ``cooling`` per step and is
    reset (from the best instance so far) after ``reheat`` steps without a new best."""
    cur = ctx.score(ctx.sample())
    temp, since_best, best_v = t0, 0, ctx.value(cur)
    while True:
        nxt = ctx.score(ctx.space.mutate(ctx.rng, cur.data))
        a, b = _log(ctx.value(cur)), _log(ctx.value(nxt))
        if b >= a or (math.isfinite(b) and ctx.rng.random() < math.exp((b - a) / max(temp, 1e-9))):
            cur = nxt
        temp *= cooling
        if ctx.value(ctx.best) > best_v:
            best_v, since_best = ctx.value(ctx.best), 0
        else:
            since_best += 1
        if since_best >= reheat:
            cur = ctx.best if ctx.rng.random() < 0.5 else ctx.score(ctx.sample())
            temp, since_best = t0, 0


def _log(v: float) -> float:
    return math.log(v) if v > 0 and math.isfinite(v) else -math.inf


def guided(ctx: Context) -> None:
    """The family's solver-guided strategy (:mod:`dmlsched.hunt.guided`)."""
    from .guided import GUIDED

    fn = GUIDED.get((ctx.evaluator.problem, ctx.evaluator.method)) or GUIDED.get((ctx.evaluator.problem, "*"))
    if fn is None:
        have = ", ".join(f"{p}/{m}" for p, m in sorted(GUIDED)) or "none"
        raise HuntError(f"no solver-guided strategy for {ctx.evaluator.problem}/{ctx.evaluator.method}; "
                        f"available: {have}")
    fn(ctx)


STRATEGIES: dict[str, Strategy] = {
    "random": random_sampling,
    "hill": hill_climbing,
    "anneal": simulated_annealing,
    "guided": guided,
}


def register_strategy(name: str, fn: Strategy, *, replace: bool = False) -> None:
    """Add a search strategy ``fn(ctx)`` (it calls ``ctx.score`` until :class:`BudgetSpent`)."""
    if name in STRATEGIES and not replace:
        raise HuntError(f"strategy {name!r} exists; pass replace=True")
    STRATEGIES[name] = fn


def run_strategy(name: str, ctx: Context) -> None:
    try:
        fn = STRATEGIES[name]
    except KeyError:
        raise HuntError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}") from None
    try:
        fn(ctx)
    except BudgetSpent:
        pass


def shrink(space: Space, evaluator: Evaluator, start: Scored, keep: Callable[[Scored], bool],
           max_evals: int = 400) -> tuple[Scored, int]:
    """Greedy shrinking: take the first smaller candidate that still satisfies
    ``keep`` (fewer elements, smaller integers, rounder numbers) and repeat
    until no candidate does or ``max_evals`` evaluations were spent."""
    cur, used = start, 0
    improved = True
    while improved and used < max_evals:
        improved = False
        for cand in space.shrink_candidates(cur.data):
            if used >= max_evals:
                break
            if not space.valid(cand):
                continue
            used += 1
            s = evaluator(cand)
            if keep(s):
                cur, improved = s, True
                break
    return cur, used


def describe(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)
