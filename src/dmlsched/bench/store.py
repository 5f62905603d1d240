"""Append-only JSON-lines store of benchmark records.

One line per run, keyed by ``(instance hash, method, seed, solver, time
limit, context, package version)`` where the context fingerprints the
method's options and the reference (see :func:`run_key`).  The runner is the
only writer (an exclusive ``flock`` on the file keeps a second sweep out);
every line is written whole and ``fsync``-ed before the next run is
recorded, so a sweep killed at any point (Ctrl-C, ``kill -9``) loses at most
the runs in flight.  A write that fails part-way (a full disk) is undone at
once (the file is cut back to its length before the line); a line cut short
by a kill during the write is ignored (with a warning) when the file is read
back and removed when the file is next opened for appending, so the file
holds whole records only and finished lines are never altered.

The file is append-only: a run retried (``dmlsched bench --retry``) gets a
new line and the *newest* line of a key is the one that counts.  A file that
is not a results file (for example an instance given as ``--out`` by mistake)
is refused before anything is written to it (:class:`NotAResultsFile`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import DmlschedError
from ..version import __version__

log = logging.getLogger("dmlsched.bench")


def format_time_limit(time_limit: float | None) -> str:
    """Canonical text of a time limit inside a key (``"none"`` without one)."""
    if time_limit is None:
        return "none"
    t = float(time_limit)
    return str(int(t)) if t.is_integer() else repr(t)


#: marker of the package-version part of a run key
VERSION_TAG = "|v="


def run_key(
    instance_hash: str,
    method: str | None,
    seed: int,
    solver: str,
    time_limit: float | None,
    context: str = "",
    version: str | None = None,
) -> str:
    """The identity of one run: ``hash|method|seed|solver|time_limit[|context][|v=version]``.

    ``context`` (:func:`run_context`) fingerprints what else changes the record:
    the method's options and the reference (with its options), whose verdict
    the record carries.  ``version`` is the package version that ran it
    (:func:`key_core` drops it, for ``dmlsched bench --any-version``).
    """
    key = f"{instance_hash}|{method or '-'}|{int(seed)}|{solver}|{format_time_limit(time_limit)}"
    if context:
        key += f"|{context}"
    if version:
        key += f"{VERSION_TAG}{version}"
    return key


def key_core(key: str) -> str:
    """A run key without its package-version part."""
    i = key.rfind(VERSION_TAG)
    return key[:i] if i >= 0 else key


def package_version() -> str:
    """The installed dmlsched version (part of every run key)."""
    return str(__version__)


def run_context(options: dict | None, reference: str | None, reference_options: dict | None) -> str:
    """Short fingerprint of a run's options and reference (empty when there are none)."""
    if not options and reference is None and not reference_options:
        return ""
    blob = json.dumps(
        {"options": options or {}, "reference": reference, "reference_options": reference_options or {}},
        sort_keys=True, default=str,
    )
    return "ctx=" + hashlib.sha256(blob.encode()).hexdigest()[:12]


def json_safe(x: Any, _depth: int = 0) -> Any:
    """A JSON-able copy of ``x``: numpy scalars/arrays to Python, inf/nan to ``None``.

    Objects that are not JSON-like become their ``str``; nesting deeper than 20
    levels is cut, so a record can always be written.
    """
    if _depth > 20:
        return str(x)
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): json_safe(v, _depth + 1) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [json_safe(v, _depth + 1) for v in x]
    if hasattr(x, "value") and x.__class__.__name__ == "Status":
        return x.value
    try:  # numpy scalars and arrays without importing numpy here
        import numpy as np  # noqa: PLC0415 - numpy loaded only when a record holds a numpy value

        if isinstance(x, np.generic):
            return json_safe(x.item(), _depth + 1)
        if isinstance(x, np.ndarray):
            return json_safe(x.tolist(), _depth + 1)
    except ImportError:  # pragma: no cover
        pass
    return str(x)


def dumps_record(record: dict) -> str:
    """One record as one line of JSON (no newline inside, no NaN)."""
    return json.dumps(json_safe(record), allow_nan=False, separators=(",", ":"), sort_keys=False)


def read_records(path: str | os.PathLike) -> list[dict]:
    """Every well-formed record of a JSON-lines file, in file order.

    Blank lines are skipped; a malformed line (e.g. cut by a kill while it was
    written) is skipped with a warning.  A missing file reads as empty.
    """
    return list(iter_records(path))


def latest_records(paths: Iterable[str | os.PathLike]) -> list[dict]:
    """The newest record of every key over ``paths`` (in order of first appearance).

    A retried run appends a new line under its key; this is what a results
    file means once retries are taken into account.
    """
    out: dict[str, dict] = {}
    for p in paths:
        for rec in iter_records(p):
            out[rec["key"]] = rec  # a later line replaces the value, keeps the position
    return list(out.values())


