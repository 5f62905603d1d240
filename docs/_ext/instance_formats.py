"""Sphinx directive ``.. instance-format:: FAMILY``: a family's instance format
rendered from its :class:`~dmlsched.family.Family` (the one source, found through
the registry): its description, a table of every field (``dmlsched.formats.field_rows``),
the checks across fields, the worked example (``Family.example``) and the JSON
Schema (``Family.schema``)."""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

ROOT = Path(__file__).resolve().parents[2]


def _cell(text: str) -> str:
    text = " ".join(str(text).split()) or "-"
    return text.replace("*", r"\*").replace("`", r"\`").replace("|", r"\|").replace("_", r"\_")


def format_rst(family: str) -> list[str]:
    from dmlsched.formats import field_rows
    from dmlsched.tools import example_path, schema

    s = schema(family)
    lines = [_cell(s.get("description", "")), ""]
    lines += [".. list-table::", "   :header-rows: 1", "   :widths: 22 12 8 18 40", "",
              "   * - field", "     - type", "     - required", "     - constraints", "     - meaning"]
    for path, typ, req, cons, desc in field_rows(s):
        lines += [f"   * - ``{path}``", f"     - {_cell(typ)}", f"     - {req}", f"     - {_cell(cons)}",
                  f"     - {_cell(desc)}"]
    lines += [""]
    if s.get("x-checks"):
        lines += ["Checked by the reader across fields:", ""]
        lines += [f"* {_cell(c)}" for c in s["x-checks"]] + [""]
    example = example_path(family)
    if example is not None:
        shown = example.relative_to(ROOT) if example.is_relative_to(ROOT) else example
        lines += [f"Worked example (``{shown.as_posix()}``):", "", ".. code-block:: json", ""]
        lines += ["   " + ln for ln in example.read_text(encoding="utf-8").rstrip().splitlines()] + [""]
    lines += [f"JSON Schema (``dmlsched schema {family}``):", "", ".. code-block:: json", ""]
    lines += ["   " + ln for ln in json.dumps(s, indent=2).splitlines()] + [""]
    return lines


class InstanceFormat(Directive):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(StringList(format_rst(self.arguments[0]), source="dmlsched.family"),
                                self.content_offset, node)
        return node.children


def setup(app):  # noqa: D103 - Sphinx entry point
    app.add_directive("instance-format", InstanceFormat)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
