"""``dmlsched reproduce``: every claim has a quick form that runs and a judge
whose verdict starts with one of the verdict words; the report's shape."""

from __future__ import annotations

import lzma
import subprocess
from pathlib import Path

import pytest

from dmlsched import registry
from dmlsched.bench import Source, Suite, reproduce, run_sweep
from dmlsched.bench.engines import LocalEngine
from dmlsched.bench.reproduce import (
    _ours_cell,
    _rule_section,
    _select_families,
    commit_line,
    generate,
    verdict_word,
    write_archive,
)
from dmlsched.claims import (
    RULE,
    WORDS,
    Claim,
    Judgement,
    Part,
    PartResult,
    Point,
    Reading,
    ReadingVerdict,
    Row,
    Setup,
    all_claims,
    ceiling_violations,
    judgement,
)
from dmlsched.cli import main
from dmlsched.problems import FAMILIES
from dmlsched.suites import SuiteError, import_plugins

CLAIMS = all_claims()


def test_verdict_words():
    assert verdict_word("not reproduced under every reading") == "not reproduced"
    assert verdict_word("reproduced under reading proof") == "reproduced"
    assert verdict_word("partially reproduced") == "partially reproduced"
    assert verdict_word("holds") == ""


@pytest.fixture(scope="module")
def engine():
    """One local worker process for every claim (hard limits hold, start-up paid once)."""
    eng = LocalEngine(1)
    yield eng
    eng.close()


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.key for c in CLAIMS])
def test_every_claim_has_a_quick_form_that_runs(claim: Claim, engine, tmp_path: Path, skip_without_traces):
    quick = claim.suite("quick")
    full = claim.suite("full")
    assert isinstance(quick, Suite) and isinstance(full, Suite)
    assert quick.time_limit is not None, "a quick suite must bound its runs"
    res = run_sweep(quick, out=str(tmp_path / "q.jsonl"), engine=engine, progress=False)
    assert res.records, f"{claim.key}: the quick suite planned no run"
    real_errors = [r for r in res.records if r.get("status") == "error"]
    skip_without_traces(real_errors)
    assert not real_errors, f"{claim.key}: " + "; ".join(
        f"{r.get('variant')}: {r.get('error')}" for r in real_errors[:3])
    j = claim.judge(res.records, "quick")
    assert isinstance(j, Judgement) and (verdict_word(j.verdict) or claim.role == "context"), j.verdict
    assert claim.quote and claim.where and claim.claimed and claim.paper
    # the ceiling is a valid bound: no run on the claim's instances beats it
    assert not ceiling_violations(claim, res.records)
    if claim.role != "context":  # every claim declares its parts, setups and default reading
        assert claim.parts and claim.setups and claim.default_reason
        assert len(j.caveat) <= 100
    names = [r.name for r in claim.readings]
    assert len(names) == len(set(names)), f"{claim.key}: reading names repeat: {names}"


def test_claim_keys_are_unique():
    keys = [c.key for c in CLAIMS]
    assert len(keys) == len(set(keys))


TOY_PART = Part("within", "first within 2% of exact, every instance", "bound", 1.02, "value", "every", tolerance=0.0,
                source="first is within | 2% of exact")


def _toy_claim(plugin: str, key: str = "toy-first", judge=None) -> Claim:
    def suite(scale):
        seeds = (1, 2) if scale == "quick" else (1, 2, 3)
        return Suite(sources=[Source("generator", generator=f"{plugin}:generate", params={"n": 3}, seeds=seeds)],
                     methods=["first", "first@again"], reference="exact", plugins=[plugin], time_limit=None)

    def default_judge(records, scale):
        pts = [Point(r["instance_hash"][:6], r["ratio"]) for r in records
               if r["method"] == "first" and r.get("ratio") is not None]
        pr = PartResult(TOY_PART, pts)
        v = ReadingVerdict("plain", [pr], True, "", default=True)
        alt = ReadingVerdict("substitute", [pr], False, "a substitute workload")
        return judgement([v, alt], ours=pr.ours_text(), ceiling="-", caveat="toy setup " + "x" * 200,
                         rows=[Row("plain", "w" * 1500, pr.outcome)], caveats=["toy setup"])

    return Claim(family="benchtoy", key=key, paper="Toy paper (2024)", where="Sec. 1, Fig. 2",
                 quote="first is within | 2% of exact", claimed="<= 1.02", setup="toy generator",
                 suite=suite, judge=judge or default_judge, parts=(TOY_PART,),
                 setups=(Setup("toy", True, "the toy paper's own generator"),), default_reason="the only one",
                 readings=(Reading("plain", "the first value", "we take the first", "Sec. 1", default=True),))


