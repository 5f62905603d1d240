"""Solver-guided search strategies (filled per family)."""

from __future__ import annotations

from typing import Callable

GUIDED: dict[tuple[str, str], Callable] = {}
