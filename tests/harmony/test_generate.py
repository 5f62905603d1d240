"""The evaluation-workload generator (Section 4.4.2)."""

from __future__ import annotations

import collections

import pytest

import dmlsched
from dmlsched.generate.harmony import DATASETS, evaluation_workload, sample_workload


def test_eighty_jobs_on_hundred_machines():
    inst = evaluation_workload(seed=0)
    assert inst.num_jobs == 80 and inst.machines == 100 and inst.reference_dop == 16
    assert len({j.id for j in inst.jobs}) == 80
    tuples = collections.Counter(j.id.rsplit("-h", 1)[0] for j in inst.jobs)
    assert len(tuples) == len(DATASETS) == 8 and set(tuples.values()) == {10}
    assert {j.id.rsplit("-h", 1)[1] for j in inst.jobs} == {str(h) for h in range(10)}
    ratio = sorted(j.t_cpu / j.t_net for j in inst.jobs)
    assert ratio[0] < 0.5 < 2 < ratio[-1]  # both CPU- and network-heavy jobs
    assert inst.has_iterations


def test_seeded():
    a, b, c = evaluation_workload(seed=5), evaluation_workload(seed=5), evaluation_workload(seed=6)
    assert dmlsched.to_dict(a) == dmlsched.to_dict(b)
    assert dmlsched.to_dict(a) != dmlsched.to_dict(c)
    assert dmlsched.to_dict(sample_workload(seed=3)) == dmlsched.to_dict(sample_workload(seed=3))


def test_scaled_and_sampled_round_trip():
    big = evaluation_workload(seed=1, num_jobs=200, num_machines=250)
    assert big.num_jobs == 200 and len({j.id for j in big.jobs}) == 200
    small = sample_workload(seed=2, num_jobs=5, num_machines=6)
    assert small.num_jobs == 5 and small.reference_dop == 16 * 6 / 100
    assert dmlsched.to_dict(dmlsched.loads(dmlsched.dumps(small))) == dmlsched.to_dict(small)


def test_reference_dop_scales_the_profile_not_the_work():
    # t_cpu is profiled at DoP c, so T_cpu_j(m) = t_cpu * c / m must not depend on c
    # (the generator once divided by the constant 16 whatever c it was given)
    base = evaluation_workload(seed=2, num_jobs=16, num_machines=20)
    for c in (1, 4, 32):
        other = evaluation_workload(seed=2, num_jobs=16, num_machines=20, reference_dop=c)
        assert other.reference_dop == c
        for j in range(base.num_jobs):
            assert other.cpu_time(j, 7) == pytest.approx(base.cpu_time(j, 7), rel=1e-5)
            assert other.jobs[j].t_net == base.jobs[j].t_net
