"""Random small HLAS instances: the family's one random builder.

:func:`random_instance` draws a small online instance on coarse grids, in JSON
form, through the :class:`~dmlsched.draws.Draws` protocol: the family's
hypothesis strategies (``strategies.py``) call it through
:class:`~dmlsched.fuzz.HypothesisDraws`, tests and scripts with
:class:`~dmlsched.draws.RngDraws`; it is the family's ``Family.sample``.  HLAS has
no hunt space (``Family.hunt`` is ``None``), so its size defaults are no hunt's caps.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...draws import Draws

__all__ = ["TYPES", "random_instance"]

#: the GPU types the builder draws from by default
TYPES = ("V100", "T4", "K80")


def _job(draws: Draws, i: int, used: Sequence[str], *, rounds: int, tasks_per_round: int, max_arrival: float,
         max_train: float, max_sync: float, predictions: bool) -> dict:
    """Job ``J{i}``: ``1..rounds`` rounds of ``1..tasks_per_round`` tasks, times on the grid 1/2
    per GPU type of ``used``, a weight in 1..3, and (with ``predictions``, on a coin) a
    predicted number of rounds in ``0..rounds+1``."""
    n_rounds = draws.integer(1, int(rounds))
    job: dict[str, Any] = {
        "id": f"J{i}", "arrival": draws.grid(0.0, max_arrival, 0.5), "rounds": n_rounds,
        "tasks_per_round": draws.integer(1, int(tasks_per_round)),
        "train_time": {g: draws.grid(0.5, max_train, 0.5) for g in used},
        "sync_time": {g: draws.grid(0.0, max_sync, 0.5) for g in used},
        "weight": float(draws.integer(1, 3)),
    }
    if predictions and draws.coin(0.5):
        job["predicted_rounds"] = draws.integer(0, int(rounds) + 1)
    return job


def _queues(draws: Draws, max_queues: int, max_threshold: float) -> list[list[float | None]]:
    """``1..max_queues`` queues (fewer when thresholds coincide): thresholds on the grid 1/2 in
    ``(0, max_threshold]``, the last queue unbounded (``None``)."""
    cuts = sorted({draws.grid(0.5, max_threshold, 0.5) for _ in range(draws.integer(1, int(max_queues)) - 1)})
    lows = [0.0, *cuts]
    return [[lo, lows[i + 1] if i + 1 < len(lows) else None] for i, lo in enumerate(lows)]


def _grouping(draws: Draws, d: dict, m: int) -> None:
    """On a choice: no grouping, a number of groups in ``1..m``, or an explicit partition of the
    ``m`` GPUs (each GPU labelled ``0..m-1``, groups in the order their labels first appear)."""
    mode = draws.choice(("none", "count", "explicit"))
    if mode == "count":
        d["groups"] = draws.integer(1, m)
    elif mode == "explicit":
        labels = [draws.integer(0, m - 1) for _ in range(m)]
        d["grouping"] = [[g for g in range(m) if labels[g] == lab] for lab in dict.fromkeys(labels)]


def random_instance(draws: Draws, *, jobs: int = 4, gpus: int = 4, rounds: int = 4, tasks_per_round: int = 4,
                    types: Sequence[str] = TYPES, max_arrival: float = 4.0, max_train: float = 4.0,
                    max_sync: float = 1.0, predictions: bool = True, queues: int = 4,
                    max_threshold: float = 10.0, grouping: bool = True) -> dict:
    """A random small HLAS instance (JSON form, valid for ``hlas.instance.from_dict``).

    Parameters
    ----------
    draws
        Where the numbers come from.
    jobs, gpus
        ``1..jobs`` jobs on ``1..gpus`` GPUs, each GPU's type one of ``types``.
    rounds, tasks_per_round
        Each job has ``1..rounds`` rounds of ``1..tasks_per_round`` tasks.
    max_arrival, max_train, max_sync
        Arrivals in ``[0, max_arrival]``, train times per type in ``[1/2, max_train]`` and
        sync times in ``[0, max_sync]``, all on the grid 1/2.
    predictions
        A coin per job decides whether it has ``predicted_rounds`` in ``0..rounds+1``.
    queues, max_threshold
        ``1..queues`` priority queues with thresholds on the grid 1/2 up to ``max_threshold``.
    grouping
        A choice adds no grouping, ``groups`` or an explicit ``grouping``; ``False``: none (no draw).
    """
    m = draws.integer(1, int(gpus))
    kinds = [draws.choice(tuple(types)) for _ in range(m)]
    used = tuple(dict.fromkeys(kinds))
    out = [_job(draws, i, used, rounds=rounds, tasks_per_round=tasks_per_round, max_arrival=max_arrival,
                max_train=max_train, max_sync=max_sync, predictions=predictions)
           for i in range(draws.integer(1, int(jobs)))]
    d: dict[str, Any] = {"problem": "hlas", "gpus": kinds, "queues": _queues(draws, queues, max_threshold)}
    if grouping:
        _grouping(draws, d, m)
    d["jobs"] = out
    return d
