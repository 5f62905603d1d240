"""Engines that execute benchmark jobs: in-process, local processes, Dask.

Every engine has the same small interface (:class:`Engine`): ``submit(job,
hard_limit, stop_after)``, ``next_result()`` (blocks until some submitted job finishes and
returns its record) and ``close()``.  The runner (:mod:`.runner`) does the
scheduling, the store writes and the progress display, so the records are the
same whichever engine ran them; only ``engine``, ``host``, ``pid`` and the
timings differ.

* :class:`InProcessEngine` (``--workers 0``): runs jobs one by one in the
  runner's process.  No isolation and no hard time limit: for debugging and to
  measure the engine's overhead.
* :class:`LocalEngine` (``--workers N``, default: the number of cores): N
  persistent worker processes (:class:`~.child.ChildProcess`), each driven by
  one thread of the runner; a run exceeding its hard limit is killed.
  ``jobs_per_worker=1`` starts a fresh process for every run (its peak memory
  is then the run's own; the deadline benchmark does this).
* :class:`DaskEngine` (``--dask ADDRESS`` or ``--dask local``): each job is a
  Dask task; on the worker, the task drives a worker-local
  :class:`~.child.ChildProcess`, so hard limits and crash isolation hold on
  the cluster too.  A Dask worker killed mid-run makes Dask retry its tasks
  elsewhere; a task that keeps killing workers is recorded as ``error``.
  Dask's own logging is quiet (errors only) and a local cluster serves no
  dashboard unless asked (``dashboard=":8787"``, ``--dashboard``).
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from typing import Any, Protocol

from .. import interrupt
from ..errors import DmlschedError
from .child import ChildProcess
from .execute import base_record, execute_job, finish_record


class EngineError(DmlschedError, RuntimeError):
    """An engine cannot be started (a missing package, an unreachable cluster)."""


def check_dask_available() -> None:
    """Raise :class:`EngineError` unless ``distributed`` can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise EngineError("--dask needs the 'distributed' package: pip install 'dmlsched[dask]' "
                          "(or run without --dask: local worker processes)") from None


