"""Hare's Theorem 4 (Algorithm 1 is an alpha(2+alpha)-approximation) and its lemmas.

What is tested here (see ``proofs/hare-theorem-4.md`` for the argument):

* the stored counterexample ``hare-theorem4-rl-spt-trap``: with the paper's
  relaxation Hare_Sched_RL, ``dmlsched.check`` finds ``list`` at ratio 3.28
  against the proven optimum, claimed bound 3: verdict ``violated``, under
  both readings of line 12 (one GPU: they coincide); with the Queyranne
  relaxation the same instance is solved optimally;
* the five-task variant, which breaks the theorem only for the RL exactly as
  written (no upper bound on ``x``), checked with an independent LP;
* the paper's Lemma 2 (10) and (22) fail (stored instances); the mended
  Lemma 2 (Queyranne inequalities on prefixes, relaxed assignment) holds;
* Lemma 3 holds for every GPU (new proof), and so does the proven bound of
  ``list-queyranne``: (22') and ``(3 alpha + 2 - 2/M) max(1, alpha/2)``;
* the final scaling step: whenever (22) holds for every task, the schedule is
  within ``(2 + alpha) max(1, alpha/2) <= alpha(2 + alpha)`` of the relaxation;
* hypothesis hunts for violations of the claimed ratio on generated instances.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from scipy.optimize import linprog

import dmlsched
from dmlsched.cli import main
from dmlsched.problems.hare.bounds import alpha, mended_ratio, theorem4_ratio
from dmlsched.problems.hare.bruteforce import brute_force
from dmlsched.problems.hare.heuristics import list_schedule, middle_completion_priority, priority_order
from dmlsched.problems.hare.solution import evaluate
from dmlsched.problems.hare.strategies import hare_instances
from dmlsched.result import Result, Status

from .relax import relax

models = pytest.importorskip("dmlsched.problems.hare.models")

CX_DIR = Path(__file__).resolve().parents[2] / "instances" / "counterexamples"
TRAP = CX_DIR / "hare-theorem4-rl-spt-trap.json"
TRAP5 = CX_DIR / "hare-theorem4-rl-unbounded-spt-trap.json"
TOL = 1e-6

# tiny instances: the exact MIP and both relaxations solve them in well under a second
SMALL = dict(max_jobs=3, max_gpus=2, max_rounds=2, max_tasks_per_round=2, max_tasks=4)


def literal_rl_single_gpu(inst):
    """Hare_Sched_RL exactly as the paper writes it, for a one-GPU instance.

    With one GPU, (5) fixes ``y``, and (9) is linear in ``x``: the relaxation is
    the LP ``min sum w C`` s.t. (4), (6), (7) and
    ``sum_i T_i x_i >= ((sum T)^2 - sum T^2) / 2``.  Solved with scipy's
    HiGHS LP, independently of :mod:`dmlsched.problems.hare.models`.
    """
    assert inst.num_gpus == 1
    n, J = inst.num_tasks, inst.num_jobs
    tj = inst.task_job
    T = inst.tc[tj, 0]
    S = inst.ts[tj, 0]
    A, b = [], []
    for i in range(n):  # (6)
        row = np.zeros(n + J)
        row[i], row[n + tj[i]] = 1.0, -1.0
        A.append(row)
        b.append(-(T[i] + S[i]))
    for i in range(n):  # (7)
        for j in range(n):
            if tj[i] == tj[j] and inst.task_round[j] == inst.task_round[i] + 1:
                row = np.zeros(n + J)
                row[i], row[j] = 1.0, -1.0
                A.append(row)
                b.append(-(T[i] + S[i]))
    row = np.zeros(n + J)  # (9)
    row[:n] = -T
    A.append(row)
    b.append(-0.5 * (T.sum() ** 2 - (T**2).sum()))
    c = np.concatenate([np.zeros(n), inst.weight])
    bounds = [(float(inst.arrival[tj[i]]), None) for i in range(n)] + [(None, None)] * J
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    assert res.status == 0
    return float(res.fun), res.x[:n]


PLACEMENTS = ["earliest-start", "earliest-available"]


def algorithm1(inst, x_hat, placement="earliest-start"):
    order = priority_order(inst, middle_completion_priority(inst, x_hat))
    return order, list_schedule(inst, order, placement)


# -- the stored counterexamples ----------------------------------------------------
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_rl_counterexample_is_violated(solver, placement):
    """With HiGHS and with Gurobi (MIQCP for the RL): same relaxation, same verdict,
    under both readings of line 12 (one GPU: no choice to make)."""
    inst = dmlsched.load(TRAP)
    exp = inst.expected
    assert alpha(inst) == 1.0 and theorem4_ratio(inst) == 3.0
    opt, _ = brute_force(inst)
    assert opt == pytest.approx(exp["optimum"], abs=1e-9)
    rep = dmlsched.check(inst, "list", reference="exact", solver=solver, placement=placement)
    assert rep.verdict == "violated"
    assert rep.bound == 3.0
    assert rep.reference_objective == pytest.approx(exp["optimum"], rel=1e-6)
    key = "list_rl_" + placement.replace("-", "_")
    assert rep.objective == pytest.approx(exp["facts"][key], rel=1e-6)
    assert rep.ratio == pytest.approx(exp["facts"]["ratio_list_rl"], rel=1e-5) and rep.ratio > 3.28
    # the mechanism: the three light tasks run before the heavy job
    res = dmlsched.solve(inst, "list", solver=solver, placement=placement)
    heavy = inst.task_index(0, 0, 0)
    assert res.solution.start[heavy] == pytest.approx(3.0)
    assert res.lower_bound == pytest.approx(exp["bound"]["relaxation"], rel=1e-6)


def test_queyranne_relaxation_solves_the_counterexample_optimally():
    inst = dmlsched.load(TRAP)
    rep = dmlsched.check(inst, "list", reference="exact", relaxation="queyranne")
    assert rep.verdict == "holds"
    assert rep.ratio == pytest.approx(1.0)


def test_literal_rl_five_task_counterexample():
    """Only the unbounded RL breaks this one: x_hat puts the absorber at 11 > horizon 5.25."""
    inst = dmlsched.load(TRAP5)
    exp = inst.expected
    value, x_hat = literal_rl_single_gpu(inst)
    assert value == pytest.approx(exp["bound"]["relaxation"], abs=1e-9)
    assert x_hat.tolist() == pytest.approx([0, 0, 0, 0, 11.0], abs=1e-7)
    for placement in PLACEMENTS:
        order, sched = algorithm1(inst, x_hat, placement)
        dmlsched.validate(inst, sched)
        got = evaluate(inst, sched)
        assert got == pytest.approx(exp["facts"]["list_rl_" + placement.replace("-", "_")], abs=1e-9)
    ref = dmlsched.solve(inst, "exact")
    assert ref.status == Status.OPTIMAL and ref.objective == pytest.approx(exp["optimum"], rel=1e-6)
    res = Result("hare", "list", Status.FEASIBLE, objective=got, bound=value, solution=sched)
    rep = dmlsched.compare(inst, res, ref)
    assert rep.verdict == "violated" and rep.ratio > 3.3


# -- Lemma 2 ------------------------------------------------------------------------
def test_paper_lemma2_fails_on_algorithm1_assignment():
    """(10): sum_{k<=j} y~_{pi(k),m} T^c <= 2 H_{pi(j)} -- false for pi(j) = heavy."""
    inst = dmlsched.load(TRAP)
    rel = relax(inst, kind="rl")
    H = middle_completion_priority(inst, rel.x_hat)
    order, sched = algorithm1(inst, rel.x_hat)
    heavy = inst.task_index(0, 0, 0)
    pos = int(np.flatnonzero(order == heavy)[0])
    load = float(inst.tc[inst.task_job[order[: pos + 1]], 0].sum())
    assert load == pytest.approx(4.25)
    assert 2 * H[heavy] == pytest.approx(1.25)
    assert load > 2 * H[heavy]


def prefix_loads_relaxed(inst, order, y_hat):
    """Per prefix of ``order``: max over GPUs of the relaxed (y-hat) training load."""
    loads = np.zeros(inst.num_gpus)
    out = []
    for i in order.tolist():
        m = int(y_hat[i])
        loads[m] += inst.tc[inst.task_job[i], m]
        out.append(loads.max())
    return np.array(out)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(hare_instances(**SMALL))
def test_mended_lemma2_holds_on_queyranne_relaxation(inst):
    """Mended (10): for every prefix P_j of pi and GPU m,
    sum_{i in P_j, y^_i = m} T^c_{i,m} <= 2 H_{pi(j)} (Queyranne inequality on P_j on m)."""
    rel = relax(inst, kind="queyranne")
    assert rel.status == Status.OPTIMAL
    H = middle_completion_priority(inst, rel.x_hat)
    order = priority_order(inst, H)
    Hs = H[order]
    assert np.all(np.diff(Hs) >= -1e-9)  # the running-max key is H itself
    loads = prefix_loads_relaxed(inst, order, rel.y_hat)
    assert np.all(loads <= 2 * Hs + TOL * np.maximum(1, 2 * Hs))


def idle_before_on_every_gpu(inst, order, sched):
    """``I[k, m]``: idle time of GPU ``m`` in ``[0, x~_{pi(k)})`` when ``pi(k)`` is placed.

    Only the training intervals of tasks placed before ``pi(k)`` count as busy
    (later placements can only fill idle time, never create it before).
    """
    tc = inst.tc[inst.task_job, sched.gpu]
    busy: list[list[tuple[float, float]]] = [[] for _ in range(inst.num_gpus)]
    out = np.zeros((len(order), inst.num_gpus))
    for k, i in enumerate(order.tolist()):
        tau = float(sched.start[i])
        for m in range(inst.num_gpus):
            covered = sum(max(0.0, min(e, tau) - s) for s, e in busy[m])
            out[k, m] = tau - covered
        busy[int(sched.gpu[i])].append((float(sched.start[i]), float(sched.start[i] + tc[i])))
    return out


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(hare_instances(**SMALL))
def test_lemma3_holds_on_every_gpu(inst):
    """Lemma 3, strengthened and proven (proof document, "A proven bound"): when
    Algorithm 1 places w, every GPU m was idle at most alpha H_w before x~_w.
    Uses only (4) and (7) of the relaxation, so it holds for both relaxations;
    (14) is the case m = w's GPU."""
    for kind in ("rl", "queyranne"):
        rel = relax(inst, kind=kind)
        H = middle_completion_priority(inst, rel.x_hat)
        for placement in PLACEMENTS:
            order, sched = algorithm1(inst, rel.x_hat, placement)
            idle = idle_before_on_every_gpu(inst, order, sched)
            bound = alpha(inst) * H[order]
            assert np.all(idle <= bound[:, None] + TOL * np.maximum(1.0, bound[:, None])), (
                kind, placement, json.dumps(dmlsched.to_dict(inst)))


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(hare_instances(**SMALL))
def test_mended_22_and_ratio_with_queyranne_relaxation(inst):
    """Proven: x~ + T~^c <= (3 alpha + 2 - 2/M) H for every task, and the
    ``list-queyranne`` method is within ``mended_ratio`` of the optimum."""
    rel = relax(inst, kind="queyranne")
    assert rel.status == Status.OPTIMAL
    H = middle_completion_priority(inst, rel.x_hat)
    c = 3 * alpha(inst) + 2 - 2 / inst.num_gpus
    for placement in PLACEMENTS:  # the proof holds for both readings of line 12
        order, sched = algorithm1(inst, rel.x_hat, placement)
        lhs = sched.start + inst.tc[inst.task_job, sched.gpu]
        assert np.all(lhs <= c * H + TOL * np.maximum(1.0, c * H)), placement
        rep = dmlsched.check(inst, "list-queyranne", reference="exact", placement=placement)
        assert rep.bound == pytest.approx(mended_ratio(inst))
        # an infinite claimed bound (alpha infinite) gives no verdict, never a vacuous "holds"
        assert rep.verdict == ("holds" if math.isfinite(rep.bound) else "no_bound"), json.dumps(dmlsched.to_dict(inst))
        assert rep.objective <= rep.bound * rel.value * (1 + 1e-6) + 1e-9  # even against the relaxation


