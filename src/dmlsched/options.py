"""Declared options of a method: :class:`Option`, :class:`OptionError`, the
options every method takes (:data:`COMMON_OPTIONS`, :data:`SOLVER_OPTIONS`), the
old option names still accepted (:data:`RENAMED`, :data:`RENAMES`) and
:func:`check_options`, which maps old names, splits and checks what a caller gave.

Below :mod:`dmlsched.registry` (which keeps each method's declared options,
inferred by :func:`options_from_signature` for a bare ``register_method``) and
:mod:`dmlsched.kit` (whose :func:`~dmlsched.kit.method` decorator checks them
and which re-exports these names).
"""

from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .errors import DmlschedError

#: memory a method may plan to allocate unless told otherwise (GiB); fixed, not
#: read off the machine, so that a refusal is the same on every machine
DEFAULT_MEMORY_LIMIT_GIB = 4.0

#: most solver threads a method may ask for (a fixed number, the same refusal on every machine)
MAX_THREADS = 256


class OptionError(DmlschedError, ValueError):
    """An unknown or ill-typed method option; ``str(err)`` names the option."""

    def __init__(self, option: str, message: str):
        self.option = option
        super().__init__(f"option {option!r}: {message}")


_NONE = type(None)


@dataclass(frozen=True)
class Option:
    """One declared option of a method.

    Parameters
    ----------
    name
        Keyword name (``snake_case``).
    type
        ``bool``, ``int``, ``float``, ``str``, ``dict`` or ``list`` (an ``int``
        value is accepted for ``float``; numpy scalars and tuples are accepted
        where numbers and lists are).
    default
        Value when not given (``None`` allowed: then ``None`` is a valid value).
    doc
        One line for ``dmlsched methods PROBLEM``.
    choices
        Allowed values, if a closed set.
    minimum, maximum
        Smallest and largest allowed values (numbers).
    """

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def coerce(self, value: Any) -> Any:
        """The checked value, or :class:`OptionError`."""
        if value is None:
            if self.default is None:
                return None
            raise OptionError(self.name, f"expected {self.type_name()}, got None")
        t = self.type
        v: Any = value
        if t is bool:
            if not isinstance(value, bool) and not _is_np_bool(value):
                raise OptionError(self.name, f"expected true or false, got {value!r}")
            v = bool(value)
        elif t is int:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                if isinstance(value, float) and value.is_integer():
                    v = int(value)
                else:
                    raise OptionError(self.name, f"expected an integer, got {value!r}")
            else:
                v = int(value)
        elif t is float:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise OptionError(self.name, f"expected a number, got {value!r}")
            v = float(value)
            if not math.isfinite(v):
                raise OptionError(self.name, f"expected a finite number, got {value!r}")
        elif t is str:
            if not isinstance(value, str):
                raise OptionError(self.name, f"expected a string, got {value!r}")
        elif t is dict:
            if not isinstance(value, dict):
                raise OptionError(self.name, f"expected a table of key=value, got {value!r}")
            v = dict(value)
        elif t is list:
            if not isinstance(value, (list, tuple)):
                raise OptionError(self.name, f"expected a list, got {value!r}")
            v = list(value)
        if self.choices is not None and v not in self.choices:
            raise OptionError(
                self.name, f"must be one of {', '.join(repr(c) for c in self.choices)}, got {value!r}"
            )
        if self.minimum is not None and isinstance(v, (int, float)) and not isinstance(v, bool):
            if v < self.minimum:
                raise OptionError(self.name, f"must be >= {self.minimum:g}, got {value!r}")
        if self.maximum is not None and isinstance(v, (int, float)) and not isinstance(v, bool):
            if v > self.maximum:
                raise OptionError(self.name, f"must be <= {self.maximum:g}, got {value!r}")
        return v

    def type_name(self) -> str:
        name = {bool: "bool", int: "int", float: "number", str: "string", dict: "table", list: "list"}.get(
            self.type, getattr(self.type, "__name__", str(self.type))
        )
        return name + (" or None" if self.default is None else "")

    def describe(self) -> str:
        """``name (type, default X): doc [choices]`` for listings."""
        extra = f"; one of {', '.join(map(str, self.choices))}" if self.choices else ""
        return f"{self.name} ({self.type_name()}, default {self.default!r}): {self.doc}{extra}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "type": self.type_name(), "default": self.default, "doc": self.doc,
            "choices": list(self.choices) if self.choices is not None else None, "minimum": self.minimum,
            "maximum": self.maximum,
        }


