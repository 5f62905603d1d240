"""``dmlsched bench``, ``dmlsched report`` and ``dmlsched reproduce``: arguments, checks and handlers.

:func:`main` is ``python -m dmlsched.bench bench|report ...`` (the same as ``dmlsched ...``).
The engine, the store, the reports and the claims runner are :mod:`dmlsched.bench`'s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import interrupt
from ..bench.engines import check_dask_available
from ..bench.report import write_report
from ..bench.reproduce import DEFAULT_OUT, DEFAULT_QUICK_OUT, check_report_file, generate
from ..bench.runner import parse_retry, run_sweep
from ..bench.store import StoreLockedError, latest_records
from ..bench.summary import exit_code, summary_text
from ..errors import DmlschedError
from ..solvers import check_solver_name
from ..suites import MAX_REPETITIONS, Source, Suite, SuiteError, load_suite, parse_reference, parse_time_limit
from .args import _int_in, _seed
from .paths import _plugin_files, check_output_path, check_results_file


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched bench``.  Options left out keep a suite file's values."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="instance files, folders (their *.json, recursively) or suite .toml files")
    parser.add_argument("--methods", default=None,
                        help="comma-separated methods (default: every registered method of each family)")
    parser.add_argument("--reference", default=None,
                        help="reference method (default: the family's, usually 'exact'; 'none' for none)")
    parser.add_argument("--time-limit", default=None, metavar="S",
                        help="seconds per run, enforced by killing the run after S + grace (default 60; 'none')")
    parser.add_argument("--grace", type=float, default=None, metavar="S",
                        help="a run over its limit is asked to stop (and return its best incumbent) at limit + "
                             "S/2 and killed at limit + S (default S = 5 + limit/4)")
    parser.add_argument("--solver", default=None, choices=["highs", "gurobi"], help="MIP solver (default highs)")
    parser.add_argument("--seed", type=_seed, default=None, help="base seed (default 0)")
    parser.add_argument("--repetitions", type=_repetitions, default=None, metavar="R",
                        help="runs per (instance, method) with seeds seed..seed+R-1 (default 1)")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="append one JSON line per run to FILE; runs already in it are skipped "
                             "(an existing file that is not a results file is refused)")
    parser.add_argument("--retry", default=None, metavar="WHAT",
                        help="run again the recorded runs that ended so: a comma-separated list of errors, "
                             "killed (killed or stopped at the limit), not-reproducible (a wall clock cut them); "
                             "the new line replaces the old one")
    parser.add_argument("--any-version", action="store_true",
                        help="count runs recorded by another dmlsched version as done (the run key "
                             "carries the package version)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="parallel worker processes (default: number of cores; 0: in this process, no hard limit)")
    parser.add_argument("--dask", default=None, metavar="ADDRESS",
                        help="run on a Dask cluster at ADDRESS, or 'local' for a LocalCluster of --workers workers")
    parser.add_argument("--dashboard", default=None, metavar="ADDRESS", nargs="?", const=":8787",
                        help="serve the local Dask cluster's dashboard (default address :8787); off unless given")
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="import MODULE (or a .py file) registering extra families/methods (repeatable)")
    parser.add_argument("--keep-solutions", action="store_true",
                        help="keep each run's solution (its JSON) in its record, so that dmlsched gantt "
                             "--results draws it (a suite's keep_solutions = true does the same)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress display on stderr (a bar on a terminal, else a line every 15 s)")
    parser.add_argument("--max-rows", type=_rows, default=1000, help="rows of the per-run summary table (default 1000)")


def _repetitions(text: str) -> int:
    return _int_in(text, 1, MAX_REPETITIONS + 1, f"must be an integer in 1..{MAX_REPETITIONS}")


def _rows(text: str) -> int:
    return _int_in(text, 0, None, "must be an integer >= 0")


def suite_from_args(args: argparse.Namespace) -> Suite:
    """The suite a ``dmlsched bench`` command line describes."""
    tomls = [p for p in args.paths if str(p).endswith(".toml")]
    others = [p for p in args.paths if not str(p).endswith(".toml")]
    if len(tomls) > 1:
        raise SuiteError("give at most one suite .toml file per command")
    if tomls:
        suite = load_suite(tomls[0])
        suite.sources = suite.sources + [Source("path", pattern=str(Path(p).resolve())) for p in others]
    else:
        suite = Suite(sources=[Source("path", pattern=str(p)) for p in others], base_dir=Path.cwd())
    if getattr(args, "methods", None) is not None:
        suite.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        if not suite.methods:
            raise SuiteError(f"--methods: names no method (got {args.methods!r}); leave it out to run every method")
    if getattr(args, "reference", None) is not None:
        suite.reference = parse_reference(args.reference)
    if getattr(args, "time_limit", None) is not None:
        suite.time_limit = parse_time_limit(args.time_limit, "--time-limit")
    if getattr(args, "grace", None) is not None:
        if args.grace < 0:
            raise SuiteError("--grace: must be >= 0")
        suite.grace = args.grace
    if getattr(args, "solver", None) is not None:
        suite.solver = args.solver
    if getattr(args, "seed", None) is not None:
        suite.seed = args.seed
    if getattr(args, "keep_solutions", False):
        suite.keep_solutions = True
    if getattr(args, "repetitions", None) is not None:
        suite.repetitions = args.repetitions
    suite.plugins = list(suite.plugins) + [
        str(Path(p).resolve()) if p.endswith(".py") else p for p in (getattr(args, "plugin", None) or [])
    ]
    return suite


def cli_bench(args: argparse.Namespace) -> int:
    """Run ``dmlsched bench``.

    Exit code 0 when every run produced a result (including ``n/a``
    refusals, runs at the time limit and violated claims), 1 when a run ended
    in ``error`` (a real failure), 2 on bad input, 128 + the signal on Ctrl-C
    (130) or SIGTERM (143).
    """
    try:
        suite = suite_from_args(args)
        check_solver_name(suite.solver)
        if args.workers is not None and args.workers < 0:
            raise SuiteError("--workers: must be >= 0")
        if args.dask and args.workers == 0:
            raise SuiteError("--workers 0 (in-process) cannot be combined with --dask")
        dashboard = getattr(args, "dashboard", None)
        if dashboard and args.dask != "local":
            raise SuiteError("--dashboard: only for --dask local (a remote cluster serves its own)")
        retry = parse_retry(getattr(args, "retry", None))
        out = args.out if args.out is not None else (
            str((suite.base_dir / suite.out).resolve()) if suite.out else None)
        if retry and out is None:
            raise SuiteError("--retry: needs a results file (--out, or the suite's out)")
        outcome = run_sweep(suite, out=out, workers=args.workers, dask=args.dask, dashboard=dashboard,
                            progress=not args.no_progress, retry=retry,
                            any_version=bool(getattr(args, "any_version", False)))
    except KeyboardInterrupt:
        print(f"\nbench: interrupted by {interrupt.signal_name(interrupt.last_signal() or 2)}; finished runs are "
              "in the results file (runs cut short are not recorded), rerun to resume", file=sys.stderr)
        return interrupt.exit_code()
    except (DmlschedError, OSError, ImportError, StoreLockedError) as e:
        print(f"dmlsched bench: error: {e}", file=sys.stderr)
        return 2
    print(summary_text(outcome.records, ran=outcome.ran, skipped=outcome.skipped,
                       elapsed_s=outcome.elapsed_s, max_rows=args.max_rows, retried=outcome.retried))
    if out:
        print(f"results: {out}")
    return exit_code(outcome.records)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched report``."""
    parser.add_argument("results", nargs="+", metavar="RESULTS", help="JSON-lines results files of `dmlsched bench`")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for report.md, its CSV files (runs.csv, <family>-instances.csv) and figures")
    parser.add_argument("--title", default=None, help="report title")
    parser.add_argument("--formats", default="png,pdf", metavar="LIST",
                        help="figure formats, comma-separated: png (always, shown in report.md), pdf, svg "
                             "(default png,pdf)")


