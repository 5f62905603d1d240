"""Referee for Hare_Sched (Hare, HPDC'22, (4)-(8)) and the HLAS offline
optimum (HLAS paper: Hare's problem with the average JCT), in exact arithmetic.

The model, from the paper's Section 5.1: job ``n`` arrives at ``a_n`` with
weight ``w_n`` and runs ``R_n`` rounds of ``D_n`` tasks; a task of job ``n``
on a GPU of type ``g`` trains for ``T^c_{n,g} > 0`` and synchronises for
``T^s_{n,g} >= 0``.  (4) ``x_i >= a_n``; (5) each task on one GPU; (6)
``C_n = max_i x_i + T^c + T^s``; (7) a round starts after every task of the
previous round has trained and synchronised; (8) two tasks on one GPU do not
overlap in training (synchronisation overlaps the GPU's next task: "the
communication can overlap with the next task", Section 5.2).

Enumeration: tasks are placed one at a time in every order that respects
(7) (a task only after the whole previous round of its job), each on every
GPU, at the earliest time its job, its round and its GPU allow
(``max(a_n, end of the previous round, end of the GPU's last training)``).
Every feasible schedule, with its tasks sorted by start, is dominated by the
schedule this builds from that order and assignment (each start is, by
induction, no later), so the minimum over all orders and assignments is the
optimum.  Two symmetries are removed: identical tasks of a round are placed
in index order, and among GPUs of one type that are still empty only the
first is tried.  A branch is cut when a lower bound on its objective is
already no better than the best complete schedule (``>=``, so the optimum
value is still found).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from .common import Case, Numbers, dec, fl

TYPES = ("A", "B")
MAGNITUDES = ("plain", "tiny", "offset", "thirds", "decimals")
SKIPPED: dict[str, str] = {}


@dataclass(frozen=True)
class Job:
    arrival: Fraction
    weight: Fraction
    rounds: int
    tasks_per_round: int
    train: dict[str, Fraction]
    sync: dict[str, Fraction]


@dataclass(frozen=True)
class Hare:
    gpus: tuple[str, ...]
    jobs: tuple[Job, ...]


def draw(seed: int, magnitude: str, *, max_tasks: int = 5) -> Hare:
    """A random tiny instance: 1-3 GPUs of 1-2 types, 2-3 jobs, at most ``max_tasks`` tasks."""
    rng = random.Random(f"hare-{magnitude}-{seed}")
    num = Numbers(magnitude, rng)
    ngpu = rng.randint(1, 3)
    types = TYPES[: rng.randint(1, 2)]
    gpus = tuple(rng.choice(types) for _ in range(ngpu))
    present = tuple(dict.fromkeys(gpus))
    jobs = []
    budget = max_tasks
    for _ in range(rng.randint(2, 3)):
        if budget <= 0:
            break
        rounds = rng.randint(1, 2)
        per = rng.randint(1, 2)
        while rounds * per > budget:
            if per > 1:
                per -= 1
            else:
                rounds -= 1
        budget -= rounds * per
        jobs.append(Job(
            arrival=num.arrival(2), weight=num.weight(), rounds=rounds, tasks_per_round=per,
            train={g: num.time(1, 4) for g in present}, sync={g: num.time(0, 1) for g in present},
        ))
    return Hare(gpus, tuple(jobs))


def to_json(h: Hare, problem: str = "hare") -> dict:
    return {
        "problem": problem,
        "gpus": list(h.gpus),
        "jobs": [
            {"id": f"J{n}", "arrival": fl(j.arrival), "weight": fl(j.weight), "rounds": j.rounds,
             "tasks_per_round": j.tasks_per_round, "train_time": {g: fl(t) for g, t in j.train.items()},
             "sync_time": {g: fl(t) for g, t in j.sync.items()}}
            for n, j in enumerate(h.jobs)
        ],
    }


def from_json(data: dict) -> Hare:
    """The exact instance of a Hare or HLAS JSON dict (numbers read as decimals)."""
    jobs = tuple(
        Job(arrival=dec(j.get("arrival", 0)), weight=dec(j.get("weight", 1)), rounds=int(j["rounds"]),
            tasks_per_round=int(j["tasks_per_round"]), train={g: dec(v) for g, v in j["train_time"].items()},
            sync={g: dec(v) for g, v in j["sync_time"].items()})
        for j in data["jobs"]
    )
    return Hare(tuple(data["gpus"]), jobs)


def num_tasks(h: Hare) -> int:
    return sum(j.rounds * j.tasks_per_round for j in h.jobs)


def optimum(h: Hare, weights: tuple[Fraction, ...]) -> Fraction:
    """``min sum_n weights[n] C_n`` over every feasible schedule (exact)."""
    jobs = h.jobs
    total = sum(j.rounds * j.tasks_per_round for j in jobs)
    pmin = [min(j.train[g] + j.sync[g] for g in set(h.gpus)) for j in jobs]
    best = [None]
    # per job: round -> end of that round so far (max over placed tasks of x + Tc + Ts)
    round_end = [[Fraction(-1)] * j.rounds for j in jobs]
    round_left = [[j.tasks_per_round] * j.rounds for j in jobs]
    gpu_free: list[Fraction | None] = [None] * len(h.gpus)  # None: empty GPU

    def lower_bound() -> Fraction:
        lb = Fraction(0)
        for n, j in enumerate(jobs):
            # the latest round with a placed task and what is still to come
            r_last = -1
            for r in range(j.rounds):
                if round_left[n][r] < j.tasks_per_round:
                    r_last = r
            if r_last < 0:
                c = j.arrival + j.rounds * pmin[n]
            else:
                c = round_end[n][r_last] + (j.rounds - 1 - r_last) * pmin[n]
            lb += weights[n] * c
        return lb

    def rec(depth: int) -> None:
        if best[0] is not None and lower_bound() >= best[0]:
            return
        if depth == total:
            value = sum(weights[n] * round_end[n][j.rounds - 1] for n, j in enumerate(jobs))
            if best[0] is None or value < best[0]:
                best[0] = value
            return
        for n, j in enumerate(jobs):
            for r in range(j.rounds):
                if round_left[n][r] == 0:
                    continue
                if r > 0 and round_left[n][r - 1] > 0:
                    break  # the previous round is not done: no task of this round yet
                ready = j.arrival if r == 0 else round_end[n][r - 1]
                tried_empty: set[str] = set()
                for m, g in enumerate(h.gpus):
                    if gpu_free[m] is None:
                        if g in tried_empty:
                            continue
                        tried_empty.add(g)
                        start = ready
                    else:
                        start = max(ready, gpu_free[m])
                    end = start + j.train[g] + j.sync[g]
                    saved = (gpu_free[m], round_end[n][r])
                    gpu_free[m] = start + j.train[g]
                    round_end[n][r] = max(round_end[n][r], end)
                    round_left[n][r] -= 1
                    rec(depth + 1)
                    round_left[n][r] += 1
                    gpu_free[m], round_end[n][r] = saved
                break  # one round per job is available at a time

    rec(0)
    assert best[0] is not None
    return best[0]


def hare_case(seed: int, magnitude: str) -> Case:
    h = draw(seed, magnitude)
    opt = hare_optimum(h)
    unit = Numbers(magnitude, random.Random(0)).unit * sum(j.weight for j in h.jobs)
    return Case("hare", magnitude, seed, to_json(h), h, opt, unit)


def hare_optimum(h: Hare) -> Fraction:
    return optimum(h, tuple(j.weight for j in h.jobs))


def hlas_optimum(h: Hare) -> Fraction:
    """The HLAS offline optimum: average JCT ``(sum C_n - sum a_n) / |N|`` (unit weights)."""
    total = optimum(h, tuple(Fraction(1) for _ in h.jobs))
    return (total - sum(j.arrival for j in h.jobs)) / len(h.jobs)


def hlas_case(seed: int, magnitude: str) -> Case:
    h = draw(seed + 10_000, magnitude)
    opt = hlas_optimum(h)
    num = Numbers(magnitude, random.Random(0))
    return Case("hlas", magnitude, seed, to_json(h, "hlas"), h, opt, num.unit)
