"""Sphinx configuration of the dmlsched API reference.

Build: ``sphinx-build -W -b html docs docs/_build`` (``tests/test_docs.py``
builds it with warnings as errors into a temporary folder).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import dmlsched  # noqa: E402

project = "dmlsched"
author = "dmlsched developers"
release = version = dmlsched.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",   # numpydoc-style sections (Parameters, Returns, Raises, ...)
    "sphinx.ext.viewcode",
    "instance_formats",      # .. instance-format:: FAMILY, rendered from dmlsched.formats
]

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_preprocess_types = False

autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# optional extras and heavy solvers are not needed to read the docstrings
autodoc_mock_imports = ["gurobipy", "matplotlib", "dask", "distributed"]

# type names in annotations that are not documented here (numpy, pyomo, ...) are not errors
nitpicky = False
suppress_warnings = ["ref.python"]

exclude_patterns = ["_build", "_ext"]
html_theme = "alabaster"
html_static_path: list[str] = []

# "Attributes" sections as :ivar: fields (dataclass fields are documented once)
napoleon_use_ivar = True