def cli_report(args: argparse.Namespace) -> int:
    """Write ``DIR/report.md`` and its plots from results files."""
    for p in args.results:
        if not Path(p).is_file():
            print(f"dmlsched report: error: {p}: no such file", file=sys.stderr)
            return 2
    formats = [f.strip().lower().lstrip(".") for f in str(getattr(args, "formats", "png,pdf")).split(",")]
    bad = [f for f in formats if f not in ("png", "pdf", "svg")]
    if bad or not any(formats):
        print(f"dmlsched report: error: --formats: expected png, pdf or svg, got {', '.join(bad) or '(none)'}",
              file=sys.stderr)
        return 2
    records = latest_records(args.results)  # a retried run: its newest line
    if not records:
        print("dmlsched report: error: no benchmark records in " + ", ".join(args.results), file=sys.stderr)
        return 2
    try:
        path = write_report(records, args.out, title=args.title, sources=args.results, formats=formats)
    except OSError as e:
        print(f"dmlsched report: error: --out {args.out}: {e}", file=sys.stderr)
        return 2
    print(f"report: {path}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if getattr(args, "out", None) is not None:
        # the path itself; whether an existing file is a results file is the store's check
        check_output_path(args.out, "--out", inputs=[*args.paths, *_plugin_files(args)])
    return cli_bench(args)


def cmd_report(args: argparse.Namespace) -> int:
    for r in args.results:
        check_results_file(r)
    check_output_path(args.out, "--out", folder=True, inputs=args.results)
    return cli_report(args)


def cmd_reproduce(args: argparse.Namespace) -> int:
    if getattr(args, "out", None) is not None:
        check_output_path(args.out, "--out", inputs=[getattr(args, "results", None)])
        check_report_file(args.out)
    if getattr(args, "results", None) is not None:
        check_output_path(args.results, "--results")
    if getattr(args, "archive", None) is not None:
        check_output_path(args.archive, "--archive")
    return cli_reproduce(args)


def add_reproduce_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched reproduce``."""
    parser.add_argument("--out", default=None, metavar="FILE",
                        help=f"Markdown file to write (default {DEFAULT_OUT}; with --quick {DEFAULT_QUICK_OUT})")
    parser.add_argument("--quick", action="store_true",
                        help="the quick scale of every claim (a smoke test for CI, not the result)")
    parser.add_argument("--results", default=None, metavar="FILE",
                        help="keep the runs in this JSON-lines file: a rerun resumes (default: a temporary file); "
                             "a .xz/.gz archive of run records (as shipped next to the report) is read, not changed")
    parser.add_argument("--archive", default=None, metavar="FILE",
                        help="ship the run records as xz-compressed JSON lines in FILE (default at full scale: "
                             "<report>-runs.jsonl.xz next to the report)")
    parser.add_argument("--no-archive", action="store_true", help="do not write the run-record archive")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="local worker processes (default: number of cores; 0: in this process, no limits)")
    parser.add_argument("--dask", default=None, metavar="ADDRESS",
                        help="run on a Dask cluster at ADDRESS, or 'local' for a LocalCluster of --workers workers")
    parser.add_argument("--dashboard", default=None, metavar="ADDRESS", nargs="?", const=":8787",
                        help="serve the local Dask cluster's dashboard (default address :8787)")
    parser.add_argument("--family", default=None, metavar="F,...", help="only the claims of these families")
    parser.add_argument("--claim", default=None, metavar="KEY,...", help="only these claims (by key)")
    parser.add_argument("--retry", default=None, metavar="WHAT",
                        help="re-run recorded runs that ended so (errors, killed, not-reproducible)")
    parser.add_argument("--progress", action="store_true",
                        help="show each sweep's progress on stderr also when it is not a terminal (on a "
                             "terminal it is shown unless --no-progress)")
    parser.add_argument("--no-progress", action="store_true", help="no progress display")


def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def cli_reproduce(args: argparse.Namespace) -> int:
    """``dmlsched reproduce``: 0 when the report was written, 2 on bad input."""
    try:
        if args.workers is not None and args.workers < 0:
            raise SuiteError("--workers: must be >= 0")
        if args.dask and args.workers == 0:
            raise SuiteError("--workers 0 (in-process) cannot be combined with --dask")
        if args.dask:
            check_dask_available()
        retry = parse_retry(args.retry)

        def split(s):
            """A comma-separated option's non-empty items (None when the option is absent)."""
            return [x.strip() for x in s.split(",") if x.strip()] if s else None

        if args.out is not None and Path(args.out).is_dir():
            raise SuiteError(f"--out {args.out}: is a folder, expected a file")
        p, runs = generate(args.out, scale="quick" if args.quick else "full", workers=args.workers,
                           dask=args.dask, dashboard=args.dashboard, results=args.results,
                           families=split(args.family), claim_keys=split(args.claim), retry=retry,
                           progress=(args.progress or _tty()) and not getattr(args, "no_progress", False),
                           archive=False if args.no_archive else (args.archive or True))
    except KeyboardInterrupt:
        print(f"\nreproduce: interrupted by {interrupt.signal_name(interrupt.last_signal() or 2)}; no report "
              "written; with --results FILE a rerun resumes", file=sys.stderr)
        return interrupt.exit_code()
    except (DmlschedError, OSError) as e:
        print(f"dmlsched reproduce: error: {e}", file=sys.stderr)
        return 2
    print(f"reproduction report: {p} ({len(runs)} claim(s))")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m dmlsched.bench [bench|report] ...`` (the same as ``dmlsched ...``)."""
    parser = argparse.ArgumentParser(prog="python -m dmlsched.bench")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench", help="run a benchmark sweep")
    add_bench_arguments(b)
    r = sub.add_parser("report", help="write a Markdown report with plots")
    add_report_arguments(r)
    args = parser.parse_args(argv)
    return cli_bench(args) if args.cmd == "bench" else cli_report(args)
