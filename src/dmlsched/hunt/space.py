"""Instance spaces of the hunt: how to sample, mutate and shrink instances of a family.

A :class:`Space` works on the family's JSON form (the dict that
:func:`dmlsched.from_dict` reads), so one set of *structure-aware moves* serves
every family and every candidate is checked by the family's own loader (a
move that produces an invalid instance is rejected and another is drawn):

* ``scale``    multiply a number by a factor (times, sizes, weights);
* ``nudge``    add or subtract a small step to a number (move an arrival);
* ``round``    round a number to a coarse grid;
* ``step``     add or subtract 1 to an integer (rounds, tasks, GPUs);
* ``dup``      duplicate an element of an element list (duplicate a job);
* ``light``    duplicate an element and shrink its numbers (add a light task);
* ``heavy``    scale every number of one element (scale a job);
* ``drop``     delete an element of an element list;
* ``swap``     replace a string by another string seen in the same list
  (change a GPU type).

Each family declares which lists hold elements (``jobs``, ``tasks``,
``machines``, ...), which keys are never touched (``problem``, ``id``, ...),
a sampler of small random instances and the *size caps* of the space
(:data:`SPACES`): the size parameters bound the sampler AND every move
(:meth:`Space.within`), so a search cannot drift to instances its exact
reference cannot solve in the time it has.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import DmlschedError

Path = tuple  # a path of keys/indices into the JSON dict


class HuntError(DmlschedError, ValueError):
    """A hunt that cannot run (unknown family, method or strategy; bad size)."""


MOVES = ("scale", "nudge", "round", "step", "dup", "light", "heavy", "drop", "swap")


@dataclass
class Space:
    """The instance space of one family.

    Attributes
    ----------
    problem
        Family name.
    sample
        ``sample(rng, size) -> dict``: a random small instance (JSON form).
    element_lists
        Keys of lists whose elements are whole objects (jobs, tasks,
        machines) that moves may duplicate or drop.
    protected
        Keys whose values moves never change.
    integer_keys
        Keys holding integers (moved by ``step``; ``scale`` keeps them integral).
    min_elements
        Smallest length of each element list.
    default_size
        Size parameters of :attr:`sample` (documented per family).
    fix
        ``fix(dict) -> dict`` repairs derived fields after a move (e.g. a
        horizon that must cover the instance), or ``None``.
    within
        ``within(dict, size) -> bool``: whether an instance respects the size
        caps (moves that leave them are rejected), or ``None`` (no caps).
    magnitude
        ``(lo, hi)``: every number a move leaves outside ``{0} u [lo, hi]``
        (in absolute value) is rejected, so repeated scaling cannot reach
        degenerate data (``1e15`` next to ``1e-12``) whose "ratios" measure
        floating point rather than the heuristic.
    """

    problem: str
    sample: Callable[[np.random.Generator, dict], dict]
    element_lists: tuple[str, ...] = ("jobs",)
    protected: frozenset[str] = frozenset({"problem", "name", "id", "description", "source", "expected"})
    integer_keys: frozenset[str] = frozenset()
    min_elements: dict[str, int] = field(default_factory=dict)
    default_size: dict[str, Any] = field(default_factory=dict)
    fix: Callable[[dict], dict] | None = None
    within: Callable[[dict, dict], bool] | None = None
    magnitude: tuple[float, float] = (1e-4, 1e4)

    # -- helpers -----------------------------------------------------------
    def size(self, size: dict | None) -> dict:
        out = dict(self.default_size)
        for k, v in (size or {}).items():
            if k not in self.default_size:
                raise HuntError(
                    f"unknown size parameter {k!r} for {self.problem}; known: {', '.join(sorted(self.default_size))}"
                )
            out[k] = v
        return out

    def valid(self, data: dict) -> bool:
        from ..io import from_dict

        try:
            from_dict(data)
        except DmlschedError:
            return False
        except (ValueError, TypeError, OverflowError, ZeroDivisionError):
            return False
        return True

    def finish(self, data: dict) -> dict:
        return self.fix(data) if self.fix is not None else data

    def fits(self, data: dict, size: dict | None) -> bool:
        """Whether ``data`` respects the magnitudes and the size caps ``size``
        (only the magnitudes without ``size``)."""
        lo, hi = self.magnitude
        for p in self.numeric_leaves(data):
            v = abs(float(_get(data, p)))
            if v != 0.0 and not (lo <= v <= hi):
                return False
        if size is None or self.within is None:
            return True
        try:
            return bool(self.within(data, size))
        except (KeyError, TypeError, ValueError, AttributeError):
            return False

    # -- leaves ----------------------------------------------------------------
    def numeric_leaves(self, data: Any, prefix: Path = ()) -> list[Path]:
        out: list[Path] = []
        if isinstance(data, dict):
            for k, v in data.items():
                if k in self.protected:
                    continue
                out.extend(self.numeric_leaves(v, prefix + (k,)))
        elif isinstance(data, list):
            for i, v in enumerate(data):
                out.extend(self.numeric_leaves(v, prefix + (i,)))
        elif isinstance(data, (int, float)) and not isinstance(data, bool):
            out.append(prefix)
        return out

    def string_leaves(self, data: Any, prefix: Path = ()) -> list[Path]:
        out: list[Path] = []
        if isinstance(data, dict):
            for k, v in data.items():
                if k in self.protected:
                    continue
                out.extend(self.string_leaves(v, prefix + (k,)))
        elif isinstance(data, list):
            for i, v in enumerate(data):
                if isinstance(v, str):
                    out.append(prefix + (i,))
                else:
                    out.extend(self.string_leaves(v, prefix + (i,)))
        return out

    # -- moves -------------------------------------------------------------------
    def mutate(self, rng: np.random.Generator, data: dict, tries: int = 50, size: dict | None = None) -> dict:
        """A valid neighbour of ``data`` by one random move (``data`` itself if none is found).

        With ``size``, neighbours outside the size caps (:meth:`fits`) are rejected.
        """
        for _ in range(tries):
            move = MOVES[int(rng.integers(len(MOVES)))]
            new = self.apply(rng, data, move)
            if new is not None:
                new = self.finish(new)
                if new != data and self.fits(new, size) and self.valid(new):
                    return new
        return data

    def apply(self, rng: np.random.Generator, data: dict, move: str) -> dict | None:
        d = copy.deepcopy(data)
        if move in ("scale", "nudge", "round", "step"):
            leaves = self.numeric_leaves(d)
            if move == "step":
                leaves = [p for p in leaves if self._is_int(p)]
            if not leaves:
                return None
            p = leaves[int(rng.integers(len(leaves)))]
            v = _get(d, p)
            if move == "scale":
                f = float(rng.choice([0.5, 0.8, 1.25, 2.0, 0.1, 10.0]))
                nv: float = v * f
            elif move == "nudge":
                nv = v + float(rng.choice([-1.0, -0.5, -0.25, 0.25, 0.5, 1.0])) * max(1.0, abs(v)) * 0.5
            elif move == "round":
                grid = float(rng.choice([1.0, 0.5, 0.25]))
                nv = round(v / grid) * grid
            else:
                nv = v + int(rng.choice([-1, 1]))
            if self._is_int(p):
                nv = int(round(nv))
            elif isinstance(v, float) or not float(nv).is_integer():
                nv = float(nv)
            if isinstance(nv, float) and (not math.isfinite(nv)):
                return None
            _set(d, p, nv)
            return d
        if move in ("dup", "light", "heavy", "drop"):
            lists = [k for k in self.element_lists if isinstance(d.get(k), list) and d[k]]
            if not lists:
                return None
            key = lists[int(rng.integers(len(lists)))]
            items = d[key]
            i = int(rng.integers(len(items)))
            if move == "drop":
                if len(items) <= self.min_elements.get(key, 1):
                    return None
                del items[i]
                return d
            if move == "heavy":
                f = float(rng.choice([0.25, 0.5, 2.0, 4.0]))
                items[i] = self._scale_all(items[i], f)
                return d
            new = copy.deepcopy(items[i])
            if move == "light":
                new = self._scale_all(new, float(rng.choice([0.05, 0.1, 0.25])))
            if isinstance(new, dict) and isinstance(new.get("id"), str):
                used = {x.get("id") for x in items if isinstance(x, dict)}
                k = len(items)
                while f"{new['id']}-{k}" in used:
                    k += 1
                new["id"] = f"{new['id']}-{k}"
            items.insert(int(rng.integers(len(items) + 1)), new)
            return d
        if move == "swap":
            leaves = self.string_leaves(d)
            if not leaves:
                return None
            p = leaves[int(rng.integers(len(leaves)))]
            parent = _get(d, p[:-1])
            choices = sorted({x for x in parent if isinstance(x, str)})
            if len(choices) < 2:
                return None
            cur = _get(d, p)
            other = [c for c in choices if c != cur]
            _set(d, p, other[int(rng.integers(len(other)))])
            return d
        raise HuntError(f"unknown move {move!r}")

    def _is_int(self, p: Path) -> bool:
        return any(isinstance(k, str) and k in self.integer_keys for k in p)

    def _scale_all(self, obj: Any, f: float, prefix: Path = ()) -> Any:
        if isinstance(obj, dict):
            return {k: (v if k in self.protected or k in self.integer_keys else self._scale_all(v, f, prefix + (k,)))
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._scale_all(v, f, prefix) for v in obj]
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return float(obj) * f
        return obj

    # -- shrinking candidates ------------------------------------------------------
    def shrink_candidates(self, data: dict) -> Iterator[dict]:
        """Smaller or simpler variants of ``data``, most aggressive first:
        drop an element, decrement an integer, round a number (to 1, then 0.5,
        then 0.25), each as one candidate."""
        for key in self.element_lists:
            items = data.get(key)
            if not isinstance(items, list):
                continue
            for i in range(len(items) - 1, -1, -1):
                if len(items) <= self.min_elements.get(key, 1):
                    break
                d = copy.deepcopy(data)
                del d[key][i]
                yield self.finish(d)
        for p in self.numeric_leaves(data):
            if self._is_int(p):
                v = _get(data, p)
                if v > 1:
                    d = copy.deepcopy(data)
                    _set(d, p, v - 1)
                    yield self.finish(d)
        for grid in (1.0, 0.5, 0.25):
            for p in self.numeric_leaves(data):
                if self._is_int(p):
                    continue
                v = _get(data, p)
                r = round(v / grid) * grid
                if r != v:
                    d = copy.deepcopy(data)
                    _set(d, p, float(r))
                    yield self.finish(d)


def _get(d: Any, p: Path) -> Any:
    for k in p:
        d = d[k]
    return d


def _set(d: Any, p: Path, v: Any) -> None:
    for k in p[:-1]:
        d = d[k]
    d[p[-1]] = v


# ---------------------------------------------------------------------------
# family samplers (small instances, on coarse grids so exact references are fast)
# and their size caps (the same size parameters bound the sampler and the moves)


def _grid(rng: np.random.Generator, lo: float, hi: float, step: float = 0.25) -> float:
    k = int(rng.integers(int(round(lo / step)), int(round(hi / step)) + 1))
    return round(k * step, 6)


#: job weights of the Hare sampler: spread over orders of magnitude (a heavy job
#: among light ones is the structure of the known list-scheduling traps)
HARE_WEIGHTS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def _hare(rng: np.random.Generator, s: dict) -> dict:
    types = ["A", "B", "C"][: int(s["types"])]
    m = int(rng.integers(1, int(s["gpus"]) + 1))
    gpus = [types[int(rng.integers(len(types)))] for _ in range(m)]
    used = sorted(set(gpus))
    jobs = []
    budget = int(s["tasks"])
    for n in range(int(rng.integers(1, int(s["jobs"]) + 1))):
        if budget <= 0:
            break
        k = int(rng.integers(1, int(s["tasks_per_round"]) + 1))
        r = int(rng.integers(1, int(s["rounds"]) + 1))
        if k * r > budget:
            k, r = 1, 1
        budget -= k * r
        base = _grid(rng, 0.25, 4.0)
        train = {g: round(base * _grid(rng, 1.0, float(s["alpha"]), 0.25), 6) for g in used}
        sync_base = 0.0 if rng.random() < 0.5 else _grid(rng, 0.25, 1.0)
        sync = {g: sync_base for g in used}  # equal sync across types keeps alpha finite
        arrival = 0.0 if rng.random() < 0.5 else _grid(rng, 0.25, 3.0)
        jobs.append({"id": f"J{n}", "arrival": arrival,
                     "weight": float(HARE_WEIGHTS[int(rng.integers(len(HARE_WEIGHTS)))]),
                     "rounds": r, "tasks_per_round": k, "train_time": train, "sync_time": sync})
    return {"problem": "hare", "gpus": gpus, "jobs": jobs}


def _hare_fix(d: dict) -> dict:
    """Keep each job's times for the GPU types the cluster still has (a move that
    takes a type's last GPU away would otherwise leave times that read as a typo)."""
    types = set(d.get("gpus", ()))
    for j in d.get("jobs", ()):
        for key in ("train_time", "sync_time"):
            if isinstance(j.get(key), dict):
                j[key] = {g: t for g, t in j[key].items() if g in types}
    return d


