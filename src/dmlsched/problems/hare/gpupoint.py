"""The GPU-level side of the decomposition of Hare_Sched_RL
(``models/hare-decomposition.md``, section 5, steps 3-7): the fixed-assignment
LP (RL with the assignment fixed, an LP in the completion times once every
task is right-justified; Lemma R), the dealing of a type-level point's tasks
to the GPUs of their type, the balancing of (9)'s deficits, and the
spreading of cheap-to-delay jobs, judged by the LP.

Every loop stops at a count (deterministic work limits); the budget, when
given, is asked between moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...budget import Budget
from ...solvers import quiet_highs
from .instance import HareInstance

#: default deterministic work limits of the GPU-level search (options of ``relaxation`` and ``list``)
DEFAULT_SEARCH_MOVES = 2_000
DEFAULT_SEARCH_LPS = 400


@dataclass
class Retimed:
    """RL with the GPU assignment fixed: right-justified starts, optimal completion times."""

    x: np.ndarray
    C: np.ndarray
    value: float
    duals: np.ndarray | None


def _right_justified(inst: HareInstance, gpu: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per task its ``T`` and ``Q_i + p_i`` (so that ``x_i = C_n - (Q_i + p_i)``), and
    per job the smallest completion ``a_n + sum_r P_r`` for assignment ``gpu``."""
    nj = inst.task_job
    gt = inst.gpu_type_index[gpu]
    T = inst.tc_type[nj, gt]
    p = T + inst.ts_type[nj, gt]
    g_first = np.concatenate([[0], np.cumsum(inst.rounds_arr)])  # first round id of every job
    rid = g_first[nj] + inst.task_round
    P = np.full(int(g_first[-1]), -np.inf)
    np.maximum.at(P, rid, p)
    rj = np.repeat(np.arange(inst.num_jobs), inst.rounds_arr)
    csum = np.cumsum(P)
    job_end = csum[g_first[1:] - 1]
    Q = job_end[rj] - csum  # length of the later rounds of the job
    cmin = inst.arrival + (job_end - np.concatenate([[0.0], job_end[:-1]]))
    return T, Q[rid] + p, cmin


def retime(inst: HareInstance, gpu: np.ndarray, *, c_cap: np.ndarray | None = None, kind: str = "rl",
           rounds: int = 50) -> Retimed:
    """The best relaxed point with the assignment ``gpu`` fixed (an LP in the completion times).

    With ``y`` fixed and every task right-justified (``x_i = C_n - Q_i - p_i``,
    ``Q_i`` the length of the later rounds of its job, ``P_r`` the slowest task
    of round ``r``), (9) on GPU ``m`` reads
    ``sum_{i on m} T_i C_{n(i)} >= s_m^2 / 2 - sum T_i^2 / 2 + sum T_i (Q_i + p_i)``:
    linear in ``C``; ``C_n >= a_n + sum_r P_r``.  Right-justifying never
    lowers the left side of (9), so this LP's optimum is RL's optimum for the
    assignment (spec, Lemma R).  ``kind="queyranne"`` adds the same row for
    every prefix (in start order) of the tasks of a GPU that the LP's point
    violates, and solves again (at most ``rounds`` LPs; the point then
    satisfies every subset inequality, by the separation lemma of
    ``models/hare.md``).  Rows the LP leaves violated by rounding are
    repaired by raising a completion time.  ``c_cap`` (the start-time box's
    upper ends) bounds the completion times when the LP stays feasible with
    it; otherwise it is dropped.
    """
    gpu = np.asarray(gpu, dtype=np.int64)
    nj = inst.task_job
    M = inst.num_gpus
    T, qp, cmin = _right_justified(inst, gpu)
    # one row per GPU over its tasks (the whole set); Queyranne adds prefixes
    sets = [np.flatnonzero(gpu == m) for m in range(M)]
    rows: list[np.ndarray] = [t for t in sets]
    C, duals = _retime_lp(inst, T, qp, cmin, rows, c_cap)
    if kind == "queyranne":
        seen = {t.tobytes() for t in rows}
        for _ in range(rounds):
            x = C[nj] - qp
            added = 0
            for t in sets:
                if len(t) < 2:
                    continue
                o = t[np.lexsort((t, x[t]))]
                Tp = T[o]
                lhs = np.cumsum(Tp * x[o])
                cs = np.cumsum(Tp)
                rhs = 0.5 * (cs * cs - np.cumsum(Tp * Tp))
                bad = np.flatnonzero(rhs - lhs > 1e-10 * np.maximum(1.0, np.maximum(np.abs(lhs), np.abs(rhs))))
                for k in bad.tolist():
                    pre = np.sort(o[:k + 1])
                    key = pre.tobytes()
                    if key not in seen:
                        seen.add(key)
                        rows.append(pre)
                        added += 1
            if added == 0:
                break
            C, duals = _retime_lp(inst, T, qp, cmin, rows, c_cap)
        duals = duals[:M] if duals is not None else None
    x = C[nj] - qp
    return Retimed(x=x, C=C, value=float(np.dot(inst.weight, C)), duals=duals)


