"""Stop requests (Ctrl-C, ``SIGTERM``) that reach every running method, solver
calls included.

A stop request is counted, not raised: :func:`request` bumps a process-wide
*generation*, and every :class:`~dmlsched.kit.Deadline` created before it
expires at once.  A method therefore stops the way it stops at its time limit
(keeping its best solution) and the kit marks its result
``details["interrupted"]`` (see :func:`dmlsched.kit.method`); the command
line reports it on standard error with a non-zero exit and never replaces a
previous output with the cut result.

Solver libraries run in C with the Python interpreter's signal handlers
waiting until they return, and CP-SAT installs its own ``SIGINT`` handler
that stops the search without telling anyone.  Around a solver call,
:func:`solver_call` (main thread only) therefore

* turns the Python handlers of ``SIGINT`` and ``SIGTERM`` into
  :func:`request` (no ``KeyboardInterrupt`` in the middle of a solver's
  callback), and
* watches the signal through :func:`signal.set_wakeup_fd`, which the
  interpreter writes to as soon as the signal arrives, even while the main
  thread is inside C: a watcher thread then calls the solver's own stop
  function (CP-SAT's ``stop_search``, HiGHS's ``cancelSolve``), and calls
  it again every :data:`RESTOP_S` until the solver returns (a stop that
  came just before the search began would be forgotten).

Outside solver calls a Ctrl-C is the usual ``KeyboardInterrupt``, which the
kit turns into a request as well.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import threading
import time
from typing import Callable, Iterator

log = logging.getLogger("dmlsched")

_lock = threading.RLock()
_generation = 0
_last_signal = 0
_stoppers: list["_Stopper"] = []
_watcher: tuple[socket.socket, socket.socket] | None = None

#: seconds between repeated stop calls to a solver call still running after a request
RESTOP_S = 0.05


class _Stopper:
    """The stop function of one running solver call.  A request calls it at
    once and then again every :data:`RESTOP_S` until the call ends: a solver
    asked to stop just before its search began (CP-SAT forgets such a call)
    is asked again once it runs."""

    def __init__(self, stop: Callable[[], None]) -> None:
        self.stop = stop
        self.active = True
        self.repeating = False

    def fire(self) -> None:
        self._call()
        with _lock:
            if self.repeating or not self.active:
                return
            self.repeating = True
        threading.Thread(target=self._repeat, name="dmlsched-restop", daemon=True).start()

    def _repeat(self) -> None:
        while self.active:
            time.sleep(RESTOP_S)
            if self.active:
                self._call()

    def _call(self) -> None:
        try:
            self.stop()
        except Exception:  # noqa: BLE001 - a solver that cannot be stopped runs to its limit
            log.debug("stop function %r failed", self.stop, exc_info=True)

#: signals that ask a command to stop
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def generation() -> int:
    """How many stop requests this process has seen (compare with :func:`since`)."""
    return _generation


def since(gen: int) -> bool:
    """Whether a stop request came after :func:`generation` returned ``gen``."""
    return _generation != gen


def last_signal() -> int:
    """The signal of the last stop request (``0``: none yet)."""
    return _last_signal


def signal_name(signum: int | None = None) -> str:
    """``"SIGINT"`` (Ctrl-C), ``"SIGTERM"``, ... of ``signum`` (default: the last request's)."""
    s = _last_signal if signum is None else signum
    try:
        return signal.Signals(s).name
    except ValueError:
        return "a stop request"


def exit_code(signum: int | None = None) -> int:
    """The conventional exit code of a command stopped by ``signum``: 128 + the signal number."""
    s = _last_signal if signum is None else signum
    return 128 + (s or int(signal.SIGINT))


def request(signum: int = signal.SIGINT) -> None:
    """Record a stop request and stop every solver running now."""
    global _generation, _last_signal
    with _lock:
        _generation += 1
        _last_signal = int(signum)
        stops = list(_stoppers)
    for stopper in stops:
        stopper.fire()


def _note(signum: int, frame: object) -> None:
    """The Python handler of a stop signal inside a solver call: a request, no exception."""
    request(signum)


def _watch(reader: socket.socket) -> None:
    """The watcher thread: each byte the interpreter writes to the wake-up
    socket is the number of a signal that just arrived."""
    while True:
        try:
            data = reader.recv(64)
        except OSError:
            return
        if not data:
            return
        for b in data:
            if b in STOP_SIGNALS:
                request(b)


def _wakeup_socket() -> socket.socket:
    global _watcher
    if _watcher is None:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        threading.Thread(target=_watch, args=(reader,), name="dmlsched-interrupt", daemon=True).start()
        _watcher = (reader, writer)
    return _watcher[1]


@contextlib.contextmanager
def solver_call(stop: Callable[[], None] | None) -> Iterator[bool]:
    """Run a solver call that a stop request ends through ``stop()`` (called
    from another thread; it must only ask the solver to stop).

    Yields whether stop signals are watched (only in the main thread, where
    the signal handlers live, and only for signals that have a Python
    handler: an ignored ``SIGINT`` stays ignored).
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    saved: dict[int, object] = {}
    for sig in STOP_SIGNALS:
        h = signal.getsignal(sig)
        if callable(h) and h is not _note:
            saved[sig] = signal.signal(sig, _note)
    if not saved:
        yield False
        return
    old_fd = None
    try:
        old_fd = signal.set_wakeup_fd(_wakeup_socket().fileno(), warn_on_full_buffer=False)
        if old_fd != -1:  # someone else (an event loop) listens: leave it theirs
            signal.set_wakeup_fd(old_fd)
            old_fd = None
    except (ValueError, OSError):
        old_fd = None
    stopper = _Stopper(stop) if stop is not None else None
    if stopper is not None:
        with _lock:
            _stoppers.append(stopper)
    try:
        yield True
    finally:
        if stopper is not None:
            with _lock:
                stopper.active = False
                with contextlib.suppress(ValueError):
                    _stoppers.remove(stopper)
        if old_fd is not None:
            signal.set_wakeup_fd(old_fd)
        for sig, h in saved.items():
            signal.signal(sig, h)  # type: ignore[arg-type]


@contextlib.contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """For a command: ``SIGTERM`` (like Ctrl-C) becomes a stop request and a
    ``KeyboardInterrupt``, so the command ends the way Ctrl-C ends it
    (main thread only; the previous handlers come back afterwards)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        request(signum)
        raise KeyboardInterrupt

    saved = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
            saved[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, h in saved.items():
            signal.signal(sig, h)
