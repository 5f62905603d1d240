"""A progress display on stderr: counts, elapsed time, estimated time left.

On a terminal one line is redrawn in place (a bar).  Otherwise (a log file, a
CI job) a one-line summary is printed at most every ``interval`` seconds
(default :data:`LOG_INTERVAL_S`) and once at the end, so a log holds a few
lines, not one per run.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

#: seconds between progress lines when the output is not a terminal
LOG_INTERVAL_S = 15.0


def fmt_duration(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "--:--"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Counts of finished runs with elapsed time and ETA.

    Parameters
    ----------
    total
        Runs to do in this sweep (runs already in the results file excluded).
    skipped
        Runs found already done in the results file.
    retried
        Runs of ``total`` that are retries of recorded runs.
    stream
        Where to write (default standard error).
    enabled
        ``False``: print nothing.
    interval
        Seconds between lines when ``stream`` is not a terminal.
    clock
        Monotonic clock (for tests).
    """

    def __init__(self, total: int, skipped: int = 0, stream: TextIO | None = None,
                 enabled: bool = True, width: int = 24, *, retried: int = 0,
                 interval: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.skipped = skipped
        self.retried = retried
        self.done = 0
        self.counts: dict[str, int] = {}
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.width = width
        self.clock = clock
        self.interval = LOG_INTERVAL_S if interval is None else float(interval)
        self.t0 = clock()
        self._last_line = self.t0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        if enabled:
            msg = f"bench: {total} run(s) to do"
            if retried:
                msg += f" ({retried} retried)"
            if skipped:
                msg += f", {skipped} already done (skipped)"
            print(msg, file=self.stream, flush=True)

    def elapsed(self) -> float:
        return self.clock() - self.t0

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        return self.elapsed() / self.done * (self.total - self.done)

    def line(self, last: str = "") -> str:
        frac = self.done / self.total if self.total else 1.0
        counts = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        w = len(str(self.total))
        head = f"{self.done:>{w}}/{self.total} {100 * frac:5.1f}% "
        if self.tty:
            fill = int(round(frac * self.width))
            head = "[" + "#" * fill + "." * (self.width - fill) + "] " + head
        else:
            head = "bench: " + head
        s = head + f"elapsed {fmt_duration(self.elapsed())} eta {fmt_duration(self.eta())}"
        if counts:
            s += f" | {counts}"
        if last:
            s += f" | {last}"
        return s

    def update(self, record: dict) -> None:
        self.done += 1
        st = str(record.get("status"))
        self.counts[st] = self.counts.get(st, 0) + 1
        if not self.enabled:
            return
        if self.tty:
            rt = record.get("runtime_s")
            last = f"{record.get('label')} {record.get('variant') or record.get('method') or '(load)'} {st}"
            if isinstance(rt, (int, float)):
                last += f" {rt:.2f}s"
            self.stream.write("\r\x1b[2K" + self.line(last)[:200])
            if self.done >= self.total:
                self.stream.write("\n")
            self.stream.flush()
            return
        now = self.clock()
        if self.done >= self.total or now - self._last_line >= self.interval:
            self._last_line = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()
