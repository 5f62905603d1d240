"""The evidence rule of ``dmlsched.claims`` on hand-written numbers: every part outcome and
every claim word with its boundaries, the symmetry of the words, and the judgement's text."""

from __future__ import annotations

import math

import pytest

from dmlsched.claims import (
    OUTCOMES,
    VERDICTS,
    WORDS,
    Claim,
    Part,
    PartResult,
    Point,
    ReadingVerdict,
    ceiling_violations,
    claim_word,
    fmt,
    judge_part,
    judgement,
    point_factor,
    point_reduction,
    step_change,
    summary_word,
    sweep_factor,
    sweep_reduction,
)

ABOUT_1_1 = Part("p", "A vs B", "about", 1.1, "factor", "aggregate", tolerance=0.15)
AT_LEAST = Part("p", "A vs B", "at least", 0.546, "reduction", "every", tolerance=0.15)
ALWAYS = Part("p", "A vs B", "always better", None, "factor", "every")


def outcome(part, *pts):
    return judge_part(part, [Point(str(i), *p) if isinstance(p, tuple) else Point(str(i), p)
                             for i, p in enumerate(pts)])[0]


def test_words_and_outcomes_are_defined_once():
    assert set(WORDS) == set(VERDICTS)
    assert OUTCOMES == ("holds", "direction only", "unreachable", "fails", "not run")


def test_a_loss_against_a_claimed_gain_is_never_reproduced():
    # 0.94x against the paper's 1.1x: the wrong sign, whatever the tolerance
    assert outcome(ABOUT_1_1, 0.94) == "fails"
    assert claim_word(["fails"]) == "not reproduced"
    wide = Part("p", "A vs B", "about", 1.1, "factor", "aggregate", tolerance=5.0)
    assert outcome(wide, 0.99) == "fails"  # a tolerance never turns a loss into a win
    assert outcome(wide, 1.0) == "fails"  # no effect is not the claimed direction


def test_tolerance_is_relative_to_the_effect_size():
    # 1.1x has effect 0.1; 15% admits effects in [0.085, 0.115]
    assert outcome(ABOUT_1_1, 1.085) == "holds"
    assert outcome(ABOUT_1_1, 1.0849) == "direction only"
    assert outcome(ABOUT_1_1, 1.115) == "holds"
    assert outcome(ABOUT_1_1, 1.1151) == "direction only"  # "about" is two-sided
    # "at least": short is direction only, any larger effect holds
    assert outcome(AT_LEAST, 0.4641) == "holds"
    assert outcome(AT_LEAST, 0.46) == "direction only"
    assert outcome(AT_LEAST, 0.95) == "holds"


def test_always_claim_with_one_losing_point_is_not_reproduced():
    assert outcome(ALWAYS, 1.2, 1.3, 0.99) == "fails"
    assert outcome(ALWAYS, 1.2, 1.3, 1.01) == "holds"
    assert claim_word(["fails", "holds"]) == "partially reproduced"
    assert claim_word(["fails"]) == "not reproduced"


def test_unreachable_beyond_the_ceiling_and_fails_first():
    # the ceiling allows at most 40% against the paper's 54.6% (less 15%: 46.4%)
    assert outcome(AT_LEAST, (0.30, 0.40)) == "unreachable"
    assert outcome(AT_LEAST, (0.30, 0.4641)) == "direction only"  # the tolerated end is reachable
    # the wrong sign where a better schedule existed fails even when the number is unreachable
    assert outcome(AT_LEAST, (-0.05, 0.40)) == "fails"
    # ...but not where no schedule beats the baseline at all
    assert outcome(AT_LEAST, (-0.05, 0.0)) == "unreachable"
    assert claim_word(["unreachable", "holds"]) == "unreachable in this setup"
    assert claim_word(["unreachable", "direction only"]) == "unreachable in this setup"
    assert claim_word(["unreachable", "fails"]) == "not reproduced"


