"""Worker processes that run jobs and can be killed at a hard time limit.

The parent side is :class:`ChildProcess`: a persistent ``python -m
dmlsched.bench.child`` process fed one job (a JSON line on its stdin) at a
time; it answers with one JSON line (the record) on a private copy of its
original stdout (the process's own stdout is redirected to stderr, so solver
banners cannot corrupt the protocol).  Because the process persists, the
cost of importing dmlsched, Pyomo and the solvers is paid once, not per run.

Limits.  A run still going at its *stop* time (time limit + half the grace)
is asked to stop: the parent sends SIGINT, which the child turns into
``KeyboardInterrupt`` while a job runs; the method kit then returns the best
incumbent it has (status ``feasible``, ``details["interrupted"]``), and a run
with none is recorded as ``time_limit``.  Only a run still going at its hard
limit (time limit + grace) is killed (SIGKILL) and a fresh process started for
the next job.  While a job runs, the child installs
:func:`dmlsched.incumbents.incumbent_sink`, so every incumbent the kit has validated
reaches the parent as a side message (``{"incumbent": {...}}``); a killed run
is recorded with its last incumbent (status ``feasible``, its objective and
bound, ``killed: true``), or as ``time_limit`` without one.  The children run
in their own session, so a Ctrl-C typed at the terminal reaches the runner
only (which then stops them).

If the process dies (a solver crash, a segfault, the OOM killer), the run is
recorded as ``error`` with the exit status and the tail of the process's
stderr.  A child whose parent dies exits by itself within half a second.

Every record carries ``peak_rss_bytes``: the peak resident memory of the
worker process during the run (Linux: the peak is reset before each job
through ``/proc/self/clear_refs``; it includes what the worker holds after
importing dmlsched, Pyomo and the solvers, recorded as ``rss_before_bytes``).
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

from ..incumbents import incumbent_sink
from ..registry import load_families
from .execute import base_record, execute_job, finish_record, incumbent_record
from .store import json_safe

#: seconds a new worker process may take to import dmlsched and report ready
STARTUP_TIMEOUT = 180.0


def _proc_status_kib(pid: int | str, field: str) -> int | None:
    """A ``kB`` field of ``/proc/PID/status`` (``VmHWM``, ``VmRSS``), or ``None``."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def peak_rss_bytes(pid: int | str = "self") -> int | None:
    """Peak resident memory (VmHWM) of a process in bytes (``None`` if unknown)."""
    k = _proc_status_kib(pid, "VmHWM")
    return None if k is None else k * 1024


def rss_bytes(pid: int | str = "self") -> int | None:
    k = _proc_status_kib(pid, "VmRSS")
    return None if k is None else k * 1024