def _is_np_bool(value: Any) -> bool:
    return type(value).__name__ == "bool_"


#: options every method takes (consumed by the kit, never seen by a method body)
COMMON_OPTIONS: tuple[Option, ...] = (
    Option("display", bool, False, "stream the solver's own log to standard error"),
    Option("memory_limit", float, DEFAULT_MEMORY_LIMIT_GIB,
           "GiB the method may plan to allocate; beyond it the method refuses (status n/a)", minimum=0.0),
)

#: options of every method that calls a solver
SOLVER_OPTIONS: tuple[Option, ...] = (
    Option("solver_options", dict, None, "extra parameters passed to the solver as they are"),
    Option("threads", int, 1, "solver threads (1 keeps runs reproducible)", minimum=1, maximum=MAX_THREADS),
)


def options_from_signature(fn: Callable[..., Any]) -> tuple[Option, ...]:
    """Options of a plain method function: its keyword-only parameters with defaults
    (other than ``solver``, ``time_limit``, ``seed``), typed by their default."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind != p.KEYWORD_ONLY or p.name in ("solver", "time_limit", "seed"):
            continue
        if p.default is p.empty:
            continue
        d = p.default
        t = type(d) if d is not None and type(d) in (bool, int, float, str, dict, list) else object
        out.append(Option(p.name, t, d, ""))
    return tuple(out)


def bell_number(n: int) -> int:
    """Bell(n), the number of set partitions of ``n`` items (Bell's triangle): the groupings of
    ``n`` jobs that harmony ``brute-force``'s old ``max_jobs=n`` allowed it to enumerate, and
    harmony's own count of its candidates (:func:`dmlsched.problems.harmony.bruteforce.bell`)."""
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0]


def _max_jobs(value: Any) -> int:
    """harmony ``brute-force``'s old ``max_jobs=n`` (a positive integer) as ``max_candidates``:
    :func:`bell_number` of it."""
    return bell_number(Option("max_jobs", int, 0, "", minimum=1).coerce(value))


def _typed(value: Any) -> str:
    """gpu-grouping ``brute-force``'s old ``typed`` (a bool) as ``space``: ``"types"``
    (counts of identical GPUs per group) for ``True``, ``"gpus"`` (set partitions of the
    GPUs) for ``False``."""
    return "types" if Option("typed", bool, True, "").coerce(value) else "gpus"


@dataclass(frozen=True)
class Rename:
    """An option renamed so that one concept has one name across families
    (docs/architecture.rst, "Methods, runs and budgets").

    Parameters
    ----------
    old, new
        The old and the current name.
    methods
        The methods (``"problem/method"``) that declared ``old``: only these
        accept it, so an alias never gives a name a meaning on a method that
        never had it.
    convert
        The old value's meaning under the new name, when it differs (harmony
        ``brute-force``: ``max_jobs=k`` allowed Bell(k) groupings; gpu-grouping
        ``brute-force``: ``typed=False`` is ``space="gpus"``); it checks the old
        value's type itself.
    alias
        ``False`` where ``old`` is still the current name of another concept
        elsewhere (rar ``exact-cp``'s ``scale`` counted progress units, while
        ``scale`` is the integer time scale of every other CP-SAT method): the
        old name is then not accepted, and the error names the new one.
    """

    old: str
    new: str
    methods: tuple[str, ...]
    convert: Callable[[Any], Any] | None = None
    alias: bool = True


#: every rename (issue 22's table, the one it missed (hlas ``objective_cut``) and gpu-grouping
#: ``brute-force``'s ``typed``, one concept with cruise ``brute-force``'s ``space``)
RENAMES: tuple[Rename, ...] = (
    Rename("gpu_symmetry", "symmetry", ("hare/exact", "hare/list", "hare/list-eft", "hare/list-queyranne",
                                        "hare/relaxation", "hlas/offline-mip", "moldable/exact-cp")),
    Rename("time_scale", "scale", ("moldable/exact-cp",)),
    Rename("scale", "progress_scale", ("rar/exact-cp",), alias=False),
    Rename("limit", "max_candidates", ("cruise/brute-force",)),
    Rename("max_schedules", "max_candidates", ("rar/exact", "rar/exact-nd")),
    Rename("max_jobs", "max_candidates", ("harmony/brute-force",), convert=_max_jobs),
    Rename("typed", "space", ("gpu-grouping/brute-force",), convert=_typed),
    Rename("kind", "relaxation", ("hare/relaxation",)),
    Rename("n_groups", "num_groups", ("harmony/harmony",)),
    Rename("use_upper", "incumbent_cut", ("cruise/exact",)),
    Rename("objective_cut", "incumbent_cut", ("hlas/offline-exact",)),
)

