"""Benchmark suites: moved to :mod:`dmlsched.suites` (below the benchmark
engine and the families' claims); this module re-exports its names so that
``dmlsched.bench.suite`` keeps working."""

from ..suites import (  # noqa: F401
    DEFAULT_TIME_LIMIT,
    MAX_REPETITIONS,
    MAX_RUNS,
    MAX_SEEDS,
    InstanceItem,
    Source,
    Suite,
    SuiteError,
    expand_path,
    import_plugins,
    instance_hash,
    load_suite,
    materialize,
    parse_reference,
    parse_time_limit,
    relative_source,
    resolve_callable,
    suite_from_dict,
)
