"""Parallel evaluation of hunt candidates on the bench engine.

An :class:`EnginePool` wraps one of :mod:`dmlsched.bench.engines` (local
worker processes or a Dask cluster) for the whole hunt: the workers start
once, each keeps dmlsched and the solvers imported, and every run gets the
bench's hard limit (time limit + grace; a run over it is killed and recorded
with its last incumbent).  :meth:`EnginePool.run` submits a batch of jobs and
returns their records in the order of the jobs, whatever order they finished
in, so a search consuming them is the same search on one worker or many.
"""

from __future__ import annotations

from typing import Any

from ..bench.engines import DaskEngine, LocalEngine, check_dask_available


class EnginePool:
    """Bench engine for a hunt.

    Parameters
    ----------
    workers
        Local worker processes (``0``: evaluate in the hunt's own process, no
        engine; ``None``: one per core).
    dask
        Address of a Dask scheduler (``tcp://host:8786``) or ``"local"``;
        overrides ``workers`` for the engine (``workers`` is then the size of
        a local Dask cluster).
    time_limit
        Per-run limit of the jobs (for the hard limit: limit + grace, the
        bench's rule ``5 s + 25 %``).
    """

    def __init__(self, workers: int | None = 0, dask: str | None = None, time_limit: float | None = None):
        self.engine: Any = None
        self.time_limit = time_limit
        if dask:
            check_dask_available()
            self.engine = DaskEngine(dask, workers=workers or None)
        elif workers is None or workers > 0:
            self.engine = LocalEngine(workers)
        self.workers = workers

    @property
    def parallel(self) -> bool:
        """Whether jobs go to an engine (else the caller evaluates in-process)."""
        return self.engine is not None

    @property
    def name(self) -> str:
        return self.engine.name if self.engine is not None else "inprocess"

    def _limits(self) -> tuple[float | None, float | None]:
        if self.time_limit is None:
            return None, None
        grace = 5.0 + 0.25 * self.time_limit
        return self.time_limit + grace, self.time_limit + 0.5 * grace

    def run(self, jobs: list[dict]) -> list[dict]:
        """Run ``jobs`` on the engine; their records in the order of ``jobs``."""
        if not jobs:
            return []
        hard, stop = self._limits()
        keys = [j["key"] for j in jobs]
        if len(set(keys)) != len(keys):
            raise ValueError("job keys must be unique within a batch")
        for j in jobs:
            self.engine.submit(j, hard, stop)
        got: dict[str, dict] = {}
        while len(got) < len(jobs):
            rec = self.engine.next_result()
            got[rec.get("key")] = rec
        return [got[k] for k in keys]

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def __enter__(self) -> "EnginePool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