def reset_peak_rss() -> bool:
    """Reset this process's peak RSS (Linux >= 4.0); whether it worked."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class ChildProcess:
    """One persistent worker process (parent side). Not thread-safe: one per thread."""

    def __init__(self, engine: str = "local", threads_per_solver: int = 1, max_jobs: int | None = None):
        self.engine = engine
        self.threads_per_solver = threads_per_solver
        self.max_jobs = max_jobs  # a fresh process after this many jobs (1: one process per run)
        self.proc: subprocess.Popen | None = None
        self._buf = b""
        self._errfile: Any = None
        self.started = 0
        self._jobs = 0

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
            start_new_session=True,  # a terminal's Ctrl-C reaches the runner, not the workers
        )
        self._buf = b""
        self.started += 1
        self._jobs = 0
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
    def run(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> dict:
        """Run ``job`` in the process.

        After ``stop_after`` seconds the process is asked to stop (SIGINT:
        ``KeyboardInterrupt`` in the method, which returns its best incumbent);
        after ``hard_limit`` seconds it is killed and the run recorded with
        its last incumbent (``feasible``, ``killed``) or as ``time_limit``.
        """
        self.start()
        assert self.proc is not None and self.proc.stdin is not None
        t0 = time.monotonic()
        hard_at = None if hard_limit is None else t0 + hard_limit
        stop_at = None if stop_after is None else t0 + stop_after
        if stop_at is not None and hard_at is not None and stop_at >= hard_at:
            stop_at = None
        stopped_at: float | None = None
        last_inc: dict | None = None
        try:
            self.proc.stdin.write(json.dumps(job, allow_nan=False).encode() + b"\n")
            self.proc.stdin.flush()
            while True:
                try:
                    line = self._read_line(stop_at if stop_at is not None else hard_at)
                except TimeoutError:
                    if stop_at is not None:  # ask the run to stop and return what it has
                        stopped_at = time.monotonic() - t0
                        stop_at = None
                        try:
                            os.kill(self.proc.pid, signal.SIGINT)
                        except ProcessLookupError:  # pragma: no cover - died meanwhile
                            pass
                        continue
                    raise
                if line is not None and line.startswith(b'{"incumbent"'):
                    try:
                        msg = json.loads(line)["incumbent"]
                    except (ValueError, KeyError, TypeError):  # pragma: no cover
                        continue
                    if isinstance(msg, dict) and msg.get("key") in (None, job.get("key")):
                        last_inc = msg
                    continue
                break
        except TimeoutError:
            elapsed = time.monotonic() - t0
            peak = peak_rss_bytes(self.proc.pid)
            self.kill()
            self._cleanup()
            grace = hard_limit - (job.get("time_limit") or 0)
            why = (f"killed after {elapsed:.1f} s: time limit {job.get('time_limit')} s + grace {grace:.1f} s "
                   "exceeded" + (f" (asked to stop at {stopped_at:.1f} s)" if stopped_at is not None else ""))
            rec = incumbent_record(job, last_inc, elapsed=elapsed, reason=why)
            rec["peak_rss_bytes"] = peak
            if stopped_at is not None:
                rec["details"]["stop_requested_s"] = stopped_at
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
            rec.update(status="error", wall_s=elapsed, verdict="n/a",
                       error=f"worker process died with exit code {code}{sig}"
                       + (f": {tail.splitlines()[-1]}" if tail else ""))
            rec["details"] = {"stderr_tail": tail[-1500:]}
            if last_inc is not None:
                rec["details"]["last_incumbent"] = last_inc
            return finish_record(rec, self.engine)
        rec = json.loads(line)
        rec["engine"] = self.engine
        self._jobs += 1
        if self.max_jobs is not None and self._jobs >= self.max_jobs:
            self.close()  # the next job starts a fresh process (its peak memory is its own)
        if stopped_at is not None:
            d = rec.setdefault("details", {})
            d["stop_requested_s"] = stopped_at
            d["stopped_by_bench"] = True
            rec["reproducible"] = False
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
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # between jobs a stop request is moot
    load_families()
    try:
        import pyomo.environ  # noqa: F401
    except Exception:  # pragma: no cover
        pass
    lock = threading.Lock()

    def send(obj: dict) -> None:
        data = json.dumps(obj, allow_nan=False, default=str).encode() + b"\n"
        with lock:
            proto.write(data)
            proto.flush()

    send({"ready": True})
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        job = json.loads(raw)
        last: list[dict] = []

        def sink(msg: dict, _key: str = job.get("key")) -> None:
            msg = json_safe({**msg, "key": _key})
            last[:] = [msg]
            send({"incumbent": msg})

        before = rss_bytes()
        reset = reset_peak_rss()
        t_job = time.perf_counter()
        rec: dict | None = None
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
                with incumbent_sink(sink):
                    rec = execute_job(job, engine="local")
            finally:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        except KeyboardInterrupt:
            # the method did not return on the stop request (no incumbent to return)
            if rec is None:
                rec = finish_record(incumbent_record(job, last[0] if last else None,
                                                     elapsed=time.perf_counter() - t_job,
                                                     reason="stopped at the time limit by the benchmark "
                                                            "(the method did not return by its deadline)",
                                                     killed=False), "local")
                rec["details"]["stopped_by_bench"] = True
        rec["peak_rss_bytes"] = peak_rss_bytes()
        rec["rss_before_bytes"] = before
        if not reset:
            rec.setdefault("details", {})["peak_rss_scope"] = "worker lifetime (peak could not be reset)"
        send(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
