"""The ``dmlsched`` command.

Subcommands: ``solve``, ``check``, ``methods``, ``bench``, ``report``, ``reproduce``, ``gantt``.
Exit codes: 0 success; 1 failure (the method ended with status ``error``, with
its message on standard error; a method returned an invalid solution; a solver
crashed); 2 bad input (malformed file, unknown method, option or solver, model
too large for the chosen solver's licence) with the error on standard error;
3 the method refused the instance (status ``n/a``: outside its domain, or more
than it can hold in the time or memory given), with its reason on standard error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, Sequence

from .errors import (
    InstanceError,
    InvalidSolutionError,
    SolverError,
    SolverLimitError,
    UnknownMethodError,
)

log = logging.getLogger("dmlsched")


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` with ``value`` parsed as JSON when possible, else a string."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.replace("-", "_"), value


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return v


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file (JSON)")
    p.add_argument("--method", "-m", required=True, help="method name (see `dmlsched methods`)")
    p.add_argument("--solver", default="highs", choices=["highs", "gurobi"], help="MIP solver (default highs)")
    p.add_argument("--time-limit", type=_positive, default=None, metavar="S",
                   help="seconds per solver run (default: none for solve, 60 for check)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object on standard output")
    p.add_argument(
        "--option", "-o", type=_option, action="append", default=[], metavar="KEY=VALUE",
        help="method option (repeatable), value parsed as JSON when possible",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dmlsched",
        description="Exact models, heuristics and bound checkers for scheduling distributed ML jobs.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (repeatable)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("solve", help="run a method on an instance file")
    _common(p)
    p.add_argument("--out", metavar="FILE", help="also write the solution JSON to FILE (atomically)")

    p = sub.add_parser("check", help="compare a method with a reference and its proven bound")
    _common(p)
    # an exact reference can run for hours: check gets a default limit per solver run
    p.set_defaults(time_limit=60.0)
    p.add_argument("--reference", "-r", default=None, help="reference method (default: the family's, usually exact)")

    p = sub.add_parser("methods", help="list registered methods")
    p.add_argument("problem", nargs="?", help="only this problem family")
    p.add_argument("--json", action="store_true")

    from . import bench

    p = sub.add_parser("bench", help="run methods over instance files or suites, append JSON lines, summarise")
    bench.add_bench_arguments(p)
    p = sub.add_parser("report", help="Markdown report with plots from a results file")
    bench.add_report_arguments(p)
    p = sub.add_parser("reproduce", help="regenerate benchmarks/REPRODUCTION.md (the papers' claims vs our runs)")
    bench.add_reproduce_arguments(p)
    from . import plot

    p = sub.add_parser("gantt", help="draw a schedule as a Gantt chart (PNG)")
    plot.add_gantt_arguments(p)
    return parser


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def cmd_solve(args: argparse.Namespace) -> int:
    from . import api, io
    from .registry import problem_of

    inst = io.load(args.file)
    res = api.solve(
        inst, args.method, solver=args.solver, time_limit=args.time_limit, seed=args.seed,
        **dict(args.option),
    )
    spec = problem_of(inst)
    sol_json = spec.solution_to_json(inst, res.solution) if res.solution is not None else None
    if args.out and sol_json is not None:
        io.write_text_atomic(args.out, json.dumps(sol_json, indent=2) + "\n")
    if args.json:
        out = res.to_json(sol_json)
        print(json.dumps(out, allow_nan=False))
    else:
        print(f"problem    {res.problem}")
        print(f"method     {res.method}")
        print(f"status     {res.status.value}")
        print(f"objective  {_fmt(res.objective)}  ({spec.objective_name})")
        print(f"bound      {_fmt(res.bound)}  ({'lower' if res.sense == 'min' else 'upper'} bound on the optimum)")
        print(f"runtime_s  {res.runtime_s:.3f}")
        if res.solver:
            print(f"solver     {res.solver}")
    return _report_failure(res)


#: exit code of a method that refused the instance (status ``n/a``)
EXIT_NOT_APPLICABLE = 3


def _report_failure(res: Any) -> int:
    """Exit code 1 (``error``) or 3 (``n/a``) with the method's message on stderr."""
    if res.status.value not in ("error", "n/a"):
        return 0
    msg = res.details.get("error") or "the method failed"
    if res.status.value == "n/a":
        print(f"not applicable: {res.problem}/{res.method}: {msg}", file=sys.stderr)
        return EXIT_NOT_APPLICABLE
    print(f"error: {res.problem}/{res.method}: {msg}", file=sys.stderr)
    return 1


def cmd_check(args: argparse.Namespace) -> int:
    from . import api, io

    inst = io.load(args.file)
    rep = api.check(
        inst, args.method, reference=args.reference, solver=args.solver,
        time_limit=args.time_limit, seed=args.seed, **dict(args.option),
    )
    if args.json:
        print(json.dumps(rep.to_json(), allow_nan=False, default=str))
    else:
        for k in ("problem", "method", "objective", "reference", "reference_objective", "ratio", "bound", "verdict"):
            print(f"{k:<20} {_fmt(getattr(rep, k))}")
        for k, v in rep.details.items():
            print(f"  {k:<26} {_fmt(v)}")
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    from .registry import get_problem, methods

    if args.problem:
        get_problem(args.problem)  # unknown problem -> exit 2
    ms = methods(args.problem)
    if args.json:
        print(json.dumps([
            {"problem": m.problem, "method": m.name, "kind": m.kind, "description": m.description,
             "bound": m.bound_name}
            for m in ms
        ]))
        return 0
    width = max((len(m.problem) + len(m.name) + 1 for m in ms), default=10)
    for m in ms:
        key = f"{m.problem}/{m.name}"
        extra = f"  [bound: {m.bound_name}]" if m.bound_name else ""
        print(f"{key:<{width}}  {m.kind:<9}  {m.description}{extra}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dmlsched`` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    handlers = {"solve": cmd_solve, "check": cmd_check, "methods": cmd_methods}
    try:
        if args.command in handlers:
            return handlers[args.command](args)
        if args.command == "bench":
            from . import bench

            return bench.cli_bench(args)
        if args.command == "report":
            from . import bench

            return bench.cli_report(args)
        if args.command == "reproduce":
            from . import bench

            return bench.cli_reproduce(args)
        if args.command == "gantt":
            from . import plot

            return plot.cli_gantt(args)
    except (InstanceError, UnknownMethodError, SolverLimitError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # bad option values reaching a method
        print(f"error: {e}", file=sys.stderr)
        return 2
    except InvalidSolutionError as e:
        print(f"internal error: invalid solution: {e}", file=sys.stderr)
        return 1
    except SolverError as e:
        print(f"solver error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
