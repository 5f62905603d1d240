"""Plain checks of a relaxed Hare_Sched solution (Hare, HPDC'22, Section 5.2,
Step 1): Hare_Sched_RL ((4)-(7) + (9)) or the full Queyranne relaxation,
checked by NumPy code that trusts no solver (``models/hare.md``, "Separation"
and the relaxation's section).

Both solvers of the relaxation use it: the decomposition
(:mod:`.decomposition`) checks its candidate points, the relaxation method
(:mod:`.relaxation`, which re-exports both functions) its result.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidSolutionError
from ...options import OptionError
from ...tolerance import TOL
from .formulation import round_groups
from .instance import HareInstance
from .solution import HareSchedule, evaluate


def queyranne_violation(p: np.ndarray, x: np.ndarray) -> tuple[float, int]:
    """Most violated Queyranne subset inequality on one GPU.

    For tasks with processing times ``p > 0`` and starts ``x`` on one machine,
    ``sum_{i in S} p_i x_i >= 1/2 [(sum_S p_i)^2 - sum_S p_i^2]`` for every
    subset ``S``.  The most violated ``S`` is a prefix of the tasks sorted by
    start (``models/hare.md``, "Separation").  Returns ``(violation, k)``:
    ``violation = max(0, max_k rhs_k - lhs_k)`` and ``k`` the prefix length
    attaining it (0 if none is violated).
    """
    if len(p) == 0:
        return 0.0, 0
    order = np.lexsort((np.arange(len(x)), x))
    ps, xs = p[order], x[order]
    lhs = np.cumsum(ps * xs)
    rhs = 0.5 * (np.cumsum(ps) ** 2 - np.cumsum(ps * ps))
    v = rhs - lhs
    k = int(np.argmax(v))
    return (float(v[k]), k + 1) if v[k] > 0 else (0.0, 0)


def check_relaxed(inst: HareInstance, x_hat: np.ndarray, y_hat: np.ndarray, kind: str = "rl") -> float:
    """Check a relaxed solution and return its value ``sum_n w_n C_n``.

    Plain code, trusting no solver: (4) arrivals, (5) one GPU per task, (7)
    round barriers, and (9) per GPU (``kind="rl"``) or every Queyranne subset
    inequality per GPU (``kind="queyranne"``, checked on prefixes in start
    order, which covers every subset).  ``C_n`` (6) is the latest
    ``x_i + T^c + T^s`` of the job.  Tolerance: :data:`dmlsched.tolerance.TOL`
    relative to the magnitudes of the two sides.

    Raises
    ------
    InvalidSolutionError
        Naming the violated constraint.
    """
    x = np.asarray(x_hat, dtype=float)
    g = np.asarray(y_hat)
    n = inst.num_tasks
    if x.shape != (n,) or g.shape != (n,):
        raise InvalidSolutionError(f"relaxed solution has {x.shape}/{g.shape} entries, instance has {n} tasks")
    if not np.all(np.isfinite(x)):
        raise InvalidSolutionError("relaxed solution: a start time is not finite")
    if n and (g.min() < 0 or g.max() >= inst.num_gpus or not np.all(g == np.round(g))):
        raise InvalidSolutionError("(5) relaxed solution: a GPU index is out of range")
    if kind not in ("rl", "queyranne"):
        raise OptionError("relaxation", f"must be 'rl' or 'queyranne', got {kind!r}")
    g = g.astype(np.int64)
    sched = HareSchedule(gpu=g, start=x)
    nj = inst.task_job
    tc = inst.tc[nj, g]
    ts = inst.ts[nj, g]
    a = inst.arrival[nj]
    bad = x < a - TOL * np.maximum(1.0, np.abs(a))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidSolutionError(f"(4) relaxed solution: task {i} starts at {x[i]} before arrival {a[i]}")
    done = x + tc + ts
    for nn, r, tasks in round_groups(inst):
        if r == 0:
            continue
        prev = [t - inst.jobs[nn].tasks_per_round for t in tasks]
        lo, hi = float(x[tasks].min()), float(done[prev].max())
        if lo < hi - TOL * max(1.0, abs(hi)):
            raise InvalidSolutionError(
                f"(7) relaxed solution: job {inst.jobs[nn].id!r} round {r} starts at {lo} before "
                f"round {r - 1} ends at {hi}"
            )
    for m in range(inst.num_gpus):
        on = np.flatnonzero(g == m)
        p = inst.tc[nj[on], m]
        if kind == "rl":
            lhs = float(np.sum(p * (x[on] + p)))
            rhs = 0.5 * (float(p.sum()) ** 2 + float(np.sum(p * p)))
            viol = rhs - lhs
            scale = max(1.0, abs(lhs), abs(rhs))
            if viol > TOL * scale:
                raise InvalidSolutionError(f"(9) relaxed solution: GPU {m}: {lhs} < {rhs}")
        else:
            viol, k = queyranne_violation(p, x[on])
            scale = max(1.0, float(np.sum(p * np.abs(x[on]))), 0.5 * float(p.sum()) ** 2)
            if viol > TOL * scale:
                raise InvalidSolutionError(
                    f"(Queyranne) relaxed solution: GPU {m}: the first {k} tasks by start time "
                    f"violate the subset inequality by {viol}"
                )
    return evaluate(inst, sched)
