"""The faster moldable/malleable engine (issue 23) gives exactly the schedules of the one it
replaced.

``reference_simulator.py`` and ``reference_policies.py`` are verbatim copies of the
simulator and the allocation rules before the change; every test runs both on the same
instance and compares every segment (task, start, end, share, GPUs) bit for bit, and the
counters (events, decisions, preemptions).
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

import dmlsched
from dmlsched.generate.moldable import batch, gpu_workload, openb, paper_like, swf
from dmlsched.problems.moldable import incremental, policies, simulator
from dmlsched.problems.moldable import solution as new
from dmlsched.problems.moldable.instance import MoldableInstance, MoldableTask, SpeedupCurve
from dmlsched.problems.moldable.solution import MoldableSchedule
from dmlsched.traces.common import TracesNotFound

from . import reference_policies, reference_simulator
from . import reference_solution as old

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

#: (rule name, malleable, current_first, rigid queue)
RUNS = (
    [("rigid-fcfs", False, False, q) for q in policies.QUEUES]
    + [("rigid-shortest", False, False, "first-fit")]
    + [("equi", False, False, None), ("prop", False, False, None)]
    + [(r, True, cf, None) for r in ("equi", "prop") for cf in (False, True)]
)
IDS = [f"{'malleable' if m else 'moldable'}-{r}{'-' + q if q else ''}{'-current-first' if cf else ''}"
       for r, m, cf, q in RUNS]


def _rule(mod, name, queue):
    if name.startswith("rigid"):
        return mod.rigid("arrival" if name == "rigid-fcfs" else "volume", queue)
    return mod.RULES[name]


def _same(inst: MoldableInstance, name: str, malleable: bool, current_first: bool, queue: str | None):
    new, sn = simulator.simulate(inst, _rule(policies, name, queue), malleable=malleable, current_first=current_first)
    old, so = reference_simulator.simulate(inst, _rule(reference_policies, name, queue), malleable=malleable,
                                           current_first=current_first)
    for field in ("task", "start", "end", "share_den", "gpu_ptr", "gpu_idx"):
        a, b = getattr(new, field), getattr(old, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), field
    assert (sn.events, sn.decisions, sn.preemptions) == (so.events, so.decisions, so.preemptions)
    return new, sn


def swf_like(seed: int, tasks: int = 400, gpus: int = 64, threshold: float = 300.0) -> MoldableInstance:
    """The shape of the SWF setup (every task on 1..|G| whole GPUs, linear speedup, no
    memory, the preemption threshold) without the trace: Poisson arrivals, log-normal volumes."""
    rng = np.random.default_rng(seed)
    arr = np.cumsum(rng.exponential(60.0, tasks))
    vol = np.exp(rng.normal(8.0, 1.5, tasks))
    req = rng.integers(1, gpus + 1, tasks)
    ts = tuple(MoldableTask(id=f"j{k}", user=f"u{k % 7}", arrival=float(arr[k]), volume=float(vol[k]), pmin_den=1,
                            p_max=gpus, memory=0.0, p_req=int(req[k])) for k in range(tasks))
    return MoldableInstance(gpus=gpus, gpu_memory=1.0, speedup=SpeedupCurve.linear(gpus), tasks=ts,
                            preemption_overhead=0.0, preemption_min_remaining=threshold, name=f"swf-like-{seed}")


def _bundled():
    return [pytest.param(p, id=p.stem) for p in sorted((INSTANCES / "moldable").glob("*.json"))]


@pytest.mark.parametrize("path", _bundled())
@pytest.mark.parametrize("name,malleable,current_first,queue", RUNS, ids=IDS)
def test_bundled_instances_same_schedules(path, name, malleable, current_first, queue):
    _same(dmlsched.load(path), name, malleable, current_first, queue)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name,malleable,current_first,queue", RUNS, ids=IDS)
def test_generated_instances_same_schedules(seed, name, malleable, current_first, queue):
    """The paper-like workload (shares, memory, a sublinear curve), the statistics of the
    paper's GPU trace with a preemption overhead, the competitive-ratio setting and the
    SWF-like shape."""
    for inst in (paper_like(seed=seed, num_gpus=6),
                 gpu_workload(seed=seed, num_gpus=6, num_tasks=150, preemption_overhead=5.0),
                 batch(seed=seed, num_gpus=4, num_tasks=12, arrivals="online"),
                 swf_like(seed, tasks=150, gpus=32)):
        _same(inst, name, malleable, current_first, queue)


@pytest.mark.parametrize("current_first", [False, True])
def test_swf_like_malleable_equipartition_same_schedules(current_first):
    """Malleable Equipartition at a scale where every case occurs (more tasks than GPUs:
    case 1; D'Hondt on the vacant GPUs: case 3; a lone task: case 2) and many tasks are
    pinned by the preemption threshold."""
    sched, stats = _same(swf_like(7, tasks=600, gpus=48, threshold=3000.0), "equi", True, current_first, None)
    assert stats.preemptions > 300 and sched.num_segments > 900


def test_traces_same_schedules_when_available():
    """The Lublin SWF trace's first 1,500 jobs and openb at 20 GPUs, when the traces folder is
    available (``DMLSCHED_TRACES``)."""
    try:
        insts = [swf(num_gpus=256, num_jobs=1500), openb(num_gpus=20)]
    except TracesNotFound:
        pytest.skip("traces folder not available")
    for inst in insts:
        for cf in (False, True):
            _same(inst, "equi", True, cf, None)


def _eq(a, b) -> bool:
    """Equal, NaN equal to NaN (a task never scheduled has no completion)."""
    return a == b or (a != a and b != b)


def _broken(sched, rng):
    """A copy of ``sched`` with one random defect (a shifted time, a GPU, a share, a dropped
    segment), for the validators' messages."""
    arrays = {f: getattr(sched, f).copy() for f in ("task", "start", "end", "share_den", "gpu_ptr", "gpu_idx")}
    j = int(rng.integers(sched.num_segments))
    what = int(rng.integers(5))
    if what == 0:
        arrays["start"][j] -= float(rng.uniform(1, 100))
    elif what == 1:
        arrays["end"][j] += float(rng.uniform(1, 100))
    elif what == 2 and arrays["gpu_idx"].size:
        arrays["gpu_idx"][int(rng.integers(arrays["gpu_idx"].size))] = 0
    elif what == 3:
        arrays["share_den"][j] = 2
    else:
        keep = np.arange(sched.num_segments) != j
        lens = np.diff(arrays["gpu_ptr"])
        starts = arrays["gpu_ptr"][:-1]
        arrays["gpu_idx"] = np.concatenate([arrays["gpu_idx"][a:a + n] for a, n in zip(starts[keep], lens[keep])]
                                           or [np.zeros(0, np.int64)])
        arrays["gpu_ptr"] = np.r_[0, np.cumsum(lens[keep])]
        for f in ("task", "start", "end", "share_den"):
            arrays[f] = arrays[f][keep]
    return MoldableSchedule(**arrays)


@pytest.mark.parametrize("seed", range(3))
def test_validator_and_evaluator_unchanged(seed):
    """The shared replay (``solution.check``) gives the old validator's verdicts and messages
    and the old evaluator's values and metrics, on valid schedules and on broken copies."""
    rng = np.random.default_rng(seed)
    for inst in (paper_like(seed=seed, num_gpus=6), gpu_workload(seed=seed, num_gpus=6, num_tasks=120,
                                                                  preemption_overhead=5.0), swf_like(seed, 150, 32),
                 whole_gpu(3 * seed), whole_gpu(3 * seed + 1)):
        for malleable in (False, True):
            sched, _ = simulator.simulate(inst, "equi", malleable=malleable)
            cases = [sched] + [_broken(sched, rng) for _ in range(12)]
            for s in cases:
                try:
                    old.validate(inst, s)
                    err_old = None
                except dmlsched.InvalidSolutionError as e:
                    err_old = str(e)
                for _ in range(2):  # the second time from the kept outcome
                    try:
                        new.validate(inst, s)
                        err_new = None
                    except dmlsched.InvalidSolutionError as e:
                        err_new = str(e)
                    assert err_new == err_old
                try:
                    ref = old.replay(inst, s, check=False)
                except Exception:  # noqa: BLE001 - a schedule too broken to replay at all
                    continue
                got = new._progress(inst, s)
                assert np.array_equal(got.completion, ref.completion, equal_nan=True)
                assert np.array_equal(got.first_start, ref.first_start, equal_nan=True)
                assert np.array_equal(got.preemptions, ref.preemptions)
                assert _eq(new.evaluate(inst, s), old.evaluate(inst, s))
                mn, mo = new.metrics(inst, s), old.metrics(inst, s)
                assert mn.keys() == mo.keys() and all(_eq(mn[k], mo[k]) for k in mn)


def test_changing_a_schedule_runs_the_checks_again():
    inst = paper_like(seed=1, num_gpus=6)
    sched, _ = simulator.simulate(inst, "equi", malleable=True)
    new.validate(inst, sched)
    v = new.evaluate(inst, sched)
    sched.start[0] -= 10_000.0  # in place: the fingerprint changes
    with pytest.raises(dmlsched.InvalidSolutionError, match="S1"):
        new.validate(inst, sched)
    other = paper_like(seed=2, num_gpus=6)
    sched2, _ = simulator.simulate(other, "equi", malleable=True)
    assert new.evaluate(other, sched2) != v


@pytest.mark.parametrize("seed", range(4))
def test_allocation_checks_unchanged_on_unsorted_and_repeated_gpus(seed):
    """(S2) on GPU lists in any order, some with a GPU twice: the same verdict and message
    as the old check (which sorted every segment's list)."""
    rng = np.random.default_rng(seed)
    inst = swf_like(seed, tasks=40, gpus=16)
    sched, _ = simulator.simulate(inst, "equi", malleable=True)
    for _ in range(20):
        idx = sched.gpu_idx.copy()
        for j in rng.choice(sched.num_segments, size=5):
            a, b = int(sched.gpu_ptr[j]), int(sched.gpu_ptr[j + 1])
            idx[a:b] = rng.permutation(idx[a:b])
            if b - a > 1 and rng.random() < 0.3:
                idx[b - 1] = idx[a]
        s = MoldableSchedule(task=sched.task, start=sched.start, end=sched.end, share_den=sched.share_den,
                             gpu_ptr=sched.gpu_ptr, gpu_idx=idx)
        msgs = []
        for mod in (old, new):
            try:
                mod.validate(inst, s)
                msgs.append(None)
            except dmlsched.InvalidSolutionError as e:
                msgs.append(str(e))
        assert msgs[0] == msgs[1]


def test_pickled_schedule_leaves_the_kept_checks_behind():
    inst = paper_like(seed=1, num_gpus=6)
    sched, _ = simulator.simulate(inst, "equi", malleable=True)
    dmlsched.problems.moldable.solution.validate(inst, sched)
    for other in (pickle.loads(pickle.dumps(sched)), copy.deepcopy(sched)):
        assert "_checked" not in other.__dict__ and np.array_equal(other.start, sched.start)


def whole_gpu(seed: int, tasks: int = 80, gpus: int = 12) -> MoldableInstance:
    """Whole-GPU tasks (``p_min = 1``, the incremental Equipartition's domain) with what makes
    its decisions differ: unequal ``p_max`` (D'Hondt with caps that bind), a preemption
    overhead, integer arrivals and volumes (simultaneous events and completions, zero-length
    segments), volumes below the threshold, a sublinear curve, every case of Equipartition."""
    rng = np.random.default_rng(seed)
    arr = np.floor(np.cumsum(rng.exponential(rng.choice([2.0, 20.0]), tasks)))
    vol = np.ceil(np.exp(rng.normal(3.5, 1.2, tasks)))
    pmax = rng.choice([1, 2, 3, gpus], tasks) if seed % 3 else np.full(tasks, rng.integers(1, gpus + 1))
    ts = tuple(MoldableTask(id=f"t{k}", user="u", arrival=float(arr[k]), volume=float(vol[k]), pmin_den=1,
                            p_max=int(pmax[k]), memory=0.0) for k in range(tasks))
    curve = SpeedupCurve.linear(gpus) if seed % 2 else SpeedupCurve(((1.0, 1.0), (2.0, 1.8), (4.0, 3.0)))
    return MoldableInstance(gpus=gpus, gpu_memory=1.0, speedup=curve, tasks=ts,
                            preemption_overhead=float(rng.choice([0.0, 1.0, 3.0])),
                            preemption_min_remaining=float(rng.choice([0.0, 5.0, 30.0])), name=f"whole-{seed}")


@pytest.mark.parametrize("current_first", [False, True])
def test_incremental_equipartition_same_schedules(current_first):
    """Malleable Equipartition on whole-GPU instances runs the incremental engine
    (``incremental.py``); its segments and counters are the reference's, bit for bit."""
    for seed in range(40):
        inst = whole_gpu(seed)
        assert incremental.applies(inst)
        _same(inst, "equi", True, current_first, None)
    assert not incremental.applies(paper_like(seed=0, num_gpus=6))  # shares: the general engine


#: (arrival, volume, p_max) at 1e9 s, where a second is about 8.4 million units in the last place
#: (ULP = 2**-23 s): volumes a few ULPs off whole seconds leave a task a remaining volume that a
#: larger allocation finishes within half a ULP, i.e. at the instant it restarts, and the engine
#: decides again at that instant.  Found by a search over such instances; each one takes a path
#: of the incremental engine nothing else does: (a) a completion at the instant of the restart
#: (a zero-length segment whose overhead charge is undone), (b) a stop at the instant of the
#: start, (c) an allocation given back at the instant it was taken away (a continuation: the
#: closed segment is reopened).
ULP = 2.0 ** -23
SAME_INSTANT = {
    "a": [(0.0, 20 - 2 * ULP, 6), (0.0, 20 - 3 * ULP, 6), (5.0, 20 - 8 * ULP, 2), (5.0, 10 + 6 * ULP, 3)],
    "b": [(0.0, 20.0, 6), (5.0, 40 - 4 * ULP, 2), (0.0, 20 + 3 * ULP, 7)],
    "c": [(0.0, 10 - 3 * ULP, 3), (0.0, 40 - 4 * ULP, 2), (0.0, 10 + 8 * ULP, 1), (0.0, 10 - 4 * ULP, 1)],
}


@pytest.mark.parametrize("case", sorted(SAME_INSTANT))
@pytest.mark.parametrize("current_first", [False, True])
def test_incremental_equipartition_same_instant_decisions(case, current_first):
    ts = tuple(MoldableTask(id=f"t{k}", user="u", arrival=1e9 + a, volume=v, pmin_den=1, p_max=p, memory=0.0)
               for k, (a, v, p) in enumerate(SAME_INSTANT[case]))
    inst = MoldableInstance(gpus=8 if case != "c" else 4, gpu_memory=1.0, speedup=SpeedupCurve.linear(8),
                            tasks=ts, preemption_overhead=0.0, preemption_min_remaining=0.0, name=case)
    sched, stats = _same(inst, "equi", True, current_first, None)
    assert stats.decisions > len(set(sched.start.tolist()) | set(sched.end.tolist()))
