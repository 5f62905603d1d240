"""Worker processes that run jobs and can be killed at a hard time limit.

The parent side is :class:`ChildProcess`: a persistent ``python -m
dmlsched.bench.child`` process fed one job (a JSON line on its stdin) at a
time; it answers with one JSON line (the record) on a private copy of its
original stdout (the process's own stdout is redirected to stderr, so solver
banners cannot corrupt the protocol).  Because the process persists, the
cost of importing dmlsched, Pyomo and the solvers is paid once, not per run.

If a run does not answer within its hard limit (time limit + grace), the
process is killed (SIGKILL), the run is recorded as ``time_limit`` and a fresh
process is started for the next job.  If the process dies (a solver crash, a
segfault, the OOM killer), the run is recorded as ``error`` with the exit
status and the tail of the process's stderr.  A child whose parent dies exits
by itself within half a second.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .execute import base_record, finish_record

#: seconds a new worker process may take to import dmlsched and report ready
STARTUP_TIMEOUT = 180.0


class ChildProcess:
    """One persistent worker process (parent side). Not thread-safe: one per thread."""

    def __init__(self, engine: str = "local", threads_per_solver: int = 1):
        self.engine = engine
        self.threads_per_solver = threads_per_solver
        self.proc: subprocess.Popen | None = None
        self._buf = b""
        self._errfile: Any = None
        self.started = 0

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self._cleanup()
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])  # the folder holding the dmlsched package
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        n = str(self.threads_per_solver)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, n)
        env["DMLSCHED_CHILD_THREADS"] = n
        self._errfile = tempfile.TemporaryFile(prefix="dmlsched-child-", suffix=".err")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dmlsched.bench.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errfile,
            env=env,
            close_fds=True,
        )
        self._buf = b""
        self.started += 1
        line = self._read_line(time.monotonic() + STARTUP_TIMEOUT)
        if line is None or not line.startswith(b'{"ready"'):
            tail = self._stderr_tail()
            self.kill()
            raise RuntimeError(f"benchmark worker process failed to start: {tail}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.kill()
            except ProcessLookupError:  # pragma: no cover
                pass
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass

    def close(self) -> None:
        """Ask the process to exit (EOF on stdin), kill it if it does not."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._cleanup()

    def _cleanup(self) -> None:
        if self.proc is not None:
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    if f:
                        f.close()
                except OSError:
                    pass
        self.proc = None
        if self._errfile is not None:
            try:
                self._errfile.close()
            except OSError:  # pragma: no cover
                pass
            self._errfile = None

    # -- I/O -------------------------------------------------------------------
    def _read_line(self, deadline: float | None) -> bytes | None:
        """One line from the child, ``None`` on EOF; raises TimeoutError at ``deadline``."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                if timeout is not None and timeout <= 0:
                    raise TimeoutError
                if not sel.select(timeout):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _stderr_tail(self, n: int = 1500) -> str:
        if self._errfile is None:
            return ""
        try:
            self._errfile.flush()
            self._errfile.seek(0, os.SEEK_END)
            size = self._errfile.tell()
            self._errfile.seek(max(0, size - n))
            return self._errfile.read().decode("utf-8", "replace").strip()
        except OSError:  # pragma: no cover
            return ""

    # -- one job -----------------------------------------------------------------
    def run(self, job: dict, hard_limit: float | None) -> dict:
        """Run ``job`` in the process; kill it after ``hard_limit`` seconds."""
        self.start()
        assert self.proc is not None and self.proc.stdin is not None
        t0 = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps(job, allow_nan=False).encode() + b"\n")
            self.proc.stdin.flush()
            line = self._read_line(None if hard_limit is None else t0 + hard_limit)
        except TimeoutError:
            elapsed = time.monotonic() - t0
            self.kill()
            self._cleanup()
            rec = base_record(job)
            rec.update(
                status="time_limit",
                runtime_s=elapsed,
                wall_s=elapsed,
                verdict="inconclusive",
                error=(f"killed after {elapsed:.1f} s: time limit {job.get('time_limit')} s "
                       f"+ grace {hard_limit - (job.get('time_limit') or 0):.1f} s exceeded"),
            )
            rec["details"] = {"killed": True}
            return finish_record(rec, self.engine)
        except (BrokenPipeError, OSError):
            line = None
        if line is None:  # the process died
            elapsed = time.monotonic() - t0
            code = self.proc.wait(timeout=10) if self.proc is not None else None
            tail = self._stderr_tail()
            self._cleanup()
            rec = base_record(job)
            sig = ""
            if code is not None and code < 0:
                try:
                    sig = f" ({signal.Signals(-code).name})"
                except ValueError:  # pragma: no cover
                    pass
            rec.update(status="error", wall_s=elapsed, verdict="inconclusive",
                       error=f"worker process died with exit code {code}{sig}"
                       + (f": {tail.splitlines()[-1]}" if tail else ""))
            rec["details"] = {"stderr_tail": tail[-1500:]}
            return finish_record(rec, self.engine)
        rec = json.loads(line)
        rec["engine"] = self.engine
        return rec


# ---------------------------------------------------------------------------
# child side
def _watch_parent(ppid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != ppid:
            os._exit(3)


def main() -> int:
    """Serve jobs from stdin until EOF (run as ``python -m dmlsched.bench.child``)."""
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed by solvers goes to stderr
    sys.stdout = sys.stderr
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's business
    import dmlsched  # noqa: F401  (pay imports before the first job)
    from dmlsched.registry import _ensure_loaded

    _ensure_loaded()
    try:
        import pyomo.environ  # noqa: F401
    except Exception:  # pragma: no cover
        pass
    from .execute import execute_job

    proto.write(b'{"ready": true}\n')
    proto.flush()
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        job = json.loads(raw)
        rec = execute_job(job, engine="local")
        proto.write(json.dumps(rec, allow_nan=False).encode() + b"\n")
        proto.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
