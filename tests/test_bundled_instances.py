"""Every bundled instance file loads, and save/load keeps every field (metadata included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dmlsched

ROOT = Path(__file__).resolve().parents[1] / "instances"
FILES = sorted(ROOT.rglob("*.json"))


def test_there_are_bundled_instances():
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_roundtrip_keeps_every_field(path, tmp_path):
    original = json.loads(path.read_text())
    inst = dmlsched.load(path)
    out = tmp_path / path.name
    dmlsched.save(inst, out)
    saved = json.loads(out.read_text())
    assert set(original) <= set(saved), f"dropped: {set(original) - set(saved)}"
    for key in ("problem", "name", "description", "source"):
        if key in original:
            assert saved[key] == original[key]
    assert dmlsched.to_dict(dmlsched.load(out)) == dmlsched.to_dict(inst)
