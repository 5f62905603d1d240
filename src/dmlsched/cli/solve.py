"""``dmlsched solve``, ``dmlsched check`` and ``dmlsched methods``."""

from __future__ import annotations

import argparse
import json

from .. import api, io
from ..kit import COMMON_OPTIONS, default_time_limit
from ..registry import get_problem, methods, problem_of
from .exits import _fmt, _interrupted, _report_failure
from .paths import _load, _plugin_files, _progress, check_output_path, method_options, solver_log_to_stderr


def cmd_solve(args: argparse.Namespace) -> int:
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


def cmd_check(args: argparse.Namespace) -> int:
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
