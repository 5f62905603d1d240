"""Solver-call spy: every call of ``cpsat.solve_cpsat`` and ``solvers.solve_model``
made by the methods on the bundled instances, with every argument except the
wall-clock ones.

A refactor that keeps behaviour keeps this output line for line: it runs the
same pairs as :mod:`behaviour_digest` (every registered method on every
instance under ``instances/``, seed 0, default options plus the deterministic
work limit of :data:`behaviour_digest.WORK_OPTIONS`, the same ``SKIP`` list)
and prints, for each solver call, one tab-separated line::

    family  instance  method  call#  function  arguments

``arguments`` is the JSON of the call's arguments bound to the function's
signature with its defaults filled in (so passing a default explicitly changes
nothing; ``options`` ``None`` is written ``{}``), without the wall-clock values
(``time_limit``, ``deadline_at``); the
model is the SHA-256 of its CP-SAT proto text (or its Pyomo class name and
number of variables and constraints), a callback is ``true`` when given.  The
function is spied wherever a module bound it at import (``from ..cpsat import
solve_cpsat``), so every path to it is seen::

    DMLSCHED_TRACES=/work/shared/traces .venv/bin/python benchmarks/solver_calls.py --family rar > /tmp/calls.txt

Options: ``--family F`` / ``--method M`` (repeatable), ``--instances DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable

import dmlsched
from dmlsched import cpsat, solvers
from dmlsched.registry import methods
from dmlsched.stdio import command_stdout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from behaviour_digest import ROOT, _options, _skip_reason, instance_files  # noqa: E402

#: arguments that carry wall-clock values (they differ from run to run)
WALL_CLOCK = {"time_limit", "deadline_at"}


def _model(model: Any) -> str:
    proto = getattr(model, "Proto", None)
    if proto is not None:
        return "cpsat:" + hashlib.sha256(str(proto()).encode()).hexdigest()
    try:
        import pyomo.environ as pyo

        nv = sum(1 for _ in model.component_data_objects(pyo.Var))
        nc = sum(1 for _ in model.component_data_objects(pyo.Constraint))
        return f"pyomo:{type(model).__name__}:{nv} vars:{nc} constraints"
    except Exception:  # noqa: BLE001 - whatever the model is, named
        return type(model).__name__


def _value(name: str, value: Any) -> Any:
    if name == "model":
        return _model(value)
    if name == "options" and value is None:
        return {}  # no options and empty options are the same call
    if callable(value):
        return True
    if isinstance(value, dict):
        return {str(k): _value(k, v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_value(name, v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return repr(value)


class Spy:
    """Replaces a solver function everywhere it is bound and records its calls."""

    def __init__(self, module: Any, name: str, calls: list[tuple[str, str]]) -> None:
        self.original: Callable[..., Any] = getattr(module, name)
        self.name = f"{module.__name__.rsplit('.', 1)[-1]}.{name}"
        self.signature = inspect.signature(self.original)
        self.calls = calls  # shared by the spies: (function, arguments) in call order
        self.patched: list[tuple[Any, str]] = []

        def spy(*args: Any, **kwargs: Any) -> Any:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args_ = {k: _value(k, v) for k, v in bound.arguments.items() if k not in WALL_CLOCK}
            self.calls.append((self.name, json.dumps(args_, sort_keys=True, separators=(",", ":"))))
            return self.original(*args, **kwargs)

        self.spy = spy

    def install(self) -> None:
        for mod in list(sys.modules.values()):
            if not getattr(mod, "__name__", "").startswith("dmlsched"):
                continue
            for attr, value in list(vars(mod).items()):
                if value is self.original:
                    setattr(mod, attr, self.spy)
                    self.patched.append((mod, attr))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=Path, default=ROOT / "instances")
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    ap.add_argument("--method", action="append", help="only this method name (repeatable)")
    args = ap.parse_args(argv)
    logging.getLogger("dmlsched").setLevel(logging.ERROR)
    logging.getLogger("pyomo").setLevel(logging.ERROR)
    by_family: dict[str, list[Any]] = {}
    for m in methods():  # loads every family, so every module binding is patched below
        by_family.setdefault(m.problem, []).append(m)
    calls: list[tuple[str, str]] = []
    spies = [Spy(cpsat, "solve_cpsat", calls), Spy(solvers, "solve_model", calls)]
    for s in spies:
        s.install()
    print("# solver calls: seed 0, the behaviour digest's options; wall-clock arguments left out")
    print("# columns: family instance method call# function arguments")
    for path in instance_files(args.instances):
        inst = dmlsched.load(path)
        family = dmlsched.problem_of(inst).name
        if args.family and family not in args.family:
            continue
        name = path.relative_to(args.instances).as_posix()
        for m in by_family.get(family, []):
            if (args.method and m.name not in args.method) or _skip_reason(family, m.name, path.stem):
                continue
            calls.clear()
            try:
                dmlsched.solve(inst, m.name, seed=0, **_options(m))
            except Exception:  # noqa: BLE001 - the calls made before it are still recorded
                pass
            for i, (fn, c) in enumerate(calls):
                print("\t".join([family, name, m.name, str(i), fn, c]), flush=True)
    return 0


if __name__ == "__main__":
    with command_stdout(display=True):  # what a solver prints from C goes to standard error
        code = main()
    sys.exit(code)