def _retime_lp(inst: HareInstance, T: np.ndarray, qp: np.ndarray, cmin: np.ndarray, sets: list[np.ndarray],
               c_cap: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``min sum w C`` s.t. ``C >= cmin`` and, per task set ``S`` (tasks of one GPU),
    ``sum_{i in S} T_i C_{n(i)} >= (sum_S T)^2 / 2 - sum_S T^2 / 2 + sum_S T (Q + p)``."""
    import highspy

    nj = inst.task_job
    J = inst.num_jobs
    R = len(sets)
    rr = np.concatenate([np.full(len(t), q, dtype=np.int64) for q, t in enumerate(sets)]) if R else np.zeros(0, int)
    tt = np.concatenate(sets) if R else np.zeros(0, dtype=np.int64)
    key = rr * J + nj[tt]
    uk, inv = np.unique(key, return_inverse=True)
    coef = np.bincount(inv, weights=T[tt])
    rows_r, cols_n = uk // J, uk % J
    s = np.bincount(rr, weights=T[tt], minlength=R)
    rhs = 0.5 * s * s - 0.5 * np.bincount(rr, weights=T[tt] ** 2, minlength=R) + np.bincount(
        rr, weights=T[tt] * qp[tt], minlength=R)
    inf = highspy.kHighsInf
    starts = np.searchsorted(rows_r, np.arange(R + 1)).astype(np.int32)
    scale = np.maximum(1.0, np.abs(rhs))
    C = duals = None
    caps = [None] if c_cap is None else [np.maximum(np.asarray(c_cap, dtype=float), cmin), None]
    for cap in caps:
        h = quiet_highs()
        h.setOptionValue("threads", 1)
        h.addVars(J, cmin, np.full(J, inf) if cap is None else cap)
        h.changeColsCost(J, np.arange(J, dtype=np.int32), inst.weight.astype(float))
        h.addRows(R, rhs / scale, np.full(R, inf), len(rows_r), starts, cols_n.astype(np.int32),
                  coef / scale[rows_r])
        h.run()
        sol = h.getSolution()
        if h.getModelStatus() == highspy.HighsModelStatus.kOptimal and sol.value_valid:
            C = np.maximum(np.asarray(sol.col_value, dtype=float), cmin)
            duals = np.asarray(sol.row_dual, dtype=float) / scale if sol.dual_valid else None
            break
    if C is None:  # pragma: no cover - without the cap the LP is always feasible (raise any C)
        C = cmin.copy()
    # repair rounding: raise, per violated row, the completion of its job with the largest coefficient
    for _ in range(3):
        lhs = np.bincount(rows_r, weights=coef * C[cols_n], minlength=R)
        short = rhs - lhs
        bad = np.flatnonzero(short > 1e-12 * np.maximum(1.0, np.abs(rhs)))
        if len(bad) == 0:
            break
        for q in bad.tolist():
            sel = np.arange(starts[q], starts[q + 1])
            best = sel[np.argmax(coef[sel])]
            C[cols_n[best]] += short[q] / coef[best] * (1 + 1e-12) + 1e-12 * max(1.0, abs(C[cols_n[best]]))
    return C, duals


def deal_to_gpus(inst: HareInstance, types: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Assign the tasks of every type to that type's GPUs (``models/hare-decomposition.md``, section 6).

    Tasks sorted by their middle ``x + T/2``; taken in blocks of ``c_k`` (one
    per GPU); within a block the longest task goes to the GPU with the least
    training load so far.  Every GPU thus gets a near-equal share of the load
    ``s`` and of the weighted middles ``f``, the two sides of (9).
    """
    nj = inst.task_job
    T = inst.tc_type[nj, types]
    mid = x + T / 2.0
    gpu = np.empty(inst.num_tasks, dtype=np.int64)
    for k in range(len(inst.gpu_types)):
        gpus = np.flatnonzero(inst.gpu_type_index == k)
        tasks = np.flatnonzero(types == k)
        if len(tasks) == 0:
            continue
        c = len(gpus)
        tasks = tasks[np.lexsort((tasks, mid[tasks]))]
        load = np.zeros(c)
        for b in range(0, len(tasks), c):
            blk = tasks[b:b + c]
            blk = blk[np.lexsort((blk, -T[blk]))]
            tgt = np.lexsort((np.arange(c), load))[:len(blk)]
            gpu[blk] = gpus[tgt]
            load[tgt] += T[blk]
    return gpu


def balance(inst: HareInstance, types: np.ndarray, x: np.ndarray, gpu: np.ndarray, *,
            moves: int = DEFAULT_SEARCH_MOVES, partners: int = 4,
            budget: Budget | None = None) -> tuple[np.ndarray, int]:
    """Local search on the dealing of tasks to the GPUs of their type.

    Minimises the total *deficit* ``sum_m max(0, s_m^2/2 - f_m)`` of (9)
    (``s_m`` the GPU's training load, ``f_m = sum T_i (x_i + T_i/2)``) at fixed
    starts: repeatedly, for the GPU with the largest deficit, the best move of
    one of its tasks to, or swap with a task of, one of the ``partners`` GPUs
    of its type with the largest surplus; stops when no deficit is left, no
    move helps, or after ``moves`` moves (a deterministic work limit).
    Returns the new assignment and the number of moves made.
    """
    gpu = gpu.copy()
    nj = inst.task_job
    T = inst.tc_type[nj, types]
    TM = T * (x + T / 2.0)
    M = inst.num_gpus
    s = np.bincount(gpu, weights=T, minlength=M)
    f = np.bincount(gpu, weights=TM, minlength=M)
    gt = inst.gpu_type_index
    members = {m: list(np.flatnonzero(gpu == m)) for m in range(M)}
    done = 0
    stuck: set[int] = set()
    tol = 1e-12

    def deficit(sv: np.ndarray | float, fv: np.ndarray | float) -> np.ndarray:
        return np.maximum(0.0, 0.5 * np.asarray(sv) ** 2 - np.asarray(fv))

    while done < moves and not (budget is not None and budget.stop()):
        d = deficit(s, f)
        d[list(stuck)] = 0.0
        m1 = int(np.argmax(d))
        if d[m1] <= tol * max(1.0, f[m1]):
            break
        same = np.flatnonzero((gt == gt[m1]) & (np.arange(M) != m1))
        if len(same) == 0:
            stuck.add(m1)
            continue
        surplus = f[same] - 0.5 * s[same] ** 2
        cand = same[np.lexsort((same, -surplus))][:partners]
        best = (0.0, None)
        a = np.asarray(members[m1], dtype=np.int64)
        old1 = float(deficit(s[m1], f[m1]))
        for m2 in cand.tolist():
            b = np.asarray(members[m2], dtype=np.int64)
            old = old1 + float(deficit(s[m2], f[m2]))
            # move i: m1 -> m2
            ds, df = T[a], TM[a]
            gain = deficit(s[m1] - ds, f[m1] - df) + deficit(s[m2] + ds, f[m2] + df) - old
            q = int(np.argmin(gain))
            if gain[q] < best[0]:
                best = (float(gain[q]), ("move", int(a[q]), None, m2))
            if len(b):
                # swap i in m1 with j in m2
                ds = T[a][:, None] - T[b][None, :]
                df = TM[a][:, None] - TM[b][None, :]
                gain = deficit(s[m1] - ds, f[m1] - df) + deficit(s[m2] + ds, f[m2] + df) - old
                q = int(np.argmin(gain))
                i, j = divmod(q, len(b))
                if gain[i, j] < best[0]:
                    best = (float(gain[i, j]), ("swap", int(a[i]), int(b[j]), m2))
        if best[1] is None or best[0] > -tol * max(1.0, old1):
            stuck.add(m1)
            continue
        _, i, j, m2 = best[1]
        for task, src, dst in ((i, m1, m2),) + (((j, m2, m1),) if j is not None else ()):
            members[src].remove(task)
            members[dst].append(task)
            gpu[task] = dst
            s[src] -= T[task]
            s[dst] += T[task]
            f[src] -= TM[task]
            f[dst] += TM[task]
        stuck.discard(m2)
        done += 1
    return gpu, done


def spread(inst: HareInstance, gpu: np.ndarray, current: Retimed, *, evaluations: int,
           candidates: int = 12, budget: Budget | None = None) -> tuple[np.ndarray, Retimed, int]:
    """Local search on the assignment with the fixed-assignment LP as the judge.

    For every type and the ``candidates`` jobs whose delay raises ``f`` on
    that type most cheaply (smallest ``w_n / sum T``), the job's tasks of
    that type move to the GPUs whose (9) is most expensive (largest LP dual),
    one per GPU, each swapping with the task of another job closest in
    training time there; a move is kept when the re-timed value drops.
    Repeats while something improves, at most ``evaluations`` LPs (a
    deterministic work limit).  Returns ``(gpu, retimed, LPs solved)``.
    """
    nj = inst.task_job
    gt = inst.gpu_type_index
    best, bg = current, gpu.copy()
    used = 0
    improved = True
    while improved and used < evaluations:
        improved = False
        types = gt[bg]
        T = inst.tc_type[nj, types]
        for k in range(len(inst.gpu_types)):
            tasks = np.flatnonzero(types == k)
            gk = np.flatnonzero(gt == k)
            if len(tasks) == 0 or len(gk) < 2:
                continue
            TT = np.bincount(nj[tasks], weights=T[tasks], minlength=inst.num_jobs)
            ratio = np.where(TT > 0, inst.weight / np.maximum(TT, 1e-300), np.inf)
            for n in np.lexsort((np.arange(inst.num_jobs), ratio))[:candidates].tolist():
                if not np.isfinite(ratio[n]) or used >= evaluations or best.duals is None or (
                        budget is not None and budget.stop()):
                    break
                g2 = _move_job(inst, bg, best, n, k, T)
                if np.array_equal(g2, bg):
                    continue
                r2 = retime(inst, g2)
                used += 1
                if r2.value < best.value - 1e-12 * max(1.0, abs(best.value)):
                    best, bg, improved = r2, g2, True
                    types = gt[bg]
                    T = inst.tc_type[nj, types]
    return bg, best, used


def _move_job(inst: HareInstance, gpu: np.ndarray, cur: Retimed, n: int, k: int, T: np.ndarray) -> np.ndarray:
    nj = inst.task_job
    g = gpu.copy()
    gk = np.flatnonzero(inst.gpu_type_index == k)
    assert cur.duals is not None
    target = gk[np.lexsort((gk, -cur.duals[gk]))]
    mine = np.flatnonzero((nj == n) & (inst.gpu_type_index[g] == k))
    for i, m in zip(mine.tolist(), target.tolist()):
        if g[i] == m:
            continue
        there = np.flatnonzero((g == m) & (nj != n))
        if len(there):
            j = int(there[np.lexsort((there, cur.x[there], np.abs(T[there] - T[i])))[0]])
            g[j] = g[i]
        g[i] = m
    return g


def improve_assignment(inst: HareInstance, types: np.ndarray, x: np.ndarray, c_up: np.ndarray, *, moves: int,
                       lps: int, rounds: int = 8, budget: Budget | None = None) -> tuple[np.ndarray, Retimed, dict]:
    """A GPU-level point from a type-level one: deal, balance, re-time, spread, repeat.

    Every round deals the tasks by the current starts ``x`` (the type-level
    point's, then the last re-timed point's; :func:`deal_to_gpus`), balances
    the deficits of (9) at these starts (:func:`balance`), re-times
    (:func:`retime`) and moves cheap-to-delay jobs onto the most expensive
    GPUs (:func:`spread`).  Stops when a round does not improve, after ``rounds``
    rounds, or when the budgets are spent (``moves`` balance moves per round,
    ``lps`` LPs of :func:`spread` in all).
    Returns the best ``(gpu, retimed, statistics)``.
    """
    best: tuple[np.ndarray, Retimed] | None = None
    lps_left = lps
    stats = {"balance_moves": 0, "spread_lps": 0, "improve_rounds": 0}
    for _ in range(rounds):
        if lps_left <= 0 or (budget is not None and budget.stop()):
            break
        stats["improve_rounds"] += 1
        gpu = deal_to_gpus(inst, types, x)
        gpu, done = balance(inst, types, x, gpu, moves=moves, budget=budget)
        stats["balance_moves"] += done
        rt = retime(inst, gpu, c_cap=c_up)
        gpu, rt, used = spread(inst, gpu, rt, evaluations=lps_left, budget=budget)
        lps_left -= used
        stats["spread_lps"] += used
        if best is not None and rt.value >= best[1].value * (1 - 1e-9):
            break
        best = (gpu.copy(), rt)
        x = rt.x
    if best is None:
        gpu = deal_to_gpus(inst, types, x)
        best = (gpu, retime(inst, gpu, c_cap=c_up))
    return best[0], best[1], stats