def test_generate_writes_the_rule_a_summary_and_one_section_per_paper(toy_plugin, tmp_path: Path):
    import_plugins([toy_plugin])

    def broken(records, scale):
        raise RuntimeError("judge bug")

    out = tmp_path / "REPRODUCTION.md"
    res = tmp_path / "runs.jsonl"
    p, runs = generate(str(out), scale="quick", workers=0, results=str(res),
                       claims=[_toy_claim(toy_plugin), _toy_claim(toy_plugin, "toy-broken", broken)])
    text = p.read_text()
    for w, d in WORDS.items():  # the words with their definitions, at the top
        assert f"- **{w}**: {d}." in text
    assert text.index("## How the verdicts are decided") < text.index("## Summary") < text.index("## Toy paper (2024)")
    assert "| claim | paper's number | ours (default readings) | verdict | ceiling | decisive caveat |" in text
    row = next(line for line in text.splitlines() if line.startswith("| `toy-first`"))
    word = runs[0].judgement.readings[0].word
    assert word in ("reproduced", "not reproduced")
    # the other reading's word differs (inconclusive: a substitute setup): the summary says the word depends on it
    assert f"| **{word}** (depends on the reading: inconclusive under `substitute`) |" in row
    assert "toy setup xxx" in row and len(row.split(" | ")[-1]) <= 102
    assert "first is within \\| 2% of exact" in text  # a | in a quote cannot break a table
    assert "| substitute | not as published: a substitute workload |" in text
    assert f"| inconclusive; with this setup: {word} |" in text and "substitute: inconclusive" in text
    assert "scale: **quick**" in text and "machine:" in text and "versions: Python" in text
    assert "**not run**" in text and "the judge failed: RuntimeError: judge bug" in text
    assert "`plain` (default): the first value. From Sec. 1" in text
    assert max(len(line) for line in text.splitlines()) <= 1000
    assert runs[0].ran > 0 and runs[1].ran == 0  # the second claim's runs came from the results file
    # resumable: a rerun runs nothing
    _, again = generate(str(out), scale="quick", workers=0, results=str(res), claims=[_toy_claim(toy_plugin)])
    assert again[0].ran == 0 and again[0].judgement.verdict == runs[0].judgement.verdict


def test_summary_shows_every_method_part_with_its_outcome_and_the_rule():
    """REVIEW-21 item 14: no failing part hides behind the summary's 'ours'; context parts stay out of it;
    the rule the report prints is the one in claims.py."""
    holds = PartResult(Part("a", "A vs B", "always better", None, "factor", "every"), [Point("x", 1.2)])
    fails = PartResult(Part("b", "A vs C", "always better", None, "factor", "every"), [Point("x", 0.8)])
    ctx = PartResult(Part("c", "B vs C", "always better", None, "factor", "every", subject="context"),
                     [Point("x", 2.0)])
    j = judgement([ReadingVerdict("d", [holds, fails, ctx], default=True)], ours="only a")
    assert _ours_cell(j) == "a 1.20x; b 0.80x (fails)"
    text = "\n".join(_rule_section())
    assert all(" ".join(p.split())[:200] in text for p in RULE)
    assert "context" in text and "geometric mean of the per-point factors" in text


