"""Standard output that carries only what a command prints.

Solver libraries write to the process's file descriptor 1 from C and C++
(HiGHS's banner "Running HiGHS ...", CP-SAT's log, Gurobi's licence line),
which no ``sys.stdout`` redirection in Python sees.  :func:`command_stdout`
moves descriptor 1 away for the length of a command, to standard error when
the user asked for the solver's log (``--display``) and to ``/dev/null``
otherwise, while the command's own ``print`` keeps writing to the original
standard output through a new ``sys.stdout`` on a copy of the descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import sys
from typing import Iterator


def flush_c_stdio() -> None:
    """Flush the C library's ``stdout`` buffer (what ``printf`` wrote but did
    not send yet), so it lands where descriptor 1 points now."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # pragma: no cover - no libc symbol table
        pass


def _fileno(stream: object) -> int | None:
    try:
        return stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


@contextlib.contextmanager
def command_stdout(display: bool = False) -> Iterator[None]:
    """Within the block, descriptor 1 goes to standard error (``display``) or
    to ``/dev/null``, and ``sys.stdout`` (when it was descriptor 1) writes to
    the original standard output.

    Anything a library writes to descriptor 1 -- from C, C++ or a Python
    ``print`` to ``sys.__stdout__`` -- therefore never mixes with the
    command's output (one JSON document with ``--json``).  Where there is no
    real descriptor 1 (an embedded interpreter), the block runs unchanged.
    """
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    flush_c_stdio()
    try:
        keep = os.dup(1)
    except OSError:  # no descriptor 1: nothing to protect
        yield
        return
    try:
        sink = os.dup(2) if display else os.open(os.devnull, os.O_WRONLY)
    except OSError:
        os.close(keep)
        yield
        return
    old = sys.stdout
    swapped = _fileno(old) == 1
    os.dup2(sink, 1)
    os.close(sink)
    if swapped:
        sys.stdout = io.TextIOWrapper(
            io.FileIO(keep, "w", closefd=False),
            encoding=getattr(old, "encoding", None) or "utf-8",
            errors=getattr(old, "errors", None) or "strict",
            line_buffering=bool(getattr(old, "line_buffering", False)),
        )
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):  # a closed pipe: the caller reports it
            pass
        flush_c_stdio()
        if swapped:
            new, sys.stdout = sys.stdout, old
            with contextlib.suppress(OSError, ValueError):
                new.close()
        os.dup2(keep, 1)
        os.close(keep)
