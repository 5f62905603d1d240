"""The instance formats each family declares (``Family.schema``, built from the
blocks of dmlsched.formats) against the readers: every bundled instance
validates against its family's schema, and on mutated instances the
schema and the reader agree (whatever the schema refuses, the reader refuses;
an optional field left out is accepted by both)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

import dmlsched
from dmlsched import registry
from dmlsched.cli import main
from dmlsched.errors import InstanceError
from dmlsched.formats import field_rows
from dmlsched.registry import _PROBLEMS, load_families
from dmlsched.tools import INSTANCES, example_path, schema, schema_families

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = tuple(schema_families())
BUNDLED = sorted(p for p in (ROOT / "instances").rglob("*.json"))


def _validator(family: str):
    s = schema(family)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def test_every_registered_family_has_a_format():
    load_families()
    assert set(FAMILIES) == set(_PROBLEMS)
    assert FAMILIES == tuple(f.name for f in registry.bundled_families())  # the registry's bundled order
    for fam in FAMILIES:  # the worked example is a bundled instance of the family
        path = example_path(fam)
        assert path is not None and path.is_relative_to(INSTANCES) and path.is_file()
        assert json.loads(path.read_text())["problem"] == fam


def test_schema_is_a_fresh_copy():
    s = schema("hlas")
    s["properties"]["gpus"]["minItems"] = 99  # shared with Hare's schema in the family's module
    assert schema("hlas")["properties"]["gpus"]["minItems"] == 1
    assert schema("hare")["properties"]["gpus"]["minItems"] == 1


@pytest.mark.parametrize("path", BUNDLED, ids=[str(p.relative_to(ROOT / "instances")) for p in BUNDLED])
def test_bundled_instances_validate_against_their_schema(path: Path):
    data = json.loads(path.read_text())
    errors = list(_validator(data["problem"]).iter_errors(data))
    assert not errors, f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}"


@pytest.mark.parametrize("family", FAMILIES)
def test_saved_instances_validate(family: str, tmp_path: Path):
    """What dmlsched.save writes (the worked example, round-tripped) validates."""
    inst = dmlsched.load(example_path(family))
    dmlsched.save(inst, tmp_path / "x.json")
    data = json.loads((tmp_path / "x.json").read_text())
    assert not list(_validator(family).iter_errors(data))


# ---------------------------------------------------------------------------
# mutations
def _mutations(node: Any, s: dict, path: tuple) -> Iterator[tuple[str, tuple, Any, bool]]:
    """``(what, path, new value or _DELETE, schema_should_accept)`` for ``node`` under schema ``s``."""
    t = s.get("type")
    types = set(t) if isinstance(t, list) else {t}
    if isinstance(node, dict) and "properties" in s:
        req = set(s.get("required", ()))
        for k in s["properties"]:
            if k in node and k != "problem":
                yield (f"drop {k}", path + (k,), _DELETE, k not in req)
        if s.get("additionalProperties") is False:
            yield ("unknown field", path + ("no_such_field",), 1, False)
        for k, sub in s["properties"].items():
            if k in node and k not in ("problem", "expected", "description", "source", "name"):
                yield from _mutations(node[k], sub, path + (k,))
    elif isinstance(node, dict) and isinstance(s.get("additionalProperties"), dict) and node:
        k = next(iter(node))
        yield from _mutations(node[k], s["additionalProperties"], path + (k,))
    elif isinstance(node, list):
        if "minItems" in s and len(node) == s["minItems"] and s["minItems"] > 0:
            yield ("too few items", path, node[:-1], False)
        if "maxItems" in s and len(node) == s["maxItems"]:
            yield ("too many items", path, node + node[-1:], False)
        if "prefixItems" in s:
            for i, sub in enumerate(s["prefixItems"]):
                if i < len(node):
                    yield from _mutations(node[i], sub, path + (i,))
        elif isinstance(s.get("items"), dict) and node:
            yield from _mutations(node[0], s["items"], path + (0,))
        yield ("not an array", path, "x", False)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        if "exclusiveMinimum" in s:
            yield ("at the exclusive minimum", path, s["exclusiveMinimum"], False)
        if "minimum" in s:
            yield ("below the minimum", path, s["minimum"] - 1, False)
        if "maximum" in s:
            yield ("above the maximum", path, s["maximum"] + 1, False)
        if "integer" in types and "number" not in types:
            yield ("a fraction for an integer", path, 1.5, False)
        if "string" not in types:
            yield ("a string for a number", path, "abc", False)
        yield ("a boolean for a number", path, True, False)
    elif isinstance(node, str):
        if "enum" in s:
            yield ("outside the enum", path, "no-such-choice", False)
        if not types & {"integer", "number"}:
            yield ("a number for a string", path, 5, False)


_DELETE = object()


def _apply(data: dict, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(data)
    node = out
    for k in path[:-1]:
        node = node[k]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


#: optional fields whose absence the reader refuses on a cross-field check
#: the schema states in ``x-checks`` (not expressible in it)
CROSS_FIELD = {("cruise", "bandwidth"), ("cruise", "name")}


@pytest.mark.parametrize("path", BUNDLED, ids=[str(p.relative_to(ROOT / "instances")) for p in BUNDLED])
def test_schema_and_reader_agree_on_mutations(path: Path):
    data = json.loads(path.read_text())
    fam = data["problem"]
    v = _validator(fam)
    checked = 0
    for what, where, value, schema_ok in _mutations(data, schema(fam), ()):
        mutant = _apply(data, where, value)
        assert v.is_valid(mutant) == schema_ok, f"{what} at {where}: schema {'refuses' if schema_ok else 'accepts'}"
        try:
            dmlsched.from_dict(mutant)
            reader_ok = True
        except InstanceError:
            reader_ok = False
        if not schema_ok:
            assert not reader_ok, f"{what} at {where}: the schema refuses it, the reader accepts it"
        elif (fam, where[-1]) not in CROSS_FIELD:
            assert reader_ok, f"{what} at {where}: the schema accepts it, the reader refuses it"
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("family", FAMILIES)
def test_field_table_lists_every_field(family: str):
    rows = field_rows(schema(family))
    paths = [r[0] for r in rows]
    assert len(paths) == len(set(paths))
    data = json.loads(example_path(family).read_text())
    for k in data:  # every top-level key of the worked example is documented
        assert k in paths
    assert all(r[4] for r in rows), "every field has a description"


def test_cli_schema_prints_the_schema(capsys):
    assert main(["schema", "rar"]) == 0
    assert json.loads(capsys.readouterr().out) == schema("rar")
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == "families (dmlsched schema FAMILY prints its JSON Schema): " + ", ".join(FAMILIES) + "\n"
    assert main(["schema", "nosuch"]) == 2
    assert "unknown family 'nosuch'" in capsys.readouterr().err
