"""Public hypothesis strategies, one module per problem family, re-exported here.

>>> from dmlsched.strategies import hare_instances   # doctest: +SKIP
>>> @given(hare_instances(max_jobs=3))               # doctest: +SKIP
... def test_ratio(inst): ...

Requires ``hypothesis``: ``pip install 'dmlsched[strategies]'`` (also in the
``dev`` extra).  Without it, importing this module raises a
:class:`ModuleNotFoundError` that says so.
"""

from __future__ import annotations

import importlib

try:
    import hypothesis  # noqa: F401
except ModuleNotFoundError as _e:
    if _e.name != "hypothesis":
        raise
    raise ModuleNotFoundError(
        "dmlsched.strategies needs the hypothesis package: pip install 'dmlsched[strategies]'",
        name="hypothesis",
    ) from None

from .problems import FAMILIES

__all__: list[str] = []

for _family in FAMILIES:
    try:
        _mod = importlib.import_module(f"dmlsched.problems.{_family}.strategies")
    except ModuleNotFoundError as _e:  # a family without strategies
        if _e.name != f"dmlsched.problems.{_family}.strategies":
            raise
        continue
    _names = getattr(_mod, "__all__", None) or [
        n for n, v in vars(_mod).items()
        if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == _mod.__name__
    ]
    for _name in _names:
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