def _hare_within(d: dict, s: dict) -> bool:
    """Size caps, and positive weights: a job of weight 0 makes the relaxation
    degenerate (any start of its tasks is optimal), so Algorithm 1's order
    would be whichever optimal vertex the LP solver returns."""
    jobs = d["jobs"]
    tasks = sum(int(j["rounds"]) * int(j["tasks_per_round"]) for j in jobs)
    return (len(jobs) <= int(s["jobs"]) and len(d["gpus"]) <= int(s["gpus"]) and tasks <= int(s["tasks"])
            and len(set(d["gpus"])) <= int(s["types"]) and all(float(j["weight"]) > 0 for j in jobs))


def _rar(rng: np.random.Generator, s: dict) -> dict:
    servers = [int(rng.integers(1, int(s["capacity"]) + 1)) for _ in range(int(rng.integers(1, int(s["servers"]) + 1)))]
    total = sum(servers)
    jobs = []
    for i in range(int(rng.integers(1, int(s["jobs"]) + 1))):
        jobs.append({
            "id": f"j{i}", "gpus": int(rng.integers(1, min(total, 4) + 1)),
            "iterations": int(rng.integers(1, int(s["iterations"]) + 1)),
            "grad_size": float(rng.choice([0.0, 0.5, 1.0, 2.0, 4.0])),
            "fp_time": float(rng.choice([0.0, 0.001, 0.002])), "batch": int(rng.choice([1, 8, 32])),
            "bp_time": float(rng.choice([0.02, 0.05, 0.1, 0.2, 0.4])),
        })
    return {"problem": "rar", "servers": servers,
            "bandwidth": {"intra": float(rng.choice([50.0, 100.0])), "inter": float(rng.choice([5.0, 10.0, 20.0]))},
            "gpu_speed": float(rng.choice([100.0, 1000.0])), "xi1": 1.0, "xi2": float(rng.choice([0.01, 0.05])),
            "alpha": float(rng.choice([0.0, 1.0, 3.0])), "horizon": int(s["horizon"]), "jobs": jobs,
            "progress": "fractional"}