@dataclass(frozen=True)
class Distinct:
    """An option name kept apart from others that concern the same phenomenon,
    because it is a different reading (or a different job), not a synonym: merging
    the names would drop values or give a name values meaningless elsewhere.

    Parameters
    ----------
    option
        The name.
    type
        Its type on every method that declares it.
    choices
        ``"problem/method"`` -> the allowed values there (``()``: any value of
        :attr:`type`); exactly the methods that declare the name.
    group
        The phenomenon the names of one group share.
    reading
        What the name means, with the paper's words where it is a reading.
    reason
        Why it is not the same name as the others of its group.
    """

    option: str
    type: type
    choices: dict[str, tuple[Any, ...]]
    group: str
    reading: str
    reason: str


def _same(choices: tuple[Any, ...], *keys: str) -> dict[str, tuple[Any, ...]]:
    return {k: choices for k in keys}


#: names that look alike across families but are kept apart (issue 22: "options
#: named once per concept"; these are several concepts), checked against the
#: registered options by ``tests/test_options.py``
DISTINCT: tuple[Distinct, ...] = (
    Distinct(
        "backfill", bool, _same((), "hare/fifo", "hare/fifo-round", "hare/srtf", "hare/srtf-round"),
        "backfilling",
        "Hare's FIFO/SRTF baselines (job or round level): whether a later job that fits may "
        "start when the first waiting job does not fit (off for FIFO, on for SRTF by default).",
        "one yes/no over a queue of whole jobs; the other two names have values a bool cannot "
        "express."),
    Distinct(
        "queue", str, _same(("first-fit", "strict", "easy"), "moldable/rigid-fcfs", "moldable/rigid-shortest"),
        "backfilling",
        "the batch scheduler the rigid baselines stand for (the paper's Section II and V-B): "
        "first-fit, strict arrival order, or EASY backfilling with a reservation for the first "
        "waiting task.",
        "EASY's reservation is a third discipline, not a yes/no; the readings are the paper's, "
        "recorded as claims' options (moldable/claims.py)."),
    Distinct(
        "gang", str, _same(("none", "block", "skip"), "hlas/2d-las", "hlas/fifo", "hlas/hlas", "hlas/hlas-l",
                           "hlas/hlas-p", "hlas/srtf"),
        "backfilling",
        "HLAS's online policies: 'none' runs a job's rounds GPU by GPU with no gang condition; "
        "'block' and 'skip' require min(tasks_per_round, GPUs) idle GPUs for a round to start, "
        "with a job that does not fit blocking the later ones or skipped (backfilling).",
        "'none' is not a queue discipline at all (no gang start), so neither backfill nor queue "
        "can say it."),
    Distinct(
        "formulation", str,
        {"cruise/exact": ("auto", "machines", "types"), "gpu-grouping/exact": ("typed", "binary"),
         **_same((None, "decomposition", "oa", "miqcp"), "hare/list", "hare/list-eft", "hare/list-queyranne",
                 "hare/relaxation")},
        "model or search space",
        "which model a solver is given for the same problem (per machine or per machine type; "
        "Hare's relaxation by job decomposition, outer approximation or the MIQCP as written).",
        "a model choice of an exact or relaxed solve; 'space' is what an enumeration visits."),
    Distinct(
        "space", str,
        {"cruise/brute-force": ("auto", "machines", "types"), "gpu-grouping/brute-force": ("types", "gpus"),
         "harmony/oracle": ("prefixes", "groups")},
        "model or search space",
        "what an enumeration visits: every machine (GPU) or counts per type (cruise, "
        "gpu-grouping, whose old name was typed=True/False), or the oracle's static decisions "
        "(harmony).",
        "the brute force and the oracle give a model to no solver; their values are what they "
        "enumerate."),
)


