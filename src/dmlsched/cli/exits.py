"""Exit codes and the one line on standard error of the ``dmlsched`` command.

The codes are the ones :mod:`dmlsched.cli` documents: 0 success, 1 failure, 2 bad input,
3 not applicable, 128 + the signal when a stop request cut the command.  An exception's
code and line come from its type (:data:`EXIT_CODES`); a method's ``error`` and ``n/a``
results from :func:`_report_failure`.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

from .. import interrupt
from ..errors import (
    DmlschedError,
    InvalidSolutionError,
    SolverError,
    SolverLimitError,
    SolverUnavailableError,
    UnknownSolverError,
)

#: exit code of bad input
EXIT_BAD_INPUT = 2
#: exit code of a method that refused the instance (status ``n/a``)
EXIT_NOT_APPLICABLE = 3


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _interrupted(what: str) -> int:
    """Say on standard error that a stop request cut the command; its exit code (128 + signal)."""
    print(f"interrupted by {interrupt.signal_name()}: {what}", file=sys.stderr)
    return interrupt.exit_code()


def _report_failure(res: Any) -> int:
    """Exit code 1 (``error``) or 3 (``n/a``) with the method's message on stderr."""
    if res.status.value not in ("error", "n/a"):
        return 0
    msg = _one_line(res.details.get("error") or "the method failed")
    if res.status.value == "n/a":
        print(f"not applicable: {res.problem}/{res.method}: {msg}", file=sys.stderr)
        return EXIT_NOT_APPLICABLE
    print(f"error: {res.problem}/{res.method}: {msg}", file=sys.stderr)
    return 1


def _gurobi_hint(e: BaseException) -> str:
    return " (pip install 'dmlsched[gurobi]'; its pip licence is size-limited)" if "gurobi" in str(e) else ""


def _os_error(e: BaseException) -> str:
    where = getattr(e, "filename", None)
    where = where if where is not None else ""
    return f"{where}{': ' if where else ''}{getattr(e, 'strerror', None) or e}"


#: exit code and standard-error line of a command that raised, by exception type: the first row
#: whose type the exception is an instance of wins (subclasses before their bases).  The line is
#: the prefix and the message (``_one_line(str(e))`` unless the row gives its own function).
#: A stop request (``KeyboardInterrupt``: 128 + the signal) and a closed standard output
#: (``BrokenPipeError``: 141, nothing printed) are handled by :func:`main` before this table.
EXIT_CODES: tuple[tuple[type[BaseException], int, str, Any], ...] = (
    (InvalidSolutionError, 1, "internal error: invalid solution: ", None),
    (SolverLimitError, EXIT_BAD_INPUT, "error: ", None),
    (UnknownSolverError, EXIT_BAD_INPUT, "error: ", None),
    # an extra that is not installed (or no licence)
    (SolverUnavailableError, EXIT_BAD_INPUT, "error: --solver: ", lambda e: _one_line(str(e)) + _gurobi_hint(e)),
    (SolverError, 1, "solver error: ", None),
    # bad files, unknown methods/options/problems, bad option values, unusable arguments and paths
    (DmlschedError, EXIT_BAD_INPUT, "error: ", None),
    (ValueError, EXIT_BAD_INPUT, "error: ", None),
    (OSError, EXIT_BAD_INPUT, "error: ", _os_error),  # a path that cannot be read or written
    (ImportError, EXIT_BAD_INPUT, "error: ", None),  # an optional extra that is not installed
    # a bug: one line, the traceback with -vv
    (Exception, 1, "internal error: ",
     lambda e: f"{type(e).__name__}: {_one_line(str(e))} (run with -vv for the traceback)"),
)


def exit_for(e: BaseException, verbose: int = 0) -> int:
    """Print the standard-error line of ``e`` and return its exit code (:data:`EXIT_CODES`).

    With ``verbose >= 2`` an exception that only the last row (``Exception``) matches, a bug,
    prints its traceback first.
    """
    for kind, code, prefix, message in EXIT_CODES:
        if isinstance(e, kind):
            if kind is Exception and verbose >= 2:
                traceback.print_exception(e)
            print(f"{prefix}{message(e) if message else _one_line(str(e))}", file=sys.stderr)
            return code
    raise e  # not an Exception (e.g. SystemExit): not ours to map
