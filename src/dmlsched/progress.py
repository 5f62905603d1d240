"""Progress of commands that can run long (``solve``, ``check``, ``gantt``,
``hunt``), on standard error, with tqdm.

On a terminal, one line redrawn in place: what runs (``hare/list``), its
current stage (``build``, ``solve``, ...), the time elapsed and, with a time
limit, a bar towards it.  Off when standard error is not a terminal (a log
file, a pipe, CI), when ``DMLSCHED_NO_PROGRESS`` is set, and with ``-v`` or
``--display`` (whose lines would cut through it).  The line is erased when
the work ends, so what a command prints is unchanged.

Methods report their stages through :meth:`dmlsched.kit.Run.stage`, which
calls :func:`set_stage`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from typing import Any, Iterator, TextIO

#: environment variable that turns progress displays off
NO_PROGRESS_ENV = "DMLSCHED_NO_PROGRESS"

#: seconds between redraws
REFRESH_S = 0.5

_state: dict[str, Any] = {"stage": None, "postfix": None}


def set_stage(name: str | None) -> None:
    """The stage shown on the progress line (``"hare/list: solve"``)."""
    _state["stage"] = name


def set_postfix(text: str | None) -> None:
    """Extra text shown at the end of the progress line (``"best 1.31"``)."""
    _state["postfix"] = text


def wanted(stream: TextIO | None = None, *, verbose: int = 0, display: bool = False) -> bool:
    """Whether to show progress on ``stream`` (default standard error)."""
    stream = stream if stream is not None else sys.stderr
    if os.environ.get(NO_PROGRESS_ENV) or verbose > 0 or display:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def running(desc: str, total_s: float | None = None, *, enabled: bool = True,
            stream: TextIO | None = None) -> Iterator[None]:
    """Show ``desc``, the current stage and the elapsed time (out of
    ``total_s`` seconds when given) while the block runs."""
    if not enabled:
        yield
        return
    try:
        from tqdm import tqdm  # noqa: PLC0415 - tqdm only when a progress bar is drawn
    except ImportError:  # pragma: no cover - tqdm is a dependency
        yield
        return
    stream = stream if stream is not None else sys.stderr
    fmt = ("{desc} {bar} {n:.0f}/{total:.0f} s{postfix}" if total_s else "{desc} {n:.0f} s{postfix}")
    cols = shutil.get_terminal_size((80, 24)).columns or 80  # a pseudo-terminal may report 0
    bar = tqdm(total=total_s, desc=desc, file=stream, leave=False, bar_format=fmt, ncols=min(max(cols, 40), 120))
    stop = threading.Event()
    t0 = time.monotonic()
    set_stage(None)
    set_postfix(None)

    def tick() -> None:
        while not stop.wait(REFRESH_S):
            el = time.monotonic() - t0
            bar.n = min(el, total_s) if total_s else el
            extra = [x for x in (_state["stage"], _state["postfix"]) if x]
            bar.set_postfix_str(" | ".join(extra), refresh=False)
            bar.refresh()

    th = threading.Thread(target=tick, daemon=True)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join(timeout=2)
        bar.close()
        set_stage(None)
        set_postfix(None)


def for_command(args: Any, desc: str, total_s: float | None) -> Any:
    """The progress line of a command running ``desc`` (e.g. ``hare/list``)
    with its parsed arguments ``args``: on a terminal only, not with ``-v``
    (``verbose``/``verbose_sub``) or ``--display``."""
    verbose = int(getattr(args, "verbose", 0) or 0) + int(getattr(args, "verbose_sub", 0) or 0)
    return running(desc, total_s, enabled=wanted(verbose=verbose, display=bool(getattr(args, "display", False))))


def write(text: str) -> None:
    """Print a line on standard error above a progress line (or plainly)."""
    try:
        from tqdm import tqdm  # noqa: PLC0415 - tqdm only when a progress bar is drawn

        tqdm.write(text, file=sys.stderr)
    except ImportError:  # pragma: no cover
        print(text, file=sys.stderr, flush=True)