def test_close_parts_are_symmetric_and_empty_without_contention():
    close = Part("c", "A and B close", "close", None, "factor", "every", tolerance=0.10)
    assert outcome(close, 1.05) == "holds" and outcome(close, 0.95) == "holds"
    assert outcome(close, 1.11) == "fails" and outcome(close, 0.89) == "fails"
    assert outcome(close, (1.0, 1.0)) == "unreachable"  # every schedule equals the bound: nothing to compare


def test_grows_value_bound_and_not_better_parts():
    grows = Part("g", "grows", "grows", None, "delta", "every")
    assert outcome(grows, 0.1, 0.02) == "holds"
    assert outcome(grows, 0.1, -0.02) == "fails"
    assert outcome(grows, 0.1, 0.0) == "fails"
    value = Part("v", "a value", "value", 6.7, "value", "every", tolerance=0.01)
    assert outcome(value, 20 / 3) == "holds" and outcome(value, 6.5) == "fails"
    bound = Part("b", "ratio", "bound", 2.0, "value", "every", tolerance=0.0)
    assert outcome(bound, 1.5, 2.0) == "holds" and outcome(bound, 1.5, 2.01) == "fails"
    gone = Part("n", "no better", "always better", None, "factor", "every", strict=False)
    assert outcome(gone, 1.0, 1.2) == "holds" and outcome(gone, 0.99) == "fails"
    assert outcome(ABOUT_1_1) == "not run"
    assert outcome(ABOUT_1_1, math.nan) == "not run"


@pytest.mark.parametrize("outcomes, word", [
    (["holds", "holds"], "reproduced"),
    (["holds", "direction only"], "partially reproduced"),
    (["holds", "fails"], "partially reproduced"),
    (["direction only", "direction only"], "direction only"),
    (["direction only", "fails"], "not reproduced"),
    (["fails", "fails"], "not reproduced"),
    (["unreachable"], "unreachable in this setup"),
    (["holds", "not run"], "not run"),
    ([], "not run"),
])
def test_claim_words_in_their_order(outcomes, word):
    assert claim_word(outcomes) == word


def test_success_and_failure_on_a_substitute_workload_get_symmetric_words():
    win = ReadingVerdict("default", [PartResult(ALWAYS, [Point("x", 1.5)])], published=False,
                         why="substitute workload", default=True)
    loss = ReadingVerdict("default", [PartResult(ALWAYS, [Point("x", 0.7)])], published=False,
                          why="substitute workload", default=True)
    assert win.word == loss.word == "inconclusive"
    assert win.setup_word == "reproduced" and loss.setup_word == "not reproduced"
    assert win.text() == "inconclusive (substitute workload); with this setup: reproduced"
    assert loss.text() == "inconclusive (substitute workload); with this setup: not reproduced"
    contra = ReadingVerdict("default", [PartResult(ALWAYS, [Point("x", 1.5)])], contradicts=True, default=True)
    assert contra.word == "inconclusive" and "contradicts itself" in contra.text()


def test_judgement_headline_is_the_default_readings_word():
    d = ReadingVerdict("default", [PartResult(ABOUT_1_1, [Point("g", 0.94)])], default=True)
    alt = ReadingVerdict("alternative", [PartResult(ABOUT_1_1, [Point("g", 1.1)])])
    j = judgement([alt, d], caveat="x" * 150)
    assert j.verdict.startswith("not reproduced; other readings: alternative: reproduced")
    assert len(j.caveat) == 100
    assert judgement([]).verdict == "not run"


