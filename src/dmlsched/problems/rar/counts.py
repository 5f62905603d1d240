"""Count-vector schedules of RAR-DDLS, shared by the formulations, the bounds,
the heuristics, exact-cp and exact-dp.

A placement is a count vector ``(y_js)_s`` (``y_js`` GPUs of job ``j`` on
server ``s``): contention (6) depends only on it, and GPUs of a server are
identical, so concrete GPU indices are assigned afterwards by
:func:`assign_gpus`.  Specification: ``models/rar.md``.
"""

from __future__ import annotations

import heapq

import numpy as np

from ...errors import InvalidSolutionError
from .instance import RarInstance
from .solution import Engine, RarSchedule, completion_times


def count_vectors(inst: RarInstance, j: int) -> list[tuple[int, ...]]:
    """Every ``(y_js)_s`` with ``0 <= y_js <= O_s`` and ``sum_s y_js = G_j``."""
    S, g = inst.num_servers, int(inst.G[j])
    out: list[tuple[int, ...]] = []

    def rec(s: int, left: int, acc: list[int]) -> None:
        if s == S:
            if left == 0:
                out.append(tuple(acc))
            return
        rest = sum(inst.servers[s + 1:])
        for y in range(max(0, left - rest), min(left, inst.servers[s]) + 1):
            acc.append(y)
            rec(s + 1, left - y, acc)
            acc.pop()

    rec(0, g, [])
    return out


def count_vectors_size(inst: RarInstance, j: int) -> int:
    """``len(count_vectors(inst, j))`` by dynamic programming, without enumerating."""
    g = int(inst.G[j])
    ways = [1] + [0] * g
    for cap in inst.servers:
        new = [0] * (g + 1)
        for tot in range(g + 1):
            if ways[tot]:
                for y in range(0, min(cap, g - tot) + 1):
                    new[tot + y] += ways[tot]
        ways = new
    return ways[g]


def servers_of(vec) -> tuple[int, ...]:
    """The servers a count vector uses (``y_js > 0``), in order."""
    return tuple(s for s, y in enumerate(vec) if y > 0)


def simulate_counts(inst: RarInstance, starts, vecs) -> np.ndarray:
    """``T_j`` of the schedule (start slots, count vectors) via :class:`Engine`."""
    eng = Engine(inst)
    for j in sorted(range(inst.num_jobs), key=lambda q: starts[q]):
        eng.start(j, servers_of(vecs[j]), int(starts[j]))
    eng.run()
    return np.array([eng.finish[j] for j in range(inst.num_jobs)], dtype=np.int64)


def capacity_ok(inst: RarInstance, starts, vecs, T) -> bool:
    """Per-slot capacity (2): ``sum_{j active} y_js <= O_s`` for all ``s, t``."""
    for s, cap in enumerate(inst.servers):
        ev = []
        for j in range(inst.num_jobs):
            y = vecs[j][s]
            if y:
                ev.append((int(T[j]), -y))
                ev.append((int(starts[j]), y))
        ev.sort()  # at equal times releases (-y) come first
        use = 0
        for _, d in ev:
            use += d
            if use > cap:
                return False
    return True


def assign_gpus(inst: RarInstance, starts, vecs, T) -> RarSchedule:
    """Concrete GPU indices for a count-vector schedule (lowest idle GPUs at each start)."""
    J = inst.num_jobs
    gpus: list[list[int]] = [[] for _ in range(J)]
    for s in range(inst.num_servers):
        idle = list(range(int(inst.offsets[s]), int(inst.offsets[s + 1])))
        heapq.heapify(idle)
        running: list[tuple[int, int]] = []
        for j in sorted(range(J), key=lambda q: (starts[q], q)):
            y = vecs[j][s]
            if not y:
                continue
            while running and running[0][0] <= starts[j]:
                _, q = heapq.heappop(running)
                for g in gpus[q]:
                    if int(inst.gpu_server[g]) == s:
                        heapq.heappush(idle, g)
            if len(idle) < y:
                raise ValueError("count-vector schedule violates capacity")
            gpus[j].extend(heapq.heappop(idle) for _ in range(y))
            heapq.heappush(running, (int(T[j]), j))
    return RarSchedule(start=np.array(starts, dtype=np.int64), gpus=tuple(tuple(sorted(g)) for g in gpus))


def as_schedule(inst: RarInstance, starts, vecs):
    """The real schedule of (starts, count vectors): simulated completions, GPUs
    assigned; ``None`` if it breaks capacity or the horizon (fractional mode only)."""
    try:
        T = simulate_counts(inst, starts, vecs)
    except InvalidSolutionError:
        return None
    if int(T.max()) > inst.horizon or not capacity_ok(inst, starts, vecs, T):
        return None
    return assign_gpus(inst, starts, vecs, T)


def counts_of(inst: RarInstance, sched) -> list[tuple[int, ...]]:
    """Each job's count vector ``(y_js)_s`` in a schedule with concrete GPU sets."""
    out = []
    for gs in sched.gpus:
        v = [0] * inst.num_servers
        for g in gs:
            v[int(inst.gpu_server[g])] += 1
        out.append(tuple(v))
    return out


def completion(inst: RarInstance, sched) -> list[int]:
    """Each job's completion slot ``T_j`` in a schedule, as a list."""
    return completion_times(inst, sched).tolist()
