"""Problem families.  Importing this package registers every family.

To add a family: create ``problems/<family>/`` with ``instance.py``,
``solution.py``, ``models.py``, ``heuristics.py``, ``bounds.py`` (and
``strategies.py``), register the family with :func:`~dmlsched.registry.register_family` and its
methods in the subpackage's ``__init__``, and add its name to ``FAMILIES``.
"""

import importlib

FAMILIES = ["hare", "harmony", "gpugrouping", "cruise", "moldable", "rar", "hlas"]

for _name in FAMILIES:
    importlib.import_module(f"{__name__}.{_name}")


def family_package(name: str) -> str:
    """The package of a family given its registry name (``gpu-grouping`` -> ``dmlsched.problems.gpugrouping``)."""
    pkg = name.replace("-", "")
    if pkg not in FAMILIES:
        raise KeyError(f"no family package for {name!r}")
    return f"{__name__}.{pkg}"
