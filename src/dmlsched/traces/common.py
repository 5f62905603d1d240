"""What trace readers share: the error type and where the traces live."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import DmlschedError, InstanceError

#: environment variable naming the traces folder (wins over the default)
TRACES_ENV = "DMLSCHED_TRACES"


class TraceError(InstanceError):
    """A malformed trace row: ``str(err)`` reads ``"file.swf:12: run time: must be an integer"``."""

    def __init__(self, source: str, line: int, message: str):
        self.line = line
        super().__init__(f"{source}:{line}", message)


class TracesNotFound(DmlschedError, FileNotFoundError):
    """The traces folder does not exist (``str(err)`` says where it was looked for)."""


def _project_roots() -> list[Path]:
    """Folders holding ``pyproject.toml`` above this package and above the working directory."""
    roots: list[Path] = []
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for d in (start, *start.parents):
            if (d / "pyproject.toml").is_file():
                if d not in roots:
                    roots.append(d)
                break
    return roots


def traces_dir(*, must_exist: bool = True) -> Path:
    """The folder of the shared workload traces.

    ``$DMLSCHED_TRACES`` when set; otherwise ``<project root>/../shared/traces``,
    the project root being the checkout that holds this package (the first
    folder above it with a ``pyproject.toml``), else the one above the working
    directory.  Never a fixed machine path.

    Parameters
    ----------
    must_exist
        Raise :class:`TracesNotFound` when the folder is absent (default);
        with ``False`` return the path anyway.

    Raises
    ------
    TracesNotFound
        Naming the folders looked at and how to point at the traces.
    """
    env = os.environ.get(TRACES_ENV)
    if env:
        p = Path(env).expanduser()
        if must_exist and not p.is_dir():
            raise TracesNotFound(f"{TRACES_ENV}={env}: no such folder")
        return p
    cands = [r.parent / "shared" / "traces" for r in _project_roots()]
    for c in cands:
        if c.is_dir():
            return c
    if must_exist or not cands:
        where = ", ".join(str(c) for c in cands) or "(no project root found above the package or the working directory)"
        raise TracesNotFound(
            f"traces folder not found; looked at {where}; "
            f"set {TRACES_ENV} to the folder holding swf/ and alibaba-openb/"
        )
    return cands[0]


def trace_path(*parts: str) -> Path:
    """A file under :func:`traces_dir`, with a clear error when it is absent."""
    p = traces_dir().joinpath(*parts)
    if not p.exists():
        raise TracesNotFound(f"trace file {p} not found (traces folder {p.parents[len(parts) - 1]})")
    return p
