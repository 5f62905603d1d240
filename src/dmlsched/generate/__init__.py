"""Seeded instance generators reproducing each paper's evaluation setup.

One module per family (``hare``, ``rar``, ``cruise``, ``harmony``, ``hlas``,
``moldable``); each exposes functions ``f(*, seed=0, **params) -> instance``
usable from Python and from benchmark suites (``"dmlsched.generate.rar:generate"``).

One spelling across families: every argument is keyword-only, ``seed`` (default
0) seeds every random draw, counts are ``num_<things>`` (``num_jobs``,
``num_gpus``, ``num_servers``, ``num_machines``, ``num_tasks``,
``num_groups``), ranges of counts ``min_<things>`` / ``max_<things>``.  A bad
argument raises :class:`GeneratorArgumentError` naming the generator and the
argument (``generate.hare.simulation: num_jobs must be an integer >= 1, got
-4``); ``dmlsched bench`` reports it as bad input (exit 2).
"""

from ._check import GeneratorArgumentError

__all__ = ["GeneratorArgumentError"]
