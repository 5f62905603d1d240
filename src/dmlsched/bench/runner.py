"""The sweep: plan runs, skip what is done, feed an engine, record, summarise.

For each instance of the suite and each requested method of its family (by
default every registered method) and each repetition seed, one run is
planned, keyed by ``(instance hash, method, seed, solver, time limit)``.  The
reference method (default: the family's ``default_reference``) runs first,
once per instance, with the suite's base seed; its record then travels with
every other run of that instance so that the worker derives ratio, bound and
verdict with :func:`dmlsched.api.compare`.  Runs already in the results file
are not run again (a rerun resumes a killed sweep); the reference record is
taken from the file too.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from .execute import base_record, finish_record
from .progress import Progress
from .store import ResultStore, run_context, run_key
from .suite import InstanceItem, Suite, SuiteError, import_plugins, materialize

log = logging.getLogger("dmlsched.bench")


@dataclass
class PlannedRun:
    key: str
    item: InstanceItem
    method: str
    seed: int
    reference: str | None
    is_reference: bool = False


@dataclass
class SweepOutcome:
    """What a sweep produced: its records in plan order, and counts."""

    records: list[dict]
    ran: int
    skipped: int
    elapsed_s: float
    notes: list[str] = field(default_factory=list)
    engine: str = ""


def resolve_methods(suite: Suite, items: list[InstanceItem]) -> tuple[dict[str, list[str]], dict[str, str | None], list[str]]:
    """Methods and reference per family present in ``items``.

    Raises :class:`SuiteError` when a requested method or reference exists for
    none of the families (a typo must not silently run nothing).
    """
    from ..registry import get_problem, methods as registered

    fams = sorted({it.problem for it in items if it.problem})
    per: dict[str, list[str]] = {}
    refs: dict[str, str | None] = {}
    notes: list[str] = []
    wanted_all: set[str] = set()
    found: set[str] = set()
    for fam in fams:
        names = [m.name for m in registered(fam)]
        want = suite.methods_for(fam)
        if want is None:
            chosen = names
        else:
            wanted_all.update(want)
            chosen = [m for m in want if split_variant(m)[0] in names]
            found.update(chosen)
            missing = [m for m in want if split_variant(m)[0] not in names]
            if missing:
                notes.append(f"{fam}: method(s) {', '.join(missing)} not registered for this family (skipped)")
        per[fam] = chosen
        ref = suite.reference
        if ref == "default":
            ref = get_problem(fam).default_reference
            if ref is not None and ref not in names:
                notes.append(f"{fam}: default reference {ref!r} is not registered: runs without reference")
                ref = None
        elif ref is not None and split_variant(ref)[0] not in names:
            notes.append(f"{fam}: reference {ref!r} not registered for this family: runs without reference")
            ref = None
        refs[fam] = ref
    if wanted_all and not found and fams:
        raise SuiteError(f"none of the methods {', '.join(sorted(wanted_all))} is registered for "
                         f"the families present ({', '.join(fams)})")
    ref_req = suite.reference
    if ref_req not in (None, "default") and fams and all(refs[f] is None for f in fams):
        raise SuiteError(f"reference {ref_req!r} is registered for none of the families present ({', '.join(fams)})")
    return per, refs, notes


def split_variant(entry: str) -> tuple[str, str | None]:
    """``"list@proof"`` -> ``("list", "proof")``; ``"list"`` -> ``("list", None)``."""
    method, sep, label = entry.partition("@")
    return method, (label if sep else None)


def entry_options(suite: Suite, entry: str) -> dict:
    """Options of a method entry: ``suite.options[method]`` updated by
    ``suite.options["method@label"]`` for a variant."""
    method, label = split_variant(entry)
    opts = dict(suite.options.get(method, {}))
    if label is not None:
        opts.update(suite.options.get(entry, {}))
    return opts


def _key(suite: Suite, it: InstanceItem, method: str, seed: int, reference: str | None) -> str:
    """The run's key; a reference run's own reference is ``None``.  ``method``
    may be a variant entry ``"NAME@LABEL"`` (the label is part of the key)."""
    ctx = run_context(entry_options(suite, method), reference,
                      entry_options(suite, reference) if reference else None)
    return run_key(it.hash, method, seed, suite.solver, suite.time_limit, ctx)


def plan(suite: Suite, items: list[InstanceItem]) -> tuple[list[PlannedRun], list[str]]:
    per, refs, notes = resolve_methods(suite, items)
    runs: list[PlannedRun] = []
    for it in items:
        if it.problem is None:
            continue
        ref = refs[it.problem]
        keys: set[str] = set()
        if ref is not None:
            k = _key(suite, it, ref, suite.seed, None)
            runs.append(PlannedRun(k, it, ref, suite.seed, ref, is_reference=True))
            keys.add(k)
        for m in per[it.problem]:
            for s in suite.seeds:
                is_ref_run = m == ref and s == suite.seed  # the reference run itself
                k = _key(suite, it, m, s, None if is_ref_run else ref)
                if k not in keys:
                    keys.add(k)
                    runs.append(PlannedRun(k, it, m, s, ref))
    return runs, notes


#: fields of the reference's record that travel with the other runs of its instance
REF_FIELDS = ("key", "problem", "method", "variant", "status", "objective", "bound", "sense", "has_solution",
              "runtime_s", "solver")


def make_job(suite: Suite, run: PlannedRun, ref_record: dict | None) -> dict:
    it = run.item
    if ref_record is not None:
        ref_record = {k: ref_record.get(k) for k in REF_FIELDS}
    return {
        "key": run.key,
        "suite": suite.name,
        "label": it.label,
        "source": it.source,
        "instance": it.data,
        "instance_hash": it.hash,
        "problem": it.problem,
        "size": it.size,
        "method": split_variant(run.method)[0],
        "variant": run.method,
        "seed": run.seed,
        "solver": suite.solver,
        "time_limit": suite.time_limit,
        "options": entry_options(suite, run.method),
        "reference": run.reference,
        "reference_record": None if run.is_reference else ref_record,
        "plugins": list(suite.plugins),
    }


def error_record(suite: Suite, it: InstanceItem) -> dict:
    """The record of an instance that could not be loaded or generated."""
    job = {
        "key": run_key(it.hash, None, suite.seed, suite.solver, suite.time_limit),
        "suite": suite.name, "label": it.label, "source": it.source, "instance": None,
        "instance_hash": it.hash, "problem": None, "size": {}, "method": None,
        "seed": suite.seed, "solver": suite.solver, "time_limit": suite.time_limit,
    }
    rec = base_record(job)
    rec.update(status="error", error=it.error, verdict="inconclusive")
    return finish_record(rec, "runner")


def make_engine(workers: int | None = None, dask: str | None = None) -> Any:
    from .engines import DaskEngine, InProcessEngine, LocalEngine

    if dask:
        return DaskEngine(dask, workers=workers)
    if workers == 0:
        return InProcessEngine()
    return LocalEngine(workers)


def run_sweep(
    suite: Suite,
    *,
    out: str | None = None,
    workers: int | None = None,
    dask: str | None = None,
    engine: Any = None,
    progress: bool = True,
    stream: TextIO | None = None,
) -> SweepOutcome:
    """Run (or resume) ``suite`` and return its records in plan order.

    Parameters
    ----------
    out
        JSON-lines results file (append-only; runs found in it are skipped).
        ``None`` keeps results in memory.
    workers
        Local worker processes (default: the number of cores); ``0`` runs in
        this process without hard time limits.
    dask
        A Dask scheduler address, or ``"local"`` for a LocalCluster of
        ``workers`` workers.
    engine
        An engine object (overrides ``workers``/``dask``).
    """
    t0 = time.monotonic()
    import_plugins(suite.plugins)
    items = materialize(suite)
    runs, notes = plan(suite, items)
    store = ResultStore(out if out is not None else suite.out)
    stream = stream if stream is not None else sys.stderr
    order: list[str] = []
    skipped = 0
    eng = None
    try:
        # instances that failed to load: one error line each
        for it in items:
            if it.problem is None:
                rec = error_record(suite, it)
                order.append(rec["key"])
                if not store.done(rec["key"]):
                    store.append(rec)
                    print(f"bench: {it.label}: {it.error}", file=stream, flush=True)
        order.extend(r.key for r in runs)
        todo = [r for r in runs if not store.done(r.key)]
        skipped = len(runs) - len(todo)
        prog = Progress(len(todo), skipped=skipped, stream=stream, enabled=progress)
        for n in notes:
            print(f"bench: note: {n}", file=stream, flush=True)
        ran = 0
        if todo:
            eng = engine if engine is not None else make_engine(workers, dask)
        try:
            ran = _drive(suite, todo, store, eng, prog) if todo else 0
        finally:
            prog.close()
            if eng is not None and engine is None:
                eng.close()
    finally:
        store.close()
    records = [store.get(k) for k in order if store.get(k) is not None]
    return SweepOutcome(records=records, ran=ran, skipped=skipped,
                        elapsed_s=time.monotonic() - t0, notes=notes,
                        engine=getattr(eng, "name", "") if eng is not None else "")


def _drive(suite: Suite, todo: list[PlannedRun], store: ResultStore, eng: Any, prog: Progress) -> int:
    hard = suite.hard_limit()
    waiting: dict[str, list[PlannedRun]] = {}
    in_flight = 0
    todo_keys = {r.key for r in todo}
    # references first: their records travel with the other runs of their instance
    for r in todo:
        if r.is_reference:
            eng.submit(make_job(suite, r, None), hard)
            in_flight += 1
    for r in todo:
        if r.is_reference:
            continue
        ref_key = _key(suite, r.item, r.reference, suite.seed, None) if r.reference else None
        if ref_key is not None and ref_key in todo_keys and not store.done(ref_key):
            waiting.setdefault(ref_key, []).append(r)
        else:
            eng.submit(make_job(suite, r, store.get(ref_key) if ref_key else None), hard)
            in_flight += 1
    ran = 0
    while in_flight:
        rec = eng.next_result()
        in_flight -= 1
        ran += 1
        store.append(rec)
        prog.update(rec)
        for r in waiting.pop(rec["key"], []):
            eng.submit(make_job(suite, r, store.get(rec["key"])), hard)
            in_flight += 1
    return ran
