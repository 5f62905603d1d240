"""Counterexample search for Hare's Theorem 4 (Algorithm 1 is an alpha(2+alpha)-approximation).

Run: ``.venv/bin/python proofs/hare_theorem4_search.py [--quick] [--placement earliest-start|earliest-available]``;
``--stored`` re-checks the stored counterexamples (``instances/counterexamples/hare-*.json``)
under both readings of line 12 and both relaxations.

For tiny instances everything is computed by enumeration, without the MIP
models, so the search does not depend on any solver formulation:

* the optimum ``OPT`` by :func:`dmlsched.problems.hare.bruteforce.brute_force`;
* the relaxation Hare_Sched_RL ((4)-(7) and (9)) and its Queyranne
  strengthening (9) for every subset of the tasks on each GPU): for a fixed
  assignment ``y`` both are linear programs in ``x``; the relaxation's optimum
  is the best of these LPs over all assignments (identical GPUs are treated
  as interchangeable), solved with ``scipy.optimize.linprog`` (HiGHS);
* Algorithm 1 from either relaxation's ``x_hat`` (:func:`priority_order`,
  :func:`list_schedule` with the chosen reading of line 12, ``--placement``:
  ``earliest-start``, the proof's step (21) and the default, or
  ``earliest-available``, line 12 as printed), and the intermediate
  inequalities of the proof: Lemma 2's (10), Lemma 3's (14) and (22).

It prints every family of instances it tries and the worst ratios found.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from dmlsched.draws import RngDraws
from dmlsched.problems.hare.bounds import alpha, theorem4_ratio
from dmlsched.problems.hare.bruteforce import brute_force
from dmlsched.problems.hare.heuristics import (
    list_schedule,
    middle_completion_priority,
    priority_order,
)
from dmlsched.problems.hare.instance import HareInstance, HareJob, from_dict
from dmlsched.problems.hare.sample import random_instance as sample
from dmlsched.problems.hare.solution import evaluate


def canonical_assignments(inst: HareInstance):
    """Every GPU assignment up to permutations of GPUs of the same type."""
    groups: dict[str, list[int]] = {}
    for m, g in enumerate(inst.gpus):
        groups.setdefault(g, []).append(m)
    n, M = inst.num_tasks, inst.num_gpus
    for a in itertools.product(range(M), repeat=n):
        ok = True
        for ms in groups.values():
            first = [next((i for i, v in enumerate(a) if v == m), n + m) for m in ms]
            if first != sorted(first):
                ok = False
                break
        if ok:
            yield a


def relaxation_lp(inst: HareInstance, assign, subsets: bool):
    """The relaxation's LP for a fixed assignment: (value, x_hat) or (inf, None).

    Variables ``x_i`` (tasks) and ``C_n`` (jobs); constraints (4), (6), (7) and
    (9) for the full set of tasks on each GPU (``subsets=False``, the paper's
    Hare_Sched_RL) or for every non-empty subset (Queyranne).
    """
    n, J = inst.num_tasks, inst.num_jobs
    tj = inst.task_job
    T = np.array([inst.tc[tj[i], assign[i]] for i in range(n)])
    S = np.array([inst.ts[tj[i], assign[i]] for i in range(n)])
    A, b = [], []
    for i in range(n):  # (6) C_n >= x_i + T + S
        row = np.zeros(n + J)
        row[i] = 1
        row[n + tj[i]] = -1
        A.append(row)
        b.append(-(T[i] + S[i]))
    for i in range(n):  # (7)
        for j in range(n):
            if tj[i] == tj[j] and inst.task_round[j] == inst.task_round[i] + 1:
                row = np.zeros(n + J)
                row[i] = 1
                row[j] = -1
                A.append(row)
                b.append(-(T[i] + S[i]))
    for m in range(inst.num_gpus):  # (9)
        on = [i for i in range(n) if assign[i] == m]
        subs = (
            [c for k in range(1, len(on) + 1) for c in itertools.combinations(on, k)]
            if subsets else ([tuple(on)] if on else [])
        )
        for sub in subs:
            p = T[list(sub)]
            rhs = 0.5 * (p.sum() ** 2 - (p ** 2).sum())
            row = np.zeros(n + J)
            row[list(sub)] = -p
            A.append(row)
            b.append(-rhs)
    c = np.concatenate([np.zeros(n), inst.weight])
    bounds = [(float(inst.arrival[tj[i]]), None) for i in range(n)] + [(None, None)] * J
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    if res.status != 0:
        return math.inf, None
    return float(res.fun), res.x[:n]


def relaxation(inst: HareInstance, subsets: bool = False):
    """Optimal value, x_hat and assignment of the relaxation, by enumeration."""
    best = (math.inf, None, None)
    for a in canonical_assignments(inst):
        v, x = relaxation_lp(inst, a, subsets)
        if v < best[0] - 1e-9:
            best = (v, x, a)
    return best


#: the reading of line 12 used by the search (``--placement``)
PLACEMENT = "earliest-start"


def algorithm1(inst: HareInstance, x_hat, placement: str | None = None):
    order = priority_order(inst, middle_completion_priority(inst, x_hat))
    return order, list_schedule(inst, order, placement or PLACEMENT)


def lemma_checks(inst: HareInstance, x_hat, order, sched):
    """Worst slack of (10), (14) and (22) over all tasks (positive = violated)."""
    H = middle_completion_priority(inst, x_hat)
    a = alpha(inst)
    tc = inst.tc[inst.task_job, sched.gpu]
    load = np.zeros(inst.num_gpus)
    busy_end = np.zeros(inst.num_gpus)
    idle = np.zeros(inst.num_gpus)
    w10 = w14 = w22 = -math.inf
    # (10): prefix load of pi on pi(j)'s GPU (pi(j) included) <= 2 H_pi(j)
    # (14): idle time on pi(j)'s GPU before pi(j) <= alpha H_pi(j)
    for i in order.tolist():
        m = int(sched.gpu[i])
        load[m] += tc[i]
        w10 = max(w10, load[m] - 2 * H[i])
        idle[m] += sched.start[i] - busy_end[m]
        busy_end[m] = sched.start[i] + tc[i]
        w14 = max(w14, idle[m] - a * H[i])
        w22 = max(w22, sched.start[i] + tc[i] - (2 + a) * H[i])
    return w10, w14, w22


@dataclass
class Finding:
    family: str
    inst: HareInstance
    opt: float
    rl: float
    list_rl: float
    list_q: float
    bound: float
    lemmas_rl: tuple
    lemmas_q: tuple

    @property
    def ratio_rl(self):
        return self.list_rl / self.opt

    @property
    def ratio_q(self):
        return self.list_q / self.opt


def study(inst: HareInstance, family: str) -> Finding:
    opt, _ = brute_force(inst, max_candidates=2_000_000)
    rl, xr, _ = relaxation(inst, subsets=False)
    q, xq, _ = relaxation(inst, subsets=True)
    o_r, s_r = algorithm1(inst, xr)
    o_q, s_q = algorithm1(inst, xq)
    return Finding(family, inst, opt, rl, evaluate(inst, s_r), evaluate(inst, s_q),
                   theorem4_ratio(inst), lemma_checks(inst, xr, o_r, s_r),
                   lemma_checks(inst, xq, o_q, s_q))


def job(i, a, w, R, K, tc, ts):
    return HareJob(f"J{i}", float(a), float(w), R, K, dict(tc), dict(ts))


def random_instance(rng, max_jobs=3, max_gpus=2, max_tasks=5, types=("A", "B"), **shape):
    """A random tiny instance: the family's one random builder
    (:func:`dmlsched.problems.hare.sample.random_instance`) drawing from ``rng``;
    times on the grid 0.5, per-type synchronisation, integer weights."""
    kw = {"rounds": 2, "tasks_per_round": 2, "step": 0.5, "train": (0.5, 4.0), "alpha": 2.0, "max_sync": 1.0,
          "sync_per_type": True, "max_arrival": 2.0, "weights": (1.0, 2.0, 3.0, 4.0), **shape}
    d = sample(RngDraws(rng), jobs=max_jobs, gpus=max_gpus, tasks=max_tasks, types=len(types), type_names=types,
               **kw)
    return from_dict(d)


def families(rng, quick):
    k = 40 if quick else 300
    # (a) one GPU, weighted single-task jobs: the SPT trap of the full-set (9)
    for heavy_t in (1.25, 1.5):
        for ks in (2, 3, 4):
            yield "spt-trap", HareInstance(("A",), (
                job(0, 0, 1.0, 1, 1, {"A": heavy_t}, {"A": 0}),
                job(1, 0, 0.01, 1, ks, {"A": 1.0}, {"A": 0}),
                job(2, 0, 0.001, 1, 1, {"A": 1.0}, {"A": 0}),
            ))
    # (a') homogeneous GPUs (alpha = 1, bound 3), skewed weights
    for _ in range(40 if quick else 400):
        yield "homogeneous", random_instance(rng, max_jobs=3, max_gpus=3, max_tasks=6, types=("A",),
                                             min_jobs=2, tasks_per_round=3, weights=(0.1, 1.0, 10.0))
    # (b) random tiny instances
    for _ in range(k):
        yield "random", random_instance(rng)
    # (c) heterogeneous sync times, speed-blind GPU choice
    for _ in range(k // 2):
        inst = random_instance(rng, max_gpus=3, max_tasks=4)
        yield "hetero", inst
    # (d) many tasks per round on few GPUs
    for _ in range(k // 4):
        K = int(rng.integers(2, 5))
        yield "wide-round", HareInstance(("A",) * int(rng.integers(1, 3)), (
            job(0, 0, float(rng.integers(1, 5)), 1, K, {"A": float(rng.integers(1, 5))},
                {"A": float(rng.integers(0, 3))}),
            job(1, float(rng.integers(0, 3)), float(rng.integers(1, 5)), 1, 6 - K if K < 6 else 1,
                {"A": float(rng.integers(1, 5))}, {"A": 0.0}),
        ))


def more_families(rng, quick):
    k = 30 if quick else 300
    # (e) chains on identical GPUs with heavy independent jobs (holes left by barriers)
    for _ in range(k):
        M = int(rng.integers(2, 4))
        jobs = [job(0, 0, float(rng.choice([0.1, 1.0])), int(rng.integers(2, 4)), 1,
                    {"A": float(rng.integers(1, 5)) / 2}, {"A": float(rng.integers(0, 5)) / 2})]
        for n in range(1, int(rng.integers(2, 4))):
            jobs.append(job(n, float(rng.integers(0, 4)) / 2, float(rng.choice([0.1, 1.0, 10.0])), 1,
                            int(rng.integers(1, 3)), {"A": float(rng.integers(1, 9)) / 2}, {"A": 0.0}))
        inst = HareInstance(("A",) * M, tuple(jobs))
        if inst.num_tasks <= 6:
            yield "chains", inst
    # (f) two GPU types, heterogeneous sync, fast GPU busy a little longer
    for _ in range(k):
        jobs = []
        for n in range(int(rng.integers(2, 4))):
            jobs.append(job(n, float(rng.integers(0, 3)), float(rng.choice([0.1, 1.0, 10.0])),
                            int(rng.integers(1, 3)), int(rng.integers(1, 3)),
                            {"F": float(rng.integers(1, 3)), "S": float(rng.integers(2, 7))},
                            {"F": float(rng.integers(0, 3)) / 2, "S": float(rng.integers(1, 3)) / 2}))
        inst = HareInstance(("F", "S") if rng.random() < 0.5 else ("S", "F"), tuple(jobs))
        if inst.num_tasks <= 6:
            yield "two-types", inst


def search_instances(seed: int, quick: bool = False, max_tasks: int = 6):
    """The (family, instance) pairs the family search studies (``--seed``, ``--quick``, ``--max-tasks``).

    Generation only, no solving: ``tests/hare/test_theorem4_search.py`` pins the counts that
    ``proofs/hare-theorem-4.md`` records for ``--seed 2`` and a digest of the instances.
    """
    rng = np.random.default_rng(seed)
    for fam, inst in itertools.chain(families(rng, quick), more_families(rng, quick)):
        if inst.num_tasks <= max_tasks:
            yield fam, inst


def lemma3_hunt(seed: int, trials: int) -> tuple[int, int]:
    """(14) with x_hat that satisfies only (4) and (7) for a random assignment.

    Lemma 3's proof uses nothing else about x_hat, so a violation here would
    break the argument (not necessarily the lemma for relaxation optima).
    Returns (instances tried, violations).
    """
    rng = np.random.default_rng(seed)
    bad = 0
    for _ in range(trials):
        inst = random_instance(rng, max_jobs=5, max_gpus=3, max_tasks=None, min_jobs=2, rounds=3,
                               alpha=4.0, max_sync=2.0, max_arrival=2.5, weights=(1.0,))
        M = inst.num_gpus
        y = rng.integers(0, M, inst.num_tasks)
        x = np.zeros(inst.num_tasks)
        for n, j in enumerate(inst.jobs):
            bar = j.arrival
            for r in range(j.rounds):
                idx = [inst.task_index(n, r, k) for k in range(j.tasks_per_round)]
                for i in idx:
                    x[i] = bar + float(rng.choice([0, 0, 0.5, 1, 2]))
                bar = max(x[i] + inst.tc[n, y[i]] + inst.ts[n, y[i]] for i in idx)
        order, sched = algorithm1(inst, x)
        if lemma_checks(inst, x, order, sched)[1] > 1e-6:
            bad += 1
    return trials, bad


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--climb", type=int, default=0, help="hill-climbing steps instead of the families")
    ap.add_argument("--relaxation", choices=["rl", "queyranne"], default="queyranne")
    ap.add_argument("--start", help="instance file to start hill climbing from")
    ap.add_argument("--lemma3", type=int, default=0, help="trials of the (14) hunt with (4)+(7)-feasible x_hat")
    ap.add_argument("--placement", choices=["earliest-start", "earliest-available"], default="earliest-start",
                    help="reading of Algorithm 1's line 12")
    ap.add_argument("--stored", action="store_true", help="re-check the stored counterexamples")
    ap.add_argument("--max-tasks", type=int, default=6)
    args = ap.parse_args(argv)
    global PLACEMENT
    PLACEMENT = args.placement
    if args.stored:
        return stored()
    if args.lemma3:
        tried, bad = lemma3_hunt(args.seed, args.lemma3)
        print(f"(14) with (4)+(7)-feasible x_hat: {bad} violations in {tried} instances")
        return 0
    if args.climb:
        from dmlsched.io import load as _load
        start = _load(args.start) if args.start else None
        best, inst = climb(args.seed, args.climb, args.relaxation == "queyranne", start)
        from dmlsched.io import dumps as _d
        print(f"hill climbing ({args.relaxation}, {args.climb} steps): best ratio/bound {best:.4f}")
        print(_d(inst, indent=None))
        return 0
    worst: dict[str, Finding] = {}
    viol = {k: 0 for k in ("rl", "q", "(10) rl", "(14) rl", "(22) rl", "(10) q", "(14) q", "(22) q")}
    first: dict[str, Finding] = {}
    count = 0
    print(f"placement: {PLACEMENT}")
    for fam, inst in search_instances(args.seed, args.quick, args.max_tasks):
        f = study(inst, fam)
        count += 1
        tol = 1e-6
        viol["rl"] += f.ratio_rl > f.bound * (1 + tol)
        viol["q"] += f.ratio_q > f.bound * (1 + tol)
        for key, lem in (("rl", f.lemmas_rl), ("q", f.lemmas_q)):
            for name, v in zip(("(10)", "(14)", "(22)"), lem):
                if v > tol:
                    viol[f"{name} {key}"] += 1
                    if f"{name} {key}" not in first or f.inst.num_tasks < first[f"{name} {key}"].inst.num_tasks:
                        first[f"{name} {key}"] = f
        for key, val in (("rl", f.ratio_rl / f.bound), ("q", f.ratio_q / f.bound)):
            if key not in worst or val > getattr(worst[key], "ratio_" + key) / worst[key].bound:
                worst[key] = f
    print(f"instances studied: {count}")
    print("violations:", viol)
    from dmlsched.io import dumps as _dumps
    for key, f in first.items():
        print(f"smallest instance violating {key}: {f.inst.num_tasks} tasks, family {f.family}")
        print(_dumps(f.inst, indent=None))
    for key, f in worst.items():
        print(f"worst ratio/bound with x_hat from {key}: family {f.family}, OPT {f.opt:.4g}, "
              f"list {getattr(f, 'list_' + key):.4g}, ratio {getattr(f, 'ratio_' + key):.4f}, "
              f"bound {f.bound:.4f}")
        from dmlsched.io import dumps
        print(dumps(f.inst, indent=None))
    return 0


def stored() -> int:
    """Theorem 4's ratio and the worst slack of (10), (14), (22) on every stored
    counterexample, for both readings of line 12 and both relaxations."""
    from pathlib import Path

    from dmlsched.io import load

    root = Path(__file__).resolve().parents[1] / "instances" / "counterexamples"
    for path in sorted(root.glob("hare-*.json")):
        inst = load(path)
        opt, _ = brute_force(inst, max_candidates=2_000_000)
        print(f"{path.name}: {inst.num_tasks} tasks, {inst.num_gpus} GPUs, OPT {opt:.6g}, "
              f"alpha {alpha(inst):g}, claimed ratio {theorem4_ratio(inst):g}")
        for subsets, kind in ((False, "rl"), (True, "queyranne")):
            val, x, _ = relaxation(inst, subsets=subsets)
            for placement in ("earliest-start", "earliest-available"):
                order, sched = algorithm1(inst, x, placement)
                got = evaluate(inst, sched)
                w10, w14, w22 = lemma_checks(inst, x, order, sched)
                print(f"  {kind:9s} {placement:18s} relaxation {val:.6g} list {got:.6g} ratio {got / opt:.4f} "
                      f"(10) {w10:+.4g} (14) {w14:+.4g} (22) {w22:+.4g}")
    return 0


# ---------------------------------------------------------------------------
# hill climbing: mutate an instance to maximise ratio / bound (``--climb``)
def _mutate(inst: HareInstance, rng) -> HareInstance:
    jobs = list(inst.jobs)
    n = int(rng.integers(len(jobs)))
    j = jobs[n]
    what = rng.integers(6)
    tc, ts = dict(j.train_time), dict(j.sync_time)
    g = str(rng.choice(list(tc)))
    arrival, weight, R, K = j.arrival, j.weight, j.rounds, j.tasks_per_round
    if what == 0:
        tc[g] = float(max(0.25, tc[g] + rng.choice([-0.5, -0.25, 0.25, 0.5, 1.0])))
    elif what == 1:
        ts[g] = float(max(0.0, ts[g] + rng.choice([-0.5, -0.25, 0.25, 0.5])))
    elif what == 2:
        arrival = float(max(0.0, arrival + rng.choice([-0.5, 0.5, 1.0])))
    elif what == 3:
        weight = float(max(0.01, weight * rng.choice([0.25, 0.5, 2.0, 4.0])))
    elif what == 4 and inst.num_tasks < 6:
        if rng.random() < 0.5:
            R += 1
        else:
            K += 1
    elif what == 4:
        if R > 1:
            R -= 1
        elif K > 1:
            K -= 1
    else:
        if inst.num_tasks < 6 and rng.random() < 0.5:
            jobs.append(job(len(jobs), 0.0, 1.0, 1, 1, {t: 1.0 for t in tc}, {t: 0.0 for t in tc}))
        elif len(jobs) > 1:
            jobs.pop(n)
            return HareInstance(inst.gpus, tuple(HareJob(f"J{q}", x.arrival, x.weight, x.rounds,
                                                         x.tasks_per_round, x.train_time, x.sync_time)
                                                  for q, x in enumerate(jobs)))
    jobs[n] = HareJob(j.id, arrival, weight, R, K, tc, ts)
    return HareInstance(inst.gpus, tuple(jobs))


def climb(seed: int, steps: int, subsets: bool, start: HareInstance | None = None):
    """Hill climbing (with restarts) on ratio / bound of Algorithm 1 with the chosen relaxation."""
    rng = np.random.default_rng(seed)

    def score(inst):
        if inst.num_tasks > 6:
            return -1.0
        opt, _ = brute_force(inst, max_candidates=2_000_000)
        _, x, _ = relaxation(inst, subsets=subsets)
        _, s = algorithm1(inst, x)
        return evaluate(inst, s) / opt / theorem4_ratio(inst)

    best_overall = (0.0, None)
    cur = start or random_instance(rng, max_gpus=2, max_tasks=5)
    cur_s = score(cur)
    for step in range(steps):
        cand = _mutate(cur, rng)
        try:
            s = score(cand)
        except Exception:
            continue
        if s >= cur_s:
            cur, cur_s = cand, s
        if cur_s > best_overall[0]:
            best_overall = (cur_s, cur)
        if step % 200 == 199 and start is None:
            cur = random_instance(rng, max_gpus=2, max_tasks=5)
            cur_s = score(cur)
    return best_overall


if __name__ == "__main__":
    sys.exit(main())
