"""The families' one random builder (``problems/<f>/sample.py``) and its draws (:mod:`dmlsched.draws`).

The hunt's instance streams are pinned: for seeds 0..999 at the hunt's default caps,
``Family.sample(RngDraws(np.random.default_rng(seed)), **default_size)`` gives, byte
for byte, the JSON the hunt's samplers gave before they moved into the families
(recorded on main 093e46b with the hunt's spaces, which then called the builders with
the generator itself; the same hashes as the pre-E3 samplers of ``hunt/space.py``).
"""

from __future__ import annotations

import hashlib
import inspect
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlsched.draws import RngDraws
from dmlsched.fuzz import HypothesisDraws
from dmlsched.hunt.space import get_space
from dmlsched.registry import family, load_families

#: sha256 over json.dumps of the samples of seeds 0..999, per family
STREAMS = {
    "cruise": "f40a8b49439f9ba993e8c3b21ebe0e80e7e7d0b7cff0b03c417bea9ae2f75c59",
    "gpu-grouping": "500b3db577a54e915b5bdc0212656fac7944a8ae653854b5116783ace8108eb7",
    "hare": "e1365044120a6f50a3b6663acc6d1b385c6c5d2291699c94dd0e47867a15ba2a",
    "harmony": "959dd2fd1c28448fa1d2ef2614c4dd5e63ccf4ba1d9e57b2345413b1e7613896",
    "moldable": "9a4b3c1b4e93a0fc5f44477d0a02e04f2f0d30456a0feac75e9a4b34a588cbfc",
    "rar": "8dd753d2d05dfe2b7b1997c5ec06a06c8f262fcb816c397d94f699e78f91c217",
}


def _stream(build, size: dict) -> str:
    h = hashlib.sha256()
    for seed in range(1000):
        h.update(json.dumps(build(seed, size)).encode())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_builder_keeps_the_hunts_stream(name):
    load_families()
    fam = family(name)
    size = dict(fam.hunt.default_size)
    assert _stream(lambda seed, s: fam.sample(RngDraws(np.random.default_rng(seed)), **s), size) == STREAMS[name]
    space = get_space(name)  # the hunt reaches the builder through its space
    assert _stream(lambda seed, s: space.sample(np.random.default_rng(seed), s), size) == STREAMS[name]


def test_the_stream_check_can_fail():
    load_families()
    fam = family("hare")
    size = dict(fam.hunt.default_size, alpha=3.0)
    assert _stream(lambda seed, s: fam.sample(RngDraws(np.random.default_rng(seed)), **s), size) != STREAMS["hare"]


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_builder_defaults_are_the_hunts_caps(name):
    """Called with no size, the builder draws within the hunt's caps (its keyword defaults are them)."""
    load_families()
    fam = family(name)
    params = inspect.signature(fam.sample).parameters
    for key, cap in fam.hunt.default_size.items():
        assert params[key].default == cap, key
    for seed in range(50):
        d = fam.sample(RngDraws(np.random.default_rng(seed)))
        assert fam.hunt.within(d, fam.hunt.default_size)
        fam.from_dict(d)


def test_rng_draws_are_the_generators_calls():
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    d = RngDraws(a)
    assert d.integer(2, 7) == int(b.integers(2, 8))
    assert d.choice("xyz") == "xyz"[int(b.integers(3))]
    assert d.grid(0.5, 3.0, 0.5) == round(int(b.integers(1, 7)) * 0.5, 6)
    assert d.coin(0.3) == (b.random() < 0.3)
    assert d.uniform(1.0, 2.0) == float(b.uniform(1.0, 2.0))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_hypothesis_draws_stay_in_range(data):
    d = HypothesisDraws(data.draw)
    assert 2 <= d.integer(2, 7) <= 7
    assert d.choice((4, 5)) in (4, 5)
    g = d.grid(0.5, 3.0, 0.5)
    assert 0.5 <= g <= 3.0 and (g * 2).is_integer()
    assert 1.0 <= d.uniform(1.0, 2.0) <= 2.0
    assert d.coin(0.0) is False and d.coin(1.0) is True
