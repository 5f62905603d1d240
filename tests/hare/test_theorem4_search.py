"""proofs/hare_theorem4_search.py draws the instances proofs/hare-theorem-4.md says it studies.

Generation only (no solving, about a second): the counts of ``--seed 2`` per family, as the
run printed them and the document records them, and a digest of the instances themselves (a
change of drawn times, weights or arrivals leaves the counts alone). A change of the family
builder's draws (:func:`dmlsched.problems.hare.sample.random_instance`) fails these tests; then
the runs that the document records (its sections 5 and 7) must be re-run and their numbers
written there, never left stale.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections import Counter
from pathlib import Path

from dmlsched.problems.hare.instance import HareInstance

_PATH = Path(__file__).resolve().parents[2] / "proofs" / "hare_theorem4_search.py"
_SPEC = importlib.util.spec_from_file_location("hare_theorem4_search", _PATH)
search = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("hare_theorem4_search", search)  # dataclasses look their module up
_SPEC.loader.exec_module(search)

#: ``--seed 2``: instances of at most 6 tasks per family, as ``proofs/hare-theorem-4.md`` records them
SEED2_COUNTS = {"spt-trap": 6, "homogeneous": 400, "random": 300, "hetero": 150, "wide-round": 75,
                "chains": 280, "two-types": 209}

#: sha256 of :func:`_canonical` over ``--seed 2``'s instances (the ones the 2026-11-27 runs studied)
SEED2_DIGEST = "2b8f21379ca829bb41e75c281957f57a24162dae6b2db566bbb19ceda1fad2bb"


def _canonical(family: str, inst: HareInstance) -> str:
    """One line per instance, independent of the JSON writer: family, GPUs, each job's fields."""
    jobs = [(float(j.arrival), float(j.weight), j.rounds, j.tasks_per_round,
             sorted((str(g), float(t)) for g, t in j.train_time.items()),
             sorted((str(g), float(t)) for g, t in j.sync_time.items())) for j in inst.jobs]
    return repr((family, [str(g) for g in inst.gpus], jobs))


def test_seed2_instance_counts_are_those_the_document_records():
    counts = Counter(family for family, _ in search.search_instances(2))
    assert dict(counts) == SEED2_COUNTS
    total = sum(SEED2_COUNTS.values())
    assert total == 1420
    text = " ".join((_PATH.parent / "hare-theorem-4.md").read_text(encoding="utf-8").split())  # lines unwrapped
    assert f"{total} instances" in text
    assert ", ".join(f"{family} {n}" for family, n in SEED2_COUNTS.items()) in text


def test_seed2_instances_are_those_the_document_studied():
    digest = hashlib.sha256()
    for family, inst in search.search_instances(2):
        digest.update((_canonical(family, inst) + "\n").encode())
    assert digest.hexdigest() == SEED2_DIGEST, (
        "proofs/hare_theorem4_search.py --seed 2 draws other instances than the runs that "
        "proofs/hare-theorem-4.md records: re-run them, update the document, then this digest")
