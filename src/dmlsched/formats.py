"""The building blocks of the instance formats' JSON Schemas, and their field table.

Each family declares the JSON Schema of its instance files
(:attr:`dmlsched.family.Family.schema`, built in its ``instance.py`` from the
blocks here) and a bundled worked example (:attr:`~dmlsched.family.Family.example`);
:func:`dmlsched.tools.schema` finds them through the registry.  The schemas
are the one source of the formats' documentation: the API reference renders
each as a field table (:func:`field_rows`) with the worked example,
``dmlsched schema FAMILY`` prints it, and the tests check it against the
family's reader both ways: every bundled instance validates, and mutated
instances (a field removed, a bound crossed, a type changed, an unknown field
added) are rejected by the schema exactly when the reader rejects them.

A schema holds what JSON Schema can say (types, required fields, numeric
bounds, unknown fields refused); the checks across fields (a job's
``train_time`` must name every GPU type of ``gpus``, ids are unique, ...)
are stated in the schema's ``description`` (``x-checks``), and the reader
enforces them.  Every instance may also carry ``name``, ``description``,
``source`` (free-form) and ``expected`` (recorded optima, an object):
:data:`COMMON`, added by :func:`family_schema`.

Examples
--------
>>> from dmlsched.formats import family_schema, integer
>>> s = family_schema("toy", "Toy instance", {"machines": integer("machines", ge=1)}, ("machines",),
...                   "A toy family.", ())
>>> sorted(s["required"]), s["properties"]["machines"]["minimum"]
(['machines', 'problem'], 1)
"""

from __future__ import annotations

from typing import Any

#: the JSON Schema dialect of every family's schema
DIALECT = "https://json-schema.org/draft/2020-12/schema"

# ---------------------------------------------------------------------------
# building blocks
def number(description: str, *, gt: float | None = None, ge: float | None = None,
           le: float | None = None, default: float | None = None) -> dict:
    """A number (JSON integers included) with optional bounds."""
    s: dict[str, Any] = {"type": "number", "description": description}
    if gt is not None:
        s["exclusiveMinimum"] = gt
    if ge is not None:
        s["minimum"] = ge
    if le is not None:
        s["maximum"] = le
    if default is not None:
        s["default"] = default
    return s


def integer(description: str, *, ge: int | None = None, le: int | None = None,
            default: int | None = None) -> dict:
    """An integer (``2.0`` is accepted as ``2``, as the readers do)."""
    s = number(description, ge=ge, le=le, default=default)
    s["type"] = "integer"
    return s


def string(description: str, *, enum: tuple[str, ...] | None = None, default: str | None = None) -> dict:
    """A non-empty string, optionally one of ``enum``."""
    s: dict[str, Any] = {"type": "string", "minLength": 1, "description": description}
    if enum is not None:
        s["enum"] = list(enum)
    if default is not None:
        s["default"] = default
    return s


def ident(description: str) -> dict:
    """An id: a non-empty string or an integer (read as its decimal text)."""
    return {"type": ["string", "integer"], "minLength": 1, "description": description}


def array(items: dict, description: str, *, min_items: int | None = None, max_items: int | None = None) -> dict:
    """An array of ``items``, optionally with bounds on its length."""
    s: dict[str, Any] = {"type": "array", "items": items, "description": description}
    if min_items is not None:
        s["minItems"] = min_items
    if max_items is not None:
        s["maxItems"] = max_items
    return s


def obj(properties: dict[str, dict], required: tuple[str, ...], description: str) -> dict:
    """An object whose unknown fields are refused."""
    return {"type": "object", "description": description, "properties": properties,
            "required": list(required), "additionalProperties": False}


def number_map(value: dict, description: str) -> dict:
    """An object from names (GPU types) to numbers."""
    return {"type": "object", "additionalProperties": value, "description": description}


