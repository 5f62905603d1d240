"""Behaviour digest: every registered method on every bundled instance, one line each.

A refactor that keeps behaviour keeps this digest line for line.  For each
instance file under ``instances/`` (its family read from the file) and each
method registered for that family, the script runs
``dmlsched.solve(instance, method, seed=0, **options)`` with the method's
default options, plus a deterministic work limit where the method has one
(``work_limit`` for CP-SAT, see :data:`WORK_OPTIONS`), and prints one
tab-separated line::

    family  instance  method  status  objective  bound  solution-sha256  reproducible

``objective`` and ``bound`` are ``repr`` of the floats (``-`` for none), the
hash is the SHA-256 of the solution's JSON (the family's ``solution_to_json``,
keys sorted), and ``reproducible`` is ``Result.reproducible`` (false when a
wall clock cut the run, which then may differ between two runs).  A method
that raises prints ``raised`` with the exception type and a hash of its
message; a status without a solution (``n/a``, ``error``) prints a hash of
``details["error"]`` in the solution column (``err:...``).

Pairs that would run long are skipped (:data:`SKIP`) and listed in the
``#`` header lines of the output with the reason, so the digest says what it
does not cover.  Nothing timed is written to standard output: with
``--times`` each run's seconds go to standard error.  Run it twice on the same
commit and the outputs are identical::

    DMLSCHED_TRACES=/work/shared/traces .venv/bin/python benchmarks/behaviour_digest.py > /tmp/digest-a.txt
    diff /tmp/digest-a.txt /tmp/digest-b.txt         # nothing: same behaviour

Options: ``--family F`` / ``--method M`` (repeatable) restrict the runs;
``--all`` also runs the pairs in :data:`SKIP`; ``--instances DIR`` reads
another folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import dmlsched
from dmlsched.registry import get_problem, methods
from dmlsched.stdio import command_stdout

ROOT = Path(__file__).resolve().parents[1]

#: options added to the defaults so that a method stops on deterministic work,
#: never on the wall clock (the same at any load)
WORK_OPTIONS: dict[str, dict[str, Any]] = {
    "work_limit": {"work_limit": 10.0},
}

#: (family, method) or (family, method, instance stem) -> why it is not run by
#: default (a run of minutes on a loaded machine, or no work limit to stop it)
SKIP: dict[tuple[str, ...], str] = {
    ("hlas", "offline-mip", "fig9_10"): "HiGHS MIP without a work limit: "
                                        "still running after 3 min (load 7), not capped",
}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _num(x: Any) -> str:
    return "-" if x is None else repr(float(x))


def _options(spec: Any) -> dict[str, Any]:
    names = {o.name for o in spec.options}
    out: dict[str, Any] = {}
    for name, opts in WORK_OPTIONS.items():
        if name in names:
            out.update(opts)
    return out


def _skip_reason(family: str, method: str, stem: str) -> str | None:
    return SKIP.get((family, method, stem)) or SKIP.get((family, method))


def instance_files(folder: Path) -> list[Path]:
    """Every ``*.json`` under ``folder``, in a fixed order."""
    return sorted(p for p in folder.rglob("*.json") if p.is_file())


def digest_line(family: str, name: str, method: str, inst: Any, options: dict[str, Any]) -> str:
    """Run one method on one instance and format its digest line."""
    try:
        res = dmlsched.solve(inst, method, seed=0, **options)
    except Exception as e:  # noqa: BLE001 - the digest records what happens
        return "\t".join([family, name, method, "raised", type(e).__name__, "-", "msg:" + _hash(str(e))[:16], "-"])
    if res.solution is not None:
        sol = get_problem(family).solution_to_json(inst, res.solution)
        sol_hash = _hash(json.dumps(sol, sort_keys=True, separators=(",", ":")))
    else:
        sol_hash = "err:" + _hash(str(res.details.get("error", "")))[:16]
    return "\t".join([family, name, method, res.status.value, _num(res.objective), _num(res.bound),
                      sol_hash, str(res.reproducible).lower()])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=Path, default=ROOT / "instances")
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    ap.add_argument("--method", action="append", help="only this method name (repeatable)")
    ap.add_argument("--all", action="store_true", help="also run the pairs listed in SKIP")
    ap.add_argument("--times", action="store_true", help="each run's seconds on standard error")
    args = ap.parse_args(argv)
    logging.getLogger("dmlsched").setLevel(logging.ERROR)

    print(f"# behaviour digest: seed 0, default options plus {json.dumps(WORK_OPTIONS, sort_keys=True)}")
    print("# columns: family instance method status objective bound solution-sha256 reproducible")
    for key, why in sorted(SKIP.items()):
        print(f"# skipped{'' if not args.all else ' (run anyway: --all)'}: {'/'.join(key)}: {why}")
    by_family: dict[str, list[Any]] = {}
    for m in methods():
        by_family.setdefault(m.problem, []).append(m)
    for path in instance_files(args.instances):
        inst = dmlsched.load(path)
        family = dmlsched.problem_of(inst).name
        if args.family and family not in args.family:
            continue
        name = path.relative_to(args.instances).as_posix()
        for m in by_family.get(family, []):
            if args.method and m.name not in args.method:
                continue
            if not args.all and _skip_reason(family, m.name, path.stem):
                continue
            t0 = time.perf_counter()
            print(digest_line(family, name, m.name, inst, _options(m)), flush=True)
            if args.times:
                print(f"{time.perf_counter() - t0:8.2f} s  {family} {name} {m.name}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    with command_stdout(display=True):  # what a solver prints from C goes to standard error
        code = main()
    sys.exit(code)