def iter_records(path: str | os.PathLike) -> Iterator[dict]:
    p = Path(path)
    if not p.exists():
        return
    with p.open("r", encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                log.warning("%s:%d: skipping a malformed (incomplete?) line", p, lineno)
                continue
            if isinstance(rec, dict) and "key" in rec:
                yield rec
            else:
                log.warning("%s:%d: skipping a line that is not a benchmark record", p, lineno)


class StoreLockedError(RuntimeError):
    """Another process is appending to the same results file."""


class NotAResultsFile(DmlschedError, ValueError):
    """``--out`` names an existing file that is not a JSON-lines results file."""


def check_results_file(path: Path) -> None:
    """Raise :class:`NotAResultsFile` unless ``path`` is missing, empty or a
    results file (its first non-blank line is a record with a ``key``)."""
    if not path.exists():
        return
    if path.is_dir():
        raise NotAResultsFile(f"{path}: is a folder, not a results file")
    try:
        with path.open("rb") as f:
            head = f.read(1 << 20)
    except OSError as e:
        raise NotAResultsFile(f"{path}: cannot be read: {e}") from None
    for raw in head.splitlines():
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            rec = None
        if isinstance(rec, dict) and isinstance(rec.get("key"), str):
            return
        raise NotAResultsFile(
            f"{path}: exists and is not a results file of dmlsched bench (its first line is not a "
            "benchmark record); refusing to append to it: give another --out")
    # only blank lines (or nothing): a results file with nothing in it yet


def _lock(fh, path: Path) -> None:
    """Exclusive advisory lock: two sweeps appending to one file could duplicate runs."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only: elsewhere the store runs without the lock
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise StoreLockedError(f"{path} is being written by another dmlsched bench; "
                               "wait for it or use another --out") from None


def append_line(fd: int, data: bytes) -> None:
    """Append one whole line to the file open (for appending) on ``fd``, then fsync.

    The line is whole or absent.  A write that fails or is interrupted
    part-way (a full disk, a file-size limit, Ctrl-C) is undone: the file is
    cut back to its length before the line, so it never ends with half a
    record, and the error is raised.  Once every byte is in the file the
    line stays, even when the fsync that follows fails or is interrupted
    (the error is raised): it is a whole record of a finished run.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    except BaseException:
        try:
            if os.fstat(fd).st_size != start + len(data):  # not whole: cut back
                os.ftruncate(fd, start)
        except OSError:  # pragma: no cover - then the reader skips the torn line
            pass
        raise


def _drop_torn_tail(fh, path: Path) -> None:
    """Cut a last line that has no newline (written by a process killed in the
    middle of it): a record is whole or absent, never glued to the next one."""
    size = os.fstat(fh.fileno()).st_size
    if size == 0:
        return
    with path.open("rb") as f:
        block = 1 << 16
        pos = size
        while pos > 0:
            step = min(block, pos)
            f.seek(pos - step)
            chunk = f.read(step)
            if pos == size and chunk.endswith(b"\n"):
                return  # the file ends with a whole line
            k = chunk.rfind(b"\n")
            if k >= 0:
                keep = pos - step + k + 1
                break
            pos -= step
        else:
            keep = 0
    log.warning("%s: removing a last line cut short (%d bytes) by an interrupted write", path, size - keep)
    os.ftruncate(fh.fileno(), keep)


class ResultStore:
    """Append-only JSON-lines file of records, with an index of finished keys.

    Parameters
    ----------
    path
        The file (created with its folders if missing; removed again on
        :meth:`close` if this store created it and recorded nothing);
        ``None`` keeps the records in memory only.  An existing file that is
        not a results file raises :class:`NotAResultsFile`, untouched.
    any_version
        Match keys without their package-version part, so runs recorded by
        another version of dmlsched count as done.

    The newest line of a key is the one that counts (a retried run appends a
    new line; nothing is ever rewritten).

    Examples
    --------
    >>> store = ResultStore(None)
    >>> store.append({"key": "h|m|0|highs|60", "status": "optimal"})
    >>> store.done("h|m|0|highs|60")
    True
    """

    def __init__(self, path: str | os.PathLike | None, *, any_version: bool = False):
        self.path = Path(path) if path is not None else None
        self.any_version = any_version
        self._index: Callable[[str], str] = key_core if any_version else (lambda k: k)
        self.records: dict[str, dict] = {}
        self._fh = None
        self._created = False
        self._appended = 0
        if self.path is not None:
            check_results_file(self.path)
            self._open()  # takes the file's lock before reading what is done
            for rec in iter_records(self.path):
                # the newest line of a key wins (a retried run appends a new line)
                self.records[self._index(rec["key"])] = rec

    def done(self, key: str) -> bool:
        return self._index(key) in self.records

    def get(self, key: str) -> dict | None:
        return self.records.get(self._index(key))

    def __len__(self) -> int:
        return len(self.records)

    def _open(self):
        if self._fh is None and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._created = self._created or not self.path.exists()
            self._fh = self.path.open("ab")
            _lock(self._fh, self.path)
            _drop_torn_tail(self._fh, self.path)
        return self._fh

    def append(self, record: dict, *, replace: bool = False) -> None:
        """Record one finished run: one line, flushed and fsynced.

        A key already recorded is ignored unless ``replace`` (a retry): then
        the new line is appended and becomes the key's record.
        """
        key = self._index(record["key"])
        if key in self.records and not replace:
            return
        line = dumps_record(record)
        fh = self._open()
        if fh is not None:
            append_line(fh.fileno(), (line + "\n").encode("utf-8"))
            self._appended += 1
        self.records[key] = json.loads(line)

    def extend(self, records: Iterable[dict]) -> None:
        for r in records:
            self.append(r)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
            # a file this store created and never wrote to is not left behind
            if self._created and not self._appended and self.path is not None:
                try:
                    if self.path.stat().st_size == 0:
                        self.path.unlink()
                except OSError:  # pragma: no cover
                    pass

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
