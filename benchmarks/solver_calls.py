"""Solver-call spy: every call of a Pyomo or CP-SAT solve the methods make on the bundled instances.

A refactor that must not change what is solved (PLAN-22, steps D2-D6 and
F2: the same models with the same work limits, in the same order) keeps this
output.  :func:`dmlsched.solvers.solve_model` and
:func:`dmlsched.cpsat.solve_cpsat` are wrapped (every caller imports them at
call time, so the wrappers see every call); for each family, instance file
under ``instances/`` and method that uses a solver, the method runs as
:mod:`behaviour_digest` runs it (seed 0, default options plus its work
limits), and one tab-separated line is printed per solver call::

    family  instance  method  call#  function  model-sha256  arguments

The model is fingerprinted as in :mod:`model_fingerprints` (LP text with
symbolic labels, or the CP-SAT proto text) at the moment of the call; the
arguments are the call's effective arguments (defaults filled in) as JSON,
except the wall-clock ones (``time_limit``, ``deadline_at``), with ``tee`` as a boolean and a
callback as ``true``/``false``.  Hare's relaxation cache is cleared before
each run, so every run makes its own calls.  ``--library`` adds Hare's
library caller of the relaxation, :func:`dmlsched.problems.hare.guided.hare_trace`
(method ``hare_trace:<method>``).  Nothing timed goes to standard output::

    .venv/bin/python benchmarks/solver_calls.py --family hare --library > /tmp/calls-a.txt
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import Any

import dmlsched
from dmlsched import cpsat, solvers
from dmlsched.registry import methods

sys.path.insert(0, str(Path(__file__).resolve().parent))
from behaviour_digest import SKIP, _options, instance_files  # noqa: E402
from model_fingerprints import fingerprint  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: keyword arguments that carry wall-clock values (not compared)
WALL_CLOCK = ("time_limit", "deadline_at")

CALLS: list[str] = []


def _arguments(fn: Any, model: Any, args: tuple, kwargs: dict[str, Any]) -> str:
    bound = inspect.signature(fn).bind(model, *args, **kwargs)
    bound.apply_defaults()  # the effective values: a default passed explicitly is the same call
    out: dict[str, Any] = {}
    for k, v in list(bound.arguments.items())[1:]:
        if k in WALL_CLOCK:
            continue
        if k == "tee":
            v = bool(v)
        elif k == "callback":
            v = v is not None
        out[k] = v
    return json.dumps(out, sort_keys=True, default=repr)


def _spy(name: str, fn: Any) -> Any:
    def wrapper(model: Any, *args: Any, **kwargs: Any) -> Any:
        sha, size = fingerprint(model)
        CALLS.append("\t".join([name, sha, size, _arguments(fn, model, args, kwargs)]))
        return fn(model, *args, **kwargs)

    return wrapper


def _clear_caches() -> None:
    from dmlsched.problems.hare.relaxation import clear_relaxation_cache

    clear_relaxation_cache()


def _library_runs(family: str, inst: Any) -> list[tuple[str, Any]]:
    """Library callers of the solvers, as ``(label, thunk)``."""
    if family != "hare":
        return []
    from dmlsched.problems.hare.guided import hare_trace

    return [(f"hare_trace:{m}", (lambda m=m: hare_trace(inst, m, {}))) for m in ("list", "list-queyranne")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=Path, default=ROOT / "instances")
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    ap.add_argument("--method", action="append", help="only this method name (repeatable)")
    ap.add_argument("--library", action="store_true", help="also the library callers (Hare's hare_trace)")
    args = ap.parse_args(argv)
    logging.getLogger("dmlsched").setLevel(logging.ERROR)
    logging.getLogger("pyomo").setLevel(logging.ERROR)  # the LP writer's file-name warning
    solvers.solve_model = _spy("solve_model", solvers.solve_model)
    cpsat.solve_cpsat = _spy("solve_cpsat", cpsat.solve_cpsat)

    print("# solver calls: seed 0, the behaviour digest's options; wall-clock arguments left out")
    print("# columns: family instance method call# function model-sha256 model-size arguments")
    by_family: dict[str, list[Any]] = {}
    for m in methods():
        if m.uses_solver:
            by_family.setdefault(m.problem, []).append(m)
    for path in instance_files(args.instances):
        inst = dmlsched.load(path)
        family = dmlsched.problem_of(inst).name
        if args.family and family not in args.family:
            continue
        name = path.relative_to(args.instances).as_posix()
        runs: list[tuple[str, Any]] = []
        for m in by_family.get(family, []):
            if (args.method and m.name not in args.method) or SKIP.get((family, m.name, path.stem)) \
                    or SKIP.get((family, m.name)):
                continue
            runs.append((m.name, (lambda m=m: dmlsched.solve(inst, m.name, seed=0, **_options(m)))))
        if args.library:
            runs += _library_runs(family, inst)
        for label, thunk in runs:
            _clear_caches()
            CALLS.clear()
            try:
                thunk()
                end = "done"
            except Exception as e:  # noqa: BLE001 - the spy records what happens
                end = f"raised {type(e).__name__}"
            for i, line in enumerate(CALLS):
                print("\t".join([family, name, label, str(i), line]), flush=True)
            print("\t".join([family, name, label, str(len(CALLS)), end]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
