"""Search strategies and the hunt loop.

A strategy proposes instances; the :class:`Context` scores them (through the
:class:`~dmlsched.hunt.evaluate.Evaluator`), keeps the best, records the best
score over time and stops the strategy when the budget is spent.  Every
strategy draws its randomness from one ``numpy`` generator seeded by the hunt's
seed, and counts its budget in evaluations as well as seconds: with an
evaluation budget (``max_evals``) a hunt is reproducible exactly; with a time
budget it is the same search cut at a different point.

Strategies (pluggable: :data:`STRATEGIES`, :func:`register_strategy`):

``random``
    independent samples from the family's sampler (the baseline);
``hill``
    hill climbing with the structure-aware moves of
    :class:`~dmlsched.hunt.space.Space`, restarting when stuck;
``anneal``
    simulated annealing on the logarithm of the score, cooling by
    evaluation count, with restarts from the best;
``guided``
    the family's solver-guided strategy for the hunted method, where it has
    one (:func:`guided_strategy`), otherwise an error naming the
    families/methods that have one.

Where a solver-guided strategy lives, and how it is found.  The generic search
(:func:`dmlsched.hunt.guided.guided_search`: annealing batches alternated with
LP steps) is the hunt's; a family's part (the LP step that freezes its
heuristic's decisions, e.g. Hare's Algorithm 1) is in its folder, in
``problems/<family>/guided.py``.  That module is a plug-in of the hunt, at the
hunt's layer (8), not the families' (6): it builds on the generic search,
which scores every candidate through the hunt's
:class:`~dmlsched.hunt.evaluate.Evaluator` (``dmlsched.solve``, the bench
engines), so moving the search below the families would drag the hunt under
them.  No family module imports it; the family names it in
:attr:`Family.guided <dmlsched.family.Family.guided>` (a registered method, or
``"*"`` for every method, -> a :class:`~dmlsched.family.Ref`), and
:func:`guided_strategy` reads ``family(p).guided.get(method) or .get("*")``
and resolves it (the only import of the module, when a guided hunt starts).
A plugin that adds a method to a family it does not declare adds its strategy
with :func:`register_guided`.

Batches.  Every strategy proposes ``ctx.batch`` candidates at a time
(:meth:`Context.score_many`): independent samples (``random``), or
neighbours of the current instance (``hill``, ``anneal``, ``guided``'s
annealing moves), scored together (in parallel on the bench engine when the
hunt has workers) and then *consumed in proposal order* exactly as if they had
been scored one after another: hill climbing takes the first improving
neighbour of the batch, annealing the first accepted one (the rest of the
batch, neighbours of a state that was left, is discarded).  The search
therefore depends on the seed and the batch size only, never on the number of
workers or the order in which runs finish; with ``batch=1`` it is the
sequential search.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..family import Ref
from ..registry import families, family, methods
from .evaluate import Evaluator, Scored
from .space import HuntError, Space


class BudgetSpent(Exception):
    """Raised by :meth:`Context.score` when the budget is spent."""


@dataclass
class Context:
    """What a strategy works with.

    Attributes
    ----------
    batch
        Candidates proposed (and scored) at a time.
    pool
        An :class:`~dmlsched.hunt.pool.EnginePool` scoring batches on the bench
        engine, or ``None`` (in-process).
    progress
        ``progress(event, ctx)`` called with ``"best"`` on every new best and
        ``"violation"`` on the first certified violation, or ``None``.
    notes
        Counters a strategy may record (e.g. the guided strategy's LP steps),
        reported in the hunt's result.
    start_data
        An instance (JSON form) the local searches start from instead of a
        first sample (``None``: a sample).
    """

    space: Space
    evaluator: Evaluator
    rng: np.random.Generator
    size: dict
    seconds: float | None
    max_evals: int | None
    target: float | None
    objective: str = "ratio"  # "ratio" or "excess" (ratio / claimed bound)
    batch: int = 1
    pool: Any = None
    progress: Callable[[str, "Context"], None] | None = None
    start: float = field(default_factory=time.monotonic)
    best: Scored | None = None
    history: list[tuple[float, int, float]] = field(default_factory=list)
    first_violation: tuple[float, int] | None = None
    steps: int = 0
    notes: dict[str, Any] = field(default_factory=dict)
    start_data: dict | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def spent(self) -> bool:
        if self.max_evals is not None and self.steps >= self.max_evals:
            return True
        return self.seconds is not None and self.elapsed() >= self.seconds

    def check(self) -> None:
        """Raise :class:`BudgetSpent` when the budget is spent (for work that is not a scored
        candidate, e.g. the guided strategy's LP steps)."""
        if self.spent():
            raise BudgetSpent

    def value(self, s: Scored | None) -> float:
        """The search objective of a scored candidate."""
        if s is None or s.score == -math.inf:
            return -math.inf
        if self.objective == "excess":
            if s.claimed is None or not math.isfinite(s.claimed) or s.claimed <= 0:
                return -math.inf
            return s.score / s.claimed
        return s.score

    def score(self, data: dict) -> Scored:
        """Score ``data`` (one step of the budget); raises :class:`BudgetSpent` when spent."""
        return self.score_many([data])[0]

    def score_many(self, datas: Sequence[dict]) -> list[Scored]:
        """Score a batch (one step of the budget each), in proposal order.

        With an evaluation budget only the candidates it still allows are
        scored (the first ones); raises :class:`BudgetSpent` when the budget
        was spent before the batch.
        """
        if self.spent() or not datas:
            if not datas:
                return []
            raise BudgetSpent
        if self.max_evals is not None:
            datas = list(datas)[: self.max_evals - self.steps]
        scored = self.evaluator.evaluate_many(datas, self.pool)
        for s in scored:
            self.steps += 1
            if self.best is None or self.value(s) > self.value(self.best):
                self.best = s
                self.history.append((self.elapsed(), self.steps, self.value(s)))
                if self.progress is not None:
                    self.progress("best", self)
            if self.first_violation is None and s.violation:
                self.first_violation = (self.elapsed(), self.steps)
                if self.progress is not None:
                    self.progress("violation", self)
        return scored

    def sample(self) -> dict:
        for _ in range(100):
            d = self.space.finish(self.space.sample(self.rng, self.size))
            if self.space.valid(d) and self.space.fits(d, self.size):
                return d
        raise HuntError(f"the {self.space.problem} sampler gives no valid instance with size {self.size}")

    def initial(self) -> dict:
        """The first state of a local search: ``start_data`` the first time, then a sample."""
        if self.start_data is not None:
            d, self.start_data = self.start_data, None
            return d
        return self.sample()

    def mutate(self, data: dict) -> dict:
        """A random valid neighbour of ``data`` within the size caps."""
        return self.space.mutate(self.rng, data, size=self.size)

    def neighbours(self, data: dict) -> list[dict]:
        """``batch`` random neighbours of ``data`` (drawn in order from the one generator)."""
        return [self.mutate(data) for _ in range(self.batch)]


Strategy = Callable[[Context], None]


def random_sampling(ctx: Context) -> None:
    """Independent random instances from the family's sampler (after ``start_data``, if given)."""
    if ctx.start_data is not None:
        ctx.score(ctx.initial())
    while True:
        ctx.score_many([ctx.sample() for _ in range(ctx.batch)])


def hill_climbing(ctx: Context, patience: int = 40) -> None:
    """First-improvement hill climbing (ties accepted), restarting from a fresh
    sample after ``patience`` neighbours without improvement."""
    while True:
        cur = ctx.score(ctx.initial())
        stuck = 0
        while stuck < patience:
            tie = None
            for nxt in ctx.score_many(ctx.neighbours(cur.data)):
                if ctx.value(nxt) > ctx.value(cur):
                    cur, stuck, tie = nxt, 0, None
                    break
                if ctx.value(nxt) == ctx.value(cur):
                    tie = nxt
                stuck += 1
            if tie is not None:
                cur = tie


def anneal_step(ctx: Context, cur: Scored, temp: float) -> Scored:
    """One batch of annealing: neighbours of ``cur`` consumed in order, the
    first accepted (Metropolis on ``log(value)`` at temperature ``temp``)
    becomes the new state."""
    for nxt in ctx.score_many(ctx.neighbours(cur.data)):
        a, b = _log(ctx.value(cur)), _log(ctx.value(nxt))
        if b >= a or (math.isfinite(b) and ctx.rng.random() < math.exp((b - a) / max(temp, 1e-9))):
            return nxt
    return cur


class Annealing:
    """The state of one annealing chain (shared by :func:`simulated_annealing`
    and the solver-guided strategies): the current state ``cur``, the
    temperature ``temp``, evaluations ``since_best`` without a new best, and
    ``best_v`` the best value seen; starts from ``ctx.initial()``."""

    def __init__(self, ctx: Context, t0: float, cooling: float, reheat: int) -> None:
        self.ctx, self.t0, self.cooling, self.reheat = ctx, t0, cooling, reheat
        self.cur = ctx.score(ctx.initial())
        self.temp, self.since_best, self.best_v = t0, 0, ctx.value(self.cur)

    def batch(self) -> None:
        """One :func:`anneal_step` batch, then cool by ``cooling`` per
        evaluation it used and reheat (from the best instance so far, or a
        fresh sample) after ``reheat`` evaluations without a new best."""
        ctx = self.ctx
        before = ctx.steps
        self.cur = anneal_step(ctx, self.cur, self.temp)
        used = ctx.steps - before
        self.temp *= self.cooling ** used
        if ctx.value(ctx.best) > self.best_v:
            self.best_v, self.since_best = ctx.value(ctx.best), 0
        else:
            self.since_best += used
        if self.since_best >= self.reheat:
            self.cur = ctx.best if ctx.rng.random() < 0.5 else ctx.score(ctx.sample())
            self.temp, self.since_best = self.t0, 0


def simulated_annealing(ctx: Context, t0: float = 0.05, cooling: float = 0.995, reheat: int = 150) -> None:
    """Simulated annealing on ``log(value)``: a worse neighbour is accepted with
    probability ``exp(delta / T)``; ``T`` cools by ``cooling`` per evaluation
    and is reset (from the best instance so far, or a fresh sample) after
    ``reheat`` evaluations without a new best."""
    chain = Annealing(ctx, t0, cooling, reheat)
    while True:
        chain.batch()


def _log(v: float) -> float:
    return math.log(v) if v > 0 and math.isfinite(v) else -math.inf


_ADDED_GUIDED: dict[tuple[str, str], Callable[[Context], None]] = {}
"""Strategies added by :func:`register_guided`: ``(family, method or "*") -> strategy``."""


def register_guided(problem: str, method: str, fn: Callable[[Context], None], *, replace: bool = False) -> None:
    """Add a solver-guided strategy ``fn(ctx)`` for ``problem``/``method`` (``"*"``: every method)
    from a plugin: for a method a plugin adds to a family it does not declare, or a family
    registered in the older keyword form.  A family declares its own strategies in
    :attr:`Family.guided <dmlsched.family.Family.guided>` instead (as it declares
    ``Family.hunt`` rather than calling :func:`~dmlsched.hunt.space.register_space`).

    Raises
    ------
    HuntError
        If the method is not registered for the family (and is not ``"*"``), or a strategy
        for ``problem``/``method`` exists (the family's or an added one) and ``replace`` is false.
    UnknownMethodError
        If no family is named ``problem``.
    """
    name = family(problem).name
    if method != "*" and method not in {m.name for m in methods(name)}:
        raise HuntError(f"register_guided: {name} has no method {method!r} (give a registered method or '*')")
    if (name, method) in guided_strategies() and not replace:
        raise HuntError(f"a guided strategy for {name}/{method} exists; pass replace=True")
    _ADDED_GUIDED[(name, method)] = fn


def guided_strategies() -> dict[tuple[str, str], Ref | Callable[[Context], None]]:
    """Every solver-guided strategy, by ``(family, method or "*")``: the :class:`Ref` a family
    declares in :attr:`Family.guided <dmlsched.family.Family.guided>` (not imported here), or
    the callable a plugin added with :func:`register_guided` (which takes precedence)."""
    table: dict[tuple[str, str], Ref | Callable[[Context], None]] = {
        (fam.name, key): ref for fam in families() for key, ref in fam.guided.items()
    }
    table.update(_ADDED_GUIDED)
    return table


def guided_strategy(problem: str, method: str) -> Callable[[Context], None]:
    """The solver-guided strategy of ``problem``/``method``: ``family(problem).guided.get(method)
    or .get("*")``, resolved (its module, the family's ``guided.py``, is imported now, and only
    here), or what a plugin added for that key with :func:`register_guided`.

    Raises
    ------
    HuntError
        If the family has none for the method (naming every family/method that has one), or
        the strategy it names is not callable.
    UnknownMethodError
        If no family is named ``problem``.
    ImportError
        If the module the :class:`Ref` names cannot be imported or lacks the name.
    """
    fam = family(problem)
    for key in (method, "*"):
        fn = _ADDED_GUIDED.get((fam.name, key))
        if fn is None and key in fam.guided:
            fn = fam.guided[key].get()
            if not callable(fn):
                raise HuntError(f"{fam.name}: Family.guided[{key!r}] = {fam.guided[key].target} is not callable")
        if fn is not None:
            return fn
    have = ", ".join(f"{p}/{m}" for p, m in sorted(guided_strategies())) or "none"
    raise HuntError(f"no solver-guided strategy for {problem}/{method}; available: {have}")


def guided(ctx: Context) -> None:
    """The family's solver-guided strategy (:func:`guided_strategy`; the generic search it
    builds on: :mod:`dmlsched.hunt.guided`)."""
    guided_strategy(ctx.evaluator.problem, ctx.evaluator.method)(ctx)


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
           max_evals: int = 400, pool: Any = None, batch: int = 1, size: dict | None = None) -> tuple[Scored, int]:
    """Greedy shrinking: take the first smaller candidate that still satisfies
    ``keep`` (fewer elements, smaller integers, rounder numbers) and repeat
    until no candidate does or ``max_evals`` evaluations were spent.

    Candidates are scored ``batch`` at a time (on ``pool``'s engine when it
    has one) and consumed in order, so the result depends on ``batch`` only.
    With ``size``, candidates outside the space's caps are skipped (as moves).
    """
    cur, used = start, 0
    improved = True
    while improved and used < max_evals:
        improved = False
        chunk: list[dict] = []
        cands = (c for c in space.shrink_candidates(cur.data) if space.fits(c, size) and space.valid(c))
        exhausted = False
        while not improved and not exhausted and used < max_evals:
            chunk = []
            for c in cands:
                chunk.append(c)
                if len(chunk) >= min(batch, max_evals - used):
                    break
            if not chunk:
                exhausted = True
                break
            scored = evaluator.evaluate_many(chunk, pool)
            used += len(scored)
            for s in scored:
                if keep(s):
                    cur, improved = s, True
                    break
    return cur, used


def describe(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)
