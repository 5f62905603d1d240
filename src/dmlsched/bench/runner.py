"""The sweep: plan runs, skip what is done, feed an engine, record, summarise.

For each instance of the suite and each requested method of its family (by
default every registered method, or those of the suite's ``kinds``) and each
repetition seed, one run is planned, keyed by ``(instance hash, method, seed,
solver, time limit, options and reference, package version)``.  The
reference method (default: the family's ``default_reference``) runs first,
once per instance, with the suite's base seed; its record then travels with
every other run of that instance so that the worker derives ratio, bound and
verdict with :func:`dmlsched.api.compare`.  Runs already in the results file
are not run again (a rerun resumes a killed sweep); the reference record is
taken from the file too.

Retries (``retry={"errors", "killed", "not-reproducible"}``) run again the
keys whose newest record is an error, a run the benchmark had to stop or kill,
or a run whose result a wall clock cut; the new line is appended and becomes
the key's record.  A retried reference also re-runs the runs compared with it
(their verdicts depend on it).

Requested methods are checked before anything runs: a method registered for
none of the families present (or not for the family whose table names it),
an unknown kind, or an option a method does not declare is a
:class:`~dmlsched.suites.SuiteError`.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import DmlschedError
from ..options import check_options
from ..registry import KINDS, get_method, get_problem
from ..registry import methods as registered
from ..suites import MAX_RUNS, InstanceItem, Suite, SuiteError, import_plugins, materialize
from .engines import DaskEngine, InProcessEngine, LocalEngine, check_dask_available
from .execute import base_record, finish_record
from .progress import Progress
from .store import ResultStore, package_version, run_context, run_key

#: what ``retry`` may name
RETRY_CHOICES = ("errors", "killed", "not-reproducible")


def parse_retry(value: str | list[str] | tuple[str, ...] | set[str] | None) -> frozenset[str]:
    """``"errors,killed"`` (or a list) -> the set; unknown words are a :class:`SuiteError`."""
    if not value:
        return frozenset()
    words = value.split(",") if isinstance(value, str) else list(value)
    out = {w.strip() for w in words if w.strip()}
    bad = sorted(out - set(RETRY_CHOICES))
    if bad:
        raise SuiteError(f"--retry: unknown {', '.join(map(repr, bad))}; choose from {', '.join(RETRY_CHOICES)}")
    return frozenset(out)


def was_killed(rec: dict) -> bool:
    """Whether the benchmark had to kill the run, or stop it at its limit."""
    d = rec.get("details") or {}
    return bool(rec.get("killed") or d.get("killed") or d.get("stopped_by_bench"))


def is_not_applicable(rec: dict) -> bool:
    """Status ``n/a``, or an older record's ``error`` flagged ``not_applicable``."""
    return rec.get("status") == "n/a" or bool((rec.get("details") or {}).get("not_applicable"))


def wants_retry(rec: dict | None, retry: frozenset[str]) -> bool:
    """Whether a recorded run falls under ``retry``."""
    if rec is None or not retry or rec.get("method") is None:
        return False
    if "errors" in retry and rec.get("status") == "error" and not is_not_applicable(rec):
        return True
    if "killed" in retry and was_killed(rec):
        return True
    if "not-reproducible" in retry and rec.get("reproducible") is False:
        return True
    return False

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
    retried: int = 0


