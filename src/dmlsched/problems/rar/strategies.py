"""Hypothesis strategies for RAR-DDLS instances.

``rar_instances`` draws valid instances of any size; ``rar_tiny_instances``
draws instances small enough for the ``exact`` method (schedule enumeration);
``rar_single_gpu_instances`` draws contention-free instances of 1-GPU jobs
(where Theorem 5 claims ratio 1).  Floor-mode draws whose worst-case ``tau``
exceeds one slot fall back to ``"progress": "fractional"``, so every draw is
a valid instance.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ...errors import InstanceError
from ...fuzz import HypothesisDraws
from .instance import RarInstance, from_dict
from .sample import random_instance

__all__ = ["rar_instances", "rar_tiny_instances", "rar_single_gpu_instances"]


def _build(d: dict) -> RarInstance:
    try:
        return from_dict(d)
    except InstanceError:
        d = dict(d, progress="fractional")
        return from_dict(d)


@st.composite
def rar_instances(draw, *, max_jobs: int = 4, max_servers: int = 3, max_capacity: int = 4,
                  max_iterations: int = 20, horizon: int = 200, progress: str | None = None,
                  min_jobs: int = 1) -> RarInstance:
    """A valid RAR-DDLS instance with small integers and moderate times, built by the
    family's one random builder (:func:`dmlsched.problems.rar.sample.random_instance`)
    through :class:`~dmlsched.fuzz.HypothesisDraws` (``xi1`` in {0.5, 1}, backward
    times from 0, inter-server bandwidths up to 40, either progress reading unless
    ``progress`` is given)."""
    d = random_instance(HypothesisDraws(draw), jobs=max_jobs, servers=max_servers, capacity=max_capacity,
                        iterations=max_iterations, horizon=horizon, min_jobs=min_jobs, xi1=(0.5, 1.0),
                        bp_times=(0.0, 0.02, 0.05, 0.1), inter=(5.0, 10.0, 20.0, 40.0),
                        progress=(progress,) if progress else ("floor", "fractional"))
    return _build(d)


def rar_tiny_instances(*, max_jobs: int = 3) -> st.SearchStrategy[RarInstance]:
    """Instances small enough for ``exact`` (at most 3 jobs, 2 servers of <= 2 GPUs)."""
    return rar_instances(max_jobs=max_jobs, max_servers=2, max_capacity=2, max_iterations=8, horizon=30,
                         min_jobs=2)


@st.composite
def rar_single_gpu_instances(draw, *, max_jobs: int = 5, max_gpus: int = 3) -> RarInstance:
    """Only 1-GPU jobs on one server: no contention, ``phi = u = l = n_g = 1``."""
    n = draw(st.integers(1, max_jobs))
    jobs = [{"id": f"j{i}", "gpus": 1, "iterations": draw(st.integers(1, 6)), "grad_size": 0.0,
             "fp_time": 0.0, "batch": 1, "bp_time": 0.4} for i in range(n)]
    d = {"problem": "rar", "servers": [draw(st.integers(1, max_gpus))],
         "bandwidth": {"intra": 100.0, "inter": 10.0}, "gpu_speed": 100.0, "xi1": 1.0, "xi2": 0.1,
         "alpha": 0.5, "horizon": 40, "jobs": jobs}
    return from_dict(d)
