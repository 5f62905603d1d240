"""Cruise configurations: validator (Figure 3.2's constraints) and evaluator
(the epoch time (3.1)-(3.4)).

A configuration gives, per machine ``i``, the role indicators ``w_i`` (worker)
and ``s_i`` (server) of Figure 3.2, the number of training samples ``d_i`` and
the number of model units ``m_i``.  The validator checks, in plain code:

* roles are 0/1, **disjoint** (``w_i + s_i <= 1``) and **covering**
  (``w_i + s_i >= 1``), so ``||w|| + ||s|| = N``;
* at least one worker and at least one server;
* ``d`` and ``m`` are non-negative integers, ``sum_i d_i = D``,
  ``sum_j m_j = M``, and ``d_i = 0`` on servers, ``m_j = 0`` on workers.

The evaluator computes, for every worker ``i`` ((3.2)-(3.4)),

``C^i = C^i_proc d_i + ceil(d_i / B) * max(max_j m_j ||w|| / b_ij, sum_j m_j / b_ij)``

over servers ``j``, and returns ``C = max_i C^i`` (3.1).  Workers with
``d_i = 0`` are allowed (``C^i = 0``) and still count in ``||w||``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InvalidSolutionError
from ...gantt import GanttChart
from ...io import Reader
from .instance import CruiseInstance

WORKER, SERVER = "worker", "server"


@dataclass(eq=False)
class CruiseConfig:
    """A system configuration ``(w, s, d, m)`` of Figure 3.2 (one entry per machine)."""

    w: tuple[int, ...]
    s: tuple[int, ...]
    d: tuple[int, ...]
    m: tuple[int, ...]

    def __post_init__(self) -> None:
        self.w = tuple(_plain(x) for x in self.w)
        self.s = tuple(_plain(x) for x in self.s)
        self.d = tuple(_plain(x) for x in self.d)
        self.m = tuple(_plain(x) for x in self.m)

    @classmethod
    def from_roles(cls, roles: list[str] | tuple[str, ...], d, m) -> "CruiseConfig":
        """Build from a ``"worker"``/``"server"`` label per machine."""
        return cls(
            w=tuple(1 if r == WORKER else 0 for r in roles),
            s=tuple(1 if r == SERVER else 0 for r in roles),
            d=tuple(d),
            m=tuple(m),
        )

    @property
    def workers(self) -> list[int]:
        return [i for i, x in enumerate(self.w) if x == 1]

    @property
    def servers(self) -> list[int]:
        return [j for j, x in enumerate(self.s) if x == 1]

    @property
    def roles(self) -> list[str]:
        return [WORKER if wi == 1 else SERVER if si == 1 else "?" for wi, si in zip(self.w, self.s)]


def _plain(x: Any) -> Any:
    """numpy scalars -> Python numbers (keeps non-integers for the validator to reject)."""
    if isinstance(x, np.generic):
        return x.item()
    return x


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def validate(inst: CruiseInstance, c: CruiseConfig) -> None:
    """Raise :class:`InvalidSolutionError` naming the first violated constraint."""
    n = inst.num_machines
    for name, vec in (("w", c.w), ("s", c.s), ("d", c.d), ("m", c.m)):
        if len(vec) != n:
            raise InvalidSolutionError(f"{name} has {len(vec)} entries, instance has {n} machines")
    for i in range(n):
        for name, vec in (("w", c.w), ("s", c.s)):
            if not _is_int(vec[i]) or vec[i] not in (0, 1):
                raise InvalidSolutionError(f"{name}[{i}] must be 0 or 1, got {vec[i]!r}")
        if c.w[i] + c.s[i] > 1:
            raise InvalidSolutionError(
                f"roles not disjoint: {inst.machine_label(i)} is both a worker and a server"
            )
        if c.w[i] + c.s[i] < 1:
            raise InvalidSolutionError(
                f"roles not covering: {inst.machine_label(i)} is neither a worker nor a server"
            )
    if sum(c.w) < 1:
        raise InvalidSolutionError("no worker: at least one machine must be a worker")
    if sum(c.s) < 1:
        raise InvalidSolutionError("no server: at least one machine must be a server")
    for name, vec, total, role_vec, role in (
        ("d", c.d, inst.dataset_size, c.w, "worker"),
        ("m", c.m, inst.model_size, c.s, "server"),
    ):
        for i, x in enumerate(vec):
            if not _is_int(x):
                raise InvalidSolutionError(f"{name}[{i}] must be an integer, got {x!r}")
            if x < 0:
                raise InvalidSolutionError(f"{name}[{i}] must be >= 0, got {x}")
            if x > 0 and role_vec[i] != 1:
                raise InvalidSolutionError(
                    f"{name}[{i}] = {x} but {inst.machine_label(i)} is not a {role}"
                )
        if sum(vec) != total:
            what = "dataset_size D" if name == "d" else "model_size M"
            raise InvalidSolutionError(f"sum of {name} is {sum(vec)}, must equal {what} = {total}")


def comm_times(inst: CruiseInstance, c: CruiseConfig) -> np.ndarray:
    """Per machine ``i``: ``max(max_j m_j ||w|| / b_ij, sum_j m_j / b_ij)`` over servers ``j``
    (the per-mini-batch communication time of (3.4); 0 for non-workers)."""
    n = inst.num_machines
    out = np.zeros(n)
    workers, servers = c.workers, c.servers
    if not workers or not servers:
        return out
    m = np.asarray([c.m[j] for j in servers], dtype=float)
    per = m[None, :] / inst.b[np.ix_(workers, servers)]  # m_j / b_ij, workers x servers
    out[workers] = np.maximum(per.max(axis=1) * len(workers), per.sum(axis=1))
    return out


def epoch_times(inst: CruiseInstance, c: CruiseConfig) -> np.ndarray:
    """``C^i`` of (3.2)-(3.4) for every machine (0 for servers)."""
    t = comm_times(inst, c)
    out = np.zeros(inst.num_machines)
    B = inst.batch_size
    for i in c.workers:
        batches = -(-int(c.d[i]) // B)
        out[i] = float(inst.p[i]) * c.d[i] + batches * float(t[i])
    return out


def evaluate(inst: CruiseInstance, c: CruiseConfig) -> float:
    """The epoch time ``C = max_i C^i`` (3.1), recomputed from the configuration."""
    return float(epoch_times(inst, c).max())


def evaluate_continuous(inst: CruiseInstance, w, d, m) -> float:
    """The epoch time of the *continuous relaxation*: real ``d``, ``m`` and
    ``d_i / B`` mini-batches instead of ``ceil(d_i / B)``.

    ``w`` is the 0/1 worker indicator; every non-worker is a server.
    """
    w = np.asarray(w, dtype=int)
    d = np.asarray(d, dtype=float)
    m = np.asarray(m, dtype=float)
    workers = np.flatnonzero(w == 1)
    servers = np.flatnonzero(w == 0)
    nw = len(workers)
    best = 0.0
    for i in workers:
        per = m[servers] / inst.b[i, servers]
        t = max(per.max() * nw, per.sum())
        best = max(best, inst.p[i] * d[i] + d[i] / inst.batch_size * t)
    return float(best)


def to_json(inst: CruiseInstance, c: CruiseConfig) -> dict:
    """``{"roles": [...], "d": [...], "m": [...], "workers": W, "servers": S, "epoch_times": [...]}``."""
    return {
        "roles": c.roles,
        "d": [int(x) for x in c.d],
        "m": [int(x) for x in c.m],
        "workers": len(c.workers),
        "servers": len(c.servers),
        "epoch_times": [float(x) for x in epoch_times(inst, c)],
    }


def from_json(inst: CruiseInstance, data: Any) -> CruiseConfig:
    """Rebuild a configuration from :func:`to_json` output (``roles``, ``d``, ``m``).

    Only the shape is checked here (raising :class:`~dmlsched.errors.InstanceError`);
    feasibility is :func:`validate`'s job.
    """
    r = Reader(data)
    n = inst.num_machines
    roles = []
    for c in r.items("roles"):
        v = c.as_str()
        if v not in (WORKER, SERVER):
            raise c.error(f"must be {WORKER!r} or {SERVER!r}, got {v!r}")
        roles.append(v)
    if len(roles) != n:
        raise r.error(f"must have {n} entries, got {len(roles)}", "roles")
    d = r.integers("d")
    m = r.integers("m")
    return CruiseConfig.from_roles(roles, d, m)


#: workers with more mini-batches than this are drawn as one computation and one communication bar
MAX_BATCH_BARS = 200


def gantt_bars(inst: CruiseInstance, config: CruiseConfig) -> GanttChart:
    """The Gantt chart of a configuration: one epoch, one row per machine.  A worker
    ``i`` processes ``ceil(d_i / B)`` mini-batches, each computation (``C_proc d``)
    followed by communication with the servers (the per-mini-batch time of (3.4)); a
    server's row spans the epoch with its ``m_j`` model units."""
    comm = comm_times(inst, config)
    epoch = float(epoch_times(inst, config).max())
    B = int(inst.batch_size)
    tasks: list[dict] = []
    labels = []
    for i in range(inst.num_machines):
        if config.w[i] == 1:
            d = int(config.d[i])
            labels.append(f"{i}: worker, d={d}")
            p, t = float(inst.p[i]), float(comm[i])
            nb = -(-d // B)
            x = 0.0
            if nb > MAX_BATCH_BARS:
                tasks.append({"job": "computation", "gpu": i, "start": 0.0, "end": p * d})
                tasks.append({"job": "communication", "gpu": i, "start": p * d, "end": p * d + nb * t})
                continue
            left = d
            for _ in range(nb):
                b = min(B, left)
                left -= b
                tasks.append({"job": "computation", "gpu": i, "start": x, "end": x + p * b})
                x += p * b
                if t > 0:
                    tasks.append({"job": "communication", "gpu": i, "start": x, "end": x + t})
                    x += t
        else:
            labels.append(f"{i}: server, m={int(config.m[i])}")
            tasks.append({"job": "server", "gpu": i, "start": 0.0, "end": epoch})
    return GanttChart(tasks, row_labels=labels, ylabel="machine", xlabel="time (one epoch)",
                      legend_title="phase")