#: option names that are one concept everywhere but whose allowed values are each
#: family's own readings (checked by ``tests/test_options.py``: a name declared with
#: different choices on two methods must be here; a name's type is the same everywhere)
PER_FAMILY_VALUES: dict[str, str] = {
    "placement": "which GPU a task or job is placed on: Hare's two readings of Algorithm 1's "
                 "line 12 (earliest-start, the proof's step (21); earliest-available, as "
                 "printed); HLAS's idle group (the fastest for the job, or heterogeneity-"
                 "oblivious, drawn at random)",
    "formulation": "the model a solver is given (DISTINCT): per family, the models it has",
    "space": "what an enumeration visits (DISTINCT): per family, what it enumerates",
}


#: old option name -> current name, for every old name still accepted (for one
#: release) by the methods that declared it; :func:`check_options` maps them and
#: the result records ``details["renamed_options"]`` (``{old: new}``)
RENAMED: dict[str, str] = {r.old: r.new for r in RENAMES if r.alias}


def _renamed(problem: str, method: str, declared: dict[str, Option], given: dict[str, Any]
             ) -> tuple[dict[str, Any], dict[str, str]]:
    """A copy of ``given`` with the old names this method accepts mapped to the new
    ones (in their place, values converted where :attr:`Rename.convert` says), and
    ``{old: new}``.

    Giving both the old and the new name is an :class:`OptionError` naming both
    (which of two values was meant cannot be guessed); an old name that is not
    an alias here (:attr:`Rename.alias`) is one naming the new name.
    """
    key = f"{problem}/{method}"
    mapping = {r.old: r for r in RENAMES if key in r.methods and r.old not in declared and r.new in declared}
    if not mapping.keys() & given.keys():
        return given, {}
    out: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    for name, value in given.items():
        r = mapping.get(name)
        if r is None:
            out[name] = value
            continue
        if not r.alias:
            raise OptionError(name, f"{key} calls it {r.new!r} now ({name!r} is another concept elsewhere)")
        if r.new in given:
            raise OptionError(name, f"the old name of {r.new!r}: give {r.new!r} only, not both")
        if r.convert is not None:
            value = r.convert(value)
        out[r.new] = value
        renamed[name] = r.new
    return out, renamed


def _hint(problem: str, method: str, name: str) -> str:
    """Where an unknown option is an old name of another method, say so."""
    for r in RENAMES:
        if r.old == name:
            key = f"{problem}/{method}"
            if key in r.methods:
                return f" ({key} calls it {r.new!r} now)"
            return f" ({name!r} is the old name of {r.new!r} on {', '.join(r.methods)})"
    return ""


def check_options(
    problem: str, method: str, declared: Sequence[Option], given: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split ``given`` into (method options with defaults filled, common options).

    Old names (:data:`RENAMED`) that this method declared are mapped to their
    new ones first; the second dict's ``"renamed_options"`` is ``{old: new}``
    (empty when none), which the kit writes to ``details["renamed_options"]``.

    Raises :class:`OptionError` on an unknown option (listing the known ones),
    a value of the wrong type, or an old name given together with its new one.
    """
    by_name = {o.name: o for o in declared}
    common = {o.name: o for o in COMMON_OPTIONS}
    given, renamed = _renamed(problem, method, by_name, given)
    mine: dict[str, Any] = {}
    kit: dict[str, Any] = {o.name: o.default for o in COMMON_OPTIONS}
    kit["renamed_options"] = renamed
    for key, value in given.items():
        if key in common:
            kit[key] = common[key].coerce(value)
        elif key in by_name:
            o = by_name[key]
            try:
                mine[key] = value if o.type is object else o.coerce(value)
            except OptionError as e:
                old = next((k for k, v in renamed.items() if v == key), None)
                if old is None:
                    raise
                raise OptionError(old, f"now {key!r}: {str(e).split(': ', 1)[1]}") from None
        else:
            known = ", ".join(sorted(list(by_name) + list(common))) or "none"
            raise OptionError(key, f"unknown option of {problem}/{method}{_hint(problem, method, key)}; "
                                   f"known: {known}")
    for o in declared:
        mine.setdefault(o.name, o.default)
    return mine, kit
