"""Priority rules of the online policies: ``hlas``, ``hlas-p``, ``fifo``, ``2d-las``, ``srtf``.

A rule turns what a policy may observe about a job into a sort key; the
simulator (:mod:`.simulator`) always serves the job with the smallest key.
Keys are tuples ``(queue, fresh, ..., n)``: ``queue`` is the MLFQ queue index
(0 = ``Q_1``, the highest priority; 0 for rules without queues), ``fresh`` is 1
and becomes 0 while the job's current round is partially assigned (Algorithm 3,
line 5: a partially scheduled job goes first within its queue), and ``n``
(the job index) makes keys unique, so ties end deterministically.

Information: :class:`View` holds what a non-clairvoyant policy may see
(arrival, tasks per round, ``T̄_n``, prediction, thresholds); the number of
rounds already run and the attained task-GPU time are passed to ``key``.
Only :class:`SRTF` (``clairvoyant = True``) receives the jobs' true ``rounds``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_right
from dataclasses import dataclass
from typing import Sequence

#: relative tolerance when placing a job size on a queue threshold: a size within
#: 1e-9 (relative) of E_k^H counts as having reached it (R * T̄ is a float product)
THRESHOLD_RTOL = 1e-9


@dataclass
class View:
    """What every policy may see about jobs, indexed by job."""

    arrival: Sequence[float]
    tasks_per_round: Sequence[int]
    tbar: Sequence[float]  # T̄_n: average one-round time on a GPU group
    predicted: Sequence[int]  # predicted rounds (0 = no prediction)
    lows: Sequence[float]  # E_k^L of every queue, increasing, lows[0] = 0


def queue_of(lows: Sequence[float], size: float) -> int:
    """Index ``k`` (0-based) of the queue with ``E_k^L <= size < E_k^H``."""
    return bisect_right(lows, size * (1.0 + THRESHOLD_RTOL)) - 1


class Rule(ABC):
    """Base class: ``setup`` once, then ``key(n, rounds_run, service)`` at every (re)entry."""

    name = ""
    clairvoyant = False

    def setup(self, view: View, rounds: Sequence[int] | None = None) -> None:
        self.v = view

    @abstractmethod
    def key(self, n: int, rounds_run: int, service: float) -> tuple:
        """Priority key of job ``n`` (smaller runs first)."""


class HLAS(Rule):
    """Algorithms 1-3: MLFQ on ``H_n(t) = R_n^r(t) T̄_n``, FIFO within a queue.

    New jobs enter ``Q_1``; after each round the job goes to the queue of its
    new size (demotion only: ``H`` never decreases).  FIFO order is the order
    of entering the queue: a job that stays in ``Q_k`` keeps its place.
    """

    name = "hlas"

    def setup(self, view, rounds=None):
        super().setup(view)
        n = len(view.arrival)
        self.qk = [-1] * n
        self.qseq = [0] * n
        self.seq = 0

    def key(self, n, rounds_run, service):
        k = queue_of(self.v.lows, rounds_run * self.v.tbar[n])
        if k != self.qk[n]:
            self.qk[n] = k
            self.qseq[n] = self.seq
            self.seq += 1
        return (k, 1, self.qseq[n], n)


class HLASP(Rule):
    """Section V-B: expected size ``(R^r + R^p) T̄_n`` picks ``Q_k``; inside, ``q_k^1``
    (``R^p > 0``, larger ``R^p`` first) before ``q_k^2`` (``R^p = 0``, FIFO).

    ``R^p(t) = max(0, predicted_rounds - R^r(t))``: the prediction says the
    job runs *at least* ``predicted_rounds`` rounds, so while ``R^r`` grows
    ``R^p`` shrinks and ``R^r + R^p`` stays put (the paper: "keep the same
    ``R_n(t)``"); once ``R^p = 0`` the job is in ``q^2`` and its size grows as in HLAS.
    """

    name = "hlas-p"

    def setup(self, view, rounds=None):
        super().setup(view)
        n = len(view.arrival)
        self.place = [None] * n
        self.qseq = [0] * n
        self.seq = 0

    def key(self, n, rounds_run, service):
        rp = self.v.predicted[n] - rounds_run
        if rp < 0:
            rp = 0
        k = queue_of(self.v.lows, (rounds_run + rp) * self.v.tbar[n])
        sub = 0 if rp > 0 else 1
        if self.place[n] != (k, sub):
            self.place[n] = (k, sub)
            self.qseq[n] = self.seq
            self.seq += 1
        return (k, 1, sub, -rp, self.qseq[n], n)


class FIFO(Rule):
    """First in, first out by arrival (ties: job index): Gavel_FIFO's order, the
    job taking the fastest idle GPUs (the simulator's group choice)."""

    name = "fifo"

    def key(self, n, rounds_run, service):
        return (0, 1, self.v.arrival[n], n)


class TwoDLAS(Rule):
    """Tiresias' 2D-LAS extended to relaxed synchronisation as the paper describes
    (Section IV-B): least attained task-GPU time ``sum of T^c`` over the job's
    executed tasks first (ties: arrival, index)."""

    name = "2d-las"

    def key(self, n, rounds_run, service):
        return (0, 1, service, self.v.arrival[n], n)


class SRTF(Rule):
    """Clairvoyant shortest remaining time first: remaining rounds x T̄_n
    (ties: arrival, index).  The offline reference; sees the true rounds."""

    name = "srtf"
    clairvoyant = True

    def setup(self, view, rounds=None):
        super().setup(view)
        if rounds is None:
            raise ValueError("srtf is clairvoyant: it needs the jobs' rounds")
        self.rounds = list(rounds)

    def key(self, n, rounds_run, service):
        return (0, 1, (self.rounds[n] - rounds_run) * self.v.tbar[n], self.v.arrival[n], n)


RULES: dict[str, type[Rule]] = {r.name: r for r in (HLAS, HLASP, FIFO, TwoDLAS, SRTF)}

__all__ = ["FIFO", "HLAS", "HLASP", "RULES", "Rule", "SRTF", "TwoDLAS", "View", "queue_of"]
