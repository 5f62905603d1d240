"""Paths, files and plugins of the ``dmlsched`` command: output paths checked before any
work, results files, ``--plugin``, instance files (``-`` is standard input), method options
and the solver's log on standard error."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from .. import io, progress
from ..errors import InstanceError, UsageError
from ..plot import supported_formats
from ..registry import load_families, problem_of
from ..suites import import_plugins
from .exits import _one_line

log = logging.getLogger("dmlsched")

def check_output_path(path: str | os.PathLike, flag: str, *, folder: bool = False,
                      inputs: Sequence[str | os.PathLike] = ()) -> Path:
    """Refuse, before any work, an output path that cannot be written or must not be.

    ``folder``: the path is a folder to create (``report --out``); otherwise a
    file whose missing parent folders are created.  Refused: a path under a
    file, a folder given for a file (and the reverse), a FIFO, a device or a
    socket (writing would replace it with a file), one of the command's own
    ``inputs`` (a file, the same file by another name, or a ``.json`` file
    inside an input folder, which the next run would read as an instance),
    and a place where no file can be created (probed, not guessed from
    permission bits, which do not bind root or see read-only file systems).
    Raises :class:`UsageError` naming ``flag`` and the path.
    """
    p = Path(path)
    if str(path) == "":
        raise UsageError(f"{flag}: empty path")
    if p.exists() and not p.is_dir() and not p.is_file():
        raise UsageError(f"{flag} {path}: is a {_file_kind(p)}, not a regular file (it would be replaced)")
    if folder:
        if p.exists() and not p.is_dir():
            raise UsageError(f"{flag} {path}: exists and is not a folder")
        target = p
    else:
        if p.is_dir():
            raise UsageError(f"{flag} {path}: is a folder, expected a file")
        target = p.parent
    _check_not_an_input(p, flag, path, inputs, folder=folder)
    # the first existing ancestor must be a folder we can create files in
    anc = target if str(target) else Path(".")
    while not anc.exists():
        if anc.parent == anc:
            break
        anc = anc.parent
    if anc.exists() and not anc.is_dir():
        raise UsageError(f"{flag} {path}: {anc} is a file, not a folder")
    if not os.access(anc, os.W_OK | os.X_OK):
        what = f"cannot write in {anc}" if anc == target else f"cannot create {target}"
        raise UsageError(f"{flag} {path}: {what}: permission denied in {anc}")
    if not folder and p.exists() and not os.access(p, os.W_OK) and not os.access(target, os.W_OK):
        raise UsageError(f"{flag} {path}: not writable")
    try:  # a real probe: an unnamed file (O_TMPFILE where it exists), gone at once
        with tempfile.TemporaryFile(dir=anc):
            pass
    except OSError as e:
        what = f"cannot write in {anc}" if anc == target else f"cannot create {target}"
        raise UsageError(f"{flag} {path}: {what}: {e.strerror or e}") from None
    return p


def _file_kind(p: Path) -> str:
    mode = p.stat().st_mode
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _check_not_an_input(p: Path, flag: str, shown: str | os.PathLike, inputs: Sequence[str | os.PathLike],
                        *, folder: bool) -> None:
    """An output must not be one of the command's inputs (see :func:`check_output_path`)."""
    out = p.resolve()
    for raw in inputs:
        if raw is None or str(raw) in ("", "-"):
            continue
        q = Path(raw)
        same = False
        try:
            same = p.exists() and q.exists() and os.path.samefile(p, q)
        except OSError:
            pass
        qr = q.resolve()
        if same or out == qr:
            raise UsageError(f"{flag} {shown}: is an input of this command ({raw}); "
                             "writing it would destroy the input: give another path")
        if not folder and q.is_dir() and out.suffix == ".json" and qr in out.parents:
            raise UsageError(f"{flag} {shown}: is inside the input folder {raw}, whose .json files are "
                             "instances: give a path outside it")


