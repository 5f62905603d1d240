"""``dmlsched gantt``: solve an instance (or read a recorded run) and draw its schedule.

The drawing is :mod:`dmlsched.plot`'s; this module holds the command's arguments and checks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import solve
from ..errors import UsageError
from ..plot import JsonTasks, gantt, gantt_title, savefig, supported_formats
from ..progress import for_command
from ..registry import problem_of
from ..result import Result, Status
from ..tools import ToolError, recorded_run, solution_from_json
from .args import _method_args
from .paths import _load, check_output_path, method_options, solver_log_to_stderr


def gantt_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched gantt FILE -m METHOD --out chart.png``."""
    _method_args(p)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="image to write (.png, .pdf, .svg; no short form: -o is --option)")
    p.add_argument("--title", default=None, help="chart title (default: instance, method, status, objective)")
    p.add_argument("--results", default=None, metavar="RESULTS",
                   help="draw the schedule METHOD recorded on FILE's instance in this results file "
                        "(dmlsched bench --keep-solutions) instead of solving again")


def recorded_result(inst: Any, args: argparse.Namespace) -> Any:
    """The :class:`~dmlsched.result.Result` of the run ``--method`` kept in
    ``--results`` (``dmlsched bench --keep-solutions``), its solution rebuilt
    and validated by the family's validator."""
    rec = recorded_run(args.results, inst, args.method, args.seed if args.seed else None)
    spec = problem_of(inst)
    sol = solution_from_json(inst, rec["solution"])
    if sol is None:  # no from_json: draw the JSON's task bars as they are
        tasks = rec["solution"].get("tasks") if isinstance(rec["solution"], dict) else None
        if not isinstance(tasks, list):
            raise ToolError(f"--results: cannot rebuild a {spec.name} solution from its JSON")
        sol = JsonTasks(tasks)
    else:
        spec.validate(inst, sol)
    return Result(spec.name, rec["method"], Status(rec["status"]), objective=rec.get("objective"),
                  bound=rec.get("bound"), solution=sol, sense=spec.sense, runtime_s=rec.get("runtime_s") or 0.0)


def cmd_gantt(args: argparse.Namespace) -> int:
    """Solve ``FILE`` with ``--method`` (any registered method, plugins
    included, with its ``-o`` options) and draw the schedule.

    Exit 2 on bad input (checked before solving: the output path and its
    format), 1 when the method returns no schedule.
    """
    check_output_path(args.out, "--out", inputs=[args.file, getattr(args, "results", None),
                                                 *(p for p in args.plugin if p.endswith(".py"))])
    try:
        formats = supported_formats()
    except ImportError as e:
        raise UsageError(f"gantt needs matplotlib ({e}): pip install 'dmlsched[plot]'") from None
    ext = Path(args.out).suffix.lower().lstrip(".")
    if ext and ext not in formats:
        raise UsageError(f"--out {args.out}: cannot write .{ext} images (use one of {', '.join(sorted(formats))})")
    inst = _load(args.file, args.method)
    spec = problem_of(inst)
    if spec.gantt is None and spec.no_gantt is not None:
        raise UsageError(f"{args.file}: no Gantt chart for problem {spec.name!r}: {spec.no_gantt}")
    if getattr(args, "results", None):
        res = recorded_result(inst, args)
    else:
        with solver_log_to_stderr(args.display), for_command(args, f"{spec.name}/{args.method}", args.time_limit):
            res = solve(inst, args.method, solver=args.solver, time_limit=args.time_limit, seed=args.seed,
                        **method_options(args))
    if res.details.get("interrupted"):  # a cut run draws no chart (main reports the interruption)
        raise KeyboardInterrupt
    if res.solution is None:
        msg = res.details.get("error")
        print(f"dmlsched gantt: error: {res.problem}/{args.method} returned no schedule (status "
              f"{res.status.value}{': ' + ' '.join(str(msg).split()) if msg else ''})", file=sys.stderr)
        return 3 if res.status.value == "n/a" else 1
    label = getattr(inst, "name", "") or Path(args.file).stem
    ax = gantt(inst, res.solution, title=args.title or gantt_title(inst, res, label))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    savefig(ax, str(args.out))  # atomically
    print(f"gantt: {args.out}")
    return 0