class Engine(Protocol):
    name: str

    def submit(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> None: ...

    def next_result(self) -> dict: ...

    def close(self) -> None: ...


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class InProcessEngine:
    """Run jobs sequentially in this process (no hard limit, no isolation)."""

    name = "inprocess"

    def __init__(self) -> None:
        self._jobs: list[dict] = []

    def submit(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> None:
        self._jobs.append(job)

    def next_result(self) -> dict:
        job = self._jobs.pop(0)
        gen = interrupt.generation()
        rec = execute_job(job, engine=self.name)
        if interrupt.since(gen):  # Ctrl-C or SIGTERM cut the run: never recorded as a result
            raise KeyboardInterrupt
        return rec

    def close(self) -> None:
        self._jobs.clear()


class LocalEngine:
    """``workers`` persistent worker processes on this machine."""

    name = "local"

    def __init__(self, workers: int | None = None, jobs_per_worker: int | None = None):
        self.workers = workers or default_workers()
        self.jobs_per_worker = jobs_per_worker  # a fresh worker process after this many runs
        self._jobs: queue.Queue = queue.Queue()
        self._results: queue.Queue = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._children: list[Any] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def _ensure_started(self) -> None:
        if self._threads:
            return
        for i in range(self.workers):
            child = ChildProcess(engine=self.name, max_jobs=self.jobs_per_worker)
            self._children.append(child)
            t = threading.Thread(target=self._serve, args=(child,), name=f"bench-worker-{i}", daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, child: Any) -> None:
        while not self._stop.is_set():
            try:
                item = self._jobs.get(timeout=0.2)
            except queue.Empty:
                continue
            if item is None:
                break
            job, hard_limit, stop_after = item
            try:
                rec = child.run(job, hard_limit, stop_after)
            except Exception as e:  # could not even start a worker process
                rec = base_record(job)
                rec.update(status="error", error=f"{type(e).__name__}: {e}", verdict="n/a")
                rec = finish_record(rec, self.name)
            self._results.put(rec)
        child.close()

    def submit(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> None:
        self._ensure_started()
        self._jobs.put((job, hard_limit, stop_after))

    def next_result(self) -> dict:
        while True:
            try:
                return self._results.get(timeout=0.5)
            except queue.Empty:
                if not any(t.is_alive() for t in self._threads):  # pragma: no cover
                    raise RuntimeError("all benchmark worker threads stopped")

    def close(self) -> None:
        self._stop.set()
        for _ in self._threads:
            self._jobs.put(None)
        for c in self._children:  # kill runs in flight: the runner is leaving
            c.kill()
        for t in self._threads:
            t.join(timeout=5)
        for c in self._children:
            c.close()


# ---------------------------------------------------------------------------
# Dask
def quiet_dask_logging(level: int = logging.ERROR) -> None:
    """Dask and distributed log only errors (their INFO lines are not the user's business)."""
    for name in ("distributed", "dask", "bokeh", "tornado"):
        logging.getLogger(name).setLevel(level)


_DASK_CHILDREN: dict[int, Any] = {}
_DASK_LOCK = threading.Lock()


def dask_run(job: dict, hard_limit: float | None, stop_after: float | None = None) -> dict:
    """The Dask task: run ``job`` in this worker's (per-thread) worker process."""
    tid = threading.get_ident()
    with _DASK_LOCK:
        child = _DASK_CHILDREN.get(tid)
        if child is None:
            child = _DASK_CHILDREN[tid] = ChildProcess(engine="dask")
    rec = child.run(job, hard_limit, stop_after)
    rec["engine"] = "dask"
    return rec


class DaskEngine:
    """Send jobs to a Dask distributed cluster.

    Parameters
    ----------
    address
        A scheduler address (``tcp://host:8786``), or ``"local"`` to start a
        ``LocalCluster`` of ``workers`` single-threaded worker processes.
    workers
        Workers of the local cluster (default: the number of cores).
    dashboard
        Address of the local cluster's dashboard (``":8787"``); ``None``
        (default): no dashboard.
    """

    name = "dask"

    def __init__(self, address: str = "local", workers: int | None = None, dashboard: str | None = None):
        check_dask_available()
        quiet_dask_logging()
        from distributed import Client, LocalCluster, as_completed

        self._cluster = None
        try:
            if address == "local":
                # without a dashboard the scheduler still serves a few HTTP routes
                # (health, metrics): on a free local port, never on the dashboard's 8787
                kw: dict[str, Any] = (
                    {"dashboard_address": dashboard} if dashboard else
                    {"dashboard_address": None,
                     "scheduler_kwargs": {"dashboard": False, "dashboard_address": "127.0.0.1:0"}})
                self._cluster = LocalCluster(
                    n_workers=workers or default_workers(),
                    threads_per_worker=1,
                    processes=True,
                    worker_dashboard_address=None,
                    silence_logs=logging.ERROR,
                    **kw,
                )
                self.client = Client(self._cluster)
            else:
                self.client = Client(address, timeout=30)
        except (OSError, TimeoutError) as e:
            if self._cluster is not None:
                self._cluster.close()
            raise EngineError(f"--dask {address}: cannot connect: {e}") from None
        if dashboard and self._cluster is not None:
            print(f"bench: Dask dashboard at {self.client.dashboard_link}", file=sys.stderr, flush=True)
        self._ac = as_completed()
        self._jobs: dict[str, dict] = {}
        self._n = 0

    def submit(self, job: dict, hard_limit: float | None, stop_after: float | None = None) -> None:
        self._n += 1
        fut = self.client.submit(dask_run, job, hard_limit, stop_after, pure=False,
                                 key=f"dmlsched-bench-{self._n}-{job['key']}")
        self._jobs[fut.key] = job
        self._ac.add(fut)

    def next_result(self) -> dict:
        fut = next(self._ac)
        job = self._jobs.pop(fut.key)
        try:
            return fut.result()
        except Exception as e:  # KilledWorker, a lost connection, ...
            rec = base_record(job)
            rec.update(status="error", verdict="n/a",
                       error=f"dask: {type(e).__name__}: {e}")
            return finish_record(rec, self.name)
        finally:
            fut.release()

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