def _rar_fix(d: dict) -> dict:
    d["horizon"] = max(int(d.get("horizon", 1)), 1)
    return d


def _rar_within(d: dict, s: dict) -> bool:
    return (len(d["jobs"]) <= int(s["jobs"]) and len(d["servers"]) <= int(s["servers"])
            and max(d["servers"]) <= int(s["capacity"]) and int(d["horizon"]) <= int(s["horizon"])
            and all(int(j["iterations"]) <= int(s["iterations"]) for j in d["jobs"]))


def _harmony(rng: np.random.Generator, s: dict) -> dict:
    jobs = [{"id": f"J{i}", "t_cpu": _grid(rng, 0.5, 5.0, 0.5), "t_net": _grid(rng, 0.5, 5.0, 0.5),
             "iterations": int(rng.integers(1, int(s["iterations"]) + 1))}
            for i in range(int(rng.integers(2, int(s["jobs"]) + 1)))]
    return {"problem": "harmony", "machines": int(rng.integers(1, int(s["machines"]) + 1)),
            "reference_dop": int(rng.integers(1, 4)), "weights": {"cpu": 1, "net": 1}, "jobs": jobs}


def _harmony_within(d: dict, s: dict) -> bool:
    return (len(d["jobs"]) <= int(s["jobs"]) and int(d["machines"]) <= int(s["machines"])
            and int(d["reference_dop"]) <= int(s["machines"])
            and all(int(j["iterations"]) <= int(s["iterations"]) for j in d["jobs"]))


