"""The bench engine gives malleable policies the verdict check gives them: the
reference's bound over every schedule travels with its record."""

from __future__ import annotations

from pathlib import Path

from dmlsched.bench import run_sweep
from dmlsched.suites import Source, Suite

CEX = Path(__file__).resolve().parents[2] / "instances" / "counterexamples" / "moldable-equi-nonpreemptive.json"


def test_malleable_verdict_in_the_bench_matches_check():
    suite = Suite(sources=[Source("path", pattern=str(CEX))], methods=["malleable-equi", "moldable-equi"],
                  reference="exact-cp", time_limit=None)  # in-process, tiny: no limit
    recs = {r["method"]: r for r in run_sweep(suite, workers=0, progress=False).records}
    assert recs["exact-cp"]["details"]["whole_space_bound"] == 15.0
    assert recs["malleable-equi"]["verdict"] == "holds"
    assert recs["malleable-equi"]["reference_bound"] == 15.0
    assert recs["moldable-equi"]["verdict"] == "violated"
