"""The readings of how a GPU group executes work (options ``group_mode`` and ``group_idle``;
``models/hlas.md`` items 10-13) and of the baselines (``gang``, ``placement``): micro cases
worked by hand, the paper's worked examples under every reading, feasibility and
determinism of every reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

import dmlsched
from dmlsched.cli import main
from dmlsched.generate.hlas import generate
from dmlsched.kit import Run
from dmlsched.problems.hlas import HlasInstance, HlasJob, simulate
from dmlsched.problems.hlas.heuristics import GROUP_IDLE_READINGS, GROUP_MODES, Readings
from dmlsched.problems.hlas.policies import RULES
from dmlsched.problems.hlas.simulator import HlasSimulator
from dmlsched.problems.hlas.strategies import hlas_instances

ROOT = Path(__file__).resolve().parents[2]
FIG12 = ROOT / "instances" / "hlas" / "fig12.json"
FIG9 = ROOT / "instances" / "hlas" / "fig9_10.json"


def fast_slow(rounds=2, tasks=5):
    """One group of a fast (T^c 1) and a slow (T^c 3) GPU, T^s 0.5, one job."""
    types = ("fast", "slow")
    return HlasInstance(gpus=types, grouping=((0, 1),), jobs=(
        HlasJob(id="A", arrival=0, rounds=rounds, tasks_per_round=tasks, train_time={"fast": 1.0, "slow": 3.0},
                sync_time={"fast": 0.5, "slow": 0.5}),))


def test_modes_are_listed_and_unknown_mode_is_rejected():
    assert GROUP_MODES == ("batch", "gpuset", "round", "accounting")
    assert GROUP_IDLE_READINGS == ("any", "all")
    with pytest.raises(ValueError, match="group_mode"):
        simulate(fast_slow(), "hlas", readings=Readings(group_mode="bogus"))
    with pytest.raises(ValueError, match="group_idle"):
        simulate(fast_slow(), "hlas", readings=Readings(group_idle="some"))
    with pytest.raises(dmlsched.OptionError, match="group_idle"):
        dmlsched.solve(fast_slow(), "hlas", group_idle="some")


def test_default_readings():
    inst = fast_slow()
    a = dmlsched.solve(inst, "hlas", trace=True)
    b = dmlsched.solve(inst, "hlas", trace=True, group_mode="batch", group_idle="all")
    assert (a.details["group_mode"], a.details["group_idle"]) == ("batch", "all")
    assert a.solution.log == b.solution.log and a.objective == b.objective
    defaults = {m: {o.name: o.default for o in dmlsched.get_method("hlas", m).options}
                for m in ("hlas", "hlas-p", "fifo", "2d-las", "srtf")}
    assert defaults["fifo"]["gang"] == "block" and defaults["fifo"]["placement"] == "fastest"
    assert defaults["2d-las"]["gang"] == "block" and defaults["2d-las"]["placement"] == "fastest"
    for m in ("hlas", "hlas-p", "srtf"):
        assert defaults[m]["gang"] == "none" and defaults[m]["placement"] == "fastest"


def fast_slow_two_jobs():
    """A (3 tasks, arrives at 0) and B (1 task, arrives at 0.5) on one group {fast 1, slow 3}."""
    types = ("fast", "slow")
    def j(i, a, k):
        return HlasJob(id=i, arrival=a, rounds=1, tasks_per_round=k, train_time={"fast": 1.0, "slow": 3.0},
                       sync_time={"fast": 0.5, "slow": 0.5})
    return HlasInstance(gpus=types, grouping=((0, 1),), jobs=(j("A", 0.0, 3), j("B", 0.5, 1)))


@pytest.mark.parametrize("idle, jcts", [("all", [3.5, 4.0]), ("any", [3.5, 3.5])])
def test_group_idle_readings(idle, jcts):
    """A's batch puts its 3 tasks on the fast GPU (0-3); the slow GPU stays free.  "all": the
    group takes work again only at 3, when B runs on the fast GPU (3-4, +0.5 sync).  "any":
    B takes the free slow GPU at its arrival (0.5-3.5, +0.5)."""
    res = dmlsched.solve(fast_slow_two_jobs(), "hlas", trace=True, group_idle=idle)
    assert [r["jct"] for r in res.details["records"]] == pytest.approx(jcts)
    assert res.details["group_idle"] == idle


def test_gpuset_one_task_per_group_gpu():
    """gpuset: a group takes one task per free GPU, all starting together; the rest waits for
    the group to be idle again (after its slowest task)."""
    res = dmlsched.solve(fast_slow(), "hlas", trace=True, group_mode="gpuset", group_idle="all")
    log = [(t, r, sorted(g)) for t, _, r, _, g in res.solution.log]
    # round 0: 2 tasks at 0 (group idle at 3), 2 at 3 (idle at 6), 1 at 6 on the fast GPU
    # (train end 7, round end 7.5); round 1 the same from 7.5: 7.5, 10.5, 13.5 -> end 15
    assert log == [(0.0, 0, [0, 1]), (3.0, 0, [0, 1]), (6.0, 0, [0]),
                   (7.5, 1, [0, 1]), (10.5, 1, [0, 1]), (13.5, 1, [0])]
    assert res.objective == pytest.approx(15.0)


def test_gpuset_any_idle_gpu_takes_the_next_task():
    """gpuset with group_idle="any": every GPU takes the next task as soon as it is free:
    round 0 at 0 (fast, slow), 1, 2, 3 (fast) -> train end 4, round end 4.5; round 1 the
    same from 4.5 -> 9."""
    res = dmlsched.solve(fast_slow(), "hlas", trace=True, group_mode="gpuset", group_idle="any")
    log = [(t, r, sorted(g)) for t, _, r, _, g in res.solution.log]
    assert log == [(0.0, 0, [0, 1]), (1.0, 0, [0]), (2.0, 0, [0]), (3.0, 0, [0]),
                   (4.5, 1, [0, 1]), (5.5, 1, [0]), (6.5, 1, [0]), (7.5, 1, [0])]
    assert res.objective == pytest.approx(9.0)


def test_round_whole_round_on_one_group():
    """round: the group takes the whole round, list-scheduled (earliest finish first):
    fast 0,1,2, slow 0, fast 3 -> train end 4, round end 4.5; never partially scheduled."""
    res = dmlsched.solve(fast_slow(), "hlas", trace=True, group_mode="round", group_idle="all")
    log = res.solution.log
    assert [(t, r, list(g)) for t, _, r, _, g in log] == [(0.0, 0, [0, 0, 0, 1, 0]), (4.5, 1, [0, 0, 0, 1, 0])]
    assert list(res.solution.start[:5]) == [0.0, 1.0, 2.0, 0.0, 3.0]
    assert res.objective == pytest.approx(9.0)


def test_round_mode_never_leaves_a_job_partially_scheduled():
    inst = generate(num_jobs=25, num_gpus=12, seed=4, num_groups=3, load=2.0, rounds=(2, 5))
    res = dmlsched.solve(inst, "hlas", trace=True, group_mode="round")
    rounds = [(n, r) for _, n, r, _, _ in res.solution.log]
    assert len(rounds) == len(set(rounds))  # exactly one assignment per round


def test_accounting_dispatches_per_gpu_with_group_tbar():
    """accounting: T-bar_n on |U| groups, dispatch per GPU.  T-bar = |D| |U| / sum_m s, so the
    run equals the per-GPU run (|U| = |M|) on thresholds scaled by |M| / |U|."""
    inst = generate(num_jobs=40, num_gpus=8, seed=2, num_groups=2, load=2.0, rounds=(2, 12))
    acc = dmlsched.solve(inst, "hlas", trace=True, group_mode="accounting")
    assert acc.details["num_groups"] == 2
    assert {g for _, _, _, g, _ in acc.solution.log} <= set(range(8))
    assert all(len(gp) == 1 for _, _, _, _, gp in acc.solution.log)  # one task per idle GPU
    d = dmlsched.to_dict(inst)
    d["queues"] = [[lo * 4, None if hi is None else hi * 4] for lo, hi in d["queues"]]
    scaled = dmlsched.solve(dmlsched.from_dict(d), "hlas", trace=True, grouped=False)
    assert acc.solution.log == scaled.solution.log
    # and the group count matters: per GPU on the original thresholds is a different run
    per_gpu = dmlsched.solve(inst, "hlas", trace=True, grouped=False)
    assert per_gpu.solution.log != acc.solution.log


@pytest.mark.parametrize("idle", GROUP_IDLE_READINGS)
@pytest.mark.parametrize("mode", GROUP_MODES)
@pytest.mark.parametrize("policy, expected", [("hlas", 20 / 3), ("srtf", 16 / 3), ("hlas-p", 17 / 3)])
def test_fig12_under_every_reading(mode, idle, policy, expected):
    """One GPU, one task per round: every reading of the group is the same, and Fig. 12's
    published values 20/3, 16/3, 17/3 hold under each."""
    res = dmlsched.solve(dmlsched.load(FIG12), policy, group_mode=mode, group_idle=idle)
    assert res.objective == pytest.approx(expected)


@pytest.mark.parametrize("mode, expected", [("batch", 8.5), ("gpuset", 10.0), ("round", 9.4), ("accounting", 9.0)])
def test_fig9_10_under_every_reading_with_whole_groups(mode, expected):
    """Figs. 9-10 (grouping {1,3},{2,4}): HLAS's size increment is T-bar_n in every reading
    (both jobs stay in Q_1, J_A first by FIFO); the readings differ only in how the groups
    run the tasks.  Worked by hand:

    * gpuset: A takes 2 tasks on each group (partially scheduled after the first); its
      rounds end at 3 and 6; then B (4 tasks at 6, 2 at 8 on the faster group 2) ends its
      rounds at 10 and 14 -> (6 + 14) / 2 = 10.
    * round: A's whole round on group 1 (GPU3 3 tasks, GPU1 1: ends 5.4), B's whole round on
      group 2 at 0 (GPU4 4 tasks, GPU2 2: ends 4); B again 4-8, A again 5.4-10.8 ->
      (10.8 + 8) / 2 = 9.4.
    """
    res = dmlsched.solve(dmlsched.load(FIG9), "hlas", trace=True, grouping_method="exact", group_mode=mode,
                         group_idle="all")
    assert res.objective == pytest.approx(expected)
    if mode == "round":
        assert [(t, n, u) for t, n, _, u, _ in res.solution.log] == [(0.0, 0, 0), (0.0, 1, 1), (4.0, 1, 1),
                                                                     (5.4, 0, 0)]
    if mode == "gpuset":
        assert [(t, n) for t, n, _, _, _ in res.solution.log] == [(0.0, 0)] * 2 + [(3.0, 0)] * 2 + [
            (6.0, 1), (6.0, 1), (8.0, 1), (10.0, 1), (10.0, 1), (12.0, 1)]


@pytest.mark.parametrize("idle", GROUP_IDLE_READINGS)
@pytest.mark.parametrize("mode", GROUP_MODES)
@pytest.mark.parametrize("policy", ["hlas", "hlas-p"])
def test_every_reading_is_feasible_and_deterministic(mode, idle, policy):
    inst = generate(num_jobs=30, num_gpus=16, seed=5, num_groups=4, load=2.0, rounds=(2, 8), predictions="conservative")
    a = dmlsched.solve(inst, policy, group_mode=mode, group_idle=idle, trace=True)  # validated (Hare)
    b = dmlsched.solve(inst, policy, group_mode=mode, group_idle=idle, trace=True)
    assert a.status.value == "feasible" and a.objective == b.objective
    assert a.solution.log == b.solution.log
    assert all(r["finish"] is not None for r in a.details["records"])


def test_readings_differ_on_the_paper_setup():
    """The readings are genuinely different schedules on a paper-like instance."""
    inst = generate(num_jobs=40, num_gpus=16, seed=1, num_groups=4, load=2.0, rounds=(2, 6))
    objs = {(m, i): dmlsched.solve(inst, "hlas", group_mode=m, group_idle=i).objective
            for m in GROUP_MODES for i in GROUP_IDLE_READINGS if not (m == "accounting" and i == "all")}
    assert len({round(v, 6) for v in objs.values()}) == len(objs)


def three_gpus():
    def j(i, tpr, t):
        return HlasJob(id=i, arrival=0, rounds=1, tasks_per_round=tpr, train_time={"G": t}, sync_time={"G": 0.0})
    return HlasInstance(gpus=("G",) * 3, jobs=(j("a", 2, 2.0), j("b", 2, 1.0), j("c", 1, 1.0)))


@pytest.mark.parametrize("gang, jcts", [("none", [2.0, 2.0, 3.0]), ("block", [2.0, 3.0, 3.0]),
                                        ("skip", [2.0, 3.0, 1.0])])
def test_gang_readings(gang, jcts):
    """FIFO on 3 GPUs; a needs 2 GPUs for 2 s, b 2 GPUs for 1 s, c 1 GPU for 1 s.  Relaxed:
    b starts its first task on the third GPU at 0 and its second at 1, c runs at 2.  Gang
    "block": b waits for 2 idle GPUs (at 2) and c waits behind it.  Gang "skip": c backfills
    the third GPU at 0."""
    res = dmlsched.solve(three_gpus(), "fifo", gang=gang, trace=True)
    assert [r["jct"] for r in res.details["records"]] == pytest.approx(jcts)
    assert res.details["gang"] == (None if gang == "none" else gang)


def test_gang_only_per_gpu():
    inst = fast_slow()
    with pytest.raises(ValueError, match="one group per GPU"):
        simulate(inst, "hlas", readings=Readings(gang="block"))
    with pytest.raises(dmlsched.OptionError, match="gang"):
        simulate(inst, "fifo", readings=Readings(gang="yes"))
    # a round larger than the cluster starts on all its GPUs and runs its further tasks as GPUs
    # free: fast 0-1, slow 0-3, fast 1-2, 2-3, 3-4 -> round end 4.5; round 1 from 4.5 -> 9
    res = dmlsched.solve(inst, "fifo", gang="block", trace=True)
    assert res.objective == pytest.approx(9.0)
    assert [t for t, *_ in res.solution.log] == [0.0, 0.0, 1.0, 2.0, 3.0, 4.5, 4.5, 5.5, 6.5, 7.5]
    with pytest.raises(ValueError, match="one group per GPU"):
        dmlsched.solve(inst, "fifo", grouped=True)  # gang="block" is fifo's default


def permuted(inst, perm):
    d = dmlsched.to_dict(inst)
    d["gpus"] = [inst.gpus[i] for i in perm]
    d.pop("groups", None)
    return dmlsched.from_dict(d)


@pytest.mark.parametrize("gang", ["none", "skip"])
def test_oblivious_placement_is_speed_neutral_and_seeded(gang):
    """Heterogeneity-oblivious placement (Tiresias): the result depends on the multiset of GPU
    types and the seed only, never on the order the instance lists its GPUs; another seed
    draws other GPUs; the fastest placement is better on a heterogeneous cluster."""
    inst = generate(num_jobs=40, num_gpus=12, seed=3, num_groups=None, load=3.0, rounds=(2, 20),
                    gpu_mix={"V100": 3, "T4": 3, "K80": 3, "M60": 3})
    base = dmlsched.solve(inst, "2d-las", gang=gang, placement="oblivious", seed=1)
    for perm in ([11 - i for i in range(12)], [(5 * i) % 12 for i in range(12)]):
        other = dmlsched.solve(permuted(inst, perm), "2d-las", gang=gang, placement="oblivious", seed=1)
        assert other.objective == pytest.approx(base.objective, rel=1e-12)
    assert dmlsched.solve(inst, "2d-las", gang=gang, placement="oblivious", seed=2).objective != base.objective
    fastest = dmlsched.solve(inst, "2d-las", gang=gang, placement="fastest")
    assert fastest.objective < base.objective


@pytest.mark.parametrize("policy", ["fifo", "2d-las", "hlas"])
def test_per_gpu_fast_path_matches_the_generic_group_choice(policy):
    """One group per GPU: the class index of idle groups (``scan_max=-1``) and the plain loop
    over idle groups (group speed, ties lowest index) must choose exactly the same GPUs."""
    inst = generate(num_jobs=40, num_gpus=12, seed=6, num_groups=None, load=1.5, rounds=(2, 6))
    groups = [[g] for g in range(inst.num_gpus)]
    runs = []
    for scan_max in (-1, 10**6):
        sim = HlasSimulator(inst, RULES[policy](), groups, trace=True, scan_max=scan_max)
        sim.run()
        runs.append((sim.log, sim.gpu, sim.start_time))
    assert runs[0] == runs[1]


def test_cli_group_mode_and_gang_options(capsys, tmp_path):
    assert main(["solve", str(FIG9), "--method", "hlas", "-o", "group_mode=round", "-o", "grouping_method=exact",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "feasible" and out["objective"] == pytest.approx(9.4)
    path = tmp_path / "three.json"
    dmlsched.save(three_gpus(), path)
    assert main(["solve", str(path), "--method", "fifo", "-o", "gang=block", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "feasible" and out["objective"] == pytest.approx(8 / 3)  # JCTs 2, 3, 3


@settings(max_examples=25, deadline=None, derandomize=True)
@given(hlas_instances())
def test_every_reading_gives_feasible_hare_schedules(inst):
    """Property: under every reading (and gang baselines where defined) the run is a
    feasible Hare schedule (validated inside ``solve``) and no job beats one unobstructed
    round per round on its fastest GPU."""
    runs = [("hlas", {"group_mode": m}) for m in GROUP_MODES] + [("hlas-p", {"group_mode": "round"})]
    if all(j.tasks_per_round <= inst.num_gpus for j in inst.jobs):
        runs += [("fifo", {"gang": "block"}), ("2d-las", {"gang": "skip"})]
    for policy, opts in runs:
        res = dmlsched.solve(inst, policy, **opts)
        ct = res.solution.finish
        for n, j in enumerate(inst.jobs):
            fastest = min(j.train_time[g] + j.sync_time[g] for g in inst.gpus)
            assert ct[n] - j.arrival >= j.rounds * fastest - 1e-9


def test_readings_are_a_policy_runs_options():
    """``Readings.from_options`` keeps the readings among a run's options (the method's defaults
    filled in, other options ignored), checked by the options' own declarations; ``simulate`` with
    them and the run gives the method's schedule."""
    run = Run.standalone("hlas", "fifo", seed=3, options={"trace": True})
    readings = Readings.from_options({**run.options, "threads": 2})
    assert readings == Readings(gang="block", trace=True)
    with pytest.raises(dmlsched.OptionError, match="placement"):
        Readings(placement="slowest")
    with pytest.raises(dmlsched.OptionError, match="grouped"):
        Readings(grouped="yes")
    inst = generate(num_jobs=8, num_gpus=4, seed=2, num_groups=None)
    sim, details = simulate(inst, "fifo", readings=readings, run=run)
    res = dmlsched.solve(inst, "fifo", seed=3, trace=True)
    assert sim.start.tolist() == res.solution.start.tolist() and sim.gpu.tolist() == res.solution.gpu.tolist()
    assert details["gang"] == "block" and details["records"] == res.details["records"]
