"""``dmlsched hunt``: adversarial instance search from the command line.

::

    dmlsched hunt hare --method list --strategy guided --budget 600 --seed 1 --out found/
    dmlsched hunt rar --method sjf-bco --strategy random --max-evals 500 --workers 2
    dmlsched hunt hare --method list -o relaxation=queyranne --size tasks=6 --size gpus=2

Progress (the best value over time) goes to standard error, one line per new
best and one for the first certified violation; the result (best and shrunk
ratios, the claimed bound, the time to the first violation, the files
written) to standard output, or one JSON object with ``--json``.  Exit codes
as every command: 0 done (whether or not a violation was found), 2 bad input
with one line naming the argument.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from .. import interrupt, io
from .. import progress as live
from ..bench.engines import check_dask_available
from ..errors import UnknownMethodError
from ..hunt import STRATEGIES, get_space, hunt, plot_progress
from ..hunt.search import guided_strategy
from ..hunt.space import HuntError
from ..registry import get_method, get_problem, problem_of
from .args import _int_in, _option, _positive, _seed
from .exits import _fmt


def _size(text: str) -> tuple[str, Any]:
    """``key=value`` with a number value (``--size tasks=6``)."""
    if "=" not in text or text.startswith("="):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        v = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise argparse.ArgumentTypeError(f"{key}: expected a number, got {raw!r}") from None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"{key}: expected a positive number, got {raw!r}")
    return key.strip(), v


def _count(text: str) -> int:
    return _int_in(text, 1, None, "must be a positive integer")


def _workers(text: str) -> int:
    return _int_in(text, 0, None, "must be 0 (in this process) or more")


def add_hunt_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched hunt`` (the common ``-v`` and ``--plugin`` are added by the caller)."""
    p.add_argument("problem", help="problem family (see `dmlsched methods`)")
    p.add_argument("--method", "-m", required=True, help="the hunted method")
    p.add_argument("--reference", "-r", default=None,
                   help="exact method (certified ratios, default: the family's) or a bound method (optimistic)")
    p.add_argument("--strategy", default="anneal",
                   help="random, hill, anneal (default) or guided (solver-guided, where the family has one)")
    p.add_argument("--budget", type=_positive, default=None, metavar="S",
                   help="seconds of search (default 60 unless --max-evals is given): no evaluation or "
                        "guided LP step starts after it; one started before it finishes (its method and "
                        "reference each within --time-limit); shrinking follows, within --shrink-evals)")
    p.add_argument("--max-evals", type=_count, default=None, metavar="N",
                   help="candidates scored (with this alone a hunt is reproducible exactly by --seed)")
    p.add_argument("--size", type=_size, action="append", default=[], metavar="KEY=VALUE",
                   help="size cap of the instance space (repeatable; e.g. tasks=6, gpus=2)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the search's random choices (default 0)")
    p.add_argument("--run-seed", type=_seed, default=0, metavar="N",
                   help="seed of every run of the method and the reference (default 0)")
    p.add_argument("--target", type=_positive, default=None, metavar="R",
                   help="ratio to beat (default: the method's claimed bound)")
    p.add_argument("--objective", choices=("ratio", "excess"), default=None,
                   help="maximise the ratio, or ratio / claimed bound (default when the method claims one)")
    p.add_argument("--time-limit", type=_positive, default=10.0, metavar="S",
                   help="deadline of each run of the method and of the reference (default 10)")
    p.add_argument("--solver", default="highs", choices=["highs", "gurobi"], help="MIP solver (default highs)")
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="KEY=VALUE",
                   help="option of the hunted method (repeatable)")
    p.add_argument("--reference-option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                   help="option of the reference (repeatable)")
    p.add_argument("--batch", type=_count, default=None, metavar="N",
                   help="candidates proposed and scored at a time (default: --workers, at least 1); "
                        "the search depends on the batch, not on the workers")
    p.add_argument("--workers", type=_workers, default=0, metavar="N",
                   help="local worker processes of the bench engine (default 0: evaluate in this process)")
    p.add_argument("--dask", default=None, metavar="ADDR",
                   help="evaluate on a Dask cluster (tcp://host:8786, or 'local')")
    p.add_argument("--shrink-evals", type=_workers, default=400, metavar="N",
                   help="evaluations spent shrinking the best instance (default 400; 0: no shrinking)")
    p.add_argument("--start", default=None, metavar="FILE",
                   help="instance file to start the local searches from (instead of a random sample)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder to write the shrunk instance and the hunt log (hunt-*.json) to")
    p.add_argument("--plot", default=None, metavar="FILE", help="also draw the best value over time (PNG)")
    p.add_argument("--json", action="store_true", help="print one JSON object on standard output")


def cli_hunt(args: argparse.Namespace) -> int:
    """Run ``dmlsched hunt`` (output paths already checked by the caller)."""
    try:
        get_problem(args.problem)
    except UnknownMethodError as e:
        raise HuntError(f"PROBLEM: {e}") from None
    for flag, name in (("--method", args.method), ("--reference", args.reference)):
        if name is not None:
            try:
                m = get_method(args.problem, name)
            except UnknownMethodError as e:
                raise HuntError(f"{flag}: {e}") from None
            if flag == "--reference" and m.kind not in ("exact", "bound"):
                raise HuntError(f"--reference {name}: a {m.kind}, which proves nothing about the optimum: name an "
                                "exact method (certified ratios) or a bound method")
    if args.strategy not in STRATEGIES:
        raise HuntError(f"--strategy: unknown strategy {args.strategy!r}; known: {', '.join(STRATEGIES)}")
    if args.strategy == "guided":
        try:
            guided_strategy(args.problem, args.method)
        except HuntError as e:
            raise HuntError(f"--strategy guided: {e}") from None
    try:
        space = get_space(args.problem)
    except HuntError as e:
        raise HuntError(f"PROBLEM: {e}") from None
    size = dict(args.size)
    try:
        space.size(size)
    except HuntError as e:
        raise HuntError(f"--size: {e}") from None
    if args.dask:
        check_dask_available()
    if args.out is not None:  # before the search: a folder that cannot be made fails now, not after it
        Path(args.out).mkdir(parents=True, exist_ok=True)
    start = None
    if args.start is not None:
        start = io.load(args.start)
        if problem_of(start).name != args.problem:
            raise HuntError(f"--start {args.start}: a {problem_of(start).name} instance, not {args.problem}")
    budget = args.budget if args.budget is not None else (None if args.max_evals is not None else 60.0)
    quiet = args.json
    bar = live.wanted(verbose=int(getattr(args, "verbose", 0) or 0) + int(getattr(args, "verbose_sub", 0) or 0))

    def say(text: str) -> None:
        if bar:
            live.write(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def progress(event: str, ctx: Any) -> None:
        b = ctx.best
        if bar:
            live.set_postfix(f"eval {ctx.steps}, best {ctx.value(b):.6g}")
        if quiet:
            return
        if event == "best":
            extra = ""
            if b.claimed is not None and math.isfinite(b.claimed):
                extra = f"  claimed {b.claimed:.6g}"
            cert = "" if b.certified else " (uncertified)"
            say(f"hunt: {ctx.elapsed():7.1f} s  eval {ctx.steps:>5}  best {ctx.value(b):.6g}  "
                f"ratio {_fmt(b.ratio)}{cert}{extra}")
        elif event == "violation":
            say(f"hunt: {ctx.elapsed():7.1f} s  eval {ctx.steps:>5}  first certified violation "
                f"(ratio {_fmt(b.ratio)} > claimed {_fmt(b.claimed)})")

    with live.running(f"hunt {args.problem}/{args.method}", budget, enabled=bar):
        res = _run(args, budget, size, progress, start)  # a solver's C-level output: see dmlsched.stdio
    if args.plot:
        plot_progress([res], args.plot)
    code = _print(args, res)
    if res.interrupted:
        saved = f"; the best so far is in {', '.join(res.files)}" if res.files else ""
        print(f"interrupted by {interrupt.signal_name()}: the hunt stopped after {res.evaluations} evaluations "
              f"(not shrunk){saved}", file=sys.stderr)
        return interrupt.exit_code()
    return code


def _run(args: argparse.Namespace, budget: float | None, size: dict, progress: Any, start: Any) -> Any:
    return hunt(
        args.problem, args.method, reference=args.reference, strategy=args.strategy, budget=budget,
        max_evals=args.max_evals, size=size, seed=args.seed, target=args.target, objective=args.objective,
        time_limit=args.time_limit, options=dict(args.option), reference_options=dict(args.reference_option),
        shrink_evals=args.shrink_evals, out=args.out, batch=args.batch, workers=args.workers, dask=args.dask,
        solver=args.solver, plugins=list(getattr(args, "plugin", []) or []), progress=progress, start=start,
        run_seed=args.run_seed,
    )


def _print(args: argparse.Namespace, res: Any) -> int:
    if args.json:
        print(json.dumps(res.to_json(), allow_nan=False, default=str))
        return 0
    b, s = res.best, res.shrunk
    print(f"problem           {res.problem}")
    print(f"method            {res.method}  (reference {res.reference})")
    print(f"strategy          {res.strategy}  seed {res.seed}  batch {res.batch}  engine {res.engine}")
    print(f"evaluations       {res.evaluations} in {res.elapsed_s:.1f} s")
    print(f"objective         {res.objective}")
    if b is None:
        print("best              - (nothing scored)")
        return 0
    print(f"best ratio        {_fmt(b.ratio)}  claimed {_fmt(b.claimed)}  certified {b.certified}")
    if s is not None:
        print(f"shrunk ratio      {_fmt(s.ratio)}  claimed {_fmt(s.claimed)}  violation {s.violation}")
    fv = res.first_violation
    print("first violation   " + (f"{fv[0]:.1f} s (evaluation {fv[1]})" if fv else "none"))
    if res.notes:
        print(f"notes             {json.dumps(res.notes, default=str)}")
    for f in res.files:
        print(f"wrote             {f}")
    if args.plot:
        print(f"wrote             {args.plot}")
    return 0
