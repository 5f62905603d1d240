"""Benchmark suites: which instances, methods, reference, solver, limits, seeds.

Below the benchmark engine (:mod:`dmlsched.bench`) and the families' claims
(``problems/<family>/claims.py``), which build suites without depending on
the bench command line.

A suite is either built from ``dmlsched bench`` arguments or read from a TOML
file (``benchmarks/suites/*.toml``)::

    name = "quick"
    description = "tiny Hare instances, every method, exact reference"
    methods = ["list", "fifo"]          # or a table per family:
                                        # [methods] hare = ["list"], rar = ["sjf-bco"]
                                        # (families not listed, or no methods at all:
                                        # every registered method; "*" = default list)
    kinds = ["exact"]                   # only methods of these kinds (exact, heuristic,
                                        # bound, policy); default: every kind
    reference = "exact"                 # "default" (the family's), or "none"
    solver = "highs"
    time_limit = 20                     # seconds per run; "none" for no limit
    seed = 0
    repetitions = 1                     # seeds seed, seed+1, ... for every method run
    grace = 5                           # a run is asked to stop at time_limit + grace/2
                                        # and killed at time_limit + grace
    plugins = []                        # modules / .py files registering extra families
    keep_solutions = false              # records keep each run's solution (its JSON), so that
                                        # dmlsched gantt --results can draw it

    [[instances]]
    glob = "../../instances/hare/*.json"   # relative to this file; folders expand
                                            # to their *.json recursively
    [[instances]]
    generator = "dmlsched.generate.rar:generate"   # called as fn(seed=s, **params)
    params = { jobs = 8 }
    seeds = [1, 2, 3]

Instances are materialised in the runner (files read, generators called) and
sent to workers as JSON dicts, so remote Dask workers need no shared files.
A record's ``source`` is the instance file's path relative to the suite's
folder (a TOML suite) or to the working folder (paths on the command line),
so a results file does not name the machine's folders; ``label`` is relative
to the working folder when the file lies inside it.
Each instance is identified by the SHA-256 of its canonical JSON (keys sorted,
the ``name`` and ``description`` fields excluded), so the same instance reached
by two paths is one instance.
"""

from __future__ import annotations

import glob as globmod
import hashlib
import inspect
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import DmlschedError, InstanceError
from .family import Ref
from .generate import GeneratorArgumentError
from .io import from_dict, load, to_dict
from .registry import problem_of

#: default per-run time limit of ``dmlsched bench`` (seconds)
DEFAULT_TIME_LIMIT = 60.0

#: most seeds of one generator source, and most repetitions of a run: a sweep
#: is refused before any work beyond them (a typo like ``seeds = 100000000``
#: must not start a sweep that never ends)
MAX_SEEDS = 10_000
MAX_REPETITIONS = 10_000
#: most runs one sweep may plan
MAX_RUNS = 1_000_000

_SUITE_KEYS = {
    "name", "description", "methods", "reference", "solver", "time_limit", "seed",
    "repetitions", "grace", "plugins", "instances", "out", "options", "kinds", "keep_solutions",
}
_SOURCE_KEYS = {"glob", "path", "paths", "generator", "params", "seeds", "name"}


class SuiteError(DmlschedError, ValueError):
    """A malformed suite file or inconsistent bench arguments."""


@dataclass(frozen=True)
class Source:
    """One entry of a suite's ``instances``: a path/glob or a generator call."""

    kind: str  # "path" or "generator"
    pattern: str = ""  # path, folder or glob (kind "path")
    generator: str = ""  # "module:function" (kind "generator")
    params: dict = field(default_factory=dict)
    seeds: tuple[int, ...] = (0,)
    name: str = ""


@dataclass
class Suite:
    """A benchmark sweep description (see the module docstring for the TOML form)."""

    sources: list[Source]
    name: str = "bench"
    description: str = ""
    methods: list[str] | dict[str, list[str]] | None = None
    kinds: list[str] | None = None
    reference: str | None = "default"
    solver: str = "highs"
    time_limit: float | None = DEFAULT_TIME_LIMIT
    seed: int = 0
    repetitions: int = 1
    grace: float | None = None
    plugins: list[str] = field(default_factory=list)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    out: str | None = None
    base_dir: Path = field(default_factory=Path.cwd)
    keep_solutions: bool = False

    def __post_init__(self) -> None:
        if self.reference is not None and self.reference != "default":
            self.reference = parse_reference(self.reference)
        if self.time_limit is not None:
            self.time_limit = parse_time_limit(self.time_limit)

    @property
    def seeds(self) -> list[int]:
        return [self.seed + i for i in range(self.repetitions)]

    def methods_for(self, problem: str) -> list[str] | None:
        """Requested methods for a family (``None``: all registered ones)."""
        if self.methods is None:
            return None
        if isinstance(self.methods, dict):
            return self.methods.get(problem, self.methods.get("*"))
        return list(self.methods)

    def hard_limit(self) -> float | None:
        """Seconds after which a run is killed: limit + grace."""
        if self.time_limit is None:
            return None
        return self.time_limit + self.grace_s()

    def stop_after(self) -> float | None:
        """Seconds after which a run is asked to stop and return its best
        incumbent: limit + half the grace."""
        if self.time_limit is None:
            return None
        return self.time_limit + 0.5 * self.grace_s()

    def grace_s(self) -> float:
        if self.grace is not None:
            return float(self.grace)
        return 5.0 + 0.25 * (self.time_limit or 0.0)


