"""Public hypothesis strategies, one module per problem family (``Family.strategies``
of every bundled family), re-exported here.

>>> from dmlsched.strategies import hare_instances   # doctest: +SKIP
>>> @given(hare_instances(max_jobs=3))               # doctest: +SKIP
... def test_ratio(inst): ...

Requires ``hypothesis``: ``pip install 'dmlsched[strategies]'`` (also in the
``dev`` extra).  Without it, importing this module raises a
:class:`ModuleNotFoundError` that says so.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ModuleNotFoundError as _e:
    if _e.name != "hypothesis":
        raise
    raise ModuleNotFoundError(
        "dmlsched.strategies needs the hypothesis package: pip install 'dmlsched[strategies]'",
        name="hypothesis",
    ) from None

from .registry import bundled_families

__all__: list[str] = []

for _family in bundled_families():
    if _family.strategies is None:
        continue
    _mod = _family.strategies.get()
    _names = getattr(_mod, "__all__", None) or [
        n for n, v in vars(_mod).items()
        if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == _mod.__name__
    ]
    for _name in _names:
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