def resolve_methods(
    suite: Suite, items: list[InstanceItem],
) -> tuple[dict[str, list[str]], dict[str, str | None], list[str]]:
    """Methods and reference per family present in ``items``.

    Raises :class:`SuiteError` when a requested method is registered for none
    of the families present (or, in a per-family table, not for its family),
    when a kind is unknown, when a method's options are not the ones it
    declares, or when the reference exists for none of the families (a typo
    must not silently run nothing).
    """
    fams = sorted({it.problem for it in items if it.problem})
    per: dict[str, list[str]] = {}
    refs: dict[str, str | None] = {}
    notes: list[str] = []
    bad_kinds = sorted(set(suite.kinds or ()) - set(KINDS))
    if bad_kinds:
        raise SuiteError(f"kinds: unknown {', '.join(map(repr, bad_kinds))}; choose from {', '.join(KINDS)}")
    known: dict[str, list[str]] = {fam: [m.name for m in registered(fam)] for fam in fams}
    flat = suite.methods if isinstance(suite.methods, list) else None
    if flat is not None and fams:
        nowhere = [m for m in flat if not any(split_variant(m)[0] in known[f] for f in fams)]
        if nowhere:
            raise SuiteError(
                f"method(s) {', '.join(nowhere)} not registered for "
                + ("the family " if len(fams) == 1 else "any of the families ") + ", ".join(fams)
                + "; known: " + "; ".join(f"{f}: {', '.join(known[f])}" for f in fams))
    for fam in fams:
        names = known[fam]
        want = suite.methods_for(fam)
        if want is None:
            chosen = list(names)
        else:
            missing = [m for m in want if split_variant(m)[0] not in names]
            if missing and flat is None:
                raise SuiteError(f"methods.{fam}: {', '.join(missing)} not registered for {fam}; "
                                 f"known: {', '.join(names)}")
            chosen = [m for m in want if split_variant(m)[0] in names]
            if missing:
                notes.append(f"{fam}: method(s) {', '.join(missing)} not registered for this family (skipped)")
        if suite.kinds:
            chosen = [m for m in chosen if get_method(fam, split_variant(m)[0]).kind in suite.kinds]
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
        for entry in chosen + ([ref] if ref else []):
            name = split_variant(entry)[0]
            m = get_method(fam, name)
            try:
                check_options(fam, name, m.options, entry_options(suite, entry))
            except DmlschedError as e:
                raise SuiteError(f"options of {entry} ({fam}): {e}") from None
    ref_req = suite.reference
    if ref_req not in (None, "default") and fams and all(refs[f] is None for f in fams):
        raise SuiteError(f"reference {ref_req!r} is registered for none of the families present ({', '.join(fams)})")
    if fams:  # options of a method the suite never runs: a typo, not a no-op
        run = {e for f in fams for e in per[f] + ([refs[f]] if refs[f] else [])}
        names = run | {split_variant(e)[0] for e in run}
        idle = sorted(k for k in suite.options if k not in names)
        if idle:
            raise SuiteError(f"options.{idle[0]}: the suite runs no method {idle[0]!r} "
                             f"(it runs {', '.join(sorted(run)) or 'nothing'})")
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
    may be a variant entry ``"NAME@LABEL"`` (the label is part of the key).
    The key ends with the package version."""
    ctx = run_context(entry_options(suite, method), reference,
                      entry_options(suite, reference) if reference else None)
    return run_key(it.hash, method, seed, suite.solver, suite.time_limit, ctx, version=package_version())


def plan(suite: Suite, items: list[InstanceItem]) -> tuple[list[PlannedRun], list[str]]:
    per, refs, notes = resolve_methods(suite, items)
    most = sum(len(per[it.problem]) * len(suite.seeds) + 1 for it in items if it.problem)
    if most > MAX_RUNS:  # counted before any run is planned (the bound counts each reference once)
        raise SuiteError(f"the suite plans up to {most:,} runs (instances x methods x repetitions), more than "
                         f"{MAX_RUNS:,}: split it")
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
        wide = (ref_record.get("details") or {}).get("whole_space_bound")
        ref_record = {k: ref_record.get(k) for k in REF_FIELDS}
        if wide is not None:  # a bound the reference proves over every solution (api.compare)
            ref_record["details"] = {"whole_space_bound": wide}
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
        "keep_solution": bool(suite.keep_solutions),
    }


def error_record(suite: Suite, it: InstanceItem) -> dict:
    """The record of an instance that could not be loaded or generated."""
    job = {
        "key": run_key(it.hash, None, suite.seed, suite.solver, suite.time_limit, version=package_version()),
        "suite": suite.name, "label": it.label, "source": it.source, "instance": None,
        "instance_hash": it.hash, "problem": None, "size": {}, "method": None,
        "seed": suite.seed, "solver": suite.solver, "time_limit": suite.time_limit,
    }
    rec = base_record(job)
    rec.update(status="error", error=it.error, verdict="n/a")
    return finish_record(rec, "runner")


def make_engine(workers: int | None = None, dask: str | None = None, dashboard: str | None = None,
                jobs_per_worker: int | None = None) -> Any:
    if dask:
        return DaskEngine(dask, workers=workers, dashboard=dashboard)
    if workers == 0:
        return InProcessEngine()
    return LocalEngine(workers, jobs_per_worker=jobs_per_worker)


def run_sweep(
    suite: Suite,
    *,
    out: str | None = None,
    workers: int | None = None,
    dask: str | None = None,
    dashboard: str | None = None,
    engine: Any = None,
    progress: bool = True,
    stream: TextIO | None = None,
    retry: str | list[str] | frozenset[str] | None = None,
    any_version: bool = False,
    progress_interval: float | None = None,
    jobs_per_worker: int | None = None,
) -> SweepOutcome:
    """Run (or resume) ``suite`` and return its records in plan order.

    Parameters
    ----------
    out
        JSON-lines results file (append-only; runs found in it are skipped).
        ``None`` keeps results in memory.  An existing file that is not a
        results file is refused, untouched.
    workers
        Local worker processes (default: the number of cores); ``0`` runs in
        this process without time limits enforced by the bench.
    dask
        A Dask scheduler address, or ``"local"`` for a LocalCluster of
        ``workers`` workers.
    dashboard
        Address of the Dask dashboard of a local cluster (``":8787"``);
        ``None``: no dashboard.
    engine
        An engine object (overrides ``workers``/``dask``).
    retry
        Run again the recorded runs of these kinds: ``"errors"``,
        ``"killed"``, ``"not-reproducible"`` (a comma-separated string or a
        collection); the newest line of a key counts.
    any_version
        Count runs recorded by another dmlsched version as done.
    progress_interval
        Seconds between progress lines when the stream is not a terminal
        (default :data:`~dmlsched.bench.progress.LOG_INTERVAL_S`).
    jobs_per_worker
        Local workers: start a fresh worker process after this many runs
        (``1``: every run in a new process, so its peak memory is its own).
    """
    t0 = time.monotonic()
    retry_set = parse_retry(retry)
    if dask and engine is None:
        check_dask_available()
    import_plugins(suite.plugins)
    items = materialize(suite)
    runs, notes = plan(suite, items)
    store = ResultStore(out if out is not None else suite.out, any_version=any_version)
    stream = stream if stream is not None else sys.stderr
    order: list[str] = []
    skipped = 0
    retried = 0
    ran = 0
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
        todo_keys = {r.key for r in runs if not store.done(r.key) or wants_retry(store.get(r.key), retry_set)}
        # a retried reference re-runs the runs compared with it
        redo_refs = {r.key for r in runs if r.is_reference and r.key in todo_keys and store.done(r.key)}
        for r in runs:
            if r.reference and not r.is_reference:
                if _key(suite, r.item, r.reference, suite.seed, None) in redo_refs:
                    todo_keys.add(r.key)
        todo = [r for r in runs if r.key in todo_keys]
        retried = sum(1 for r in todo if store.done(r.key))
        skipped = len(runs) - len(todo)
        prog = Progress(len(todo), skipped=skipped, retried=retried, stream=stream, enabled=progress,
                        interval=progress_interval)
        for n in notes:
            print(f"bench: note: {n}", file=stream, flush=True)
        if todo:
            eng = engine if engine is not None else make_engine(workers, dask, dashboard, jobs_per_worker)
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
                        engine=getattr(eng, "name", "") if eng is not None else "", retried=retried)


def _drive(suite: Suite, todo: list[PlannedRun], store: ResultStore, eng: Any, prog: Progress) -> int:
    hard = suite.hard_limit()
    stop = suite.stop_after()
    waiting: dict[str, list[PlannedRun]] = {}
    in_flight = 0
    todo_keys = {r.key for r in todo}

    def submit(r: PlannedRun, ref_record: dict | None) -> None:
        eng.submit(make_job(suite, r, ref_record), hard, stop)

    # references first: their records travel with the other runs of their instance
    for r in todo:
        if r.is_reference:
            submit(r, None)
            in_flight += 1
    for r in todo:
        if r.is_reference:
            continue
        ref_key = _key(suite, r.item, r.reference, suite.seed, None) if r.reference else None
        if ref_key is not None and ref_key in todo_keys:
            waiting.setdefault(ref_key, []).append(r)
        else:
            submit(r, store.get(ref_key) if ref_key else None)
            in_flight += 1
    ran = 0
    while in_flight:
        rec = eng.next_result()
        in_flight -= 1
        ran += 1
        prev = store.get(rec["key"])
        if prev is not None:  # a retry: say what it replaces
            rec.setdefault("details", {})["replaces"] = {
                k: prev.get(k) for k in ("status", "killed", "reproducible", "finished_at", "version")}
        store.append(rec, replace=True)
        prog.update(rec)
        for r in waiting.pop(rec["key"], []):
            submit(r, store.get(rec["key"]))
            in_flight += 1
    return ran
