"""Cruise configuration instances (Lee, dissertation 2020, Section 3.2, Figure 3.2).

``N`` machines, each run either a worker or a server.  Machine ``i`` takes
``proc_time[i]`` seconds (``C^i_{w.proc}``) to process one training sample when
it is a worker; ``bandwidth[i][j]`` (``b_ij``) is the bandwidth between machine
``i`` (as a worker) and machine ``j`` (as a server), in model units per second.
The dataset has ``dataset_size`` samples (``D``), the model ``model_size``
units (``M``), a mini-batch ``batch_size`` samples (``B``).

Two JSON forms give the bandwidths:

* per machine: ``"machines": [{"proc_time": 0.01, "bandwidth": 125.0}, ...]``;
  the link between machines ``i`` and ``j`` then has
  ``b_ij = min(bandwidth_i, bandwidth_j)`` (a link is as fast as its slower
  end; see ``models/cruise.md``);
* explicit matrix: ``"machines": [{"proc_time": 0.01}, ...]`` together with a
  top-level ``"bandwidth": [[...], ...]`` (``N x N``, every off-diagonal entry
  ``> 0``; diagonal entries are never used, since a machine is never its own
  server, and may be ``null``).

The two forms are exclusive: with a matrix, machines must not carry
``bandwidth``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, integer, number, obj, string
from ...io import Reader


@dataclass(frozen=True, eq=False)
class CruiseInstance:
    """A Cruise configuration instance.

    Attributes
    ----------
    proc_time
        ``C^i_{w.proc}``: seconds per training sample on machine ``i`` (> 0).
    machine_bandwidth
        Per-machine bandwidths (the per-machine JSON form), or ``None`` when an
        explicit matrix is given.
    bandwidth_matrix
        The explicit ``N x N`` matrix (the matrix JSON form), or ``None``.
    dataset_size, model_size, batch_size
        ``D``, ``M``, ``B`` (positive integers).
    """

    proc_time: tuple[float, ...]
    dataset_size: int
    model_size: int
    batch_size: int
    machine_bandwidth: tuple[float, ...] | None = None
    bandwidth_matrix: tuple[tuple[float | None, ...], ...] | None = None
    machine_names: tuple[str, ...] | None = None
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)

    # -- sizes ----------------------------------------------------------------
    @property
    def num_machines(self) -> int:
        return len(self.proc_time)

    @property
    def num_batches_max(self) -> int:
        """``ceil(D / B)``: the most mini-batches any worker can run."""
        return -(-self.dataset_size // self.batch_size)

    # -- dense arrays -----------------------------------------------------------
    @cached_property
    def p(self) -> np.ndarray:
        """``p[i] = C^i_{w.proc}``."""
        return np.asarray(self.proc_time, dtype=float)

    @cached_property
    def b(self) -> np.ndarray:
        """``b[i, j] = b_ij`` (worker ``i``, server ``j``); the diagonal is ``inf`` (unused)."""
        n = self.num_machines
        if self.bandwidth_matrix is not None:
            out = np.array(
                [[np.inf if (i == j or v is None) else float(v) for j, v in enumerate(row)]
                 for i, row in enumerate(self.bandwidth_matrix)],
                dtype=float,
            ).reshape(n, n)
        else:
            bw = np.asarray(self.machine_bandwidth, dtype=float)
            out = np.minimum.outer(bw, bw)
        np.fill_diagonal(out, np.inf)
        return out

    @cached_property
    def is_homogeneous(self) -> bool:
        """All ``proc_time`` equal and all off-diagonal ``b_ij`` equal (exactly)."""
        n = self.num_machines
        off = self.b[~np.eye(n, dtype=bool)]
        return bool(np.all(self.p == self.p[0]) and np.all(off == off[0]))

    def machine_label(self, i: int) -> str:
        return self.machine_names[i] if self.machine_names else f"machine {i}"

    @cached_property
    def machine_types(self) -> tuple[tuple[int, ...], ...]:
        """Groups of interchangeable machines (same ``proc_time`` and same
        bandwidths to and from every other machine), in order of first index."""
        n = self.num_machines
        groups: list[list[int]] = []
        for i in range(n):
            for g in groups:
                k = g[0]
                if self.p[i] == self.p[k] and _interchangeable(self.b, i, k):
                    g.append(i)
                    break
            else:
                groups.append([i])
        return tuple(tuple(g) for g in groups)


def _interchangeable(b: np.ndarray, i: int, k: int) -> bool:
    """Swapping machines ``i`` and ``k`` leaves the bandwidth matrix unchanged."""
    n = b.shape[0]
    perm = np.arange(n)
    perm[i], perm[k] = k, i
    return bool(np.array_equal(b[np.ix_(perm, perm)], b))


def _validate(inst: CruiseInstance) -> None:
    n = len(inst.proc_time)
    if n < 2:
        raise InstanceError("machines", f"need at least 2 machines (one worker, one server), got {n}")
    for i, v in enumerate(inst.proc_time):
        if not (np.isfinite(v) and v > 0):
            raise InstanceError(f"machines[{i}].proc_time", f"must be > 0, got {v}")
    for key, v in (("dataset_size", inst.dataset_size), ("model_size", inst.model_size),
                   ("batch_size", inst.batch_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InstanceError(key, f"must be an integer >= 1, got {v!r}")
    if (inst.machine_bandwidth is None) == (inst.bandwidth_matrix is None):
        raise InstanceError(
            "bandwidth", "give either every machine's bandwidth or a top-level bandwidth matrix"
        )
    if inst.machine_bandwidth is not None:
        if len(inst.machine_bandwidth) != n:
            raise InstanceError("machines", "one bandwidth per machine")
        for i, v in enumerate(inst.machine_bandwidth):
            if not (np.isfinite(v) and v > 0):
                raise InstanceError(f"machines[{i}].bandwidth", f"must be > 0, got {v}")
    else:
        mat = inst.bandwidth_matrix
        if len(mat) != n:
            raise InstanceError("bandwidth", f"must have {n} rows (one per machine), got {len(mat)}")
        for i, row in enumerate(mat):
            if len(row) != n:
                raise InstanceError(f"bandwidth[{i}]", f"must have {n} entries, got {len(row)}")
            for j, v in enumerate(row):
                if i == j and v is None:
                    continue
                if v is None or not (np.isfinite(v) and v > 0):
                    raise InstanceError(f"bandwidth[{i}][{j}]", f"must be > 0, got {v}")
    if inst.machine_names is not None:
        if len(inst.machine_names) != n:
            raise InstanceError("machines", "one name per machine")
        seen: set[str] = set()
        for i, nm in enumerate(inst.machine_names):
            if nm in seen:
                raise InstanceError(f"machines[{i}].name", f"duplicate machine name {nm!r}")
            seen.add(nm)


def from_dict(data: Any) -> CruiseInstance:
    """Parse and validate a ``"problem": "cruise"`` instance.

    Raises
    ------
    InstanceError
        Naming the offending field, e.g. ``machines[2].proc_time: must be > 0``.
    """
    r = Reader(data)
    r.check_keys(("machines", "bandwidth", "dataset_size", "model_size", "batch_size"), common=True)
    has_matrix = r.has("bandwidth")
    procs: list[float] = []
    bws: list[float] = []
    names: list[str] = []
    for mr in r.items("machines", min_len=2):
        mr.check_keys(("name", "proc_time", "bandwidth"))
        procs.append(mr.number("proc_time", gt=0))
        if has_matrix:
            if mr.has("bandwidth"):
                raise mr.error(
                    "not allowed together with a top-level bandwidth matrix", "bandwidth"
                )
        else:
            bws.append(mr.number("bandwidth", gt=0))
        if mr.has("name"):
            names.append(mr.string("name"))
    if names and len(names) != len(procs):
        raise r.error("give a name to every machine or to none", "machines")
    matrix = None
    if has_matrix:
        n = len(procs)
        rows = []
        mat_r = r["bandwidth"]
        if len(mat_r.arr()) != n:
            raise mat_r.error(f"must have {n} rows (one per machine), got {len(mat_r.value)}")
        for i, row_r in enumerate(mat_r.items()):
            if len(row_r.arr()) != n:
                raise row_r.error(f"must have {n} entries, got {len(row_r.value)}")
            row: list[float | None] = []
            for j, c in enumerate(row_r.items()):
                if i == j and c.value is None:
                    row.append(None)
                else:
                    row.append(c.as_number(gt=0))
            rows.append(tuple(row))
        matrix = tuple(rows)
    expected = r["expected"].obj() if r.has("expected") else {}
    return CruiseInstance(
        proc_time=tuple(procs),
        dataset_size=r.integer("dataset_size", ge=1),
        model_size=r.integer("model_size", ge=1),
        batch_size=r.integer("batch_size", ge=1),
        machine_bandwidth=None if has_matrix else tuple(bws),
        bandwidth_matrix=matrix,
        machine_names=tuple(names) if names else None,
        name=r.string("name", "", nonempty=False),
        expected=dict(expected),
    )


def to_dict(inst: CruiseInstance) -> dict:
    """The JSON-able dict of ``inst`` (round-trips through :func:`from_dict`)."""
    d: dict[str, Any] = {"problem": "cruise"}
    if inst.name:
        d["name"] = inst.name
    machines = []
    for i, p in enumerate(inst.proc_time):
        m: dict[str, Any] = {}
        if inst.machine_names:
            m["name"] = inst.machine_names[i]
        m["proc_time"] = float(p)
        if inst.machine_bandwidth is not None:
            m["bandwidth"] = float(inst.machine_bandwidth[i])
        machines.append(m)
    d["machines"] = machines
    if inst.bandwidth_matrix is not None:
        d["bandwidth"] = [[None if v is None else float(v) for v in row] for row in inst.bandwidth_matrix]
    d["dataset_size"] = int(inst.dataset_size)
    d["model_size"] = int(inst.model_size)
    d["batch_size"] = int(inst.batch_size)
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: CruiseInstance) -> dict:
    return {
        "machines": inst.num_machines,
        "dataset_size": inst.dataset_size,
        "model_size": inst.model_size,
        "minibatches": inst.num_batches_max,
    }


def homogeneous(n: int, proc_time: float, bandwidth: float, dataset_size: int, model_size: int,
                batch_size: int, name: str = "") -> CruiseInstance:
    """A cluster of ``n`` identical machines (the setting of (3.5))."""
    return CruiseInstance(
        proc_time=(float(proc_time),) * n,
        machine_bandwidth=(float(bandwidth),) * n,
        dataset_size=int(dataset_size),
        model_size=int(model_size),
        batch_size=int(batch_size),
        name=name,
    )


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "cruise"`` instance files (``Family.schema``)."""
    machine = obj({"name": string("machine name (give all machines a name, or none)"),
                   "proc_time": number("seconds to process one sample as a worker C^i_w.proc", gt=0),
                   "bandwidth": number("the machine's bandwidth (link i-j: min of both ends); not with a "
                                       "top-level matrix", gt=0)},
                  ("proc_time",), "one machine")
    row = array({"type": ["number", "null"], "exclusiveMinimum": 0,
                 "description": "bandwidth b_ij from machine i (worker) to machine j (server)"},
                "a row: bandwidth to each machine (the diagonal may be null)")
    return family_schema(
        "cruise", "Cruise instance (Lee, dissertation, Section 3.2)",
        {"machines": array(machine, "the machines (each a worker or a server)", min_items=2),
         "bandwidth": array(row, "optional N x N matrix b_ij, exclusive with per-machine bandwidths"),
         "dataset_size": integer("samples D", ge=1),
         "model_size": integer("model units M", ge=1),
         "batch_size": integer("mini-batch samples B", ge=1)},
        ("machines", "dataset_size", "model_size", "batch_size"),
        "Machines as workers or parameter servers; objective: epoch time.",
        ("every machine has a bandwidth, or a top-level N x N matrix is given (not both)",
         "the matrix has one row and one column per machine, off-diagonal entries > 0"))
