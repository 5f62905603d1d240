"""JSON instance files: ``load``/``save``, dispatch on ``"problem"``, and the
:class:`Reader` used by every family to validate fields with precise paths.

Every malformed input raises :class:`~dmlsched.errors.InstanceError` whose
message starts with the path of the offending field, e.g.
``jobs[2].train_time.K80: must be > 0``.  Files are plain JSON: no pickle, no
eval; ``NaN`` and ``Infinity`` are rejected.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import re
import tempfile
import weakref
from pathlib import Path
from typing import Any, Iterator

from .errors import InstanceError, UnknownMethodError
from .registry import families, get_problem, problem_of

_MISSING: Any = object()

#: keys every instance may carry besides the family's own fields
COMMON_KEYS = ("problem", "name", "description", "expected", "source")

#: largest integer magnitude accepted in a file (exactly representable as a float)
MAX_INT = 2**53

#: largest magnitude of a number accepted in a file, and smallest value of a
#: field that must be > 0 (durations, rates, sizes: possible divisors): sums,
#: products and quotients of a few such numbers over up to 1e8 tasks stay finite
#: in double precision (1e308), so no method meets an overflow later
MAX_NUMBER = 1e15
MIN_NONZERO = 1e-12

#: free-form keys kept across load/save for every family (families need not store them)
META_KEYS = ("description", "source")

# id(instance) -> its META_KEYS values; entries die with the instance
_META: dict[int, dict[str, Any]] = {}


def _remember_meta(instance: Any, meta: dict[str, Any]) -> None:
    if not meta:
        return
    key = id(instance)
    _META[key] = meta
    weakref.finalize(instance, _META.pop, key, None)


def meta_of(instance: Any) -> dict[str, Any]:
    """The ``description``/``source`` an instance was loaded with (empty if none)."""
    return dict(_META.get(id(instance), {}))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _type_name(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, float)):
        return "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, list):
        return "array"
    if isinstance(x, dict):
        return "object"
    return type(x).__name__


class Reader:
    """A JSON value together with its path, with typed, checked accessors.

    Examples
    --------
    >>> r = Reader({"jobs": [{"weight": -1}]})
    >>> r["jobs"][0].number("weight", gt=0)
    Traceback (most recent call last):
    ...
    dmlsched.errors.InstanceError: jobs[0].weight: must be > 0, got -1
    """

    __slots__ = ("value", "path")

    def __init__(self, value: Any, path: str = ""):
        self.value = value
        self.path = path

    # -- navigation -------------------------------------------------------
    def _child_path(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else str(key)

    def error(self, message: str, key: str | int | None = None) -> InstanceError:
        return InstanceError(self._child_path(key) if key is not None else self.path, message)

    def obj(self) -> dict:
        if not isinstance(self.value, dict):
            raise self.error(f"must be an object, got {_type_name(self.value)}")
        return self.value

    def arr(self, *, min_len: int = 0) -> list:
        if not isinstance(self.value, list):
            raise self.error(f"must be an array, got {_type_name(self.value)}")
        if len(self.value) < min_len:
            raise self.error(f"must have at least {min_len} element(s), got {len(self.value)}")
        return self.value

    def has(self, key: str) -> bool:
        return key in self.obj()

    def __getitem__(self, key: str | int) -> "Reader":
        if isinstance(key, int):
            seq = self.arr()
            if not -len(seq) <= key < len(seq):
                raise self.error(f"index {key} out of range")
            return Reader(seq[key], self._child_path(key))
        d = self.obj()
        if key not in d:
            raise self.error("missing required field", key)
        return Reader(d[key], self._child_path(key))

    def get(self, key: str) -> "Reader | None":
        d = self.obj()
        return Reader(d[key], self._child_path(key)) if key in d else None

    def items(self, key: str | None = None, *, min_len: int = 0) -> Iterator["Reader"]:
        """Child readers of an array (this one, or field ``key``)."""
        r = self if key is None else self[key]
        for i, _ in enumerate(r.arr(min_len=min_len)):
            yield Reader(r.value[i], r._child_path(i))

    def entries(self, key: str | None = None) -> Iterator[tuple[str, "Reader"]]:
        """(name, child reader) pairs of an object (this one, or field ``key``)."""
        r = self if key is None else self[key]
        for k in r.obj():
            yield k, Reader(r.value[k], r._child_path(k))

    def check_keys(self, allowed: tuple[str, ...] | list[str], *, common: bool = False) -> None:
        """Reject unknown fields (typos must not silently become defaults)."""
        ok = set(allowed) | (set(COMMON_KEYS) if common else set())
        for k in self.obj():
            if k not in ok:
                raise self.error(f"unknown field (allowed: {', '.join(sorted(ok))})", k)

    # -- typed leaves -------------------------------------------------------
    def as_number(
        self,
        *,
        gt: float | None = None,
        ge: float | None = None,
        lt: float | None = None,
        le: float | None = None,
    ) -> float:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"must be a number, got {_type_name(v)}")
        if isinstance(v, int) and abs(v) > MAX_NUMBER:
            raise self.error(f"must have magnitude at most {MAX_NUMBER:g}, got {_show_int(v)}")
        v = float(v)
        if not math.isfinite(v):
            raise self.error("must be finite")
        if abs(v) > MAX_NUMBER:
            raise self.error(f"must have magnitude at most {MAX_NUMBER:g} (sums must stay finite), got {v:g}")
        if gt is not None and gt >= 0 and 0 < v < MIN_NONZERO:
            # a strictly positive field (a duration, rate, size) may be a divisor
            raise self.error(f"must be at least {MIN_NONZERO:g} (quotients must stay finite), got {v:g}")
        _check_range(self, v, gt, ge, lt, le)
        return v

    def as_int(
        self,
        *,
        gt: int | None = None,
        ge: int | None = None,
        lt: int | None = None,
        le: int | None = None,
    ) -> int:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"must be an integer, got {_type_name(v)}")
        if isinstance(v, float):
            if not math.isfinite(v) or v != int(v):
                raise self.error(f"must be an integer, got {v!r}")
        v = int(v)
        if abs(v) > MAX_INT:
            raise self.error(f"must be an integer of magnitude at most 2^53, got {_show_int(v)}")
        _check_range(self, v, gt, ge, lt, le)
        return v

    def as_str(self, *, nonempty: bool = True) -> str:
        v = self.value
        if not isinstance(v, str):
            raise self.error(f"must be a string, got {_type_name(v)}")
        if nonempty and not v:
            raise self.error("must be a non-empty string")
        return v

    def as_id(self) -> str:
        """An identifier: a non-blank string, or an integer (made a string)."""
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise self.error(f"must be a string or an integer, got {_type_name(v)}")
        if isinstance(v, str) and not v.strip():
            raise self.error("must be a non-empty string" if not v else "must not be blank")
        return str(v)

    def as_bool(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.error(f"must be true or false, got {_type_name(self.value)}")
        return self.value

    # -- shorthands for fields of an object ---------------------------------
    def number(self, key: str, default: Any = _MISSING, **rng: float) -> float:
        if default is not _MISSING and not self.has(key):
            return default
        return self[key].as_number(**rng)

    def integer(self, key: str, default: Any = _MISSING, **rng: int) -> int:
        if default is not _MISSING and not self.has(key):
            return default
        return self[key].as_int(**rng)

    def string(self, key: str, default: Any = _MISSING, *, nonempty: bool = True) -> str:
        if default is not _MISSING and not self.has(key):
            return default
        return self[key].as_str(nonempty=nonempty)

    def boolean(self, key: str, default: Any = _MISSING) -> bool:
        if default is not _MISSING and not self.has(key):
            return default
        return self[key].as_bool()

    def numbers(self, key: str, *, min_len: int = 0, **rng: float) -> list[float]:
        return [c.as_number(**rng) for c in self.items(key, min_len=min_len)]

    def integers(self, key: str, *, min_len: int = 0, **rng: int) -> list[int]:
        return [c.as_int(**rng) for c in self.items(key, min_len=min_len)]

    def number_map(self, key: str, **rng: float) -> dict[str, float]:
        return {k: c.as_number(**rng) for k, c in self.entries(key)}


def _show_int(v: int) -> str:
    """A huge integer as a person reads it (``float`` overflows beyond 1e308)."""
    digits = len(str(abs(v)))
    if digits <= 20:
        return f"{float(v):.3g}"
    return f"{'-' if v < 0 else ''}a {digits}-digit integer"


def _check_range(r: Reader, v: float, gt, ge, lt, le) -> None:
    shown = int(v) if float(v).is_integer() else v
    if gt is not None and not v > gt:
        raise r.error(f"must be > {gt}, got {shown}")
    if ge is not None and not v >= ge:
        raise r.error(f"must be >= {ge}, got {shown}")
    if lt is not None and not v < lt:
        raise r.error(f"must be < {lt}, got {shown}")
    if le is not None and not v <= le:
        raise r.error(f"must be <= {le}, got {shown}")


# ---------------------------------------------------------------------------
def from_dict(data: Any) -> Any:
    """Build an instance from a JSON-like value, dispatching on ``data["problem"]``.

    Besides JSON values (``dict``, ``list``, ``str``, ``int``, ``float``,
    ``bool``, ``None``), numpy scalars (``numpy.int64``, ``numpy.float64``,
    ``numpy.bool_``), numpy arrays and tuples are accepted wherever numbers
    and lists are.

    Raises
    ------
    InstanceError
        Naming the offending field, e.g. ``jobs[2].train_time.K80: must be > 0, got -1``.
    """
    return _from_json_value(plain(data))


def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays made Python numbers and lists,
    and tuples made lists (a copy; JSON values come back equal)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    mod = type(value).__module__
    if mod == "numpy" or mod.startswith("numpy."):
        tolist = getattr(value, "tolist", None)
        if tolist is not None:
            return plain(tolist())
    return value


def _spec_of(data: Any) -> Any:
    """The family of a JSON value (its ``"problem"``), or an :class:`InstanceError`."""
    r = Reader(data)
    r.obj()
    name = r.string("problem")
    try:
        return get_problem(name)  # loads the families
    except UnknownMethodError:
        known = ", ".join(f.name for f in families())
        raise InstanceError("problem", f"unknown problem {name!r} (known: {known})") from None


def _from_json_value(data: Any, spec: Any = None) -> Any:
    """:func:`from_dict` for a value that is plain JSON already (from ``json.loads``)."""
    spec = spec or _spec_of(data)
    with _gc_paused():
        try:
            instance = spec.from_dict(data)
        except InstanceError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:  # defensive
            raise InstanceError("", f"invalid {spec.name} instance: {e}") from e
    _remember_meta(instance, {k: data[k] for k in META_KEYS if k in data})
    return instance


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file is parsed and read.

    A reader allocates several objects per job and frees nothing, so every
    collection it triggers is wasted work -- and each full one walks the
    whole parsed document again (a third of the time of reading a 100,000-job
    Hare file went to them).  The objects hold no cycles; collection resumes
    at the end.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# ---------------------------------------------------------------------------
# keys given twice
#: a key followed by white space before its colon (JSON allows it; our writers never do)
_LOOSE_KEY = re.compile(r'"[ \t\r\n]+:')


class _Twice(dict):
    """A JSON object in which a key was given twice (``key``: the first such)."""

    key: str = ""


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        t = _Twice(d)
        t.key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return t
    return d


def count_keys(value: Any) -> int:
    """The number of keys of every JSON object in ``value``, nested ones included."""
    n = 0
    todo = [value]
    while todo:
        v = todo.pop()
        if type(v) is dict:
            n += len(v)
            todo.extend(x for x in v.values() if type(x) is dict or type(x) is list)
        elif type(v) is list:
            todo.extend(x for x in v if type(x) is dict or type(x) is list)
    return n


def _check_keys_once(text: str, data: Any, spec: Any) -> None:
    """Raise an :class:`InstanceError` naming the object and the key when a JSON
    object of ``text`` gives a key twice (``json.loads`` keeps the last value
    silently).

    Fast proof of the common case, from the family's count of the keys it
    read (or :func:`count_keys`): outside strings, a JSON text has one colon
    per key given, so it has at least as many colons as its objects have
    keys, and exactly as many only if no key is given twice and no string
    holds a colon.  With colons in strings, the same holds of ``":`` (a key's
    closing quote and its colon) when no key is spaced from its colon: only
    a ``\\":`` inside a string adds one.  Anything else is decided by parsing
    again, pair by pair.
    """
    counter = getattr(spec, "key_count", None) or count_keys
    keys = counter(data)
    colons = text.count(":")
    if colons == keys:
        return
    tight = text.count('":')
    if keys == tight and (tight == colons or not _LOOSE_KEY.search(text)):
        return
    _raise_if_twice(text)


def _raise_if_twice(text: str) -> None:
    """Parse ``text`` pair by pair; an :class:`InstanceError` naming the first
    object (in document order) that gives a key twice, if one does."""
    try:
        twice = json.loads(text, object_pairs_hook=_pairs_once, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return  # not JSON: the caller's own error says so
    path = _find_twice(twice, "")
    if path is not None:
        where, key = path
        raise InstanceError(where, f"key {key!r} is given twice in this object (JSON keeps only the last "
                            "value: remove one)")


def _find_twice(v: Any, path: str) -> tuple[str, str] | None:
    if isinstance(v, _Twice):
        return (path or "(top level)"), v.key
    if isinstance(v, dict):
        for k, x in v.items():
            hit = _find_twice(x, f"{path}.{k}" if path else str(k))
            if hit:
                return hit
    elif isinstance(v, list):
        for i, x in enumerate(v):
            hit = _find_twice(x, f"{path}[{i}]")
            if hit:
                return hit
    return None


def to_dict(instance: Any) -> dict:
    """The JSON-able dict of an instance (with its ``"problem"`` field)."""
    spec = problem_of(instance)
    d = spec.to_dict(instance)
    out = {"problem": spec.name}
    if "name" in d:
        out["name"] = d["name"]
    for k, v in meta_of(instance).items():
        out.setdefault(k, v)
    out.update((k, v) for k, v in d.items() if k not in ("problem", "name"))
    return out


def solution_to_json(instance, solution) -> dict:
    """The JSON form of ``solution`` (as printed by ``dmlsched solve --json``)."""
    return problem_of(instance).solution_to_json(instance, solution)


def loads(text: str) -> Any:
    """Parse an instance from JSON text (a key given twice in an object is an error)."""
    with _gc_paused():
        try:
            data = json.loads(text, parse_constant=_reject_constant)
        except (json.JSONDecodeError, ValueError, RecursionError) as e:
            raise InstanceError("", f"malformed JSON: {e}") from None
        try:
            spec = _spec_of(data)
            inst = _from_json_value(data, spec)
        except InstanceError:
            _raise_if_twice(text)  # a key given twice explains the error better (JSON kept its last value)
            raise
        _check_keys_once(text, data, spec)
    return inst


def dumps(instance: Any, *, indent: int | None = 2) -> str:
    return json.dumps(to_dict(instance), indent=indent, allow_nan=False)


def load(path: str | os.PathLike) -> Any:
    """Read an instance file.

    Raises
    ------
    InstanceError
        On unreadable files, malformed JSON or any invalid field.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InstanceError("", f"cannot read {p}: {e}") from None
    try:
        return loads(text)
    except InstanceError as e:
        raise InstanceError(e.field, f"{e.message} (in {p})") from None


def save(instance: Any, path: str | os.PathLike) -> None:
    """Write an instance file atomically.

    The text is produced and checked (re-parsed) first, then written to a
    temporary file in the same folder and moved over ``path``: a failure at any
    point leaves an existing file untouched.
    """
    text = dumps(instance)
    loads(text)  # round-trip check before touching the disk
    write_text_atomic(path, text + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and ``os.replace``.

    The file gets the mode of the file it replaces, or else the one the
    umask gives a new file (as ``open`` would: 0644 under umask 022), not the
    private 0600 of a temporary file.  A failure raises an ``OSError`` naming
    ``path`` (never the temporary file) and leaves an existing file untouched.
    """
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as e:
        raise OSError(e.errno, f"cannot write here: {e.strerror or e}", str(p)) from None
    try:
        try:
            mode = os.stat(p).st_mode & 0o7777
        except OSError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename != str(p):
            raise OSError(exc.errno, exc.strerror or str(exc), str(p)) from None
        raise


def _umask() -> int:
    """The process's umask, read without changing it where Linux shows it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)  # elsewhere: read it by setting it (restored at once)
    os.umask(old)
    return old
