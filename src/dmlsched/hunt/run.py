"""The hunt driver: :func:`hunt` checks its arguments, runs a strategy over the
family's instance space, shrinks the best instance it found and writes it
(:func:`write`); :func:`plot_progress` draws the best value over time.

The package :mod:`dmlsched.hunt` re-exports these names; its docstring says
how a hunt works.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import plot
from ..bench.engines import default_workers
from ..io import from_dict, save, to_dict, write_text_atomic
from ..kit import check_options
from ..registry import get_method, get_problem
from .evaluate import Evaluator, Scored
from .pool import EnginePool
from .search import STRATEGIES, Context, run_strategy, shrink
from .space import HuntError, Space, get_space


@dataclass
class HuntResult:
    """What :func:`hunt` found.

    Attributes
    ----------
    best
        The best candidate found by the search.
    shrunk
        ``best`` shrunk (fewer jobs, smaller integers, rounder numbers) while
        its ratio stays above the threshold (the target when the best breaks
        it, else the best ratio itself); ``None`` when the hunt was
        interrupted before shrinking.
    history
        ``(seconds, evaluations, best value)`` each time the best improved.
    first_violation
        ``(seconds, evaluations)`` of the first certified violation, or ``None``.
    batch, engine
        Candidates scored at a time; where they ran (``inprocess``, ``local``, ``dask``).
    notes
        What the strategy recorded (e.g. the guided strategy's LP steps).
    interrupted
        Whether a stop request (Ctrl-C, ``SIGTERM``) ended the search early;
        runs it cut were not scored.
    """

    problem: str
    method: str
    reference: str
    strategy: str
    seed: int
    objective: str
    target: float | None
    best: Scored | None
    shrunk: Scored | None
    history: list[tuple[float, int, float]]
    first_violation: tuple[float, int] | None
    evaluations: int
    elapsed_s: float
    files: list[str] = field(default_factory=list)
    batch: int = 1
    engine: str = "inprocess"
    notes: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    reference_options: dict[str, Any] = field(default_factory=dict)
    size: dict[str, Any] = field(default_factory=dict)
    run_seed: int = 0
    interrupted: bool = False

    @property
    def violation(self) -> bool:
        return bool(self.shrunk is not None and self.shrunk.violation)

    def to_json(self) -> dict[str, Any]:
        def sc(s: Scored | None) -> dict | None:
            if s is None:
                return None
            return {"ratio": s.ratio, "claimed": s.claimed, "objective": s.objective, "reference": s.reference,
                    "reference_optimal": s.reference_optimal, "certified": s.certified,
                    "violation": s.violation, "hash": s.hash, "instance": s.data}

        return {
            "problem": self.problem, "method": self.method, "reference": self.reference,
            "strategy": self.strategy, "seed": self.seed, "objective": self.objective, "target": self.target,
            "evaluations": self.evaluations, "elapsed_s": self.elapsed_s, "batch": self.batch,
            "engine": self.engine, "notes": self.notes, "options": self.options,
            "reference_options": self.reference_options, "size": self.size, "run_seed": self.run_seed,
            "first_violation": list(self.first_violation) if self.first_violation else None,
            "history": [list(h) for h in self.history], "best": sc(self.best), "shrunk": sc(self.shrunk),
            "files": self.files, "interrupted": self.interrupted,
        }


def hunt(
    problem: str,
    method: str,
    *,
    reference: str | None = None,
    strategy: str = "anneal",
    budget: float | None = 60.0,
    max_evals: int | None = None,
    size: dict | None = None,
    seed: int = 0,
    target: float | None = None,
    objective: str | None = None,
    time_limit: float | None = 10.0,
    options: dict | None = None,
    reference_options: dict | None = None,
    shrink_evals: int = 400,
    out: str | Path | None = None,
    batch: int | None = None,
    workers: int | None = 0,
    dask: str | None = None,
    solver: str = "highs",
    plugins: tuple[str, ...] | list[str] = (),
    progress: Callable[[str, Context], None] | None = None,
    start: Any = None,
    run_seed: int = 0,
) -> HuntResult:
    """Search the instance space of ``problem`` for instances where ``method`` is worst.

    Parameters
    ----------
    problem, method
        Family and the hunted method.
    reference
        The method scored against (default: the family's reference, usually
        ``exact``); a ``bound`` method gives an optimistic (uncertified) ratio.
    strategy
        ``random``, ``hill``, ``anneal`` or ``guided`` (see :mod:`dmlsched.hunt.search`).
    budget, max_evals
        Seconds and/or number of scored instances (with ``max_evals`` alone
        the hunt is exactly reproducible by ``seed``).
    size
        Size parameters of the family's sampler (``Space.default_size``).
    seed
        Seed of every random choice of the search.
    target
        The ratio to beat (default: the method's claimed bound, when finite).
    objective
        ``"ratio"`` (maximise the ratio) or ``"excess"`` (maximise ratio /
        claimed bound, for bounds that depend on the instance); default
        ``"excess"`` when the method claims a bound, else ``"ratio"``.
    time_limit
        Per-run deadline of the method and of the reference.
    out
        Folder to write the shrunk instance (and ``hunt-*.json``) to.
    batch
        Candidates proposed and scored at a time (default: ``workers``, at
        least 1).  The search depends on the batch, not on where it runs:
        ``workers=4`` and ``workers=0, batch=4`` give the same hunt.
    workers, dask
        Evaluate on the bench engine: ``workers`` local worker processes
        (``0``: in this process, the default; ``None``: one per core), or a
        Dask scheduler address (``"local"``: a local cluster of ``workers``).
    solver
        MIP solver of the method and the reference.
    plugins
        Plugin modules the engine's workers import (``--plugin``).
    progress
        ``progress(event, ctx)``: ``"best"`` on each new best, ``"violation"``
        on the first certified violation (see :class:`~.search.Context`).
    run_seed
        Seed passed to every run of the method and the reference (default 0,
        the seed instance files record values for).
    start
        An instance (object or JSON dict of ``problem``) to start the local
        searches from (scored first by every strategy) instead of a sample.
    """
    get_problem(problem)  # unknown family: UnknownMethodError naming it
    m = get_method(problem, method)
    space = get_space(problem)
    if strategy not in STRATEGIES:
        raise HuntError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    if budget is None and max_evals is None:
        raise HuntError("give a budget in seconds or max_evals")
    if objective is None:
        objective = "excess" if m.bound is not None else "ratio"
    if objective not in ("ratio", "excess"):
        raise HuntError(f"objective must be 'ratio' or 'excess', got {objective!r}")
    if objective == "excess" and m.bound is None:
        raise HuntError(f"objective: {problem}/{method} claims no bound: use the objective 'ratio' "
                        "(--objective ratio)")
    if budget is not None and not (budget > 0 and math.isfinite(budget)):
        raise HuntError(f"budget must be a positive number of seconds, got {budget!r}")
    if max_evals is not None and (isinstance(max_evals, bool) or not isinstance(max_evals, int) or max_evals < 1):
        raise HuntError(f"max_evals must be a positive integer, got {max_evals!r}")
    if target is not None and not (target > 0 and math.isfinite(target)):
        raise HuntError(f"target must be a positive number, got {target!r}")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise HuntError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 0):
        raise HuntError(f"workers must be a non-negative integer, got {workers!r}")
    if batch is None:
        batch = max(1, workers if workers is not None else _cores())
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise HuntError(f"batch must be a positive integer, got {batch!r}")
    sz = space.size(size)
    start_data = None
    if start is not None:
        inst0 = from_dict(start) if isinstance(start, dict) else start
        start_data = to_dict(inst0)
        if start_data.get("problem") != problem:
            raise HuntError(f"start: a {start_data.get('problem')!r} instance, not {problem!r}")
        for k in ("name", "description", "expected"):
            start_data.pop(k, None)
    ev = Evaluator(problem, method, reference, time_limit=time_limit, seed=run_seed, options=options,
                   reference_options=reference_options, solver=solver, plugins=tuple(plugins),
                   keep_solutions=64 if strategy == "guided" else 0)
    if ev.r.kind not in ("exact", "bound"):
        raise HuntError(f"reference: {problem}/{ev.reference} is a {ev.r.kind}, which proves nothing about the "
                        "optimum: name an exact method (certified ratios) or a bound method")
    # options are checked before any search starts (an unknown option is bad input, not a finding)
    for name, opts, spec_m in ((method, ev.options, m), (ev.reference, ev.reference_options, ev.r)):
        if spec_m.uses_kit:
            check_options(problem, name, spec_m.options, opts)
    pool = EnginePool(workers, dask, time_limit) if (dask or workers is None or workers > 0) else None
    engine = pool.name if pool is not None else "inprocess"

    def result(shrunk: Scored | None, interrupted: bool) -> HuntResult:
        best = ctx.best
        return HuntResult(
            problem=problem, method=method, reference=ev.reference, strategy=strategy, seed=seed,
            objective=objective, target=target if target is not None else (best.claimed if best else None),
            best=best, shrunk=shrunk, history=ctx.history, first_violation=ctx.first_violation,
            evaluations=ctx.steps, elapsed_s=ctx.elapsed(), batch=batch,
            engine=engine, notes=dict(ctx.notes), options=dict(ev.options),
            reference_options=dict(ev.reference_options), size=dict(sz), run_seed=run_seed,
            interrupted=interrupted,
        )

    def on_progress(event: str, c: Context) -> None:
        if event == "best" and out is not None and _scored(c.best):
            write(result(None, False), Path(out))  # saved as it goes: a stop or a kill keeps the best so far
        if progress is not None:
            progress(event, c)

    interrupted = False
    ctx = Context(space=space, evaluator=ev, rng=np.random.default_rng(seed), size=sz,
                  seconds=budget, max_evals=max_evals, target=target, objective=objective, batch=batch,
                  pool=pool, progress=on_progress, start_data=start_data)
    shrunk = None
    try:
        try:
            run_strategy(strategy, ctx)
            shrunk = _shrink(space, ev, ctx.best, target, objective, shrink_evals, pool, batch, sz)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stop searching, keep what was found
            interrupted = True
    finally:
        if pool is not None:
            pool.close()
    res = result(shrunk, interrupted)
    if out is not None and _scored(res.shrunk if res.shrunk is not None else res.best):
        res.files = write(res, Path(out))
    return res


def _scored(s: Scored | None) -> bool:
    """Whether ``s`` has a ratio to record."""
    return s is not None and s.ratio is not None


def _cores() -> int:
    return default_workers()


def _shrink(space: Space, ev: Evaluator, best: Scored | None, target: float | None, objective: str,
            shrink_evals: int, pool: Any, batch: int, size: dict | None = None) -> Scored | None:
    """Shrink ``best`` while it stays as bad: above ``target`` when it beats it,
    a violation of its own claimed bound when it is one (certified stays
    certified), else at least its own search value (ratio, or ratio / claimed
    bound for ``objective="excess"``)."""
    if best is None or best.ratio is None or not math.isfinite(best.ratio):
        return best
    tol = 1 + 1e-6

    def claimed_ok(s: Scored) -> bool:
        return s.claimed is not None and math.isfinite(s.claimed) and s.claimed > 0

    if target is not None and best.ratio > target * tol:
        def keep(s: Scored) -> bool:
            return s.ratio is not None and s.ratio > target * tol and (not best.certified or s.certified)
    elif target is None and claimed_ok(best) and best.ratio > best.claimed * tol:
        def keep(s: Scored) -> bool:
            return (s.ratio is not None and claimed_ok(s) and s.ratio > s.claimed * tol
                    and (not best.certified or s.certified))
    else:
        def value(s: Scored) -> float:
            if s.ratio is None or not math.isfinite(s.ratio):
                return -math.inf
            if objective == "excess":
                return s.ratio / s.claimed if claimed_ok(s) else -math.inf
            return s.ratio
        v0 = value(best)

        def keep(s: Scored) -> bool:
            return value(s) >= v0 * (1 - 1e-9)
    shrunk, _ = shrink(space, ev, best, keep, max_evals=shrink_evals, pool=pool, batch=batch, size=size)
    return shrunk


def write(res: HuntResult, folder: Path) -> list[str]:
    """Write the shrunk instance (the best one while it is not shrunk), with its
    recorded values, and ``hunt-*.json``, each atomically; returns the paths.

    ``expected`` follows the instance-file schema (``tests/test_conformance.py``):
    a method's ``objective`` and ``verdict`` are recorded only for runs with
    default options and run seed 0 (the verdict only against the family's
    default reference): what the conformance test re-runs; otherwise the
    values go to ``facts["hunt"]`` with the options, reference and seed they
    hold for.
    """
    folder.mkdir(parents=True, exist_ok=True)
    s = res.shrunk if res.shrunk is not None else res.best  # not shrunk (yet): the best found
    assert s is not None
    spec = get_problem(res.problem)
    tag = f"{res.problem}-{res.method}-{res.strategy}-seed{res.seed}"
    data = json.loads(json.dumps(s.data))
    data["name"] = tag
    verb = "breaks its claimed bound" if s.violation else "is far from the reference"
    opts = "".join(f" -o {k}={json.dumps(v)}" for k, v in sorted(res.options.items()))
    data["description"] = (
        f"Found by `dmlsched hunt {res.problem} --method {res.method}{opts} --strategy {res.strategy} "
        f"--seed {res.seed}`: {res.method} {verb} ({res.reference}): ratio {s.ratio:.6g}"
        + (f" against a claimed {s.claimed:.6g}" if s.claimed is not None and math.isfinite(s.claimed) else "")
        + "."
    )
    default_run = not res.options and res.run_seed == 0
    default_ref = not res.reference_options and res.run_seed == 0
    exp: dict[str, Any] = {}
    if default_run:
        exp["objective"] = {res.method: s.objective}
    if s.reference_optimal and s.certified:
        exp["optimum"] = s.reference
    elif s.certified and default_ref:
        exp.setdefault("objective", {})[res.reference] = s.reference
    elif default_ref:
        exp["bound"] = {res.reference: s.reference}
    if s.violation and default_run and res.reference == spec.default_reference:
        exp["verdict"] = {res.method: "violated"}
    exp["facts"] = {"hunt": {"method": res.method, "options": res.options, "reference": res.reference,
                             "reference_options": res.reference_options, "seed": res.seed,
                             "run_seed": res.run_seed,
                             "objective": s.objective, "reference_value": s.reference,
                             "reference_optimal": s.reference_optimal, "certified": s.certified,
                             "ratio": s.ratio, "claimed": s.claimed, "violation": s.violation,
                             "strategy": res.strategy, "evaluations": res.evaluations,
                             "elapsed_s": round(res.elapsed_s, 3),
                             "first_violation": list(res.first_violation) if res.first_violation else None}}
    data["expected"] = exp
    inst_path = folder / f"{tag}.json"
    save(from_dict(data), inst_path)
    log_path = folder / f"hunt-{tag}.json"
    write_text_atomic(log_path, json.dumps(res.to_json(), indent=1, default=str) + "\n")
    return [str(inst_path), str(log_path)]


def plot_progress(results: list[HuntResult], path: str | Path, title: str | None = None) -> str:
    """Best value over time, one line per result (strategy) in its colour,
    marker and line style (:func:`dmlsched.plot.method_styles`); saved as PNG
    (or the format of ``path``'s suffix)."""
    plt = plot._plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    labels = [f"{r.strategy} (seed {r.seed})" for r in results]
    styles = plot.method_styles(labels)
    for r, label in zip(results, labels):
        if not r.history:
            continue
        xs = [h[0] for h in r.history] + [r.elapsed_s]
        ys = [h[2] for h in r.history] + [r.history[-1][2]]
        st = styles[label]
        ax.step(xs, ys, where="post", label=label, color=st["color"], linestyle=st["linestyle"],
                marker=st["marker"], markersize=4, markevery=max(1, len(xs) // 8))
    if results and results[0].objective == "excess":
        ax.axhline(1.0, color="k", lw=0.8, ls="--", label="claimed bound")
        ax.set_ylabel("best ratio / claimed bound")
    else:
        ax.set_ylabel("best ratio")
    ax.set_xlabel("seconds")
    ax.set_title(title or (f"{results[0].problem}/{results[0].method}" if results else "hunt"))
    ax.legend(fontsize=8)
    plot.savefig(ax, str(path), dpi=100)  # atomically: an interrupted hunt never leaves half an image
    return str(path)
