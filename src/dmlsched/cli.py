"""The ``dmlsched`` command.

Subcommands: ``solve``, ``check``, ``methods``, ``gantt``, ``bench``, ``report``,
``reproduce``, ``hunt``, ``generate``, ``convert-trace``, ``schema`` (the
last three in :mod:`dmlsched.tools`); ``dmlsched --version`` prints the version.  An
instance file given as ``-`` is read from standard input.

Flags mean the same thing on every subcommand: ``-m/--method``, ``-o/--option
KEY=VALUE`` (a method option, repeatable), ``--out`` (a file or folder to write;
it has no short form), ``--plugin MODULE_OR_FILE`` (repeatable: import a module
or a ``.py`` file that registers methods or families first), ``--display``
(stream the solver's own log), ``-v`` (one line per stage), ``-vv`` (debug of
dmlsched only).

Exit codes: 0 success; 1 failure (the method ended with status ``error``, with
its message on standard error; a method returned an invalid solution; a solver
crashed; an internal error); 2 bad input (malformed file, unknown method,
option or solver, bad argument, an output path that cannot be written, model
too large for the chosen solver's licence) with one line on standard error
naming the field, argument or path; 3 the method refused the instance (status
``n/a``: outside its domain, or more than it can hold in the time or memory
given), with its reason on standard error; 128 + the signal (130 Ctrl-C, 143
``SIGTERM``) when a stop request cut the command (said on standard error; no
previous output replaced by the cut result).  Output paths are checked before
any work starts (an input of the same command, a FIFO or a device is
refused), and files are written atomically, so a bad input never changes or
loses a file that was already there.  Standard output carries only what the
command prints (:mod:`dmlsched.stdio`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Iterator, NoReturn, Sequence

from . import interrupt
from .errors import (
    DmlschedError,
    InstanceError,
    InvalidSolutionError,
    SolverError,
    SolverLimitError,
    SolverUnavailableError,
    UnknownSolverError,
    UsageError,
)
from .stdio import command_stdout

log = logging.getLogger("dmlsched")

#: exit code of bad input
EXIT_BAD_INPUT = 2
#: exit code of a method that refused the instance (status ``n/a``)
EXIT_NOT_APPLICABLE = 3


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit 2), not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------
# argument types


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` with ``value`` parsed as JSON when possible, else a string."""
    if "=" not in text or text.startswith("="):
        hint = ""
        if "." in text or "/" in text:
            hint = "; -o is --option everywhere: the output file is --out"
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}{hint}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        value = raw
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{key}: expected a finite value, got {raw!r}")
    return key.strip().replace("-", "_"), value


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text}")
    return v


def _int_in(text: str, lo: int, hi: int | None, need: str) -> int:
    """An integer argument in ``[lo, hi)`` (``hi=None``: no upper end);
    otherwise an error ``{need}, got TEXT``."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < lo or (hi is not None and v >= hi):
        raise argparse.ArgumentTypeError(f"{need}, got {text}")
    return v


def _seed(text: str) -> int:
    return _int_in(text, 0, 2**63, "must be an integer in [0, 2^63)")


# ---------------------------------------------------------------------------
# the parser


def _verbosity(p: argparse.ArgumentParser) -> None:
    if "-v" not in p._option_string_actions:  # noqa: SLF001 - argparse has no public test
        p.add_argument("-v", "--verbose", dest="verbose_sub", action="count", default=0,
                       help="log one line per stage; -vv: debug of dmlsched")


def _plugin(p: argparse.ArgumentParser) -> None:
    if "--plugin" not in p._option_string_actions:  # noqa: SLF001
        p.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE",
                       help="import a module or .py file registering methods/families first (repeatable)")


def _method_args(p: argparse.ArgumentParser, *, file_help: str = "instance file (JSON); '-': standard input") -> None:
    p.add_argument("file", help=file_help)
    p.add_argument("--method", "-m", required=True, help="method name (see `dmlsched methods PROBLEM`)")
    p.add_argument("--solver", default="highs", choices=["highs", "gurobi"], help="MIP solver (default highs)")
    p.add_argument("--time-limit", type=_positive, default=None, metavar="S",
                   help="deadline in seconds for the whole method (default: none)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of every random choice (default 0)")
    p.add_argument(
        "--option", "-o", type=_option, action="append", default=[], metavar="KEY=VALUE",
        help="method option (repeatable), value parsed as JSON when possible; "
             "`dmlsched methods PROBLEM` lists each method's options",
    )
    p.add_argument("--display", action="store_true", help="stream the solver's own log to standard error")
    _plugin(p)
    _verbosity(p)


def gantt_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched gantt FILE -m METHOD --out chart.png``."""
    _method_args(p)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="image to write (.png, .pdf, .svg; no short form: -o is --option)")
    p.add_argument("--title", default=None, help="chart title (default: instance, method, status, objective)")
    p.add_argument("--results", default=None, metavar="RESULTS",
                   help="draw the schedule METHOD recorded on FILE's instance in this results file "
                        "(dmlsched bench --keep-solutions) instead of solving again")


