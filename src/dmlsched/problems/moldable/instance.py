"""Moldable/malleable GPU scheduling instances (Fujiwara et al., Section III).

Identical GPUs ``G`` with ``gpu_memory`` each.  Task ``k`` arrives at
``t_k^arr`` with volume ``v_k`` (its runtime alone on one GPU), a minimum
amount of processor ``p_k^min = 1/n`` (it may share a GPU with up to ``n-1``
others), a maximum ``p_k^max`` in N (dedicated GPUs) and a device-memory need
``m_k`` (same unit as ``gpu_memory``), and optionally the number of dedicated
GPUs ``p_k^req`` the user requested (what the rigid baselines allocate; the
paper's rigid setting is ``(p^min, p^max) = (p^req, p^req)``, Section VI;
``p_max`` when absent).  The runtime on ``p`` processors is
``f(v, p) = v / s(p)`` with the speedup curve ``s`` given as points
(:class:`SpeedupCurve`).

Tasks keep the order of the file; ``arrival_order`` sorts by arrival, ties by
file position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InstanceError
from ...formats import array, family_schema, ident, integer, number, obj
from ...io import Reader
from ...tolerance import TOL, close

#: largest share denominator accepted (1/n with n <= this)
MAX_SHARE_DEN = 1000


@dataclass(frozen=True, eq=False)
class SpeedupCurve:
    """Speed ``s(p)`` of a task on ``p`` processors, relative to one GPU.

    ``points`` are ``(p, s)`` pairs with strictly increasing ``p > 0``.  Between
    points ``s`` is interpolated linearly; below the first point it is
    ``s_0 p / p_0`` (linear through the origin), above the last point it stays
    ``s_last`` (no further speedup).  Required: ``s(1) = 1`` (``v`` is the
    runtime on one GPU), ``s`` non-decreasing and sublinear, i.e. ``s(p)/p``
    non-increasing.  Both properties hold on the whole half-line iff they hold
    at the points (a linear piece ``a + b p`` has ``s/p`` non-increasing iff
    ``a >= 0``, which is the sublinearity of its end points).
    """

    points: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        _check_curve(self.points, "speedup")

    @cached_property
    def _p(self) -> np.ndarray:
        return np.array([p for p, _ in self.points], dtype=float)

    @cached_property
    def _s(self) -> np.ndarray:
        return np.array([s for _, s in self.points], dtype=float)

    def speed(self, p: float) -> float:
        """``s(p)`` for ``p > 0`` (memoised: policies ask for few distinct amounts)."""
        cache = self._cache
        s = cache.get(p)
        if s is None:
            s = cache[p] = self._speed(p)
        return s

    @cached_property
    def _cache(self) -> dict[float, float]:
        return {}

    def _speed(self, p: float) -> float:
        P, S = self._p, self._s
        if p <= P[0]:
            return float(S[0] * p / P[0])
        if p >= P[-1]:
            return float(S[-1])
        return float(np.interp(p, P, S))

    def runtime(self, v: float, p: float) -> float:
        """``f(v, p) = v / s(p)``."""
        return v / self.speed(p)

    @staticmethod
    def linear(max_p: int) -> "SpeedupCurve":
        """Linear speedup ``s(p) = p`` for ``p <= max_p``."""
        return SpeedupCurve(((1.0, 1.0),) if max_p <= 1 else ((1.0, 1.0), (float(max_p), float(max_p))))


def _check_curve(points: tuple[tuple[float, float], ...], path: str) -> None:
    if len(points) == 0:
        raise InstanceError(path, "must have at least one point")
    for i, (p, s) in enumerate(points):
        if not (math.isfinite(p) and p > 0):
            raise InstanceError(f"{path}[{i}][0]", f"processor amount must be > 0, got {p}")
        if not (math.isfinite(s) and s > 0):
            raise InstanceError(f"{path}[{i}][1]", f"speed must be > 0, got {s}")
        if i and not p > points[i - 1][0]:
            raise InstanceError(f"{path}[{i}][0]", "processor amounts must be strictly increasing")
        if i:
            p0, s0 = points[i - 1]
            if s < s0 - TOL * max(1.0, s0):
                raise InstanceError(
                    f"{path}[{i}]", f"speedup must be non-decreasing: s({p})={s} < s({p0})={s0}"
                )
            if s / p > s0 / p0 + TOL * max(1.0, s0 / p0):
                raise InstanceError(
                    f"{path}[{i}]",
                    f"speedup must be sublinear (s(p)/p non-increasing): s({p})/{p}={s / p} > "
                    f"s({p0})/{p0}={s0 / p0}",
                )
    P = [p for p, _ in points]
    S = [s for _, s in points]
    if P[0] >= 1:
        s1 = S[0] / P[0]
    elif P[-1] <= 1:
        s1 = S[-1]
    else:
        s1 = float(np.interp(1.0, P, S))
    if not close(s1, 1.0):
        raise InstanceError(path, f"s(1) must be 1 (volume = runtime on one GPU), got {s1}")


@dataclass(frozen=True)
class MoldableTask:
    """One task; ``p_min = 1/pmin_den``; ``p_req`` the requested dedicated GPUs
    (``None``: ``p_max``), what the rigid policies allocate."""

    id: str
    user: str
    arrival: float
    volume: float
    pmin_den: int
    p_max: int
    memory: float = 0.0
    p_req: int | None = None

    @property
    def p_min(self) -> float:
        return 1.0 / self.pmin_den

    @property
    def request(self) -> int:
        """GPUs a rigid policy allocates: ``p_req``, or ``p_max`` when it is not given."""
        return self.p_max if self.p_req is None else self.p_req


@dataclass(frozen=True, eq=False)
class MoldableInstance:
    """A moldable/malleable scheduling instance (see module docstring)."""

    gpus: int
    gpu_memory: float
    speedup: SpeedupCurve
    tasks: tuple[MoldableTask, ...]
    preemption_overhead: float = 0.0
    preemption_min_remaining: float = 300.0
    name: str = ""
    expected: dict[str, Any] = field(default_factory=dict)
    source: Any = None

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def num_tasks(self) -> int:
        return len(self.tasks)

    @cached_property
    def arrival(self) -> np.ndarray:
        return np.array([t.arrival for t in self.tasks], dtype=float)

    @cached_property
    def volume(self) -> np.ndarray:
        return np.array([t.volume for t in self.tasks], dtype=float)

    @cached_property
    def memory(self) -> np.ndarray:
        return np.array([t.memory for t in self.tasks], dtype=float)

    @cached_property
    def pmin_den(self) -> np.ndarray:
        return np.array([t.pmin_den for t in self.tasks], dtype=np.int64)

    @cached_property
    def p_max(self) -> np.ndarray:
        return np.array([t.p_max for t in self.tasks], dtype=np.int64)

    @cached_property
    def arrival_order(self) -> np.ndarray:
        """Task indices by arrival time, ties by position in the file."""
        return np.lexsort((np.arange(self.num_tasks), self.arrival)).astype(np.int64)

    @cached_property
    def _arrival_rank(self) -> np.ndarray:
        """Position of every task in :attr:`arrival_order`."""
        r = np.empty(self.num_tasks, dtype=np.int64)
        r[self.arrival_order] = np.arange(self.num_tasks)
        return r

    @cached_property
    def _pmin_den_list(self) -> list[int]:
        return [t.pmin_den for t in self.tasks]

    @cached_property
    def _pmin_list(self) -> list[float]:
        return [1.0 / t.pmin_den for t in self.tasks]

    @cached_property
    def _pmax_list(self) -> list[int]:
        return [t.p_max for t in self.tasks]

    @cached_property
    def _max_pmin_den(self) -> int:
        return max(self._pmin_den_list, default=1)

    @cached_property
    def _min_memory(self) -> float:
        return min(self._memory_list, default=0.0)

    @cached_property
    def _share_classes(self) -> tuple[tuple[int, float], ...] | None:
        """Distinct ``(share denominator, memory)`` of tasks that may share a GPU
        (``None`` beyond 32 classes: the policies then skip an early exit)."""
        cls = sorted({(t.pmin_den, float(t.memory)) for t in self.tasks if t.pmin_den > 1})
        return tuple(cls) if len(cls) <= 32 else None

    @cached_property
    def _has_whole_gpu_tasks(self) -> bool:
        return any(t.pmin_den == 1 for t in self.tasks)

    @cached_property
    def _request_list(self) -> list[int]:
        return [t.request for t in self.tasks]

    @cached_property
    def _memory_list(self) -> list[float]:
        return [float(t.memory) for t in self.tasks]

    def allowed_amounts(self, k: int) -> list[float]:
        """``{p in N u F : p_min <= p <= p_max}`` in increasing order."""
        t = self.tasks[k]
        return [1.0 / n for n in range(t.pmin_den, 1, -1)] + [float(n) for n in range(1, t.p_max + 1)]

    def runtime(self, k: int, p: float) -> float:
        """``f(v_k, p)``."""
        return self.speedup.runtime(self.tasks[k].volume, p)

    def with_tasks(self, tasks: list[MoldableTask] | tuple[MoldableTask, ...], **changes: Any) -> "MoldableInstance":
        """A copy with other tasks (and optionally other fields)."""
        d = dict(
            gpus=self.gpus,
            gpu_memory=self.gpu_memory,
            speedup=self.speedup,
            tasks=tuple(tasks),
            preemption_overhead=self.preemption_overhead,
            preemption_min_remaining=self.preemption_min_remaining,
            name=self.name,
            expected={},
            source=self.source,
        )
        d.update(changes)
        return MoldableInstance(**d)


def _validate(inst: MoldableInstance) -> None:
    if inst.gpus < 1:
        raise InstanceError("gpus", f"must be >= 1, got {inst.gpus}")
    if not (math.isfinite(inst.gpu_memory) and inst.gpu_memory > 0):
        raise InstanceError("gpu_memory", "must be a finite number > 0")
    seen: set[str] = set()
    for k, t in enumerate(inst.tasks):
        p = f"tasks[{k}]"
        if t.id in seen:
            raise InstanceError(f"{p}.id", f"duplicate task id {t.id!r}")
        seen.add(t.id)
        if not (math.isfinite(t.volume) and t.volume > 0):
            raise InstanceError(f"{p}.volume", f"must be > 0, got {t.volume}")
        if not (math.isfinite(t.arrival) and t.arrival >= 0):
            raise InstanceError(f"{p}.arrival", f"must be >= 0, got {t.arrival}")
        if not 1 <= t.pmin_den <= MAX_SHARE_DEN:
            raise InstanceError(f"{p}.p_min", f"must be 1/n with 1 <= n <= {MAX_SHARE_DEN}")
        if not 1 <= t.p_max <= inst.gpus:
            raise InstanceError(
                f"{p}.p_max", f"must be an integer in [1, gpus={inst.gpus}], got {t.p_max}"
            )
        if t.p_req is not None and not 1 <= t.p_req <= t.p_max:
            raise InstanceError(
                f"{p}.p_req", f"must be an integer in [1, p_max={t.p_max}], got {t.p_req}"
            )
        if not (math.isfinite(t.memory) and 0 <= t.memory <= inst.gpu_memory):
            raise InstanceError(
                f"{p}.memory", f"must be in [0, gpu_memory={inst.gpu_memory}], got {t.memory}"
            )


def _unit_fraction(r: Reader) -> int:
    """Parse ``p_min``: a number ``1/n`` or a string ``"1/n"``; returns ``n``."""
    v = r.value
    if isinstance(v, str):
        try:
            fr = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise r.error(f"must be a unit fraction 1/n, got {v!r}") from None
        if fr <= 0 or fr.numerator != 1:
            raise r.error(f"must be a unit fraction 1/n, got {v!r}")
        n = fr.denominator
    else:
        x = r.as_number(gt=0, le=1)
        n = int(round(1.0 / x))
        if n < 1 or not close(1.0 / n, x, 1e-9):
            raise r.error(f"must be a unit fraction 1/n, got {x!r}")
    if n > MAX_SHARE_DEN:
        raise r.error(f"must be 1/n with n <= {MAX_SHARE_DEN}, got 1/{n}")
    return n


TASK_KEYS = ("id", "user", "arrival", "volume", "p_min", "p_max", "p_req", "memory")
TOP_KEYS = ("gpus", "gpu_memory", "speedup", "preemption_overhead", "preemption_min_remaining", "tasks")


def _id(r: Reader, key: str, default: Any = None) -> str:
    if default is not None and not r.has(key):
        return default
    return r[key].as_id()


def from_dict(data: Any) -> MoldableInstance:
    """Parse and validate a ``"problem": "moldable"`` instance.

    Raises
    ------
    InstanceError
        Naming the field, e.g. ``tasks[2].p_min: must be a unit fraction 1/n``.
    """
    r = Reader(data)
    r.check_keys(TOP_KEYS, common=True)
    gpus = r.integer("gpus", ge=1, le=100_000)
    gpu_memory = r.number("gpu_memory", gt=0)
    sp = r["speedup"]
    pts = []
    for i, pr in enumerate(sp.items(min_len=1)):
        pair = pr.arr()
        if len(pair) != 2:
            raise pr.error("must be a [p, speed] pair")
        pts.append((pr[0].as_number(gt=0), pr[1].as_number(gt=0)))
    speedup = SpeedupCurve(tuple(pts))
    tasks = []
    for tr in r.items("tasks", min_len=1):
        tr.check_keys(TASK_KEYS)
        tid = _id(tr, "id")
        tasks.append(
            MoldableTask(
                id=tid,
                user=_id(tr, "user", default="-"),
                arrival=tr.number("arrival", 0.0, ge=0),
                volume=tr.number("volume", gt=0),
                pmin_den=_unit_fraction(tr["p_min"]) if tr.has("p_min") else 1,
                p_max=tr.integer("p_max", 1, ge=1, le=gpus),
                memory=tr.number("memory", 0.0, ge=0, le=gpu_memory),
                p_req=tr.integer("p_req", ge=1, le=gpus) if tr.has("p_req") else None,
            )
        )
    expected = r["expected"].obj() if r.has("expected") else {}
    return MoldableInstance(
        gpus=gpus,
        gpu_memory=gpu_memory,
        speedup=speedup,
        tasks=tuple(tasks),
        preemption_overhead=r.number("preemption_overhead", 0.0, ge=0),
        preemption_min_remaining=r.number("preemption_min_remaining", 300.0, ge=0),
        name=r.string("name", "", nonempty=False),
        expected=dict(expected),
        source=r.get("source").value if r.has("source") else None,
    )


def _pmin_json(n: int) -> Any:
    return 1 if n == 1 else f"1/{n}"


def _task_json(t: MoldableTask) -> dict:
    d: dict[str, Any] = {
        "id": t.id,
        "user": t.user,
        "arrival": t.arrival,
        "volume": t.volume,
        "p_min": _pmin_json(t.pmin_den),
        "p_max": t.p_max,
    }
    if t.p_req is not None:
        d["p_req"] = t.p_req
    d["memory"] = t.memory
    return d


def to_dict(inst: MoldableInstance) -> dict:
    d: dict[str, Any] = {"problem": "moldable"}
    if inst.name:
        d["name"] = inst.name
    if inst.source is not None:
        d["source"] = inst.source
    d.update(
        gpus=inst.gpus,
        gpu_memory=inst.gpu_memory,
        speedup=[[p, s] for p, s in inst.speedup.points],
        preemption_overhead=inst.preemption_overhead,
        preemption_min_remaining=inst.preemption_min_remaining,
        tasks=[_task_json(t) for t in inst.tasks],
    )
    if inst.expected:
        d["expected"] = dict(inst.expected)
    return d


def size(inst: MoldableInstance) -> dict:
    return {"tasks": inst.num_tasks, "gpus": inst.gpus}


# ---------------------------------------------------------------------------
# the JSON Schema of the instance files (built from dmlsched.formats' blocks)
def schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``"problem": "moldable"`` instance files (``Family.schema``)."""
    point = {"type": "array", "minItems": 2, "maxItems": 2,
             "prefixItems": [number("processors p", gt=0), number("speed s(p)", gt=0)],
             "description": "a point [p, s(p)] of the speedup curve"}
    task = obj({
        "id": ident("task id"),
        "user": ident("the user the task belongs to (default '-')"),
        "arrival": number("arrival time t^arr", ge=0, default=0.0),
        "volume": number("volume v: runtime alone on one GPU", gt=0),
        "p_min": {"type": ["number", "string"], "description": "least processor share p^min = 1/n, n <= 1000, as a "
                  "number or a string '1/n' (default 1)", "exclusiveMinimum": 0, "maximum": 1,
                  "pattern": r"^\s*1\s*/\s*[0-9]+\s*$"},
        "p_max": integer("most dedicated GPUs p^max (default 1; <= gpus)", ge=1, default=1),
        "p_req": integer("GPUs the user requested p^req (the rigid policies' allocation; <= gpus)", ge=1),
        "memory": number("device memory m (same unit as gpu_memory; <= gpu_memory)", ge=0, default=0.0),
    }, ("id", "volume"), "one task")
    return family_schema(
        "moldable", "Moldable/malleable GPU scheduling instance (Fujiwara et al., Section III)",
        {"gpus": integer("identical GPUs G", ge=1, le=100_000),
         "gpu_memory": number("device memory per GPU", gt=0),
         "speedup": array(point, "the speedup curve s as points with increasing p", min_items=1),
         "preemption_overhead": number("seconds lost at each preemption", ge=0, default=0.0),
         "preemption_min_remaining": number("a task with less remaining time is not preempted", ge=0,
                                            default=300.0),
         "tasks": array(task, "the tasks, in file order")},
        ("gpus", "gpu_memory", "speedup", "tasks"),
        "Identical GPUs shared by moldable/malleable tasks; objective: average flow time.",
        ("p_min is a unit fraction 1/n with n <= 1000", "p_max, p_req <= gpus; memory <= gpu_memory",
         "speedup points have strictly increasing p"))
