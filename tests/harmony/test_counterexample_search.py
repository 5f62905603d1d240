"""proofs/harmony_cex_search.py finds what proofs/harmony.md says it finds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "proofs" / "harmony_cex_search.py"
_SPEC = importlib.util.spec_from_file_location("harmony_cex_search", _PATH)
cex = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cex)


@pytest.mark.parametrize(("rule", "admission", "count"), [
    ("per-job", "first-stop", 91), ("aggregate", "first-stop", 113),
    ("per-job", "all", 84), ("aggregate", "all", 106),
])
def test_counts_and_smallest_counterexample(rule, admission, count):
    n, big_m, found = cex.search(rule, admission)
    assert (n, big_m, len(found)) == (2, 2, count)  # the counts proofs/harmony.md gives
    _total, neg_ratio, pairs = found[0]
    assert pairs == [(1, 1), (1, 1)]  # instances/counterexamples/harmony-fig4.17-two-balanced-jobs.json
    assert -neg_ratio == pytest.approx(4 / 3)
    text = (_PATH.parent / "harmony.md").read_text(encoding="utf-8")
    assert f"{count} " in text