#: fields every instance may carry besides its family's own (:data:`dmlsched.io.COMMON_KEYS`)
COMMON = {
    "name": {"type": "string", "description": "a name for reports (may be empty)"},
    "description": {"description": "free-form text, kept across load and save"},
    "source": {"description": "free-form provenance (a paper, a generator call, a trace), kept across load and save"},
    "expected": {"type": "object", "description": "recorded optima and facts for the tests (free-form object)"},
}


def family_schema(problem: str, title: str, properties: dict[str, dict], required: tuple[str, ...],
                  description: str, checks: tuple[str, ...]) -> dict:
    """The JSON Schema of a family's instance files: an object with ``"problem": problem``,
    ``properties`` (``required`` among them) and :data:`COMMON`, unknown fields refused;
    ``checks`` (the reader's checks across fields, which JSON Schema cannot state) go to
    ``x-checks``."""
    props = {"problem": {"const": problem, "description": "the family"}, **properties, **COMMON}
    s = obj(props, ("problem",) + required, description)
    s = {"$schema": DIALECT, "$id": f"https://dmlsched.invalid/formats/{problem}.schema.json",
         "title": title, **s, "x-checks": list(checks)}
    return s


def field_rows(s: dict, path: str = "") -> list[tuple[str, str, str, str, str]]:
    """``(path, type, required, constraints, description)`` of every field of
    a schema, depth first (``jobs[].train_time.<type>`` for a map's values)."""
    rows: list[tuple[str, str, str, str, str]] = []
    req = set(s.get("required", ()))
    for name, sub in (s.get("properties") or {}).items():
        p = f"{path}.{name}" if path else name
        rows.append((p, _type_text(sub), "yes" if name in req else "no", _constraints(sub),
                     str(sub.get("description", ""))))
        rows.extend(_children(sub, p))
    return rows


def _children(sub: dict, p: str) -> list[tuple[str, str, str, str, str]]:
    rows: list[tuple[str, str, str, str, str]] = []
    if sub.get("type") == "object" and "properties" in sub:
        rows.extend(field_rows(sub, p))
    elif sub.get("type") == "object" and isinstance(sub.get("additionalProperties"), dict):
        v = sub["additionalProperties"]
        rows.append((f"{p}.<name>", _type_text(v), "-", _constraints(v), str(v.get("description", ""))))
    elif sub.get("type") == "array":
        if "prefixItems" in sub:
            for k, item in enumerate(sub["prefixItems"]):
                rows.append((f"{p}[{k}]", _type_text(item), "yes", _constraints(item),
                             str(item.get("description", ""))))
        elif isinstance(sub.get("items"), dict):
            item = sub["items"]
            if item.get("type") == "object" and "properties" in item:
                rows.extend(field_rows(item, f"{p}[]"))
            else:
                rows.append((f"{p}[]", _type_text(item), "-", _constraints(item), str(item.get("description", ""))))
                if item.get("type") == "array":
                    rows.extend(_children(item, f"{p}[]"))
    return rows


def _type_text(s: dict) -> str:
    if "const" in s:
        return f"\"{s['const']}\""
    t = s.get("type", "any")
    return " or ".join(t) if isinstance(t, list) else str(t)


def _constraints(s: dict) -> str:
    out = []
    for key, sym in (("exclusiveMinimum", ">"), ("minimum", ">="), ("maximum", "<=")):
        if key in s:
            out.append(f"{sym} {s[key]:g}" if isinstance(s[key], (int, float)) else f"{sym} {s[key]}")
    if "minItems" in s and s.get("maxItems") == s["minItems"]:
        out.append(f"exactly {s['minItems']} items")
    else:
        if "minItems" in s:
            out.append(f"at least {s['minItems']} item(s)")
        if "maxItems" in s:
            out.append(f"at most {s['maxItems']} item(s)")
    if "enum" in s:
        out.append("one of " + ", ".join(map(str, s["enum"])))
    if "default" in s:
        out.append(f"default {s['default']}")
    return "; ".join(out)
