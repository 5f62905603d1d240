"""Model fingerprints: SHA-256 of every model the public builders make on the bundled instances.

A refactor of a model builder that keeps the model (the same variables,
constraints, names and order) keeps these fingerprints.  For each instance
file under ``instances/`` and each builder of its family in :data:`BUILDERS`,
the script builds the model and prints one tab-separated line::

    family  instance  builder  sha256  size

A Pyomo model is fingerprinted by its LP text with symbolic labels (the names
of the components and their indices, in the writer's order); a CP-SAT model
by the text form of its proto (variables, constraints, objective and hint in
insertion order).  ``size`` is the number of LP lines or of proto variables
and constraints.  A builder that refuses or fails prints ``raised`` with the
exception type and a hash of its message.  Nothing is solved except what a
builder needs as its input (Hare's CP box takes the objective of
``smith-eft``), and nothing timed goes to standard output: run it twice on the
same commit and the outputs are identical::

    .venv/bin/python benchmarks/model_fingerprints.py > /tmp/fp-a.txt

``--family F`` (repeatable) restricts the families; ``--instances DIR``
reads another folder.

Builders reached (public functions and classes of the families):

- cruise: ``models.build_model(inst, W)`` for every ``W`` in ``1..N-1``;
  ``models.build_count_model(inst, counts)`` for the type counts of the
  ``proportional`` configuration.
- gpu-grouping: ``models.build_model``, ``models.build_typed_model``,
  ``cp.TypedCpModel`` (CP-SAT, default scaling, no hint).
- hare: ``models.build_exact`` (weighted completion and ``flow=True``),
  ``relaxation.build_relaxation_master``, ``relaxation.build_rl_miqcp``,
  ``cp.build_cp`` (default scaling, box from ``smith-eft``'s schedule).
- harmony: ``models.build_model``.
- hlas: ``cp.OfflineCpModel`` (rounding exact, up and down; default scale).
- moldable: ``models.build_model``; ``cp.MoldableCp`` on ``cp.scaled_data``
  with the default scale and the upper bound of ``moldable-equi``.
- rar: ``models.build_ilp_bound``; ``models.build_schedule_ilp`` over
  ``models.nondelay_schedules`` (when the enumeration completes);
  ``cp.build_cp`` at the instance's horizon (``relax=True`` and the exact
  model at ``cp.progress_scale``'s default scale).
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import math
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import dmlsched

ROOT = Path(__file__).resolve().parents[1]

#: largest CP-SAT / ILP model (in variables, by the family's own size estimate) built here
MAX_VARIABLES = 2_000_000


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(model: Any) -> tuple[str, str]:
    """``(sha256, size)`` of a Pyomo model (LP text, symbolic labels) or a CP-SAT model (proto text)."""
    if hasattr(model, "Proto"):  # ortools.sat.python.cp_model.CpModel
        proto = model.Proto()
        return _hash(str(proto)), f"{len(proto.variables)} vars {len(proto.constraints)} cons"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.lp"
        model.write(str(path), format="lp", io_options={"symbolic_solver_labels": True})
        text = path.read_text()
    return _hash(text), f"{text.count(chr(10))} lp lines"


# --------------------------------------------------------------------------- builders per family


def _cruise(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.cruise import models

    for W in range(1, inst.num_machines):
        yield f"build_model(W={W})", lambda W=W: models.build_model(inst, W)
    res = dmlsched.solve(inst, "proportional", seed=0)
    if res.solution is not None:
        counts = _type_counts(inst, res.solution)
        yield f"build_count_model({counts})", lambda: models.build_count_model(inst, counts)


def _type_counts(inst: Any, cfg: Any) -> tuple[int, ...]:
    """Worker counts per machine type (:attr:`CruiseInstance.machine_types`) of a configuration."""
    workers = set(cfg.workers)
    return tuple(sum(1 for m in group if m in workers) for group in inst.machine_types)


def _grouping(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.gpugrouping import cp, models

    yield "build_model", lambda: models.build_model(inst)
    yield "build_typed_model", lambda: models.build_typed_model(inst)

    def typed_cp() -> Any:
        types = inst.gpu_types
        sc = cp.choose_scaling(np.array(types.speeds, dtype=float), types.counts, None)
        return cp.TypedCpModel(inst, sc).model

    yield "TypedCpModel", typed_cp


def _hare(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.hare import cp, models, relaxation

    yield "build_exact", lambda: models.build_exact(inst).model
    yield "build_exact(flow=True)", lambda: models.build_exact(inst, flow=True).model
    yield "build_relaxation_master", lambda: relaxation.build_relaxation_master(inst).model
    yield "build_rl_miqcp", lambda: relaxation.build_rl_miqcp(inst).model

    def hare_cp() -> Any:
        inc = dmlsched.solve(inst, "smith-eft", seed=0).solution
        sc = cp.choose_scaling(inst)
        box = cp.int_box(inst, sc, cp.scaled_objective(inst, sc, inc))
        return cp.build_cp(inst, sc, box).model

    yield "cp.build_cp", hare_cp


def _harmony(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.harmony import models

    yield "build_model", lambda: models.build_model(inst)


def _hlas(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.hlas import cp

    for rounding in ("exact", "up", "down"):
        yield (f"OfflineCpModel(rounding={rounding})",
               lambda r=rounding: cp.OfflineCpModel(inst, cp.choose_time_scale(inst).scale, rounding=r).model)


def _moldable(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.moldable import cp, models

    yield "build_model", lambda: models.build_model(inst)

    def moldable_cp() -> Any:
        ub = dmlsched.solve(inst, "moldable-equi", seed=0).objective
        scale, exact = cp.choose_scale(inst, None)
        data = cp.scaled_data(inst, scale, exact, math.inf if ub is None else ub)
        return cp.MoldableCp(inst, data).model

    yield "MoldableCp", moldable_cp


def _rar(inst: Any) -> Iterator[tuple[str, Callable[[], Any]]]:
    from dmlsched.problems.rar import cp, models

    yield "build_ilp_bound", lambda: models.build_ilp_bound(inst)

    def schedule_ilp() -> Any:
        Y = models.nondelay_schedules(inst)
        return models.build_schedule_ilp(inst, Y)

    yield "build_schedule_ilp(nondelay)", schedule_ilp
    H = int(inst.horizon)
    if cp.model_size(inst, H)["variables"] <= MAX_VARIABLES:
        yield f"cp.build_cp(H={H}, relax=True)", lambda: cp.build_cp(inst, H, relax=True).model
        scale = cp.progress_scale(inst, None)[0]
        yield f"cp.build_cp(H={H}, scale={scale})", lambda: cp.build_cp(inst, H, scale=scale).model


BUILDERS: dict[str, Callable[[Any], Iterator[tuple[str, Callable[[], Any]]]]] = {
    "cruise": _cruise,
    "gpu-grouping": _grouping,
    "hare": _hare,
    "harmony": _harmony,
    "hlas": _hlas,
    "moldable": _moldable,
    "rar": _rar,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=Path, default=ROOT / "instances")
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    args = ap.parse_args(argv)
    logging.getLogger("dmlsched").setLevel(logging.ERROR)
    logging.getLogger("pyomo").setLevel(logging.ERROR)
    print("# model fingerprints: sha256 of LP text (symbolic labels) or CP-SAT proto text")
    print("# columns: family instance builder sha256 size")
    for path in sorted(p for p in args.instances.rglob("*.json") if p.is_file()):
        inst = dmlsched.load(path)
        family = dmlsched.problem_of(inst).name
        if args.family and family not in args.family:
            continue
        name = path.relative_to(args.instances).as_posix()
        try:
            builders = list(BUILDERS[family](inst))
        except Exception as e:  # noqa: BLE001 - the fingerprint records what happens
            print("\t".join([family, name, "(builders)", "raised", f"{type(e).__name__} msg:{_hash(str(e))[:16]}"]))
            continue
        for label, build in builders:
            try:
                digest, size = fingerprint(build())
            except Exception as e:  # noqa: BLE001
                digest, size = "raised", f"{type(e).__name__} msg:{_hash(str(e))[:16]}"
            print("\t".join([family, name, label, digest, size]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
