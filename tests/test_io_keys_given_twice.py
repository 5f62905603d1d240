"""A key given twice in a JSON object is refused, whatever the text looks like.

The loader proves the common case without a second parse (it counts ``":``
in the text against the keys the family reader read); this test checks that
proof against an independent detector -- ``json.loads`` with an
``object_pairs_hook`` that sees every pair -- on texts built to defeat it:
keys spaced from their colons, escaped quotes before colons inside strings,
colons in values, duplicates at every depth, in every family."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

import dmlsched
from dmlsched import InstanceError

ROOT = Path(__file__).resolve().parents[1]
FILES = ["hare/tiny.json", "hare/small_10.json", "hlas/fig12.json", "rar/tiny-mixed.json", "cruise/homogeneous-4.json",
         "harmony/five-jobs.json", "moldable/sharing-memory.json", "gpu-grouping/small_2x8_g2.json"]


def has_twice(text: str) -> bool:
    """The reference: some object of ``text`` has a repeated key."""
    found = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            found.append(keys)
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return bool(found)


def _objects(v, out):
    if isinstance(v, dict):
        out.append(v)
        for x in v.values():
            _objects(x, out)
    elif isinstance(v, list):
        for x in v:
            _objects(x, out)
    return out


def _text(data: dict, rng: random.Random, twice: bool) -> str:
    """``data`` as JSON text, spaced at random, with one key given twice when ``twice``."""
    d = copy.deepcopy(data)
    if rng.random() < 0.5:
        d["description"] = rng.choice(['quote \\": inside', 'a: colon', 'plain', '"quoted": x', 'x\\\\":y'])
    marker = "\x00TWICE\x00"
    if twice:
        objs = [o for o in _objects(d, []) if o]
        target = rng.choice(objs)
        key = rng.choice(list(target))
        # a second copy of the key (its value copied, as a paste would, or another one)
        target[marker] = copy.deepcopy(target[key]) if rng.random() < 0.7 else "other"
    sep = rng.choice([(",", ":"), (", ", ": "), (",", " : "), (", ", ":\n")])
    text = json.dumps(d, separators=sep, indent=rng.choice([None, 1]))
    if twice:
        text = text.replace(json.dumps(marker), json.dumps(key), 1)
    return text


@pytest.mark.parametrize("name", FILES)
def test_loader_agrees_with_a_pair_by_pair_parse(name):
    data = json.loads((ROOT / "instances" / name).read_text())
    rng = random.Random(name)
    seen = {True: 0, False: 0}
    for case in range(60):
        twice = case % 2 == 0
        text = _text(data, rng, twice)
        ref = has_twice(text)
        assert ref == twice
        try:
            dmlsched.loads(text)
        except InstanceError as e:
            assert ref and "is given twice" in str(e), (str(e), text[:300])
            seen[True] += 1
        else:
            assert not ref, text[:300]
            seen[False] += 1
    assert seen[True] == seen[False] == 30
