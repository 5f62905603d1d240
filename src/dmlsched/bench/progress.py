"""A progress display on stderr: counts, elapsed time, estimated time left.

On a terminal one line is redrawn in place (a bar); otherwise (a log file, a
CI job) one line is printed per finished run, so the log shows what ran.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


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
    """

    def __init__(self, total: int, skipped: int = 0, stream: TextIO | None = None,
                 enabled: bool = True, width: int = 24):
        self.total = total
        self.skipped = skipped
        self.done = 0
        self.counts: dict[str, int] = {}
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.width = width
        self.t0 = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        if enabled:
            msg = f"bench: {total} run(s) to do"
            if skipped:
                msg += f", {skipped} already done (skipped)"
            print(msg, file=self.stream, flush=True)

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        return self.elapsed() / self.done * (self.total - self.done)

    def line(self, last: str = "") -> str:
        frac = self.done / self.total if self.total else 1.0
        fill = int(round(frac * self.width))
        bar = "#" * fill + "." * (self.width - fill)
        counts = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        w = len(str(self.total))
        s = (f"[{bar}] {self.done:>{w}}/{self.total} {100 * frac:5.1f}% "
             f"elapsed {fmt_duration(self.elapsed())} eta {fmt_duration(self.eta())}")
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
        rt = record.get("runtime_s")
        last = f"{record.get('label')} {record.get('method') or '(load)'} {st}"
        if isinstance(rt, (int, float)):
            last += f" {rt:.2f}s"
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line(last)[:200])
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(self.line(last) + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()
