"""The paper's worked examples, reproduced from instance files: Fig. 12 and Figs. 9-10."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched.problems.hlas.heuristics import (
    Readings,
    group_round_times,
    hlas_round_size,
    list_schedule_round,
    resolve_groups,
    task_gpu_time,
)

ROOT = Path(__file__).resolve().parents[2]
FIG12 = ROOT / "instances" / "hlas" / "fig12.json"
FIG9 = ROOT / "instances" / "hlas" / "fig9_10.json"


@pytest.mark.parametrize("policy", ["hlas", "srtf", "hlas-p"])
def test_fig12_average_jct(policy):
    """HLAS 20/3 (paper: 6.7), shortest-first 16/3 (5.3), HLAS-P with 'J3 >= 3 rounds' 17/3 (5.7)."""
    inst = dmlsched.load(FIG12)
    res = dmlsched.solve(inst, policy, trace=True)
    assert res.objective == pytest.approx(inst.expected["objective"][policy], abs=1e-12)
    assert round(res.objective, 1) == inst.expected["facts"]["paper_rounded"][policy]
    done = {r["job"]: r["finish"] for r in res.details["records"]}
    assert done == pytest.approx(inst.expected["facts"]["completion"][policy])


def test_fig12_sequences():
    """The running sequences of Fig. 12(a)-(c), one unit round at a time."""
    inst = dmlsched.load(FIG12)
    seq = {p: [inst.jobs[n].id for _, n, *_ in dmlsched.solve(inst, p, trace=True).solution.log]
           for p in ("hlas", "srtf", "hlas-p")}
    assert seq["hlas"] == ["J1", "J2", "J3", "J1", "J2", "J3", "J2", "J3", "J3"]
    assert seq["srtf"] == ["J1", "J1", "J2", "J2", "J2", "J3", "J3", "J3", "J3"]
    assert seq["hlas-p"] == ["J1", "J2", "J1", "J2", "J2", "J3", "J3", "J3", "J3"]


def test_fig12_hint_is_invisible_to_hlas():
    """HLAS does not read predictions: dropping the hint changes nothing for it."""
    inst = dmlsched.load(FIG12)
    d = dmlsched.to_dict(inst)
    del d["jobs"][2]["predicted_rounds"]
    bare = dmlsched.from_dict(d)
    assert dmlsched.solve(bare, "hlas").objective == dmlsched.solve(inst, "hlas").objective
    # without the hint HLAS-P is HLAS
    assert dmlsched.solve(bare, "hlas-p").objective == pytest.approx(20 / 3)


def _times(inst, job, gpus):
    j = inst.jobs[job]
    return [j.train_time[inst.gpus[m]] for m in gpus]


def test_fig10_task_gpu_time_depends_on_idle_gpus():
    """Fig. 10: on GPUs 1-2, B's task-GPU time 8 < A's 12; on GPUs 3-4, A's 7.2 < B's 9."""
    inst = dmlsched.load(FIG9)
    exp = inst.expected["facts"]["task_gpu_time"]
    got = {}
    for label, gpus in (("GPU1+GPU2", [0, 1]), ("GPU3+GPU4", [2, 3])):
        got[label] = {inst.jobs[n].id: task_gpu_time(_times(inst, n, gpus), inst.jobs[n].tasks_per_round)
                      for n in range(2)}
        assert got[label] == pytest.approx(exp[label])
    first = {label: min(v, key=v.get) for label, v in got.items()}
    assert first == {"GPU1+GPU2": "J_B", "GPU3+GPU4": "J_A"}  # 2D-LAS priority flips with the idle GPUs


def test_fig10_list_schedule_of_a_round():
    # J_B's six tasks on GPUs 1 (1 s) and 2 (2 s): four on GPU 1, two on GPU 2 (4 + 4 = 8)
    assert sorted(list_schedule_round([1.0, 2.0], 6)) == [0, 0, 0, 0, 1, 1]


def test_hlas_service_does_not_depend_on_idle_gpus():
    """HLAS's job size grows by T-bar_n per round whichever GPUs ran it, and the optimal
    grouping gives every job near-equal groups: J_A's round takes the same time on both."""
    inst = dmlsched.load(FIG9)
    groups, details = resolve_groups(inst, Readings(grouped=True, grouping_method="exact"))
    assert sorted(map(sorted, groups)) == inst.expected["facts"]["grouping_members"]
    assert details["grouping_objective"] == pytest.approx(inst.expected["facts"]["grouping_optimum"])
    ta = group_round_times(inst, 0, groups)
    assert ta[0] == pytest.approx(ta[1])  # J_A: identical groups
    tb = group_round_times(inst, 1, groups)
    assert abs(tb[0] - tb[1]) <= 1.0 + 1e-9
    # the size added by a round is a constant of the job, the same on either group
    size_a, size_b = hlas_round_size(inst, 0, 2), hlas_round_size(inst, 1, 2)
    assert size_a == pytest.approx(4 * 2 / (2 / 3 + 2 / 1.8))
    assert size_b == pytest.approx(6 * 2 / 2.9)
    # in a simulation both groups run rounds of J_A, and the run is a valid Hare schedule
    res = dmlsched.solve(inst, "hlas", trace=True, grouping_method="exact")
    assert {u for _, n, _, u, _ in res.solution.log if n == 0} == {0, 1}


@pytest.mark.parametrize("keep, first", [([0, 1], "J_B"), ([2, 3], "J_A")])
def test_fig10_2dlas_order_flips_with_the_available_gpus(keep, first):
    """The same two jobs, simulated under 2D-LAS with only GPUs 1-2 or only GPUs 3-4
    available: after one round each, the job with less task-GPU time runs first --
    B (8 < 12) on GPUs 1-2, A (7.2 < 9) on GPUs 3-4."""
    d = dmlsched.to_dict(dmlsched.load(FIG9))
    d["gpus"] = [d["gpus"][m] for m in keep]
    d.pop("groups")
    for j in d["jobs"]:  # times for the GPU types kept only (another type would read as a typo)
        for key in ("train_time", "sync_time"):
            j[key] = {g: t for g, t in j[key].items() if g in d["gpus"]}
    sub = dmlsched.from_dict(d)
    res = dmlsched.solve(sub, "2d-las", trace=True)
    second_rounds = [sub.jobs[n].id for _, n, r, _, _ in res.solution.log if r == 1]
    assert second_rounds[0] == first


def test_fig9_b_first_is_better():
    """Fig. 9: giving the faster job B priority shortens the average JCT."""
    inst = dmlsched.load(FIG9)
    d = dmlsched.to_dict(inst)
    for j in d["jobs"]:
        j["rounds"] = 1
    a_first = dmlsched.from_dict(d)
    d["jobs"] = d["jobs"][::-1]
    b_first = dmlsched.from_dict(d)
    # Hare's relaxed synchronisation (Fig. 5): FIFO order, not Gavel_FIFO's gang start
    ja = dmlsched.solve(a_first, "fifo", gang="none").objective
    jb = dmlsched.solve(b_first, "fifo", gang="none").objective
    assert jb < ja
    assert ja == pytest.approx(4.0) and jb == pytest.approx(3.75)