def build_parser() -> argparse.ArgumentParser:
    """The ``dmlsched`` argument parser."""
    from . import __version__

    parser = _Parser(
        prog="dmlsched",
        description="Exact models, heuristics and bound checkers for scheduling distributed ML jobs.",
    )
    parser.add_argument("--version", action="version", version=f"dmlsched {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log one line per stage (load, build, solve, extract, validate); -vv: debug")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("solve", help="run a method on an instance file")
    _method_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on standard output")
    p.add_argument("--out", metavar="FILE", help="also write the solution JSON to FILE (atomically)")
    p.add_argument("--save-interrupted", action="store_true",
                   help="on Ctrl-C or SIGTERM, still write the best solution found so far to --out "
                        "(by default an interrupted run leaves --out as it was)")

    p = sub.add_parser("check", help="compare a method with a reference and its proven bound")
    _method_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on standard output")
    p.add_argument("--reference", "-r", default=None,
                   help="reference method (default: the family's, usually exact)")
    # an exact reference can run for hours: check gets a default budget (method + reference)
    p.set_defaults(time_limit=60.0)

    p = sub.add_parser("methods", help="list registered methods and their options")
    p.add_argument("problem", nargs="?", help="only this problem family (then each method's options too)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    _plugin(p)
    _verbosity(p)

    p = sub.add_parser("gantt", help="draw a method's schedule as a Gantt chart (PNG, PDF or SVG)")
    gantt_arguments(p)

    from . import bench

    p = sub.add_parser("bench", help="run methods over instance files or suites, append JSON lines, summarise")
    bench.add_bench_arguments(p)
    _plugin(p)
    _verbosity(p)
    p = sub.add_parser("report", help="Markdown report with plots from a results file")
    bench.add_report_arguments(p)
    _verbosity(p)
    p = sub.add_parser("reproduce", help="regenerate benchmarks/REPRODUCTION.md (the papers' claims vs our runs)")
    bench.add_reproduce_arguments(p)
    _verbosity(p)
    from .hunt import cli as hunt_cli

    p = sub.add_parser("hunt", help="search for instances where a method is far from optimal or breaks its bound")
    hunt_cli.add_hunt_arguments(p)
    _plugin(p)
    _verbosity(p)
    from . import tools

    p = sub.add_parser("generate", help="write an instance of a paper's seeded generator (no arguments: list them)")
    tools.add_generate_arguments(p)
    _verbosity(p)
    p = sub.add_parser("convert-trace", help="convert a real trace (swf, openb) to a moldable instance file")
    tools.add_convert_arguments(p)
    _verbosity(p)
    p = sub.add_parser("schema", help="print the JSON Schema of a family's instance files")
    tools.add_schema_arguments(p)
    return parser


# ---------------------------------------------------------------------------
# helpers


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


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
        import tempfile

        with tempfile.TemporaryFile(dir=anc):
            pass
    except OSError as e:
        what = f"cannot write in {anc}" if anc == target else f"cannot create {target}"
        raise UsageError(f"{flag} {path}: {what}: {e.strerror or e}") from None
    return p


def _file_kind(p: Path) -> str:
    import stat

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
    from .suites import import_plugins

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
    from . import io

    from .registry import _ensure_loaded, problem_of

    _ensure_loaded()  # importing the families is not part of reading the file
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
    from . import progress
    from .registry import problem_of

    return progress.for_command(args, f"{problem_of(inst).name}/{args.method}", total_s)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ---------------------------------------------------------------------------
# commands


def cmd_solve(args: argparse.Namespace) -> int:
    from . import api
    from .registry import problem_of

    if args.out is not None:
        check_output_path(args.out, "--out", inputs=[args.file, *_plugin_files(args)])
    inst = _load(args.file, args.method)
    with solver_log_to_stderr(args.display), _progress(args, inst, args.time_limit):
        res = api.solve(inst, args.method, solver=args.solver, time_limit=args.time_limit, seed=args.seed,
                        **method_options(args))
    spec = problem_of(inst)
    sol_json = spec.solution_to_json(inst, res.solution) if res.solution is not None else None
    cut = bool(res.details.get("interrupted"))
    if args.out and sol_json is not None and (not cut or args.save_interrupted):
        from . import io

        io.write_text_atomic(args.out, json.dumps(sol_json, indent=2) + "\n")
    if args.json:
        print(json.dumps(res.to_json(sol_json), allow_nan=False))
    else:
        print(f"problem    {res.problem}")
        print(f"method     {res.method}")
        print(f"status     {res.status.value}")
        print(f"objective  {_fmt(res.objective)}  ({spec.objective_name})")
        print(f"bound      {_fmt(res.bound)}  ({'lower' if res.sense == 'min' else 'upper'} bound on the optimum)")
        print(f"runtime_s  {res.runtime_s:.3f}")
        if res.solver:
            print(f"solver     {res.solver}")
    if cut:
        kept = ""
        if args.out:
            kept = (f"; its best solution is in --out {args.out}" if args.save_interrupted and sol_json is not None
                    else f"; --out {args.out} left as it was (--save-interrupted writes the cut result)")
        return _interrupted(f"{res.problem}/{res.method} stopped after {res.runtime_s:.1f} s "
                            f"(status {res.status.value}){kept}")
    return _report_failure(res)


def _interrupted(what: str) -> int:
    """Say on standard error that a stop request cut the command; its exit code (128 + signal)."""
    print(f"interrupted by {interrupt.signal_name()}: {what}", file=sys.stderr)
    return interrupt.exit_code()


def _report_failure(res: Any) -> int:
    """Exit code 1 (``error``) or 3 (``n/a``) with the method's message on stderr."""
    if res.status.value not in ("error", "n/a"):
        return 0
    msg = _one_line(res.details.get("error") or "the method failed")
    if res.status.value == "n/a":
        print(f"not applicable: {res.problem}/{res.method}: {msg}", file=sys.stderr)
        return EXIT_NOT_APPLICABLE
    print(f"error: {res.problem}/{res.method}: {msg}", file=sys.stderr)
    return 1


def cmd_check(args: argparse.Namespace) -> int:
    from . import api

    inst = _load(args.file, args.method)
    total = None if args.time_limit is None else 2 * args.time_limit  # the method, then the reference
    with solver_log_to_stderr(args.display), _progress(args, inst, total):
        rep = api.check(
            inst, args.method, reference=args.reference, solver=args.solver,
            time_limit=args.time_limit, seed=args.seed, **method_options(args),
        )
    if args.json:
        print(json.dumps(rep.to_json(), allow_nan=False, default=str))
    else:
        for k in ("problem", "method", "objective", "reference", "reference_objective", "ratio", "bound", "verdict"):
            v = getattr(rep, k)
            print(f"{k:<20} {_fmt(getattr(v, 'value', v))}")
        for k, v in rep.details.items():
            print(f"  {k:<26} {_fmt(v)}")
    if rep.details.get("interrupted"):
        return _interrupted(f"the check of {rep.problem}/{rep.method} is cut ({rep.details['interrupted']}); "
                            f"its verdict {rep.verdict.value} uses what was found so far")
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    from .kit import COMMON_OPTIONS, default_time_limit
    from .registry import get_problem, methods

    if args.problem:
        get_problem(args.problem)  # unknown problem -> exit 2
    ms = methods(args.problem)
    if args.json:
        print(json.dumps([
            {"problem": m.problem, "method": m.name, "kind": m.kind, "description": m.description,
             "bound": m.bound_name, "options": [o.to_json() for o in m.options],
             "default_time_limit": default_time_limit(m.kind, m.uses_solver) if m.uses_kit else None,
             "common_options": [o.to_json() for o in COMMON_OPTIONS]}
            for m in ms
        ], default=str))
        return 0
    width = max((len(m.problem) + len(m.name) + 1 for m in ms), default=10)
    for m in ms:
        key = f"{m.problem}/{m.name}"
        extra = f"  [bound: {m.bound_name}]" if m.bound_name else ""
        dtl = default_time_limit(m.kind, m.uses_solver) if m.uses_kit else None
        if dtl is not None:
            extra += f"  [default time limit {dtl:g} s: calls a solver]"
        print(f"{key:<{width}}  {m.kind:<9}  {m.description}{extra}")
        if args.problem:
            for o in m.options:
                print(f"    -o {o.describe()}")
    if args.problem:
        print("every method also takes: " + "; ".join(o.describe() for o in COMMON_OPTIONS))
    else:
        print("`dmlsched methods PROBLEM` lists each method's options")
    return 0


def cmd_gantt(args: argparse.Namespace) -> int:
    from . import plot

    return plot.cli_gantt(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    if getattr(args, "out", None) is not None:
        # the path itself; whether an existing file is a results file is the store's check
        check_output_path(args.out, "--out", inputs=[*args.paths, *_plugin_files(args)])
    return bench.cli_bench(args)


def cmd_report(args: argparse.Namespace) -> int:
    from . import bench

    for r in args.results:
        check_results_file(r)
    check_output_path(args.out, "--out", folder=True, inputs=args.results)
    return bench.cli_report(args)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import bench

    if getattr(args, "out", None) is not None:
        check_output_path(args.out, "--out", inputs=[getattr(args, "results", None)])
        from .bench.reproduce import check_report_file

        check_report_file(args.out)
    if getattr(args, "results", None) is not None:
        check_output_path(args.results, "--results")
    if getattr(args, "archive", None) is not None:
        check_output_path(args.archive, "--archive")
    return bench.cli_reproduce(args)


def cmd_hunt(args: argparse.Namespace) -> int:
    from .hunt import cli as hunt_cli

    if args.out is not None:
        check_output_path(args.out, "--out", folder=True, inputs=[args.start, *_plugin_files(args)])
    if args.plot is not None:
        check_output_path(args.plot, "--plot", inputs=[args.start, *_plugin_files(args)])
        check_image_format(args.plot, "--plot")
    return hunt_cli.cli_hunt(args)


def check_image_format(path: str, flag: str, *, only: Sequence[str] | None = None) -> None:
    """An image path must end with a format matplotlib writes (else one error naming ``flag``)."""
    from .plot import supported_formats

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


def cmd_generate(args: argparse.Namespace) -> int:
    from . import tools

    if args.out not in (None, "-"):
        check_output_path(args.out, "--out")
    return tools.cli_generate(args)


def cmd_convert_trace(args: argparse.Namespace) -> int:
    from . import tools

    if args.out != "-":
        check_output_path(args.out, "--out", inputs=[args.trace])
    return tools.cli_convert_trace(args)


HANDLERS = {
    "solve": cmd_solve, "check": cmd_check, "methods": cmd_methods, "gantt": cmd_gantt,
    "bench": cmd_bench, "report": cmd_report, "reproduce": cmd_reproduce, "hunt": cmd_hunt,
    "generate": cmd_generate, "convert-trace": cmd_convert_trace, "schema": lambda a: _tools().cli_schema(a),
}


def _tools() -> Any:
    from . import tools

    return tools


def configure_logging(verbose: int) -> None:
    """``0``: warnings; ``1``: INFO of dmlsched (one line per stage); ``2+``: DEBUG
    of dmlsched.  Other libraries (Pyomo, Dask) stay at WARNING."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s",
                            stream=sys.stderr)
    lg = logging.getLogger("dmlsched")
    lg.setLevel(logging.NOTSET if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dmlsched`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, argument errors (already printed)
        return int(e.code or 0) if not isinstance(e.code, str) else EXIT_BAD_INPUT
    verbose = int(args.verbose or 0) + int(getattr(args, "verbose_sub", 0) or 0)
    configure_logging(verbose)
    gen = interrupt.generation()
    try:
        # descriptor 1 carries only what the command prints (a solver's C-level
        # output goes to stderr with --display, else nowhere)
        with command_stdout(display=bool(getattr(args, "display", False))), interrupt.stop_signals_interrupt():
            load_plugins(getattr(args, "plugin", None) or [])
            return HANDLERS[args.command](args)
    except BrokenPipeError:  # the reader of standard output went away (`| head`): not an error of ours
        return 141
    except KeyboardInterrupt:
        if not interrupt.since(gen):
            interrupt.request()
        print(f"interrupted by {interrupt.signal_name()}: stopped before any output was written", file=sys.stderr)
        return interrupt.exit_code()
    except Exception as e:  # noqa: BLE001 - every other exception: its exit code and one line from EXIT_CODES
        return exit_for(e, verbose)


def _gurobi_hint(e: BaseException) -> str:
    return " (pip install 'dmlsched[gurobi]'; its pip licence is size-limited)" if "gurobi" in str(e) else ""


def _os_error(e: BaseException) -> str:
    where = getattr(e, "filename", None)
    where = where if where is not None else ""
    return f"{where}{': ' if where else ''}{getattr(e, 'strerror', None) or e}"


#: exit code and standard-error line of a command that raised, by exception type: the first row
#: whose type the exception is an instance of wins (subclasses before their bases).  The line is
#: the prefix and the message (``_one_line(str(e))`` unless the row gives its own function).
#: A stop request (``KeyboardInterrupt``: 128 + the signal) and a closed standard output
#: (``BrokenPipeError``: 141, nothing printed) are handled by :func:`main` before this table.
EXIT_CODES: tuple[tuple[type[BaseException], int, str, Any], ...] = (
    (InvalidSolutionError, 1, "internal error: invalid solution: ", None),
    (SolverLimitError, EXIT_BAD_INPUT, "error: ", None),
    (UnknownSolverError, EXIT_BAD_INPUT, "error: ", None),
    # an extra that is not installed (or no licence)
    (SolverUnavailableError, EXIT_BAD_INPUT, "error: --solver: ", lambda e: _one_line(str(e)) + _gurobi_hint(e)),
    (SolverError, 1, "solver error: ", None),
    # bad files, unknown methods/options/problems, bad option values, unusable arguments and paths
    (DmlschedError, EXIT_BAD_INPUT, "error: ", None),
    (ValueError, EXIT_BAD_INPUT, "error: ", None),
    (OSError, EXIT_BAD_INPUT, "error: ", _os_error),  # a path that cannot be read or written
    (ImportError, EXIT_BAD_INPUT, "error: ", None),  # an optional extra that is not installed
    # a bug: one line, the traceback with -vv
    (Exception, 1, "internal error: ",
     lambda e: f"{type(e).__name__}: {_one_line(str(e))} (run with -vv for the traceback)"),
)


def exit_for(e: BaseException, verbose: int = 0) -> int:
    """Print the standard-error line of ``e`` and return its exit code (:data:`EXIT_CODES`).

    With ``verbose >= 2`` an exception that only the last row (``Exception``) matches, a bug,
    prints its traceback first.
    """
    for kind, code, prefix, message in EXIT_CODES:
        if isinstance(e, kind):
            if kind is Exception and verbose >= 2:
                traceback.print_exception(e)
            print(f"{prefix}{message(e) if message else _one_line(str(e))}", file=sys.stderr)
            return code
    raise e  # not an Exception (e.g. SystemExit): not ours to map


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
