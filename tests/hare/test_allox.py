"""Sched_Allox's fast matching (issue 18, item 3) against the original one.

The original matching (kept here as :func:`_reference_labels`) solved the
assignment over every slot of :func:`allox_slots` at every arrival; the fast
one (:func:`dmlsched.problems.hare.allox._allox_labels`) takes an exact
shortcut or solves it over :func:`allox_columns` (a subset that holds every
optimum).  Both feed the same canonical placement (``_allox_arrange``), so
wherever the optimal matching is unique up to the ties that placement breaks,
the schedules are identical; the optimal assignment costs are equal always.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import dmlsched
from dmlsched.generate.hare import simulation
from dmlsched.problems.hare import allox as B
from dmlsched.problems.hare.instance import HareInstance, HareJob


def _reference_labels(ptype, busy, types, orders):
    """The original AlloX matching: every slot of allox_slots, no shortcut."""
    J = ptype.shape[0]
    sg, sk = B.allox_slots(busy, types, J)
    cost = ptype[:, types[sg]] * sk[None, :] + busy[sg][None, :]
    rows, cols = linear_sum_assignment(cost)
    lt = np.empty(J, dtype=np.int64)
    lk = np.empty(J)
    lt[rows] = types[sg[cols]]
    lk[rows] = sk[cols]
    return lt, lk


def _reference_place(ptype, gap, busy, types, cls=None):
    """The original matching (every path: one job, shortcut, assignment) placed canonically."""
    if ptype.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    orders = B._type_orders(busy, types)
    return B._allox_arrange(*_reference_labels(ptype, busy, types, orders), busy, orders, gap, cls)


def _full_optimum(ptype, busy, types):
    """The assignment over all M x J slots (no pruning at all)."""
    J, M = ptype.shape[0], len(types)
    k = np.arange(1, J + 1, dtype=float)
    full = (ptype[:, types][:, :, None] * k[None, None, :] + busy[None, :, None]).reshape(J, M * J)
    r, c = linear_sum_assignment(full)
    return float(full[r, c].sum())


def _cost(lt, lk, ptype, busy, orders):
    """Cost of a labelling placed canonically: sum over jobs of k p + b of its GPU."""
    gpu, st = B._allox_arrange(lt, lk, busy, orders, ptype)
    # with gap = p the start + p of every job is its completion; their sum is the cost
    return float(np.sum(st + ptype[np.arange(len(lt)), lt])), gpu, st


def _random_case(rng, ties: bool):
    J, M, T = int(rng.integers(1, 13)), int(rng.integers(1, 8)), int(rng.integers(1, 4))
    types = rng.integers(0, T, M)
    ptype = rng.uniform(0.5, 5, (J, T))
    busy = rng.uniform(0, 6, M) * (rng.random(M) < 0.6)
    if ties:  # coarse values: equal jobs, equal busy times, coincidences
        ptype = ptype.round(0)
        busy = busy.round(0)
    return ptype, busy, types


@pytest.mark.parametrize("ties", [False, True])
def test_fast_matching_has_the_optimal_cost(ties):
    """The fast labels cost what the full J x (M J) assignment costs, and so do
    the original (pruned) labels; the canonical placement keeps the cost."""
    rng = np.random.default_rng(18 + ties)
    for _ in range(300):
        ptype, busy, types = _random_case(rng, ties)
        orders = B._type_orders(busy, types)
        opt = _full_optimum(ptype, busy, types)
        new, _, _ = _cost(*B._allox_labels(ptype, busy, types, orders), ptype, busy, orders)
        old, _, _ = _cost(*_reference_labels(ptype, busy, types, orders), ptype, busy, orders)
        assert new == pytest.approx(opt, rel=1e-9)
        assert old == pytest.approx(opt, rel=1e-9)


def test_allox_columns_are_a_subset_of_the_pruned_slots():
    rng = np.random.default_rng(3)
    for _ in range(200):
        ptype, busy, types = _random_case(rng, False)
        J = ptype.shape[0]
        orders = B._type_orders(busy, types)
        g, k = B.allox_columns(ptype, busy, types, orders)
        sg, sk = B.allox_slots(busy, types, J)
        assert set(zip(g.tolist(), k.tolist())) <= set(zip(sg.tolist(), sk.tolist()))
        assert len(set(zip(g.tolist(), k.tolist()))) == len(g)  # no slot twice


def test_ties_are_broken_by_the_placement_not_by_the_solver():
    """Hand-made tie: two GPUs of one type (busy 1 and 2), two jobs (times 3 and
    5).  Both jobs in position 1, either way round, cost 1 + 3 + 2 + 5 = 11
    (the assignment cannot tell them apart; a job could also queue behind the
    other: 1 + 3 + 1 + 3 + 5 = 13).  Whatever the solver returns, the
    placement puts the earlier-arrived job 0 on the GPU free first."""
    ptype = np.array([[3.0], [5.0]])
    busy = np.array([2.0, 1.0])
    types = np.array([0, 0])
    orders = B._type_orders(busy, types)
    assert _full_optimum(ptype, busy, types) == 11.0
    lt, lk = np.array([0, 0]), np.array([1.0, 1.0])
    cost, gpu, st = _cost(lt, lk, ptype, busy, orders)
    assert cost == 11.0
    assert gpu.tolist() == [1, 0] and st.tolist() == [1.0, 2.0]
    # the original solver's own answer (job 0 on GPU 0 or 1) costs the same and is placed the same
    rows, cols = linear_sum_assignment(np.array([[3.0 + 2, 3.0 + 1], [5.0 + 2, 5.0 + 1]]))
    assert float(np.array([[5.0, 4.0], [7.0, 6.0]])[rows, cols].sum()) == 11.0
    for labels in (B._allox_labels(ptype, busy, types, orders), _reference_labels(ptype, busy, types, orders)):
        assert _cost(*labels, ptype, busy, orders)[1].tolist() == [1, 0]


def test_equal_jobs_start_in_arrival_order():
    """Jobs 0 and 2 have equal times: whichever position the matching gives
    each, the earlier-arrived one starts first."""
    ptype = np.array([[2.0], [1.0], [2.0]])
    busy = np.zeros(1)
    types = np.zeros(1, dtype=np.int64)
    orders = B._type_orders(busy, types)
    for lk in ([2.0, 3.0, 1.0], [1.0, 3.0, 2.0]):  # both optimal: 1*3 + 2*2 + 2*1 = 9
        gpu, st = B._allox_arrange(np.zeros(3, dtype=np.int64), np.array(lk), busy, orders, ptype)
        assert st.tolist() == [1.0, 0.0, 3.0]


def _random_instance(rng) -> HareInstance:
    names = ["V100", "T4", "K80"][: int(rng.integers(1, 4))]
    M = int(rng.integers(1, 6))
    gpus = tuple(names[int(i)] for i in rng.integers(0, len(names), M))
    present = sorted(set(gpus))
    jobs = []
    t = 0.0
    for n in range(int(rng.integers(1, 16))):
        if rng.random() < 0.6:  # bursts: several jobs at one arrival time
            t += float(rng.exponential(1.0))
        jobs.append(HareJob(f"j{n}", round(t, 6), float(rng.integers(1, 4)), int(rng.integers(1, 4)),
                            int(rng.integers(1, 4)), {g: float(rng.uniform(0.1, 2.0)) for g in present},
                            {g: float(rng.uniform(0.0, 0.5)) for g in present}))
    return HareInstance(gpus=gpus, jobs=tuple(jobs))


def test_fast_allox_schedules_equal_the_original(monkeypatch):
    """On 300 random instances (continuous times, bursts of arrivals, queues),
    the fast allox returns the very schedule of the original matching, and
    the schedule validates (dmlsched.solve runs the validator)."""
    rng = np.random.default_rng(2026)
    insts = [_random_instance(rng) for _ in range(300)]
    fast = [dmlsched.solve(inst, "allox") for inst in insts]
    monkeypatch.setattr(B, "_allox_place", _reference_place)
    queued = 0
    for inst, res in zip(insts, fast):
        ref = dmlsched.solve(inst, "allox")
        assert res.status == ref.status == dmlsched.Status.FEASIBLE
        assert np.array_equal(res.solution.gpu, ref.solution.gpu)
        assert np.array_equal(res.solution.start, ref.solution.start)
        assert res.objective == ref.objective
        queued += res.details["largest_pool"] > inst.num_gpus
    assert queued >= 30  # the matching, not only the shortcut, was exercised


def test_fast_allox_on_the_simulation_setup_has_optimal_matchings(monkeypatch):
    """Hare's simulation mix, overloaded (load 3) so that queues build up: at
    every matching the fast labels cost exactly what the original matching
    costs.  (The schedules may differ here: the mix has exact ties the
    placement does not break, e.g. two jobs whose times differ by the same
    amount on two types swap types at one position at equal cost.)"""
    inst = simulation(seed=3, num_jobs=150, num_gpus=40, load=3.0)
    fast = B._allox_labels
    seen = []

    def checked(ptype, busy, types, orders):
        lt, lk = fast(ptype, busy, types, orders)
        new = _cost(lt, lk, ptype, busy, orders)[0]
        old = _cost(*_reference_labels(ptype, busy, types, orders), ptype, busy, orders)[0]
        assert new == pytest.approx(old, rel=1e-12)
        seen.append(len(lt))
        return lt, lk

    monkeypatch.setattr(B, "_allox_labels", checked)
    res = dmlsched.solve(inst, "allox")
    assert res.status == dmlsched.Status.FEASIBLE
    assert max(seen) > B.SMALL_POOL  # allox_columns was used
