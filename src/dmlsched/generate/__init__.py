"""Seeded instance generators reproducing each paper's evaluation setup.

One module per family (``hare``, ``rar``, ``cruise``, ``harmony``, ``hlas``,
``moldable``); each exposes functions ``f(seed=..., **params) -> instance``
usable from Python and from benchmark suites (``"dmlsched.generate.rar:generate"``).
"""