def test_families_without_claims_get_a_line(toy_plugin, tmp_path: Path):
    with_claims = {c.family for c in CLAIMS}
    p, _ = generate(str(tmp_path / "R.md"), scale="quick", workers=0, claims=[],
                    results=str(tmp_path / "r.jsonl"))
    text = p.read_text()
    for f in FAMILIES:
        assert (f"- `{f}`: no claims module" in text) == (f not in with_claims)


def test_cli_rejects_unknown_family_and_claim(tmp_path: Path, capsys):
    assert main(["reproduce", "--family", "nosuch", "--out", str(tmp_path / "x.md")]) == 2
    assert "nosuch" in capsys.readouterr().err
    assert main(["reproduce", "--claim", "nosuch-claim", "--out", str(tmp_path / "x.md")]) == 2
    assert "nosuch-claim" in capsys.readouterr().err and not (tmp_path / "x.md").exists()


def test_cli_quick_run_of_selected_claims(toy_plugin, tmp_path: Path, monkeypatch, capsys):
    """``dmlsched reproduce --quick --claim KEY --results FILE``: the command line end to end."""
    import_plugins([toy_plugin])
    claims = [_toy_claim(toy_plugin), _toy_claim(toy_plugin, "toy-other")]
    monkeypatch.setattr(reproduce, "_collect_claims", lambda fams: (claims, {"hlas": "SyntaxError: bad"}))
    out = tmp_path / "R.md"
    res = tmp_path / "r.jsonl"
    assert main(["reproduce", "--quick", "--claim", "toy-other", "--workers", "0", "--out", str(out),
                 "--results", str(res)]) == 0
    text = out.read_text()
    assert "toy-other" in text and "`toy-first`" not in text and "partial run" in text
    assert "`hlas`: its claims module failed to import (SyntaxError: bad)" in text
    assert "dmlsched reproduce --quick --claim toy-other" in text and res.exists()
    assert "reproduction report:" in capsys.readouterr().out


def test_report_records_the_commit_and_ships_its_runs(toy_plugin, tmp_path: Path):
    """REPRODUCTION.md names the commit; its run records go to an xz archive
    from which the same report is rendered again without running anything."""
    import_plugins([toy_plugin])
    out = tmp_path / "R.md"
    arch = tmp_path / "R-runs.jsonl.xz"
    p, runs = generate(str(out), scale="quick", workers=0, results=str(tmp_path / "r.jsonl"),
                       claims=[_toy_claim(toy_plugin)], archive=str(arch))
    text = p.read_text()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                          text=True).stdout.strip()
    if head:
        assert f"- commit: `{head}`" in text
    assert commit_line(tmp_path).startswith("unknown")  # not a checkout
    lines = lzma.decompress(arch.read_bytes()).decode().splitlines()
    assert len(lines) == len({r["key"] for r in runs[0].records}) and f"`{arch}`" in text
    assert arch.stat().st_mode & 0o044 == 0o044
    # re-rendered from the archive: nothing runs, the verdict is the same, the archive is unchanged
    before = arch.read_bytes()
    p2, again = generate(str(tmp_path / "R2.md"), scale="quick", workers=0, results=str(arch),
                         claims=[_toy_claim(toy_plugin)], archive=False)
    assert again[0].ran == 0 and again[0].judgement.verdict == runs[0].judgement.verdict
    assert arch.read_bytes() == before and f"--results {arch}" in p2.read_text()
    # too large: not written, and the report says what re-running costs
    assert write_archive(runs[0].records, tmp_path / "big.xz", max_bytes=10) is None
    assert not (tmp_path / "big.xz").exists()


def test_family_selection_takes_registry_and_package_names():
    """``reproduce --family`` takes the registry name (``gpu-grouping``) and the
    package's (``gpugrouping``), each family once; an unknown name is an error
    listing the known ones."""
    bundled = registry.bundled_families()
    got = _select_families(["gpu-grouping", "hare", "gpugrouping"], bundled)
    assert [f.name for f in got] == ["gpu-grouping", "hare"]
    with pytest.raises(SuiteError, match=r"--family: unknown nosuch; known: hare, harmony, gpu-grouping"):
        _select_families(["hare", "nosuch"], bundled)
