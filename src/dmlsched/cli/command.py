"""The ``dmlsched`` argument parser, its command handlers and :func:`main`."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from .. import interrupt
from ..stdio import command_stdout
from ..version import __version__
from . import tools
from .args import _method_args, _Parser, _plugin, _verbosity
from .bench import (
    add_bench_arguments,
    add_report_arguments,
    add_reproduce_arguments,
    cmd_bench,
    cmd_report,
    cmd_reproduce,
)
from .exits import EXIT_BAD_INPUT, exit_for
from .gantt import cmd_gantt, gantt_arguments
from .hunt import add_hunt_arguments, cli_hunt
from .paths import _plugin_files, check_image_format, check_output_path, load_plugins
from .solve import cmd_check, cmd_methods, cmd_solve


def build_parser() -> argparse.ArgumentParser:
    """The ``dmlsched`` argument parser."""
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

    p = sub.add_parser("bench", help="run methods over instance files or suites, append JSON lines, summarise")
    add_bench_arguments(p)
    _plugin(p)
    _verbosity(p)
    p = sub.add_parser("report", help="Markdown report with plots from a results file")
    add_report_arguments(p)
    _verbosity(p)
    p = sub.add_parser("reproduce", help="regenerate benchmarks/REPRODUCTION.md (the papers' claims vs our runs)")
    add_reproduce_arguments(p)
    _verbosity(p)
    p = sub.add_parser("hunt", help="search for instances where a method is far from optimal or breaks its bound")
    add_hunt_arguments(p)
    _plugin(p)
    _verbosity(p)
    p = sub.add_parser("generate", help="write an instance of a paper's seeded generator (no arguments: list them)")
    tools.add_generate_arguments(p)
    _verbosity(p)
    p = sub.add_parser("convert-trace", help="convert a real trace (swf, openb) to a moldable instance file")
    tools.add_convert_arguments(p)
    _verbosity(p)
    p = sub.add_parser("schema", help="print the JSON Schema of a family's instance files")
    tools.add_schema_arguments(p)
    _plugin(p)
    return parser


def cmd_hunt(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_output_path(args.out, "--out", folder=True, inputs=[args.start, *_plugin_files(args)])
    if args.plot is not None:
        check_output_path(args.plot, "--plot", inputs=[args.start, *_plugin_files(args)])
        check_image_format(args.plot, "--plot")
    return cli_hunt(args)


def cmd_generate(args: argparse.Namespace) -> int:
    if args.out not in (None, "-"):
        check_output_path(args.out, "--out")
    return tools.cli_generate(args)


def cmd_convert_trace(args: argparse.Namespace) -> int:
    if args.out != "-":
        check_output_path(args.out, "--out", inputs=[args.trace])
    return tools.cli_convert_trace(args)


HANDLERS = {
    "solve": cmd_solve, "check": cmd_check, "methods": cmd_methods, "gantt": cmd_gantt,
    "bench": cmd_bench, "report": cmd_report, "reproduce": cmd_reproduce, "hunt": cmd_hunt,
    "generate": cmd_generate, "convert-trace": cmd_convert_trace, "schema": lambda a: tools.cli_schema(a),
}


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