#: minimum shares of the moldable sampler: 1/n of a GPU (the paper's p_min)
MOLDABLE_PMIN = (1, "1/2", "1/3", "1/4")


def _moldable(rng: np.random.Generator, s: dict) -> dict:
    g = int(rng.integers(1, int(s["gpus"]) + 1))
    tasks = []
    for i in range(int(rng.integers(1, int(s["tasks"]) + 1))):
        pmax = int(rng.integers(1, g + 1))
        tasks.append({"id": f"T{i}", "user": f"u{int(rng.integers(2))}", "arrival": _grid(rng, 0.0, 4.0, 0.5),
                      "volume": _grid(rng, 0.5, 8.0, 0.5),
                      "p_min": MOLDABLE_PMIN[int(rng.integers(len(MOLDABLE_PMIN)))], "p_max": pmax})
    curve = [[1.0, 1.0]] + [[float(p), round(float(p) ** float(s["speedup_exponent"]), 6)] for p in range(2, g + 1)]
    return {"problem": "moldable", "gpus": g, "gpu_memory": 1.0, "speedup": curve, "preemption_overhead": 0.0,
            "preemption_min_remaining": 0.0, "tasks": tasks}


def _moldable_within(d: dict, s: dict) -> bool:
    return len(d["tasks"]) <= int(s["tasks"]) and int(d["gpus"]) <= int(s["gpus"])


