"""HLAS-L (HLAS paper, Section VI-D): HLAS-P's scheduling fed with job sizes
predicted by fitting each job's loss curve, as the paper describes its third
comparison method: "for HLAS-L, we add predicted job size by the loss
fitting technique [19]" ([19]: Optimus, Peng et al., EuroSys'18).

The loss-fitting technique (Optimus, Section 3.1): the training loss after
``k`` steps follows ``l(k) = 1 / (b0 k + b1) + b2``; the coefficients are
fitted to the losses observed so far and the curve is extrapolated to the
step at which the job converges.  The paper names the weakness it expects:
"at the first few rounds, the fitting model has not been well-tuned, and it
will give wrong prediction errors".

Our model of what the fit sees (``models/hlas.md``, "HLAS-L"): job ``n``'s
hidden curve is ``l(k) = 1 / (b0 k + 1) + b2`` with ``b2`` drawn from
U(0.05, 0.5) and ``b0 = (1 / EPSILON - 1) / R_n``, so that the job converges
(the excess loss ``l(k) - b2`` falls to ``EPSILON`` of its start) exactly at
its ``R_n`` rounds; each observed loss carries Gaussian noise of ``NOISE``
times the initial excess loss.  After ``r >= MIN_POINTS`` rounds the fit
(least squares over a grid of ``b2`` below the smallest observed loss, linear
in ``1 / (l - b2) = b0 k + b1`` for each, refined by golden section) predicts ``R^ = b1 (1/EPSILON - 1) /
b0`` rounds in all; it is refitted at rounds ``MIN_POINTS, ...`` growing by
half each time.  ``EPSILON`` (the convergence threshold) is known to the
predictor; the curve and the noise are seeded per job.  The noise level and
the range of ``b2`` are ours: the paper gives neither.
"""

from __future__ import annotations

import math

import numpy as np

from .instance import HlasInstance
from .policies import HLASP, queue_of

#: the convergence threshold: a job stops when its excess loss is this fraction of its start
EPSILON = 0.05
#: standard deviation of an observed loss, relative to the initial excess loss
NOISE = 0.02
#: rounds observed before the first fit (three coefficients)
MIN_POINTS = 3
#: predictions are capped at this many rounds (a flat fit predicts "never")
MAX_PREDICTION = 10**6
#: grid of b2 candidates per fit
GRID = 24


class LossFit:
    """The loss curves of an instance's jobs and the fit's predictions.

    Only :meth:`predicted_total` is for the policy: it returns what the fit
    predicts from the losses of the rounds already run.
    """

    def __init__(self, inst: HlasInstance, seed: int = 0, *, noise: float = NOISE, epsilon: float = EPSILON):
        self.noise, self.epsilon = float(noise), float(epsilon)
        self._rounds = [j.rounds for j in inst.jobs]
        self._seed = int(seed)
        self._obs: dict[int, np.ndarray] = {}
        self._last: dict[int, tuple[int, int]] = {}  # job -> (rounds at the last fit, prediction)

    def _observations(self, n: int) -> np.ndarray:
        """Observed losses of job ``n`` after rounds ``1..R_n`` (drawn once, seeded)."""
        if n not in self._obs:
            rng = np.random.default_rng([self._seed, n, 7717])
            r_n = self._rounds[n]
            b2 = float(rng.uniform(0.05, 0.5))
            b0 = (1.0 / self.epsilon - 1.0) / r_n
            k = np.arange(1, r_n + 1, dtype=float)
            self._obs[n] = 1.0 / (b0 * k + 1.0) + b2 + self.noise * rng.standard_normal(r_n)
        return self._obs[n]

    def predicted_total(self, n: int, rounds_run: int) -> int:
        """Rounds in all that the fit predicts for job ``n`` after ``rounds_run`` rounds
        (0: no prediction yet)."""
        if rounds_run < MIN_POINTS:
            return 0
        last = self._last.get(n)
        if last is not None and rounds_run < max(last[0] + 1, int(math.ceil(1.5 * last[0]))):
            return last[1]
        pred = fit_prediction(self._observations(n)[:rounds_run], self.epsilon)
        self._last[n] = (rounds_run, pred)
        return pred


def fit_prediction(losses: np.ndarray, epsilon: float = EPSILON) -> int:
    """Rounds to convergence predicted from ``losses`` (after rounds ``1..r``) by fitting
    ``l(k) = 1 / (b0 k + b1) + b2`` (least squares in ``l`` over a grid of ``b2``)."""
    y = np.asarray(losses, dtype=float)
    k = np.arange(1, len(y) + 1, dtype=float)
    lo, hi = float(y.min()), float(y.max())
    span = max(hi - lo, 1e-9)
    km = k.mean()
    kk = ((k - km) ** 2).sum()

    def fit(b2: float) -> tuple[float, float, float]:
        z = 1.0 / (y - b2)
        b0 = max(float(((k - km) * (z - z.mean())).sum() / kk) if kk > 0 else 0.0, 1e-12)
        b1 = max(float(z.mean() - b0 * km), 1e-12)
        return float(((1.0 / (b0 * k + b1) + b2 - y) ** 2).sum()), b0, b1

    offs = span * np.geomspace(1e-3, 4.0, GRID)  # b2 = lo - offset
    sses = [fit(lo - o)[0] for o in offs]
    i = int(np.argmin(sses))
    a, c = offs[max(i - 1, 0)], offs[min(i + 1, GRID - 1)]
    g = (math.sqrt(5.0) - 1.0) / 2.0  # golden-section refinement between the neighbours
    for _ in range(40):
        m1, m2 = c - g * (c - a), a + g * (c - a)
        if fit(lo - m1)[0] <= fit(lo - m2)[0]:
            c = m2
        else:
            a = m1
    _, b0, b1 = min(fit(lo - offs[i]), fit(lo - (a + c) / 2.0))
    pred = b1 * (1.0 / epsilon - 1.0) / b0
    return int(min(MAX_PREDICTION, max(1.0, math.ceil(pred))))


class HLASL(HLASP):
    """HLAS-P's queues and sub-queues with ``R^p`` from the loss fit (:class:`LossFit`)
    instead of the instance's conservative ``predicted_rounds``."""

    name = "hlas-l"

    def __init__(self, fit: LossFit):
        self.fit = fit

    def key(self, n, rounds_run, service):
        rp = self.fit.predicted_total(n, rounds_run) - rounds_run
        if rp < 0:
            rp = 0
        k = queue_of(self.v.lows, (rounds_run + rp) * self.v.tbar[n])
        sub = 0 if rp > 0 else 1
        if self.place[n] != (k, sub):
            self.place[n] = (k, sub)
            self.qseq[n] = self.seq
            self.seq += 1
        return (k, 1, sub, -rp, self.qseq[n], n)


__all__ = ["EPSILON", "HLASL", "LossFit", "NOISE", "fit_prediction"]