def check_results_file(path: str) -> None:
    """A results file given to ``report`` must exist and start with a run record
    (else one line naming it, rather than a warning per line)."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{path}: no such file" if not p.exists() else f"{path}: is not a file")
    try:
        with p.open("rb") as f:
            first = b""
            for raw in f:
                if raw.strip():
                    first = raw.strip()
                    break
    except OSError as e:
        raise UsageError(f"{path}: cannot read: {e.strerror}") from None
    try:
        rec = json.loads(first.decode("utf-8")) if first else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        rec = None
    if first and not (isinstance(rec, dict) and "key" in rec):
        raise UsageError(f"{path}: not a dmlsched results file (its first line is not a run record)")


def load_plugins(plugins: Sequence[str]) -> None:
    """Import each ``--plugin`` (a module name or a ``.py`` file) once.

    Raises :class:`UsageError` naming the plugin on any failure.
    """
    if not plugins:
        return
    for p in plugins:
        if p.endswith(".py"):
            if not Path(p).is_file():
                raise UsageError(f"--plugin {p}: no such file")
            arg = str(Path(p).resolve())
        else:
            if "/" in p or os.sep in p:
                raise UsageError(f"--plugin {p}: expected a module name or a .py file")
            arg = p
        try:
            import_plugins([arg])
        except ModuleNotFoundError as e:
            hint = f" (a file? give --plugin {p}.py)" if Path(p + ".py").is_file() else ""
            raise UsageError(f"--plugin {p}: {e}{hint}") from None
        except SyntaxError as e:
            raise UsageError(f"--plugin {p}: syntax error at line {e.lineno}: {e.msg}") from None
        except Exception as e:  # noqa: BLE001 - whatever the plugin raised, named
            raise UsageError(f"--plugin {p}: {type(e).__name__}: {_one_line(str(e))}") from None


def _plugin_files(args: argparse.Namespace) -> list[str]:
    """The ``--plugin`` arguments that are files (inputs no output may overwrite)."""
    return [p for p in (getattr(args, "plugin", None) or []) if str(p).endswith(".py")]


def method_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``-o KEY=VALUE`` options, with ``--display`` as ``display=True``."""
    opts = dict(getattr(args, "option", None) or [])
    if getattr(args, "display", False):
        opts["display"] = True
    return opts


@contextlib.contextmanager
def solver_log_to_stderr(enabled: bool) -> Iterator[None]:
    """With ``--display``, the solver's log (printed to ``sys.stdout`` by the
    solver interfaces) goes to standard error, so ``--json`` output on
    standard output stays one JSON object."""
    if not enabled:
        yield
        return
    sys.stdout.flush()
    try:
        # a stream of its own on a copy of descriptor 2: Pyomo's tee captures
        # sys.stdout and sys.stderr, and teeing into a captured stream deadlocks
        err = open(os.dup(sys.stderr.fileno()), "w", buffering=1, encoding="utf-8", errors="replace")
    except (OSError, ValueError, AttributeError):  # no real descriptor (embedded, tests)
        err = None
    if err is None:  # leave it on standard output rather than risk the deadlock
        yield
        return
    try:
        with contextlib.redirect_stdout(err):
            yield
    finally:
        err.close()


def _load(path: str, what: str) -> Any:
    load_families()  # importing the families is not part of reading the file
    t0 = time.perf_counter()
    if path == "-":
        try:
            text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as e:
            raise InstanceError("", f"cannot read standard input: {e}") from None
        inst = io.loads(text)
        path = "standard input"
    else:
        inst = io.load(path)
    log.info("%s/%s: load %.3f s (%s)", problem_of(inst).name, what, time.perf_counter() - t0, path)
    return inst


def _progress(args: argparse.Namespace, inst: Any, total_s: float | None) -> Any:
    """The progress line of a command that runs a method (:mod:`dmlsched.progress`):
    on a terminal only, not with ``-v`` or ``--display``."""
    return progress.for_command(args, f"{problem_of(inst).name}/{args.method}", total_s)


def check_image_format(path: str, flag: str, *, only: Sequence[str] | None = None) -> None:
    """An image path must end with a format matplotlib writes (else one error naming ``flag``)."""
    try:
        formats = set(supported_formats())
    except ImportError as e:
        raise UsageError(f"{flag}: drawing needs matplotlib ({e}): pip install 'dmlsched[plot]'") from None
    if only is not None:
        formats &= set(only)
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in formats:
        got = f".{ext} images" if ext else "a name without an image extension"
        raise UsageError(f"{flag} {path}: cannot write {got} (use one of {', '.join(sorted(formats))})")