# ---------------------------------------------------------------------------
# parsing
def parse_time_limit(value: Any, where: str = "time_limit") -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "inf", "")):
        return None
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise SuiteError(f"{where}: must be a positive number or 'none', got {value!r}") from None
    if not (t > 0 and math.isfinite(t)):
        raise SuiteError(f"{where}: must be a positive number or 'none', got {value!r}")
    return t


def parse_reference(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise SuiteError(f"reference: must be a method name, 'default' or 'none', got {value!r}")
    return None if value.lower() == "none" else value


def load_suite(path: str | os.PathLike) -> Suite:
    """Read a suite TOML file; relative instance paths are relative to it."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise SuiteError(f"cannot read suite {p}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{p}: malformed TOML: {e}") from None
    suite = suite_from_dict(data, base_dir=p.resolve().parent, default_name=p.stem)
    me = p.resolve()
    for i, src in enumerate(suite.sources):
        if src.kind == "path" and me in (x.resolve() for x in expand_path(src.pattern, suite.base_dir)):
            raise SuiteError(f"{p}: instances[{i}] ({src.pattern!r}) names the suite file itself, not instances")
    return suite


def suite_from_dict(data: dict, *, base_dir: Path | None = None, default_name: str = "suite") -> Suite:
    unknown = set(data) - _SUITE_KEYS
    if unknown:
        raise SuiteError(f"unknown suite field(s): {', '.join(sorted(unknown))} "
                         f"(allowed: {', '.join(sorted(_SUITE_KEYS))})")
    raw_sources = data.get("instances")
    if not isinstance(raw_sources, list) or not raw_sources:
        raise SuiteError("instances: must be a non-empty array of tables ([[instances]])")
    sources = [_parse_source(s, i) for i, s in enumerate(raw_sources)]
    methods = data.get("methods")
    if methods is not None:
        if isinstance(methods, list):
            if not all(isinstance(m, str) and m for m in methods):
                raise SuiteError("methods: must be a list of method names")
        elif isinstance(methods, dict):
            for fam, ms in methods.items():
                if not isinstance(ms, list) or not all(isinstance(m, str) and m for m in ms):
                    raise SuiteError(f"methods.{fam}: must be a list of method names")
        else:
            raise SuiteError("methods: must be a list of names or a table of lists per family")
    kinds = data.get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or not all(isinstance(k, str) and k for k in kinds)):
        raise SuiteError("kinds: must be a list of method kinds (exact, heuristic, bound, policy)")
    plugins = data.get("plugins", [])
    if not isinstance(plugins, list) or not all(isinstance(x, str) for x in plugins):
        raise SuiteError("plugins: must be a list of module names or .py paths")
    base = base_dir or Path.cwd()
    plugins = [str((base / x).resolve()) if x.endswith(".py") and not os.path.isabs(x) else x for x in plugins]
    options = data.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise SuiteError("options: must be a table of tables, e.g. [options.list] relaxation = \"rl\"")
    suite = Suite(
        sources=sources,
        name=str(data.get("name", default_name)),
        description=str(data.get("description", "")),
        methods=methods,
        kinds=kinds,
        reference=parse_reference(data.get("reference", "default")),
        solver=_parse_str(data, "solver", "highs"),
        time_limit=parse_time_limit(data.get("time_limit", DEFAULT_TIME_LIMIT)),
        seed=_parse_int(data, "seed", 0, lo=0, hi=2**63 - 1),
        repetitions=_parse_int(data, "repetitions", 1, lo=1, hi=MAX_REPETITIONS),
        grace=None if data.get("grace") is None else _parse_float(data, "grace"),
        plugins=plugins,
        options=options,
        out=data.get("out"),
        base_dir=base,
        keep_solutions=_parse_bool(data, "keep_solutions", False),
    )
    return suite


def _parse_bool(d: dict, key: str, default: bool) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise SuiteError(f"{key}: must be true or false, got {v!r}")
    return v


def _parse_str(d: dict, key: str, default: str) -> str:
    v = d.get(key, default)
    if not isinstance(v, str) or not v:
        raise SuiteError(f"{key}: must be a non-empty string, got {v!r}")
    return v


def _parse_int(d: dict, key: str, default: int, lo: int | None = None, hi: int | None = None) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise SuiteError(f"{key}: must be an integer, got {v!r}")
    if lo is not None and v < lo:
        raise SuiteError(f"{key}: must be >= {lo}, got {v}")
    if hi is not None and v > hi:
        raise SuiteError(f"{key}: must be <= {hi}, got {v}")
    return v


def _parse_float(d: dict, key: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise SuiteError(f"{key}: must be a non-negative number, got {v!r}")
    return float(v)


def _parse_source(s: Any, i: int) -> Source:
    where = f"instances[{i}]"
    if not isinstance(s, dict):
        raise SuiteError(f"{where}: must be a table")
    unknown = set(s) - _SOURCE_KEYS
    if unknown:
        raise SuiteError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    if "generator" in s:
        gen = s["generator"]
        if not isinstance(gen, str) or ":" not in gen.lstrip("/").split("/")[-1]:
            raise SuiteError(f"{where}.generator: must read 'module:function', got {gen!r}")
        params = s.get("params", {})
        if not isinstance(params, dict):
            raise SuiteError(f"{where}.params: must be a table")
        seeds = s.get("seeds", [0])
        if isinstance(seeds, int) and not isinstance(seeds, bool):
            if not 1 <= seeds <= MAX_SEEDS:
                raise SuiteError(f"{where}.seeds: a count must be in 1..{MAX_SEEDS}, got {seeds}")
            seeds = list(range(seeds))  # seeds = 10 means 0..9
        if (not isinstance(seeds, list) or not seeds
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in seeds)):
            raise SuiteError(f"{where}.seeds: must be a non-empty list of integers (or a count)")
        if len(seeds) > MAX_SEEDS:
            raise SuiteError(f"{where}.seeds: at most {MAX_SEEDS} seeds per source, got {len(seeds)}")
        bad = [x for x in seeds if not 0 <= x < 2**63]
        if bad:
            raise SuiteError(f"{where}.seeds: seeds must be integers in [0, 2^63), got {bad[0]}")
        return Source("generator", generator=gen, params=dict(params), seeds=tuple(seeds), name=str(s.get("name", "")))
    pats = [s[k] for k in ("glob", "path") if k in s] + list(s.get("paths", []))
    if len(pats) != 1 or not isinstance(pats[0], str) or not pats[0]:
        raise SuiteError(f"{where}: give exactly one of glob / path, or a generator")
    return Source("path", pattern=pats[0], name=str(s.get("name", "")))


# ---------------------------------------------------------------------------
# plugins
def import_plugins(plugins: list[str] | tuple[str, ...]) -> None:
    """Import modules (or ``.py`` files) that register extra families/methods
    (through :class:`~dmlsched.family.Ref`, the one lazy resolver)."""
    for p in plugins:
        Ref(p).get()


# ---------------------------------------------------------------------------
# materialising instances
@dataclass
class InstanceItem:
    """One instance of a sweep, ready to be sent to a worker.

    ``error`` is set (and ``data`` is ``None``) when a generator failed (or a
    file could not be read for a reason other than its content): the sweep
    records it and goes on.  A malformed instance file is bad input, refused
    before any run (:class:`SuiteError` naming the file and the field).
    """

    label: str
    source: str
    problem: str | None
    data: dict | None
    hash: str
    size: dict = field(default_factory=dict)
    name: str = ""
    error: str | None = None


def instance_hash(data: dict) -> str:
    """SHA-256 (first 20 hex digits) of an instance dict's canonical JSON.

    ``name`` and ``description`` do not change the instance and are excluded.
    """
    core = {k: v for k, v in data.items() if k not in ("name", "description")}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def expand_path(pattern: str, base_dir: Path) -> list[Path]:
    """A file, a folder (its ``*.json`` recursively) or a glob, sorted."""
    p = Path(pattern)
    if not p.is_absolute():
        p = base_dir / p
    if any(ch in pattern for ch in "*?["):
        hits = [Path(h) for h in globmod.glob(str(p), recursive=True)]
        out: list[Path] = []
        for h in hits:
            out.extend(sorted(h.rglob("*.json")) if h.is_dir() else [h])
        return sorted(set(out))
    if p.is_dir():
        return sorted(x for x in p.rglob("*.json") if x.is_file())
    if not p.exists():
        raise SuiteError(f"{pattern}: no such file or folder")
    return [p]


def _display(path: Path, base_dir: Path | None = None) -> str:
    """A label: ``path`` relative to the working folder when inside it, else
    relative to ``base_dir`` (the suite's folder), else as given."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # pragma: no cover - other drive on Windows
        return str(path)
    if not rel.startswith(".."):
        return rel
    return relative_source(path, base_dir) if base_dir is not None else str(path)


def relative_source(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` (the suite's folder or the working
    folder): what a record keeps as its ``source``."""
    try:
        return os.path.relpath(Path(path).resolve(), Path(base_dir).resolve())
    except ValueError:  # pragma: no cover - other drive on Windows
        return str(path)


def materialize(suite: Suite) -> list[InstanceItem]:
    """Read every file and call every generator of the suite, in order.

    Duplicates (same instance hash) are kept once, at their first position.
    """
    items: list[InstanceItem] = []
    seen: set[str] = set()

    def add_instance(inst: Any, label: str, source: str) -> None:
        try:
            data = to_dict(inst)
            spec = problem_of(inst)
            h = instance_hash(data)
            size = dict(spec.size(inst))
        except Exception as e:  # a generator returning junk is recorded, not fatal
            add_error(label, source, f"{type(e).__name__}: {e}")
            return
        if h in seen:
            return
        seen.add(h)
        items.append(
            InstanceItem(label=label, source=source, problem=spec.name, data=data, hash=h,
                         size=size, name=str(data.get("name", "")))
        )

    def add_error(label: str, source: str, msg: str) -> None:
        h = "error-" + hashlib.sha256(f"{source}\n{msg}".encode()).hexdigest()[:14]
        if h in seen:
            return
        seen.add(h)
        items.append(InstanceItem(label=label, source=source, problem=None, data=None, hash=h, error=msg))

    for index, src in enumerate(suite.sources):
        if src.kind == "path":
            paths = expand_path(src.pattern, suite.base_dir)
            if not paths:
                raise SuiteError(f"no instance files match {src.pattern!r}")
            for path in paths:
                label = _display(path, suite.base_dir)
                source = relative_source(path, suite.base_dir)
                if not path.exists():
                    raise SuiteError(f"{label}: no such file")
                try:
                    inst = load(path)
                except InstanceError as e:  # bad input: refused before any run, naming file and field
                    raise SuiteError(f"{label}: {e}") from None
                except Exception as e:  # the loader promises InstanceError; never stop the sweep
                    add_error(label, source, f"{type(e).__name__}: {e}")
                    continue
                add_instance(inst, label, source)
        else:
            gen = src.generator
            mod = gen.rpartition(":")[0]
            if mod.endswith(".py") and not os.path.isabs(mod):
                gen = str((suite.base_dir / mod).resolve()) + ":" + gen.rpartition(":")[2]
            try:
                fn = resolve_callable(gen)
            except Exception as e:
                raise SuiteError(f"generator {src.generator!r}: {type(e).__name__}: {e}") from None
            where = f"instances[{index}] (generator {src.generator})"
            _check_generator_params(fn, src.params, where)
            for s in src.seeds:
                params = ", ".join(f"{k}={v!r}" for k, v in sorted(src.params.items()))
                label = f"{src.name or src.generator.split(':')[-1]}({params}{', ' if params else ''}seed={s})"
                source = f"{src.generator}?{json.dumps(src.params, sort_keys=True)}&seed={s}"
                try:
                    inst = fn(seed=s, **src.params)
                    if isinstance(inst, dict):
                        inst = from_dict(inst)
                except GeneratorArgumentError as e:  # a bad argument is bad input, not a run error
                    raise SuiteError(f"{where}, seed {s}: {e}") from None
                except Exception as e:
                    add_error(label, source, f"{type(e).__name__}: {e}")
                    continue
                add_instance(inst, label, source)
    return items


def _check_generator_params(fn: Any, params: dict, where: str) -> None:
    """A suite's ``params`` must bind to the generator's signature (with ``seed``):
    an unknown or missing argument is a :class:`SuiteError` naming it."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: the call decides
        return
    names = sig.parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in names.values())
    if "seed" not in names and not takes_any:
        raise SuiteError(f"{where}: the generator takes no keyword argument seed")
    if "seed" in params:
        raise SuiteError(f"{where}: params.seed: give seeds with `seeds`, not in params")
    unknown = [k for k in params if k not in names and not takes_any]
    if unknown:
        raise SuiteError(f"{where}: params.{unknown[0]}: not an argument of the generator "
                         f"(its arguments: {', '.join(n for n in names if n != 'seed')})")
    try:
        sig.bind(seed=0, **params)
    except TypeError as e:
        raise SuiteError(f"{where}: params: {e}") from None


def resolve_callable(ref: str) -> Any:
    """``"package.module:function"`` (or ``"path/file.py:function"``) -> the function."""
    mod, _, attr = ref.rpartition(":")
    obj: Any = Ref(mod).get()
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise SuiteError(f"{ref} is not callable")
    return obj