def test_ceiling_violations_catch_a_bound_above_a_run():
    claim = Claim(family="toy", key="k", paper="p", where="w", quote="q", claimed="c", setup="s",
                  suite=lambda s: None, judge=lambda r, s: None, ceiling=("lb", "objective", "objective"))
    recs = [{"instance_hash": "h1", "method": "lb", "status": "optimal", "objective": 10.0},
            {"instance_hash": "h1", "method": "a", "status": "feasible", "objective": 12.0},
            {"instance_hash": "h2", "method": "lb", "status": "bound", "objective": 10.0},
            {"instance_hash": "h2", "method": "a", "status": "feasible", "objective": 9.0}]
    bad = ceiling_violations(claim, recs)
    assert len(bad) == 1 and "h2" in bad[0]
    every = Claim(family="toy", key="k", paper="p", where="w", quote="q", claimed="c", setup="s",
                  suite=lambda s: None, judge=lambda r, s: None, ceiling=("*", "details.lb", "details.v"))
    assert ceiling_violations(every, [{"instance_hash": "h", "method": "a", "status": "feasible", "objective": 1,
                                       "details": {"lb": 3.0, "v": 2.0}}])


# --- the rule as changed after the independent review of issue 21 (REVIEW-21 items 4, 5, 8, 14) ---
BASE_TREND = Part("t", "every scheme's JCT grows", "grows", None, "delta", "every", subject="context")


def test_a_context_part_never_lifts_or_sinks_a_claim():
    # Fig. 22's situation: every part about the method fails, a part comparing two baselines holds
    holds_ctx = PartResult(Part("b", "2D-LAS vs FIFO", "always better", None, "factor", "aggregate",
                                subject="context"), [Point("x", 2.1)])
    lost = PartResult(ALWAYS, [Point("x", 0.6)])
    assert ReadingVerdict("d", [lost, holds_ctx], default=True).word == "not reproduced"
    # Fig. 23's situation: the same, with a failing context trend instead: the same word
    fails_ctx = PartResult(BASE_TREND, [Point("x", 0.2), Point("y", -0.03)])
    assert fails_ctx.outcome == "fails"
    assert ReadingVerdict("d", [lost, fails_ctx], default=True).word == "not reproduced"
    # a success is not sunk by a failing context part either (symmetric)
    won = PartResult(ALWAYS, [Point("x", 1.4)])
    assert ReadingVerdict("d", [won, fails_ctx], default=True).word == "reproduced"
    assert ReadingVerdict("d", [won, holds_ctx], default=True).word == "reproduced"
    # a claim made only of context parts is judged on them
    assert ReadingVerdict("d", [fails_ctx], default=True).word == "not reproduced"
    assert ReadingVerdict("d", [holds_ctx], default=True).word == "reproduced"


def test_a_slight_improvement_needs_the_right_sign_and_a_small_effect():
    slight = Part("s", "HLAS-L vs HLAS: a trivial improvement", "slightly better", None, "factor", "aggregate",
                  tolerance=0.05)
    assert outcome(slight, 1.03) == "holds"
    assert outcome(slight, 1.05) == "holds"  # the boundary is still slight
    assert outcome(slight, 1.24) == "direction only"  # a large gain: the right sign, not slight
    assert outcome(slight, 0.97) == "fails"  # a loss is never a trivial improvement
    assert outcome(slight, 1.0) == "fails"  # no effect is no improvement


def test_the_aggregation_rule_means_at_a_point_geometric_means_over_a_sweep():
    # two seeds at one point: the ratio of the means, not the mean of the ratios
    pairs = [(1.0, 3.0), (3.0, 3.0)]  # W(A), W(B): per-seed ratios 3.0 and 1.0
    assert point_factor(pairs) == pytest.approx(3.0 / 2.0)
    assert point_reduction(pairs) == pytest.approx(1.0 - 2.0 / 3.0)
    # symmetric in sign: B over A is the inverse of A over B, at a point and over a sweep
    assert point_factor([(b, a) for a, b in pairs]) == pytest.approx(1.0 / point_factor(pairs))
    f = [0.72, 1.00, 1.18, 1.10, 1.05]
    assert sweep_factor([1.0 / x for x in f]) == pytest.approx(1.0 / sweep_factor(f))
    assert sweep_reduction([0.5, 0.75]) == pytest.approx(1.0 - math.sqrt(0.5 * 0.25))
    # a step reads with the same magnitude as a rise or as a fall
    assert step_change(100.0, 80.0) == pytest.approx(-0.2)
    assert step_change(100.0, 80.0, down=True) == pytest.approx(0.2)


