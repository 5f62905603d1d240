"""The papers' claims as data: what each paper claims, under which readings,
on which setup, and how our runs are judged against it.

Each family declares its claims in ``problems/<family>/claims.py`` as a list
``CLAIMS`` of :class:`Claim`; ``dmlsched reproduce`` collects them
(:func:`all_claims`), runs their suites on the benchmark engine and writes
``benchmarks/REPRODUCTION.md`` with one table per paper.

Principle (issue "faithful reproduction"): where a paper can be read more than
one way, each reading is a named option of a method or generator, listed in
:attr:`Claim.readings` with the sentence it comes from; the default is the
reading best supported by the paper's text, proofs and measured numbers.  A
claim is ``not reproduced`` only when it fails under every defensible reading
at the paper's own scale, load and baselines; otherwise the verdict names the
reading ("reproduced under reading X; fails under Y").

A suite method entry ``"NAME@LABEL"`` runs method ``NAME`` with the options
``suite.options["NAME@LABEL"]`` (over ``suite.options["NAME"]``); its records
carry ``method = NAME`` and ``variant = "NAME@LABEL"``, so one suite runs the
same method under several readings.
"""

from __future__ import annotations

import importlib
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

#: verdict words of a claim (the judge adds the reading, e.g. "reproduced under reading X").
#: ``inconclusive``: the runs do not decide the claim, e.g. the paper's algorithm could not be
#: run faithfully at its scale (a relaxation it solves was only approximated); the judge says
#: what was run instead and what that shows.  ``not reproduced`` needs a failure under every
#: defensible reading at the paper's scale, load and baselines.
VERDICTS = ("reproduced", "partially reproduced", "not reproduced", "inconclusive", "not run")

Scale = Literal["full", "quick"]


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
        Whether this is the default reading (best supported by the paper).
    """

    name: str
    what: str
    quote: str
    where: str
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    default: bool = False


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

    ``verdict`` starts with one of :data:`VERDICTS` and names the reading
    where it matters; ``rows`` give our number per reading next to the
    paper's; ``caveats`` say what differs from the paper's setup.
    """

    verdict: str
    rows: list[Row] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    measured: str = ""


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
        The paper's number(s), e.g. ``"47.6%-75.3% lower weighted JCT"``.
    setup
        Our setup in words: the paper's scale, load and baselines, and where
        we differ.
    suite
        ``suite(scale)`` -> a :class:`~dmlsched.bench.suite.Suite`; ``"full"``
        is the paper's scale, ``"quick"`` a small version that CI runs.
    judge
        ``judge(records, scale)`` -> :class:`Judgement`.
    readings
        The readings involved (each realised as a variant or a generator option).
    full_time
        Documented duration of the full run on the reference machine.
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


def all_claims(families: list[str] | None = None) -> list[Claim]:
    """Every family's ``CLAIMS`` (families without a ``claims`` module have none)."""
    from .problems import FAMILIES, family_package

    out: list[Claim] = []
    for fam in families or FAMILIES:
        try:
            mod = importlib.import_module(f"{family_package(fam)}.claims")
        except ModuleNotFoundError as e:
            if e.name and e.name.endswith(".claims"):
                continue
            raise
        out.extend(getattr(mod, "CLAIMS", []))
    keys = [c.key for c in out]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate claim keys: {sorted(dup)}")
    return out


# ---------------------------------------------------------------------------
# record accessors shared by the families' judges
def record_ok(r: dict) -> bool:
    """A record with a value: a schedule's objective (status ``optimal`` or ``feasible``)
    or a bound method's proven bound (status ``bound``)."""
    return r.get("status") in ("optimal", "feasible", "bound") and r.get("objective") is not None


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


def signed_pct(x: float) -> str:
    """A fraction as a signed percentage with one decimal: ``0.123 -> "+12.3%"``."""
    return f"{100 * x:+.1f}%"


def mean_or_nan(xs: list[float]) -> float:
    """The arithmetic mean, ``nan`` of no values."""
    return statistics.fmean(xs) if xs else float("nan")
