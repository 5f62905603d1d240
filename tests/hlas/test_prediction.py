"""HLAS-L's loss fit, the online Sched_Homo / Sched_Allo (unit job sizes) and the
contention-free lower bound: hand-worked cases, information hiding, validity."""

from __future__ import annotations

import numpy as np
import pytest

import dmlsched
from dmlsched.generate.hlas import generate
from dmlsched.problems.hlas import HlasInstance, HlasJob
from dmlsched.problems.hlas.bounds import contention_free_bound, round_time_bound
from dmlsched.problems.hlas.prediction import EPSILON, LossFit, fit_prediction


def job(i, arrival=0.0, rounds=1, tpr=1, types=("G",), s=0.0, **times):
    return HlasJob(id=i, arrival=arrival, rounds=rounds, tasks_per_round=tpr,
                   train_time={g: times.get(g, 1.0) for g in types}, sync_time={g: s for g in types})


@pytest.mark.parametrize("rounds", [20, 200])
def test_fit_recovers_the_rounds_of_a_clean_curve(rounds):
    b0 = (1 / EPSILON - 1) / rounds
    k = np.arange(1, rounds + 1)
    losses = 1 / (b0 * k + 1) + 0.3
    assert fit_prediction(losses[: rounds // 2]) == pytest.approx(rounds, rel=0.05)


def test_loss_fit_is_seeded_and_sees_only_the_rounds_run():
    inst = generate(num_jobs=6, num_gpus=8, num_groups=2, seed=3, rounds=[10, 60])
    a, b = LossFit(inst, seed=1), LossFit(inst, seed=1)
    assert [a.predicted_total(n, 5) for n in range(6)] == [b.predicted_total(n, 5) for n in range(6)]
    assert a.predicted_total(0, 2) == 0  # fewer than three points: no fit yet
    # without noise the fit finds every job's rounds from half of its losses; the noise makes it err
    clean = LossFit(inst, seed=1, noise=0.0)
    for n, j in enumerate(inst.jobs):
        assert abs(clean.predicted_total(n, j.rounds // 2) - j.rounds) <= 0.1 * j.rounds + 1
    assert any(a.predicted_total(n, j.rounds // 2) != clean.predicted_total(n, j.rounds // 2)
               for n, j in enumerate(inst.jobs))


def test_hlas_l_runs_and_is_a_feasible_schedule():
    inst = generate(num_jobs=30, num_gpus=16, num_groups=4, seed=2, rounds=[5, 80])
    res = dmlsched.solve(inst, "hlas-l")
    assert res.status.value == "feasible" and res.details["group_idle"] == "all"
    assert res.objective >= dmlsched.solve(inst, "lower-bound").objective - 1e-9


def test_round_time_bound_is_the_greedy_split():
    # 3 tasks on GPUs of 1 s and 2 s (sync 0.5): fast GPU takes 2 (2.5), slow 1 (2.5)
    inst = HlasInstance(gpus=("F", "S"), jobs=(job("a", rounds=2, tpr=3, types=("F", "S"), s=0.5, F=1.0, S=2.0),))
    assert round_time_bound(inst, 0) == pytest.approx(2.5)
    assert contention_free_bound(inst) == pytest.approx(5.0)


@pytest.mark.parametrize("seed", range(4))
def test_lower_bound_is_below_every_policy_and_the_offline_optimum(seed):
    inst = generate(num_jobs=4, num_gpus=3, num_groups=1, seed=seed, rounds=[1, 3], tasks_per_round=[1, 2],
                    time_grid=0.01)
    lb = dmlsched.solve(inst, "lower-bound")
    assert lb.status.value in ("optimal", "bound")
    for m in ("hlas", "hlas-p", "hlas-l", "fifo", "2d-las", "srtf", "sched-homo", "sched-allo"):
        assert dmlsched.solve(inst, m).objective >= lb.objective - 1e-9, m
    opt = dmlsched.solve(inst, "offline-exact", work_limit=20.0)  # CP-SAT deterministic s
    assert opt.objective >= lb.objective - 1e-9


def test_unit_size_baselines_ignore_the_number_of_rounds():
    """Sched_Homo and Sched_Allo with a unit job size: a long job listed first is served first;
    with the sizes known (Hare's offline baselines) the short one is."""
    inst = HlasInstance(gpus=("G",), jobs=(job("long", rounds=10), job("short", rounds=1)))
    for online, offline in (("sched-homo", "homo"), ("sched-allo", "allox")):
        run = dmlsched.solve(inst, online).solution
        first = int(np.argmin([run.start[0], run.start[10]]))  # job "long" has tasks 0-9, "short" task 10
        assert first == 0, online
        off = dmlsched.solve(inst.to_hare(), offline).solution
        assert off.start[10] < off.start[0], offline