def test_numbers_that_round_to_no_effect_show_their_side():
    assert fmt(0.998, "factor") == "0.998x" and fmt(1.0, "factor") == "1.00x" and fmt(1.004, "factor") == "1.004x"
    assert fmt(1.23, "factor") == "1.23x" and fmt(0.9996, "factor") == "0.9996x"
    assert fmt(-0.0004, "delta") == "-0.04%" and fmt(0.2, "delta") == "+20.0%"


def test_a_difference_of_percentages_prints_in_percentage_points():
    # a gap of 16.1% after one of 21.9%: -5.8 percentage points, not "-5.8%" (a relative change)
    assert fmt(0.161 - 0.219, "pp") == "-5.8 pp"
    assert fmt(0.021, "pp") == "+2.1 pp"
    assert fmt(0.0004, "pp") == "+0.04 pp"  # shows its side of 0 like the other units
    assert fmt(0.021, "delta") == "+2.1%"  # a relative change keeps %
    grows = Part("g", "gap grows", "grows", None, "pp", "every")
    assert PartResult(grows, [Point("a", -0.058), Point("b", 0.02)]).ours_text() == "-5.8 pp to +2.0 pp"
    assert "-5.8 pp" in judge_part(grows, [Point("a", -0.058)])[1]


def test_an_unreachable_reason_gives_each_point_its_own_ceiling():
    pts = [Point("vs FIFO", 0.047, 0.159), Point("vs SRTF", 0.033, 0.147), Point("vs Homo", 0.161, 0.259),
           Point("vs Allox", 0.144, 0.245)]
    out, why = judge_part(AT_LEAST, pts)
    assert out == "unreachable"
    for label, cap in (("vs FIFO", "15.9%"), ("vs SRTF", "14.7%"), ("vs Homo", "25.9%"), ("vs Allox", "24.5%")):
        assert f"{label} (ceiling {cap})" in why
    out, why = judge_part(ALWAYS, [Point("x", 0.9, 1.0), Point("y", 0.8, 0.95)])
    assert out == "unreachable" and "x (ceiling 1.00x)" in why and "y (ceiling 0.95x)" in why


def _rv(name, ours, default=False, published=False):
    return ReadingVerdict(name, [PartResult(ABOUT_1_1, [Point("g", ours)])], published=published,
                          why="substitute", default=default)


def test_summary_shows_when_the_word_depends_on_the_reading_in_either_direction():
    # the default holds, another reading fails: shown
    w, note = summary_word([_rv("effective", 1.1, default=True), _rv("compute", 0.9)])
    assert w == "inconclusive"
    assert note == "with this setup: reproduced; depends on the reading: not reproduced under `compute`"
    # the mirror image (the default fails, another reading holds): shown the same way
    w, note = summary_word([_rv("compute", 0.9, default=True), _rv("effective", 1.1)])
    assert note == "with this setup: not reproduced; depends on the reading: reproduced under `effective`"
    # readings giving the default's word are not listed; several are grouped by word, in the rule's order
    rs = [_rv("d", 1.1, default=True), _rv("same", 1.1), _rv("a", 0.9), _rv("b", 1.02), _rv("c", 0.8)]
    assert summary_word(rs)[1] == ("with this setup: reproduced; depends on the reading: direction only under `b`; "
                                   "not reproduced under `a`, `c`")
    assert summary_word([_rv("d", 1.1, default=True), _rv("same", 1.1)])[1] == "with this setup: reproduced"
    # published readings: the words themselves
    pub = [_rv("d", 1.1, default=True, published=True), _rv("x", 0.9, published=True)]
    assert summary_word(pub) == ("reproduced", "depends on the reading: not reproduced under `x`")
    assert summary_word([_rv("d", 1.1, default=True, published=True)]) == ("reproduced", "")
    assert summary_word([]) == ("not run", "")
