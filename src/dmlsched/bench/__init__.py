"""Benchmark engine: sweeps of instances x methods on local processes or Dask,
resumable JSON-lines results, summaries, reports and the reproduction report.

Python API::

    from dmlsched.bench import load_suite, run_sweep
    outcome = run_sweep(load_suite("benchmarks/suites/quick.toml"), out="results.jsonl", workers=2)
    for rec in outcome.records: ...

Command line (:mod:`dmlsched.cli.bench`, which imports this package; nothing
here imports the command line): ``dmlsched bench`` and ``dmlsched report``;
``dmlsched reproduce`` runs every family's claims
(:func:`dmlsched.claims.all_claims`) and writes ``benchmarks/REPRODUCTION.md``
(see :mod:`.reproduce`).

Modules
-------
suite
    re-exports :mod:`dmlsched.suites` (where suites now live, below the
    families' claims): :class:`Suite` (TOML suites, instance globs, generator
    calls with seeds), :func:`materialize` (files read and generators called
    in the runner).
runner
    :func:`run_sweep`: plans one run per (instance, method, seed), runs the
    reference first, skips runs already in the results file, feeds an engine.
engines
    in-process, local worker processes (default: one per core), Dask.
child
    the persistent worker process: asked to stop at limit + grace/2 (the kit
    returns its best incumbent), killed at limit + grace with its last
    incumbent recorded; peak memory per run.
execute
    one job in the current process: ``solve`` + ``compare`` -> a record.
store
    the append-only, fsynced JSON-lines store keyed by
    ``instance hash|method|seed|solver|time limit|context|v=version`` (the
    context fingerprints the method's options and the reference); the newest
    line of a key counts (retries).
progress, summary, report, reproduce
    the progress display, the summary tables and statistics (geometric means,
    head-to-head, performance profiles), ``dmlsched report``, REPRODUCTION.md.
"""

from ..suites import Source, Suite, SuiteError, load_suite, materialize
from .runner import SweepOutcome, run_sweep
from .store import ResultStore, latest_records, read_records, run_key

__all__ = [
    "ResultStore",
    "Source",
    "Suite",
    "SuiteError",
    "SweepOutcome",
    "latest_records",
    "load_suite",
    "materialize",
    "read_records",
    "run_key",
    "run_sweep",
]