def test_mended_ratio_values():
    one = dmlsched.load(TRAP)  # one GPU, alpha 1
    assert mended_ratio(one) == 3.0
    two = dmlsched.load(CX_DIR / "hare-eq22-release.json")  # two identical GPUs
    assert mended_ratio(two) == 4.0
    assert dmlsched.check(two, "list-queyranne").verdict == "holds"


# -- (22) and the final step --------------------------------------------------------
def check_22(inst, x_hat, sched):
    """Largest violation of (22) x~ + T~^c <= (2 + alpha) H over all tasks."""
    H = middle_completion_priority(inst, x_hat)
    tc = inst.tc[inst.task_job, sched.gpu]
    return float(np.max(sched.start + tc - (2 + alpha(inst)) * H))


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(hare_instances(**SMALL))
def test_final_step_from_22_to_the_relaxation(inst):
    """If (22) holds for every task, sum w C~ <= (2+alpha) max(1, alpha/2) * relaxation value.

    C_n <= (2+a) H_i + T~^s_i <= (2+a)(x^_i + a T^c_i(y^)/2) + a T^s_i(y^)
        <= (2+a) max(1, a/2) (x^_i + T^c_i(y^) + T^s_i(y^)) <= (2+a) max(1, a/2) C^_n.
    """
    res = dmlsched.solve(inst, "list")
    rel = relax(inst, kind="rl")
    order, sched = algorithm1(inst, rel.x_hat)
    assert np.array_equal(sched.start, res.solution.start)
    a = alpha(inst)
    assume(check_22(inst, rel.x_hat, sched) <= TOL * max(1.0, float(sched.start.max())))
    factor = (2 + a) * max(1.0, a / 2)
    assert factor <= theorem4_ratio(inst) + 1e-12
    assert res.objective <= factor * rel.value * (1 + 1e-6) + 1e-9


