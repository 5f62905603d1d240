"""The random and paper-setup generators (generate.py)."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.generate.hlas import grouping as random_grouping
from dmlsched.generate.hlas import paper_grouping


def test_generators():
    a = random_grouping(num_jobs=4, num_gpus=10, num_groups=3, seed=2)
    assert a.num_gpus == 10 and a.gpu_types.num_types == 10
    assert dmlsched.to_dict(a) == dmlsched.to_dict(random_grouping(num_jobs=4, num_gpus=10, num_groups=3, seed=2))
    b = random_grouping(num_jobs=4, num_gpus=10, num_groups=3, seed=2, num_types=3)
    assert b.gpu_types.counts == (4, 3, 3)
    p = paper_grouping(num_gpus=20, num_groups=4)
    assert p.gpu_types.counts == (5, 5, 5, 5) and p.num_jobs <= 8
    with pytest.raises(ValueError, match="groups"):
        random_grouping(num_jobs=2, num_gpus=3, num_groups=4)
