"""The incumbent channel: where a running method's improving solutions are streamed.

A listener (the benchmark engine's worker process, :mod:`dmlsched.bench.child`)
installs a sink with :func:`incumbent_sink` around a solve; the method kit
(:meth:`dmlsched.kit.Run.incumbent`) passes every improving incumbent that the
family's validator accepted to :func:`current_sink`, so a run that has to be
killed is recorded with its last incumbent.  The channel is a context
variable: a sink installed in one thread or task is not seen by another.

layer L4 (docs/architecture.rst, "Layers"), beside :mod:`dmlsched.kit`; it imports nothing of dmlsched.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable, Iterator

#: what a sink receives: ``{"problem", "method", "objective", "bound", "elapsed_s"}``
IncumbentSink = Callable[[dict[str, Any]], None]

_SINK: contextvars.ContextVar[IncumbentSink | None] = contextvars.ContextVar(
    "dmlsched_incumbent_sink", default=None)


@contextlib.contextmanager
def incumbent_sink(sink: IncumbentSink | None) -> Iterator[None]:
    """Within the block, every improving incumbent of a method is passed to
    ``sink`` as ``{"problem", "method", "objective", "bound", "elapsed_s"}``
    (after the family's validator accepted it); ``None`` silences the channel
    (a nested solve whose incumbents are not the outer method's).  The sink
    that was installed before is restored on leaving."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def current_sink() -> IncumbentSink | None:
    """The sink installed by the innermost :func:`incumbent_sink` block, or ``None``."""
    return _SINK.get()


__all__ = ["IncumbentSink", "current_sink", "incumbent_sink"]
