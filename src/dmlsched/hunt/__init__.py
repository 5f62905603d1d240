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

Candidates are scored a batch at a time, in this process or on the bench
engine (:mod:`dmlsched.hunt.pool`: local worker processes, Dask), and
consumed in proposal order: a hunt is determined by its seed, batch size and
evaluation budget, not by the engine or the number of workers.  The command
line is ``dmlsched hunt`` (:mod:`dmlsched.cli.hunt`).

The driver (:func:`hunt`, :func:`write`, :func:`plot_progress`) is in
:mod:`dmlsched.hunt.run`; this package re-exports it.
"""

from __future__ import annotations

from ..suites import instance_hash
from .evaluate import Evaluator, Scored
from .pool import EnginePool
from .run import HuntResult, hunt, plot_progress, write
from .search import STRATEGIES, Context, register_strategy
from .space import SPACES, HuntError, Space, get_space, register_space

__all__ = [
    "Context", "EnginePool", "Evaluator", "HuntError", "HuntResult", "SPACES", "STRATEGIES", "Scored", "Space",
    "get_space", "hunt", "instance_hash", "plot_progress", "register_space", "register_strategy", "write",
]