def _cruise(rng: np.random.Generator, s: dict) -> dict:
    machines = [{"name": f"m{i}", "proc_time": _grid(rng, 0.25, 4.0), "bandwidth": _grid(rng, 0.5, 8.0, 0.5)}
                for i in range(int(rng.integers(2, int(s["machines"]) + 1)))]
    return {"problem": "cruise", "machines": machines, "dataset_size": int(rng.integers(1, int(s["dataset"]) + 1)),
            "model_size": int(rng.integers(1, 9)), "batch_size": int(rng.integers(1, 6))}


def _cruise_within(d: dict, s: dict) -> bool:
    return len(d["machines"]) <= int(s["machines"]) and int(d["dataset_size"]) <= int(s["dataset"])


def _grouping(rng: np.random.Generator, s: dict) -> dict:
    n = int(rng.integers(2, int(s["gpus"]) + 1))
    jobs = int(rng.integers(1, int(s["jobs"]) + 1))
    speeds = [[_grid(rng, 0.25, 5.0) for _ in range(n)] for _ in range(jobs)]
    groups = int(rng.integers(1, max(1, n // 2) + 1))
    return {"problem": "gpu-grouping", "speeds": speeds, "groups": groups}


def _grouping_within(d: dict, s: dict) -> bool:
    return len(d["speeds"]) <= int(s["jobs"]) and all(len(row) <= int(s["gpus"]) for row in d["speeds"])


SPACES: dict[str, Space] = {
    "hare": Space(
        "hare", _hare, element_lists=("jobs",), integer_keys=frozenset({"rounds", "tasks_per_round"}),
        default_size={"jobs": 4, "gpus": 3, "types": 2, "rounds": 2, "tasks_per_round": 3, "tasks": 8, "alpha": 2.0},
        within=_hare_within, fix=_hare_fix,
    ),
    "rar": Space(
        "rar", _rar, element_lists=("jobs",),
        integer_keys=frozenset({"gpus", "iterations", "batch", "horizon", "servers"}),
        default_size={"jobs": 3, "servers": 2, "capacity": 2, "iterations": 8, "horizon": 40}, fix=_rar_fix,
        within=_rar_within,
    ),
    "harmony": Space(
        "harmony", _harmony, element_lists=("jobs",),
        protected=frozenset({"problem", "name", "id", "description", "source", "expected", "weights"}),
        integer_keys=frozenset({"iterations", "machines", "reference_dop"}),
        min_elements={"jobs": 2}, default_size={"jobs": 5, "machines": 4, "iterations": 40},
        within=_harmony_within,
    ),
    "moldable": Space(
        "moldable", _moldable, element_lists=("tasks",),
        protected=frozenset({"problem", "name", "id", "user", "description", "source", "expected", "speedup",
                             "gpu_memory", "preemption_overhead", "preemption_min_remaining", "p_min"}),
        integer_keys=frozenset({"gpus", "p_min", "p_max"}),
        default_size={"tasks": 4, "gpus": 3, "speedup_exponent": 0.8}, within=_moldable_within,
    ),
    "cruise": Space(
        "cruise", _cruise, element_lists=("machines",), min_elements={"machines": 2},
        integer_keys=frozenset({"dataset_size", "model_size", "batch_size"}),
        default_size={"machines": 5, "dataset": 40}, within=_cruise_within,
    ),
    "gpu-grouping": Space(
        "gpu-grouping", _grouping, element_lists=("speeds",), integer_keys=frozenset({"groups"}),
        default_size={"gpus": 6, "jobs": 3}, within=_grouping_within,
    ),
}


def get_space(problem: str) -> Space:
    try:
        return SPACES[problem]
    except KeyError:
        raise HuntError(f"no hunt space for {problem!r}; known: {', '.join(sorted(SPACES))}") from None


def register_space(space: Space, *, replace: bool = False) -> Space:
    """Add the space of a (plugin) family."""
    if space.problem in SPACES and not replace:
        raise HuntError(f"a hunt space for {space.problem!r} exists; pass replace=True")
    SPACES[space.problem] = space
    return space
