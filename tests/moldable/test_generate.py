"""The paper-like generator: valid, seeded, and usable by every policy."""

from __future__ import annotations

import numpy as np
import pytest

import dmlsched
from dmlsched.generate.moldable import gpu_workload, offered_load, paper_like, swf


def test_seeded_and_valid():
    a = paper_like(seed=3)
    b = paper_like(seed=3)
    c = paper_like(seed=4)
    assert dmlsched.to_dict(a) == dmlsched.to_dict(b) != dmlsched.to_dict(c)
    assert dmlsched.to_dict(dmlsched.loads(dmlsched.dumps(a))) == dmlsched.to_dict(a)
    assert {t.pmin_den for t in a.tasks} == {4} and {t.p_max for t in a.tasks} == {4}
    r = paper_like(seed=3, rigid=True)
    assert {(t.pmin_den, t.p_max) for t in r.tasks} == {(1, 1)}


def test_policies_run_on_generated_instances():
    inst = paper_like(num_gpus=6, num_bags=4, tasks_per_bag=(2, 8), seed=1, preemption_overhead=150.0)
    rigid = paper_like(num_gpus=6, num_bags=4, tasks_per_bag=(2, 8), seed=1, rigid=True)
    flows = {m: dmlsched.solve(inst, m).details["metrics"]["avg_flow"]
             for m in ("moldable-equi", "malleable-equi", "moldable-prop", "malleable-prop")}
    flows["rigid-fcfs"] = dmlsched.solve(rigid, "rigid-fcfs").details["metrics"]["avg_flow"]
    assert all(v > 0 for v in flows.values())


def test_swf_generator_whole_trace_sizes_and_load(traces_dir):
    if not (traces_dir / "swf" / "lublin_256.swf").exists():
        pytest.skip("lublin_256.swf is absent")
    whole = swf()  # the paper's scale: the whole trace on the trace's own machine size
    assert whole.num_tasks == 10_000 and whole.gpus == 256
    assert {t.p_max for t in whole.tasks} == {256}
    assert all(t.p_req == t.request for t in whole.tasks)
    big = swf(num_gpus=1024, num_jobs=50)
    assert big.num_tasks == 50 and {t.p_max for t in big.tasks} == {256}  # capped at the machine size
    assert {t.p_max for t in swf(num_gpus=1024, num_jobs=50, moldable_max="cluster").tasks} == {1024}
    light = swf(load=0.25)
    assert abs(offered_load(light) - 0.25) < 0.01 and light.gpus > 256
    assert swf(seed=1, num_jobs=20).name == swf(seed=2, num_jobs=20).name  # the trace is fixed


def test_swf_generator_rejects_bad_arguments():
    with pytest.raises(ValueError, match="num_gpus and load"):
        swf(num_gpus=8, load=0.5)
    with pytest.raises(ValueError, match="load"):
        swf(load=-1)
    with pytest.raises(ValueError, match="num_jobs"):
        swf(num_jobs=0)
    with pytest.raises(TypeError):
        swf(0)  # keyword-only, seed included


def test_gpu_workload_statistics_and_bag_arrival_readings():
    burst = gpu_workload(num_tasks=3000, num_gpus=6, bag_arrivals="burst", seed=2)
    assert burst.num_tasks == 3000 and len({t.user for t in burst.tasks}) <= 14
    bags = {t.id.split("t")[0] for t in burst.tasks}
    assert len(bags) == round(3000 * 2317 / 77677)
    assert {(t.pmin_den, t.p_max, t.p_req) for t in burst.tasks} == {(4, 4, 1)}
    # the volume fills 6 GPUs over the bags' submission period: offered load about 1 on 6 GPUs
    assert 0.8 < offered_load(burst) < 1.2

    def bag_gaps(inst):
        by = {}
        for t in inst.tasks:
            b, i = t.id[1:].split("t")
            by.setdefault(b, []).append((int(i), t.arrival, t.volume))
        gaps = []
        for ts in by.values():
            ts.sort()
            gaps += [(a2 - a1, v1) for (_, a1, v1), (_, a2, _) in zip(ts, ts[1:])]
        return np.array(gaps)

    g = bag_gaps(burst)
    assert np.median(g[:, 0]) < 60  # within minutes: they run during each other
    chain = bag_gaps(gpu_workload(num_tasks=3000, num_gpus=6, bag_arrivals="chain", seed=2))
    assert np.all(chain[:, 0] >= chain[:, 1] - 1e-3) and np.all(chain[:, 0] <= chain[:, 1] + 60 + 1e-3)
    mixed = bag_gaps(gpu_workload(num_tasks=3000, num_gpus=6, seed=2))
    after = np.mean(mixed[:, 0] >= mixed[:, 1] - 1e-3)
    assert 0.2 < after < 0.9  # some bags chained, some not
    with pytest.raises(ValueError, match="bag_arrivals"):
        gpu_workload(num_tasks=10, bag_arrivals="poisson")