def test_22_fails_on_the_counterexample():
    inst = dmlsched.load(TRAP)
    rel = relax(inst, kind="rl")
    order, sched = algorithm1(inst, rel.x_hat)
    # heavy ends training at x~ + T^c = 4.25 while 3 * H_heavy is at most 3 * (x^ + 0.625);
    # the largest violation depends on which RL optimum the solver returns (it is not
    # unique), so only its size is asserted: (22) fails by more than one time unit
    assert check_22(inst, rel.x_hat, sched) > 1.0


# -- the ratio itself ---------------------------------------------------------------
@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(hare_instances(**SMALL))
def test_theorem4_ratio_with_queyranne_relaxation(inst):
    """ratio(list / exact) <= alpha(2+alpha) with x^ from the Queyranne relaxation.

    Not proven (Lemma 3's (16) is open, see the proof document): a hunt.  A
    violation found here is a result: store it under instances/counterexamples/.
    """
    rep = dmlsched.check(inst, "list", reference="exact", relaxation="queyranne")
    # an infinite claimed bound (alpha infinite) gives no verdict, never a vacuous "holds"
    assert rep.verdict == ("holds" if math.isfinite(rep.bound) else "no_bound"), json.dumps(dmlsched.to_dict(inst))


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(hare_instances(**SMALL))
def test_theorem4_ratio_with_paper_relaxation_on_generated_instances(inst):
    """ratio(list / exact) <= alpha(2+alpha) with the paper's RL, on the strategy's space.

    False in general (``hare-theorem4-rl-spt-trap``, 6 tasks); this hunts for
    violations among instances of at most 4 tasks, where none is known.
    """
    rep = dmlsched.check(inst, "list", reference="exact")
    assert rep.reference_objective is not None
    # an infinite claimed bound (alpha infinite) gives no verdict, never a vacuous "holds"
    assert rep.verdict == ("holds" if math.isfinite(rep.bound) else "no_bound"), json.dumps(dmlsched.to_dict(inst))


