"""Argument types and the shared flags of the ``dmlsched`` command (``-m``, ``-o``, ``--plugin``, ``-v``)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, NoReturn

from .exits import EXIT_BAD_INPUT


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit 2), not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------
# argument types


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` with ``value`` parsed as JSON when possible, else a string."""
    if "=" not in text or text.startswith("="):
        hint = ""
        if "." in text or "/" in text:
            hint = "; -o is --option everywhere: the output file is --out"
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}{hint}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        value = raw
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{key}: expected a finite value, got {raw!r}")
    return key.strip().replace("-", "_"), value


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text}")
    return v


def _int_in(text: str, lo: int, hi: int | None, need: str) -> int:
    """An integer argument in ``[lo, hi)`` (``hi=None``: no upper end);
    otherwise an error ``{need}, got TEXT``."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < lo or (hi is not None and v >= hi):
        raise argparse.ArgumentTypeError(f"{need}, got {text}")
    return v


def _seed(text: str) -> int:
    return _int_in(text, 0, 2**63, "must be an integer in [0, 2^63)")


# ---------------------------------------------------------------------------
# the parser


def _verbosity(p: argparse.ArgumentParser) -> None:
    if "-v" not in p._option_string_actions:  # noqa: SLF001 - argparse has no public test
        p.add_argument("-v", "--verbose", dest="verbose_sub", action="count", default=0,
                       help="log one line per stage; -vv: debug of dmlsched")


def _plugin(p: argparse.ArgumentParser) -> None:
    if "--plugin" not in p._option_string_actions:  # noqa: SLF001
        p.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE",
                       help="import a module or .py file registering methods/families first (repeatable)")


def _method_args(p: argparse.ArgumentParser, *, file_help: str = "instance file (JSON); '-': standard input") -> None:
    p.add_argument("file", help=file_help)
    p.add_argument("--method", "-m", required=True, help="method name (see `dmlsched methods PROBLEM`)")
    p.add_argument("--solver", default="highs", choices=["highs", "gurobi"], help="MIP solver (default highs)")
    p.add_argument("--time-limit", type=_positive, default=None, metavar="S",
                   help="deadline in seconds for the whole method (default: none)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of every random choice (default 0)")
    p.add_argument(
        "--option", "-o", type=_option, action="append", default=[], metavar="KEY=VALUE",
        help="method option (repeatable), value parsed as JSON when possible; "
             "`dmlsched methods PROBLEM` lists each method's options",
    )
    p.add_argument("--display", action="store_true", help="stream the solver's own log to standard error")
    _plugin(p)
    _verbosity(p)
