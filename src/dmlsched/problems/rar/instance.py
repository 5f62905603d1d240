"""RAR-DDLS instances (Yu, Ji, Rajan, Liu, MobiHoc'22, Section 4).

A cluster of servers ``s`` with ``O_s`` identical GPUs runs ring-all-reduce
jobs over a horizon of ``T`` time slots.  Job ``j`` asks for ``G_j`` GPUs and
``F_j`` iterations; its per-iteration time in a slot is the paper's (8)::

    tau_j = (m_j/w_j) 2 (w_j - 1) / B_j + (m_j/w_j)(w_j - 1) / C
            + xi2 * (#servers used) + Delta^f_j M_j + Delta^b_j,    w_j = G_j,

with ``B_j = b^i`` on one server and ``b^e / f(alpha, max(1, xi1 p_j))``
otherwise, ``f(alpha, k) = k + alpha (k - 1)`` (see ``models/rar.md`` for the
readings).  Progress per slot is ``floor(1/tau)`` (``"progress": "floor"``,
the paper's (9), default) or ``1/tau`` (``"progress": "fractional"``).

In floor mode an instance whose worst-case ``tau_j`` exceeds one slot is
rejected (``InstanceError``): such a job could make zero progress forever.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, ident, integer, number, obj, string
from ...io import Reader

#: tolerance of ``floor(1/tau)`` against round-off (``floor(1/tau + PHI_EPS)``)
PHI_EPS = 1e-9


@dataclass(frozen=True)
class RarJob:
    """One ring-all-reduce job (Table 1: ``G_j, F_j, m_j, Delta^f_j, M_j, Delta^b_j``)."""

    id: str
    gpus: int
    iterations: int
    grad_size: float
    fp_time: float
    batch: float
    bp_time: float


@dataclass(frozen=True, eq=False)
class RarInstance:
    """A RAR-DDLS instance (all jobs present at slot 0)."""

    servers: tuple[int, ...]
    jobs: tuple[RarJob, ...]
    bw_intra: float
    bw_inter: float
    gpu_speed: float
    xi1: float
    xi2: float
    alpha: float
    horizon: int
    progress: str = "floor"
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    # -- sizes ----------------------------------------------------------------
    @property
    def num_servers(self) -> int:
        return len(self.servers)

    @property
    def num_jobs(self) -> int:
        return len(self.jobs)

    @cached_property
    def num_gpus(self) -> int:
        return int(sum(self.servers))

    @cached_property
    def offsets(self) -> np.ndarray:
        """Global index of each server's first GPU; ``offsets[-1] == num_gpus``."""
        return np.concatenate([[0], np.cumsum(self.servers)]).astype(np.int64)

    @cached_property
    def gpu_server(self) -> np.ndarray:
        """Server of every global GPU index."""
        return np.repeat(np.arange(self.num_servers, dtype=np.int64), self.servers)

    @cached_property
    def G(self) -> np.ndarray:
        return np.array([j.gpus for j in self.jobs], dtype=np.int64)

    @cached_property
    def F(self) -> np.ndarray:
        return np.array([j.iterations for j in self.jobs], dtype=np.int64)

    @property
    def n_g(self) -> int:
        """``n_g = max_j G_j`` (Theorem 1)."""
        return int(self.G.max())

    # -- the per-iteration time (8) ------------------------------------------
    @cached_property
    def exch_coef(self) -> np.ndarray:
        """``(m_j/w_j) 2 (w_j-1)``: data exchanged per iteration (divided by ``B_j`` in (8))."""
        return np.array([j.grad_size / j.gpus * 2 * (j.gpus - 1) for j in self.jobs], dtype=float)

    @cached_property
    def base_time(self) -> np.ndarray:
        """Placement-independent part of (8): ``(m/w)(w-1)/C + Delta^f M + Delta^b``."""
        return np.array(
            [j.grad_size / j.gpus * (j.gpus - 1) / self.gpu_speed + j.fp_time * j.batch + j.bp_time
             for j in self.jobs],
            dtype=float,
        )

    def degradation(self, p: float) -> float:
        """``f(alpha, k)`` at ``k = max(1, xi1 p)``: ``k + alpha (k - 1)`` (>= 1)."""
        k = max(1.0, self.xi1 * p)
        return k + self.alpha * (k - 1.0)

    def tau(self, j: int, n_servers: int, p: int) -> float:
        """Per-iteration time (8) of job ``j`` on ``n_servers`` servers with contention ``p``.

        ``p`` is the paper's ``p_j[t]`` (6): 0 when ``n_servers == 1``.
        """
        e = float(self.exch_coef[j])
        if n_servers <= 1:
            return e / self.bw_intra + float(self.base_time[j]) + self.xi2
        return e * self.degradation(p) / self.bw_inter + float(self.base_time[j]) + self.xi2 * n_servers

    def rate(self, tau: float) -> float:
        """Progress per slot: ``floor(1/tau)`` (floor mode) or ``1/tau`` (fractional)."""
        if self.progress == "floor":
            return float(math.floor(1.0 / tau + PHI_EPS))
        return 1.0 / tau

    def slots_needed(self, remaining: float, rate: float) -> int:
        """Slots to complete ``remaining`` iterations at ``rate`` per slot."""
        if self.progress == "floor":
            r = int(rate)
            return -(-int(round(remaining)) // r)
        return max(0, math.ceil(remaining / rate - 1e-9))

    # -- ranges used by bounds and instance validation -------------------------
    @cached_property
    def p_max(self) -> int:
        """Largest possible ``p_j[t]``: ``min(max_s O_s, #jobs with G_j >= 2)``."""
        multi = int((self.G >= 2).sum())
        return max(1, min(max(self.servers), multi))

    def _min_servers_multi(self, g: int) -> int:
        caps = sorted(self.servers, reverse=True)
        tot, k = 0, 0
        for c in caps:
            tot += c
            k += 1
            if tot >= g:
                break
        return max(2, k)

    @cached_property
    def tau_range(self) -> tuple[np.ndarray, np.ndarray]:
        """Smallest and largest possible ``tau_j`` over all placements and contention."""
        lo = np.empty(self.num_jobs)
        hi = np.empty(self.num_jobs)
        omax = max(self.servers)
        S = self.num_servers
        for j, job in enumerate(self.jobs):
            opts_lo, opts_hi = [], []
            if job.gpus <= omax:
                t1 = self.tau(j, 1, 0)
                opts_lo.append(t1)
                opts_hi.append(t1)
            if job.gpus >= 2 and S >= 2:
                opts_lo.append(self.tau(j, self._min_servers_multi(job.gpus), 1))
                opts_hi.append(self.tau(j, min(job.gpus, S), self.p_max))
            lo[j] = min(opts_lo)
            hi[j] = max(opts_hi)
        return lo, hi

    @cached_property
    def rho_range(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rho_min, rho_max)``: fewest and most slots job ``j`` can take to finish."""
        lo, hi = self.tau_range
        rmin = np.array([self.slots_needed(f, self.rate(t)) for f, t in zip(self.F, lo)], dtype=np.int64)
        rmax = np.array([self.slots_needed(f, self.rate(t)) for f, t in zip(self.F, hi)], dtype=np.int64)
        return rmin, rmax


def _validate(inst: RarInstance) -> None:
    if not inst.servers:
        raise InstanceError("servers", "must list at least one server")
    if not inst.jobs:
        raise InstanceError("jobs", "must list at least one job")
    if inst.progress not in ("floor", "fractional"):
        raise InstanceError("progress", f"must be 'floor' or 'fractional', got {inst.progress!r}")
    seen: set[str] = set()
    total = sum(inst.servers)
    for n, j in enumerate(inst.jobs):
        if j.id in seen:
            raise InstanceError(f"jobs[{n}].id", f"duplicate job id {j.id!r}")
        seen.add(j.id)
        if j.gpus > total:
            raise InstanceError(f"jobs[{n}].gpus", f"asks for {j.gpus} GPUs, the cluster has {total}")
    lo, hi = inst.tau_range
    for n in range(inst.num_jobs):
        if not (math.isfinite(hi[n]) and lo[n] > 0):
            raise InstanceError(f"jobs[{n}]", "per-iteration time (8) is not a positive finite number")
        if inst.progress == "fractional" and not inst.rate(hi[n]) > 0:
            raise InstanceError(f"jobs[{n}]", f"worst-case per-iteration time tau = {hi[n]:.6g} gives no progress")
        if inst.progress == "floor" and inst.rate(hi[n]) < 1:
            raise InstanceError(
                f"jobs[{n}]",
                f"worst-case per-iteration time tau = {hi[n]:.6g} exceeds one slot, so floor(1/tau) = 0 "
                "progress (paper's (9)); shorten the job's times or set \"progress\": \"fractional\"",
            )


#: sanity limits of the loader (arrays are sized by them)
MAX_GPUS_PER_SERVER = 100_000
MAX_GPUS = 10_000_000
MAX_ITERATIONS = 10**12

KEYS = ("servers", "bandwidth", "gpu_speed", "xi1", "xi2", "alpha", "horizon", "jobs", "progress")
JOB_KEYS = ("id", "gpus", "iterations", "grad_size", "fp_time", "batch", "bp_time")


def from_dict(data: Any) -> RarInstance:
    """Parse and validate a ``"problem": "rar"`` instance."""
    r = Reader(data)
    r.check_keys(KEYS, common=True)
    servers = tuple(c.as_int(ge=1, le=MAX_GPUS_PER_SERVER) for c in r.items("servers", min_len=1))
    if sum(servers) > MAX_GPUS:
        raise r.error(f"at most {MAX_GPUS} GPUs in all, got {sum(servers)}", "servers")
    bw = r["bandwidth"]
    bw.check_keys(("intra", "inter"))
    jobs = []
    for jr in r.items("jobs", min_len=1):
        jr.check_keys(JOB_KEYS)
        jobs.append(
            RarJob(
                id=jr["id"].as_id(),
                gpus=jr.integer("gpus", ge=1),
                iterations=jr.integer("iterations", ge=1, le=MAX_ITERATIONS),
                grad_size=jr.number("grad_size", ge=0),
                fp_time=jr.number("fp_time", ge=0),
                batch=jr.number("batch", ge=0),
                bp_time=jr.number("bp_time", ge=0),
            )
        )
    expected = r["expected"].obj() if r.has("expected") else {}
    progress = r.string("progress", "floor")
    if progress not in ("floor", "fractional"):
        raise r.error(f"must be 'floor' or 'fractional', got {progress!r}", "progress")
    return RarInstance(
        servers=servers,
        jobs=tuple(jobs),
        bw_intra=bw.number("intra", gt=0),
        bw_inter=bw.number("inter", gt=0),
        gpu_speed=r.number("gpu_speed", gt=0),
        xi1=r.number("xi1", gt=0, le=1),
        xi2=r.number("xi2", gt=0, le=1),
        alpha=r.number("alpha", ge=0),
        horizon=r.integer("horizon", ge=1, le=10**9),
        progress=progress,
        name=r.string("name", "", nonempty=False),
        expected=dict(expected),
    )


def to_dict(inst: RarInstance) -> dict:
    d: dict[str, Any] = {"problem": "rar"}
    if inst.name:
        d["name"] = inst.name
    d.update(
        servers=list(inst.servers),
        bandwidth={"intra": inst.bw_intra, "inter": inst.bw_inter},
        gpu_speed=inst.gpu_speed,
        xi1=inst.xi1,
        xi2=inst.xi2,
        alpha=inst.alpha,
        horizon=inst.horizon,
    )
    if inst.progress != "floor":
        d["progress"] = inst.progress
    d["jobs"] = [
        {"id": j.id, "gpus": j.gpus, "iterations": j.iterations, "grad_size": j.grad_size,
         "fp_time": j.fp_time, "batch": j.batch, "bp_time": j.bp_time}
        for j in inst.jobs
    ]
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: RarInstance) -> dict:
    return {"jobs": inst.num_jobs, "servers": inst.num_servers, "gpus": inst.num_gpus,
            "horizon": inst.horizon}


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "rar"`` instance files (``Family.schema``)."""
    job = obj({
        "id": ident("job id, unique"),
        "gpus": integer("GPUs G_j the job asks for", ge=1),
        "iterations": integer("iterations F_j", ge=1, le=10**12),
        "grad_size": number("gradient size m_j", ge=0),
        "fp_time": number("forward-pass time per sample Delta^f_j", ge=0),
        "batch": number("mini-batch size M_j", ge=0),
        "bp_time": number("backward-pass time Delta^b_j", ge=0),
    }, ("id", "gpus", "iterations", "grad_size", "fp_time", "batch", "bp_time"), "one ring-all-reduce job")
    return family_schema(
        "rar", "RAR-DDLS instance (MobiHoc'22, Section 4)",
        {"servers": array(integer("GPUs O_s of a server", ge=1, le=100_000), "the servers", min_items=1),
         "bandwidth": obj({"intra": number("intra-server bandwidth b^i", gt=0),
                           "inter": number("inter-server bandwidth b^e", gt=0)}, ("intra", "inter"),
                          "bandwidths"),
         "gpu_speed": number("GPU computation speed C", gt=0),
         "xi1": number("contention factor xi_1", gt=0, le=1),
         "xi2": number("per-server overhead xi_2", gt=0, le=1),
         "alpha": number("contention exponent alpha of f(alpha, k)", ge=0),
         "horizon": integer("time slots T", ge=1, le=10**9),
         "progress": string("iterations per slot: floor(1/tau) (the paper's (9)) or 1/tau",
                            enum=("floor", "fractional"), default="floor"),
         "jobs": array(job, "the jobs", min_items=1)},
        ("servers", "bandwidth", "gpu_speed", "xi1", "xi2", "alpha", "horizon", "jobs"),
        "Servers of identical GPUs and ring-all-reduce jobs over T slots; objective: makespan in slots.",
        ("job ids are unique", "every job fits the cluster (gpus <= the total)",
         "in floor mode every job's worst per-iteration time is at most one slot", "at most 1e7 GPUs in all"))