# -- counterexamples to the intermediate steps ----------------------------------------
@pytest.mark.parametrize("kind", ["rl", "queyranne"])
def test_paper_lemma2_fails_with_both_relaxations(kind):
    """hare-lemma2-assignment: with line 12 as printed, y~ differs from y^ and (10)
    fails by 0.5 (ratio holds); with the proof's reading (earliest start) (10)
    holds with equality there and list is optimal."""
    inst = dmlsched.load(CX_DIR / "hare-lemma2-assignment.json")
    facts = inst.expected["facts"]
    rel = relax(inst, kind=kind)
    assert rel.status == Status.OPTIMAL
    H = middle_completion_priority(inst, rel.x_hat)
    j1 = inst.task_index(1, 0, 0)
    for placement in PLACEMENTS:
        order, sched = algorithm1(inst, rel.x_hat, placement)
        m = int(sched.gpu[j1])
        pos = int(np.flatnonzero(order == j1)[0])
        prefix = order[: pos + 1]
        load = float(inst.tc[inst.task_job[prefix], m][sched.gpu[prefix] == m].sum())
        assert load == pytest.approx(facts["lemma2_prefix_load_" + placement.replace("-", "_")])
        assert 2 * H[j1] == pytest.approx(facts["lemma2_rhs"])
        assert (load > 2 * H[j1] + 1e-9) == (placement == "earliest-available")
        # the mended form (relaxed assignment) holds on the same prefix
        assert prefix_loads_relaxed(inst, order, rel.y_hat)[pos] <= 2 * H[j1] + 1e-9
        rep = dmlsched.check(inst, "list", reference="exact", relaxation=kind, placement=placement)
        assert rep.verdict == "holds"
        assert rep.objective == pytest.approx(facts[f"list_{kind}_" + placement.replace("-", "_")])


