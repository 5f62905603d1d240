"""Adversarial instance search: find the instances on which a heuristic is far
from optimal, or breaks the bound its paper claims.

>>> import dmlsched.hunt as hunt                                        # doctest: +SKIP
>>> r = hunt.hunt("moldable", "moldable-equi", strategy="anneal", budget=60, seed=1)  # doctest: +SKIP
>>> r.best.ratio, r.violation, r.files                                 # doctest: +SKIP

The search runs a strategy (:mod:`dmlsched.hunt.search`: random sampling,
hill climbing, simulated annealing, solver-guided) over the family's instance
space (:mod:`dmlsched.hunt.space`), scores each instance by the method's ratio
to a reference (:mod:`dmlsched.hunt.evaluate`; with an exact reference the
ratio is a certified lower bound on the true ratio), shrinks the best instance
to the smallest that keeps its ratio above the target, and writes it as an
instance file whose ``expected`` records the values found.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..registry import get_method, get_problem
from .evaluate import Evaluator, Scored, instance_hash
from .search import STRATEGIES, Context, register_strategy, run_strategy, shrink
from .space import SPACES, HuntError, Space, get_space, register_space


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
        it, else the best ratio itself).
    history
        ``(seconds, evaluations, best value)`` each time the best improved.
    first_violation
        ``(seconds, evaluations)`` of the first certified violation, or ``None``.
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
            "evaluations": self.evaluations, "elapsed_s": self.elapsed_s,
            "first_violation": list(self.first_violation) if self.first_violation else None,
            "history": [list(h) for h in self.history], "best": sc(self.best), "shrunk": sc(self.shrunk),
            "files": self.files,
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
        Seed of every random choice.
    target
        The ratio to beat (default: the method's claimed bound, when finite).
    objective
        ``"ratio"`` (maximise the ratio) or ``"excess"`` (maximise ratio /
        claimed bound, for bounds that depend on the instance); default
        ``"excess"`` when the method claims a bound, else ``"ratio"``.
    time_limit
        Per-run deadline of the method and of the reference.
    out
        Folder to write the shrunk instance (and ``hunt.json``) to.
    """
    spec = get_problem(problem)
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
        raise HuntError(f"{problem}/{method} claims no bound: use objective='ratio'")
    ev = Evaluator(problem, method, reference, time_limit=time_limit, seed=seed, options=options,
                   reference_options=reference_options)
    ctx = Context(space=space, evaluator=ev, rng=np.random.default_rng(seed), size=space.size(size),
                  seconds=budget, max_evals=max_evals, target=target, objective=objective)
    run_strategy(strategy, ctx)
    best = ctx.best
    shrunk = best
    thr = None
    if best is not None and best.ratio is not None and math.isfinite(best.ratio):
        tgt = target if target is not None else best.claimed
        if tgt is not None and math.isfinite(tgt) and best.ratio > tgt * (1 + 1e-6):
            thr = tgt
            keep = (lambda s: s.ratio is not None and s.ratio > thr * (1 + 1e-6)
                    and (not best.certified or s.certified))
        else:
            thr = best.ratio
            keep = lambda s: s.ratio is not None and s.ratio >= thr * (1 - 1e-9)  # noqa: E731
        shrunk, _ = shrink(space, ev, best, keep, max_evals=shrink_evals)
    res = HuntResult(
        problem=problem, method=method, reference=ev.reference, strategy=strategy, seed=seed,
        objective=objective, target=target if target is not None else (best.claimed if best else None),
        best=best, shrunk=shrunk, history=ctx.history, first_violation=ctx.first_violation,
        evaluations=ctx.steps, elapsed_s=ctx.elapsed(),
    )
    if out is not None and shrunk is not None:
        res.files = write(res, Path(out))
    _ = spec
    return res


def write(res: HuntResult, folder: Path) -> list[str]:
    """Write the shrunk instance (with its recorded values) and ``hunt-*.json``; returns the paths."""
    from ..io import from_dict, save

    folder.mkdir(parents=True, exist_ok=True)
    s = res.shrunk
    assert s is not None
    tag = f"{res.problem}-{res.method}-{res.strategy}-seed{res.seed}"
    data = json.loads(json.dumps(s.data))
    data["name"] = tag
    verb = "breaks its claimed bound" if s.violation else "is far from the reference"
    data["description"] = (
        f"Found by `dmlsched hunt {res.problem} --method {res.method} --strategy {res.strategy} "
        f"--seed {res.seed}`: {res.method} {verb} ({res.reference}): ratio {s.ratio:.6g}"
        + (f" against a claimed {s.claimed:.6g}" if s.claimed is not None and math.isfinite(s.claimed) else "")
        + "."
    )
    exp: dict[str, Any] = {"objective": {res.method: s.objective}}
    if s.reference_optimal and s.certified:
        exp["optimum"] = s.reference
    elif s.certified:
        exp["objective"][res.reference] = s.reference
    else:
        exp["bound"] = {res.reference: s.reference}
    if s.violation:
        exp["verdict"] = {res.method: "violated"}
    exp["facts"] = {"hunt": {"ratio": s.ratio, "claimed": s.claimed, "strategy": res.strategy, "seed": res.seed,
                             "evaluations": res.evaluations, "elapsed_s": round(res.elapsed_s, 3),
                             "first_violation": list(res.first_violation) if res.first_violation else None}}
    data["expected"] = exp
    inst_path = folder / f"{tag}.json"
    save(from_dict(data), inst_path)
    log_path = folder / f"hunt-{tag}.json"
    log_path.write_text(json.dumps(res.to_json(), indent=1, default=str) + "\n")
    return [str(inst_path), str(log_path)]


def plot_progress(results: list[HuntResult], path: str | Path, title: str | None = None) -> str:
    """Best value over time, one line per result (strategy); saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for r in results:
        if not r.history:
            continue
        xs = [h[0] for h in r.history] + [r.elapsed_s]
        ys = [h[2] for h in r.history] + [r.history[-1][2]]
        ax.step(xs, ys, where="post", label=f"{r.strategy} (seed {r.seed})")
    if results and results[0].objective == "excess":
        ax.axhline(1.0, color="k", lw=0.8, ls="--", label="claimed bound")
        ax.set_ylabel("best ratio / claimed bound")
    else:
        ax.set_ylabel("best ratio")
    ax.set_xlabel("seconds")
    ax.set_title(title or (f"{results[0].problem}/{results[0].method}" if results else "hunt"))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)


__all__ = [
    "Evaluator", "HuntError", "HuntResult", "SPACES", "STRATEGIES", "Scored", "Space", "get_space",
    "hunt", "instance_hash", "plot_progress", "register_space", "register_strategy", "write",
]
