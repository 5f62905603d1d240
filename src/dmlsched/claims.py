"""The papers' claims as data, and the one evidence rule that judges them.

Each family declares its claims in ``problems/<family>/claims.py`` as a list
``CLAIMS`` of :class:`Claim`, named by its ``Family.claims``; ``dmlsched
reproduce`` collects them from the registry (:func:`all_claims`), runs their suites on the benchmark engine and writes
``benchmarks/REPRODUCTION.md``.

The evidence rule (written here once; every family's judge applies it)
-----------------------------------------------------------------------
Fixed before any number is looked at, from the paper's text alone, a claim
declares:

* its **parts** (:class:`Part`): each a comparison (method A against baseline
  B on a metric) or a stated value, with the paper's number and its kind
  (``"at least"``, ``"about"``, ``"always better"``, ``"slightly better"``,
  ``"grows"``, ``"close"``, ``"value"``, ``"at most"``, ``"bound"``), the
  points it covers, and a **tolerance relative to the paper's effect size** (a
  factor 1.1x has effect 0.1; a 15% tolerance admits >= 1.085x, never < 1.0x:
  a tolerance never turns a loss into a win; a percentage, a reduction or a
  gap, has itself as its effect: 15% of 54.6% admits >= 46.4%);
* **what each part covers** (:attr:`Part.covers`): ``"every"`` point when the
  paper says "always"/"every"/"at least", states a range ("|G| >= 24", "from
  10 to 20 servers") or a trend or comparison along a figure's axis without one
  number for it (each point of the range or the axis must hold); the
  ``"aggregate"`` when the paper states one number for a whole figure or
  sweep ("about 1.69x"); a theorem or a cited result covers every instance;
* the **subject** of each part (:attr:`Part.subject`): ``"method"`` when it
  says something of the paper's method, ``"context"`` when it says nothing of
  the method that it does not say of every scheme alike (a baseline against a
  baseline, or a trend of every scheme): context parts are judged and printed
  but do not enter the claim's word, unless the claim has no other part;
* its **default reading** with a one-line reason from the text
  (:attr:`Claim.default_reason`), the other readings after it;
* whether each **setup** is as published (the paper's algorithm, workload and
  baselines run as the paper ran them): a declared property
  (:class:`Setup`), or a rule on the run's provenance fixed in advance (Hare:
  x^ certified within 0.1% of the relaxation's optimum).

**Aggregation** (one rule for every family; :func:`point_factor`,
:func:`point_reduction`, :func:`sweep_factor`, :func:`sweep_reduction`): a
*point* is one setting of the paper's figure or table (one number of jobs, of
GPUs, one load); several instances (seeds) at one point are replicates, and a
scheme's value there is the **mean of its metric over them** (what a figure's
bar or line shows), so a comparison at a point is a ratio of means
(``mean W(B) / mean W(A)``; a reduction ``1 - mean W(A) / mean W(B)``; a step
along an axis ``mean W(next) / mean W(previous) - 1``).  One number for a
whole sweep is the **geometric mean of the per-point factors** (a reduction:
``1 -`` the geometric mean of the per-point ratios ``W(A) / W(B)``), the summary
symmetric in sign: the aggregate of B/A is the inverse of that of A/B.  The
ceilings are formed the same way from the bound (``mean W(B) / mean LB``),
and stay valid bounds: no schedule's mean is below the mean bound.

Each part gets an **outcome** (:func:`judge_part`), in this order:

``fails``        the wrong sign at a covered point (or on the stated aggregate)
                 where some schedule could have had the right one;
``unreachable``  the paper's number (even its tolerated end) lies beyond the
                 **ceiling** -- a proven bound on what any schedule could
                 achieve against that baseline in that setup -- at a covered
                 point;
``holds``        the right sign at every covered point and the magnitude within
                 the tolerance;
``direction only``  the right sign at every covered point, the magnitude
                 outside the tolerance (short of an "at least" number, away from
                 an "about" number, beyond a "slightly better" one).

A part stating a value (``"value"``, ``"at most"``, ``"bound"``) holds or fails;
a ``"close"`` part (A and B within the tolerance, either way: "close
performance", "no big influence") holds or fails, and is ``unreachable`` when no
schedule can differ from the baseline at all (the comparison is empty).  A
``"slightly better"`` part ("a trivial improvement") needs the right sign and an
effect at most the tolerance: a loss fails, a larger gain is direction only.  A
sign is strict unless the part says "no better" (:attr:`Part.strict`).

A claim's **word** (:func:`claim_word`), from its method parts' outcomes (its
context parts' when it has no other), in this fixed order: ``inconclusive``
if the setup is not as published or the claim contradicts itself, whatever
the sign (the parts' outcomes are still printed after "with this setup:");
else ``reproduced`` if every part holds; else ``unreachable in this setup`` if
some part is unreachable and no part fails; else ``partially reproduced`` if
some part holds and some does not; else ``direction only`` if every part's sign
holds; else ``not reproduced``.  ``not run`` is kept for setup or judge
failures.  The headline is the default reading's word; the other readings
follow in the claim's section.  Where another reading gives a different word
(kinder or harsher alike), the summary shows it beside the headline with the
readings that give it (:func:`summary_word`): the word depends on the reading.
:data:`WORDS` holds the definitions the report prints at its top.

Suites: a method entry ``"NAME@LABEL"`` runs method ``NAME`` with the options
``suite.options["NAME@LABEL"]`` (over ``suite.options["NAME"]``); its records
carry ``method = NAME`` and ``variant = "NAME@LABEL"``, so one suite runs the
same method under several readings.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Sequence

from .registry import bundled_families, family
from .registry import families as registered_families

#: the claim words, in the order of the rule (``not run``: a setup or judge failure)
VERDICTS = ("reproduced", "unreachable in this setup", "partially reproduced", "direction only", "not reproduced",
            "inconclusive", "not run")

#: the words with the definitions the report prints at its top
WORDS: dict[str, str] = {
    "reproduced": "every part of the claim holds at every point it covers, within the tolerance the claim "
                  "declares (relative to the paper's effect size; a tolerance never turns a loss into a win)",
    "unreachable in this setup": "the paper's number lies beyond the ceiling (a proven bound on what any "
                                 "schedule could achieve against that baseline in that setup) and no part fails",
    "partially reproduced": "some parts about the paper's method hold in full, others do not",
    "direction only": "every part has the right sign at every point it covers, but no part reaches the "
                      "paper's magnitude within the tolerance",
    "not reproduced": "some part has the wrong sign where a better schedule existed, and no part about the "
                      "paper's method holds",
    "inconclusive": "the paper's algorithm, workload or baselines could not be run as the paper ran them, or the "
                    "claim contradicts itself, whatever the sign; what this setup shows follows 'with this setup:'",
    "not run": "the setup or the judge failed",
}

#: the rule as the report prints it (paragraphs; the module docstring is the full statement)
RULE: tuple[str, ...] = (
    "One evidence rule (`src/dmlsched/claims.py`) for every family, fixed before the numbers were seen. Each claim "
    "declares from the paper's text its parts (a comparison or a stated value, the paper's number and its kind), "
    "what each part covers, a tolerance relative to the paper's effect size (a factor 1.1x has effect 0.1; 15% "
    "admits >= 1.085x, never < 1.0x: a tolerance never turns a loss into a win; a percentage, a reduction or a gap, "
    "has itself as its effect: 15% of 54.6% admits >= 46.4%), its default reading with a reason "
    "from the text, and whether each setup is the paper's. Ceiling: a proven bound on what any schedule could "
    "achieve against the baseline in that setup.",
    "Coverage: every point when the paper says 'always'/'every'/'at least', states a range ('|G| >= 24', 'from 10 "
    "to 20 servers') or states a trend or comparison along a figure's axis without one number for it; the aggregate "
    "when the paper states one number for a whole figure or sweep ('about 1.69x'); every instance for a theorem or a "
    "cited result.",
    "Aggregation (one rule for every family): a point is one setting of the paper's figure; several instances "
    "(seeds) at a point are replicates, and a scheme's value there is the mean of its metric over them (what a "
    "figure's bar shows), so a comparison at a point is a ratio of means; one number for a whole sweep is the "
    "geometric mean of the per-point factors (symmetric: the aggregate of B/A is the inverse of that of A/B). "
    "Ceilings are formed the same way from the bound.",
    "Subject: a part is context when it says nothing of the paper's method that it does not say of every scheme "
    "alike (a baseline against a baseline, a trend of every scheme); context parts are judged and printed but do "
    "not enter the claim's word (in either direction), unless the claim has no other part.",
    "Part outcomes: `holds` (the right sign at every covered point, the magnitude within the tolerance); "
    "`direction only` (the right sign, the magnitude outside the tolerance: short of an 'at least' number, away "
    "from an 'about' number, more than a 'slightly better' one); `unreachable` (the paper's number, less its "
    "tolerance, lies beyond the ceiling); `fails` (the wrong sign at a covered point where a better schedule "
    "existed, or a stated value missed). 'Close' parts (either way within the tolerance) hold or fail; 'slightly "
    "better' parts ('a trivial improvement') need the right sign: a loss fails.",
    "Readings: the headline word is the default reading's; where another reading of the paper gives a different "
    "word, kinder or harsher alike, the Summary shows that word beside the headline with the readings that give it "
    "('depends on the reading'), and the claim's section gives every reading's word. A setup a claim revisits "
    "(for example Hare's long jobs or batch arrivals) is listed as one more reading: it changes the workload, "
    "not the paper's text, and its name says so.",
)

#: outcomes of a part (:func:`judge_part`)
OUTCOMES = ("holds", "direction only", "unreachable", "fails", "not run")

#: default tolerance, relative to the paper's effect size
DEFAULT_TOLERANCE = 0.15

PartKind = Literal["at least", "about", "always better", "slightly better", "grows", "close", "value", "at most",
                   "bound"]
Subject = Literal["method", "context"]
Unit = Literal["factor", "reduction", "delta", "pp", "value"]
Scale = Literal["full", "quick"]
Role = Literal["claim", "theory", "model check", "context"]


@dataclass(frozen=True)
class Reading:
    """One way to read an ambiguous passage of a paper.

    Attributes
    ----------
    name
        Short name, used as the variant label (``"list@<name>"``) and in tables.
    what
        What the reading does, in one sentence.
    quote
        The sentence of the paper the reading comes from (verbatim).
    where
        Section / equation / figure of the quote.
    options
        ``{method: {option: value}}`` (or ``{"generator": {param: value}}``)
        that realise the reading.
    default
        Whether this is the default reading (best supported by the paper's text).
    """

    name: str
    what: str
    quote: str
    where: str
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    default: bool = False


@dataclass(frozen=True)
class Part:
    """One part of a claim, declared from the paper's text before any number is seen.

    Attributes
    ----------
    key
        Short id (unique within the claim).
    what
        The comparison or the value, e.g. ``"HLAS vs Gavel_FIFO, average JCT"``.
    kind
        ``"at least"`` (the effect is at least the paper's), ``"about"`` (about
        the paper's), ``"always better"`` (the right sign, no number),
        ``"slightly better"`` (the right sign and an effect at most ``tolerance``),
        ``"grows"`` (each step along the axis is positive), ``"close"`` (A and B
        within ``tolerance`` of each other, either way), ``"value"`` (a stated
        value, within ``tolerance`` relative), ``"at most"`` (a value at most the
        paper's), ``"bound"`` (a theorem's ratio, at most the paper's on every
        instance).
    paper
        The paper's number in ``unit``; ``None`` for ``"always better"`` and
        ``"grows"``.
    unit
        ``"factor"`` (B / A, > 1: A better; effect ``x - 1``), ``"reduction"``
        (``1 - A / B``; effect ``x``), ``"delta"`` (a step, a relative change;
        effect ``x``), ``"pp"`` (a difference of two percentages, printed in
        percentage points; effect ``x``) or ``"value"``.
    covers
        ``"every"`` (the claim says always / every / at least, states a range or
        a trend along a figure's axis: each covered point must hold) or
        ``"aggregate"`` (one number the paper states for a whole figure or
        sweep, described in ``aggregate``; see the module's aggregation rule).
    aggregate
        How the aggregate is formed, e.g. ``"geometric mean over the points"``.
    tolerance
        Relative to the paper's effect size (``"close"``, ``"slightly better"``:
        the largest effect still called close or slight; ``"value"``: relative
        to the value).
    source
        The words of the paper the part comes from.
    strict
        Whether "the right sign" excludes no effect at all (``False`` for a part
        saying "no better", e.g. "the benefit disappears").
    subject
        ``"method"`` (the part says something of the paper's method) or
        ``"context"`` (it says nothing of the method that it does not say of
        every scheme alike: a baseline against a baseline, a trend of every
        scheme); context parts do not enter the claim's word unless the claim
        has no other part.
    """

    key: str
    what: str
    kind: PartKind
    paper: float | None = None
    unit: Unit = "factor"
    covers: Literal["every", "aggregate"] = "every"
    aggregate: str = ""
    tolerance: float = DEFAULT_TOLERANCE
    source: str = ""
    strict: bool = True
    subject: Subject = "method"

    def paper_text(self) -> str:
        """The paper's number as the report prints it."""
        if self.kind == "always better":
            return "better"
        if self.kind == "grows":
            return "grows"
        if self.kind == "close":
            return f"close (within {fmt(self.tolerance, 'reduction')})"
        if self.kind == "slightly better":
            return f"slightly better (by at most {fmt(self.tolerance, 'reduction')})"
        if self.paper is None:
            return "-"
        pre = {"at least": ">= ", "about": "~", "at most": "<= ", "bound": "<= "}.get(self.kind, "")
        return pre + fmt(self.paper, self.unit)


@dataclass
class Point:
    """A covered point (or the aggregate) of a part: our number and the ceiling there.

    ``ours`` and ``ceiling`` are in the part's unit; ``ceiling`` is the best any
    schedule could achieve at this point (``None``: no bound known); ``shown``,
    when set, is printed instead of the number (e.g. a shape ``"-+-"``).
    """

    label: str
    ours: float
    ceiling: float | None = None
    note: str = ""
    shown: str = ""


@dataclass
class PartResult:
    """A part with its covered points and the outcome of :func:`judge_part`."""

    part: Part
    points: list[Point]
    outcome: str = ""
    reason: str = ""

    def __post_init__(self) -> None:
        if not self.outcome:
            self.outcome, self.reason = judge_part(self.part, self.points)

    def ours_text(self) -> str:
        """Our number(s): the aggregate, or the range over the covered points."""
        shown = [p.shown for p in self.points if p.shown]
        if shown:
            return ", ".join(shown)
        vals = [p.ours for p in self.points if not _nan(p.ours)]
        if not vals:
            return "-"
        if len(vals) == 1:
            return fmt(vals[0], self.part.unit)
        return f"{fmt(min(vals), self.part.unit)} to {fmt(max(vals), self.part.unit)}"

    def ceiling_value(self) -> float | None:
        """The tightest ceiling over the covered points (in the part's unit), if any."""
        caps = [p.ceiling for p in self.points if p.ceiling is not None and not _nan(p.ceiling)]
        return min(caps) if caps else None


@dataclass(frozen=True)
class Setup:
    """A setup in which a claim is judged, and whether it is the paper's.

    ``published`` is declared from the paper's text (before any number); ``why``
    says in one line what is (or is not) the paper's.
    """

    name: str
    published: bool
    why: str


@dataclass
class ReadingVerdict:
    """The parts' outcomes under one reading (and setup), and the word the rule gives."""

    name: str
    parts: list[PartResult]
    published: bool = True
    why: str = ""
    default: bool = False
    contradicts: bool = False
    note: str = ""

    def counted(self) -> list[PartResult]:
        """The parts whose outcomes make the word: the method parts (every part when all are context)."""
        return counted_parts(self.parts)

    @property
    def word(self) -> str:
        return claim_word([p.outcome for p in self.counted()], published=self.published,
                          contradicts=self.contradicts)

    @property
    def setup_word(self) -> str:
        """The word these outcomes would get in a published setup ("with this setup: ...")."""
        return claim_word([p.outcome for p in self.counted()], published=True, contradicts=False)

    def text(self) -> str:
        """``word``, with "with this setup: ..." when inconclusive."""
        w = self.word
        if w == "inconclusive":
            why = "the claim contradicts itself" if self.contradicts else self.why
            return f"inconclusive ({why}); with this setup: {self.setup_word}"
        return w


@dataclass
class Row:
    """One row of a claim's table: a reading (or a setup) and our number."""

    reading: str
    ours: str
    verdict: str
    note: str = ""


@dataclass
class Judgement:
    """What the judge concludes from the records of a claim's suite.

    ``verdict`` starts with one of :data:`VERDICTS`.  Judges that apply the
    rule fill ``readings`` (default first) and use :func:`judgement`;
    ``ours`` (our numbers under the default readings), ``ceiling`` and
    ``caveat`` (the one decisive caveat, at most 100 characters) are the
    summary table's columns; ``rows`` are the per-claim tables; ``caveats``
    say what differs from the paper's setup.
    """

    verdict: str
    rows: list[Row] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    measured: str = ""
    readings: list[ReadingVerdict] = field(default_factory=list)
    ours: str = ""
    ceiling: str = ""
    caveat: str = ""


@dataclass
class Claim:
    """A claim of a paper, with everything needed to check it.

    Attributes
    ----------
    family
        The problem family (registry name).
    key
        Unique id, e.g. ``"hare-fig12"``.
    paper
        Short citation, e.g. ``"Hare (Chen et al., HPDC'22)"``.
    where
        Section, figure, table or equation of the claim.
    quote
        The claim as the paper states it (verbatim where possible).
    claimed
        The paper's number(s), short, e.g. ``"47.6%-75.3% lower weighted JCT"``.
    setup
        Our setup in words: the paper's scale, load and baselines, and where
        we differ.
    suite
        ``suite(scale)`` -> a :class:`~dmlsched.suites.Suite`; ``"full"``
        is the paper's scale, ``"quick"`` a small version that CI runs.
    judge
        ``judge(records, scale)`` -> :class:`Judgement`.
    readings
        The readings involved (each realised as a variant or a generator option).
    full_time
        Documented duration of the full run on the reference machine.
    parts
        The parts of the rule (declared from the text; see the module docstring).
    setups
        The setups judged, each declared as published or not.
    default_reason
        One line from the text: why the default reading is the default.
    role
        ``"claim"`` (an evaluation claim), ``"theory"`` (a theorem or a cited
        result checked on instances), ``"model check"`` (a check the model's own
        construction decides in part, said in ``setup``) or ``"context"``
        (measurements beside the claims; no word).
    ceiling
        ``(variant, bound metric, bounded metric)``: the records of ``variant``
        hold a proven bound (e.g. ``("lower-bound", "objective", "objective")``),
        or every record holds one when ``variant`` is ``"*"`` (e.g.
        ``("*", "details.avg_jct_bound", "details.avg_jct")``); a metric
        ``"details.NAME"`` reads ``details[NAME]``.  ``None``: no bound.  The
        tests check that no run on the claim's instances beats it
        (:func:`ceiling_violations`).
    extra_suites
        ``extra_suites(scale)`` -> further suites whose records the judge reads
        with the main suite's (e.g. the same method with other options on some
        of the instances); ``None``: none.  :meth:`suites` lists them all.
    """

    family: str
    key: str
    paper: str
    where: str
    quote: str
    claimed: str
    setup: str
    suite: Callable[[Scale], Any]
    judge: Callable[[list[dict], Scale], Judgement]
    readings: tuple[Reading, ...] = ()
    full_time: str = ""
    parts: tuple[Part, ...] = ()
    setups: tuple[Setup, ...] = ()
    default_reason: str = ""
    role: Role = "claim"
    ceiling: tuple[str, str, str] | None = None
    extra_suites: Callable[[Scale], list[Any]] | None = None

    def suites(self, scale: Scale) -> list[Any]:
        """The claim's suites at ``scale``: :attr:`suite` and any :attr:`extra_suites`."""
        return [self.suite(scale), *(self.extra_suites(scale) if self.extra_suites else [])]


def all_claims(families: list[str] | None = None) -> list[Claim]:
    """The claims (``Family.claims``) of ``families`` (registry or package names),
    by default of every registered family: the bundled ones in
    :data:`dmlsched.problems.FAMILIES` order, then any other by name.  A family
    that declares no claims has none."""
    if families:
        fams = [family(f) for f in families]
    else:
        fams = bundled_families()
        fams += [f for f in registered_families() if f not in fams]
    out: list[Claim] = []
    for fam in fams:
        if fam.claims is not None:
            out.extend(fam.claims.get())
    keys = [c.key for c in out]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate claim keys: {sorted(dup)}")
    return out


# ---------------------------------------------------------------------------
# the rule
def _nan(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def effect(x: float, unit: str) -> float:
    """The effect size of ``x`` in ``unit``: ``x - 1`` for a factor, ``x`` otherwise
    (> 0: the claimed direction)."""
    return x - 1.0 if unit == "factor" else x


def judge_part(part: Part, points: Sequence[Point]) -> tuple[str, str]:
    """The outcome of a part on its covered points, and the reason (see the module docstring).

    Returns ``(outcome, reason)`` with ``outcome`` in :data:`OUTCOMES`.
    """
    pts = [p for p in points if not _nan(p.ours)]
    if not pts:
        return "not run", "no covered point was run"
    u, tol = part.unit, part.tolerance
    if part.kind == "value":
        off = [p for p in pts if abs(p.ours - part.paper) > tol * abs(part.paper) * (1 + 1e-9)]
        if not off:
            return "holds", f"within {fmt(tol, 'reduction')} of {fmt(part.paper, u)} at every covered point"
        return "fails", (f"{_labels(off)}: {fmt(off[0].ours, u)}, "
                         f"not within {fmt(tol, 'reduction')} of {fmt(part.paper, u)}")
    if part.kind in ("at most", "bound"):
        over = [p for p in pts if p.ours > part.paper * (1 + tol) + 1e-12 * abs(part.paper)]
        if not over:
            return "holds", f"at most {fmt(part.paper, u)} at every covered point"
        return "fails", f"{_labels(over)}: {fmt(max(p.ours for p in over), u)} > {fmt(part.paper, u)}"
    eff = {id(p): effect(p.ours, u) for p in pts}
    cap = {id(p): (None if _nan(p.ceiling) else effect(p.ceiling, u)) for p in pts}
    if part.kind == "close":  # symmetric: |effect| <= tolerance at every covered point
        empty = [p for p in pts if cap[id(p)] is not None and cap[id(p)] <= 1e-9]
        if empty and len(empty) == len(pts):
            return "unreachable", "no schedule can differ from the baseline here: the comparison is empty"
        far = [p for p in pts if abs(eff[id(p)]) > tol * (1 + 1e-9)]
        if far:
            return "fails", f"not close at {_labels(far)} ({fmt(far[0].ours, u)})"
        return "holds", f"within {fmt(tol, 'reduction')} at every covered point"
    # the sign: strictly the claimed direction unless the part says "no better" (strict=False)
    wrong = [p for p in pts if (eff[id(p)] <= 0 if part.strict else eff[id(p)] < 0)]
    if wrong:
        blocked = [p for p in wrong if cap[id(p)] is not None and cap[id(p)] <= 0]
        if len(blocked) == len(wrong):
            return "unreachable", f"no schedule beats the baseline: {_ceilings(blocked, u)}"
        lost = [p for p in wrong if p not in blocked]
        return "fails", f"wrong sign at {_labels(lost)} ({fmt(lost[0].ours, u)})"
    if part.kind == "slightly better":
        big = [p for p in pts if eff[id(p)] > tol * (1 + 1e-9)]
        if big:
            return "direction only", f"the right sign, more than slightly at {_labels(big)} ({fmt(big[0].ours, u)})"
        return "holds", f"the right sign and at most {fmt(tol, 'reduction')} at every covered point"
    if part.paper is None:  # "always better", "grows"
        return "holds", "the right sign at every covered point"
    big = effect(part.paper, u)
    eps = 1e-9 * abs(big)  # the band's ends in floating point (1.085 - 1 < 0.085)
    lo, hi = big * (1 - tol) - eps, big * (1 + tol) + eps
    beyond = [p for p in pts if cap[id(p)] is not None and cap[id(p)] < lo]
    if beyond:
        return "unreachable", (f"the ceiling is below the paper's {fmt(part.paper, u)} (less its tolerance) at "
                               f"{_ceilings(beyond, u)}")
    short = [p for p in pts if eff[id(p)] < lo]
    over = [p for p in pts if part.kind == "about" and eff[id(p)] > hi]
    if not short and not over:
        return "holds", (f"the right sign and within {fmt(tol, 'reduction')} "
                         "of the paper's effect at every covered point")
    if short:
        return "direction only", f"the right sign, short of the paper at {_labels(short)} ({fmt(short[0].ours, u)})"
    return "direction only", f"the right sign, above the paper's 'about' at {_labels(over)} ({fmt(over[0].ours, u)})"


def counted_parts(parts: Sequence[PartResult]) -> list[PartResult]:
    """The parts a claim's word is made of: those about the paper's method (``subject ==
    "method"``); every part when none is (a claim about the setup's behaviour alone)."""
    method = [p for p in parts if p.part.subject == "method"]
    return method or list(parts)


def claim_word(outcomes: Iterable[str], *, published: bool = True, contradicts: bool = False) -> str:
    """The claim's word from its parts' outcomes, in the rule's fixed order."""
    oc = list(outcomes)
    if not oc or all(o == "not run" for o in oc) or any(o not in OUTCOMES for o in oc):
        return "not run"
    if any(o == "not run" for o in oc):
        return "not run"
    if not published or contradicts:
        return "inconclusive"
    if all(o == "holds" for o in oc):
        return "reproduced"
    if any(o == "unreachable" for o in oc) and not any(o == "fails" for o in oc):
        return "unreachable in this setup"
    if any(o == "holds" for o in oc):
        return "partially reproduced"
    if all(o == "direction only" for o in oc):
        return "direction only"
    return "not reproduced"


def judgement(readings: list[ReadingVerdict], *, ours: str = "", ceiling: str = "", caveat: str = "",
              rows: list[Row] | None = None, caveats: list[str] | None = None, measured: str = "") -> Judgement:
    """A :class:`Judgement` whose verdict is the default reading's word (the first reading
    marked ``default``, else the first), followed by the other readings' words."""
    if not readings:
        return Judgement("not run", rows or [], caveats or ["no reading could be judged"], measured)
    d = next((r for r in readings if r.default), readings[0])
    others = [r for r in readings if r is not d]
    verdict = d.text()
    if others:
        verdict += "; other readings: " + "; ".join(f"{r.name}: {r.word}" for r in others)
    if len(caveat) > 100:
        caveat = caveat[:97] + "..."
    return Judgement(verdict, rows or [], caveats or [], measured, readings, ours, ceiling, caveat)


def _compared_word(r: ReadingVerdict, inconclusive: bool) -> str:
    """A reading's word as the summary compares it: what its setup shows when the headline is
    ``inconclusive`` and so is this reading (the same setup caveat), else its word."""
    return r.setup_word if inconclusive and r.word == "inconclusive" else r.word


def summary_word(readings: Sequence[ReadingVerdict], names: int = 3) -> tuple[str, str]:
    """The summary's verdict: ``(word, note)``, the default reading's word and the note after it.

    The note gives what the setup shows when the word is ``inconclusive`` and, where other
    readings give a different word, every such word with the readings that give it (at most
    ``names`` names each), whatever its direction: ``("inconclusive", "with this setup:
    reproduced; depends on the reading: not reproduced under `compute`")``.  One rule for every
    claim; ``("not run", "")`` without readings.
    """
    if not readings:
        return "not run", ""
    d = next((r for r in readings if r.default), readings[0])
    inconclusive = d.word == "inconclusive"
    notes = [f"with this setup: {d.setup_word}"] if inconclusive else []
    own = _compared_word(d, inconclusive)
    differ: dict[str, list[str]] = {}
    for r in readings:
        w = _compared_word(r, inconclusive)
        if r is not d and w != own:
            differ.setdefault(w, []).append(f"`{r.name}`")
    if differ:
        groups = [f"{w} under {', '.join(ns[:names])}" + (f" (+{len(ns) - names} more)" if len(ns) > names else "")
                  for w, ns in sorted(differ.items(), key=lambda kv: VERDICTS.index(kv[0]))]
        notes.append("depends on the reading: " + "; ".join(groups))
    return d.word, "; ".join(notes)


# ---------------------------------------------------------------------------
# formatting and aggregates shared by the judges
def fmt(x: float | None, unit: str) -> str:
    """A number in a part's unit: ``1.23x``, ``+12.3%``, ``12.3%``, ``+12.3 pp`` or ``1.23``.

    ``"pp"`` is a difference of two percentages (e.g. a gap of 16.1% against one of
    21.9%): it is printed in percentage points, never with ``%``, which would read as a
    relative change."""
    if _nan(x):
        return "-"
    if unit == "pp":
        return f"{100 * x:+.{_side_digits(100 * x, 0.0, 1)}f} pp"
    if unit == "factor":  # a factor that rounds to 1.00x but is not 1 shows its side of 1
        return f"{x:.{_side_digits(x, 1.0, 2)}f}x"
    if unit in ("reduction", "delta"):  # likewise a change that rounds to 0.0%
        d = _side_digits(100 * x, 0.0, 1)
        return f"{100 * x:+.{d}f}%" if unit == "delta" else f"{100 * x:.{d}f}%"
    return f"{x:.3g}"


def _side_digits(x: float, ref: float, digits: int) -> int:
    """The decimals that show on which side of ``ref`` a number ``x != ref`` lies (at most 6)."""
    while x != ref and round(x, digits) == ref and digits < 6:
        digits += 1
    return digits


def _labels(pts: Sequence[Point], n: int = 3) -> str:
    names = [p.label for p in pts]
    return ", ".join(names[:n]) + (f" (+{len(names) - n} more)" if len(names) > n else "")


def _ceilings(pts: Sequence[Point], unit: str, n: int = 6) -> str:
    """Each point with its own ceiling (``"300 jobs vs SRTF (ceiling 14.7%), ..."``): one ceiling
    never stands for several points (each baseline has its own)."""
    out = [f"{p.label} (ceiling {fmt(p.ceiling, unit)})" for p in pts[:n]]
    return ", ".join(out) + (f" (+{len(pts) - n} more)" if len(pts) > n else "")


def gmean(xs: Iterable[float]) -> float:
    """Geometric mean of positive numbers (``nan`` of none)."""
    v = [x for x in xs if x is not None and x > 0 and not math.isnan(x)]
    return math.exp(statistics.fmean(math.log(x) for x in v)) if v else float("nan")


# --- the aggregation rule (module docstring): means at a point, geometric means over a sweep
def _finite(xs: Iterable[float | None]) -> list[float]:
    return [float(x) for x in xs if x is not None and not math.isnan(float(x))]


def point_mean(values: Iterable[float | None]) -> float:
    """A scheme's value at one point: the mean of its metric over the point's instances."""
    v = _finite(values)
    return statistics.fmean(v) if v else float("nan")


def point_factor(pairs: Iterable[tuple[float | None, float | None]]) -> float:
    """A's factor over B at one point from ``(W(A), W(B))`` per instance: ``mean W(B) / mean W(A)``
    over the instances where both are known (> 1: A better for a metric to minimise)."""
    ps = [(float(a), float(b)) for a, b in pairs if a is not None and b is not None
          and not math.isnan(float(a)) and not math.isnan(float(b))]
    if not ps:
        return float("nan")
    ma, mb = statistics.fmean(a for a, _ in ps), statistics.fmean(b for _, b in ps)
    return mb / ma if ma > 0 else float("nan")


def point_reduction(pairs: Iterable[tuple[float | None, float | None]]) -> float:
    """A's reduction against B at one point from ``(W(A), W(B))`` per instance:
    ``1 - mean W(A) / mean W(B)``."""
    f = point_factor(pairs)
    return 1.0 - 1.0 / f if f and not math.isnan(f) else float("nan")


def sweep_factor(factors: Iterable[float | None]) -> float:
    """One number for a sweep: the geometric mean of the per-point factors."""
    return gmean(_finite(factors))


def sweep_reduction(reductions: Iterable[float | None]) -> float:
    """One reduction for a sweep: ``1 -`` the geometric mean of the per-point ratios ``1 - r``."""
    g = gmean(1.0 - r for r in _finite(reductions) if r < 1.0)
    return 1.0 - g if not math.isnan(g) else float("nan")


def step_change(before: float, after: float, *, down: bool = False) -> float:
    """A step along an axis as a relative change of the point values: ``after / before - 1``
    (a rise is positive), or with ``down`` the fall ``1 - after / before`` (a fall is positive).
    The same change reads with the same magnitude either way."""
    if not before or math.isnan(before) or math.isnan(after):
        return float("nan")
    return (1.0 - after / before) if down else (after / before - 1.0)


# ---------------------------------------------------------------------------
# record accessors shared by the families' judges
def record_ok(r: dict) -> bool:
    """A record with a value: a schedule's objective (status ``optimal`` or ``feasible``)
    or a bound method's proven bound (status ``bound``)."""
    return r.get("status") in ("optimal", "feasible", "bound") and r.get("objective") is not None


def bound_ok(r: dict) -> bool:
    """A record of a bound method with a proven bound: status ``optimal`` or ``bound`` (the
    status bound methods report once exact optimality is reserved for schedules)."""
    return r.get("status") in ("optimal", "bound") and r.get("objective") is not None


def record_variant(r: dict) -> str:
    """A record's variant (``NAME@LABEL``), else its method, else ``""``."""
    return r.get("variant") or r.get("method") or ""


def records_by_instance(records: list[dict]) -> dict[str, dict[str, dict]]:
    """Records grouped by instance hash, then by :func:`record_variant` (the last one wins)."""
    out: dict[str, dict[str, dict]] = {}
    for r in records:
        if r.get("instance_hash"):
            out.setdefault(r["instance_hash"], {})[record_variant(r)] = r
    return out


def record_metric(r: dict, metric: str) -> float | None:
    """``objective`` or ``details.NAME`` of a record (``None`` when absent)."""
    if metric == "objective":
        v = r.get("objective")
    elif metric.startswith("details."):
        v = (r.get("details") or {}).get(metric.split(".", 1)[1])
    else:
        v = r.get(metric)
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def ceiling_violations(claim: Claim, records: list[dict], sense: str = "min") -> list[str]:
    """Runs on the claim's instances that beat its ceiling (a proven bound): ``[]`` when the
    bound is valid on these records.  ``sense`` is the bounded metric's (``"min"``: the bound
    is a lower bound)."""
    if claim.ceiling is None:
        return []
    variant, bmetric, metric = claim.ceiling
    out = []
    for inst, runs in records_by_instance(records).items():
        if variant == "*":
            pairs = [(record_metric(r, bmetric), r) for r in runs.values() if record_ok(r)]
        else:
            b = runs.get(variant)
            if b is None or not bound_ok(b):  # a bound method's bound, or a proven optimum
                continue
            pairs = [(record_metric(b, bmetric), r) for v, r in runs.items() if v != variant and record_ok(r)]
        for bound, r in pairs:
            x = record_metric(r, metric)
            if bound is None or x is None:
                continue
            tol = 1e-6 * max(1.0, abs(bound))
            if (x < bound - tol) if sense == "min" else (x > bound + tol):
                out.append(f"{record_variant(r)} on {inst[:12]}: {metric} {x:.6g} beats the bound {bound:.6g}")
    return out


def signed_pct(x: float) -> str:
    """A fraction as a signed percentage with one decimal: ``0.123 -> "+12.3%"``."""
    return f"{100 * x:+.1f}%"


def mean_or_nan(xs: list[float]) -> float:
    """The arithmetic mean, ``nan`` of no values."""
    return statistics.fmean(xs) if xs else float("nan")