@pytest.mark.parametrize("kind", ["rl", "queyranne"])
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_22_and_10_fail_after_a_release_date_under_both_readings(kind, placement):
    inst = dmlsched.load(CX_DIR / "hare-eq22-release.json")
    facts = inst.expected["facts"]
    rel = relax(inst, kind=kind)
    order, sched = algorithm1(inst, rel.x_hat, placement)
    j0 = inst.task_index(0, 0, 0)
    assert sched.start[j0] + inst.tc[0, sched.gpu[j0]] == pytest.approx(facts["eq22_lhs"])
    H = middle_completion_priority(inst, rel.x_hat)
    assert (2 + alpha(inst)) * H[j0] == pytest.approx(facts["eq22_rhs"])
    assert facts["eq22_lhs"] > facts["eq22_rhs"]  # (22) fails
    # (10) fails on the same task: the prefix's load on J0's GPU (J1's task shares it)
    m = int(sched.gpu[j0])
    prefix = order[: int(np.flatnonzero(order == j0)[0]) + 1]
    load = float(inst.tc[inst.task_job[prefix], m][sched.gpu[prefix] == m].sum())
    assert load == pytest.approx(facts["lemma2_prefix_load"]) and 2 * H[j0] == pytest.approx(facts["lemma2_rhs"])
    assert load > 2 * H[j0]
    rep = dmlsched.check(inst, "list", reference="exact", relaxation=kind, placement=placement)
    assert rep.objective == pytest.approx(facts[f"list_{kind}_" + placement.replace("-", "_")])
    assert rep.reference_objective == pytest.approx(inst.expected["optimum"])
    assert rep.verdict == "holds"


@pytest.mark.parametrize("kind", ["rl", "queyranne"])
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_16_fails_but_lemma3_holds(kind, placement):
    """hare-lemma3-eq16: the gap on GPU 0 before J1's round 1 is caused by J1's
    round 0 (u(0)), which precedes J0's round 1 in pi: (16) is false; (14) holds
    (both readings of line 12 give the same schedule here)."""
    inst = dmlsched.load(CX_DIR / "hare-lemma3-eq16.json")
    exp = inst.expected
    assert alpha(inst) == exp["facts"]["alpha"]
    rel = relax(inst, kind=kind)
    H = middle_completion_priority(inst, rel.x_hat)
    order, sched = algorithm1(inst, rel.x_hat, placement)
    j0r1, j1r0, j1r1 = inst.task_index(0, 1, 0), inst.task_index(1, 0, 0), inst.task_index(1, 1, 0)
    assert sched.gpu[j0r1] == sched.gpu[j1r1] == 0 and sched.gpu[j1r0] == 1
    gap_start = sched.start[j0r1] + inst.tc[0, 0]
    assert sched.start[j1r1] > gap_start  # a gap on GPU 0 ...
    assert sched.start[j1r0] <= gap_start  # ... whose chain starts with u(0) = J1 round 0
    assert H[j1r0] == pytest.approx(exp["facts"]["H_u0"]) and H[j0r1] == pytest.approx(exp["facts"]["H_prev"])
    assert H[j1r0] < H[j0r1]  # (16) fails
    idle = idle_before_on_every_gpu(inst, order, sched)
    k = int(np.flatnonzero(order == j1r1)[0])
    assert idle[k, 0] == pytest.approx(exp["facts"]["idle_before"])
    assert idle[k, 0] <= alpha(inst) * H[j1r1]  # (14) holds


# -- the command line ---------------------------------------------------------------
def test_cli_check_reports_the_violation(capsys):
    assert main(["check", str(TRAP), "--method", "list", "--reference", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "violated"
    assert out["bound"] == 3.0 and out["ratio"] > 3.28
    assert main(["check", str(TRAP), "--method", "list", "-o", "relaxation=queyranne", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "holds"
